//! Hook entry points (`git qwen-memory hook <name>`), called by the Git hook shims and by the
//! agents' hook settings (docs/DESIGN.md, "Git integration"; docs/DESIGN.md, "Agent integration").
//!
//! A hook must never get in the way: every path returns exit code 0 (except pre-commit's
//! deliberate block), panics are caught and logged, nothing is written to stderr (Qwen Code
//! shows stderr to the user, and an old Qwen Code treats odd exit codes as "deny"), and
//! diagnostics go to `hook.log` in the state dir. Slow work (dream, extract) runs in a detached
//! process in its own session, with its output appended to the same log, so the hook returns
//! at once and an agent's timeout or process-group kill cannot stop it.

use std::collections::HashSet;
use std::fs;
use std::io;
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, SystemTime};

use serde_json::{json, Value};

use crate::integrations::agent::Agent;
use crate::integrations::git::repo::OpenRepo;
use crate::integrations::telemetry;
use crate::ops::recall::{self, RecallRequest, Strategy};
use crate::ops::trigger::Trigger;
use crate::storage::context::Context;
use crate::storage::safe_fs;
use crate::{formats::doc, storage::project, storage::store};

use crate::integrations::detached::own_program;
pub use crate::integrations::detached::{spawn_detached, ENV_HOOK_EXEC};
/// Most characters of `additionalContext` (Claude Code caps it at 10,000).
pub const MAX_CONTEXT_CHARS: usize = 8000;
/// Per-session recall state older than this is pruned.
pub const SESSION_STATE_TTL: Duration = Duration::from_secs(7 * 24 * 3600);
/// Most per-session recall state files kept.
pub const MAX_SESSION_FILES: usize = 200;
/// The directory recording, per transcript, its length when the extract hook last started a run.
pub const EXTRACT_LAUNCHES_DIR: &str = "extract-launches";
/// Time a recall hook may spend on model and embeddings calls in all. The shortest recall hook
/// timeout installed is 5 s (Qwen Code); this leaves room for the scan, the fallback ranking
/// and process start-up on a loaded machine.
pub const HOOK_NETWORK_BUDGET: Duration = Duration::from_millis(2500);
/// The directory of per-session recall state, in the state dir.
pub const RECALL_SESSIONS_DIR: &str = "recall-sessions";

/// What a hook asks the process to do: print `stdout`, print `stderr` (only pre-commit's
/// block message ever sets it), exit with `code`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HookRun {
    pub stdout: String,
    pub stderr: String,
    pub code: u8,
}

/// The log directory the panic hook writes to; updated once the state dir is known.
static LOG_DIR: Mutex<Option<PathBuf>> = Mutex::new(None);

fn set_log_dir(dir: &Path) {
    if let Ok(mut g) = LOG_DIR.lock() {
        *g = Some(dir.to_path_buf());
    }
}

/// The log directory: the state dir once a context is open, else (a hook that could not open
/// one, or panicked before) the memory base of the current directory, found only then: the
/// common path never pays for resolving it.
fn log_dir() -> Option<PathBuf> {
    LOG_DIR.lock().ok().and_then(|g| g.clone()).or_else(|| {
        let cwd = std::env::current_dir().unwrap_or_default();
        crate::storage::qwen_env::QwenDirs::resolve(&cwd)
            .ok()
            .map(|d| d.memory_base)
    })
}

fn log(message: &str) {
    if let Some(dir) = log_dir() {
        telemetry::log_line(&dir, message);
    }
}

/// [`log`] for a message made only of this program's own words (no path, payload, error text
/// or anything else read from outside), which cannot hold a secret: it skips the redaction,
/// whose scanner a no-op hook would otherwise build just to log that it did nothing.
fn log_own_words(message: &str) {
    if let Some(dir) = log_dir() {
        telemetry::log_own_words(&dir, message);
    }
}

