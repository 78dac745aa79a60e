//! Per-run backups and undo, shared by dream and forget (docs/DESIGN.md, "Dream").
//!
//! Before a run changes anything it records, for every file it is about to rewrite or delete,
//! the file's current bytes and the SHA-256 of what the file will hold afterwards (or that it
//! will be gone). The record is one file, `<state dir>/backups/<run id>/run.bin` (the manifest,
//! then every previous content: one write, one fsync), written completely *before* the first
//! memory file changes, so even a run killed half way can be undone. Runs recorded by earlier
//! versions (`manifest.json` beside `previous.bin`) are still listed and undone.
//!
//! Undo restores the newest not-yet-undone run of a kind. It refuses when any file of the run
//! holds something other than what the run left there or what it found there (someone changed it
//! since), so an undo never overwrites work done after the run.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use chrono::Timelike;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::project::Root;
use crate::root_writer::{self, RootError, RootWriter};
use crate::safe_fs::{self, FsError};
use crate::store::{self, StoreError};

/// The directory under a state dir holding every run's backup.
pub const BACKUP_DIR: &str = "backups";
/// One run's record: its [`Manifest`] as one line of JSON, a newline, then the previous contents
/// of its files concatenated ([`BackupFile::saved_at`] counts from the byte after that
/// newline). One write and one fsync however many files the run touches.
pub const RUN_FILE: &str = "run.bin";
/// The manifest file of a run recorded by an earlier version (read, never written).
pub const MANIFEST_FILE: &str = "manifest.json";
/// That run's previous contents, concatenated (read, never written).
pub const ARCHIVE_FILE: &str = "previous.bin";
/// How many runs are kept; older backups are pruned when a new run is recorded.
pub const KEEP_RUNS: usize = 20;

/// Which command made a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RunKind {
    Dream,
    Forget,
}

impl RunKind {
    pub fn as_str(self) -> &'static str {
        match self {
            RunKind::Dream => "dream",
            RunKind::Forget => "forget",
        }
    }
}

/// Failures recording or undoing a run.
#[derive(Debug, thiserror::Error)]
pub enum BackupError {
    #[error("nothing to undo: no {0} run is recorded")]
    NothingToUndo(&'static str),
    #[error(
        "refusing to undo {kind} run {run_id}: {} changed since (undo would overwrite that work)",
        paths.join(", ")
    )]
    ChangedSince {
        kind: &'static str,
        run_id: String,
        paths: Vec<String>,
    },
    #[error("backup {0} is damaged: {1}")]
    Damaged(String, String),
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Root(#[from] RootError),
}

fn io_err(path: &Path, source: io::Error) -> BackupError {
    BackupError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// One planned change of a file, as the caller describes it before applying it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedChange {
    /// Path relative to the memory root, `/`-separated.
    pub relative_path: String,
    /// The bytes the file holds now, `None` when it does not exist yet.
    pub before: Option<Vec<u8>>,
    /// The bytes it will hold, `None` when the run deletes it.
    pub after: Option<Vec<u8>>,
}

/// One file of a recorded run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BackupFile {
    pub relative_path: String,
    /// Where the previous content sits in the run's [`ARCHIVE_FILE`] (byte offset, length);
    /// `None` when the file did not exist before the run.
    pub saved_at: Option<(u64, u64)>,
    pub before_sha256: Option<String>,
    /// Modification time before the run (nanoseconds since the epoch), restored by undo so the
    /// newest-first order of the root comes back too.
    #[serde(default)]
    pub before_mtime_ns: Option<u64>,
    /// SHA-256 of the content the run left; `None` when the run deleted the file.
    pub after_sha256: Option<String>,
}

/// The manifest of one run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Manifest {
    pub run_id: String,
    pub kind: RunKind,
    pub created_at: String,
    /// The memory root the paths are relative to.
    pub root: String,
    pub files: Vec<BackupFile>,
    /// Set when the run has been undone.
    #[serde(default)]
    pub undone_at: Option<String>,
}

