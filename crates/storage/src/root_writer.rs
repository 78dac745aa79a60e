//! Operations on one memory root: scanning it, writing and deleting its documents, and keeping
//! its `MEMORY.md` in step.
//!
//! The single write path: every mutation of a root goes through a [`RootWriter`], and the only
//! way to get one is [`RootWriter::lock`], which takes the root's exclusive lock (a `flock` on
//! the lock file in the state dir). So no code can write a root without holding its lock. A
//! writer opens every directory from the root's trusted anchor down without following a
//! symlink and refuses one with an error naming it, and writes every file atomically; see
//! [`crate::safe_fs`] and docs/DESIGN.md, "Writes".

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use crate::index::{self, IndexKind};
use crate::project::Root;
use crate::safe_fs::{self, Dir, FileLock, FsError};
use crate::scan::{self, ScanError, ScanOutcome, ScannedDoc, Scope};
use crate::store::{self, JsonState, StoreError};

/// The ignore file of a shared root.
pub const GITIGNORE_FILE: &str = ".gitignore";
/// What it holds: the generated index is never tracked.
pub const INDEX_IGNORE_TEXT: &str =
    "# Generated per clone by git-qwen-memory and Qwen Code; never committed.\n/MEMORY.md\n";

/// Failures of root operations.
#[derive(Debug, thiserror::Error)]
pub enum RootError {
    #[error(transparent)]
    Scan(#[from] ScanError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("{0}: a subdirectory could not be read; refusing to write a partial index")]
    Incomplete(PathBuf),
    #[error("{0}: not a valid document path inside its root")]
    BadRelative(String),
}

impl From<FsError> for RootError {
    fn from(e: FsError) -> RootError {
        RootError::Store(StoreError::Fs(e))
    }
}

/// The right to write one root: holds the root's exclusive lock until dropped. Every function
/// that changes a root's documents, its `MEMORY.md` or its state files takes one.
#[derive(Debug)]
pub struct RootWriter<'r> {
    root: &'r Root,
    _lock: FileLock,
}

impl<'r> RootWriter<'r> {
    /// Waits for the exclusive lock of `root`. Refuses, naming the link, when a directory
    /// between the root's anchor and the root is a symlink (or not a directory), so every
    /// mutation fails early and writes nothing.
    pub fn lock(root: &'r Root) -> Result<RootWriter<'r>, RootError> {
        let lock = FileLock::exclusive(&root.lock_path)?;
        let writer = RootWriter { root, _lock: lock };
        writer.memory_dir(false)?;
        Ok(writer)
    }

    /// The root this writer holds.
    pub fn root(&self) -> &'r Root {
        self.root
    }

    /// Opens the memory directory without following symlinks below the anchor; `Ok(None)` when
    /// it does not exist and `create` is off.
    fn memory_dir(&self, create: bool) -> Result<Option<Dir>, RootError> {
        let root = self.root;
        let below = root.path.strip_prefix(&root.anchor).map_err(|_| {
            RootError::BadRelative(format!(
                "{} is not inside {}",
                root.path.display(),
                root.anchor.display()
            ))
        })?;
        let anchor = match Dir::open_trusted(&root.anchor, create) {
            Ok(d) => d,
            Err(e) if e.is_not_found() => return Ok(None),
            Err(e) => return Err(e.into()),
        };
        Ok(anchor.open_path(below, create)?)
    }

