//! Transcript readers: Qwen Code chat records, Claude Code transcripts and generic JSONL
//! (SPEC §8.1), read incrementally from a byte offset (SPEC §4.3 `extract-cursor.json`).
//!
//! Reading is streaming: one line at a time through a `BufReader`, keeping only user text,
//! capped assistant text and tool-call summaries, so memory stays bounded by the longest line
//! plus what is kept, not by the file size.

mod memory_write;
mod raw;
mod reader;
mod strip;

use std::fmt;
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::str::FromStr;

use sha2::{Digest, Sha256};

pub use memory_write::{is_write_tool, latest_turn_wrote_memory};
pub use strip::{strip_injected_context, RELEVANT_MEMORY_HEADING};

/// Assistant text kept per message, in bytes; the rest is dropped (it is context only).
pub const ASSISTANT_TEXT_LIMIT: usize = 4096;

/// Bytes hashed by [`head_hash`] to recognise a replaced transcript.
pub const HEAD_HASH_BYTES: usize = 4096;

const READ_BUFFER_BYTES: usize = 256 * 1024;

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
/// counted; two objects glued on one line by an interrupted append are both read. A
/// `start_offset` past the end of the file reads nothing (the caller compares the file size
/// with its cursor to notice truncation, SPEC §4.3).
pub fn read_transcript(
    path: &Path,
    start_offset: u64,
    format: Format,
) -> Result<ReadOutcome, TranscriptError> {
    let io_err = |source| TranscriptError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut file = crate::safe_fs::open_regular(path).map_err(|e| io_err(io::Error::other(e)))?;
    file.seek(SeekFrom::Start(start_offset)).map_err(io_err)?;
    let mut reader = BufReader::with_capacity(READ_BUFFER_BYTES, file);
    let mut interp = reader::Interpreter::new(format);
    let mut malformed_lines = 0;
    let mut pos = start_offset;
    let mut buf = Vec::new();
    loop {
        buf.clear();
        let n = reader.read_until(b'\n', &mut buf).map_err(io_err)?;
        if n == 0 || buf.last() != Some(&b'\n') {
            break;
        }
        let line_start = pos;
        pos += n as u64;
        let line = buf.trim_ascii();
        if line.is_empty() {
            continue;
        }
        if !parse_line(line, line_start, &mut interp) {
            malformed_lines += 1;
        }
    }
    Ok(ReadOutcome {
        messages: interp.messages,
        end_offset: pos,
        malformed_lines,
        format: interp.format,
        session_id: interp.session_id,
    })
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
    crate::safe_fs::open_regular(path)
        .map_err(io::Error::other)?
        .take(HEAD_HASH_BYTES as u64)
        .read_to_end(&mut head)?;
    let digest = Sha256::digest(&head);
    Ok(digest.iter().map(|b| format!("{b:02x}")).collect())
}

#[cfg(test)]
mod tests;