/// A recorded run: its directory and manifest.
#[derive(Debug, Clone)]
pub struct RecordedRun {
    pub dir: PathBuf,
    pub manifest: Manifest,
    /// Recorded by an earlier version: `manifest.json` and `previous.bin`, not [`RUN_FILE`].
    legacy: bool,
}

/// Hex SHA-256 of bytes.
pub fn sha256_hex(bytes: &[u8]) -> String {
    crate::formats::text::hex(&Sha256::digest(bytes))
}

/// The time part of a run id: UTC to the millisecond, `20261202T153000123Z`.
const RUN_TIME_FORMAT: &str = "%Y%m%dT%H%M%S%3fZ";

/// A fresh, sortable run id for `w`'s root: UTC time to the millisecond plus the PID, later
/// than every run already recorded there. Runs are ordered (newest first for `--undo`, oldest
/// pruned first) by their ids, so after the clock stepped back an id taken from the clock alone
/// would sort before the runs it follows: the undo would pick an older run and pruning could
/// delete the one just written. Taken under the root's mutation lock, as [`record`] is.
pub fn new_run_id(w: &RootWriter) -> String {
    let newest = fs::read_dir(w.root().state_dir.join(BACKUP_DIR))
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| run_time(&e.file_name().to_string_lossy()))
        .max();
    run_id_after(chrono::Utc::now().naive_utc(), newest)
}

/// The time of a run id, `None` for a name that is not one.
fn run_time(id: &str) -> Option<chrono::NaiveDateTime> {
    let end = id.find('Z')?;
    chrono::NaiveDateTime::parse_from_str(&id[..=end], RUN_TIME_FORMAT).ok()
}

/// The id for a run at `now`, one millisecond after `newest` when the clock is not past it.
fn run_id_after(now: chrono::NaiveDateTime, newest: Option<chrono::NaiveDateTime>) -> String {
    let now = now
        .with_nanosecond(now.nanosecond() / 1_000_000 * 1_000_000)
        .unwrap_or(now);
    let at = match newest {
        Some(n) if n >= now => n + chrono::TimeDelta::milliseconds(1),
        _ => now,
    };
    format!("{}-{}", at.format(RUN_TIME_FORMAT), std::process::id())
}

/// Records a run before it changes anything: saves the previous content of every file and
/// writes the manifest. The caller holds the root's mutation lock and applies the changes only
/// after this returns. Older runs beyond [`KEEP_RUNS`] are pruned.
pub fn record(
    w: &RootWriter,
    kind: RunKind,
    run_id: &str,
    changes: &[PlannedChange],
) -> Result<RecordedRun, BackupError> {
    let root_path = &w.root().path;
    let base = w.root().state_dir.join(BACKUP_DIR);
    let dir = base.join(run_id);
    let mut files = Vec::with_capacity(changes.len());
    let mut archive = Vec::new();
    for change in changes {
        let saved_at = change.before.as_ref().map(|bytes| {
            let at = (archive.len() as u64, bytes.len() as u64);
            archive.extend_from_slice(bytes);
            at
        });
        let before_mtime_ns = change
            .before
            .as_ref()
            .and_then(|_| fs::symlink_metadata(root_path.join(&change.relative_path)).ok())
            .and_then(|m| m.modified().ok())
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .and_then(|d| u64::try_from(d.as_nanos()).ok());
        files.push(BackupFile {
            relative_path: change.relative_path.clone(),
            saved_at,
            before_mtime_ns,
            before_sha256: change.before.as_deref().map(sha256_hex),
            after_sha256: change.after.as_deref().map(sha256_hex),
        });
    }
    let manifest = Manifest {
        run_id: run_id.to_string(),
        kind,
        created_at: store::now_iso(),
        root: root_path.display().to_string(),
        files,
        undone_at: None,
    };
    // The directory is created by the atomic write, which refuses a symlink or special file.
    write_run(&dir, &manifest, &archive)?;
    prune(&base, KEEP_RUNS);
    Ok(RecordedRun {
        dir,
        manifest,
        legacy: false,
    })
}

