//! Every raw platform call outside the file primitives of `safe_fs` (which open, stat, lock and
//! rename through `openat` and friends): process liveness, the effective user, a new session
//! for a detached child, and removing a lock file when a signal ends the process. Each unsafe
//! block carries its SAFETY note; callers use the safe functions here. Unix only: on other
//! platforms the functions are conservative stand-ins (docs/development.md, "Who owns which
//! I/O").

use std::path::Path;
use std::process::Command;

pub use imp::*;

/// `O_NONBLOCK` for `OpenOptionsExt::custom_flags` (0 where there is none).
#[cfg(unix)]
pub const O_NONBLOCK: i32 = libc::O_NONBLOCK;
#[cfg(not(unix))]
pub const O_NONBLOCK: i32 = 0;

#[cfg(unix)]
mod imp {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::process::CommandExt;
    use std::sync::atomic::{AtomicPtr, Ordering};

    use super::{Command, Path};

    /// Whether a process with this PID exists (`kill(pid, 0)` succeeds).
    pub fn pid_alive(pid: i32) -> bool {
        // SAFETY: signal 0 performs only the permission and existence check.
        pid > 0 && unsafe { libc::kill(pid, 0) } == 0
    }

    /// The effective user id of this process.
    pub fn effective_uid() -> u32 {
        // SAFETY: geteuid has no preconditions and cannot fail.
        unsafe { libc::geteuid() }
    }

    /// Makes the child `cmd` spawns the leader of a new session (`setsid`), so a terminal's
    /// hang-up or Ctrl-C in the parent's session never reaches it.
    pub fn new_session_for_child(cmd: &mut Command) {
        // SAFETY: setsid is async-signal-safe and touches no memory of the parent.
        unsafe {
            cmd.pre_exec(|| {
                libc::setsid();
                Ok(())
            });
        }
    }

    const CLEANUP_SIGNALS: [libc::c_int; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

    /// Blocks the cleanup signals for the calling thread until dropped (pending ones are then
    /// delivered).
    pub struct BlockedSignals {
        old: libc::sigset_t,
    }

    impl BlockedSignals {
        /// Blocks SIGINT, SIGTERM and SIGHUP for the calling thread.
        pub fn new() -> BlockedSignals {
            // SAFETY: plain sigset manipulation on zero-initialised local sets.
            unsafe {
                let mut set: libc::sigset_t = std::mem::zeroed();
                let mut old: libc::sigset_t = std::mem::zeroed();
                libc::sigemptyset(&mut set);
                for sig in CLEANUP_SIGNALS {
                    libc::sigaddset(&mut set, sig);
                }
                libc::pthread_sigmask(libc::SIG_BLOCK, &set, &mut old);
                BlockedSignals { old }
            }
        }
    }

    impl Default for BlockedSignals {
        fn default() -> BlockedSignals {
            BlockedSignals::new()
        }
    }

    impl Drop for BlockedSignals {
        fn drop(&mut self) {
            // SAFETY: restores the mask saved by `new`.
            unsafe {
                libc::pthread_sigmask(libc::SIG_SETMASK, &self.old, std::ptr::null_mut());
            }
        }
    }

    /// The lock path the signal handler removes: a leaked C string, swapped out atomically so
    /// the handler and `Drop` never both free or unlink it.
    static SIGNAL_PATH: AtomicPtr<libc::c_char> = AtomicPtr::new(std::ptr::null_mut());

    extern "C" fn on_terminating_signal(sig: libc::c_int) {
        let p = SIGNAL_PATH.swap(std::ptr::null_mut(), Ordering::SeqCst);
        // SAFETY: `unlink`, `signal` and `raise` are async-signal-safe; `p` is a valid C string
        // leaked by `remove_on_terminating_signal` and no longer reachable by anyone else after
        // the swap.
        unsafe {
            if !p.is_null() {
                libc::unlink(p);
            }
            libc::signal(sig, libc::SIG_DFL);
            libc::raise(sig);
        }
    }

    /// Removes the file at `path` if SIGINT, SIGTERM or SIGHUP ends the process (then re-raises
    /// the signal with its default action). One path at a time: a later call replaces it.
    pub fn remove_on_terminating_signal(path: &Path) {
        let Ok(c) = CString::new(path.as_os_str().as_bytes()) else {
            return;
        };
        let old = SIGNAL_PATH.swap(c.into_raw(), Ordering::SeqCst);
        if !old.is_null() {
            // SAFETY: `old` came from `CString::into_raw` and was swapped out, so it is ours.
            drop(unsafe { CString::from_raw(old) });
        }
        let handler = on_terminating_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
        // SAFETY: installing a handler that only calls async-signal-safe functions.
        unsafe {
            for sig in CLEANUP_SIGNALS {
                libc::signal(sig, handler);
            }
        }
    }

    /// Forgets the path [`remove_on_terminating_signal`] named (its file is gone or kept).
    pub fn forget_signal_cleanup() {
        let old = SIGNAL_PATH.swap(std::ptr::null_mut(), Ordering::SeqCst);
        if !old.is_null() {
            // SAFETY: `old` came from `CString::into_raw` and was swapped out, so it is ours.
            drop(unsafe { CString::from_raw(old) });
        }
    }
}

#[cfg(not(unix))]
mod imp {
    use super::{Command, Path};

    /// Without a way to ask, every positive PID counts as alive (a lock is then only ever
    /// taken over when stale by age).
    pub fn pid_alive(pid: i32) -> bool {
        pid > 0
    }

    /// No user ids: every file counts as this user's.
    pub fn effective_uid() -> u32 {
        0
    }

    /// No sessions: the child is spawned as it is.
    pub fn new_session_for_child(_cmd: &mut Command) {}

    /// Blocks nothing.
    pub struct BlockedSignals;

    impl BlockedSignals {
        pub fn new() -> BlockedSignals {
            BlockedSignals
        }
    }

    impl Default for BlockedSignals {
        fn default() -> BlockedSignals {
            BlockedSignals
        }
    }

    /// No signal cleanup: a lock left by a killed process is taken over once stale.
    pub fn remove_on_terminating_signal(_path: &Path) {}

    pub fn forget_signal_cleanup() {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_is_alive_and_no_pid_zero_or_negative_is() {
        assert!(pid_alive(std::process::id() as i32));
        assert!(!pid_alive(0));
        assert!(!pid_alive(-1));
    }
}
