//! Scanning memory roots for topic documents (docs/DESIGN.md, "Topic documents").

use std::cmp::Ordering;
use std::collections::HashMap;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use crate::formats::doc::{self, DocError, MemoryType};

/// Top-level directory of a root whose documents dream never touches.
pub const PINNED_DIR: &str = "pinned";

/// What identifies one version of a file without reading it (size, mtime and ctime in ns,
/// inode, device).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileKey {
    pub size: u64,
    pub mtime_ns: i128,
    pub ctime_ns: i128,
    pub ino: u64,
    pub dev: u64,
}

impl FileKey {
    pub fn of(meta: &std::fs::Metadata) -> FileKey {
        use std::os::unix::fs::MetadataExt;
        FileKey {
            size: meta.len(),
            mtime_ns: meta.mtime() as i128 * 1_000_000_000 + meta.mtime_nsec() as i128,
            ctime_ns: meta.ctime() as i128 * 1_000_000_000 + meta.ctime_nsec() as i128,
            ino: meta.ino(),
            dev: meta.dev(),
        }
    }
}

/// The fields of a topic document that ranking reads, whether the document is owned
/// ([`ScannedDoc`]) or borrowed from recall's parse cache (`storage::scan_cache::DocView`).
pub trait DocFields {
    fn scope(&self) -> Scope;
    fn memory_type(&self) -> MemoryType;
    fn relative_path(&self) -> &str;
    fn title(&self) -> &str;
    fn description(&self) -> &str;
    fn body(&self) -> &str;
    fn mtime_ms(&self) -> f64;
    /// Scalar frontmatter keys other than name/title/description/type, in file order.
    fn for_each_extra(&self, f: &mut dyn FnMut(&str, &str));
    /// An owned copy.
    fn to_doc(&self) -> ScannedDoc;
}

impl DocFields for ScannedDoc {
    fn scope(&self) -> Scope {
        self.scope
    }
    fn memory_type(&self) -> MemoryType {
        self.memory_type
    }
    fn relative_path(&self) -> &str {
        &self.relative_path
    }
    fn title(&self) -> &str {
        &self.title
    }
    fn description(&self) -> &str {
        &self.description
    }
    fn body(&self) -> &str {
        &self.body
    }
    fn mtime_ms(&self) -> f64 {
        self.mtime_ms
    }
    fn for_each_extra(&self, f: &mut dyn FnMut(&str, &str)) {
        for (k, v) in &self.extra {
            f(k, v);
        }
    }
    fn to_doc(&self) -> ScannedDoc {
        self.clone()
    }
}

/// Which root a document came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scope {
    /// `<worktree>/.qwen/memory/` (local mode), committed with the repository.
    Repository,
    /// `<base>/projects/<key>/memory/`.
    Private,
    /// `<worktree>/.qwen/team-memory/` (read-only here).
    Team,
    /// `<base>/memories/`.
    User,
}

impl Scope {
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Repository => "repository",
            Scope::Private => "private",
            Scope::Team => "team",
            Scope::User => "user",
        }
    }
}

/// A topic document found by a scan.
#[derive(Debug, Clone, PartialEq)]
pub struct ScannedDoc {
    pub scope: Scope,
    pub memory_type: MemoryType,
    /// Absolute path of the file.
    pub path: PathBuf,
    /// Path relative to its root, with `/` separators.
    pub relative_path: String,
    pub title: String,
    pub description: String,
    /// LF-normalized, trimmed body.
    pub body: String,
    /// Modification time in milliseconds since the epoch.
    pub mtime_ms: f64,
    /// Scalar frontmatter keys other than name/title/description/type, in file order.
    pub extra: Vec<(String, String)>,
}

/// The sort key of a modification time, for `total_cmp`: `-0.0` equals `0.0` (as in upstream's
/// numeric sort) and NaN sorts as the oldest. The index and recall both order by it.
pub fn mtime_key(mtime_ms: f64) -> f64 {
    if mtime_ms.is_nan() {
        f64::NEG_INFINITY
    } else {
        mtime_ms + 0.0
    }
}

/// Files larger than this are skipped by scans (and reported by `check`).
pub const MAX_FILE_BYTES: u64 = 1024 * 1024;

/// The index file, excluded from scans at any depth.
pub const INDEX_FILE_NAME: &str = "MEMORY.md";

