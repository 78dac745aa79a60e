//! One extraction per root at a time, with a queue of one slot per transcript
//! (docs/DESIGN.md, "Extract").
//!
//! Processes coordinate through files in the root's state dir:
//! - `extract.lock`: an advisory lock held for a whole run (planning included, so a slow model
//!   call never lets a second extraction of the same root start);
//! - `extract-queue/<hash of the transcript path>.json`: the queued request of one transcript.
//!   A request that finds the lock taken writes itself into its transcript's slot, replacing
//!   what that transcript had queued (its latest request wins: a later run of a transcript
//!   reads everything the earlier one would have), and returns `queued`. Requests for other
//!   transcripts, so other sessions, are never replaced. The lock holder runs every queued
//!   request, oldest first, when its own run finishes.
//!
//! A queued request must never be stranded when the holder finishes at the same moment. The
//! queuer therefore tries the lock once more after writing its slot, and the holder looks at the
//! queue once more after releasing the lock: whichever of the two comes second sees the other's
//! write and runs the request. Slots are written and taken under a short blocking lock
//! (`extract-queue.lock`) so a replacement can never be lost between a read and the removal.
//!
//! A slot is a typed JSON document ([`QueuedRequest`]). One that cannot be read as one (a
//! crash mid-write of an older version, a hand edit) is never read as defaults: the holder
//! moves it aside to `<slot>.corrupt` and reports it ([`SetAside`]); `status` names it.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::Digest;

use crate::integrations::transcript::Format;
use crate::ops::trigger::Trigger;
use crate::storage::safe_fs::{self, FileLock};
use crate::storage::settings::ExtractStrategy;
use crate::storage::store::{self, StoreError};

/// The run lock file in the state dir.
pub const RUN_LOCK_FILE: &str = "extract.lock";
/// The queue directory in the state dir: one slot file per transcript.
pub const QUEUE_DIR: &str = "extract-queue";
/// The single slot of older versions; still taken (first) so nothing queued is lost.
pub const LEGACY_QUEUE_FILE: &str = "extract-queue.json";
/// The lock guarding the queue slot.
pub const QUEUE_LOCK_FILE: &str = "extract-queue.lock";

/// A request as kept in a queue slot: everything needed to run it in another process.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct QueuedRequest {
    /// Absolute path of the transcript.
    pub transcript_path: String,
    pub session_id: Option<String>,
    pub format: Format,
    pub strategy: ExtractStrategy,
    /// Who asked (`manual`, `hook`, `retry`, …): reported, never interpreted (a value this
    /// version does not know is carried as it was).
    pub trigger: Trigger,
    pub queued_at: String,
}

/// What scheduling did with a request.
#[derive(Debug)]
pub enum Scheduled<R> {
    /// This process ran its own request (`own`), then every request queued meanwhile.
    /// `set_aside`: slots that could not be read, moved aside on the way.
    Ran {
        own: R,
        trailing: Vec<R>,
        set_aside: Vec<SetAside>,
    },
    /// Another process holds the lock; the request waits in the slot. If the holder finished
    /// in the meantime, this process ran the slot itself (`trailing`).
    Queued {
        trailing: Vec<R>,
        set_aside: Vec<SetAside>,
    },
    /// Another process holds the lock and the request cannot be queued (a dry run).
    AlreadyRunning,
}

/// A queue slot that could not be read as a request, moved out of the queue so it neither
/// blocks the queue nor is run with made-up values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetAside {
    /// The slot as it was found.
    pub path: PathBuf,
    /// Where it is now (`None` when even moving it failed; it was removed then).
    pub moved_to: Option<PathBuf>,
    /// Why it could not be read.
    pub reason: String,
}

impl std::fmt::Display for SetAside {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.moved_to {
            Some(to) => write!(
                f,
                "{}: unreadable extract queue slot ({}); moved aside to {}",
                self.path.display(),
                self.reason,
                to.display()
            ),
            None => write!(
                f,
                "{}: unreadable extract queue slot ({}); removed",
                self.path.display(),
                self.reason
            ),
        }
    }
}

