//! Dream: gated, locked, lossless consolidation of the writable root (docs/DESIGN.md, "Dream").
//!
//! A run goes: gates ([`gates`]) → dream lock ([`lock`]) → snapshot → plan (model [`plan`] when
//! configured, else or on any failure [`mechanical`]) → backup of every file the plan touches
//! ([`crate::storage::backup`]) → apply (rewrites before deletions, each write atomic) → index, meta,
//! `dream-log.jsonl`, telemetry. The root's mutation lock is held from the snapshot of a
//! mechanical plan (or the re-check of a model plan) to the end of the apply, so a concurrent
//! extract or remember waits instead of losing its update.
//!
//! Test checkpoints (inert unless the lock test seam `QWEN_MEMORY_TEST_LOCK_BARRIER` is set, see
//! [`safe_fs::test_checkpoint`]): [`CHECKPOINT_LOCKED`] right after the dream lock is taken
//! (before the mutation lock) and [`CHECKPOINT_HALF_APPLIED`] after the first file of a run was
//! written. The reliability tests stop a run there to race it against other processes or to
//! kill it in the middle, knowing it is there; neither changes what a run does.

pub mod gates;
pub mod lock;
pub mod mechanical;
pub mod plan;
pub mod similar;

use std::io::Write;
use std::path::Path;
use std::time::Instant;

use serde::Serialize;
use serde_json::json;

use crate::formats::diff;
use crate::formats::doc::{self, Entry, MemoryType};
use crate::formats::secrets::{self, Origin, SecretError};
use crate::formats::text::with_line_endings_of;
use crate::integrations::embeddings::EmbeddingsConfig;
use crate::integrations::git::commit::{auto_commit_report, AutoCommit};
use crate::integrations::model::ModelClient;
use crate::integrations::telemetry::{self, Telemetry};
use crate::ops::trigger::Trigger;
use crate::ops::undo::Undone;
use crate::storage::backup::{self, BackupError, PlannedChange, RunKind};
use crate::storage::context::Context;
use crate::storage::project::Root;
use crate::storage::root_writer::{self, RootError, RootWriter};
use crate::storage::safe_fs;
use crate::storage::scan::PINNED_DIR;
use crate::storage::store::{self, StoreError};

pub use gates::{GateReport, SkipReason};

/// The log of dream runs in the state dir.
pub const LOG_FILE: &str = "dream-log.jsonl";
/// Test checkpoint: the dream lock was just taken.
pub const CHECKPOINT_LOCKED: &str = "dream-locked";
/// Test checkpoint: the first file of a run was written (the run is half applied).
pub const CHECKPOINT_HALF_APPLIED: &str = "dream-half-applied";

/// How a plan is made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Strategy {
    Mechanical,
    Model,
}

impl Strategy {
    pub fn as_str(self) -> &'static str {
        match self {
            Strategy::Mechanical => "mechanical",
            Strategy::Model => "model",
        }
    }
}

/// The requested strategy (`--strategy`, setting `dream.strategy`): `auto` (the model when one
/// is configured, else mechanical), `mechanical` or `model`.
pub use crate::storage::settings::DreamStrategy as StrategyChoice;

/// One document as a run found it.
#[derive(Debug, Clone, PartialEq)]
pub struct SnapshotDoc {
    pub relative_path: String,
    pub memory_type: MemoryType,
    /// The file's bytes.
    pub raw: Vec<u8>,
    /// The frontmatter text, kept byte for byte on rewrite.
    pub frontmatter: String,
    pub entries: Vec<Entry>,
    /// Under the top-level `pinned/` directory.
    pub pinned: bool,
}

/// The documents of the writable root, in scan order (newest first).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Snapshot {
    pub docs: Vec<SnapshotDoc>,
}

