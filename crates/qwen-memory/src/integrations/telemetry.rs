//! Telemetry events and the hook log (docs/DESIGN.md, "Telemetry and logs").
//!
//! Telemetry is a local JSON-lines file, `<state_dir>/telemetry.jsonl`, read back by `stats`.
//! It must never contain memory content, queries or paths: callers pass only counts, durations
//! and enum-like words, and [`Telemetry::emit`] drops any field value that does not look like
//! one (see [`Telemetry::try_emit`]).
//!
//! The hook log, `<state_dir>/hook.log`, is where git hooks report what they did, since a hook
//! must never write to the terminal of the commit it runs in.
//!
//! Both files rotate at [`ROTATE_BYTES`] to a single `.1` backup.

use std::collections::BTreeMap;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

/// Extract run finished (or was skipped).
pub const EVENT_EXTRACT: &str = "qwen-code.memory.extract";
/// Dream run finished (or was skipped).
pub const EVENT_DREAM: &str = "qwen-code.memory.dream";
/// Recall answered.
pub const EVENT_RECALL: &str = "qwen-code.memory.recall";
/// Forget finished.
pub const EVENT_FORGET: &str = "qwen-code.memory.forget";
/// Remember finished.
pub const EVENT_REMEMBER: &str = "qwen-code.memory.remember";

/// Environment variable that turns telemetry off when set to `0`.
pub const ENV_TELEMETRY: &str = "QWEN_MEMORY_TELEMETRY";
/// File name of the telemetry log inside the state dir.
pub const TELEMETRY_FILE: &str = "telemetry.jsonl";
/// File name of the hook log inside the state dir.
pub const HOOK_LOG_FILE: &str = "hook.log";
/// Size at which a log file is moved to its `.1` backup before the next append.
pub const ROTATE_BYTES: u64 = 1024 * 1024;

/// Longest string value [`Telemetry::emit`] keeps; enums and comma-joined topic names fit.
const MAX_ENUM_LEN: usize = 128;

/// Why a telemetry append failed.
#[derive(Debug, thiserror::Error)]
pub enum TelemetryError {
    /// Creating the state dir, rotating or appending failed.
    #[error("telemetry write failed: {0}")]
    Io(#[from] std::io::Error),
    /// The event could not be serialised.
    #[error("telemetry event could not be encoded: {0}")]
    Encode(#[from] serde_json::Error),
}

/// Appends telemetry events to `<state_dir>/telemetry.jsonl`.
#[derive(Debug, Clone)]
pub struct Telemetry {
    state_dir: PathBuf,
    enabled: bool,
    rotate_bytes: u64,
}

impl Telemetry {
    /// Telemetry for `state_dir`, enabled unless `QWEN_MEMORY_TELEMETRY=0`.
    pub fn new(state_dir: &Path) -> Self {
        let env = std::env::var(ENV_TELEMETRY).ok();
        Self::with_enabled(state_dir, enabled_by_env(env.as_deref()))
    }

    /// Telemetry with an explicit on/off switch, ignoring the environment.
    pub fn with_enabled(state_dir: &Path, enabled: bool) -> Self {
        Self::with_rotation(state_dir, enabled, ROTATE_BYTES)
    }

    /// Lets tests rotate at a small size.
    pub(crate) fn with_rotation(state_dir: &Path, enabled: bool, rotate_bytes: u64) -> Self {
        Telemetry {
            state_dir: state_dir.to_path_buf(),
            enabled,
            rotate_bytes,
        }
    }

    /// Whether events are written at all.
    pub fn enabled(&self) -> bool {
        self.enabled
    }

    /// Path of the current telemetry file.
    pub fn path(&self) -> PathBuf {
        self.state_dir.join(TELEMETRY_FILE)
    }

    /// Appends one event, swallowing any error: telemetry must never fail a command.
    /// See [`Telemetry::try_emit`] for what is written.
    pub fn emit(&self, event: &str, fields: Map<String, Value>) {
        let _ = self.try_emit(event, fields);
    }

    /// Appends `{"event":…, "ts":<ISO UTC millis>, …fields}` as one line.
    ///
    /// Privacy contract: `fields` must hold only numbers, booleans and enum-like words (e.g.
    /// `status: "updated"`, `touched_topics: "user,project"`) — never memory content, queries,
    /// paths or anything a user typed. As a backstop, values that are not null, a boolean, a
    /// number, or a string of at most 128 characters from `[A-Za-z0-9_.,:-]` are dropped, as
    /// are fields named `event` or `ts`. A disabled instance writes nothing and returns `Ok`.
    pub fn try_emit(&self, event: &str, fields: Map<String, Value>) -> Result<(), TelemetryError> {
        if !self.enabled {
            return Ok(());
        }
        let mut record = Map::new();
        record.insert("event".into(), Value::String(event.to_owned()));
        record.insert("ts".into(), Value::String(now_iso()));
        for (key, value) in fields {
            if key == "event" || key == "ts" || !is_safe_value(&value) {
                continue;
            }
            record.insert(key, value);
        }
        let mut line = serde_json::to_string(&Value::Object(record))?;
        line.push('\n');
        append_rotating(&self.state_dir, TELEMETRY_FILE, &line, self.rotate_bytes)?;
        Ok(())
    }
}

/// One kind of telemetry record: a fixed event name and a fixed set of fields. Each field is a
/// count, a duration, a flag or an enum-like word, so the type itself says what may be recorded
/// (no memory content, query text or path); `try_emit`'s value filter stays as a backstop.
pub trait Event: serde::Serialize {
    const NAME: &'static str;
}

/// How a run of extract or dream ended: one definition for the operations, their `--json`
/// (snake_case) and telemetry (which records it in the event's own vocabulary, below).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    /// Memory files changed.
    Updated,
    /// Ran; nothing new to write.
    Noop,
    /// Did not run (a gate, a queue, a memory tool: the event says why).
    Skipped,
    /// Failed (the error is reported by the caller, never recorded here).
    Failed,
    /// Planned only (`--dry-run`); never recorded.
    DryRun,
}

impl RunStatus {
    /// The `status` of a `qwen-code.memory.extract` event: a run that ran is `completed`.
    pub fn extract_event(self) -> &'static str {
        match self {
            RunStatus::Updated | RunStatus::Noop | RunStatus::DryRun => "completed",
            RunStatus::Skipped => "skipped",
            RunStatus::Failed => "failed",
        }
    }

