//! File-system primitives that never follow a symlink and never block on a special file.
//!
//! A memory root can sit inside a cloned repository, so every directory between a trusted
//! anchor (the working tree, the state dir, a configured base) and a file is opened one
//! component at a time with `openat(O_NOFOLLOW | O_DIRECTORY)`: a repository that commits
//! `.qwen -> /elsewhere` or `feedback -> ../../x` is refused with an error naming the link,
//! instead of being written through. Files are opened with `O_NOFOLLOW | O_NONBLOCK` and
//! checked with `fstat` to be regular, so a FIFO or a device where a file is expected is an
//! error rather than a hang. Writes are atomic: a temporary file in the same directory (named
//! `.<name>.<pid>-<n>.tmp`, never `*.md`, so a scan never sees it), fsync, then `renameat`
//! relative to the directory already opened. See docs/DESIGN.md, "Writes".
//!
//! The raw calls themselves are in [`crate::sys`]; nothing here is `unsafe`.

#![forbid(unsafe_code)]

use std::ffi::{CString, OsStr};
use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::sys::{self, FileType, Open, OsError};

/// Failures of the primitives, each naming the path involved.
#[derive(Debug, thiserror::Error)]
pub enum FsError {
    /// A symlink where a directory or file was expected; it is never followed.
    #[error("refusing to follow the symlink {0} (nothing is written or read through a link)")]
    Symlink(PathBuf),
    /// A FIFO, socket, device or directory where a regular file was expected.
    #[error("{path}: not a regular file ({kind}); refusing to open it")]
    NotRegular { path: PathBuf, kind: &'static str },
    /// A file where a directory was expected.
    #[error("{0}: not a directory")]
    NotDirectory(PathBuf),
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
}

impl FsError {
    fn io(path: &Path, source: io::Error) -> FsError {
        FsError::Io {
            path: path.to_path_buf(),
            source,
        }
    }

    /// Whether this is "the file does not exist".
    pub fn is_not_found(&self) -> bool {
        matches!(self, FsError::Io { source, .. } if source.kind() == io::ErrorKind::NotFound)
    }
}

/// What is at a name, without following a symlink.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    File,
    Dir,
    Symlink,
    /// A FIFO, socket or device.
    Special(&'static str),
}

fn kind_of(file_type: FileType) -> Kind {
    match file_type {
        FileType::Regular => Kind::File,
        FileType::Directory => Kind::Dir,
        FileType::Symlink => Kind::Symlink,
        FileType::Fifo => Kind::Special("a FIFO"),
        FileType::Socket => Kind::Special("a socket"),
        FileType::CharDevice => Kind::Special("a character device"),
        FileType::BlockDevice => Kind::Special("a block device"),
        FileType::Unknown => Kind::Special("an unknown file type"),
    }
}

fn kind_name(kind: Kind) -> &'static str {
    match kind {
        Kind::File => "a regular file",
        Kind::Dir => "a directory",
        Kind::Symlink => "a symlink",
        Kind::Special(k) => k,
    }
}

fn c_name(name: &OsStr, path: &Path) -> Result<CString, FsError> {
    let bytes = name.as_bytes();
    let single = !bytes.is_empty() && bytes != b"." && bytes != b".." && !bytes.contains(&b'/');
    if !single {
        return Err(FsError::io(
            path,
            io::Error::new(io::ErrorKind::InvalidInput, "not a single path component"),
        ));
    }
    CString::new(bytes).map_err(|_| {
        FsError::io(
            path,
            io::Error::new(io::ErrorKind::InvalidInput, "NUL in name"),
        )
    })
}

fn c_path(path: &Path) -> Result<CString, FsError> {
    CString::new(path.as_os_str().as_bytes()).map_err(|_| {
        FsError::io(
            path,
            io::Error::new(io::ErrorKind::InvalidInput, "NUL in path"),
        )
    })
}

/// Checks that an opened file is regular, then clears `O_NONBLOCK` (it only mattered for the
/// open itself, so a FIFO could not block there).
fn regular_file(fd: OwnedFd, path: &Path) -> Result<File, FsError> {
    let st = sys::fstat(fd.as_fd()).map_err(|e| FsError::io(path, e))?;
    match kind_of(st.file_type) {
        Kind::File => {}
        other => {
            return Err(FsError::NotRegular {
                path: path.to_path_buf(),
                kind: kind_name(other),
            })
        }
    }
    sys::clear_nonblock(fd.as_fd());
    Ok(File::from(fd))
}

