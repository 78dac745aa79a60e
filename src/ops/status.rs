//! `status`: what the tool knows about this project, as data the CLI renders.

use serde::Serialize;
use serde_json::Value;

use crate::ops::extract::cursor::{Cursors, Failure, CURSORS_FILE};
use crate::ops::extract::queue;
use crate::storage::context::Context;
use crate::storage::scan::{self, Scope};
use crate::storage::store;

/// One root as reported by `status`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RootStatus {
    pub scope: &'static str,
    pub path: String,
    pub exists: bool,
    pub writable: bool,
    pub docs: usize,
    /// A scan error (a symlinked root, an unreadable directory), if any.
    pub error: Option<String>,
}

/// One setting with its origin.
#[derive(Debug, Clone, Serialize)]
pub struct SettingStatus {
    pub key: &'static str,
    pub value: Option<String>,
    pub origin: String,
}

/// Extraction state: this tool's cursors, the queue, and failures.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExtractStatus {
    /// This tool's cursor file (Qwen Code's `extract-cursor.json` is not this tool's).
    pub cursor_file: String,
    /// Transcripts with a cursor.
    pub transcripts: usize,
    /// Requests waiting in the queue.
    pub queued: usize,
    /// The most recent failed extraction, with `retriedAt` once a later run succeeded.
    pub last_failure: Option<Failure>,
    /// Failed transcripts the next extraction retries.
    pub pending_retries: Vec<Failure>,
    /// The cursor file could not be read.
    pub error: Option<String>,
    /// A queue slot could not be read (the next extraction moves it aside).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub queue_error: Option<String>,
}

/// Reads the extraction state of `state_dir`.
pub fn extract_status(state_dir: &std::path::Path) -> ExtractStatus {
    let (cursors, error) = match Cursors::read(state_dir) {
        Ok(c) => (c, None),
        Err(e) => (Cursors::default(), Some(e.to_string())),
    };
    let (queued, queue_error) = match queue::queued(state_dir) {
        Ok(q) => (q.len(), None),
        Err(e) => (0, Some(e.to_string())),
    };
    ExtractStatus {
        cursor_file: state_dir.join(CURSORS_FILE).display().to_string(),
        transcripts: cursors.transcripts.len(),
        queued,
        queue_error,
        pending_retries: cursors.failures.values().cloned().collect(),
        last_failure: cursors.last_failure,
        error,
    }
}

/// The whole status.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Status {
    pub project_root: String,
    pub project_key: String,
    pub worktree: Option<String>,
    pub git_dir: Option<String>,
    pub mode: &'static str,
    pub base_dir: String,
    pub state_dir: String,
    pub roots: Vec<RootStatus>,
    pub meta: Value,
    pub settings: Vec<SettingStatus>,
    /// PID in `consolidation.lock`, when a dream holds it.
    pub dream_lock_holder: Option<String>,
    /// Which Git and agent hooks of this tool are installed.
    pub hooks: crate::integrations::git::shims::HooksStatus,
    /// The dream gates as the post-commit hook sees them: each gate's current value, the first
    /// one that blocks (why not), and when `min_hours` opens (when due).
    pub dream_gates: Option<crate::ops::dream::GateReport>,
    /// Cursors, queue and the last failed extraction.
    pub extraction: ExtractStatus,
    /// The background embedding job's last progress record (semantic recall), if one ran.
    pub embeddings: Option<crate::ops::recall::job::Progress>,
    /// Who does what when agents run on this project: for Qwen Code, what it recalls and
    /// extracts itself and what our hooks add (docs/DESIGN.md, "Sharing with Qwen Code").
    pub agents: AgentsStatus,
    pub warnings: Vec<String>,
    /// Invalid setting values (replaced by their defaults here) and unknown `qwen-memory.*`
    /// keys, each with the closest known key when there is one.
    pub setting_problems: Vec<String>,
}

/// How the work is shared with each agent.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentsStatus {
    pub qwen: crate::integrations::sharing::QwenSharing,
    /// Claude Code keeps no memory of its own here: our hooks recall every root and extract.
    pub claude: ClaudeSharing,
}

/// What our Claude Code hooks do.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ClaudeSharing {
    pub hook_injects: Vec<&'static str>,
    pub extracts: &'static str,
}

/// Gathers the status of the project in `ctx`.
pub fn status(ctx: &Context) -> Status {
    let writable = ctx.layout.writable().scope;
    let roots = ctx
        .layout
        .recall_roots()
        .into_iter()
        .map(|(scope, path)| {
            let (docs, error) = match scan::scan_root(path, scope) {
                Ok(o) => (o.docs.len(), None),
                Err(e) => (0, Some(e.to_string())),
            };
            RootStatus {
                scope: scope.as_str(),
                path: path.display().to_string(),
                exists: path.is_dir(),
                writable: scope == writable || scope == Scope::User,
                docs,
                error,
            }
        })
        .collect();
    let state_dir = ctx.state_dir();
    let meta = store::JsonState::read(&state_dir.join(store::META_FILE))
        .ok()
        .flatten()
        .map(|m| Value::Object(m.0))
        .unwrap_or(Value::Null);
    let settings = ctx
        .settings
        .all()
        .map(|r| SettingStatus {
            key: r.key,
            value: r.value.clone(),
            origin: r.origin.to_string(),
        })
        .collect();
    let mut warnings = Vec::new();
    let untracked = crate::ops::hook_entry::untracked_memory_files(ctx).unwrap_or_default();
    if !untracked.is_empty() {
        warnings.push(format!(
            "{} new memory file{} not tracked by Git ({}): `git add .qwen` or `git qwen-memory commit`",
            untracked.len(),
            if untracked.len() == 1 { " is" } else { "s are" },
            untracked.join(", ")
        ));
    }
    if let Some(raw) = &ctx.project.scope_warning {
        warnings.push(format!(
            "ignoring unrecognized QWEN_CODE_MEMORY_PROJECT_SCOPE={raw:?}; using \"git-root\" (expected \"git-root\" or \"workspace\")"
        ));
    }
    Status {
        project_root: ctx.project.root.display().to_string(),
        project_key: ctx.project.key.clone(),
        worktree: ctx
            .project
            .worktree
            .as_ref()
            .map(|p| p.display().to_string()),
        git_dir: ctx
            .project
            .git_dir
            .as_ref()
            .map(|p| p.display().to_string()),
        mode: if ctx.layout.local { "local" } else { "private" },
        base_dir: ctx.layout.base.display().to_string(),
        state_dir: state_dir.display().to_string(),
        roots,
        meta,
        settings,
        dream_lock_holder: crate::storage::safe_fs::read_regular_string(
            &state_dir.join(crate::ops::dream::lock::CONSOLIDATION_LOCK_FILE),
        )
        .ok()
        .flatten(),
        hooks: crate::integrations::git::shims::status(ctx),
        dream_gates: crate::ops::dream::gate_report(ctx).ok(),
        extraction: extract_status(state_dir),
        embeddings: crate::ops::recall::job::progress(state_dir),
        agents: AgentsStatus {
            qwen: crate::integrations::sharing::qwen(ctx),
            claude: ClaudeSharing {
                hook_injects: vec!["repository", "private", "team", "user"],
                extracts: "git-qwen-memory",
            },
        },
        warnings,
        setting_problems: ctx
            .settings
            .problems()
            .iter()
            .map(|p| p.to_string())
            .collect(),
    }
}
