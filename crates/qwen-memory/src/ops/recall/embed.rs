//! Optional semantic matching: document and query vectors from an OpenAI-compatible
//! `/v1/embeddings` endpoint (through [`crate::integrations::embeddings`]), fused with the
//! lexical ranking by reciprocal rank fusion. See docs/DESIGN.md, "Recall" and
//! docs/semantic-recall.md.
//!
//! Never on the prompt's path: a recall embeds only the query and uses the document vectors
//! already cached; documents not yet embedded are ranked lexically only, and the caller starts
//! the background job (`ops::recall::job`) that embeds them in batches.
//!
//! Document vectors are cached in the state dir, keyed by a hash of the vector space (model and
//! input mode) and the exact text embedded. The cache file is append-only (one checked record
//! per document; reading stops at a damaged or cut record, see [`Cache`]), written through
//! `storage::safe_fs`, and compacted when it holds far more records than documents.
//!
//! A recall sends the query first ([`Pending::start`]) and compares only once its own work is
//! done ([`semantic_rank`]): the server computes the query's vector meanwhile.
//!
//! Calibration per model: real embedders put almost any two texts at cosine 0.7-0.9, so a
//! fixed threshold admits everything. The cache also holds the vectors of a fixed background
//! of generic, non-project texts (`background.txt`) under the same model; a document is
//! admitted only when its similarity to the query beats the query's best background similarity
//! by a margin proportional to the model's own spread (one minus the background's mean
//! pairwise similarity). Without that calibration in the cache, nothing is admitted
//! semantically.

use std::collections::HashMap;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};

use crate::integrations::embeddings::{self, MAX_DIM};
pub use crate::integrations::embeddings::{EmbedError, EmbeddingsConfig, InputMode, Purpose};

use super::lexical::body_window;
use crate::storage::safe_fs;
use crate::storage::scan::{DocFields, ScannedDoc};

/// The cache file in the state dir.
pub const CACHE_FILE: &str = "recall-embeddings.bin";
/// Keys (32 bytes each) of document texts the background job refused to send (they fail the
/// secret scan): not counted as missing, so recall does not start the job for them again.
pub const REFUSED_FILE: &str = "recall-embeddings-refused.bin";
/// The cache file's first bytes: the format and its version. Version 1 had no check per
/// record; such a file is read as empty and rebuilt by the background job.
const MAGIC: &[u8; 8] = b"QMEMB02\n";

/// Documents per embeddings request of the background job (the cache is saved after each).
pub const BATCH: usize = 16;

/// The admission margin over the best background similarity, as a share of the model's
/// spread, on language-centred vectors (see [`Calibration`]). Re-chosen (2026-12-02, issue 25)
/// when the background gained generic programming texts, which raise the floor of a technical
/// prompt: with scripts/replay-semantic.py on all five development sets
/// (tests/fixtures/semantic-eval: dev, heldout, heldout2, heldout3, heldout4), pooled.
pub const MARGIN_OF_SPREAD: f32 = 0.09;
/// A further semantic match must be within this share of the spread of the best one ...
pub const TAIL_OF_SPREAD: f32 = 0.078;
/// ... and keep at least this share of the best one's margin over the background.
pub const TAIL_OF_BEST: f32 = 0.65;
/// At most this many documents are admitted semantically (a wider tail finds more
/// cross-language answers and injects more that are not: 0.83 vs 0.72 cross-language Recall@5
/// on the development sets, at 0.55 vs 0.66 of injected documents relevant).
pub const MAX_ADMITTED: usize = 3;
/// A semantic admission needs lexical `auto` to match the same document too, except for the
/// best document when its evidence (see [`Calibration::stands_alone`]) reaches this share of
/// the spread. An unrelated *technical* prompt sits near project memories, and about as near
/// several of them; a paraphrase stands out from the background and from the other memories.
/// Chosen with scripts/replay-semantic.py on the five development sets pooled: the plateau
/// keeping unrelated prompts as silent as before (0.94) with the most paraphrases found.
pub const ALONE_OF_SPREAD: f32 = 0.13;
/// In that evidence, the weight of the best document's lead over the next memories ...
pub const STANDOUT_WEIGHT: f32 = 0.75;
/// ... which are this many (their mean similarity; fewer when there are fewer documents).
pub const STANDOUT_NEXT: usize = 3;

/// The rank constant of reciprocal rank fusion (the usual 60).
const RRF_K: f64 = 60.0;

/// Total time one recall may spend on the network when no tighter budget is given.
pub const DEFAULT_BUDGET: Duration = Duration::from_secs(10);

/// The calibration texts: generic sentences about everyday topics in English, Chinese,
/// Japanese and Korean (written for this project), one a line.
pub const BACKGROUND: &str = include_str!("background.txt");

/// More calibration texts for recall: generic programming facts and how-to questions in the
/// same four languages (written for this project), saying nothing about how a project works.
/// Against them an unrelated technical prompt no longer stands out (see [`ALONE_OF_SPREAD`]).
pub const BACKGROUND_PROGRAMMING: &str = include_str!("background-programming.txt");

fn lines(text: &'static str) -> impl Iterator<Item = &'static str> {
    text.lines().map(str::trim).filter(|l| !l.is_empty())
}

/// Every calibration text (everyday, then programming), non-empty lines: what the background
/// job embeds and recall calibrates on.
pub fn background_texts() -> Vec<&'static str> {
    lines(BACKGROUND)
        .chain(lines(BACKGROUND_PROGRAMMING))
        .collect()
}

/// The everyday calibration texts only: dream's near-duplicate rule was chosen on them
/// (`ops::dream::similar`, docs/DESIGN.md "Near-duplicates").
pub fn everyday_background_texts() -> Vec<&'static str> {
    lines(BACKGROUND).collect()
}

/// The text embedded for a document: title, description and the body window recall scores.
pub fn document_text<D: DocFields + ?Sized>(doc: &D) -> String {
    format!(
        "{}\n{}\n{}",
        doc.title(),
        doc.description(),
        body_window(doc.body())
    )
}

