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
    /// The trust policy's requirements, when one is set (docs/security.md).
    pub trust_policy: Option<String>,
    /// Shared memories the trust policy keeps out of recall.
    pub pending: Vec<PendingStatus>,
    /// Shared memories the last pull or merge brought in, still as it brought them.
    pub arrived: Vec<ArrivedStatus>,
    pub warnings: Vec<String>,
    /// Invalid setting values (replaced by their defaults here) and unknown `qwen-memory.*`
    /// keys, each with the closest known key when there is one.
    pub setting_problems: Vec<String>,
}

/// A memory the trust policy does not let into recall, and why.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PendingStatus {
    pub scope: &'static str,
    pub path: String,
    pub reason: String,
}

/// A memory that arrived with the last pull: who sent it and when.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ArrivedStatus {
    /// Path relative to the work tree (`.qwen/team-memory/…`).
    pub path: String,
    /// Author of the commit that brought it (sanitised to one line), if found.
    pub author: Option<String>,
    pub email: Option<String>,
    /// Whole days since that commit's author time.
    pub age_days: Option<i64>,
    /// `today`, `yesterday`, `N days ago`.
    pub age: Option<String>,
    pub commit: Option<String>,
    /// Whether the trust policy lets it into recall (always, without a policy).
    pub trusted: bool,
}

/// Shared memories the last pull or merge brought in (`status`, docs/security.md).
pub fn arrived(ctx: &Context, pending: &[crate::ops::check::PendingMemory]) -> Vec<ArrivedStatus> {
    use crate::formats::sanitize::clean_line;
    let Some(repo) = crate::integrations::git::open_repo(ctx).ok() else {
        return Vec::new();
    };
    let dirs = [crate::integrations::git::MEMORY_DIR, ".qwen/team-memory"];
    let now_ms = crate::storage::store::now_ms();
    let pending_paths: Vec<String> = pending
        .iter()
        .map(|p| {
            let root = ctx.layout.root_for(p.scope);
            root.path.join(&p.relative_path).display().to_string()
        })
        .collect();
    let workdir = repo.workdir().map(std::path::Path::to_path_buf);
    crate::integrations::git::provenance::last_pull(&repo, &dirs)
        .unwrap_or_default()
        .into_iter()
        .map(|a| {
            let p = a.provenance.as_ref();
            let abs = workdir
                .as_ref()
                .map(|w| w.join(&a.path).display().to_string())
                .unwrap_or_default();
            ArrivedStatus {
                author: p.map(|p| clean_line(&p.author).into_owned()),
                email: p.map(|p| clean_line(&p.email).into_owned()),
                age_days: p.map(|p| crate::ops::recall::age_days(p.time_ms, now_ms)),
                age: p.map(|p| crate::ops::recall::memory_age(p.time_ms, now_ms)),
                commit: p.map(|p| p.commit.clone()),
                trusted: !pending_paths.contains(&abs),
                path: crate::formats::sanitize::clean_line(&a.path).into_owned(),
            }
        })
        .collect()
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
    let pending_memories = crate::ops::check::pending(ctx);
    let arrived = arrived(ctx, &pending_memories);
    Status {
        trust_policy: crate::ops::recall::trust_policy(ctx).map(|p| p.policy().describe()),
        pending: pending_memories
            .iter()
            .map(|p| PendingStatus {
                scope: p.scope.as_str(),
                path: p.relative_path.clone(),
                reason: p.reason.to_string(),
            })
            .collect(),
        arrived,
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
