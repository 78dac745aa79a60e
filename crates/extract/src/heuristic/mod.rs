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
//! Beside the rules, [`learned`] scores whole messages and sentences with a model trained on
//! the labelled corpora; [`plan_with`] says when it may keep, retype or drop.

mod cjk;
pub mod cues;
mod en;
pub mod gate;
mod ja;
mod ko;
pub mod learned;
mod literals;
mod mask;
pub(crate) mod pattern;
#[cfg(debug_assertions)]
pub use pattern::literal_table;
pub use pattern::rule_patterns;
mod script;
mod segment;
pub(crate) mod sent;
pub mod standing;
/// The rules' word lists, compiled from `data/<lang>.words` by the crate's build script (data a
/// linguist edits, constants the rules read at no run-time cost; docs/DESIGN.md, "Word lists").
mod words {
    pub(super) mod en {
        include!(concat!(env!("OUT_DIR"), "/words_en.rs"));
    }
    pub(super) mod zh {
        include!(concat!(env!("OUT_DIR"), "/words_zh.rs"));
    }
    pub(super) mod ja {
        include!(concat!(env!("OUT_DIR"), "/words_ja.rs"));
    }
    pub(super) mod ko {
        include!(concat!(env!("OUT_DIR"), "/words_ko.rs"));
    }
    /// Shared by the CJK rules: lead-ins and the English words they look for in CJK text.
    pub(super) mod cjk {
        include!(concat!(env!("OUT_DIR"), "/words_cjk.rs"));
    }
}
#[cfg(test)]
mod cue_format;
#[cfg(test)]
mod words_format;
mod zh;

use super::filter;
use super::{Patch, UserText};
use crate::formats::doc::MemoryType;

pub use segment::{MAX_SENTENCE_LEN, MAX_SENTENCE_WORDS};

/// Plans memory patches from user-authored message texts, sentence by sentence. The result is
/// already normalized and deduplicated ([`filter::normalize_patch`], [`filter::dedupe`]); the
/// caller still applies the secret check.
pub fn plan_heuristic(messages: &[UserText]) -> Vec<Patch> {
    plan_with_gate(messages, &learned::Model::builtin(), &gate::Gate::builtin())
}

/// [`plan_heuristic`] with a given learned scorer: the rules judge each sentence, and `model`
/// may correct the type of a sentence they keep when it is sure; a message they keep nothing
/// from is kept when `model` is confident it is durable (its most durable-looking sentence
/// becomes the memory). Public so an evaluation can score a model trained on part of
/// the data. No real-chat gate ([`plan_with_gate`]).
pub fn plan_with(messages: &[UserText], model: &learned::Model) -> Vec<Patch> {
    plan_with_gate(messages, model, &gate::Gate::open())
}

