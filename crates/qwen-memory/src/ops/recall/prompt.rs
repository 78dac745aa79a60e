//! The "## Relevant memory" prompt block (docs/DESIGN.md, "Recall") and
//! the age / freshness wording it uses (docs/DESIGN.md, "State files").
//!
//! The block is part of the compatibility surface with Qwen Code, so its fixed lines are kept
//! byte for byte. Its opening instruction fences the memories as data: use them only when
//! relevant and verify claims before relying on them (docs/DESIGN.md, "Security").

use std::path::Path;

use super::{MAX_DOC_BODY_CHARS, NO_ENTRIES_PLACEHOLDER};
use crate::formats::doc::plain_field;
use crate::formats::sanitize::{neutralize_line, neutralize_structure};
use crate::formats::text::{collapse_whitespace, is_js_whitespace, truncate_utf16, utf16_len};
pub use crate::integrations::git::provenance::Provenance;
use crate::storage::scan::{ScannedDoc, Scope};

/// First line of the block.
pub const PROMPT_HEADING: &str = "## Relevant memory";

/// The instruction under the heading (upstream wording, pinned byte for byte).
pub const PROMPT_INSTRUCTION: &str = "Use the following memories only when they are directly relevant to the current request. Verify file/function claims before relying on them.";

/// Appended after a body cut to the prompt budget.
pub const TRUNCATION_NOTE: &str = "> NOTE: Relevant memory truncated for prompt budget.";

/// Shown instead of an empty body.
pub const EMPTY_BODY_TEXT: &str = "_No detailed entries yet._";

const DAY_MS: f64 = 86_400_000.0;

/// Whole days between `mtime_ms` and `now_ms`, never negative (a future mtime is `0`); a
/// non-finite difference counts as `0` rather than producing a nonsense age.
pub fn age_days(mtime_ms: f64, now_ms: f64) -> i64 {
    let days = ((now_ms - mtime_ms) / DAY_MS).floor();
    if !days.is_finite() || days <= 0.0 {
        return 0;
    }
    // `as` saturates for values beyond i64.
    days as i64
}

/// `today`, `yesterday` or `<n> days ago`.
pub fn memory_age(mtime_ms: f64, now_ms: f64) -> String {
    match age_days(mtime_ms, now_ms) {
        0 => "today".to_string(),
        1 => "yesterday".to_string(),
        n => format!("{n} days ago"),
    }
}

/// The staleness warning for memories two or more days old; empty for younger ones.
pub fn memory_freshness_text(mtime_ms: f64, now_ms: f64) -> String {
    let days = age_days(mtime_ms, now_ms);
    if days <= 1 {
        return String::new();
    }
    format!(
        "This memory is {days} days old. Memories are point-in-time observations, not live state \u{2014} claims about code behavior or file:line citations may be outdated. Verify against current code before asserting as fact."
    )
}

/// [`memory_freshness_text`] wrapped in a `<system-reminder>` element plus newline, or empty.
pub fn memory_freshness_note(mtime_ms: f64, now_ms: f64) -> String {
    let text = memory_freshness_text(mtime_ms, now_ms);
    if text.is_empty() {
        return text;
    }
    format!("<system-reminder>{text}</system-reminder>\n")
}

/// The body as shown in the prompt: trimmed, placeholder as empty, cut to 1200 UTF-16 units
/// (then right-trimmed) with the truncation note.
fn prompt_body(body: &str) -> String {
    let trimmed = body.trim_matches(is_js_whitespace);
    if trimmed.is_empty() || trimmed == NO_ENTRIES_PLACEHOLDER {
        return EMPTY_BODY_TEXT.to_string();
    }
    if utf16_len(trimmed) <= MAX_DOC_BODY_CHARS {
        return trimmed.to_string();
    }
    let cut = truncate_utf16(trimmed, MAX_DOC_BODY_CHARS).trim_end_matches(is_js_whitespace);
    // The cut may fall inside a code block: closed, so the note and what follows stay text.
    let cut = crate::formats::sanitize::close_open_fence(cut);
    format!("{cut}\n\n{TRUNCATION_NOTE}")
}

/// Most UTF-16 units of a document's title in the block, and of its description: the body is
/// cut at [`MAX_DOC_BODY_CHARS`], and a committed document with a megabyte of `name:` or
/// `description:` must not spend the hook's whole budget on its heading. A description may say
/// more than a cut body (it is shown when it does), so it gets a little more room than it.
const MAX_TITLE_CHARS: usize = 200;
const MAX_DESCRIPTION_CHARS: usize = MAX_DOC_BODY_CHARS + 300;

