//! The cross-language glossary of `auto` recall (docs/DESIGN.md, "Recall", glossary): software
//! terms in English, Chinese, Japanese and Korean (`glossary.txt`, data written for this
//! project, parsed once per process), so that a prompt's terms also look for the other
//! languages' words: an English question finds the Chinese memory that answers it without an
//! embedder, and the lexical agreement that admits a semantic candidate holds across languages.
//!
//! A concept is found in the query when one of its forms is: an English (or other Latin-script)
//! form when its words, stemmed as recall stems query words, stand in the query in that order;
//! a CJK form when it is a substring of the normalized query. The forms of the concept's other
//! columns then become extra query terms. Forms of a single CJK character are left out (far
//! too many words contain one). A concept marked generic ("test", "deploy", "database") never
//! makes a document relevant alone (see `relevance`).

use std::sync::OnceLock;

use super::lexical::normalize;
use crate::formats::text::is_cjk;

/// The glossary's data: one concept a line, `en | zh | ja | ko`, variants separated by `,`;
/// `*` first marks a generic concept; `#` starts a comment line. A CJK form may end with `!`
/// and characters that must not follow it, in the query and where it is sought in a memory
/// (`周一!次遍` is Monday, not the 周一 of 每周一次, "once a week").
pub const GLOSSARY: &str = include_str!("glossary.txt");

/// One way to write a concept.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Form {
    /// Latin-script words, lowercase; matched in the query by their stems, in order.
    Words(Vec<String>),
    /// A run of CJK text (at least two characters), normalized; matched as a substring that
    /// is not followed by one of `not_before`.
    Cjk { run: String, not_before: Vec<char> },
}

#[derive(Debug, Clone)]
struct Concept {
    generic: bool,
    /// Per column (en, zh, ja, ko), its forms.
    columns: Vec<Vec<Form>>,
}

/// A term the glossary adds to a query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expansion {
    /// The normalized text to look for in documents: a CJK run, one word (stemmed when
    /// `stemmed`) or a phrase of words.
    pub text: String,
    /// A CJK run (substring match) rather than a word or phrase (whole-word match).
    pub cjk: bool,
    /// A single ASCII word that was stemmed: matches the words that stem to it.
    pub stemmed: bool,
    /// Index of its concept: the terms of one concept count once.
    pub concept: usize,
    /// The concept is generic (see the module doc).
    pub generic: bool,
    /// Characters that may not follow a CJK term where it is found (the form's `!` list).
    pub not_before: Vec<char>,
}

fn concepts() -> &'static [Concept] {
    static CONCEPTS: OnceLock<Vec<Concept>> = OnceLock::new();
    CONCEPTS.get_or_init(|| parse(GLOSSARY))
}

fn parse(data: &str) -> Vec<Concept> {
    let mut out = Vec::new();
    for line in data.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (generic, line) = match line.strip_prefix('*') {
            Some(rest) => (true, rest),
            None => (false, line),
        };
        let columns: Vec<Vec<Form>> = line
            .split('|')
            .map(|col| col.split(',').filter_map(form).collect())
            .collect();
        if columns.iter().filter(|c| !c.is_empty()).count() >= 2 {
            out.push(Concept { generic, columns });
        }
    }
    out
}

fn form(raw: &str) -> Option<Form> {
    let (raw, not_before) = match raw.split_once('!') {
        Some((form, chars)) => (form, chars.trim().chars().collect()),
        None => (raw, Vec::new()),
    };
    let n = normalize(raw.trim()).into_owned();
    if n.is_empty() {
        return None;
    }
    if n.chars().all(|c| is_cjk(c) || c.is_whitespace()) {
        let run: String = n.chars().filter(|c| !c.is_whitespace()).collect();
        return (run.chars().count() >= 2).then_some(Form::Cjk { run, not_before });
    }
    if n.chars().any(is_cjk) {
        // Mixed forms ("alt 属性") are matched as written, as one CJK-style substring.
        return Some(Form::Cjk { run: n, not_before });
    }
    let words = words(&n);
    (!words.is_empty()).then_some(Form::Words(words))
}

