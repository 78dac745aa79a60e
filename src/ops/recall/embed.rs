//! Optional semantic matching: document and query vectors from an OpenAI-compatible
//! `/v1/embeddings` endpoint (a local Ollama or llama.cpp server is the usual one), fused with
//! the lexical ranking by reciprocal rank fusion.
//!
//! Document vectors are cached in the state dir, keyed by a hash of the model name and the
//! exact text embedded, so only new or changed documents are sent again and a warm recall costs
//! one query embedding. The cache file is append-only (one record per document, a truncated
//! tail from an interrupted write is ignored) and compacted when it holds far more records than
//! documents. Documents that fail the secret scan are never sent; the query is sent with
//! secrets redacted. Every call runs against a deadline: whatever is not done by then is
//! skipped and recall stays lexical.

use std::collections::HashMap;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use super::lexical::body_window;
use crate::storage::scan::ScannedDoc;
use crate::storage::settings::Settings;

/// The cache file in the state dir.
pub const CACHE_FILE: &str = "recall-embeddings.bin";
const MAGIC: &[u8; 8] = b"QMEMB01\n";

/// Documents per embeddings request.
pub const BATCH: usize = 64;

/// Least cosine similarity for a semantic match; and how far below the best match a further
/// one may be. Unrelated text stays under these with common embedding models.
pub const MIN_SIMILARITY: f32 = 0.5;
pub const MAX_BELOW_BEST: f32 = 0.1;

/// The rank constant of reciprocal rank fusion (the usual 60).
const RRF_K: f64 = 60.0;

/// Total time one recall may spend on embeddings when no tighter budget is given.
pub const DEFAULT_BUDGET: Duration = Duration::from_secs(10);

/// Largest vector accepted (guards the cache reader against a corrupt length).
const MAX_DIM: usize = 16_384;

/// Where and how to reach the embeddings endpoint.
#[derive(Clone)]
pub struct EmbeddingsConfig {
    /// Base URL without a trailing slash, e.g. `http://127.0.0.1:11434/v1`.
    pub base_url: String,
    pub model: String,
    api_key: Option<String>,
}

impl std::fmt::Debug for EmbeddingsConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EmbeddingsConfig")
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .finish_non_exhaustive()
    }
}

impl EmbeddingsConfig {
    /// From `recall.embeddings.baseUrl` and `recall.embeddings.model`; the key (optional, local
    /// servers need none) from `QWEN_MEMORY_EMBEDDINGS_API_KEY`, else `OPENAI_API_KEY`. `None`
    /// unless both settings are given: semantic matching is opt-in.
    pub fn from_settings(settings: &Settings) -> Option<EmbeddingsConfig> {
        let base_url = settings
            .text(crate::storage::settings::Key::RecallEmbeddingsBaseUrl)?
            .trim();
        let model = settings
            .text(crate::storage::settings::Key::RecallEmbeddingsModel)?
            .trim();
        if base_url.is_empty() || model.is_empty() {
            return None;
        }
        let api_key = ["QWEN_MEMORY_EMBEDDINGS_API_KEY", "OPENAI_API_KEY"]
            .iter()
            .find_map(|k| std::env::var(k).ok().filter(|v| !v.trim().is_empty()));
        Some(EmbeddingsConfig {
            base_url: base_url.trim_end_matches('/').to_string(),
            model: model.to_string(),
            api_key,
        })
    }

    pub fn endpoint(&self) -> String {
        format!("{}/embeddings", self.base_url)
    }
}

