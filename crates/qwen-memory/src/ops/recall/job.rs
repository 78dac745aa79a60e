//! The background embedding job (`git-qwen-memory embed-job`, hidden): embeds every memory (and the model's calibration texts) that
//! the embeddings cache lacks, in batches of the endpoint's `input` list, saving the cache after
//! every batch, so recall never embeds a document on the prompt's path (docs/DESIGN.md,
//! "Recall"; docs/semantic-recall.md).
//!
//! Started detached ([`kick`]) after a recall that found uncached documents, after writes
//! (remember, extract, dream) and after Git brings new memory in (post-merge, post-checkout,
//! post-rewrite). One job at a time: it holds `recall-embeddings.lock` while it runs, and a
//! second one exits at once. Progress is kept in `recall-embeddings-progress.json` for
//! `status`.

use std::path::Path;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::formats::secrets;
use crate::integrations::detached;
use crate::integrations::embeddings::{self, EmbeddingsConfig, Purpose};
use crate::ops::recall::embed::{self, Cache, BATCH};
use crate::storage::context::Context;
use crate::storage::safe_fs::{self, FileLock};
use crate::storage::scan::{DocFields, ScannedDoc};
use crate::storage::{scan_cache, store};

/// Held by the running job.
pub const LOCK_FILE: &str = "recall-embeddings.lock";
/// The job's progress, for `status`.
pub const PROGRESS_FILE: &str = "recall-embeddings-progress.json";

/// Time one batch may take (a small CPU model embeds a batch in seconds; a cold server may
/// first load its model).
pub const BATCH_TIMEOUT: Duration = Duration::from_secs(120);

/// Rounds of "scan, embed what is missing": memories written while the job runs are picked up
/// by the next round.
const MAX_ROUNDS: usize = 3;

/// What the job did or is doing.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Progress {
    /// `running`, `done` or `failed`.
    pub state: String,
    pub model: String,
    /// Texts to embed in this run (memories and calibration texts).
    pub total: usize,
    pub done: usize,
    pub pid: u32,
    pub started_at: String,
    pub updated_at: String,
    pub error: Option<String>,
}

/// Why the job stopped early.
#[derive(Debug, thiserror::Error)]
pub enum JobError {
    #[error(
        "no embeddings endpoint configured (recall.embeddings.baseUrl and recall.embeddings.model)"
    )]
    NotConfigured,
    #[error("{0}")]
    Embed(#[from] embeddings::EmbedError),
    #[error("cannot write the embeddings cache: {0}")]
    Cache(#[from] std::io::Error),
    #[error(
        "the embeddings cache cannot be read ({0}); left as it is, the next job tries again (if \
         what is there is not a regular file, remove it and it is rebuilt)"
    )]
    CacheUnreadable(String),
    #[error("cannot take the embedding job's lock: {0}")]
    Lock(#[from] safe_fs::FsError),
}

