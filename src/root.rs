//! Operations on one memory root: scanning it, writing and deleting its documents, and keeping
//! its `MEMORY.md` in step. Every mutating operation runs under the root's mutation lock.

use std::fs;
use std::path::{Path, PathBuf};

use crate::index::{self, IndexKind};
use crate::project::Root;
use crate::scan::{self, ScanError, ScanOutcome, ScannedDoc, Scope};
use crate::store::{self, StoreError};

/// Failures of root operations.
#[derive(Debug, thiserror::Error)]
pub enum RootError {
    #[error(transparent)]
    Scan(#[from] ScanError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("{0}: a subdirectory could not be read; refusing to write a partial index")]
    Incomplete(PathBuf),
}

/// The indexer of a root: Qwen Code's own for the roots it also writes (private, user, team),
/// path order for the repository root so its committed index is a pure function of the
/// committed files.
pub fn index_kind(scope: Scope) -> IndexKind {
    match scope {
        Scope::Repository => IndexKind::Repository,
        Scope::Team => IndexKind::Team,
        Scope::Private | Scope::User => IndexKind::Newest,
    }
}

/// Scans a root, refusing a partial result (an unreadable subdirectory).
pub fn scan_strict(root: &Root) -> Result<ScanOutcome, RootError> {
    let outcome = scan::scan_root(&root.path, root.scope)?;
    if let Some(dir) = outcome.unreadable_dirs.first() {
        return Err(RootError::Incomplete(dir.clone()));
    }
    Ok(outcome)
}

/// The index text a root should have now.
pub fn expected_index(root: &Root) -> Result<String, RootError> {
    let outcome = scan_strict(root)?;
    Ok(index::build(&outcome.docs, index_kind(root.scope)))
}

/// Rewrites `MEMORY.md` of a root (atomically, replacing a symlink rather than following it).
/// Does not create a missing root. Returns whether the file changed. The caller holds the
/// mutation lock.
pub fn rebuild_index_locked(root: &Root) -> Result<bool, RootError> {
    if !store::check_root(&root.path)? {
        return Ok(false);
    }
    let docs = scan_strict(root)?.docs;
    write_index_locked(root, &docs)
}

/// Writes `MEMORY.md` for `docs`, the root's complete current documents (a caller that has just
/// scanned and changed a few files passes its updated list instead of scanning again). Skips
/// the write when the file already holds exactly that text.
pub fn write_index_locked(root: &Root, docs: &[ScannedDoc]) -> Result<bool, RootError> {
    let text = index::build(docs, index_kind(root.scope));
    let path = root.path.join(store::INDEX_FILE);
    let unchanged = fs::symlink_metadata(&path)
        .map(|m| m.file_type().is_file())
        .unwrap_or(false)
        && fs::read(&path)
            .map(|b| b == text.as_bytes())
            .unwrap_or(false);
    if unchanged {
        return Ok(false);
    }
    store::atomic_write(&path, text.as_bytes())?;
    Ok(true)
}

/// Re-reads one document of a root after it was written, for [`write_index_locked`].
pub fn reread(root: &Root, relative: &str) -> Option<ScannedDoc> {
    let path = root.path.join(relative);
    scan::read_document(&path, root.scope, path.clone(), relative.to_string()).ok()
}

/// [`rebuild_index_locked`] under the root's mutation lock.
pub fn rebuild_index(root: &Root) -> Result<bool, RootError> {
    store::with_lock(&root.lock_path, || rebuild_index_locked(root))?
}

/// Whether the index on disk differs from what it should be (`index --check`).
pub fn index_is_stale(root: &Root) -> Result<bool, RootError> {
    if !store::check_root(&root.path)? {
        return Ok(false);
    }
    let text = expected_index(root)?;
    let current = fs::read(root.path.join(store::INDEX_FILE)).unwrap_or_default();
    Ok(current != text.as_bytes())
}

/// Joins a relative document path onto a root after checking it cannot escape the root: no
/// absolute paths, no `..`, no empty segments, `.md` only.
pub fn resolve_relative(root: &Path, relative: &str) -> Option<PathBuf> {
    let ok = !relative.is_empty()
        && !relative.starts_with('/')
        && relative.ends_with(".md")
        && relative
            .split('/')
            .all(|seg| !seg.is_empty() && seg != "." && seg != "..");
    ok.then(|| root.join(relative))
}

/// True when some component of `relative` under `root` is a symlink.
pub fn passes_through_symlink(root: &Path, relative: &str) -> bool {
    let mut p = root.to_path_buf();
    for seg in relative.split('/') {
        p.push(seg);
        if fs::symlink_metadata(&p)
            .map(|m| m.file_type().is_symlink())
            .unwrap_or(false)
        {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_cannot_escape() {
        let root = Path::new("/r");
        assert_eq!(
            resolve_relative(root, "feedback/a.md"),
            Some(PathBuf::from("/r/feedback/a.md"))
        );
        for bad in [
            "../a.md",
            "/etc/a.md",
            "a/../../b.md",
            "a//b.md",
            "a.txt",
            "",
            "./a.md",
        ] {
            assert_eq!(resolve_relative(root, bad), None, "{bad}");
        }
    }
}