/// Why a file under a root is not a document.
#[derive(Debug, Clone, PartialEq)]
pub enum SkipReason {
    /// Symlinks are never followed inside a root.
    Symlink,
    /// Larger than [`MAX_FILE_BYTES`].
    TooLarge(u64),
    /// Not a memory document (no frontmatter, bad YAML, unknown type).
    NotAMemory(DocError),
    /// Could not be read.
    Unreadable(String),
    /// Holds Git conflict markers (first at this 1-based line): an unresolved merge, never
    /// content.
    ConflictMarkers(usize),
    /// Owned by another user, or in a directory others may write to: refused, as OpenSSH
    /// refuses such an `authorized_keys` (docs/DESIGN.md, "Security").
    Unsafe(String),
}

impl std::fmt::Display for SkipReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SkipReason::Symlink => f.write_str("symlink (not followed)"),
            SkipReason::TooLarge(n) => write!(f, "larger than 1 MiB ({n} bytes)"),
            SkipReason::NotAMemory(e) => write!(f, "not a memory document: {e}"),
            SkipReason::Unreadable(e) => write!(f, "unreadable: {e}"),
            SkipReason::Unsafe(why) => write!(
                f,
                "refused: {why}; fix the owner or permissions to use this memory"
            ),
            SkipReason::ConflictMarkers(line) => write!(
                f,
                "unresolved merge conflict markers (line {line}); resolve them to use this memory"
            ),
        }
    }
}

/// A file a scan passed over, with the reason.
#[derive(Debug, Clone, PartialEq)]
pub struct Skipped {
    pub path: PathBuf,
    pub relative_path: String,
    pub reason: SkipReason,
}

/// The documents of one root plus what was skipped.
#[derive(Debug, Clone, Default)]
pub struct ScanOutcome {
    pub docs: Vec<ScannedDoc>,
    pub skipped: Vec<Skipped>,
    /// Subdirectories that could not be read: an index built from such a scan would be partial.
    pub unreadable_dirs: Vec<PathBuf>,
}

