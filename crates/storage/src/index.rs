//! The MEMORY.md index: byte-identical to what Qwen Code 0.24.4 writes (docs/DESIGN.md,
//! "MEMORY.md index").
//!
//! Everything here is a pure function of the scanned documents: the caller writes the result
//! atomically. The index has no header and **no trailing newline**; an empty memory gives an
//! empty file. Lengths are counted in UTF-16 code units and cuts are made there, as the
//! JavaScript indexer makes them (a cut through a surrogate pair leaves U+FFFD, which is what
//! Node writes for the lone half). Path targets keep only the first 120 code points.
//!
//! Private and user roots list the newest 200 documents (ties by file name in ICU root
//! collation, as JavaScript's `localeCompare`); the team root lists the first 200 by path,
//! grouped by description; the repository root lists the first 200 by path, one per line.

use std::collections::HashMap;
use std::fmt::Write as _;

use crate::formats::doc::MemoryType;
use crate::formats::secrets;
use crate::formats::text::{is_js_whitespace, utf16_len};
pub use crate::scan::{cmp_utf16, locale_compare, IndexOrder};
use crate::scan::{sort_doc_refs, ScannedDoc};

/// Longest line, in UTF-16 units; a longer one is cut (even through its link).
pub const MAX_LINE_UNITS: usize = 150;
/// Most documents an index lists (and most lines it keeps).
pub const MAX_LINES: usize = 200;
/// Largest index body, in UTF-16 units, not counting the warning notice.
pub const MAX_BYTES: usize = 25_000;
/// Cap on a sanitized title or description, in UTF-16 units.
pub const FIELD_LIMIT: usize = 120;
/// Most code points of a relative path that go into a link target.
pub const PATH_LIMIT: usize = 120;
/// Between the link and the description: space, U+2014 em dash, space.
pub const HOOK_SEPARATOR: &str = " \u{2014} ";
/// Opens the list of other paths sharing a team line's description.
const ALSO_OPENER: &str = " (also: ";
/// The line that says content was dropped to respect the budgets. Never silent.
pub const WARNING_LINE: &str = "> WARNING: MEMORY.md is too large; only part of it was written. \
Keep index entries concise and move detail into topic files.";
/// What is appended to the kept lines when anything was dropped: a blank line, then
/// [`WARNING_LINE`].
pub const WARNING_NOTICE: &str = "\n\n> WARNING: MEMORY.md is too large; only part of it was \
written. Keep index entries concise and move detail into topic files.";
/// The index never ends with a newline (Qwen Code writes it that way).
pub const ENDS_WITH_NEWLINE: bool = false;

/// Which indexer a root uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndexKind {
    /// Private and user roots: Qwen Code's managed index.
    Newest,
    /// Team root: Qwen Code's team index (by path, grouped by description).
    Team,
    /// Repository root: the managed line format in path order.
    Repository,
}

/// `s` cut to its first `max` UTF-16 units; a surrogate pair split by the cut leaves U+FFFD.
fn cut_utf16(s: &str, max: usize) -> String {
    let units: Vec<u16> = s.encode_utf16().take(max).collect();
    String::from_utf16_lossy(&units)
}

/// JavaScript's `s.length <= limit ? s : s.slice(0, limit - 1).trimEnd() + "…"`.
fn cut_with_ellipsis(s: String, limit: usize) -> String {
    if utf16_len(&s) <= limit {
        return s;
    }
    let head = cut_utf16(&s, limit - 1);
    format!("{}\u{2026}", head.trim_end_matches(is_js_whitespace))
}