/// Reads every document of `root` (symlinks, oversized and non-memory files are left out by the
/// scan and therefore never changed).
pub fn snapshot(root: &Root) -> Result<Snapshot, RootError> {
    let outcome = root_writer::scan_strict(root)?;
    let mut docs = Vec::with_capacity(outcome.docs.len());
    for d in outcome.docs {
        let Ok(Some(raw)) = crate::storage::safe_fs::read_regular(&d.path) else {
            continue;
        };
        let Ok(parsed) = doc::parse_document(&String::from_utf8_lossy(&raw)) else {
            continue;
        };
        let pinned = d
            .relative_path
            .split('/')
            .next()
            .is_some_and(|s| s == PINNED_DIR)
            && d.relative_path.contains('/');
        docs.push(SnapshotDoc {
            entries: doc::parse_entries(&parsed.body),
            relative_path: d.relative_path,
            memory_type: d.memory_type,
            raw,
            frontmatter: parsed.frontmatter,
            pinned,
        });
    }
    Ok(Snapshot { docs })
}

/// Frontmatter keys `remember` and extract write: the document's own fields and provenance.
pub(crate) const WRITTEN_KEYS: [&str; 8] = [
    "name",
    "description",
    "type",
    "created",
    "session",
    "commit",
    "source",
    "client",
];

/// A document a dream leaves out entirely, and why (reported: nothing is skipped silently).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LeftAlone {
    pub path: String,
    pub reason: &'static str,
}

/// What a dream works on: [`snapshot`] without the documents it must not touch, each reported.
/// - A document holding a secret (no reviewed `qwen-memory:allow` on its line): every write of
///   it would be refused, so the dream leaves it as it is (`check` names it) and consolidates
///   the rest, instead of failing as a whole.
/// - In a shared root (repository, team) with `trust.*` set, a document the policy holds
///   pending (docs/security.md): a stranger's, or one not committed as it is. It is never
///   merged into a trusted document (whose provenance the merged text would then inherit),
///   never the target of a merge, never deleted as a duplicate, never shown to a dream model.
fn dream_snapshot(ctx: &Context, root: &Root) -> Result<(Snapshot, Vec<LeftAlone>), RootError> {
    use crate::storage::scan::Scope;
    let mut snap = snapshot(root)?;
    let mut left = Vec::new();
    let policy = matches!(root.scope, Scope::Repository | Scope::Team)
        .then(|| crate::ops::recall::trust_policy(ctx))
        .flatten();
    snap.docs.retain(|d| {
        let reason =
            if secrets::contains_secret_as(&String::from_utf8_lossy(&d.raw), Origin::Person) {
                Some("it holds a secret (see `git qwen-memory check`)")
            } else if policy
                .as_ref()
                .is_some_and(|p| !p.trusts(&root.path.join(&d.relative_path)))
            {
                Some("pending under the trust policy (see `git qwen-memory check`)")
            } else {
                None
            };
        if let Some(reason) = reason {
            left.push(LeftAlone {
                path: d.relative_path.clone(),
                reason,
            });
        }
        reason.is_none()
    });
    Ok((snap, left))
}

/// Rewrite or delete.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    Rewrite,
    Delete,
}

/// One file a plan changes.
#[derive(Debug, Clone, PartialEq)]
pub struct FileChange {
    pub relative_path: String,
    pub memory_type: MemoryType,
    /// What the file held when planned.
    pub before: Vec<u8>,
    /// The new text; `None` for a deletion.
    pub after: Option<String>,
    pub action: Action,
    pub reason: String,
}

/// Documents folded into one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MergeRecord {
    pub target: String,
    pub sources: Vec<String>,
    pub reason: String,
}

/// An entry a model plan drops on purpose, with the reason it gave.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DroppedEntry {
    /// The document it was in.
    pub path: String,
    /// Its summary line.
    pub entry: String,
    pub reason: String,
}

/// A consolidation plan.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    pub strategy: Strategy,
    /// Rewrites first, then deletions.
    pub changes: Vec<FileChange>,
    pub merges: Vec<MergeRecord>,
    /// Entries before minus entries after, over the files the plan touches.
    pub deduped_entries: usize,
    /// Entries given up with a stated reason (model plans only; the mechanical plan never
    /// drops one).
    pub dropped: Vec<DroppedEntry>,
}