/// Maps a failed open of a file to an error naming a symlink when that is what is there.
fn open_error(err: io::Error, path: &Path) -> FsError {
    match sys::os_error(&err) {
        Some(OsError::SymlinkLoop) => FsError::Symlink(path.to_path_buf()),
        Some(OsError::NoSuchDeviceOrAddress) => FsError::NotRegular {
            path: path.to_path_buf(),
            kind: "a FIFO",
        },
        _ => FsError::io(path, err),
    }
}

/// Opens a regular file for reading by full path: the last component is never followed and a
/// special file is refused without blocking. The directories above are trusted as given.
pub fn open_regular(path: &Path) -> Result<File, FsError> {
    let c = c_path(path)?;
    let fd = sys::open(&c, Open::ReadNoFollow).map_err(|e| open_error(e, path))?;
    regular_file(fd, path)
}

/// Reads a whole regular file (see [`open_regular`]); a missing file is `Ok(None)`.
pub fn read_regular(path: &Path) -> Result<Option<Vec<u8>>, FsError> {
    let mut file = match open_regular(path) {
        Ok(f) => f,
        Err(e) if e.is_not_found() => return Ok(None),
        Err(e) => return Err(e),
    };
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)
        .map_err(|e| FsError::io(path, e))?;
    Ok(Some(bytes))
}

/// [`read_regular`] as text (invalid UTF-8 replaced).
pub fn read_regular_string(path: &Path) -> Result<Option<String>, FsError> {
    Ok(read_regular(path)?.map(|b| match String::from_utf8(b) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    }))
}

/// Whether a regular file (not a symlink, not a FIFO) exists at `path`.
pub fn is_regular(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_file())
}

/// An open directory; every operation is relative to its descriptor, so a rename or symlink
/// swapped in above it after it was opened changes nothing.
#[derive(Debug)]
pub struct Dir {
    fd: OwnedFd,
    path: PathBuf,
}

static TMP_COUNTER: AtomicU64 = AtomicU64::new(0);

impl Dir {
    /// Opens a trusted directory by path (following symlinks: the caller vouches for it),
    /// creating it and its parents first when `create` is set.
    pub fn open_trusted(path: &Path, create: bool) -> Result<Dir, FsError> {
        if create {
            std::fs::create_dir_all(path).map_err(|e| FsError::io(path, e))?;
        }
        let c = c_path(path)?;
        let fd = sys::open(&c, Open::Directory).map_err(|err| match sys::os_error(&err) {
            Some(OsError::NotADirectory) => FsError::NotDirectory(path.to_path_buf()),
            _ => FsError::io(path, err),
        })?;
        Ok(Dir {
            fd,
            path: path.to_path_buf(),
        })
    }

    /// The path this directory was opened as (for messages).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Flushes this directory's entries to disk: a file renamed or a directory created in it
    /// survives a crash only once its directory is synced. A file system that cannot sync a
    /// directory (`EINVAL` or `ENOTSUP` from some FUSE and network mounts) has nothing more to
    /// give, so that answer is not an error.
    pub fn sync(&self) -> Result<(), FsError> {
        let fd = self
            .fd
            .try_clone()
            .map_err(|e| FsError::io(&self.path, e))?;
        match File::from(fd).sync_all() {
            Err(e) if sys::os_error(&e) == Some(OsError::SyncUnsupported) => Ok(()),
            other => other.map_err(|e| FsError::io(&self.path, e)),
        }
    }

