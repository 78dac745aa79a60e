//! The offline extraction heuristic (docs/DESIGN.md, "Extract").
//!
//! Upstream's G1 heuristic keeps any user message that mentions a keyword such as `please` or
//! `release`, so it stores one-off requests ("please fix the failing test") as memories. This
//! one works per sentence and only keeps a sentence that has the *shape* of a durable statement:
//! an explicit "remember …", a preference of the user, a standing instruction to the assistant
//! ("always/never …"), a rule or fact of the project ("we deploy only from release branches"),
//! or a pointer to a resource ("the runbook is at …"). Everything else — requests about the work
//! at hand, questions, chit-chat, reports about the current state, logs, code — is dropped.
//! Precision matters more than recall: a wrong memory misleads every later session, a missed
//! one costs a repeated sentence.
//!
//! Topics follow the reference mapping in spirit: a URL or resource location → `reference`;
//! "I prefer/like …", "my preferred …" and facts about the user → `user`; instructions to the
//! assistant (including "I prefer that you …") → `feedback`; rules and facts stated about the
//! project or team ("we …", "our CI …", "commits must …") → `project`.
//!
//! Layout: [`segment`] cuts a message into prose sentences (ASCII and CJK punctuation), [`mask`]
//! hides code spans, URLs, logs and quoted text from the rules, and one rule module per
//! language family judges a sentence: [`en`] for English, [`cjk`] for Chinese (simplified and
//! traditional), Japanese and Korean, including sentences that mix one of them with English.

mod cjk;
mod en;
mod ja;
mod ko;
mod mask;
mod segment;
mod zh;

use super::filter;
use super::{Patch, UserText};
use crate::formats::doc::MemoryType;

pub use segment::{MAX_SENTENCE_LEN, MAX_SENTENCE_WORDS};

/// Plans memory patches from user-authored message texts, sentence by sentence. The result is
/// already normalized and deduplicated ([`filter::normalize_patch`], [`filter::dedupe`]); the
/// caller still applies the secret check.
pub fn plan_heuristic(messages: &[UserText]) -> Vec<Patch> {
    let mut out = Vec::new();
    for m in messages {
        for sentence in segment::sentences(m.text) {
            let c = if sentence.chars().any(cjk::is_cjk) {
                cjk::classify_sentence(&sentence)
            } else {
                en::classify_sentence(&sentence)
            };
            let Some(c) = c else {
                continue;
            };
            let patch = Patch {
                topic: c.topic,
                summary: c.summary,
                why: c.why,
                how_to_apply: None,
                source_offset: m.offset,
            };
            if let Some(p) = filter::normalize_patch(patch) {
                out.push(p);
            }
        }
    }
    filter::dedupe(out)
}

/// Splits a reason given in the same sentence off a fact: `(fact, why)`. "Run fmt before
/// committing, because CI rejects unformatted code", "…; CI rejects…" is not a reason marker
/// on its own, "…，因为…", "因为…，所以…", "…ので、…", "…때문에 …" are.
pub fn split_reason(text: &str) -> (String, Option<String>) {
    let text = crate::formats::text::collapse_whitespace(text);
    if text.chars().any(cjk::is_cjk) {
        return cjk::split_why(&text);
    }
    let (main, why) = en::split_why(&mask::Masked::new(&text));
    match why {
        Some(w) => (main.orig.trim().to_string(), Some(w)),
        None => (text, None),
    }
}

/// Whether `text` (the part of a sentence before a colon) is a lead-in such as "我们团队规定",
/// "记住" or "Remember" rather than a label.
pub fn is_lead_in(text: &str) -> bool {
    cjk::is_lead_in(text)
}

/// What one sentence yields.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Candidate {
    topic: MemoryType,
    summary: String,
    why: Option<String>,
}

#[cfg(test)]
mod tests;
