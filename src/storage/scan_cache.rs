//! The recall parse cache (`recall-scan.bin` in the state dir; docs/DESIGN.md, "State files"
//! and "Recall"): the parsed form of every document, keyed by its root, scope, relative path and
//! stat (size, mtime, ctime, inode, device), so a recall parses only the files that changed.
//!
//! Best effort throughout: a missing, truncated, corrupt or foreign-version file is an empty
//! cache, and failing to write it is ignored. The cache never changes what a scan returns.

use std::collections::HashMap;
use std::ffi::OsStr;
use std::fs::Metadata;
use std::path::{Path, PathBuf};

use crate::formats::doc::MemoryType;
use crate::storage::safe_fs::Dir;
use crate::storage::scan::{self, FileKey, ParseCache, ScanError, ScannedDoc, Scope};

/// The cache file in the state dir.
pub const CACHE_FILE: &str = "recall-scan.bin";

/// Names the format and its version; any other start is a foreign file and is ignored.
const MAGIC: &[u8; 8] = b"QMSCAN\x00\x01";
/// Ends a complete file, so a torn write is never half-used.
const END: &[u8; 8] = b"QMSCEND\x00";

/// Files changed this recently (ns) are parsed but not cached: a write within the same clock
/// tick could leave size, mtime and ctime unchanged (the "racily clean" case).
const RACY_NS: i128 = 2_000_000_000;

/// A parsed document without what the scan supplies (scope, paths).
struct Cached {
    memory_type: MemoryType,
    title: String,
    description: String,
    body: String,
    mtime_ms: f64,
    extra: Vec<(String, String)>,
}

fn entry_key(root: &Path, scope: Scope, relative: &str) -> String {
    format!(
        "{}\0{}\0{}",
        root.to_string_lossy(),
        scope.as_str(),
        relative
    )
}

/// One scan's use of the cache: hits are taken out of `old`, fresh parses recorded, and the
/// file rewritten at the end only when its contents would differ.
pub struct Session {
    state_dir: PathBuf,
    old: HashMap<String, (FileKey, Cached)>,
    /// The key of every document to keep in the cache, by scope and relative path.
    keep: HashMap<(Scope, String), (String, FileKey)>,
    changed: bool,
    /// Files changed after this instant (ns since the epoch) are not cached.
    racy_after_ns: i128,
}

impl Session {
    pub fn load(state_dir: &Path) -> Session {
        Session::load_with_window(state_dir, RACY_NS)
    }

    /// [`Session::load`] with another racy window (tests use 0 to cache files just written).
    pub fn load_with_window(state_dir: &Path, racy_ns: i128) -> Session {
        let old = Dir::open_trusted(state_dir, false)
            .ok()
            .and_then(|d| d.read(OsStr::new(CACHE_FILE)).ok().flatten())
            .and_then(|bytes| decode(&bytes));
        let now_ns = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as i128);
        Session {
            state_dir: state_dir.to_path_buf(),
            changed: old.is_none(),
            old: old.unwrap_or_default(),
            keep: HashMap::new(),
            racy_after_ns: now_ns - racy_ns,
        }
    }
}

/// [`scan::scan_roots`] through the parse cache in `state_dir` (best effort: the cache never
/// changes the result, and failing to read or write it never fails the scan).
pub fn scan_roots_cached(
    roots: &[(Scope, &Path)],
    state_dir: &Path,
) -> (Vec<ScannedDoc>, Vec<ScanError>) {
    scan_roots_in(roots, Session::load(state_dir))
}

fn scan_roots_in(
    roots: &[(Scope, &Path)],
    mut session: Session,
) -> (Vec<ScannedDoc>, Vec<ScanError>) {
    let (docs, errors) = scan::scan_roots_with(roots, Some(&mut session));
    session.finish(&docs);
    (docs, errors)
}

impl ParseCache for Session {
    fn take(
        &mut self,
        root: &Path,
        scope: Scope,
        relative: &str,
        meta: &Metadata,
        path: &Path,
    ) -> Option<ScannedDoc> {
        if !meta.is_file() {
            return None;
        }
        let key = FileKey::of(meta);
        let k = entry_key(root, scope, relative);
        match self.old.get(&k) {
            Some((cached_key, _)) if *cached_key == key => {}
            _ => return None,
        }
        let (_, c) = self.old.remove(&k)?;
        self.keep
            .entry((scope, relative.to_string()))
            .or_insert((k, key));
        Some(ScannedDoc {
            scope,
            memory_type: c.memory_type,
            path: path.to_path_buf(),
            relative_path: relative.to_string(),
            title: c.title,
            description: c.description,
            body: c.body,
            mtime_ms: c.mtime_ms,
            extra: c.extra,
        })
    }

