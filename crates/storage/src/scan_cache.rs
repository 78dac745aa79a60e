//! The recall parse cache (`recall-scan.bin` in the state dir; docs/DESIGN.md, "State files"
//! and "Recall"): the parsed form of every document, keyed by its root, scope, relative path and
//! stat (size, mtime, ctime, inode, device), so a recall parses only the files that changed.
//!
//! Best effort throughout: a missing, truncated, corrupt or foreign-version file is an empty
//! cache, and failing to write it is ignored. The cache never changes what a scan returns.
//!
//! Built for a short-lived process that reads it whole on every prompt: every string lives in
//! one heap, validated as UTF-8 once and never copied; documents are handed out as
//! [`DocView`]s borrowing it, and only the few a recall shows become owned [`ScannedDoc`]s.

use std::collections::HashMap;
use std::ffi::OsStr;
use std::io::Read;
use std::path::{Path, PathBuf};

use crate::formats::doc::MemoryType;
use crate::safe_fs::Dir;
use crate::scan::{self, DocFields, FileKey, ScanError, ScannedDoc, Scope};

/// The cache file in the state dir.
pub const CACHE_FILE: &str = "recall-scan.bin";

/// Names the format and its version; any other start is a foreign file and is ignored.
const MAGIC: &[u8; 8] = b"QMSCAN\x00\x02";
/// Ends a complete file, so a torn write is never half-used.
const END: &[u8; 8] = b"QMSCEND\x00";

/// Files changed this recently (ns) are parsed but not cached: a write within the same clock
/// tick could leave size, mtime and ctime unchanged (the "racily clean" case).
const RACY_NS: i128 = 2_000_000_000;

/// Layout (little endian): MAGIC; root, entry and extra counts and the heap length (u64 each);
/// the heap (every string, UTF-8); the root, entry and extra records (fixed sizes below); END.
const HEADER_LEN: usize = 8 + 4 * 8;
/// Scope (u32) and path.
const ROOT_LEN: usize = 4 + SPAN_LEN;
/// Root index (u32), relative path, size (u64), mtime and ctime (i128 ns), inode and device
/// (u64), type (u32), mtime in ms (f64 bits), title, description, body, first extra and extra
/// count (u32 each).
const ENTRY_LEN: usize = 4 + SPAN_LEN + 8 + 16 + 16 + 8 + 8 + 4 + 8 + 3 * SPAN_LEN + 4 + 4;
/// Key and value.
const EXTRA_LEN: usize = 2 * SPAN_LEN;
/// Offset and length (u32 each) of a string in the heap.
const SPAN_LEN: usize = 8;

/// Cache files at least this large (about 3,000 documents) are read on a second thread.
const PARALLEL_READ_MIN_BYTES: u64 = 2 << 20;

const SCOPES: [Scope; 4] = [Scope::Repository, Scope::Private, Scope::Team, Scope::User];

/// A string in the heap (checked against the heap when decoded).
#[derive(Debug, Clone, Copy)]
struct Span {
    start: u32,
    len: u32,
}

struct Entry {
    root: u32,
    relative: Span,
    key: FileKey,
    memory_type: MemoryType,
    mtime_ms: f64,
    title: Span,
    description: Span,
    body: Span,
    extra_start: u32,
    extra_count: u32,
}

/// A decoded cache file.
#[derive(Default)]
struct Table {
    heap: String,
    roots: Vec<(Scope, Span)>,
    entries: Vec<Entry>,
    extras: Vec<(Span, Span)>,
}

impl Table {
    fn str(&self, s: Span) -> &str {
        // Every span was checked when decoding (in bounds, on character boundaries).
        let start = s.start as usize;
        self.heap.get(start..start + s.len as usize).unwrap_or("")
    }

    fn extras(&self, e: &Entry) -> &[(Span, Span)] {
        let start = e.extra_start as usize;
        self.extras
            .get(start..start + e.extra_count as usize)
            .unwrap_or(&[])
    }

    /// The cache file of `state_dir`, or `None` when it is missing or not a complete,
    /// well-formed file of this version.
    #[cfg(test)]
    fn read(state_dir: &Path) -> Option<Table> {
        let (file, len) = Table::open(state_dir)?;
        Table::read_from(file, len)
    }

