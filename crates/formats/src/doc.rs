//! Topic documents: YAML frontmatter plus a body of entries (docs/DESIGN.md, "Topic documents").

use std::fmt;

use crate::text::{collapse_whitespace, is_js_whitespace};
use crate::yaml::{self, Value};

/// The four memory types. Case-sensitive on disk: `Project` is not a type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MemoryType {
    User,
    Feedback,
    Project,
    Reference,
}

impl MemoryType {
    pub const ALL: [MemoryType; 4] = [
        MemoryType::User,
        MemoryType::Feedback,
        MemoryType::Project,
        MemoryType::Reference,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            MemoryType::User => "user",
            MemoryType::Feedback => "feedback",
            MemoryType::Project => "project",
            MemoryType::Reference => "reference",
        }
    }

    /// Exact, case-sensitive match, as upstream.
    pub fn parse(s: &str) -> Option<MemoryType> {
        MemoryType::ALL.into_iter().find(|t| t.as_str() == s)
    }
}

impl fmt::Display for MemoryType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One memory entry of a body: a summary line with optional `Why:` / `How to apply:`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Entry {
    pub summary: String,
    pub why: Option<String>,
    pub how_to_apply: Option<String>,
}

/// A parsed topic document.
#[derive(Debug, Clone, PartialEq)]
pub struct TopicDocument {
    /// The frontmatter text between the fences, LF-normalized, exactly as in the file, so a
    /// rewrite keeps every key (known or not) byte for byte.
    pub frontmatter: String,
    pub memory_type: MemoryType,
    /// `name`, else `title`, else the type.
    pub title: String,
    /// `description` or empty.
    pub description: String,
    /// Text after the frontmatter, LF-normalized and trimmed.
    pub body: String,
    /// Top-level frontmatter keys other than name/title/description/type whose value is a
    /// scalar, stringified, in file order (provenance keys `created`, `session`, `commit`, and
    /// upstream's `category`, …).
    pub extra: Vec<(String, String)>,
}

/// Why a file is not a memory document.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DocError {
    #[error("no frontmatter at the start of the file")]
    NoFrontmatter,
    #[error("frontmatter could not be parsed")]
    MalformedFrontmatter,
    #[error("missing or unknown type")]
    InvalidType,
    /// The frontmatter is not valid YAML, and the line-by-line reading Qwen Code falls back to
    /// found no valid type either.
    #[error("frontmatter is not valid YAML (no readable type)")]
    InvalidYaml,
}

/// The body placeholder written when a document has no entries.
pub const NO_ENTRIES: &str = "_No entries yet._";

/// Keys that have their own [`TopicDocument`] field and are therefore not in `extra`.
const OWN_KEYS: [&str; 4] = ["name", "title", "description", "type"];

/// Parses a topic document exactly as Qwen Code 0.24.4 reads one, so both tools always see the
/// same documents with the same titles (docs/DESIGN.md, "Topic documents").
///
/// CRLF is read as LF (a lone CR is not). The file must begin with `---\n` (a BOM means it is
/// not a memory, as in Qwen Code); the frontmatter runs to the first `\n---`, after which one
/// optional `\n` is consumed and the rest, JS-trimmed, is the body. `type`, `name`, `title` and
/// `description` are read by [`qwen_field`]: the raw text of the first matching line, trimmed —
/// no YAML unquoting, `#` is not a comment — and `type` must be exactly one of the four.
/// Callers holding bytes that may not be UTF-8 pass `String::from_utf8_lossy` text.
///
/// `extra` holds this tool's (and upstream's optional) other top-level keys whose value is a
/// scalar, read with the YAML reader (strings trimmed, numbers and booleans in their JavaScript
/// form, empty strings left out). List and map values are left out of `extra`; read lists with
/// [`frontmatter_list`]. Every key stays in `frontmatter`, byte for byte.
pub fn parse_document(text: &str) -> Result<TopicDocument, DocError> {
    let normalized;
    let text = if text.contains("\r\n") {
        normalized = text.replace("\r\n", "\n");
        normalized.as_str()
    } else {
        text
    };
    let rest = text.strip_prefix("---\n").ok_or(DocError::NoFrontmatter)?;
    let close = rest.find("\n---").ok_or(DocError::NoFrontmatter)?;
    let frontmatter = &rest[..close];
    let after = &rest[close + "\n---".len()..];
    let after = after.strip_prefix('\n').unwrap_or(after);
    let body = js_trim(after);

    let memory_type = qwen_field(frontmatter, "type")
        .and_then(|t| MemoryType::parse(&t))
        .ok_or_else(|| {
            // Say "invalid YAML" when YAML is why no type could be read.
            if yaml::parse_frontmatter(frontmatter).lenient {
                DocError::InvalidYaml
            } else {
                DocError::InvalidType
            }
        })?;
    let title = qwen_field(frontmatter, "name")
        .or_else(|| qwen_field(frontmatter, "title"))
        .unwrap_or_else(|| memory_type.as_str().to_string());
    let description = qwen_field(frontmatter, "description").unwrap_or_default();
    let fm = yaml::parse_frontmatter(frontmatter);
    let extra = fm
        .entries
        .iter()
        .filter(|(k, _)| !OWN_KEYS.contains(&k.as_str()))
        .filter_map(|(k, v)| string_value(Some(v)).map(|s| (k.clone(), s)))
        .collect();
    Ok(TopicDocument {
        frontmatter: frontmatter.to_string(),
        memory_type,
        title,
        description,
        body: body.to_string(),
        extra,
    })
}

/// JavaScript's line terminators: where `^`/`$` match in a multiline regex and what `.` skips.
fn is_js_line_terminator(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}')
}

/// The value of `key` as Qwen Code 0.24.4 reads it from frontmatter text: the first line
/// (lines start at the text start and after any JS line terminator) that begins with `key:`
/// and has at least one character on it after optional whitespace; its text up to the end of
/// the line, JS-trimmed. Quotes and `#` are part of the value. A line with only whitespace
/// after the colon gives `Some("")`; a line with nothing after the colon does not match, and
/// the search goes on.
pub fn qwen_field(frontmatter: &str, key: &str) -> Option<String> {
    let prefix = format!("{key}:");
    let mut line_start = 0;
    loop {
        let line = &frontmatter[line_start..];
        if let Some(rest) = line.strip_prefix(prefix.as_str()) {
            // Whitespace other than LF, greedily, as `[^\S\n]*` does.
            let ws_end = rest
                .char_indices()
                .find(|&(_, c)| c == '\n' || !is_js_whitespace(c))
                .map_or(rest.len(), |(i, _)| i);
            let after_ws = &rest[ws_end..];
            match after_ws.chars().next() {
                Some(c) if !is_js_line_terminator(c) => {
                    let end = after_ws
                        .find(is_js_line_terminator)
                        .unwrap_or(after_ws.len());
                    return Some(js_trim(&after_ws[..end]).to_string());
                }
                // Backtracking gives `.+` one whitespace character that is not a terminator.
                _ if rest[..ws_end].chars().any(|c| !is_js_line_terminator(c)) => {
                    return Some(String::new());
                }
                _ => {}
            }
        }
        let next = line.find(is_js_line_terminator)?;
        let terminator_len = line[next..].chars().next().map_or(1, char::len_utf8);
        line_start += next + terminator_len;
    }
}

/// Upstream's `stringValue`: a trimmed non-empty string, or a number / boolean in its JavaScript
/// string form; nothing for null, lists and maps.
fn string_value(value: Option<&Value>) -> Option<String> {
    match value? {
        Value::String(s) => {
            let t = js_trim(s);
            (!t.is_empty()).then(|| t.to_string())
        }
        v @ (Value::Number(_) | Value::Bool(_)) => yaml::scalar_string(v),
        Value::Null | Value::List(_) | Value::Map(_) => None,
    }
}

/// A frontmatter value of a parsed document, from its typed fields or `extra`: `type` and
/// `description` (when non-empty) from their fields, any other key from `extra` (so only
/// scalar values). `name`/`title` are not answered here: `doc.title` holds the resolved title.
pub fn frontmatter_value<'a>(doc: &'a TopicDocument, key: &str) -> Option<&'a str> {
    match key {
        "type" => Some(doc.memory_type.as_str()),
        "description" => (!doc.description.is_empty()).then_some(doc.description.as_str()),
        "name" | "title" => None,
        _ => doc
            .extra
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str()),
    }
}

