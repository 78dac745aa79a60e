//! Writing entries into a root, shared by `remember` and extract (docs/DESIGN.md, "Extract"). An entry merges into an existing document of its type whose first entry has the same
//! summary (existing why/how are never overwritten); otherwise it becomes a new
//! `<type>/<slug>.md` with provenance keys.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

use serde::Serialize;

use crate::formats::doc::{self, Entry, MemoryType};
use crate::formats::secrets::{self, Origin, SecretError};
use crate::root_writer::{self, RootError, RootWriter};
use crate::scan::{self, ScannedDoc};
use crate::store::{self, StoreError};

/// One entry of a document with its merge key ([`doc::entry_key`]).
#[derive(Debug, Clone, PartialEq)]
pub struct KeyedEntry {
    pub entry: Entry,
    pub key: String,
}

/// Per document path, the body last parsed and its entries.
type KeyedMemo = Mutex<HashMap<PathBuf, (String, Arc<[KeyedEntry]>)>>;

static KEYED: OnceLock<KeyedMemo> = OnceLock::new();

/// Most documents [`keyed_entries`] keeps; past that it starts again (a memo, not a store).
const KEYED_MAX: usize = 50_000;

/// The entries of `d` ([`doc::parse_entries`]) with their keys: a pure function of the body.
/// A long-lived process ([`scan::keep_parsed_in_process`]) keeps the result per file and
/// reuses it while the body is byte for byte the same, so a `remember` or `forget` through the
/// tool server does not parse and normalize (NFKC) every entry of every document on each call
/// (docs/DESIGN.md, "Agent integration").
pub fn keyed_entries(d: &ScannedDoc) -> Arc<[KeyedEntry]> {
    let parse = || -> Arc<[KeyedEntry]> {
        doc::parse_entries(&d.body)
            .into_iter()
            .map(|entry| KeyedEntry {
                key: doc::entry_key(&entry.summary),
                entry,
            })
            .collect()
    };
    if !scan::parsed_in_process() {
        return parse();
    }
    let memo = KEYED.get_or_init(KeyedMemo::default);
    if let Some((body, entries)) = memo.lock().unwrap_or_else(|p| p.into_inner()).get(&d.path) {
        if *body == d.body {
            return entries.clone();
        }
    }
    let entries = parse();
    let mut kept = memo.lock().unwrap_or_else(|p| p.into_inner());
    if kept.len() >= KEYED_MAX {
        kept.clear();
    }
    kept.insert(d.path.clone(), (d.body.clone(), entries.clone()));
    entries
}

/// An entry to write.
#[derive(Debug, Clone, PartialEq)]
pub struct NewEntry {
    pub memory_type: MemoryType,
    /// The `name` a new document gets (the caller's title rule: docs/DESIGN.md, "Topic
    /// documents").
    pub title: String,
    /// The file name a new document gets, before numbering on collision.
    pub slug: String,
    pub entry: Entry,
}

/// Where a new memory came from; written as frontmatter keys `created`, `session`, `commit`,
/// and for a write through a tool server `source` (`mcp`) and `client` (the client's name and
/// version from its `initialize`).
#[derive(Debug, Clone, Default)]
pub struct Provenance {
    pub created: String,
    pub session: Option<String>,
    pub commit: Option<String>,
    pub source: Option<String>,
    pub client: Option<String>,
}

/// What happened to one entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ChangeKind {
    Created,
    Merged,
    Unchanged,
}

/// One applied entry.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Change {
    pub kind: ChangeKind,
    pub relative_path: String,
    #[serde(rename = "type")]
    pub memory_type: String,
    /// Fields (`why`, `how`) that were missing on the existing entry and were filled in.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub filled: Vec<&'static str>,
    /// Fields given that differ from what the existing entry already says; the existing text
    /// was kept.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub kept: Vec<&'static str>,
}