/// The rules and the scorer alone on one message (no gate): what they keep, and how many
/// sentences the message has. What the gate is trained on and sees ([`gate::message_features`]).
pub fn plan_rules(m: &UserText, model: &learned::Model) -> (Vec<Patch>, Vec<String>) {
    let mut out = Vec::new();
    // Whether a kept memory is what follows an explicit "remember" ("记住，…", "remember that …"):
    // the user asked in so many words, and the scorer's doubt about the message does not take
    // it back. A sentence that only asks to record, with the fact elsewhere, leaves the veto.
    // Per kept patch: whether it is what an explicit "remember" asked to keep (`asked`), and
    // whether its own sentence states a standing rule or asks to remember it (`states_rule`,
    // [`standing::judge`]).
    let mut asked: Vec<bool> = Vec::new();
    let mut states_rule: Vec<bool> = Vec::new();
    let sentences = segment::sentences(m.text);
    for original in &sentences {
        // A request to record a rule, "no —", "also,": the rule is what follows.
        let stripped = cues::strip_lead_in(original);
        // The lead-in cut off was itself the request to remember ("Add this to your memory:
        // …", "add a rule that …"): what remains is what the user asked to keep.
        let asked_in_lead_in = stripped
            .as_ref()
            .is_some_and(|rest| asks_to_remember(original) && !asks_to_remember(rest));
        let sentence = stripped.as_ref().unwrap_or(original);
        let c = if sentence.chars().any(script::is_cjk) {
            cjk::classify_sentence(sentence)
        } else {
            en::classify_sentence(sentence)
        };
        let Some(mut c) = c else { continue };
        // A one-off request, a bug report or a question without `?` is never kept, whatever
        // shape the rules saw in it ([`standing::drops`]).
        if standing::drops(sentence).is_some() {
            continue;
        }
        c.topic = model.topic_for(sentence, c.topic);
        let mut patch = c.into_patch(m.offset);
        patch.summary = balance_quotes(&tidy_opening(&patch.summary));
        if let Some(p) = filter::normalize_patch(patch) {
            if !introduces_what_follows(&p.summary) {
                let remember = asked_in_lead_in || follows_a_remember(sentence, &p.summary);
                asked.push(remember);
                states_rule.push(remember || standing::judge(original).keep.is_some());
                out.push(p);
            }
        }
    }
    // A long spec or plan: many sentences of the shape of a fact in a long message and not one
    // standing-rule signal ("from now on", 以后, 앞으로, …) is a description of the work at
    // hand. Nothing of it is rescued either.
    if out.len() >= SPEC_SENTENCES
        && sentences.len() >= 2 * SPEC_SENTENCES
        && standing::judge(m.text).keep.is_none()
    {
        return (Vec::new(), sentences);
    }
    // A long message the rules still keep several sentences of (a spec or plan with a
    // standing-rule signal somewhere in it) yields at most one memory unless it states separate
    // rules: the sentences that state a standing rule of their own, or else the one the scorer
    // finds most durable-looking.
    if out.len() >= 2 && sentences.len() >= 2 * SPEC_SENTENCES {
        (out, asked) = separate_rules_or_one(out, asked, &states_rule, model);
    }
    let remembered = asked.iter().any(|a| *a);
    // The scorer judges a message as a whole only when it reads all of it: a pasted log
    // before a rule at the end of a long message must not speak for the rule.
    let read_whole = m.text.chars().nth(learned::features::MAX_CHARS).is_none();
    if read_whole {
        if out.is_empty() {
            out.extend(rescue(model, m, &sentences));
        } else if model.vetoes(m.text) && !remembered {
            out.clear();
        }
    }
    (out, sentences)
}

/// What a long message keeps of the patches the rules kept from it (see [`plan_rules`]), with
/// their `asked` flags: those whose sentence states a standing rule or asks to remember it
/// (`states_rule`, one per patch), each a separate rule; when none does, the one `model` finds
/// most durable-looking (the first of equals).
fn separate_rules_or_one(
    out: Vec<Patch>,
    asked: Vec<bool>,
    states_rule: &[bool],
    model: &learned::Model,
) -> (Vec<Patch>, Vec<bool>) {
    let both = out.into_iter().zip(asked).zip(states_rule);
    if states_rule.iter().any(|s| *s) {
        return both.filter_map(|(pa, s)| s.then_some(pa)).unzip();
    }
    let mut best: Option<(f32, (Patch, bool))> = None;
    for (pa, _) in both {
        let score = model.score(&pa.0.summary).map_or(0.0, |v| v.durable);
        if best.as_ref().is_none_or(|(b, _)| score > *b) {
            best = Some((score, pa));
        }
    }
    best.map(|(_, pa)| pa).into_iter().unzip()
}

/// Whether a memory text ends in a colon: it introduces what follows it in the message ("add this
/// rule to every answer:", "the PRD must focus on:", 主要包含：) and does not hold it, so it is
/// never a standalone fact; the sentences after it are judged on their own. (Heuristic only:
/// a model's patch goes through upstream's filter, which has no such rule.)
fn introduces_what_follows(summary: &str) -> bool {
    summary.trim_end().ends_with([':', '：'])
}

/// A memory text without a quotation mark left open or closed from a quote the sentence split
/// cut (`"Scope locked to src/.` of `"Scope locked to src/. No files outside it."`): an opening
/// mark at the start with no closing one is dropped, and a closing mark at the end with no opening
/// one. Balanced and inner quotes stay as written.
fn balance_quotes(summary: &str) -> String {
    const PAIRS: &[(char, char)] = &[('"', '"'), ('“', '”'), ('「', '」'), ('『', '』')];
    let mut s = summary.trim();
    for &(open, close) in PAIRS {
        let (opens, closes) = if open == close {
            let n = s.matches(open).count();
            (n % 2, n % 2)
        } else {
            (s.matches(open).count(), s.matches(close).count())
        };
        if opens > closes || (open == close && opens == 1) {
            if let Some(rest) = s.strip_prefix(open) {
                s = rest.trim_start();
                continue;
            }
        }
        if closes > opens || (open == close && closes == 1) {
            if let Some(rest) = s.strip_suffix(close) {
                s = rest.trim_end();
            }
        }
    }
    s.to_string()
}