    /// The cache file of `state_dir` and its length.
    fn open(state_dir: &Path) -> Option<(std::fs::File, u64)> {
        let dir = Dir::open_trusted(state_dir, false).ok()?;
        let file = dir.open_read(OsStr::new(CACHE_FILE)).ok()??;
        let len = file.metadata().ok()?.len();
        Some((file, len))
    }

    fn read_from(mut file: std::fs::File, file_len: u64) -> Option<Table> {
        let mut header = [0u8; HEADER_LEN];
        file.read_exact(&mut header).ok()?;
        let mut h = Reader(&header);
        if h.bytes(8)? != MAGIC {
            return None;
        }
        let (roots, entries, extras, heap_len) = (h.len()?, h.len()?, h.len()?, h.len()?);
        let records = roots
            .checked_mul(ROOT_LEN)?
            .checked_add(entries.checked_mul(ENTRY_LEN)?)?
            .checked_add(extras.checked_mul(EXTRA_LEN)?)?
            .checked_add(END.len())?;
        let total = HEADER_LEN.checked_add(heap_len)?.checked_add(records)?;
        if total as u64 != file_len || heap_len > u32::MAX as usize {
            return None;
        }
        // Read straight into buffers of the exact size: no growing, no copy.
        let mut heap = Vec::with_capacity(heap_len);
        (&mut file)
            .take(heap_len as u64)
            .read_to_end(&mut heap)
            .ok()?;
        let mut rest = Vec::with_capacity(records);
        file.take(records as u64).read_to_end(&mut rest).ok()?;
        if heap.len() != heap_len || rest.len() != records {
            return None;
        }
        // One validation of every string; spans are then only checked for boundaries.
        let heap = String::from_utf8(heap).ok()?;
        decode(heap, &rest, roots, entries, extras)
    }
}

fn decode(heap: String, rest: &[u8], roots: usize, entries: usize, extras: usize) -> Option<Table> {
    let mut r = Reader(rest.strip_suffix(END)?);
    let span = |r: &mut Reader| -> Option<Span> {
        let (start, len) = (r.u32()?, r.u32()?);
        let end = start.checked_add(len)? as usize;
        (end <= heap.len() && heap.is_char_boundary(start as usize) && heap.is_char_boundary(end))
            .then_some(Span { start, len })
    };
    let mut table_roots = Vec::with_capacity(roots);
    for _ in 0..roots {
        let scope = *SCOPES.get(r.u32()? as usize)?;
        table_roots.push((scope, span(&mut r)?));
    }
    let mut table_entries = Vec::with_capacity(entries);
    for _ in 0..entries {
        let root = r.u32()?;
        if root as usize >= roots {
            return None;
        }
        let relative = span(&mut r)?;
        let key = FileKey {
            size: r.u64()?,
            mtime_ns: r.u128()? as i128,
            ctime_ns: r.u128()? as i128,
            ino: r.u64()?,
            dev: r.u64()?,
        };
        let memory_type = *MemoryType::ALL.get(r.u32()? as usize)?;
        let mtime_ms = f64::from_bits(r.u64()?);
        let (title, description, body) = (span(&mut r)?, span(&mut r)?, span(&mut r)?);
        let (extra_start, extra_count) = (r.u32()?, r.u32()?);
        if extra_start as usize + extra_count as usize > extras {
            return None;
        }
        table_entries.push(Entry {
            root,
            relative,
            key,
            memory_type,
            mtime_ms,
            title,
            description,
            body,
            extra_start,
            extra_count,
        });
    }
    let mut table_extras = Vec::with_capacity(extras);
    for _ in 0..extras {
        table_extras.push((span(&mut r)?, span(&mut r)?));
    }
    r.0.is_empty().then_some(Table {
        heap,
        roots: table_roots,
        entries: table_entries,
        extras: table_extras,
    })
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
    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.bytes(4)?.try_into().ok()?))
    }
    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.bytes(8)?.try_into().ok()?))
    }
    fn u128(&mut self) -> Option<u128> {
        Some(u128::from_le_bytes(self.bytes(16)?.try_into().ok()?))
    }
    fn len(&mut self) -> Option<usize> {
        usize::try_from(self.u64()?).ok()
    }
}

/// One document of a cached scan, in scan order.
#[derive(Debug, Clone, Copy)]
enum Item {
    /// `entry` of the cache file, found under current root `root`.
    Cached { root: u32, entry: u32 },
    /// `fresh[i]`, parsed by this scan.
    Fresh(u32),
}

