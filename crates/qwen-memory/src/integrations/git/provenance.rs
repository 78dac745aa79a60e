//! Provenance from Git (docs/DESIGN.md, "Security", "Provenance"): for a repository or team
//! memory, the commit that last changed the file as it is now — its author and time — so the
//! recall block can say "from <author>, N days ago" instead of the clone's mtime.
//!
//! The answer is keyed by the file's blob id (hashed from the working-tree bytes), so a cache
//! entry never goes stale: a changed file has another blob. A file that differs from `HEAD`
//! (not committed yet) has no provenance; callers fall back to its mtime. The walk from `HEAD`
//! is bounded ([`MAX_WALK`]) and stops at the first commit that brought that blob in (a merge
//! whose parent already had it is passed through, so a merged change keeps its own author; a
//! merge that made the content itself also names where each parent's version came from).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Instant, SystemTime};

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
    /// When `commit` is a merge that made this content itself (a merge driver's union, a
    /// resolved conflict: it differs from every parent's), the provenance of each parent's
    /// version it was made from. The merge's author did not write those lines; the trust
    /// policy asks every one of them to hold.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub merged_from: Vec<Provenance>,
}

impl Provenance {
    /// This commit and, for a merge that made the content, every commit its parts came from.
    pub fn contributors(&self) -> Vec<&Provenance> {
        let mut out = vec![self];
        for p in &self.merged_from {
            out.extend(p.contributors());
        }
        out
    }
}

/// Most commits looked at per file.
pub const MAX_WALK: usize = 5_000;

/// The cache file in a root's state dir.
pub const CACHE_FILE: &str = "provenance.json";

/// The version of [`Cache::entries`]' meaning; entries of another version are dropped on load
/// (2: a merge that made the content records where its parts came from).
const CACHE_VERSION: u32 = 2;

/// Blob id → provenance, as stored in [`CACHE_FILE`].
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct Cache {
    #[serde(default)]
    pub version: u32,
    #[serde(default)]
    pub entries: BTreeMap<String, Provenance>,
    /// Commit id → whether Git verified its signature (`%G?` = `G`), for `trust.signed`;
    /// valid while [`Cache::signers`] matches the signer configuration.
    #[serde(default)]
    pub signatures: BTreeMap<String, bool>,
    /// A stamp of the configuration the signature verdicts were made under.
    #[serde(default)]
    pub signers: String,
    #[serde(skip)]
    pub(crate) dirty: bool,
}

impl Cache {
    /// The cache in `state_dir` (empty when missing or unreadable).
    pub fn load(state_dir: &Path) -> Cache {
        let mut cache: Cache = crate::storage::safe_fs::read_regular(&state_dir.join(CACHE_FILE))
            .ok()
            .flatten()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or_default();
        if cache.version != CACHE_VERSION {
            cache.entries.clear();
            cache.version = CACHE_VERSION;
            cache.dirty = true;
        }
        cache
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
    let blobs = Blobs::open(repo);
    of_file_with(repo, &blobs, cache, abs_path, None)
}

/// [`of_file`] with the blob ids of `blobs`; a walk not finished by `deadline` gives `None`
/// (not cached: a later call without a deadline finishes it).
pub fn of_file_with(
    repo: &git2::Repository,
    blobs: &Blobs,
    cache: &mut Cache,
    abs_path: &Path,
    deadline: Option<Instant>,
) -> Option<Provenance> {
    let workdir = repo.workdir()?;
    let rel = relative_to(abs_path, workdir)?;
    let blob = blobs.blob_id(&rel, abs_path)?;
    let key = format!("{blob}:{}", rel.display());
    if let Some(p) = cache.entries.get(&key) {
        return Some(p.clone());
    }
    let found = last_change(repo, &rel, blob, deadline)?;
    cache.entries.insert(key, found.clone());
    cache.dirty = true;
    Some(found)
}

/// Blob ids of working-tree files, cheap for files Git's index already knows: when the file's
/// size, mtime and inode match its index entry (and the entry is not "racily clean", i.e. older
/// than the index file), the entry's id is the blob id, as `git status` assumes; otherwise the
/// bytes are hashed.
pub struct Blobs {
    index: Option<(git2::Index, SystemTime)>,
}

impl Blobs {
    /// The index of `repo` (hashing every file when it cannot be read).
    pub fn open(repo: &git2::Repository) -> Blobs {
        let stamp = std::fs::metadata(repo.path().join("index")).and_then(|m| m.modified());
        let index = match (repo.index(), stamp) {
            (Ok(index), Ok(stamp)) => Some((index, stamp)),
            _ => None,
        };
        Blobs { index }
    }