    fn parsed(&mut self, root: &Path, doc: &ScannedDoc, key: FileKey) {
        if key.mtime_ns > self.racy_after_ns || key.ctime_ns > self.racy_after_ns {
            return;
        }
        self.changed = true;
        self.keep
            .entry((doc.scope, doc.relative_path.clone()))
            .or_insert((entry_key(root, doc.scope, &doc.relative_path), key));
    }
}

impl Session {
    /// Rewrites the cache with the kept documents among `docs` if anything changed (entries of
    /// deleted or edited files are left in `old`).
    pub fn finish(self, docs: &[ScannedDoc]) {
        if !self.changed && self.old.is_empty() {
            return;
        }
        let mut buf = Vec::with_capacity(docs.iter().map(|d| d.body.len() + 256).sum());
        buf.extend_from_slice(MAGIC);
        let kept: Vec<(&ScannedDoc, &(String, FileKey))> = docs
            .iter()
            .filter_map(|d| {
                self.keep
                    .get(&(d.scope, d.relative_path.clone()))
                    .map(|k| (d, k))
            })
            .collect();
        put_u64(&mut buf, kept.len() as u64);
        for (d, (k, key)) in kept {
            put_str(&mut buf, k);
            put_u64(&mut buf, key.size);
            put_u128(&mut buf, key.mtime_ns as u128);
            put_u128(&mut buf, key.ctime_ns as u128);
            put_u64(&mut buf, key.ino);
            put_u64(&mut buf, key.dev);
            put_str(&mut buf, d.memory_type.as_str());
            put_str(&mut buf, &d.title);
            put_str(&mut buf, &d.description);
            put_str(&mut buf, &d.body);
            put_u64(&mut buf, d.mtime_ms.to_bits());
            put_u64(&mut buf, d.extra.len() as u64);
            for (a, b) in &d.extra {
                put_str(&mut buf, a);
                put_str(&mut buf, b);
            }
        }
        buf.extend_from_slice(END);
        // A cache: no fsync (a torn or empty file after a crash is simply rebuilt).
        if let Ok(dir) = Dir::open_trusted(&self.state_dir, true) {
            if let Ok(staged) = dir.stage(OsStr::new(CACHE_FILE), &buf) {
                let _ = staged.commit();
            }
        }
    }
}

fn put_u64(buf: &mut Vec<u8>, v: u64) {
    buf.extend_from_slice(&v.to_le_bytes());
}

fn put_u128(buf: &mut Vec<u8>, v: u128) {
    buf.extend_from_slice(&v.to_le_bytes());
}

fn put_str(buf: &mut Vec<u8>, s: &str) {
    put_u64(buf, s.len() as u64);
    buf.extend_from_slice(s.as_bytes());
}

struct Reader<'a>(&'a [u8]);

impl Reader<'_> {
    fn bytes(&mut self, n: usize) -> Option<&[u8]> {
        if self.0.len() < n {
            return None;
        }
        let (a, b) = self.0.split_at(n);
        self.0 = b;
        Some(a)
    }
    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.bytes(8)?.try_into().ok()?))
    }
    fn u128(&mut self) -> Option<u128> {
        Some(u128::from_le_bytes(self.bytes(16)?.try_into().ok()?))
    }
    fn string(&mut self) -> Option<String> {
        let n = usize::try_from(self.u64()?).ok()?;
        String::from_utf8(self.bytes(n)?.to_vec()).ok()
    }
}