    /// The directory holding `relative` (opened without following symlinks) and the file name.
    fn doc_dir<'a>(
        &self,
        relative: &'a str,
        create: bool,
    ) -> Result<Option<(Dir, &'a OsStr)>, RootError> {
        if !valid_relative(relative) {
            return Err(RootError::BadRelative(relative.to_string()));
        }
        let (parent, name) = match relative.rsplit_once('/') {
            Some((p, n)) => (p, n),
            None => ("", relative),
        };
        let Some(top) = self.memory_dir(create)? else {
            return Ok(None);
        };
        let dir = if parent.is_empty() {
            Some(top)
        } else {
            top.open_path(Path::new(parent), create)?
        };
        Ok(dir.map(|d| (d, OsStr::new(name))))
    }

    /// Reads a file of the root (a document or `MEMORY.md`), refusing a symlink anywhere on the
    /// way and a special file; `Ok(None)` when it does not exist.
    pub fn read_doc(&self, relative: &str) -> Result<Option<Vec<u8>>, RootError> {
        match self.doc_dir(relative, false)? {
            Some((dir, name)) => Ok(dir.read(name)?),
            None => Ok(None),
        }
    }

    /// Writes one document atomically, creating its directories.
    pub fn write_doc(&self, relative: &str, contents: &[u8]) -> Result<(), RootError> {
        self.write_docs(&[(relative, contents)], || {})
    }

    /// Writes new contents over a document a person may have written (an entry merged into
    /// it): as [`Self::write_doc`], but a file whose every line ends in CRLF keeps CRLF
    /// ([`crate::formats::text::keep_line_endings`]; docs/DESIGN.md, "Topic documents"). A
    /// forget or a dream converts its new texts before it records them for undo; a restore
    /// from a backup writes exact bytes.
    pub fn rewrite_doc(&self, relative: &str, contents: &[u8]) -> Result<(), RootError> {
        let old = self.read_doc(relative)?.unwrap_or_default();
        let contents = crate::formats::text::keep_line_endings(&old, contents);
        self.write_doc(relative, &contents)
    }

    /// Writes several documents: every new content is staged beside its destination and
    /// fsynced before the first rename, so the file system flushes the batch together.
    /// `after_each` runs after each rename.
    pub fn write_docs(
        &self,
        writes: &[(&str, &[u8])],
        mut after_each: impl FnMut(),
    ) -> Result<(), RootError> {
        let mut dirs = Vec::with_capacity(writes.len());
        for (rel, _) in writes {
            let Some(found) = self.doc_dir(rel, true)? else {
                return Err(RootError::BadRelative((*rel).to_string()));
            };
            dirs.push(found);
        }
        let mut staged = Vec::with_capacity(writes.len());
        for ((dir, name), (_, bytes)) in dirs.iter().zip(writes) {
            staged.push(dir.stage(name, bytes)?);
        }
        for s in &staged {
            s.sync()?;
        }
        for s in staged {
            s.commit()?;
            after_each();
        }
        // A rename is durable once its directory is synced: each directory of the batch once,
        // after the last rename (docs/DESIGN.md, "Writes").
        let mut synced: Vec<&Path> = Vec::with_capacity(dirs.len());
        for (dir, _) in &dirs {
            if !synced.contains(&dir.path()) {
                dir.sync()?;
                synced.push(dir.path());
            }
        }
        if self.is_personal() {
            if let Some(top) = self.memory_dir(false)? {
                self.keep_private(&top, None)?;
            }
            for (dir, name) in &dirs {
                self.keep_private(dir, Some(name))?;
            }
        }
        Ok(())
    }

    /// Deletes one document (a symlink at its place is removed, never its target). Returns
    /// whether something was removed; a directory on the way that is a symlink is refused.
    pub fn delete_doc(&self, relative: &str) -> Result<bool, RootError> {
        match self.doc_dir(relative, false)? {
            Some((dir, name)) => {
                let removed = dir.remove(name)?;
                if removed {
                    dir.sync()?;
                }
                Ok(removed)
            }
            None => Ok(false),
        }
    }

    /// Sets a document's modification time (a restored file gets its old time back).
    pub fn set_doc_mtime(
        &self,
        relative: &str,
        time: std::time::SystemTime,
    ) -> Result<(), RootError> {
        let Some((dir, name)) = self.doc_dir(relative, false)? else {
            return Ok(());
        };
        if let Some(file) = dir.open_read(name)? {
            file.set_modified(time)
                .map_err(|e| StoreError::io(&self.root.path.join(relative), e))?;
        }
        Ok(())
    }

    /// Creates the memory root and an empty `MEMORY.md`, and the default `meta.json` in the
    /// state dir, each only when missing; never touches existing content. Qwen Code's
    /// `extract-cursor.json` is never created or written: it is Qwen Code's (this tool's
    /// cursors have their own file).
    pub fn ensure_scaffold(&self) -> Result<(), RootError> {
        store::check_root(&self.root.path)?;
        let Some(top) = self.memory_dir(true)? else {
            return Err(RootError::BadRelative(self.root.path.display().to_string()));
        };
        top.create_new(OsStr::new(store::INDEX_FILE), b"")?;
        self.ensure_index_ignored()?;
        self.keep_private(&top, None)?;
        let state = self.state_dir()?;
        if self.is_personal() {
            state.restrict_mode(0o077)?;
        }
        let now = store::now_iso();
        state.create_new(
            OsStr::new(store::META_FILE),
            store::default_meta(&now).to_text().as_bytes(),
        )?;
        Ok(())
    }

    /// A shared root (repository, team) keeps its generated `MEMORY.md` out of Git: a
    /// `.gitignore` holding `/MEMORY.md` beside it, committed with the documents, so every clone
    /// (and Qwen Code's own team sync, which runs `git add`) leaves the index alone
    /// (docs/DESIGN.md, "Git integration"). Written only when the root has no `.gitignore`, and
    /// only by an explicit command (`install`, `remember`, `extract`, `dream`, `commit`, `sync`):
    /// an index rebuild (which hooks run) never creates a file beside the index it owns.
    pub fn ensure_index_ignored(&self) -> Result<(), RootError> {
        if !matches!(self.root.scope, Scope::Repository | Scope::Team) {
            return Ok(());
        }
        if let Some(top) = self.memory_dir(true)? {
            top.create_new(OsStr::new(GITIGNORE_FILE), INDEX_IGNORE_TEXT.as_bytes())?;
        }
        Ok(())
    }

    /// Private and user roots hold one person's memory: nobody else may read them.
    fn is_personal(&self) -> bool {
        matches!(self.root.scope, Scope::Private | Scope::User)
    }

    /// For a personal root: `dir` (a directory of the root) 0700 at most and its file `name`
    /// 0600 at most (docs/DESIGN.md, "Security"). Shared roots live in the work tree and keep
    /// the user's umask.
    fn keep_private(&self, dir: &Dir, name: Option<&OsStr>) -> Result<(), RootError> {
        if !self.is_personal() {
            return Ok(());
        }
        dir.restrict_mode(0o077)?;
        if let Some(name) = name {
            dir.restrict_file_mode(name, 0o077)?;
        }
        Ok(())
    }

    fn state_dir(&self) -> Result<Dir, RootError> {
        Ok(Dir::open_trusted(&self.root.state_dir, true)?)
    }

    /// Writes a state file of this root (`meta.json`, cursors, logs' siblings) atomically.
    pub fn write_state(&self, name: &str, contents: &[u8]) -> Result<(), RootError> {
        Ok(self.state_dir()?.write_atomic(OsStr::new(name), contents)?)
    }

    /// Creates a state file only when nothing is there; returns whether it was created.
    pub fn create_state(&self, name: &str, contents: &[u8]) -> Result<bool, RootError> {
        Ok(self.state_dir()?.create_new(OsStr::new(name), contents)?)
    }

    /// Removes a state file; returns whether it existed.
    pub fn remove_state(&self, name: &str) -> Result<bool, RootError> {
        Ok(self.state_dir()?.remove(OsStr::new(name))?)
    }

    /// Writes `meta.json` (2-space JSON plus newline).
    pub fn write_meta(&self, meta: &JsonState) -> Result<(), RootError> {
        self.write_state(store::META_FILE, meta.to_text().as_bytes())
    }

    /// Rewrites `MEMORY.md` from a fresh scan. Does not create a missing root. Returns whether
    /// the file changed.
    pub fn rebuild_index(&self) -> Result<bool, RootError> {
        if !store::check_root(&self.root.path)? {
            return Ok(false);
        }
        let docs = scan_strict(self.root)?.docs;
        self.write_index(&docs)
    }

    /// Writes `MEMORY.md` for `docs`, the root's complete current documents (a caller that has
    /// just scanned and changed a few files passes its updated list instead of scanning again).
    /// Skips the write when the file already holds exactly that text.
    pub fn write_index(&self, docs: &[ScannedDoc]) -> Result<bool, RootError> {
        let text = index::build(docs, index_kind(self.root.scope));
        let current = match self.read_doc(store::INDEX_FILE) {
            Ok(c) => c,
            Err(RootError::Store(StoreError::Fs(FsError::Io { .. }))) => None,
            Err(e) => return Err(e),
        };
        if current.as_deref() == Some(text.as_bytes()) {
            return Ok(false);
        }
        self.write_doc(store::INDEX_FILE, text.as_bytes())?;
        Ok(true)
    }
}

