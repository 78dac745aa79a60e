//! The store: atomic writes, the per-root mutation lock, and the state files (`meta.json`;
//! Qwen Code's `extract-cursor.json` is only read) (docs/DESIGN.md, "Writes", "State files").
//!
//! Every write of a memory or state file goes through [`atomic_write`]: a temporary file in the
//! same directory (its name never ends in `.md`, so a scan never sees it), fsync, rename. A rename
//! replaces a symlink at the destination instead of writing through it, so a `MEMORY.md` that
//! points outside the root is replaced and its target left untouched.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

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
}

impl StoreError {
    pub(crate) fn io(path: &Path, source: io::Error) -> StoreError {
        StoreError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}

/// Writes `contents` to `path` atomically, never following a symlink at `path`. The parent
/// directory is created when missing. The mode of an existing regular file is kept.
pub fn atomic_write(path: &Path, contents: &[u8]) -> Result<(), StoreError> {
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    fs::create_dir_all(parent).map_err(|e| StoreError::io(parent, e))?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "file".into());
    let mut tmp = tempfile::Builder::new()
        .prefix(&format!(".{name}."))
        .suffix(".tmp")
        .tempfile_in(parent)
        .map_err(|e| StoreError::io(parent, e))?;
    tmp.write_all(contents)
        .and_then(|_| tmp.as_file().sync_all())
        .map_err(|e| StoreError::io(tmp.path(), e))?;
    if let Ok(meta) = fs::symlink_metadata(path) {
        if meta.file_type().is_file() {
            // Ignore failures: the content matters more than the mode.
            let _ = fs::set_permissions(tmp.path(), meta.permissions());
        }
    }
    tmp.persist(path)
        .map_err(|e| StoreError::io(path, e.error))?;
    Ok(())
}

/// Creates `path` with `contents` only when it does not exist (exclusive create). Returns
/// whether it was created.
pub fn create_new(path: &Path, contents: &[u8]) -> Result<bool, StoreError> {
    match OpenOptions::new().write(true).create_new(true).open(path) {
        Ok(mut f) => {
            f.write_all(contents)
                .and_then(|_| f.sync_all())
                .map_err(|e| StoreError::io(path, e))?;
            Ok(true)
        }
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(false),
        Err(e) => Err(StoreError::io(path, e)),
    }
}

/// Runs `f` while holding the exclusive mutation lock at `lock_path` (an advisory `fd-lock` on
/// a file in the state dir). Every writer of a root takes it, so concurrent processes never lose
/// an update; the lock is released when `f` returns, and by the OS if the process dies.
pub fn with_lock<T>(lock_path: &Path, f: impl FnOnce() -> T) -> Result<T, StoreError> {
    if let Some(parent) = lock_path.parent() {
        fs::create_dir_all(parent).map_err(|e| StoreError::io(parent, e))?;
    }
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(lock_path)
        .map_err(|e| StoreError::io(lock_path, e))?;
    let mut lock = fd_lock::RwLock::new(file);
    let _guard = lock.write().map_err(|e| StoreError::io(lock_path, e))?;
    Ok(f())
}

/// Reads a state file that must be a regular file: `Ok(None)` when it is missing, an error
/// when something else is there. Opened non-blocking and checked on the open handle, so a FIFO
/// planted in its place is an error, never a hang.
pub fn read_regular(path: &Path) -> Result<Option<String>, StoreError> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let mut file = match OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW)
        .open(path)
    {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(StoreError::io(path, e)),
    };
    let meta = file.metadata().map_err(|e| StoreError::io(path, e))?;
    if !meta.file_type().is_file() {
        return Err(StoreError::io(
            path,
            io::Error::new(io::ErrorKind::InvalidInput, "not a regular file"),
        ));
    }
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)
        .map_err(|e| StoreError::io(path, e))?;
    Ok(Some(String::from_utf8_lossy(&bytes).into_owned()))
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
    pub fn read(path: &Path) -> Result<Option<JsonState>, StoreError> {
        let text = match fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(StoreError::io(path, e)),
        };
        match serde_json::from_str::<Value>(&text) {
            Ok(Value::Object(map)) => Ok(Some(JsonState(map))),
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

    /// Writes atomically as 2-space JSON plus newline.
    pub fn write(&self, path: &Path) -> Result<(), StoreError> {
        atomic_write(
            path,
            to_pretty_json(&Value::Object(self.0.clone())).as_bytes(),
        )
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
pub const LOCK_FILE: &str = "memory.lock";

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

/// Creates the memory root, an empty `MEMORY.md` and the default `meta.json`, each only when
/// missing; never touches existing content. Qwen Code's `extract-cursor.json` is never created
/// or written here: Qwen Code owns it (this tool's cursors are in their own file).
pub fn ensure_scaffold(memory_root: &Path, state_dir: &Path) -> Result<(), StoreError> {
    check_root(memory_root)?;
    fs::create_dir_all(memory_root).map_err(|e| StoreError::io(memory_root, e))?;
    fs::create_dir_all(state_dir).map_err(|e| StoreError::io(state_dir, e))?;
    let now = now_iso();
    create_new(&memory_root.join(INDEX_FILE), b"")?;
    create_new(
        &state_dir.join(META_FILE),
        to_pretty_json(&Value::Object(default_meta(&now).0)).as_bytes(),
    )?;
    Ok(())
}

/// Refuses a root that is a symlink or not a directory; a missing root is fine.
pub fn check_root(root: &Path) -> Result<bool, StoreError> {
    match fs::symlink_metadata(root) {
        Ok(m) if m.file_type().is_dir() => Ok(true),
        Ok(_) => Err(StoreError::SymlinkedRoot(root.to_path_buf())),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(StoreError::io(root, e)),
    }
}

/// Opens a file for appending, creating its directory.
pub fn open_append(path: &Path) -> io::Result<File> {
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent)?;
    }
    OpenOptions::new().create(true).append(true).open(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_write_replaces_symlink_not_target() {
        let dir = tempfile::tempdir().unwrap();
        let outside = dir.path().join("outside.txt");
        fs::write(&outside, "SENTINEL").unwrap();
        let root = dir.path().join("root");
        fs::create_dir(&root).unwrap();
        let index = root.join("MEMORY.md");
        std::os::unix::fs::symlink(&outside, &index).unwrap();
        atomic_write(&index, b"new").unwrap();
        assert_eq!(fs::read_to_string(&outside).unwrap(), "SENTINEL");
        assert!(!fs::symlink_metadata(&index)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(fs::read_to_string(&index).unwrap(), "new");
        let leftovers: Vec<_> = fs::read_dir(&root).unwrap().collect();
        assert_eq!(leftovers.len(), 1, "no temporary file left behind");
    }

    #[test]
    fn scaffold_is_idempotent_and_exact() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("p");
        let root = state.join("memory");
        ensure_scaffold(&root, &state).unwrap();
        assert_eq!(fs::read_to_string(root.join("MEMORY.md")).unwrap(), "");
        let meta = fs::read_to_string(state.join("meta.json")).unwrap();
        assert!(
            meta.starts_with("{\n  \"version\": 1,\n  \"createdAt\": \""),
            "{meta}"
        );
        assert!(meta.ends_with("\"\n}\n"));
        fs::write(root.join("MEMORY.md"), "custom").unwrap();
        ensure_scaffold(&root, &state).unwrap();
        assert_eq!(
            fs::read_to_string(root.join("MEMORY.md")).unwrap(),
            "custom"
        );
        assert_eq!(fs::read_dir(&root).unwrap().count(), 1, "no topic files");
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