/// The documents of several roots, as [`scan::scan_roots`] would return them, partly borrowed
/// from the cache file.
pub struct Loaded {
    table: Table,
    roots: Vec<(Scope, PathBuf)>,
    fresh: Vec<ScannedDoc>,
    /// The root index of each fresh document.
    fresh_roots: Vec<u32>,
    items: Vec<Item>,
    errors: Vec<ScanError>,
}

/// A document of a [`Loaded`] scan: borrowed from the cache file or from a fresh parse.
#[derive(Clone, Copy)]
pub struct DocView<'a> {
    pub scope: Scope,
    pub memory_type: MemoryType,
    pub relative_path: &'a str,
    pub title: &'a str,
    pub description: &'a str,
    pub body: &'a str,
    pub mtime_ms: f64,
    /// Index of its root in the roots that were scanned.
    pub root_index: usize,
    source: Source<'a>,
}

#[derive(Clone, Copy)]
enum Source<'a> {
    Fresh(&'a ScannedDoc),
    Cached {
        root: &'a Path,
        table: &'a Table,
        extras: &'a [(Span, Span)],
    },
}

impl DocView<'_> {
    /// Absolute path of the file.
    pub fn path(&self) -> PathBuf {
        match self.source {
            Source::Fresh(d) => d.path.clone(),
            Source::Cached { root, .. } => root.join(self.relative_path),
        }
    }
}

impl DocFields for DocView<'_> {
    fn scope(&self) -> Scope {
        self.scope
    }
    fn memory_type(&self) -> MemoryType {
        self.memory_type
    }
    fn relative_path(&self) -> &str {
        self.relative_path
    }
    fn title(&self) -> &str {
        self.title
    }
    fn description(&self) -> &str {
        self.description
    }
    fn body(&self) -> &str {
        self.body
    }
    fn mtime_ms(&self) -> f64 {
        self.mtime_ms
    }
    fn for_each_extra(&self, f: &mut dyn FnMut(&str, &str)) {
        match self.source {
            Source::Fresh(d) => d.for_each_extra(f),
            Source::Cached { table, extras, .. } => {
                for (k, v) in extras {
                    f(table.str(*k), table.str(*v));
                }
            }
        }
    }
    fn to_doc(&self) -> ScannedDoc {
        match self.source {
            Source::Fresh(d) => d.clone(),
            Source::Cached { table, extras, .. } => ScannedDoc {
                scope: self.scope,
                memory_type: self.memory_type,
                path: self.path(),
                relative_path: self.relative_path.to_string(),
                title: self.title.to_string(),
                description: self.description.to_string(),
                body: self.body.to_string(),
                mtime_ms: self.mtime_ms,
                extra: extras
                    .iter()
                    .map(|(k, v)| (table.str(*k).to_string(), table.str(*v).to_string()))
                    .collect(),
            },
        }
    }
}

impl Loaded {
    /// Every document, in the order of [`scan::scan_roots`].
    pub fn views(&self) -> Vec<DocView<'_>> {
        self.items.iter().map(|&item| self.view(item)).collect()
    }

    /// Owned copies of every document (what [`scan::scan_roots`] returns).
    pub fn docs(&self) -> Vec<ScannedDoc> {
        self.items
            .iter()
            .map(|&item| self.view(item).to_doc())
            .collect()
    }

    /// Roots that could not be scanned.
    pub fn errors(&self) -> &[ScanError] {
        &self.errors
    }

    fn view(&self, item: Item) -> DocView<'_> {
        match item {
            Item::Fresh(i) => {
                let d = &self.fresh[i as usize];
                DocView {
                    scope: d.scope,
                    memory_type: d.memory_type,
                    relative_path: &d.relative_path,
                    title: &d.title,
                    description: &d.description,
                    body: &d.body,
                    mtime_ms: d.mtime_ms,
                    root_index: self.fresh_roots[i as usize] as usize,
                    source: Source::Fresh(d),
                }
            }
            Item::Cached { root, entry } => {
                let root_index = root as usize;
                let (scope, root) = &self.roots[root_index];
                let t = &self.table;
                let e = &t.entries[entry as usize];
                DocView {
                    scope: *scope,
                    memory_type: e.memory_type,
                    relative_path: t.str(e.relative),
                    title: t.str(e.title),
                    description: t.str(e.description),
                    body: t.str(e.body),
                    mtime_ms: e.mtime_ms,
                    root_index,
                    source: Source::Cached {
                        root,
                        table: t,
                        extras: t.extras(e),
                    },
                }
            }
        }
    }
}