/// Scheduling failures.
#[derive(Debug, thiserror::Error)]
pub enum QueueError {
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A slot that is not a request (reported by the read-only [`queued`]).
    #[error("{}: unreadable extract queue slot: {reason}", path.display())]
    Corrupt { path: PathBuf, reason: String },
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
/// false for queued ones). Each time this process holds the lock, `retries()` may hand back
/// requests to run again (earlier failures); they are queued unless their transcript already
/// has a request waiting, and run with the rest. With `queueable` false (a dry run) a busy root
/// gives [`Scheduled::AlreadyRunning`] and nothing is written.
pub fn schedule<R>(
    state_dir: &Path,
    request: QueuedRequest,
    queueable: bool,
    mut retries: impl FnMut() -> Vec<QueuedRequest>,
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
            set_aside: Vec::new(),
        });
    }

    let try_lock = || FileLock::try_exclusive(&lock_path).map_err(StoreError::from);
    let mut trailing = Vec::new();
    let mut set_aside = Vec::new();
    let own = match try_lock()? {
        Some(guard) => {
            let own = run(request.clone(), true);
            drain(
                state_dir,
                &mut retries,
                &mut run,
                &mut trailing,
                &mut set_aside,
            )?;
            drop(guard);
            Some(own)
        }
        None => None,
    };
    if own.is_none() {
        put(state_dir, &request)?;
        // The holder may have finished between our attempt and the write above.
        if let Some(guard) = try_lock()? {
            drain(
                state_dir,
                &mut retries,
                &mut run,
                &mut trailing,
                &mut set_aside,
            )?;
            drop(guard);
        }
    }
    // A request queued after our last look at the slot but before we released the lock.
    while has_queued(state_dir) {
        match try_lock() {
            Ok(Some(guard)) => {
                drain(
                    state_dir,
                    &mut retries,
                    &mut run,
                    &mut trailing,
                    &mut set_aside,
                )?;
                drop(guard);
            }
            // Another holder took over; it will look at the slot before it lets go.
            _ => break,
        }
    }
    Ok(match own {
        Some(own) => Scheduled::Ran {
            own,
            trailing,
            set_aside,
        },
        None => Scheduled::Queued {
            trailing,
            set_aside,
        },
    })
}

/// Queues the retries, then runs queued requests until the queue stays empty. The caller holds
/// the run lock.
fn drain<R>(
    state_dir: &Path,
    retries: &mut impl FnMut() -> Vec<QueuedRequest>,
    run: &mut impl FnMut(QueuedRequest, bool) -> R,
    out: &mut Vec<R>,
    set_aside: &mut Vec<SetAside>,
) -> Result<(), QueueError> {
    for r in retries() {
        put_if_absent(state_dir, &r)?;
    }
    loop {
        let taken = take(state_dir)?;
        set_aside.extend(taken.set_aside);
        match taken.request {
            Some(next) => out.push(run(next, false)),
            None => return Ok(()),
        }
    }
}

/// The slot file of a transcript: named by a hash of its path, so any path is a safe name.
pub fn slot_path(state_dir: &Path, transcript_path: &str) -> PathBuf {
    let digest = sha2::Sha256::digest(transcript_path.as_bytes());
    let name = crate::formats::text::hex(&digest[..16]);
    state_dir.join(QUEUE_DIR).join(format!("{name}.json"))
}

/// Puts `request` into its transcript's slot, replacing what that transcript had queued (its
/// latest request wins); other transcripts' requests stay.
pub fn put(state_dir: &Path, request: &QueuedRequest) -> Result<(), QueueError> {
    store::with_lock(&state_dir.join(QUEUE_LOCK_FILE), || {
        write_slot(state_dir, request)
    })??;
    Ok(())
}

/// Puts `request` into its transcript's slot unless a request already waits there (a newer
/// request of the same transcript reads everything this one would). Returns whether it did.
pub fn put_if_absent(state_dir: &Path, request: &QueuedRequest) -> Result<bool, QueueError> {
    let slot = slot_path(state_dir, &request.transcript_path);
    let put = store::with_lock(&state_dir.join(QUEUE_LOCK_FILE), || {
        if slot.exists() {
            return Ok(false);
        }
        write_slot(state_dir, request).map(|()| true)
    })??;
    Ok(put)
}

fn write_slot(state_dir: &Path, request: &QueuedRequest) -> Result<(), StoreError> {
    let path = slot_path(state_dir, &request.transcript_path);
    let text = serde_json::to_string_pretty(request).map_err(|e| StoreError::Json {
        path: path.clone(),
        message: e.to_string(),
    })? + "\n";
    store::atomic_write(&path, text.as_bytes())
}

