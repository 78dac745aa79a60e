//! Every raw platform call: process liveness, the effective user, a new session for a detached
//! child, removing a lock file when a signal ends the process, and the file primitives
//! `safe_fs` is built from (`open`/`openat` with `O_NOFOLLOW`, `fstat`/`fstatat`, `mkdirat`,
//! `unlinkat`, `renameat`, `flock`). Each unsafe block carries its SAFETY note; callers use the
//! safe functions here, and nothing else in the workspace names `libc` (tests/layers.rs).
//! Unix only: on other platforms the process functions are conservative stand-ins; the file
//! primitives have none, as `safe_fs` itself is written against `std::os::unix`
//! (docs/development.md, "Who owns which I/O").

use std::path::Path;
use std::process::Command;

#[cfg(unix)]
pub use files::*;
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

#[cfg(unix)]
mod files {
    //! The file primitives of `safe_fs`: descriptors in, descriptors and plain data out.
    use std::ffi::CStr;
    use std::io;
    use std::os::fd::{AsRawFd, BorrowedFd, FromRawFd, OwnedFd, RawFd};

    /// What is at a name, from the type bits of its mode.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum FileType {
        Regular,
        Directory,
        Symlink,
        Fifo,
        Socket,
        CharDevice,
        BlockDevice,
        Unknown,
    }

    /// What `fstat` and `fstatat` say that `safe_fs` uses.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub struct Stat {
        pub file_type: FileType,
        /// The permission bits (`st_mode & 0o7777`).
        pub permissions: u32,
    }

    impl Stat {
        // `mode_t` is narrower than u32 on some Unixes.
        #[allow(clippy::unnecessary_cast)]
        fn from_raw(st: &libc::stat) -> Stat {
            let file_type = match st.st_mode & libc::S_IFMT {
                libc::S_IFREG => FileType::Regular,
                libc::S_IFDIR => FileType::Directory,
                libc::S_IFLNK => FileType::Symlink,
                libc::S_IFIFO => FileType::Fifo,
                libc::S_IFSOCK => FileType::Socket,
                libc::S_IFCHR => FileType::CharDevice,
                libc::S_IFBLK => FileType::BlockDevice,
                _ => FileType::Unknown,
            };
            Stat {
                file_type,
                permissions: (st.st_mode & 0o7777) as u32,
            }
        }
    }

    /// How [`open`] and [`open_at`] open a name. Every mode sets `O_CLOEXEC`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Open {
        /// Read only; a symlink as the last component is refused (`O_NOFOLLOW`) and the open
        /// never blocks on a FIFO (`O_NONBLOCK`, see [`clear_nonblock`]).
        ReadNoFollow,
        /// A directory, read only, following symlinks (a path the caller trusts).
        Directory,
        /// A directory, read only, never through a symlink.
        DirectoryNoFollow,
        /// Write only, appending, created (`0o666` less the umask) when missing; no symlink,
        /// no blocking.
        AppendCreate,
        /// Read and write without truncating, created when missing; no symlink, no blocking.
        ReadWriteCreate,
        /// Write only, created exclusively with `mode` (less the umask); no symlink.
        CreateNew { mode: u32 },
    }

    impl Open {
        /// The open flags and, for a mode that creates, the file mode.
        fn flags(self) -> (libc::c_int, Option<libc::c_uint>) {
            let nofollow_rw = libc::O_CREAT | libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC;
            match self {
                Open::ReadNoFollow => (
                    libc::O_RDONLY | libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC,
                    None,
                ),
                Open::Directory => (libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC, None),
                Open::DirectoryNoFollow => (
                    libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC,
                    None,
                ),
                Open::AppendCreate => (libc::O_WRONLY | libc::O_APPEND | nofollow_rw, Some(0o666)),
                Open::ReadWriteCreate => (libc::O_RDWR | nofollow_rw, Some(0o666)),
                Open::CreateNew { mode } => (
                    libc::O_WRONLY
                        | libc::O_CREAT
                        | libc::O_EXCL
                        | libc::O_NOFOLLOW
                        | libc::O_CLOEXEC,
                    Some(mode as libc::c_uint),
                ),
            }
        }
    }

    /// The errors of these calls that `safe_fs` tells apart (beyond [`io::ErrorKind`]).
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum OsError {
        /// `ELOOP`: a symlink where `O_NOFOLLOW` forbids one.
        SymlinkLoop,
        /// `ENXIO`: a FIFO opened for writing with no reader (with `O_NONBLOCK`).
        NoSuchDeviceOrAddress,
        /// `ENOTDIR`: not a directory where one was asked for.
        NotADirectory,
        /// `EINVAL` or `EOPNOTSUPP` from `fsync` of a directory: the file system (some FUSE and
        /// network mounts) cannot sync one.
        SyncUnsupported,
    }

    /// Which [`OsError`] `err` is, if any.
    pub fn os_error(err: &io::Error) -> Option<OsError> {
        match err.raw_os_error()? {
            libc::ELOOP => Some(OsError::SymlinkLoop),
            libc::ENXIO => Some(OsError::NoSuchDeviceOrAddress),
            libc::ENOTDIR => Some(OsError::NotADirectory),
            libc::EINVAL | libc::EOPNOTSUPP => Some(OsError::SyncUnsupported),
            _ => None,
        }
    }

    /// A descriptor returned by a successful open, or the error of a failed one.
    fn owned(fd: RawFd) -> io::Result<OwnedFd> {
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: `fd` is a fresh descriptor from a successful open; nobody else owns it.
        Ok(unsafe { OwnedFd::from_raw_fd(fd) })
    }

    fn check(rc: libc::c_int) -> io::Result<()> {
        if rc == 0 {
            Ok(())
        } else {
            Err(io::Error::last_os_error())
        }
    }

    /// `open(2)` of a path.
    pub fn open(path: &CStr, how: Open) -> io::Result<OwnedFd> {
        let (flags, mode) = how.flags();
        // SAFETY: `path` is a valid NUL-terminated string; the mode is passed only with
        // `O_CREAT`, as open's variadic contract asks.
        let fd = unsafe {
            match mode {
                Some(mode) => libc::open(path.as_ptr(), flags, mode),
                None => libc::open(path.as_ptr(), flags),
            }
        };
        owned(fd)
    }

    /// `openat(2)` of `name` relative to the open directory `dir`.
    pub fn open_at(dir: BorrowedFd<'_>, name: &CStr, how: Open) -> io::Result<OwnedFd> {
        let (flags, mode) = how.flags();
        // SAFETY: `dir` is an open descriptor and `name` a valid NUL-terminated string; the
        // mode is passed only with `O_CREAT`.
        let fd = unsafe {
            match mode {
                Some(mode) => libc::openat(dir.as_raw_fd(), name.as_ptr(), flags, mode),
                None => libc::openat(dir.as_raw_fd(), name.as_ptr(), flags),
            }
        };
        owned(fd)
    }

    /// `mkdirat(2)`: creates the directory `name` in `dir` with `mode` (less the umask).
    pub fn mkdir_at(dir: BorrowedFd<'_>, name: &CStr, mode: u32) -> io::Result<()> {
        // SAFETY: valid descriptor and NUL-terminated name.
        check(unsafe { libc::mkdirat(dir.as_raw_fd(), name.as_ptr(), mode as libc::mode_t) })
    }

    /// `fstat(2)` of an open descriptor.
    pub fn fstat(fd: BorrowedFd<'_>) -> io::Result<Stat> {
        // SAFETY: `st` is plain old data, fully written by a successful fstat.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        // SAFETY: `fd` is an open descriptor.
        check(unsafe { libc::fstat(fd.as_raw_fd(), &mut st) })?;
        Ok(Stat::from_raw(&st))
    }

    /// `fstatat(2)` of `name` in `dir`, not following a symlink (`AT_SYMLINK_NOFOLLOW`).
    pub fn stat_at_nofollow(dir: BorrowedFd<'_>, name: &CStr) -> io::Result<Stat> {
        // SAFETY: `st` is plain old data, fully written by a successful fstatat.
        let mut st: libc::stat = unsafe { std::mem::zeroed() };
        // SAFETY: valid descriptor and NUL-terminated name.
        check(unsafe {
            libc::fstatat(
                dir.as_raw_fd(),
                name.as_ptr(),
                &mut st,
                libc::AT_SYMLINK_NOFOLLOW,
            )
        })?;
        Ok(Stat::from_raw(&st))
    }

    /// Clears `O_NONBLOCK` on an open descriptor (best effort: it only mattered for the open).
    pub fn clear_nonblock(fd: BorrowedFd<'_>) {
        // SAFETY: F_GETFL/F_SETFL on an open descriptor.
        unsafe {
            let flags = libc::fcntl(fd.as_raw_fd(), libc::F_GETFL);
            if flags >= 0 {
                libc::fcntl(fd.as_raw_fd(), libc::F_SETFL, flags & !libc::O_NONBLOCK);
            }
        }
    }

    /// `unlinkat(2)` of the file `name` in `dir` (a symlink itself, never its target).
    pub fn unlink_at(dir: BorrowedFd<'_>, name: &CStr) -> io::Result<()> {
        // SAFETY: valid descriptor and NUL-terminated name.
        check(unsafe { libc::unlinkat(dir.as_raw_fd(), name.as_ptr(), 0) })
    }

    /// `unlinkat(2)` with `AT_REMOVEDIR`: removes the empty directory `name` in `dir`.
    pub fn rmdir_at(dir: BorrowedFd<'_>, name: &CStr) -> io::Result<()> {
        // SAFETY: valid descriptor and NUL-terminated name.
        check(unsafe { libc::unlinkat(dir.as_raw_fd(), name.as_ptr(), libc::AT_REMOVEDIR) })
    }

    /// `renameat(2)` of `from` over `to`, both in `dir`.
    pub fn rename_at(dir: BorrowedFd<'_>, from: &CStr, to: &CStr) -> io::Result<()> {
        let fd = dir.as_raw_fd();
        // SAFETY: valid descriptor and NUL-terminated names.
        check(unsafe { libc::renameat(fd, from.as_ptr(), fd, to.as_ptr()) })
    }

    /// An exclusive `flock(2)` on `fd`, retried on `EINTR`: waits for it when `wait` is set,
    /// else `Ok(false)` when someone else holds it.
    pub fn flock_exclusive(fd: BorrowedFd<'_>, wait: bool) -> io::Result<bool> {
        let op = if wait {
            libc::LOCK_EX
        } else {
            libc::LOCK_EX | libc::LOCK_NB
        };
        loop {
            // SAFETY: flock on an open descriptor.
            if unsafe { libc::flock(fd.as_raw_fd(), op) } == 0 {
                return Ok(true);
            }
            let err = io::Error::last_os_error();
            match err.raw_os_error() {
                Some(libc::EINTR) => continue,
                Some(libc::EWOULDBLOCK) => return Ok(false),
                _ => return Err(err),
            }
        }
    }

    /// `mkfifo(3)` with mode 0o644, for the tests that plant a FIFO where a file is expected.
    #[cfg(test)]
    pub fn mkfifo(path: &std::path::Path) -> io::Result<()> {
        use std::os::unix::ffi::OsStrExt;
        let c = std::ffi::CString::new(path.as_os_str().as_bytes())
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "NUL in path"))?;
        // SAFETY: valid NUL-terminated path.
        check(unsafe { libc::mkfifo(c.as_ptr(), 0o644) })
    }
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
