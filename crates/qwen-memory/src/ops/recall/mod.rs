//! Recall: picks the memories relevant to a query.
//!
//! Three strategies: `auto` (the default: [`relevance`], fused with [`embed`] when an
//! embeddings endpoint is configured), `upstream` (alias `heuristic`: [`lexical`], Qwen Code's
//! exact ranking) and `model` ([`select`], falling back to `auto`). [`prompt`] renders the
//! "## Relevant memory" block. See docs/DESIGN.md, "Recall".

pub mod embed;
pub mod glossary;
pub mod job;
pub mod lexical;
pub mod prompt;
pub mod relevance;
pub mod select;

pub use lexical::{rank_lexical, rank_lexical_all, tokenize, LexicalQuery, Ranked};
pub use prompt::{
    age_days, memory_age, memory_freshness_note, memory_freshness_text, render_prompt,
    render_prompt_with, Provenance,
};

/// Default number of documents recall returns (`recall.limit`).
pub const MAX_RELEVANT_DOCS: usize = 5;

/// Body window, in UTF-16 code units, used both for scoring and for the prompt block.
pub const MAX_DOC_BODY_CHARS: usize = 1200;

/// Most query tokens kept after deduplication (first half + rolling last half).
pub const MAX_QUERY_TOKENS: usize = 64;

/// The placeholder an entry-less body renders as; it counts as an empty body.
pub const NO_ENTRIES_PLACEHOLDER: &str = "_No entries yet._";

use std::collections::{HashMap, HashSet};
use std::path::{Component, Path};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::formats::secrets::{self, Origin};
use crate::integrations::git::{provenance, trust};
use crate::integrations::model::{ModelClient, ModelConfig};
use crate::integrations::telemetry::{self, Telemetry};
use crate::ops::trigger::Trigger;
use crate::storage::context::Context;
use crate::storage::scan::{DocFields, ScannedDoc, Scope};
use crate::storage::scan_cache;

/// How recall chooses: `auto` (the default), `upstream` (alias `heuristic`) or `model`.
pub use crate::storage::settings::RecallStrategy as Strategy;

/// The `recall.limit` setting.
pub fn limit_from_settings(settings: &crate::storage::settings::Settings) -> usize {
    settings
        .count(crate::storage::settings::Key::RecallLimit)
        .map(|n| usize::try_from(n).unwrap_or(usize::MAX))
        .unwrap_or(MAX_RELEVANT_DOCS)
}

/// Ranks `docs` for `query` offline with `strategy` (`Model` ranks as `Auto`): indices into
/// `docs` with scores, best first, at most `limit`. Upstream scores are its integer points;
/// auto scores are relevance × 100, rounded. No secret filtering (callers do it).
pub fn rank_offline(
    strategy: Strategy,
    query: &str,
    docs: &[ScannedDoc],
    limit: usize,
) -> Vec<(usize, u32)> {
    match strategy {
        Strategy::Upstream => LexicalQuery::new(query)
            .rank(docs, Some(limit))
            .into_iter()
            .map(|r| (r.index, r.score))
            .collect(),
        Strategy::Auto | Strategy::Model => relevance::RelevanceQuery::new(query)
            .rank(docs)
            .into_iter()
            .take(limit)
            .map(|s| (s.index, auto_points(s.score)))
            .collect(),
    }
}

fn auto_points(score: f64) -> u32 {
    (score * 100.0).round().clamp(1.0, f64::from(u32::MAX)) as u32
}

/// A recall request.
#[derive(Debug, Clone)]
pub struct RecallRequest {
    pub query: String,
    pub limit: usize,
    /// Documents not to return: relative paths, `scope:relative` ids or file paths.
    pub exclude: Vec<String>,
    pub strategy: Strategy,
    /// Epoch milliseconds used for "Saved … ago".
    pub now_ms: f64,
    /// Longest prompt block wanted (characters): documents are dropped from the end until it
    /// fits, and a single document is cut (agent hooks bound what they inject).
    pub max_prompt_chars: Option<usize>,
    /// What started the recall (`manual`, `hook`, `mcp`), for telemetry; `hook` also bounds
    /// the time spent on Git provenance.
    pub trigger: Trigger,
    /// Longest time model and embeddings calls may take together; on expiry recall falls back
    /// to the offline ranking. Agent hooks set it below the agent's hook timeout.
    pub network_budget: Option<Duration>,
}

