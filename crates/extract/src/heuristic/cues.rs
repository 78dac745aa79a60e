//! The cue lexicons of the real-chat gate, as data (docs/DESIGN.md, "Extract"): one file per
//! language under `data/` (`en.cues`, `zh.cues`, `ja.cues`, `ko.cues`), each rule a line with an
//! id, a class and where in a sentence it matches; `data/zh-hant.fold` folds traditional Chinese
//! to simplified once before matching. The build script compiles the files into static tables
//! (format: `cue_format.rs`): a process pays nothing to read them.
//!
//! A cue decides nothing on its own: the gate ([`super::gate`]) sees which cues fired (and their
//! classes) as features and learns their weights from real turns.

/// Where in a sentence a cue matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Where {
    /// Anywhere (Latin phrases on word boundaries).
    Any,
    /// At the start of a sentence.
    Start,
    /// At the end of a sentence (trailing punctuation and spaces ignored).
    End,
    /// The sentence's first word (up to the first space) is the phrase: a Korean particle
    /// left at the start of a fragment (`을 사용하여 …`), never the start of `은행`.
    FirstWord,
}

/// One cue rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cue {
    /// Its id, e.g. `en.record.make-rule`.
    pub id: &'static str,
    /// What it suggests, e.g. `durable-record` or `noise-question`.
    pub class: &'static str,
    pub at: Where,
    /// The phrase, lower-cased.
    pub phrase: &'static str,
}

include!(concat!(env!("OUT_DIR"), "/cues.rs"));

/// Every cue rule, in lexicon order (tests).
#[cfg(test)]
pub(super) fn all() -> &'static [Cue] {
    CUES
}

/// What `c` folds to: its simplified form when it is traditional.
fn fold(c: char) -> char {
    FOLD.binary_search_by_key(&c, |&(t, _)| t)
        .map_or(c, |i| FOLD[i].1)
}

/// `text` lower-cased, whitespace collapsed, full-width ASCII as ASCII, traditional Chinese
/// folded to simplified.
pub fn normalize(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut space = false;
    for c in text.chars() {
        let c = match c {
            '\u{FF01}'..='\u{FF5E}' => char::from_u32(c as u32 - 0xFEE0).unwrap_or(c),
            '\u{3000}' => ' ',
            _ => fold(c),
        };
        if c.is_whitespace() {
            space = true;
            continue;
        }
        if space && !out.is_empty() {
            out.push(' ');
        }
        space = false;
        out.extend(c.to_lowercase());
    }
    out
}

fn is_sentence_end(c: char) -> bool {
    matches!(c, '.' | '。' | '!' | '！' | '?' | '？' | '\n' | ';' | '；')
}

/// Whether a Latin phrase at `at..at+len` of `s` stands on word boundaries.
fn on_boundaries(s: &str, at: usize, len: usize) -> bool {
    let before = s[..at].chars().next_back();
    let after = s[at + len..].chars().next();
    let word = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
    !word(before) && !word(after)
}

pub(super) fn matches(cue: &Cue, sentence: &str) -> bool {
    let latin = cue.phrase.is_ascii();
    match cue.at {
        Where::Any => {
            let mut from = 0;
            while let Some(i) = sentence[from..].find(cue.phrase) {
                let at = from + i;
                if !latin || on_boundaries(sentence, at, cue.phrase.len()) {
                    return true;
                }
                from = at + cue.phrase.len();
            }
            false
        }
        Where::Start => {
            let s = sentence.trim_start_matches(|c: char| !c.is_alphanumeric());
            s.starts_with(cue.phrase) && (!latin || on_boundaries(s, 0, cue.phrase.len()))
        }
        Where::FirstWord => {
            let s = sentence.trim_start_matches(|c: char| !c.is_alphanumeric());
            s.split_whitespace().next() == Some(cue.phrase)
        }
        Where::End => {
            let trimmed_marks = cue.phrase.chars().all(|c| !c.is_alphanumeric());
            let s = if trimmed_marks {
                sentence.trim_end()
            } else {
                sentence.trim_end_matches(|c: char| !c.is_alphanumeric())
            };
            s.ends_with(cue.phrase)
                && (!latin
                    || trimmed_marks
                    || on_boundaries(s, s.len() - cue.phrase.len(), cue.phrase.len()))
        }
    }
}