    /// The `status` of a `qwen-code.memory.dream` event: `updated`, `failed`, else `noop`.
    pub fn dream_event(self) -> &'static str {
        match self {
            RunStatus::Updated => "updated",
            RunStatus::Failed => "failed",
            RunStatus::Noop | RunStatus::Skipped | RunStatus::DryRun => "noop",
        }
    }
}

fn extract_status<S: serde::Serializer>(status: &RunStatus, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(status.extract_event())
}

fn dream_status<S: serde::Serializer>(status: &RunStatus, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(status.dream_event())
}

/// `qwen-code.memory.extract`: one extraction run.
#[derive(Debug, serde::Serialize)]
pub struct ExtractEvent<'a> {
    pub trigger: &'a str,
    #[serde(serialize_with = "extract_status")]
    pub status: RunStatus,
    pub skipped_reason: Option<&'a str>,
    pub patches_count: usize,
    /// Topic names (`user,project`), never file paths.
    pub touched_topics: String,
    pub duration_ms: u64,
}

/// `qwen-code.memory.dream`: one consolidation (or its failure).
#[derive(Debug, serde::Serialize)]
pub struct DreamEvent<'a> {
    pub trigger: &'a str,
    #[serde(serialize_with = "dream_status")]
    pub status: RunStatus,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub strategy: Option<&'a str>,
    pub deduped_entries: usize,
    /// Topic names; absent when the dream failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub touched_topics: Option<String>,
    pub touched_topics_count: usize,
    pub duration_ms: u64,
}

/// `qwen-code.memory.recall`: one recall; the query only as its length.
#[derive(Debug, serde::Serialize)]
pub struct RecallEvent<'a> {
    pub query_length: usize,
    pub docs_scanned: usize,
    pub docs_selected: usize,
    pub strategy: &'a str,
    pub semantic: bool,
    pub trigger: &'a str,
    pub duration_ms: u64,
}

/// `qwen-code.memory.forget`: one forget run.
#[derive(Debug, serde::Serialize)]
pub struct ForgetEvent<'a> {
    pub removed_entries: usize,
    pub strategy: &'a str,
    pub duration_ms: u64,
}

/// `qwen-code.memory.remember`: one explicit remember.
#[derive(Debug, serde::Serialize)]
pub struct RememberEvent<'a> {
    pub status: crate::storage::entries::ChangeKind,
    pub scope: &'a str,
}