/// The job's outcome: `None` when another job holds the lock.
pub fn run(ctx: &Context) -> Result<Option<Progress>, JobError> {
    let cfg = EmbeddingsConfig::from_settings(&ctx.settings).ok_or(JobError::NotConfigured)?;
    let state_dir = ctx.state_dir();
    let Some(_lock) = FileLock::try_exclusive(&state_dir.join(LOCK_FILE))? else {
        return Ok(None);
    };
    let mut progress = Progress {
        state: "running".into(),
        model: cfg.model.clone(),
        pid: std::process::id(),
        started_at: store::now_iso(),
        ..Progress::default()
    };
    let space = cfg.vector_space();
    for _ in 0..MAX_ROUNDS {
        let docs = load_docs(ctx);
        let eligible = eligible(&docs);
        let mut cache = Cache::load(state_dir);
        // A cache that is there but could not be read is not rebuilt from nothing over itself:
        // the next job tries again (docs/DESIGN.md, "Recall").
        if let Some(why) = cache.unreadable() {
            let err = JobError::CacheUnreadable(why.to_string());
            progress.state = "failed".into();
            progress.error = Some(err.to_string());
            save(state_dir, &mut progress);
            return Err(err);
        }
        cache.set_refused(
            docs.iter()
                .zip(&eligible)
                .filter(|(_, ok)| !**ok)
                .map(|(d, _)| embed::content_key(&space, &embed::document_text(d)))
                .collect(),
        )?;
        let missing = embed::missing(&space, &cache, &docs, &eligible);
        if missing.is_empty() {
            let mut live: Vec<[u8; 32]> = embed::background_texts()
                .into_iter()
                .map(|t| embed::content_key(&space, t))
                .collect();
            live.extend(
                docs.iter()
                    .zip(&eligible)
                    .filter(|(_, ok)| **ok)
                    .map(|(d, _)| embed::content_key(&space, &embed::document_text(d))),
            );
            cache.compact_if_bloated(&live)?;
            break;
        }
        progress.total += missing.len();
        save(state_dir, &mut progress);
        for batch in missing.chunks(BATCH) {
            let texts: Vec<String> = batch.iter().map(|(_, t)| t.clone()).collect();
            let vectors =
                match embeddings::embed(&cfg, &texts, Purpose::Passage, BATCH_TIMEOUT, true) {
                    Ok(v) => v,
                    Err(e) => {
                        progress.state = "failed".into();
                        progress.error = Some(e.to_string());
                        save(state_dir, &mut progress);
                        return Err(e.into());
                    }
                };
            cache.append(batch.iter().map(|(k, _)| *k).zip(vectors).collect())?;
            progress.done += batch.len();
            save(state_dir, &mut progress);
        }
    }
    progress.state = "done".into();
    save(state_dir, &mut progress);
    Ok(Some(progress))
}

/// Starts the job detached unless embeddings are off or a job is running. Never fails the
/// caller: a failure to start is logged to the hook log.
pub fn kick(ctx: &Context) {
    if EmbeddingsConfig::from_settings(&ctx.settings).is_none()
        || FileLock::is_held(&ctx.state_dir().join(LOCK_FILE))
    {
        return;
    }
    let started = detached::own_program().and_then(|program| {
        detached::spawn_detached(&program, &["embed-job"], &ctx.project.root, ctx.state_dir())
    });
    if let Err(e) = started {
        // Recorded where `status` looks; the next recall tries again.
        let mut p = Progress {
            state: "failed".into(),
            model: String::new(),
            error: Some(format!("cannot start the embedding job: {e}")),
            ..Progress::default()
        };
        save(ctx.state_dir(), &mut p);
    }
}

/// The last progress record, if any job ran.
pub fn progress(state_dir: &Path) -> Option<Progress> {
    let text = safe_fs::read_regular_string(&state_dir.join(PROGRESS_FILE))
        .ok()
        .flatten()?;
    let mut p: Progress = serde_json::from_str(&text).ok()?;
    if p.state == "running" && !FileLock::is_held(&state_dir.join(LOCK_FILE)) {
        // The job died without saying so (killed, machine stopped): the next one resumes.
        p.state = "interrupted".into();
    }
    Some(p)
}

fn save(state_dir: &Path, p: &mut Progress) {
    p.updated_at = store::now_iso();
    if let Ok(text) = serde_json::to_string_pretty(p) {
        // Progress is advisory: a failed write only makes `status` stale.
        let _ = store::atomic_write(&state_dir.join(PROGRESS_FILE), text.as_bytes());
    }
}

fn load_docs(ctx: &Context) -> Vec<ScannedDoc> {
    let roots = ctx.layout.recall_roots();
    let loaded = scan_cache::scan_roots_cached(&roots, ctx.state_dir());
    loaded.views().iter().map(DocFields::to_doc).collect()
}

/// Documents that may be sent to the endpoint: the strict scan (as recall's semantic pass).
pub fn eligible(docs: &[ScannedDoc]) -> Vec<bool> {
    docs.iter()
        .map(|d| !secrets::contains_secret(&embed::document_text(d)))
        .collect()
}
