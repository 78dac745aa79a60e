//! One `extract` invocation end to end (docs/DESIGN.md, "Extract"): find the transcript, take the root's turn
//! (or queue), read the unread bytes, skip when the agent already wrote memory itself, plan
//! patches (model or heuristic), filter them, apply them through the shared write path, bump
//! meta, and only then advance the cursor. Every run emits one telemetry event.

use std::cell::RefCell;
use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Instant, SystemTime};

use serde::Serialize;

use super::cursor::{self, Advance, Cursors, Failure, Start, StartReason};
use super::queue::{self, QueueError, QueuedRequest, Scheduled};
use super::with_model as planner;
use super::{filter, heuristic, Patch, UserText};
use crate::formats::doc::{Entry, MemoryType};
use crate::formats::secrets::{self, Origin};
use crate::integrations::model::{ModelClient, ModelConfig};
use crate::integrations::telemetry::{ExtractEvent, Telemetry};
use crate::integrations::transcript::{self, Format, Message, Role, TranscriptError};
use crate::ops::trigger::Trigger;
use crate::storage::context::Context;
use crate::storage::entries::{
    self as remember, Change, ChangeKind, EntryWriteError, NewEntry, Provenance,
};
use crate::storage::project::{self, Root};
use crate::storage::root_writer::{self, RootError, RootWriter};
use crate::storage::store::{self, StoreError};

/// How patches are planned: `auto` (the model when one is configured, else the heuristic),
/// `heuristic` or `model`.
pub use crate::storage::settings::ExtractStrategy as Strategy;

/// What to extract and how.
#[derive(Debug, Clone, Default)]
pub struct ExtractRequest {
    /// The transcript; `None` picks the project's newest Qwen Code chat (see
    /// [`find_chat_transcript`]).
    pub transcript: Option<PathBuf>,
    /// The session to process; also selects the chat file when `transcript` is `None`.
    pub session: Option<String>,
    pub format: Format,
    /// `None` uses the `extract.strategy` setting.
    pub strategy: Option<Strategy>,
    /// Plan and report, write nothing.
    pub dry_run: bool,
    /// Who asked: `manual` (default), `hook`, …; reported in telemetry.
    pub trigger: Trigger,
}

/// The result of one run (a queued request that failed is `Failed`; the caller's own failure
/// is an `Err`; `Skipped` says why in [`SkipReason`]).
pub use crate::integrations::telemetry::RunStatus;

/// Why a run was skipped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SkipReason {
    /// The latest turn already wrote into a memory root; the cursor is untouched.
    MemoryTool,
    /// Another extraction of this root is running; this request waits in its one-slot queue.
    Queued,
    /// Another extraction of this root is running and the request cannot wait (a dry run).
    AlreadyRunning,
    /// The host model called the tool server's `remember` in the turns read; the cursor
    /// advances past them.
    HostModelRemembered,
}

impl SkipReason {
    pub fn as_str(self) -> &'static str {
        match self {
            SkipReason::MemoryTool => "memory_tool",
            SkipReason::Queued => "queued",
            SkipReason::AlreadyRunning => "already_running",
            SkipReason::HostModelRemembered => "host_model_remembered",
        }
    }
}

/// One run, as printed by `extract --json`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunOutcome {
    pub status: RunStatus,
    pub skipped_reason: Option<SkipReason>,
    pub trigger: Trigger,
    pub dry_run: bool,
    /// Absolute transcript path.
    pub transcript: String,
    /// The format used (`qwen`, `claude`, `jsonl`; `auto` when nothing decisive was read).
    pub format: String,
    pub session_id: Option<String>,
    /// The memory root written to.
    pub root: String,
    /// Where reading started and why (`fresh`, `resume`, `truncated`, …).
    pub start_reason: Option<StartReason>,
    pub start_offset: u64,
    /// Just after the last complete line consumed.
    pub end_offset: u64,
    /// Bytes read by this run: `endOffset - startOffset`.
    pub bytes_read: u64,
    pub messages_read: usize,
    pub user_messages: usize,
    pub malformed_lines: usize,
    /// Lines longer than [`transcript::MAX_LINE_BYTES`], skipped without being held in memory.
    pub oversized_lines: usize,
    /// `none`, `heuristic`, `model` or `mixed` (model for some chunks, heuristic for others).
    pub planner: String,
    /// Why the model was not (fully) used, when it was asked for.
    pub model_fallback: Option<String>,
    /// Patches after filtering: what was (or, in a dry run, would be) applied.
    pub patches: Vec<Patch>,
    /// Patches the planner proposed that the filters dropped (length, `?`, temporary words).
    pub filtered_patches: usize,
    /// Patches dropped because the secret scanner flagged them.
    pub dropped_secrets: usize,
    /// Rule ids that caused those drops (never the values).
    pub dropped_secret_rules: Vec<String>,
    /// `user` facts of a Qwen Code chat not written because Qwen Code's own extraction writes
    /// them into the same user root (the "both extract" sharing mode).
    pub user_facts_left_to_qwen: usize,
    pub changes: Vec<Change>,
    pub touched_topics: Vec<String>,
    pub cursor_advanced: bool,
    pub duration_ms: u64,
    /// Where the time went, in milliseconds (fractional).
    pub timings: Timings,
    pub warnings: Vec<String>,
    /// For a failed queued request: what went wrong.
    pub error: Option<String>,
}