impl Plan {
    pub fn new(strategy: Strategy) -> Plan {
        Plan {
            strategy,
            changes: Vec::new(),
            merges: Vec::new(),
            deduped_entries: 0,
            dropped: Vec::new(),
        }
    }

    /// Types of the touched documents, in type order.
    pub fn touched_topics(&self) -> Vec<String> {
        MemoryType::ALL
            .iter()
            .filter(|t| self.changes.iter().any(|c| c.memory_type == **t))
            .map(|t| t.as_str().to_string())
            .collect()
    }

    /// The plan as a unified diff.
    pub fn diff(&self) -> String {
        self.changes
            .iter()
            .map(|c| {
                diff::unified(
                    &c.relative_path,
                    Some(&String::from_utf8_lossy(&c.before)),
                    c.after.as_deref(),
                )
            })
            .collect()
    }
}

/// One changed file as reported and logged.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ChangeRecord {
    pub path: String,
    pub action: Action,
    pub reason: String,
}

/// Options of one dream.
#[derive(Debug, Clone)]
pub struct DreamOptions {
    /// Skip every gate but the lock.
    pub force: bool,
    /// Plan and report, write nothing (gates are not evaluated and no lock is taken).
    pub dry_run: bool,
    /// `None`: the `dream.strategy` setting.
    pub strategy: Option<StrategyChoice>,
    /// `manual`, or the hook that started it (e.g. `post-commit`).
    pub trigger: Trigger,
    /// Merge the near-duplicate pairs the embedder finds (`--apply-similar`).
    pub apply_similar: bool,
}

impl Default for DreamOptions {
    fn default() -> Self {
        DreamOptions {
            force: false,
            dry_run: false,
            strategy: None,
            trigger: Trigger::Manual,
            apply_similar: false,
        }
    }
}

/// How a dream ended (`--json` spells it kebab-case: `dry-run`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum DreamStatus {
    /// A gate said no (see `reason`).
    Skipped,
    /// Files changed.
    Updated,
    /// Nothing needed changing.
    Noop,
    /// `--dry-run`: the plan, unapplied.
    DryRun,
}

impl From<DreamStatus> for telemetry::RunStatus {
    fn from(s: DreamStatus) -> Self {
        match s {
            DreamStatus::Skipped => telemetry::RunStatus::Skipped,
            DreamStatus::Updated => telemetry::RunStatus::Updated,
            DreamStatus::Noop => telemetry::RunStatus::Noop,
            DreamStatus::DryRun => telemetry::RunStatus::DryRun,
        }
    }
}

/// The result of a dream.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DreamOutcome {
    pub status: DreamStatus,
    /// The gate that stopped the run.
    pub reason: Option<SkipReason>,
    pub trigger: Trigger,
    pub strategy: Option<Strategy>,
    /// Why the model plan was not used, when one was asked for.
    pub fallback_reason: Option<String>,
    /// The backup id `dream --undo` restores.
    pub run_id: Option<String>,
    pub deduped_entries: usize,
    pub touched_topics: Vec<String>,
    pub merged: Vec<MergeRecord>,
    pub changes: Vec<ChangeRecord>,
    /// Entries the model plan dropped, each with its reason.
    pub dropped: Vec<DroppedEntry>,
    /// `--dry-run`: the plan as a unified diff.
    pub diff: Option<String>,
    /// The gates as evaluated (absent with `--force` and `--dry-run`).
    pub gates: Option<GateReport>,
    /// Why `MEMORY.md` could not be rebuilt after the files changed (they stay changed).
    pub index_error: Option<String>,
    pub duration_ms: u64,
    /// The auto-commit that followed an update (local mode with `autoCommit` on).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub auto_commit: Option<AutoCommit>,
    /// Near-duplicate pairs the embedder found (absent without one, when it failed, and in
    /// hook-started dreams); `applied` with `--apply-similar`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub similar: Vec<similar::SimilarPair>,
    /// Memories left out of the near-duplicate check because they are not embedded yet.
    #[serde(skip_serializing_if = "is_zero")]
    pub similar_not_embedded: usize,
    /// Documents the dream left out entirely ([`dream_snapshot`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub left_alone: Vec<LeftAlone>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl DreamOutcome {
    fn skipped(
        trigger: &Trigger,
        reason: SkipReason,
        gates: Option<GateReport>,
        t0: Instant,
    ) -> Self {
        DreamOutcome {
            status: DreamStatus::Skipped,
            reason: Some(reason),
            trigger: trigger.clone(),
            strategy: None,
            fallback_reason: None,
            run_id: None,
            deduped_entries: 0,
            touched_topics: Vec::new(),
            merged: Vec::new(),
            changes: Vec::new(),
            dropped: Vec::new(),
            diff: None,
            gates,
            index_error: None,
            duration_ms: t0.elapsed().as_millis() as u64,
            auto_commit: None,
            similar: Vec::new(),
            similar_not_embedded: 0,
            left_alone: Vec::new(),
        }
    }
}