    /// What is at `name` in this directory, without following a symlink; `None` when missing.
    pub fn kind(&self, name: &OsStr) -> Result<Option<Kind>, FsError> {
        let path = self.path.join(name);
        let c = c_name(name, &path)?;
        match self.stat_nofollow(&c, &path) {
            Ok(st) => Ok(Some(kind_of(st.file_type))),
            Err(e) if e.is_not_found() => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Opens the subdirectory `name` without following a symlink, creating it when `create` is
    /// set. `Ok(None)` when it is missing and not created.
    pub fn open_dir(&self, name: &OsStr, create: bool) -> Result<Option<Dir>, FsError> {
        let path = self.path.join(name);
        let c = c_name(name, &path)?;
        if create {
            match sys::mkdir_at(self.fd.as_fd(), &c, 0o777) {
                // A new directory's entry lives in its parent: synced, or a crash could lose
                // the directory with every file later renamed into it. When that sync fails
                // the (empty) directory is taken back, so that the next write creates it again
                // and syncs its parent then; left in place, no later write would.
                Ok(()) => {
                    if let Err(e) = self.sync() {
                        let _ = sys::rmdir_at(self.fd.as_fd(), &c);
                        return Err(e);
                    }
                }
                Err(err) if err.kind() == io::ErrorKind::AlreadyExists => {}
                Err(err) => return Err(FsError::io(&path, err)),
            }
        }
        let fd = match sys::open_at(self.fd.as_fd(), &c, Open::DirectoryNoFollow) {
            Ok(fd) => fd,
            Err(err) if err.kind() == io::ErrorKind::NotFound && !create => return Ok(None),
            Err(err) => {
                return match sys::os_error(&err) {
                    Some(OsError::SymlinkLoop) | Some(OsError::NotADirectory) => {
                        Err(match self.kind(name)? {
                            Some(Kind::Symlink) => FsError::Symlink(path),
                            _ => FsError::NotDirectory(path),
                        })
                    }
                    _ => Err(FsError::io(&path, err)),
                }
            }
        };
        Ok(Some(Dir { fd, path }))
    }

    /// Walks `relative` (plain components only) down from this directory, never following a
    /// symlink. `Ok(None)` when a component is missing and `create` is off.
    pub fn open_path(&self, relative: &Path, create: bool) -> Result<Option<Dir>, FsError> {
        let mut current: Option<Dir> = None;
        for comp in relative.components() {
            let name = match comp {
                Component::Normal(n) => n,
                Component::CurDir => continue,
                _ => {
                    return Err(FsError::io(
                        &self.path.join(relative),
                        io::Error::new(io::ErrorKind::InvalidInput, "path leaves its directory"),
                    ))
                }
            };
            let parent = current.as_ref().unwrap_or(self);
            match parent.open_dir(name, create)? {
                Some(d) => current = Some(d),
                None => return Ok(None),
            }
        }
        match current {
            Some(d) => Ok(Some(d)),
            None => self.try_clone().map(Some),
        }
    }

    fn try_clone(&self) -> Result<Dir, FsError> {
        let fd = self
            .fd
            .try_clone()
            .map_err(|e| FsError::io(&self.path, e))?;
        Ok(Dir {
            fd,
            path: self.path.clone(),
        })
    }

    /// Opens the regular file `name` for reading (no symlink, no special file, no blocking).
    /// `Ok(None)` when missing.
    pub fn open_read(&self, name: &OsStr) -> Result<Option<File>, FsError> {
        let path = self.path.join(name);
        let c = c_name(name, &path)?;
        let fd = match sys::open_at(self.fd.as_fd(), &c, Open::ReadNoFollow) {
            Ok(fd) => fd,
            Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(err) => return Err(open_error(err, &path)),
        };
        regular_file(fd, &path).map(Some)
    }

    /// Removes the permission bits in `mask` from this directory (through its descriptor, so
    /// never through a symlink); a no-op when none is set.
    pub fn restrict_mode(&self, mask: u32) -> Result<(), FsError> {
        restrict(
            &File::from(
                self.fd
                    .try_clone()
                    .map_err(|e| FsError::io(&self.path, e))?,
            ),
            mask,
        )
        .map_err(|e| FsError::io(&self.path, e))
    }

    /// [`Dir::restrict_mode`] for the regular file `name` (opened without following a
    /// symlink); a missing file is fine.
    pub fn restrict_file_mode(&self, name: &OsStr, mask: u32) -> Result<(), FsError> {
        match self.open_read(name)? {
            Some(file) => restrict(&file, mask).map_err(|e| FsError::io(&self.path.join(name), e)),
            None => Ok(()),
        }
    }

    /// Reads the regular file `name` whole; `Ok(None)` when missing.
    pub fn read(&self, name: &OsStr) -> Result<Option<Vec<u8>>, FsError> {
        let Some(mut file) = self.open_read(name)? else {
            return Ok(None);
        };
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes)
            .map_err(|e| FsError::io(&self.path.join(name), e))?;
        Ok(Some(bytes))
    }

    /// Opens (creating) `name` for appending, refusing a symlink or special file.
    pub fn open_append(&self, name: &OsStr) -> Result<File, FsError> {
        self.open_rw(name, Open::AppendCreate)
    }

    /// Opens (creating) `name` read-write without truncating, e.g. as a lock file.
    pub fn open_lock_file(&self, name: &OsStr) -> Result<File, FsError> {
        self.open_rw(name, Open::ReadWriteCreate)
    }

    fn open_rw(&self, name: &OsStr, how: Open) -> Result<File, FsError> {
        let path = self.path.join(name);
        let c = c_name(name, &path)?;
        let fd = sys::open_at(self.fd.as_fd(), &c, how).map_err(|e| open_error(e, &path))?;
        regular_file(fd, &path)
    }

    /// Creates `name` holding `contents` only when nothing is there (exclusive create, never
    /// through a symlink). Returns whether it was created.
    pub fn create_new(&self, name: &OsStr, contents: &[u8]) -> Result<bool, FsError> {
        let path = self.path.join(name);
        let c = c_name(name, &path)?;
        let fd = match sys::open_at(self.fd.as_fd(), &c, Open::CreateNew { mode: 0o666 }) {
            Ok(fd) => fd,
            Err(err) if err.kind() == io::ErrorKind::AlreadyExists => return Ok(false),
            Err(err) => return Err(open_error(err, &path)),
        };
        let mut file = File::from(fd);
        file.write_all(contents)
            .and_then(|_| file.sync_all())
            .map_err(|e| FsError::io(&path, e))?;
        Ok(true)
    }

    /// Writes `contents` to `name` atomically (see [`Dir::stage`]).
    pub fn write_atomic(&self, name: &OsStr, contents: &[u8]) -> Result<(), FsError> {
        let staged = self.stage(name, contents)?;
        staged.sync()?;
        staged.commit()
    }

    /// Writes `contents` to a new temporary file beside `name`, to be fsynced and renamed over
    /// `name` by the caller (several files can be staged before the first fsync). Refuses when
    /// `name` is a symlink or not a regular file; keeps the mode of an existing file.
    pub fn stage<'d>(&'d self, name: &OsStr, contents: &[u8]) -> Result<Staged<'d>, FsError> {
        let path = self.path.join(name);
        let target = c_name(name, &path)?;
        let mode = match self.kind(name)? {
            None => None,
            Some(Kind::File) => {
                let st = self.stat_nofollow(&target, &path)?;
                Some(st.permissions)
            }
            Some(Kind::Symlink) => return Err(FsError::Symlink(path)),
            Some(other) => {
                return Err(FsError::NotRegular {
                    path,
                    kind: kind_name(other),
                })
            }
        };
        let (tmp, file) = self.create_temp(name)?;
        let staged = Staged {
            dir: self,
            tmp,
            target,
            file,
            path,
            done: false,
        };
        if let Some(mode) = mode {
            // Ignore failures: the content matters more than the mode.
            let _ = staged
                .file
                .set_permissions(std::fs::Permissions::from_mode(mode));
        }
        (&staged.file)
            .write_all(contents)
            .map_err(|e| FsError::io(&staged.path, e))?;
        Ok(staged)
    }

    fn stat_nofollow(&self, c: &CString, path: &Path) -> Result<sys::Stat, FsError> {
        sys::stat_at_nofollow(self.fd.as_fd(), c).map_err(|e| FsError::io(path, e))
    }

    fn create_temp(&self, name: &OsStr) -> Result<(CString, File), FsError> {
        let stem = String::from_utf8_lossy(name.as_bytes()).into_owned();
        // Keep the temporary name within NAME_MAX even for a long target name.
        let stem: String = stem.chars().take(160).collect();
        for _ in 0..64 {
            let n = TMP_COUNTER.fetch_add(1, Ordering::Relaxed);
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.subsec_nanos())
                .unwrap_or(0);
            let tmp_name = format!(".{stem}.{}-{n}-{nanos:x}.tmp", std::process::id());
            let path = self.path.join(&tmp_name);
            let c = c_name(OsStr::new(&tmp_name), &path)?;
            match sys::open_at(self.fd.as_fd(), &c, Open::CreateNew { mode: 0o600 }) {
                Ok(fd) => return Ok((c, File::from(fd))),
                Err(err) if err.kind() == io::ErrorKind::AlreadyExists => {}
                Err(err) => return Err(FsError::io(&path, err)),
            }
        }
        Err(FsError::io(
            &self.path,
            io::Error::new(io::ErrorKind::AlreadyExists, "no free temporary file name"),
        ))
    }

    /// Removes the file `name` (a symlink itself is removed, never its target). Refuses a
    /// directory. Returns whether something was removed.
    pub fn remove(&self, name: &OsStr) -> Result<bool, FsError> {
        let path = self.path.join(name);
        let c = c_name(name, &path)?;
        match self.kind(name)? {
            None => return Ok(false),
            Some(Kind::Dir) => {
                return Err(FsError::NotRegular {
                    path,
                    kind: "a directory",
                })
            }
            Some(_) => {}
        }
        match sys::unlink_at(self.fd.as_fd(), &c) {
            Ok(()) => Ok(true),
            Err(err) if err.kind() == io::ErrorKind::NotFound => Ok(false),
            Err(err) => Err(FsError::io(&path, err)),
        }
    }
}

