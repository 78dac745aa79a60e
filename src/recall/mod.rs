//! Recall: picks the memories relevant to a query (SPEC §6).
//!
//! The deterministic path is [`lexical`] (tokenizer, scoring, ranking) followed by [`prompt`]
//! (the "## Relevant memory" block). [`select`] layers the optional model choice on top.

pub mod lexical;
pub mod prompt;
pub mod select;

pub use lexical::{rank_lexical, rank_lexical_all, tokenize, LexicalQuery, Ranked};
pub use prompt::{
    age_days, memory_age, memory_freshness_note, memory_freshness_text, render_prompt,
};

/// Default number of documents recall returns (`recall.limit`).
pub const MAX_RELEVANT_DOCS: usize = 5;

/// Body window, in UTF-16 code units, used both for scoring and for the prompt block.
pub const MAX_DOC_BODY_CHARS: usize = 1200;

/// Most query tokens kept after deduplication (first half + rolling last half).
pub const MAX_QUERY_TOKENS: usize = 64;

/// The placeholder an entry-less body renders as; it counts as an empty body.
pub const NO_ENTRIES_PLACEHOLDER: &str = "_No entries yet._";

use std::time::Instant;

use serde::Serialize;

use crate::context::Context;
use crate::model::{ModelClient, ModelConfig};
use crate::scan::{self, ScannedDoc};
use crate::secrets::{self, Origin};
use crate::telemetry::{self, Telemetry};

/// How recall chooses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Strategy {
    Heuristic,
    Model,
}

impl Strategy {
    /// Parses `heuristic` / `model`.
    pub fn parse(s: &str) -> Option<Strategy> {
        match s {
            "heuristic" => Some(Strategy::Heuristic),
            "model" => Some(Strategy::Model),
            _ => None,
        }
    }
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
    /// What started the recall (`manual`, `hook`), for telemetry.
    pub trigger: &'static str,
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
    /// `none` (nothing to match), `heuristic` or `model`.
    pub strategy: &'static str,
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

/// Recalls the memories relevant to `req.query` from every readable root (SPEC §6). Documents
/// failing the secret scan are never returned. Emits the recall telemetry event.
pub fn run(ctx: &Context, req: &RecallRequest) -> RecallOutput {
    let started = Instant::now();
    let query = LexicalQuery::new(&req.query);
    let mut out = RecallOutput {
        strategy: "none",
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
    let (mut docs, errors) = scan::scan_roots(&ctx.layout.recall_roots());
    out.root_errors = errors.iter().map(|e| e.to_string()).collect();
    docs.retain(|d| !is_excluded(d, &req.exclude));
    out.docs_scanned = docs.len();

    let chosen: Vec<(usize, u32)> = match req.strategy {
        Strategy::Model => match choose_by_model(ctx, req, &query, &docs) {
            Ok(chosen) => {
                out.strategy = "model";
                chosen
            }
            Err(reason) => {
                out.fallback = Some(reason);
                heuristic(&query, &docs, req.limit)
            }
        },
        Strategy::Heuristic => heuristic(&query, &docs, req.limit),
    };
    if out.strategy == "none" && !query.is_empty() {
        out.strategy = "heuristic";
    }
    let mut chosen = chosen;
    let mut selected: Vec<&ScannedDoc> = chosen.iter().map(|(i, _)| &docs[*i]).collect();
    out.prompt = render_prompt(&selected, req.now_ms);
    if let Some(max) = req.max_prompt_chars {
        while out.prompt.chars().count() > max && selected.len() > 1 {
            selected.pop();
            chosen.pop();
            out.prompt = render_prompt(&selected, req.now_ms);
        }
        if out.prompt.chars().count() > max {
            out.prompt = out.prompt.chars().take(max).collect();
        }
    }
    out.documents = chosen
        .iter()
        .map(|(i, score)| {
            let d = &docs[*i];
            Recalled {
                scope: d.scope.as_str(),
                relative_path: d.relative_path.clone(),
                path: d.path.display().to_string(),
                title: d.title.clone(),
                memory_type: d.memory_type.as_str(),
                score: *score,
                mtime_ms: d.mtime_ms,
            }
        })
        .collect();
    emit(ctx, req, &out, started);
    out
}

/// The lexical choice: ranked hits, skipping documents that fail the secret scan, up to `limit`.
fn heuristic(query: &LexicalQuery, docs: &[ScannedDoc], limit: usize) -> Vec<(usize, u32)> {
    query
        .rank(docs, None)
        .into_iter()
        .filter(|r| !doc_has_secret(&docs[r.index]))
        .take(limit)
        .map(|r| (r.index, r.score))
        .collect()
}

/// Whether any part of a document that recall could print (path, name, description, other
/// frontmatter values, body) fails the scan. These are files on disk, so a reviewed
/// `qwen-memory:allow` line counts.
pub fn doc_has_secret(d: &ScannedDoc) -> bool {
    secrets::contains_secret_as(&document_text(d), Origin::Person)
}

/// The printable parts of a document, one per line (never joined into one line, so a marker
/// cannot reach a secret on another line).
pub fn document_text(d: &ScannedDoc) -> String {
    let mut text = format!("{}\n{}\n{}\n", d.relative_path, d.title, d.description);
    for (k, v) in &d.extra {
        text.push_str(k);
        text.push_str(": ");
        text.push_str(v);
        text.push('\n');
    }
    text.push_str(&d.body);
    text
}

/// The model's choice among at most 200 candidates; `Err` carries the reason to fall back.
fn choose_by_model(
    ctx: &Context,
    req: &RecallRequest,
    query: &LexicalQuery,
    docs: &[ScannedDoc],
) -> Result<Vec<(usize, u32)>, String> {
    let config = ModelConfig::from_settings(&ctx.settings)
        .ok_or_else(|| "no model configured (model.baseUrl and model.name)".to_string())?;
    let hits: Vec<usize> = query.rank(docs, None).iter().map(|r| r.index).collect();
    let mut recent: Vec<usize> = (0..docs.len()).collect();
    recent.sort_by(|a, b| docs[*b].mtime_ms.total_cmp(&docs[*a].mtime_ms));
    let candidates: Vec<usize> = select::preselect(docs, &hits, &recent)
        .into_iter()
        .filter(|i| !doc_has_secret(&docs[*i]))
        .collect();
    let client = ModelClient::new(config);
    let picked = select::select_by_model(
        &client,
        &secrets::redact(&req.query),
        docs,
        &candidates,
        req.limit,
    )
    .map_err(|e| format!("model selection failed: {e}"))?;
    Ok(picked
        .into_iter()
        .map(|i| (i, query.score(&docs[i])))
        .collect())
}

fn is_excluded(d: &ScannedDoc, exclude: &[String]) -> bool {
    exclude.iter().any(|x| {
        *x == d.relative_path
            || *x == format!("{}:{}", d.scope.as_str(), d.relative_path)
            || std::path::Path::new(x) == d.path
    })
}

fn emit(ctx: &Context, req: &RecallRequest, out: &RecallOutput, started: Instant) {
    let mut fields = serde_json::Map::new();
    fields.insert("query_length".into(), req.query.chars().count().into());
    fields.insert("docs_scanned".into(), out.docs_scanned.into());
    fields.insert("docs_selected".into(), out.documents.len().into());
    fields.insert("strategy".into(), out.strategy.into());
    fields.insert("trigger".into(), req.trigger.into());
    fields.insert(
        "duration_ms".into(),
        (started.elapsed().as_millis() as u64).into(),
    );
    Telemetry::new(ctx.state_dir()).emit(telemetry::EVENT_RECALL, fields);
}