/// Scan failures of a whole root.
#[derive(Debug, thiserror::Error)]
pub enum ScanError {
    #[error("{0}: refusing a symlinked memory root or non-directory")]
    SymlinkedRoot(PathBuf),
    #[error("{path}: cannot read memory root: {source}")]
    RootUnreadable {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// Scans `root` for topic documents, returned in scan order (newest first). A missing root is
/// empty. Only the user root may itself be a symlink (dotfiles layouts); any other symlinked or
/// non-directory root is refused.
///
/// Symlink entries inside the root are never followed and every file is opened with
/// `O_NOFOLLOW`, so every document read lies inside the root without a realpath per file.
pub fn scan_root(root: &Path, scope: Scope) -> Result<ScanOutcome, ScanError> {
    let memo = MEMO.get();
    let Some(walk) = walk_root(root, scope, memo.is_some())? else {
        return Ok(ScanOutcome::default());
    };
    let mut out = ScanOutcome {
        docs: Vec::new(),
        skipped: walk.skipped,
        unreadable_dirs: walk.unreadable_dirs,
    };
    let walk_metas: Vec<Option<FileKey>> = walk
        .files
        .iter()
        .map(|f| f.meta.as_ref().filter(|m| m.is_file()).map(FileKey::of))
        .collect();
    let files: Vec<(PathBuf, PathBuf, String)> = walk
        .files
        .into_iter()
        .map(|f| {
            (
                walk.walk_root.join(&f.relative),
                root.join(&f.relative),
                f.relative,
            )
        })
        .collect();
    let results = match MEMO.get() {
        Some(memo) => read_all_remembered(memo, root, scope, &walk_metas, &files),
        None => read_all(&files, scope),
    };
    for ((result, _), (_, path, relative)) in results.into_iter().zip(files) {
        match result {
            Ok(doc) => out.docs.push(doc),
            Err(reason) => out.skipped.push(Skipped {
                path,
                relative_path: relative,
                reason,
            }),
        }
    }
    sort_docs(&mut out.docs, IndexOrder::NewestFirst);
    out.skipped
        .sort_by(|a, b| a.relative_path.cmp(&b.relative_path));
    Ok(out)
}

// ---- Parsed documents kept by a long-lived process ----

/// Files changed this recently (ns) are parsed again on every scan, never reused: a write
/// within the same clock tick could leave size, mtime and ctime unchanged ("racily clean",
/// as in recall's parse cache).
const MEMO_RACY_NS: i128 = 2_000_000_000;

/// Per root (scope and path as given), the documents parsed by earlier scans of this
/// process, by relative path, with the stat they were parsed under.
type Memo = Mutex<HashMap<(Scope, PathBuf), HashMap<String, (FileKey, ScannedDoc)>>>;

static MEMO: OnceLock<Memo> = OnceLock::new();

/// Makes every later [`scan_root`] of this process reuse the documents it parsed before
/// whose file is unchanged (same size, mtime, ctime, inode and device), reading only what
/// changed. For a long-lived process (the MCP server, docs/DESIGN.md "Agent integration"): a
/// command that scans once gains nothing. The result of a scan is the same either way: the
/// walk (symlinks, owners, permissions) runs every time, and a file changed in the last two
/// seconds is always read again.
pub fn keep_parsed_in_process() {
    MEMO.get_or_init(Memo::default);
}

/// Whether [`keep_parsed_in_process`] was called: other pure per-document work (entry keys,
/// `storage::entries::keyed_entries`) is then kept too.
pub fn parsed_in_process() -> bool {
    MEMO.get().is_some()
}

/// [`read_all`] through the memo: an unchanged, settled file reuses its parsed document.
fn read_all_remembered(
    memo: &Memo,
    root: &Path,
    scope: Scope,
    keys: &[Option<FileKey>],
    files: &[(PathBuf, PathBuf, String)],
) -> Vec<ReadResult> {
    let id = (scope, root.to_path_buf());
    let mut known = memo
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .remove(&id)
        .unwrap_or_default();
    let mut results: Vec<Option<ReadResult>> = Vec::with_capacity(files.len());
    let mut misses = Vec::new();
    let mut kept = HashMap::with_capacity(files.len());
    for (i, ((_, _, relative), key)) in files.iter().zip(keys).enumerate() {
        // Taken out of the old map (a changed file's entry is dropped with it): the kept
        // document moves into the new map and only the caller's copy is made.
        let hit = key.and_then(|k| match known.remove_entry(relative) {
            Some((name, (cached, doc))) if cached == k => Some((name, k, doc)),
            _ => None,
        });
        match hit {
            Some((name, k, doc)) => {
                results.push(Some((Ok(doc.clone()), Some(k))));
                kept.insert(name, (k, doc));
            }
            None => {
                results.push(None);
                misses.push(i);
            }
        }
    }
    if !misses.is_empty() {
        let missed: Vec<(PathBuf, PathBuf, String)> =
            misses.iter().map(|&i| files[i].clone()).collect();
        let settled_before = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as i128)
            - MEMO_RACY_NS;
        for (i, read) in misses.into_iter().zip(read_all(&missed, scope)) {
            if let (Ok(doc), Some(k)) = (&read.0, read.1) {
                if k.mtime_ns <= settled_before && k.ctime_ns <= settled_before {
                    kept.insert(files[i].2.clone(), (k, doc.clone()));
                }
            }
            results[i] = Some(read);
        }
    }
    memo.lock()
        .unwrap_or_else(|p| p.into_inner())
        .insert(id, kept);
    results
        .into_iter()
        .map(|r| r.unwrap_or((Err(SkipReason::Unreadable("not read".into())), None)))
        .collect()
}

/// A `.md` file a walk found (not read yet).
pub(crate) struct Found {
    /// Path relative to the root, with `/` separators.
    pub relative: String,
    /// Its stat, not following symlinks (when the walk was asked for it and it succeeded).
    pub meta: Option<fs::Metadata>,
}

/// What a walk of one root found.
pub(crate) struct Walk {
    /// The directory walked: the root, or the target of a symlinked user root.
    pub walk_root: PathBuf,
    pub files: Vec<Found>,
    pub skipped: Vec<Skipped>,
    pub unreadable_dirs: Vec<PathBuf>,
}

/// Directories with at least this many `.md` files are stat'ed on every core.
const PARALLEL_STAT_MIN: usize = 256;

/// Lists the candidate documents of `root` (`None`: the root does not exist). Symlink entries
/// are reported, never followed. Every candidate is stat'ed once (relative to its directory,
/// not following symlinks): for the owner check, and with `stat` that stat is returned.
pub(crate) fn walk_root(root: &Path, scope: Scope, stat: bool) -> Result<Option<Walk>, ScanError> {
    let meta = match fs::symlink_metadata(root) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(ScanError::RootUnreadable {
                path: root.to_path_buf(),
                source,
            })
        }
    };
    let walk_root = if meta.file_type().is_symlink() && scope == Scope::User {
        match fs::canonicalize(root) {
            Ok(real) if real.is_dir() => real,
            _ => return Err(ScanError::SymlinkedRoot(root.to_path_buf())),
        }
    } else if meta.file_type().is_dir() {
        root.to_path_buf()
    } else {
        return Err(ScanError::SymlinkedRoot(root.to_path_buf()));
    };
    let top = fs::read_dir(&walk_root).map_err(|source| ScanError::RootUnreadable {
        path: root.to_path_buf(),
        source,
    })?;
    let mut out = Walk {
        walk_root,
        files: Vec::new(),
        skipped: Vec::new(),
        unreadable_dirs: Vec::new(),
    };
    if let Some(why) = unsafe_dir(&out.walk_root) {
        out.skipped.push(Skipped {
            path: root.to_path_buf(),
            relative_path: String::new(),
            reason: SkipReason::Unsafe(why),
        });
        return Ok(Some(out));
    }
    let mut pending = vec![(top, String::new())];
    while let Some((entries, prefix)) = pending.pop() {
        // This directory's documents, stat'ed together (on several threads when many) while
        // the directory is open.
        let mut docs: Vec<(fs::DirEntry, String, usize)> = Vec::new();
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let relative = format!("{prefix}{name}");
            let Ok(file_type) = entry.file_type() else {
                continue;
            };
            if file_type.is_symlink() {
                if name.ends_with(".md") || is_dir_symlink(&entry.path()) {
                    out.skipped.push(Skipped {
                        path: root.join(&relative),
                        relative_path: relative,
                        reason: SkipReason::Symlink,
                    });
                }
            } else if file_type.is_dir() {
                if let Some(why) = unsafe_dir(&entry.path()) {
                    out.skipped.push(Skipped {
                        path: root.join(&relative),
                        relative_path: relative,
                        reason: SkipReason::Unsafe(why),
                    });
                    continue;
                }
                match fs::read_dir(entry.path()) {
                    Ok(sub) => pending.push((sub, format!("{relative}/"))),
                    Err(_) => out.unreadable_dirs.push(root.join(&relative)),
                }
            } else if file_type.is_file() && name.ends_with(".md") && name != INDEX_FILE_NAME {
                // Where its skip would go, so skips keep the directory's order.
                docs.push((entry, relative, out.skipped.len()));
            }
        }
        let threads = if docs.len() < PARALLEL_STAT_MIN {
            1
        } else {
            available_threads(8)
        };
        // One stat per document serves both the owner check and, when asked, the caller.
        // `DirEntry::metadata` does not follow symlinks (statx relative to the open directory
        // with AT_SYMLINK_NOFOLLOW).
        let metas = in_parallel(&docs, threads, |part, _| {
            part.iter().map(|(e, _, _)| e.metadata().ok()).collect()
        });
        let mut inserted = 0;
        for ((_, relative, at), meta) in docs.into_iter().zip(metas) {
            if let Some(why) = meta.as_ref().and_then(foreign_owner) {
                out.skipped.insert(
                    at + inserted,
                    Skipped {
                        path: root.join(&relative),
                        relative_path: relative,
                        reason: SkipReason::Unsafe(why),
                    },
                );
                inserted += 1;
                continue;
            }
            out.files.push(Found {
                relative,
                meta: meta.filter(|_| stat),
            });
        }
    }
    Ok(Some(out))
}

