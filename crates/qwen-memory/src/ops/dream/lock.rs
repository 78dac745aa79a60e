//! The dream lock `consolidation.lock` (docs/DESIGN.md, "Dream").
//!
//! The file holds the holder's PID as decimal digits without a newline, the format Qwen Code
//! writes, so either tool sees the other's dream. It is stale, and removed, when older than one
//! hour or when its PID is not alive. Checking for staleness and creating the file happen under
//! the root's mutation lock, so two processes can never both judge a lock stale and then remove
//! each other's fresh one. Losing the exclusive create is a `locked` skip.
//!
//! The lock is released by [`DreamLock`]'s `Drop` on every normal and error path, and by a
//! SIGINT/SIGTERM handler that unlinks the file before letting the signal kill the process.
//! SIGKILL cannot be caught; the lock it leaves names a dead PID and the next run clears it.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use crate::storage::project::Root;
use crate::storage::root_writer::{RootError, RootWriter};
use crate::storage::safe_fs;
use crate::storage::sys;

/// The lock file name inside the state dir (as upstream).
pub const CONSOLIDATION_LOCK_FILE: &str = "consolidation.lock";
/// A lock older than this is stale whatever its PID.
pub const STALE_AFTER: Duration = Duration::from_secs(3600);

/// What the lock file says right now.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LockInfo {
    /// The PID written in the file, when it parses as a positive integer.
    pub pid: Option<i32>,
    /// Age of the file in milliseconds.
    pub age_ms: u64,
    /// Whether the lock is held by a live process and not older than an hour.
    pub live: bool,
}

/// Whether a process with this PID exists.
pub use crate::storage::sys::pid_alive;

/// Reads the lock in `state_dir`; `None` when there is no lock file.
pub fn inspect(state_dir: &Path) -> Option<LockInfo> {
    inspect_file(&state_dir.join(CONSOLIDATION_LOCK_FILE))
}

/// Qwen Code's own dream lock in local mode, `<worktree>/.qwen/consolidation.lock`: Qwen keeps
/// its state files next to the repository memory there, while this tool keeps its state in the
/// git dir, so the two locks are different files and each tool must look at the other's.
pub fn qwen_local_lock(worktree: &Path) -> PathBuf {
    worktree.join(".qwen").join(CONSOLIDATION_LOCK_FILE)
}

/// Qwen Code's local-mode lock, when it is live (a live PID, not older than an hour). It is
/// only ever read: a stale one is Qwen Code's to clear.
pub fn live_qwen_lock(worktree: Option<&Path>) -> Option<(PathBuf, LockInfo)> {
    let path = qwen_local_lock(worktree?);
    let info = inspect_file(&path)?;
    info.live.then_some((path, info))
}

/// Reads a lock file at `path`; `None` when there is none.
fn inspect_file(path: &Path) -> Option<LockInfo> {
    let meta = fs::symlink_metadata(path).ok()?;
    // A FIFO or symlink here reads as an unparsable PID (a stale lock), never a hang.
    let text = safe_fs::read_regular_string(path)
        .ok()
        .flatten()
        .unwrap_or_default();
    let pid = text.trim().parse::<i32>().ok().filter(|p| *p > 0);
    let age = meta
        .modified()
        .ok()
        .and_then(|m| SystemTime::now().duration_since(m).ok())
        .unwrap_or_default();
    let live = age <= STALE_AFTER && pid.is_some_and(pid_alive);
    Some(LockInfo {
        pid,
        age_ms: age.as_millis() as u64,
        live,
    })
}

/// A held dream lock; dropping it removes the file.
#[derive(Debug)]
pub struct DreamLock {
    path: PathBuf,
    pid: String,
}

impl DreamLock {
    /// The lock file path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for DreamLock {
    fn drop(&mut self) {
        sys::forget_signal_cleanup();
        // Only remove the file if it is still ours.
        if safe_fs::read_regular_string(&self.path).is_ok_and(|t| t.as_deref() == Some(&*self.pid))
        {
            let _ = fs::remove_file(&self.path);
        }
    }
}