/// One recalled document.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Recalled {
    pub scope: &'static str,
    pub relative_path: String,
    pub path: String,
    pub title: String,
    #[serde(rename = "type")]
    pub memory_type: &'static str,
    pub score: u32,
    pub mtime_ms: f64,
}

/// The result of a recall.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RecallOutput {
    /// `none` (nothing relevant), `auto`, `heuristic` (the upstream ranking) or `model`.
    pub strategy: &'static str,
    /// Whether embeddings took part (auto with `recall.embeddings.*`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub semantic: bool,
    /// Why the model was not used although asked for (not configured, failed, timed out).
    pub fallback: Option<String>,
    pub docs_scanned: usize,
    pub documents: Vec<Recalled>,
    /// The "## Relevant memory" block ("" when nothing is relevant).
    #[serde(skip)]
    pub prompt: String,
    /// Roots that could not be scanned.
    #[serde(skip)]
    pub root_errors: Vec<String>,
}

/// Recalls the memories relevant to `req.query` from every readable root. Documents failing
/// the secret scan are never returned. Emits the recall telemetry event.
pub fn run(ctx: &Context, req: &RecallRequest) -> RecallOutput {
    let started = Instant::now();
    let mut out = RecallOutput {
        strategy: "none",
        semantic: false,
        fallback: None,
        docs_scanned: 0,
        documents: Vec::new(),
        prompt: String::new(),
        root_errors: Vec::new(),
    };
    if req.query.trim().is_empty() || req.limit == 0 {
        emit(ctx, req, &out, started);
        return out;
    }
    // The query's embedding is requested before anything else, so the embeddings server
    // computes it while the roots are scanned and ranked lexically (docs/DESIGN.md, "Recall").
    let pending = match req.strategy {
        Strategy::Auto => start_semantic(ctx, req, started + network_budget(req)),
        Strategy::Model | Strategy::Upstream => None,
    };
    // Documents are borrowed from the parse cache; only the ones shown are copied.
    let roots = ctx.layout.recall_roots();
    let loaded = scan_cache::scan_roots_cached(&roots, ctx.state_dir());
    out.root_errors = loaded.errors().iter().map(|e| e.to_string()).collect();
    let mut docs = loaded.views();
    if !req.exclude.is_empty() {
        let excluded = Excluded::new(&req.exclude, &roots);
        docs.retain(|d| !excluded.contains(d));
    }
    // The trust policy: shared memories only as it allows (fails closed). In a hook, history
    // walks for files not in the provenance cache are bounded; `check` and `status` warm it.
    if let Some(mut policy) = trust_policy(ctx) {
        if req.trigger == Trigger::Hook {
            policy = policy.with_deadline(Instant::now() + HOOK_WALK_BUDGET);
        }
        docs.retain(|d| {
            !matches!(d.scope(), Scope::Repository | Scope::Team)
                || policy.trusts(&ctx.layout.root_for(d.scope()).path.join(d.relative_path()))
        });
    }
    out.docs_scanned = docs.len();
    let deadline = Instant::now() + network_budget(req);

    let mut chosen: Vec<(usize, u32)> = match req.strategy {
        Strategy::Model => match choose_by_model(ctx, req, &docs, deadline) {
            Ok(chosen) => {
                out.strategy = "model";
                chosen
            }
            Err(reason) => {
                out.fallback = Some(reason);
                let pending = start_semantic(ctx, req, deadline);
                auto(ctx, req, &docs, pending, &mut out)
            }
        },
        Strategy::Auto => auto(ctx, req, &docs, pending, &mut out),
        Strategy::Upstream => {
            let query = LexicalQuery::new(&req.query);
            let chosen = upstream(&query, &docs, req.limit);
            if !chosen.is_empty() {
                out.strategy = "heuristic";
            }
            chosen
        }
    };
    let shown: Vec<ScannedDoc> = chosen.iter().map(|(i, _)| docs[*i].to_doc()).collect();
    let mut selected: Vec<&ScannedDoc> = shown.iter().collect();
    let provenance = provenance_of(ctx, &shown, &req.trigger);
    out.prompt = render_prompt_with(&selected, &provenance, req.now_ms);
    if let Some(max) = req.max_prompt_chars {
        while out.prompt.chars().count() > max && selected.len() > 1 {
            selected.pop();
            chosen.pop();
            out.prompt = render_prompt_with(&selected, &provenance, req.now_ms);
        }
        if out.prompt.chars().count() > max {
            out.prompt = out.prompt.chars().take(max).collect();
        }
    }
    out.documents = chosen
        .iter()
        .zip(&shown)
        .map(|((_, score), d)| Recalled {
            scope: d.scope.as_str(),
            relative_path: d.relative_path.clone(),
            path: d.path.display().to_string(),
            title: crate::formats::sanitize::clean_line(&d.title).into_owned(),
            memory_type: d.memory_type.as_str(),
            score: *score,
            mtime_ms: d.mtime_ms,
        })
        .collect();
    if out.documents.is_empty() {
        out.strategy = "none";
    }
    emit(ctx, req, &out, started);
    out
}

