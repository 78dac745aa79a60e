//! Settings: command-line flag > environment > `git config qwen-memory.*` > default, with the
//! origin of every value kept so `status --json` can say where each one came from.
//!
//! Keys are typed: [`Key`] names every documented setting, and the table [`DEFS`] gives each its
//! environment variable, default and value kind. A misspelled key in code is a compile error;
//! a misspelled `qwen-memory.*` key in git config is reported (with the closest known key) by
//! [`Settings::problems`].
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

/// The type of a setting's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Bool,
    /// A finite, non-negative number (hours may be fractional).
    Number,
    /// A non-negative whole number (a count, a limit, milliseconds).
    Count,
    /// One of a fixed list of words.
    Choice(&'static [&'static str]),
    Text,
}

/// Every documented setting. Adding one: a variant here and a row in [`DEFS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Key {
    Local,
    AutoCommit,
    DreamMinHours,
    DreamMinSessions,
    DreamStrategy,
    RecallLimit,
    RecallStrategy,
    RecallEmbeddingsBaseUrl,
    RecallEmbeddingsModel,
    RecallEmbeddingsInputMode,
    ExtractStrategy,
    ModelBaseUrl,
    ModelName,
    ModelTimeoutMs,
    HooksEnabled,
    TrustRef,
    TrustAuthors,
    TrustSigned,
}

/// One documented key: its name under `qwen-memory.`, environment variable, default and kind.
#[derive(Debug)]
pub struct Def {
    pub key: Key,
    pub name: &'static str,
    pub env: Option<&'static str>,
    pub default: Option<&'static str>,
    pub kind: Kind,
}

/// A setting whose value is one of a few names (a strategy), spelled once: the enum gives the
/// settings table its accepted names (`NAMES`, aliases included), the CLI its `--strategy`
/// values and help (`clap::ValueEnum`), and the operations their type. `parse` accepts exactly
/// the names the settings accept (surrounding spaces aside); `as_str` is the canonical name.
macro_rules! choice {
    (
        $(#[$meta:meta])*
        pub enum $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident = $text:literal $(| $alias:literal)* => $help:literal, )+
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
        pub enum $name {
            $( #[doc = $help] $(#[$vmeta])* $variant, )+
        }

        impl $name {
            /// Every variant, in documentation order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];
            /// Every accepted name, aliases included.
            pub const NAMES: &'static [&'static str] = &[$($text $(, $alias)*),+];

            /// The canonical name.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text,)+
                }
            }

            /// The variant a name (or alias) stands for.
            pub fn parse(s: &str) -> Option<$name> {
                let s = s.trim();
                $(
                    if s == $text $(|| s == $alias)* {
                        return Some($name::$variant);
                    }
                )+
                None
            }
        }

        impl std::str::FromStr for $name {
            type Err = String;

            fn from_str(s: &str) -> Result<Self, Self::Err> {
                $name::parse(s).ok_or_else(|| {
                    format!("unknown strategy `{}` (expected one of {})", s.trim(), $name::NAMES.join(", "))
                })
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let s = <std::borrow::Cow<'de, str> as serde::Deserialize>::deserialize(d)?;
                $name::parse(&s).ok_or_else(|| {
                    serde::de::Error::unknown_variant(s.trim(), $name::NAMES)
                })
            }
        }

        impl clap::ValueEnum for $name {
            fn value_variants<'a>() -> &'a [Self] {
                $name::ALL
            }

            fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
                Some(match self {
                    $($name::$variant => clap::builder::PossibleValue::new($text)
                        .help($help)
                        $(.alias($alias))*,)+
                })
            }
        }
    };
}

choice! {
    /// How recall chooses (`recall.strategy`, `recall --strategy`).
    pub enum RecallStrategy {
        #[default]
        Auto = "auto" => "Relevance ranking, plus embeddings when recall.embeddings.* is set (the default).",
        Upstream = "upstream" | "heuristic" => "Qwen Code 0.24.4's exact lexical ranking (alias: heuristic).",
        Model = "model" => "A configured chat model chooses; falls back to `auto`.",
    }
}