/// `sentence` without the lead-ins of the `lead-in` class at its start ("add to CLAUDE.md
/// that …", "no — …", "also, …"), repeatedly, with the first letter of what remains in upper
/// case; `None` when it starts with none. The lead-ins are English (`en.cues`, and the request
/// shape of [`strip_record_request`]).
pub fn strip_lead_in(sentence: &str) -> Option<String> {
    let lead_ins = || {
        CUES.iter()
            .filter(|c| c.class == "lead-in")
            .map(|c| c.phrase)
    };
    let word_ends = |after: &str| !after.starts_with(|c: char| c.is_ascii_alphanumeric());
    let mut rest = sentence.trim_start();
    let whole = rest.len();
    while let Some(next) = after_opening(rest, lead_ins(), word_ends, |r| !r.is_empty())
        .or_else(|| strip_record_request(rest))
    {
        rest = next;
    }
    (rest.len() < whole).then(|| upper_first(rest))
}

/// What follows the first of `phrases` (lowercase) at the start of `text`, matched without
/// regard to ASCII case, where `word_ends` says the phrase ends a word, with the spaces and
/// commas after it; `None` when no phrase is there or what follows is not `enough`. Shared by
/// the lead-ins the rules never read ([`strip_lead_in`]) and the openings a memory's text drops.
pub(crate) fn after_opening<'a, 'p>(
    text: &'a str,
    phrases: impl IntoIterator<Item = &'p str>,
    word_ends: impl Fn(&str) -> bool,
    enough: impl Fn(&str) -> bool,
) -> Option<&'a str> {
    phrases.into_iter().find_map(|phrase| {
        let head = text.get(..phrase.len())?;
        let after = &text[phrase.len()..];
        let next = after.trim_start_matches(|c: char| c.is_whitespace() || c == ',');
        (head.eq_ignore_ascii_case(phrase) && word_ends(after) && enough(next)).then_some(next)
    })
}

/// `text` with its first letter in upper case.
pub(crate) fn upper_first(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect()
    })
}

/// The rule inside a request to record it in the agent's instructions: "update the Copilot
/// instructions so agents know to enable the venv every time" → "enable the venv every time",
/// `add to cursor rules "…"` → the quoted rule. The shape is a verb that asks
/// (`record_request.VERBS`), an instructions file or memory (`TARGETS`, more joined by "and"),
/// then what joins the rule to it (`CONNECTORS`) or a quote; the words are data
/// (`data/en.words`). `None` unless the whole shape is there and at least two words follow.
fn strip_record_request(sentence: &str) -> Option<&str> {
    use super::words::en::{
        RECORD_REQUEST__BEFORE_TARGET as BEFORE_TARGET, RECORD_REQUEST__CONNECTORS as CONNECTORS,
        RECORD_REQUEST__DETERMINERS as DETERMINERS, RECORD_REQUEST__GENERIC_TARGETS as GENERIC,
        RECORD_REQUEST__PLACE_CONNECTORS as PLACE_CONNECTORS,
        RECORD_REQUEST__PLACE_VERBS as PLACE_VERBS, RECORD_REQUEST__TARGETS as TARGETS,
        RECORD_REQUEST__VERBS as VERBS,
    };
    // ASCII lowercase keeps every byte offset of `sentence`.
    let lower = sentence.to_ascii_lowercase();
    let mut at = 0;
    // Takes the first of `phrases` at `at` that ends on a word boundary, and the spaces after.
    let take = |at: &mut usize, phrases: &[&str]| -> bool {
        let here = &lower[*at..];
        for phrase in phrases {
            let Some(after) = here.strip_prefix(phrase) else {
                continue;
            };
            let ends_word = phrase.ends_with(|c: char| c.is_ascii_alphanumeric());
            if ends_word && after.starts_with(|c: char| c.is_alphanumeric() || c == '_') {
                continue;
            }
            *at += phrase.len();
            *at += lower[*at..].len() - lower[*at..].trim_start().len();
            return true;
        }
        false
    };
    // An @-mention of the file before the request (`@rules/ add to …`) and "please".
    if lower.starts_with('@') {
        at = lower.find(char::is_whitespace)?;
        at += lower[at..].len() - lower[at..].trim_start().len();
    }
    take(&mut at, &["please"]);
    let places = take(&mut at, PLACE_VERBS);
    if !places && !take(&mut at, VERBS) {
        return None;
    }
    let before = take(&mut at, BEFORE_TARGET);
    let introduced = before | take(&mut at, DETERMINERS);
    // A file's name (`TARGETS`) anywhere; a plain word (`GENERIC`) only after "to" or "the".
    let target =
        |at: &mut usize, introduced: bool| take(at, TARGETS) || (introduced && take(at, GENERIC));
    if !target(&mut at, introduced) {
        return None;
    }
    loop {
        let mark = at;
        if take(&mut at, &["and", "&"]) {
            let introduced = take(&mut at, DETERMINERS);
            if target(&mut at, introduced) {
                continue;
            }
        }
        at = mark;
        break;
    }
    let quoted = |s: &str| s.starts_with(['"', '\u{201c}']);
    // "Add AGENTS.md to the root": a file placed somewhere, not a rule recorded in it.
    let connectors = if places && !before {
        PLACE_CONNECTORS
    } else {
        CONNECTORS
    };
    if !take(&mut at, connectors) && !quoted(&sentence[at..]) {
        return None;
    }
    let mut rule = sentence[at..].trim();
    // A rule given in quotes is the text inside them (a full stop after the quote included).
    for (open, close) in [('"', '"'), ('\u{201c}', '\u{201d}')] {
        let unquoted = rule
            .strip_prefix(open)
            .and_then(|r| r.trim_end_matches(['.', '!']).strip_suffix(close));
        if let Some(inner) = unquoted {
            if !inner.contains(open) && !inner.contains(close) {
                rule = inner.trim();
            }
        }
    }
    (rule.split_whitespace().nth(1).is_some()).then_some(rule)
}

