//! The OpenAI-compatible model client shared by recall, extract, dream and forget.
//!
//! One blocking call shape is offered: [`ModelClient::chat_json`], a chat completion that must
//! answer with a JSON value. Every failure is a typed [`ModelError`] so callers can fall back to
//! their offline heuristic. Errors are built from fixed wording plus numbers and transport
//! classifications only: neither the API key nor the prompt text nor the response body can end up
//! in an error message.

use std::fmt;
use std::thread;
use std::time::Duration;

use serde_json::{json, Value};

use super::http::{Client, HttpError};

/// Per-call timeout when none is configured.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(20);

pub use super::http::{MAX_RETRY_AFTER, RETRY_BACKOFF};

/// Where and how to reach the model.
#[derive(Clone, PartialEq, Eq)]
pub struct ModelConfig {
    /// Base URL without a trailing slash, e.g. `https://api.example.com/v1`.
    pub base_url: String,
    /// Model name sent in every request.
    pub model: String,
    /// Bearer token; taken from the environment only.
    pub api_key: Option<String>,
    /// Budget for one HTTP attempt (connect + send + read).
    pub timeout: Duration,
}

// Hand-written so the key can never reach a log line through `{:?}`.
impl fmt::Debug for ModelConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ModelConfig")
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .field(
                "api_key",
                &if self.api_key.is_some() {
                    "<set>"
                } else {
                    "<unset>"
                },
            )
            .field("timeout", &self.timeout)
            .finish()
    }
}

impl ModelConfig {
    /// The configuration from resolved settings and the environment, or `None` when model use
    /// is off or no endpoint is known.
    ///
    /// Model use is opt-in: it is on only when this tool's own settings ask for it
    /// (`model.baseUrl` / `model.name` from a flag, `QWEN_MEMORY_MODEL_*` or git config) or the
    /// caller was asked for the `model` strategy (`requested`). Generic `OPENAI_*` variables that
    /// other tools set never turn it on; once it is on they fill in what is missing.
    pub fn from_settings(
        settings: &crate::storage::settings::Settings,
        requested: bool,
    ) -> Option<ModelConfig> {
        use crate::storage::settings::Key;
        if !model_opted_in(settings, requested) {
            return None;
        }
        ModelConfig::resolve(
            &|k| std::env::var(k).ok(),
            settings.text(Key::ModelBaseUrl).map(str::to_string),
            settings.text(Key::ModelName).map(str::to_string),
            settings.count(Key::ModelTimeoutMs).filter(|n| *n > 0),
        )
    }

    /// Builds the configuration from explicit settings and the environment.
    ///
    /// `base_url_setting` / `model_setting` (git config `qwen-memory.model.baseUrl` /
    /// `qwen-memory.model.name`, already resolved by the caller) win over `OPENAI_BASE_URL` /
    /// `OPENAI_MODEL`, because they are specific to this tool while the environment variables are
    /// shared with other programs. The key only ever comes from `OPENAI_API_KEY`. Blank values
    /// count as absent. Returns `None` when no base URL or no model name is known: the model is
    /// simply not configured.
    pub fn resolve(
        env: &dyn Fn(&str) -> Option<String>,
        base_url_setting: Option<String>,
        model_setting: Option<String>,
        timeout_ms: Option<u64>,
    ) -> Option<ModelConfig> {
        let base_url = non_blank(base_url_setting).or_else(|| non_blank(env("OPENAI_BASE_URL")))?;
        let model = non_blank(model_setting).or_else(|| non_blank(env("OPENAI_MODEL")))?;
        let api_key = non_blank(env("QWEN_MEMORY_MODEL_API_KEY"))
            .or_else(|| non_blank(env("OPENAI_API_KEY")));
        let timeout = match timeout_ms {
            Some(ms) if ms > 0 => Duration::from_millis(ms),
            _ => DEFAULT_TIMEOUT,
        };
        Some(ModelConfig {
            base_url: base_url.trim_end_matches('/').to_string(),
            model,
            api_key,
            timeout,
        })
    }

    /// The chat completions endpoint.
    pub fn endpoint(&self) -> String {
        format!("{}/chat/completions", self.base_url.trim_end_matches('/'))
    }
}

/// Whether model use is on: a `model` strategy was asked for, or one of this tool's own model
/// settings is set (not merely defaulted).
pub fn model_opted_in(settings: &crate::storage::settings::Settings, requested: bool) -> bool {
    use crate::storage::settings::Key;
    requested || settings.is_explicit(Key::ModelBaseUrl) || settings.is_explicit(Key::ModelName)
}

fn non_blank(value: Option<String>) -> Option<String> {
    value
        .map(|v| v.trim().to_string())
        .filter(|v| !v.is_empty())
}