/// Writes a run's [`RUN_FILE`] atomically.
fn write_run(dir: &Path, manifest: &Manifest, archive: &[u8]) -> Result<(), BackupError> {
    let mut bytes = serde_json::to_vec(manifest)
        .map_err(|e| BackupError::Damaged(manifest.run_id.clone(), e.to_string()))?;
    bytes.push(b'\n');
    bytes.extend_from_slice(archive);
    store::atomic_write(&dir.join(RUN_FILE), &bytes)?;
    // The run must be on disk before the first document is rewritten: its file's entry in the
    // run directory, the run directory's entry in `backups/` (created just now), and
    // `backups/`'s own entry in the state directory (new on the first run).
    let sync = |d: &Path| safe_fs::sync_dir(d).map_err(store::StoreError::from);
    sync(dir)?;
    let backups = dir.parent();
    for d in backups.into_iter().chain(backups.and_then(Path::parent)) {
        sync(d)?;
    }
    Ok(())
}

/// Rewrites the manifest of an earlier version's run.
fn write_legacy_manifest(dir: &Path, manifest: &Manifest) -> Result<(), BackupError> {
    let value = serde_json::to_value(manifest)
        .map_err(|e| BackupError::Damaged(manifest.run_id.clone(), e.to_string()))?;
    store::atomic_write(
        &dir.join(MANIFEST_FILE),
        store::to_pretty_json(&value).as_bytes(),
    )?;
    Ok(())
}

/// The manifest line of a [`RUN_FILE`] (read up to the first newline, not the saved copies).
fn read_run_manifest(path: &Path) -> Option<Manifest> {
    use std::io::BufRead;
    let file = safe_fs::open_regular(path).ok()?;
    let mut line = Vec::new();
    io::BufReader::new(file).read_until(b'\n', &mut line).ok()?;
    serde_json::from_slice(line.strip_suffix(b"\n")?).ok()
}

/// A run's manifest and saved copies, from its [`RUN_FILE`] or an earlier version's two files.
fn read_run(run: &RecordedRun) -> Result<(Manifest, Vec<u8>), BackupError> {
    let missing = |path: &Path, what: &str| {
        io_err(
            path,
            io::Error::new(io::ErrorKind::NotFound, what.to_string()),
        )
    };
    if run.legacy {
        let path = run.dir.join(ARCHIVE_FILE);
        let archive = if run.manifest.files.iter().any(|f| f.saved_at.is_some()) {
            safe_fs::read_regular(&path)
                .map_err(StoreError::from)?
                .ok_or_else(|| missing(&path, "backup archive missing"))?
        } else {
            Vec::new()
        };
        return Ok((run.manifest.clone(), archive));
    }
    let path = run.dir.join(RUN_FILE);
    let bytes = safe_fs::read_regular(&path)
        .map_err(StoreError::from)?
        .ok_or_else(|| missing(&path, "backup missing"))?;
    let damaged = |why: String| BackupError::Damaged(run.manifest.run_id.clone(), why);
    let at = bytes
        .iter()
        .position(|&b| b == b'\n')
        .ok_or_else(|| damaged("no manifest line".into()))?;
    let manifest: Manifest =
        serde_json::from_slice(&bytes[..at]).map_err(|e| damaged(e.to_string()))?;
    Ok((manifest, bytes[at + 1..].to_vec()))
}

/// Every recorded run under `state_dir`, newest first. Unreadable manifests are skipped.
pub fn runs(state_dir: &Path) -> Vec<RecordedRun> {
    let base = state_dir.join(BACKUP_DIR);
    let Ok(entries) = fs::read_dir(&base) else {
        return Vec::new();
    };
    let mut out: Vec<RecordedRun> = entries
        .flatten()
        .filter_map(|e| {
            let dir = e.path();
            if let Some(manifest) = read_run_manifest(&dir.join(RUN_FILE)) {
                return Some(RecordedRun {
                    dir,
                    manifest,
                    legacy: false,
                });
            }
            let text = safe_fs::read_regular_string(&dir.join(MANIFEST_FILE)).ok()??;
            let manifest: Manifest = serde_json::from_str(&text).ok()?;
            Some(RecordedRun {
                dir,
                manifest,
                legacy: true,
            })
        })
        .collect();
    out.sort_by(|a, b| b.manifest.run_id.cmp(&a.manifest.run_id));
    out
}