/// Cleans a title or description for one index line: controls become spaces, zero-width and
/// bidi controls, tag characters and the other hidden characters of
/// [`crate::formats::sanitize`] vanish, backticks become `'`, `](` becomes `] (` (so a field cannot close the
/// link), whitespace runs become one space, and the result is capped at [`FIELD_LIMIT`] units.
pub fn sanitize_index_field(s: &str) -> String {
    let mut cleaned = String::with_capacity(s.len());
    for c in s.chars() {
        let cp = c as u32;
        if cp <= 0x1F || (0x7F..=0x9F).contains(&cp) {
            cleaned.push(' ');
        } else if matches!(cp, 0x200B..=0x200F | 0x202A..=0x202E | 0x2066..=0x2069 | 0xFEFF)
            || crate::formats::sanitize::classify(c)
                .is_some_and(|k| k != crate::formats::sanitize::HiddenKind::Control)
        {
            // Qwen's list, plus every other hidden character of the one sanitiser (tag
            // characters, invisible format characters, separators): docs/DESIGN.md, "Security".
            continue;
        } else if c == '`' {
            cleaned.push('\'');
        } else {
            cleaned.push(c);
        }
    }
    let cleaned = cleaned.replace("](", "] (");
    let mut collapsed = String::with_capacity(cleaned.len());
    let mut in_space = false;
    for c in cleaned.chars() {
        if is_js_whitespace(c) {
            in_space = true;
        } else {
            if in_space && !collapsed.is_empty() {
                collapsed.push(' ');
            }
            in_space = false;
            collapsed.push(c);
        }
    }
    cut_with_ellipsis(collapsed, FIELD_LIMIT)
}

/// Percent-encodes the first [`PATH_LIMIT`] code points of a relative path for a Markdown link
/// target: `/`, ASCII letters and digits and `._~-` stay, every other character becomes its
/// UTF-8 bytes as uppercase `%XX`.
pub fn encode_path_target(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for c in path.chars().take(PATH_LIMIT) {
        if c.is_ascii_alphanumeric() || matches!(c, '/' | '.' | '_' | '~' | '-') {
            out.push(c);
        } else {
            let mut buf = [0u8; 4];
            for b in c.encode_utf8(&mut buf).bytes() {
                let _ = write!(out, "%{b:02X}");
            }
        }
    }
    out
}

fn non_empty_or_type(s: String, memory_type: MemoryType) -> String {
    if s.is_empty() {
        memory_type.as_str().to_string()
    } else {
        s
    }
}

/// `- [<title>](<target>) — <description>` before the line cut; empty fields show the type.
fn raw_line(
    title: &str,
    description: &str,
    memory_type: MemoryType,
    relative_path: &str,
) -> String {
    let title = non_empty_or_type(sanitize_index_field(title), memory_type);
    let description = non_empty_or_type(sanitize_index_field(description), memory_type);
    format!(
        "- [{title}]({}){HOOK_SEPARATOR}{description}",
        encode_path_target(relative_path)
    )
}

/// One index line, at most [`MAX_LINE_UNITS`] UTF-16 units (a longer line is cut to 149 units,
/// right-trimmed, and ends in `…`, even when that cuts the link).
pub fn index_line(
    title: &str,
    description: &str,
    memory_type: MemoryType,
    relative_path: &str,
) -> String {
    cut_with_ellipsis(
        raw_line(title, description, memory_type, relative_path),
        MAX_LINE_UNITS,
    )
}

/// Joins index lines within the budgets: the first [`MAX_LINES`] lines; when those exceed
/// [`MAX_BYTES`] UTF-16 units, the text is cut at the last newline at or before that unit.
/// When anything was dropped, [`WARNING_NOTICE`] is appended. No lines give `""`; the result
/// never ends with a newline.
pub fn assemble(lines: &[String]) -> String {
    let dropped_lines = lines.len() > MAX_LINES;
    let kept = &lines[..lines.len().min(MAX_LINES)];
    let body = kept.join("\n");
    let units: Vec<u16> = body.encode_utf16().collect();
    if units.len() <= MAX_BYTES && !dropped_lines {
        return body;
    }
    let mut text = body;
    if units.len() > MAX_BYTES {
        // lastIndexOf("\n", MAX_BYTES): a newline starting at or before that unit.
        let search_end = MAX_BYTES.min(units.len() - 1);
        let cut_at = units[..=search_end]
            .iter()
            .rposition(|&u| u == u16::from(b'\n'))
            .filter(|&i| i > 0)
            .unwrap_or(MAX_BYTES);
        text = String::from_utf16_lossy(&units[..cut_at]);
    }
    text.push_str(WARNING_NOTICE);
    text
}

/// The whole MEMORY.md text of a root of this kind, from all its documents (any order).
pub fn build(docs: &[ScannedDoc], kind: IndexKind) -> String {
    match kind {
        IndexKind::Newest => build_index(docs, IndexOrder::NewestFirst),
        IndexKind::Repository => build_index(docs, IndexOrder::ByPath),
        IndexKind::Team => build_team_index(docs),
    }
}

