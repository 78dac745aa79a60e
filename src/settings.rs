//! Settings: command-line flag > environment > `git config qwen-memory.*` > default, with the
//! origin of every value kept so `status --json` can say where each one came from (SPEC §3.3).
//!
//! Model credentials are deliberately not settings: the API key is read from the environment
//! only, by the model module, and never stored or reported.

use std::fmt;

/// Where a setting's value came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    Flag,
    Env(&'static str),
    GitConfig,
    Default,
    Unset,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::Flag => f.write_str("flag"),
            Origin::Env(name) => write!(f, "env:{name}"),
            Origin::GitConfig => f.write_str("git-config"),
            Origin::Default => f.write_str("default"),
            Origin::Unset => f.write_str("unset"),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Bool,
    Number,
    Strategy(&'static [&'static str]),
    Text,
}

/// One documented key.
struct Def {
    key: &'static str,
    env: Option<&'static str>,
    default: Option<&'static str>,
    kind: Kind,
}

const RECALL_STRATEGIES: &[&str] = &["auto", "upstream", "heuristic", "model"];
const EXTRACT_STRATEGIES: &[&str] = &["auto", "heuristic", "model"];
const DREAM_STRATEGIES: &[&str] = &["auto", "mechanical", "model"];

#[rustfmt::skip]
const DEFS: &[Def] = &[
    Def { key: "local", env: Some("QWEN_CODE_MEMORY_LOCAL"), default: Some("false"), kind: Kind::Bool },
    Def { key: "autoCommit", env: Some("QWEN_MEMORY_AUTO_COMMIT"), default: Some("false"), kind: Kind::Bool },
    Def { key: "dream.minHours", env: Some("QWEN_MEMORY_DREAM_MIN_HOURS"), default: Some("24"), kind: Kind::Number },
    Def { key: "dream.minSessions", env: Some("QWEN_MEMORY_DREAM_MIN_SESSIONS"), default: Some("5"), kind: Kind::Number },
    Def { key: "dream.strategy", env: Some("QWEN_MEMORY_DREAM_STRATEGY"), default: Some("auto"), kind: Kind::Strategy(DREAM_STRATEGIES) },
    Def { key: "recall.limit", env: Some("QWEN_MEMORY_RECALL_LIMIT"), default: Some("5"), kind: Kind::Number },
    Def { key: "recall.strategy", env: Some("QWEN_MEMORY_RECALL_STRATEGY"), default: Some("auto"), kind: Kind::Strategy(RECALL_STRATEGIES) },
    Def { key: "recall.embeddings.baseUrl", env: Some("QWEN_MEMORY_EMBEDDINGS_BASE_URL"), default: None, kind: Kind::Text },
    Def { key: "recall.embeddings.model", env: Some("QWEN_MEMORY_EMBEDDINGS_MODEL"), default: None, kind: Kind::Text },
    Def { key: "extract.strategy", env: Some("QWEN_MEMORY_EXTRACT_STRATEGY"), default: Some("auto"), kind: Kind::Strategy(EXTRACT_STRATEGIES) },
    Def { key: "model.baseUrl", env: Some("OPENAI_BASE_URL"), default: None, kind: Kind::Text },
    Def { key: "model.name", env: Some("OPENAI_MODEL"), default: None, kind: Kind::Text },
    Def { key: "model.timeoutMs", env: Some("QWEN_MEMORY_MODEL_TIMEOUT_MS"), default: Some("20000"), kind: Kind::Number },
    Def { key: "hooks.enabled", env: Some("QWEN_MEMORY_HOOKS"), default: Some("true"), kind: Kind::Bool },
];

/// A bad setting value, named with its key and origin.
#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    #[error("qwen-memory.{key} = {value:?} (from {origin}): {expected}")]
    Invalid {
        key: &'static str,
        value: String,
        origin: Origin,
        expected: String,
    },
    #[error("unknown setting {0:?}")]
    Unknown(String),
}

/// One resolved setting.
#[derive(Debug, Clone)]
pub struct Resolved {
    pub key: &'static str,
    pub value: Option<String>,
    pub origin: Origin,
}

/// All settings, resolved once per command.
#[derive(Debug, Clone)]
pub struct Settings {
    values: Vec<Resolved>,
}

