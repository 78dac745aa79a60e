//! The one HTTP/1.1 core of every loopback test server (the OpenAI-compatible chat and
//! embeddings stand-ins in `tests/common/`, the interop suites' model servers): binding
//! `127.0.0.1:0`, the accept loop, reading one request (request line, headers, a
//! `Content-Length` body) and writing one response. Each server keeps only what it answers.
//!
//! It is `common::http`: a server file included next to `mod common;` calls it as
//! `crate::common::http`.
#![allow(dead_code)]

use std::io::{BufRead, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::{self, JoinHandle};
use std::time::Duration;

/// Largest body read; a confused client cannot make a test allocate without limit.
const MAX_BODY: usize = 64 << 20;

/// A request as a server received it.
#[derive(Debug, Clone)]
pub struct HttpRequest {
    pub method: String,
    pub path: String,
    /// Header names lowercased, values trimmed, in arrival order.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

/// Binds a fresh port on 127.0.0.1 (never any other address) for a non-blocking accept loop.
pub fn bind_loopback() -> (TcpListener, SocketAddr) {
    let listener =
        TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).expect("bind 127.0.0.1:0 for test server");
    let addr = listener.local_addr().expect("local addr");
    assert!(addr.ip().is_loopback());
    listener
        .set_nonblocking(true)
        .expect("nonblocking listener");
    (listener, addr)
}

/// A loopback server on a thread of its own: every accepted connection is served by `serve` on
/// a thread of its own (given the stop flag, for servers that hold a connection open); dropping
/// it stops accepting and waits for every connection. The interop suites' model servers keep
/// only their requests and answers beside it.
pub struct Loopback {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    handle: Option<JoinHandle<()>>,
}

impl Loopback {
    pub fn start(serve: impl Fn(TcpStream, &AtomicBool) + Send + Sync + 'static) -> Loopback {
        let (listener, addr) = bind_loopback();
        let stop = Arc::new(AtomicBool::new(false));
        let serve = Arc::new(serve);
        let handle = {
            let stop = Arc::clone(&stop);
            thread::spawn(move || {
                let mut workers = Vec::new();
                accept_until_stopped(&listener, &stop, None, |stream| {
                    let (serve, stop) = (Arc::clone(&serve), Arc::clone(&stop));
                    workers.push(thread::spawn(move || serve(stream, &stop)));
                });
                for w in workers {
                    let _ = w.join();
                }
            })
        };
        Loopback {
            addr,
            stop,
            handle: Some(handle),
        }
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }
}

impl Drop for Loopback {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

/// Hands each accepted connection to `on_connection` until `stop` is set, `max` connections
/// were accepted or accepting fails. Polls, so setting `stop` ends the loop within a few ms.
pub fn accept_until_stopped(
    listener: &TcpListener,
    stop: &AtomicBool,
    max: Option<usize>,
    mut on_connection: impl FnMut(TcpStream),
) {
    let mut accepted = 0usize;
    while max.is_none_or(|m| accepted < m) && !stop.load(Ordering::SeqCst) {
        match listener.accept() {
            Ok((stream, _)) => {
                accepted += 1;
                on_connection(stream);
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                thread::sleep(Duration::from_millis(5));
            }
            Err(_) => return,
        }
    }
}

/// Makes an accepted stream blocking with these read and write timeouts.
pub fn blocking(stream: &TcpStream, read: Duration, write: Duration) -> std::io::Result<()> {
    stream.set_nonblocking(false)?;
    stream.set_read_timeout(Some(read))?;
    stream.set_write_timeout(Some(write))
}

/// Reads the headers and body of a request whose request line `first` was already read.
pub fn read_after_request_line(
    first: &str,
    reader: &mut impl BufRead,
) -> std::io::Result<HttpRequest> {
    let mut parts = first.split_whitespace();
    let method = parts.next().unwrap_or_default().to_string();
    let path = parts.next().unwrap_or_default().to_string();
    let mut headers = Vec::new();
    let mut len = 0usize;
    let mut line = String::new();
    loop {
        line.clear();
        if reader.read_line(&mut line)? == 0 {
            break;
        }
        let t = line.trim_end_matches(['\r', '\n']);
        if t.is_empty() {
            break;
        }
        if let Some((k, v)) = t.split_once(':') {
            let (k, v) = (k.trim().to_ascii_lowercase(), v.trim().to_string());
            if k == "content-length" {
                len = v.parse().unwrap_or(0);
            }
            headers.push((k, v));
        }
    }
    let mut body = vec![0u8; len.min(MAX_BODY)];
    reader.read_exact(&mut body)?;
    Ok(HttpRequest {
        method,
        path,
        headers,
        body,
    })
}

/// Reads one whole request; `None` when the client closed the connection first.
pub fn read_request(reader: &mut impl BufRead) -> std::io::Result<Option<HttpRequest>> {
    let mut line = String::new();
    if reader.read_line(&mut line)? == 0 {
        return Ok(None);
    }
    read_after_request_line(&line, reader).map(Some)
}

/// What happens to the connection after a response.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Connection {
    /// `Connection: close`: one request per connection.
    Close,
    /// `Connection: keep-alive`: the server reads the next request on it.
    KeepAlive,
}

/// Writes one response: status line, `Content-Type`, `Content-Length`, `Connection`, then
/// `extra_headers`, then `body`.
pub fn respond(
    stream: &mut TcpStream,
    status: u16,
    content_type: &str,
    extra_headers: &[(&str, String)],
    body: &[u8],
    connection: Connection,
) -> std::io::Result<()> {
    let connection = match connection {
        Connection::Close => "close",
        Connection::KeepAlive => "keep-alive",
    };
    let mut head = format!(
        "HTTP/1.1 {status} {}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: {connection}\r\n",
        reason(status),
        body.len()
    );
    for (k, v) in extra_headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes())?;
    stream.write_all(body)?;
    stream.flush()
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        404 => "Not Found",
        410 => "Gone",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        _ => "Status",
    }
}