/// Why a file a root holds besides its documents (its `MEMORY.md`) must not be read, by the
/// rules a scan applies to documents: owned by another user, or in a directory owned by
/// another user or writable by everyone. `None`: it may be read.
pub fn refused_file(path: &Path) -> Option<String> {
    if let Some(why) = fs::symlink_metadata(path)
        .ok()
        .and_then(|m| foreign_owner(&m))
    {
        return Some(why);
    }
    path.parent().and_then(unsafe_dir)
}

/// Why a memory file's metadata makes it untrustworthy: owned by neither this user nor root.
fn foreign_owner(meta: &fs::Metadata) -> Option<String> {
    use std::os::unix::fs::MetadataExt;
    // Asked once per process (a scan asks for every document; this tool never changes it).
    static ME: OnceLock<u32> = OnceLock::new();
    let me = *ME.get_or_init(crate::sys::effective_uid);
    (meta.uid() != me && meta.uid() != 0)
        .then(|| format!("owned by another user (uid {})", meta.uid()))
}

/// Why a directory of a root is unsafe: owned by another user, writable by everyone, or
/// writable by a group that holds anyone else. A group-writable directory is accepted when
/// its group is this user's own (a "user private group", what a `umask` of 002 is meant for:
/// no other account has it as its primary group and its member list names no one else), as
/// Debian's OpenSSH accepts one (docs/security.md).
fn unsafe_dir(dir: &Path) -> Option<String> {
    use std::os::unix::fs::MetadataExt;
    let meta = fs::metadata(dir).ok()?;
    if let Some(why) = foreign_owner(&meta) {
        return Some(format!("directory {why}"));
    }
    let mode = meta.mode();
    if mode & 0o002 != 0 {
        return Some(format!(
            "directory writable by everyone (mode {:o})",
            mode & 0o7777
        ));
    }
    (mode & 0o020 != 0 && !group_is_private(meta.gid())).then(|| {
        format!(
            "directory writable by its group (gid {}), which other accounts share (mode {:o})",
            meta.gid(),
            mode & 0o7777
        )
    })
}

