//! Message → prose units → sentences.

use std::sync::LazyLock;

use super::mask::{is_non_prose_line, re, Regex};
use super::script::is_cjk;
use crate::formats::text::collapse_whitespace;

/// Longest sentence considered (UTF-16 units); longer text is prose dumps, logs or pasted docs.
pub const MAX_SENTENCE_LEN: usize = 240;
/// Most words in a considered sentence.
pub const MAX_SENTENCE_WORDS: usize = 40;

/// The sentences of a message's prose: fenced and indented code, quotes, headings, tables,
/// diffs, shell prompts, logs and stack traces are removed first; soft-wrapped lines are joined.
pub(super) fn sentences(text: &str) -> Vec<String> {
    prose_units(text)
        .iter()
        .flat_map(|u| split_sentences(u))
        .flat_map(|s| split_cjk(&s))
        .collect()
}

fn prose_units(text: &str) -> Vec<String> {
    let mut units = Vec::new();
    let mut open: Option<String> = None;
    let mut fence: Option<(char, usize)> = None;
    let mut in_diff = false;
    // The closing tag of an attachment block being skipped (`</context>`).
    let mut attachment: Option<String> = None;
    let flush = |open: &mut Option<String>, units: &mut Vec<String>| {
        if let Some(u) = open.take() {
            units.push(u);
        }
    };
    for raw in text.split('\n') {
        let line = raw.trim_end();
        let trimmed = line.trim_start();
        if let Some((c, n)) = fence {
            let run = trimmed.chars().take_while(|&x| x == c).count();
            if run >= n && trimmed[run * c.len_utf8()..].trim().is_empty() {
                fence = None;
            }
            continue;
        }
        if let Some(close) = &attachment {
            if trimmed.contains(close.as_str()) {
                attachment = None;
            }
            continue;
        }
        if let Some(close) = attachment_open(trimmed) {
            flush(&mut open, &mut units);
            if !trimmed.contains(close.as_str()) && !trimmed.ends_with("/>") {
                attachment = Some(close);
            }
            continue;
        }
        if let Some(f) = fence_open(trimmed) {
            flush(&mut open, &mut units);
            fence = Some(f);
            continue;
        }
        if in_diff {
            if trimmed.is_empty() || line.starts_with([' ', '+', '-', '@', '\\']) {
                continue;
            }
            in_diff = false;
        }
        if trimmed.is_empty() {
            flush(&mut open, &mut units);
            continue;
        }
        if DIFF_HEADER.is_match(trimmed) {
            flush(&mut open, &mut units);
            in_diff = true;
            continue;
        }
        if is_non_prose_line(line) {
            flush(&mut open, &mut units);
            continue;
        }
        if let Some(item) = LIST_MARKER.find(trimmed) {
            flush(&mut open, &mut units);
            open = Some(trimmed[item.end()..].to_string());
            continue;
        }
        match open.as_mut() {
            // A line starting in lowercase after one without closing punctuation continues the
            // same sentence (hard-wrapped prose).
            Some(prev)
                if !prev.ends_with(['.', '!', '?', ':', ';'])
                    && trimmed.starts_with(|c: char| c.is_lowercase()) =>
            {
                prev.push(' ');
                prev.push_str(trimmed);
            }
            _ => {
                flush(&mut open, &mut units);
                open = Some(trimmed.to_string());
            }
        }
    }
    flush(&mut open, &mut units);
    units
}

/// Tags an editor or agent wraps around what it attaches to a message (a file, the selection,
/// a command's output): the block is not the user's words (docs/DESIGN.md, "Extract").
const ATTACHMENT_TAGS: &[&str] = &[
    "context",
    "attached_files",
    "file_contents",
    "user_selection",
    "ide_opened_file",
    "ide_selection",
    "system-reminder",
    "local-command-stdout",
    "command-message",
    "command-name",
    "command-args",
];

/// The closing tag to skip to when `trimmed` opens an attachment block.
fn attachment_open(trimmed: &str) -> Option<String> {
    let rest = trimmed.strip_prefix('<')?;
    let name_len = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
        .unwrap_or(rest.len());
    let name = &rest[..name_len];
    let after = rest[name_len..].chars().next();
    (ATTACHMENT_TAGS.contains(&name) && matches!(after, None | Some('>' | ' ' | '/')))
        .then(|| format!("</{name}>"))
}

