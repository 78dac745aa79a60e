//! One extraction per root at a time, with a one-slot queue (SPEC §8.2 step 2; reference
//! qwen-extract §1.3).
//!
//! Processes coordinate through two files in the root's state dir:
//! - `extract.lock`: an advisory lock held for a whole run (planning included, so a slow model
//!   call never lets a second extraction of the same root start);
//! - `extract-queue.json`: the one queued request. A request that finds the lock taken writes
//!   itself there, replacing whatever was queued before (the latest request wins), and returns
//!   `queued`. The lock holder runs the queued request when its own run finishes.
//!
//! A queued request must never be stranded when the holder finishes at the same moment. The
//! queuer therefore tries the lock once more after writing the slot, and the holder looks at the
//! slot once more after releasing the lock: whichever of the two comes second sees the other's
//! write and runs the request. The slot itself is read-and-cleared under a short blocking lock
//! (`extract-queue.lock`) so a replacement can never be lost between a read and the removal.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::safe_fs::{self, FileLock};
use crate::store::{self, StoreError};

/// The run lock file in the state dir.
pub const RUN_LOCK_FILE: &str = "extract.lock";
/// The queue slot file in the state dir.
pub const QUEUE_FILE: &str = "extract-queue.json";
/// The lock guarding the queue slot.
pub const QUEUE_LOCK_FILE: &str = "extract-queue.lock";

/// A request as kept in the queue slot: everything needed to run it in another process.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct QueuedRequest {
    /// Absolute path of the transcript.
    pub transcript_path: String,
    pub session_id: Option<String>,
    /// `auto`, `qwen`, `claude` or `jsonl`.
    pub format: String,
    /// `auto`, `heuristic` or `model`.
    pub strategy: String,
    pub trigger: String,
    pub queued_at: String,
}

/// What scheduling did with a request.
#[derive(Debug)]
pub enum Scheduled<R> {
    /// This process ran its own request (`own`), then every request queued meanwhile.
    Ran { own: R, trailing: Vec<R> },
    /// Another process holds the lock; the request waits in the slot. If the holder finished
    /// in the meantime, this process ran the slot itself (`trailing`).
    Queued { trailing: Vec<R> },
    /// Another process holds the lock and the request cannot be queued (a dry run).
    AlreadyRunning,
}

/// Scheduling failures.
#[derive(Debug, thiserror::Error)]
pub enum QueueError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
}

fn io_err(path: &Path) -> impl FnOnce(io::Error) -> QueueError + '_ {
    move |source| QueueError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Runs `request` under the root's run lock, or queues it.
///
/// `run(request, own)` performs one extraction (`own` is true for the caller's own request and
/// false for queued ones). With `queueable` false (a dry run) a busy root gives
/// [`Scheduled::AlreadyRunning`] and nothing is written.
pub fn schedule<R>(
    state_dir: &Path,
    request: QueuedRequest,
    queueable: bool,
    mut run: impl FnMut(QueuedRequest, bool) -> R,
) -> Result<Scheduled<R>, QueueError> {
    let lock_path = state_dir.join(RUN_LOCK_FILE);
    if !queueable {
        // A dry run writes nothing, not even the lock file: without one, nobody is running.
        if FileLock::is_held(&lock_path) {
            return Ok(Scheduled::AlreadyRunning);
        }
        return Ok(Scheduled::Ran {
            own: run(request, true),
            trailing: Vec::new(),
        });
    }

    let try_lock = || FileLock::try_exclusive(&lock_path).map_err(StoreError::from);
    let mut trailing = Vec::new();
    let own = match try_lock()? {
        Some(guard) => {
            let own = run(request.clone(), true);
            drain(state_dir, &mut run, &mut trailing)?;
            drop(guard);
            Some(own)
        }
        None => None,
    };
    if own.is_none() {
        put(state_dir, &request)?;
        // The holder may have finished between our attempt and the write above.
        if let Some(guard) = try_lock()? {
            drain(state_dir, &mut run, &mut trailing)?;
            drop(guard);
        }
    }
    // A request queued after our last look at the slot but before we released the lock.
    while has_queued(state_dir) {
        match try_lock() {
            Ok(Some(guard)) => {
                drain(state_dir, &mut run, &mut trailing)?;
                drop(guard);
            }
            // Another holder took over; it will look at the slot before it lets go.
            _ => break,
        }
    }
    Ok(match own {
        Some(own) => Scheduled::Ran { own, trailing },
        None => Scheduled::Queued { trailing },
    })
}

/// Runs queued requests until the slot stays empty. The caller holds the run lock.
fn drain<R>(
    state_dir: &Path,
    run: &mut impl FnMut(QueuedRequest, bool) -> R,
    out: &mut Vec<R>,
) -> Result<(), QueueError> {
    while let Some(next) = take(state_dir)? {
        out.push(run(next, false));
    }
    Ok(())
}

