//! The store: atomic writes, locks, and the state files (`meta.json`; Qwen Code's
//! `extract-cursor.json` is only read) (see docs/DESIGN.md, "Writes" and "State files").
//!
//! Files of a memory root are written only through [`crate::root_writer::RootWriter`], which holds the
//! root's lock. The functions here write files whose directory is trusted as given (state
//! files, backups, agent settings): still atomic (temporary file in the same directory, fsync,
//! rename; see [`crate::safe_fs`]), never through a symlink at the destination and never into a
//! FIFO or device, which are refused with an error naming them.

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::safe_fs::{self, FileLock, FsError};

/// Store errors, each naming the path involved.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("{path}: invalid JSON: {message}")]
    Json { path: PathBuf, message: String },
    #[error("{0}: refusing a memory root that is a symlink or not a directory")]
    SymlinkedRoot(PathBuf),
    #[error(transparent)]
    Fs(#[from] FsError),
}

impl StoreError {
    pub(crate) fn io(path: &Path, source: io::Error) -> StoreError {
        StoreError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}

/// Writes `contents` to `path` atomically in a trusted directory (created when missing). A
/// symlink, FIFO or device at `path` is refused, never followed or opened. The mode of an
/// existing regular file is kept. Never use this for a file inside a memory root: that goes
/// through [`crate::root_writer::RootWriter`].
pub fn atomic_write(path: &Path, contents: &[u8]) -> Result<(), StoreError> {
    Ok(safe_fs::write_atomic(path, contents)?)
}

/// Creates `path` with `contents` only when nothing is there (exclusive create, never through
/// a symlink). Returns whether it was created.
pub fn create_new(path: &Path, contents: &[u8]) -> Result<bool, StoreError> {
    let (dir, name) = safe_fs::split(path)?;
    Ok(safe_fs::Dir::open_trusted(dir, false)?.create_new(name, contents)?)
}

/// Runs `f` while holding the exclusive lock at `lock_path` (see [`FileLock`]). For a memory
/// root take [`crate::root_writer::RootWriter::lock`] instead, which holds the same lock and is the
/// only way to write the root.
pub fn with_lock<T>(lock_path: &Path, f: impl FnOnce() -> T) -> Result<T, StoreError> {
    let _lock = FileLock::exclusive(lock_path)?;
    Ok(f())
}

/// The current time as upstream writes it: ISO 8601 UTC with milliseconds and `Z`.
pub fn now_iso() -> String {
    iso_from_ms(now_ms())
}

/// Milliseconds since the epoch.
pub fn now_ms() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs_f64() * 1000.0)
        .unwrap_or(0.0)
}

/// Formats epoch milliseconds as `YYYY-MM-DDTHH:MM:SS.mmmZ`.
pub fn iso_from_ms(ms: f64) -> String {
    let dt = chrono::DateTime::from_timestamp_millis(ms as i64).unwrap_or_default();
    dt.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()
}

/// Parses an ISO timestamp to epoch milliseconds.
pub fn ms_from_iso(s: &str) -> Option<f64> {
    chrono::DateTime::parse_from_rfc3339(s)
        .ok()
        .map(|d| d.timestamp_millis() as f64)
}

/// Serializes JSON as upstream does: 2-space indentation plus a final newline.
pub fn to_pretty_json(value: &Value) -> String {
    let mut s = serde_json::to_string_pretty(value).unwrap_or_else(|_| "{}".into());
    s.push('\n');
    s
}

/// A JSON state file kept as an ordered map so unknown keys survive a rewrite in their order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct JsonState(pub Map<String, Value>);

impl JsonState {
    /// Reads `path`; a missing file is `Ok(None)`.
    /// A FIFO, device or symlink at `path` is an error (never a hang).
    pub fn read(path: &Path) -> Result<Option<JsonState>, StoreError> {
        let Some(text) = safe_fs::read_regular_string(path)? else {
            return Ok(None);
        };
        JsonState::parse(path, &text).map(Some)
    }

    /// Parses the text of the state file at `path` (named in errors).
    pub fn parse(path: &Path, text: &str) -> Result<JsonState, StoreError> {
        match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(map)) => Ok(JsonState(map)),
            Ok(_) => Err(StoreError::Json {
                path: path.to_path_buf(),
                message: "not an object".into(),
            }),
            Err(e) => Err(StoreError::Json {
                path: path.to_path_buf(),
                message: e.to_string(),
            }),
        }
    }

    /// The file text: 2-space JSON plus newline.
    pub fn to_text(&self) -> String {
        to_pretty_json(&Value::Object(self.0.clone()))
    }

    /// Writes atomically as 2-space JSON plus newline, in a trusted directory. A root's own
    /// state files go through [`crate::root_writer::RootWriter::write_state`] instead.
    pub fn write(&self, path: &Path) -> Result<(), StoreError> {
        atomic_write(path, self.to_text().as_bytes())
    }

    pub fn str(&self, key: &str) -> Option<&str> {
        self.0.get(key).and_then(Value::as_str)
    }

    pub fn u64(&self, key: &str) -> Option<u64> {
        self.0.get(key).and_then(Value::as_u64)
    }

    pub fn strings(&self, key: &str) -> Vec<String> {
        match self.0.get(key) {
            Some(Value::Array(items)) => items
                .iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect(),
            _ => Vec::new(),
        }
    }

    /// Sets a key, keeping its position when it exists and appending it otherwise.
    pub fn set(&mut self, key: &str, value: impl Into<Value>) {
        self.0.insert(key.to_string(), value.into());
    }

    pub fn remove(&mut self, key: &str) {
        self.0.shift_remove(key);
    }
}

