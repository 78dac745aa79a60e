//! A scripted, loopback-only stand-in for an OpenAI-compatible chat endpoint.
//!
//! Include it from an integration test with `mod common;` and
//! `#[path = "common/openai_server.rs"] mod openai_server;` (its HTTP plumbing is
//! `common::http`).
//!
//! The server binds `127.0.0.1:0` (never any other address), answers `POST /v1/chat/completions`
//! with the next [`Reply`] of its script, answers every other path with 404, and records each
//! request (method, path, headers, body) for assertions. Requests beyond the script get
//! `410 Gone` with body `script exhausted`, which no client retries. It serves at most
//! `script.len() + 16` connections and stops for good when dropped.
#![allow(dead_code)]

use std::io::BufReader;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use crate::common::http;

/// The path the scripted replies are served on.
pub const CHAT_PATH: &str = "/v1/chat/completions";

/// One scripted answer.
#[derive(Debug, Clone)]
pub enum Reply {
    /// 200 with a chat completion whose message content is this text (usually JSON).
    Good(String),
    /// 200 with a chat completion whose content is prose, not JSON.
    Malformed,
    /// An empty-bodied answer with this status.
    Status(u16),
    /// This status with a `Retry-After: <seconds>` header.
    StatusRetryAfter(u16, u64),
    /// Wait this long, then answer like `Good` with the content.
    Slow(Duration, String),
    /// This status with a body echoing the received request headers and body, like a chatty
    /// proxy; used to prove that error messages never repeat what the server sent back.
    Echo(u16),
    /// This status with this raw body (and a JSON content type).
    Raw(u16, String),
    /// Hold the answer until this file exists (the test creates it), then answer like `Good`;
    /// lets a test keep a client inside its model call for as long as it needs, without
    /// guessing a duration.
    Gate(std::path::PathBuf, String),
}

impl Reply {
    /// `Good` with a JSON value as content.
    pub fn good_json(value: serde_json::Value) -> Reply {
        Reply::Good(value.to_string())
    }
}

/// A request as the server received it.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub method: String,
    pub path: String,
    /// Header names lowercased, in arrival order.
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Recorded {
    /// The first header with this (case-insensitive) name.
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The body parsed as JSON (panics when it is not: tests only).
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).expect("request body is JSON")
    }
}

/// The running server; dropping it stops the thread.
pub struct OpenAiServer {
    addr: SocketAddr,
    requests: Arc<Mutex<Vec<Recorded>>>,
    stop: Arc<AtomicBool>,
    handle: Option<JoinHandle<()>>,
}

impl OpenAiServer {
    /// Starts serving `script` on a fresh loopback port.
    pub fn start(script: Vec<Reply>) -> OpenAiServer {
        let (listener, addr) = http::bind_loopback();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let handle = {
            let requests = Arc::clone(&requests);
            let stop = Arc::clone(&stop);
            thread::spawn(move || serve(listener, script, requests, stop))
        };
        OpenAiServer {
            addr,
            requests,
            stop,
            handle: Some(handle),
        }
    }

    /// `http://127.0.0.1:<port>/v1`, the base URL a client should use.
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// `http://127.0.0.1:<port>` without a path.
    pub fn origin(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Every request received so far, oldest first.
    pub fn requests(&self) -> Vec<Recorded> {
        self.requests.lock().map(|r| r.clone()).unwrap_or_default()
    }
}

impl Drop for OpenAiServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(handle) = self.handle.take() {
            let _ = handle.join();
        }
    }
}

fn serve(
    listener: TcpListener,
    script: Vec<Reply>,
    requests: Arc<Mutex<Vec<Recorded>>>,
    stop: Arc<AtomicBool>,
) {
    let max_connections = script.len() + 16;
    let mut script = script.into_iter();
    http::accept_until_stopped(&listener, &stop, Some(max_connections), |stream| {
        let _ = handle(stream, &mut script, &requests, &stop);
    });
}

fn handle(
    stream: TcpStream,
    script: &mut impl Iterator<Item = Reply>,
    requests: &Mutex<Vec<Recorded>>,
    stop: &AtomicBool,
) -> std::io::Result<()> {
    http::blocking(&stream, Duration::from_secs(5), Duration::from_secs(5))?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let Some(request) = http::read_request(&mut reader)? else {
        return Ok(());
    };
    let request = Recorded {
        method: request.method,
        path: request.path,
        headers: request.headers,
        body: String::from_utf8_lossy(&request.body).into_owned(),
    };
    if let Ok(mut all) = requests.lock() {
        all.push(request.clone());
    }
    let mut stream = stream;

    if request.method != "POST" || request.path != CHAT_PATH {
        return respond(&mut stream, 404, &[], "{\"error\":\"not found\"}");
    }
    match script.next() {
        None => respond(&mut stream, 410, &[], "script exhausted"),
        Some(Reply::Good(content)) => respond(&mut stream, 200, &[], &completion(&content)),
        Some(Reply::Malformed) => respond(
            &mut stream,
            200,
            &[],
            &completion("Here are the memories you asked for: the first one."),
        ),
        Some(Reply::Status(status)) => respond(&mut stream, status, &[], ""),
        Some(Reply::StatusRetryAfter(status, secs)) => respond(
            &mut stream,
            status,
            &[("Retry-After", secs.to_string())],
            "",
        ),
        Some(Reply::Slow(delay, content)) => {
            // Sleep in slices so dropping the server is not held up by a long delay.
            let until = Instant::now() + delay;
            while Instant::now() < until && !stop.load(Ordering::SeqCst) {
                thread::sleep(Duration::from_millis(10));
            }
            respond(&mut stream, 200, &[], &completion(&content))
        }
        Some(Reply::Echo(status)) => {
            let mut echo = String::new();
            for (k, v) in &request.headers {
                echo.push_str(&format!("{k}: {v}\n"));
            }
            echo.push_str(&request.body);
            respond(&mut stream, status, &[], &echo)
        }
        Some(Reply::Raw(status, body)) => respond(&mut stream, status, &[], &body),
        Some(Reply::Gate(file, content)) => {
            while !file.exists() && !stop.load(Ordering::SeqCst) {
                thread::sleep(Duration::from_millis(10));
            }
            respond(&mut stream, 200, &[], &completion(&content))
        }
    }
}

fn completion(content: &str) -> String {
    serde_json::json!({
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "model": "test-model",
        "choices": [{
            "index": 0,
            "message": {"role": "assistant", "content": content},
            "finish_reason": "stop"
        }]
    })
    .to_string()
}

fn respond(
    stream: &mut TcpStream,
    status: u16,
    extra_headers: &[(&str, String)],
    body: &str,
) -> std::io::Result<()> {
    http::respond(
        stream,
        status,
        "application/json",
        extra_headers,
        body.as_bytes(),
        http::Connection::Close,
    )
}