/// Puts `request` into the slot, replacing any request already there (the latest wins).
pub fn put(state_dir: &Path, request: &QueuedRequest) -> Result<(), QueueError> {
    let text = serde_json::to_string_pretty(request).unwrap_or_default() + "\n";
    store::with_lock(&state_dir.join(QUEUE_LOCK_FILE), || {
        store::atomic_write(&state_dir.join(QUEUE_FILE), text.as_bytes())
    })??;
    Ok(())
}

/// Takes the queued request out of the slot. A slot that cannot be parsed is removed and
/// treated as empty: it can only come from a crash mid-write of an older version.
pub fn take(state_dir: &Path) -> Result<Option<QueuedRequest>, QueueError> {
    let path = state_dir.join(QUEUE_FILE);
    let taken = store::with_lock(&state_dir.join(QUEUE_LOCK_FILE), || {
        let text = match safe_fs::read_regular_string(&path) {
            Ok(Some(t)) => t,
            Ok(None) => return Ok(None),
            Err(e) => return Err(QueueError::Store(e.into())),
        };
        fs::remove_file(&path).map_err(io_err(&path))?;
        Ok(serde_json::from_str::<QueuedRequest>(&text).ok())
    })??;
    Ok(taken)
}

/// Whether a request waits in the slot.
pub fn has_queued(state_dir: &Path) -> bool {
    safe_fs::is_regular(&state_dir.join(QUEUE_FILE))
}

/// Whether another process holds the run lock of `state_dir` right now.
pub fn is_running(state_dir: &Path) -> bool {
    FileLock::is_held(&state_dir.join(RUN_LOCK_FILE))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(name: &str) -> QueuedRequest {
        QueuedRequest {
            transcript_path: format!("/t/{name}.jsonl"),
            session_id: Some(name.into()),
            format: "auto".into(),
            strategy: "auto".into(),
            trigger: "manual".into(),
            queued_at: "t".into(),
        }
    }

    /// Holds the run lock from "another process" (another open file description).
    fn hold(state: &Path) -> FileLock {
        FileLock::exclusive(&state.join(RUN_LOCK_FILE)).unwrap()
    }

    #[test]
    fn free_root_runs_own_then_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let mut seen = Vec::new();
        let s = schedule(dir.path(), req("a"), true, |r, own| {
            seen.push((r.session_id.clone().unwrap(), own));
        })
        .unwrap();
        assert!(matches!(s, Scheduled::Ran { trailing, .. } if trailing.is_empty()));
        assert_eq!(seen, vec![("a".to_string(), true)]);
        assert!(!has_queued(dir.path()));
    }

    #[test]
    fn busy_root_queues_latest_wins_and_holder_runs_it() {
        let dir = tempfile::tempdir().unwrap();
        let guard = hold(dir.path());
        assert!(is_running(dir.path()));
        for name in ["b", "c"] {
            let s = schedule(dir.path(), req(name), true, |_, _| panic!("must not run")).unwrap();
            assert!(matches!(s, Scheduled::Queued { trailing } if trailing.is_empty()));
        }
        // A dry run is not queued.
        let s = schedule(dir.path(), req("dry"), false, |_, _| panic!("must not run")).unwrap();
        assert!(matches!(s, Scheduled::AlreadyRunning));
        assert_eq!(take_peek(dir.path()).session_id.as_deref(), Some("c"));
        drop(guard);
        assert!(!is_running(dir.path()));

        // The next process runs its own request, then the queued one (only the latest).
        let mut seen = Vec::new();
        let s = schedule(dir.path(), req("d"), true, |r, own| {
            seen.push((r.session_id.clone().unwrap(), own));
        })
        .unwrap();
        assert!(matches!(s, Scheduled::Ran { trailing, .. } if trailing.len() == 1));
        assert_eq!(
            seen,
            vec![("d".to_string(), true), ("c".to_string(), false)]
        );
        assert!(!has_queued(dir.path()));
    }

    fn take_peek(state: &Path) -> QueuedRequest {
        let text = fs::read_to_string(state.join(QUEUE_FILE)).unwrap();
        serde_json::from_str(&text).unwrap()
    }

    #[test]
    fn a_request_queued_during_a_run_is_run_by_the_holder() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().to_path_buf();
        let mut seen = Vec::new();
        let s = schedule(&state, req("a"), true, |r, own| {
            if own {
                // Another process arrives while we run: it must queue.
                let inner = schedule(&state, req("b"), true, |_, _| panic!("queued")).unwrap();
                assert!(matches!(inner, Scheduled::Queued { .. }));
            }
            seen.push(r.session_id.unwrap());
        })
        .unwrap();
        assert!(matches!(s, Scheduled::Ran { .. }));
        assert_eq!(seen, vec!["a", "b"]);
    }

    #[test]
    fn dry_run_without_lock_file_writes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("state");
        let s = schedule(&state, req("a"), false, |_, _| 1).unwrap();
        assert!(matches!(s, Scheduled::Ran { own: 1, .. }));
        assert!(!state.exists());
    }

    #[test]
    fn corrupt_slot_is_cleared() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join(QUEUE_FILE), "{oops").unwrap();
        assert_eq!(take(dir.path()).unwrap(), None);
        assert!(!has_queued(dir.path()));
    }
}
