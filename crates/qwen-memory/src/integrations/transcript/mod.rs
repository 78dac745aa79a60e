//! Transcript readers: Qwen Code chat records, Claude Code transcripts and generic JSONL
//! (docs/DESIGN.md, "Extract"), read incrementally from the byte offset of this tool's
//! per-transcript cursor (docs/DESIGN.md, "State files").
//!
//! Reading is streaming: one line at a time through a `BufReader`, keeping only user text,
//! capped assistant text and tool-call summaries. A line is held only up to
//! [`MAX_LINE_BYTES`]; a longer one is skipped and counted, so memory stays bounded by that cap
//! plus what is kept, neither by the file size nor by the longest line.

mod memory_write;
mod raw;
mod reader;
mod strip;

use std::fmt;
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::str::FromStr;

use sha2::{Digest, Sha256};

pub use memory_write::{
    called_memory_server_remember, is_memory_server_remember, is_write_tool,
    latest_turn_wrote_memory,
};
pub use strip::{strip_injected_context, RELEVANT_MEMORY_HEADING};

/// Assistant text kept per message, in bytes; the rest is dropped (it is context only).
pub const ASSISTANT_TEXT_LIMIT: usize = 4096;

/// Bytes hashed by [`head_hash`] to recognise a replaced transcript.
pub const HEAD_HASH_BYTES: usize = 4096;

const READ_BUFFER_BYTES: usize = 256 * 1024;

/// The longest transcript line that is parsed, in bytes. A longer line (a pasted dump, an
/// inlined image) is skipped and counted without ever being held whole, so reading stays in
/// bounded memory whatever the transcript holds. Big enough for any message a person types
/// or pastes with intent; see docs/DESIGN.md, "Extract".
pub const MAX_LINE_BYTES: usize = 8 * 1024 * 1024;

/// Transcript format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Format {
    /// Detect from the first decisive line of the bytes read.
    #[default]
    Auto,
    /// Qwen Code chat recording (`type` + `message.parts`).
    Qwen,
    /// Claude Code transcript (`type` + `message.content`).
    Claude,
    /// Generic `{"role": …, "content": …}` per line.
    Jsonl,
}

impl Format {
    /// The name accepted by [`FromStr`].
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Auto => "auto",
            Format::Qwen => "qwen",
            Format::Claude => "claude",
            Format::Jsonl => "jsonl",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An unknown format name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown transcript format `{0}` (expected auto, qwen, claude or jsonl)")]
pub struct ParseFormatError(pub String);

impl FromStr for Format {
    type Err = ParseFormatError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(Format::Auto),
            "qwen" => Ok(Format::Qwen),
            "claude" => Ok(Format::Claude),
            "jsonl" => Ok(Format::Jsonl),
            _ => Err(ParseFormatError(s.to_owned())),
        }
    }
}

impl serde::Serialize for Format {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> serde::Deserialize<'de> for Format {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = <std::borrow::Cow<'de, str> as serde::Deserialize>::deserialize(d)?;
        s.parse().map_err(|_| {
            serde::de::Error::unknown_variant(&s, &["auto", "qwen", "claude", "jsonl"])
        })
    }
}

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    User,
    Assistant,
}

/// A tool call made by the assistant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolCall {
    /// Tool name as the agent spells it (`write_file`, `Write`, …); Qwen's bridge tool
    /// `tool_call` is unwrapped to the tool it calls.
    pub name: String,
    /// Path arguments (`file_path`, `path`, `absolute_path`, `notebook_path`, `target_file`),
    /// relative ones resolved against the record's `cwd` when it is known.
    pub paths: Vec<String>,
    /// Outcome from the matching tool result: `Some(false)` for an error, a rejection or a
    /// cancellation; `None` when no result was seen in the bytes read.
    pub succeeded: Option<bool>,
}

/// One user or assistant message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    pub role: Role,
    /// User text with injected context stripped (never empty), or assistant text (thinking
    /// excluded, at most [`ASSISTANT_TEXT_LIMIT`] bytes, possibly empty when only tools ran).
    pub text: String,
    /// Tool calls (assistant messages only).
    pub tool_calls: Vec<ToolCall>,
    /// Byte offset of the start of the line the message came from.
    pub offset: u64,
    pub session_id: Option<String>,
}

/// Result of one [`read_transcript`] call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadOutcome {
    pub messages: Vec<Message>,
    /// Just after the last complete (newline-terminated) line consumed; the next read starts
    /// here. Equals the start offset when nothing complete was available.
    pub end_offset: u64,
    /// Complete lines that were not a JSON object (skipped).
    pub malformed_lines: usize,
    /// Complete lines longer than [`MAX_LINE_BYTES`] (skipped unread).
    pub oversized_lines: usize,
    /// The format used: the one requested, or the detected one; `Auto` when no line read
    /// was decisive (no messages then).
    pub format: Format,
    /// Session id of the last record read that carried one.
    pub session_id: Option<String>,
}

/// Failure to read a transcript (malformed content is never an error).
#[derive(Debug, thiserror::Error)]
pub enum TranscriptError {
    #[error("cannot read transcript {}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
}

