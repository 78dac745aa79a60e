//! Masking: code spans and URLs are hidden from the word rules byte for byte, and lines that
//! are not a person's prose (code, logs, traces, prompts, quotes, markup) are recognized.

use std::sync::LazyLock;

/// The type every heuristic pattern is (see [`re`]): `regex-lite`, built only for a haystack
/// that holds a literal every match needs ([`super::pattern`]). Rule modules name this type,
/// not a crate's, so the engine can change in one place.
pub(super) use super::pattern::Regex;

/// Lines that are not user prose: code, logs, traces, prompts, quotes, markup.
pub(super) const NON_PROSE_LINE: &[&str] = &[
    // Quotes, REPL prompts, headings (and root prompts), tables, markup.
    r"^\s*(?:>|#|\||</?[A-Za-z!])",
    // Shell prompts.
    r"^\s*(?:[$%❯➜λ]|PS [A-Za-z]:\\[^>]*>|[A-Za-z]:\\[^>]*>)\s",
    r"^\s*[\w.-]+@[\w.-]+:\S*\s?[$#]\s",
    // Stack traces.
    r"^\s*at \S+.*(?:\(.*:\d+(?::\d+)?\)|:\d+:\d+)\s*$",
    r"^\s*at \S+ \(",
    r"^\s*Traceback \(most recent call last\)",
    r#"^\s*File ".*", line \d+"#,
    r"panicked at",
    r"^\s*(?:Caused by|Exception in thread)\b",
    r"^\s*[\w$.]*(?:Error|Exception|Warning)(?::|\s*$)",
    r"^\s*(?:error|warning|note|help)(?:\[[A-Z]?\d+\])?:",
    r"^\s*-->\s",
    r"^\s*\d+\s*\|",
    r"^\s*(?:npm|yarn|pnpm) (?:ERR!|WARN)",
    r"^\s*(?:FAIL|PASS|FAILED|ERROR|WARN|WARNING|INFO|DEBUG|TRACE|FATAL)\b[\s:\]]",
    // TAP and `go test` results ("ok 3 - parses", "ok  \tpkg 0.01s"); not "ok so …" in chat.
    r"^\s*ok(?:\s+\d|\t|  |:|\])",
    r"^\s*test \S+ \.\.\. ",
    // Log records.
    r"^\s*\[?\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}",
    r"^\s*\[?\d{2}:\d{2}:\d{2}",
    r"\[(?:INFO|WARN|WARNING|ERROR|DEBUG|TRACE|FATAL|CRITICAL)\]",
    r"^\s*[EWIF]\d{4} \d{2}:\d{2}",
    // Code shapes.
    r"^\s*(?:[{}\[\]]|//|/\*|\*/)",
    r"(?:[{};]|\*/|=>)\s*$",
    r"^\s*(?:-[A-Za-z]|\+[A-Za-z])",
];

static CODE_KEYWORD: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"^\s*(?:import|from \S+ import|export|package|#include|using|fn|pub|impl|struct|enum|def|class|const|let|var|function|return|if|for|while|match|async|await|SELECT|INSERT|UPDATE|DELETE|CREATE)\b",
    )
});

static NON_PROSE: LazyLock<Vec<Regex>> =
    LazyLock::new(|| NON_PROSE_LINE.iter().map(|p| re(p)).collect());

/// Lines longer than this are judged by [`NON_PROSE_LONG`]: `regex-lite` has no DFA, so an
/// unanchored pattern costs time proportional to the line times the pattern, which on a pasted
/// multi-megabyte line (a minified file, a log) took seconds.
const LONG_LINE: usize = 2048;

/// The same patterns for long lines, as one `regex` set (linear-time search whatever the line),
/// built only when such a line shows up. [`ascii_classes`] gives them `regex-lite`'s meaning.
static NON_PROSE_LONG: LazyLock<regex::RegexSet> = LazyLock::new(|| {
    regex::RegexSet::new(NON_PROSE_LINE.iter().map(|p| ascii_classes(p))).expect("static regex")
});

pub(super) fn is_non_prose_line(line: &str) -> bool {
    if line.starts_with('\t') || line.starts_with("    ") {
        return true;
    }
    let non_prose = if line.len() > LONG_LINE {
        NON_PROSE_LONG.is_match(line)
    } else {
        NON_PROSE.iter().any(|r| r.is_match(line))
    };
    if non_prose {
        return true;
    }
    CODE_KEYWORD.is_match(line) && line.contains(['(', ')', '{', '}', '=', ';', '<', '>', '[', ']'])
}

