//! The incremental extraction cursor, `extract-cursor.json` (SPEC §4.3).
//!
//! Upstream's fields are `sessionId`, `processedOffset` and `updatedAt`. This tool adds
//! `transcriptPath`, `byteOffset` (just after the last complete line consumed) and `headHash`
//! (SHA-256 of the transcript's first bytes) so a run reads only what was appended since the
//! last one, and `format` (the format detected on the first read) so a slice that starts with
//! undecidable lines is still read with the right rules.
//!
//! `processedOffset` counts the messages read from the transcript of `sessionId` so far; upstream
//! counts history entries, and a reader that finds the number larger than its history simply
//! starts over, so the two never skip each other's work.
//!
//! The head hash covers the first `min(4096, byteOffset)` bytes: what was consumed, never the
//! bytes still to come, so a short transcript that grows keeps its hash while one rewritten in
//! place is noticed.

use std::io::{self, Read};
use std::path::Path;

use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::store::{self, JsonState, StoreError};
use crate::transcript::{Format, HEAD_HASH_BYTES};

/// The cursor as stored. Unknown keys of the file are kept in `raw` and written back.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Cursor {
    pub session_id: Option<String>,
    pub processed_offset: Option<u64>,
    pub updated_at: Option<String>,
    pub transcript_path: Option<String>,
    pub byte_offset: Option<u64>,
    pub head_hash: Option<String>,
    pub format: Option<Format>,
    /// The file as read (for unknown keys).
    pub raw: JsonState,
}

/// Why a run starts where it starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StartReason {
    /// No byte cursor yet: read from the start.
    Fresh,
    /// Same transcript, same session, unchanged head: read only the appended bytes.
    Resume,
    /// The cursor is about another transcript file.
    OtherTranscript,
    /// The cursor is about another session.
    OtherSession,
    /// The file is shorter than the cursor: it was truncated.
    Truncated,
    /// The first bytes differ from the ones consumed: the file was replaced.
    Replaced,
}

impl StartReason {
    /// The snake_case name used in JSON output.
    pub fn as_str(self) -> &'static str {
        match self {
            StartReason::Fresh => "fresh",
            StartReason::Resume => "resume",
            StartReason::OtherTranscript => "other_transcript",
            StartReason::OtherSession => "other_session",
            StartReason::Truncated => "truncated",
            StartReason::Replaced => "replaced",
        }
    }
}

/// Where to start reading and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Start {
    pub offset: u64,
    pub reason: StartReason,
}

impl Cursor {
    /// Reads the cursor of `state_dir`. A missing file is an empty cursor. An unreadable or
    /// invalid one is reported as `Err` so the caller can warn; it then starts from an empty
    /// cursor (re-reading a transcript is harmless: applying the same facts again changes
    /// nothing), instead of failing every later run as upstream does.
    pub fn read(state_dir: &Path) -> Result<Cursor, StoreError> {
        let raw = JsonState::read(&state_dir.join(store::CURSOR_FILE))?.unwrap_or_default();
        Ok(Cursor::from_state(raw))
    }

    /// Interprets a parsed cursor file; fields of the wrong JSON type count as absent.
    pub fn from_state(raw: JsonState) -> Cursor {
        let string = |k: &str| raw.str(k).map(str::to_string);
        Cursor {
            session_id: string("sessionId"),
            processed_offset: raw.u64("processedOffset"),
            updated_at: string("updatedAt"),
            transcript_path: string("transcriptPath"),
            byte_offset: raw.u64("byteOffset"),
            head_hash: string("headHash"),
            format: raw
                .str("format")
                .and_then(|f| f.parse::<Format>().ok())
                .filter(|f| *f != Format::Auto),
            raw,
        }
    }