/// Reads the transcript at `path` from byte `start_offset` on.
///
/// Only newline-terminated lines are consumed: a final line still being written is left for
/// the next call. Blank lines are skipped; lines that are not JSON objects are skipped and
/// counted; lines over [`MAX_LINE_BYTES`] are skipped and counted separately; two objects
/// glued on one line by an interrupted append are both read. A `start_offset` past the end of
/// the file reads nothing (the caller compares the file size with its cursor to notice
/// truncation).
pub fn read_transcript(
    path: &Path,
    start_offset: u64,
    format: Format,
) -> Result<ReadOutcome, TranscriptError> {
    let io_err = |source| TranscriptError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut file =
        crate::storage::safe_fs::open_regular(path).map_err(|e| io_err(io::Error::other(e)))?;
    file.seek(SeekFrom::Start(start_offset)).map_err(io_err)?;
    let mut reader = BufReader::with_capacity(READ_BUFFER_BYTES, file);
    let mut interp = reader::Interpreter::new(format);
    let mut malformed_lines = 0;
    let mut oversized_lines = 0;
    let mut pos = start_offset;
    let mut buf = Vec::new();
    loop {
        buf.clear();
        let (n, line) = match next_line(&mut reader, &mut buf, MAX_LINE_BYTES).map_err(io_err)? {
            LineRead::Incomplete => break,
            LineRead::Oversized(n) => {
                pos += n;
                oversized_lines += 1;
                continue;
            }
            LineRead::Complete(n) => (n, &buf),
        };
        let line_start = pos;
        pos += n;
        let line = line.trim_ascii();
        if line.is_empty() {
            continue;
        }
        if !parse_line(line, line_start, &mut interp) {
            malformed_lines += 1;
        }
        // A huge line leaves a huge buffer behind; give it back before the next line.
        if buf.capacity() > READ_BUFFER_BYTES * 4 {
            buf = Vec::new();
        }
    }
    Ok(ReadOutcome {
        messages: interp.messages,
        end_offset: pos,
        malformed_lines,
        oversized_lines,
        format: interp.format,
        session_id: interp.session_id,
    })
}

/// What [`next_line`] found.
#[derive(Debug, PartialEq, Eq)]
enum LineRead {
    /// A newline-terminated line of this many bytes (newline included) is in the buffer.
    Complete(u64),
    /// A newline-terminated line of this many bytes was longer than the cap; it was read past
    /// and dropped, never held whole.
    Oversized(u64),
    /// End of file before a newline: a line still being written (or none). Nothing consumed
    /// from the caller's point of view: the next read starts at the same offset.
    Incomplete,
}

/// Reads one line into `buf` (which the caller cleared), holding at most `cap` bytes of it.
/// Once a line is known to exceed `cap`, its bytes are skipped chunk by chunk until the
/// newline, so memory stays bounded by `cap` plus the reader's buffer whatever the line length.
fn next_line(reader: &mut impl BufRead, buf: &mut Vec<u8>, cap: usize) -> io::Result<LineRead> {
    let mut total: u64 = 0;
    let mut over = false;
    loop {
        let chunk = match reader.fill_buf() {
            Ok(c) => c,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            return Ok(LineRead::Incomplete);
        }
        let (take, done) = match memchr::memchr(b'\n', chunk) {
            Some(i) => (i + 1, true),
            None => (chunk.len(), false),
        };
        total += take as u64;
        if !over && buf.len() + take > cap {
            over = true;
            *buf = Vec::new();
        }
        if !over {
            buf.extend_from_slice(&chunk[..take]);
        }
        reader.consume(take);
        if done {
            return Ok(if over {
                LineRead::Oversized(total)
            } else {
                LineRead::Complete(total)
            });
        }
    }
}

/// Feeds one line; false when (part of) it was not a JSON object.
fn parse_line(line: &[u8], offset: u64, interp: &mut reader::Interpreter) -> bool {
    // Derived structs also accept JSON arrays; a record is always an object.
    if line.first() != Some(&b'{') {
        return false;
    }
    match serde_json::from_slice::<raw::RawLine>(line) {
        Ok(record) => {
            interp.feed(record, offset);
            true
        }
        // A lone surrogate escape (a cut emoji) is replaced, never fatal to the turn.
        Err(_) if crate::formats::text::replace_lone_surrogate_escapes(line).is_some() => {
            let fixed =
                crate::formats::text::replace_lone_surrogate_escapes(line).unwrap_or_default();
            parse_line(&fixed, offset, interp)
        }
        Err(_) => {
            // `{…}{…}`: an append that lost its newline; keep every object that parses.
            let mut stream = serde_json::Deserializer::from_slice(line).into_iter::<raw::RawLine>();
            let mut clean = true;
            for record in stream.by_ref() {
                match record {
                    Ok(record) => interp.feed(record, offset),
                    Err(_) => {
                        clean = false;
                        break;
                    }
                }
            }
            clean
        }
    }
}

/// Hex SHA-256 of the first [`HEAD_HASH_BYTES`] bytes of `path` (all of it when shorter).
pub fn head_hash(path: &Path) -> io::Result<String> {
    let mut head = Vec::with_capacity(HEAD_HASH_BYTES);
    crate::storage::safe_fs::open_regular(path)
        .map_err(io::Error::other)?
        .take(HEAD_HASH_BYTES as u64)
        .read_to_end(&mut head)?;
    let digest = Sha256::digest(&head);
    Ok(crate::formats::text::hex(&digest))
}

#[cfg(test)]
mod tests;