/// Runs a hook with every failure contained: a panic is logged (not printed) and turns into a
/// silent exit 0.
pub fn guarded(name: &str, f: impl FnOnce() -> HookRun) -> HookRun {
    let previous = panic::take_hook();
    panic::set_hook(Box::new(|info| log(&format!("panic: {info}"))));
    let result = panic::catch_unwind(AssertUnwindSafe(f));
    panic::set_hook(previous);
    match result {
        Ok(run) => run,
        Err(_) => {
            log(&format!("hook {name}: aborted after a panic"));
            HookRun::default()
        }
    }
}

/// Opens the context of `cwd` and its repository (once, for the whole hook) and points the log
/// at its state dir. `None` (logged) when the context cannot be opened: a hook then does nothing.
fn open(cwd: &Path, hook: &str) -> Option<(Context, Option<OpenRepo>)> {
    match crate::integrations::git::repo::open_context_and_repo(cwd, &[], false) {
        Ok((ctx, repo)) => {
            set_log_dir(ctx.state_dir());
            Some((ctx, repo))
        }
        Err(e) => {
            log(&format!("hook {hook}: {e}"));
            None
        }
    }
}

fn hooks_enabled(ctx: &Context) -> bool {
    ctx.settings
        .bool(crate::storage::settings::Key::HooksEnabled)
}

fn spawn_logged(ctx: &Context, hook: &str, args: &[&str], cwd: &Path) {
    let result = own_program().and_then(|p| spawn_detached(&p, args, cwd, ctx.state_dir()));
    match result {
        Ok(pid) => log(&format!(
            "hook {hook}: started `{}` (pid {pid})",
            args.join(" ")
        )),
        Err(e) => log(&format!(
            "hook {hook}: cannot start `{}`: {e}",
            args.join(" ")
        )),
    }
}

// ---------------------------------------------------------------------------------------------
// Git hooks

/// Runs a Git hook (`pre-commit`, `post-commit`, `post-merge`, `post-checkout`,
/// `post-rewrite`) for the repository around `cwd`, with the hook's arguments.
pub fn git_hook(cwd: &Path, name: &str, args: &[String]) -> HookRun {
    let Some((ctx, repo)) = open(cwd, name) else {
        return HookRun::default();
    };
    if !hooks_enabled(&ctx) {
        return HookRun::default();
    }
    match name {
        "pre-commit" => pre_commit(&ctx),
        "post-commit" => {
            if let Err(e) = refresh_index(&ctx, repo.as_ref(), name, args) {
                log(&format!("hook {name}: {e}"));
            }
            post_commit(&ctx, repo.as_ref());
            HookRun::default()
        }
        "post-merge" | "post-checkout" | "post-rewrite" => {
            if let Err(e) = refresh_index(&ctx, repo.as_ref(), name, args) {
                log(&format!("hook {name}: {e}"));
            }
            // New memory may have come in: embed it in the background (when configured).
            crate::ops::recall::job::kick(&ctx);
            HookRun::default()
        }
        other => {
            log(&format!("hook {other}: unknown hook, ignored"));
            HookRun::default()
        }
    }
}

/// post-commit: evaluates the dream gates here (the common case, not due, costs a few
/// milliseconds and no extra process) and only when a dream is due starts it detached. The
/// child runs with `--force` because the gates were just decided (and the session scan just
/// recorded); it still takes the consolidation lock, so a concurrent dream makes it skip.
fn post_commit(ctx: &Context, repo: Option<&OpenRepo>) {
    use crate::ops::dream::gates::{self, Mode};
    // A dream rewrites tracked documents: never while Git is replaying or merging commits.
    if let Some(op) = ctx
        .project
        .git_dir
        .as_deref()
        .and_then(|d| crate::integrations::git::operation_in_progress(d, &[]))
    {
        log(&format!("hook post-commit: {op} in progress, no dream"));
        return;
    }
    let trigger = Trigger::PostCommit;
    match gates::evaluate(ctx, repo, &trigger, store::now_ms(), Mode::Run) {
        Ok(report) => match report.blocked_by {
            None => spawn_logged(
                ctx,
                "post-commit",
                &["dream", "--force", "--trigger", trigger.as_str()],
                &ctx.project.root,
            ),
            Some(reason) => log_own_words(&format!(
                "hook post-commit: dream not due ({})",
                reason.as_str()
            )),
        },
        Err(e) => log(&format!(
            "hook post-commit: cannot evaluate dream gates: {e}"
        )),
    }
}