/// Failures of a dream (after which no metadata is written, so the next run is eligible).
#[derive(Debug, thiserror::Error)]
pub enum DreamError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Root(#[from] RootError),
    #[error(transparent)]
    Backup(#[from] BackupError),
    #[error("{0} changed while the dream ran; nothing was written")]
    Changed(String),
    #[error("{0}; nothing was written")]
    Secret(#[from] SecretError),
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
}

/// The gates of `ctx` now as the post-commit hook sees them, for `status` (writes nothing).
pub fn gate_report(ctx: &Context) -> Result<GateReport, RootError> {
    gates::evaluate(
        ctx,
        None,
        &Trigger::PostCommit,
        store::now_ms(),
        gates::Mode::Report,
    )
}

fn model_client(ctx: &Context, requested: bool) -> Option<ModelClient> {
    ModelClient::from_settings(&ctx.settings, requested)
}

/// What a plan changes, for the outcome and the dream log.
fn change_records(plan: &Plan) -> Vec<ChangeRecord> {
    plan.changes
        .iter()
        .map(|c| ChangeRecord {
            path: c.relative_path.clone(),
            action: c.action,
            reason: c.reason.clone(),
        })
        .collect()
}

/// Runs one dream.
pub fn run(ctx: &Context, opts: &DreamOptions) -> Result<DreamOutcome, DreamError> {
    let t0 = Instant::now();
    let root = ctx.layout.writable();
    if opts.dry_run {
        return dry_run(ctx, opts, t0);
    }
    let mut report = None;
    if !opts.force {
        let r = gates::evaluate(ctx, None, &opts.trigger, store::now_ms(), gates::Mode::Run)?;
        if let Some(reason) = r.blocked_by {
            return Ok(DreamOutcome::skipped(&opts.trigger, reason, Some(r), t0));
        }
        report = Some(r);
    }
    let Some(_lock) = lock::try_acquire(root)? else {
        return Ok(DreamOutcome::skipped(
            &opts.trigger,
            SkipReason::Locked,
            report,
            t0,
        ));
    };
    // Qwen Code's local-mode lock, looked at again with ours held (also under --force, which
    // skips the gates but never a lock). In private mode both tools share one lock file.
    if lock::live_qwen_lock(ctx.project.worktree.as_deref()).is_some() {
        return Ok(DreamOutcome::skipped(
            &opts.trigger,
            SkipReason::Locked,
            report,
            t0,
        ));
    }
    safe_fs::test_checkpoint(CHECKPOINT_LOCKED);
    let telemetry = Telemetry::new(&root.state_dir);
    let embedder = similarity_embedder(ctx, opts);
    match consolidate(ctx, opts, root, embedder.as_ref(), t0) {
        Ok(mut outcome) => {
            outcome.gates = report;
            emit(&telemetry, opts, &outcome);
            // After the lock is released: the commit's own post-commit hook may start a dream,
            // which must find the lock free (and then finds nothing due).
            drop(_lock);
            if outcome.status == DreamStatus::Updated {
                outcome.auto_commit = auto_commit_report(ctx);
            }
            Ok(outcome)
        }
        Err(e) => {
            telemetry.record(&telemetry::DreamEvent {
                trigger: opts.trigger.as_str(),
                status: telemetry::RunStatus::Failed,
                strategy: None,
                deduped_entries: 0,
                touched_topics: None,
                touched_topics_count: 0,
                duration_ms: t0.elapsed().as_millis() as u64,
            });
            Err(e)
        }
    }
    // `_lock` is released here on every path; SIGINT/SIGTERM are handled by the lock module.
}

fn emit(telemetry: &Telemetry, opts: &DreamOptions, o: &DreamOutcome) {
    telemetry.record(&telemetry::DreamEvent {
        trigger: opts.trigger.as_str(),
        status: o.status.into(),
        strategy: o.strategy.map(|s| s.as_str()),
        deduped_entries: o.deduped_entries,
        touched_topics: Some(o.touched_topics.join(",")),
        touched_topics_count: o.touched_topics.len(),
        duration_ms: o.duration_ms,
    });
}

/// Picks the strategy and, for the model, asks it outside the mutation lock.
fn model_plan(
    ctx: &Context,
    opts: &DreamOptions,
    root: &Root,
) -> (Option<(Plan, Snapshot)>, Option<String>) {
    let choice = opts
        .strategy
        .or_else(|| {
            ctx.settings
                .text(crate::storage::settings::Key::DreamStrategy)
                .and_then(StrategyChoice::parse)
        })
        .unwrap_or(StrategyChoice::Auto);
    if choice == StrategyChoice::Mechanical {
        return (None, None);
    }
    let Some(client) = model_client(ctx, choice == StrategyChoice::Model) else {
        return match choice {
            StrategyChoice::Model => (None, Some("no model is configured".to_string())),
            _ => (None, None),
        };
    };
    let snap = match dream_snapshot(ctx, root) {
        Ok((s, _)) => s,
        Err(e) => return (None, Some(e.to_string())),
    };
    match plan::plan_by_model(&client, root, &snap) {
        Ok(p) => (Some((p, snap)), None),
        Err(e) => (None, Some(e.to_string())),
    }
}

/// Verifies that every file of a plan still holds what the plan was made from.
fn unchanged_since(w: &RootWriter, p: &Plan) -> Result<(), String> {
    for c in &p.changes {
        let now = w.read_doc(&c.relative_path).ok().flatten();
        if now.as_deref() != Some(c.before.as_slice()) {
            return Err(c.relative_path.clone());
        }
    }
    Ok(())
}

/// The embedder for the near-duplicate check (docs/DESIGN.md, "Near-duplicates"): only in a
/// dream a person started (a hook-started dream never waits on an embedder, and nobody reads its
/// report), only when `recall.embeddings.*` is set, and only when the embedding job, run here in
/// process first, could bring the cache up to date (a job already running elsewhere leaves the
/// cache as it is). Any failure: `None`, and the dream says nothing about similarity.
fn similarity_embedder(ctx: &Context, opts: &DreamOptions) -> Option<EmbeddingsConfig> {
    if !opts.trigger.is_manual() {
        return None;
    }
    let cfg = EmbeddingsConfig::from_settings(&ctx.settings)?;
    crate::ops::recall::job::run(ctx).ok().map(|_| cfg)
}

/// The near-duplicate pairs of `snap` that `plan` does not touch yet, merged into `plan` when
/// `apply`; and how many candidates were not embedded yet.
fn near_duplicates(
    embedder: Option<&EmbeddingsConfig>,
    root: &Root,
    snap: &Snapshot,
    plan: &mut Plan,
    apply: bool,
) -> (Vec<similar::SimilarPair>, usize) {
    let Some(cfg) = embedder else {
        return (Vec::new(), 0);
    };
    let exclude: std::collections::HashSet<&str> = plan
        .changes
        .iter()
        .map(|c| c.relative_path.as_str())
        .collect();
    let Some(found) = similar::propose(cfg, root, snap, &exclude) else {
        return (Vec::new(), 0);
    };
    let mut report = similar::report(snap, &found);
    if apply {
        similar::extend_plan(plan, snap, &found, &mut report);
    }
    (report, found.not_embedded)
}

fn consolidate(
    ctx: &Context,
    opts: &DreamOptions,
    root: &Root,
    embedder: Option<&EmbeddingsConfig>,
    t0: Instant,
) -> Result<DreamOutcome, DreamError> {
    let (model, mut fallback) = model_plan(ctx, opts, root);
    {
        let w = RootWriter::lock(root)?;
        w.ensure_scaffold()?;
        let (snap, left_alone) = dream_snapshot(ctx, root)?;
        let mut plan = match model {
            Some((p, _)) => match unchanged_since(&w, &p) {
                Ok(()) => p,
                Err(path) => {
                    fallback = Some(plan::PlanError::Changed(path).to_string());
                    mechanical::plan(&snap)
                }
            },
            None => mechanical::plan(&snap),
        };
        let (similar, similar_not_embedded) =
            near_duplicates(embedder, root, &snap, &mut plan, opts.apply_similar);
        let run_id = backup::new_run_id(&w);
        let mut index_error = None;
        if !plan.changes.is_empty() {
            apply_plan_locked(&w, &plan, &run_id)?;
            // The consolidation stands even when the index cannot be rebuilt (as upstream);
            // the failure is reported and `index` can retry.
            index_error = w.rebuild_index().err().map(|e| e.to_string());
        }
        let session = gates::current_session(ctx, None, &store::read_meta(&root.state_dir));
        let status = if plan.changes.is_empty() {
            DreamStatus::Noop
        } else {
            DreamStatus::Updated
        };
        let touched = plan.touched_topics();
        let mut meta = store::read_meta(&root.state_dir);
        let now = store::now_iso();
        meta.set("updatedAt", now.as_str());
        meta.set("lastDreamAt", now.as_str());
        meta.set("lastDreamSessionId", session.as_str());
        meta.set("lastDreamTouchedTopics", json!(touched));
        meta.set(
            "lastDreamStatus",
            if status == DreamStatus::Updated {
                "updated"
            } else {
                "noop"
            },
        );
        meta.set("recentSessionIdsSinceDream", json!([]));
        w.write_meta(&meta)?;
        let changes = change_records(&plan);
        let outcome = DreamOutcome {
            status,
            reason: None,
            trigger: opts.trigger.clone(),
            strategy: Some(plan.strategy),
            fallback_reason: fallback.clone(),
            run_id: (!plan.changes.is_empty()).then(|| run_id.clone()),
            deduped_entries: plan.deduped_entries,
            touched_topics: touched,
            merged: plan.merges.clone(),
            changes,
            dropped: plan.dropped.clone(),
            diff: None,
            gates: None,
            index_error,
            duration_ms: t0.elapsed().as_millis() as u64,
            auto_commit: None,
            similar,
            similar_not_embedded,
            left_alone,
        };
        if status == DreamStatus::Updated {
            append_log(&root.state_dir, &outcome);
        }
        Ok(outcome)
    }
}

/// Backs up every file of `plan` (run `run_id`), then applies it: rewrites first, deletions
/// last, each write atomic. Refuses, writing nothing, when a file no longer holds what the plan
/// was made from. The caller rebuilds the index.
pub fn apply_plan_locked(w: &RootWriter, plan: &Plan, run_id: &str) -> Result<(), DreamError> {
    unchanged_since(w, plan).map_err(DreamError::Changed)?;
    // Every new text is scanned as a whole and written in its normalized form. A mechanical plan
    // only moves text people wrote, so their reviewed markers count; a model's plan may keep a
    // reviewed line of the file it rewrites but not add one.
    let origin = match plan.strategy {
        Strategy::Mechanical => Origin::Person,
        Strategy::Model => Origin::Machine,
    };
    let checked: Vec<Option<String>> = plan
        .changes
        .iter()
        .map(|c| {
            c.after
                .as_deref()
                .map(|t| {
                    let before = String::from_utf8_lossy(&c.before);
                    secrets::prepare_document(&c.relative_path, t, origin, Some(&before))
                        .map(|t| with_line_endings_of(&c.before, t))
                })
                .transpose()
        })
        .collect::<Result<_, _>>()?;
    let planned: Vec<PlannedChange> = plan
        .changes
        .iter()
        .zip(&checked)
        .map(|(c, after)| PlannedChange {
            relative_path: c.relative_path.clone(),
            before: Some(c.before.clone()),
            after: after.as_ref().map(|s| s.as_bytes().to_vec()),
        })
        .collect();
    backup::record(w, RunKind::Dream, run_id, &planned)?;
    let writes: Vec<(&str, &[u8])> = plan
        .changes
        .iter()
        .zip(&checked)
        .filter_map(|(c, after)| {
            after
                .as_ref()
                .map(|t| (c.relative_path.as_str(), t.as_bytes()))
        })
        .collect();
    let mut first = true;
    w.write_docs(&writes, || {
        if std::mem::take(&mut first) {
            safe_fs::test_checkpoint(CHECKPOINT_HALF_APPLIED);
        }
    })?;
    for c in plan.changes.iter().filter(|c| c.after.is_none()) {
        w.delete_doc(&c.relative_path)?;
        if std::mem::take(&mut first) {
            safe_fs::test_checkpoint(CHECKPOINT_HALF_APPLIED);
        }
    }
    Ok(())
}

fn append_log(state_dir: &Path, o: &DreamOutcome) {
    let line = json!({
        "ts": store::now_iso(),
        "runId": o.run_id,
        "trigger": o.trigger,
        "strategy": o.strategy,
        "fallbackReason": o.fallback_reason,
        "dedupedEntries": o.deduped_entries,
        "touchedTopics": o.touched_topics,
        "merged": o.merged,
        "changes": o.changes,
        "dropped": o.dropped,
        "similar": o.similar,
    });
    if let Ok(mut f) = store::open_append(&state_dir.join(LOG_FILE)) {
        let _ = writeln!(f, "{line}");
    }
}

fn dry_run(ctx: &Context, opts: &DreamOptions, t0: Instant) -> Result<DreamOutcome, DreamError> {
    let root = ctx.layout.writable();
    let (model, fallback) = model_plan(ctx, opts, root);
    let embedder = similarity_embedder(ctx, opts);
    let (snap, left_alone) = dream_snapshot(ctx, root)?;
    let mut plan = match model {
        Some((p, _)) => p,
        None => mechanical::plan(&snap),
    };
    let (similar, similar_not_embedded) = near_duplicates(
        embedder.as_ref(),
        root,
        &snap,
        &mut plan,
        opts.apply_similar,
    );
    Ok(DreamOutcome {
        status: DreamStatus::DryRun,
        reason: None,
        trigger: opts.trigger.clone(),
        strategy: Some(plan.strategy),
        fallback_reason: fallback,
        run_id: None,
        deduped_entries: plan.deduped_entries,
        touched_topics: plan.touched_topics(),
        merged: plan.merges.clone(),
        changes: change_records(&plan),
        dropped: plan.dropped.clone(),
        diff: Some(crate::ops::browse::masked_for_report(&plan.diff())),
        gates: None,
        index_error: None,
        duration_ms: t0.elapsed().as_millis() as u64,
        auto_commit: None,
        similar,
        similar_not_embedded,
        left_alone,
    })
}

/// Restores the files of the last dream exactly (`dream --undo`).
pub fn undo(ctx: &Context) -> Result<Undone, BackupError> {
    let root = ctx.layout.writable();
    let out = crate::ops::undo::undo_last(ctx, root, RunKind::Dream)?;
    let line = json!({"ts": store::now_iso(), "undo": out.outcome.run_id,
                      "restored": out.outcome.restored, "removed": out.outcome.removed});
    if let Ok(mut f) = store::open_append(&root.state_dir.join(LOG_FILE)) {
        let _ = writeln!(f, "{line}");
    }
    Ok(out)
}