/// A temporary file written beside its destination, not yet renamed into place. Dropping it
/// without [`Staged::commit`] removes the temporary file.
#[derive(Debug)]
pub struct Staged<'d> {
    dir: &'d Dir,
    tmp: CString,
    target: CString,
    file: File,
    path: PathBuf,
    done: bool,
}

impl Staged<'_> {
    /// The destination path (for messages).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Flushes the temporary file to disk.
    pub fn sync(&self) -> Result<(), FsError> {
        self.file.sync_all().map_err(|e| FsError::io(&self.path, e))
    }

    /// Renames the temporary file over the destination, relative to the opened directory.
    pub fn commit(mut self) -> Result<(), FsError> {
        sys::rename_at(self.dir.fd.as_fd(), &self.tmp, &self.target)
            .map_err(|e| FsError::io(&self.path, e))?;
        self.done = true;
        Ok(())
    }
}

impl Drop for Staged<'_> {
    fn drop(&mut self) {
        if !self.done {
            let _ = sys::unlink_at(self.dir.fd.as_fd(), &self.tmp);
        }
    }
}

/// An exclusive advisory lock (`flock`, the lock `fd-lock` takes on Unix) on a regular lock
/// file, held until dropped (closing the file releases it, also when the process dies).
#[derive(Debug)]
pub struct FileLock {
    _file: File,
    path: PathBuf,
}