/// pre-commit: scans the staged blobs (the index Git is about to commit, which is
/// `GIT_INDEX_FILE` for `git commit -a` / `git commit <paths>`) of changed files under the
/// memory directories. Blocks on unresolved conflict markers (naming file and line), on hidden
/// characters (naming code point, line and column) and on secrets (rule ids and file names,
/// never the value).
fn pre_commit(ctx: &Context) -> HookRun {
    let (files, previous) = match staged_memory_files(ctx) {
        Ok(files) => files,
        Err(e) => {
            log(&format!("hook pre-commit: {e}"));
            return HookRun::default();
        }
    };
    let mut msg = String::new();
    let mut blocked: Vec<&str> = Vec::new();
    let conflicted: Vec<(&str, usize)> = files
        .iter()
        .filter_map(|(path, bytes)| {
            doc::conflict_marker_line(&String::from_utf8_lossy(bytes)).map(|l| (path.as_str(), l))
        })
        .collect();
    if !conflicted.is_empty() {
        msg.push_str("git-qwen-memory: commit blocked: staged memory files hold unresolved merge conflict markers:\n");
        for (path, line) in &conflicted {
            msg.push_str(&format!("  {path} (line {line})\n"));
            blocked.push(path);
        }
        msg.push_str("Keep the text of both sides as entries, remove the <<<<<<< ======= >>>>>>> lines, and stage the file again.\n");
    }
    let mut hidden_msg = String::new();
    for (path, bytes) in &files {
        // A name a reviewer cannot read as it is (every hidden kind: names hold none by need).
        if let Some(what) = crate::formats::sanitize::hidden_in_name(path) {
            hidden_msg.push_str(&format!(
                "  {}: {what}; rename the file\n",
                crate::formats::sanitize::escape_for_terminal(path)
            ));
            blocked.push(path);
            continue;
        }
        // What this commit adds (tag characters, bidi controls and escapes: always).
        let old = previous.get(path).map(|b| String::from_utf8_lossy(b));
        let found =
            crate::formats::sanitize::newly_hidden(old.as_deref(), &String::from_utf8_lossy(bytes));
        if let Some(first) = found.first() {
            hidden_msg.push_str(&format!(
                "  {path}: {first}{}\n",
                if found.len() > 1 {
                    format!(" (and {} more)", found.len() - 1)
                } else {
                    String::new()
                }
            ));
            blocked.push(path);
        }
    }
    if !hidden_msg.is_empty() {
        msg.push_str("git-qwen-memory: commit blocked: staged memory files hold hidden characters (invisible, bidi, tag or control characters, escape sequences) a reviewer cannot see:\n");
        msg.push_str(&hidden_msg);
        msg.push_str(
            "Remove them (`git qwen-memory check` lists each one) and stage the file again.\n",
        );
    }
    let hits: Vec<crate::integrations::git::SecretHit> = files
        .iter()
        .filter_map(|(path, bytes)| {
            let rule_ids = crate::integrations::git::secret_rule_ids(path, bytes);
            (!rule_ids.is_empty()).then(|| crate::integrations::git::SecretHit {
                path: path.clone(),
                rule_ids,
            })
        })
        .collect();
    if !hits.is_empty() {
        msg.push_str(
            "git-qwen-memory: commit blocked: staged memory files look like they hold secrets:\n",
        );
        for h in &hits {
            msg.push_str(&format!("  {} ({})\n", h.path, h.rule_ids.join(", ")));
            blocked.push(&h.path);
        }
        msg.push_str(
            "Remove the secret and stage the file again. For a reviewed false positive, add \
             `qwen-memory:allow` on that line; to skip this check once: git commit --no-verify\n",
        );
    }
    if blocked.is_empty() {
        // Not a block: `git commit -a` takes changed memory files but never new ones; say so.
        let untracked = untracked_memory_files(ctx).unwrap_or_default();
        if untracked.is_empty() {
            return HookRun::default();
        }
        let mut warning =
            String::from("git-qwen-memory: new memory files are not in this commit (untracked):\n");
        for path in &untracked {
            warning.push_str(&format!("  {path}\n"));
        }
        warning.push_str(
            "Add them with `git add .qwen` or commit them with `git qwen-memory commit`.\n",
        );
        log(&format!(
            "hook pre-commit: {} untracked memory file(s)",
            untracked.len()
        ));
        return HookRun {
            stdout: String::new(),
            stderr: warning,
            code: 0,
        };
    }
    log(&format!(
        "hook pre-commit: blocked ({})",
        blocked.join(", ")
    ));
    HookRun {
        stdout: String::new(),
        stderr: msg,
        code: 1,
    }
}

