//! The one rebuild of the shared roots' generated `MEMORY.md` after Git changed their
//! documents (docs/DESIGN.md, "Git integration"): run by the post-merge, post-checkout,
//! post-rewrite and post-commit hooks and by `sync` after it pulled.
//!
//! It writes nothing but the index itself, and only when doing so cannot make the work tree
//! look different to Git: an index Git tracks is left as committed (unless it carries hidden
//! characters, i.e. it is forged), and an index that is neither there yet nor ignored is not
//! created (it would show up as an untracked file).

use std::path::PathBuf;

use super::repo::{HookTrees, OpenRepo};
use crate::storage::context::Context;
use crate::storage::project::Root;
use crate::storage::store;

/// What the rebuild did for one shared root's index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IndexRefresh {
    /// Rewritten from the documents.
    Rebuilt,
    /// Already what the documents give.
    Unchanged,
    /// Git tracks it: left as committed (an unmigrated history).
    Tracked,
    /// Missing and not ignored by Git: creating it would leave an untracked file.
    NotIgnored,
    /// The rebuild failed (the message).
    Failed(String),
}

/// Rebuilds the index of each shared root (the repository root in local mode, the team root)
/// that exists and whose documents the Git hook `hook` (its name and arguments) changed; every
/// one when `hook` is `None`. Returns what happened per index path; nothing for a directory
/// outside Git.
pub fn refresh_shared_indexes(
    ctx: &Context,
    hook: Option<(&str, &[String])>,
) -> Vec<(PathBuf, IndexRefresh)> {
    if shared_roots(ctx).is_empty() {
        return Vec::new();
    }
    match super::open_repo(ctx) {
        Ok(repo) => refresh_shared_indexes_in(ctx, &OpenRepo(repo), hook),
        Err(_) => Vec::new(),
    }
}

/// The shared roots whose index a Git change may have to rebuild: the repository root in local
/// mode and the team root, those that exist.
fn shared_roots(ctx: &Context) -> Vec<&Root> {
    let mut roots = Vec::new();
    if ctx.layout.local {
        roots.push(&ctx.layout.repository);
    }
    roots.push(&ctx.layout.team);
    roots.into_iter().filter(|r| r.path.is_dir()).collect()
}

/// [`refresh_shared_indexes`] in the repository `repo` the caller has open (the context's).
pub fn refresh_shared_indexes_in(
    ctx: &Context,
    repo: &OpenRepo,
    hook: Option<(&str, &[String])>,
) -> Vec<(PathBuf, IndexRefresh)> {
    let repo = &repo.0;
    let roots = shared_roots(ctx);
    if roots.is_empty() {
        return Vec::new();
    }
    let trees = hook.map(|(name, args)| HookTrees::of(repo, name, args));
    let mut git_index: Option<Option<git2::Index>> = None;
    let mut out = Vec::new();
    for root in roots {
        let Ok(prefix) = root.path.strip_prefix(&ctx.project.root) else {
            continue;
        };
        if trees.as_ref().is_some_and(|t| !t.changed(prefix)) {
            continue;
        }
        let index_path = prefix.join(store::INDEX_FILE);
        let on_disk = root.path.join(store::INDEX_FILE);
        let tracked = git_index
            .get_or_insert_with(|| repo.index().ok())
            .as_ref()
            .is_some_and(|i| i.get_path(&index_path, 0).is_some());
        // A tracked index is left as committed (rewriting it would dirty the work tree) —
        // unless it carries hidden characters: then it is forged, and the rebuilt one shows up
        // as a visible change instead (docs/DESIGN.md, "Security").
        let forged = || {
            std::fs::read_to_string(&on_disk)
                .is_ok_and(|t| crate::formats::sanitize::has_hidden(&t))
        };
        let outcome = if tracked && !forged() {
            IndexRefresh::Tracked
        } else if !tracked
            && std::fs::symlink_metadata(&on_disk).is_err()
            && !repo.is_path_ignored(&index_path).unwrap_or(false)
        {
            IndexRefresh::NotIgnored
        } else {
            match crate::storage::root_writer::rebuild_index(root) {
                Ok(true) => IndexRefresh::Rebuilt,
                Ok(false) => IndexRefresh::Unchanged,
                Err(e) => IndexRefresh::Failed(e.to_string()),
            }
        };
        out.push((on_disk, outcome));
    }
    out
}
