//! Dream scheduling gates (docs/DESIGN.md, "Dream"): evaluated in the order `disabled` →
//! `same_session` → `min_hours` → `scan_throttled` → `min_sessions` → `locked`; the first that
//! fails ends the run with its reason.
//!
//! The post-commit hook pays for this evaluation on every commit, so a run stops at the first
//! failing gate: the session scan (directory listings) only happens when the cheap gates pass,
//! and at most once every ten minutes.

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

use serde::Serialize;

use crate::integrations::git::repo::OpenRepo;
use crate::ops::trigger::Trigger;
use crate::storage::context::Context;
use crate::storage::project::Root;
use crate::storage::root_writer::{RootError, RootWriter};
use crate::storage::settings::Key;
use crate::storage::store::{self, JsonState};

use super::lock::{self, LockInfo};

/// Minimum time between two session scans.
pub const SCAN_THROTTLE_MS: f64 = 10.0 * 60.0 * 1000.0;
/// Default `dream.minHours`.
pub const DEFAULT_MIN_HOURS: f64 = 24.0;
/// Default `dream.minSessions`.
pub const DEFAULT_MIN_SESSIONS: u64 = 5;
/// Why a dream was not run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SkipReason {
    Disabled,
    SameSession,
    MinHours,
    ScanThrottled,
    MinSessions,
    Locked,
}

impl SkipReason {
    pub fn as_str(self) -> &'static str {
        match self {
            SkipReason::Disabled => "disabled",
            SkipReason::SameSession => "same_session",
            SkipReason::MinHours => "min_hours",
            SkipReason::ScanThrottled => "scan_throttled",
            SkipReason::MinSessions => "min_sessions",
            SkipReason::Locked => "locked",
        }
    }
}

/// One gate as `status` shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GateStatus {
    pub name: &'static str,
    /// Whether the gate lets a dream through now; `None` when it was not evaluated.
    pub passes: Option<bool>,
    /// The gate's current value in words (e.g. `3 of 5 sessions`).
    pub value: String,
}

/// Every gate of the project now, and what the first failing one is.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GateReport {
    pub trigger: Trigger,
    pub current_session: String,
    pub gates: Vec<GateStatus>,
    /// The first failing gate, `None` when a dream is due.
    pub blocked_by: Option<SkipReason>,
    /// When the `min_hours` gate opens (ISO time), if it is what waits.
    pub due_at: Option<String>,
    pub last_dream_at: Option<String>,
    pub sessions_since_dream: Option<usize>,
    pub min_hours: f64,
    pub min_sessions: u64,
    pub lock: Option<LockInfo>,
}

/// How gates are evaluated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// As a dream does: stop at the first failing gate and persist `lastSessionScanAt` after a
    /// real scan.
    Run,
    /// As `status` does: evaluate every gate, write nothing.
    Report,
}

/// The session a dream triggered now belongs to: the last extracted session, else
/// `git:<HEAD>` (`git:unborn` in a repository without commits, `git:none` outside Git). HEAD is
/// read through `repo` when the caller has the repository open.
pub fn current_session(ctx: &Context, repo: Option<&OpenRepo>, meta: &JsonState) -> String {
    if let Some(s) = meta
        .str("lastExtractionSessionId")
        .filter(|s| !s.is_empty())
    {
        return s.to_string();
    }
    let head = match repo {
        Some(repo) => repo.head_commit(),
        None => crate::integrations::git::repo::head_commit(ctx),
    };
    match (head, &ctx.project.git_dir) {
        (Some(head), _) => format!("git:{head}"),
        (None, Some(_)) => "git:unborn".to_string(),
        (None, None) => "git:none".to_string(),
    }
}