use crate::integrations::git::repo::staged_memory_files;
/// Untracked (and not ignored) files under the shared memory directories, repository paths.
pub use crate::integrations::git::repo::untracked_memory_files;

/// post-merge / post-checkout / post-rewrite (and post-commit, which ends a conflicted merge,
/// cherry-pick or revert): rebuilds the generated `MEMORY.md` of the shared roots whose
/// documents Git changed (docs/DESIGN.md, "Git integration"). Never while Git is in the middle
/// of an operation (the hook that ends it rebuilds), and never an index Git still tracks: a
/// hook never makes a tracked file dirty.
fn refresh_index(
    ctx: &Context,
    repo: Option<&OpenRepo>,
    name: &str,
    args: &[String],
) -> Result<(), String> {
    let (Some(git_dir), Some(repo)) = (ctx.project.git_dir.as_deref(), repo) else {
        return Ok(());
    };
    // Git runs post-merge before it removes MERGE_HEAD, and a rebase's post-rewrite before it
    // removes its state dir: those hooks end that very operation.
    // Each commit of a cherry-pick or revert is finished when its post-commit runs (the index
    // is not tracked, so rebuilding it between two picks cannot stop the next one).
    let ending: &[&str] = match name {
        "post-merge" => &["merge"],
        "post-rewrite" if args.first().map(String::as_str) == Some("rebase") => &["rebase"],
        "post-commit" => &["cherry-pick", "revert"],
        _ => &[],
    };
    if let Some(op) = crate::integrations::git::operation_in_progress(git_dir, ending) {
        log(&format!(
            "hook {name}: {op} in progress, index left for later"
        ));
        return Ok(());
    }
    use crate::integrations::git::indexes::{self, IndexRefresh};
    let mut failed = None;
    for (path, outcome) in indexes::refresh_shared_indexes_in(ctx, repo, Some((name, args))) {
        match outcome {
            IndexRefresh::Rebuilt => log(&format!("hook {name}: rebuilt {}", path.display())),
            IndexRefresh::Unchanged => {}
            IndexRefresh::Tracked => log(&format!(
                "hook {name}: {} is tracked by Git, left as committed (commit its removal with `git qwen-memory commit`)",
                path.display()
            )),
            IndexRefresh::NotIgnored => log(&format!(
                "hook {name}: {} is not ignored by Git, not created (run `git qwen-memory install --local` or `commit`)",
                path.display()
            )),
            IndexRefresh::Failed(e) => failed = Some(e),
        }
    }
    failed.map_or(Ok(()), Err)
}

// ---------------------------------------------------------------------------------------------
// Agent hooks

/// The fields of an agent hook payload this tool reads (everything else is ignored).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Payload {
    pub session_id: String,
    pub transcript_path: String,
    pub cwd: String,
    pub prompt: String,
    pub submitted_prompt: String,
    /// `SessionStart`'s `source` (`startup`, `resume`, `clear`, `compact`, …).
    pub source: String,
}

impl Payload {
    /// Parses leniently: invalid JSON or missing fields give empty strings.
    pub fn parse(stdin: &[u8]) -> Payload {
        let value: Value = serde_json::from_slice(stdin)
            .or_else(
                |e| match crate::formats::text::replace_lone_surrogate_escapes(stdin) {
                    Some(fixed) => serde_json::from_slice(&fixed),
                    None => Err(e),
                },
            )
            .unwrap_or(Value::Null);
        let field = |k: &str| {
            value
                .get(k)
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string()
        };
        Payload {
            session_id: field("session_id"),
            transcript_path: field("transcript_path"),
            cwd: field("cwd"),
            prompt: field("prompt"),
            submitted_prompt: field("submitted_prompt"),
            source: field("source"),
        }
    }