/// Why a model call failed. Display and Debug carry no key, prompt or response content.
#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
pub enum ModelError {
    /// The attempt did not finish within the configured timeout.
    #[error("model request timed out")]
    Timeout,
    /// The server answered with a non-success status (after the retry, if one applied).
    #[error("model server answered HTTP {status}")]
    Http { status: u16 },
    /// Connecting, sending or receiving failed (DNS, refused connection, TLS, bad URL, ...).
    #[error("model transport error: {detail}")]
    Transport { detail: String },
    /// The answer was not a chat completion with a text message.
    #[error("model answer malformed: {0}")]
    BadResponse(&'static str),
    /// The message content was not JSON.
    #[error("model answer content is not JSON")]
    NotJson,
}

/// A blocking OpenAI-compatible chat client.
pub struct ModelClient {
    cfg: ModelConfig,
    http: Client,
}

impl fmt::Debug for ModelClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ModelClient")
            .field("cfg", &self.cfg)
            .finish_non_exhaustive()
    }
}

/// One attempt's outcome: either final, or worth one retry after the given pause.
enum Attempt {
    Done(Result<String, ModelError>),
    Retry(ModelError, Duration),
}

impl ModelClient {
    /// A client for `cfg`. No network traffic happens until a call.
    pub fn new(cfg: ModelConfig) -> ModelClient {
        let http = Client::new(cfg.timeout);
        ModelClient { cfg, http }
    }

    /// The client when model use is on (`requested`: a `model` strategy was asked for) and a
    /// model is configured; `None` otherwise.
    pub fn from_settings(
        settings: &crate::storage::settings::Settings,
        requested: bool,
    ) -> Option<ModelClient> {
        ModelConfig::from_settings(settings, requested).map(ModelClient::new)
    }

    /// The configuration this client uses.
    pub fn config(&self) -> &ModelConfig {
        &self.cfg
    }

    /// Sends one system + user message pair and returns the answer's content parsed as JSON.
    ///
    /// Temperature 0 and `response_format: json_object` are requested. A content wrapped in a
    /// Markdown code fence is accepted. A 429 or 5xx answer is retried once after a short pause.
    pub fn chat_json(&self, system: &str, user: &str) -> Result<Value, ModelError> {
        let body = json!({
            "model": self.cfg.model,
            "messages": [
                {"role": "system", "content": system},
                {"role": "user", "content": user},
            ],
            "temperature": 0,
            "response_format": {"type": "json_object"},
        })
        .to_string();

        let text = match self.attempt(&body) {
            Attempt::Done(result) => result?,
            Attempt::Retry(_, pause) => {
                thread::sleep(pause);
                match self.attempt(&body) {
                    Attempt::Done(result) => result?,
                    Attempt::Retry(err, _) => return Err(err),
                }
            }
        };
        parse_completion(&text)
    }

    fn attempt(&self, body: &str) -> Attempt {
        let answer = self
            .http
            .post_json(&self.cfg.endpoint(), self.cfg.api_key.as_deref(), body);
        match answer {
            Ok(text) => Attempt::Done(Ok(text)),
            Err(HttpError::Status {
                status,
                retry: Some(pause),
            }) => Attempt::Retry(ModelError::Http { status }, pause),
            Err(HttpError::Status {
                status,
                retry: None,
            }) => Attempt::Done(Err(ModelError::Http { status })),
            Err(HttpError::Timeout) => Attempt::Done(Err(ModelError::Timeout)),
            Err(HttpError::Transport { kind, io }) => {
                let detail = match io {
                    Some(io) => format!("{kind}: {io}"),
                    None => kind,
                };
                Attempt::Done(Err(ModelError::Transport {
                    detail: self.redact(&detail),
                }))
            }
        }
    }

    /// Belt and braces: no path above should ever see the key, but if an OS message did, cut it.
    fn redact(&self, text: &str) -> String {
        match &self.cfg.api_key {
            Some(key) if !key.is_empty() => text.replace(key.as_str(), "[redacted]"),
            _ => text.to_string(),
        }
    }
}

/// Extracts `choices[0].message.content` from a chat completion body and parses it as JSON.
fn parse_completion(body: &str) -> Result<Value, ModelError> {
    let completion: Value = serde_json::from_str(body)
        .map_err(|_| ModelError::BadResponse("response body is not JSON"))?;
    let content = completion
        .get("choices")
        .and_then(|c| c.get(0))
        .and_then(|c| c.get("message"))
        .and_then(|m| m.get("content"))
        .and_then(Value::as_str)
        .ok_or(ModelError::BadResponse(
            "no text at choices[0].message.content",
        ))?;
    serde_json::from_str(strip_fence(content)).map_err(|_| ModelError::NotJson)
}