/// How many sentences the rules keep from one message of at least twice as many sentences, with
/// no standing-rule signal in it ([`standing::judge`]), at which the message reads as a spec or a
/// plan for the work at hand and keeps nothing. On the real-chat train split no durable message
/// had four such sentences (the ones that did had 11 to 33 sentences); a short list of four
/// facts is kept.
pub const SPEC_SENTENCES: usize = 4;

/// The full pipeline: the rules and `model` per message ([`plan_rules`]), then the real-chat
/// `gate` decides whether anything of the message is kept, may keep a message they kept nothing
/// from, and may correct the type.
pub fn plan_with_gate(
    messages: &[UserText],
    model: &learned::Model,
    gate: &gate::Gate,
) -> Vec<Patch> {
    let mut out = Vec::new();
    for m in messages {
        let (kept, sentences) = plan_rules(m, model);
        out.extend(apply_gate(m, kept, &sentences, model, gate));
    }
    filter::dedupe(out)
}

/// The gate's say on one message, given what [`plan_rules`] kept from it and its sentences.
pub fn apply_gate(
    m: &UserText,
    mut kept: Vec<Patch>,
    sentences: &[String],
    model: &learned::Model,
    gate: &gate::Gate,
) -> Vec<Patch> {
    if let Some(v) = gate.score(sentences, &kept) {
        let trusted = || model.score(m.text).is_some_and(|s| s.durable >= gate.trust);
        if v.durable < gate.keep && !trusted() && !asks_to_remember(m.text) {
            kept.clear();
        } else if kept.is_empty() && v.durable >= gate.rescue {
            kept.extend(rescue_with(model, m, sentences, v.topic));
        }
        if v.topic_probability >= gate.retype && !trusted() {
            for p in &mut kept {
                p.topic = v.topic;
            }
        }
        // The strict keep rule (off unless `gate.strict` > 0): below the strict threshold,
        // only a stated standing rule (or an explicit request to remember, or a short plain
        // statement the scorer is sure of) keeps anything ([`standing`]).
        if !kept.is_empty()
            && v.durable < gate.strict
            && standing::judge(m.text).keep.is_none()
            && !asks_to_remember(m.text)
            && !reads_like_a_statement(m.text, sentences.len(), model, gate)
        {
            kept.clear();
        }
    }
    kept
}

/// Whether a message the strict rule would drop is a short plain statement the synthetic scorer
/// is sure of (at least `gate.trust_strict`): at most two sentences, and no question, bug
/// report, request or one-off cue ([`cues`], [`standing`]). Such messages read like the
/// synthetic corpora the rules were written for ("we deploy only from release branches"); a
/// real one-off request almost always carries one of those cues.
fn reads_like_a_statement(
    text: &str,
    sentences: usize,
    model: &learned::Model,
    gate: &gate::Gate,
) -> bool {
    const NOISE: &[&str] = &["noise-question", "noise-bug", "noise-request", "noise-once"];
    sentences <= 2
        && model
            .score(text)
            .is_some_and(|s| s.durable >= gate.trust_strict)
        && standing::judge(text).vetoes.is_empty()
        && !cues::fired(text).iter().any(|c| NOISE.contains(&c.class))
}

/// The cues of an explicit request to remember ("remember that …", 记住, 覚えて, 기억해): when
/// the rules kept something from such a message, the gate never clears it — the user asked in
/// so many words (docs/DESIGN.md, "Extract"). Ids of the cue lexicons in `data/`.
const REMEMBER_CUES: &[&str] = &[
    "en.record.make-rule",
    "en.record.add-rule",
    "en.record.make-it-rule",
    "en.record.record-this",
    "en.record.save-this",
    "en.record.remember-that",
    "en.record.remember-to",
    "en.record.remember-colon",
    "en.record.remember-this",
    "en.record.keep-in-mind",
    "en.record.memorize",
    "en.record.memory",
    "zh.record.remember",
    "ja.record.remember",
    "ko.record.remember",
];

/// Whether `summary` is what follows an explicit "remember" in `sentence` ("记住，<summary>",
/// "remember that <summary>", "Remember: <summary>"): the text before it asks to remember
/// ([`REMEMBER_CUES`]).
fn follows_a_remember(sentence: &str, summary: &str) -> bool {
    let core = summary.trim_end_matches(['。', '！', '.', '!']);
    !core.is_empty()
        && sentence
            .find(core)
            .is_some_and(|at| at > 0 && asks_to_remember(&sentence[..at]))
}

