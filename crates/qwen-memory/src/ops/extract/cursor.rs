//! This tool's own extraction cursors: one per transcript path, in `transcript-cursors.json` in
//! the state dir (docs/DESIGN.md, "State files").
//!
//! Qwen Code's `extract-cursor.json` lives in the same directory in private mode and is
//! rewritten whole by Qwen Code, so any field added there is lost; it is only ever read here,
//! once, to carry over the fields an older version of this tool wrote into it.
//!
//! Per transcript: `byteOffset` (just after the last complete line consumed), `headHash`
//! (SHA-256 of the first `min(4096, byteOffset)` bytes: what was consumed, never bytes still to
//! come, so a short transcript that grows keeps its hash while one rewritten in place is
//! noticed), the session, the format detected on the first read (so a slice starting with
//! undecidable lines is still read with the right rules) and the messages read so far.
//!
//! A run that fails leaves its transcript's cursor where it was and records the failure: under
//! `failures` until a later run of that transcript succeeds (the next extraction of the root
//! retries it), and as `lastFailure` for `status`.

use std::collections::BTreeMap;
use std::io::{self, Read};
use std::path::Path;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::formats::text::hex;
use crate::integrations::transcript::{Format, HEAD_HASH_BYTES};
use crate::ops::trigger::Trigger;
use crate::storage::settings::ExtractStrategy;
use crate::storage::store::{self, JsonState, StoreError};

/// This tool's cursor file in the state dir.
pub const CURSORS_FILE: &str = "transcript-cursors.json";
/// How many transcripts keep a cursor; the least recently updated ones are forgotten first
/// (forgetting one only means that transcript is read again from the start).
pub const MAX_CURSORS: usize = 1000;
/// A failed transcript is retried by this many later runs at most; after that only a run of
/// that transcript (a new turn, or by hand) tries again.
pub const MAX_RETRIES: u32 = 5;

/// The cursor of one transcript.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TranscriptCursor {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    #[serde(default)]
    pub byte_offset: u64,
    #[serde(default)]
    pub head_hash: String,
    /// `qwen`, `claude` or `jsonl`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    /// Messages read from this transcript so far (restarts with the transcript).
    #[serde(default)]
    pub messages_read: u64,
    #[serde(default)]
    pub updated_at: String,
}

/// A failed extraction, kept so it is retried and shown.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Failure {
    pub at: String,
    pub transcript_path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    #[serde(default)]
    pub format: Format,
    #[serde(default)]
    pub strategy: ExtractStrategy,
    /// Who started the failed run; a file from before this field gives
    /// [`Trigger::unrecorded`].
    #[serde(default = "Trigger::unrecorded")]
    pub trigger: Trigger,
    /// The error message (paths and rule ids, never memory content).
    pub error: String,
    /// Failed runs of this transcript in a row.
    #[serde(default)]
    pub attempts: u32,
    /// When a later run of the transcript succeeded (only on `lastFailure`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retried_at: Option<String>,
}

/// The whole cursor file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Cursors {
    #[serde(default = "version_one")]
    pub version: u32,
    /// By absolute transcript path.
    #[serde(default)]
    pub transcripts: BTreeMap<String, TranscriptCursor>,
    /// Transcripts whose last run failed, by path: the next extraction retries them.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub failures: BTreeMap<String, Failure>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_failure: Option<Failure>,
    /// Set when the cursor of an older version was carried over from Qwen Code's file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub migrated_from: Option<String>,
}

fn version_one() -> u32 {
    1
}

impl Default for Cursors {
    fn default() -> Self {
        Cursors {
            version: 1,
            transcripts: BTreeMap::new(),
            failures: BTreeMap::new(),
            last_failure: None,
            migrated_from: None,
        }
    }
}

/// Why a run starts where it starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StartReason {
    /// No cursor for this transcript yet: read from the start.
    Fresh,
    /// Same transcript, same session, unchanged head: read only the appended bytes.
    Resume,
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

