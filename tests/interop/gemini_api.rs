//! A loopback Gemini API server for the real Gemini CLI client.
//!
//! Gemini CLI (with `GOOGLE_GEMINI_BASE_URL` and the `gemini-api-key` auth type, docs/mcp.md)
//! sends `POST /v1beta/models/<model>:streamGenerateContent?alt=sse` for its model turns and
//! `…:generateContent` for side questions that want a JSON answer. This server answers both
//! with what a closure decides from the request (a text or one `functionCall` part), a token
//! count with a fixed number, and anything else with a 404. It records every request, binds
//! `127.0.0.1:0` only and stops when dropped.
#![allow(dead_code)]

use std::io::BufReader;
use std::net::TcpStream;
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
    /// A model turn or side question (`…:generateContent` or `…:streamGenerateContent`).
    pub fn is_generate(&self) -> bool {
        self.method == "POST" && self.path.contains("enerateContent")
    }

    pub fn is_streamed(&self) -> bool {
        self.path.contains(":streamGenerateContent")
    }

    /// Names of the functions declared.
    pub fn tool_names(&self) -> Vec<String> {
        self.body["tools"]
            .as_array()
            .into_iter()
            .flatten()
            .flat_map(|t| {
                t["functionDeclarations"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default()
            })
            .filter_map(|d| d["name"].as_str().map(str::to_string))
            .collect()
    }

    /// Every part of the conversation so far.
    pub fn parts(&self) -> Vec<Value> {
        self.body["contents"]
            .as_array()
            .into_iter()
            .flatten()
            .flat_map(|c| c["parts"].as_array().cloned().unwrap_or_default())
            .collect()
    }

    /// Names of the functions the model called so far.
    pub fn called(&self) -> Vec<String> {
        self.parts()
            .iter()
            .filter_map(|p| p["functionCall"]["name"].as_str().map(str::to_string))
            .collect()
    }

    /// The `response` of the `functionResponse` part for `name`, as text.
    pub fn response_of(&self, name: &str) -> Option<String> {
        self.parts()
            .iter()
            .find(|p| p["functionResponse"]["name"] == name)
            .map(|p| p["functionResponse"]["response"].to_string())
    }
}

/// What the model answers.
#[derive(Debug, Clone)]
pub enum Reply {
    Text(String),
    /// One `functionCall` part: the declared name and its arguments.
    Call(String, Value),
}

type Script = dyn Fn(&Request) -> Reply + Send + Sync;

/// The running server; dropping it stops it.
pub struct GeminiServer {
    server: http::Loopback,
    requests: Arc<Mutex<Vec<Request>>>,
}

impl GeminiServer {
    pub fn start(script: impl Fn(&Request) -> Reply + Send + Sync + 'static) -> GeminiServer {
        let requests = Arc::new(Mutex::new(Vec::new()));
        let server = {
            let requests = Arc::clone(&requests);
            http::Loopback::start(move |stream, _stop| {
                let _ = handle(stream, &script, &requests);
            })
        };
        GeminiServer { server, requests }
    }

    /// `http://127.0.0.1:<port>` (Gemini CLI appends `/v1beta/models/…`).
    pub fn base_url(&self) -> String {
        format!("http://{}", self.server.addr())
    }

    pub fn requests(&self) -> Vec<Request> {
        self.requests.lock().map(|r| r.clone()).unwrap_or_default()
    }
}

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
        let request = Request {
            method,
            path,
            body: serde_json::from_slice(&body).unwrap_or(Value::Null),
        };
        let reply = request.is_generate().then(|| script(&request));
        let (streamed, counts) = (
            request.is_streamed(),
            request.method == "POST" && request.path.contains(":countTokens"),
        );
        if let Ok(mut all) = requests.lock() {
            all.push(request);
        }
        match reply {
            Some(reply) if streamed => http::respond(
                &mut stream,
                200,
                "text/event-stream",
                &[],
                format!("data: {}\r\n\r\n", answer(&reply)).as_bytes(),
                KEEP_ALIVE,
            )?,
            Some(reply) => http::respond(
                &mut stream,
                200,
                "application/json",
                &[],
                answer(&reply).to_string().as_bytes(),
                KEEP_ALIVE,
            )?,
            None if counts => http::respond(
                &mut stream,
                200,
                "application/json",
                &[],
                br#"{"totalTokens":10}"#,
                KEEP_ALIVE,
            )?,
            None => http::respond(
                &mut stream,
                404,
                "application/json",
                &[],
                br#"{"error":{"code":404,"message":"not served here","status":"NOT_FOUND"}}"#,
                KEEP_ALIVE,
            )?,
        }
    }
}

fn answer(reply: &Reply) -> Value {
    let part = match reply {
        Reply::Text(t) => json!({"text": t}),
        Reply::Call(name, args) => json!({"functionCall": {"name": name, "args": args}}),
    };
    json!({
        "candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP",
                        "index": 0}],
        "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2},
        "modelVersion": "interop"
    })
}
