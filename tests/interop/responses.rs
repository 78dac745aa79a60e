//! A loopback OpenAI Responses-API server for the real Codex CLI client.
//!
//! Codex CLI speaks only the Responses API (a `wire_api = "chat"` provider is refused at start,
//! docs/mcp.md): it sends `POST /v1/responses` with `"stream": true` and reads server-sent
//! events. This server answers each such request with what a closure decides from it (a text
//! message or one `function_call` item), as the three events `response.created`,
//! `response.output_item.done` and `response.completed`, and records every request, whatever its
//! path. Anything else gets a 404. It binds `127.0.0.1:0` only and stops when dropped.
#![allow(dead_code)]

use std::io::BufReader;
use std::net::TcpStream;
use std::sync::atomic::{AtomicUsize, Ordering};
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
    /// Header names lowercased.
    pub headers: Vec<(String, String)>,
    /// The JSON body (`Null` when it was not JSON).
    pub body: Value,
}

/// One `function_call` item of the conversation so far.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Call {
    pub namespace: Option<String>,
    pub name: String,
    pub call_id: String,
}

impl Request {
    /// A model turn: `POST …/responses`.
    pub fn is_response(&self) -> bool {
        self.method == "POST"
            && self
                .path
                .split('?')
                .next()
                .unwrap_or_default()
                .ends_with("/responses")
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The conversation items (`input`).
    pub fn input(&self) -> Vec<Value> {
        self.body["input"].as_array().cloned().unwrap_or_default()
    }

    /// Names of the tools offered: a function as `name`, a namespace as `namespace` and each
    /// of its tools as `namespace.name`.
    pub fn tool_names(&self) -> Vec<String> {
        let mut out = Vec::new();
        for tool in self.body["tools"].as_array().into_iter().flatten() {
            let Some(name) = tool["name"].as_str() else {
                continue;
            };
            out.push(name.to_string());
            if tool["type"] == "namespace" {
                for inner in tool["tools"].as_array().into_iter().flatten() {
                    if let Some(n) = inner["name"].as_str() {
                        out.push(format!("{name}.{n}"));
                    }
                }
            }
        }
        out
    }

    /// The `function_call` items so far, oldest first.
    pub fn calls(&self) -> Vec<Call> {
        self.input()
            .iter()
            .filter(|i| i["type"] == "function_call")
            .map(|i| Call {
                namespace: i["namespace"].as_str().map(str::to_string),
                name: i["name"].as_str().unwrap_or_default().to_string(),
                call_id: i["call_id"].as_str().unwrap_or_default().to_string(),
            })
            .collect()
    }

    /// The text of the `function_call_output` answering `call_id`, if there is one.
    pub fn output_of(&self, call_id: &str) -> Option<String> {
        self.input()
            .iter()
            .find(|i| i["type"] == "function_call_output" && i["call_id"] == call_id)
            .map(|i| output_text(&i["output"]))
    }
}

/// A tool output is a string or a list of content items (`input_text` and others).
pub fn output_text(output: &Value) -> String {
    match output {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .map(|p| match p["text"].as_str() {
                Some(t) => t.to_string(),
                None => p.to_string(),
            })
            .collect::<Vec<_>>()
            .join("\n"),
        other => other.to_string(),
    }
}

/// What the model answers.
#[derive(Debug, Clone)]
pub enum Reply {
    /// An assistant message.
    Text(String),
    /// One `function_call` item: the tool's namespace (as offered), its name, its arguments.
    Call {
        namespace: Option<String>,
        name: String,
        arguments: Value,
    },
}

type Script = dyn Fn(&Request) -> Reply + Send + Sync;

/// The running server; dropping it stops it.
pub struct ResponsesServer {
    server: http::Loopback,
    requests: Arc<Mutex<Vec<Request>>>,
}

impl ResponsesServer {
    /// Answers every model turn with what `script` decides from it.
    pub fn start(script: impl Fn(&Request) -> Reply + Send + Sync + 'static) -> ResponsesServer {
        let requests = Arc::new(Mutex::new(Vec::new()));
        let server = {
            let requests = Arc::clone(&requests);
            http::Loopback::start(move |stream, _stop| {
                let _ = handle(stream, &script, &requests);
            })
        };
        ResponsesServer { server, requests }
    }

    /// `http://127.0.0.1:<port>/v1` (Codex appends `/responses`).
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.server.addr())
    }

    /// Every request so far, oldest first.
    pub fn requests(&self) -> Vec<Request> {
        self.requests.lock().map(|r| r.clone()).unwrap_or_default()
    }

    /// The model turns so far, oldest first.
    pub fn turns(&self) -> Vec<Request> {
        self.requests()
            .into_iter()
            .filter(Request::is_response)
            .collect()
    }
}

/// Serves one keep-alive connection until the client closes it (or is silent for 30 s).
fn handle(
    stream: TcpStream,
    script: &Script,
    requests: &Mutex<Vec<Request>>,
) -> std::io::Result<()> {
    http::blocking(&stream, Duration::from_secs(30), Duration::from_secs(30))?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut stream = stream;
    loop {
        let Some(http::HttpRequest {
            method,
            path,
            headers,
            body,
        }) = http::read_request(&mut reader)?
        else {
            return Ok(());
        };
        let request = Request {
            method,
            path,
            headers,
            body: serde_json::from_slice(&body).unwrap_or(Value::Null),
        };
        let reply = request.is_response().then(|| script(&request));
        let model = request.body["model"]
            .as_str()
            .unwrap_or("interop")
            .to_string();
        if let Ok(mut all) = requests.lock() {
            all.push(request);
        }
        match reply {
            Some(reply) => http::respond(
                &mut stream,
                200,
                "text/event-stream",
                &[],
                sse(&reply, &model).as_bytes(),
                KEEP_ALIVE,
            )?,
            None => http::respond(
                &mut stream,
                404,
                "application/json",
                &[],
                br#"{"error":{"type":"not_found","message":"not served here"}}"#,
                KEEP_ALIVE,
            )?,
        }
    }
}

/// The three events of one answer: the response is created, its one output item is done, the
/// response is completed (with usage, which Codex reads).
fn sse(reply: &Reply, model: &str) -> String {
    static ANSWERS: AtomicUsize = AtomicUsize::new(0);
    let n = ANSWERS.fetch_add(1, Ordering::SeqCst);
    let id = format!("resp_interop_{n}");
    let item = match reply {
        Reply::Text(text) => json!({
            "type": "message", "id": format!("msg_interop_{n}"), "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}]
        }),
        Reply::Call {
            namespace,
            name,
            arguments,
        } => {
            let mut item = json!({
                "type": "function_call", "id": format!("fc_interop_{n}"),
                "call_id": format!("call_interop_{n}"), "name": name,
                "arguments": arguments.to_string(), "status": "completed"
            });
            if let Some(ns) = namespace {
                item["namespace"] = json!(ns);
            }
            item
        }
    };
    let usage = json!({
        "input_tokens": 1, "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 1, "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 2
    });
    let events = [
        (
            "response.created",
            json!({"type": "response.created", "response": {
                "id": id, "object": "response", "status": "in_progress", "model": model}}),
        ),
        (
            "response.output_item.done",
            json!({"type": "response.output_item.done", "output_index": 0, "item": item}),
        ),
        (
            "response.completed",
            json!({"type": "response.completed", "response": {
                "id": id, "object": "response", "status": "completed", "model": model,
                "usage": usage}}),
        ),
    ];
    events
        .iter()
        .map(|(name, data)| format!("event: {name}\ndata: {data}\n\n"))
        .collect()
}
