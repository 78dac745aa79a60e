//! Browsing memories: `list` and `show`. A stored secret is masked unless asked for with
//! `--reveal`; the CLI shows hidden characters escaped (`formats::sanitize`).

use std::path::PathBuf;

use serde::Serialize;

use crate::formats::doc::MemoryType;
use crate::formats::secrets::{self, Origin};
use crate::storage::context::Context;
use crate::storage::scan::{self, ScanError, ScannedDoc, Scope};
use crate::storage::scan_cache;

/// A listed document.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Listed {
    pub scope: &'static str,
    #[serde(rename = "type")]
    pub memory_type: &'static str,
    /// The id `forget` and `show` accept: the relative path inside its root.
    pub id: String,
    pub path: PathBuf,
    pub title: String,
    pub description: String,
    pub entries: usize,
    pub mtime_ms: f64,
    pub created: Option<String>,
    pub commit: Option<String>,
    /// A secret was masked in this listing (pass `--reveal` to see it).
    pub masked: bool,
}

/// `text` with every secret masked (`[REDACTED:<rule>]`) unless `reveal`; a reviewed
/// `qwen-memory:allow` line is shown as written. Untouched when nothing is found.
fn masked(text: &str, reveal: bool, hit: &mut bool) -> String {
    if reveal || !secrets::contains_secret_as(text, Origin::Person) {
        return text.to_string();
    }
    *hit = true;
    secrets::redact_as(text, Origin::Person)
}

/// `text` as every report shows a memory's content (`forget`'s list and diff, `dream`'s dry-run
/// diff): every secret masked, a reviewed `qwen-memory:allow` line as written (as `list` and
/// `show` without `--reveal`). The command a user runs to get rid of a leaked secret must not
/// print it to the terminal or a CI log.
pub fn masked_for_report(text: &str) -> String {
    let mut hit = false;
    masked(text, false, &mut hit)
}

impl Listed {
    fn from_doc(d: &ScannedDoc, reveal: bool) -> Listed {
        let mut hit = false;
        let mut listed = Listed::raw(d);
        listed.title = masked(&listed.title, reveal, &mut hit);
        listed.description = masked(&listed.description, reveal, &mut hit);
        listed.id = masked(&listed.id, reveal, &mut hit);
        listed.masked = hit;
        listed
    }

    fn raw(d: &ScannedDoc) -> Listed {
        let extra = |k: &str| {
            d.extra
                .iter()
                .find(|(key, _)| key == k)
                .map(|(_, v)| v.clone())
        };
        Listed {
            scope: d.scope.as_str(),
            memory_type: d.memory_type.as_str(),
            id: d.relative_path.clone(),
            path: d.path.clone(),
            title: d.title.clone(),
            description: d.description.clone(),
            entries: crate::storage::entries::keyed_entries(d).len(),
            mtime_ms: d.mtime_ms,
            created: extra("created"),
            commit: extra("commit"),
            masked: false,
        }
    }
}

/// Every document of every readable root, read through recall's parse cache (a long-running
/// tool server lists and shows on every call); when a root cannot be scanned, the plain scan
/// reports why.
pub fn scan_all(ctx: &Context) -> (Vec<ScannedDoc>, Vec<ScanError>) {
    let roots = ctx.layout.recall_roots();
    let loaded = scan_cache::scan_roots_cached(&roots, ctx.state_dir());
    if loaded.errors().is_empty() {
        (loaded.docs(), Vec::new())
    } else {
        scan::scan_roots(&roots)
    }
}

/// Every document of every readable root (the recall universe), filtered.
pub fn list(
    ctx: &Context,
    memory_type: Option<MemoryType>,
    scope: Option<Scope>,
    reveal: bool,
) -> (Vec<Listed>, Vec<ScanError>) {
    let (docs, errors) = scan_all(ctx);
    (list_of(&docs, memory_type, scope, reveal), errors)
}

/// [`list`] over documents already scanned (by [`scan_all`]).
pub fn list_of(
    docs: &[ScannedDoc],
    memory_type: Option<MemoryType>,
    scope: Option<Scope>,
    reveal: bool,
) -> Vec<Listed> {
    docs.iter()
        .filter(|d| memory_type.is_none_or(|t| d.memory_type == t))
        .filter(|d| scope.is_none_or(|s| d.scope == s))
        .map(|d| Listed::from_doc(d, reveal))
        .collect()
}

/// A shown document: its listing plus the file text and provenance age.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Shown {
    #[serde(flatten)]
    pub listed: Listed,
    pub content: String,
    /// Commits between the memory's `commit` and HEAD, when both are known.
    pub commits_behind_head: Option<usize>,
}

/// Failures of `show`.
#[derive(Debug, thiserror::Error)]
pub enum ShowError {
    #[error("no memory with id or path {0:?} (try `git qwen-memory list`)")]
    NotFound(String),
    #[error("{0:?} matches documents in several roots; pass the file path instead")]
    Ambiguous(String),
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// Finds a document by id (relative path, optionally `:<entry>`), `scope:id`, or file path.
/// A secret in it is masked unless `reveal` (docs/DESIGN.md, "Security").
pub fn show(ctx: &Context, wanted: &str, reveal: bool) -> Result<Shown, ShowError> {
    let (docs, _) = scan_all(ctx);
    show_of(ctx, &docs, wanted, reveal)
}

/// [`show`] among documents already scanned (by [`scan_all`]); the file itself is read now.
pub fn show_of(
    ctx: &Context,
    docs: &[ScannedDoc],
    wanted: &str,
    reveal: bool,
) -> Result<Shown, ShowError> {
    let id = strip_entry_suffix(wanted);
    let as_path = ctx.cwd.join(wanted);
    // Resolved once: an id that is no existing path costs no system call per document.
    let as_canonical = std::fs::canonicalize(&as_path).ok();
    let matches: Vec<&ScannedDoc> = docs
        .iter()
        .filter(|d| {
            d.relative_path == id
                || format!("{}:{}", d.scope.as_str(), d.relative_path) == id
                || d.path == as_path
                || as_canonical
                    .as_ref()
                    .is_some_and(|a| std::fs::canonicalize(&d.path).is_ok_and(|b| *a == b))
        })
        .collect();
    let doc = match matches.as_slice() {
        [] => return Err(ShowError::NotFound(wanted.to_string())),
        [one] => *one,
        [first, ..] => {
            // The writable root wins when an id exists in several roots.
            let writable = ctx.layout.writable().scope;
            match matches.iter().find(|d| d.scope == writable) {
                Some(d) => *d,
                None if matches.iter().all(|d| d.scope == first.scope) => *first,
                None => return Err(ShowError::Ambiguous(wanted.to_string())),
            }
        }
    };
    // The document may have been swapped for a symlink or a FIFO since the scan.
    let bytes = crate::storage::safe_fs::read_regular(&doc.path)
        .map_err(std::io::Error::other)?
        .ok_or_else(|| ShowError::NotFound(wanted.to_string()))?;
    let mut listed = Listed::from_doc(doc, reveal);
    let content = masked(&String::from_utf8_lossy(&bytes), reveal, &mut listed.masked);
    let commits_behind_head = listed
        .commit
        .as_deref()
        .and_then(|c| crate::integrations::git::repo::commits_behind_head(ctx, c));
    Ok(Shown {
        listed,
        content,
        commits_behind_head,
    })
}

/// `path:3` → `path`; a plain path is returned as is.
fn strip_entry_suffix(id: &str) -> &str {
    match id.rsplit_once(':') {
        Some((path, n)) if path.ends_with(".md") && n.parse::<usize>().is_ok() => path,
        _ => id,
    }
}