fn decode(bytes: &[u8]) -> Option<HashMap<String, (FileKey, Cached)>> {
    let body = bytes.strip_prefix(MAGIC)?.strip_suffix(END)?;
    let mut r = Reader(body);
    let count = r.u64()?;
    // Each entry takes well over 64 bytes: a count beyond that is corrupt.
    if count > (body.len() / 64) as u64 {
        return None;
    }
    let mut map = HashMap::with_capacity(count as usize);
    for _ in 0..count {
        let k = r.string()?;
        let key = FileKey {
            size: r.u64()?,
            mtime_ns: r.u128()? as i128,
            ctime_ns: r.u128()? as i128,
            ino: r.u64()?,
            dev: r.u64()?,
        };
        let memory_type = MemoryType::parse(&r.string()?)?;
        let title = r.string()?;
        let description = r.string()?;
        let body = r.string()?;
        let mtime_ms = f64::from_bits(r.u64()?);
        let n = r.u64()?;
        if n > r.0.len() as u64 {
            return None;
        }
        let mut extra = Vec::with_capacity(n as usize);
        for _ in 0..n {
            extra.push((r.string()?, r.string()?));
        }
        map.insert(
            k,
            (
                key,
                Cached {
                    memory_type,
                    title,
                    description,
                    body,
                    mtime_ms,
                    extra,
                },
            ),
        );
    }
    r.0.is_empty().then_some(map)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::scan::scan_roots;
    use std::fs;

    fn doc(name: &str, body: &str) -> String {
        format!(
            "---\nname: {name}\ndescription: about {name}\ntype: project\nowner: x\n---\n{body}\n"
        )
    }

    /// Scans `root` without a cache and through the cache (racy window 0, so files just written
    /// are cached) and asserts both give the same documents; returns whether the cache file
    /// was rewritten.
    fn same(root: &Path, state: &Path) -> bool {
        let before = fs::read(state.join(CACHE_FILE)).ok();
        let roots = [(Scope::Private, root)];
        let plain = scan_roots(&roots).0;
        let cached = scan_roots_in(&roots, Session::load_with_window(state, 0)).0;
        assert_eq!(plain, cached);
        // And a second, all-hits pass.
        let again = scan_roots_in(&roots, Session::load_with_window(state, 0)).0;
        assert_eq!(plain, again);
        before != fs::read(state.join(CACHE_FILE)).ok()
    }

    fn set_mtime(path: &Path, secs: i64) {
        let t = std::time::UNIX_EPOCH + std::time::Duration::from_secs(secs as u64);
        fs::File::options()
            .write(true)
            .open(path)
            .unwrap()
            .set_modified(t)
            .unwrap();
    }

    #[test]
    fn cached_scan_equals_plain_scan_across_edits() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("memory");
        let state = tmp.path().join("state");
        fs::create_dir_all(root.join("sub")).unwrap();
        fs::write(root.join("a.md"), doc("a", "alpha body")).unwrap();
        fs::write(root.join("sub/b.md"), doc("b", "beta body")).unwrap();
        fs::write(root.join("bad.md"), "no frontmatter").unwrap();
        set_mtime(&root.join("a.md"), 1_700_000_000);
        assert!(same(&root, &state));
        let cache_len = fs::read(state.join(CACHE_FILE)).unwrap().len();
        assert!(
            cache_len > MAGIC.len() + END.len() + 8,
            "documents were cached"
        );
        // Nothing changed: no rewrite.
        assert!(!same(&root, &state));
        // Same-size rewrite with another mtime (and an unchanged mtime, caught by ctime).
        fs::write(root.join("a.md"), doc("a", "ALPHA body")).unwrap();
        set_mtime(&root.join("a.md"), 1_700_000_000);
        assert!(same(&root, &state));
        fs::write(root.join("sub/b.md"), doc("b", "BETA body")).unwrap();
        set_mtime(&root.join("sub/b.md"), 1_700_000_500);
        assert!(same(&root, &state));
        // Rename, new file, deletion.
        fs::rename(root.join("sub/b.md"), root.join("c.md")).unwrap();
        assert!(same(&root, &state));
        fs::write(root.join("d.md"), doc("d", "delta")).unwrap();
        assert!(same(&root, &state));
        fs::remove_file(root.join("a.md")).unwrap();
        assert!(same(&root, &state));
        // A file replaced by a symlink is never followed, even with a matching cache entry.
        fs::rename(root.join("d.md"), tmp.path().join("d.md")).unwrap();
        std::os::unix::fs::symlink(tmp.path().join("d.md"), root.join("d.md")).unwrap();
        assert!(same(&root, &state));
    }

    #[test]
    fn corrupt_truncated_or_foreign_cache_is_ignored_and_rebuilt() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("memory");
        let state = tmp.path().join("state");
        fs::create_dir_all(&root).unwrap();
        for i in 0..5 {
            fs::write(root.join(format!("n{i}.md")), doc(&format!("n{i}"), "body")).unwrap();
        }
        assert!(same(&root, &state));
        let good = fs::read(state.join(CACHE_FILE)).unwrap();
        let mut foreign = good.clone();
        foreign[7] = 9;
        let mut flipped = good.clone();
        let mid = good.len() / 2;
        flipped[mid] ^= 0xff;
        for bad in [
            good[..good.len() - 3].to_vec(),
            foreign,
            flipped,
            Vec::new(),
            b"garbage".to_vec(),
        ] {
            fs::write(state.join(CACHE_FILE), &bad).unwrap();
            same(&root, &state);
        }
        assert!(!same(&root, &state));
        assert_eq!(fs::read(state.join(CACHE_FILE)).unwrap(), good);
    }
}