/// Whether `relative` is a plain path inside a root: no absolute path, no `..`, no `.`, no
/// empty segment.
fn valid_relative(relative: &str) -> bool {
    !relative.is_empty()
        && !relative.starts_with('/')
        && relative
            .split('/')
            .all(|seg| !seg.is_empty() && seg != "." && seg != ".." && !seg.contains('\0'))
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

/// Re-reads one document of a root after it was written, for [`RootWriter::write_index`].
pub fn reread(root: &Root, relative: &str) -> Option<ScannedDoc> {
    let path = root.path.join(relative);
    scan::read_document(&path, root.scope, path.clone(), relative.to_string()).ok()
}

/// [`RootWriter::rebuild_index`] under a lock taken for it.
pub fn rebuild_index(root: &Root) -> Result<bool, RootError> {
    RootWriter::lock(root)?.rebuild_index()
}

/// Whether the index on disk differs from what it should be (`index --check`).
pub fn index_is_stale(root: &Root) -> Result<bool, RootError> {
    if !store::check_root(&root.path)? {
        return Ok(false);
    }
    let text = expected_index(root)?;
    let current = match safe_fs::read_regular(&root.path.join(store::INDEX_FILE)) {
        Ok(c) => c.unwrap_or_default(),
        Err(e @ (FsError::Symlink(_) | FsError::NotRegular { .. })) => return Err(e.into()),
        Err(_) => Vec::new(),
    };
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
        if std::fs::symlink_metadata(&p)
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
    use std::fs;
    use std::os::unix::fs::symlink;

    fn private(dir: &Path) -> Root {
        let state = dir.join("p");
        Root::new(Scope::Private, state.clone(), state.join("memory"), state)
    }

    #[test]
    fn scaffold_is_idempotent_and_exact() {
        let dir = tempfile::tempdir().unwrap();
        let root = private(dir.path());
        RootWriter::lock(&root).unwrap().ensure_scaffold().unwrap();
        assert_eq!(fs::read_to_string(root.path.join("MEMORY.md")).unwrap(), "");
        let meta = fs::read_to_string(root.state_dir.join("meta.json")).unwrap();
        assert!(
            meta.starts_with("{\n  \"version\": 1,\n  \"createdAt\": \""),
            "{meta}"
        );
        assert!(meta.ends_with("\"\n}\n"));
        fs::write(root.path.join("MEMORY.md"), "custom").unwrap();
        RootWriter::lock(&root).unwrap().ensure_scaffold().unwrap();
        assert_eq!(
            fs::read_to_string(root.path.join("MEMORY.md")).unwrap(),
            "custom"
        );
        assert_eq!(
            fs::read_dir(&root.path).unwrap().count(),
            1,
            "no topic files"
        );
    }

    #[test]
    fn writer_refuses_symlinks_at_every_level_and_writes_nothing_outside() {
        let dir = tempfile::tempdir().unwrap();
        let outside = dir.path().join("outside");
        fs::create_dir(&outside).unwrap();
        fs::write(outside.join("a.md"), "SENTINEL").unwrap();
        let work = dir.path().join("work");
        let repo = Root::new(
            Scope::Repository,
            work.clone(),
            work.join(".qwen/memory"),
            dir.path().join("state"),
        );
        // A symlinked `.qwen`: refused when taking the writer, naming the link.
        fs::create_dir(&work).unwrap();
        symlink(&outside, work.join(".qwen")).unwrap();
        let err = RootWriter::lock(&repo).unwrap_err().to_string();
        assert!(
            err.contains(&work.join(".qwen").display().to_string()),
            "{err}"
        );
        fs::remove_file(work.join(".qwen")).unwrap();
        // A symlinked type directory: refused for that write only.
        fs::create_dir_all(&repo.path).unwrap();
        symlink(&outside, repo.path.join("feedback")).unwrap();
        let w = RootWriter::lock(&repo).unwrap();
        let err = w.write_doc("feedback/x.md", b"x").unwrap_err().to_string();
        assert!(
            err.contains(&repo.path.join("feedback").display().to_string()),
            "{err}"
        );
        assert!(w.read_doc("feedback/a.md").is_err());
        assert!(w.delete_doc("feedback/a.md").is_err());
        // A symlink at the file itself, and at MEMORY.md.
        symlink(outside.join("a.md"), repo.path.join("b.md")).unwrap();
        assert!(w.write_doc("b.md", b"x").is_err());
        symlink(outside.join("a.md"), repo.path.join("MEMORY.md")).unwrap();
        let err = w.write_index(&[]).unwrap_err().to_string();
        assert!(err.contains("MEMORY.md"), "{err}");
        assert!(w.write_doc("../x.md", b"x").is_err());
        assert_eq!(fs::read_dir(&outside).unwrap().count(), 1);
        assert_eq!(
            fs::read_to_string(outside.join("a.md")).unwrap(),
            "SENTINEL"
        );
        // A plain write still works and leaves no temporary file.
        w.write_doc("project/ok.md", b"ok").unwrap();
        assert_eq!(fs::read_dir(repo.path.join("project")).unwrap().count(), 1);
    }

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