/// The newest run of `kind` that has not been undone.
pub fn last_run(state_dir: &Path, kind: RunKind) -> Option<RecordedRun> {
    runs(state_dir)
        .into_iter()
        .find(|r| r.manifest.kind == kind && r.manifest.undone_at.is_none())
}

fn prune(base: &Path, keep: usize) {
    let Ok(entries) = fs::read_dir(base) else {
        return;
    };
    // The kind from the directory listing: no stat per run.
    let mut dirs: Vec<PathBuf> = entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.path())
        .collect();
    dirs.sort();
    if dirs.len() > keep {
        for old in &dirs[..dirs.len() - keep] {
            let _ = fs::remove_dir_all(old);
        }
    }
}

/// What an undo restored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UndoOutcome {
    pub run_id: String,
    pub kind: RunKind,
    /// Files written back with their previous content.
    pub restored: Vec<String>,
    /// Files the run had created, removed again.
    pub removed: Vec<String>,
    /// Why `MEMORY.md` could not be rebuilt afterwards (the files are restored anyway).
    pub index_error: Option<String>,
}

/// The current bytes of a file, `None` when it does not exist. A symlink at the file reads as
/// a marker that matches no recorded state; a symlinked directory on the way or a special file
/// is an error.
fn current_bytes(w: &RootWriter, relative: &str) -> Result<Option<Vec<u8>>, BackupError> {
    match w.read_doc(relative) {
        Ok(bytes) => Ok(bytes),
        Err(RootError::Store(StoreError::Fs(FsError::Symlink(p))))
            if p == w.root().path.join(relative) =>
        {
            Ok(Some(b"<symlink>".to_vec()))
        }
        Err(e) => Err(e.into()),
    }
}

/// Undoes the newest not-yet-undone run of `kind` on `root`, under the root's mutation lock,
/// then rebuilds the index. Each file must hold either what the run left (its after state) or
/// what it found (a run killed before reaching that file); anything else refuses the whole undo
/// before a single file changes.
pub fn undo_last(root: &Root, kind: RunKind) -> Result<UndoOutcome, BackupError> {
    undo_last_locked(&RootWriter::lock(root)?, kind)
}

