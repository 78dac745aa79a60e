//! The MCP server's standard input, with a request too large to read answered instead of
//! dropped (docs/mcp.md, "Limits").
//!
//! The SDK drops a line longer than its limit (16 MiB) without a word, so a client that sent
//! one waits for an answer that never comes. [`Bounded`] sits between standard input and the
//! SDK: lines within the limit pass through unchanged; a longer one is not kept, and in its
//! place the SDK reads a small request with the same id and the method [`TOO_LARGE_METHOD`],
//! which the server answers with an error naming the limit. A notification (no id) that is too
//! large is dropped, as nothing can answer it.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use qwen_memory::formats::json_splice::{skip_ws, string_end};
use tokio::io::{AsyncRead, ReadBuf};

/// The method of the request that stands for one too large to read.
pub const TOO_LARGE_METHOD: &str = "qwen-memory/request-too-large";

/// How much of an oversized line's start and end is kept to find its id.
const KEEP: usize = 4096;

/// Standard input with lines over `max` bytes replaced (see the module documentation).
pub struct Bounded<R> {
    inner: R,
    max: usize,
    /// The line being read, while it is within `max`.
    line: Vec<u8>,
    /// The line being read is over `max`: only its start and its end are kept.
    over: bool,
    head: Vec<u8>,
    tail: Vec<u8>,
    /// Bytes ready for the reader, from `out_at` on.
    out: Vec<u8>,
    out_at: usize,
    eof: bool,
    chunk: Box<[u8]>,
}

impl<R> Bounded<R> {
    pub fn new(inner: R, max: usize) -> Bounded<R> {
        Bounded {
            inner,
            max,
            line: Vec::new(),
            over: false,
            head: Vec::new(),
            tail: Vec::new(),
            out: Vec::new(),
            out_at: 0,
            eof: false,
            chunk: vec![0; 64 * 1024].into_boxed_slice(),
        }
    }

    /// Takes in `bytes` read from the input.
    fn take_in(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            let (part, ends_line) = match bytes.iter().position(|&b| b == b'\n') {
                Some(i) => (&bytes[..=i], true),
                None => (bytes, false),
            };
            bytes = &bytes[part.len()..];
            let content = part.strip_suffix(b"\n").unwrap_or(part);
            if !self.over && self.line.len() + content.len() > self.max {
                self.over = true;
                let line = std::mem::take(&mut self.line);
                self.head = line[..line.len().min(KEEP)].to_vec();
                self.tail.clear();
                self.keep_tail(&line);
            }
            if self.over {
                if self.head.len() < KEEP {
                    let room = KEEP - self.head.len();
                    self.head
                        .extend_from_slice(&content[..content.len().min(room)]);
                }
                self.keep_tail(content);
            } else {
                self.line.extend_from_slice(content);
            }
            if ends_line {
                if self.over {
                    if let Some(id) = request_id(&self.head, &self.tail) {
                        let stand_in = format!(
                            "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"{TOO_LARGE_METHOD}\"}}\n"
                        );
                        self.out.extend_from_slice(stand_in.as_bytes());
                    }
                    self.over = false;
                    self.head.clear();
                    self.tail.clear();
                } else {
                    self.out.append(&mut self.line);
                    self.out.push(b'\n');
                }
            }
        }
    }

    fn keep_tail(&mut self, bytes: &[u8]) {
        self.tail.extend_from_slice(bytes);
        if self.tail.len() > 2 * KEEP {
            self.tail.drain(..self.tail.len() - KEEP);
        }
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for Bounded<R> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        loop {
            if this.out_at < this.out.len() {
                let n = buf.remaining().min(this.out.len() - this.out_at);
                buf.put_slice(&this.out[this.out_at..this.out_at + n]);
                this.out_at += n;
                if this.out_at == this.out.len() {
                    this.out.clear();
                    this.out_at = 0;
                }
                return Poll::Ready(Ok(()));
            }
            if this.eof {
                // A last line without a line break is passed on as it is, unless too large.
                if !this.line.is_empty() && !this.over {
                    this.out.append(&mut this.line);
                    continue;
                }
                return Poll::Ready(Ok(()));
            }
            let mut chunk = std::mem::take(&mut this.chunk);
            let mut read = ReadBuf::new(&mut chunk);
            let polled = Pin::new(&mut this.inner).poll_read(cx, &mut read);
            let n = read.filled().len();
            if let Poll::Ready(Ok(())) = polled {
                if n == 0 {
                    this.eof = true;
                } else {
                    this.take_in(&chunk[..n]);
                }
            }
            this.chunk = chunk;
            match polled {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Ready(Ok(())) => {}
            }
        }
    }
}

