//! Repository reads the operations need (HEAD, ahead/behind, the status and staged content of
//! the memory directories, which memory subtrees a hook's commits changed), so that git2 is
//! used from `integrations::git` only (docs/development.md, "Who owns which I/O").

use std::path::{Path, PathBuf};

use super::{open_repo, provenance, GitError};
use crate::storage::context::{Context, ContextError};
use crate::storage::project::DiscoveredRepo;
use crate::storage::settings::{self, Flags};

/// The repository Git finds from `cwd` (searching upwards, as `git` does), as plain data.
pub fn discover(cwd: &Path) -> Option<DiscoveredRepo> {
    git2::Repository::discover(cwd).ok().map(|r| describe(&r))
}

fn describe(repo: &git2::Repository) -> DiscoveredRepo {
    DiscoveredRepo {
        git_dir: repo.path().to_path_buf(),
        common_dir: repo.commondir().to_path_buf(),
        workdir: repo.workdir().map(Path::to_path_buf),
        bare: repo.is_bare(),
    }
}

/// The repository of a context, opened once and handed down to what needs it: a Git hook opens
/// it once for its whole run (each libgit2 open reads Git's configuration files again).
pub struct OpenRepo(pub(crate) git2::Repository);

impl OpenRepo {
    /// The current HEAD commit id, if any.
    pub fn head_commit(&self) -> Option<String> {
        self.0.head().ok()?.target().map(|oid| oid.to_string())
    }
}

/// Opens the context for `cwd`: the repository Git finds there and Git's configuration as Git
/// reads it, with command-line setting overrides as (key, value). An invalid setting value is
/// an error.
pub fn open_context(cwd: &Path, flags: &Flags) -> Result<Context, ContextError> {
    open_context_and_repo(cwd, flags, false).map(|(ctx, _)| ctx)
}

/// [`open_context`] even when a setting value is invalid: the key falls back to its default and
/// the problem is listed by `settings.problems()` (for `status` and `check`).
pub fn open_context_lenient(cwd: &Path, flags: &Flags) -> Result<Context, ContextError> {
    open_context_and_repo(cwd, flags, true).map(|(ctx, _)| ctx)
}

/// [`open_context`] (or its lenient form) and the repository it found, opened once: the
/// context's settings are read from that handle's configuration, and the caller keeps it.
pub fn open_context_and_repo(
    cwd: &Path,
    flags: &Flags,
    lenient: bool,
) -> Result<(Context, Option<OpenRepo>), ContextError> {
    let repo = git2::Repository::discover(cwd).ok();
    let ctx = Context::open_with(
        cwd,
        flags,
        lenient,
        settings::process_env,
        repo.as_ref().map(describe),
        |_| super::config::qwen_memory_layer_of(repo.as_ref(), true),
    )?;
    Ok((ctx, repo.map(OpenRepo)))
}

/// [`open_context`] as if no environment variable were set and no Git configuration existed
/// beyond the repository's own, for unit tests that must not depend on the developer's shell
/// or their `~/.gitconfig`.
#[cfg(test)]
pub(crate) fn open_context_without_env(cwd: &Path) -> Result<Context, ContextError> {
    Context::open_with(
        cwd,
        &[],
        false,
        |_| None,
        discover(cwd),
        |d| super::config::qwen_memory_layer(d, false),
    )
}

/// The current HEAD commit id, if any (opens the repository; see [`OpenRepo::head_commit`]).
pub fn head_commit(ctx: &Context) -> Option<String> {
    let repo = git2::Repository::open(ctx.project.git_dir.as_ref()?).ok()?;
    OpenRepo(repo).head_commit()
}

/// How many commits HEAD is ahead of `commit` (`None` when either is unknown).
pub fn commits_behind_head(ctx: &Context, commit: &str) -> Option<usize> {
    let repo = git2::Repository::open(ctx.project.git_dir.as_ref()?).ok()?;
    let head = repo.head().ok()?.target()?;
    let from = git2::Oid::from_str(commit).ok()?;
    repo.graph_ahead_behind(head, from)
        .ok()
        .map(|(ahead, _)| ahead)
}

/// The Git provenance of each path (`None` for a path that is `None`, or a file not committed as
/// it is), through `cache`. Empty when the project has no repository.
pub fn provenance_of_files(
    ctx: &Context,
    cache: &mut provenance::Cache,
    paths: &[Option<&Path>],
    deadline: Option<std::time::Instant>,
) -> Vec<Option<provenance::Provenance>> {
    let Some(repo) = ctx
        .project
        .git_dir
        .as_ref()
        .and_then(|g| git2::Repository::open(g).ok())
    else {
        return Vec::new();
    };
    let blobs = provenance::Blobs::open(&repo);
    paths
        .iter()
        .map(|p| p.and_then(|p| provenance::of_file_with(&repo, &blobs, cache, p, deadline)))
        .collect()
}

/// The repository-relative prefixes (`.qwen/memory/`, …) of the shared memory roots that lie
/// inside the work tree.
fn shared_prefixes(ctx: &Context) -> Vec<String> {
    [&ctx.layout.repository.path, &ctx.layout.team.path]
        .iter()
        .filter_map(|p| p.strip_prefix(&ctx.project.root).ok())
        .map(|p| format!("{}/", p.to_string_lossy().replace('\\', "/")))
        .collect()
}