/// The first [`MAX_LINES`] documents in `order`, one line each, within the budgets (see
/// [`assemble`]). Zero documents give `""`.
///
/// A line that would show a secret (in its sanitized title, description or path) is left out:
/// the scan runs on the line as written, after sanitizing, so removing invisible characters
/// cannot re-assemble a token. `check` reports such documents.
pub fn build_index(docs: &[ScannedDoc], order: IndexOrder) -> String {
    let mut sorted: Vec<&ScannedDoc> = docs.iter().collect();
    sort_doc_refs(&mut sorted, order);
    let mut memo = crate::scan::parsed_in_process().then(|| {
        LINES
            .get_or_init(LineMemo::default)
            .lock()
            .unwrap_or_else(|p| p.into_inner())
    });
    if let Some(m) = memo.as_mut().filter(|m| m.len() >= LINES_MAX) {
        m.clear();
    }
    let mut lines = Vec::with_capacity(MAX_LINES);
    let mut listed = 0;
    for d in sorted {
        if listed == MAX_LINES {
            break;
        }
        let shown = match memo.as_mut() {
            Some(memo) => {
                let hit = memo.get(&d.path).filter(|l| l.is_of(d));
                match hit {
                    Some(l) => l.shown.clone(),
                    None => {
                        let l = MemoLine::of(d);
                        let shown = l.shown.clone();
                        memo.insert(d.path.clone(), l);
                        shown
                    }
                }
            }
            None => shown_line(d),
        };
        // A path holding a secret takes no place in the index; a line holding one takes its
        // place and is left out (as upstream cuts to 200 documents before it renders them).
        let Some(line) = shown else {
            continue;
        };
        listed += 1;
        lines.extend(line);
    }
    assemble(&lines)
}

/// What the index shows of one document: `None` when its path holds a secret (it is not
/// listed at all), else its line, `None` when the line holds a secret.
fn shown_line(d: &ScannedDoc) -> Option<Option<String>> {
    if secrets::contains_secret(&d.relative_path) {
        return None;
    }
    let line = index_line(&d.title, &d.description, d.memory_type, &d.relative_path);
    Some((!line_has_secret(&line)).then_some(line))
}

/// One document's [`shown_line`], with the fields it is a pure function of.
struct MemoLine {
    title: String,
    description: String,
    memory_type: MemoryType,
    relative_path: String,
    shown: Option<Option<String>>,
}

impl MemoLine {
    fn of(d: &ScannedDoc) -> MemoLine {
        MemoLine {
            title: d.title.clone(),
            description: d.description.clone(),
            memory_type: d.memory_type,
            relative_path: d.relative_path.clone(),
            shown: shown_line(d),
        }
    }

    fn is_of(&self, d: &ScannedDoc) -> bool {
        self.memory_type == d.memory_type
            && self.relative_path == d.relative_path
            && self.title == d.title
            && self.description == d.description
    }
}

/// In a long-lived process (`scan::keep_parsed_in_process`, the MCP server), each document's
/// index line by absolute path, reused while its title, description, type and path are the
/// ones it was rendered from: rebuilding `MEMORY.md` after one change then renders and
/// secret-scans only the changed document's line, and writes the same bytes.
type LineMemo = std::sync::Mutex<HashMap<std::path::PathBuf, MemoLine>>;

static LINES: std::sync::OnceLock<LineMemo> = std::sync::OnceLock::new();

/// More lines than this are forgotten at once (a process that saw many roots).
const LINES_MAX: usize = 50_000;

/// `docs` in `order` (borrowed, never copied), those whose path holds a secret left out.
/// Lazy: the caller takes the first [`MAX_LINES`], so only those paths are scanned (the sort is
/// stable, so filtering after it keeps the order filtering before it gives).
fn without_secret_paths(
    docs: &[ScannedDoc],
    order: IndexOrder,
) -> impl Iterator<Item = &ScannedDoc> {
    let mut sorted: Vec<&ScannedDoc> = docs.iter().collect();
    sort_doc_refs(&mut sorted, order);
    sorted
        .into_iter()
        .filter(|d| !secrets::contains_secret(&d.relative_path))
}