/// Whether group `gid` holds no account but this user's ([`private_group`] over the system's
/// account files), once per group and process: a scan asks for every directory.
fn group_is_private(gid: u32) -> bool {
    static KNOWN: OnceLock<Mutex<HashMap<u32, bool>>> = OnceLock::new();
    let known = KNOWN.get_or_init(|| Mutex::new(HashMap::new()));
    if let Some(&v) = known.lock().ok().as_ref().and_then(|m| m.get(&gid)) {
        return v;
    }
    let read = |p: &str| fs::read_to_string(p).unwrap_or_default();
    let v = private_group(
        gid,
        crate::sys::effective_uid(),
        &read("/etc/passwd"),
        &read("/etc/group"),
    );
    if let Ok(mut m) = known.lock() {
        m.insert(gid, v);
    }
    v
}

/// Whether group `gid` is private to the account with uid `me`, judged from `passwd` and
/// `group` (the files' text): that account exists, no other account has `gid` as its primary
/// group, and the group exists with no member but that account. A group the files do not
/// list (directory services) is not private: refused, as upstream OpenSSH refuses every
/// group-writable directory.
fn private_group(gid: u32, me: u32, passwd: &str, group: &str) -> bool {
    let mut my_name = None;
    for fields in passwd.lines().map(|l| l.split(':').collect::<Vec<_>>()) {
        let [name, _, uid, primary, ..] = fields[..] else {
            continue;
        };
        let (Ok(uid), Ok(primary)) = (uid.parse::<u32>(), primary.parse::<u32>()) else {
            continue;
        };
        if uid == me {
            my_name = Some(name);
        } else if primary == gid {
            return false;
        }
    }
    let Some(my_name) = my_name else {
        return false;
    };
    group
        .lines()
        .map(|l| l.split(':').collect::<Vec<_>>())
        .find(|f| f.len() >= 4 && f[2].parse::<u32>() == Ok(gid))
        .is_some_and(|f| {
            f[3].split(',')
                .map(str::trim)
                .filter(|m| !m.is_empty())
                .all(|m| m == my_name)
        })
}

#[cfg(test)]
mod private_group_tests {
    use super::private_group;

    const PASSWD: &str = "root:x:0:0:root:/root:/bin/bash\n\
        ann:x:1000:1000::/home/ann:/bin/sh\n\
        bob:x:1001:100::/home/bob:/bin/sh\n\
        broken line\n";
    const GROUP: &str = "root:x:0:\nann:x:1000:\nusers:x:100:bob\n\
        dev:x:2000:ann,bob\nsolo:x:2001:ann\n";

    #[test]
    fn only_a_group_that_holds_no_one_else_is_private() {
        assert!(private_group(1000, 1000, PASSWD, GROUP), "ann's own group");
        assert!(
            private_group(2001, 1000, PASSWD, GROUP),
            "a group of ann alone"
        );
        assert!(
            !private_group(100, 1000, PASSWD, GROUP),
            "bob's primary group"
        );
        assert!(!private_group(2000, 1000, PASSWD, GROUP), "bob is a member");
        assert!(!private_group(3000, 1000, PASSWD, GROUP), "not listed");
        assert!(!private_group(1000, 4242, PASSWD, GROUP), "unknown account");
        assert!(
            private_group(0, 0, PASSWD, GROUP),
            "root's group, root alone"
        );
    }
}