/// Untracked (and not ignored) files under the shared memory directories, repository paths.
pub fn untracked_memory_files(ctx: &Context) -> Result<Vec<String>, GitError> {
    let repo = open_repo(ctx)?;
    if repo.workdir().is_none() {
        return Ok(Vec::new());
    }
    let mut opts = git2::StatusOptions::new();
    opts.include_untracked(true)
        .recurse_untracked_dirs(true)
        .include_ignored(false)
        .exclude_submodules(true);
    let mut any = false;
    for root in [&ctx.layout.repository.path, &ctx.layout.team.path] {
        if let Ok(rel) = root.strip_prefix(&ctx.project.root) {
            opts.pathspec(format!("{}/", rel.to_string_lossy()));
            any = true;
        }
    }
    if !any {
        return Ok(Vec::new());
    }
    let statuses = repo.statuses(Some(&mut opts))?;
    Ok(statuses
        .iter()
        .filter(|e| e.status().contains(git2::Status::WT_NEW))
        .filter_map(|e| e.path().map(str::to_string))
        .collect())
}

/// Staged memory files (path, staged bytes) and, for those changed, their bytes in HEAD.
pub type Staged = (
    Vec<(String, Vec<u8>)>,
    std::collections::HashMap<String, Vec<u8>>,
);

/// The staged content (path, bytes) of every file added or changed under the memory
/// directories (`.qwen/memory/` and `.qwen/team-memory/`) relative to HEAD, in the index Git
/// uses (`GIT_INDEX_FILE` when a hook runs with one), and, for those changed, their bytes in
/// HEAD (so a guard can tell what a commit adds from what was already there).
pub fn staged_memory_files(ctx: &Context) -> Result<Staged, GitError> {
    let repo = open_repo(ctx)?;
    if repo.workdir().is_none() {
        return Ok(Staged::default());
    }
    let prefixes = shared_prefixes(ctx);
    if prefixes.is_empty() {
        return Ok(Staged::default());
    }
    let index = match std::env::var_os("GIT_INDEX_FILE") {
        Some(p) if !p.is_empty() => {
            let p = PathBuf::from(p);
            let p = if p.is_absolute() { p } else { ctx.cwd.join(p) };
            git2::Index::open(&p)?
        }
        _ => repo.index()?,
    };
    let head_tree = repo.head().ok().and_then(|h| h.peel_to_tree().ok());
    let mut opts = git2::DiffOptions::new();
    for prefix in &prefixes {
        opts.pathspec(prefix);
    }
    let diff = repo.diff_tree_to_index(head_tree.as_ref(), Some(&index), Some(&mut opts))?;
    let mut files = Vec::new();
    let mut previous = std::collections::HashMap::new();
    for delta in diff.deltas() {
        if delta.status() == git2::Delta::Deleted {
            continue;
        }
        let file = delta.new_file();
        let Some(path) = file.path().map(|p| p.to_string_lossy().into_owned()) else {
            continue;
        };
        let Ok(blob) = repo.find_blob(file.id()) else {
            continue;
        };
        if delta.status() == git2::Delta::Modified {
            if let Ok(old) = repo.find_blob(delta.old_file().id()) {
                previous.insert(path.clone(), old.content().to_vec());
            }
        }
        files.push((path, blob.content().to_vec()));
    }
    Ok((files, previous))
}

/// What the commits a Git hook names say about the memory subtrees, looked up once per hook:
/// their two trees, or that nothing can have changed, or (unknown) that everything may have.
pub(crate) enum HookTrees<'r> {
    /// Both sides are the same commit (a checkout that stays on it): no subtree changed.
    Same,
    /// The trees before and after.
    Trees(git2::Tree<'r>, git2::Tree<'r>),
    /// The commits are unknown (post-rewrite, a failed lookup): every subtree counts as changed,
    /// and the rebuild, which only writes a changed index, decides.
    Unknown,
}

impl<'r> HookTrees<'r> {
    /// The trees of the commits Git hook `name` names (its `args` for post-checkout).
    pub(crate) fn of(repo: &'r git2::Repository, name: &str, args: &[String]) -> HookTrees<'r> {
        let (old, new) = match name {
            "post-checkout" => match args {
                [old, new, ..] => (old.as_str(), new.as_str()),
                _ => return HookTrees::Unknown,
            },
            "post-merge" => ("ORIG_HEAD", "HEAD"),
            "post-commit" => ("HEAD~1", "HEAD"),
            _ => return HookTrees::Unknown,
        };
        if old == new {
            return HookTrees::Same;
        }
        let tree = |rev: &str| repo.revparse_single(rev).ok()?.peel_to_tree().ok();
        match (tree(old), tree(new)) {
            (Some(a), Some(b)) if a.id() == b.id() => HookTrees::Same,
            (Some(a), Some(b)) => HookTrees::Trees(a, b),
            _ => HookTrees::Unknown,
        }
    }

    /// Whether the subtree at `prefix` differs between the two commits.
    pub(crate) fn changed(&self, prefix: &Path) -> bool {
        let subtree = |tree: &git2::Tree| {
            tree.get_path(prefix)
                .map(|e| e.id())
                .unwrap_or_else(|_| git2::Oid::zero())
        };
        match self {
            HookTrees::Same => false,
            HookTrees::Trees(a, b) => subtree(a) != subtree(b),
            HookTrees::Unknown => true,
        }
    }
}
