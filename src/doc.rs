//! Topic documents: YAML frontmatter plus a body of entries (SPEC §4.1, reference qwen-storage §3).

use std::fmt;

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
}

/// The body placeholder written when a document has no entries.
pub const NO_ENTRIES: &str = "_No entries yet._";

/// Keys that have their own [`TopicDocument`] field and are therefore not in `extra`.
const OWN_KEYS: [&str; 4] = ["name", "title", "description", "type"];

/// Parses a topic document (SPEC §4.1, reference qwen-storage §3.3–3.5).
///
/// CRLF is read as LF (a lone CR is not, so CR-only files have no frontmatter). One leading
/// UTF-8 BOM is ignored (SPEC; upstream rejects it). The file must then begin with `---\n`; the
/// frontmatter runs to the first `\n---`, after which one optional `\n` is consumed and the rest,
/// JS-trimmed, is the body. Callers holding bytes that may not be UTF-8 pass
/// `String::from_utf8_lossy` text.
///
/// `extra` holds the other top-level keys whose value is a scalar (stringified as upstream's
/// `stringValue`: strings trimmed, numbers and booleans in their JavaScript form, empty strings
/// left out). List and map values are left out of `extra`; read lists with
/// [`frontmatter_list`]. Every key stays in `frontmatter`, byte for byte.
pub fn parse_document(text: &str) -> Result<TopicDocument, DocError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
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

    let fm = yaml::parse_frontmatter(frontmatter);
    if fm.entries.is_empty() {
        return Err(DocError::MalformedFrontmatter);
    }
    let memory_type = string_value(fm.get("type"))
        .and_then(|t| MemoryType::parse(&t))
        .ok_or(DocError::InvalidType)?;
    let title = string_value(fm.get("name"))
        .or_else(|| string_value(fm.get("title")))
        .unwrap_or_else(|| memory_type.as_str().to_string());
    let description = string_value(fm.get("description")).unwrap_or_default();
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
        format!("name: {}", yaml::quote_scalar(name)),
        format!("description: {}", yaml::quote_scalar(description)),
        format!("type: {}", memory_type.as_str()),
    ];
    let mut seen: Vec<&str> = OWN_KEYS.to_vec();
    for (key, value) in extra {
        if key.is_empty() || seen.contains(key) {
            continue;
        }
        seen.push(key);
        lines.push(format!(
            "{}: {}",
            yaml_key(key),
            yaml::quote_scalar(value)
        ));
    }
    render_document(&lines.join("\n"), entries)
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

/// Parses body entries as upstream's entries.ts does (reference qwen-storage §3.6), with one
/// deliberate difference required by SPEC §4.1: the bold-colon form `**Why:** reason` gives
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
            summary: normalize_text(summary),
            why: None,
            how_to_apply: None,
        });
    }
    entries.extend(open);
    entries
}

fn set_field(entry: &mut Entry, field: Field, value: &str) {
    let value = Some(normalize_text(value));
    match field {
        Field::Why => entry.why = value,
        Field::HowToApply => entry.how_to_apply = value,
    }
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

/// `Why: x`, `**Why**: x`, `**Why:** x` (SPEC deviation: no `**` in the value), on the trimmed
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
    (!is_js_ws(first)).then_some(value)
}

/// The text after a `- ` / `* ` bullet marker (marker followed by whitespace).
fn bullet_text(line: &str) -> Option<&str> {
    let rest = line.strip_prefix(['-', '*'])?;
    let next = rest.chars().next()?;
    is_js_ws(next).then_some(rest)
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
        lines.push(normalize_text(&entry.summary));
        for (label, value) in [
            ("Why", &entry.why),
            ("How to apply", &entry.how_to_apply),
        ] {
            let value = value.as_deref().map(normalize_text).unwrap_or_default();
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

/// The dedupe key of an entry summary: whitespace collapsed (JS whitespace), lowercased.
pub fn entry_key(summary: &str) -> String {
    normalize_text(summary).to_lowercase()
}

// ---------------------------------------------------------------------------------------------
// JavaScript string semantics

/// JavaScript's whitespace set (`\s`, `trim()`): Unicode White_Space without U+0085, plus
/// U+FEFF.
fn is_js_ws(c: char) -> bool {
    (c.is_whitespace() && c != '\u{85}') || c == '\u{feff}'
}

/// JavaScript's `String.prototype.trim`.
fn js_trim(s: &str) -> &str {
    s.trim_matches(is_js_ws)
}

/// Upstream's `normalizeText`: JS-whitespace runs collapsed to one space, trimmed.
fn normalize_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for word in s.split(is_js_ws).filter(|w| !w.is_empty()) {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}
