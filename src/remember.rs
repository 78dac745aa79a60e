//! Writing entries into a root: the one write path shared by `remember` and extract (SPEC §8.2
//! step 6). An entry merges into an existing document of its type whose first entry has the same
//! summary (existing why/how are never overwritten); otherwise it becomes a new
//! `<type>/<slug>.md` with provenance keys.

use serde::Serialize;

use crate::context::Context;
use crate::doc::{self, Entry, MemoryType};
use crate::extract::filter;
use crate::project::Root;
use crate::root::{self, RootError, RootWriter};
use crate::scan::Scope;
use crate::secrets;
use crate::store::{self, StoreError};

/// An entry to write.
#[derive(Debug, Clone, PartialEq)]
pub struct NewEntry {
    pub memory_type: MemoryType,
    pub entry: Entry,
}

/// Where a new memory came from; written as frontmatter keys `created`, `session`, `commit`.
#[derive(Debug, Clone, Default)]
pub struct Provenance {
    pub created: String,
    pub session: Option<String>,
    pub commit: Option<String>,
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
}

/// Failures writing entries.
#[derive(Debug, thiserror::Error)]
pub enum RememberError {
    #[error("refusing to save: the text looks like a secret ({})", rule_ids.join(", "))]
    Secret { rule_ids: Vec<String> },
    #[error("nothing to remember: the text is empty")]
    Empty,
    #[error(transparent)]
    Root(#[from] RootError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// The rule ids the secret scanner finds in an entry, if any.
pub fn secret_rules(entry: &Entry) -> Vec<String> {
    let mut ids: Vec<String> = [
        Some(&entry.summary),
        entry.why.as_ref(),
        entry.how_to_apply.as_ref(),
    ]
    .into_iter()
    .flatten()
    .flat_map(|t| secrets::scan(t))
    .map(|f| f.rule_id.to_string())
    .collect();
    ids.sort();
    ids.dedup();
    ids
}

/// Applies entries to the root `w` holds. The caller has filtered secrets out. The index is
/// rebuilt when anything changed.
pub fn apply_locked(
    w: &RootWriter,
    entries: &[NewEntry],
    provenance: &Provenance,
) -> Result<Vec<Change>, RememberError> {
    let root = w.root();
    store::check_root(&root.path)?;
    let mut existing = root::scan_strict(root)?.docs;
    // (type, first-entry key, relative path) of every document, including ones created now.
    let mut known: Vec<(MemoryType, String, String)> = existing
        .iter()
        .filter_map(|d| {
            let first = doc::parse_entries(&d.body).into_iter().next()?;
            Some((
                d.memory_type,
                doc::entry_key(&first.summary),
                d.relative_path.clone(),
            ))
        })
        .collect();
    let mut changes = Vec::new();
    for new in entries {
        let key = doc::entry_key(&new.entry.summary);
        let target = known
            .iter()
            .find(|(t, k, _)| *t == new.memory_type && *k == key)
            .map(|(_, _, p)| p.clone());
        let change = match target {
            Some(relative) => merge_into(w, &relative, new)?,
            None => {
                let relative = create(w, new, provenance)?;
                known.push((new.memory_type, key, relative.clone()));
                Change {
                    kind: ChangeKind::Created,
                    relative_path: relative,
                    memory_type: new.memory_type.to_string(),
                }
            }
        };
        changes.push(change);
    }
    if changes.iter().any(|c| c.kind != ChangeKind::Unchanged) {
        // Index from the scan above plus the files just written, instead of scanning again.
        for change in changes.iter().filter(|c| c.kind != ChangeKind::Unchanged) {
            existing.retain(|d| d.relative_path != change.relative_path);
            if let Some(doc) = root::reread(root, &change.relative_path) {
                existing.push(doc);
            }
        }
        w.write_index(&existing)?;
    }
    Ok(changes)
}

fn merge_into(w: &RootWriter, relative: &str, new: &NewEntry) -> Result<Change, RememberError> {
    let bytes = w
        .read_doc(relative)?
        .ok_or_else(|| std::io::Error::from(std::io::ErrorKind::NotFound))?;
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let unchanged = Change {
        kind: ChangeKind::Unchanged,
        relative_path: relative.to_string(),
        memory_type: new.memory_type.to_string(),
    };
    let Ok(parsed) = doc::parse_document(&text) else {
        return Ok(unchanged);
    };
    let mut entries = doc::parse_entries(&parsed.body);
    let Some(first) = entries.first_mut() else {
        return Ok(unchanged);
    };
    // Existing why/how win; only missing fields are filled in.
    let merged = doc::merge_entry(first, &new.entry);
    let merged = Entry {
        summary: first.summary.clone(),
        ..merged
    };
    if merged == *first {
        return Ok(unchanged);
    }
    *first = merged;
    w.write_doc(
        relative,
        doc::render_document(&parsed.frontmatter, &entries).as_bytes(),
    )?;
    Ok(Change {
        kind: ChangeKind::Merged,
        ..unchanged
    })
}

fn create(
    w: &RootWriter,
    new: &NewEntry,
    provenance: &Provenance,
) -> Result<String, RememberError> {
    let root = w.root();
    let dir = new.memory_type.as_str();
    let title = filter::title_for(&new.entry.summary);
    let base = filter::slugify(&title);
    let slug = filter::unique_slug(&base, |candidate| {
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
    let summary = crate::text::collapse_whitespace(&new.entry.summary);
    let text = doc::new_document(
        new.memory_type,
        &title,
        &summary,
        &extra,
        std::slice::from_ref(&new.entry),
    );
    w.write_doc(&relative, text.as_bytes())?;
    Ok(relative)
}

/// A `remember` request.
#[derive(Debug, Clone)]
pub struct RememberRequest {
    pub text: String,
    pub memory_type: Option<MemoryType>,
    pub scope: Scope,
    pub why: Option<String>,
    pub how_to_apply: Option<String>,
}

/// The result of `remember`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RememberOutcome {
    pub scope: String,
    pub root: String,
    pub change: Change,
}

/// Writes one entry now (explicit "remember this"), through the same path extract uses.
pub fn remember(ctx: &Context, req: &RememberRequest) -> Result<RememberOutcome, RememberError> {
    let summary = crate::text::collapse_whitespace(&req.text);
    if summary.is_empty() {
        return Err(RememberError::Empty);
    }
    let clean = |v: &Option<String>| {
        v.as_deref()
            .map(crate::text::collapse_whitespace)
            .filter(|s| !s.is_empty())
    };
    // A reason given in the same sentence ("…; CI rejects unformatted code", "…，因为…") becomes
    // `Why:` unless one was given explicitly.
    let (summary, why) = match clean(&req.why) {
        Some(w) => (summary, Some(w)),
        None => crate::extract::heuristic::split_reason(&summary),
    };
    let entry = Entry {
        summary,
        why,
        how_to_apply: clean(&req.how_to_apply),
    };
    let rules = secret_rules(&entry);
    if !rules.is_empty() {
        return Err(RememberError::Secret { rule_ids: rules });
    }
    let memory_type = req.memory_type.unwrap_or(match req.scope {
        Scope::User => MemoryType::User,
        _ => guess_type(&entry.summary),
    });
    let root = root_for_entry(ctx, req.scope, memory_type);
    let provenance = Provenance {
        created: store::now_iso(),
        session: None,
        commit: ctx.head_commit(),
    };
    let new = NewEntry { memory_type, entry };
    let change = {
        let w = RootWriter::lock(root)?;
        if !matches!(root.scope, Scope::User | Scope::Team) {
            w.ensure_scaffold()?;
        }
        let mut changes = apply_locked(&w, std::slice::from_ref(&new), &provenance)?;
        if !matches!(root.scope, Scope::User | Scope::Team) {
            let mut meta = store::read_meta(&root.state_dir);
            meta.set("updatedAt", store::now_iso());
            w.write_meta(&meta)?;
        }
        changes.pop().ok_or(RememberError::Empty)?
    };
    let status = format!("{:?}", change.kind).to_lowercase();
    crate::telemetry::Telemetry::new(ctx.state_dir()).record(&crate::telemetry::RememberEvent {
        status: &status,
        scope: root.scope.as_str(),
    });
    Ok(RememberOutcome {
        scope: root.scope.as_str().to_string(),
        root: root.path.display().to_string(),
        change,
    })
}

/// Where an entry of `memory_type` asked for in `scope` is written. Facts about the person
/// (`user`) always go to the user root: they are personal and a repository or team root is
/// committed and shared (docs/DESIGN.md, "Roots and paths").
pub fn root_for_entry(ctx: &Context, scope: Scope, memory_type: MemoryType) -> &Root {
    if memory_type == MemoryType::User {
        return &ctx.layout.user;
    }
    match scope {
        Scope::User => &ctx.layout.user,
        Scope::Team => &ctx.layout.team,
        Scope::Repository | Scope::Private => ctx.layout.writable(),
    }
}

/// The type the offline heuristic would give the text, else `project`.
fn guess_type(text: &str) -> MemoryType {
    let input = [crate::extract::UserText {
        offset: 0,
        text: &format!("Remember that {text}"),
    }];
    crate::extract::heuristic::plan_heuristic(&input)
        .first()
        .map(|p| p.topic)
        .unwrap_or(MemoryType::Project)
}
