//! The MEMORY.md index (SPEC §4.2, reference qwen-storage §5).
//!
//! Everything here is a pure function of the scanned documents: the caller writes the result
//! atomically. The index has no header and **no trailing newline** (as upstream); an empty
//! memory gives an empty file.
//!
//! Line lengths and field limits are counted in UTF-16 code units, as upstream counts them, so
//! lines look the same whichever tool wrote them. The total size budget is counted in UTF-8
//! bytes (SPEC §4.2 wins over the reference, which counts code units there too).

use std::cmp::Ordering;
use std::collections::HashMap;
use std::fmt::Write as _;

use crate::doc::MemoryType;
use crate::scan::ScannedDoc;
use crate::text::{collapse_whitespace, is_js_whitespace, truncate_utf16, utf16_len};

/// Longest line, in UTF-16 units. Only a link that is itself longer may exceed it.
pub const MAX_LINE_UNITS: usize = 150;
/// Most lines an index keeps.
pub const MAX_LINES: usize = 200;
/// Largest index body, in UTF-8 bytes, not counting the warning notice.
pub const MAX_BYTES: usize = 25_000;
/// Cap on a sanitized title or description, in UTF-16 units.
pub const FIELD_LIMIT: usize = 120;
/// A description that does not fit whole is only shown when at least this much room is left.
pub const MIN_HOOK_UNITS: usize = 24;
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
/// The index never ends with a newline (upstream writes it that way; keeping it avoids churn
/// when both tools rebuild the same file).
pub const ENDS_WITH_NEWLINE: bool = false;

/// How documents are ordered in an index (and in scans that reuse this order).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndexOrder {
    /// Private and user roots: newest mtime first; ties by file name compared
    /// case-insensitively (then byte order), then by relative path.
    NewestFirst,
    /// Repository root: relative path in byte order, so the index depends only on the
    /// committed files and is identical on every clone.
    ByPath,
}

/// Cleans a title or description for one index line: controls become spaces, invisible
/// format characters vanish, backticks become `'`, `](` becomes `] (` (so a field cannot
/// close the link), whitespace collapses, and the result is capped at [`FIELD_LIMIT`].
///
/// Upstream also strips lone surrogates; a Rust `str` cannot hold them.
pub fn sanitize_index_field(s: &str) -> String {
    let mut cleaned = String::with_capacity(s.len());
    for c in s.chars() {
        let cp = c as u32;
        if cp <= 0x1F || (0x7F..=0x9F).contains(&cp) {
            cleaned.push(' ');
        } else if matches!(cp, 0x200B..=0x200F | 0x202A..=0x202E | 0x2066..=0x2069 | 0xFEFF) {
            continue;
        } else if c == '`' {
            cleaned.push('\'');
        } else {
            cleaned.push(c);
        }
    }
    let cleaned = cleaned.replace("](", "] (");
    truncate_index_field(&collapse_whitespace(&cleaned), FIELD_LIMIT)
}

/// Shortens `s` to at most `limit` UTF-16 units, ending in `…`. Cuts at a word boundary
/// unless that would keep less than 60% of the limit (CJK or unbroken text), never splits a
/// character. A string that fits is returned unchanged.
pub fn truncate_index_field(s: &str, limit: usize) -> String {
    if utf16_len(s) <= limit {
        return s.to_string();
    }
    if limit == 0 {
        return String::new();
    }
    let head = truncate_utf16(s, limit - 1);
    let boundary = drop_partial_word(head).trim_end_matches(is_js_whitespace);
    let chosen = if utf16_len(boundary) as f64 >= 0.6 * limit as f64 {
        boundary
    } else {
        head
    };
    format!("{}\u{2026}", chosen.trim_end_matches(is_js_whitespace))
}

/// Removes the last whitespace run and the (partial) word after it; text without whitespace
/// is returned whole.
fn drop_partial_word(head: &str) -> &str {
    match head.rfind(is_js_whitespace) {
        Some(i) => head[..i].trim_end_matches(is_js_whitespace),
        None => head,
    }
}