/// Below this many files a scan reads on the calling thread; above, reading and parsing (most
/// of a large scan's cost) are spread over the available cores.
const PARALLEL_THRESHOLD: usize = 512;

/// Reads and parses `files` (fs path, reported path, relative path), keeping their order.
pub(crate) fn read_all(files: &[(PathBuf, PathBuf, String)], scope: Scope) -> Vec<ReadResult> {
    let read = |(fs_path, path, relative): &(PathBuf, PathBuf, String)| {
        read_document_keyed(fs_path, scope, path.clone(), relative.clone())
    };
    let threads = if files.len() < PARALLEL_THRESHOLD {
        1
    } else {
        available_threads(8)
    };
    in_parallel(files, threads, |part, _| part.iter().map(read).collect())
}

/// The cores this process may use, at most `max` (1 when unknown).
pub fn available_threads(max: usize) -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get().min(max))
}

/// The one way work is split over threads (scans and recall): `work(part, offset)` runs on
/// `threads` contiguous parts of `items` (`offset`: the index of the part's first item), the
/// first part on the calling thread and the others on scoped threads, and the results are
/// concatenated in the order of `items`. A thread the OS refuses runs its part on the calling
/// thread; a panic in a part is resumed here, as it would be without threads.
pub fn in_parallel<T: Sync, R: Send>(
    items: &[T],
    threads: usize,
    work: impl Fn(&[T], usize) -> Vec<R> + Sync,
) -> Vec<R> {
    if threads <= 1 || items.len() < 2 {
        return work(items, 0);
    }
    let chunk = items.len().div_ceil(threads);
    let work = &work;
    std::thread::scope(|scope| {
        let mut parts = items.chunks(chunk).enumerate().map(|(i, p)| (p, i * chunk));
        let first = parts.next();
        let workers: Vec<_> = parts
            .map(|(part, offset)| {
                std::thread::Builder::new()
                    .spawn_scoped(scope, move || work(part, offset))
                    .map_err(|_| (part, offset))
            })
            .collect();
        let mut out = first.map_or_else(Vec::new, |(part, offset)| work(part, offset));
        for worker in workers {
            let mut part = match worker {
                Ok(handle) => handle
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
                Err((part, offset)) => work(part, offset),
            };
            out.append(&mut part);
        }
        out
    })
}

fn is_dir_symlink(path: &Path) -> bool {
    fs::metadata(path).map(|m| m.is_dir()).unwrap_or(false)
}

/// Reads and parses one file (not following a symlink), or says why it is skipped.
pub fn read_document(
    fs_path: &Path,
    scope: Scope,
    path: PathBuf,
    relative_path: String,
) -> Result<ScannedDoc, SkipReason> {
    read_document_keyed(fs_path, scope, path, relative_path).0
}

/// A read document (or why not) and the stat of the opened file it was parsed from.
pub(crate) type ReadResult = (Result<ScannedDoc, SkipReason>, Option<FileKey>);

fn read_document_keyed(
    fs_path: &Path,
    scope: Scope,
    path: PathBuf,
    relative_path: String,
) -> ReadResult {
    let mut key = None;
    let result = read_document_inner(fs_path, scope, path, relative_path, &mut key);
    (result, key)
}

