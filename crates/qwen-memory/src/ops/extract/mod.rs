//! Extract: durable facts from transcripts into topic documents (docs/DESIGN.md, "Extract").

pub mod cursor;
pub mod queue;
pub mod run;
pub mod with_model;

use crate::formats::doc::MemoryType;
use crate::formats::secrets;
// The extractor's rules and filters are their own crate (docs/development.md, "Crates"); their
// paths here stay as they were.
pub use qwen_memory_extract::{filter, heuristic, Patch, UserText};

/// The one type guess of a fact a person states, shared by `remember` (no `--type`) and the
/// offline extractor's writes: the topic the heuristic gives the text as a user turn, else as
/// "Remember that …", else `project`. Since both write paths also match an existing entry by
/// its key in every type (docs/DESIGN.md, "Topic documents"), a guess that still differs never
/// makes a second copy.
pub fn guess_type(text: &str) -> MemoryType {
    let plan = |t: &str| {
        heuristic::plan_heuristic(&[UserText { offset: 0, text: t }])
            .first()
            .map(|p| p.topic)
    };
    plan(text)
        .or_else(|| plan(&format!("Remember that {text}")))
        .unwrap_or(MemoryType::Project)
}

/// `extract --explain` for one message, as the real extract reads it: secrets are redacted
/// before the rules see the text, and a memory that would still show a redaction or a secret is
/// moved out of `kept` with the reason, as step 5 of a run drops it (docs/DESIGN.md,
/// "Extract"). Nothing in the explanation holds the secret: the command prints it to a
/// terminal or a CI log.
pub fn explain(text: &str) -> heuristic::Explanation {
    let mut e = heuristic::explain(&secrets::redact(text));
    let before = e.kept.len();
    e.kept.retain(|p| {
        [Some(&p.summary), p.why.as_ref(), p.how_to_apply.as_ref()]
            .into_iter()
            .flatten()
            .all(|t| secrets::redacted_rule_ids(t).is_empty() && !secrets::contains_secret(t))
    });
    let dropped = before - e.kept.len();
    if dropped > 0 {
        e.reason = format!(
            "{}; {dropped} dropped: it holds a secret (redacted here)",
            e.reason
        );
    }
    e
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patch_serializes_with_upstream_field_names() {
        let p = Patch {
            topic: MemoryType::Feedback,
            summary: "Keep answers short.".into(),
            why: Some("Narrow terminal.".into()),
            how_to_apply: Some("A few lines.".into()),
            source_offset: 7,
        };
        assert_eq!(
            serde_json::to_string(&p).unwrap(),
            r#"{"topic":"feedback","summary":"Keep answers short.","why":"Narrow terminal.","howToApply":"A few lines.","sourceOffset":7}"#
        );
        let bare = Patch {
            why: None,
            how_to_apply: None,
            ..p
        };
        assert_eq!(
            serde_json::to_string(&bare).unwrap(),
            r#"{"topic":"feedback","summary":"Keep answers short.","sourceOffset":7}"#
        );
    }
}