impl TranscriptCursor {
    /// Decides where to read the transcript (currently `file_len` bytes long) from.
    /// `session` is the session the caller was asked to process, when it knows it.
    /// `hash_prefix(n)` returns the hash of the file's first `n` bytes.
    pub fn start(
        &self,
        session: Option<&str>,
        file_len: u64,
        hash_prefix: impl FnOnce(u64) -> io::Result<String>,
    ) -> Start {
        let restart = |reason| Start { offset: 0, reason };
        if let (Some(wanted), Some(stored)) = (session, &self.session_id) {
            if wanted != stored {
                return restart(StartReason::OtherSession);
            }
        }
        if file_len < self.byte_offset {
            return restart(StartReason::Truncated);
        }
        let same_head = !self.head_hash.is_empty()
            && hash_prefix(hashed_len(self.byte_offset)).is_ok_and(|now| now == self.head_hash);
        if !same_head {
            return restart(StartReason::Replaced);
        }
        Start {
            offset: self.byte_offset,
            reason: StartReason::Resume,
        }
    }

    /// The detected format stored with the cursor.
    pub fn format(&self) -> Option<Format> {
        self.format
            .as_deref()
            .and_then(|f| f.parse::<Format>().ok())
            .filter(|f| *f != Format::Auto)
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
    pub messages_read: u64,
}

impl Cursors {
    /// Reads the cursor file of `state_dir`. Without one, the fields an older version of this
    /// tool kept in Qwen Code's `extract-cursor.json` are carried over (read only; written to
    /// this tool's file with the next advance). An unreadable or invalid file is reported as
    /// `Err` so the caller can warn; it then starts from an empty set (re-reading a transcript
    /// is harmless: applying the same facts again changes nothing).
    pub fn read(state_dir: &Path) -> Result<Cursors, StoreError> {
        let path = state_dir.join(CURSORS_FILE);
        match crate::storage::safe_fs::read_regular_string(&path)? {
            Some(text) => serde_json::from_str(&text).map_err(|e| StoreError::Json {
                path,
                message: e.to_string(),
            }),
            None => Ok(Cursors::migrated(state_dir)),
        }
    }

    /// The cursor an older version left in Qwen Code's file, if any.
    fn migrated(state_dir: &Path) -> Cursors {
        let mut out = Cursors::default();
        let Ok(Some(old)) = JsonState::read(&state_dir.join(store::CURSOR_FILE)) else {
            return out;
        };
        let (Some(path), Some(offset), Some(hash)) = (
            old.str("transcriptPath"),
            old.u64("byteOffset"),
            old.str("headHash"),
        ) else {
            return out;
        };
        out.transcripts.insert(
            path.to_string(),
            TranscriptCursor {
                session_id: old.str("sessionId").map(str::to_string),
                byte_offset: offset,
                head_hash: hash.to_string(),
                format: old.str("format").map(str::to_string),
                messages_read: old.u64("processedOffset").unwrap_or(0),
                updated_at: old.str("updatedAt").unwrap_or_default().to_string(),
            },
        );
        out.migrated_from = Some(store::CURSOR_FILE.to_string());
        out
    }

    /// The cursor of `transcript_path`, if any.
    pub fn get(&self, transcript_path: &str) -> Option<&TranscriptCursor> {
        self.transcripts.get(transcript_path)
    }

