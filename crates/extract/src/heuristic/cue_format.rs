//! The format of the cue and decision-list files, `data/<lang>.cues` and `data/<lang>.standing`,
//! and of the traditional-to-simplified table `data/zh-hant.fold`, with the Rust they compile to.
//! Read by the crate's build script (`#[path]`-included there), so a process starts with the
//! rules as static tables instead of parsing the files, and a line that is not a rule fails the
//! build instead of dropping its file; compiled into the crate only for its tests
//! (docs/DESIGN.md, "Extract", "Word lists").
//!
//! A rule is one line, `<id> <class> <where> <phrase …>`: `where` is `any`, `start`, `end` or
//! `first-word`; the phrase is the rest of the line, its whitespace collapsed and lower-cased.
//! `#` comment lines and blank lines are ignored. A fold line is `<traditional> <simplified>`,
//! one character each; a traditional character appears once.

use std::collections::BTreeMap;
use std::fmt::Write as _;

/// One rule as read from its file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CueLine {
    pub(crate) id: String,
    pub(crate) class: String,
    /// The name of its `Where` variant (`Any`, `Start`, `End`, `FirstWord`).
    pub(crate) at: &'static str,
    pub(crate) phrase: String,
}

/// The rules of one file, or `(line number, the line)` of the first line that is not one.
pub(crate) fn parse(text: &str) -> Result<Vec<CueLine>, (usize, String)> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let err = || (n + 1, line.to_string());
        let mut parts = line.split_whitespace();
        let (Some(id), Some(class), Some(at)) = (parts.next(), parts.next(), parts.next()) else {
            return Err(err());
        };
        let at = match at {
            "any" => "Any",
            "start" => "Start",
            "end" => "End",
            "first-word" => "FirstWord",
            _ => return Err(err()),
        };
        let phrase = parts.collect::<Vec<_>>().join(" ").to_lowercase();
        if phrase.is_empty() {
            return Err(err());
        }
        out.push(CueLine {
            id: id.to_string(),
            class: class.to_string(),
            at,
            phrase,
        });
    }
    Ok(out)
}

/// The elements of a `&[Cue]` for `rules`, one a line (`Cue` and `Where` in scope where the
/// code is included).
pub(crate) fn generate(rules: &[CueLine]) -> String {
    let mut code = String::new();
    for r in rules {
        let _ = writeln!(
            code,
            "    Cue {{ id: {:?}, class: {:?}, at: Where::{}, phrase: {:?} }},",
            r.id, r.class, r.at, r.phrase
        );
    }
    code
}

/// The fold table's pairs, sorted by the traditional character, or `(line number, why)`.
pub(crate) fn parse_fold(text: &str) -> Result<Vec<(char, char)>, (usize, String)> {
    let mut pairs = BTreeMap::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let one = |s: Option<&str>| {
            let mut c = s?.chars();
            let first = c.next()?;
            c.next().is_none().then_some(first)
        };
        let mut parts = line.split_whitespace();
        let (Some(t), Some(s), None) = (one(parts.next()), one(parts.next()), parts.next()) else {
            return Err((n + 1, format!("not `<traditional> <simplified>`: {line:?}")));
        };
        if pairs.insert(t, s).is_some() {
            return Err((n + 1, format!("{t} is folded twice")));
        }
    }
    Ok(pairs.into_iter().collect())
}

/// The elements of a `&[(char, char)]` for `pairs`.
pub(crate) fn generate_fold(pairs: &[(char, char)]) -> String {
    let mut code = String::new();
    for (t, s) in pairs {
        let _ = writeln!(code, "    ({t:?}, {s:?}),");
    }
    code
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_and_pairs_become_rust_literals() {
        let rules = parse("# a comment\n\nx.a durable-x first-word Say \"HI\"\\n\n").unwrap();
        assert_eq!(
            generate(&rules),
            "    Cue { id: \"x.a\", class: \"durable-x\", at: Where::FirstWord, phrase: \"say \\\"hi\\\"\\\\n\" },\n"
        );
        // Sorted by the traditional character (們 U+5011 before 後 U+5F8C).
        let pairs = parse_fold("後 后\n們 们\n").unwrap();
        assert_eq!(pairs, vec![('們', '们'), ('後', '后')]);
        assert_eq!(
            generate_fold(&pairs),
            "    ('們', '们'),\n    ('後', '后'),\n"
        );
    }
}