/// The Latin-script words of normalized text (letters and digits; anything else separates).
fn words(s: &str) -> Vec<String> {
    s.split(|c: char| !c.is_alphanumeric() || is_cjk(c))
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// The stemmer recall applies to query words (`relevance::stem`, passed in so this module does
/// not depend on the one that uses it).
pub type Stemmer = fn(&str) -> &str;

fn stems(ws: &[String], stem: Stemmer) -> Vec<&str> {
    ws.iter().map(|w| stem(w)).collect()
}

fn found(form: &Form, query: &str, query_stems: &[&str], stem: Stemmer) -> bool {
    match form {
        Form::Cjk { run, not_before } => query.match_indices(run.as_str()).any(|(at, m)| {
            query[at + m.len()..]
                .chars()
                .next()
                .is_none_or(|c| !not_before.contains(&c))
        }),
        Form::Words(ws) => {
            let want = stems(ws, stem);
            !want.is_empty()
                && query_stems
                    .windows(want.len())
                    .any(|w| w == want.as_slice())
        }
    }
}

/// Most terms the glossary adds to one query.
pub const MAX_EXPANSIONS: usize = 64;

/// Most bytes of a query the glossary reads. Its scan is every form of every concept over the
/// text (about 1,850 forms), so a pasted megabyte in a prompt hook would cost seconds; a prompt
/// that long is a paste, and the terms that say what it is about come first.
pub const MAX_SCANNED: usize = 4096;

/// The first `max` bytes of `s`, cut back to a character boundary.
fn head(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// The terms the glossary adds to `normalized` (a query after [`normalize`]): for each concept
/// found in it, the forms of its other columns, at most [`MAX_EXPANSIONS`]; English words are
/// compared by `stem`.
pub fn expand(normalized: &str, stem: Stemmer) -> Vec<Expansion> {
    let normalized = head(normalized, MAX_SCANNED);
    let query_words = words(normalized);
    let query_stems = stems(&query_words, stem);
    let mut out: Vec<Expansion> = Vec::new();
    for (id, concept) in concepts().iter().enumerate() {
        let matched: Vec<bool> = concept
            .columns
            .iter()
            .map(|forms| {
                forms
                    .iter()
                    .any(|f| found(f, normalized, &query_stems, stem))
            })
            .collect();
        if !matched.contains(&true) {
            continue;
        }
        for (forms, _) in concept.columns.iter().zip(&matched).filter(|(_, m)| !**m) {
            for f in forms {
                let (text, cjk, stemmed, not_before) = match f {
                    Form::Cjk { run, not_before } => (run.clone(), true, false, not_before.clone()),
                    Form::Words(ws) if ws.len() == 1 && ws[0].is_ascii() => {
                        (stem(&ws[0]).to_string(), false, true, Vec::new())
                    }
                    Form::Words(ws) => (ws.join(" "), false, false, Vec::new()),
                };
                if found(f, normalized, &query_stems, stem)
                    || out.iter().any(|e| e.text == text && e.concept == id)
                {
                    continue;
                }
                if out.len() >= MAX_EXPANSIONS {
                    return out;
                }
                out.push(Expansion {
                    text,
                    cjk,
                    stemmed,
                    concept: id,
                    generic: concept.generic,
                    not_before,
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::recall::relevance::stem;

    fn texts(q: &str) -> Vec<String> {
        expand(&normalize(q), stem)
            .into_iter()
            .map(|e| e.text)
            .collect()
    }

    #[test]
    fn the_glossary_parses_into_hundreds_of_concepts() {
        let all = concepts();
        assert!(all.len() >= 250, "{}", all.len());
        for c in all {
            assert_eq!(c.columns.len(), 4, "{:?}", c.columns);
            for f in c.columns.iter().flatten() {
                if let Form::Cjk { run, not_before } = f {
                    assert!(run.chars().count() >= 2, "{run}");
                    assert!(not_before.iter().all(|c| !c.is_whitespace()), "{run}");
                }
            }
        }
    }

    #[test]
    fn english_terms_find_the_other_languages_words() {
        let t = texts("how often is the production database backed up");
        for w in [
            "数据库",
            "データベース",
            "데이터베이스",
            "备份",
            "バックアップ",
            "生产",
        ] {
            assert!(t.contains(&w.to_string()), "{w} in {t:?}");
        }
        // Nothing of English itself is added back.
        assert!(!t.contains(&"databas".to_string()), "{t:?}");
    }

    #[test]
    fn cjk_terms_find_english_and_each_other() {
        let t = texts("数据库迁移怎么执行");
        assert!(t.contains(&"migrat".to_string()), "{t:?}");
        assert!(t.contains(&"マイグレーション".to_string()), "{t:?}");
        let t = texts("비밀번호는 어떤 알고리즘으로 해시해");
        assert!(t.contains(&"パスワード".to_string()), "{t:?}");
        assert!(t.contains(&"password".to_string()), "{t:?}");
    }

    #[test]
    fn phrases_match_words_in_order_and_single_cjk_characters_never_count() {
        assert!(texts("which primary keys do new tables use").contains(&"主键".to_string()));
        assert!(!texts("the key is primary").contains(&"主键".to_string()));
        assert!(texts("天").is_empty());
        assert!(texts("a recipe for pancakes").is_empty());
    }

    #[test]
    fn only_the_head_of_a_long_query_is_scanned() {
        // Multi-byte filler puts the cut inside a character: it must move back, not panic.
        let filler = "漢".repeat(MAX_SCANNED / 3 + 7);
        assert!(texts(&format!("{filler} database backup")).is_empty());
        assert!(texts(&format!("database backup {filler}")).contains(&"备份".to_string()));
        assert_eq!(head("ab漢", 3), "ab");
        assert_eq!(head("ab", 3), "ab");
    }

    #[test]
    fn generic_concepts_are_marked() {
        let e = expand(&normalize("run the tests"), stem);
        assert!(e.iter().any(|e| e.text == "测试" && e.generic), "{e:?}");
        let e = expand(&normalize("rotate the password"), stem);
        assert!(e.iter().any(|e| e.text == "密码" && !e.generic), "{e:?}");
    }

    #[test]
    fn a_form_is_not_found_before_the_characters_it_excludes() {
        assert!(texts("周一的例会几点开始").contains(&"monday".to_string()));
        assert!(texts("每周一的例会几点开始").contains(&"monday".to_string()));
        assert!(texts("周一直接上线吗").contains(&"monday".to_string()));
        for q in ["备份每周一次就够了吗", "一周一遍"] {
            assert!(
                !texts(q).contains(&"monday".to_string()),
                "{q}: {:?}",
                texts(q)
            );
        }
        // Where the form is a term sought in memories (a question about Monday in another
        // language), the same characters may not follow it there.
        let e = expand("what runs on monday", crate::ops::recall::relevance::stem);
        let zh = e.iter().find(|e| e.text == "周一").expect("周一 sought");
        assert_eq!(zh.not_before, ['次', '遍']);
        // The rest of the concept still counts in another place of the query.
        assert!(texts("每周一次，周一上午").contains(&"monday".to_string()));
    }

    #[test]
    fn units_of_time_are_generic() {
        // 時間 is "hours" as well as "time": alone it must not find a memory that says 小时.
        for q in [
            "東京から大阪まで何時間かかる",
            "it takes two hours",
            "每月一次",
            "매달 한 번",
        ] {
            let e = expand(&normalize(q), stem);
            assert!(!e.is_empty(), "{q}");
            assert!(e.iter().all(|e| e.generic), "{q}: {e:?}");
        }
    }
}