    /// The user's text: `submitted_prompt` (Qwen Code's raw composer text) else `prompt`.
    pub fn query(&self) -> &str {
        if self.submitted_prompt.trim().is_empty() {
            &self.prompt
        } else {
            &self.submitted_prompt
        }
    }

    /// The payload's `cwd` when it is a directory, else `fallback`.
    fn dir(&self, fallback: &Path) -> PathBuf {
        let p = Path::new(&self.cwd);
        if !self.cwd.is_empty() && p.is_absolute() && p.is_dir() {
            p.to_path_buf()
        } else {
            fallback.to_path_buf()
        }
    }
}

/// Runs an agent hook (`recall` or `extract`) with the hook's stdin.
pub fn agent_hook(cwd: &Path, name: &str, agent: Option<Agent>, stdin: &[u8]) -> HookRun {
    let payload = Payload::parse(stdin);
    let dir = payload.dir(cwd);
    let Some((ctx, _)) = open(&dir, name) else {
        return HookRun::default();
    };
    if !hooks_enabled(&ctx) {
        return HookRun::default();
    }
    match name {
        "recall" => {
            let mut ctx = ctx;
            if agent == Some(Agent::Qwen) {
                // Never inject what Qwen Code recalls by itself (docs/DESIGN.md, "Sharing with
                // Qwen Code").
                ctx.layout.recall_only =
                    Some(crate::integrations::sharing::qwen(&ctx).inject_scopes());
            }
            HookRun {
                stdout: recall_output(&ctx, &payload).unwrap_or_default(),
                ..HookRun::default()
            }
        }
        "extract" => {
            if agent == Some(Agent::Qwen) {
                if let Some(reason) = crate::integrations::sharing::qwen(&ctx).extract_skip_reason()
                {
                    log(&format!(
                        "hook extract: skipped ({reason}): Qwen Code extracts this session into the same root itself"
                    ));
                    return HookRun::default();
                }
            }
            extract(&ctx, agent, &payload, &dir);
            HookRun::default()
        }
        "session-start" => {
            session_start(&ctx, &payload);
            HookRun::default()
        }
        other => {
            log(&format!("hook {other}: unknown hook, ignored"));
            HookRun::default()
        }
    }
}

/// The transcript of a session: the payload's path, else `<session>.jsonl` where the agent
/// keeps it (docs/DESIGN.md, "Agent integration"), when that file exists.
pub fn transcript_path(ctx: &Context, agent: Option<Agent>, payload: &Payload) -> Option<PathBuf> {
    if !payload.transcript_path.is_empty() {
        return Some(PathBuf::from(&payload.transcript_path));
    }
    if payload.session_id.is_empty()
        || payload.session_id.contains(['/', '\\'])
        || payload.session_id.contains("..")
    {
        return None;
    }
    let file = format!("{}.jsonl", payload.session_id);
    crate::integrations::agent::transcript_dirs(ctx, agent)
        .into_iter()
        .map(|d| d.join(&file))
        .find(|p| p.is_file())
}

fn extract(ctx: &Context, agent: Option<Agent>, payload: &Payload, dir: &Path) {
    let Some(transcript) = transcript_path(ctx, agent, payload) else {
        log("hook extract: no transcript path in the payload and none found on disk");
        return;
    };
    if !new_bytes_since_last_launch(ctx.state_dir(), &transcript) {
        log("hook extract: no new bytes since the last run started; nothing to do");
        return;
    }
    let transcript = transcript.display().to_string();
    let mut args = vec!["extract", "--transcript", transcript.as_str()];
    if !payload.session_id.is_empty() {
        args.extend(["--session", payload.session_id.as_str()]);
    }
    args.extend(["--trigger", Trigger::Hook.as_str()]);
    spawn_logged(ctx, "extract", &args, dir);
}