impl FileLock {
    /// Waits for the exclusive lock on `path`, creating the file (and its directory) first.
    /// A symlink or special file at `path` is refused without blocking.
    pub fn exclusive(path: &Path) -> Result<FileLock, FsError> {
        Self::take(path, true).map(|l| l.expect("a blocking lock is always taken"))
    }

    /// Takes the exclusive lock on `path` only when it is free; `Ok(None)` when another holder
    /// has it.
    pub fn try_exclusive(path: &Path) -> Result<Option<FileLock>, FsError> {
        Self::take(path, false)
    }

    /// Whether someone holds the lock on `path` right now (never creates the file).
    pub fn is_held(path: &Path) -> bool {
        let Ok(file) = open_regular(path) else {
            return false;
        };
        match sys::flock_exclusive(file.as_fd(), false) {
            Ok(true) => false,
            Ok(false) => true,
            Err(_) => false,
        }
    }

    fn take(path: &Path, wait: bool) -> Result<Option<FileLock>, FsError> {
        let (dir, name) = split(path)?;
        let dir = Dir::open_trusted(dir, true)?;
        let file = dir.open_lock_file(name)?;
        let barrier = lock_barrier::from_env();
        // Try without blocking first, so a wait can be told apart from an uncontended take.
        let free = sys::flock_exclusive(file.as_fd(), false).map_err(|e| FsError::io(path, e))?;
        if !free {
            if let Some(b) = &barrier {
                b.record("busy", path);
            }
            if !wait {
                return Ok(None);
            }
            sys::flock_exclusive(file.as_fd(), true).map_err(|e| FsError::io(path, e))?;
        }
        if let Some(b) = &barrier {
            b.record("held", path);
            b.pause_while_holding(name);
        }
        Ok(Some(FileLock {
            _file: file,
            path: path.to_path_buf(),
        }))
    }