/// The cache key of a text under a model.
pub fn content_key(model: &str, text: &str) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(model.as_bytes());
    h.update([0u8]);
    h.update(text.as_bytes());
    h.finalize().into()
}

/// Cached document vectors.
///
/// The file (see [`MAGIC`]) is the format's name and version, then one record per vector:
/// the 32-byte key, the length `n` (u32), `n` finite little-endian f32 and a check (u64, see
/// [`check`]) of those bytes. Reading stops at the first record that is cut short, has a bad
/// length, a non-finite value or a wrong check (an interrupted write, a damaged disk): what
/// follows is unreliable. A file of another version is read as empty. Either way the lost
/// vectors count as missing and the background job embeds them again, rewriting the file
/// from its good records first (never appending after a bad one, which no reader would reach).
#[derive(Debug, Default)]
pub struct Cache {
    path: PathBuf,
    vectors: HashMap<[u8; 32], Vec<f32>>,
    records: usize,
    /// Bytes of the file read as good records (with the header); 0 when none.
    good_len: u64,
    refused: std::collections::HashSet<[u8; 32]>,
    /// Why the file could not be read, when it is there and reading it failed: such a cache is
    /// used as empty but never written over (a passing read error must not cost every vector).
    unreadable: Option<String>,
}

impl Cache {
    /// Whether the cache file in `state_dir` is long enough for `records` vectors of its first
    /// record's dimension: a cheap look (the header and the file's length, not its records)
    /// before the file is read and checked.
    pub fn may_hold(state_dir: &Path, records: usize) -> bool {
        use std::io::Read as _;
        // Never through a symlink, never blocking on a FIFO: this runs first in the prompt hook.
        let Ok(mut file) = safe_fs::open_regular(&state_dir.join(CACHE_FILE)) else {
            return false;
        };
        let Ok(len) = file.metadata().map(|m| m.len()) else {
            return false;
        };
        let mut head = [0u8; 8 + 32 + 4];
        if file.read_exact(&mut head).is_err() || head[..8] != MAGIC[..] {
            return false;
        }
        let n = u64::from(u32::from_le_bytes([head[40], head[41], head[42], head[43]]));
        let record = 32 + 4 + 4 * n + 8;
        len >= 8 + record.saturating_mul(records as u64)
    }

    /// Loads the cache in `state_dir`; a missing, unreadable or foreign file is an empty cache,
    /// and reading stops at a damaged record. An unreadable one is also kept from being
    /// written over ([`Cache::unreadable`]).
    pub fn load(state_dir: &Path) -> Cache {
        let path = state_dir.join(CACHE_FILE);
        let mut cache = Cache {
            path,
            ..Cache::default()
        };
        if let Ok(Some(bytes)) = safe_fs::read_regular(&state_dir.join(REFUSED_FILE)) {
            cache.refused = bytes
                .chunks_exact(32)
                .filter_map(|c| <[u8; 32]>::try_from(c).ok())
                .collect();
        }
        let bytes = match safe_fs::read_regular(&cache.path) {
            Ok(Some(bytes)) => bytes,
            Ok(None) => return cache,
            Err(e) if e.is_not_found() => return cache,
            Err(e) => {
                cache.unreadable = Some(e.to_string());
                return cache;
            }
        };
        let Some(mut rest) = bytes.strip_prefix(MAGIC.as_slice()) else {
            return cache;
        };
        while let Some((key, vector, len)) = read_record(rest) {
            cache.vectors.insert(key, vector);
            cache.records += 1;
            rest = &rest[len..];
        }
        cache.good_len = (bytes.len() - rest.len()) as u64;
        cache
    }

    /// Why the cache file could not be read, when it is there and reading failed.
    pub fn unreadable(&self) -> Option<&str> {
        self.unreadable.as_deref()
    }

    pub fn get(&self, key: &[u8; 32]) -> Option<&Vec<f32>> {
        self.vectors.get(key)
    }

    pub fn len(&self) -> usize {
        self.vectors.len()
    }

    /// Records the keys of texts that must never be sent (replacing the previous list).
    pub fn set_refused(&mut self, keys: std::collections::HashSet<[u8; 32]>) -> io::Result<()> {
        if keys == self.refused {
            return Ok(());
        }
        let mut buf = Vec::with_capacity(keys.len() * 32);
        for k in &keys {
            buf.extend_from_slice(k);
        }
        if let Some(dir) = self.path.parent() {
            safe_fs::write_atomic(&dir.join(REFUSED_FILE), &buf).map_err(io::Error::other)?;
        }
        self.refused = keys;
        Ok(())
    }

    pub fn is_empty(&self) -> bool {
        self.vectors.is_empty()
    }

    /// Appends new vectors to the file (creating it), and keeps them in memory. When the file
    /// is not exactly the good records read (a damaged or cut tail, another version, changed
    /// since), it is rewritten with the vectors in memory first.
    pub fn append(&mut self, entries: Vec<([u8; 32], Vec<f32>)>) -> io::Result<()> {
        if entries.is_empty() {
            return Ok(());
        }
        if let Some(why) = &self.unreadable {
            return Err(io::Error::other(format!(
                "{}: could not be read ({why}); left as it is",
                self.path.display()
            )));
        }
        let on_disk = fs::metadata(&self.path).map(|m| m.len()).ok();
        if self.good_len == 0 || on_disk != Some(self.good_len) {
            if let Some(dir) = self.path.parent() {
                fs::create_dir_all(dir)?;
            }
            let mut buf = MAGIC.to_vec();
            for (key, vector) in &self.vectors {
                write_record(&mut buf, key, vector);
            }
            safe_fs::write_atomic(&self.path, &buf).map_err(io::Error::other)?;
            self.records = self.vectors.len();
            self.good_len = buf.len() as u64;
        }
        let mut buf = Vec::new();
        for (key, vector) in &entries {
            write_record(&mut buf, key, vector);
        }
        let mut file = safe_fs::open_append(&self.path).map_err(io::Error::other)?;
        file.write_all(&buf)?;
        self.good_len += buf.len() as u64;
        for (key, vector) in entries {
            self.vectors.insert(key, vector);
            self.records += 1;
        }
        Ok(())
    }