static URL: LazyLock<Regex> =
    LazyLock::new(|| re(r#"(?:\b[a-z][a-z0-9+.-]*://|\bwww\.)[^\s<>"'`]+"#));

/// A sentence and its mask: the same bytes, except that code span contents become `x` and each
/// URL becomes `URLxxx…`. Equal lengths let a match in the mask cut the original.
#[derive(Debug, Clone)]
pub(super) struct Masked {
    pub(super) orig: String,
    pub(super) mask: String,
}

impl Masked {
    pub(super) fn new(orig: &str) -> Masked {
        let mut mask = orig.as_bytes().to_vec();
        let mut code = Vec::new();
        let mut start: Option<usize> = None;
        for (i, b) in orig.bytes().enumerate() {
            if b == b'`' {
                match start.take() {
                    Some(s) => code.push((s + 1, i)),
                    None => start = Some(i),
                }
            }
        }
        if let Some(s) = start {
            code.push((s + 1, orig.len()));
        }
        for &(s, e) in &code {
            mask[s..e].fill(b'x');
        }
        for m in URL.find_iter(orig) {
            let trimmed = m
                .as_str()
                .trim_end_matches(['.', ',', ';', ':', '!', '?', ')', ']']);
            let (s, e) = (m.start(), m.start() + trimmed.len());
            if e - s < 4 || code.iter().any(|&(cs, ce)| s < ce && cs < e) {
                continue;
            }
            mask[s..e].fill(b'x');
            mask[s..s + 3].copy_from_slice(b"URL");
        }
        // Masked bytes are ASCII replacing whole code spans / URLs, so this cannot fail; fall
        // back to the original rather than panic.
        let mask = String::from_utf8(mask).unwrap_or_else(|_| orig.to_string());
        Masked {
            orig: orig.to_string(),
            mask,
        }
    }

    /// The part from byte `at` on, if `at` is a boundary in both strings.
    pub(super) fn tail(&self, at: usize) -> Option<Masked> {
        Some(Masked {
            orig: self.orig.get(at..)?.to_string(),
            mask: self.mask.get(at..)?.to_string(),
        })
    }

    pub(super) fn head(&self, at: usize) -> Option<Masked> {
        Some(Masked {
            orig: self.orig.get(..at)?.to_string(),
            mask: self.mask.get(..at)?.to_string(),
        })
    }

    pub(super) fn has_url(&self) -> bool {
        URL_TOKEN.is_match(&self.mask)
    }
}

static URL_TOKEN: LazyLock<Regex> = LazyLock::new(|| re(r"\bURLx+"));

/// Compiles a static pattern with `regex-lite`, whose `\b`, `\w`, `\d`, `\s` and `(?i)` are ASCII
/// (what these English rules mean; `\p{..}` classes are not available) and `.`/`[^…]` match any
/// character. Why not the `regex` crate: `extract` runs from a hook after every agent turn and
/// one English sentence reaches ~100 of these patterns; `regex` spends ~250 µs building each
/// (literal prefilters, DFAs), ~30 ms per process in all, while `regex-lite` builds them all in
/// ~4 ms. Its slower matching does not show on sentences of at most 240 characters.
pub(super) fn re(pattern: &str) -> Regex {
    Regex::new(pattern)
}

/// Rewrites a pattern for the `regex` crate (Unicode mode) so that it means what it means to
/// `regex-lite`: `\b`, `\w`, `\d`, `\s` and their negations ASCII, inside and outside classes
/// (a negated one inside a class as a nested class).
pub(super) fn ascii_classes(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len() + 32);
    let mut in_class = false;
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        match (c, in_class) {
            ('\\', _) => match (chars.next(), in_class) {
                (Some('b'), false) => out.push_str("(?-u:\\b)"),
                (Some('w'), true) => out.push_str("A-Za-z0-9_"),
                (Some('w'), false) => out.push_str("[A-Za-z0-9_]"),
                (Some('W'), false) => out.push_str("[^A-Za-z0-9_]"),
                (Some('d'), true) => out.push_str("0-9"),
                (Some('d'), false) => out.push_str("[0-9]"),
                (Some('D'), false) => out.push_str("[^0-9]"),
                (Some('s'), true) => out.push_str("\\t\\n\\x0B\\x0C\\r "),
                (Some('s'), false) => out.push_str("[\\t\\n\\x0B\\x0C\\r ]"),
                (Some('S'), false) => out.push_str("[^\\t\\n\\x0B\\x0C\\r ]"),
                // A negated class inside a class is a nested class (`[^e\W]` is
                // `[^e[^A-Za-z0-9_]]`: a word character other than `e`).
                (Some('W'), true) => out.push_str("[^A-Za-z0-9_]"),
                (Some('D'), true) => out.push_str("[^0-9]"),
                (Some('S'), true) => out.push_str("[^\\t\\n\\x0B\\x0C\\r ]"),
                (Some(other), _) => {
                    out.push('\\');
                    out.push(other);
                }
                (None, _) => out.push('\\'),
            },
            ('[', false) => {
                in_class = true;
                out.push(c);
                // A `]` right after `[` or `[^` is a literal, not the end of the class.
                let rest = chars.as_str();
                let skip = if rest.starts_with("^]") {
                    2
                } else if rest.starts_with(']') {
                    1
                } else {
                    0
                };
                out.push_str(&rest[..skip]);
                chars = rest[skip..].chars();
            }
            (']', true) => {
                in_class = false;
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}

pub(super) fn rei(pattern: &str) -> Regex {
    re(&format!("(?i){pattern}"))
}