/// Where settings are read from; tests substitute their own.
pub trait Source {
    fn env(&self, name: &str) -> Option<String>;
    fn git_config(&self, key: &str) -> Option<String>;
}

/// The real environment and a git2 configuration (repository config when inside one, which
/// includes the global and system files).
pub struct SystemSource {
    config: Option<git2::Config>,
}

impl SystemSource {
    pub fn new(repo_git_dir: Option<&std::path::Path>) -> SystemSource {
        let config = repo_git_dir
            .and_then(|d| git2::Repository::open(d).ok())
            .and_then(|r| r.config().ok())
            .or_else(|| git2::Config::open_default().ok())
            .and_then(|mut c| c.snapshot().ok());
        SystemSource { config }
    }
}

impl Source for SystemSource {
    fn env(&self, name: &str) -> Option<String> {
        std::env::var(name).ok()
    }

    fn git_config(&self, key: &str) -> Option<String> {
        let config = self.config.as_ref()?;
        config.get_string(&format!("qwen-memory.{key}")).ok()
    }
}

impl Settings {
    /// Resolves every documented key. `flags` holds command-line overrides as (key, value).
    pub fn load(source: &dyn Source, flags: &[(&str, String)]) -> Result<Settings, SettingsError> {
        if let Some((unknown, _)) = flags
            .iter()
            .find(|(k, _)| !DEFS.iter().any(|d| d.key == *k))
        {
            return Err(SettingsError::Unknown((*unknown).to_string()));
        }
        let mut values = Vec::with_capacity(DEFS.len());
        for def in DEFS {
            let resolved = resolve(def, source, flags);
            if let Some(value) = &resolved.value {
                validate(def, value, &resolved.origin)?;
            }
            values.push(Resolved {
                value: resolved.value.map(|v| normalize(def.kind, &v)),
                ..resolved
            });
        }
        Ok(Settings { values })
    }

    /// Every setting with its origin, in documentation order.
    pub fn all(&self) -> &[Resolved] {
        &self.values
    }

    fn get(&self, key: &str) -> Option<&Resolved> {
        self.values.iter().find(|r| r.key == key)
    }

    /// A boolean setting; false when unknown or unset.
    pub fn bool(&self, key: &str) -> bool {
        self.text(key).is_some_and(|v| v == "true")
    }

    /// A numeric setting (validated at load).
    pub fn number(&self, key: &str) -> Option<f64> {
        self.text(key).and_then(|v| v.parse().ok())
    }

    /// A text setting.
    pub fn text(&self, key: &str) -> Option<&str> {
        self.get(key).and_then(|r| r.value.as_deref())
    }

    /// The origin of a setting.
    pub fn origin(&self, key: &str) -> Origin {
        self.get(key)
            .map(|r| r.origin.clone())
            .unwrap_or(Origin::Unset)
    }
}

fn resolve(def: &Def, source: &dyn Source, flags: &[(&str, String)]) -> Resolved {
    let found = |value: String, origin: Origin| Resolved {
        key: def.key,
        value: Some(value),
        origin,
    };
    if let Some((_, v)) = flags.iter().rev().find(|(k, _)| *k == def.key) {
        return found(v.clone(), Origin::Flag);
    }
    if let Some(name) = def.env {
        if let Some(v) = source.env(name).filter(|v| !v.is_empty()) {
            // Upstream turns local mode on only for exactly "1"; "0" turns it off explicitly, and
            // any other value is ignored rather than guessed at.
            if def.key == "local" {
                match v.as_str() {
                    "1" => return found("true".into(), Origin::Env(name)),
                    "0" => return found("false".into(), Origin::Env(name)),
                    _ => {}
                }
            } else {
                return found(v, Origin::Env(name));
            }
        }
    }
    if let Some(v) = source.git_config(def.key) {
        return found(v, Origin::GitConfig);
    }
    match def.default {
        Some(v) => found(v.to_string(), Origin::Default),
        None => Resolved {
            key: def.key,
            value: None,
            origin: Origin::Unset,
        },
    }
}

fn parse_bool(v: &str) -> Option<bool> {
    match v.trim().to_ascii_lowercase().as_str() {
        "true" | "yes" | "on" | "1" => Some(true),
        "false" | "no" | "off" | "0" | "" => Some(false),
        _ => None,
    }
}

