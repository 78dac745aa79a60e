//! `remember`: write one entry now, as a person asks (docs/DESIGN.md, "Topic documents").

use serde::Serialize;

use crate::formats::doc::{Entry, MemoryType};
use crate::formats::secrets::{self, Origin};
use crate::integrations::git::commit::{auto_commit_report, AutoCommit};
use crate::ops::extract::filter;
use crate::storage::context::Context;
pub use crate::storage::entries::{
    apply_locked, normalize_entry, secret_rules, Applied, Change, ChangeKind, EntryWriteError,
    NewEntry, Provenance,
};
use crate::storage::project::Root;
use crate::storage::root_writer::RootWriter;
use crate::storage::scan::Scope;
use crate::storage::store;

/// A `remember` request.
#[derive(Debug, Clone)]
pub struct RememberRequest {
    pub text: String,
    pub memory_type: Option<MemoryType>,
    pub scope: Scope,
    pub why: Option<String>,
    pub how_to_apply: Option<String>,
    /// Who asks, when not a person at the command line: a tool server's client.
    pub via: Option<Via>,
}

/// The program a `remember` came through, recorded as provenance of a new document.
#[derive(Debug, Clone, Default)]
pub struct Via {
    /// `mcp` for the tool server.
    pub source: String,
    /// The client's name and version (`qwen-code 0.24.4`), when it said.
    pub client: Option<String>,
    /// The agent session, when the client said.
    pub session: Option<String>,
}

/// The result of `remember`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RememberOutcome {
    pub scope: String,
    pub root: String,
    pub change: Change,
    /// Why MEMORY.md could not be rewritten after the change, when it could not: the document
    /// is saved all the same (`index` rebuilds the index).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index_error: Option<String>,
    /// The auto-commit that followed a change (local mode with `autoCommit` on).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub auto_commit: Option<AutoCommit>,
}

/// Writes one entry now (explicit "remember this"), through the same path extract uses.
pub fn remember(ctx: &Context, req: &RememberRequest) -> Result<RememberOutcome, EntryWriteError> {
    // Normalized first: the scanned form is the written form.
    let summary = crate::formats::text::collapse_whitespace(&secrets::normalize(&req.text));
    if summary.is_empty() {
        return Err(EntryWriteError::Empty);
    }
    let clean = |v: &Option<String>| {
        v.as_deref()
            .map(|s| crate::formats::text::collapse_whitespace(&secrets::normalize(s)))
            .filter(|s| !s.is_empty())
    };
    // A reason given in the same sentence ("…; CI rejects unformatted code", "…，因为…") becomes
    // `Why:` unless one was given explicitly.
    let (summary, why) = match clean(&req.why) {
        Some(w) => (summary, Some(w)),
        None => crate::ops::extract::heuristic::split_reason(&summary),
    };
    let entry = Entry {
        summary,
        why,
        how_to_apply: clean(&req.how_to_apply),
    };
    // The text a person typed: a reviewed `qwen-memory:allow` in it is honoured. Through a tool
    // server (`via`: MCP) the text is the agent model's: the marker is ignored, as in extract,
    // or a prompt-injected agent could store any credential by adding it.
    let origin = if req.via.is_some() {
        Origin::Machine
    } else {
        Origin::Person
    };
    let rules = secret_rules(&entry, origin);
    if !rules.is_empty() {
        return Err(EntryWriteError::Secret { rule_ids: rules });
    }
    let memory_type = req.memory_type.unwrap_or(match req.scope {
        Scope::User => MemoryType::User,
        _ => crate::ops::extract::guess_type(&entry.summary),
    });
    let root = root_for_entry(ctx, req.scope, memory_type);
    let via = req.via.as_ref();
    let provenance = Provenance {
        created: store::now_iso(),
        session: via.and_then(|v| v.session.clone()),
        commit: crate::integrations::git::repo::head_commit(ctx),
        source: via.map(|v| v.source.clone()),
        client: via.and_then(|v| v.client.clone()),
    };
    let title = filter::title_for(&entry.summary);
    let new = NewEntry {
        memory_type,
        slug: filter::slugify(&title),
        title,
        entry,
    };
    let (change, index_error) = {
        let w = RootWriter::lock(root)?;
        if !matches!(root.scope, Scope::User | Scope::Team) {
            w.ensure_scaffold()?;
        }
        let Applied {
            mut changes,
            index_error,
        } = apply_locked(&w, std::slice::from_ref(&new), &provenance, origin)?;
        // A fact already known changes nothing, not even `updatedAt` (and costs no fsync).
        let changed = changes.iter().any(|c| c.kind != ChangeKind::Unchanged);
        if changed && !matches!(root.scope, Scope::User | Scope::Team) {
            let mut meta = store::read_meta(&root.state_dir);
            meta.set("updatedAt", store::now_iso());
            w.write_meta(&meta)?;
        }
        (changes.pop().ok_or(EntryWriteError::Empty)?, index_error)
    };
    crate::integrations::telemetry::Telemetry::new(ctx.state_dir()).record(
        &crate::integrations::telemetry::RememberEvent {
            status: change.kind.clone(),
            scope: root.scope.as_str(),
        },
    );
    let auto_commit = if change.kind == ChangeKind::Unchanged {
        None
    } else {
        auto_commit_report(ctx)
    };
    Ok(RememberOutcome {
        scope: root.scope.as_str().to_string(),
        root: root.path.display().to_string(),
        change,
        index_error,
        auto_commit,
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
