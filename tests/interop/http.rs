//! The HTTP/1.1 plumbing the interop suites' loopback model servers share: reading one request
//! (request line, headers, a `Content-Length` body) and writing one keep-alive response. Each
//! suite uses the part it needs.
#![allow(dead_code)]

use std::io::{BufRead, Write};
use std::net::TcpStream;

/// Reads the headers and body of a request whose request line `first` was already read:
/// `(method, path, body)`.
pub fn read_after_request_line(
    first: &str,
    reader: &mut impl BufRead,
) -> std::io::Result<(String, String, Vec<u8>)> {
    let mut parts = first.split_whitespace();
    let method = parts.next().unwrap_or_default().to_string();
    let path = parts.next().unwrap_or_default().to_string();
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
            if k.trim().eq_ignore_ascii_case("content-length") {
                len = v.trim().parse().unwrap_or(0);
            }
        }
    }
    let mut body = vec![0u8; len.min(64 << 20)];
    reader.read_exact(&mut body)?;
    Ok((method, path, body))
}

/// Reads one whole request; `None` when the client closed the connection.
pub fn read_request(
    reader: &mut impl BufRead,
) -> std::io::Result<Option<(String, String, Vec<u8>)>> {
    let mut line = String::new();
    if reader.read_line(&mut line)? == 0 {
        return Ok(None);
    }
    read_after_request_line(&line, reader).map(Some)
}

/// Writes one response with `status` (200, else "Not Found"), keeping the connection open.
pub fn respond(
    stream: &mut TcpStream,
    status: u16,
    ctype: &str,
    body: &[u8],
) -> std::io::Result<()> {
    let head = format!(
        "HTTP/1.1 {status} {}\r\nContent-Type: {ctype}\r\nContent-Length: {}\r\nConnection: keep-alive\r\n\r\n",
        if status == 200 { "OK" } else { "Not Found" },
        body.len()
    );
    stream.write_all(head.as_bytes())?;
    stream.write_all(body)?;
    stream.flush()
}