choice! {
    /// How extract plans patches (`extract.strategy`, `extract --strategy`).
    pub enum ExtractStrategy {
        #[default]
        Auto = "auto" => "The model when one is configured, else the offline heuristic (the default).",
        Heuristic = "heuristic" => "The offline heuristic only.",
        Model = "model" => "The model; without a configured model (or on any failure) the heuristic.",
    }
}

choice! {
    /// How dream plans (`dream.strategy`, `dream --strategy`).
    pub enum DreamStrategy {
        #[default]
        Auto = "auto" => "The model when one is configured, else mechanical (the default).",
        Mechanical = "mechanical" => "Offline: dedupe and merge, never dropping an entry.",
        Model = "model" => "The model; mechanical when none is configured or it fails.",
    }
}

impl RecallStrategy {
    /// The `recall.strategy` setting (command-line flags arrive through the settings' flag
    /// layer, so the CLI and the hook read the same value the same way).
    pub fn from_settings(settings: &Settings) -> RecallStrategy {
        settings
            .text(Key::RecallStrategy)
            .and_then(RecallStrategy::parse)
            .unwrap_or(RecallStrategy::Auto)
    }
}

pub const RECALL_STRATEGIES: &[&str] = RecallStrategy::NAMES;
pub const EXTRACT_STRATEGIES: &[&str] = ExtractStrategy::NAMES;
/// `recall.embeddings.inputMode` (see `integrations::embeddings::InputMode`).
pub const EMBEDDINGS_INPUT_MODES: &[&str] = &["plain", "input_type", "e5", "nomic"];
pub const DREAM_STRATEGIES: &[&str] = DreamStrategy::NAMES;

/// The settings table, in documentation order.
#[rustfmt::skip]
pub const DEFS: &[Def] = &[
    Def { key: Key::Local, name: "local", env: Some("QWEN_CODE_MEMORY_LOCAL"), default: Some("false"), kind: Kind::Bool },
    Def { key: Key::AutoCommit, name: "autoCommit", env: Some("QWEN_MEMORY_AUTO_COMMIT"), default: Some("false"), kind: Kind::Bool },
    Def { key: Key::DreamMinHours, name: "dream.minHours", env: Some("QWEN_MEMORY_DREAM_MIN_HOURS"), default: Some("24"), kind: Kind::Number },
    Def { key: Key::DreamMinSessions, name: "dream.minSessions", env: Some("QWEN_MEMORY_DREAM_MIN_SESSIONS"), default: Some("5"), kind: Kind::Count },
    Def { key: Key::DreamStrategy, name: "dream.strategy", env: Some("QWEN_MEMORY_DREAM_STRATEGY"), default: Some("auto"), kind: Kind::Choice(DREAM_STRATEGIES) },
    Def { key: Key::RecallLimit, name: "recall.limit", env: Some("QWEN_MEMORY_RECALL_LIMIT"), default: Some("5"), kind: Kind::Count },
    Def { key: Key::RecallStrategy, name: "recall.strategy", env: Some("QWEN_MEMORY_RECALL_STRATEGY"), default: Some("auto"), kind: Kind::Choice(RECALL_STRATEGIES) },
    Def { key: Key::RecallEmbeddingsBaseUrl, name: "recall.embeddings.baseUrl", env: Some("QWEN_MEMORY_EMBEDDINGS_BASE_URL"), default: None, kind: Kind::Text },
    Def { key: Key::RecallEmbeddingsModel, name: "recall.embeddings.model", env: Some("QWEN_MEMORY_EMBEDDINGS_MODEL"), default: None, kind: Kind::Text },
    Def { key: Key::RecallEmbeddingsInputMode, name: "recall.embeddings.inputMode", env: Some("QWEN_MEMORY_EMBEDDINGS_INPUT_MODE"), default: Some("plain"), kind: Kind::Choice(EMBEDDINGS_INPUT_MODES) },
    Def { key: Key::ExtractStrategy, name: "extract.strategy", env: Some("QWEN_MEMORY_EXTRACT_STRATEGY"), default: Some("auto"), kind: Kind::Choice(EXTRACT_STRATEGIES) },
    Def { key: Key::ModelBaseUrl, name: "model.baseUrl", env: Some("QWEN_MEMORY_MODEL_BASE_URL"), default: None, kind: Kind::Text },
    Def { key: Key::ModelName, name: "model.name", env: Some("QWEN_MEMORY_MODEL_NAME"), default: None, kind: Kind::Text },
    Def { key: Key::ModelTimeoutMs, name: "model.timeoutMs", env: Some("QWEN_MEMORY_MODEL_TIMEOUT_MS"), default: Some("20000"), kind: Kind::Count },
    Def { key: Key::HooksEnabled, name: "hooks.enabled", env: Some("QWEN_MEMORY_HOOKS"), default: Some("true"), kind: Kind::Bool },
    Def { key: Key::TrustRef, name: "trust.ref", env: Some("QWEN_MEMORY_TRUST_REF"), default: None, kind: Kind::Text },
    Def { key: Key::TrustAuthors, name: "trust.authors", env: Some("QWEN_MEMORY_TRUST_AUTHORS"), default: None, kind: Kind::Text },
    Def { key: Key::TrustSigned, name: "trust.signed", env: Some("QWEN_MEMORY_TRUST_SIGNED"), default: Some("false"), kind: Kind::Bool },
];