/// [`scan::scan_roots`] through the parse cache in `state_dir` (best effort: the cache never
/// changes the result, and failing to read or write it never fails the scan).
pub fn scan_roots_cached(roots: &[(Scope, &Path)], state_dir: &Path) -> Loaded {
    scan_roots_with_window(roots, state_dir, RACY_NS)
}

/// [`scan_roots_cached`] with another racy window (tests use 0 to cache files just written).
pub fn scan_roots_with_window(roots: &[(Scope, &Path)], state_dir: &Path, racy_ns: i128) -> Loaded {
    let walk_all = || -> Vec<_> {
        roots
            .iter()
            .map(|(scope, root)| scan::walk_root(root, *scope, true))
            .collect()
    };
    let opened = Table::open(state_dir);
    // A large cache file is read and decoded on another core while the roots are walked; for
    // a small one the thread costs more than it saves (measured: 0 and 1,000 documents).
    let (table, walks) = match opened {
        Some((file, len)) if len >= PARALLEL_READ_MIN_BYTES => std::thread::scope(|s| {
            let reader = s.spawn(move || Table::read_from(file, len));
            let walks = walk_all();
            let table = reader
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            (table, walks)
        }),
        Some((file, len)) => (Table::read_from(file, len), walk_all()),
        None => (None, walk_all()),
    };
    let had_file = table.is_some();
    let table = table.unwrap_or_default();
    let now_ns = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as i128);
    let racy_after_ns = now_ns - racy_ns;
    let mut fresh = Vec::new();
    // Per fresh document, its root and the stat to cache it under (`None`: changed too
    // recently to cache).
    let mut fresh_keys: Vec<(u32, Option<FileKey>)> = Vec::new();
    let mut items = Vec::new();
    let mut errors = Vec::new();
    {
        // Per current root, its cached entries by relative path.
        let mut lookup: Vec<HashMap<&str, u32, foldhash::fast::RandomState>> =
            vec![HashMap::default(); roots.len()];
        let current: Vec<Option<usize>> = table
            .roots
            .iter()
            .map(|(scope, path)| {
                let path = table.str(*path);
                roots
                    .iter()
                    .position(|(s, r)| s == scope && r.to_string_lossy() == path)
            })
            .collect();
        for (i, e) in table.entries.iter().enumerate() {
            if let Some(Some(root)) = current.get(e.root as usize) {
                lookup[*root].insert(table.str(e.relative), i as u32);
            }
        }
        for (r, ((scope, root), walk)) in roots.iter().zip(walks).enumerate() {
            let walk = match walk {
                Ok(Some(walk)) => walk,
                Ok(None) => continue,
                Err(e) => {
                    errors.push(e);
                    continue;
                }
            };
            let mut root_items = Vec::with_capacity(walk.files.len());
            let mut misses = Vec::new();
            for f in walk.files {
                // A hit needs the very regular file that was parsed, unchanged.
                let hit = f.meta.as_ref().filter(|m| m.is_file()).and_then(|m| {
                    let entry = *lookup[r].get(f.relative.as_str())?;
                    (table.entries[entry as usize].key == FileKey::of(m)).then_some(entry)
                });
                match hit {
                    Some(entry) => root_items.push(Item::Cached {
                        root: r as u32,
                        entry,
                    }),
                    None => misses.push((
                        walk.walk_root.join(&f.relative),
                        root.join(&f.relative),
                        f.relative,
                    )),
                }
            }
            for (result, key) in scan::read_all(&misses, *scope) {
                // Skipped files are not cached: they are read again next time.
                if let Ok(doc) = result {
                    let cacheable =
                        key.filter(|k| k.mtime_ns <= racy_after_ns && k.ctime_ns <= racy_after_ns);
                    root_items.push(Item::Fresh(fresh.len() as u32));
                    fresh.push(doc);
                    fresh_keys.push((r as u32, cacheable));
                }
            }
            let sort_key = |item: &Item| match *item {
                Item::Fresh(i) => {
                    let d = &fresh[i as usize];
                    (d.mtime_ms, d.relative_path.as_str())
                }
                Item::Cached { entry, .. } => {
                    let e = &table.entries[entry as usize];
                    (e.mtime_ms, table.str(e.relative))
                }
            };
            // Keys side by side (no lookups while sorting).
            let mut keyed: Vec<((f64, &str), Item)> =
                root_items.iter().map(|i| (sort_key(i), *i)).collect();
            keyed.sort_by(|a, b| scan::newest_first(a.0, b.0));
            // A scope already scanned from an earlier root keeps that root's documents.
            if roots[..r].iter().any(|(s, _)| s == scope) {
                let seen: std::collections::HashSet<&str> = items
                    .iter()
                    .filter(|item| match **item {
                        Item::Fresh(i) => fresh[i as usize].scope == *scope,
                        Item::Cached { root, .. } => roots[root as usize].0 == *scope,
                    })
                    .map(&sort_key)
                    .map(|(_, rel)| rel)
                    .collect();
                keyed.retain(|(key, _)| !seen.contains(key.1));
            }
            let root_items: Vec<Item> = keyed.into_iter().map(|(_, item)| item).collect();
            items.extend(root_items);
        }
    }
    let loaded = Loaded {
        table,
        roots: roots.iter().map(|(s, r)| (*s, r.to_path_buf())).collect(),
        fresh_roots: fresh_keys.iter().map(|(root, _)| *root).collect(),
        fresh,
        items,
        errors,
    };
    let hits = loaded
        .items
        .iter()
        .filter(|i| matches!(i, Item::Cached { .. }))
        .count();
    let added = fresh_keys.iter().any(|(_, k)| k.is_some());
    if !had_file || added || hits != loaded.table.entries.len() {
        if let Some(bytes) = encode(&loaded, &fresh_keys) {
            // A cache: no fsync (a torn or empty file after a crash is simply rebuilt).
            if let Ok(dir) = Dir::open_trusted(state_dir, true) {
                if let Ok(staged) = dir.stage(OsStr::new(CACHE_FILE), &bytes) {
                    let _ = staged.commit();
                }
            }
        }
    }
    loaded
}