/// Evaluates the gates for `trigger` at `now_ms`. In [`Mode::Run`] the lock gate only looks at
/// the lock file; taking it is the caller's job (losing that race is also `locked`). `repo`: the
/// context's repository when the caller has it open (else it is opened when needed).
pub fn evaluate(
    ctx: &Context,
    repo: Option<&OpenRepo>,
    trigger: &Trigger,
    now_ms: f64,
    mode: Mode,
) -> Result<GateReport, RootError> {
    let root = ctx.layout.writable();
    let meta = store::read_meta(&root.state_dir);
    let min_hours = ctx
        .settings
        .number(Key::DreamMinHours)
        .unwrap_or(DEFAULT_MIN_HOURS);
    let min_sessions = ctx
        .settings
        .count(Key::DreamMinSessions)
        .unwrap_or(DEFAULT_MIN_SESSIONS);
    let session = current_session(ctx, repo, &meta);
    let last_dream_at = meta.str("lastDreamAt").map(str::to_string);
    let mut report = GateReport {
        trigger: trigger.clone(),
        current_session: session.clone(),
        gates: Vec::with_capacity(6),
        blocked_by: None,
        due_at: None,
        last_dream_at: last_dream_at.clone(),
        sessions_since_dream: None,
        min_hours,
        min_sessions,
        lock: None,
    };
    let stop = |report: &mut GateReport, passes: bool, reason: SkipReason| -> bool {
        if !passes && report.blocked_by.is_none() {
            report.blocked_by = Some(reason);
        }
        mode == Mode::Run && report.blocked_by.is_some()
    };

    // disabled: hooks switched off stops hook-triggered dreams; a dream by hand always runs.
    let hooks_enabled = ctx.settings.bool(Key::HooksEnabled);
    let disabled = !trigger.is_manual() && !hooks_enabled;
    report.gates.push(GateStatus {
        name: "disabled",
        passes: Some(!disabled),
        value: format!("hooks.enabled={hooks_enabled}"),
    });
    if stop(&mut report, !disabled, SkipReason::Disabled) {
        return Ok(report);
    }

    // same_session
    let last_session = meta.str("lastDreamSessionId");
    let same = last_session == Some(session.as_str());
    report.gates.push(GateStatus {
        name: "same_session",
        passes: Some(!same),
        value: format!(
            "current {session}, last dream {}",
            last_session.unwrap_or("never")
        ),
    });
    if stop(&mut report, !same, SkipReason::SameSession) {
        return Ok(report);
    }

    // min_hours: a missing or unparseable lastDreamAt means never dreamed.
    let last_ms = last_dream_at.as_deref().and_then(store::ms_from_iso);
    let hours_ok = match last_ms {
        Some(ms) => (now_ms - ms) / 3_600_000.0 >= min_hours,
        None => true,
    };
    if let (Some(ms), false) = (last_ms, hours_ok) {
        report.due_at = Some(store::iso_from_ms(ms + min_hours * 3_600_000.0));
    }
    report.gates.push(GateStatus {
        name: "min_hours",
        passes: Some(hours_ok),
        value: match last_ms {
            Some(ms) => format!(
                "{:.1} h since last dream (minimum {min_hours})",
                ((now_ms - ms) / 3_600_000.0).max(0.0)
            ),
            None => "never dreamed".to_string(),
        },
    });
    if stop(&mut report, hours_ok, SkipReason::MinHours) {
        return Ok(report);
    }

    // scan_throttled
    let last_scan = meta.str("lastSessionScanAt").and_then(store::ms_from_iso);
    let throttled = last_scan.is_some_and(|ms| now_ms - ms < SCAN_THROTTLE_MS && now_ms >= ms);
    report.gates.push(GateStatus {
        name: "scan_throttled",
        passes: Some(!throttled),
        value: match last_scan {
            Some(ms) => format!(
                "last session scan {:.0} s ago",
                ((now_ms - ms) / 1000.0).max(0.0)
            ),
            None => "never scanned".to_string(),
        },
    });
    if stop(&mut report, !throttled, SkipReason::ScanThrottled) {
        return Ok(report);
    }

    // min_sessions
    let since_ms = last_ms.unwrap_or(0.0);
    let recent = meta.strings("recentSessionIdsSinceDream");
    let sessions = sessions_since(ctx, since_ms, &session, &recent);
    if mode == Mode::Run {
        persist_scan_time(root, now_ms)?;
    }
    let count = sessions.len();
    report.sessions_since_dream = Some(count);
    let enough = count as u64 >= min_sessions;
    report.gates.push(GateStatus {
        name: "min_sessions",
        passes: Some(enough),
        value: format!("{count} of {min_sessions} sessions since last dream"),
    });
    if stop(&mut report, enough, SkipReason::MinSessions) {
        return Ok(report);
    }

    // locked: ours, or Qwen Code's own lock in the working tree (local mode).
    let info = lock::inspect(&root.state_dir);
    let qwen = lock::live_qwen_lock(ctx.project.worktree.as_deref());
    let held = info.as_ref().is_some_and(|i| i.live) || qwen.is_some();
    report.gates.push(GateStatus {
        name: "locked",
        passes: Some(!held),
        value: match (&info, &qwen) {
            (Some(i), _) if i.live => format!("held by pid {}", i.pid.unwrap_or(0)),
            (_, Some((path, q))) => format!(
                "held by Qwen Code (pid {}, {})",
                q.pid.unwrap_or(0),
                path.display()
            ),
            (Some(_), None) => "stale lock (cleared by the next dream)".to_string(),
            (None, None) => "free".to_string(),
        },
    });
    report.lock = match (info, qwen) {
        (Some(i), _) if i.live => Some(i),
        (_, Some((_, q))) => Some(q),
        (i, None) => i,
    };
    stop(&mut report, !held, SkipReason::Locked);
    Ok(report)
}