    /// Decides where to read `transcript_path` (currently `file_len` bytes long) from.
    /// `session` is the session the caller was asked to process, when it knows it.
    /// `hash_prefix(n)` returns the hash of the file's first `n` bytes.
    pub fn start_for(
        &self,
        transcript_path: &str,
        session: Option<&str>,
        file_len: u64,
        hash_prefix: impl FnOnce(u64) -> io::Result<String>,
    ) -> Start {
        let restart = |reason| Start { offset: 0, reason };
        let (Some(path), Some(offset)) = (&self.transcript_path, self.byte_offset) else {
            return restart(StartReason::Fresh);
        };
        if path != transcript_path {
            return restart(StartReason::OtherTranscript);
        }
        if let (Some(wanted), Some(stored)) = (session, &self.session_id) {
            if wanted != stored {
                return restart(StartReason::OtherSession);
            }
        }
        if file_len < offset {
            return restart(StartReason::Truncated);
        }
        let same_head = match (&self.head_hash, hash_prefix(hashed_len(offset))) {
            (Some(stored), Ok(now)) => *stored == now,
            _ => false,
        };
        if !same_head {
            return restart(StartReason::Replaced);
        }
        Start {
            offset,
            reason: StartReason::Resume,
        }
    }

    /// The cursor after a run that consumed `transcript_path` up to `byte_offset`.
    /// `messages_read` is added to `processedOffset` when the run resumed the same session.
    pub fn advanced(
        &self,
        update: &Advance<'_>,
        start: Start,
        messages_read: u64,
        now: &str,
    ) -> Cursor {
        let resumed = start.reason == StartReason::Resume
            && self.session_id.as_deref() == Some(update.session_id);
        let base = if resumed {
            self.processed_offset.unwrap_or(0)
        } else {
            0
        };
        Cursor {
            session_id: Some(update.session_id.to_string()),
            processed_offset: Some(base + messages_read),
            updated_at: Some(now.to_string()),
            transcript_path: Some(update.transcript_path.to_string()),
            byte_offset: Some(update.byte_offset),
            head_hash: Some(update.head_hash.to_string()),
            format: update.format.filter(|f| *f != Format::Auto).or(self.format),
            raw: self.raw.clone(),
        }
    }

    /// Writes the cursor atomically (2-space JSON plus newline), keeping unknown keys.
    pub fn write(&self, state_dir: &Path) -> Result<(), StoreError> {
        let mut state = self.raw.clone();
        let mut put = |key: &str, value: Option<Value>| match value {
            Some(v) => state.set(key, v),
            None => state.remove(key),
        };
        put("sessionId", self.session_id.clone().map(Value::from));
        put("processedOffset", self.processed_offset.map(Value::from));
        put("updatedAt", self.updated_at.clone().map(Value::from));
        put(
            "transcriptPath",
            self.transcript_path.clone().map(Value::from),
        );
        put("byteOffset", self.byte_offset.map(Value::from));
        put("headHash", self.head_hash.clone().map(Value::from));
        put("format", self.format.map(|f| Value::from(f.as_str())));
        state.write(&state_dir.join(store::CURSOR_FILE))
    }
}

/// What a successful run consumed.
#[derive(Debug, Clone, Copy)]
pub struct Advance<'a> {
    pub session_id: &'a str,
    pub transcript_path: &'a str,
    pub byte_offset: u64,
    pub head_hash: &'a str,
    pub format: Option<Format>,
}

/// How many leading bytes the head hash of a cursor at `byte_offset` covers.
pub fn hashed_len(byte_offset: u64) -> u64 {
    byte_offset.min(HEAD_HASH_BYTES as u64)
}