/// What [`take`] found: the oldest request, and the slots it had to move aside on the way.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Taken {
    pub request: Option<QueuedRequest>,
    pub set_aside: Vec<SetAside>,
}

/// Takes the oldest queued request out of the queue (the slot of older versions first). A
/// slot that cannot be read as a request is moved aside (see the module docs) and reported in
/// [`Taken::set_aside`], never run with defaults.
pub fn take(state_dir: &Path) -> Result<Taken, QueueError> {
    let taken = store::with_lock(
        &state_dir.join(QUEUE_LOCK_FILE),
        || -> Result<_, QueueError> {
            let mut set_aside = Vec::new();
            let legacy = state_dir.join(LEGACY_QUEUE_FILE);
            if safe_fs::is_regular(&legacy) {
                match read_slot(&legacy) {
                    Ok(request) => {
                        fs::remove_file(&legacy).map_err(io_err(&legacy))?;
                        return Ok(Taken {
                            request: Some(request),
                            set_aside,
                        });
                    }
                    Err(reason) => set_aside.push(move_aside(&legacy, reason)),
                }
            }
            let mut waiting = Vec::new();
            for path in slot_files(state_dir)? {
                match read_slot(&path) {
                    Ok(request) => waiting.push((path, request)),
                    Err(reason) => set_aside.push(move_aside(&path, reason)),
                }
            }
            waiting.sort_by(|a, b| (&a.1.queued_at, &a.0).cmp(&(&b.1.queued_at, &b.0)));
            let Some((path, request)) = waiting.into_iter().next() else {
                return Ok(Taken {
                    request: None,
                    set_aside,
                });
            };
            fs::remove_file(&path).map_err(io_err(&path))?;
            Ok(Taken {
                request: Some(request),
                set_aside,
            })
        },
    )??;
    Ok(taken)
}

/// Every request waiting in the queue, oldest first (read only). A slot that cannot be read is
/// an error naming it ([`QueueError::Corrupt`]); the next holder moves it aside.
pub fn queued(state_dir: &Path) -> Result<Vec<QueuedRequest>, QueueError> {
    let mut waiting = Vec::new();
    for path in slot_files(state_dir)? {
        match read_slot(&path) {
            Ok(r) => waiting.push((path, r)),
            Err(reason) => return Err(QueueError::Corrupt { path, reason }),
        }
    }
    waiting.sort_by(|a, b| (&a.1.queued_at, &a.0).cmp(&(&b.1.queued_at, &b.0)));
    Ok(waiting.into_iter().map(|(_, r)| r).collect())
}

/// The slot files in the queue directory (not the temporary files of a write in progress,
/// which start with a dot, nor slots already moved aside).
fn slot_files(state_dir: &Path) -> Result<Vec<PathBuf>, QueueError> {
    let dir = state_dir.join(QUEUE_DIR);
    let entries = match fs::read_dir(&dir) {
        Ok(e) => e,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io_err(&dir)(e)),
    };
    let mut out = Vec::new();
    for entry in entries {
        let entry = entry.map_err(io_err(&dir))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') || !name.ends_with(".json") {
            continue;
        }
        out.push(entry.path());
    }
    Ok(out)
}

/// One slot as a request, or why it is not one.
fn read_slot(path: &Path) -> Result<QueuedRequest, String> {
    match safe_fs::read_regular_string(path) {
        Ok(Some(text)) => serde_json::from_str(&text).map_err(|e| e.to_string()),
        Ok(None) => Err("vanished while being read".to_string()),
        Err(e) => Err(e.to_string()),
    }
}

/// Moves an unreadable slot out of the queue, to `<slot>.corrupt` beside it (replacing an
/// older one); removes it when it cannot be moved. The caller holds the queue lock.
fn move_aside(path: &Path, reason: String) -> SetAside {
    let mut to = path.as_os_str().to_owned();
    to.push(".corrupt");
    let to = PathBuf::from(to);
    let moved_to = match fs::rename(path, &to) {
        Ok(()) => Some(to),
        Err(_) => {
            let _ = fs::remove_file(path);
            None
        }
    };
    SetAside {
        path: path.to_path_buf(),
        moved_to,
        reason,
    }
}