fn read_document_inner(
    fs_path: &Path,
    scope: Scope,
    path: PathBuf,
    relative_path: String,
    key: &mut Option<FileKey>,
) -> Result<ScannedDoc, SkipReason> {
    // Never follows a symlink and never blocks on a FIFO swapped in after the directory walk.
    let mut file = crate::safe_fs::open_regular(fs_path).map_err(|e| match e {
        crate::safe_fs::FsError::Symlink(_) => SkipReason::Symlink,
        crate::safe_fs::FsError::NotRegular { kind, .. } => {
            SkipReason::Unreadable(format!("not a regular file ({kind})"))
        }
        other => SkipReason::Unreadable(other.to_string()),
    })?;
    let meta = file
        .metadata()
        .map_err(|e| SkipReason::Unreadable(e.to_string()))?;
    if !meta.is_file() {
        return Err(SkipReason::Unreadable("not a regular file".into()));
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err(SkipReason::TooLarge(meta.len()));
    }
    // Taken from the opened file before reading it, so a later change shows in the next stat.
    *key = Some(FileKey::of(&meta));
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.read_to_end(&mut bytes)
        .map_err(|e| SkipReason::Unreadable(e.to_string()))?;
    let text = String::from_utf8_lossy(&bytes);
    if let Some(line) = doc::conflict_marker_line(&text) {
        return Err(SkipReason::ConflictMarkers(line));
    }
    let parsed = doc::parse_document(&text).map_err(SkipReason::NotAMemory)?;
    // Node's `mtimeMs` (seconds * 1e3 + nanoseconds / 1e6, in f64), so equal and nearly equal
    // times order exactly as in Qwen Code.
    let mtime_ms = {
        use std::os::unix::fs::MetadataExt;
        meta.mtime() as f64 * 1e3 + meta.mtime_nsec() as f64 / 1e6
    };
    Ok(ScannedDoc {
        scope,
        memory_type: parsed.memory_type,
        path,
        relative_path,
        title: parsed.title,
        description: parsed.description,
        body: parsed.body,
        mtime_ms,
        extra: parsed.extra,
    })
}

/// Scans several roots in order, dropping a document whose scope and relative path were
/// already seen (the first, newest root wins). Unreadable roots are skipped and returned.
pub fn scan_roots(roots: &[(Scope, &Path)]) -> (Vec<ScannedDoc>, Vec<ScanError>) {
    let mut docs = Vec::new();
    let mut errors = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for (scope, root) in roots {
        match scan_root(root, *scope) {
            Ok(outcome) => {
                for d in outcome.docs {
                    if seen.insert((d.scope, d.relative_path.clone())) {
                        docs.push(d);
                    }
                }
            }
            Err(e) => errors.push(e),
        }
    }
    (docs, errors)
}

// ---- The order of scanned documents (scan order, index order, recall input order) ----

/// How documents are ordered in an index (and in scans that reuse this order).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndexOrder {
    /// Private and user roots: newest mtime first; ties by file name in ICU root collation
    /// (JavaScript `localeCompare`), then by relative path in UTF-16 code-unit order.
    NewestFirst,
    /// Team and repository roots: relative path in UTF-16 code-unit order (JavaScript's `<`),
    /// so the index depends only on the committed files and is identical on every clone.
    ByPath,
}

/// The file name (last path segment) of a relative path.
fn file_name(relative_path: &str) -> &str {
    relative_path.rsplit('/').next().unwrap_or(relative_path)
}

/// JavaScript's `<` on strings: UTF-16 code-unit order.
pub fn cmp_utf16(a: &str, b: &str) -> Ordering {
    a.encode_utf16().cmp(b.encode_utf16())
}

/// JavaScript's `a.localeCompare(b)` in the C and English locales: ICU root collation at
/// tertiary strength (so strings differing only in ignorable characters compare equal).
pub fn locale_compare(a: &str, b: &str) -> Ordering {
    static COLLATOR: OnceLock<icu_collator::CollatorBorrowed<'static>> = OnceLock::new();
    let collator = COLLATOR.get_or_init(|| {
        icu_collator::Collator::try_new(Default::default(), Default::default())
            .expect("compiled ICU root collation data is always present")
    });
    collator.compare(a, b)
}

fn compare_docs(a: &ScannedDoc, b: &ScannedDoc, order: IndexOrder) -> Ordering {
    match order {
        IndexOrder::ByPath => cmp_utf16(&a.relative_path, &b.relative_path),
        IndexOrder::NewestFirst => newest_first(
            (a.mtime_ms, &a.relative_path),
            (b.mtime_ms, &b.relative_path),
        ),
    }
}

/// [`IndexOrder::NewestFirst`] on (mtime in ms, relative path) pairs.
pub(crate) fn newest_first(a: (f64, &str), b: (f64, &str)) -> Ordering {
    b.0.partial_cmp(&a.0)
        .unwrap_or(Ordering::Equal)
        .then_with(|| locale_compare(file_name(a.1), file_name(b.1)))
        .then_with(|| cmp_utf16(a.1, b.1))
}

/// Sorts documents in place by `order`. Scans and recall reuse this so every list of
/// documents is ordered the same way.
pub fn sort_docs(docs: &mut [ScannedDoc], order: IndexOrder) {
    docs.sort_by(|a, b| compare_docs(a, b, order));
}