/// The string items of a top-level list in the frontmatter (`keywords`, `usage_scenarios`), in
/// order; non-string items are skipped, as upstream skips them. Empty when the key is missing or
/// not a list.
pub fn frontmatter_list(doc: &TopicDocument, key: &str) -> Vec<String> {
    match yaml::parse_frontmatter(&doc.frontmatter).get(key) {
        Some(Value::List(items)) => items
            .iter()
            .filter_map(|item| match item {
                Value::String(s) => Some(s.clone()),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// Sets one top-level key in raw frontmatter text, leaving every other line byte for byte: the
/// first column-0 `key:` line (and the indented lines under it) is replaced, or the key is
/// appended at the end. For provenance updates (`commit`, `session`) on rewrites.
pub fn set_frontmatter_value(frontmatter: &str, key: &str, value: &str) -> String {
    let new_line = format!("{}: {}", yaml_key(key), yaml::quote_scalar(value));
    let lines: Vec<&str> = if frontmatter.is_empty() {
        Vec::new()
    } else {
        frontmatter.split('\n').collect()
    };
    let is_key_line = |line: &str| {
        line.strip_prefix(key)
            .is_some_and(|rest| rest.trim_start_matches([' ', '\t']).starts_with(':'))
    };
    let mut out: Vec<String> = Vec::with_capacity(lines.len() + 1);
    let mut replaced = false;
    let mut i = 0;
    while i < lines.len() {
        if !replaced && is_key_line(lines[i]) {
            out.push(new_line.clone());
            replaced = true;
            i += 1;
            while i < lines.len() && lines[i].starts_with([' ', '\t']) {
                i += 1;
            }
            continue;
        }
        out.push(lines[i].to_string());
        i += 1;
    }
    if !replaced {
        out.push(new_line);
    }
    out.join("\n")
}

/// Writes a new topic document: frontmatter keys `name`, `description`, `type`, then `extra` in
/// the given order (provenance keys `created`, `session`, `commit`, …), each value quoted only
/// when YAML needs it so it reads back as the same string; then the rendered entries.
///
/// Extra keys that repeat one of the own keys (`name`, `title`, `description`, `type`) or an
/// earlier extra key are skipped, so the output never has duplicate keys. Readers trim values,
/// so leading/trailing whitespace and empty values do not survive a round trip.
pub fn new_document(
    memory_type: MemoryType,
    name: &str,
    description: &str,
    extra: &[(&str, &str)],
    entries: &[Entry],
) -> String {
    let mut lines = vec![
        format!("name: {}", plain_field(name)),
        format!("description: {}", plain_field(description)),
        format!("type: {}", memory_type.as_str()),
    ];
    let mut seen: Vec<&str> = OWN_KEYS.to_vec();
    for (key, value) in extra {
        if key.is_empty() || seen.contains(key) {
            continue;
        }
        seen.push(key);
        lines.push(format!("{}: {}", yaml_key(key), yaml::quote_scalar(value)));
    }
    render_document(&lines.join("\n"), entries)
}

/// A `name` or `description` value as one plain YAML scalar that a YAML parser and Qwen Code's
/// line reader read as the same text, never quoted (Qwen Code would show the quotes). The text
/// is adjusted minimally: line breaks and other controls become spaces, surrounding whitespace
/// is trimmed, `: ` becomes ` — `, a trailing `:` is dropped, a `#` after whitespace and an
/// indicator character at the start become their full-width forms, and a BOM is removed. The
/// body of a document always keeps the exact text.
pub fn plain_field(value: &str) -> String {
    let cleaned: String = value
        .chars()
        // A BOM and the two non-characters YAML cannot hold even in quotes.
        .filter(|&c| !matches!(c, '\u{feff}' | '\u{fffe}' | '\u{ffff}'))
        .map(|c| {
            if c.is_control() || is_js_line_terminator(c) || c == '\u{85}' {
                ' '
            } else {
                c
            }
        })
        .collect();
    let mut text = js_trim(&cleaned).to_string();
    // `key: value` inside a value would start a mapping; a dash reads the same to people.
    while let Some(i) = text.find(": ") {
        let head = text[..i].trim_end_matches(is_js_whitespace);
        let tail = text[i + 1..].trim_start_matches(is_js_whitespace);
        text = if head.is_empty() {
            tail.to_string()
        } else {
            format!("{head} \u{2014} {tail}")
        };
    }
    while text.ends_with(':') {
        text.pop();
        text = js_trim(&text).to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut prev: Option<char> = None;
    for (i, c) in text.chars().enumerate() {
        let comment = c == '#' && prev.is_some_and(is_js_whitespace);
        let leading_indicator = i == 0
            && (matches!(
                c,
                '[' | ']'
                    | '{'
                    | '}'
                    | '#'
                    | '&'
                    | '*'
                    | '!'
                    | '|'
                    | '>'
                    | '\''
                    | '"'
                    | '%'
                    | '@'
                    | '`'
                    | ','
            ) || (matches!(c, '-' | '?' | ':')
                && text[1..].chars().next().is_none_or(is_js_whitespace)));
        if comment || leading_indicator {
            // The full-width form of an ASCII punctuation character.
            out.push(char::from_u32(c as u32 + 0xFEE0).unwrap_or(c));
        } else {
            out.push(c);
        }
        prev = Some(c);
    }
    out
}

fn yaml_key(key: &str) -> String {
    if !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        && !key.starts_with('-')
    {
        key.to_string()
    } else {
        yaml::quote_scalar(key)
    }
}

// ---------------------------------------------------------------------------------------------
// Entries

/// Which entry field a `Why:` / `How to apply:` line sets.
#[derive(Clone, Copy)]
enum Field {
    Why,
    HowToApply,
}

/// Parses body entries as upstream's entries.ts does (docs/DESIGN.md, "Topic documents"), with one
/// deliberate difference required by docs/DESIGN.md, "Topic documents": the bold-colon form `**Why:** reason` gives
/// `reason` (upstream keeps `** reason`).
///
/// Per line: blank lines, `_No entries yet._` and `# ` headings are skipped; an indented
/// `  - Why: …` / `  How to apply: …` line sets the open entry's field; a top-level `Why:` /
/// `How to apply:` / `How_to_apply:` line (key optionally in `**`) sets the open entry's field or
/// is dropped when none is open; a `- ` / `* ` bullet or any other line starts a new entry.
pub fn parse_entries(body: &str) -> Vec<Entry> {
    let mut entries = Vec::new();
    let mut open: Option<Entry> = None;
    for raw in body.split('\n') {
        let line = js_trim(raw);
        if line.is_empty() || line == NO_ENTRIES || line.starts_with("# ") {
            continue;
        }
        if let Some(entry) = open.as_mut() {
            if let Some((field, value)) = indented_field(raw) {
                set_field(entry, field, value);
                continue;
            }
        }
        if let Some((field, value)) = top_level_field(line) {
            if let Some(entry) = open.as_mut() {
                set_field(entry, field, value);
            }
            continue;
        }
        let summary = bullet_text(line).unwrap_or(line);
        entries.extend(open.take());
        open = Some(Entry {
            summary: collapse_whitespace(summary),
            why: None,
            how_to_apply: None,
        });
    }
    entries.extend(open);
    entries
}

/// Sets a field of the open entry; a second `Why:` (or `How to apply:`) of one entry, as a
/// person resolving a conflict by keeping both sides leaves it, is joined to the first, so a
/// rewrite never drops a reason.
fn set_field(entry: &mut Entry, field: Field, value: &str) {
    let value = collapse_whitespace(value);
    let slot = match field {
        Field::Why => &mut entry.why,
        Field::HowToApply => &mut entry.how_to_apply,
    };
    *slot = join_reasons(slot.as_deref(), Some(&value));
}

/// `  - Why: x`, `\tHow to apply: y`: at least two spaces/tabs, an optional `-`/`*` bullet, the
/// key (any case), `:`, then a value. Tested on the untrimmed line.
fn indented_field(raw: &str) -> Option<(Field, &str)> {
    let rest = raw.trim_start_matches([' ', '\t']);
    if raw.len() - rest.len() < 2 {
        return None;
    }
    let rest = match rest.strip_prefix(['-', '*']) {
        Some(after) => {
            let trimmed = after.trim_start_matches([' ', '\t']);
            if trimmed.len() == after.len() {
                return None;
            }
            trimmed
        }
        None => rest,
    };
    let (field, rest) = field_key(rest)?;
    let rest = rest.strip_prefix(':')?;
    field_value(rest).map(|v| (field, v))
}

/// `Why: x`, `**Why**: x`, `**Why:** x` (a deliberate difference, docs/DESIGN.md: no `**` in the value), on the trimmed
/// line.
fn top_level_field(line: &str) -> Option<(Field, &str)> {
    let (bold, rest) = match line.strip_prefix("**") {
        Some(rest) => (true, rest),
        None => (false, line),
    };
    let (field, rest) = field_key(rest)?;
    let rest = if let Some(after) = rest.strip_prefix("**:") {
        after
    } else if let (true, Some(after)) = (bold, rest.strip_prefix(":**")) {
        after
    } else {
        rest.strip_prefix(':')?
    };
    field_value(rest).map(|v| (field, v))
}

/// The key at the start of `s`, case-insensitively, and the text after it.
fn field_key(s: &str) -> Option<(Field, &str)> {
    const KEYS: [(&str, Field); 3] = [
        ("why", Field::Why),
        ("how to apply", Field::HowToApply),
        ("how_to_apply", Field::HowToApply),
    ];
    KEYS.iter().find_map(|(key, field)| {
        let head = s.get(..key.len())?;
        head.eq_ignore_ascii_case(key)
            .then(|| (*field, &s[key.len()..]))
    })
}

/// After the colon: optional spaces/tabs, then a value starting with a non-space character.
fn field_value(s: &str) -> Option<&str> {
    let value = s.trim_start_matches([' ', '\t']);
    let first = value.chars().next()?;
    (!is_js_whitespace(first)).then_some(value)
}

/// The text after a `- ` / `* ` bullet marker (marker followed by whitespace).
fn bullet_text(line: &str) -> Option<&str> {
    let rest = line.strip_prefix(['-', '*'])?;
    let next = rest.chars().next()?;
    is_js_whitespace(next).then_some(rest)
}

/// Renders entries as upstream does; no entries renders `_No entries yet._`. No trailing
/// newline. Text is whitespace-collapsed; an empty `why`/`how_to_apply` is not written.
pub fn render_body(entries: &[Entry]) -> String {
    if entries.is_empty() {
        return NO_ENTRIES.to_string();
    }
    let mut lines: Vec<String> = Vec::with_capacity(entries.len() * 6);
    for (i, entry) in entries.iter().enumerate() {
        if i > 0 {
            lines.push(String::new());
        }
        lines.push(collapse_whitespace(&entry.summary));
        for (label, value) in [("Why", &entry.why), ("How to apply", &entry.how_to_apply)] {
            let value = value
                .as_deref()
                .map(collapse_whitespace)
                .unwrap_or_default();
            if !value.is_empty() {
                lines.push(String::new());
                lines.push(format!("{label}: {value}"));
            }
        }
    }
    lines.join("\n")
}

/// `---\n<frontmatter>\n---\n\n<rendered body>\n`: the form every rewrite takes, keeping the
/// frontmatter text as it was.
pub fn render_document(frontmatter: &str, entries: &[Entry]) -> String {
    format!("---\n{frontmatter}\n---\n\n{}\n", render_body(entries))
}

/// Merges a duplicate into an existing entry: the incoming summary when non-empty, else the
/// current one; `why` and `how_to_apply` prefer the current value.
pub fn merge_entry(current: &Entry, incoming: &Entry) -> Entry {
    let pick = |cur: &Option<String>, inc: &Option<String>| {
        cur.clone()
            .filter(|v| !v.is_empty())
            .or_else(|| inc.clone())
    };
    Entry {
        summary: if incoming.summary.is_empty() {
            current.summary.clone()
        } else {
            incoming.summary.clone()
        },
        why: pick(&current.why, &incoming.why),
        how_to_apply: pick(&current.how_to_apply, &incoming.how_to_apply),
    }
}

/// The dedupe key of an entry summary (docs/DESIGN.md, "Topic documents"): NFKC (so full-width
/// letters, digits and punctuation equal their ASCII forms), whitespace collapsed (JS
/// whitespace), lowercased, and final punctuation (`. , ; : ! ?`, `。 、 …`) dropped. Two entries
/// with one key are the same fact; the merge driver, remember, extract's writes and dream all
/// compare entries by it.
pub fn entry_key(summary: &str) -> String {
    use unicode_normalization::UnicodeNormalization;
    let nfkc: String = summary.nfkc().collect();
    let mut key = collapse_whitespace(&nfkc).to_lowercase();
    loop {
        let trimmed = key
            .trim_end_matches(['.', ',', ';', ':', '!', '?', '。', '、', '…'])
            .trim_end();
        if trimmed.len() == key.len() {
            break;
        }
        key.truncate(trimmed.len());
    }
    key
}

/// Two reasons (`Why:` or `How to apply:` texts) of one fact, joined: both, one after the
/// other, unless one already says the other (same key, or holds it as a whole part). Never
/// drops either.
pub fn join_reasons(a: Option<&str>, b: Option<&str>) -> Option<String> {
    let a = a.filter(|v| !v.trim().is_empty());
    let b = b.filter(|v| !v.trim().is_empty());
    match (a, b) {
        (Some(a), Some(b)) if entry_key(a) == entry_key(b) => Some(a.to_string()),
        (Some(a), Some(b)) if says_already(&entry_key(a), &entry_key(b)) => Some(a.to_string()),
        (Some(a), Some(b)) if says_already(&entry_key(b), &entry_key(a)) => Some(b.to_string()),
        (Some(a), Some(b)) => {
            let a = a.trim_end();
            let sep = if a.ends_with(['.', '!', '?', '。', '！', '？']) {
                " "
            } else {
                "; "
            };
            Some(format!("{a}{sep}{}", b.trim()))
        }
        (a, b) => a.or(b).map(str::to_string),
    }
}

/// Whether the reason key `hay` already holds `needle` as one whole part: the same text between
/// its start or a sentence mark (`;`, `.`, `。`, `!`, `?`, …) and its end or the next one — a
/// reason joined earlier. A mere substring ("ci" in "decision") is another reason, never dropped.
fn says_already(hay: &str, needle: &str) -> bool {
    const MARKS: [char; 7] = [';', '.', '。', '!', '?', '！', '？'];
    if needle.is_empty() {
        return true;
    }
    hay.match_indices(needle).any(|(at, _)| {
        let before = hay[..at].trim_end();
        let after = hay[at + needle.len()..].trim_start();
        (before.is_empty() || before.ends_with(MARKS))
            && (after.is_empty() || after.starts_with(MARKS))
    })
}

/// Removes from a document's text the entries whose keys are in `keys` — each entry's line and
/// the `Why:` / `How to apply:` lines under it, with one blank line around them — and keeps
/// every other byte (frontmatter, headings, prose, code blocks, tables) as it was. Lines inside
/// code fences are never entries. For documents with structure ([`is_structured`]), which are
/// never re-rendered. Returns the new text and how many entries went.
pub fn remove_entry_lines(text: &str, keys: &[String]) -> (String, usize) {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    // The body starts after the frontmatter's closing `---` line.
    let mut start = 0;
    if lines.first().is_some_and(|l| l.trim_end() == "---") {
        if let Some(end) = (1..lines.len()).find(|&i| lines[i].trim_end() == "---") {
            start = end + 1;
        }
    }
    let mut keep = vec![true; lines.len()];
    let mut removed = 0;
    let mut in_fence = false;
    let mut i = start;
    while i < lines.len() {
        let raw = lines[i].trim_end_matches(['\n', '\r']);
        let line = js_trim(raw);
        if line.starts_with("```") || line.starts_with("~~~") {
            in_fence = !in_fence;
            i += 1;
            continue;
        }
        let top = !raw.starts_with([' ', '\t']);
        let candidate = !in_fence
            && top
            && !line.is_empty()
            && !line.starts_with(['#', '|', '>'])
            && top_level_field(line).is_none();
        let summary = bullet_text(line).unwrap_or(line);
        if candidate && keys.contains(&entry_key(&collapse_whitespace(summary))) {
            removed += 1;
            keep[i] = false;
            let mut j = i + 1;
            // Its fields: indented or top-level Why / How lines, blank lines between them.
            loop {
                let mut k = j;
                while k < lines.len() && js_trim(lines[k].trim_end_matches(['\n', '\r'])).is_empty()
                {
                    k += 1;
                }
                if k >= lines.len() {
                    break;
                }
                let next = lines[k].trim_end_matches(['\n', '\r']);
                if indented_field(next).is_some() || top_level_field(js_trim(next)).is_some() {
                    for flag in keep.iter_mut().take(k + 1).skip(j) {
                        *flag = false;
                    }
                    j = k + 1;
                } else {
                    break;
                }
            }
            // One blank line that separated it from what follows.
            if j < lines.len() && js_trim(lines[j].trim_end_matches(['\n', '\r'])).is_empty() {
                keep[j] = false;
                j += 1;
            }
            i = j;
            continue;
        }
        i += 1;
    }
    let out: String = lines
        .iter()
        .zip(&keep)
        .filter(|(_, k)| **k)
        .map(|(l, _)| *l)
        .collect();
    (out, removed)
}

/// Where each entry [`parse_entries`] finds in a document's body starts in the document's
/// `text`: its line number (0-based, lines of `text.split_inclusive('\n')`) and whether that line
/// is an entry line in a person's eyes — top level, outside a code fence, not a heading, table
/// row or quote — that a line-level edit (forget, a reason added by remember) may change. The
/// i-th item belongs to the i-th entry, so an edit names exactly one entry, never another line
/// that reads the same.
pub fn entry_lines(text: &str) -> Vec<(usize, bool)> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let start = body_start(&lines);
    let mut out = Vec::new();
    let mut open = false;
    let mut in_fence = false;
    for (i, full) in lines.iter().enumerate().skip(start) {
        let raw = full.strip_suffix('\n').unwrap_or(full);
        let line = js_trim(raw);
        let fence = line.starts_with("```") || line.starts_with("~~~");
        let inside = in_fence;
        if fence {
            in_fence = !in_fence;
        }
        if line.is_empty() || line == NO_ENTRIES || line.starts_with("# ") {
            continue;
        }
        if open && indented_field(raw).is_some() {
            continue;
        }
        if top_level_field(line).is_some() {
            continue;
        }
        let editable = !fence
            && !inside
            && !raw.starts_with([' ', '\t'])
            && !line.starts_with(['#', '|', '>']);
        out.push((i, editable));
        open = true;
    }
    out
}

/// The first line of the body: after the frontmatter's closing `---` line.
fn body_start(lines: &[&str]) -> usize {
    if lines.first().is_some_and(|l| l.trim_end() == "---") {
        if let Some(end) = (1..lines.len()).find(|&i| lines[i].trim_end() == "---") {
            return end + 1;
        }
    }
    0
}

/// The end (exclusive) of the entry starting at line `i`: its `Why:` / `How to apply:` lines
/// (indented or top level, blank lines between them) and one blank line after them.
fn entry_extent(lines: &[&str], i: usize) -> (usize, usize) {
    let mut j = i + 1;
    loop {
        let mut k = j;
        while k < lines.len() && js_trim(lines[k].trim_end_matches(['\n', '\r'])).is_empty() {
            k += 1;
        }
        if k >= lines.len() {
            break;
        }
        let next = lines[k].trim_end_matches(['\n', '\r']);
        if indented_field(next).is_some() || top_level_field(js_trim(next)).is_some() {
            j = k + 1;
        } else {
            break;
        }
    }
    let fields_end = j;
    if j < lines.len() && js_trim(lines[j].trim_end_matches(['\n', '\r'])).is_empty() {
        j += 1;
    }
    (fields_end, j)
}

/// Removes the entries at `positions` (indexes into [`parse_entries`] of the body) — each one's
/// line and its `Why:` / `How to apply:` lines, with one blank line after them — keeping every
/// other byte. A position whose line is not an editable entry line ([`entry_lines`]) is left.
/// Returns the new text and how many entries went.
pub fn remove_entries_at(text: &str, positions: &[usize]) -> (String, usize) {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut keep = vec![true; lines.len()];
    let mut removed = 0;
    for (n, (i, editable)) in entry_lines(text).into_iter().enumerate() {
        if !editable || !positions.contains(&n) {
            continue;
        }
        let (_, end) = entry_extent(&lines, i);
        for flag in keep.iter_mut().take(end).skip(i) {
            *flag = false;
        }
        removed += 1;
    }
    let out: String = lines
        .iter()
        .zip(&keep)
        .filter(|(_, k)| **k)
        .map(|(l, _)| *l)
        .collect();
    (out, removed)
}

/// Sets the `Why:` and `How to apply:` of the entry at `position` (an index into
/// [`parse_entries`] of the body) to `why` / `how` (`None`: left as it is) by editing only that
/// entry's field lines: the first line of a field gets the new value after its own key (indent,
/// bullet and bold kept), further lines of that field (already joined into the value) go, and a
/// missing field is added under the entry in the style of the entry. Every other byte stays.
/// `None` when the position is not an editable entry line.
pub fn set_entry_fields_at(
    text: &str,
    position: usize,
    why: Option<&str>,
    how: Option<&str>,
) -> Option<String> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let (i, editable) = *entry_lines(text).get(position)?;
    if !editable {
        return None;
    }
    let (fields_end, _) = entry_extent(&lines, i);
    let ending = if lines[i].ends_with("\r\n") {
        "\r\n"
    } else {
        "\n"
    };
    let entry_raw = lines[i].trim_end_matches(['\n', '\r']);
    let bullet = bullet_text(js_trim(entry_raw)).is_some();
    let mut out: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    let mut drop = vec![false; lines.len()];
    let mut last_field = i;
    for (field_kind, value) in [(0u8, why), (1u8, how)] {
        let mut seen = false;
        for k in i + 1..fields_end {
            let raw = lines[k].trim_end_matches(['\n', '\r']);
            let found = indented_field(raw).or_else(|| top_level_field(js_trim(raw)));
            let Some((field, old)) = found else {
                continue;
            };
            last_field = last_field.max(k);
            let kind = match field {
                Field::Why => 0u8,
                Field::HowToApply => 1u8,
            };
            if kind != field_kind {
                continue;
            }
            let Some(value) = value else {
                seen = true;
                continue;
            };
            if seen {
                drop[k] = true;
                continue;
            }
            seen = true;
            // `old` is the tail of `raw` (up to a `\r` the trim left): keep what precedes it.
            let old_at = raw.len() - old.len();
            let end = if lines[k].ends_with("\r\n") {
                "\r\n"
            } else if lines[k].ends_with('\n') {
                "\n"
            } else {
                ""
            };
            out[k] = format!("{}{}{end}", &raw[..old_at], collapse_whitespace(value));
        }
        if let (false, Some(value)) = (seen, value) {
            let label = if field_kind == 0 {
                "Why"
            } else {
                "How to apply"
            };
            let value = collapse_whitespace(value);
            let added = if bullet {
                format!("  {label}: {value}{ending}")
            } else {
                format!("{ending}{label}: {value}{ending}")
            };
            if !out[last_field].ends_with('\n') {
                out[last_field].push_str(ending);
            }
            out[last_field].push_str(&added);
        }
    }
    Some(
        out.into_iter()
            .zip(drop)
            .filter(|(_, d)| !*d)
            .map(|(l, _)| l)
            .collect(),
    )
}

/// Whether a body holds structure a person wrote that is not a list of entries: a heading, a
/// code fence, a table row, a block quote, a numbered step, an indented line that is not a
/// `Why:` / `How to apply:` field (a nested list, indented code), or prose (two plain lines in a
/// row). Such a document is never re-rendered: the merge driver leaves it to Git's line merge,
/// mechanical dream leaves it alone and forget removes only the lines of the entry it forgets
/// (docs/DESIGN.md, "Topic documents").
pub fn is_structured(body: &str) -> bool {
    let mut previous_plain = false;
    for raw in body.split('\n') {
        let raw = raw.strip_suffix('\r').unwrap_or(raw);
        let line = js_trim(raw);
        if line.is_empty() || line == NO_ENTRIES {
            previous_plain = false;
            continue;
        }
        let indented = raw.starts_with([' ', '\t']);
        if indented {
            if indented_field(raw).is_some() {
                previous_plain = false;
                continue;
            }
            return true;
        }
        if line.starts_with('#')
            || line.starts_with("```")
            || line.starts_with("~~~")
            || line.starts_with('|')
            || line.starts_with('>')
            || numbered_step(line)
        {
            return true;
        }
        if top_level_field(line).is_some() {
            previous_plain = false;
            continue;
        }
        let plain = bullet_text(line).is_none();
        if plain && previous_plain {
            return true;
        }
        previous_plain = plain;
    }
    false
}

/// `1. step` / `2) step`: an ordered list, whose order a person chose.
fn numbered_step(line: &str) -> bool {
    let digits = line.len() - line.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    digits > 0
        && matches!(line[digits..].chars().next(), Some('.' | ')'))
        && line[digits + 1..].starts_with([' ', '\t'])
}

/// The 1-based number of the first line that is a Git conflict marker (`<<<<<<<` or `>>>>>>>`,
/// at least seven characters, then nothing or a space and a label), if any. A file holding one
/// is an unresolved merge: never a memory's content. A lone `=======` line is not counted (it is
/// also a Markdown heading underline); it only occurs between the two counted markers.
pub fn conflict_marker_line(text: &str) -> Option<usize> {
    text.split('\n').position(is_conflict_marker).map(|i| i + 1)
}

fn is_conflict_marker(line: &str) -> bool {
    let line = line.strip_suffix('\r').unwrap_or(line);
    let Some(first) = line.chars().next().filter(|c| *c == '<' || *c == '>') else {
        return false;
    };
    let run = line.len() - line.trim_start_matches(first).len();
    run >= 7 && (run == line.len() || line[run..].starts_with(' '))
}

// ---------------------------------------------------------------------------------------------
// JavaScript string semantics

/// JavaScript's `String.prototype.trim`.
fn js_trim(s: &str) -> &str {
    s.trim_matches(is_js_whitespace)
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_reason_inside_another_word_is_still_joined_and_a_joined_one_is_not_repeated() {
        let j = |a: &str, b: &str| super::join_reasons(Some(a), Some(b)).unwrap();
        // A substring is not the same reason: both are kept.
        assert_eq!(j("A team decision", "CI"), "A team decision; CI");
        assert_eq!(
            j("Builds are not fast", "fast"),
            "Builds are not fast; fast"
        );
        // A reason already joined in (a whole part between marks) is not added again.
        assert_eq!(
            j("Slow CI; flaky tests", "flaky tests."),
            "Slow CI; flaky tests"
        );
        assert_eq!(j("Slow CI. Flaky tests", "slow ci"), "Slow CI. Flaky tests");
        // The longer one wins when it holds the other whole.
        assert_eq!(
            j("flaky tests", "Slow CI; flaky tests"),
            "Slow CI; flaky tests"
        );
    }

    use super::*;

    #[test]
    fn entry_keys_ignore_case_spacing_final_punctuation_and_width() {
        let k = entry_key("Use pnpm for installs");
        for v in [
            "use  pnpm for installs.",
            "USE PNPM FOR INSTALLS!",
            "Ｕｓｅ ｐｎｐｍ ｆｏｒ ｉｎｓｔａｌｌｓ．",
            "Use pnpm for installs ...",
        ] {
            assert_eq!(entry_key(v), k, "{v}");
        }
        assert_eq!(entry_key("用 pnpm 安装。"), entry_key("用 pnpm 安装"));
        assert_ne!(entry_key("Use pnpm"), entry_key("Use npm"));
        // Punctuation inside is kept.
        assert_ne!(entry_key("a.b"), entry_key("ab"));
    }

    #[test]
    fn removing_entry_lines_keeps_every_other_byte() {
        let text = "---\nname: Release\ndescription: d\ntype: project\n---\n\n# Release runbook\n\nTag from main.\n\nWhy: CI builds tags\n\n- Bump the version.\n  - nested note\n\n```sh\nTag from main.\ngit push --tags\n```\n\n| a | b |\n";
        let (out, n) = remove_entry_lines(text, &[entry_key("tag from main")]);
        assert_eq!(n, 1);
        assert_eq!(
            out,
            "---\nname: Release\ndescription: d\ntype: project\n---\n\n# Release runbook\n\n- Bump the version.\n  - nested note\n\n```sh\nTag from main.\ngit push --tags\n```\n\n| a | b |\n"
        );
        assert_eq!(
            remove_entry_lines(text, &[entry_key("nothing")]),
            (text.to_string(), 0)
        );
    }

    #[test]
    fn a_second_why_of_one_entry_is_joined() {
        let e = parse_entries("Use pnpm.\n\nWhy: speed\n\nWhy: disk space");
        assert_eq!(e[0].why.as_deref(), Some("speed; disk space"));
    }

    #[test]
    fn structure_is_told_from_a_list_of_entries() {
        let entries = "Use pnpm.\n\nWhy: speed\n\nHow to apply: always\n\n- Run lint first.\n- CI sets TZ.\n  - Why: logs\n**Why:** x";
        assert!(!is_structured(entries));
        assert!(!is_structured("_No entries yet._"));
        for s in [
            "# Runbook\n\nTag first.",
            "Steps:\n\n```sh\ngit tag v1\n```",
            "| a | b |\n|---|---|",
            "- top\n  - nested item",
            "1. git tag v1\n2. git push --tags",
            "We deploy on Fridays.\nNobody likes it.",
            "> quoted",
        ] {
            assert!(is_structured(s), "{s}");
        }
    }

    #[test]
    fn conflict_markers_are_found_by_line() {
        assert_eq!(
            conflict_marker_line("a\n<<<<<<< HEAD\nb\n=======\nc\n>>>>>>> x"),
            Some(2)
        );
        assert_eq!(conflict_marker_line("a\r\n>>>>>>>\r\n"), Some(2));
        assert_eq!(conflict_marker_line("<<<<<<<<<< main"), Some(1));
        assert_eq!(
            conflict_marker_line("Title\n=======\n\n> quote\n<<<<<< six"),
            None
        );
        assert_eq!(conflict_marker_line("x <<<<<<< y\n<<<<<<<x"), None);
    }
    use proptest::prelude::*;

    fn entry(summary: &str, why: Option<&str>, how: Option<&str>) -> Entry {
        Entry {
            summary: summary.to_string(),
            why: why.map(str::to_string),
            how_to_apply: how.map(str::to_string),
        }
    }

    fn doc(text: &str) -> TopicDocument {
        match parse_document(text) {
            Ok(d) => d,
            Err(e) => panic!("{e}: {text:?}"),
        }
    }

    // --- Frontmatter detection ---------------------------------------------------------------

    #[test]
    fn spec_example_parses() {
        let d = doc("---\nname: Terse answers\ndescription: The user wants short answers without a closing summary\ntype: feedback\n---\n\nKeep answers short; no closing summary.\n\nWhy: The user reads answers in a narrow terminal pane.\n\nHow to apply: Default to a few lines; expand only when asked.\n");
        assert_eq!(d.memory_type, MemoryType::Feedback);
        assert_eq!(d.title, "Terse answers");
        assert_eq!(
            d.description,
            "The user wants short answers without a closing summary"
        );
        assert!(d.extra.is_empty());
        assert_eq!(
            parse_entries(&d.body),
            vec![entry(
                "Keep answers short; no closing summary.",
                Some("The user reads answers in a narrow terminal pane."),
                Some("Default to a few lines; expand only when asked.")
            )]
        );
    }

    #[test]
    fn crlf_document_parses_and_body_is_lf_normalized() {
        let d = doc(include_str!(
            "../../../tests/fixtures/docs/crlf_feedback.md"
        ));
        assert_eq!(d.title, "Terse answers");
        assert!(!d.body.contains('\r') && !d.frontmatter.contains('\r'));
        assert_eq!(
            d.body,
            "Keep answers short.\n\nWhy: Narrow terminal pane.\n\nHow to apply: A few lines by default."
        );
    }

    #[test]
    fn lone_cr_is_not_normalized() {
        assert_eq!(
            parse_document("---\rtype: user\r---\rbody\r"),
            Err(DocError::NoFrontmatter)
        );
    }

    #[test]
    fn bom_means_not_a_memory_as_in_qwen_code() {
        assert_eq!(
            parse_document(include_str!(
                "../../../tests/fixtures/docs/bom_reference.md"
            )),
            Err(DocError::NoFrontmatter)
        );
    }

    #[test]
    fn no_frontmatter_variants_are_not_documents() {
        for text in [
            "Just a plain body.\n",
            "\n---\ntype: user\n---\nbody",
            "--- \ntype: user\n---\nbody",
            "---\ntype: user\n  ---\nbody",
            "---\ntype: user\n",
            "",
            "---",
        ] {
            assert_eq!(
                parse_document(text),
                Err(DocError::NoFrontmatter),
                "{text:?}"
            );
        }
    }

    #[test]
    fn empty_frontmatter_is_rejected() {
        assert_eq!(
            parse_document("---\n---\nbody"),
            Err(DocError::NoFrontmatter)
        );
        assert_eq!(
            parse_document("---\n\n---\nbody"),
            Err(DocError::InvalidType)
        );
    }

    #[test]
    fn scalar_head_has_no_type() {
        assert_eq!(
            parse_document("---\njust some text\n---\nbody"),
            Err(DocError::InvalidYaml)
        );
        // Not YAML at all, but the type line is there: a memory for Qwen Code, so for us.
        let d = doc("---\n[broken: yaml\ntype: user\n---\nbody");
        assert_eq!(d.memory_type, MemoryType::User);
    }

    #[test]
    fn closer_need_not_be_alone_on_its_line() {
        let d = doc("---\ntype: user\n---xyz\nrest of body\n");
        assert_eq!(d.body, "xyz\nrest of body");
        let d = doc("---\ntype: user\n----\nbody");
        assert_eq!(d.body, "-\nbody");
        let d = doc("---\ntype: user\n---");
        assert_eq!(d.body, "");
    }

    #[test]
    fn frontmatter_ends_at_first_closer_and_body_is_js_trimmed() {
        let d = doc("---\ntype: user\n---\n\n\u{feff}\u{3000} first\n---\nsecond \t\n\n");
        assert_eq!(d.frontmatter, "type: user");
        assert_eq!(d.body, "first\n---\nsecond");
        // U+0085 is not JS whitespace, so trim keeps it.
        assert_eq!(doc("---\ntype: user\n---\n\u{85}x").body, "\u{85}x");
    }

    // --- Field values -------------------------------------------------------------------------

    #[test]
    fn title_works_as_name_alias() {
        let d = doc("---\ntype: user\ntitle: User Memory\n---\n");
        assert_eq!(d.title, "User Memory");
        let d = doc("---\ntype: user\ntitle: Old\nname: New\n---\n");
        assert_eq!(d.title, "New");
        // Raw text: quotes are part of the value.
        let d = doc("---\ntype: user\nname: '  '\n---\n");
        assert_eq!(d.title, "'  '");
        assert_eq!(d.description, "");
        // Only whitespace after the colon: an empty title, not the fallback.
        let d = doc("---\ntype: user\nname:   \ntitle: T\n---\n");
        assert_eq!(d.title, "");
        // Nothing after the colon: the line does not count, the search goes on.
        let d = doc("---\ntype: user\nname:\ntitle: T\nname: Later\n---\n");
        assert_eq!(d.title, "Later");
    }

    #[test]
    fn numeric_name_and_description_are_kept_as_text() {
        let d = doc("---\nname: 10183\ndescription: 42\ntype: project\n---\n");
        assert_eq!(d.title, "10183");
        assert_eq!(d.description, "42");
        let d = doc("---\nname: 1.50\ndescription: true\ntype: project\n---\n");
        assert_eq!(d.title, "1.50");
        assert_eq!(d.description, "true");
    }

    #[test]
    fn broken_yaml_without_a_type_is_a_yaml_error() {
        assert_eq!(
            parse_document("---\nname: x\ntype: [project\n---\nbody"),
            Err(DocError::InvalidYaml)
        );
    }

    #[test]
    fn numeric_type_is_invalid() {
        assert_eq!(
            parse_document("---\ntype: 1\n---\n"),
            Err(DocError::InvalidType)
        );
    }

    #[test]
    fn unknown_missing_or_miscased_type_is_rejected() {
        for fm in [
            "type: Project",
            "type: notes",
            "name: x",
            "type: [user]",
            "type: ''",
        ] {
            let text = format!("---\n{fm}\n---\nbody");
            assert_eq!(parse_document(&text), Err(DocError::InvalidType), "{fm}");
        }
        for t in MemoryType::ALL {
            assert_eq!(doc(&format!("---\ntype: {t}\n---\n")).memory_type, t);
        }
    }

    #[test]
    fn tab_indented_type_is_not_a_type_line() {
        // Qwen Code only reads `type:` at the start of a line.
        assert_eq!(
            parse_document(include_str!("../../../tests/fixtures/docs/tabs_project.md")),
            // Not a memory either way; the message says why: the YAML could not be read.
            Err(DocError::InvalidYaml)
        );
        let d = doc("---\n\tname: Tabbed\ntype: project\n---\n");
        assert_eq!(d.title, "project");
    }

    #[test]
    fn duplicate_keys_first_line_wins_for_own_keys() {
        let d = doc("---\nname: First\ntype: user\nname: Second\ncreated: a\ncreated: b\n---\n");
        assert_eq!(d.title, "First");
        assert_eq!(d.extra, vec![("created".to_string(), "b".to_string())]);
        assert_eq!(
            d.frontmatter,
            "name: First\ntype: user\nname: Second\ncreated: a\ncreated: b"
        );
    }

    #[test]
    fn unquoted_hash_is_kept_in_free_text_fields() {
        let d = doc("---\nname: Release issue #1234\ndescription: Fixes #1234 and #99\ntype: project\nkeywords:\n  - issue #1234\n  - \"quoted\"\nusage_scenarios:\n  - triage #1234\n---\n");
        assert_eq!(d.title, "Release issue #1234");
        assert_eq!(d.description, "Fixes #1234 and #99");
        assert_eq!(frontmatter_list(&d, "keywords"), ["issue #1234", "quoted"]);
        assert_eq!(frontmatter_list(&d, "usage_scenarios"), ["triage #1234"]);
    }

    #[test]
    fn nested_audit_keywords_do_not_hijack_top_level_keywords() {
        let d = doc("---\ntype: user\naudit:\n  keywords: hijack #1\nkeywords:\n  - real\n---\n");
        assert_eq!(frontmatter_list(&d, "keywords"), ["real"]);
        assert!(d.extra.is_empty(), "maps are not in extra: {:?}", d.extra);
    }

    #[test]
    fn hash_is_never_a_comment_in_own_keys() {
        // `type: project # note` is an unknown type for Qwen Code: not a memory.
        assert_eq!(
            parse_document("---\ntype: project # note\nname: A\n---\n"),
            Err(DocError::InvalidType)
        );
        let d = doc("---\ntype: project\ncategory: tech_stack # why\nname: A # B\n---\n");
        assert_eq!(frontmatter_value(&d, "category"), Some("tech_stack"));
        assert_eq!(d.title, "A # B");
        assert_eq!(
            parse_document("---\nname: x\ntype: # c\n---\n"),
            Err(DocError::InvalidType)
        );
    }

    #[test]
    fn qwen_field_reads_raw_first_lines() {
        let fm = "name: \"A: b\"\ndescription:\t  spaced  \ntype: user";
        assert_eq!(qwen_field(fm, "name").as_deref(), Some("\"A: b\""));
        assert_eq!(qwen_field(fm, "description").as_deref(), Some("spaced"));
        assert_eq!(qwen_field(fm, "missing"), None);
        // A key must start its line and is case-sensitive; `names:` is another key.
        assert_eq!(qwen_field(" name: x\nNAME: y\nnames: z", "name"), None);
        // Lone CR, U+2028 and U+2029 end lines too.
        assert_eq!(
            qwen_field("a: 1\rname: x\u{2028}y", "name").as_deref(),
            Some("x")
        );
        assert_eq!(qwen_field("a\u{2029}name: z", "name").as_deref(), Some("z"));
        // Whitespace after the colon may include a CR (not LF) before the value.
        assert_eq!(
            qwen_field("name: \rvalue", "name").as_deref(),
            Some("value")
        );
        assert_eq!(qwen_field("name:\nnext", "name"), None);
        assert_eq!(qwen_field("name: \nnext", "name").as_deref(), Some(""));
        // Multi-line YAML values are seen as their first line only.
        assert_eq!(
            qwen_field("name: >\n  folded text", "name").as_deref(),
            Some(">")
        );
    }

    #[test]
    fn own_line_indented_comment_is_not_folded_into_previous_field() {
        let d = doc("---\nname: Alpha\n  # a comment line\ntype: user\ndescription: Beta\n# top comment\n---\n");
        assert_eq!(d.title, "Alpha");
        assert_eq!(d.description, "Beta");
    }

    #[test]
    fn whole_value_hash_is_rescued_for_free_text_but_not_type() {
        let d = doc("---\nname: #1 priority fix\ndescription:   #tag   \ntype: user\n---\n");
        assert_eq!(d.title, "#1 priority fix");
        assert_eq!(d.description, "#tag");
        assert_eq!(
            parse_document("---\nname: #1\ntype: #user\n---\n"),
            Err(DocError::InvalidType)
        );
    }

    #[test]
    fn non_list_keywords_give_empty_list() {
        let d = doc("---\ntype: user\nkeywords: just one\nusage_scenarios: invalid\n---\n");
        assert!(frontmatter_list(&d, "keywords").is_empty());
        assert!(frontmatter_list(&d, "usage_scenarios").is_empty());
        // Scalars are still reported in extra, as the stringified text.
        assert_eq!(frontmatter_value(&d, "keywords"), Some("just one"));
    }

    #[test]
    fn legacy_doc_parses_leniently() {
        // title instead of name, an invented category, a single keyword, non-list scenarios.
        let d = doc("---\ntitle: Old style\ndescription: d\ntype: reference\ncategory: my_own\nkeywords: [one]\nusage_scenarios: sometimes\n---\nbody");
        assert_eq!(d.title, "Old style");
        assert_eq!(frontmatter_value(&d, "category"), Some("my_own"));
        assert_eq!(frontmatter_list(&d, "keywords"), ["one"]);
    }

    #[test]
    fn structured_fixture_keeps_extra_in_file_order() {
        let text = include_str!("../../../tests/fixtures/docs/structured_project.md");
        let d = doc(text);
        assert_eq!(d.title, "Release checklist lives in the wiki");
        assert_eq!(
            d.extra,
            [
                ("category", "practice_standard"),
                ("created", "2025-05-01T10:00:00Z"),
                ("session", "7f3c9a"),
                ("commit", "0123abcd"),
            ]
            .map(|(k, v)| (k.to_string(), v.to_string()))
        );
        assert_eq!(
            frontmatter_list(&d, "keywords"),
            ["release process", "issue #1234", "wiki"]
        );
        assert_eq!(frontmatter_value(&d, "commit"), Some("0123abcd"));
        assert_eq!(frontmatter_value(&d, "type"), Some("project"));
        assert_eq!(frontmatter_value(&d, "missing"), None);
        assert_eq!(
            parse_entries(&d.body),
            vec![entry(
                "The release checklist is kept on the team wiki, not in the repository.",
                Some("The release managers edit it between releases."),
                Some("Link to the wiki page instead of copying the steps.")
            )]
        );
        // A rewrite keeps every frontmatter byte.
        let rewritten = render_document(&d.frontmatter, &parse_entries(&d.body));
        let start = text.find("\n---\n").map(|i| i + 5).unwrap_or(0);
        assert_eq!(&rewritten[..start], &text[..start]);
        assert_eq!(doc(&rewritten).extra, d.extra);
    }

    #[test]
    fn invalid_utf8_read_lossily_parses() {
        let bytes = b"---\nname: caf\xe9 notes\ntype: user\n---\nbody \xff\xfe end\n";
        let text = String::from_utf8_lossy(bytes);
        let d = doc(&text);
        assert_eq!(d.title, "caf\u{fffd} notes");
        assert_eq!(d.body, "body \u{fffd}\u{fffd} end");
    }

    #[test]
    fn alias_bomb_in_frontmatter_is_bounded() {
        let mut fm = String::from(
            "type: user\nname: bomb\na0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n",
        );
        for i in 1..20 {
            let refs = vec![format!("*a{}", i - 1); 10].join(", ");
            fm.push_str(&format!("a{i}: &a{i} [{refs}]\n"));
        }
        let text = format!("---\n{fm}---\nbody");
        // No wall-clock bound here (it flakes on a loaded machine): an unbounded expansion would
        // exhaust memory or hang the test run, and the value sizes below prove the bound.
        let result = parse_document(&text);
        let d = result.expect("the lenient parser still finds the type");
        assert_eq!(d.title, "bomb");
        // Every value is bounded by the input's own size.
        assert!(d.extra.iter().all(|(_, v)| v.len() < text.len()));
    }

    #[test]
    fn five_megabyte_body_parses() {
        let line = "- a fairly ordinary memory line with some words in it\n";
        let body = line.repeat(5 * 1024 * 1024 / line.len() + 1);
        let text = format!("---\ntype: project\nname: Big\n---\n\n{body}");
        let d = doc(&text);
        assert!(d.body.len() >= 5 * 1024 * 1024 - line.len());
        assert_eq!(parse_entries(&d.body).len(), body.lines().count());
    }

    #[test]
    fn hostile_frontmatter_does_not_panic() {
        for fm in [
            "\u{0}: \u{0}",
            "? [a, b]\n: c\ntype: user",
            "type: !!binary aGVsbG8=",
            "type: !custom user",
            "<<: {type: user}",
            "[a, b]",
            "- type: user",
            "type: user\n---x",
            "é: ü #\n  - ä #",
            "k: \"unterminated",
            "k: |\n  block #not comment\ntype: user",
        ] {
            let _ = parse_document(&format!("---\n{fm}\n---\nbody"));
        }
        // A YAML tag is text to Qwen Code: not one of the four types.
        assert_eq!(
            parse_document("---\ntype: !custom user\n---\n"),
            Err(DocError::InvalidType)
        );
        assert_eq!(
            doc("---\nk: |\n  block #not comment\ntype: user\n---\n").extra,
            vec![("k".to_string(), "block #not comment".to_string())]
        );
    }

    // --- Entries ------------------------------------------------------------------------------

    #[test]
    fn legacy_bullet_with_nested_why_and_how_to_apply_parses_and_renders() {
        let d = doc(include_str!(
            "../../../tests/fixtures/docs/legacy_feedback.md"
        ));
        assert_eq!(d.title, "Feedback Memory");
        let entries = parse_entries(&d.body);
        assert_eq!(
            entries,
            vec![
                entry(
                    "Prefer small focused commits",
                    Some("The reviewer reads every diff line by line."),
                    Some("Split refactors from behaviour changes.")
                ),
                entry("Stability: stable", None, None),
                entry(
                    "Run the linter before pushing",
                    Some("CI rejects lint warnings."),
                    None
                ),
                entry(
                    "Never force-push main",
                    None,
                    Some("Use a revert commit instead.")
                ),
            ]
        );
        let rendered = render_body(&entries);
        assert!(rendered.contains("Prefer small focused commits\n\nWhy: The reviewer reads every diff line by line.\n\nHow to apply: Split refactors from behaviour changes."));
        assert_eq!(parse_entries(&rendered), entries);
    }

    #[test]
    fn legacy_stability_line_becomes_its_own_entry() {
        let entries = parse_entries("- Keep it\n  - Why: reason\n  - Stability: stable");
        assert_eq!(
            entries,
            vec![
                entry("Keep it", Some("reason"), None),
                entry("Stability: stable", None, None)
            ]
        );
    }

    #[test]
    fn legacy_empty_topic_file_has_no_entries() {
        let d = doc(include_str!(
            "../../../tests/fixtures/docs/legacy_user_empty.md"
        ));
        assert_eq!(d.memory_type, MemoryType::User);
        assert_eq!(d.title, "User Memory");
        assert_eq!(d.body, "# User Memory\n\n_No entries yet._");
        assert!(parse_entries(&d.body).is_empty());
    }

    #[test]
    fn bold_colon_form_yields_clean_value() {
        let entries = parse_entries(
            "Use rebase\n**Why:** reason here\n**How to apply:**   do it  now\n**how_to_apply:** later",
        );
        assert_eq!(
            entries,
            vec![entry(
                "Use rebase",
                Some("reason here"),
                Some("do it now; later")
            )]
        );
        // Upstream's other bold forms.
        let entries = parse_entries("A\n**Why**: one\nB\nWhy**: two");
        assert_eq!(
            entries,
            vec![entry("A", Some("one"), None), entry("B", Some("two"), None)]
        );
        // A bold key with nothing after it is not a field.
        assert_eq!(
            parse_entries("A\n**Why:**"),
            vec![entry("A", None, None), entry("**Why:**", None, None)]
        );
    }

    #[test]
    fn field_with_empty_value_becomes_plain_entry() {
        assert_eq!(
            parse_entries("A\nWhy:\nHow to apply:   "),
            vec![
                entry("A", None, None),
                entry("Why:", None, None),
                entry("How to apply:", None, None)
            ]
        );
    }

    #[test]
    fn field_without_open_entry_is_dropped() {
        assert_eq!(
            parse_entries("Why: orphan\n**How to apply:** also orphan\nA"),
            vec![entry("A", None, None)]
        );
        // Indented fields are only tried with an entry open; otherwise the line is a bullet.
        assert_eq!(
            parse_entries("  - How to apply: orphan"),
            vec![entry("How to apply: orphan", None, None)]
        );
    }

    #[test]
    fn field_keys_are_case_insensitive_and_repeated_ones_are_joined() {
        assert_eq!(
            parse_entries("A\nWHY: one\n\twhy: two\n  * HOW_TO_APPLY: three\nhow to apply:\tfour"),
            vec![entry("A", Some("one; two"), Some("three; four"))]
        );
    }

    #[test]
    fn each_plain_line_starts_an_entry() {
        assert_eq!(
            parse_entries("First line\nsecond   line\n## Heading two\n# Skipped H1\n-\n*bold*\n_No entries yet._\n  indented plain"),
            vec![
                entry("First line", None, None),
                entry("second line", None, None),
                entry("## Heading two", None, None),
                entry("-", None, None),
                entry("*bold*", None, None),
                entry("indented plain", None, None),
            ]
        );
    }

    #[test]
    fn bullets_need_whitespace_after_marker() {
        assert_eq!(
            parse_entries("-\tTabbed bullet\n* star   bullet\n-not a bullet"),
            vec![
                entry("Tabbed bullet", None, None),
                entry("star bullet", None, None),
                entry("-not a bullet", None, None),
            ]
        );
    }

    #[test]
    fn indented_field_needs_two_leading_spaces() {
        // One space: after trimming it is a bullet, so a new entry.
        assert_eq!(
            parse_entries("A\n - Why: x"),
            vec![entry("A", None, None), entry("Why: x", None, None)]
        );
    }

    // --- Rendering ----------------------------------------------------------------------------

    #[test]
    fn render_empty_is_placeholder() {
        assert_eq!(render_body(&[]), "_No entries yet._");
        assert_eq!(
            render_document("type: user", &[]),
            "---\ntype: user\n---\n\n_No entries yet._\n"
        );
    }

    #[test]
    fn render_layout() {
        let entries = [
            entry("  One \n summary ", Some("because"), Some("like this")),
            entry("Two", None, Some("only how")),
            entry("Three", Some(""), None),
        ];
        assert_eq!(
            render_body(&entries),
            "One summary\n\nWhy: because\n\nHow to apply: like this\n\nTwo\n\nHow to apply: only how\n\nThree"
        );
    }

    #[test]
    fn merge_and_key() {
        let cur = entry("Old", Some("w1"), None);
        let inc = entry("New", Some("w2"), Some("h2"));
        assert_eq!(
            merge_entry(&cur, &inc),
            entry("New", Some("w1"), Some("h2"))
        );
        assert_eq!(
            merge_entry(&cur, &entry("", None, None)),
            entry("Old", Some("w1"), None)
        );
        assert_eq!(entry_key("  Use   RUST\tdaily "), "use rust daily");
        assert_eq!(entry_key("Ünïcode  ÄB"), "ünïcode äb");
    }

    // --- Writing ------------------------------------------------------------------------------

    #[test]
    fn new_document_layout_and_round_trip() {
        let entries = [entry("Use pnpm", Some("lockfile"), Some("run pnpm i"))];
        let text = new_document(
            MemoryType::Project,
            "Package manager: pnpm",
            "yes",
            &[
                ("created", "2025-05-01T10:00:00Z"),
                ("session", "- 42"),
                ("commit", "0123456"),
                ("type", "user"),
                ("session", "dup"),
            ],
            &entries,
        );
        assert_eq!(
            text,
            "---\nname: Package manager \u{2014} pnpm\ndescription: yes\ntype: project\ncreated: \"2025-05-01T10:00:00Z\"\nsession: \"- 42\"\ncommit: \"0123456\"\n---\n\nUse pnpm\n\nWhy: lockfile\n\nHow to apply: run pnpm i\n"
        );
        let d = doc(&text);
        assert_eq!(d.title, "Package manager \u{2014} pnpm");
        assert_eq!(d.description, "yes");
        assert_eq!(frontmatter_value(&d, "session"), Some("- 42"));
        assert_eq!(frontmatter_value(&d, "commit"), Some("0123456"));
        assert_eq!(parse_entries(&d.body), entries);
    }

    #[test]
    fn plain_field_adjusts_minimally() {
        assert_eq!(
            plain_field("Deploy: only from release branches"),
            "Deploy \u{2014} only from release branches"
        );
        assert_eq!(plain_field("Terse answers"), "Terse answers");
        assert_eq!(plain_field("  two\nlines\t "), "two lines");
        assert_eq!(plain_field("Note:"), "Note");
        assert_eq!(plain_field("issue #12 and a#b"), "issue \u{ff03}12 and a#b");
        assert_eq!(plain_field("[WIP] thing"), "\u{ff3b}WIP] thing");
        assert_eq!(plain_field("\"quoted\" title"), "\u{ff02}quoted\" title");
        assert_eq!(plain_field("- dash"), "\u{ff0d} dash");
        assert_eq!(plain_field("-flag"), "-flag");
        assert_eq!(plain_field("团队: 记忆"), "团队 \u{2014} 记忆");
        assert_eq!(plain_field("http://x.y/z"), "http://x.y/z");
    }

    #[test]
    fn set_frontmatter_value_keeps_other_lines() {
        let fm = "name: A # keep\ncommit: old\n  # under commit\nkeywords:\n  - \"x\"";
        assert_eq!(
            set_frontmatter_value(fm, "commit", "abc: def"),
            "name: A # keep\ncommit: \"abc: def\"\nkeywords:\n  - \"x\""
        );
        assert_eq!(
            set_frontmatter_value(fm, "session", "s1"),
            format!("{fm}\nsession: s1")
        );
        assert_eq!(set_frontmatter_value("", "k", "v"), "k: v");
    }

    // --- Properties ---------------------------------------------------------------------------

    fn text_strategy() -> impl Strategy<Value = String> {
        prop::collection::vec("[a-zA-Z0-9.,'()#:_*é😀中-]{1,8}", 1..6).prop_map(|w| w.join(" "))
    }

    fn summary_strategy() -> impl Strategy<Value = String> {
        text_strategy().prop_filter(
            "summary must not look like a field, bullet or heading",
            |s| {
                top_level_field(s).is_none()
                    && bullet_text(s).is_none()
                    && !s.starts_with("# ")
                    && s != NO_ENTRIES
            },
        )
    }

    fn entry_strategy() -> impl Strategy<Value = Entry> {
        (
            summary_strategy(),
            prop::option::of(text_strategy()),
            prop::option::of(text_strategy()),
        )
            .prop_map(|(summary, why, how_to_apply)| Entry {
                summary,
                why,
                how_to_apply,
            })
    }

    fn value_strategy() -> impl Strategy<Value = String> {
        "[ -~\\x{a0}-\\x{3000}\\n\\t\\x{1F600}\\x{FFFE}\\x{85}\\x{2028}]{1,24}"
            .prop_map(|s| js_trim(&s).to_string())
            .prop_filter("readers trim; empty values do not round trip", |s| {
                !s.is_empty()
            })
    }

    proptest! {
        #[test]
        fn prop_render_parse_round_trip(entries in prop::collection::vec(entry_strategy(), 0..6)) {
            prop_assert_eq!(parse_entries(&render_body(&entries)), entries);
        }

        #[test]
        fn prop_parse_document_never_panics(text in "\\PC{0,300}") {
            let _ = parse_document(&text);
            let _ = parse_entries(&text);
        }

        #[test]
        fn prop_parse_document_never_panics_on_cjk(
            text in crate::text::FUZZ_CJK,
            fm in crate::text::FUZZ_CJK,
        ) {
            let _ = parse_document(&text);
            let _ = parse_entries(&text);
            let _ = parse_document(&format!("---\nname: {fm}\ndescription: {fm}\ntype: project\n---\n{text}"));
        }

        #[test]
        fn prop_parse_framed_yaml_never_panics(
            fm in "[a-z:#\\- \\[\\]{}\"'\\n\\t&*!|>0-9?,\\\\]{0,200}",
            body in "\\PC{0,100}",
        ) {
            let text = format!("---\n{fm}\n---\n{body}");
            if let Ok(d) = parse_document(&text) {
                // The block ends at the first `\n---`, which the generated text may contain.
                prop_assert!(fm.starts_with(&d.frontmatter));
            }
        }

        #[test]
        fn prop_new_document_round_trip(
            t in 0usize..4,
            name in value_strategy(),
            description in value_strategy(),
            created in value_strategy(),
            session in value_strategy(),
            commit in value_strategy(),
            entries in prop::collection::vec(entry_strategy(), 0..3),
        ) {
            let memory_type = MemoryType::ALL[t];
            let extra = [("created", created.as_str()), ("session", session.as_str()), ("commit", commit.as_str())];
            let text = new_document(memory_type, &name, &description, &extra, &entries);
            let d = parse_document(&text).map_err(|e| TestCaseError::fail(format!("{e}: {text:?}")))?;
            prop_assert_eq!(d.memory_type, memory_type);
            // Written plain, and read the same by the line reader and by YAML.
            let plain_name = plain_field(&name);
            let plain_description = plain_field(&description);
            prop_assert_eq!(&d.title, &plain_name);
            prop_assert_eq!(&d.description, &plain_description);
            if !plain_name.is_empty() && !plain_description.is_empty() {
                let fm = yaml::parse_frontmatter(&d.frontmatter);
                prop_assert!(!fm.lenient, "{:?}", d.frontmatter);
                // Numbers, booleans and null are the only non-strings YAML may see here; the
                // line reader is what both tools use for these keys.
                for (key, want) in [("name", &plain_name), ("description", &plain_description)] {
                    if let Some(yaml::Value::String(got)) = fm.get(key) {
                        prop_assert_eq!(got, want);
                    }
                }
            }
            let want: Vec<(String, String)> = extra.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
            prop_assert_eq!(&d.extra, &want);
            prop_assert_eq!(parse_entries(&d.body), entries);
        }
    }
}