impl Key {
    /// Every key, in documentation order.
    pub fn all() -> impl Iterator<Item = Key> {
        DEFS.iter().map(|d| d.key)
    }

    /// The key's row in [`DEFS`].
    pub fn def(self) -> &'static Def {
        DEFS.iter()
            .find(|d| d.key == self)
            .expect("every Key has a row in DEFS (checked by a unit test)")
    }

    /// The name under `qwen-memory.` (e.g. `recall.limit`).
    pub fn name(self) -> &'static str {
        self.def().name
    }

    /// The key named `name` (as git compares: section and variable case-insensitively, the
    /// middle part exactly), or an [`SettingsError::Unknown`] naming the closest known key.
    pub fn parse(name: &str) -> Result<Key, SettingsError> {
        let wanted = git_canonical(name);
        DEFS.iter()
            .find(|d| git_canonical(d.name) == wanted)
            .map(|d| d.key)
            .ok_or_else(|| SettingsError::Unknown {
                key: name.to_string(),
                suggestion: closest(name),
            })
    }
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Every environment variable this tool reads, settings and others alike. Tests clear all of
/// them so the developer's shell cannot leak into a test. Helpers that read a new variable add
/// it here.
pub const ENV_VARS: &[&str] = &[
    // settings (the `env` column of DEFS; a unit test keeps the two in step)
    "QWEN_CODE_MEMORY_LOCAL",
    "QWEN_MEMORY_AUTO_COMMIT",
    "QWEN_MEMORY_DREAM_MIN_HOURS",
    "QWEN_MEMORY_DREAM_MIN_SESSIONS",
    "QWEN_MEMORY_DREAM_STRATEGY",
    "QWEN_MEMORY_RECALL_LIMIT",
    "QWEN_MEMORY_RECALL_STRATEGY",
    "QWEN_MEMORY_EMBEDDINGS_BASE_URL",
    "QWEN_MEMORY_EMBEDDINGS_MODEL",
    "QWEN_MEMORY_EMBEDDINGS_INPUT_MODE",
    "QWEN_MEMORY_EXTRACT_STRATEGY",
    "QWEN_MEMORY_MODEL_BASE_URL",
    "QWEN_MEMORY_MODEL_NAME",
    "QWEN_MEMORY_MODEL_TIMEOUT_MS",
    "QWEN_MEMORY_HOOKS",
    "QWEN_MEMORY_TRUST_REF",
    "QWEN_MEMORY_TRUST_AUTHORS",
    "QWEN_MEMORY_TRUST_SIGNED",
    // where things are
    "QWEN_CODE_MEMORY_BASE_DIR",
    "QWEN_CODE_MEMORY_PROJECT_SCOPE",
    "QWEN_RUNTIME_DIR",
    "QWEN_HOME",
    "CLAUDE_CONFIG_DIR",
    "QWEN_CODE_MEMORY_TEAM",
    // the model: credentials, and the generic fallbacks used once model use is on
    "QWEN_MEMORY_MODEL_API_KEY",
    "QWEN_MEMORY_EMBEDDINGS_API_KEY",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "OPENAI_MODEL",
    // hooks, telemetry and test seams
    "QWEN_MEMORY_HOOK_EXEC",
    "QWEN_MEMORY_TELEMETRY",
    "QWEN_MEMORY_TEST_LOCK_BARRIER",
    // also read
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_SSH_COMMAND",
    // which Git configuration files are read (as Git reads them: integrations::git::config)
    "GIT_CONFIG_GLOBAL",
    "GIT_CONFIG_SYSTEM",
    "GIT_CONFIG_NOSYSTEM",
    "GIT_CONFIG_COUNT",
    "GIT_CONFIG_PARAMETERS",
    // who the tool's own commits are by (as Git takes them); the merge driver also reads
    // `GITHEAD_<sha>`, which Git sets for that one process
    "GIT_AUTHOR_NAME",
    "GIT_AUTHOR_EMAIL",
    "GIT_COMMITTER_NAME",
    "GIT_COMMITTER_EMAIL",
];