impl Event for ExtractEvent<'_> {
    const NAME: &'static str = EVENT_EXTRACT;
}
impl Event for DreamEvent<'_> {
    const NAME: &'static str = EVENT_DREAM;
}
impl Event for RecallEvent<'_> {
    const NAME: &'static str = EVENT_RECALL;
}
impl Event for ForgetEvent<'_> {
    const NAME: &'static str = EVENT_FORGET;
}
impl Event for RememberEvent<'_> {
    const NAME: &'static str = EVENT_REMEMBER;
}

impl Telemetry {
    /// Appends one typed event, swallowing any error like [`Telemetry::emit`].
    pub fn record<E: Event>(&self, event: &E) {
        if let Ok(Value::Object(fields)) = serde_json::to_value(event) {
            self.emit(E::NAME, fields);
        }
    }
}

/// `QWEN_MEMORY_TELEMETRY` semantics: `0` (and the obvious spellings of "off") disable.
fn enabled_by_env(value: Option<&str>) -> bool {
    match value.map(str::trim) {
        Some(v) => {
            !(v == "0"
                || v.eq_ignore_ascii_case("false")
                || v.eq_ignore_ascii_case("off")
                || v.eq_ignore_ascii_case("no"))
        }
        None => true,
    }
}

fn is_safe_value(value: &Value) -> bool {
    match value {
        Value::Null | Value::Bool(_) | Value::Number(_) => true,
        Value::String(s) => {
            s.len() <= MAX_ENUM_LEN
                && s.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"_.,:-".contains(&b))
        }
        Value::Array(_) | Value::Object(_) => false,
    }
}

/// UTC now as `2024-01-02T03:04:05.678Z`, the shape JS `toISOString` produces.
fn now_iso() -> String {
    chrono::Utc::now()
        .format("%Y-%m-%dT%H:%M:%S%.3fZ")
        .to_string()
}

fn backup_name(file: &str) -> String {
    format!("{file}.1")
}

/// Appends `text` to `dir/file`, first moving a file of `rotate_bytes` or more to `file.1`
/// (replacing an older backup). Two processes rotating at once can lose the older backup;
/// that is acceptable for logs whose purpose is recent history.
fn append_rotating(dir: &Path, file: &str, text: &str, rotate_bytes: u64) -> std::io::Result<()> {
    fs::create_dir_all(dir)?;
    let path = dir.join(file);
    if let Ok(meta) = fs::symlink_metadata(&path) {
        if meta.len() >= rotate_bytes {
            fs::rename(&path, dir.join(backup_name(file)))?;
        }
    }
    // Never through a symlink, never blocking on a FIFO put where the log should be.
    let mut f = crate::storage::safe_fs::open_append(&path).map_err(std::io::Error::other)?;
    // One write call per line so concurrent appenders (O_APPEND) do not interleave mid-line.
    f.write_all(text.as_bytes())
}

/// Every event in the rotated file then the current one, oldest first. Missing files are
/// empty; lines that are not JSON objects are skipped; invalid UTF-8 is replaced.
pub fn read_events(state_dir: &Path) -> Vec<Value> {
    let mut out = Vec::new();
    for name in [backup_name(TELEMETRY_FILE), TELEMETRY_FILE.to_owned()] {
        let Ok(Some(bytes)) = crate::storage::safe_fs::read_regular(&state_dir.join(name)) else {
            continue;
        };
        let text = String::from_utf8_lossy(&bytes);
        for line in text.lines() {
            if let Ok(v @ Value::Object(_)) = serde_json::from_str::<Value>(line) {
                out.push(v);
            }
        }
    }
    out
}

/// Per-event count and duration percentiles, as `stats` prints them.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EventStats {
    /// Event name, e.g. [`EVENT_RECALL`].
    pub event: String,
    /// Number of events with that name.
    pub count: usize,
    /// Median `duration_ms` (nearest rank); `None` when no event carried a duration.
    pub p50_ms: Option<u64>,
    /// 95th percentile `duration_ms` (nearest rank); `None` when no event carried a duration.
    pub p95_ms: Option<u64>,
}