impl RunOutcome {
    fn new(req: &QueuedRequest, root: &Root, dry_run: bool) -> RunOutcome {
        RunOutcome {
            status: RunStatus::Noop,
            skipped_reason: None,
            trigger: req.trigger.clone(),
            dry_run,
            transcript: req.transcript_path.clone(),
            format: req.format.as_str().to_string(),
            session_id: req.session_id.clone(),
            root: root.path.display().to_string(),
            start_reason: None,
            start_offset: 0,
            end_offset: 0,
            bytes_read: 0,
            messages_read: 0,
            user_messages: 0,
            malformed_lines: 0,
            oversized_lines: 0,
            planner: "none".into(),
            model_fallback: None,
            patches: Vec::new(),
            filtered_patches: 0,
            dropped_secrets: 0,
            dropped_secret_rules: Vec::new(),
            user_facts_left_to_qwen: 0,
            changes: Vec::new(),
            touched_topics: Vec::new(),
            cursor_advanced: false,
            duration_ms: 0,
            timings: Timings::default(),
            warnings: Vec::new(),
            error: None,
        }
    }

    fn skipped(mut self, reason: SkipReason) -> RunOutcome {
        self.status = RunStatus::Skipped;
        self.skipped_reason = Some(reason);
        self
    }
}

/// Phase durations of one run, in milliseconds.
#[derive(Debug, Clone, Copy, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Timings {
    /// Cursor decision and reading the unread bytes.
    pub read_ms: f64,
    /// Planning (heuristic or model) and filtering.
    pub plan_ms: f64,
    /// Writing documents, index and meta, and advancing the cursor.
    pub write_ms: f64,
}

fn ms_since(t: Instant) -> f64 {
    (t.elapsed().as_micros() as f64) / 1000.0
}

/// The outcome of `extract`: the caller's own run, then the queued requests this process ran
/// after it (`trailing`).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExtractReport {
    #[serde(flatten)]
    pub run: RunOutcome,
    pub trailing: Vec<RunOutcome>,
}