fn fence_open(trimmed: &str) -> Option<(char, usize)> {
    let c = trimmed.chars().next().filter(|&c| c == '`' || c == '~')?;
    let n = trimmed.chars().take_while(|&x| x == c).count();
    (n >= 3).then_some((c, n))
}

static DIFF_HEADER: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"^(?:diff --git |--- (?:a/|/dev/null)|\+\+\+ (?:b/|/dev/null)|@@ -\d|index [0-9a-f]{6,}\.\.)",
    )
});

static LIST_MARKER: LazyLock<Regex> = LazyLock::new(|| re(r"^(?:[-*•+]|\d{1,3}[.)]|[a-z][.)])\s+"));

/// Splits a prose unit into sentences at `.`, `!`, `?` followed by a space — never inside a
/// code span or URL, nor after a known abbreviation. Version numbers need no care: their dots
/// are not followed by a space.
pub(super) fn split_sentences(unit: &str) -> Vec<String> {
    let unit = collapse_whitespace(unit);
    let mut out = Vec::new();
    let mut current: Vec<&str> = Vec::new();
    let mut in_code = false;
    for token in unit.split(' ') {
        current.push(token);
        if token.matches('`').count() % 2 == 1 {
            in_code = !in_code;
        }
        if in_code {
            continue;
        }
        let core = token.trim_end_matches(['"', '\'', ')', ']', '}', '»', '”', '’', '*', '_']);
        if !core.ends_with(['.', '!', '?']) {
            continue;
        }
        if core.ends_with('.') && !core.ends_with("..") && is_abbreviation(core) {
            continue;
        }
        out.push(current.join(" "));
        current.clear();
    }
    if !current.is_empty() {
        out.push(current.join(" "));
    }
    out
}

fn is_abbreviation(token: &str) -> bool {
    const ABBREVIATIONS: &[&str] = &[
        "e.g", "i.e", "eg", "ie", "etc", "vs", "cf", "approx", "mr", "mrs", "ms", "dr", "prof",
        "st", "no", "nr", "fig", "inc", "ltd", "jr", "sr", "resp", "ca", "viz", "al",
    ];
    let word = token
        .trim_start_matches(['(', '"', '\'', '[', '“', '‘'])
        .trim_end_matches('.')
        .to_ascii_lowercase();
    if ABBREVIATIONS.contains(&word.as_str()) {
        return true;
    }
    // Initials and dotted abbreviations such as "J." or "u.s.".
    let mut parts = word.split('.');
    parts.all(|p| p.len() == 1 && p.chars().all(|c| c.is_ascii_alphabetic()))
}

/// Splits at CJK sentence ends: `。！？；` and their half-width and full-width forms, and an ASCII
/// `.`, `!`, `?` or `;` written straight before CJK text (no space, as CJK writers do). A closing
/// bracket or quote after the mark stays with its sentence. Code spans are never cut. Colons
/// are not sentence ends here: what precedes a colon is usually a lead-in ("记住：…",
/// "我们团队规定: …"), which the CJK rules read together with what follows.
fn split_cjk(sentence: &str) -> Vec<String> {
    if !sentence.chars().any(is_cjk) {
        return vec![sentence.to_string()];
    }
    let mut out = Vec::new();
    let mut current = String::new();
    let mut in_code = false;
    let mut chars = sentence.chars().peekable();
    while let Some(c) = chars.next() {
        current.push(c);
        if c == '`' {
            in_code = !in_code;
        }
        if in_code {
            continue;
        }
        let next = chars.peek().copied();
        let ends = match c {
            '。' | '！' | '？' | '；' | '｡' | '．' => true,
            '.' | '!' | '?' | ';' => next.is_some_and(is_cjk),
            _ => false,
        };
        if !ends {
            continue;
        }
        while let Some(&n) = chars.peek() {
            if matches!(n, '」' | '』' | '”' | '’' | '）' | ')' | '】' | '"' | '\'') {
                current.push(n);
                chars.next();
            } else {
                break;
            }
        }
        let t = current.trim();
        if !t.is_empty() {
            out.push(t.to_string());
        }
        current.clear();
    }
    let t = current.trim();
    if !t.is_empty() {
        out.push(t.to_string());
    }
    out
}