/// The cues that fire in `text`, each once, in lexicon order.
pub fn fired(text: &str) -> Vec<&'static Cue> {
    let norm = normalize(text);
    let sentences = split_normalized(&norm);
    CUES.iter()
        .filter(|c| sentences.iter().any(|s| matches(c, s)))
        .collect()
}

/// The sentences of a [`normalize`]d text: they end at punctuation or a line break, the end
/// mark stays with its sentence; trimmed, empty ones dropped.
pub(super) fn split_normalized(norm: &str) -> Vec<&str> {
    let mut sentences = Vec::new();
    let mut start = 0;
    for (i, c) in norm.char_indices() {
        if is_sentence_end(c) {
            let end = i + c.len_utf8();
            sentences.push(&norm[start..end]);
            start = end;
        }
    }
    sentences.push(&norm[start..]);
    sentences
        .into_iter()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SOURCES: [(&str, &str); 4] = [
        ("en", include_str!("data/en.cues")),
        ("zh", include_str!("data/zh.cues")),
        ("ja", include_str!("data/ja.cues")),
        ("ko", include_str!("data/ko.cues")),
    ];

    #[test]
    fn every_cue_file_parses_ids_are_unique_and_the_table_is_the_files() {
        use super::super::cue_format::parse;
        let mut ids = std::collections::HashSet::new();
        let mut all = Vec::new();
        for (name, text) in SOURCES {
            let cues = parse(text).unwrap();
            assert!(cues.len() > 30, "{name}: {}", cues.len());
            for c in cues {
                assert!(c.id.starts_with(&format!("{name}.")), "{}", c.id);
                assert!(ids.insert(c.id.clone()), "duplicate id {}", c.id);
                all.push((c.id, c.class, c.at.to_string(), c.phrase));
            }
        }
        let table: Vec<_> = CUES
            .iter()
            .map(|c| {
                let at = format!("{:?}", c.at);
                (
                    c.id.to_string(),
                    c.class.to_string(),
                    at,
                    c.phrase.to_string(),
                )
            })
            .collect();
        assert_eq!(table, all);
        assert_eq!(
            parse("x.a durable-x sideways foo"),
            Err((1, "x.a durable-x sideways foo".into()))
        );
        assert!(parse("# c\nx.a durable-x any").is_err());
        assert_eq!(
            parse("x.a durable-x start Remember  THIS").unwrap()[0].phrase,
            "remember this"
        );
    }

    #[test]
    fn the_fold_table_is_sorted_and_folds_what_it_lists() {
        assert!(FOLD.windows(2).all(|w| w[0].0 < w[1].0));
        assert_eq!(normalize("以後請用繁體"), "以后请用繁体");
        assert_eq!(fold('a'), 'a');
        use super::super::cue_format::parse_fold;
        assert!(
            parse_fold("後 后\n後 后").is_err(),
            "a character folded twice"
        );
        assert!(parse_fold("後后").is_err());
    }

    fn ids(text: &str) -> Vec<&'static str> {
        fired(text).into_iter().map(|c| c.id).collect()
    }

    #[test]
    fn cues_match_where_they_say() {
        assert!(ids("Go ahead. Also, from now on use pnpm.").contains(&"en.future.from-now-on"));
        // Word boundaries: "always" is not inside "hallways", "must" not in "mustard".
        assert!(!ids("the hallways need mustard").contains(&"en.always.always"));
        assert!(ids("Please fix the login").contains(&"en.request.please"));
        assert!(!ids("Tests, please.").contains(&"en.request.please"));
        assert!(ids("这个能用吗").contains(&"zh.question.ma"));
        assert!(ids("これでいいですか。次へ").contains(&"ja.question.desuka"));
        assert!(ids("이거 어떻게 하나요").contains(&"ko.question.nayo"));
    }

    #[test]
    fn lead_ins_are_stripped_from_the_rule() {
        assert_eq!(
            strip_lead_in("add to CLAUDE.md that we always use uv instead of pip.").as_deref(),
            Some("We always use uv instead of pip.")
        );
        assert_eq!(
            strip_lead_in("No — next time, ask before deleting files.").as_deref(),
            Some("Next time, ask before deleting files.")
        );
        assert_eq!(
            strip_lead_in("Also, make a rule that tests never hit the network.").as_deref(),
            Some("Tests never hit the network.")
        );
        assert_eq!(strip_lead_in("Nobody deploys on Fridays."), None);
        // A request to record the rule in the agent's instructions.
        assert_eq!(
            strip_lead_in(
                "Update the Copilot instructions so agents know to enable the venv every time."
            )
            .as_deref(),
            Some("Enable the venv every time.")
        );
        assert_eq!(
            strip_lead_in("@rules/  add to cursor rules  \"in all files add a header comment \"")
                .as_deref(),
            Some("In all files add a header comment")
        );
        assert_eq!(
            strip_lead_in("Adjust the copilot instructions and agent rules to never commit logs.")
                .as_deref(),
            Some("Never commit logs.")
        );
        assert_eq!(
            strip_lead_in("Also, add to AGENTS.md: run the linter before pushing.").as_deref(),
            Some("Run the linter before pushing.")
        );
        // Not the whole shape, or nothing left: the sentence stays as it is.
        assert_eq!(strip_lead_in("Add it to copilot instructions"), None);
        assert_eq!(
            strip_lead_in("Update the rules page to show the new limits."),
            None
        );
        assert_eq!(strip_lead_in("Add rules to the linter config."), None);
        assert_eq!(
            strip_lead_in("Update my cursor rules with a high priority item?"),
            None
        );
        // A file placed somewhere is not a rule recorded in it.
        assert_eq!(
            strip_lead_in("Add AGENTS.md to the root of every repo."),
            None
        );
        assert_eq!(
            strip_lead_in("Add CLAUDE.md to .gitignore so it is never committed."),
            None
        );
        assert_eq!(
            strip_lead_in("Add to cursor rules \"never commit generated files\".").as_deref(),
            Some("Never commit generated files")
        );
        assert_eq!(strip_lead_in("Also,"), None);
    }

    #[test]
    fn traditional_chinese_folds_to_simplified_once() {
        assert_eq!(normalize("以後請記住"), "以后请记住");
        assert!(ids("以後都用繁體").contains(&"zh.future.from-now-on"));
        assert_eq!(normalize("Ｎｏｄｅ　ONLY"), "node only");
    }
}