    /// Rewrites the file with only the `live` keys when it has grown to hold many more records
    /// than that (deleted and edited documents leave old vectors behind).
    pub fn compact_if_bloated(&mut self, live: &[[u8; 32]]) -> io::Result<()> {
        if self.unreadable.is_some() || self.records <= 2 * live.len() + BATCH {
            return Ok(());
        }
        let mut buf = MAGIC.to_vec();
        let mut kept = HashMap::new();
        for key in live {
            if let Some(v) = self.vectors.remove(key) {
                write_record(&mut buf, key, &v);
                kept.insert(*key, v);
            }
        }
        safe_fs::write_atomic(&self.path, &buf).map_err(io::Error::other)?;
        self.records = kept.len();
        self.vectors = kept;
        self.good_len = buf.len() as u64;
        Ok(())
    }
}

/// The first record of `bytes`: key, vector and the record's length in bytes; `None` when it
/// is cut short, its length is 0 or above [`MAX_DIM`], a value is not finite or the check fails.
fn read_record(bytes: &[u8]) -> Option<([u8; 32], Vec<f32>, usize)> {
    let key: [u8; 32] = bytes.get(..32)?.try_into().ok()?;
    let dim = u32::from_le_bytes(bytes.get(32..36)?.try_into().ok()?) as usize;
    if dim == 0 || dim > MAX_DIM {
        return None;
    }
    let end = 36 + dim * 4;
    let stored = u64::from_le_bytes(bytes.get(end..end + 8)?.try_into().ok()?);
    if check(&bytes[..end]) != stored {
        return None;
    }
    let vector: Vec<f32> = bytes[36..end]
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    if !vector.iter().all(|x| x.is_finite()) {
        return None;
    }
    Some((key, vector, end + 8))
}

fn write_record(buf: &mut Vec<u8>, key: &[u8; 32], vector: &[f32]) {
    let start = buf.len();
    buf.extend_from_slice(key);
    buf.extend_from_slice(&(vector.len() as u32).to_le_bytes());
    for x in vector {
        buf.extend_from_slice(&x.to_le_bytes());
    }
    let sum = check(&buf[start..]);
    buf.extend_from_slice(&sum.to_le_bytes());
}

/// A record's check: a 64-bit multiply-rotate hash of its bytes, eight at a time (it catches
/// damage, not forgery: whoever can write the state dir can write a good record). Fixed here,
/// as part of the format: a change of it is a new [`MAGIC`].
pub fn check(bytes: &[u8]) -> u64 {
    const K: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut h = (bytes.len() as u64).wrapping_mul(K);
    let mut words = bytes.chunks_exact(8);
    for w in &mut words {
        let mut x = [0u8; 8];
        x.copy_from_slice(w);
        h = (h ^ u64::from_le_bytes(x)).wrapping_mul(K).rotate_left(31);
    }
    let mut tail = [0u8; 8];
    tail[..words.remainder().len()].copy_from_slice(words.remainder());
    h = (h ^ u64::from_le_bytes(tail)).wrapping_mul(K);
    h ^ (h >> 32)
}

/// The languages whose script tells them apart: Latin (and anything else), Han, kana, Hangul.
const LANGS: usize = 4;

/// The share of each language in `text` by script: a Latin letter counts a quarter (a word is
/// about four letters and one Han character), Han counts as Japanese when there is kana.
pub fn script_mix(text: &str) -> [f32; LANGS] {
    let (mut latin, mut han, mut kana, mut hangul) = (0.0f32, 0.0f32, 0.0f32, 0.0f32);
    for c in text.chars() {
        match c as u32 {
            0x3040..=0x30FF => kana += 1.0,
            0x1100..=0x11FF | 0xAC00..=0xD7AF => hangul += 1.0,
            0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF => han += 1.0,
            _ if c.is_alphabetic() => latin += 0.25,
            _ => {}
        }
    }
    if kana > 0.0 {
        kana += han;
        han = 0.0;
    }
    let total = latin + han + kana + hangul;
    if total == 0.0 {
        return [1.0, 0.0, 0.0, 0.0];
    }
    [latin / total, han / total, kana / total, hangul / total]
}

fn normalized(v: &[f32]) -> Vec<f32> {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm == 0.0 {
        return v.to_vec();
    }
    v.iter().map(|x| x / norm).collect()
}

/// The model's calibration, from its vectors of the background texts.
///
/// Multilingual models keep a strong language component: an English prompt is closer to any
/// English memory than to the Chinese one that answers it. Each language's mean background
/// vector (its centroid) estimates that component; a vector is compared after subtracting the
/// centroids mixed by its text's script shares ([`script_mix`]). On the centred vectors, a
/// document is admitted when its similarity beats the prompt's best background similarity by
/// [`MARGIN_OF_SPREAD`] × the model's spread (one minus the centred background's mean pairwise
/// similarity), and further documents only when close to the best one; each of them only when
/// lexical ranking matched it too, except the best one when it stands out from the background
/// and from the other documents ([`Calibration::stands_alone`]).
#[derive(Debug, Clone)]
pub struct Calibration {
    /// Centred, normalised background vectors.
    background: Vec<Vec<f32>>,
    /// Per language, the mean normalised background vector (zero when none is in that script).
    centroids: Vec<Vec<f32>>,
    /// Least similarity above the best background similarity a document needs.
    pub margin: f32,
    /// The model's spread: one minus the centred background's mean pairwise similarity.
    pub spread: f32,
}