/// The upstream lexical choice: ranked hits, skipping documents that fail the secret scan.
fn upstream<D: DocFields + Sync>(
    query: &LexicalQuery,
    docs: &[D],
    limit: usize,
) -> Vec<(usize, u32)> {
    query
        .rank(docs, None)
        .into_iter()
        .filter(|r| !doc_has_secret(&docs[r.index]))
        .take(limit)
        .map(|r| (r.index, r.score))
        .collect()
}

fn network_budget(req: &RecallRequest) -> Duration {
    req.network_budget.unwrap_or(embed::DEFAULT_BUDGET)
}

/// The semantic pass of an auto recall, when an embeddings endpoint is configured: the cache
/// loaded and the (redacted) query's embedding requested, to be answered by `deadline`.
fn start_semantic(ctx: &Context, req: &RecallRequest, deadline: Instant) -> Option<embed::Pending> {
    let cfg = embed::EmbeddingsConfig::from_settings(&ctx.settings)?;
    Some(embed::Pending::start(
        &cfg,
        ctx.state_dir(),
        &secrets::redact(&req.query),
        deadline.saturating_duration_since(Instant::now()),
    ))
}

/// The auto choice: relevance ranking, fused with semantic similarity when an embeddings
/// endpoint is configured (`pending`) and answers within the budget.
fn auto<D: DocFields + Sync>(
    ctx: &Context,
    req: &RecallRequest,
    docs: &[D],
    pending: Option<embed::Pending>,
    out: &mut RecallOutput,
) -> Vec<(usize, u32)> {
    // Secret-scanning a document costs far more than ranking it: without embeddings to fuse
    // with, only the best `limit` documents that pass are needed, so the scan stops there.
    let wanted = if pending.is_some() {
        usize::MAX
    } else {
        req.limit
    };
    let mut ranked = relevance::RelevanceQuery::new(&req.query).rank(docs);
    // Damping of repeated terms: a document stuffed with the prompt's words ranks no higher
    // for it (docs/DESIGN.md, "Security").
    for s in &mut ranked {
        s.score *= select::repetition_damping(select::repetition(&document_text(&docs[s.index])));
    }
    ranked.sort_by(|a, b| b.score.total_cmp(&a.score));
    let lexical: Vec<(usize, u32)> = if wanted == usize::MAX {
        // The secret scan happens in the fused choice below, only for what takes a slot.
        ranked
            .into_iter()
            .map(|s| (s.index, auto_points(s.score)))
            .collect()
    } else {
        // Fair slots: no root takes every slot while another has a match.
        select::fair_slots(
            ranked.iter().map(|s| (s.index, auto_points(s.score))),
            |i| docs[i].scope(),
            |i| !doc_has_secret(&docs[i]),
            wanted,
        )
    };
    let semantic = pending.map(|pending| {
        // No document is sent from here: only cached vectors are used, and the background job
        // embeds a text only when it passes the strict scan (a reviewed allow marker does not
        // count there), so a cached vector's text passed it.
        let eligible = vec![true; docs.len()];
        let matched: Vec<usize> = lexical.iter().map(|(i, _)| *i).collect();
        embed::semantic_rank(pending, docs, &eligible, &matched)
    });
    if semantic.as_ref().is_some_and(|sem| sem.missing > 0) {
        // Documents (or the model's calibration) not embedded yet: the background job embeds
        // them; this recall ranks them lexically.
        crate::ops::recall::job::kick(ctx);
    }
    let chosen: Vec<(usize, u32)> = match semantic {
        Some(sem) if sem.error.is_none() && sem.calibrated => {
            out.semantic = true;
            if sem.missing > 0 {
                out.fallback = Some(format!(
                    "embeddings partly used: {} memories not embedded yet (the background job embeds them)",
                    sem.missing
                ));
            }
            let lex: Vec<usize> = lexical.iter().map(|(i, _)| *i).collect();
            let sem: Vec<usize> = sem.ranked.iter().map(|(i, _)| *i).collect();
            select::fair_slots(
                embed::fuse(&[&lex, &sem])
                    .into_iter()
                    .map(|(i, s)| (i, (s * 10_000.0).round() as u32)),
                |i| docs[i].scope(),
                |i| !doc_has_secret(&docs[i]),
                req.limit,
            )
        }
        Some(sem) => {
            out.fallback = Some(match sem.error {
                Some(e) => format!("embeddings not used: {e}"),
                None => "embeddings not used yet: the background job is calibrating the model"
                    .to_string(),
            });
            let keep = |i: usize| wanted != usize::MAX || !doc_has_secret(&docs[i]);
            select::fair_slots(lexical, |i| docs[i].scope(), keep, req.limit)
        }
        // Already scanned and fairly chosen above.
        None => lexical,
    };
    if !chosen.is_empty() {
        out.strategy = "auto";
    }
    chosen
}