/// Whether `text` asks in so many words to remember something ([`REMEMBER_CUES`]).
fn asks_to_remember(text: &str) -> bool {
    cues::fired(text)
        .iter()
        .any(|c| REMEMBER_CUES.contains(&c.id))
}

/// Why the extractor kept or dropped what it did from one message: the data behind
/// `extract --explain` (the CLI renders it).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Explanation {
    /// Each prose sentence, what the rules said about it and the scorer's score.
    pub sentences: Vec<SentenceExplanation>,
    /// Ids of the cue rules that fired in the message ([`cues`]).
    pub cues: Vec<String>,
    /// The real-chat gate's probability that the message holds something durable.
    pub gate: Option<f32>,
    /// The gate's thresholds: keep at or above, rescue at or above.
    pub keep_threshold: f32,
    pub rescue_threshold: f32,
    /// The gate features that pushed hardest, with their weight toward "durable".
    pub top_features: Vec<(String, f32)>,
    /// What is kept.
    pub kept: Vec<Patch>,
    /// Why, in one line.
    pub reason: String,
}

/// One sentence of an [`Explanation`].
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SentenceExplanation {
    pub text: String,
    /// The rule family that judged it (`en` or `cjk`).
    pub rules: &'static str,
    /// The type and memory text the rules gave it, if they kept it.
    pub kept_as: Option<(String, String)>,
    /// The learned scorer's "durable" probability for the sentence alone.
    pub score: Option<f32>,
}

/// Explains what the built-in pipeline ([`plan_heuristic`]) does with `text`.
pub fn explain(text: &str) -> Explanation {
    let model = learned::Model::builtin();
    let gate = gate::Gate::builtin();
    let m = UserText { offset: 0, text };
    let (rules, sentences) = plan_rules(&m, &model);
    let per: Vec<SentenceExplanation> = sentences
        .iter()
        .map(|s| {
            let stripped = cues::strip_lead_in(s);
            let s = stripped.as_ref().unwrap_or(s);
            let cjk_family = s.chars().any(script::is_cjk);
            let c = if cjk_family {
                cjk::classify_sentence(s)
            } else {
                en::classify_sentence(s)
            };
            // A sentence of the one-off drop list is not kept, whatever the rules said.
            let c = c.filter(|_| standing::drops(s).is_none());
            SentenceExplanation {
                text: s.clone(),
                rules: if cjk_family { "cjk" } else { "en" },
                kept_as: c.map(|c| (c.topic.as_str().to_string(), tidy_opening(&c.summary))),
                score: model.score(s).map(|v| v.durable),
            }
        })
        .collect();
    let verdict = gate.score(&sentences, &rules);
    let rules_kept = rules.len();
    // Who kept what before the gate: the sentences the rules kept (`per`), or none of them and
    // a sentence the scorer rescued, or the rules' sentences all taken back (a spec or plan, or
    // the scorer's veto on the whole message).
    let by_rules = per.iter().filter(|s| s.kept_as.is_some()).count();
    let before_gate = match (by_rules, rules_kept) {
        (0, 0) => "the rules kept nothing".to_string(),
        (0, n) => format!("the rules kept nothing and the scorer rescued {n} sentence(s)"),
        (k, 0) => format!(
            "the rules kept {k} sentence(s), none left for a memory (nothing left once tidied, \
             an introduction to what follows, a spec or plan, or the scorer's veto on the \
             message)"
        ),
        (_, n) => format!("the rules kept {n} sentence(s)"),
    };
    let kept = filter::dedupe(apply_gate(&m, rules, &sentences, &model, &gate));
    let strict = standing::judge(text);
    let reason = match verdict {
        None => format!("no gate verdict; {before_gate}"),
        Some(v)
            if kept.is_empty()
                && rules_kept > 0
                && v.durable >= gate.keep
                && v.durable < gate.strict
                && strict.keep.is_none() =>
        {
            format!(
                "dropped: gate {:.2} < strict threshold {:.2} and no sentence states a standing \
                 rule without a hard negative (vetoes: {})",
                shown_against(v.durable, gate.strict),
                gate.strict,
                if strict.vetoes.is_empty() {
                    "none".to_string()
                } else {
                    strict
                        .vetoes
                        .iter()
                        .map(|c| c.id)
                        .collect::<Vec<_>>()
                        .join(", ")
                }
            )
        }
        Some(v) if v.durable < gate.keep && kept.is_empty() => format!(
            "dropped: gate {:.2} < keep threshold {:.2} ({before_gate})",
            shown_against(v.durable, gate.keep),
            gate.keep
        ),
        Some(v) if v.durable < gate.keep => format!(
            "kept: gate {:.2} < keep threshold {:.2}, but {} ({before_gate})",
            shown_against(v.durable, gate.keep),
            gate.keep,
            if model.score(text).is_some_and(|s| s.durable >= gate.trust) {
                format!("the scorer is >= {:.2} sure", gate.trust)
            } else {
                "the message asks in so many words to remember it".to_string()
            }
        ),
        Some(v) if rules_kept > 0 => format!(
            "kept: {before_gate} and gate {:.2} >= {:.2}",
            shown_against(v.durable, gate.keep),
            gate.keep
        ),
        Some(v) if !kept.is_empty() => format!(
            "rescued: the rules kept nothing, gate {:.2} >= rescue threshold {:.2}",
            shown_against(v.durable, gate.rescue),
            gate.rescue
        ),
        Some(v) if v.durable >= gate.rescue => format!(
            "nothing: gate {:.2} >= rescue threshold {:.2}, but no sentence is fit to keep \
             (a question, too short or too long, or an opaque token)",
            shown_against(v.durable, gate.rescue),
            gate.rescue
        ),
        Some(v) => format!(
            "nothing: {before_gate} and gate {:.2} < rescue threshold {:.2}",
            shown_against(v.durable, gate.rescue),
            gate.rescue
        ),
    };
    Explanation {
        sentences: per,
        cues: cues::fired(text)
            .iter()
            .map(|c| c.id.to_string())
            .chain(strict.keep.iter().map(|c| c.id.to_string()))
            .chain(strict.vetoes.iter().map(|c| c.id.to_string()))
            .chain(
                sentences
                    .iter()
                    .filter_map(|s| standing::drops(&cues::strip_lead_in(s).unwrap_or(s.clone())))
                    .map(|c| c.id.to_string()),
            )
            .collect(),
        gate: verdict.map(|v| v.durable),
        keep_threshold: gate.keep,
        rescue_threshold: gate.rescue,
        top_features: gate.top_features(&sentences, &plan_rules(&m, &model).0, 8),
        kept,
        reason,
    }
}