fn undo_last_locked(w: &RootWriter, kind: RunKind) -> Result<UndoOutcome, BackupError> {
    let root = w.root();
    let run = last_run(&root.state_dir, kind).ok_or(BackupError::NothingToUndo(kind.as_str()))?;
    let (manifest, archive) = read_run(&run)?;
    let m = &manifest;
    let mut changed = Vec::new();
    let mut restores: Vec<(&BackupFile, Option<Vec<u8>>)> = Vec::new();
    for f in &m.files {
        root_writer::resolve_relative(&root.path, &f.relative_path).ok_or_else(|| {
            BackupError::Damaged(m.run_id.clone(), format!("bad path {}", f.relative_path))
        })?;
        let now = current_bytes(w, &f.relative_path)?;
        let now_hash = now.as_deref().map(sha256_hex);
        if now_hash != f.after_sha256 && now_hash != f.before_sha256 {
            changed.push(f.relative_path.clone());
            continue;
        }
        let before = match f.saved_at {
            Some((offset, len)) => {
                let bytes = usize::try_from(offset)
                    .ok()
                    .zip(usize::try_from(len).ok())
                    .and_then(|(o, l)| archive.get(o..o.checked_add(l)?))
                    .map(<[u8]>::to_vec)
                    .unwrap_or_default();
                if Some(sha256_hex(&bytes)) != f.before_sha256 {
                    return Err(BackupError::Damaged(
                        m.run_id.clone(),
                        format!("saved copy of {} does not match", f.relative_path),
                    ));
                }
                Some(bytes)
            }
            None => None,
        };
        restores.push((f, before));
    }
    if !changed.is_empty() {
        return Err(BackupError::ChangedSince {
            kind: kind.as_str(),
            run_id: m.run_id.clone(),
            paths: changed,
        });
    }
    let mut outcome = UndoOutcome {
        run_id: m.run_id.clone(),
        kind,
        restored: Vec::new(),
        removed: Vec::new(),
        index_error: None,
    };
    for (f, before) in restores {
        match before {
            Some(bytes) => {
                w.write_doc(&f.relative_path, &bytes)?;
                if let Some(ns) = f.before_mtime_ns {
                    let t = std::time::UNIX_EPOCH + std::time::Duration::from_nanos(ns);
                    // The content matters more than the time stamp.
                    let _ = w.set_doc_mtime(&f.relative_path, t);
                }
                outcome.restored.push(f.relative_path.clone());
            }
            None => {
                w.delete_doc(&f.relative_path)?;
                outcome.removed.push(f.relative_path.clone());
            }
        }
    }
    let mut done = m.clone();
    done.undone_at = Some(store::now_iso());
    if run.legacy {
        write_legacy_manifest(&run.dir, &done)?;
    } else {
        write_run(&run.dir, &done, &archive)?;
    }
    // The restore stands even when the index cannot be rebuilt.
    outcome.index_error = w.rebuild_index().err().map(|e| e.to_string());
    Ok(outcome)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scan::Scope;

    fn test_root(dir: &Path) -> Root {
        let state = dir.join("state");
        Root::new(Scope::Private, state.clone(), state.join("memory"), state)
    }

    fn change(rel: &str, before: Option<&str>, after: Option<&str>) -> PlannedChange {
        PlannedChange {
            relative_path: rel.into(),
            before: before.map(|s| s.as_bytes().to_vec()),
            after: after.map(|s| s.as_bytes().to_vec()),
        }
    }

    fn apply(root: &Root, changes: &[PlannedChange]) {
        for c in changes {
            let p = root.path.join(&c.relative_path);
            match &c.after {
                Some(b) => {
                    fs::create_dir_all(p.parent().unwrap()).unwrap();
                    fs::write(&p, b).unwrap()
                }
                None => fs::remove_file(&p).unwrap(),
            }
        }
    }

    #[test]
    fn undo_round_trips_rewrites_deletes_and_creations() {
        let dir = tempfile::tempdir().unwrap();
        let root = test_root(dir.path());
        fs::create_dir_all(root.path.join("a")).unwrap();
        fs::write(root.path.join("a/x.md"), "old x").unwrap();
        fs::write(root.path.join("a/y.md"), "old y").unwrap();
        let changes = vec![
            change("a/x.md", Some("old x"), Some("new x")),
            change("a/y.md", Some("old y"), None),
            change("a/z.md", None, Some("created z")),
        ];
        record(
            &RootWriter::lock(&root).unwrap(),
            RunKind::Dream,
            "r1",
            &changes,
        )
        .unwrap();
        apply(&root, &changes);
        let out = undo_last(&root, RunKind::Dream).unwrap();
        assert_eq!(out.restored, vec!["a/x.md", "a/y.md"]);
        assert_eq!(out.removed, vec!["a/z.md"]);
        assert_eq!(
            fs::read_to_string(root.path.join("a/x.md")).unwrap(),
            "old x"
        );
        assert_eq!(
            fs::read_to_string(root.path.join("a/y.md")).unwrap(),
            "old y"
        );
        assert!(!root.path.join("a/z.md").exists());
        // Undone runs are not undone twice.
        assert!(matches!(
            undo_last(&root, RunKind::Dream),
            Err(BackupError::NothingToUndo("dream"))
        ));
    }

    #[test]
    fn undo_refuses_when_a_file_changed_since() {
        let dir = tempfile::tempdir().unwrap();
        let root = test_root(dir.path());
        fs::create_dir_all(&root.path).unwrap();
        fs::write(root.path.join("x.md"), "old").unwrap();
        let changes = vec![change("x.md", Some("old"), Some("new"))];
        record(
            &RootWriter::lock(&root).unwrap(),
            RunKind::Forget,
            "r1",
            &changes,
        )
        .unwrap();
        apply(&root, &changes);
        fs::write(root.path.join("x.md"), "edited by hand").unwrap();
        let err = undo_last(&root, RunKind::Forget).unwrap_err();
        assert!(matches!(err, BackupError::ChangedSince { .. }), "{err}");
        assert_eq!(
            fs::read_to_string(root.path.join("x.md")).unwrap(),
            "edited by hand"
        );
        // A dream undo does not see forget runs.
        assert!(matches!(
            undo_last(&root, RunKind::Dream),
            Err(BackupError::NothingToUndo(_))
        ));
    }

    #[test]
    fn a_half_applied_run_is_undoable() {
        let dir = tempfile::tempdir().unwrap();
        let root = test_root(dir.path());
        fs::create_dir_all(&root.path).unwrap();
        fs::write(root.path.join("x.md"), "x0").unwrap();
        fs::write(root.path.join("y.md"), "y0").unwrap();
        let changes = vec![
            change("x.md", Some("x0"), Some("x1")),
            change("y.md", Some("y0"), None),
        ];
        record(
            &RootWriter::lock(&root).unwrap(),
            RunKind::Dream,
            "r1",
            &changes,
        )
        .unwrap();
        apply(&root, &changes[..1]);
        undo_last(&root, RunKind::Dream).unwrap();
        assert_eq!(fs::read_to_string(root.path.join("x.md")).unwrap(), "x0");
        assert_eq!(fs::read_to_string(root.path.join("y.md")).unwrap(), "y0");
    }

    #[test]
    fn a_run_is_recorded_in_one_file() {
        let dir = tempfile::tempdir().unwrap();
        let root = test_root(dir.path());
        fs::create_dir_all(&root.path).unwrap();
        fs::write(root.path.join("x.md"), "x0").unwrap();
        fs::write(root.path.join("y.md"), "y0").unwrap();
        let changes = vec![
            change("x.md", Some("x0"), Some("x1")),
            change("y.md", Some("y0"), None),
        ];
        let run = record(
            &RootWriter::lock(&root).unwrap(),
            RunKind::Forget,
            "r1",
            &changes,
        )
        .unwrap();
        // One file (one fsync), however many files the run touches.
        let names: Vec<String> = fs::read_dir(&run.dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, [RUN_FILE]);
        let bytes = fs::read(run.dir.join(RUN_FILE)).unwrap();
        assert!(
            bytes.ends_with(b"}\nx0y0"),
            "{:?}",
            String::from_utf8_lossy(&bytes)
        );
        apply(&root, &changes);
        undo_last(&root, RunKind::Forget).unwrap();
        assert_eq!(fs::read_to_string(root.path.join("x.md")).unwrap(), "x0");
        assert_eq!(fs::read_to_string(root.path.join("y.md")).unwrap(), "y0");
        // Marked undone in the same file, the saved copies kept.
        let again = fs::read(run.dir.join(RUN_FILE)).unwrap();
        assert!(again.ends_with(b"}\nx0y0"));
        assert!(last_run(&root.state_dir, RunKind::Forget).is_none());
    }

    #[test]
    fn a_run_an_earlier_version_recorded_is_undone() {
        let dir = tempfile::tempdir().unwrap();
        let root = test_root(dir.path());
        fs::create_dir_all(&root.path).unwrap();
        fs::write(root.path.join("x.md"), "x1").unwrap();
        let run = root.state_dir.join(BACKUP_DIR).join("r0");
        fs::create_dir_all(&run).unwrap();
        fs::write(run.join(ARCHIVE_FILE), "x0").unwrap();
        let manifest = Manifest {
            run_id: "r0".into(),
            kind: RunKind::Forget,
            created_at: "2026-01-01T00:00:00.000Z".into(),
            root: root.path.display().to_string(),
            files: vec![BackupFile {
                relative_path: "x.md".into(),
                saved_at: Some((0, 2)),
                before_sha256: Some(sha256_hex(b"x0")),
                before_mtime_ns: None,
                after_sha256: Some(sha256_hex(b"x1")),
            }],
            undone_at: None,
        };
        write_legacy_manifest(&run, &manifest).unwrap();
        let out = undo_last(&root, RunKind::Forget).unwrap();
        assert_eq!(out.restored, ["x.md"]);
        assert_eq!(fs::read_to_string(root.path.join("x.md")).unwrap(), "x0");
        let text = fs::read_to_string(run.join(MANIFEST_FILE)).unwrap();
        assert!(text.contains("\"undoneAt\": \"2"), "{text}");
        assert!(!run.join(RUN_FILE).exists());
    }

    #[test]
    fn newest_run_first_and_pruning() {
        let dir = tempfile::tempdir().unwrap();
        let root = test_root(dir.path());
        fs::create_dir_all(&root.path).unwrap();
        for i in 0..(KEEP_RUNS + 3) {
            record(
                &RootWriter::lock(&root).unwrap(),
                RunKind::Dream,
                &format!("r{i:03}"),
                &[],
            )
            .unwrap();
        }
        let all = runs(&root.state_dir);
        assert_eq!(all.len(), KEEP_RUNS);
        assert_eq!(all[0].manifest.run_id, format!("r{:03}", KEEP_RUNS + 2));
        let id = new_run_id(&RootWriter::lock(&root).unwrap());
        assert!(id.starts_with(&chrono::Utc::now().format("%Y%m%dT").to_string()));
        assert!(run_time(&id).is_some(), "{id}");
    }

    #[test]
    fn a_run_id_is_later_than_every_recorded_run_even_after_the_clock_stepped_back() {
        let t = |s: &str| chrono::NaiveDateTime::parse_from_str(s, RUN_TIME_FORMAT).unwrap();
        let now = t("20261202T100000500Z");
        let pid = std::process::id();
        assert_eq!(
            run_id_after(now, None),
            format!("20261202T100000500Z-{pid}")
        );
        assert_eq!(
            run_id_after(now, Some(t("20261202T090000000Z"))),
            format!("20261202T100000500Z-{pid}")
        );
        assert_eq!(
            run_id_after(now, Some(t("20261202T100000500Z"))),
            format!("20261202T100000501Z-{pid}")
        );
        assert_eq!(
            run_id_after(now, Some(t("20261203T235959999Z"))),
            format!("20261204T000000000Z-{pid}")
        );
        // Recorded runs from a clock an hour ahead: the new run is the newest, is what
        // `--undo` picks, and survives pruning.
        let dir = tempfile::tempdir().unwrap();
        let root = test_root(dir.path());
        fs::create_dir_all(&root.path).unwrap();
        let ahead = chrono::Utc::now().naive_utc() + chrono::TimeDelta::hours(1);
        for i in 0..KEEP_RUNS {
            let id = format!(
                "{}-1",
                (ahead + chrono::TimeDelta::seconds(i as i64)).format(RUN_TIME_FORMAT)
            );
            record(&RootWriter::lock(&root).unwrap(), RunKind::Forget, &id, &[]).unwrap();
        }
        let w = RootWriter::lock(&root).unwrap();
        let id = new_run_id(&w);
        record(&w, RunKind::Forget, &id, &[]).unwrap();
        let all = runs(&root.state_dir);
        assert_eq!(all.len(), KEEP_RUNS);
        assert_eq!(all[0].manifest.run_id, id);
        assert_eq!(
            last_run(&root.state_dir, RunKind::Forget)
                .unwrap()
                .manifest
                .run_id,
            id
        );
    }
}
