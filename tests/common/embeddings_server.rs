//! A loopback-only stand-in for an OpenAI-compatible `/v1/embeddings` endpoint with
//! deterministic vectors.
//!
//! Include it with `mod common;` and
//! `#[path = "common/embeddings_server.rs"] mod embeddings_server;` (its HTTP plumbing is
//! `common::http`).
//!
//! Binds `127.0.0.1:0` only. Answers `POST /v1/embeddings` with one vector per input from the
//! test's function, optionally after a delay; every other path gets 404. Each request's inputs
//! are recorded. Stops when dropped.
#![allow(dead_code)]

use std::io::BufReader;
use std::net::{SocketAddr, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use crate::common::http;

pub const EMBEDDINGS_PATH: &str = "/v1/embeddings";

type VectorFn = Arc<dyn Fn(&str) -> Vec<f32> + Send + Sync>;

pub struct EmbeddingsServer {
    addr: SocketAddr,
    requests: Arc<Mutex<Vec<Vec<String>>>>,
    stop: Arc<AtomicBool>,
    handle: Option<JoinHandle<()>>,
}

impl EmbeddingsServer {
    /// Serves vectors from `vector`, each answer after `delay`.
    pub fn start(
        vector: impl Fn(&str) -> Vec<f32> + Send + Sync + 'static,
        delay: Duration,
    ) -> Self {
        let (listener, addr) = http::bind_loopback();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let vector: VectorFn = Arc::new(vector);
        let handle = {
            let requests = Arc::clone(&requests);
            let stop = Arc::clone(&stop);
            thread::spawn(move || {
                http::accept_until_stopped(&listener, &stop, None, |stream| {
                    let (requests, stop, vector) = (
                        Arc::clone(&requests),
                        Arc::clone(&stop),
                        Arc::clone(&vector),
                    );
                    // One thread per connection: a slow answer must not block others.
                    thread::spawn(move || {
                        let _ = handle(stream, &requests, &stop, &vector, delay);
                    });
                })
            })
        };
        EmbeddingsServer {
            addr,
            requests,
            stop,
            handle: Some(handle),
        }
    }

    /// `http://127.0.0.1:<port>/v1`.
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// The inputs of every request so far, oldest first.
    pub fn requests(&self) -> Vec<Vec<String>> {
        self.requests.lock().map(|r| r.clone()).unwrap_or_default()
    }
}

impl Drop for EmbeddingsServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

fn handle(
    stream: TcpStream,
    requests: &Mutex<Vec<Vec<String>>>,
    stop: &AtomicBool,
    vector: &VectorFn,
    delay: Duration,
) -> std::io::Result<()> {
    stream.set_nonblocking(false)?;
    stream.set_read_timeout(Some(Duration::from_secs(5)))?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let Some(request) = http::read_request(&mut reader)? else {
        return Ok(());
    };
    let mut stream = stream;
    if request.method != "POST" || request.path != EMBEDDINGS_PATH {
        return respond(&mut stream, 404, "{}");
    }
    let body = request.body;
    let request: serde_json::Value = serde_json::from_slice(&body).unwrap_or_default();
    let inputs: Vec<String> = match &request["input"] {
        serde_json::Value::String(s) => vec![s.clone()],
        serde_json::Value::Array(a) => a
            .iter()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect(),
        _ => Vec::new(),
    };
    if let Ok(mut all) = requests.lock() {
        all.push(inputs.clone());
    }
    let until = Instant::now() + delay;
    while Instant::now() < until && !stop.load(Ordering::SeqCst) {
        thread::sleep(Duration::from_millis(10));
    }
    let data: Vec<serde_json::Value> = inputs
        .iter()
        .enumerate()
        .map(|(i, text)| serde_json::json!({"object": "embedding", "index": i, "embedding": vector(text)}))
        .collect();
    let answer = serde_json::json!({"object": "list", "data": data, "model": request["model"]});
    respond(&mut stream, 200, &answer.to_string())
}

fn respond(stream: &mut TcpStream, status: u16, body: &str) -> std::io::Result<()> {
    http::respond(
        stream,
        status,
        "application/json",
        &[],
        body.as_bytes(),
        http::Connection::Close,
    )
}