/// A score as `--explain` shows it beside `threshold`, to two places, on the side of the
/// threshold it is on: a score just under one never reads as equal to it ("0.25 < 0.25"), nor
/// one at it as under it (the thresholds are two-place values).
fn shown_against(score: f32, threshold: f32) -> f32 {
    let rounded = (score * 100.0).round() / 100.0;
    if score < threshold && rounded >= threshold {
        threshold - 0.01
    } else if score >= threshold && rounded < threshold {
        threshold
    } else {
        rounded
    }
}

#[cfg(test)]
#[test]
fn explained_scores_stay_on_their_side_of_the_threshold() {
    let keep = gate::KEEP_THRESHOLD;
    let rescue = gate::RESCUE_THRESHOLD;
    let two = |x: f32| format!("{x:.2}");
    assert_eq!(two(shown_against(0.2499, keep)), "0.24");
    assert_eq!(two(shown_against(0.249_999_9, keep)), "0.24");
    assert_eq!(two(shown_against(keep, keep)), "0.25");
    assert_eq!(two(shown_against(0.699_999, rescue)), "0.69");
    assert_eq!(two(shown_against(rescue, rescue)), "0.70");
    assert_eq!(two(shown_against(0.996, rescue)), "1.00");
    assert_eq!(two(shown_against(0.123, keep)), "0.12");
}

/// Whether `text` holds a token that looks generated rather than written: a run of 16 or more
/// ASCII letters and digits with at least two digits, or of 12 or more with two digits and two
/// capitals. The learned scorer weighs words and cannot tell a key from a name; a sentence with
/// such a token is left to the rules, whose shapes know when a value is handed over, and to the
/// secret scan, which cannot know every language's word for "token".
fn has_opaque_token(text: &str) -> bool {
    text.split(|c: char| !c.is_ascii_alphanumeric()).any(|w| {
        let digits = w.chars().filter(char::is_ascii_digit).count();
        let upper = w.chars().filter(char::is_ascii_uppercase).count();
        let letters = w.chars().filter(char::is_ascii_alphabetic).count();
        (w.len() >= 16 && digits >= 2 && letters >= 1)
            || (w.len() >= 12 && digits >= 2 && upper >= 2)
    })
}