/// Whether a request waits in the queue.
pub fn has_queued(state_dir: &Path) -> bool {
    if safe_fs::is_regular(&state_dir.join(LEGACY_QUEUE_FILE)) {
        return true;
    }
    fs::read_dir(state_dir.join(QUEUE_DIR)).is_ok_and(|entries| {
        entries.filter_map(Result::ok).any(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            !name.starts_with('.') && name.ends_with(".json")
        })
    })
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
            format: Format::Auto,
            strategy: ExtractStrategy::Auto,
            trigger: Trigger::Manual,
            queued_at: format!("t-{name}"),
        }
    }

    fn no_retries() -> Vec<QueuedRequest> {
        Vec::new()
    }

    /// Holds the run lock from "another process" (another open file description).
    fn hold(state: &Path) -> FileLock {
        FileLock::exclusive(&state.join(RUN_LOCK_FILE)).unwrap()
    }

    #[test]
    fn free_root_runs_own_then_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let mut seen = Vec::new();
        let s = schedule(dir.path(), req("a"), true, no_retries, |r, own| {
            seen.push((r.session_id.clone().unwrap(), own));
        })
        .unwrap();
        assert!(matches!(s, Scheduled::Ran { trailing, .. } if trailing.is_empty()));
        assert_eq!(seen, vec![("a".to_string(), true)]);
        assert!(!has_queued(dir.path()));
    }

    #[test]
    fn busy_root_queues_one_slot_per_transcript_and_the_holder_runs_them_all() {
        let dir = tempfile::tempdir().unwrap();
        let guard = hold(dir.path());
        assert!(is_running(dir.path()));
        for name in ["b", "c", "e"] {
            let s = schedule(dir.path(), req(name), true, no_retries, |_, _| {
                panic!("must not run")
            })
            .unwrap();
            assert!(matches!(s, Scheduled::Queued { trailing, .. } if trailing.is_empty()));
        }
        // A later request for c replaces c's, and only c's.
        let mut c2 = req("c");
        c2.trigger = Trigger::Hook;
        c2.queued_at = "t-z".into();
        schedule(dir.path(), c2, true, no_retries, |_, _| {
            panic!("must not run")
        })
        .unwrap();
        // A dry run is not queued.
        let s = schedule(dir.path(), req("dry"), false, no_retries, |_, _| {
            panic!("must not run")
        })
        .unwrap();
        assert!(matches!(s, Scheduled::AlreadyRunning));
        let waiting = queued(dir.path()).unwrap();
        let names: Vec<_> = waiting
            .iter()
            .map(|r| (r.session_id.clone().unwrap(), r.trigger.clone()))
            .collect();
        assert_eq!(
            names,
            vec![
                ("b".to_string(), Trigger::Manual),
                ("e".to_string(), Trigger::Manual),
                ("c".to_string(), Trigger::Hook)
            ]
        );
        drop(guard);
        assert!(!is_running(dir.path()));

        // The next process runs its own request, then every queued one, oldest first.
        let mut seen = Vec::new();
        let s = schedule(dir.path(), req("d"), true, no_retries, |r, own| {
            seen.push((r.session_id.clone().unwrap(), own));
        })
        .unwrap();
        assert!(matches!(s, Scheduled::Ran { trailing, .. } if trailing.len() == 3));
        assert_eq!(
            seen,
            vec![
                ("d".to_string(), true),
                ("b".to_string(), false),
                ("e".to_string(), false),
                ("c".to_string(), false)
            ]
        );
        assert!(!has_queued(dir.path()));
    }

    #[test]
    fn retries_are_run_by_the_holder_unless_their_transcript_is_queued() {
        let dir = tempfile::tempdir().unwrap();
        {
            let _g = hold(dir.path());
            schedule(dir.path(), req("b"), true, no_retries, |_, _| panic!()).unwrap();
        }
        let mut handed = 0;
        let mut seen = Vec::new();
        schedule(
            dir.path(),
            req("a"),
            true,
            || {
                handed += 1;
                let mut retry_b = req("b");
                retry_b.trigger = Trigger::Retry;
                let mut retry_x = req("x");
                retry_x.trigger = Trigger::Retry;
                vec![retry_b, retry_x]
            },
            |r, _| seen.push((r.session_id.unwrap(), r.trigger)),
        )
        .unwrap();
        assert_eq!(handed, 1);
        assert_eq!(
            seen,
            vec![
                ("a".to_string(), Trigger::Manual),
                ("b".to_string(), Trigger::Manual),
                ("x".to_string(), Trigger::Retry)
            ]
        );
    }

    #[test]
    fn a_request_queued_during_a_run_is_run_by_the_holder() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().to_path_buf();
        let mut seen = Vec::new();
        let s = schedule(&state, req("a"), true, no_retries, |r, own| {
            if own {
                // Another process arrives while we run: it must queue.
                let inner =
                    schedule(&state, req("b"), true, no_retries, |_, _| panic!("queued")).unwrap();
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
        let s = schedule(&state, req("a"), false, no_retries, |_, _| 1).unwrap();
        assert!(matches!(s, Scheduled::Ran { own: 1, .. }));
        assert!(!state.exists());
    }

    #[test]
    fn a_corrupt_slot_is_an_error_naming_it_and_is_moved_aside_never_run_as_defaults() {
        let dir = tempfile::tempdir().unwrap();
        let queue_dir = dir.path().join(QUEUE_DIR);
        fs::create_dir_all(&queue_dir).unwrap();
        let bad = queue_dir.join("bad.json");
        fs::write(&bad, "{oops").unwrap();
        // A well-formed document with a value no version wrote is corrupt too.
        let odd = queue_dir.join("odd.json");
        let mut text = serde_json::to_value(req("odd")).unwrap();
        text["strategy"] = "guess".into();
        fs::write(&odd, text.to_string()).unwrap();

        // Read only (status): a typed error naming the slot.
        let err = queued(dir.path()).unwrap_err();
        assert!(matches!(&err, QueueError::Corrupt { path, .. } if *path == bad || *path == odd));
        let shown = err.to_string();
        assert!(
            shown.contains("bad.json") || shown.contains("odd.json"),
            "{shown}"
        );

        // The holder moves both aside, says so, and runs only real requests.
        let mut seen = Vec::new();
        let s = schedule(dir.path(), req("a"), true, no_retries, |r, _| {
            seen.push(r.session_id.unwrap())
        })
        .unwrap();
        let Scheduled::Ran { set_aside, .. } = s else {
            panic!("expected a run");
        };
        assert_eq!(seen, vec!["a"]);
        let mut found: Vec<_> = set_aside.iter().map(|a| a.path.clone()).collect();
        found.sort();
        assert_eq!(found, vec![bad.clone(), odd.clone()]);
        let odd_note = set_aside.iter().find(|a| a.path == odd).unwrap();
        assert!(odd_note.reason.contains("guess"), "{}", odd_note.reason);
        assert!(
            odd_note.to_string().contains("odd.json.corrupt"),
            "{odd_note}"
        );
        assert!(queue_dir.join("bad.json.corrupt").is_file());
        assert!(queue_dir.join("odd.json.corrupt").is_file());
        assert!(!has_queued(dir.path()));
        assert_eq!(queued(dir.path()).unwrap(), Vec::new());
    }

    #[test]
    fn slots_are_typed_json_with_the_names_the_settings_use() {
        let dir = tempfile::tempdir().unwrap();
        let mut r = req("typed");
        r.format = Format::Claude;
        r.strategy = ExtractStrategy::Heuristic;
        put(dir.path(), &r).unwrap();
        let text = fs::read_to_string(slot_path(dir.path(), &r.transcript_path)).unwrap();
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["format"], "claude");
        assert_eq!(v["strategy"], "heuristic");
        assert_eq!(queued(dir.path()).unwrap(), vec![r]);
    }

    #[test]
    fn the_old_single_slot_is_still_run_and_a_corrupt_one_set_aside() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join(LEGACY_QUEUE_FILE), "not json").unwrap();
        let taken = take(dir.path()).unwrap();
        assert_eq!(taken.request, None);
        assert_eq!(taken.set_aside.len(), 1);
        assert_eq!(taken.set_aside[0].path, dir.path().join(LEGACY_QUEUE_FILE));
        assert!(!has_queued(dir.path()));
        let old = req("legacy");
        fs::write(
            dir.path().join(LEGACY_QUEUE_FILE),
            serde_json::to_string(&old).unwrap(),
        )
        .unwrap();
        assert!(has_queued(dir.path()));
        assert_eq!(take(dir.path()).unwrap().request, Some(old));
        assert!(!has_queued(dir.path()));
    }
}