/// The id of a JSON-RPC request from the start and the end of its text: the top-level `"id"`
/// member (found at depth 1 in `head`, or as the last member before the closing brace in
/// `tail`), as JSON text (a number or a string), or `None` for a notification.
fn request_id(head: &[u8], tail: &[u8]) -> Option<String> {
    id_at_depth_one(head).or_else(|| last_member_id(tail))
}

fn id_at_depth_one(text: &[u8]) -> Option<String> {
    let (mut depth, mut i) = (0usize, 0usize);
    while i < text.len() {
        match text[i] {
            b'{' | b'[' => depth += 1,
            b'}' | b']' => depth = depth.saturating_sub(1),
            b'"' => {
                let after = string_end(text, i)?;
                if depth == 1 && &text[i..after] == b"\"id\"" {
                    let rest = skip_ws(text, after);
                    if text.get(rest) == Some(&b':') {
                        return id_value(&text[skip_ws(text, rest + 1)..]);
                    }
                }
                // `i` is the closing quote; the loop steps past it.
                i = after - 1;
            }
            _ => {}
        }
        i += 1;
    }
    None
}

fn last_member_id(tail: &[u8]) -> Option<String> {
    let text = std::str::from_utf8(tail).ok().or_else(|| {
        // The kept end may start inside a character: drop up to three bytes.
        (1..4).find_map(|k| tail.get(k..).and_then(|t| std::str::from_utf8(t).ok()))
    })?;
    const WS: [char; 4] = [' ', '\t', '\n', '\r'];
    let body = text
        .trim_end_matches(WS)
        .strip_suffix('}')?
        .trim_end_matches(WS);
    let at = body.rfind("\"id\"")?;
    let value = body[at + 4..]
        .trim_start_matches(WS)
        .strip_prefix(':')?
        .trim_start_matches(WS);
    let id = id_value(value.as_bytes())?;
    (id.len() == value.len()).then_some(id)
}

/// A JSON number or string at the start of `text`.
fn id_value(text: &[u8]) -> Option<String> {
    match text.first()? {
        b'"' => {
            let after = string_end(text, 0)?;
            std::str::from_utf8(&text[..after]).ok().map(str::to_string)
        }
        b'-' | b'0'..=b'9' => {
            let n = text
                .iter()
                .take_while(|b| b.is_ascii_digit() || **b == b'-')
                .count();
            std::str::from_utf8(&text[..n]).ok().map(str::to_string)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt;

    fn through(input: &[u8], max: usize) -> Vec<u8> {
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        rt.block_on(async {
            let mut out = Vec::new();
            Bounded::new(input, max)
                .read_to_end(&mut out)
                .await
                .unwrap();
            out
        })
    }

    #[test]
    fn lines_within_the_limit_pass_unchanged() {
        let input = b"{\"id\":1}\n{\"a\":\"\xc3\xa9\"}\nlast without break";
        assert_eq!(through(input, 64), input.to_vec());
    }

    #[test]
    fn a_line_over_the_limit_becomes_a_stand_in_with_its_id() {
        let big = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{{\"text\":\"{}\"}}}}\n{{\"id\":8}}\n",
            "x".repeat(10_000)
        );
        let out = String::from_utf8(through(big.as_bytes(), 1000)).unwrap();
        assert_eq!(
            out,
            format!("{{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"{TOO_LARGE_METHOD}\"}}\n{{\"id\":8}}\n")
        );
        // The id last (as some clients write it), a string id, a nested "id" before it.
        let big = format!(
            "{{\"method\":\"m\",\"params\":{{\"id\":3,\"t\":\"{}\"}},\"jsonrpc\":\"2.0\",\"id\":\"a-1\"}}\n",
            "y".repeat(10_000)
        );
        let out = String::from_utf8(through(big.as_bytes(), 1000)).unwrap();
        assert!(out.contains("\"id\":\"a-1\""), "{out}");
        // A string id first, with an escaped quote in it and a key that holds `"id"`.
        let big = format!(
            "{{\"x\\\"id\":1, \"id\" : \"q\\\"1\",\"params\":\"{}\"}}\n",
            "w".repeat(10_000)
        );
        let out = String::from_utf8(through(big.as_bytes(), 1000)).unwrap();
        assert!(out.contains(r#""id":"q\"1""#), "{out}");
        // A notification has no id: nothing stands in for it.
        let big = format!("{{\"method\":\"n\",\"params\":\"{}\"}}\n", "z".repeat(5000));
        assert_eq!(through(big.as_bytes(), 1000), b"".to_vec());
    }
}