/// Index lines come from files on disk, so a reviewed `qwen-memory:allow` still counts.
fn line_has_secret(line: &str) -> bool {
    secrets::contains_secret_as(line, secrets::Origin::Person)
}

/// The grouping key of a team line: description lowercased, whitespace collapsed, trailing
/// punctuation stripped. Empty means "groups with nothing".
fn group_key(description: &str) -> String {
    let lower = description.to_lowercase();
    let collapsed = crate::formats::text::collapse_whitespace(&lower);
    collapsed
        .trim_end_matches(|c: char| ".,;:!?)]}'\"`".contains(c))
        .trim_matches(is_js_whitespace)
        .to_string()
}

/// The index of a team memory root, as Qwen Code's team indexer writes it: the first
/// [`MAX_LINES`] documents by path; documents whose normalized descriptions match share one
/// line, the first by path as primary and the others listed in ` (also: …)`; each line cut to
/// [`MAX_LINE_UNITS`].
pub fn build_team_index(docs: &[ScannedDoc]) -> String {
    let mut groups: Vec<Vec<&ScannedDoc>> = Vec::new();
    let mut by_key: HashMap<String, usize> = HashMap::new();
    for doc in without_secret_paths(docs, IndexOrder::ByPath).take(MAX_LINES) {
        let key = group_key(&doc.description);
        match by_key.get(&key) {
            Some(&g) if !key.is_empty() => groups[g].push(doc),
            _ => {
                if !key.is_empty() {
                    by_key.insert(key, groups.len());
                }
                groups.push(vec![doc]);
            }
        }
    }
    let lines: Vec<String> = groups
        .iter()
        .map(|members| {
            let primary = members[0];
            let mut line = raw_line(
                &primary.title,
                &primary.description,
                primary.memory_type,
                &primary.relative_path,
            );
            if members.len() > 1 {
                let also: Vec<String> = members[1..]
                    .iter()
                    .map(|d| encode_path_target(&d.relative_path))
                    .collect();
                line.push_str(ALSO_OPENER);
                line.push_str(&also.join(", "));
                line.push(')');
            }
            cut_with_ellipsis(line, MAX_LINE_UNITS)
        })
        .filter(|line| !line_has_secret(line))
        .collect();
    assemble(&lines)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scan::{sort_docs, Scope};
    use proptest::prelude::*;
    use std::path::PathBuf;

    fn doc(rel: &str, title: &str, desc: &str, mtime_ms: f64) -> ScannedDoc {
        ScannedDoc {
            scope: Scope::Private,
            memory_type: MemoryType::Feedback,
            path: PathBuf::from("/m").join(rel),
            relative_path: rel.to_string(),
            title: title.to_string(),
            description: desc.to_string(),
            body: String::new(),
            mtime_ms,
            extra: Vec::new(),
        }
    }

    fn rep(c: char, n: usize) -> String {
        std::iter::repeat_n(c, n).collect()
    }

    #[test]
    fn constants_agree() {
        assert_eq!(WARNING_NOTICE, format!("\n\n{WARNING_LINE}"));
        const { assert!(!ENDS_WITH_NEWLINE) };
        assert_eq!(utf16_len(HOOK_SEPARATOR), 3);
    }

    #[test]
    fn compact_line_and_type_fallback() {
        assert_eq!(
            index_line(
                "User Memory",
                "User profile",
                MemoryType::User,
                "user/terse.md"
            ),
            "- [User Memory](user/terse.md) \u{2014} User profile"
        );
        assert_eq!(
            index_line(" \u{200b} ", "\n", MemoryType::Project, "p.md"),
            "- [project](p.md) \u{2014} project"
        );
    }

    #[test]
    fn sanitizer_cases() {
        assert_eq!(sanitize_index_field("a\u{7}b"), "a b");
        assert_eq!(sanitize_index_field("a\u{85}b\u{9f}c"), "a b c");
        assert_eq!(
            sanitize_index_field("a\u{200b}b\u{200f}c\u{202e}d\u{2067}e\u{feff}f"),
            "abcdef"
        );
        // Beyond Qwen's list: the word joiner and tag characters are removed too
        // (docs/DESIGN.md, "Security"); U+2028 is whitespace as before.
        assert_eq!(sanitize_index_field("a\u{2060}b"), "ab");
        assert_eq!(sanitize_index_field("a\u{e0069}\u{e0067}b"), "ab");
        assert_eq!(sanitize_index_field("a\u{2028}b"), "a b");
        assert_eq!(sanitize_index_field("use `cargo`"), "use 'cargo'");
        assert_eq!(sanitize_index_field("x](http://evil)"), "x] (http://evil)");
        assert_eq!(sanitize_index_field("a]\u{200b}(b"), "a] (b");
        assert_eq!(sanitize_index_field("  a \n\n # S\t b\u{3000} "), "a # S b");
        // Quotes are text.
        assert_eq!(sanitize_index_field("\"Deploy: now\""), "\"Deploy: now\"");
    }

    #[test]
    fn field_cut_is_in_utf16_units_without_word_boundaries() {
        assert_eq!(sanitize_index_field(&rep('a', 120)), rep('a', 120));
        let cut = sanitize_index_field(&rep('a', 121));
        assert_eq!(cut, format!("{}\u{2026}", rep('a', 119)));
        // Right-trimmed before the ellipsis; no backing off to a word boundary.
        let words = format!("{} {}", rep('w', 118), rep('x', 10));
        assert_eq!(
            sanitize_index_field(&words),
            format!("{}\u{2026}", rep('w', 118))
        );
        // 118 + an astral char (2 units) + more: the cut at 119 splits the pair, which Node
        // writes as U+FFFD.
        let astral = format!("{}\u{1F600}zz", rep('a', 118));
        assert_eq!(
            sanitize_index_field(&astral),
            format!("{}\u{FFFD}\u{2026}", rep('a', 118))
        );
        // CJK counts one unit per character.
        let cjk = rep('记', 130);
        assert_eq!(
            sanitize_index_field(&cjk),
            format!("{}\u{2026}", rep('记', 119))
        );
    }

    #[test]
    fn path_encoding_keeps_only_ascii_unreserved() {
        assert_eq!(
            encode_path_target("feedback/a(b).md"),
            "feedback/a%28b%29.md"
        );
        assert_eq!(
            encode_path_target("feedback/团队.md"),
            "feedback/%E5%9B%A2%E9%98%9F.md"
        );
        assert_eq!(encode_path_target("a b.md"), "a%20b.md");
        assert_eq!(encode_path_target("100%.md"), "100%25.md");
        assert_eq!(encode_path_target("\u{1F600}.md"), "%F0%9F%98%80.md");
        assert_eq!(encode_path_target("café"), "caf%C3%A9");
        assert_eq!(encode_path_target("A-z_0.9~/x"), "A-z_0.9~/x");
        // Only the first 120 code points (an astral char is one).
        let long = format!("{}{}", rep('\u{1F600}', 1), rep('p', 200));
        let enc = encode_path_target(&long);
        assert_eq!(enc, format!("%F0%9F%98%80{}", rep('p', 119)));
    }

    #[test]
    fn long_lines_are_cut_even_through_the_link() {
        let path = format!("{}/{}.md", rep('p', 140), rep('s', 10));
        let line = index_line("T", &rep('d', 30), MemoryType::User, &path);
        assert_eq!(
            line,
            format!("- [T]({}) \u{2014} {}\u{2026}", rep('p', 120), rep('d', 19))
        );
        assert_eq!(utf16_len(&line), 150);
        let line = index_line(&rep('T', 120), "desc", MemoryType::User, &path);
        assert_eq!(
            line,
            format!("- [{}]({}\u{2026}", rep('T', 120), rep('p', 24))
        );
        // The field cut trims before its ellipsis.
        let desc = format!("{} {}", rep('d', 132), rep('e', 20));
        let line = index_line("t", &desc, MemoryType::User, "a.md");
        assert_eq!(
            line,
            format!("- [t](a.md) \u{2014} {}\u{2026}", rep('d', 119))
        );
        // A space at the line cut is trimmed too, so the line ends up shorter than 150.
        let q = format!("{}.md", rep('q', 27));
        let desc = format!("{} {}", rep('d', 108), rep('e', 11));
        let line = index_line("t", &desc, MemoryType::User, &q);
        assert_eq!(
            line,
            format!("- [t]({q}) \u{2014} {}\u{2026}", rep('d', 108))
        );
        assert_eq!(utf16_len(&line), 149);
    }

    #[test]
    fn assemble_budgets() {
        assert_eq!(assemble(&[]), "");
        let many: Vec<String> = (0..201).map(|i| format!("- line {i}")).collect();
        let out = assemble(&many);
        assert_eq!(out, format!("{}{WARNING_NOTICE}", many[..200].join("\n")));
        assert_eq!(assemble(&many[..200]), many[..200].join("\n"));
        // Exactly 25,000 units fit.
        assert_eq!(assemble(&[rep('a', 25_000)]), rep('a', 25_000));
        // Counted in units, not bytes: 12,500 two-byte chars fit with a second line.
        let wide = vec![rep('é', 12_500), rep('x', 12_499)];
        assert_eq!(assemble(&wide), wide.join("\n"));
        // Over the budget: cut at the last newline at or before unit 25,000.
        let lines = vec![rep('a', 20_000), rep('b', 4_999), rep('c', 10)];
        assert_eq!(
            assemble(&lines),
            format!("{}\n{}{WARNING_NOTICE}", lines[0], lines[1])
        );
        // A newline exactly at unit 25,000 is a valid cut point.
        let lines = vec![rep('a', 25_000), rep('b', 3)];
        assert_eq!(assemble(&lines), format!("{}{WARNING_NOTICE}", lines[0]));
        // No newline at all: cut at 25,000 units.
        assert_eq!(
            assemble(&[rep('a', 25_001)]),
            format!("{}{WARNING_NOTICE}", rep('a', 25_000))
        );
    }

    #[test]
    fn newest_first_ties_use_icu_root_collation() {
        let names = [
            "b.md", "B.md", "a.md", "_x.md", "10.md", "9.md", "中.md", "á.md",
        ];
        let mut docs: Vec<ScannedDoc> = names.iter().map(|n| doc(n, "", "", 5.0)).collect();
        docs.push(doc("new.md", "", "", 9.5));
        docs.push(doc("old.md", "", "", 1.0));
        sort_docs(&mut docs, IndexOrder::NewestFirst);
        let order: Vec<&str> = docs.iter().map(|d| d.relative_path.as_str()).collect();
        // What Node 20's `localeCompare` gives in the C/English locales.
        assert_eq!(
            order,
            [
                "new.md", "_x.md", "10.md", "9.md", "a.md", "á.md", "b.md", "B.md", "中.md",
                "old.md"
            ]
        );
        // Equal under collation (an ignorable zero-width space): path order decides.
        let mut docs = vec![doc("z/a\u{200b}.md", "", "", 1.0), doc("a.md", "", "", 1.0)];
        sort_docs(&mut docs, IndexOrder::NewestFirst);
        assert_eq!(docs[0].relative_path, "a.md");
        assert_eq!(
            locale_compare("a\u{200b}.md", "a.md"),
            std::cmp::Ordering::Equal
        );
    }

    #[test]
    fn only_the_newest_200_are_listed_without_a_warning() {
        let docs: Vec<ScannedDoc> = (0..210)
            .map(|i| doc(&format!("f/{i:03}.md"), &format!("t{i}"), "d", f64::from(i)))
            .collect();
        let out = build_index(&docs, IndexOrder::NewestFirst);
        let lines: Vec<&str> = out.split('\n').collect();
        assert_eq!(lines.len(), 200);
        assert!(lines[0].contains("(f/209.md)"));
        assert!(lines[199].contains("(f/010.md)"));
        assert!(!out.contains("WARNING"));
    }

    #[test]
    fn by_path_uses_utf16_order() {
        // U+FF5E (3 bytes, one unit) sorts after an astral char (4 bytes, a surrogate pair
        // starting 0xD8xx) in UTF-16 order, but before it in byte order.
        let docs = vec![
            doc("\u{ff5e}.md", "A", "", 1.0),
            doc("\u{1F600}.md", "B", "", 2.0),
            doc("Z.md", "Z", "", 3.0),
        ];
        let out = build_index(&docs, IndexOrder::ByPath);
        let titles: Vec<&str> = out.split('\n').map(|l| &l[3..4]).collect();
        assert_eq!(titles, ["Z", "B", "A"]);
    }

    #[test]
    fn team_grouping() {
        let docs = vec![
            doc("b.md", "B", "Shared fact.", 1.0),
            doc("a.md", "A", "shared   FACT", 1.0),
            doc("c.md", "C", "other", 1.0),
            doc("d.md", "D", "", 1.0),
            doc("e.md", "E", "", 1.0),
        ];
        let out = build_team_index(&docs);
        assert_eq!(
            out.split('\n').collect::<Vec<_>>(),
            [
                "- [A](a.md) \u{2014} shared FACT (also: b.md)",
                "- [C](c.md) \u{2014} other",
                "- [D](d.md) \u{2014} feedback",
                "- [E](e.md) \u{2014} feedback",
            ]
        );
        // The whole line, `(also: …)` included, is cut at 150 units.
        let docs = vec![
            doc("a.md", "A", "same", 1.0),
            doc(&format!("b{}.md", rep('x', 130)), "B", "same", 1.0),
            doc("c.md", "C", "same", 1.0),
        ];
        let out = build_team_index(&docs);
        assert_eq!(utf16_len(&out), 150);
        assert!(out.starts_with("- [A](a.md) \u{2014} same (also: bxxx"));
        assert!(out.ends_with('\u{2026}'));
    }

    /// The index without any memo: each document's line rendered and scanned now.
    fn rendered_now(docs: &[ScannedDoc], order: IndexOrder) -> String {
        let mut sorted = docs.to_vec();
        sort_docs(&mut sorted, order);
        let lines: Vec<String> = sorted
            .iter()
            .filter(|d| !secrets::contains_secret(&d.relative_path))
            .take(MAX_LINES)
            .map(|d| index_line(&d.title, &d.description, d.memory_type, &d.relative_path))
            .filter(|line| !line_has_secret(line))
            .collect();
        assemble(&lines)
    }

    #[test]
    fn kept_lines_follow_every_change_of_a_document() {
        // As in the MCP server: lines are kept per document between builds.
        crate::scan::keep_parsed_in_process();
        let token = format!("ghp_{}", "Zq9Xw8Vu7Ts6Rp5On4Ml3Kj2Ih1Gf0EdCbAz");
        let mut docs: Vec<ScannedDoc> = (0..250)
            .map(|i| {
                doc(
                    &format!("kept/d{i:03}.md"),
                    &format!("T{i}"),
                    "d",
                    f64::from(i),
                )
            })
            .collect();
        let check = |docs: &[ScannedDoc]| {
            for order in [IndexOrder::NewestFirst, IndexOrder::ByPath] {
                assert_eq!(build_index(docs, order), rendered_now(docs, order));
            }
            build_index(docs, IndexOrder::NewestFirst)
        };
        let first = check(&docs);
        // Each field a line is made of, changed under the same path, changes the line.
        docs[249].title = "Renamed".into();
        docs[248].description = "described again".into();
        docs[247].memory_type = MemoryType::Project;
        let changed = check(&docs);
        assert_ne!(changed, first);
        assert!(changed.contains("[Renamed]") && changed.contains("described again"));
        // A secret that appears in a kept line's description leaves the line out; in a path,
        // the document gives up its place to the next one.
        docs[246].description = format!("uses {token}");
        let out = check(&docs);
        assert!(!out.contains("ghp_") && !out.contains("[T246]") && !out.contains("[T49]"));
        docs[245].relative_path = format!("kept/{token}.md");
        let out = check(&docs);
        assert!(!out.contains("ghp_") && out.contains("[T49]"), "{out}");
    }

    proptest! {
        #[test]
        fn lines_and_budgets_hold(
            specs in prop::collection::vec(
                (".{1,80}", ".{0,200}", ".{0,200}", 0u32..5), 0..40),
        ) {
            let docs: Vec<ScannedDoc> = specs
                .iter()
                .map(|(p, t, d, m)| doc(p, t, d, f64::from(*m)))
                .collect();
            for out in [
                build_index(&docs, IndexOrder::NewestFirst),
                build_index(&docs, IndexOrder::ByPath),
                build_team_index(&docs),
            ] {
                prop_assert!(!out.ends_with('\n'));
                prop_assert!(utf16_len(&out) <= MAX_BYTES + WARNING_NOTICE.len());
                for line in out.split('\n').filter(|l| l.starts_with("- [")) {
                    prop_assert!(utf16_len(line) <= MAX_LINE_UNITS);
                }
            }
        }
    }
}