/// Lowercase hex SHA-256 of the first `len` bytes of `path` (fewer when the file is shorter).
pub fn hash_prefix(path: &Path, len: u64) -> io::Result<String> {
    let mut head = Vec::with_capacity(len.min(HEAD_HASH_BYTES as u64) as usize);
    crate::safe_fs::open_regular(path)
        .map_err(io::Error::other)?
        .take(len)
        .read_to_end(&mut head)?;
    Ok(hex(&Sha256::digest(&head)))
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(s, "{b:02x}");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cursor(path: &str, session: &str, offset: u64, hash: &str) -> Cursor {
        Cursor {
            session_id: Some(session.into()),
            processed_offset: Some(3),
            updated_at: Some("x".into()),
            transcript_path: Some(path.into()),
            byte_offset: Some(offset),
            head_hash: Some(hash.into()),
            format: Some(Format::Qwen),
            raw: JsonState::default(),
        }
    }

    fn ok_hash(h: &'static str) -> impl FnOnce(u64) -> io::Result<String> {
        move |_| Ok(h.to_string())
    }

    #[test]
    fn decisions() {
        let c = cursor("/t.jsonl", "s1", 100, "h");
        let s = c.start_for("/t.jsonl", Some("s1"), 150, ok_hash("h"));
        assert_eq!(
            s,
            Start {
                offset: 100,
                reason: StartReason::Resume
            }
        );
        // Unknown session on the request side: path + head decide.
        assert_eq!(
            c.start_for("/t.jsonl", None, 100, ok_hash("h")).reason,
            StartReason::Resume
        );
        assert_eq!(
            c.start_for("/u.jsonl", Some("s1"), 150, ok_hash("h")),
            Start {
                offset: 0,
                reason: StartReason::OtherTranscript
            }
        );
        assert_eq!(
            c.start_for("/t.jsonl", Some("s2"), 150, ok_hash("h"))
                .reason,
            StartReason::OtherSession
        );
        assert_eq!(
            c.start_for("/t.jsonl", Some("s1"), 99, ok_hash("h")).reason,
            StartReason::Truncated
        );
        assert_eq!(
            c.start_for("/t.jsonl", Some("s1"), 150, ok_hash("other"))
                .reason,
            StartReason::Replaced
        );
        let failing = |_| Err(io::Error::other("gone"));
        assert_eq!(
            c.start_for("/t.jsonl", Some("s1"), 150, failing).reason,
            StartReason::Replaced
        );
        assert_eq!(
            Cursor::default()
                .start_for("/t.jsonl", None, 10, ok_hash("h"))
                .reason,
            StartReason::Fresh
        );
    }

    #[test]
    fn hash_covers_only_consumed_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.jsonl");
        std::fs::write(&p, "line one\n").unwrap();
        let before = hash_prefix(&p, hashed_len(9)).unwrap();
        std::fs::write(&p, "line one\nline two\n").unwrap();
        assert_eq!(hash_prefix(&p, hashed_len(9)).unwrap(), before);
        std::fs::write(&p, "LINE ONE\nline two\n").unwrap();
        assert_ne!(hash_prefix(&p, hashed_len(9)).unwrap(), before);
        assert_eq!(hashed_len(10_000_000), 4096);
        assert_eq!(
            hash_prefix(&p, 0).unwrap(),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }

    #[test]
    fn write_read_round_trip_keeps_unknown_keys() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join(store::CURSOR_FILE),
            "{\"updatedAt\":\"1970-01-01T00:00:00.000Z\",\"processedHistoryHash\":\"abc\"}\n",
        )
        .unwrap();
        let c = Cursor::read(dir.path()).unwrap();
        assert_eq!(c.byte_offset, None);
        let next = c.advanced(
            &Advance {
                session_id: "s",
                transcript_path: "/t.jsonl",
                byte_offset: 42,
                head_hash: "hh",
                format: Some(Format::Claude),
            },
            Start {
                offset: 0,
                reason: StartReason::Fresh,
            },
            5,
            "2026-01-01T00:00:00.000Z",
        );
        next.write(dir.path()).unwrap();
        let text = std::fs::read_to_string(dir.path().join(store::CURSOR_FILE)).unwrap();
        assert_eq!(
            text,
            "{\n  \"updatedAt\": \"2026-01-01T00:00:00.000Z\",\n  \"processedHistoryHash\": \"abc\",\n  \"sessionId\": \"s\",\n  \"processedOffset\": 5,\n  \"transcriptPath\": \"/t.jsonl\",\n  \"byteOffset\": 42,\n  \"headHash\": \"hh\",\n  \"format\": \"claude\"\n}\n"
        );
        let again = Cursor::read(dir.path()).unwrap();
        assert_eq!(again.byte_offset, Some(42));
        assert_eq!(again.format, Some(Format::Claude));
        // Resuming the same session accumulates processedOffset; another session restarts it.
        let resumed = again.advanced(
            &Advance {
                session_id: "s",
                transcript_path: "/t.jsonl",
                byte_offset: 50,
                head_hash: "hh",
                format: None,
            },
            Start {
                offset: 42,
                reason: StartReason::Resume,
            },
            2,
            "t",
        );
        assert_eq!(resumed.processed_offset, Some(7));
        assert_eq!(resumed.format, Some(Format::Claude));
    }

    #[test]
    fn invalid_cursor_is_an_error_and_missing_is_empty() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(Cursor::read(dir.path()).unwrap(), Cursor::default());
        std::fs::write(dir.path().join(store::CURSOR_FILE), "{not json").unwrap();
        assert!(Cursor::read(dir.path()).is_err());
    }
}
