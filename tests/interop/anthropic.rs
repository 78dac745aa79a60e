//! A loopback Anthropic Messages API server for the real Claude Code client.
//!
//! Claude Code talks to `POST /v1/messages` (with `?beta=true`) and streams the answer as
//! server-sent events; it may also ask `POST /v1/messages/count_tokens`. Every request is
//! recorded; every message request gets the same fixed text (a compaction summary too), so
//! runs are deterministic. Anything else gets a 404. It binds `127.0.0.1:0` only and stops when
//! dropped.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::common::http;

use serde_json::{json, Value};

const KEEP_ALIVE: http::Connection = http::Connection::KeepAlive;

/// One request as received.
#[derive(Debug, Clone)]
pub struct Request {
    pub method: String,
    pub path: String,
    pub body: Value,
}

impl Request {
    /// A model turn (not a token count or another side request).
    pub fn is_message(&self) -> bool {
        self.method == "POST" && self.path.split('?').next() == Some("/v1/messages")
    }

    /// The whole body as text, for "how often does X reach the model" checks.
    pub fn text(&self) -> String {
        self.body.to_string()
    }
}

/// What the model answers a message request with.
#[derive(Debug, Clone)]
pub enum Reply {
    Text(String),
    /// One tool call: (tool name, input).
    ToolUse(String, Value),
}

type Script = dyn Fn(&Request) -> Reply + Send + Sync;

/// The running server; dropping it stops it.
pub struct AnthropicServer {
    server: http::Loopback,
    requests: Arc<Mutex<Vec<Request>>>,
}

impl AnthropicServer {
    /// Answers every message request with `reply`.
    pub fn always(reply: &str) -> AnthropicServer {
        let reply = reply.to_string();
        AnthropicServer::start(move |_| Reply::Text(reply.clone()))
    }

    /// Answers every message request with what `script` decides from it.
    pub fn start(script: impl Fn(&Request) -> Reply + Send + Sync + 'static) -> AnthropicServer {
        let requests = Arc::new(Mutex::new(Vec::new()));
        let server = {
            let requests = Arc::clone(&requests);
            http::Loopback::start(move |stream, stop| {
                let _ = handle(stream, &script, &requests, stop);
            })
        };
        AnthropicServer { server, requests }
    }

    /// `http://127.0.0.1:<port>` (Claude Code appends `/v1/messages`).
    pub fn base_url(&self) -> String {
        format!("http://{}", self.server.addr())
    }

    /// Every request so far, oldest first.
    pub fn requests(&self) -> Vec<Request> {
        self.requests.lock().map(|r| r.clone()).unwrap_or_default()
    }
}

/// Serves one keep-alive connection until the client closes it or the server stops.
fn handle(
    stream: TcpStream,
    script: &Script,
    requests: &Mutex<Vec<Request>>,
    stop: &AtomicBool,
) -> std::io::Result<()> {
    stream.set_nonblocking(false)?;
    // Short reads so an idle keep-alive connection notices the server stopping.
    stream.set_read_timeout(Some(Duration::from_millis(200)))?;
    stream.set_write_timeout(Some(Duration::from_secs(30)))?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut stream = stream;
    // Kept across timeouts: a read that times out keeps the bytes it already consumed here.
    let mut line = String::new();
    loop {
        match reader.read_line(&mut line) {
            Ok(0) => return Ok(()),
            Ok(_) => {}
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                if stop.load(Ordering::SeqCst) {
                    return Ok(());
                }
                continue;
            }
            Err(e) => return Err(e),
        }
        reader
            .get_ref()
            .set_read_timeout(Some(Duration::from_secs(30)))?;
        let http::HttpRequest {
            method, path, body, ..
        } = http::read_after_request_line(&line, &mut reader)?;
        line.clear();
        reader
            .get_ref()
            .set_read_timeout(Some(Duration::from_millis(200)))?;
        let request = Request {
            method,
            path,
            body: serde_json::from_slice(&body).unwrap_or(Value::Null),
        };
        let streamed = request.body["stream"].as_bool().unwrap_or(false);
        let model = request.body["model"]
            .as_str()
            .unwrap_or("interop")
            .to_string();
        let path_only = request
            .path
            .split('?')
            .next()
            .unwrap_or_default()
            .to_string();
        let method = request.method.clone();
        let reply = if request.is_message() {
            script(&request)
        } else {
            Reply::Text(String::new())
        };
        if let Ok(mut all) = requests.lock() {
            all.push(request);
        }
        match (method.as_str(), path_only.as_str()) {
            ("POST", "/v1/messages") if streamed => {
                http::respond(&mut stream, 200, "text/event-stream", &[], sse(&reply, &model).as_bytes(), KEEP_ALIVE)?
            }
            ("POST", "/v1/messages") => {
                http::respond(&mut stream, 200, "application/json", &[], message(&reply, &model).to_string().as_bytes(), KEEP_ALIVE)?
            }
            ("POST", "/v1/messages/count_tokens") => {
                http::respond(&mut stream, 200, "application/json", &[], br#"{"input_tokens":10}"#, KEEP_ALIVE)?
            }
            _ => http::respond(
                &mut stream,
                404,
                "application/json",
                &[],
                br#"{"type":"error","error":{"type":"not_found_error","message":"not served here"}}"#,
                KEEP_ALIVE,
            )?,
        }
    }
}