fn persist_scan_time(root: &Root, now_ms: f64) -> Result<(), RootError> {
    let w = RootWriter::lock(root)?;
    let mut meta = store::read_meta(&root.state_dir);
    meta.set("lastSessionScanAt", store::iso_from_ms(now_ms));
    w.write_meta(&meta)
}

/// Sessions since the last dream (docs/DESIGN.md, "Dream"): `recentSessionIdsSinceDream` ∪ Qwen Code chat
/// files ∪ Claude Code transcripts modified after `since_ms`, without the current session.
pub fn sessions_since(
    ctx: &Context,
    since_ms: f64,
    current: &str,
    recent: &[String],
) -> BTreeSet<String> {
    let mut out: BTreeSet<String> = recent.iter().filter(|s| !s.is_empty()).cloned().collect();
    for dir in crate::integrations::agent::transcript_dirs(ctx, None) {
        collect_sessions(&dir, since_ms, &mut out);
    }
    out.remove(current);
    out
}

/// Session ids of `<uuid>.jsonl` files in `dir` modified strictly after `since_ms`.
fn collect_sessions(dir: &Path, since_ms: f64, out: &mut BTreeSet<String>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let Some(id) = session_id_of(&name) else {
            continue;
        };
        let Ok(meta) = entry.metadata() else {
            continue;
        };
        if !meta.is_file() {
            continue;
        }
        let mtime = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map(|d| d.as_secs_f64() * 1000.0)
            .unwrap_or(0.0);
        if mtime > since_ms {
            out.insert(id.to_string());
        }
    }
}

/// The session id of a transcript file name: 32–36 hex digits and dashes, then `.jsonl`.
pub fn session_id_of(file_name: &str) -> Option<&str> {
    let id = file_name.strip_suffix(".jsonl")?;
    ((32..=36).contains(&id.len()) && id.chars().all(|c| c.is_ascii_hexdigit() || c == '-'))
        .then_some(id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_file_names() {
        assert_eq!(
            session_id_of("0b6f8c1e-2d3a-4b5c-9d8e-7f6a5b4c3d2e.jsonl"),
            Some("0b6f8c1e-2d3a-4b5c-9d8e-7f6a5b4c3d2e")
        );
        assert_eq!(
            session_id_of("0b6f8c1e2d3a4b5c9d8e7f6a5b4c3d2e.jsonl"),
            Some("0b6f8c1e2d3a4b5c9d8e7f6a5b4c3d2e")
        );
        assert_eq!(session_id_of("agent-0b6f8c1e.jsonl"), None);
        assert_eq!(
            session_id_of("0b6f8c1e-2d3a-4b5c-9d8e-7f6a5b4c3d2e.json"),
            None
        );
        assert_eq!(
            session_id_of("zzzzzzzz-2d3a-4b5c-9d8e-7f6a5b4c3d2e.jsonl"),
            None
        );
    }

    #[test]
    fn collect_honours_mtime_strictly_after() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir
            .path()
            .join("aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa.jsonl");
        let b = dir
            .path()
            .join("bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb.jsonl");
        fs::write(&a, "").unwrap();
        fs::write(&b, "").unwrap();
        let t = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000);
        fs::File::options()
            .write(true)
            .open(&a)
            .unwrap()
            .set_modified(t)
            .unwrap();
        let mut out = BTreeSet::new();
        collect_sessions(dir.path(), 1_000_000_000.0, &mut out);
        assert_eq!(
            out.into_iter().collect::<Vec<_>>(),
            vec!["bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb".to_string()]
        );
    }
}
