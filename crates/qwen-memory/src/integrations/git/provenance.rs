//! Provenance from Git (docs/DESIGN.md, "Security", "Provenance"): for a repository or team
//! memory, the commit that last changed the file as it is now — its author and time — so the
//! recall block can say "from <author>, N days ago" instead of the clone's mtime.
//!
//! The answer is keyed by the file's blob id (hashed from the working-tree bytes), so a cache
//! entry never goes stale: a changed file has another blob. A file that differs from `HEAD`
//! (not committed yet) has no provenance; callers fall back to its mtime. The walk from `HEAD`
//! is bounded ([`MAX_WALK`]) and stops at the first commit that brought that blob in (a merge
//! whose parent already had it is passed through, so a merged change keeps its own author).

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

/// The commit a file's current content came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Provenance {
    /// Author name as recorded in the commit (untrusted text: render through the sanitiser).
    pub author: String,
    pub email: String,
    /// Author time, milliseconds since the epoch.
    pub time_ms: f64,
    pub commit: String,
}

/// Most commits looked at per file.
pub const MAX_WALK: usize = 5_000;

/// The cache file in a root's state dir.
pub const CACHE_FILE: &str = "provenance.json";

/// Blob id → provenance, as stored in [`CACHE_FILE`].
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct Cache {
    #[serde(default)]
    pub entries: BTreeMap<String, Provenance>,
    #[serde(skip)]
    dirty: bool,
}

impl Cache {
    /// The cache in `state_dir` (empty when missing or unreadable).
    pub fn load(state_dir: &Path) -> Cache {
        crate::storage::safe_fs::read_regular(&state_dir.join(CACHE_FILE))
            .ok()
            .flatten()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or_default()
    }

    /// Writes the cache back when something was added (errors ignored: it is only a cache).
    pub fn save(&self, state_dir: &Path) {
        if !self.dirty {
            return;
        }
        if let Ok(bytes) = serde_json::to_vec(self) {
            let _ = crate::storage::safe_fs::write_atomic(&state_dir.join(CACHE_FILE), &bytes);
        }
    }
}

/// Provenance of the file at `abs_path` in the repository `repo`, through `cache`.
pub fn of_file(repo: &git2::Repository, cache: &mut Cache, abs_path: &Path) -> Option<Provenance> {
    let workdir = repo.workdir()?;
    let rel = relative_to(abs_path, workdir)?;
    let bytes = crate::storage::safe_fs::read_regular(abs_path).ok()??;
    let blob = git2::Oid::hash_object(git2::ObjectType::Blob, &bytes).ok()?;
    let key = format!("{blob}:{}", rel.display());
    if let Some(p) = cache.entries.get(&key) {
        return Some(p.clone());
    }
    let found = last_change(repo, &rel, blob)?;
    cache.entries.insert(key, found.clone());
    cache.dirty = true;
    Some(found)
}

fn relative_to(abs: &Path, workdir: &Path) -> Option<std::path::PathBuf> {
    if let Ok(r) = abs.strip_prefix(workdir) {
        return Some(r.to_path_buf());
    }
    let a = std::fs::canonicalize(abs).ok()?;
    let w = std::fs::canonicalize(workdir).ok()?;
    a.strip_prefix(&w).ok().map(Path::to_path_buf)
}

fn blob_at(commit: &git2::Commit<'_>, rel: &Path) -> Option<git2::Oid> {
    commit.tree().ok()?.get_path(rel).ok().map(|e| e.id())
}

/// The newest commit reachable from HEAD whose tree has `blob` at `rel` and none of whose
/// parents has it there.
fn last_change(repo: &git2::Repository, rel: &Path, blob: git2::Oid) -> Option<Provenance> {
    let head = repo.head().ok()?.peel_to_commit().ok()?;
    if blob_at(&head, rel) != Some(blob) {
        return None;
    }
    let mut walk = repo.revwalk().ok()?;
    walk.set_sorting(git2::Sort::TOPOLOGICAL | git2::Sort::TIME)
        .ok()?;
    walk.push(head.id()).ok()?;
    for oid in walk.take(MAX_WALK) {
        let commit = repo.find_commit(oid.ok()?).ok()?;
        if blob_at(&commit, rel) != Some(blob) {
            continue;
        }
        let inherited = commit.parents().any(|p| blob_at(&p, rel) == Some(blob));
        if !inherited {
            let author = commit.author();
            return Some(Provenance {
                author: author.name().unwrap_or("").to_string(),
                email: author.email().unwrap_or("").to_string(),
                time_ms: author.when().seconds() as f64 * 1000.0,
                commit: commit.id().to_string(),
            });
        }
    }
    None
}

/// The trust policy (docs/security.md): with `trust.ref` set, a repository or team memory is
/// injected only as committed on that ref (e.g. `origin/main`, i.e. reviewed): its current
/// bytes must be the blob the ref's tree holds at its path. Everything else is *pending*.
pub struct TrustedRef {
    repo: git2::Repository,
    /// The ref's tree; `None` when the ref does not resolve (then nothing is trusted).
    tree: Option<git2::Oid>,
    workdir: std::path::PathBuf,
}

impl TrustedRef {
    /// The policy for `refname` in the repository at `git_dir` (fails closed: a ref that does
    /// not resolve trusts nothing); `None` without a work tree.
    pub fn open(git_dir: &Path, refname: &str) -> Option<TrustedRef> {
        let repo = git2::Repository::open(git_dir).ok()?;
        let workdir = repo.workdir()?.to_path_buf();
        let tree = repo
            .revparse_single(refname)
            .ok()
            .and_then(|o| o.peel_to_tree().ok())
            .map(|t| t.id());
        Some(TrustedRef {
            repo,
            tree,
            workdir,
        })
    }

    /// Whether the file at `abs_path` is exactly as committed on the trusted ref.
    pub fn trusts(&self, abs_path: &Path) -> bool {
        let Some(tree) = self.tree.and_then(|id| self.repo.find_tree(id).ok()) else {
            return false;
        };
        let Some(rel) = relative_to(abs_path, &self.workdir) else {
            return false;
        };
        let Ok(entry) = tree.get_path(&rel) else {
            return false;
        };
        let Ok(Some(bytes)) = crate::storage::safe_fs::read_regular(abs_path) else {
            return false;
        };
        git2::Oid::hash_object(git2::ObjectType::Blob, &bytes).is_ok_and(|id| id == entry.id())
    }
}