/// File names inside a state dir.
pub const META_FILE: &str = "meta.json";
/// Qwen Code's extraction cursor: read only, never written by this tool.
pub const CURSOR_FILE: &str = "extract-cursor.json";
pub const INDEX_FILE: &str = "MEMORY.md";
pub const ROOT_LOCK_FILE: &str = "memory.lock";

/// The default `meta.json` of a new project: `{version, createdAt, updatedAt}`.
pub fn default_meta(now: &str) -> JsonState {
    let mut m = JsonState::default();
    m.set("version", 1);
    m.set("createdAt", now);
    m.set("updatedAt", now);
    m
}

/// Reads `meta.json`, falling back to the default when missing or unreadable as JSON (as
/// upstream's indexer treats a JSON error as "no metadata").
pub fn read_meta(state_dir: &Path) -> JsonState {
    match JsonState::read(&state_dir.join(META_FILE)) {
        Ok(Some(m)) => m,
        _ => default_meta(&now_iso()),
    }
}

/// Refuses a root that is a symlink or not a directory; a missing root is fine.
pub fn check_root(root: &Path) -> Result<bool, StoreError> {
    match std::fs::symlink_metadata(root) {
        Ok(m) if m.file_type().is_dir() => Ok(true),
        Ok(_) => Err(StoreError::SymlinkedRoot(root.to_path_buf())),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(StoreError::io(root, e)),
    }
}

/// Opens a log file for appending, creating its directory; a symlink or special file at
/// `path` is an error (never followed, never a hang).
pub fn open_append(path: &Path) -> io::Result<File> {
    safe_fs::open_append(path).map_err(io::Error::other)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn atomic_write_refuses_a_symlink_and_leaves_its_target() {
        let dir = tempfile::tempdir().unwrap();
        let outside = dir.path().join("outside.txt");
        fs::write(&outside, "SENTINEL").unwrap();
        let state = dir.path().join("state");
        fs::create_dir(&state).unwrap();
        let meta = state.join("meta.json");
        std::os::unix::fs::symlink(&outside, &meta).unwrap();
        let err = atomic_write(&meta, b"new").unwrap_err();
        assert!(
            err.to_string().contains(&meta.display().to_string()),
            "{err}"
        );
        assert_eq!(fs::read_to_string(&outside).unwrap(), "SENTINEL");
        assert_eq!(
            fs::read_dir(&state).unwrap().count(),
            1,
            "no temporary file left behind"
        );
    }

    #[test]
    fn json_state_keeps_unknown_keys_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("meta.json");
        fs::write(
            &p,
            "{\"version\":1,\"zeta\":true,\"alpha\":[1],\"updatedAt\":\"x\"}",
        )
        .unwrap();
        let mut m = JsonState::read(&p).unwrap().unwrap();
        m.set("updatedAt", "y");
        m.set("lastDreamAt", "z");
        m.write(&p).unwrap();
        assert_eq!(
            fs::read_to_string(&p).unwrap(),
            "{\n  \"version\": 1,\n  \"zeta\": true,\n  \"alpha\": [\n    1\n  ],\n  \"updatedAt\": \"y\",\n  \"lastDreamAt\": \"z\"\n}\n"
        );
    }

    #[test]
    fn iso_round_trip() {
        let s = iso_from_ms(1_775_030_400_000.0);
        assert_eq!(s, "2026-04-01T08:00:00.000Z");
        assert_eq!(ms_from_iso(&s), Some(1_775_030_400_000.0));
    }

    #[test]
    fn lock_serializes_writers() {
        let dir = tempfile::tempdir().unwrap();
        let lock = dir.path().join("state/memory.lock");
        let counter = dir.path().join("counter");
        fs::write(&counter, "0").unwrap();
        let threads: Vec<_> = (0..8)
            .map(|_| {
                let lock = lock.clone();
                let counter = counter.clone();
                std::thread::spawn(move || {
                    for _ in 0..20 {
                        with_lock(&lock, || {
                            let n: u32 = fs::read_to_string(&counter).unwrap().parse().unwrap();
                            atomic_write(&counter, (n + 1).to_string().as_bytes()).unwrap();
                        })
                        .unwrap();
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(fs::read_to_string(&counter).unwrap(), "160");
    }
}