/// A bad setting, named with its key and origin.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SettingsError {
    #[error("qwen-memory.{key} = {value:?} (from {origin}): {expected}")]
    Invalid {
        key: Key,
        value: String,
        origin: Origin,
        expected: String,
    },
    #[error("unknown setting qwen-memory.{key}{}", suggestion.map(|s| format!(" (did you mean qwen-memory.{s}?)")).unwrap_or_default())]
    Unknown {
        key: String,
        suggestion: Option<&'static str>,
    },
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
    values: Vec<(Key, Resolved)>,
    problems: Vec<SettingsError>,
}

/// Where settings are read from; tests substitute their own.
pub trait Source {
    fn env(&self, name: &str) -> Option<String>;
    fn git_config(&self, key: &str) -> Option<String>;
    /// Every `qwen-memory.*` variable set in git config, without the `qwen-memory.` prefix, as
    /// git spells it (section and variable lowercased).
    fn git_config_keys(&self) -> Vec<String> {
        Vec::new()
    }
}

/// The `qwen-memory.*` variables of Git's configuration, as plain data: read by
/// `integrations::git::config` (the one owner of Git access), handed to the settings here.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GitConfigLayer {
    /// (name without `qwen-memory.` as Git spells it, effective value if it is a string).
    entries: Vec<(String, Option<String>)>,
}

impl GitConfigLayer {
    /// The variables as Git spells them (section and variable name lowercased, a subsection
    /// as written), without the `qwen-memory.` prefix, each with its effective value.
    pub fn new(entries: Vec<(String, Option<String>)>) -> GitConfigLayer {
        GitConfigLayer { entries }
    }

    /// The value of `key` (`extract.strategy`, `recall.embeddings.inputMode`), matched as Git
    /// matches names: the variable name case-insensitively, a subsection exactly.
    pub fn get(&self, key: &str) -> Option<&str> {
        let wanted = git_spelling(key);
        self.entries
            .iter()
            .find(|(name, _)| git_spelling(name) == wanted)
            .and_then(|(_, v)| v.as_deref())
    }

    /// Every variable set, as Git spells it.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.entries.iter().map(|(name, _)| name.as_str())
    }
}

/// `recall.embeddings.inputMode` → `recall.embeddings.inputmode`: the variable name (after the
/// last dot) lowercased, the subsection before it kept.
fn git_spelling(key: &str) -> String {
    match key.rsplit_once('.') {
        Some((sub, var)) => format!("{sub}.{}", var.to_ascii_lowercase()),
        None => key.to_ascii_lowercase(),
    }
}