/// Failures writing entries.
#[derive(Debug, thiserror::Error)]
pub enum EntryWriteError {
    #[error("refusing to save: the text looks like a secret ({})", rule_ids.join(", "))]
    Secret { rule_ids: Vec<String> },
    #[error("nothing to remember: the text is empty")]
    Empty,
    /// The document would be larger than a memory file may be: every reader skips such a
    /// file, so saving it would report a memory nothing can recall.
    #[error(
        "refusing to save: {path} would be {bytes} bytes, over the {} bytes a memory file may hold (larger ones are skipped when memory is read); shorten the text",
        crate::scan::MAX_FILE_BYTES
    )]
    TooLarge { path: String, bytes: usize },
    #[error(transparent)]
    Root(#[from] RootError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

impl From<SecretError> for EntryWriteError {
    fn from(e: SecretError) -> Self {
        EntryWriteError::Secret {
            rule_ids: e.rule_ids,
        }
    }
}

/// The rule ids the secret scanner finds in an entry, if any. The allow marker counts only for
/// [`Origin::Person`] (text typed for `remember`); extract passes [`Origin::Machine`].
pub fn secret_rules(entry: &Entry, origin: Origin) -> Vec<String> {
    secrets::rule_ids_in(
        [
            Some(&entry.summary),
            entry.why.as_ref(),
            entry.how_to_apply.as_ref(),
        ]
        .into_iter()
        .flatten()
        .map(String::as_str),
        origin,
    )
}

/// The entry in the form the scanner sees and the store writes (see [`secrets::normalize`]).
pub fn normalize_entry(entry: &Entry) -> Entry {
    let n = |s: &str| secrets::normalize(s).into_owned();
    Entry {
        summary: n(&entry.summary),
        why: entry.why.as_deref().map(n),
        how_to_apply: entry.how_to_apply.as_deref().map(n),
    }
}

/// What [`apply_locked`] did.
#[derive(Debug, Clone, PartialEq)]
pub struct Applied {
    /// One change per entry asked for, every one on disk.
    pub changes: Vec<Change>,
    /// Why MEMORY.md could not be rewritten after them, when it could not. The documents stay
    /// written (recall reads them; `index` or the next write rebuilds the index): a caller
    /// reports it beside what was saved instead of failing as if nothing had been.
    pub index_error: Option<String>,
}

/// Applies entries to the root `w` holds. The caller has filtered secrets out of the entries;
/// every document written is scanned again as a whole (with its file name) and written in its
/// normalized form, so a secret the entries alone did not show still refuses the write. The
/// index is rebuilt when anything changed.
pub fn apply_locked(
    w: &RootWriter,
    entries: &[NewEntry],
    provenance: &Provenance,
    origin: Origin,
) -> Result<Applied, EntryWriteError> {
    let root = w.root();
    store::check_root(&root.path)?;
    let mut existing = root_writer::scan_strict(root)?.docs;
    // (type, first-entry key, relative path) of every document, including ones created now,
    // and the keys of all their entries: a fact already kept (in any entry of any type, up to
    // case, width, spacing and final punctuation) is merged into, never written twice.
    let mut known: Vec<(MemoryType, String, String)> = Vec::new();
    let mut all_keys: Vec<(MemoryType, String, String)> = Vec::new();
    for d in &existing {
        for (i, e) in keyed_entries(d).iter().enumerate() {
            if i == 0 {
                known.push((d.memory_type, e.key.clone(), d.relative_path.clone()));
            }
            all_keys.push((d.memory_type, e.key.clone(), d.relative_path.clone()));
        }
    }
    let mut changes = Vec::new();
    let mut index_error = None;
    for new in entries {
        let key = doc::entry_key(&new.entry.summary);
        let target = known
            .iter()
            .find(|(t, k, _)| *t == new.memory_type && *k == key)
            .or_else(|| {
                all_keys
                    .iter()
                    .find(|(t, k, _)| *t == new.memory_type && *k == key)
            })
            .or_else(|| all_keys.iter().find(|(_, k, _)| *k == key))
            .map(|(_, _, p)| p.clone());
        let change = match target {
            Some(relative) => merge_into(w, &relative, new, origin)?,
            None => {
                let relative = create(w, new, provenance, origin)?;
                known.push((new.memory_type, key, relative.clone()));
                Change {
                    kind: ChangeKind::Created,
                    relative_path: relative,
                    memory_type: new.memory_type.to_string(),
                    filled: Vec::new(),
                    kept: Vec::new(),
                }
            }
        };
        changes.push(change);
    }
    if changes.iter().any(|c| c.kind != ChangeKind::Unchanged) {
        // Index from the scan above plus the files just written, instead of scanning again.
        for change in changes.iter().filter(|c| c.kind != ChangeKind::Unchanged) {
            existing.retain(|d| d.relative_path != change.relative_path);
            if let Some(doc) = root_writer::reread(root, &change.relative_path) {
                existing.push(doc);
            }
        }
        index_error = w.write_index(&existing).err().map(|e| e.to_string());
    }
    Ok(Applied {
        changes,
        index_error,
    })
}

/// Refuses a document every reader would skip ([`crate::scan::MAX_FILE_BYTES`]).
fn check_size(relative: &str, text: &str) -> Result<(), EntryWriteError> {
    if text.len() as u64 > crate::scan::MAX_FILE_BYTES {
        return Err(EntryWriteError::TooLarge {
            path: relative.to_string(),
            bytes: text.len(),
        });
    }
    Ok(())
}

fn merge_into(
    w: &RootWriter,
    relative: &str,
    new: &NewEntry,
    origin: Origin,
) -> Result<Change, EntryWriteError> {
    let bytes = w
        .read_doc(relative)?
        .ok_or_else(|| std::io::Error::from(std::io::ErrorKind::NotFound))?;
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let mut unchanged = Change {
        kind: ChangeKind::Unchanged,
        relative_path: relative.to_string(),
        memory_type: new.memory_type.to_string(),
        filled: Vec::new(),
        kept: Vec::new(),
    };
    let Ok(parsed) = doc::parse_document(&text) else {
        return Ok(unchanged);
    };
    let mut entries = doc::parse_entries(&parsed.body);
    let key = doc::entry_key(&new.entry.summary);
    let structured = doc::is_structured(&parsed.body);
    // In a document with structure a person wrote, the entry is edited in place, line by line:
    // only a real entry line (never one in a code block, a heading or a table that reads the
    // same) and only its `Why:` / `How to apply:` lines.
    let editable: Vec<bool> = if structured {
        doc::entry_lines(&text)
            .into_iter()
            .map(|(_, e)| e)
            .collect()
    } else {
        vec![true; entries.len()]
    };
    let matching = |i: &usize| doc::entry_key(&entries[*i].summary) == key;
    let at = (0..entries.len())
        .filter(matching)
        .find(|&i| editable.get(i).copied().unwrap_or(false))
        .or_else(|| (0..entries.len()).find(matching))
        .unwrap_or(0);
    let in_place = !structured || editable.get(at).copied().unwrap_or(false);
    let Some(first) = entries.get_mut(at) else {
        return Ok(unchanged);
    };
    // Missing fields are filled in; a different reason is joined to the existing one (never
    // dropped). Where no entry line can be edited, the existing text is kept and the caller
    // told so.
    let present = |v: &Option<String>| v.as_deref().is_some_and(|t| !t.is_empty());
    for (name, old, given) in [
        ("why", &first.why, &new.entry.why),
        ("how", &first.how_to_apply, &new.entry.how_to_apply),
    ] {
        match (present(old), present(given)) {
            (false, true) | (true, true)
                if in_place && doc::join_reasons(old.as_deref(), given.as_deref()) != *old =>
            {
                unchanged.filled.push(name)
            }
            (_, true) if old != given => unchanged.kept.push(name),
            _ => {}
        }
    }
    if !in_place {
        return Ok(unchanged);
    }
    if structured {
        let why = doc::join_reasons(first.why.as_deref(), new.entry.why.as_deref());
        let how = doc::join_reasons(
            first.how_to_apply.as_deref(),
            new.entry.how_to_apply.as_deref(),
        );
        if why == first.why && how == first.how_to_apply {
            return Ok(unchanged);
        }
        let changed = |now: &Option<String>, was: &Option<String>| {
            (now != was).then(|| now.clone()).flatten()
        };
        let Some(edited) = doc::set_entry_fields_at(
            &text,
            at,
            changed(&why, &first.why).as_deref(),
            changed(&how, &first.how_to_apply).as_deref(),
        ) else {
            return Ok(unchanged);
        };
        let checked = secrets::prepare_document(relative, &edited, origin, Some(&text))?;
        check_size(relative, &checked)?;
        w.rewrite_doc(relative, checked.as_bytes())?;
        return Ok(Change {
            kind: ChangeKind::Merged,
            ..unchanged
        });
    }
    let merged = Entry {
        summary: first.summary.clone(),
        why: doc::join_reasons(first.why.as_deref(), new.entry.why.as_deref()),
        how_to_apply: doc::join_reasons(
            first.how_to_apply.as_deref(),
            new.entry.how_to_apply.as_deref(),
        ),
    };
    if merged == *first {
        return Ok(unchanged);
    }
    *first = merged;
    let rendered = doc::render_document(&parsed.frontmatter, &entries);
    let checked = secrets::prepare_document(relative, &rendered, origin, Some(&text))?;
    check_size(relative, &checked)?;
    w.rewrite_doc(relative, checked.as_bytes())?;
    Ok(Change {
        kind: ChangeKind::Merged,
        ..unchanged
    })
}

fn create(
    w: &RootWriter,
    new: &NewEntry,
    provenance: &Provenance,
    origin: Origin,
) -> Result<String, EntryWriteError> {
    let root = w.root();
    let dir = new.memory_type.as_str();
    let title = new.title.clone();
    let slug = unique_slug(&new.slug, |candidate| {
        std::fs::symlink_metadata(root.path.join(dir).join(format!("{candidate}.md"))).is_ok()
    });
    let relative = format!("{dir}/{slug}.md");
    let mut extra: Vec<(&str, &str)> = vec![("created", provenance.created.as_str())];
    if let Some(s) = &provenance.session {
        extra.push(("session", s));
    }
    if let Some(c) = &provenance.commit {
        extra.push(("commit", c));
    }
    if let Some(s) = &provenance.source {
        extra.push(("source", s));
    }
    if let Some(c) = &provenance.client {
        extra.push(("client", c));
    }
    let summary = crate::formats::text::collapse_whitespace(&new.entry.summary);
    let text = doc::new_document(
        new.memory_type,
        &title,
        &summary,
        &extra,
        std::slice::from_ref(&new.entry),
    );
    let checked = secrets::prepare_document(&relative, &text, origin, None)?;
    check_size(&relative, &checked)?;
    w.write_doc(&relative, checked.as_bytes())?;
    Ok(relative)
}

/// Numbered suffixes tried before a timestamp.
const MAX_NUMBERED_SUFFIX: u32 = 100;

/// `base` if free, else the first free `base-2` … `base-100`, then `base-<unix millis>`, as
/// upstream; past that (a pathological `exists`) numbering continues from 101.
pub fn unique_slug(base: &str, exists: impl Fn(&str) -> bool) -> String {
    if !exists(base) {
        return base.to_string();
    }
    for n in 2..=MAX_NUMBERED_SUFFIX {
        let candidate = format!("{base}-{n}");
        if !exists(&candidate) {
            return candidate;
        }
    }
    let millis = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or(0);
    let stamped = format!("{base}-{millis}");
    if !exists(&stamped) {
        return stamped;
    }
    let mut n = u64::from(MAX_NUMBERED_SUFFIX) + 1;
    loop {
        let candidate = format!("{base}-{n}");
        if !exists(&candidate) {
            return candidate;
        }
        n += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::unique_slug;

    #[test]
    fn unique_slug_numbers_collisions() {
        assert_eq!(unique_slug("use-pnpm", |_| false), "use-pnpm");
        let taken = ["use-pnpm", "use-pnpm-2"];
        assert_eq!(
            unique_slug("use-pnpm", |s| taken.contains(&s)),
            "use-pnpm-3"
        );
        // After -100 comes a millisecond timestamp, as upstream.
        let s = unique_slug("x", |s| {
            s == "x"
                || s.strip_prefix("x-")
                    .and_then(|n| n.parse::<u32>().ok())
                    .is_some_and(|n| n <= 100)
        });
        let stamp: u128 = s.strip_prefix("x-").unwrap().parse().unwrap();
        assert!(stamp > 1_600_000_000_000);
    }
}