/// Whether `transcript` holds a user message an extract hook has not yet started a run for,
/// recording its current length when it does. Claude Code fires `Stop` and then `SessionEnd`
/// (and sometimes `PreCompact`) for one turn, and appends its own records in between: only the
/// first hook starts an extract; a later one starts another only when the bytes added since hold
/// a user message (what extract reads), so one turn end starts one process. A transcript that
/// cannot be read counts as new (the run reports the problem).
pub fn new_bytes_since_last_launch(state_dir: &Path, transcript: &Path) -> bool {
    use sha2::{Digest, Sha256};
    let Ok(len) = fs::metadata(transcript).map(|m| m.len()) else {
        return true;
    };
    let digest = Sha256::digest(transcript.as_os_str().as_encoded_bytes());
    let name = crate::formats::text::hex(&digest[..8]);
    let dir = state_dir.join(EXTRACT_LAUNCHES_DIR);
    let record = dir.join(name);
    // Never through a symlink, never blocking on a FIFO planted in the state dir: a hook must
    // not hang the agent's turn.
    let last = safe_fs::read_regular_string(&record)
        .ok()
        .flatten()
        .and_then(|s| s.trim().parse::<u64>().ok());
    if last == Some(len) {
        return false;
    }
    let grown_without_user_text = last
        .filter(|&l| l < len && len - l <= MAX_GROWTH_CHECKED)
        .is_some_and(|l| !has_user_message(transcript, l));
    if let Err(e) = safe_fs::write_atomic(&record, len.to_string().as_bytes()) {
        log(&format!("hook extract: cannot record the launch: {e}"));
    }
    !grown_without_user_text
}

/// Above this many new bytes a hook starts an extract without looking (the run reads them anyway).
const MAX_GROWTH_CHECKED: u64 = 1 << 20;

/// Whether the complete lines of `transcript` from `offset` on hold a user message; an unreadable
/// transcript counts as holding one.
fn has_user_message(transcript: &Path, offset: u64) -> bool {
    use crate::integrations::transcript::{read_transcript, Format, Role};
    match read_transcript(transcript, offset, Format::Auto) {
        Ok(read) => read.messages.iter().any(|m| m.role == Role::User),
        Err(_) => true,
    }
}

/// SessionStart: after a compaction (or a clear) the agent's context no longer holds the
/// memories injected earlier, so the session's "already surfaced" record is dropped and
/// relevant memories can come back.
fn session_start(ctx: &Context, payload: &Payload) {
    if !matches!(payload.source.as_str(), "compact" | "clear") {
        return;
    }
    match SessionState::reset(ctx.state_dir(), &payload.session_id) {
        Ok(true) => log(&format!(
            "hook session-start: {} — surfaced memories reset",
            payload.source
        )),
        Ok(false) => {}
        Err(e) => log(&format!("hook session-start: cannot reset: {e}")),
    }
}

/// The recall hook's stdout: the `hookSpecificOutput` JSON with the "## Relevant memory" block
/// as `additionalContext`, or `None` when nothing new is relevant. Documents already
/// surfaced in this session are left out, and those surfaced now are remembered.
pub fn recall_output(ctx: &Context, payload: &Payload) -> Option<String> {
    let query = payload.query();
    if query.trim().is_empty() {
        return None;
    }
    let state = SessionState::load(ctx.state_dir(), &payload.session_id);
    let limit = crate::ops::recall::limit_from_settings(&ctx.settings);
    let out = recall_in_session(ctx, query, limit, &state, Trigger::Hook);
    for e in &out.root_errors {
        log(&format!("hook recall: {e}"));
    }
    if let Some(reason) = &out.fallback {
        log(&format!("hook recall: {reason}"));
    }
    if out.documents.is_empty() {
        return None;
    }
    let json = json!({
        "hookSpecificOutput": {
            "hookEventName": "UserPromptSubmit",
            "additionalContext": out.prompt,
        }
    });
    Some(json.to_string())
}