    /// The lock file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// The test seam that makes lock contention observable, so a race test can prove that two
/// processes really overlapped instead of hoping they did. Inert unless
/// [`ENV_TEST_LOCK_BARRIER`] names a directory; nothing in the product sets it.
pub const ENV_TEST_LOCK_BARRIER: &str = "QWEN_MEMORY_TEST_LOCK_BARRIER";

/// A named point in an operation where a race test may need to stop a process (the same seam
/// as the locks, inert unless [`ENV_TEST_LOCK_BARRIER`] is set): logs `<pid> at <name>` and
/// then waits while `<dir>/hold-<name>` exists, so a test can act while the process is
/// provably there (for example a dream holding its lock, or one half applied) instead of
/// widening the window with a sleep.
pub fn test_checkpoint(name: &str) {
    if let Some(b) = lock_barrier::from_env() {
        b.record("at", Path::new(name));
        b.pause_while_holding(OsStr::new(name));
    }
}

mod lock_barrier {
    //! With `QWEN_MEMORY_TEST_LOCK_BARRIER=<dir>`, every lock taken by [`super::FileLock`]
    //! appends `<pid> busy <lock path>` to `<dir>/events` when it found the lock held by
    //! someone else (before waiting, or before giving up for a try-lock) and
    //! `<pid> held <lock path>` once it has it. While `<dir>/hold-<lock file name>` exists, a
    //! process that took a lock of that name keeps it (polling for the file's removal, at most
    //! two minutes so a forgotten file cannot hang anything), so a test can line the others up
    //! behind it and then let go. [`super::test_checkpoint`] does the same at a named point
    //! (`<pid> at <name>`, `hold-<name>`).
    use std::io::Write;
    use std::path::{Path, PathBuf};
    use std::time::{Duration, Instant};

    const MAX_HOLD: Duration = Duration::from_secs(120);

    pub(super) struct Barrier(PathBuf);

    pub(super) fn from_env() -> Option<Barrier> {
        std::env::var_os(super::ENV_TEST_LOCK_BARRIER)
            .filter(|v| !v.is_empty())
            .map(|v| Barrier(PathBuf::from(v)))
    }

    impl Barrier {
        pub(super) fn record(&self, event: &str, lock: &Path) {
            let line = format!("{} {event} {}\n", std::process::id(), lock.display());
            // One append per line, so lines from several processes never interleave.
            if let Ok(mut f) = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(self.0.join("events"))
            {
                let _ = f.write_all(line.as_bytes());
            }
        }