/// Why semantic matching was skipped (recall then stays lexical).
#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
pub enum EmbedError {
    #[error("embeddings request timed out")]
    Timeout,
    #[error("embeddings server answered HTTP {0}")]
    Http(u16),
    #[error("embeddings transport error: {0}")]
    Transport(String),
    #[error("embeddings answer malformed: {0}")]
    BadResponse(&'static str),
}

/// One HTTP call: the vectors of `inputs`, in order, within `timeout`.
pub fn embed(
    cfg: &EmbeddingsConfig,
    inputs: &[String],
    timeout: Duration,
) -> Result<Vec<Vec<f32>>, EmbedError> {
    if inputs.is_empty() {
        return Ok(Vec::new());
    }
    let agent = ureq::AgentBuilder::new()
        .timeout_connect(timeout)
        .timeout(timeout)
        .redirects(0)
        .build();
    let mut request = agent
        .post(&cfg.endpoint())
        .set("Content-Type", "application/json");
    if let Some(key) = &cfg.api_key {
        request = request.set("Authorization", &format!("Bearer {key}"));
    }
    let body = json!({ "model": cfg.model, "input": inputs });
    let response = match request.send_string(&body.to_string()) {
        Ok(r) => r,
        Err(ureq::Error::Status(status, _)) => return Err(EmbedError::Http(status)),
        Err(ureq::Error::Transport(t)) => {
            let timed_out = std::error::Error::source(&t)
                .and_then(|e| e.downcast_ref::<io::Error>())
                .is_some_and(|e| {
                    matches!(
                        e.kind(),
                        io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock
                    )
                });
            return Err(if timed_out {
                EmbedError::Timeout
            } else {
                // The transport's Display names the URL, which may embed credentials.
                EmbedError::Transport(t.kind().to_string())
            });
        }
    };
    let text = response.into_string().map_err(|e| {
        if matches!(
            e.kind(),
            io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock
        ) {
            EmbedError::Timeout
        } else {
            EmbedError::Transport("reading the answer failed".into())
        }
    })?;
    parse_embeddings(&text, inputs.len())
}

fn parse_embeddings(text: &str, expected: usize) -> Result<Vec<Vec<f32>>, EmbedError> {
    let value: Value =
        serde_json::from_str(text).map_err(|_| EmbedError::BadResponse("body is not JSON"))?;
    let data = value
        .get("data")
        .and_then(Value::as_array)
        .ok_or(EmbedError::BadResponse("no data array"))?;
    if data.len() != expected {
        return Err(EmbedError::BadResponse("wrong number of vectors"));
    }
    let mut out: Vec<Option<Vec<f32>>> = vec![None; expected];
    for (position, item) in data.iter().enumerate() {
        let index = item
            .get("index")
            .and_then(Value::as_u64)
            .map_or(position, |i| i as usize);
        let vector: Vec<f32> = item
            .get("embedding")
            .and_then(Value::as_array)
            .ok_or(EmbedError::BadResponse("no embedding"))?
            .iter()
            .map(|x| x.as_f64().map(|f| f as f32))
            .collect::<Option<_>>()
            .ok_or(EmbedError::BadResponse("embedding holds a non-number"))?;
        if vector.is_empty() || vector.len() > MAX_DIM {
            return Err(EmbedError::BadResponse("embedding has a bad length"));
        }
        *out.get_mut(index)
            .ok_or(EmbedError::BadResponse("index out of range"))? = Some(vector);
    }
    out.into_iter()
        .collect::<Option<Vec<_>>>()
        .ok_or(EmbedError::BadResponse("missing index"))
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
            fs::write(&self.path, MAGIC)?;
        }
        for (key, vector) in &entries {
            write_record(&mut buf, key, vector);
        }
        let mut file = fs::OpenOptions::new().append(true).open(&self.path)?;
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
        let tmp = self.path.with_extension("bin.tmp");
        fs::write(&tmp, &buf)?;
        fs::rename(&tmp, &self.path)?;
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

/// The outcome of the semantic pass.
#[derive(Debug, Default)]
pub struct Semantic {
    /// Document indices with cosine similarity, best first, above the similarity floor.
    pub ranked: Vec<(usize, f32)>,
    /// Documents sent for embedding in this run.
    pub embedded: usize,
    /// Why the pass did not (fully) happen.
    pub error: Option<String>,
}

/// Ranks `docs` by similarity to `query` within `budget`. `eligible[i]` false keeps a document
/// out (it failed the secret scan). Network work runs on a helper thread; when the budget runs
/// out the caller gets what is known so far (possibly nothing) and the thread is abandoned.
pub fn semantic_rank(
    cfg: &EmbeddingsConfig,
    state_dir: &Path,
    query: &str,
    docs: &[ScannedDoc],
    eligible: &[bool],
    budget: Duration,
) -> Semantic {
    let deadline = Instant::now() + budget;
    let mut cache = Cache::load(state_dir);
    let keyed: Vec<Option<([u8; 32], String)>> = docs
        .iter()
        .zip(eligible)
        .map(|(d, ok)| {
            ok.then(|| {
                let text = document_text(d);
                (content_key(&cfg.model, &text), text)
            })
        })
        .collect();
    let mut missing: Vec<([u8; 32], String)> = Vec::new();
    let mut queued = std::collections::HashSet::new();
    for (key, text) in keyed.iter().flatten() {
        if cache.get(key).is_none() && queued.insert(*key) {
            missing.push((*key, text.clone()));
        }
    }
    let embedded_count = missing.len();

    // The helper embeds the query first, then the missing documents batch by batch, sending
    // each result back as it arrives so a partial run still fills the cache.
    let (tx, rx) = mpsc::channel::<Result<Message, EmbedError>>();
    {
        let cfg = cfg.clone();
        let query = query.to_string();
        std::thread::spawn(move || {
            let remaining = || deadline.saturating_duration_since(Instant::now());
            match embed(&cfg, &[query], remaining()) {
                Ok(mut v) => {
                    if tx
                        .send(Ok(Message::Query(v.pop().unwrap_or_default())))
                        .is_err()
                    {
                        return;
                    }
                }
                Err(e) => {
                    let _ = tx.send(Err(e));
                    return;
                }
            }
            for batch in missing.chunks(BATCH) {
                let texts: Vec<String> = batch.iter().map(|(_, t)| t.clone()).collect();
                match embed(&cfg, &texts, remaining()) {
                    Ok(vectors) => {
                        let entries = batch.iter().map(|(k, _)| *k).zip(vectors).collect();
                        if tx.send(Ok(Message::Docs(entries))).is_err() {
                            return;
                        }
                    }
                    Err(e) => {
                        let _ = tx.send(Err(e));
                        return;
                    }
                }
            }
            let _ = tx.send(Ok(Message::Done));
        });
    }

    let mut out = Semantic::default();
    let mut query_vec: Option<Vec<f32>> = None;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(Ok(Message::Query(v))) => query_vec = Some(v),
            Ok(Ok(Message::Docs(entries))) => {
                if let Err(e) = cache.append(entries) {
                    out.error = Some(format!("cannot write the embeddings cache: {e}"));
                }
            }
            Ok(Ok(Message::Done)) => break,
            Ok(Err(e)) => {
                out.error = Some(e.to_string());
                break;
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                out.error = Some(EmbedError::Timeout.to_string());
                break;
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        }
    }
    out.embedded = embedded_count;
    let live: Vec<[u8; 32]> = keyed.iter().flatten().map(|(k, _)| *k).collect();
    let _ = cache.compact_if_bloated(&live);
    let Some(q) = query_vec else {
        return out;
    };
    let mut sims: Vec<(usize, f32)> = keyed
        .iter()
        .enumerate()
        .filter_map(|(i, k)| {
            let (key, _) = k.as_ref()?;
            Some((i, cosine(&q, cache.get(key)?)))
        })
        .filter(|(_, s)| *s >= MIN_SIMILARITY)
        .collect();
    sims.sort_by(|a, b| b.1.total_cmp(&a.1));
    let best = sims.first().map_or(0.0, |s| s.1);
    sims.retain(|s| s.1 >= best - MAX_BELOW_BEST);
    out.ranked = sims;
    out
}

enum Message {
    Query(Vec<f32>),
    Docs(Vec<([u8; 32], Vec<f32>)>),
    Done,
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

    #[test]
    fn parse_answers() {
        let ok = r#"{"data":[{"index":1,"embedding":[0.5]},{"index":0,"embedding":[1,2]}]}"#;
        assert_eq!(
            parse_embeddings(ok, 2).unwrap(),
            vec![vec![1.0, 2.0], vec![0.5]]
        );
        assert!(parse_embeddings(ok, 3).is_err());
        assert!(parse_embeddings("nope", 1).is_err());
        assert!(parse_embeddings(r#"{"data":[{"embedding":["x"]}]}"#, 1).is_err());
        assert!(parse_embeddings(r#"{"data":[{"embedding":[]}]}"#, 1).is_err());
    }
}