/// Extraction failures. On any of them the cursor is left where it was.
#[derive(Debug, thiserror::Error)]
pub enum ExtractError {
    #[error("transcript not found: {0}")]
    NotFound(PathBuf),
    #[error("not a transcript file: {0}")]
    NotAFile(PathBuf),
    #[error("no transcript given and no chat found in {0}; pass --transcript")]
    NoChat(String),
    #[error("invalid session id {0:?}")]
    BadSession(String),
    #[error(transparent)]
    Transcript(#[from] TranscriptError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Queue(#[from] QueueError),
    #[error(transparent)]
    Write(#[from] EntryWriteError),
    #[error(transparent)]
    Root(#[from] RootError),
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// Runs `extract` for `req` in `ctx` (docs/DESIGN.md, "Extract").
pub fn extract(ctx: &Context, req: &ExtractRequest) -> Result<ExtractReport, ExtractError> {
    let root = ctx.layout.writable();
    let telemetry = (!req.dry_run).then(|| Telemetry::new(&root.state_dir));
    let trigger = req.trigger.clone();
    let started = Instant::now();
    let path = match resolve_transcript(ctx, req) {
        Ok(p) => p,
        Err(e) => {
            if let Some(t) = &telemetry {
                emit(
                    t,
                    &trigger,
                    RunStatus::Failed,
                    None,
                    0,
                    &[],
                    elapsed_ms(started),
                );
            }
            return Err(e);
        }
    };
    let strategy = req.strategy.unwrap_or_else(|| {
        ctx.settings
            .text(crate::storage::settings::Key::ExtractStrategy)
            .and_then(|s| s.parse().ok())
            .unwrap_or_default()
    });
    let request = QueuedRequest {
        transcript_path: path.display().to_string(),
        session_id: req.session.clone(),
        format: req.format,
        strategy,
        trigger: trigger.clone(),
        queued_at: store::now_iso(),
    };
    let own_request = request.clone();
    let dry_run = req.dry_run;
    // Earlier failures are retried by whichever process holds the root, at most once per
    // process and never right after this process ran that transcript itself.
    let handed: RefCell<HashSet<String>> = RefCell::new(HashSet::new());
    let retries = || -> Vec<QueuedRequest> {
        let Ok(cursors) = Cursors::read(&root.state_dir) else {
            return Vec::new();
        };
        let now = store::now_iso();
        cursors
            .retryable()
            .into_iter()
            .filter(|f| handed.borrow_mut().insert(f.transcript_path.clone()))
            .map(|f| QueuedRequest {
                transcript_path: f.transcript_path.clone(),
                session_id: f.session_id.clone(),
                format: f.format,
                strategy: f.strategy,
                trigger: Trigger::Retry,
                queued_at: now.clone(),
            })
            .collect()
    };
    let scheduled = queue::schedule(&root.state_dir, request, !dry_run, retries, |r, own| {
        let dry = dry_run && own;
        handed.borrow_mut().insert(r.transcript_path.clone());
        let run_started = Instant::now();
        let result = run_once(ctx, &r, dry);
        if let (Err(e), false) = (&result, dry) {
            record_failure(&root.state_dir, &r, e);
        }
        if let Some(t) = telemetry.as_ref().filter(|_| !dry) {
            match &result {
                Ok(o) => {
                    let n = o.patches.len();
                    emit(
                        t,
                        &o.trigger,
                        o.status,
                        o.skipped_reason,
                        n,
                        &o.touched_topics,
                        o.duration_ms,
                    );
                }
                Err(_) => emit(
                    t,
                    &r.trigger,
                    RunStatus::Failed,
                    None,
                    0,
                    &[],
                    elapsed_ms(run_started),
                ),
            }
        }
        if own {
            return result;
        }
        // A queued request's failure is reported with the run that carried it.
        Ok(result.unwrap_or_else(|e| {
            let mut o = RunOutcome::new(&r, root, false);
            o.status = RunStatus::Failed;
            o.error = Some(e.to_string());
            o.duration_ms = elapsed_ms(run_started);
            o
        }))
    })?;
    match scheduled {
        Scheduled::Ran {
            own,
            trailing,
            set_aside,
        } => {
            let mut run = own?;
            run.warnings
                .extend(set_aside.iter().map(ToString::to_string));
            Ok(ExtractReport {
                run,
                trailing: trailing.into_iter().flatten().collect(),
            })
        }
        Scheduled::Queued {
            trailing,
            set_aside,
        } => {
            let mut run = RunOutcome::new(&own_request, root, false).skipped(SkipReason::Queued);
            run.warnings
                .extend(set_aside.iter().map(ToString::to_string));
            run.duration_ms = elapsed_ms(started);
            if let Some(t) = &telemetry {
                emit(
                    t,
                    &trigger,
                    RunStatus::Skipped,
                    Some(SkipReason::Queued),
                    0,
                    &[],
                    run.duration_ms,
                );
            }
            Ok(ExtractReport {
                run,
                trailing: trailing.into_iter().flatten().collect(),
            })
        }
        Scheduled::AlreadyRunning => {
            let mut run =
                RunOutcome::new(&own_request, root, dry_run).skipped(SkipReason::AlreadyRunning);
            run.duration_ms = elapsed_ms(started);
            Ok(ExtractReport {
                run,
                trailing: Vec::new(),
            })
        }
    }
}

/// Keeps a failed run in the cursor file, so `status` shows it and the next run retries it.
/// The caller holds the run lock. Best effort: when even the state dir cannot be written, the
/// failure is still returned to the caller, and the transcript's unread bytes stay unread.
fn record_failure(state_dir: &Path, r: &QueuedRequest, e: &ExtractError) {
    let mut cursors = Cursors::read(state_dir).unwrap_or_default();
    cursors.failed(Failure {
        at: store::now_iso(),
        transcript_path: r.transcript_path.clone(),
        session_id: r.session_id.clone(),
        format: r.format,
        strategy: r.strategy,
        trigger: r.trigger.clone(),
        error: e.to_string(),
        attempts: 0,
        retried_at: None,
    });
    let _ = cursors.write(state_dir);
}

fn emit(
    t: &Telemetry,
    trigger: &Trigger,
    status: RunStatus,
    reason: Option<SkipReason>,
    patches: usize,
    touched: &[String],
    duration_ms: u64,
) {
    t.record(&ExtractEvent {
        trigger: trigger.as_str(),
        status,
        skipped_reason: reason.map(|r| r.as_str()),
        patches_count: patches,
        touched_topics: touched.join(","),
        duration_ms,
    });
}

fn elapsed_ms(started: Instant) -> u64 {
    u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX)
}

/// The transcript of a request: `--transcript` resolved against the current directory, else
/// the project's newest chat (or the chat of `--session`).
pub fn resolve_transcript(ctx: &Context, req: &ExtractRequest) -> Result<PathBuf, ExtractError> {
    if let Some(s) = &req.session {
        if !valid_session_id(s) {
            return Err(ExtractError::BadSession(s.clone()));
        }
    }
    let path = match &req.transcript {
        Some(p) => project::normalize_lexically(&ctx.cwd.join(p)),
        None => find_chat_transcript(ctx, req.session.as_deref())?,
    };
    match fs::metadata(&path) {
        Ok(m) if m.is_file() => Ok(path),
        Ok(_) => Err(ExtractError::NotAFile(path)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(ExtractError::NotFound(path)),
        Err(source) => Err(ExtractError::Io { path, source }),
    }
}

/// A session id usable as a file name: no separators, no leading dot.
fn valid_session_id(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 200
        && !s.starts_with('.')
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

/// The directories a project's agent transcripts live in (see [`crate::integrations::agent::transcript_dirs`]).
pub fn chat_dirs(ctx: &Context) -> Vec<PathBuf> {
    crate::integrations::agent::transcript_dirs(ctx, None)
}

/// The newest `*.jsonl` transcript of the project (by modification time, then name), or the
/// one named `<session>.jsonl` when a session is given. Besides the directories of
/// [`chat_dirs`], Qwen Code's chats of sessions started in a subdirectory of the working tree
/// count (Qwen Code keys chats by the directory it was started in); such a chat is only taken
/// when the `cwd` it recorded lies inside the working tree.
pub fn find_chat_transcript(ctx: &Context, session: Option<&str>) -> Result<PathBuf, ExtractError> {
    let dirs = chat_dirs(ctx);
    let subdirs: Vec<PathBuf> = ctx
        .project
        .worktree
        .as_deref()
        .map(|w| crate::integrations::agent::qwen_subdir_chat_dirs(&ctx.qwen, w))
        .unwrap_or_default()
        .into_iter()
        .filter(|d| !dirs.contains(d))
        .collect();
    if let Some(s) = session {
        return dirs
            .iter()
            .chain(&subdirs)
            .map(|d| d.join(format!("{s}.jsonl")))
            .find(|p| p.is_file())
            .ok_or_else(|| ExtractError::NoChat(dirs[0].display().to_string()));
    }
    let mut candidates: Vec<(SystemTime, std::ffi::OsString, PathBuf, bool)> = Vec::new();
    for (dir, needs_check) in dirs
        .iter()
        .map(|d| (d, false))
        .chain(subdirs.iter().map(|d| (d, true)))
    {
        let Ok(entries) = fs::read_dir(dir) else {
            continue;
        };
        for e in entries.filter_map(Result::ok) {
            if !e.file_name().to_string_lossy().ends_with(".jsonl") {
                continue;
            }
            let Ok(m) = e.metadata() else {
                continue;
            };
            if m.is_file() {
                let modified = m.modified().unwrap_or(SystemTime::UNIX_EPOCH);
                candidates.push((modified, e.file_name(), e.path(), needs_check));
            }
        }
    }
    candidates.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)));
    let worktree = ctx.project.worktree.as_deref();
    candidates
        .into_iter()
        .find(|(_, _, path, needs_check)| {
            !needs_check
                || match (
                    crate::integrations::agent::qwen_transcript_cwd(path),
                    worktree,
                ) {
                    (Some(cwd), Some(w)) => crate::storage::project::is_inside(&cwd, w),
                    _ => false,
                }
        })
        .map(|(_, _, path, _)| path)
        .ok_or_else(|| ExtractError::NoChat(dirs[0].display().to_string()))
}

/// Every root a write into which means "the agent saved memory itself".
fn memory_roots(ctx: &Context) -> Vec<PathBuf> {
    let l = &ctx.layout;
    vec![
        l.private.path.clone(),
        l.repository.path.clone(),
        l.user.path.clone(),
        l.team.path.clone(),
    ]
}

/// One extraction of one request, under the run lock.
fn run_once(ctx: &Context, r: &QueuedRequest, dry_run: bool) -> Result<RunOutcome, ExtractError> {
    let started = Instant::now();
    let root = ctx.layout.writable();
    let mut out = RunOutcome::new(r, root, dry_run);
    let path = PathBuf::from(&r.transcript_path);
    let file_len = match fs::metadata(&path) {
        Ok(m) if m.is_file() => m.len(),
        Ok(_) => return Err(ExtractError::NotAFile(path)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(ExtractError::NotFound(path))
        }
        Err(source) => return Err(ExtractError::Io { path, source }),
    };
    let requested_format = r.format;

    let mut cursors = Cursors::read(&root.state_dir).unwrap_or_else(|e| {
        out.warnings
            .push(format!("{e}; reading the transcript from the start"));
        Cursors::default()
    });
    let cursor = cursors.get(&r.transcript_path).cloned();
    let start = match &cursor {
        Some(c) => c.start(r.session_id.as_deref(), file_len, |n| {
            cursor::hash_prefix(&path, n)
        }),
        None => Start {
            offset: 0,
            reason: StartReason::Fresh,
        },
    };
    let read_format = match (requested_format, start.reason) {
        (Format::Auto, StartReason::Resume) => cursor
            .as_ref()
            .and_then(|c| c.format())
            .unwrap_or(Format::Auto),
        (f, _) => f,
    };
    let read = transcript::read_transcript(&path, start.offset, read_format)?;
    out.timings.read_ms = ms_since(started);
    out.start_reason = Some(start.reason);
    out.start_offset = start.offset;
    out.end_offset = read.end_offset;
    out.bytes_read = read.end_offset.saturating_sub(start.offset);
    out.messages_read = read.messages.len();
    out.malformed_lines = read.malformed_lines;
    out.oversized_lines = read.oversized_lines;
    out.format = read.format.as_str().to_string();

    let session = r
        .session_id
        .clone()
        .or(read.session_id.clone())
        .or_else(|| {
            (start.reason == StartReason::Resume)
                .then(|| cursor.as_ref().and_then(|c| c.session_id.clone()))
                .flatten()
        })
        .or_else(|| {
            path.file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .filter(|s| !s.is_empty())
        })
        .unwrap_or_else(|| "unknown".to_string());
    out.session_id = Some(session.clone());

    // Step 1: the agent already saved memory this turn; leave the cursor so the turn's text
    // is looked at again with the next one.
    if transcript::latest_turn_wrote_memory(&read.messages, &memory_roots(ctx)) {
        out.duration_ms = elapsed_ms(started);
        return Ok(out.skipped(SkipReason::MemoryTool));
    }

    // Secrets are cut out of what the user said before anything is planned from it, so no
    // later trimming can leave part of a token behind; a patch that still shows a redaction is
    // dropped in step 5.
    let user_texts: Vec<(u64, String)> = read
        .messages
        .iter()
        .filter(|m| m.role == Role::User && !m.text.trim().is_empty())
        .map(|m| (m.offset, secrets::redact(&m.text)))
        .collect();
    let users: Vec<UserText> = user_texts
        .iter()
        .map(|(offset, text)| UserText {
            offset: *offset,
            text,
        })
        .collect();
    out.user_messages = users.len();
    let advance = |out: &mut RunOutcome, cursors: &mut Cursors| -> Result<(), ExtractError> {
        let now = store::now_iso();
        if start.reason == StartReason::Resume && read.end_offset == start.offset {
            // Nothing consumed: the cursor is already right; only a pending failure ends.
            if cursors.failures.contains_key(&r.transcript_path) {
                cursors.succeeded(&r.transcript_path, &now);
                cursors.write(&root.state_dir)?;
            }
            return Ok(());
        }
        let head =
            cursor::hash_prefix(&path, cursor::hashed_len(read.end_offset)).map_err(|source| {
                ExtractError::Io {
                    path: path.clone(),
                    source,
                }
            })?;
        let format = (read.format != Format::Auto).then_some(read.format);
        cursors.advance(
            &Advance {
                session_id: &session,
                transcript_path: &r.transcript_path,
                byte_offset: read.end_offset,
                head_hash: &head,
                format,
                messages_read: read.messages.len() as u64,
            },
            start.reason == StartReason::Resume,
            &now,
        );
        cursors.write(&root.state_dir)?;
        out.cursor_advanced = true;
        Ok(())
    };

    // The host model saved this stretch's facts itself through the tool server (`mcp`): they
    // are not mined again (docs/DESIGN.md, "Agent integration").
    if transcript::called_memory_server_remember(&read.messages) {
        if !dry_run {
            advance(&mut out, &mut cursors)?;
        }
        out.duration_ms = elapsed_ms(started);
        return Ok(out.skipped(SkipReason::HostModelRemembered));
    }

    // Step 3: nothing new said by the user.
    if users.is_empty() {
        if !dry_run {
            advance(&mut out, &mut cursors)?;
        }
        out.duration_ms = elapsed_ms(started);
        return Ok(out);
    }

    // Step 4: plan.
    let planning = Instant::now();
    let strategy: Strategy = r.strategy;
    let planned = plan(ctx, root, strategy, &read.messages, &users, &mut out);

    // Step 5: filter.
    let mut kept = Vec::new();
    for p in planned {
        // Transcript or model text: normalized first (the scanned form is the written form),
        // then scanned with the allow marker ignored.
        let Some(p) = filter::normalize_patch(normalize_patch_text(p)) else {
            out.filtered_patches += 1;
            continue;
        };
        let entry = entry_of(&p);
        let mut rules = remember::secret_rules(&entry, Origin::Machine);
        for text in [
            Some(&entry.summary),
            entry.why.as_ref(),
            entry.how_to_apply.as_ref(),
        ]
        .into_iter()
        .flatten()
        {
            rules.extend(secrets::redacted_rule_ids(text));
        }
        if !rules.is_empty() {
            out.dropped_secrets += 1;
            for id in rules {
                if !out.dropped_secret_rules.contains(&id) {
                    out.dropped_secret_rules.push(id);
                }
            }
            continue;
        }
        kept.push(p);
    }
    out.patches = filter::dedupe(kept);
    // When both tools extract (each into its own project root), Qwen Code's agent still writes
    // the `user` facts of its own chats into the one user root both share; a second copy from us
    // would be a duplicate in other words (docs/DESIGN.md, "Sharing with Qwen Code").
    if read.format == Format::Qwen
        && out.patches.iter().any(|p| p.topic == MemoryType::User)
        && crate::integrations::sharing::qwen(ctx).leaves_qwen_chat_user_facts_to_qwen()
    {
        let before = out.patches.len();
        out.patches.retain(|p| p.topic != MemoryType::User);
        out.user_facts_left_to_qwen = before - out.patches.len();
    }
    out.timings.plan_ms = ms_since(planning);

    if dry_run {
        out.status = RunStatus::DryRun;
        out.duration_ms = elapsed_ms(started);
        return Ok(out);
    }

    // Steps 6–7: apply, bump meta, then advance the cursor.
    let writing = Instant::now();
    // Facts about the person go to the user root, never into a (possibly committed) project
    // root (docs/DESIGN.md, "Roots and paths").
    let (user_entries, entries): (Vec<NewEntry>, Vec<NewEntry>) = out
        .patches
        .iter()
        .map(|p| {
            let title = filter::title_for(&p.summary);
            NewEntry {
                memory_type: p.topic,
                slug: filter::slugify(&title),
                title,
                entry: entry_of(p),
            }
        })
        .partition(|e| e.memory_type == MemoryType::User);
    let provenance = Provenance {
        created: store::now_iso(),
        session: Some(session.clone()),
        commit: crate::integrations::git::repo::head_commit(ctx),
        ..Provenance::default()
    };
    let user_changes = if user_entries.is_empty() {
        Vec::new()
    } else {
        let user = RootWriter::lock(&ctx.layout.user)?;
        let applied = remember::apply_locked(&user, &user_entries, &provenance, Origin::Machine)?;
        index_warning(&mut out.warnings, applied.index_error);
        applied.changes
    };
    let changes = {
        let w = RootWriter::lock(root)?;
        w.ensure_scaffold()?;
        let mut changes = if entries.is_empty() {
            Vec::new()
        } else {
            let applied = remember::apply_locked(&w, &entries, &provenance, Origin::Machine)?;
            index_warning(&mut out.warnings, applied.index_error);
            applied.changes
        };
        changes.extend(user_changes);
        // Topics in the order the facts were planned, wherever they were written.
        let order = |c: &Change| {
            out.patches
                .iter()
                .position(|p| p.topic.to_string() == c.memory_type)
                .unwrap_or(usize::MAX)
        };
        changes.sort_by_key(order);
        let touched = touched_topics(&changes);
        bump_meta(&w, &session, &touched)?;
        changes
    };
    out.touched_topics = touched_topics(&changes);
    out.changes = changes;
    out.status = if out.touched_topics.is_empty() {
        RunStatus::Noop
    } else {
        RunStatus::Updated
    };
    if !out.touched_topics.is_empty() {
        if let Some(w) = after_write_autocommit(ctx, &out.changes) {
            out.warnings.push(w);
        }
    }
    advance(&mut out, &mut cursors)?;
    out.timings.write_ms = ms_since(writing);
    out.duration_ms = elapsed_ms(started);
    Ok(out)
}

/// A warning for an index that could not be rewritten after the documents were (they stay
/// written and the cursor advances: extracting the turn again would only find them known).
fn index_warning(warnings: &mut Vec<String>, index_error: Option<String>) {
    if let Some(e) = index_error {
        warnings.push(format!(
            "MEMORY.md not rebuilt ({e}); run `git qwen-memory index`"
        ));
    }
}

/// In local mode with `autoCommit` on, commits the memory directory's changes (docs/DESIGN.md, "Extract" step
/// 7, ) after the files are written and before the cursor advances. A failed commit does
/// not undo the extraction: its message comes back as a warning.
fn after_write_autocommit(ctx: &Context, changes: &[Change]) -> Option<String> {
    if changes.iter().all(|c| c.kind == ChangeKind::Unchanged) {
        return None;
    }
    match crate::integrations::git::commit::auto_commit(ctx)? {
        Ok(_) => None,
        Err(e) => Some(format!("memory saved but not committed: {e}")),
    }
}

fn normalize_patch_text(p: Patch) -> Patch {
    let e = remember::normalize_entry(&entry_of(&p));
    Patch {
        summary: e.summary,
        why: e.why,
        how_to_apply: e.how_to_apply,
        ..p
    }
}

fn entry_of(p: &Patch) -> Entry {
    Entry {
        summary: p.summary.clone(),
        why: p.why.clone(),
        how_to_apply: p.how_to_apply.clone(),
    }
}

/// Types of the documents created or merged, unique, in order.
fn touched_topics(changes: &[Change]) -> Vec<String> {
    let mut seen = Vec::new();
    for c in changes {
        if c.kind != ChangeKind::Unchanged && !seen.contains(&c.memory_type) {
            seen.push(c.memory_type.clone());
        }
    }
    seen
}

/// Records the run in `meta.json`: the `lastExtraction*` fields, `updatedAt`, and the session
/// appended to `recentSessionIdsSinceDream` (once).
fn bump_meta(w: &RootWriter, session: &str, touched: &[String]) -> Result<(), RootError> {
    let now = store::now_iso();
    let mut meta = store::read_meta(&w.root().state_dir);
    meta.set("updatedAt", now.as_str());
    meta.set("lastExtractionAt", now.as_str());
    meta.set("lastExtractionSessionId", session);
    meta.set(
        "lastExtractionTouchedTopics",
        serde_json::Value::from(touched.to_vec()),
    );
    meta.set(
        "lastExtractionStatus",
        if touched.is_empty() {
            "noop"
        } else {
            "updated"
        },
    );
    let mut recent = meta.strings("recentSessionIdsSinceDream");
    if !recent.iter().any(|s| s == session) {
        recent.push(session.to_string());
    }
    meta.set(
        "recentSessionIdsSinceDream",
        serde_json::Value::from(recent),
    );
    w.write_meta(&meta)
}

/// Plans patches for the slice with the model when asked and possible, chunk by chunk, and
/// with the heuristic otherwise; records which planner ran and why the model was not used.
fn plan(
    ctx: &Context,
    root: &Root,
    strategy: Strategy,
    messages: &[Message],
    users: &[UserText],
    out: &mut RunOutcome,
) -> Vec<Patch> {
    let config = match strategy {
        Strategy::Heuristic => None,
        Strategy::Auto => ModelConfig::from_settings(&ctx.settings, false),
        Strategy::Model => ModelConfig::from_settings(&ctx.settings, true),
    };
    let Some(config) = config else {
        if strategy == Strategy::Model {
            out.model_fallback = Some("no model configured".into());
        }
        out.planner = "heuristic".into();
        return heuristic::plan_heuristic(users);
    };
    let client = ModelClient::new(config);
    let summaries = match root_writer::scan_strict(root) {
        Ok(s) => planner::topic_summaries(&s.docs),
        Err(_) => planner::topic_summaries(&[]),
    };
    let chunks = planner::chunks(messages);
    let first_model = chunks.len().saturating_sub(planner::MAX_MODEL_CALLS);
    if first_model > 0 {
        out.model_fallback = Some(format!(
            "slice too large: {first_model} older chunk(s) planned by the heuristic"
        ));
    }
    let mut patches = Vec::new();
    let (mut by_model, mut by_heuristic) = (0, 0);
    let mut failed = false;
    for (i, chunk) in chunks.iter().enumerate() {
        if i >= first_model && !failed {
            match planner::plan_chunk(&client, chunk, &summaries) {
                Ok(p) => {
                    // A model patch must be grounded in the user text it cites (laundering:
                    // docs/DESIGN.md, "Extract").
                    for patch in p {
                        let cited = users
                            .iter()
                            .find(|u| u.offset == patch.source_offset)
                            .map_or("", |u| u.text);
                        // One holding a secret goes on to step 5, which drops and counts it
                        // as a secret (the more important report).
                        if filter::is_grounded(&patch.summary, cited)
                            || secrets::contains_secret(&patch.summary)
                        {
                            patches.push(patch);
                        } else {
                            out.filtered_patches += 1;
                        }
                    }
                    by_model += 1;
                    continue;
                }
                Err(e) => {
                    // One failure is enough to stop waiting on the model for this run.
                    failed = true;
                    out.model_fallback = Some(e.to_string());
                }
            }
        }
        let texts: Vec<UserText> = chunk
            .user_messages
            .iter()
            .filter_map(|&i| messages.get(i))
            .map(|m| UserText {
                offset: m.offset,
                text: &m.text,
            })
            .collect();
        patches.extend(heuristic::plan_heuristic(&texts));
        by_heuristic += 1;
    }
    out.planner = match (by_model, by_heuristic) {
        (0, _) => "heuristic",
        (_, 0) => "model",
        _ => "mixed",
    }
    .into();
    patches
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strategy_names() {
        assert_eq!("model".parse::<Strategy>(), Ok(Strategy::Model));
        assert!(
            "Model".parse::<Strategy>().is_err(),
            "exactly the names settings accept"
        );
        assert_eq!(" auto ".parse::<Strategy>(), Ok(Strategy::Auto));
        assert!("llm".parse::<Strategy>().is_err());
        for s in [Strategy::Auto, Strategy::Heuristic, Strategy::Model] {
            assert_eq!(s.as_str().parse::<Strategy>(), Ok(s));
        }
    }

    #[test]
    fn session_ids_are_file_names() {
        assert!(valid_session_id("7c1d2e0a-5b7e-4f0c-9a51-2f6f1d3c9b10"));
        assert!(valid_session_id("test_session.1"));
        for bad in ["", "../x", "a/b", ".hidden", "a\\b", "a b"] {
            assert!(!valid_session_id(bad), "{bad}");
        }
    }

    #[test]
    fn touched_topics_are_unique_and_skip_unchanged() {
        let c = |kind, t: &str| Change {
            kind,
            relative_path: format!("{t}/x.md"),
            memory_type: t.into(),
            filled: Vec::new(),
            kept: Vec::new(),
        };
        let changes = vec![
            c(ChangeKind::Created, "user"),
            c(ChangeKind::Unchanged, "project"),
            c(ChangeKind::Merged, "user"),
            c(ChangeKind::Merged, "feedback"),
        ];
        assert_eq!(touched_topics(&changes), vec!["user", "feedback"]);
    }

    #[test]
    fn meta_bump_appends_session_once_and_keeps_unknown_keys() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(
            dir.path().join(store::META_FILE),
            "{\"version\":1,\"custom\":true,\"recentSessionIdsSinceDream\":[\"a\"]}",
        )
        .unwrap();
        let root = Root::new(
            crate::storage::scan::Scope::Private,
            dir.path().to_path_buf(),
            dir.path().join("memory"),
            dir.path().to_path_buf(),
        );
        let w = RootWriter::lock(&root).unwrap();
        bump_meta(&w, "b", &["user".into()]).unwrap();
        bump_meta(&w, "b", &[]).unwrap();
        let m = store::JsonState::read(&dir.path().join(store::META_FILE))
            .unwrap()
            .unwrap();
        assert_eq!(m.strings("recentSessionIdsSinceDream"), vec!["a", "b"]);
        assert_eq!(m.str("lastExtractionStatus"), Some("noop"));
        assert_eq!(m.str("lastExtractionSessionId"), Some("b"));
        assert_eq!(m.0.get("custom"), Some(&serde_json::Value::Bool(true)));
        assert!(m.str("lastExtractionAt").is_some());
    }
}