/// Groups events by name (sorted by name) and computes nearest-rank p50/p95 of `duration_ms`.
/// Events without a string `event` are ignored; a missing, negative or non-numeric
/// `duration_ms` counts the event but not its duration.
pub fn summarize(events: &[Value]) -> Vec<EventStats> {
    let mut groups: BTreeMap<&str, (usize, Vec<u64>)> = BTreeMap::new();
    for ev in events {
        let Some(name) = ev.get("event").and_then(Value::as_str) else {
            continue;
        };
        let entry = groups.entry(name).or_default();
        entry.0 += 1;
        if let Some(ms) = ev.get("duration_ms").and_then(duration_ms) {
            entry.1.push(ms);
        }
    }
    groups
        .into_iter()
        .map(|(event, (count, mut durations))| {
            durations.sort_unstable();
            EventStats {
                event: event.to_owned(),
                count,
                p50_ms: nearest_rank(&durations, 50),
                p95_ms: nearest_rank(&durations, 95),
            }
        })
        .collect()
}

fn duration_ms(v: &Value) -> Option<u64> {
    if let Some(n) = v.as_u64() {
        return Some(n);
    }
    let f = v.as_f64()?;
    // Float durations round to whole milliseconds; the cast saturates on huge values.
    (f.is_finite() && f >= 0.0).then(|| f.round() as u64)
}

/// Nearest-rank percentile of sorted data: the value at 1-based rank ⌈p/100 · n⌉.
fn nearest_rank(sorted: &[u64], percentile: usize) -> Option<u64> {
    if sorted.is_empty() {
        return None;
    }
    let rank = (percentile * sorted.len()).div_ceil(100).max(1);
    sorted.get(rank.min(sorted.len()) - 1).copied()
}

/// Appends `<ISO ts> <pid> <message>` to `<state_dir>/hook.log`, rotating at [`ROTATE_BYTES`].
///
/// Never panics and never writes to stderr: failures are dropped, because a hook must not
/// disturb the git command it runs in. Line breaks in `message` become spaces so each call is
/// one line, and secrets are redacted so the log cannot become a leak.
pub fn log_line(state_dir: &Path, message: &str) {
    log_line_with_rotation(state_dir, message, ROTATE_BYTES);
}

/// [`log_line`] for a message made only of this program's own words (fixed text and names it
/// defines, nothing read from outside): such a message cannot hold a secret, so it is written
/// without the redaction pass, whose scanner (a few hundred microseconds to build) a hook that
/// does nothing would otherwise build only to log that.
pub fn log_own_words(state_dir: &Path, message: &str) {
    write_log_line(state_dir, message, ROTATE_BYTES);
}

fn log_line_with_rotation(state_dir: &Path, message: &str, rotate_bytes: u64) {
    let message = crate::formats::secrets::redact(message);
    write_log_line(state_dir, &message, rotate_bytes);
}

fn write_log_line(state_dir: &Path, message: &str, rotate_bytes: u64) {
    let one_line: String = message
        .chars()
        .map(|c| if c == '\n' || c == '\r' { ' ' } else { c })
        .collect();
    let line = format!("{} {} {}\n", now_iso(), std::process::id(), one_line);
    let _ = append_rotating(state_dir, HOOK_LOG_FILE, &line, rotate_bytes);
}

#[cfg(test)]
mod tests {

    fn field_names<E: Event>(e: &E) -> Vec<String> {
        match serde_json::to_value(e).unwrap() {
            Value::Object(m) => m.keys().cloned().collect(),
            other => panic!("not an object: {other}"),
        }
    }