/// The real environment and Git's configuration (repository config when inside one, which
/// includes the global and system files, found as Git finds them: `integrations::git::config`).
pub struct SystemSource {
    git: GitConfigLayer,
    env: EnvReader,
}

/// Reads one environment variable: the process environment, or a stand-in (unit tests that must
/// not see the developer's shell).
pub type EnvReader = fn(&str) -> Option<String>;

/// The process environment.
pub fn process_env(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

impl SystemSource {
    /// The settings source of Git configuration `git` and the environment read through `env`.
    pub fn new(git: GitConfigLayer, env: EnvReader) -> SystemSource {
        SystemSource { git, env }
    }
}

impl Source for SystemSource {
    fn env(&self, name: &str) -> Option<String> {
        (self.env)(name)
    }

    fn git_config(&self, key: &str) -> Option<String> {
        self.git.get(key).map(str::to_string)
    }

    fn git_config_keys(&self) -> Vec<String> {
        self.git.names().map(str::to_string).collect()
    }
}

/// Command-line overrides, as (key, value) pairs: the flag layer of the precedence.
pub type Flags = [(Key, String)];

impl Settings {
    /// Resolves every documented key; the first invalid value is an error. Unknown git config
    /// keys are not: they are listed by [`Settings::problems`].
    pub fn load(source: &dyn Source, flags: &Flags) -> Result<Settings, SettingsError> {
        let settings = Settings::load_lenient(source, flags);
        match settings
            .problems
            .iter()
            .find(|p| matches!(p, SettingsError::Invalid { .. }))
        {
            Some(invalid) => Err(invalid.clone()),
            None => Ok(settings),
        }
    }

    /// Resolves every documented key, never failing: an invalid value is recorded as a problem
    /// and the key falls back to its default (for `status` and `check`, which report problems
    /// instead of dying on them).
    pub fn load_lenient(source: &dyn Source, flags: &Flags) -> Settings {
        let mut values = Vec::with_capacity(DEFS.len());
        let mut problems = Vec::new();
        for def in DEFS {
            let mut resolved = resolve(def, source, flags);
            if let Some(value) = &resolved.value {
                match validate(def, value, &resolved.origin) {
                    Ok(()) => resolved.value = Some(normalize(def.kind, value)),
                    Err(e) => {
                        problems.push(e);
                        resolved = default_of(def);
                    }
                }
            }
            values.push((def.key, resolved));
        }
        for name in source.git_config_keys() {
            if let Err(e) = Key::parse(&name) {
                problems.push(e);
            }
        }
        Settings { values, problems }
    }

    /// Every setting with its origin, in documentation order.
    pub fn all(&self) -> impl Iterator<Item = &Resolved> {
        self.values.iter().map(|(_, r)| r)
    }

    /// Invalid values and unknown `qwen-memory.*` keys found while loading.
    pub fn problems(&self) -> &[SettingsError] {
        &self.problems
    }

    fn get(&self, key: Key) -> &Resolved {
        &self
            .values
            .iter()
            .find(|(k, _)| *k == key)
            .expect("every key is resolved at load")
            .1
    }

    /// A boolean setting; false when unset.
    pub fn bool(&self, key: Key) -> bool {
        self.text(key).is_some_and(|v| v == "true")
    }

    /// A numeric setting (validated at load).
    pub fn number(&self, key: Key) -> Option<f64> {
        self.text(key).and_then(|v| v.parse().ok())
    }

    /// A count setting (validated at load: a non-negative whole number).
    pub fn count(&self, key: Key) -> Option<u64> {
        self.text(key).and_then(|v| v.parse().ok())
    }

    /// A text or choice setting.
    pub fn text(&self, key: Key) -> Option<&str> {
        self.get(key).value.as_deref()
    }

    /// The origin of a setting.
    pub fn origin(&self, key: Key) -> Origin {
        self.get(key).origin.clone()
    }

    /// Whether the value was set by a person (flag, environment or git config), not defaulted.
    pub fn is_explicit(&self, key: Key) -> bool {
        matches!(
            self.get(key).origin,
            Origin::Flag | Origin::Env(_) | Origin::GitConfig
        )
    }
}

fn default_of(def: &Def) -> Resolved {
    match def.default {
        Some(v) => Resolved {
            key: def.name,
            value: Some(v.to_string()),
            origin: Origin::Default,
        },
        None => Resolved {
            key: def.name,
            value: None,
            origin: Origin::Unset,
        },
    }
}

fn resolve(def: &Def, source: &dyn Source, flags: &Flags) -> Resolved {
    let found = |value: String, origin: Origin| Resolved {
        key: def.name,
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
            if def.key == Key::Local {
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
    if let Some(v) = source.git_config(def.name) {
        return found(v, Origin::GitConfig);
    }
    default_of(def)
}

/// A git config name as git compares it: the first and last dot-separated parts (section and
/// variable) are case-insensitive, a middle part (subsection) is not.
fn git_canonical(name: &str) -> String {
    let parts: Vec<&str> = name.split('.').collect();
    let last = parts.len().saturating_sub(1);
    parts
        .iter()
        .enumerate()
        .map(|(i, p)| {
            if i == 0 || i == last {
                p.to_ascii_lowercase()
            } else {
                p.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(".")
}

/// The known key closest to `name` by edit distance (case-insensitive), when close enough to be
/// a plausible misspelling.
fn closest(name: &str) -> Option<&'static str> {
    let wanted = name.to_ascii_lowercase();
    DEFS.iter()
        .map(|d| (edit_distance(&wanted, &d.name.to_ascii_lowercase()), d.name))
        .filter(|(dist, known)| *dist <= 2.max(known.len() / 3))
        .min_by_key(|(dist, _)| *dist)
        .map(|(_, known)| known)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            let next = (row[j + 1] + 1).min(row[j] + 1).min(prev + cost);
            prev = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
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
        Kind::Count => match value.trim().parse::<u64>() {
            Ok(_) => Ok(()),
            _ => Err(invalid("expected a non-negative whole number".into())),
        },
        Kind::Choice(allowed) if !allowed.contains(&value.trim()) => {
            Err(invalid(format!("expected one of {}", allowed.join(", "))))
        }
        _ => Ok(()),
    }
}

fn normalize(kind: Kind, value: &str) -> String {
    match kind {
        Kind::Bool => parse_bool(value).unwrap_or(false).to_string(),
        Kind::Number | Kind::Count | Kind::Choice(_) => value.trim().to_string(),
        Kind::Text => value.to_string(),
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn env_vars_lists_every_variable_the_code_reads() {
        for def in DEFS {
            if let Some(var) = def.env {
                assert!(
                    ENV_VARS.contains(&var),
                    "{var} (key {}) missing from ENV_VARS",
                    def.key
                );
            }
        }
        for var in [
            crate::project::ENV_BASE_DIR,
            crate::project::ENV_PROJECT_SCOPE,
            crate::qwen_settings::ENV_QWEN_HOME,
            crate::qwen_settings::ENV_QWEN_TEAM,
            crate::safe_fs::ENV_TEST_LOCK_BARRIER,
        ] {
            assert!(ENV_VARS.contains(&var), "{var} missing from ENV_VARS");
        }
    }
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
        fn git_config_keys(&self) -> Vec<String> {
            self.git.keys().map(|k| k.to_ascii_lowercase()).collect()
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
        assert_eq!(s.count(Key::RecallLimit), Some(7));
        assert_eq!(
            s.origin(Key::RecallLimit),
            Origin::Env("QWEN_MEMORY_RECALL_LIMIT")
        );
        assert_eq!(s.number(Key::DreamMinHours), Some(2.0));
        assert_eq!(s.origin(Key::DreamMinHours), Origin::GitConfig);
        assert_eq!(s.count(Key::DreamMinSessions), Some(5));
        assert_eq!(s.origin(Key::DreamMinSessions), Origin::Default);
        let s = Settings::load(&src, &[(Key::RecallLimit, "3".into())]).unwrap();
        assert_eq!(s.count(Key::RecallLimit), Some(3));
        assert_eq!(s.origin(Key::RecallLimit), Origin::Flag);
    }

    #[test]
    fn local_mode_env_is_exactly_one() {
        let s = Settings::load(&fake(&[("QWEN_CODE_MEMORY_LOCAL", "1")], &[]), &[]).unwrap();
        assert!(s.bool(Key::Local));
        let s = Settings::load(&fake(&[("QWEN_CODE_MEMORY_LOCAL", "true")], &[]), &[]).unwrap();
        assert!(!s.bool(Key::Local));
        let s = Settings::load(&fake(&[], &[("local", "yes")]), &[]).unwrap();
        assert!(s.bool(Key::Local));
        let s = Settings::load(
            &fake(&[("QWEN_CODE_MEMORY_LOCAL", "0")], &[("local", "true")]),
            &[],
        )
        .unwrap();
        assert!(!s.bool(Key::Local));
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
    }

    #[test]
    fn counts_are_whole_numbers() {
        for bad in ["2.5", "-1", "1e3", "many"] {
            let err = Settings::load(&fake(&[], &[("recall.limit", bad)]), &[]).unwrap_err();
            assert!(err.to_string().contains("whole number"), "{bad}: {err}");
        }
        // Hours may be fractional.
        let s = Settings::load(&fake(&[], &[("dream.minHours", "0.5")]), &[]).unwrap();
        assert_eq!(s.number(Key::DreamMinHours), Some(0.5));
        let s = Settings::load(
            &fake(&[("QWEN_MEMORY_MODEL_TIMEOUT_MS", " 1500 ")], &[]),
            &[],
        )
        .unwrap();
        assert_eq!(s.count(Key::ModelTimeoutMs), Some(1500));
    }

    #[test]
    fn each_strategy_is_spelled_once() {
        // The settings accept exactly the enum's names, and every name parses back.
        for (key, names) in [
            (Key::RecallStrategy, RecallStrategy::NAMES),
            (Key::ExtractStrategy, ExtractStrategy::NAMES),
            (Key::DreamStrategy, DreamStrategy::NAMES),
        ] {
            let def = DEFS.iter().find(|d| d.key == key).unwrap();
            assert!(matches!(def.kind, Kind::Choice(n) if n == names), "{key}");
            assert_eq!(def.default, Some("auto"), "{key}");
        }
        assert_eq!(
            RecallStrategy::parse("heuristic"),
            Some(RecallStrategy::Upstream)
        );
        assert_eq!(
            RecallStrategy::parse(" model "),
            Some(RecallStrategy::Model)
        );
        assert_eq!(RecallStrategy::parse("Model"), None);
        assert_eq!(RecallStrategy::default(), RecallStrategy::Auto);
        for s in RecallStrategy::ALL {
            assert_eq!(RecallStrategy::parse(s.as_str()), Some(*s));
        }
        assert_eq!(
            "mechanical".parse::<DreamStrategy>(),
            Ok(DreamStrategy::Mechanical)
        );
        assert!("magic"
            .parse::<ExtractStrategy>()
            .unwrap_err()
            .contains("auto, heuristic, model"));
        let s = Settings::load(
            &fake(&[("QWEN_MEMORY_RECALL_STRATEGY", "heuristic")], &[]),
            &[],
        )
        .unwrap();
        assert_eq!(
            s.text(Key::RecallStrategy).and_then(RecallStrategy::parse),
            Some(RecallStrategy::Upstream)
        );
        // The CLI's values are the same names (aliases accepted, hidden from the list).
        use clap::ValueEnum;
        let shown: Vec<String> = ExtractStrategy::value_variants()
            .iter()
            .filter_map(|v| v.to_possible_value())
            .map(|p| p.get_name().to_string())
            .collect();
        assert_eq!(shown, ["auto", "heuristic", "model"]);
        assert_eq!(
            <RecallStrategy as ValueEnum>::from_str("heuristic", false),
            Ok(RecallStrategy::Upstream)
        );
        let json = serde_json::to_value(RecallStrategy::Upstream).unwrap();
        assert_eq!(json, "upstream");
    }

    #[test]
    fn unset_model_settings() {
        let s = Settings::load(&fake(&[], &[]), &[]).unwrap();
        assert_eq!(s.text(Key::ModelBaseUrl), None);
        assert_eq!(s.origin(Key::ModelBaseUrl), Origin::Unset);
    }

    #[test]
    fn every_key_has_exactly_one_row_and_its_env_is_listed() {
        // The match is exhaustive: a new variant fails to compile until it is listed here.
        fn listed(k: Key) -> bool {
            match k {
                Key::Local
                | Key::AutoCommit
                | Key::DreamMinHours
                | Key::DreamMinSessions
                | Key::DreamStrategy
                | Key::RecallLimit
                | Key::RecallStrategy
                | Key::RecallEmbeddingsBaseUrl
                | Key::RecallEmbeddingsModel
                | Key::RecallEmbeddingsInputMode
                | Key::ExtractStrategy
                | Key::ModelBaseUrl
                | Key::ModelName
                | Key::ModelTimeoutMs
                | Key::HooksEnabled
                | Key::TrustRef
                | Key::TrustAuthors
                | Key::TrustSigned => true,
            }
        }
        for def in DEFS {
            assert!(listed(def.key));
            assert_eq!(DEFS.iter().filter(|d| d.key == def.key).count(), 1);
            assert_eq!(Key::parse(def.name), Ok(def.key));
            if let Some(env) = def.env {
                assert!(ENV_VARS.contains(&env), "{env} missing from ENV_VARS");
            }
        }
        assert_eq!(Key::all().count(), DEFS.len());
    }

    #[test]
    fn unknown_git_config_keys_are_problems_with_the_closest_key() {
        let s = Settings::load(
            &fake(&[], &[("autocomit", "true"), ("recall.limit", "3")]),
            &[],
        )
        .unwrap();
        assert_eq!(
            s.problems(),
            &[SettingsError::Unknown {
                key: "autocomit".into(),
                suggestion: Some("autoCommit")
            }]
        );
        let msg = s.problems()[0].to_string();
        assert!(msg.contains("did you mean qwen-memory.autoCommit"), "{msg}");
        // Git lowercases section and variable: known keys in any case are not problems.
        assert!(Settings::load(&fake(&[], &[("dream.minhours", "3")]), &[])
            .unwrap()
            .problems()
            .is_empty());
        assert_eq!(
            Key::parse("completely.different"),
            Err(SettingsError::Unknown {
                key: "completely.different".into(),
                suggestion: None
            })
        );
        assert_eq!(
            Key::parse("recall.limt").unwrap_err(),
            SettingsError::Unknown {
                key: "recall.limt".into(),
                suggestion: Some("recall.limit")
            }
        );
    }

    #[test]
    fn lenient_load_reports_invalid_values_and_falls_back_to_the_default() {
        let src = fake(&[], &[("recall.limit", "many")]);
        assert!(Settings::load(&src, &[]).is_err());
        let s = Settings::load_lenient(&src, &[]);
        assert_eq!(s.number(Key::RecallLimit), Some(5.0));
        assert_eq!(s.origin(Key::RecallLimit), Origin::Default);
        assert!(matches!(
            s.problems(),
            [SettingsError::Invalid {
                key: Key::RecallLimit,
                ..
            }]
        ));
    }

    #[test]
    fn generic_openai_variables_are_not_model_settings() {
        let s = Settings::load(
            &fake(
                &[("OPENAI_BASE_URL", "http://x/v1"), ("OPENAI_MODEL", "m")],
                &[],
            ),
            &[],
        )
        .unwrap();
        assert_eq!(s.text(Key::ModelBaseUrl), None);
        assert!(!s.is_explicit(Key::ModelName));
    }
}