    /// Records a successful run: the transcript's new cursor, and the end of its failure.
    /// `resumed` says whether the run continued the stored cursor (its message count goes on).
    pub fn advance(&mut self, update: &Advance<'_>, resumed: bool, now: &str) {
        let previous = self.transcripts.get(update.transcript_path);
        let base = match previous {
            Some(p) if resumed => p.messages_read,
            _ => 0,
        };
        let format = update
            .format
            .filter(|f| *f != Format::Auto)
            .map(|f| f.as_str().to_string())
            .or_else(|| previous.and_then(|p| p.format.clone()));
        self.transcripts.insert(
            update.transcript_path.to_string(),
            TranscriptCursor {
                session_id: Some(update.session_id.to_string()),
                byte_offset: update.byte_offset,
                head_hash: update.head_hash.to_string(),
                format,
                messages_read: base + update.messages_read,
                updated_at: now.to_string(),
            },
        );
        self.succeeded(update.transcript_path, now);
    }

    /// A run of `transcript_path` succeeded (whether or not its cursor moved).
    pub fn succeeded(&mut self, transcript_path: &str, now: &str) {
        if self.failures.remove(transcript_path).is_some() {
            if let Some(last) = self
                .last_failure
                .as_mut()
                .filter(|l| l.transcript_path == transcript_path && l.retried_at.is_none())
            {
                last.retried_at = Some(now.to_string());
            }
        }
    }

    /// Records a failed run; the transcript's cursor is left as it was.
    pub fn failed(&mut self, mut failure: Failure) {
        let before = self
            .failures
            .get(&failure.transcript_path)
            .map_or(0, |f| f.attempts);
        failure.attempts = before + 1;
        failure.retried_at = None;
        self.last_failure = Some(failure.clone());
        self.failures
            .insert(failure.transcript_path.clone(), failure);
    }

    /// Failures the next run should retry: not retried too often, transcript still there.
    pub fn retryable(&self) -> Vec<&Failure> {
        self.failures
            .values()
            .filter(|f| f.attempts <= MAX_RETRIES && Path::new(&f.transcript_path).is_file())
            .collect()
    }