/// `text` cut to `max` UTF-16 units, with `…` when cut.
fn capped(text: String, max: usize) -> String {
    if utf16_len(&text) <= max {
        return text;
    }
    format!(
        "{}…",
        truncate_utf16(&text, max - 1).trim_end_matches(is_js_whitespace)
    )
}

/// Whether the description line would tell the reader nothing the body shown under it does
/// not: it is empty, or the body starts with the same words. A memory saved from one sentence
/// (`remember`, extract) has that sentence as both its `description` (which Qwen Code's
/// MEMORY.md line needs) and its body, and printing both doubles every recalled fact in the
/// prompt. The comparison ignores case, whitespace runs, a leading list marker, trailing
/// sentence punctuation of the description and the adjustments `plain_field` makes when a
/// description is written (`: ` → ` — `, full-width indicators). The prefix must end at a word
/// boundary, so a description naming only part of a word is still shown.
fn description_is_redundant(description: &str, shown_body: &str) -> bool {
    let desc = comparable(description);
    let desc = desc.trim_end_matches(|c: char| is_js_whitespace(c) || is_sentence_end(c));
    if desc.is_empty() {
        return true;
    }
    let body = shown_body.trim_start_matches(is_js_whitespace);
    let body = ["- ", "* ", "+ "]
        .iter()
        .find_map(|marker| body.strip_prefix(marker))
        .unwrap_or(body);
    match comparable(body).strip_prefix(desc) {
        Some(rest) => rest.chars().next().is_none_or(|c| !c.is_alphanumeric()),
        None => false,
    }
}

/// Text in the form a `description` is written in, whitespace collapsed and lowercased.
fn comparable(text: &str) -> String {
    collapse_whitespace(&plain_field(text)).to_lowercase()
}

fn is_sentence_end(c: char) -> bool {
    matches!(
        c,
        '.' | ',' | ';' | ':' | '!' | '?' | '…' | '。' | '，' | '；' | '：' | '！' | '？' | '．'
    )
}

/// What the heading shows as the document's location: its relative path, else its file name.
fn display_path(doc: &ScannedDoc) -> String {
    if !doc.relative_path.is_empty() {
        return doc.relative_path.clone();
    }
    doc.path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| Path::new(&doc.path).to_string_lossy().into_owned())
}

/// Renders the selected documents as the "## Relevant memory" block, in the given order, with
/// no Git provenance (see [`render_prompt_with`]).
pub fn render_prompt(docs: &[&ScannedDoc], now_ms: f64) -> String {
    render_prompt_with(docs, &[], now_ms)
}

/// The line under a memory's heading: upstream's `Saved <age>.` for the person's own roots
/// (private, user); for shared roots the scope, the author and age of the commit that last
/// changed it, or that it is not committed.
fn provenance_line(doc: &ScannedDoc, prov: Option<&Provenance>, now_ms: f64) -> String {
    let scope = match doc.scope {
        Scope::Private | Scope::User => {
            return format!("Saved {}.", memory_age(doc.mtime_ms, now_ms));
        }
        Scope::Team => "Team memory",
        Scope::Repository => "Repository memory",
    };
    match prov {
        Some(p) => {
            let author = neutralize_line(&p.author);
            let author = if author.is_empty() {
                "an unnamed author".to_string()
            } else {
                author
            };
            format!("{scope} from {author}, {}.", memory_age(p.time_ms, now_ms))
        }
        None => format!(
            "{scope}, not committed, saved {}.",
            memory_age(doc.mtime_ms, now_ms)
        ),
    }
}