/// The cache file for every document of `loaded` that may be cached; `None` when the heap
/// would not fit its 32-bit offsets.
fn encode(loaded: &Loaded, fresh_keys: &[(u32, Option<FileKey>)]) -> Option<Vec<u8>> {
    let mut heap: Vec<u8> = Vec::new();
    let mut put = |s: &str| -> Option<[u8; SPAN_LEN]> {
        let start = u32::try_from(heap.len()).ok()?;
        let len = u32::try_from(s.len()).ok()?;
        start.checked_add(len)?;
        heap.extend_from_slice(s.as_bytes());
        let mut out = [0u8; SPAN_LEN];
        out[..4].copy_from_slice(&start.to_le_bytes());
        out[4..].copy_from_slice(&len.to_le_bytes());
        Some(out)
    };
    let mut roots = Vec::new();
    for (scope, path) in &loaded.roots {
        let slot = SCOPES.iter().position(|s| s == scope)? as u32;
        roots.extend_from_slice(&slot.to_le_bytes());
        roots.extend_from_slice(&put(&path.to_string_lossy())?);
    }
    let mut entries = Vec::new();
    let mut extras = Vec::new();
    let mut extra_count = 0u32;
    let mut entry_count = 0usize;
    for &item in &loaded.items {
        let (root, key) = match item {
            Item::Cached { root, entry } => (root, loaded.table.entries[entry as usize].key),
            Item::Fresh(i) => match fresh_keys[i as usize] {
                (root, Some(key)) => (root, key),
                (_, None) => continue,
            },
        };
        let v = loaded.view(item);
        entry_count += 1;
        entries.extend_from_slice(&root.to_le_bytes());
        entries.extend_from_slice(&put(v.relative_path)?);
        entries.extend_from_slice(&key.size.to_le_bytes());
        entries.extend_from_slice(&(key.mtime_ns as u128).to_le_bytes());
        entries.extend_from_slice(&(key.ctime_ns as u128).to_le_bytes());
        entries.extend_from_slice(&key.ino.to_le_bytes());
        entries.extend_from_slice(&key.dev.to_le_bytes());
        let slot = MemoryType::ALL.iter().position(|t| *t == v.memory_type)? as u32;
        entries.extend_from_slice(&slot.to_le_bytes());
        entries.extend_from_slice(&v.mtime_ms.to_bits().to_le_bytes());
        entries.extend_from_slice(&put(v.title)?);
        entries.extend_from_slice(&put(v.description)?);
        entries.extend_from_slice(&put(v.body)?);
        let first = extra_count;
        let mut failed = false;
        v.for_each_extra(&mut |k, val| match (put(k), put(val)) {
            (Some(k), Some(val)) => {
                extras.extend_from_slice(&k);
                extras.extend_from_slice(&val);
                extra_count += 1;
            }
            _ => failed = true,
        });
        if failed {
            return None;
        }
        entries.extend_from_slice(&first.to_le_bytes());
        entries.extend_from_slice(&(extra_count - first).to_le_bytes());
    }
    let mut out = Vec::with_capacity(
        HEADER_LEN + heap.len() + roots.len() + entries.len() + extras.len() + END.len(),
    );
    out.extend_from_slice(MAGIC);
    for n in [
        loaded.roots.len(),
        entry_count,
        extra_count as usize,
        heap.len(),
    ] {
        out.extend_from_slice(&(n as u64).to_le_bytes());
    }
    out.extend_from_slice(&heap);
    out.extend_from_slice(&roots);
    out.extend_from_slice(&entries);
    out.extend_from_slice(&extras);
    out.extend_from_slice(END);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scan::scan_roots;
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
        let cached = scan_roots_with_window(&roots, state, 0).docs();
        assert_eq!(plain, cached);
        // And a second, all-hits pass.
        let written = fs::read(state.join(CACHE_FILE)).ok();
        let again = scan_roots_with_window(&roots, state, 0);
        assert_eq!(plain, again.docs());
        assert_eq!(written, fs::read(state.join(CACHE_FILE)).ok(), "no rewrite");
        assert_eq!(
            again.items.len(),
            again.table.entries.len(),
            "every document came from the cache"
        );
        before != written
    }

    /// Entries in the cache file.
    fn cached_count(state: &Path) -> usize {
        Table::read(state).map_or(0, |t| t.entries.len())
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

    #[test]
    fn files_changed_within_the_racy_window_are_never_cached() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("memory");
        let state = tmp.path().join("state");
        fs::create_dir_all(&root).unwrap();
        let roots = [(Scope::Private, root.as_path())];
        fs::write(root.join("a.md"), doc("a", "first")).unwrap();
        let first = scan_roots_cached(&roots, &state).docs();
        assert_eq!(first, scan_roots(&roots).0);
        assert_eq!(cached_count(&state), 0, "a file just written is not cached");
        // Rewritten at once with the same size: likely the same mtime and ctime tick.
        fs::write(root.join("a.md"), doc("a", "secnd")).unwrap();
        let second = scan_roots_cached(&roots, &state).docs();
        assert_eq!(second, scan_roots(&roots).0);
        assert!(second[0].body.contains("secnd"));
    }

    #[test]
    fn removed_or_symlinked_directories_are_never_served() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("memory");
        let state = tmp.path().join("state");
        fs::create_dir_all(root.join("sub")).unwrap();
        fs::create_dir_all(root.join("other")).unwrap();
        fs::write(root.join("sub/a.md"), doc("a", "alpha")).unwrap();
        fs::write(root.join("other/b.md"), doc("b", "beta")).unwrap();
        fs::write(root.join("c.md"), doc("c", "gamma")).unwrap();
        assert!(same(&root, &state));
        assert_eq!(cached_count(&state), 3);
        fs::remove_dir_all(root.join("sub")).unwrap();
        assert!(same(&root, &state));
        assert_eq!(cached_count(&state), 2);
        // A directory swapped for a symlink to a copy of it is not followed.
        fs::rename(root.join("other"), tmp.path().join("other")).unwrap();
        std::os::unix::fs::symlink(tmp.path().join("other"), root.join("other")).unwrap();
        assert!(same(&root, &state));
        assert_eq!(cached_count(&state), 1);
        // A file swapped for a directory of the same name is not a document.
        fs::remove_file(root.join("c.md")).unwrap();
        fs::create_dir(root.join("c.md")).unwrap();
        assert!(same(&root, &state));
        assert_eq!(cached_count(&state), 0);
    }

    #[test]
    fn a_file_swapped_for_one_with_the_same_size_and_times_is_read_again() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("memory");
        let state = tmp.path().join("state");
        fs::create_dir_all(&root).unwrap();
        fs::write(root.join("a.md"), doc("a", "one")).unwrap();
        set_mtime(&root.join("a.md"), 1_700_000_000);
        assert!(same(&root, &state));
        // Another inode renamed over it, same size and mtime.
        fs::write(tmp.path().join("new.md"), doc("a", "two")).unwrap();
        set_mtime(&tmp.path().join("new.md"), 1_700_000_000);
        fs::rename(tmp.path().join("new.md"), root.join("a.md")).unwrap();
        assert!(same(&root, &state));
        let docs = scan_roots_with_window(&[(Scope::Private, root.as_path())], &state, 0).docs();
        assert!(docs[0].body.contains("two"));
    }

    #[test]
    fn several_roots_keep_their_order_and_restricting_them_rewrites_the_cache() {
        let tmp = tempfile::tempdir().unwrap();
        let private = tmp.path().join("private");
        let user = tmp.path().join("user");
        let state = tmp.path().join("state");
        for (dir, name, secs) in [
            (&private, "p.md", 1_700_000_100),
            (&private, "same.md", 1_700_000_000),
            (&user, "u.md", 1_700_000_200),
            (&user, "same.md", 1_700_000_300),
        ] {
            fs::create_dir_all(dir).unwrap();
            fs::write(dir.join(name), doc(name, &format!("in {}", dir.display()))).unwrap();
            set_mtime(&dir.join(name), secs);
        }
        let both = [
            (Scope::Private, private.as_path()),
            (Scope::User, user.as_path()),
            // The same scope twice: the first root wins, as in a plain scan.
            (Scope::User, private.as_path()),
        ];
        for _ in 0..2 {
            let cached = scan_roots_with_window(&both, &state, 0);
            assert_eq!(cached.docs(), scan_roots(&both).0);
            let views = cached.views();
            assert_eq!(views[0].path(), private.join("p.md"));
            assert_eq!(views[0].root_index, 0);
            assert!(views
                .iter()
                .all(|v| v.path() == both[v.root_index].1.join(v.relative_path)));
        }
        assert_eq!(cached_count(&state), 5);
        let only = [(Scope::User, user.as_path())];
        assert_eq!(
            scan_roots_with_window(&only, &state, 0).docs(),
            scan_roots(&only).0
        );
        assert_eq!(cached_count(&state), 2);
        assert_eq!(
            scan_roots_with_window(&both, &state, 0).docs(),
            scan_roots(&both).0
        );
    }

    #[test]
    fn extras_and_non_ascii_text_round_trip() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("memory");
        let state = tmp.path().join("state");
        fs::create_dir_all(&root).unwrap();
        fs::write(
            root.join("中文.md"),
            "---\nname: 部署\ndescription: 金丝雀 ☃\ntype: user\nowner: 张三\nteam: 🚀\n---\n正文 body\n",
        )
        .unwrap();
        assert!(same(&root, &state));
        let docs = scan_roots_with_window(&[(Scope::Private, root.as_path())], &state, 0).docs();
        assert_eq!(docs[0].extra.len(), 2);
        assert_eq!(docs[0].title, "部署");
    }

    /// A cache file large enough to be read on a second thread gives the same documents.
    #[test]
    fn a_large_cache_file_is_read_alongside_the_walk() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("memory");
        let state = tmp.path().join("state");
        fs::create_dir_all(&root).unwrap();
        let body = "lorem ipsum dolor sit amet ".repeat(2_500);
        for i in 0..40 {
            fs::write(root.join(format!("n{i}.md")), doc(&format!("n{i}"), &body)).unwrap();
        }
        assert!(same(&root, &state));
        let len = fs::metadata(state.join(CACHE_FILE)).unwrap().len();
        assert!(len >= PARALLEL_READ_MIN_BYTES, "{len}");
        assert_eq!(cached_count(&state), 40);
        fs::write(root.join("n7.md"), doc("n7", "changed")).unwrap();
        assert!(same(&root, &state));
    }
}