/// Removes a surrounding Markdown code fence (```` ``` ```` or ```` ```json ````), if any.
fn strip_fence(content: &str) -> &str {
    let trimmed = content.trim();
    let Some(rest) = trimmed.strip_prefix("```") else {
        return trimmed;
    };
    // The opening fence line may carry a language tag; the JSON starts on the next line.
    let after_open = match rest.find('\n') {
        Some(newline) => &rest[newline + 1..],
        None => rest,
    };
    after_open
        .trim_end()
        .strip_suffix("```")
        .unwrap_or(after_open)
        .trim()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env_of(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let map: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |name| map.get(name).cloned()
    }

    #[test]
    fn resolve_needs_base_url_and_model() {
        let empty = env_of(&[]);
        assert_eq!(ModelConfig::resolve(&empty, None, None, None), None);
        assert_eq!(
            ModelConfig::resolve(&empty, Some("http://h/v1".into()), None, None),
            None
        );
        assert_eq!(
            ModelConfig::resolve(&empty, None, Some("m".into()), None),
            None
        );
        let blank = env_of(&[("OPENAI_BASE_URL", "  "), ("OPENAI_MODEL", "")]);
        assert_eq!(ModelConfig::resolve(&blank, None, None, None), None);
    }

    #[test]
    fn settings_override_environment_and_key_comes_from_env_only() {
        let env = env_of(&[
            ("OPENAI_BASE_URL", "http://env/v1"),
            ("OPENAI_MODEL", "env-model"),
            ("OPENAI_API_KEY", "k-123"),
        ]);
        let cfg = ModelConfig::resolve(&env, None, None, None).unwrap();
        assert_eq!(cfg.base_url, "http://env/v1");
        assert_eq!(cfg.model, "env-model");
        assert_eq!(cfg.api_key.as_deref(), Some("k-123"));
        assert_eq!(cfg.timeout, DEFAULT_TIMEOUT);

        let cfg = ModelConfig::resolve(
            &env,
            Some("http://set/v1///".into()),
            Some("set-model".into()),
            Some(1500),
        )
        .unwrap();
        assert_eq!(cfg.base_url, "http://set/v1");
        assert_eq!(cfg.endpoint(), "http://set/v1/chat/completions");
        assert_eq!(cfg.model, "set-model");
        assert_eq!(cfg.timeout, Duration::from_millis(1500));

        let no_key = env_of(&[("OPENAI_BASE_URL", "http://env/v1"), ("OPENAI_MODEL", "m")]);
        let cfg = ModelConfig::resolve(&no_key, None, None, Some(0)).unwrap();
        assert_eq!(cfg.api_key, None);
        assert_eq!(cfg.timeout, DEFAULT_TIMEOUT);
    }

    #[test]
    fn model_use_is_opt_in() {
        use crate::storage::settings::{Settings, Source};
        struct Src(
            Vec<(&'static str, &'static str)>,
            Vec<(&'static str, &'static str)>,
        );
        impl Source for Src {
            fn env(&self, name: &str) -> Option<String> {
                self.0
                    .iter()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| v.to_string())
            }
            fn git_config(&self, key: &str) -> Option<String> {
                self.1
                    .iter()
                    .find(|(k, _)| *k == key)
                    .map(|(_, v)| v.to_string())
            }
        }
        let generic = vec![("OPENAI_BASE_URL", "http://h/v1"), ("OPENAI_MODEL", "m")];
        let s = Settings::load(&Src(generic.clone(), vec![]), &[]).unwrap();
        assert!(!model_opted_in(&s, false));
        assert!(model_opted_in(&s, true));
        let s = Settings::load(&Src(vec![], vec![("model.name", "m")]), &[]).unwrap();
        assert!(model_opted_in(&s, false));
        let s = Settings::load(
            &Src(vec![("QWEN_MEMORY_MODEL_BASE_URL", "http://h/v1")], vec![]),
            &[],
        )
        .unwrap();
        assert!(model_opted_in(&s, false));
    }

    #[test]
    fn debug_never_shows_the_key() {
        let cfg = ModelConfig {
            base_url: "http://h/v1".into(),
            model: "m".into(),
            api_key: Some("sk-very-secret-4711".into()),
            timeout: DEFAULT_TIMEOUT,
        };
        let shown = format!("{cfg:?} {:?}", ModelClient::new(cfg.clone()));
        assert!(!shown.contains("sk-very-secret-4711"), "{shown}");
        assert!(shown.contains("<set>"));
    }

    #[test]
    fn fences_are_tolerated() {
        assert_eq!(strip_fence("```json\n{\"a\":1}\n```"), "{\"a\":1}");
        assert_eq!(strip_fence("  ```\n{\"a\":1}```  "), "{\"a\":1}");
        assert_eq!(strip_fence("{\"a\":1}"), "{\"a\":1}");
        let body = json!({"choices":[{"message":{"content":"```json\n{\"x\":[1]}\n```"}}]});
        assert_eq!(
            parse_completion(&body.to_string()).unwrap(),
            json!({"x":[1]})
        );
    }

    #[test]
    fn completion_shape_errors() {
        assert_eq!(
            parse_completion("<html>"),
            Err(ModelError::BadResponse("response body is not JSON"))
        );
        assert!(matches!(
            parse_completion("{\"choices\":[]}"),
            Err(ModelError::BadResponse(_))
        ));
        let body = json!({"choices":[{"message":{"content":"sure! here it is"}}]});
        assert_eq!(
            parse_completion(&body.to_string()),
            Err(ModelError::NotJson)
        );
    }
}