    /// The blob id of the regular file at `abs` (at `rel` in the work tree).
    pub fn blob_id(&self, rel: &Path, abs: &Path) -> Option<git2::Oid> {
        if let Some(id) = self.indexed(rel, abs) {
            return Some(id);
        }
        let bytes = crate::storage::safe_fs::read_regular(abs).ok()??;
        git2::Oid::hash_object(git2::ObjectType::Blob, &bytes).ok()
    }

    fn indexed(&self, rel: &Path, abs: &Path) -> Option<git2::Oid> {
        use std::os::unix::fs::MetadataExt;
        let (index, stamp) = self.index.as_ref()?;
        let entry = index.get_path(rel, 0)?;
        let meta = std::fs::symlink_metadata(abs).ok()?;
        if !meta.file_type().is_file() {
            return None;
        }
        let secs = i64::from(entry.mtime.seconds());
        let nanos = i64::from(entry.mtime.nanoseconds());
        let same = meta.len() == u64::from(entry.file_size)
            && meta.mtime() == secs
            && meta.mtime_nsec() == nanos
            && meta.ino() as u32 == entry.ino;
        let entry_time = SystemTime::UNIX_EPOCH
            .checked_add(std::time::Duration::new(secs.max(0) as u64, nanos as u32))?;
        (same && entry_time < *stamp).then_some(entry.id)
    }
}

/// `abs` relative to `workdir` (through symlinks when needed).
pub fn relative_to(abs: &Path, workdir: &Path) -> Option<PathBuf> {
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

/// Merges that made content, followed into their parents' versions, at most this deep (a
/// deeper chain has no provenance: the trust policy then holds the file pending).
const MAX_MERGE_DEPTH: usize = 8;

/// The newest commit reachable from HEAD whose tree has `blob` at `rel` and none of whose
/// parents has it there; `None` past `deadline`.
fn last_change(
    repo: &git2::Repository,
    rel: &Path,
    blob: git2::Oid,
    deadline: Option<Instant>,
) -> Option<Provenance> {
    let head = repo.head().ok()?.peel_to_commit().ok()?;
    if blob_at(&head, rel) != Some(blob) {
        return None;
    }
    last_change_from(repo, &head, rel, blob, deadline, 0)
}

/// [`last_change`] walking from `start` (which has `blob` at `rel`). A merge that made the
/// content (no parent has it, some parent has another version) records the provenance of each
/// parent's version: a merge driver's union of two teammates' lines is not the merger's text.
fn last_change_from(
    repo: &git2::Repository,
    start: &git2::Commit<'_>,
    rel: &Path,
    blob: git2::Oid,
    deadline: Option<Instant>,
    depth: usize,
) -> Option<Provenance> {
    let mut walk = repo.revwalk().ok()?;
    // Time order only: a topological sort would read the whole history before the first step.
    walk.set_sorting(git2::Sort::TIME).ok()?;
    walk.push(start.id()).ok()?;
    for (n, oid) in walk.take(MAX_WALK).enumerate() {
        if n % 64 == 63 && deadline.is_some_and(|d| Instant::now() >= d) {
            return None;
        }
        let commit = repo.find_commit(oid.ok()?).ok()?;
        if blob_at(&commit, rel) != Some(blob) {
            continue;
        }
        let inherited = commit.parents().any(|p| blob_at(&p, rel) == Some(blob));
        if !inherited {
            let mut merged_from = Vec::new();
            if commit.parent_count() > 1 {
                if depth >= MAX_MERGE_DEPTH {
                    return None;
                }
                for parent in commit.parents() {
                    if let Some(theirs) = blob_at(&parent, rel) {
                        merged_from.push(last_change_from(
                            repo,
                            &parent,
                            rel,
                            theirs,
                            deadline,
                            depth + 1,
                        )?);
                    }
                }
            }
            let author = commit.author();
            return Some(Provenance {
                author: author.name().unwrap_or("").to_string(),
                email: author.email().unwrap_or("").to_string(),
                time_ms: author.when().seconds() as f64 * 1000.0,
                commit: commit.id().to_string(),
                merged_from,
            });
        }
    }
    None
}

/// A memory file the last pull brought in: new or changed by it, and still as pulled.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Arrived {
    /// Path relative to the work tree.
    pub path: String,
    /// The commit that brought its content (author, time); `None` when not found in time.
    pub provenance: Option<Provenance>,
}

/// The memory files (Markdown under one of `dirs`, relative to the work tree, indexes left
/// out) that the last `git pull` or `git merge` in HEAD's reflog added or changed and that are
/// still, in the work tree, as it brought them: memory a teammate sent that this clone has not
/// touched. A pull with `--rebase` counts from its start (the old tip against the upstream it
/// rebased onto). `None` when the reflog holds no pull or merge.
pub fn last_pull(repo: &git2::Repository, dirs: &[&str]) -> Option<Vec<Arrived>> {
    let (old, new) = last_pull_range(repo)?;
    let old_tree = repo.find_commit(old).ok()?.tree().ok()?;
    let new_tree = repo.find_commit(new).ok()?.tree().ok()?;
    let head = repo.head().ok()?.peel_to_tree().ok()?;
    let mut opts = git2::DiffOptions::new();
    for d in dirs {
        opts.pathspec(*d);
    }
    let diff = repo
        .diff_tree_to_tree(Some(&old_tree), Some(&new_tree), Some(&mut opts))
        .ok()?;
    let workdir = repo.workdir()?.to_path_buf();
    let blobs = Blobs::open(repo);
    let mut out = Vec::new();
    for delta in diff.deltas() {
        if !matches!(delta.status(), git2::Delta::Added | git2::Delta::Modified) {
            continue;
        }
        let Some(rel) = delta.new_file().path() else {
            continue;
        };
        let is_doc = rel.extension().is_some_and(|e| e == "md")
            && rel.file_name().is_some_and(|n| n != "MEMORY.md");
        let id = delta.new_file().id();
        let as_pulled = head.get_path(rel).is_ok_and(|e| e.id() == id)
            && blobs.blob_id(rel, &workdir.join(rel)) == Some(id);
        if !is_doc || !as_pulled {
            continue;
        }
        let provenance = last_change(repo, rel, id, None);
        out.push(Arrived {
            path: rel.display().to_string(),
            provenance,
        });
    }
    Some(out)
}

/// The (before, after) commits of the newest pull or merge in HEAD's reflog (for a rebasing
/// pull, its `(start)` step: the old tip and the upstream).
fn last_pull_range(repo: &git2::Repository) -> Option<(git2::Oid, git2::Oid)> {
    let reflog = repo.reflog("HEAD").ok()?;
    let entry = reflog.iter().find(|e| {
        let msg = e.message().unwrap_or("");
        let rebase_step = msg.contains("(pick)")
            || msg.contains("(finish)")
            || msg.contains("(continue)")
            || msg.contains("(squash)")
            || msg.contains("(fixup)");
        (msg.starts_with("pull") || msg.starts_with("merge ")) && !rebase_step
    })?;
    (!entry.id_old().is_zero()).then(|| (entry.id_old(), entry.id_new()))
}
