//! A loopback OpenAI-compatible chat server for the real Qwen Code client.
//!
//! Unlike `tests/common/openai_server.rs` (fixed script, plain JSON), this one answers streamed
//! requests (`"stream": true`, server-sent events) as Qwen Code sends them, decides each answer
//! with a closure that sees the request (so a check can answer the main agent and the memory
//! extraction agent differently), can answer with tool calls, and records every request.
//! It binds `127.0.0.1:0` only and stops when dropped.
#![allow(dead_code)]

use std::io::BufReader;
use std::net::TcpStream;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::common::http;

use serde_json::{json, Value};

const KEEP_ALIVE: http::Connection = http::Connection::KeepAlive;

/// What the model says back.
#[derive(Debug, Clone)]
pub enum Answer {
    /// Plain assistant text.
    Text(String),
    /// Tool calls: (function name, JSON arguments).
    Tools(Vec<(String, Value)>),
}

/// One request as received (the JSON body).
#[derive(Debug, Clone)]
pub struct Request {
    pub path: String,
    pub body: Value,
}

impl Request {
    /// The system prompt (first `system` message), or "".
    pub fn system(&self) -> String {
        self.messages()
            .iter()
            .find(|m| m["role"] == "system")
            .map(content_text)
            .unwrap_or_default()
    }

    pub fn messages(&self) -> Vec<Value> {
        self.body["messages"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    }

    /// Every message's text joined (user, assistant, tool, system), for "does X appear" checks.
    pub fn all_text(&self) -> String {
        self.messages()
            .iter()
            .map(content_text)
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// Texts of the `user` messages, in order.
    pub fn user_texts(&self) -> Vec<String> {
        self.messages()
            .iter()
            .filter(|m| m["role"] == "user")
            .map(content_text)
            .collect()
    }

    /// True when this is Qwen Code's managed-memory extraction agent.
    pub fn is_extraction_agent(&self) -> bool {
        self.system().contains("managed memory extraction subagent")
    }

    /// Number of `tool` messages (tool results) in the conversation so far.
    pub fn tool_results(&self) -> usize {
        self.messages()
            .iter()
            .filter(|m| m["role"] == "tool")
            .count()
    }

    /// Names of the tools offered.
    pub fn tool_names(&self) -> Vec<String> {
        self.body["tools"]
            .as_array()
            .map(|tools| {
                tools
                    .iter()
                    .filter_map(|t| t["function"]["name"].as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// Text of one chat message whose content is a string or a list of parts.
pub fn content_text(message: &Value) -> String {
    match &message["content"] {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| p["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

type Script = dyn Fn(&Request) -> Answer + Send + Sync;

/// The running server; dropping it stops it.
pub struct ModelServer {
    server: http::Loopback,
    requests: Arc<Mutex<Vec<Request>>>,
}

impl ModelServer {
    /// Serves answers decided by `script` on a fresh loopback port.
    pub fn start(script: impl Fn(&Request) -> Answer + Send + Sync + 'static) -> ModelServer {
        let requests = Arc::new(Mutex::new(Vec::new()));
        let server = {
            let requests = Arc::clone(&requests);
            http::Loopback::start(move |stream, _stop| {
                let _ = handle(stream, &script, &requests);
            })
        };
        ModelServer { server, requests }
    }

    /// A server that always answers with this text.
    pub fn always(text: &str) -> ModelServer {
        let text = text.to_string();
        ModelServer::start(move |_| Answer::Text(text.clone()))
    }

    /// `http://127.0.0.1:<port>/v1`.
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.server.addr())
    }

    /// Every request so far, oldest first.
    pub fn requests(&self) -> Vec<Request> {
        self.requests.lock().map(|r| r.clone()).unwrap_or_default()
    }

    /// Requests of the main agent (not the extraction agent, not side queries without tools).
    pub fn main_requests(&self) -> Vec<Request> {
        self.requests()
            .into_iter()
            .filter(|r| !r.is_extraction_agent())
            .collect()
    }
}

/// Serves one connection (keep-alive: several requests in a row).
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
            method, path, body, ..
        }) = http::read_request(&mut reader)?
        else {
            return Ok(());
        };
        if method != "POST" || !path.ends_with("/chat/completions") {
            http::respond(
                &mut stream,
                404,
                "application/json",
                &[],
                b"{\"error\":\"not found\"}",
                KEEP_ALIVE,
            )?;
            continue;
        }
        let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        let request = Request { path, body };
        let answer = script(&request);
        let streamed = request.body["stream"].as_bool().unwrap_or(false);
        if let Ok(mut all) = requests.lock() {
            all.push(request);
        }
        if streamed {
            http::respond(
                &mut stream,
                200,
                "text/event-stream",
                &[],
                sse(&answer).as_bytes(),
                KEEP_ALIVE,
            )?;
        } else {
            http::respond(
                &mut stream,
                200,
                "application/json",
                &[],
                completion(&answer).as_bytes(),
                KEEP_ALIVE,
            )?;
        }
    }
}

fn tool_calls(calls: &[(String, Value)]) -> Vec<Value> {
    calls
        .iter()
        .enumerate()
        .map(|(i, (name, args))| {
            json!({
                "index": i,
                "id": format!("call_{i}_{}", name),
                "type": "function",
                "function": {"name": name, "arguments": args.to_string()}
            })
        })
        .collect()
}

fn completion(answer: &Answer) -> String {
    let (message, finish) = match answer {
        Answer::Text(t) => (json!({"role": "assistant", "content": t}), "stop"),
        Answer::Tools(calls) => (
            json!({"role": "assistant", "content": null, "tool_calls": tool_calls(calls)}),
            "tool_calls",
        ),
    };
    json!({
        "id": "chatcmpl-interop", "object": "chat.completion", "created": 1, "model": "interop",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
    })
    .to_string()
}

fn sse(answer: &Answer) -> String {
    let chunk = |delta: Value, finish: Value| {
        json!({
            "id": "chatcmpl-interop", "object": "chat.completion.chunk", "created": 1,
            "model": "interop",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]
        })
    };
    let mut out = String::new();
    let (delta, finish) = match answer {
        Answer::Text(t) => (json!({"role": "assistant", "content": t}), "stop"),
        Answer::Tools(calls) => (
            json!({"role": "assistant", "content": null, "tool_calls": tool_calls(calls)}),
            "tool_calls",
        ),
    };
    out.push_str(&format!("data: {}\n\n", chunk(delta, Value::Null)));
    let mut last = chunk(json!({}), json!(finish));
    last["usage"] = json!({"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2});
    out.push_str(&format!("data: {last}\n\n"));
    out.push_str("data: [DONE]\n\n");
    out
}