/// Whether any part of a document that recall could print (path, name, description, other
/// frontmatter values, body) fails the scan. These are files on disk, so a reviewed
/// `qwen-memory:allow` line counts.
pub fn doc_has_secret<D: DocFields + ?Sized>(d: &D) -> bool {
    secrets::contains_secret_as(&document_text(d), Origin::Person)
}

/// The trust policy (`trust.ref`, `trust.authors`, `trust.signed`), when one is set
/// (docs/security.md). With a policy set and no repository, nothing shared is trusted.
pub fn trust_policy(ctx: &Context) -> Option<trust::TrustPolicy> {
    use crate::storage::settings::Key;
    let policy = trust::Policy::new(
        ctx.settings.text(Key::TrustRef),
        ctx.settings.text(Key::TrustAuthors),
        ctx.settings.bool(Key::TrustSigned),
    )?;
    Some(trust::TrustPolicy::open(
        policy,
        ctx.project.git_dir.as_deref(),
        &ctx.layout.repository.state_dir,
    ))
}

/// Longest a prompt hook spends walking history for provenance (trust policy, "from <author>").
const HOOK_WALK_BUDGET: Duration = Duration::from_millis(300);

/// Git provenance of the shown documents of shared roots (repository, team), through the cache
/// in the repository state dir; `None` for personal roots and files not committed as they are.
fn provenance_of(
    ctx: &Context,
    shown: &[ScannedDoc],
    trigger: &Trigger,
) -> Vec<Option<Provenance>> {
    let shared = |d: &ScannedDoc| matches!(d.scope, Scope::Repository | Scope::Team);
    if !shown.iter().any(shared) {
        return Vec::new();
    }
    if ctx.project.git_dir.is_none() {
        return Vec::new();
    }
    let state_dir = &ctx.layout.repository.state_dir;
    let mut cache = provenance::Cache::load(state_dir);
    let paths: Vec<Option<&Path>> = shown
        .iter()
        .map(|d| shared(d).then_some(d.path.as_path()))
        .collect();
    let deadline = (*trigger == Trigger::Hook).then(|| Instant::now() + HOOK_WALK_BUDGET);
    let out =
        crate::integrations::git::repo::provenance_of_files(ctx, &mut cache, &paths, deadline);
    cache.save(state_dir);
    out
}