/// The recall an agent session gets, the same for the prompt hook and the tool server: the
/// configured strategy, the hook's size bound and network budget, leaving out the documents
/// `state` says this session was already shown, and adding the ones shown now to it (so the
/// hook and a `recall` tool call never show one document twice in a session).
pub fn recall_in_session(
    ctx: &Context,
    query: &str,
    limit: usize,
    state: &SessionState,
    trigger: Trigger,
) -> crate::ops::recall::RecallOutput {
    let request = RecallRequest {
        query: query.to_string(),
        limit,
        exclude: state.surfaced.iter().cloned().collect(),
        strategy: Strategy::from_settings(&ctx.settings),
        now_ms: store::now_ms(),
        max_prompt_chars: Some(MAX_CONTEXT_CHARS),
        trigger: trigger.clone(),
        network_budget: Some(HOOK_NETWORK_BUDGET),
    };
    let out = recall::run(ctx, &request);
    if !out.documents.is_empty() {
        let keys: Vec<String> = out.documents.iter().map(|d| d.path.clone()).collect();
        if let Err(e) = state.save_with(&keys) {
            log(&format!("{trigger} recall: cannot save session state: {e}"));
        }
    }
    out
}

/// The documents one agent session has been shown, in `recall-sessions/<session>.json`.
#[derive(Debug, Clone, Default)]
pub struct SessionState {
    path: Option<PathBuf>,
    pub surfaced: HashSet<String>,
    order: Vec<String>,
}

impl SessionState {
    fn file(state_dir: &Path, session: &str) -> Option<PathBuf> {
        if session.trim().is_empty() {
            return None;
        }
        let mut name = project::sanitize_key(session);
        name.truncate(120);
        Some(
            state_dir
                .join(RECALL_SESSIONS_DIR)
                .join(format!("{name}.json")),
        )
    }