impl Calibration {
    /// Recall's calibration, from the cache, when every background text of this vector space
    /// is in it.
    pub fn from_cache(space: &str, cache: &Cache) -> Option<Calibration> {
        Calibration::from_cached_texts(space, cache, background_texts())
    }

    /// The calibration on the everyday background only (dream's near-duplicates), from the
    /// cache, when those texts are in it.
    pub fn everyday_from_cache(space: &str, cache: &Cache) -> Option<Calibration> {
        Calibration::from_cached_texts(space, cache, everyday_background_texts())
    }

    fn from_cached_texts(
        space: &str,
        cache: &Cache,
        texts: Vec<&'static str>,
    ) -> Option<Calibration> {
        let raw: Vec<Vec<f32>> = texts
            .iter()
            .map(|t| cache.get(&content_key(space, t)).map(|v| normalized(v)))
            .collect::<Option<_>>()?;
        Calibration::new(&texts, &raw)
    }

    /// From background texts and their vectors; `None` for fewer than two or mixed lengths.
    pub fn new(texts: &[&str], raw: &[Vec<f32>]) -> Option<Calibration> {
        let n = raw.len();
        let dim = raw.first()?.len();
        if n < 2 || texts.len() != n || raw.iter().any(|v| v.len() != dim) {
            return None;
        }
        let mut centroids = vec![vec![0.0f32; dim]; LANGS];
        let mut counts = [0usize; LANGS];
        for (t, v) in texts.iter().zip(raw) {
            let mix = script_mix(t);
            let lang = (0..LANGS)
                .max_by(|a, b| mix[*a].total_cmp(&mix[*b]))
                .unwrap_or(0);
            counts[lang] += 1;
            for (c, x) in centroids[lang].iter_mut().zip(v) {
                *c += x;
            }
        }
        for (c, n) in centroids.iter_mut().zip(counts) {
            if n > 0 {
                c.iter_mut().for_each(|x| *x /= n as f32);
            }
        }
        let mut cal = Calibration {
            background: Vec::new(),
            centroids,
            margin: 0.0,
            spread: 1.0,
        };
        cal.background = texts
            .iter()
            .zip(raw)
            .map(|(t, v)| cal.center(v, t))
            .collect();
        // The sum over pairs without comparing every pair (each recall builds the calibration):
        // |Σ b|² = Σ |b|² + 2 Σ_{i<j} b_i·b_j.
        let mut total = vec![0.0f64; dim];
        let mut own = 0.0f64;
        for b in &cal.background {
            for (t, x) in total.iter_mut().zip(b) {
                *t += f64::from(*x);
            }
            own += f64::from(dot(b, b));
        }
        let sum = (total.iter().map(|t| t * t).sum::<f64>() - own) / 2.0;
        let mean = (sum / (n * (n - 1) / 2) as f64) as f32;
        cal.spread = (1.0 - mean).clamp(0.01, 2.0);
        cal.margin = MARGIN_OF_SPREAD * cal.spread;
        Some(cal)
    }

    /// `v` (of `text`) normalised, its language component removed, normalised again.
    pub fn center(&self, v: &[f32], text: &str) -> Vec<f32> {
        let mix = script_mix(text);
        let mut out = normalized(v);
        for (share, c) in mix.iter().zip(&self.centroids) {
            if *share > 0.0 && c.len() == out.len() {
                for (o, x) in out.iter_mut().zip(c) {
                    *o -= share * x;
                }
            }
        }
        normalized(&out)
    }

    /// The (centred) query's best similarity to the background.
    pub fn floor(&self, query: &[f32]) -> f32 {
        self.background
            .iter()
            .map(|b| dot(query, b))
            .fold(f32::NEG_INFINITY, f32::max)
    }

    /// Whether a document at similarity `sim` stands out enough to be admitted without lexical
    /// agreement: its lead over the query's best background similarity plus
    /// [`STANDOUT_WEIGHT`] × its lead over the mean of the next [`STANDOUT_NEXT`] documents
    /// (`rest`, best first; the background when there are none) reaches [`ALONE_OF_SPREAD`] ×
    /// the spread.
    pub fn stands_alone(&self, sim: f32, background: f32, rest: &[(usize, f32)]) -> bool {
        let next = &rest[..rest.len().min(STANDOUT_NEXT)];
        let others = if next.is_empty() {
            background
        } else {
            next.iter().map(|s| s.1).sum::<f32>() / next.len() as f32
        };
        (sim - background) + STANDOUT_WEIGHT * (sim - others) >= ALONE_OF_SPREAD * self.spread
    }

    /// The documents (index, similarity of the centred vectors) that stand out from the
    /// background for the centred `query`, best first. `lexical(i)` tells whether lexical
    /// ranking matched document `i`: without that agreement only the best document can come
    /// in, and only when it [stands alone](Calibration::stands_alone).
    pub fn admit(
        &self,
        query: &[f32],
        mut sims: Vec<(usize, f32)>,
        lexical: impl Fn(usize) -> bool,
    ) -> Vec<(usize, f32)> {
        let background = self.floor(query);
        sims.sort_by(|a, b| b.1.total_cmp(&a.1));
        let Some(&(_, best)) = sims.first() else {
            return Vec::new();
        };
        let lead = best - background;
        if lead < self.margin {
            return Vec::new();
        }
        let tail = (best - TAIL_OF_SPREAD * self.spread).max(background + TAIL_OF_BEST * lead);
        let mut kept = Vec::new();
        for (k, &(i, sim)) in sims.iter().enumerate().take(MAX_ADMITTED) {
            if sim < tail {
                break;
            }
            // Without lexical agreement only the best one, and only when it stands out.
            if lexical(i) || (k == 0 && self.stands_alone(sim, background, &sims[1..])) {
                kept.push((i, sim));
            }
        }
        kept
    }
}