/// The printable parts of a document, one per line (never joined into one line, so a marker
/// cannot reach a secret on another line).
pub fn document_text<D: DocFields + ?Sized>(d: &D) -> String {
    let mut text = format!(
        "{}\n{}\n{}\n",
        d.relative_path(),
        d.title(),
        d.description()
    );
    d.for_each_extra(&mut |k, v| {
        text.push_str(k);
        text.push_str(": ");
        text.push_str(v);
        text.push('\n');
    });
    text.push_str(d.body());
    text
}

/// Runs `f` on a helper thread and waits for it until `deadline`; `None` when it is not done
/// by then (the thread is abandoned: a hook must answer before the agent's timeout).
pub fn within_deadline<T: Send + 'static>(
    deadline: Instant,
    f: impl FnOnce() -> T + Send + 'static,
) -> Option<T> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(deadline.saturating_duration_since(Instant::now()))
        .ok()
}

/// The model's choice among at most 200 candidates; `Err` carries the reason to fall back.
fn choose_by_model<D: DocFields>(
    ctx: &Context,
    req: &RecallRequest,
    docs: &[D],
    deadline: Instant,
) -> Result<Vec<(usize, u32)>, String> {
    let mut config = ModelConfig::from_settings(&ctx.settings, true)
        .ok_or_else(|| "no model configured (model.baseUrl and model.name)".to_string())?;
    let docs: Vec<ScannedDoc> = docs.iter().map(DocFields::to_doc).collect();
    let docs = &docs[..];
    let relevance = relevance::RelevanceQuery::new(&req.query);
    let upstream_query = LexicalQuery::new(&req.query);
    // Relevance hits first, then the upstream hits it left out, so the model sees at least
    // what upstream would show it.
    let mut hits: Vec<usize> = relevance.rank(docs).iter().map(|s| s.index).collect();
    for r in upstream_query.rank(docs, None) {
        if !hits.contains(&r.index) {
            hits.push(r.index);
        }
    }
    let mut recent: Vec<usize> = (0..docs.len()).collect();
    recent.sort_by(|a, b| docs[*b].mtime_ms.total_cmp(&docs[*a].mtime_ms));
    let candidates: Vec<usize> = select::preselect(docs, &hits, &recent)
        .into_iter()
        .filter(|i| !doc_has_secret(&docs[*i]))
        .collect();
    // The model sees only the candidates; they go to the helper thread as owned copies.
    let candidate_docs: Vec<ScannedDoc> = candidates.iter().map(|&i| docs[i].clone()).collect();
    let local: Vec<usize> = (0..candidate_docs.len()).collect();
    let left = deadline.saturating_duration_since(Instant::now());
    if left.is_zero() {
        return Err("model selection skipped: no time left in the budget".into());
    }
    config.timeout = config.timeout.min(left);
    let query = secrets::redact(&req.query);
    let limit = req.limit;
    let picked = within_deadline(deadline, move || {
        let client = ModelClient::new(config);
        select::select_by_model(&client, &query, &candidate_docs, &local, limit)
            .map_err(|e| e.to_string())
    })
    .ok_or_else(|| "model selection timed out (time budget)".to_string())?
    .map_err(|e| format!("model selection failed: {e}"))?;
    let relevance_scores: std::collections::HashMap<usize, u32> = relevance
        .rank(docs)
        .into_iter()
        .map(|s| (s.index, auto_points(s.score)))
        .collect();
    Ok(picked
        .into_iter()
        .map(|local| candidates[local])
        .map(|i| (i, relevance_scores.get(&i).copied().unwrap_or(0)))
        .collect())
}

/// The documents a request leaves out, resolved once (a hook's list grows with the session and
/// is checked against every document): relative paths, `scope:relative` ids, and file paths as
/// (root, relative path) — a file path names the document whose `path` equals it, i.e. its
/// root followed by the same components.
struct Excluded<'a> {
    relative: HashSet<&'a str>,
    scoped: HashMap<&'a str, HashSet<&'a str>>,
    /// Per root (as scanned), relative paths named by a file path.
    at: Vec<HashSet<String>>,
}