    /// Forgets what `session` was shown. `Ok(true)` when there was a record.
    pub fn reset(state_dir: &Path, session: &str) -> io::Result<bool> {
        let Some(path) = Self::file(state_dir, session) else {
            return Ok(false);
        };
        match fs::remove_file(&path) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// Loads the state of `session` (empty without a session id: nothing is remembered).
    pub fn load(state_dir: &Path, session: &str) -> SessionState {
        let Some(path) = Self::file(state_dir, session) else {
            return SessionState::default();
        };
        let order: Vec<String> = crate::storage::safe_fs::read_regular(&path)
            .ok()
            .flatten()
            .and_then(|b| serde_json::from_slice::<Value>(&b).ok())
            .and_then(|v| {
                v.get("surfaced").and_then(Value::as_array).map(|a| {
                    a.iter()
                        .filter_map(|s| s.as_str().map(str::to_string))
                        .collect()
                })
            })
            .unwrap_or_default();
        SessionState {
            surfaced: order.iter().cloned().collect(),
            order,
            path: Some(path),
        }
    }

    /// The state of the session whose record changed last, if that was within `within`: the
    /// session a client that does not name its session is most likely part of (the prompt
    /// hook of the current turn has just run).
    pub fn load_latest(state_dir: &Path, within: Duration) -> Option<(String, SessionState)> {
        let dir = state_dir.join(RECALL_SESSIONS_DIR);
        let now = SystemTime::now();
        let (mtime, path) = fs::read_dir(&dir)
            .ok()?
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .filter_map(|p| Some((fs::metadata(&p).ok()?.modified().ok()?, p)))
            .max_by_key(|(m, _)| *m)?;
        if now.duration_since(mtime).unwrap_or_default() > within {
            return None;
        }
        let session = path.file_stem()?.to_str()?.to_string();
        Some((session.clone(), SessionState::load(state_dir, &session)))
    }

    /// Adds `keys` and writes the state; prunes old sessions when this one is new.
    pub fn save_with(&self, keys: &[String]) -> io::Result<()> {
        let Some(path) = &self.path else {
            return Ok(());
        };
        let dir = path.parent().unwrap_or(Path::new("."));
        fs::create_dir_all(dir)?;
        let is_new = !path.exists();
        let mut order = self.order.clone();
        for k in keys {
            if !self.surfaced.contains(k) && !order.contains(k) {
                order.push(k.clone());
            }
        }
        let body = json!({ "surfaced": order, "updatedAt": store::now_iso() });
        store::atomic_write(path, store::to_pretty_json(&body).as_bytes())
            .map_err(io::Error::other)?;
        if is_new {
            prune_sessions(dir, path);
        }
        Ok(())
    }
}

/// Deletes session files older than [`SESSION_STATE_TTL`] and the oldest beyond
/// [`MAX_SESSION_FILES`], never `keep`.
pub fn prune_sessions(dir: &Path, keep: &Path) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let now = SystemTime::now();
    let mut files: Vec<(SystemTime, PathBuf)> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p != keep && p.extension().is_some_and(|x| x == "json"))
        .filter_map(|p| Some((fs::metadata(&p).ok()?.modified().ok()?, p)))
        .collect();
    files.sort_by_key(|f| std::cmp::Reverse(f.0));
    for (i, (mtime, p)) in files.iter().enumerate() {
        let old = now.duration_since(*mtime).unwrap_or_default() > SESSION_STATE_TTL;
        if old || i + 1 >= MAX_SESSION_FILES {
            let _ = fs::remove_file(p);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payload_prefers_submitted_prompt() {
        let p = Payload::parse(br#"{"prompt":"expanded @file text","submitted_prompt":"why CI fails","session_id":"s1","extra":1}"#);
        assert_eq!(p.query(), "why CI fails");
        assert_eq!(p.session_id, "s1");
        let p = Payload::parse(br#"{"prompt":"how to deploy","submitted_prompt":""}"#);
        assert_eq!(p.query(), "how to deploy");
        assert_eq!(Payload::parse(b"not json"), Payload::default());
    }

    #[test]
    fn guarded_contains_panics() {
        let run = guarded("test", || panic!("boom"));
        assert_eq!(run, HookRun::default());
    }

    #[test]
    fn session_state_round_trip_and_prune() {
        let dir = tempfile::tempdir().unwrap();
        let s = SessionState::load(dir.path(), "abc/../x");
        assert!(s.surfaced.is_empty());
        s.save_with(&["/a.md".into(), "/b.md".into()]).unwrap();
        let s = SessionState::load(dir.path(), "abc/../x");
        assert!(s.surfaced.contains("/a.md") && s.surfaced.contains("/b.md"));
        s.save_with(&["/c.md".into()]).unwrap();
        assert_eq!(SessionState::load(dir.path(), "abc/../x").surfaced.len(), 3);
        // No session id: nothing is stored.
        SessionState::load(dir.path(), "")
            .save_with(&["/a.md".into()])
            .unwrap();
        let sessions = dir.path().join(RECALL_SESSIONS_DIR);
        assert_eq!(fs::read_dir(&sessions).unwrap().count(), 1);
        // An old file goes when a new session starts.
        let old = sessions.join("old.json");
        fs::write(&old, "{}").unwrap();
        let f = fs::File::options().write(true).open(&old).unwrap();
        f.set_modified(SystemTime::now() - Duration::from_secs(8 * 24 * 3600))
            .unwrap();
        SessionState::load(dir.path(), "new")
            .save_with(&["/x.md".into()])
            .unwrap();
        assert!(!old.exists());
        assert_eq!(fs::read_dir(&sessions).unwrap().count(), 2);
    }

    #[test]
    fn transcript_fallback_needs_an_existing_file() {
        let dir = tempfile::tempdir().unwrap();
        let ctx = crate::integrations::git::repo::open_context_without_env(dir.path()).unwrap();
        let p = Payload {
            transcript_path: "/given.jsonl".into(),
            ..Payload::default()
        };
        assert_eq!(
            transcript_path(&ctx, Some(Agent::Qwen), &p),
            Some(PathBuf::from("/given.jsonl"))
        );
        let p = Payload {
            session_id: "../etc".into(),
            ..Payload::default()
        };
        assert_eq!(transcript_path(&ctx, None, &p), None);
        let p = Payload {
            session_id: "no-such-session".into(),
            ..Payload::default()
        };
        assert_eq!(transcript_path(&ctx, None, &p), None);
    }
}