        pub(super) fn pause_while_holding(&self, lock_name: &std::ffi::OsStr) {
            let mut hold = std::ffi::OsString::from("hold-");
            hold.push(lock_name);
            let hold = self.0.join(hold);
            let started = Instant::now();
            while hold.symlink_metadata().is_ok() && started.elapsed() < MAX_HOLD {
                std::thread::sleep(Duration::from_millis(5));
            }
        }
    }
}

/// Splits a file path into its directory (`.` when none) and its last component.
pub fn split(path: &Path) -> Result<(&Path, &OsStr), FsError> {
    let name = path.file_name().ok_or_else(|| {
        FsError::io(
            path,
            io::Error::new(io::ErrorKind::InvalidInput, "no file name"),
        )
    })?;
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    Ok((dir, name))
}

/// Clears the bits of `mask` in the mode of the open `file` (fchmod), when any is set.
fn restrict(file: &File, mask: u32) -> io::Result<()> {
    let mode = file.metadata()?.permissions().mode() & 0o7777;
    if mode & mask == 0 {
        return Ok(());
    }
    file.set_permissions(std::fs::Permissions::from_mode(mode & !mask))
}

/// Writes `path` atomically in a trusted directory (created when missing): never through a
/// symlink at `path`, never into a special file.
pub fn write_atomic(path: &Path, contents: &[u8]) -> Result<(), FsError> {
    let (dir, name) = split(path)?;
    Dir::open_trusted(dir, true)?.write_atomic(name, contents)
}

/// Syncs the trusted directory `path` ([`Dir::sync`]).
pub fn sync_dir(path: &Path) -> Result<(), FsError> {
    Dir::open_trusted(path, false)?.sync()
}

/// Opens `path` for appending in a trusted directory (created when missing), refusing a
/// symlink or special file at `path`.
pub fn open_append(path: &Path) -> Result<File, FsError> {
    let (dir, name) = split(path)?;
    Dir::open_trusted(dir, true)?.open_append(name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::os::unix::fs::symlink;

    fn mkfifo(path: &Path) {
        crate::sys::mkfifo(path).unwrap();
    }

    #[test]
    fn walking_refuses_a_symlinked_directory_and_names_it() {
        let dir = tempfile::tempdir().unwrap();
        let outside = dir.path().join("outside");
        fs::create_dir(&outside).unwrap();
        let root = dir.path().join("root");
        fs::create_dir_all(root.join("a")).unwrap();
        symlink(&outside, root.join("a/b")).unwrap();
        let anchor = Dir::open_trusted(&root, false).unwrap();
        let err = anchor.open_path(Path::new("a/b/c"), true).unwrap_err();
        assert!(
            matches!(&err, FsError::Symlink(p) if p == &root.join("a/b")),
            "{err}"
        );
        assert!(err
            .to_string()
            .contains(&root.join("a/b").display().to_string()));
        assert_eq!(fs::read_dir(&outside).unwrap().count(), 0);
        assert!(anchor.open_path(Path::new("a/x"), false).unwrap().is_none());
        assert!(anchor
            .open_path(Path::new("a/x/y"), true)
            .unwrap()
            .is_some());
        assert!(root.join("a/x/y").is_dir());
        assert!(anchor.open_path(Path::new("../root"), true).is_err());
    }

    #[test]
    fn atomic_write_refuses_symlink_and_fifo_and_leaves_no_temp() {
        let dir = tempfile::tempdir().unwrap();
        let outside = dir.path().join("outside.txt");
        fs::write(&outside, "SENTINEL").unwrap();
        let root = dir.path().join("root");
        fs::create_dir(&root).unwrap();
        symlink(&outside, root.join("link.md")).unwrap();
        mkfifo(&root.join("fifo.md"));
        let d = Dir::open_trusted(&root, false).unwrap();
        assert!(matches!(
            d.write_atomic(OsStr::new("link.md"), b"x"),
            Err(FsError::Symlink(_))
        ));
        assert!(matches!(
            d.write_atomic(OsStr::new("fifo.md"), b"x"),
            Err(FsError::NotRegular { kind: "a FIFO", .. })
        ));
        assert!(matches!(
            d.read(OsStr::new("fifo.md")),
            Err(FsError::NotRegular { .. })
        ));
        assert!(matches!(
            d.read(OsStr::new("link.md")),
            Err(FsError::Symlink(_))
        ));
        assert!(matches!(
            d.open_append(OsStr::new("fifo.md")),
            Err(FsError::NotRegular { .. })
        ));
        assert!(matches!(
            d.open_lock_file(OsStr::new("fifo.md")),
            Err(FsError::NotRegular { .. })
        ));
        assert!(matches!(
            read_regular(&root.join("fifo.md")),
            Err(FsError::NotRegular { .. })
        ));
        assert_eq!(fs::read_to_string(&outside).unwrap(), "SENTINEL");
        d.write_atomic(OsStr::new("a.md"), b"one").unwrap();
        d.write_atomic(OsStr::new("a.md"), b"two").unwrap();
        assert_eq!(fs::read_to_string(root.join("a.md")).unwrap(), "two");
        let names: Vec<_> = fs::read_dir(&root)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(names.len(), 3, "{names:?}");
        assert!(d.remove(OsStr::new("a.md")).unwrap());
        assert!(!d.remove(OsStr::new("a.md")).unwrap());
    }

    #[test]
    fn a_dropped_stage_leaves_nothing_and_keeps_mode() {
        let dir = tempfile::tempdir().unwrap();
        let d = Dir::open_trusted(dir.path(), false).unwrap();
        fs::write(dir.path().join("x"), "old").unwrap();
        fs::set_permissions(dir.path().join("x"), fs::Permissions::from_mode(0o640)).unwrap();
        drop(d.stage(OsStr::new("x"), b"new").unwrap());
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
        d.write_atomic(OsStr::new("x"), b"new").unwrap();
        let meta = fs::metadata(dir.path().join("x")).unwrap();
        assert_eq!(meta.permissions().mode() & 0o777, 0o640);
    }

    #[test]
    fn lock_is_exclusive_across_descriptors() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("state/x.lock");
        let held = FileLock::exclusive(&p).unwrap();
        assert!(FileLock::is_held(&p));
        assert!(FileLock::try_exclusive(&p).unwrap().is_none());
        drop(held);
        assert!(!FileLock::is_held(&p));
        assert!(FileLock::try_exclusive(&p).unwrap().is_some());
        let fifo = dir.path().join("fifo.lock");
        mkfifo(&fifo);
        assert!(matches!(
            FileLock::exclusive(&fifo),
            Err(FsError::NotRegular { .. })
        ));
    }
}