/// Renders the selected documents as the "## Relevant memory" block, in the given order.
/// No documents gives the empty string; otherwise the block ends with one newline. Upstream's
/// layout, except that a description the body already says is left out (and an empty one no
/// longer leaves an empty line), and that every piece of memory text goes through the
/// sanitiser so it cannot form structure (docs/DESIGN.md, "Security"): hidden characters are
/// removed, headings, `> NOTE` lines and tags in a body are escaped, title and path are one
/// line each. `provenance[i]` is the Git provenance of `docs[i]` (missing entries: none); for
/// shared roots it gives the age and the freshness note.
pub fn render_prompt_with(
    docs: &[&ScannedDoc],
    provenance: &[Option<Provenance>],
    now_ms: f64,
) -> String {
    if docs.is_empty() {
        return String::new();
    }
    let mut lines: Vec<String> = vec![
        PROMPT_HEADING.to_string(),
        String::new(),
        PROMPT_INSTRUCTION.to_string(),
        String::new(),
    ];
    for (i, doc) in docs.iter().enumerate() {
        let prov = provenance.get(i).and_then(Option::as_ref);
        let title = capped(neutralize_line(&doc.title), MAX_TITLE_CHARS);
        let path = neutralize_line(&display_path(doc));
        lines.push(format!("### {title} ({path})"));
        lines.push(provenance_line(doc, prov, now_ms));
        let body = prompt_body(&neutralize_structure(&doc.body));
        let description = capped(neutralize_line(&doc.description), MAX_DESCRIPTION_CHARS);
        if !description_is_redundant(&description, &body) {
            lines.push(description);
        }
        lines.push(String::new());
        lines.push(body);
        let age_ms = prov.map_or(doc.mtime_ms, |p| p.time_ms);
        let freshness = memory_freshness_text(age_ms, now_ms);
        if !freshness.is_empty() {
            lines.push(String::new());
            lines.push(format!("> NOTE: {freshness}"));
        }
        lines.push(String::new());
    }
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::formats::doc::MemoryType;
    use crate::storage::scan::Scope;

    const NOW: f64 = 1_750_000_000_000.0;

    fn doc(rel: &str, title: &str, description: &str, body: &str, mtime_ms: f64) -> ScannedDoc {
        ScannedDoc {
            scope: Scope::Private,
            memory_type: MemoryType::Feedback,
            path: PathBuf::from("/home/u/.qwen/projects/p/memory").join(if rel.is_empty() {
                "feedback/fallback.md"
            } else {
                rel
            }),
            relative_path: rel.to_string(),
            title: title.to_string(),
            description: description.to_string(),
            body: body.to_string(),
            mtime_ms,
            extra: Vec::new(),
        }
    }

    #[test]
    fn empty_selection_renders_nothing() {
        assert_eq!(render_prompt(&[], NOW), "");
    }

    #[test]
    fn single_fresh_doc_block_byte_for_byte() {
        let d = doc(
            "feedback/terse.md",
            "Terse answers",
            "The user wants short answers",
            "Keep answers short.\n\nWhy: Narrow pane.",
            NOW - 1_000.0,
        );
        let expected = concat!(
            "## Relevant memory\n",
            "\n",
            "Use the following memories only when they are directly relevant to the current request. Verify file/function claims before relying on them.\n",
            "\n",
            "### Terse answers (feedback/terse.md)\n",
            "Saved today.\n",
            "The user wants short answers\n",
            "\n",
            "Keep answers short.\n",
            "\n",
            "Why: Narrow pane.\n",
        );
        let out = render_prompt(&[&d], NOW);
        assert_eq!(out, expected);
        assert!(!out.ends_with("\n\n"));
    }

    #[test]
    fn old_docs_get_age_and_freshness_note_and_empty_parts_placeholders() {
        let yesterday = doc(
            "user/a.md",
            "A",
            "",
            "_No entries yet._",
            NOW - DAY_MS - 5.0,
        );
        let old = doc("", "B", "desc b", "", NOW - 3.0 * DAY_MS);
        let expected = concat!(
            "## Relevant memory\n",
            "\n",
            "Use the following memories only when they are directly relevant to the current request. Verify file/function claims before relying on them.\n",
            "\n",
            "### A (user/a.md)\n",
            "Saved yesterday.\n",
            "\n",
            "_No detailed entries yet._\n",
            "\n",
            "### B (fallback.md)\n",
            "Saved 3 days ago.\n",
            "desc b\n",
            "\n",
            "_No detailed entries yet._\n",
            "\n",
            "> NOTE: This memory is 3 days old. Memories are point-in-time observations, not live state \u{2014} claims about code behavior or file:line citations may be outdated. Verify against current code before asserting as fact.\n",
        );
        assert_eq!(render_prompt(&[&yesterday, &old], NOW), expected);
    }

    #[test]
    fn a_description_the_body_already_says_is_not_repeated() {
        let block = |description: &str, body: &str| {
            let d = doc("project/x.md", "X", description, body, NOW);
            render_prompt(&[&d], NOW)
        };
        let header = "### X (project/x.md)\nSaved today.\n";
        // What `remember` writes: the sentence is both description and body.
        let out = block(
            "The deploy script needs AWS_REGION set.",
            "The deploy script needs AWS_REGION set.",
        );
        assert!(
            out.ends_with(&format!(
                "{header}\nThe deploy script needs AWS_REGION set.\n"
            )),
            "{out}"
        );
        // Case, whitespace runs, a list marker, trailing punctuation, a reason after it, the
        // `: ` → ` — ` of a written description, CJK.
        for (description, body) in [
            (
                "use PNPM,  never npm",
                "- Use pnpm, never npm.\n\nWhy: lockfile",
            ),
            ("Note — tabs only", "Note: tabs only.\n"),
            ("用户喜欢简短的回答。", "用户喜欢简短的回答\n\nWhy: 窄屏"),
            ("", "Something"),
            ("  ", "Something"),
        ] {
            let out = block(description, body);
            assert!(
                out.contains(&format!("{header}\n")),
                "{description:?}: {out}"
            );
            if !description.trim().is_empty() {
                assert!(!out.contains(&format!("{description}\n")), "{out}");
            }
        }
        // The description says something else, more, or only part of the first word: kept.
        for (description, body) in [
            ("Release process rule", "Deploy only from release branches."),
            ("Use pnpm, never npm; CI checks", "Use pnpm, never npm."),
            ("Deploy", "Deployment needs approval."),
            ("用户喜欢", "用户喜欢简短的回答"),
        ] {
            let out = block(description, body);
            assert!(out.contains(&format!("{header}{description}\n\n")), "{out}");
        }
    }

    #[test]
    fn a_description_repeating_a_cut_off_body_is_still_shown() {
        let first = "w".repeat(1300);
        let d = doc("project/x.md", "X", &first, &first, NOW);
        let out = render_prompt(&[&d], NOW);
        assert!(out.contains(&format!("Saved today.\n{first}\n\n")), "{out}");
    }

    #[test]
    fn long_body_is_cut_at_1200_and_right_trimmed_with_note() {
        // 1195 chars, then spaces across the cut: the cut text loses its trailing spaces.
        let body = format!("{}     tail that is cut", "y".repeat(1195));
        let d = doc("project/long.md", "Long", "d", &body, NOW);
        let expected = format!(
            concat!(
                "## Relevant memory\n",
                "\n",
                "Use the following memories only when they are directly relevant to the current request. Verify file/function claims before relying on them.\n",
                "\n",
                "### Long (project/long.md)\n",
                "Saved today.\n",
                "d\n",
                "\n",
                "{}\n",
                "\n",
                "> NOTE: Relevant memory truncated for prompt budget.\n",
            ),
            "y".repeat(1195)
        );
        assert_eq!(render_prompt(&[&d], NOW), expected);
    }

    #[test]
    fn body_of_exactly_1200_units_is_not_truncated() {
        let body = "z".repeat(1200);
        let d = doc("project/x.md", "X", "", &body, NOW);
        let out = render_prompt(&[&d], NOW);
        assert!(out.contains(&format!("\n{body}\n")));
        assert!(!out.contains(TRUNCATION_NOTE));
    }

    #[test]
    fn body_cut_never_splits_a_surrogate_pair() {
        let body = format!("{}😀rest", "a".repeat(1199));
        let d = doc("project/x.md", "X", "", &body, NOW);
        let out = render_prompt(&[&d], NOW);
        assert!(out.contains(&format!("\n{}\n\n{TRUNCATION_NOTE}\n", "a".repeat(1199))));
    }

    #[test]
    fn age_wording_and_clamping() {
        assert_eq!(age_days(NOW, NOW), 0);
        assert_eq!(age_days(NOW + 5.0 * DAY_MS, NOW), 0);
        assert_eq!(age_days(NOW - DAY_MS + 1.0, NOW), 0);
        assert_eq!(age_days(NOW - DAY_MS, NOW), 1);
        assert_eq!(age_days(NOW - 400.0 * DAY_MS, NOW), 400);
        assert_eq!(age_days(f64::NAN, NOW), 0);
        assert_eq!(memory_age(NOW, NOW), "today");
        assert_eq!(memory_age(NOW - DAY_MS, NOW), "yesterday");
        assert_eq!(memory_age(NOW - 2.0 * DAY_MS, NOW), "2 days ago");
        assert_eq!(memory_age(NOW - 90.0 * DAY_MS, NOW), "90 days ago");
    }

    #[test]
    fn freshness_text_only_from_two_days() {
        assert_eq!(memory_freshness_text(NOW - DAY_MS, NOW), "");
        assert_eq!(memory_freshness_note(NOW, NOW), "");
        let text = memory_freshness_text(NOW - 2.0 * DAY_MS, NOW);
        assert!(text.starts_with("This memory is 2 days old. "));
        assert_eq!(
            memory_freshness_note(NOW - 2.0 * DAY_MS, NOW),
            format!("<system-reminder>{text}</system-reminder>\n")
        );
    }
}