/// Tries to take the dream lock of `root`. `Ok(None)` means another live process holds it.
pub fn try_acquire(root: &Root) -> Result<Option<DreamLock>, RootError> {
    let path = root.state_dir.join(CONSOLIDATION_LOCK_FILE);
    let pid = std::process::id().to_string();
    // Termination signals wait until the file exists *and* the handler knows its path, so a
    // signal can never leave behind a lock that this live process created.
    let _blocked = sys::BlockedSignals::new();
    let created = {
        let w = RootWriter::lock(root)?;
        match inspect(&root.state_dir) {
            Some(info) if info.live => false,
            stale => {
                if stale.is_some() {
                    // Only a regular file can be a lock someone left behind: a FIFO or symlink
                    // there is refused, naming it, rather than cleared.
                    safe_fs::read_regular(&path)?;
                    w.remove_state(CONSOLIDATION_LOCK_FILE)?;
                }
                w.create_state(CONSOLIDATION_LOCK_FILE, pid.as_bytes())?
            }
        }
    };
    if !created {
        return Ok(None);
    }
    sys::remove_on_terminating_signal(&path);
    Ok(Some(DreamLock { path, pid }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::scan::Scope;

    fn root(dir: &Path) -> Root {
        Root::new(
            Scope::Private,
            dir.to_path_buf(),
            dir.join("memory"),
            dir.to_path_buf(),
        )
    }

    #[test]
    fn acquire_writes_pid_without_newline_and_release_removes() {
        let dir = tempfile::tempdir().unwrap();
        let r = root(dir.path());
        let lock = try_acquire(&r).unwrap().expect("free lock");
        let text = fs::read_to_string(dir.path().join(CONSOLIDATION_LOCK_FILE)).unwrap();
        assert_eq!(text, std::process::id().to_string());
        assert!(inspect(dir.path()).unwrap().live);
        // Our own live PID holds it: a second acquire loses.
        assert!(try_acquire(&r).unwrap().is_none());
        drop(lock);
        assert!(!dir.path().join(CONSOLIDATION_LOCK_FILE).exists());
    }

    #[test]
    fn dead_pid_and_garbage_are_stale() {
        let dir = tempfile::tempdir().unwrap();
        let r = root(dir.path());
        // PID far above any pid_max is never alive.
        fs::write(dir.path().join(CONSOLIDATION_LOCK_FILE), "2147483646").unwrap();
        assert!(!inspect(dir.path()).unwrap().live);
        let lock = try_acquire(&r).unwrap().expect("stale lock cleared");
        drop(lock);
        fs::write(dir.path().join(CONSOLIDATION_LOCK_FILE), "not a pid").unwrap();
        assert!(try_acquire(&r).unwrap().is_some());
    }

    #[test]
    fn old_lock_is_stale_even_with_a_live_pid() {
        let dir = tempfile::tempdir().unwrap();
        let r = root(dir.path());
        let p = dir.path().join(CONSOLIDATION_LOCK_FILE);
        fs::write(&p, std::process::id().to_string()).unwrap();
        let f = fs::File::options().write(true).open(&p).unwrap();
        f.set_modified(SystemTime::now() - Duration::from_secs(3601))
            .unwrap();
        drop(f);
        assert!(!inspect(dir.path()).unwrap().live);
        assert!(try_acquire(&r).unwrap().is_some());
    }

    #[test]
    fn release_leaves_a_foreign_lock_alone() {
        let dir = tempfile::tempdir().unwrap();
        let r = root(dir.path());
        let lock = try_acquire(&r).unwrap().unwrap();
        fs::write(lock.path(), "1").unwrap();
        drop(lock);
        assert_eq!(
            fs::read_to_string(dir.path().join(CONSOLIDATION_LOCK_FILE)).unwrap(),
            "1"
        );
    }
}