impl<'a> Excluded<'a> {
    fn new(exclude: &'a [String], roots: &[(Scope, &Path)]) -> Excluded<'a> {
        let mut out = Excluded {
            relative: HashSet::new(),
            scoped: HashMap::new(),
            at: vec![HashSet::new(); roots.len()],
        };
        for x in exclude {
            out.relative.insert(x);
            if let Some((scope, rest)) = x.split_once(':') {
                out.scoped.entry(scope).or_default().insert(rest);
            }
            for (i, (_, root)) in roots.iter().enumerate() {
                let Ok(rest) = Path::new(x).strip_prefix(root) else {
                    continue;
                };
                let names: Option<Vec<_>> = rest
                    .components()
                    .map(|c| match c {
                        Component::Normal(name) => Some(name.to_string_lossy()),
                        // A document's relative path holds only names.
                        _ => None,
                    })
                    .collect();
                if let Some(names) = names.filter(|n| !n.is_empty()) {
                    out.at[i].insert(names.join("/"));
                }
            }
        }
        out
    }

    fn contains(&self, d: &scan_cache::DocView) -> bool {
        self.relative.contains(d.relative_path)
            || self
                .scoped
                .get(d.scope.as_str())
                .is_some_and(|s| s.contains(d.relative_path))
            || self
                .at
                .get(d.root_index)
                .is_some_and(|s| s.contains(d.relative_path))
    }
}

fn emit(ctx: &Context, req: &RecallRequest, out: &RecallOutput, started: Instant) {
    Telemetry::new(ctx.state_dir()).record(&telemetry::RecallEvent {
        query_length: req.query.chars().count(),
        docs_scanned: out.docs_scanned,
        docs_selected: out.documents.len(),
        strategy: out.strategy,
        semantic: out.semantic,
        trigger: req.trigger.as_str(),
        duration_ms: started.elapsed().as_millis() as u64,
    });
}

#[cfg(test)]
mod excluded_tests {
    use super::*;
    use crate::storage::scan_cache::scan_roots_with_window;
    use std::fs;

    /// Resolving the exclusions once names exactly the documents the plain rule names: equal
    /// relative path, equal `scope:relative`, or a file path equal to the document's path.
    #[test]
    fn resolved_exclusions_match_the_plain_rule() {
        let tmp = tempfile::tempdir().unwrap();
        let private = tmp.path().join("private");
        let user = tmp.path().join("user");
        for (root, rel) in [
            (&private, "a.md"),
            (&private, "sub/b.md"),
            (&user, "a.md"),
            (&user, "c.md"),
        ] {
            let path = root.join(rel);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(
                &path,
                format!("---\nname: {rel}\ndescription: d\ntype: user\n---\nbody\n"),
            )
            .unwrap();
        }
        let roots = [
            (Scope::Private, private.as_path()),
            (Scope::User, user.as_path()),
        ];
        let loaded = scan_roots_with_window(&roots, &tmp.path().join("state"), 0);
        let docs = loaded.views();
        assert_eq!(docs.len(), 4);
        let p = |root: &Path, rest: &str| format!("{}{rest}", root.display());
        let cases: Vec<Vec<String>> = vec![
            vec!["a.md".into()],
            vec!["user:a.md".into(), "private:sub/b.md".into()],
            vec!["user:sub/b.md".into(), "team:c.md".into(), "c.md:x".into()],
            vec![p(&private, "/sub/b.md")],
            vec![p(&private, "//sub/./b.md")],
            vec![p(&user, "/a.md"), p(&user, "/../private/a.md")],
            vec![p(&private, ""), p(&private, "/sub"), "sub".into()],
            vec![p(&user, "/c.md/"), "/elsewhere/a.md".into()],
        ];
        for exclude in cases {
            let excluded = Excluded::new(&exclude, &roots);
            for d in &docs {
                let plain = exclude.iter().any(|x| {
                    x.as_str() == d.relative_path
                        || *x == format!("{}:{}", d.scope.as_str(), d.relative_path)
                        || Path::new(x) == d.path()
                });
                assert_eq!(
                    excluded.contains(d),
                    plain,
                    "{exclude:?} {}",
                    d.path().display()
                );
            }
        }
    }
}