/// Percent-encodes a relative path for a Markdown link target. Kept raw: `/`, ASCII letters,
/// digits and `._~-`, and BMP non-ASCII characters that are neither whitespace nor invisible
/// or format characters (so CJK paths stay readable). Everything else becomes its UTF-8
/// bytes as uppercase `%XX`. Decoding the result gives back the path exactly.
pub fn encode_path_target(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for c in path.chars() {
        if keeps_raw(c) {
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

fn keeps_raw(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphanumeric() || matches!(c, '/' | '.' | '_' | '~' | '-');
    }
    let cp = c as u32;
    cp <= 0xFFFF && !is_js_whitespace(c) && !denied_in_path(cp)
}

/// Characters that are invisible, format-only or confusable in a link target.
fn denied_in_path(cp: u32) -> bool {
    matches!(
        cp,
        0x0000..=0x009F
            | 0x00AD
            | 0x034F
            | 0x0600..=0x0605
            | 0x061C
            | 0x06DD
            | 0x070F
            | 0x0890..=0x0891
            | 0x08E2
            | 0x115F..=0x1160
            | 0x17B4..=0x17B5
            | 0x180B..=0x180F
            | 0x200B..=0x200F
            | 0x202A..=0x202E
            | 0x2060..=0x206F
            | 0x3164
            | 0xFE00..=0xFE0F
            | 0xFEFF
            | 0xFFA0
            | 0xFFF0..=0xFFFB
    )
}

/// `- [<title>](<target>)`; an empty title falls back to the type name.
fn link_for(title: &str, memory_type: MemoryType, relative_path: &str) -> String {
    let title = non_empty_or_type(sanitize_index_field(title), memory_type);
    format!("- [{title}]({})", encode_path_target(relative_path))
}

fn non_empty_or_type(s: String, memory_type: MemoryType) -> String {
    if s.is_empty() {
        memory_type.as_str().to_string()
    } else {
        s
    }
}

/// Appends the hook (description) to `link` within the room the line has left, then `suffix`.
fn finish_line(link: String, suffix: &str, description: &str, memory_type: MemoryType) -> String {
    let room = MAX_LINE_UNITS as isize
        - utf16_len(&link) as isize
        - utf16_len(suffix) as isize
        - utf16_len(HOOK_SEPARATOR) as isize;
    let desc = non_empty_or_type(sanitize_index_field(description), memory_type);
    let mut line = link;
    // A hook that fits whole is always shown; a cut one only with enough room to be useful.
    if utf16_len(&desc) as isize <= room || room >= MIN_HOOK_UNITS as isize {
        line.push_str(HOOK_SEPARATOR);
        line.push_str(&truncate_index_field(&desc, room.max(0) as usize));
    }
    line.push_str(suffix);
    line
}

/// One index line: `- [<title>](<encoded path>) — <description or type>`, at most
/// [`MAX_LINE_UNITS`] UTF-16 units. The link is never cut; a link longer than the line limit
/// is emitted alone, without its description.
pub fn index_line(
    title: &str,
    description: &str,
    memory_type: MemoryType,
    relative_path: &str,
) -> String {
    let link = link_for(title, memory_type, relative_path);
    finish_line(link, "", description, memory_type)
}

/// Joins index lines within the budgets: the first [`MAX_LINES`] lines, then, when they
/// exceed [`MAX_BYTES`], a greedy pick that first considers lines of at most
/// [`MAX_LINE_UNITS`] units and then the rest, skipping (not stopping at) any line that does
/// not fit, and keeping the original order. Lines are never cut. When anything is dropped,
/// [`WARNING_NOTICE`] is appended (so if everything was dropped the result starts with
/// `"\n\n> WARNING"`). No lines give `""`; the result never ends with a newline.
pub fn assemble(lines: &[String]) -> String {
    if lines.is_empty() {
        return String::new();
    }
    let capped = &lines[..lines.len().min(MAX_LINES)];
    let mut dropped = lines.len() > MAX_LINES;
    let joined_bytes: usize = capped.iter().map(String::len).sum::<usize>() + capped.len() - 1;
    let mut body = if joined_bytes <= MAX_BYTES {
        capped.join("\n")
    } else {
        let mut keep = vec![false; capped.len()];
        let mut size = 0usize;
        let mut any_kept = false;
        for short_pass in [true, false] {
            for (i, line) in capped.iter().enumerate() {
                if keep[i] || (utf16_len(line) <= MAX_LINE_UNITS) != short_pass {
                    continue;
                }
                let cost = line.len() + usize::from(any_kept);
                if size + cost <= MAX_BYTES {
                    keep[i] = true;
                    size += cost;
                    any_kept = true;
                }
            }
        }
        dropped = true;
        let kept: Vec<&str> = capped
            .iter()
            .zip(&keep)
            .filter(|(_, k)| **k)
            .map(|(l, _)| l.as_str())
            .collect();
        kept.join("\n")
    };
    if dropped {
        body.push_str(WARNING_NOTICE);
    }
    body
}

/// The file name (last path segment) of a relative path.
fn file_name(relative_path: &str) -> &str {
    relative_path.rsplit('/').next().unwrap_or(relative_path)
}

fn compare_docs(a: &ScannedDoc, b: &ScannedDoc, order: IndexOrder) -> Ordering {
    match order {
        IndexOrder::ByPath => a.relative_path.as_bytes().cmp(b.relative_path.as_bytes()),
        IndexOrder::NewestFirst => {
            let (fa, fb) = (file_name(&a.relative_path), file_name(&b.relative_path));
            crate::scan::mtime_key(b.mtime_ms)
                .total_cmp(&crate::scan::mtime_key(a.mtime_ms))
                .then_with(|| fa.to_lowercase().cmp(&fb.to_lowercase()))
                .then_with(|| fa.as_bytes().cmp(fb.as_bytes()))
                .then_with(|| a.relative_path.as_bytes().cmp(b.relative_path.as_bytes()))
        }
    }
}

/// Sorts documents in place by `order` (stable). Scans and recall reuse this so every list of
/// documents is ordered the same way.
pub fn sort_docs(docs: &mut [ScannedDoc], order: IndexOrder) {
    docs.sort_by(|a, b| compare_docs(a, b, order));
}

/// The whole MEMORY.md text for a project or user root: one line per document, in `order`,
/// within the budgets (see [`assemble`]). No grouping. Zero documents give `""`.
pub fn build_index(docs: &[ScannedDoc], order: IndexOrder) -> String {
    let mut sorted = docs.to_vec();
    sort_docs(&mut sorted, order);
    let lines: Vec<String> = sorted
        .iter()
        .map(|d| index_line(&d.title, &d.description, d.memory_type, &d.relative_path))
        .collect();
    assemble(&lines)
}

/// The grouping key of a team line: description lowercased, whitespace collapsed, trailing
/// punctuation stripped.
fn group_key(description: &str) -> String {
    collapse_whitespace(&description.to_lowercase())
        .trim_end_matches(|c: char| ".,;:!?)]}'\"`".contains(c))
        .trim_end_matches(is_js_whitespace)
        .to_string()
}

/// The index of a team memory root (read-only here; offered for `check` and display).
/// Documents are ordered by path; documents whose descriptions match (see upstream §5.3)
/// share one line, the first by path as primary and the others listed in ` (also: …)` as far
/// as the line limit allows (an overflowing sibling is skipped whole).
pub fn build_team_index(docs: &[ScannedDoc]) -> String {
    let mut sorted = docs.to_vec();
    sort_docs(&mut sorted, IndexOrder::ByPath);
    let mut groups: Vec<Vec<&ScannedDoc>> = Vec::new();
    let mut by_key: HashMap<String, usize> = HashMap::new();
    for doc in &sorted {
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
            let link = link_for(&primary.title, primary.memory_type, &primary.relative_path);
            let link_units = utf16_len(&link);
            let mut also = String::new();
            for other in &members[1..] {
                let encoded = encode_path_target(&other.relative_path);
                let candidate = if also.is_empty() {
                    encoded
                } else {
                    format!("{also}, {encoded}")
                };
                // Strictly less: the closing `)` takes the last unit.
                if link_units + utf16_len(ALSO_OPENER) + utf16_len(&candidate) < MAX_LINE_UNITS {
                    also = candidate;
                }
            }
            let suffix = if also.is_empty() {
                String::new()
            } else {
                format!("{ALSO_OPENER}{also})")
            };
            finish_line(link, &suffix, &primary.description, primary.memory_type)
        })
        .collect();
    assemble(&lines)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scan::Scope;
    use percent_encoding::percent_decode_str;
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

    fn strip_notice(s: &str) -> (&str, bool) {
        match s.strip_suffix(WARNING_NOTICE) {
            Some(body) => (body, true),
            None => (s, false),
        }
    }

    /// The link target of a line built here: between the first `](` and the next `)`.
    fn target_of(line: &str) -> &str {
        let start = line.find("](").expect("link") + 2;
        let end = start + line[start..].find(')').expect("close");
        &line[start..end]
    }

    #[test]
    fn constants_agree() {
        assert_eq!(WARNING_NOTICE, format!("\n\n{WARNING_LINE}"));
        assert!(WARNING_LINE.starts_with("> WARNING: MEMORY.md is too large;"));
        const { assert!(!ENDS_WITH_NEWLINE) };
        assert_eq!(utf16_len(HOOK_SEPARATOR), 3);
        assert_eq!(utf16_len(ALSO_OPENER), 8);
    }

    #[test]
    fn compact_line() {
        assert_eq!(
            index_line(
                "User Memory",
                "User profile",
                MemoryType::User,
                "user/terse.md"
            ),
            "- [User Memory](user/terse.md) \u{2014} User profile"
        );
    }

    #[test]
    fn empty_fields_fall_back_to_type() {
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
        assert_eq!(sanitize_index_field("use `cargo`"), "use 'cargo'");
        assert_eq!(sanitize_index_field("x](http://evil)"), "x] (http://evil)");
        assert_eq!(
            sanitize_index_field("  a \n\n # SYSTEM\t b  "),
            "a # SYSTEM b"
        );
        // Soft hyphen is not deleted by the field sanitizer (only the path encoder treats it).
        assert_eq!(sanitize_index_field("a\u{ad}b"), "a\u{ad}b");
        // Deletion happens before `](` replacement, so an invisible char cannot smuggle it.
        assert_eq!(sanitize_index_field("a]\u{200b}(b"), "a] (b");
        let injected = index_line(
            "t\n# SYSTEM](http://evil)`\u{7}\u{200b}",
            "d\n`x`",
            MemoryType::User,
            "a.md",
        );
        assert!(!injected.contains('\n') && !injected.contains('`'));
        assert!(!injected.chars().any(|c| c.is_control()));
        assert!(injected.contains("] (http://evil)"));
        assert_eq!(target_of(&injected), "a.md");
    }

    #[test]
    fn truncation_rules() {
        assert_eq!(truncate_index_field("short", 120), "short");
        assert_eq!(truncate_index_field(&rep('a', 120), 120), rep('a', 120));
        // Unbroken text: head of limit-1 plus the ellipsis.
        let cut = truncate_index_field(&rep('a', 121), 120);
        assert_eq!(cut, format!("{}\u{2026}", rep('a', 119)));
        assert_eq!(utf16_len(&cut), 120);
        // Word boundary when it keeps at least 60%.
        let words = "word ".repeat(40);
        let cut = truncate_index_field(&words, 120);
        assert!(cut.ends_with("word\u{2026}"), "{cut}");
        assert!(utf16_len(&cut) <= 120);
        // The guard: a boundary under 60% falls back to the head.
        let s = format!("ab {}", rep('x', 200));
        assert_eq!(
            truncate_index_field(&s, 20),
            format!("ab {}\u{2026}", rep('x', 16))
        );
        // CJK is not collapsed to its first token.
        let cjk = format!("团队 {}", rep('记', 200));
        let cut = truncate_index_field(&cjk, 120);
        assert_eq!(utf16_len(&cut), 120);
        // An astral char at the cut is dropped whole.
        let astral = format!("{}😀zz", rep('a', 118));
        assert_eq!(
            truncate_index_field(&astral, 120),
            format!("{}\u{2026}", rep('a', 118))
        );
        assert_eq!(truncate_index_field("abc", 0), "");
        assert_eq!(truncate_index_field("abc", 1), "\u{2026}");
    }

    #[test]
    fn percent_encoding_examples() {
        assert_eq!(
            encode_path_target("feedback/a(b).md"),
            "feedback/a%28b%29.md"
        );
        assert_eq!(
            encode_path_target("feedback/团队记忆.md"),
            "feedback/团队记忆.md"
        );
        assert_eq!(encode_path_target("a b.md"), "a%20b.md");
        assert_eq!(encode_path_target("100%.md"), "100%25.md");
        assert_eq!(encode_path_target("😀.md"), "%F0%9F%98%80.md");
        assert_eq!(
            encode_path_target("a\u{a0}b\u{3000}c"),
            "a%C2%A0b%E3%80%80c"
        );
        assert_eq!(encode_path_target("a\nb[c]`"), "a%0Ab%5Bc%5D%60");
        assert_eq!(encode_path_target("A-z_0.9~/x"), "A-z_0.9~/x");
        assert_eq!(encode_path_target("café"), "café");
        for cp in [
            0x85u32, 0xAD, 0x34F, 0x600, 0x605, 0x61C, 0x6DD, 0x70F, 0x890, 0x891, 0x8E2, 0x115F,
            0x1160, 0x17B4, 0x17B5, 0x180B, 0x180F, 0x200B, 0x200F, 0x202A, 0x202E, 0x2060, 0x206F,
            0x3164, 0xFE00, 0xFE0F, 0xFEFF, 0xFFA0, 0xFFF0, 0xFFFB, 0x2028, 0x1680,
        ] {
            let c = char::from_u32(cp).unwrap();
            let enc = encode_path_target(&c.to_string());
            assert!(enc.starts_with('%'), "U+{cp:04X} kept raw");
            assert_eq!(
                percent_decode_str(&enc).decode_utf8().unwrap(),
                c.to_string()
            );
        }
    }

    #[test]
    fn worked_example_room_20() {
        let title = rep('t', 100);
        let path = format!("f/{}.md", rep('q', 16));
        let link = format!("- [{title}]({path})");
        assert_eq!(utf16_len(&link), 127);
        let fits = index_line(&title, &rep('d', 20), MemoryType::User, &path);
        assert_eq!(fits, format!("{link} \u{2014} {}", rep('d', 20)));
        assert_eq!(utf16_len(&fits), 150);
        // One more unit does not fit and room < 24: no hook at all.
        assert_eq!(
            index_line(&title, &rep('d', 21), MemoryType::User, &path),
            link
        );
    }

    #[test]
    fn long_title_never_cuts_the_link() {
        let line = index_line(&rep('T', 500), "desc", MemoryType::User, "feedback/x.md");
        assert!(utf16_len(&line) <= 150, "{}", utf16_len(&line));
        assert_eq!(target_of(&line), "feedback/x.md");
        assert!(line.contains('\u{2026}'));
        // A path that makes the link longer than 150: the line exceeds 150 and has no hook.
        let path = format!("{}/{}.md", rep('p', 140), rep('s', 10));
        let line = index_line(&rep('T', 500), "desc", MemoryType::User, &path);
        assert!(utf16_len(&line) > 150);
        assert!(!line.contains('\u{2014}'));
        assert_eq!(target_of(&line), path);
    }

    #[test]
    fn hook_is_cut_with_room() {
        let line = index_line("t", &"alpha beta ".repeat(20), MemoryType::User, "a.md");
        assert!(utf16_len(&line) <= 150);
        assert!(line.ends_with('\u{2026}'));
    }

    fn lines_of(sizes: &[usize]) -> Vec<String> {
        sizes
            .iter()
            .enumerate()
            .map(|(i, &n)| rep(char::from(b'a' + (i % 26) as u8), n))
            .collect()
    }

    #[test]
    fn budget_pinned_cases() {
        assert_eq!(assemble(&[]), "");
        assert_eq!(build_index(&[], IndexOrder::NewestFirst), "");

        let many: Vec<String> = (0..201).map(|i| format!("- line {i}")).collect();
        let out = assemble(&many);
        let (body, warned) = strip_notice(&out);
        assert!(warned);
        assert_eq!(body.lines().count(), 200);
        assert!(body.ends_with("- line 199") && !body.ends_with('\n'));
        assert_eq!(assemble(&many[..200]), many[..200].join("\n"));

        assert_eq!(assemble(&lines_of(&[25_000])), rep('a', 25_000));
        let out = assemble(&lines_of(&[25_001]));
        assert_eq!(out, WARNING_NOTICE);
        assert!(out.starts_with("\n\n> WARNING"));

        let fits = lines_of(&[12_500, 12_499]);
        assert_eq!(assemble(&fits), fits.join("\n"));
        let over = lines_of(&[12_500, 12_500]);
        assert_eq!(assemble(&over), format!("{}{WARNING_NOTICE}", over[0]));

        let mixed = vec![rep('a', 10_000), rep('b', 15_000), "- short".to_string()];
        assert_eq!(
            assemble(&mixed),
            format!("{}\n- short{WARNING_NOTICE}", mixed[0])
        );
    }

    #[test]
    fn budget_counts_bytes_and_newlines() {
        // 12,500 two-byte chars are 12,500 units but 25,000 bytes: fits alone, not with more.
        let wide = rep('é', 12_500);
        assert_eq!(assemble(std::slice::from_ref(&wide)), wide);
        // Counted in units (12,502) both would fit; in bytes (25,002) the short line, reserved
        // first, wins and the wide one is dropped.
        let out = assemble(&[wide.clone(), "x".to_string()]);
        assert_eq!(out, format!("x{WARNING_NOTICE}"));
        // Newline separators count: 24,999 + 1 + 1 = 25,001 does not fit.
        let out = assemble(&lines_of(&[24_999, 1]));
        assert!(strip_notice(&out).1);
    }

    #[test]
    fn short_lines_reserved_first_order_kept() {
        let mut lines: Vec<String> = Vec::new();
        lines.push(rep('(', 24_500));
        for i in 0..50 {
            lines.push(format!("- [e{i}](e{i}.md)"));
        }
        lines.push(rep(')', 500));
        let out = assemble(&lines);
        let (body, warned) = strip_notice(&out);
        assert!(warned);
        let kept: Vec<&str> = body.split('\n').collect();
        // The 50 short lines get their room first (so the 24,500-byte line no longer fits),
        // stay in order, and the later 500-byte line is still picked up (skip, not stop).
        assert_eq!(kept.len(), 51);
        assert!(kept[0] == "- [e0](e0.md)" && kept[49] == "- [e49](e49.md)");
        assert!(kept[50] == rep(')', 500));
        assert!(body.len() <= MAX_BYTES);
    }

    #[test]
    fn oversized_path_entry_dropped_whole() {
        let docs = vec![
            doc(&format!("{}.md", rep('x', 25_003)), "big", "d", 2.0),
            doc("small.md", "small", "d", 1.0),
        ];
        let out = build_index(&docs, IndexOrder::NewestFirst);
        let (body, warned) = strip_notice(&out);
        assert!(warned);
        assert_eq!(body, "- [small](small.md) \u{2014} d");
    }

    #[test]
    fn newest_first_order() {
        let mut docs = vec![
            doc("z/same.md", "", "", 5.0),
            doc("a/same.md", "", "", 5.0),
            doc("B.md", "", "", 5.0),
            doc("b.md", "", "", 5.0),
            doc("a.md", "", "", 5.0),
            doc("old.md", "", "", 1.0),
            doc("new.md", "", "", 9.5),
            doc("C.md", "", "", 5.0),
        ];
        sort_docs(&mut docs, IndexOrder::NewestFirst);
        let order: Vec<&str> = docs.iter().map(|d| d.relative_path.as_str()).collect();
        assert_eq!(
            order,
            [
                "new.md",
                "a.md",
                "B.md",
                "b.md",
                "C.md",
                "a/same.md",
                "z/same.md",
                "old.md"
            ]
        );
    }

    #[test]
    fn by_path_order_is_independent_of_mtime() {
        let docs = vec![
            doc("project/b.md", "B", "", 1.0),
            doc("Z.md", "Z", "", 3.0),
            doc("feedback/a.md", "A", "", 2.0),
        ];
        let out = build_index(&docs, IndexOrder::ByPath);
        let targets: Vec<&str> = out.split('\n').map(target_of).collect();
        assert_eq!(targets, ["Z.md", "feedback/a.md", "project/b.md"]);
        let mut reversed = docs.clone();
        reversed.reverse();
        for d in &mut reversed {
            d.mtime_ms *= 7.0;
        }
        assert_eq!(build_index(&reversed, IndexOrder::ByPath), out);
        let newest = build_index(&docs, IndexOrder::NewestFirst);
        assert!(newest.starts_with("- [Z](Z.md)"));
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
        let lines: Vec<&str> = out.split('\n').collect();
        assert_eq!(
            lines,
            [
                "- [A](a.md) \u{2014} shared FACT (also: b.md)",
                "- [C](c.md) \u{2014} other",
                "- [D](d.md) \u{2014} feedback",
                "- [E](e.md) \u{2014} feedback",
            ]
        );
        // An overflowing sibling is skipped whole; a later short one is still listed.
        let docs = vec![
            doc("a.md", "A", "same", 1.0),
            doc(&format!("b{}.md", rep('x', 130)), "B", "same", 1.0),
            doc("c.md", "C", "same", 1.0),
        ];
        let out = build_team_index(&docs);
        assert_eq!(out, "- [A](a.md) \u{2014} same (also: c.md)");
        // A long shared description yields to the suffix.
        let long = "long enough to fill the line ".repeat(8);
        let docs = vec![doc("a.md", "A", &long, 1.0), doc("b.md", "B", &long, 1.0)];
        let out = build_team_index(&docs);
        assert!(utf16_len(&out) <= 150, "{out}");
        assert!(out.ends_with("\u{2026} (also: b.md)"), "{out}");
    }

    fn arb_text() -> impl Strategy<Value = String> {
        prop_oneof![
            ".{0,40}",
            "[a-z ]{0,300}",
            "[\\x00-\\x1f`\\]\\(\u{200b}\u{feff}a-z团😀 ]{0,200}",
        ]
    }

    fn arb_path() -> impl Strategy<Value = String> {
        prop_oneof![
            "[a-z]{1,10}/[a-z0-9_-]{1,20}\\.md",
            ".{1,60}",
            "[a-z(){}\\[\\] %\n\u{a0}\u{3000}\u{ad}团😀/]{1,200}",
        ]
    }

    proptest! {
        #[test]
        fn index_invariants(
            specs in prop::collection::vec((arb_path(), arb_text(), arb_text(), 0u32..5), 0..30),
            bulk in 0usize..2,
        ) {
            let mut docs: Vec<ScannedDoc> = specs
                .iter()
                .map(|(p, t, d, m)| doc(p, t, d, f64::from(*m)))
                .collect();
            if bulk == 1 {
                // Push past the line and byte budgets too.
                for i in 0..210 {
                    docs.push(doc(&format!("bulk/{i}-{}.md", rep('p', 100)), "t", "d", 0.0));
                }
            }
            for order in [IndexOrder::NewestFirst, IndexOrder::ByPath] {
                let out = build_index(&docs, order);
                if docs.is_empty() {
                    prop_assert_eq!(out.as_str(), "");
                    continue;
                }
                let (body, _) = strip_notice(&out);
                prop_assert!(body.len() <= MAX_BYTES);
                prop_assert!(!out.ends_with('\n'));
                let mut sorted = docs.clone();
                sort_docs(&mut sorted, order);
                let mut full = 0;
                for d in &sorted {
                    let line = index_line(&d.title, &d.description, d.memory_type, &d.relative_path);
                    full += 1;
                    prop_assert!(!line.contains('\n'));
                    let link = link_for(&d.title, d.memory_type, &d.relative_path);
                    prop_assert!(line.starts_with(&link));
                    if utf16_len(&line) > MAX_LINE_UNITS {
                        prop_assert_eq!(&line, &link);
                        prop_assert!(utf16_len(&link) > MAX_LINE_UNITS);
                    }
                    let target = target_of(&line);
                    let decoded = percent_decode_str(target).decode_utf8().unwrap();
                    prop_assert_eq!(decoded.as_ref(), d.relative_path.as_str());
                }
                // Nothing is dropped silently.
                let kept = if body.is_empty() { 0 } else { body.split('\n').count() };
                if kept < full {
                    prop_assert!(out.ends_with(WARNING_NOTICE));
                }
            }
        }
    }
}