    /// Writes the file atomically (2-space JSON plus newline), forgetting cursors and failures
    /// of transcripts that no longer exist and the oldest cursors beyond [`MAX_CURSORS`].
    pub fn write(&mut self, state_dir: &Path) -> Result<(), StoreError> {
        self.transcripts.retain(|p, _| Path::new(p).exists());
        self.failures.retain(|p, _| Path::new(p).exists());
        if self.transcripts.len() > MAX_CURSORS {
            let mut by_age: Vec<(String, String)> = self
                .transcripts
                .iter()
                .map(|(p, c)| (c.updated_at.clone(), p.clone()))
                .collect();
            by_age.sort();
            let drop = by_age.len() - MAX_CURSORS;
            for (_, p) in by_age.into_iter().take(drop) {
                self.transcripts.remove(&p);
            }
        }
        let value = serde_json::to_value(&*self).map_err(|e| StoreError::Json {
            path: state_dir.join(CURSORS_FILE),
            message: e.to_string(),
        })?;
        store::atomic_write(
            &state_dir.join(CURSORS_FILE),
            store::to_pretty_json(&value).as_bytes(),
        )
    }
}

/// How many leading bytes the head hash of a cursor at `byte_offset` covers.
pub fn hashed_len(byte_offset: u64) -> u64 {
    byte_offset.min(HEAD_HASH_BYTES as u64)
}

/// Lowercase hex SHA-256 of the first `len` bytes of `path` (fewer when the file is shorter).
pub fn hash_prefix(path: &Path, len: u64) -> io::Result<String> {
    let mut head = Vec::with_capacity(len.min(HEAD_HASH_BYTES as u64) as usize);
    crate::storage::safe_fs::open_regular(path)
        .map_err(io::Error::other)?
        .take(len)
        .read_to_end(&mut head)?;
    Ok(hex(&Sha256::digest(&head)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cursor(session: &str, offset: u64, hash: &str) -> TranscriptCursor {
        TranscriptCursor {
            session_id: Some(session.into()),
            byte_offset: offset,
            head_hash: hash.into(),
            format: Some("qwen".into()),
            messages_read: 3,
            updated_at: "x".into(),
        }
    }

    fn ok_hash(h: &'static str) -> impl FnOnce(u64) -> io::Result<String> {
        move |_| Ok(h.to_string())
    }

    #[test]
    fn decisions() {
        let c = cursor("s1", 100, "h");
        assert_eq!(
            c.start(Some("s1"), 150, ok_hash("h")),
            Start {
                offset: 100,
                reason: StartReason::Resume
            }
        );
        // Unknown session on the request side: the head decides.
        assert_eq!(c.start(None, 100, ok_hash("h")).reason, StartReason::Resume);
        assert_eq!(
            c.start(Some("s2"), 150, ok_hash("h")).reason,
            StartReason::OtherSession
        );
        assert_eq!(
            c.start(Some("s1"), 99, ok_hash("h")).reason,
            StartReason::Truncated
        );
        assert_eq!(
            c.start(Some("s1"), 150, ok_hash("other")).reason,
            StartReason::Replaced
        );
        let failing = |_| Err(io::Error::other("gone"));
        assert_eq!(
            c.start(Some("s1"), 150, failing).reason,
            StartReason::Replaced
        );
        assert_eq!(c.format(), Some(Format::Qwen));
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

    fn advance<'a>(path: &'a str, session: &'a str, offset: u64) -> Advance<'a> {
        Advance {
            session_id: session,
            transcript_path: path,
            byte_offset: offset,
            head_hash: "hh",
            format: Some(Format::Claude),
            messages_read: 2,
        }
    }

    #[test]
    fn one_cursor_per_transcript_round_trips() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.jsonl");
        let b = dir.path().join("b.jsonl");
        std::fs::write(&a, "x").unwrap();
        std::fs::write(&b, "x").unwrap();
        let (a, b) = (a.display().to_string(), b.display().to_string());
        let mut c = Cursors::read(dir.path()).unwrap();
        assert_eq!(c, Cursors::default());
        c.advance(&advance(&a, "sa", 10), false, "t1");
        c.advance(&advance(&b, "sb", 20), false, "t1");
        c.advance(&advance(&a, "sa", 15), true, "t2");
        c.write(dir.path()).unwrap();
        let again = Cursors::read(dir.path()).unwrap();
        assert_eq!(again.get(&a).unwrap().byte_offset, 15);
        assert_eq!(again.get(&a).unwrap().messages_read, 4);
        assert_eq!(again.get(&b).unwrap().byte_offset, 20);
        assert_eq!(again.get(&b).unwrap().format(), Some(Format::Claude));
        let text = std::fs::read_to_string(dir.path().join(CURSORS_FILE)).unwrap();
        assert!(text.starts_with("{\n  \"version\": 1,\n  \"transcripts\": {\n"));
        assert!(text.ends_with("}\n"));
        // A transcript that is gone is forgotten with the next write.
        std::fs::remove_file(&b).unwrap();
        let mut again = again;
        again.write(dir.path()).unwrap();
        assert!(Cursors::read(dir.path()).unwrap().get(&b).is_none());
    }

    #[test]
    fn failures_are_kept_until_a_run_of_that_transcript_succeeds() {
        let dir = tempfile::tempdir().unwrap();
        let t = dir.path().join("t.jsonl");
        std::fs::write(&t, "x").unwrap();
        let t = t.display().to_string();
        let mut c = Cursors::default();
        let failure = Failure {
            at: "t1".into(),
            transcript_path: t.clone(),
            session_id: Some("s".into()),
            format: Format::Auto,
            strategy: ExtractStrategy::Auto,
            trigger: Trigger::Hook,
            error: "boom".into(),
            attempts: 0,
            retried_at: None,
        };
        c.failed(failure.clone());
        c.failed(failure);
        assert_eq!(c.failures[&t].attempts, 2);
        assert_eq!(c.retryable().len(), 1);
        assert!(c.get(&t).is_none(), "no cursor was written");
        c.succeeded("/other.jsonl", "t2");
        assert_eq!(c.failures.len(), 1);
        c.advance(&advance(&t, "s", 5), false, "t3");
        assert!(c.failures.is_empty());
        let last = c.last_failure.as_ref().unwrap();
        assert_eq!(last.retried_at.as_deref(), Some("t3"));
        assert_eq!(last.error, "boom");
    }

    #[test]
    fn a_failure_keeps_its_trigger_byte_for_byte_known_unknown_or_missing() {
        let read = |trigger: &str| -> Failure {
            serde_json::from_str(&format!(
                r#"{{"at":"t","transcriptPath":"/t.jsonl",{trigger}"error":"e"}}"#
            ))
            .unwrap()
        };
        let hook = read(r#""trigger":"hook","#);
        assert_eq!(hook.trigger, Trigger::Hook);
        let foreign = read(r#""trigger":"codex-hook","#);
        assert_eq!(foreign.trigger, Trigger::Other("codex-hook".into()));
        // A failure from before the field: unknown (written back as the "" it was), not manual.
        let old = read("");
        assert_eq!(old.trigger, Trigger::unrecorded());
        assert!(!old.trigger.is_manual());
        for (f, text) in [(hook, "hook"), (foreign, "codex-hook"), (old, "")] {
            let json = serde_json::to_value(&f).unwrap();
            assert_eq!(json["trigger"], text);
        }
    }

    #[test]
    fn retries_stop_after_the_limit() {
        let mut c = Cursors::default();
        let dir = tempfile::tempdir().unwrap();
        let t = dir.path().join("t.jsonl");
        std::fs::write(&t, "x").unwrap();
        for _ in 0..=MAX_RETRIES {
            c.failed(Failure {
                at: "t".into(),
                transcript_path: t.display().to_string(),
                session_id: None,
                format: Format::Auto,
                strategy: ExtractStrategy::Auto,
                trigger: Trigger::unrecorded(),
                error: "e".into(),
                attempts: 0,
                retried_at: None,
            });
        }
        assert!(c.retryable().is_empty());
    }

    #[test]
    fn an_old_cursor_in_qwens_file_is_carried_over_without_touching_it() {
        let dir = tempfile::tempdir().unwrap();
        let qwen = dir.path().join(store::CURSOR_FILE);
        let old = "{\n  \"sessionId\": \"s\",\n  \"processedOffset\": 4,\n  \"updatedAt\": \"u\",\n  \"transcriptPath\": \"/t.jsonl\",\n  \"byteOffset\": 42,\n  \"headHash\": \"hh\",\n  \"format\": \"claude\"\n}\n";
        std::fs::write(&qwen, old).unwrap();
        let c = Cursors::read(dir.path()).unwrap();
        let t = c.get("/t.jsonl").unwrap();
        assert_eq!((t.byte_offset, t.head_hash.as_str()), (42, "hh"));
        assert_eq!(t.format(), Some(Format::Claude));
        assert_eq!(t.messages_read, 4);
        assert_eq!(c.migrated_from.as_deref(), Some(store::CURSOR_FILE));
        assert_eq!(std::fs::read_to_string(&qwen).unwrap(), old);
        // Upstream's own fields alone carry nothing over.
        std::fs::write(&qwen, "{\"sessionId\":\"s\",\"processedOffset\":3}").unwrap();
        assert_eq!(Cursors::read(dir.path()).unwrap(), Cursors::default());
        // Once this tool's file exists, Qwen Code's is not looked at again.
        std::fs::write(&qwen, old).unwrap();
        std::fs::write(dir.path().join(CURSORS_FILE), "{\"version\":1}").unwrap();
        assert!(Cursors::read(dir.path()).unwrap().transcripts.is_empty());
    }

    #[test]
    fn invalid_file_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(CURSORS_FILE), "{not json").unwrap();
        assert!(Cursors::read(dir.path()).is_err());
    }
}