/// Dot product (the cosine of normalised vectors); 0 for different lengths.
fn dot(a: &[f32], b: &[f32]) -> f32 {
    if a.len() != b.len() {
        return 0.0;
    }
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// The keys and texts a set of documents needs embedded, calibration first: everything the
/// background job sends, in order, skipping what `cache` holds.
pub fn missing(
    space: &str,
    cache: &Cache,
    docs: &[ScannedDoc],
    eligible: &[bool],
) -> Vec<([u8; 32], String)> {
    let mut out = Vec::new();
    let mut queued = std::collections::HashSet::new();
    let texts = background_texts().into_iter().map(str::to_string).chain(
        docs.iter()
            .zip(eligible)
            .filter(|(_, ok)| **ok)
            .map(|(d, _)| document_text(d)),
    );
    for text in texts {
        let key = content_key(space, &text);
        if cache.get(&key).is_none() && !cache.refused.contains(&key) && queued.insert(key) {
            out.push((key, text));
        }
    }
    out
}

/// The outcome of the semantic pass.
#[derive(Debug, Default)]
pub struct Semantic {
    /// Document indices with cosine similarity, best first, that stand out from the background.
    pub ranked: Vec<(usize, f32)>,
    /// Eligible documents (and calibration texts) not in the cache yet: ranked lexically only
    /// this time; the background job embeds them.
    pub missing: usize,
    /// Whether the model's calibration was in the cache.
    pub calibrated: bool,
    /// Why the pass did not (fully) happen.
    pub error: Option<String>,
}

/// A query's embedding on its way, with the cache and calibration it will be compared with.
///
/// Started first thing in a recall ([`Pending::start`]): the cache is loaded and, when it can
/// be used (calibrated, with document vectors), the query is sent on a helper thread at once,
/// so the server computes its vector while recall scans the roots and ranks lexically; the
/// answer is awaited only in [`semantic_rank`] (docs/DESIGN.md, "Recall").
pub struct Pending {
    space: String,
    cache: Cache,
    calibration: Option<Calibration>,
    query: String,
    answer: Option<mpsc::Receiver<Result<Vec<Vec<f32>>, EmbedError>>>,
    deadline: Instant,
}

impl Pending {
    /// Loads the cache in `state_dir` and, when it holds the calibration and any vector besides
    /// it, sends `query` to the endpoint; the answer is waited for until `budget` from now.
    pub fn start(
        cfg: &EmbeddingsConfig,
        state_dir: &Path,
        query: &str,
        budget: Duration,
    ) -> Pending {
        let deadline = Instant::now() + budget;
        // The query goes on a helper thread: the budget holds even if the server stalls (the
        // thread is abandoned then).
        let send = || {
            let (tx, rx) = mpsc::channel();
            let (cfg, q) = (cfg.clone(), query.to_string());
            std::thread::spawn(move || {
                let _ = tx.send(embeddings::embed(&cfg, &[q], Purpose::Query, budget, false));
            });
            rx
        };
        // When the file is long enough to hold the calibration and a document, the query goes
        // out before the cache is read: reading and checking it and calibrating take longer
        // than the request, so the model computes meanwhile. If the cache then proves unusable
        // for this model (another model's vectors, damaged records) the answer is not waited
        // for: one wasted request until the background job has rebuilt it. A cache too short to
        // use is never asked for.
        let calibration_texts = background_texts().len();
        let early = Cache::may_hold(state_dir, calibration_texts + 1).then(send);
        let space = cfg.vector_space();
        let cache = Cache::load(state_dir);
        let calibration = Calibration::from_cache(&space, &cache);
        // Every distinct calibration text is in a calibrated cache: anything more is a
        // document's vector (perhaps a stale one, which only costs this request).
        let background: std::collections::HashSet<[u8; 32]> = background_texts()
            .into_iter()
            .map(|t| content_key(&space, t))
            .collect();
        let usable = calibration.is_some() && cache.len() > background.len();
        let answer = if usable {
            early.or_else(|| Some(send()))
        } else {
            None
        };
        Pending {
            space,
            cache,
            calibration,
            query: query.to_string(),
            answer,
            deadline,
        }
    }

    /// The query's vector, waiting for it until the deadline; `None` when it was not sent.
    fn wait(&self) -> Option<Result<Vec<f32>, EmbedError>> {
        let rx = self.answer.as_ref()?;
        let left = self.deadline.saturating_duration_since(Instant::now());
        Some(match rx.recv_timeout(left) {
            Ok(Ok(mut v)) => Ok(v.pop().unwrap_or_default()),
            Ok(Err(e)) => Err(e),
            // Timed out, or the helper thread died without answering.
            Err(_) => Err(EmbedError::Timeout),
        })
    }
}

/// Ranks the cached `docs` by similarity to the query of `pending` (whose embedding was
/// requested when recall started). `eligible[i]` false keeps a document out (it failed the
/// secret scan); `lexical` holds the documents lexical ranking matched (see
/// [`Calibration::admit`]).
pub fn semantic_rank<D: DocFields>(
    pending: Pending,
    docs: &[D],
    eligible: &[bool],
    lexical: &[usize],
) -> Semantic {
    let Pending {
        ref space,
        ref cache,
        ref calibration,
        ref query,
        ..
    } = pending;
    // Each document's key once (hashing every document is most of a warm recall's cost).
    let texts: Vec<Option<String>> = docs
        .iter()
        .zip(eligible)
        .map(|(d, ok)| ok.then(|| document_text(d)))
        .collect();
    let keys: Vec<Option<[u8; 32]>> = texts
        .iter()
        .map(|t| t.as_ref().map(|t| content_key(space, t)))
        .collect();
    let mut uncached: std::collections::HashSet<[u8; 32]> = keys
        .iter()
        .flatten()
        .filter(|k| cache.get(k).is_none() && !cache.refused.contains(*k))
        .copied()
        .collect();
    if calibration.is_none() {
        uncached.extend(
            background_texts()
                .into_iter()
                .map(|t| content_key(space, t))
                .filter(|k| cache.get(k).is_none()),
        );
    }
    let mut out = Semantic {
        missing: uncached.len(),
        calibrated: calibration.is_some(),
        // Said as it is: not "calibrating", which the job cannot do over an unreadable cache.
        error: cache
            .unreadable()
            .map(|why| format!("the embeddings cache cannot be read ({why})")),
        ..Semantic::default()
    };
    let Some(calibration) = calibration else {
        return out;
    };
    // The documents' centred vectors, while the query's embedding may still be on its way.
    let centred: Vec<(usize, Vec<f32>)> = keys
        .iter()
        .zip(&texts)
        .enumerate()
        .filter_map(|(i, (k, t))| {
            let v = cache.get(k.as_ref()?)?;
            Some((i, calibration.center(v, t.as_deref().unwrap_or_default())))
        })
        .collect();
    if centred.is_empty() {
        return out;
    }
    let query_vec = match pending.wait() {
        // Not sent: the cache held no document vector when recall started.
        None => return out,
        Some(Err(e)) => {
            out.error = Some(e.to_string());
            return out;
        }
        Some(Ok(v)) => v,
    };
    let query_vec = calibration.center(&query_vec, query);
    let sims: Vec<(usize, f32)> = centred
        .iter()
        .map(|(i, d)| (*i, dot(&query_vec, d)))
        .collect();
    let lexical: std::collections::HashSet<usize> = lexical.iter().copied().collect();
    out.ranked = calibration.admit(&query_vec, sims, |i| lexical.contains(&i));
    out
}

/// Cosine similarity; 0 for vectors of different length or zero norm.
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    if a.len() != b.len() {
        return 0.0;
    }
    let (mut dot, mut na, mut nb) = (0.0f32, 0.0f32, 0.0f32);
    for (x, y) in a.iter().zip(b) {
        dot += x * y;
        na += x * x;
        nb += y * y;
    }
    if na == 0.0 || nb == 0.0 {
        return 0.0;
    }
    dot / (na.sqrt() * nb.sqrt())
}