fn validate(def: &Def, value: &str, origin: &Origin) -> Result<(), SettingsError> {
    let invalid = |expected: String| SettingsError::Invalid {
        key: def.key,
        value: value.to_string(),
        origin: origin.clone(),
        expected,
    };
    match def.kind {
        Kind::Bool if parse_bool(value).is_none() => Err(invalid("expected true or false".into())),
        Kind::Number => match value.trim().parse::<f64>() {
            Ok(n) if n.is_finite() && n >= 0.0 => Ok(()),
            _ => Err(invalid("expected a non-negative number".into())),
        },
        Kind::Strategy(allowed) if !allowed.contains(&value.trim()) => {
            Err(invalid(format!("expected one of {}", allowed.join(", "))))
        }
        _ => Ok(()),
    }
}

fn normalize(kind: Kind, value: &str) -> String {
    match kind {
        Kind::Bool => parse_bool(value).unwrap_or(false).to_string(),
        Kind::Number | Kind::Strategy(_) => value.trim().to_string(),
        Kind::Text => value.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    struct Fake {
        env: HashMap<&'static str, &'static str>,
        git: HashMap<&'static str, &'static str>,
    }

    impl Source for Fake {
        fn env(&self, name: &str) -> Option<String> {
            self.env.get(name).map(|v| v.to_string())
        }
        fn git_config(&self, key: &str) -> Option<String> {
            self.git.get(key).map(|v| v.to_string())
        }
    }

    fn fake(env: &[(&'static str, &'static str)], git: &[(&'static str, &'static str)]) -> Fake {
        Fake {
            env: env.iter().copied().collect(),
            git: git.iter().copied().collect(),
        }
    }

    #[test]
    fn precedence_flag_env_git_default() {
        let src = fake(
            &[("QWEN_MEMORY_RECALL_LIMIT", "7")],
            &[("recall.limit", "9"), ("dream.minHours", "2")],
        );
        let s = Settings::load(&src, &[]).unwrap();
        assert_eq!(s.number("recall.limit"), Some(7.0));
        assert_eq!(
            s.origin("recall.limit"),
            Origin::Env("QWEN_MEMORY_RECALL_LIMIT")
        );
        assert_eq!(s.number("dream.minHours"), Some(2.0));
        assert_eq!(s.origin("dream.minHours"), Origin::GitConfig);
        assert_eq!(s.number("dream.minSessions"), Some(5.0));
        assert_eq!(s.origin("dream.minSessions"), Origin::Default);
        let s = Settings::load(&src, &[("recall.limit", "3".into())]).unwrap();
        assert_eq!(s.number("recall.limit"), Some(3.0));
        assert_eq!(s.origin("recall.limit"), Origin::Flag);
    }

    #[test]
    fn local_mode_env_is_exactly_one() {
        let s = Settings::load(&fake(&[("QWEN_CODE_MEMORY_LOCAL", "1")], &[]), &[]).unwrap();
        assert!(s.bool("local"));
        let s = Settings::load(&fake(&[("QWEN_CODE_MEMORY_LOCAL", "true")], &[]), &[]).unwrap();
        assert!(!s.bool("local"));
        let s = Settings::load(&fake(&[], &[("local", "yes")]), &[]).unwrap();
        assert!(s.bool("local"));
        let s = Settings::load(
            &fake(&[("QWEN_CODE_MEMORY_LOCAL", "0")], &[("local", "true")]),
            &[],
        )
        .unwrap();
        assert!(!s.bool("local"));
    }

    #[test]
    fn invalid_values_name_key_and_origin() {
        let err = Settings::load(&fake(&[], &[("recall.limit", "many")]), &[]).unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.contains("recall.limit") && msg.contains("git-config"),
            "{msg}"
        );
        assert!(Settings::load(&fake(&[], &[("recall.strategy", "magic")]), &[]).is_err());
        assert!(Settings::load(&fake(&[], &[]), &[("nope", "1".into())]).is_err());
    }

    #[test]
    fn unset_model_settings() {
        let s = Settings::load(&fake(&[], &[]), &[]).unwrap();
        assert_eq!(s.text("model.baseUrl"), None);
        assert_eq!(s.origin("model.baseUrl"), Origin::Unset);
    }
}