fn usage() -> Value {
    json!({"input_tokens": 1, "output_tokens": 1})
}

fn message(reply: &Reply, model: &str) -> Value {
    let (content, stop) = match reply {
        Reply::Text(t) => (json!([{"type": "text", "text": t}]), "end_turn"),
        Reply::ToolUse(name, input) => (
            json!([{"type": "tool_use", "id": "toolu_interop", "name": name, "input": input}]),
            "tool_use",
        ),
    };
    json!({
        "id": "msg_interop", "type": "message", "role": "assistant", "model": model,
        "content": content,
        "stop_reason": stop, "stop_sequence": null, "usage": usage()
    })
}

fn sse(reply: &Reply, model: &str) -> String {
    let reply = match reply {
        Reply::Text(t) => t.as_str(),
        Reply::ToolUse(name, input) => return sse_tool_use(name, input, model),
    };
    let events = [
        (
            "message_start",
            json!({"type": "message_start", "message": {
            "id": "msg_interop", "type": "message", "role": "assistant", "model": model,
            "content": [], "stop_reason": null, "stop_sequence": null, "usage": usage()}}),
        ),
        (
            "content_block_start",
            json!({"type": "content_block_start", "index": 0,
            "content_block": {"type": "text", "text": ""}}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0,
            "delta": {"type": "text_delta", "text": reply}}),
        ),
        (
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 0}),
        ),
        (
            "message_delta",
            json!({"type": "message_delta",
            "delta": {"stop_reason": "end_turn", "stop_sequence": null}, "usage": {"output_tokens": 1}}),
        ),
        ("message_stop", json!({"type": "message_stop"})),
    ];
    events
        .iter()
        .map(|(name, data)| format!("event: {name}\ndata: {data}\n\n"))
        .collect()
}

/// A streamed answer that is one tool call.
fn sse_tool_use(name: &str, input: &Value, model: &str) -> String {
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let id = format!("toolu_interop_{}", CALLS.fetch_add(1, Ordering::SeqCst));
    let events = [
        (
            "message_start",
            json!({"type": "message_start", "message": {
            "id": "msg_interop", "type": "message", "role": "assistant", "model": model,
            "content": [], "stop_reason": null, "stop_sequence": null, "usage": usage()}}),
        ),
        (
            "content_block_start",
            json!({"type": "content_block_start", "index": 0,
            "content_block": {"type": "tool_use", "id": id, "name": name, "input": {}}}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0,
            "delta": {"type": "input_json_delta", "partial_json": input.to_string()}}),
        ),
        (
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 0}),
        ),
        (
            "message_delta",
            json!({"type": "message_delta",
            "delta": {"stop_reason": "tool_use", "stop_sequence": null}, "usage": {"output_tokens": 1}}),
        ),
        ("message_stop", json!({"type": "message_stop"})),
    ];
    events
        .iter()
        .map(|(name, data)| format!("event: {name}\ndata: {data}\n\n"))
        .collect()
}