/// Reciprocal rank fusion of ranked lists of document indices: each list adds 1/(60 + rank).
/// Ties keep the order of first appearance (lexical first).
pub fn fuse(lists: &[&[usize]]) -> Vec<(usize, f64)> {
    let mut scores: Vec<(usize, f64)> = Vec::new();
    // Where each document is in `scores` (a lexical list holds every match: a linear search
    // per entry was quadratic in it).
    let mut at: HashMap<usize, usize> = HashMap::new();
    for list in lists {
        for (rank, &doc) in list.iter().enumerate() {
            let add = 1.0 / (RRF_K + rank as f64 + 1.0);
            match at.get(&doc) {
                Some(&k) => scores[k].1 += add,
                None => {
                    at.insert(doc, scores.len());
                    scores.push((doc, add));
                }
            }
        }
    }
    scores.sort_by(|a, b| b.1.total_cmp(&a.1));
    scores
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fusion_rewards_agreement() {
        let fused = fuse(&[&[1, 2, 3], &[3, 4]]);
        assert_eq!(fused[0].0, 3);
        assert_eq!(fused.iter().map(|f| f.0).collect::<Vec<_>>(), [3, 1, 2, 4]);
        assert!(fuse(&[&[], &[]]).is_empty());
    }

    #[test]
    fn cosine_basics() {
        assert!((cosine(&[1.0, 0.0], &[2.0, 0.0]) - 1.0).abs() < 1e-6);
        assert_eq!(cosine(&[1.0, 0.0], &[0.0, 1.0]), 0.0);
        assert_eq!(cosine(&[1.0], &[1.0, 0.0]), 0.0);
        assert_eq!(cosine(&[0.0], &[0.0]), 0.0);
    }

    #[test]
    fn script_mix_tells_languages_apart() {
        assert_eq!(script_mix("plain words"), [1.0, 0.0, 0.0, 0.0]);
        assert_eq!(script_mix("数据库"), [0.0, 1.0, 0.0, 0.0]);
        assert_eq!(script_mix("日本語で書く"), [0.0, 0.0, 1.0, 0.0]);
        assert_eq!(script_mix("한국어"), [0.0, 0.0, 0.0, 1.0]);
        assert_eq!(script_mix("1 + 2"), [1.0, 0.0, 0.0, 0.0]);
        // Four Latin letters weigh one Han character.
        assert_eq!(script_mix("CDNs 缓存"), [1.0 / 3.0, 2.0 / 3.0, 0.0, 0.0]);
    }

    #[test]
    fn centring_removes_the_language_component() {
        // Axis 0 is "English", axis 1 "Chinese"; axes 2 and 3 are topics.
        let texts = ["one", "two", "一", "二"];
        let raw = [
            vec![1.0, 0.0, 0.3, 0.0],
            vec![1.0, 0.0, 0.0, 0.3],
            vec![0.0, 1.0, 0.3, 0.0],
            vec![0.0, 1.0, 0.0, 0.3],
        ];
        let c = Calibration::new(&texts, &raw).unwrap();
        // An English query about topic 3 against an English memory on topic 2 and a Chinese
        // memory on topic 3: raw cosine prefers the English one, centred the Chinese one.
        let (q, en, zh) = (
            [1.0, 0.0, 0.0, 0.5],
            [1.0, 0.0, 0.5, 0.0],
            [0.0, 1.0, 0.0, 0.5],
        );
        assert!(cosine(&q, &en) > cosine(&q, &zh));
        let q = c.center(&q, "query");
        let en = c.center(&en, "memory");
        let zh = c.center(&zh, "记忆");
        assert!(dot(&q, &zh) > dot(&q, &en) + 0.5);
        assert!(Calibration::new(&texts[..1], &raw[..1]).is_none());
    }

    #[test]
    fn calibration_admits_only_what_stands_out_from_the_background() {
        let texts = ["a", "b"];
        let c = Calibration::new(&texts, &[vec![1.0, 0.0, 0.0], vec![0.0, 1.0, 0.0]]).unwrap();
        // Centred background: (0.7, -0.7, 0) and (-0.7, 0.7, 0), spread 2.
        assert!((c.spread - 2.0).abs() < 1e-5, "{}", c.spread);
        let q = [1.0, 0.0, 0.0];
        // A query on the background's own topic: nothing beats its background similarity.
        assert!(c
            .admit(&c.center(&q, "x"), vec![(0, 0.7), (1, 0.6)], |_| true)
            .is_empty());
        let q = c.center(&[0.0, 0.0, 1.0], "x");
        // Background similarity 0: 0.9 clears the margin (0.18); 0.8 is within the tail
        // (0.156 of the best); 0.5 is not; 0.1 never clears it.
        let all = vec![(2, 0.5), (0, 0.9), (1, 0.8), (3, 0.1)];
        let ids = |kept: Vec<(usize, f32)>| kept.iter().map(|k| k.0).collect::<Vec<_>>();
        assert_eq!(ids(c.admit(&q, all.clone(), |_| true)), [0, 1]);
        // Without lexical agreement only the best document can come in, when its lead over the
        // background plus 0.75 × its lead over the mean of the next three reaches 0.26 (0.13 ×
        // the spread): 0.9 + 0.75 × (0.9 − 0.47) does; 0.8 never comes in without agreement ...
        assert_eq!(ids(c.admit(&q, all.clone(), |_| false)), [0]);
        // ... and does with it.
        assert_eq!(ids(c.admit(&q, all, |i| i == 1)), [0, 1]);
        // The same lead of 0.2 (above the margin, 0.18): alone when the other documents are far
        // below it (0.2 + 0.75 × 0.2), not when it is about as near several of them.
        assert_eq!(ids(c.admit(&q, vec![(0, 0.2), (1, 0.0)], |_| false)), [0]);
        let crowd = vec![(0, 0.2), (1, 0.19), (2, 0.19), (3, 0.19), (4, -0.5)];
        assert!(c.admit(&q, crowd.clone(), |_| false).is_empty());
        assert_eq!(ids(c.admit(&q, crowd.clone(), |i| i == 0)), [0]);
        // Only the next three count: a fourth far below does not make the best stand out.
        assert!(!c.stands_alone(0.2, 0.0, &crowd[1..]));
        assert!(c.stands_alone(0.2, 0.0, &crowd[4..]));
        // No other document: the lead over the background counts twice.
        assert!(c.stands_alone(0.15, 0.0, &[]));
        assert!(!c.stands_alone(0.14, 0.0, &[]));
        // The tail also keeps at least 65 % of the best's lead over the background.
        let kept = c.admit(&q, vec![(0, 0.32), (1, 0.2)], |_| true);
        assert_eq!(kept.iter().map(|k| k.0).collect::<Vec<_>>(), [0]);
        assert!(
            c.admit(&q, vec![(0, 0.17), (1, 0.1)], |_| true).is_empty(),
            "below the margin"
        );
        assert!(c.admit(&q, Vec::new(), |_| true).is_empty());
    }

    #[test]
    fn a_cache_that_cannot_be_read_is_used_as_empty_and_never_written_over() {
        let dir = tempfile::tempdir().unwrap();
        // Something is at the cache's place that a read refuses (as a passing I/O error would).
        let path = dir.path().join(CACHE_FILE);
        fs::create_dir(&path).unwrap();
        fs::write(path.join("keep"), b"x").unwrap();
        let mut c = Cache::load(dir.path());
        assert!(c.is_empty());
        assert!(c.unreadable().is_some());
        let err = c.append(vec![([1; 32], vec![1.0, 0.0])]).unwrap_err();
        assert!(err.to_string().contains("could not be read"), "{err}");
        assert!(path.join("keep").exists());
        // A missing file is simply empty, and written.
        let other = tempfile::tempdir().unwrap();
        let mut c = Cache::load(other.path());
        assert!(c.unreadable().is_none());
        c.append(vec![([1; 32], vec![1.0, 0.0])]).unwrap();
        assert_eq!(Cache::load(other.path()).len(), 1);
    }

    #[test]
    fn recall_calibrates_on_both_backgrounds_and_dream_on_the_everyday_one() {
        let all = background_texts();
        let everyday = everyday_background_texts();
        assert!(everyday.len() >= 30, "{}", everyday.len());
        assert_eq!(&all[..everyday.len()], everyday.as_slice());
        let programming = &all[everyday.len()..];
        assert!(programming.len() >= 40, "{}", programming.len());
        // Every language has its programming texts (the centring is per language).
        for lang in 0..LANGS {
            let n = programming
                .iter()
                .filter(|t| {
                    let mix = script_mix(t);
                    (0..LANGS).all(|o| mix[lang] >= mix[o])
                })
                .count();
            assert!(n >= 5, "language {lang}: {n}");
        }
        let unique: std::collections::HashSet<_> = all.iter().collect();
        assert_eq!(unique.len(), all.len(), "a background text twice");
        // A cache holding only the everyday texts calibrates dream, not recall.
        let dir = tempfile::tempdir().unwrap();
        let mut cache = Cache::load(dir.path());
        let vector = |i: usize| (0..4).map(|d| if d == i % 4 { 1.0 } else { 0.1 }).collect();
        let entries = |texts: &[&str]| {
            texts
                .iter()
                .enumerate()
                .map(|(i, t)| (content_key("m", t), vector(i)))
                .collect::<Vec<_>>()
        };
        cache.append(entries(&everyday)).unwrap();
        assert!(Calibration::everyday_from_cache("m", &cache).is_some());
        assert!(Calibration::from_cache("m", &cache).is_none());
        cache.append(entries(&all)).unwrap();
        assert!(Calibration::from_cache("m", &cache).is_some());
        assert!(Calibration::from_cache("other", &cache).is_none());
    }

    #[test]
    fn may_hold_looks_at_the_length_for_the_first_records_dimension() {
        let dir = tempfile::tempdir().unwrap();
        assert!(!Cache::may_hold(dir.path(), 1), "no file");
        let mut c = Cache::load(dir.path());
        let vectors: Vec<_> = (0..3)
            .map(|i| (content_key("m", &i.to_string()), vec![i as f32; 4]))
            .collect();
        c.append(vectors).unwrap();
        assert!(Cache::may_hold(dir.path(), 3));
        assert!(!Cache::may_hold(dir.path(), 4));
        // Another version's file is never taken for a usable one.
        let path = dir.path().join(CACHE_FILE);
        let mut bytes = fs::read(&path).unwrap();
        bytes[..8].copy_from_slice(b"QMEMB01\n");
        fs::write(&path, &bytes).unwrap();
        assert!(!Cache::may_hold(dir.path(), 1));
    }

    #[test]
    fn cache_round_trip_ignores_truncated_tail_and_compacts() {
        let dir = tempfile::tempdir().unwrap();
        let mut c = Cache::load(dir.path());
        assert!(c.is_empty());
        let a = content_key("m", "a");
        let b = content_key("m", "b");
        assert_ne!(a, content_key("other", "a"));
        c.append(vec![(a, vec![1.0, 2.0]), (b, vec![3.0])]).unwrap();
        let path = dir.path().join(CACHE_FILE);
        // A torn write leaves half a record.
        let mut f = fs::OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(&[7u8; 20]).unwrap();
        let mut c = Cache::load(dir.path());
        assert_eq!(c.len(), 2);
        assert_eq!(c.get(&a), Some(&vec![1.0, 2.0]));
        // What is appended next is not lost behind the torn bytes.
        let d = content_key("m", "d");
        c.append(vec![(d, vec![4.0, 5.0])]).unwrap();
        let mut c = Cache::load(dir.path());
        assert_eq!(c.len(), 3, "the record after a torn tail is read");
        assert_eq!(c.get(&d), Some(&vec![4.0, 5.0]));
        // Many dead records: compaction keeps only the live ones.
        c.records = 1000;
        c.compact_if_bloated(&[b]).unwrap();
        let c = Cache::load(dir.path());
        assert_eq!(c.len(), 1);
        assert!(c.get(&a).is_none());
    }

    /// A damaged record, a non-finite value or another version is never read as a vector: the
    /// vectors from there on count as missing, and the next append keeps the good ones.
    #[test]
    fn damaged_or_foreign_cache_files_are_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(CACHE_FILE);
        let keys: Vec<[u8; 32]> = (0..3).map(|i| content_key("m", &i.to_string())).collect();
        let mut c = Cache::load(dir.path());
        c.append(keys.iter().map(|k| (*k, vec![0.5, -0.25, 1.0])).collect())
            .unwrap();
        let good = fs::read(&path).unwrap();
        let record = 32 + 4 + 3 * 4 + 8;
        assert_eq!(good.len(), MAGIC.len() + 3 * record);
        assert_eq!(Cache::load(dir.path()).len(), 3);

        // One flipped bit in the second record's values: only the first record is read.
        let mut bad = good.clone();
        bad[MAGIC.len() + record + 40] ^= 0x01;
        fs::write(&path, &bad).unwrap();
        let mut c = Cache::load(dir.path());
        assert_eq!(c.len(), 1);
        assert!(c.get(&keys[0]).is_some() && c.get(&keys[1]).is_none());
        // Re-embedding the lost vectors rewrites the file from the good record.
        c.append(vec![(keys[1], vec![9.0]), (keys[2], vec![8.0])])
            .unwrap();
        let c = Cache::load(dir.path());
        assert_eq!(c.len(), 3);
        assert_eq!(c.get(&keys[2]), Some(&vec![8.0]));

        // A NaN with a matching check (written by a faulty embedder or another tool).
        let mut nan = MAGIC.to_vec();
        write_record(&mut nan, &keys[0], &[1.0, 2.0]);
        write_record(&mut nan, &keys[1], &[f32::NAN, 2.0]);
        fs::write(&path, &nan).unwrap();
        assert_eq!(Cache::load(dir.path()).len(), 1);

        // Version 1 (no checks): read as empty; the first append starts the file over.
        let mut old = b"QMEMB01\n".to_vec();
        old.extend_from_slice(&keys[0]);
        old.extend_from_slice(&1u32.to_le_bytes());
        old.extend_from_slice(&1.0f32.to_le_bytes());
        fs::write(&path, &old).unwrap();
        let mut c = Cache::load(dir.path());
        assert!(c.is_empty());
        c.append(vec![(keys[2], vec![3.0])]).unwrap();
        assert!(fs::read(&path).unwrap().starts_with(MAGIC));
        let c = Cache::load(dir.path());
        assert_eq!(c.len(), 1);
        assert_eq!(c.get(&keys[2]), Some(&vec![3.0]));
    }

    #[test]
    fn the_check_sees_every_byte() {
        let bytes: Vec<u8> = (0..=255u8).chain(0..7).collect();
        let sum = check(&bytes);
        for i in 0..bytes.len() {
            let mut b = bytes.clone();
            b[i] ^= 0x80;
            assert_ne!(check(&b), sum, "byte {i}");
        }
        assert_ne!(check(&bytes[..bytes.len() - 1]), sum);
        assert_ne!(check(&[0]), check(&[0, 0]), "the length counts");
    }

    #[test]
    fn fusion_of_long_lists_keeps_first_appearance_order() {
        let lex: Vec<usize> = (0..500).collect();
        let fused = fuse(&[&lex, &[499, 3]]);
        assert_eq!(fused.len(), 500);
        assert_eq!(fused[0].0, 3, "in both lists, high in the first");
        assert_eq!(fused[1].0, 499);
        assert_eq!(fused[2].0, 0);
        // Equal scores keep lexical order.
        assert!(fused[2..].windows(2).all(|w| w[0].0 < w[1].0));
    }
}