    #[test]
    fn typed_events_serialize_to_the_documented_fields_only() {
        let extract = ExtractEvent {
            trigger: "hook",
            status: RunStatus::Updated,
            skipped_reason: None,
            patches_count: 2,
            touched_topics: "user,project".into(),
            duration_ms: 5,
        };
        assert_eq!(ExtractEvent::NAME, "qwen-code.memory.extract");
        let mut f = field_names(&extract);
        f.sort();
        assert_eq!(
            f,
            [
                "duration_ms",
                "patches_count",
                "skipped_reason",
                "status",
                "touched_topics",
                "trigger"
            ]
        );
        let dream = DreamEvent {
            trigger: "manual",
            status: RunStatus::Updated,
            strategy: Some("mechanical"),
            deduped_entries: 1,
            touched_topics: Some("project".into()),
            touched_topics_count: 1,
            duration_ms: 3,
        };
        let mut f = field_names(&dream);
        f.sort();
        assert_eq!(
            f,
            [
                "deduped_entries",
                "duration_ms",
                "status",
                "strategy",
                "touched_topics",
                "touched_topics_count",
                "trigger"
            ]
        );
        let failed = DreamEvent {
            strategy: None,
            touched_topics: None,
            status: RunStatus::Failed,
            ..dream
        };
        assert!(!field_names(&failed).contains(&"strategy".to_string()));
        assert_eq!(serde_json::to_value(&failed).unwrap()["status"], "failed");
        assert_eq!(
            serde_json::to_value(&extract).unwrap()["status"],
            "completed"
        );
        let skipped = ExtractEvent {
            status: RunStatus::Skipped,
            ..extract
        };
        assert_eq!(serde_json::to_value(&skipped).unwrap()["status"], "skipped");
        let recall = RecallEvent {
            query_length: 12,
            docs_scanned: 3,
            docs_selected: 1,
            strategy: "auto",
            semantic: false,
            trigger: "cli",
            duration_ms: 1,
        };
        let mut f = field_names(&recall);
        f.sort();
        assert_eq!(
            f,
            [
                "docs_scanned",
                "docs_selected",
                "duration_ms",
                "query_length",
                "semantic",
                "strategy",
                "trigger"
            ]
        );
        let mut f = field_names(&ForgetEvent {
            removed_entries: 1,
            strategy: "model",
            duration_ms: 2,
        });
        f.sort();
        assert_eq!(f, ["duration_ms", "removed_entries", "strategy"]);
        let mut f = field_names(&RememberEvent {
            status: crate::storage::entries::ChangeKind::Created,
            scope: "private",
        });
        f.sort();
        assert_eq!(f, ["scope", "status"]);
    }

    #[test]
    fn recorded_events_never_carry_content_queries_or_paths() {
        let dir = tempfile::tempdir().unwrap();
        let t = Telemetry::with_enabled(dir.path(), true);
        // Even if a caller put a path or a sentence into an enum-like field, the backstop drops it.
        t.record(&RecallEvent {
            query_length: 30,
            docs_scanned: 1,
            docs_selected: 1,
            strategy: "/home/me/secret query",
            semantic: false,
            trigger: "cli",
            duration_ms: 1,
        });
        t.record(&ForgetEvent {
            removed_entries: 1,
            strategy: "heuristic",
            duration_ms: 2,
        });
        let text = std::fs::read_to_string(t.path()).unwrap();
        assert!(
            !text.contains("/home/me") && !text.contains("secret query"),
            "{text}"
        );
        let events = read_events(dir.path());
        assert_eq!(events.len(), 2);
        assert_eq!(events[0]["event"], EVENT_RECALL);
        assert_eq!(events[0]["query_length"], 30);
        assert_eq!(events[1]["event"], EVENT_FORGET);
        assert_eq!(events[1]["strategy"], "heuristic");
    }
    use super::*;
    use serde_json::json;

    fn fields(v: Value) -> Map<String, Value> {
        match v {
            Value::Object(m) => m,
            _ => panic!("fields must be an object"),
        }
    }

