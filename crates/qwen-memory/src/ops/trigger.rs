//! What started a run (docs/DESIGN.md, "Telemetry and logs"): the one type the extract queue,
//! extract runs and their cursor file, dream gates and reports, recall, the hooks and the CLI's
//! hidden `--trigger` flag share.
//!
//! On disk and in `--json` a trigger is the plain string it always was (`"manual"`, `"hook"`,
//! `"retry"`, `"post-commit"`, `"mcp"`), byte for byte. A value this version does not know (a
//! file written by a newer version, or by hand) is kept as [`Trigger::Other`] and written back
//! unchanged: the queue and the cursor file carry it, they never interpret it, and a reader
//! must not turn it into `manual` (that would, for one, let a dream pass the `disabled` gate).
//! The command line takes only the known names.

use std::fmt;
use std::str::FromStr;

/// What started a run.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub enum Trigger {
    /// A person ran the command (the default).
    #[default]
    Manual,
    /// An agent hook (the extract and recall hooks).
    Hook,
    /// A retry of an earlier failed extraction, run by whichever process held the root.
    Retry,
    /// The Git post-commit hook (a dream it found due).
    PostCommit,
    /// A tool call of the MCP server.
    Mcp,
    /// A value this version does not know, read from a file; kept as it was.
    Other(String),
}

impl Trigger {
    /// Every trigger this version knows, in the order `--help` lists them.
    pub const KNOWN: [Trigger; 5] = [
        Trigger::Manual,
        Trigger::Hook,
        Trigger::Retry,
        Trigger::PostCommit,
        Trigger::Mcp,
    ];

    /// The name on disk, in telemetry and on the command line.
    pub fn as_str(&self) -> &str {
        match self {
            Trigger::Manual => "manual",
            Trigger::Hook => "hook",
            Trigger::Retry => "retry",
            Trigger::PostCommit => "post-commit",
            Trigger::Mcp => "mcp",
            Trigger::Other(s) => s,
        }
    }

    /// The trigger a file names: a known name, else [`Trigger::Other`] with the text as it was.
    pub fn from_stored(s: &str) -> Trigger {
        Trigger::KNOWN
            .iter()
            .find(|t| t.as_str() == s)
            .cloned()
            .unwrap_or_else(|| Trigger::Other(s.to_string()))
    }

    /// The trigger of a record written before the field existed: unknown, kept as the empty
    /// string it was read back as before (never `manual`).
    pub fn unrecorded() -> Trigger {
        Trigger::Other(String::new())
    }

    /// Whether a person started the run (not a hook, a retry or a tool call).
    pub fn is_manual(&self) -> bool {
        *self == Trigger::Manual
    }
}

impl fmt::Display for Trigger {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A `--trigger` value that is not one of [`Trigger::KNOWN`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown trigger `{given}` (expected one of: {})", known_names())]
pub struct UnknownTrigger {
    pub given: String,
}

fn known_names() -> String {
    Trigger::KNOWN
        .iter()
        .map(Trigger::as_str)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The command line's parse: only the known names (what a file holds goes through
/// [`Trigger::from_stored`] instead).
impl FromStr for Trigger {
    type Err = UnknownTrigger;

    fn from_str(s: &str) -> Result<Trigger, UnknownTrigger> {
        match Trigger::from_stored(s) {
            Trigger::Other(given) => Err(UnknownTrigger { given }),
            known => Ok(known),
        }
    }
}

impl serde::Serialize for Trigger {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> serde::Deserialize<'de> for Trigger {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Trigger, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        Ok(Trigger::from_stored(&s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_triggers_round_trip_as_the_strings_of_earlier_versions() {
        for (t, text) in Trigger::KNOWN.iter().zip([
            r#""manual""#,
            r#""hook""#,
            r#""retry""#,
            r#""post-commit""#,
            r#""mcp""#,
        ]) {
            assert_eq!(serde_json::to_string(t).unwrap(), text);
            assert_eq!(&serde_json::from_str::<Trigger>(text).unwrap(), t);
            assert_eq!(t.as_str().parse::<Trigger>().as_ref(), Ok(t));
            assert_eq!(t.to_string(), t.as_str());
        }
    }

    #[test]
    fn an_unknown_stored_trigger_is_kept_byte_for_byte_and_never_becomes_manual() {
        for text in [r#""post-merge""#, r#""Manual""#, r#""""#, r#""自动""#] {
            let t: Trigger = serde_json::from_str(text).unwrap();
            assert!(matches!(t, Trigger::Other(_)), "{text}: {t:?}");
            assert!(!t.is_manual());
            assert_eq!(serde_json::to_string(&t).unwrap(), text);
        }
        // An escaped string (not borrowable) reads the same.
        let t: Trigger = serde_json::from_str(r#""ho\u006fk""#).unwrap();
        assert_eq!(t, Trigger::Hook);
        // Not a string at all is a type error, not a default.
        assert!(serde_json::from_str::<Trigger>("7").is_err());
    }

    #[test]
    fn the_command_line_refuses_an_unknown_trigger_naming_the_known_ones() {
        let e = "post-merge".parse::<Trigger>().unwrap_err();
        assert_eq!(
            e.to_string(),
            "unknown trigger `post-merge` (expected one of: manual, hook, retry, post-commit, mcp)"
        );
        assert!("".parse::<Trigger>().is_err());
    }
}