/// [`sort_docs`] over borrowed documents.
pub fn sort_doc_refs(docs: &mut [&ScannedDoc], order: IndexOrder) {
    docs.sort_by(|a, b| compare_docs(a, b, order));
}

#[cfg(test)]
mod in_parallel_tests {
    use super::in_parallel;

    /// Every item once, in order, with the offset of its part, whatever the thread count.
    #[test]
    fn parts_keep_order_and_offsets() {
        let items: Vec<usize> = (0..1000).collect();
        for threads in [0, 1, 2, 3, 7, 8, 64] {
            let out = in_parallel(&items, threads, |part, offset| {
                part.iter()
                    .enumerate()
                    .map(|(i, &item)| (offset + i, item, std::thread::current().id()))
                    .collect()
            });
            assert_eq!(out.len(), items.len(), "{threads} threads");
            for (index, item, _) in &out {
                assert_eq!(index, item, "{threads} threads");
            }
            let used: std::collections::HashSet<_> = out.iter().map(|t| t.2).collect();
            // One thread per part (chunks of equal size, the last one shorter).
            let parts = if threads <= 1 {
                1
            } else {
                items.len().div_ceil(items.len().div_ceil(threads))
            };
            assert_eq!(used.len(), parts, "{threads} threads");
        }
        assert!(in_parallel(&[] as &[u8], 4, |p, _| p.to_vec()).is_empty());
    }

    #[test]
    #[should_panic(expected = "part 2")]
    fn a_panic_in_a_part_is_resumed() {
        let items: Vec<usize> = (0..10).collect();
        in_parallel(&items, 5, |part, offset| {
            if offset == 4 {
                panic!("part 2");
            }
            part.to_vec()
        });
    }
}

#[cfg(test)]
mod memo_tests {
    use super::*;

    fn doc(body: &str) -> String {
        format!("---\nname: Note\ndescription: a note\ntype: project\n---\n\n- {body}\n")
    }

    /// Writes `rel` under `root` with an mtime an hour back (settled: the memo may keep it).
    fn write_settled(root: &Path, rel: &str, text: &str) {
        let path = root.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, text).unwrap();
        let past = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
        fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(past)
            .unwrap();
    }

    fn bodies(root: &Path) -> Vec<(String, String)> {
        let mut out: Vec<_> = scan_root(root, Scope::Private)
            .unwrap()
            .docs
            .into_iter()
            .map(|d| (d.relative_path, d.body))
            .collect();
        out.sort();
        out
    }

    /// With the memo on, every scan still returns what the files hold now: an edit that keeps
    /// size and mtime (only ctime tells), a removal, an addition, a file turned into a symlink.
    #[test]
    fn kept_documents_never_hide_a_change() {
        keep_parsed_in_process();
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("memory");
        write_settled(&root, "project/a.md", &doc("alpha one"));
        write_settled(&root, "project/b.md", &doc("beta one"));
        assert_eq!(
            bodies(&root),
            [
                ("project/a.md".into(), "- alpha one".into()),
                ("project/b.md".into(), "- beta one".into())
            ]
        );
        // Same size, mtime set back to the same second: only ctime differs.
        let before = fs::metadata(root.join("project/a.md"))
            .unwrap()
            .modified()
            .unwrap();
        fs::write(root.join("project/a.md"), doc("alpha two")).unwrap();
        fs::File::options()
            .write(true)
            .open(root.join("project/a.md"))
            .unwrap()
            .set_modified(before)
            .unwrap();
        fs::remove_file(root.join("project/b.md")).unwrap();
        write_settled(&root, "project/c.md", &doc("gamma"));
        assert_eq!(
            bodies(&root),
            [
                ("project/a.md".into(), "- alpha two".into()),
                ("project/c.md".into(), "- gamma".into())
            ]
        );
        fs::remove_file(root.join("project/c.md")).unwrap();
        std::os::unix::fs::symlink(root.join("project/a.md"), root.join("project/c.md")).unwrap();
        let out = scan_root(&root, Scope::Private).unwrap();
        assert_eq!(out.docs.len(), 1);
        assert!(out
            .skipped
            .iter()
            .any(|s| s.relative_path == "project/c.md" && s.reason == SkipReason::Symlink));
        // And the same as a scan without the memo would return.
        assert_eq!(
            bodies(&root),
            [("project/a.md".into(), "- alpha two".into())]
        );
    }
}