    #[test]
    fn emit_then_read_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        // A nested, not-yet-existing state dir is created.
        let state = dir.path().join("a/b");
        let t = Telemetry::with_enabled(&state, true);
        t.try_emit(
            EVENT_RECALL,
            fields(
                json!({"query_length": 12, "docs_scanned": 3, "strategy": "heuristic",
                          "duration_ms": 4}),
            ),
        )
        .unwrap();
        t.emit(
            EVENT_EXTRACT,
            fields(json!({"status": "completed", "touched_topics": "user,project"})),
        );
        let events = read_events(&state);
        assert_eq!(events.len(), 2);
        assert_eq!(events[0]["event"], EVENT_RECALL);
        assert_eq!(events[0]["query_length"], 12);
        assert_eq!(events[0]["strategy"], "heuristic");
        assert_eq!(events[1]["event"], EVENT_EXTRACT);
        assert_eq!(events[1]["touched_topics"], "user,project");
        // Key order on disk: event, ts, then fields.
        let raw = fs::read_to_string(state.join(TELEMETRY_FILE)).unwrap();
        assert!(raw.starts_with("{\"event\":\"qwen-code.memory.recall\",\"ts\":\""));
        let ts = events[0]["ts"].as_str().unwrap();
        assert_eq!(ts.len(), "2024-01-02T03:04:05.678Z".len(), "{ts}");
        assert!(chrono::DateTime::parse_from_rfc3339(ts).is_ok(), "{ts}");
        assert!(ts.ends_with('Z'));
    }

    #[test]
    fn unsafe_values_and_reserved_keys_are_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let t = Telemetry::with_enabled(dir.path(), true);
        t.try_emit(
            EVENT_FORGET,
            fields(json!({
                "removed_entries": 2,
                "strategy": "model",
                "query": "where is the api key",
                "path": "/home/me/.qwen/memory/user.md",
                "topics": ["user"],
                "event": "spoofed",
                "ts": "spoofed",
                "ok": true,
            })),
        )
        .unwrap();
        let ev = &read_events(dir.path())[0];
        let keys: Vec<&str> = ev.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(keys, ["event", "ts", "removed_entries", "strategy", "ok"]);
        assert_eq!(ev["event"], EVENT_FORGET);
        assert_ne!(ev["ts"], "spoofed");
    }

    #[test]
    fn opt_out_writes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("state");
        let t = Telemetry::with_enabled(&state, false);
        assert!(!t.enabled());
        t.try_emit(EVENT_DREAM, fields(json!({"duration_ms": 1})))
            .unwrap();
        t.emit(EVENT_DREAM, Map::new());
        assert!(!state.exists());
        assert!(read_events(&state).is_empty());
    }

    #[test]
    fn env_switch_semantics() {
        assert!(enabled_by_env(None));
        assert!(enabled_by_env(Some("1")));
        assert!(enabled_by_env(Some("")));
        assert!(!enabled_by_env(Some("0")));
        assert!(!enabled_by_env(Some(" 0 ")));
        assert!(!enabled_by_env(Some("false")));
        assert!(!enabled_by_env(Some("OFF")));
    }

    #[test]
    fn rotation_happens_at_the_threshold() {
        let dir = tempfile::tempdir().unwrap();
        let t = Telemetry::with_rotation(dir.path(), true, 200);
        let current = dir.path().join(TELEMETRY_FILE);
        let backup = dir.path().join("telemetry.jsonl.1");
        let mut emitted = 0;
        // Below the threshold nothing rotates.
        while fs::metadata(&current).map(|m| m.len()).unwrap_or(0) < 200 {
            t.try_emit(EVENT_RECALL, fields(json!({"duration_ms": emitted})))
                .unwrap();
            emitted += 1;
            assert!(!backup.exists(), "rotated early after {emitted}");
        }
        let before = fs::read(&current).unwrap();
        // The next append sees a file at/over the threshold and rotates first.
        t.try_emit(EVENT_RECALL, fields(json!({"duration_ms": emitted})))
            .unwrap();
        emitted += 1;
        assert_eq!(fs::read(&backup).unwrap(), before);
        assert_eq!(fs::read_to_string(&current).unwrap().lines().count(), 1);
        // Reading merges both, oldest first.
        let events = read_events(dir.path());
        assert_eq!(events.len(), emitted);
        let durations: Vec<u64> = events
            .iter()
            .map(|e| e["duration_ms"].as_u64().unwrap())
            .collect();
        assert_eq!(durations, (0..emitted as u64).collect::<Vec<_>>());

        // A second rotation replaces the older backup.
        while fs::metadata(&current).unwrap().len() < 200 {
            t.try_emit(EVENT_RECALL, Map::new()).unwrap();
        }
        let before = fs::read(&current).unwrap();
        t.try_emit(EVENT_RECALL, Map::new()).unwrap();
        assert_eq!(fs::read(&backup).unwrap(), before);
    }

    #[test]
    fn try_emit_reports_errors_and_emit_swallows_them() {
        let dir = tempfile::tempdir().unwrap();
        // The "state dir" is a regular file, so it cannot be created.
        let blocker = dir.path().join("file");
        fs::write(&blocker, "x").unwrap();
        let t = Telemetry::with_enabled(&blocker, true);
        assert!(matches!(
            t.try_emit(EVENT_RECALL, Map::new()),
            Err(TelemetryError::Io(_))
        ));
        t.emit(EVENT_RECALL, Map::new());
    }

    #[test]
    fn read_skips_malformed_lines() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(
            dir.path().join(TELEMETRY_FILE),
            b"{\"event\":\"a\"}\nnot json\n[1,2]\n\xff\xfe\n{\"event\":\"b\"}\n{\"event\":",
        )
        .unwrap();
        let names: Vec<String> = read_events(dir.path())
            .iter()
            .map(|e| e["event"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(names, ["a", "b"]);
        assert!(read_events(&dir.path().join("missing")).is_empty());
    }

    #[test]
    fn summarize_nearest_rank_percentiles() {
        let mut events: Vec<Value> = (1..=20)
            .map(|ms| json!({"event": EVENT_RECALL, "duration_ms": ms}))
            .collect();
        events.extend([
            json!({"event": EVENT_DREAM, "duration_ms": 30}),
            json!({"event": EVENT_DREAM, "duration_ms": 10}),
            json!({"event": EVENT_DREAM, "duration_ms": 20.4}),
            json!({"event": EVENT_DREAM}),
            json!({"event": EVENT_FORGET, "duration_ms": "fast"}),
            json!({"no_event": 1, "duration_ms": 5}),
        ]);
        let stats = summarize(&events);
        assert_eq!(
            stats,
            vec![
                // n=3 durations [10,20,30]: p50 rank ⌈1.5⌉=2 → 20, p95 rank ⌈2.85⌉=3 → 30.
                EventStats {
                    event: EVENT_DREAM.into(),
                    count: 4,
                    p50_ms: Some(20),
                    p95_ms: Some(30),
                },
                EventStats {
                    event: EVENT_FORGET.into(),
                    count: 1,
                    p50_ms: None,
                    p95_ms: None,
                },
                // n=20, 1..=20: p50 rank 10 → 10, p95 rank 19 → 19.
                EventStats {
                    event: EVENT_RECALL.into(),
                    count: 20,
                    p50_ms: Some(10),
                    p95_ms: Some(19),
                },
            ]
        );
    }

    #[test]
    fn nearest_rank_edges() {
        assert_eq!(nearest_rank(&[], 50), None);
        assert_eq!(nearest_rank(&[7], 50), Some(7));
        assert_eq!(nearest_rank(&[7], 95), Some(7));
        assert_eq!(nearest_rank(&[1, 2], 50), Some(1));
        assert_eq!(nearest_rank(&[1, 2], 95), Some(2));
        assert_eq!(nearest_rank(&[1, 2, 3, 4], 0), Some(1));
        assert_eq!(nearest_rank(&[1, 2, 3, 4], 100), Some(4));
    }

    #[test]
    fn hook_log_lines_and_rotation() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("s");
        let secret = "ghp_aB3dE5gH7jK9mN1pQ2rS4tU6vW8xY0zCaB3d";
        log_line_with_rotation(
            &state,
            &format!("post-commit: dream skipped\nsecond {secret}"),
            50,
        );
        let text = fs::read_to_string(state.join(HOOK_LOG_FILE)).unwrap();
        assert_eq!(text.lines().count(), 1);
        let mut parts = text.trim_end().splitn(3, ' ');
        let ts = parts.next().unwrap();
        assert!(chrono::DateTime::parse_from_rfc3339(ts).is_ok(), "{ts}");
        assert_eq!(parts.next().unwrap(), std::process::id().to_string());
        assert_eq!(
            parts.next().unwrap(),
            "post-commit: dream skipped second [REDACTED:github-pat]"
        );

        // The first line (> 50 bytes) is over a 50-byte threshold: the next call rotates.
        let first = fs::read(state.join(HOOK_LOG_FILE)).unwrap();
        assert!(first.len() >= 50);
        log_line_with_rotation(&state, "third", 50);
        assert_eq!(fs::read(state.join("hook.log.1")).unwrap(), first);
        // A short line stays under the threshold, so the next one appends without rotating.
        log_line_with_rotation(&state, "fourth", 50);
        let current = fs::read_to_string(state.join(HOOK_LOG_FILE)).unwrap();
        assert_eq!(current.lines().count(), 2, "{current}");
        assert!(current.ends_with(" fourth\n"), "{current}");
        assert_eq!(fs::read(state.join("hook.log.1")).unwrap(), first);
        // Now over again: rotating replaces the older backup.
        log_line_with_rotation(&state, "fifth", 50);
        assert_eq!(
            fs::read_to_string(state.join("hook.log.1")).unwrap(),
            current
        );
    }

    #[test]
    fn hook_log_never_panics_on_unwritable_dir() {
        let dir = tempfile::tempdir().unwrap();
        let blocker = dir.path().join("file");
        fs::write(&blocker, "x").unwrap();
        log_line(&blocker, "nothing happens");
        assert_eq!(fs::read_to_string(&blocker).unwrap(), "x");
    }
}