/// The rules alone: what their unit tests pin.
#[cfg(test)]
fn plan_rules_only(messages: &[UserText]) -> Vec<Patch> {
    plan_with(messages, &learned::Model::rules_only())
}

/// The learned scorer's memory for a message the rules kept nothing from, if it is confident:
/// the message's type, and its sentence that looks most durable on its own.
fn rescue(model: &learned::Model, m: &UserText, sentences: &[String]) -> Option<Patch> {
    let verdict = model.score(m.text)?;
    if !model.keeps(&verdict) {
        return None;
    }
    rescue_with(model, m, sentences, verdict.topic)
}

/// The sentence of a message that looks most durable on its own to `model`, as a memory of type
/// `topic`. Questions, sentences the rules would not consider at all (too short, too long) and
/// those of the one-off drop list ([`standing::drops`]) are never kept.
fn rescue_with(
    model: &learned::Model,
    m: &UserText,
    sentences: &[String],
    topic: MemoryType,
) -> Option<Patch> {
    let best = sentences
        .iter()
        .filter(|s| {
            let s = s.trim_end();
            let len = crate::formats::text::utf16_len(s);
            !s.ends_with(['?', '？'])
                && !introduces_what_follows(s)
                && (filter::MIN_SUMMARY_LEN..=MAX_SENTENCE_LEN).contains(&len)
                && s.split(' ').count() <= MAX_SENTENCE_WORDS
                && !has_opaque_token(s)
                && standing::drops(s).is_none()
        })
        .filter_map(|s| Some((model.score(s)?.durable, s)))
        .max_by(|a, b| a.0.total_cmp(&b.0))?
        .1;
    // The memory is the rule, as the rules would have cut it: no request to record it, no
    // "no —", "不是，" or "いや、" before it.
    let best = cues::strip_lead_in(best).unwrap_or_else(|| best.clone());
    // A CJK request to record before a colon ("これをルールにして：…") is not part of it either.
    let best = match sent::lead_in(&best) {
        (sent::Lead::Remember, at) if best.chars().any(script::is_cjk) => best[at..].to_string(),
        _ => best,
    };
    let (summary, why) = split_reason(sent::strip_correction(&best));
    let summary = balance_quotes(&tidy_opening(&summary));
    filter::normalize_patch(
        Candidate {
            topic,
            summary,
            why,
        }
        .into_patch(m.offset),
    )
}

/// An English memory text without the words that open the sentence but say nothing of the
/// rule ("Please always respond in Thai" → "Always respond in Thai"; `tidy_opening.OPENERS` in
/// `data/en.words`), repeatedly, when at least two words remain. The rules have already judged
/// the whole sentence; only the saved text changes. CJK text is left as it is.
fn tidy_opening(summary: &str) -> String {
    const OPENERS: &[&str] = words::en::TIDY_OPENING__OPENERS;
    if summary.chars().any(script::is_cjk) {
        return summary.to_string();
    }
    let mut rest = summary.trim_start();
    let whole = rest.len();
    let word_ends = |after: &str| after.starts_with([' ', ',']);
    let two_words = |r: &str| r.split_whitespace().nth(1).is_some();
    while let Some(next) = cues::after_opening(rest, OPENERS.iter().copied(), word_ends, two_words)
    {
        rest = next;
    }
    if rest.len() == whole {
        summary.to_string()
    } else {
        cues::upper_first(rest)
    }
}

/// Splits a reason given in the same sentence off a fact: `(fact, why)`. "Run fmt before
/// committing, because CI rejects unformatted code", "…; CI rejects…" is not a reason marker
/// on its own, "…，因为…", "因为…，所以…", "…ので、…", "…때문에 …" are.
pub fn split_reason(text: &str) -> (String, Option<String>) {
    let text = crate::formats::text::collapse_whitespace(text);
    if text.chars().any(script::is_cjk) {
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
    sent::is_lead_in(text)
}

/// What one sentence yields.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Candidate {
    topic: MemoryType,
    summary: String,
    why: Option<String>,
}

impl Candidate {
    fn into_patch(self, source_offset: u64) -> Patch {
        Patch {
            topic: self.topic,
            summary: self.summary,
            why: self.why,
            how_to_apply: None,
            source_offset,
        }
    }
}

#[cfg(test)]
mod endings_tests;
#[cfg(test)]
mod tests;
