//! Patch filters and file naming for extraction (docs/DESIGN.md, "Extract").
//! The create path: slugs and titles.
//!
//! Lengths are counted in UTF-16 code units because upstream's thresholds (12, 72, 69) are JS
//! string lengths; a file written here must get the same name upstream would give it.

use std::collections::HashSet;
use std::sync::LazyLock;

use regex_lite::Regex;

use super::Patch;
use crate::formats::text::{collapse_whitespace, is_js_whitespace, truncate_utf16, utf16_len};

/// Summaries shorter than this (UTF-16 units) carry too little to be a memory.
pub const MIN_SUMMARY_LEN: usize = 12;
/// Longest title kept whole; longer ones are cut to [`TITLE_CUT`] plus `...`.
pub const MAX_TITLE_LEN: usize = 72;
/// Units of the summary kept in a cut title.
pub const TITLE_CUT: usize = 69;
/// Longest slug, in characters.
pub const MAX_SLUG_LEN: usize = 80;
/// Longest slug, in bytes (80 CJK characters are 240).
const MAX_SLUG_BYTES: usize = 200;

/// Words that mark a statement as being about the moment rather than durable. ASCII-only word
/// boundaries and ASCII-only case folding, as JS `/\b…\b/i` without the `u` flag: `know`,
/// `nowhere` and `snowfall` do not match, `Now,` does, and `thiſ session` (long s) does not.
/// `regex-lite` is ASCII-only in exactly this way and builds the pattern far faster than
/// `regex` (this runs in every `extract`).
static TEMPORARY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:today|now|currently|for this task|this session|temporary|temporarily)\b")
        .expect("static regex")
});

/// The length the minimum is judged on: UTF-16 units, with each wide (CJK) character counted
/// twice, as it is displayed. Upstream counts UTF-16 units only, which drops a complete Chinese
/// sentence such as "变量命名请用驼峰式。" (10 units) while "Use camelCase." passes; a CJK
/// character carries about what two Latin letters do.
pub fn summary_len(text: &str) -> usize {
    text.chars()
        .map(|c| {
            let wide = matches!(c as u32,
                0x1100..=0x115F | 0x2E80..=0x303E | 0x3040..=0xA4CF | 0xAC00..=0xD7A3
                | 0xF900..=0xFAFF | 0xFE30..=0xFE4F | 0xFF00..=0xFF60 | 0xFFE0..=0xFFE6);
            c.len_utf16() * if wide { 2 } else { 1 }
        })
        .sum()
}

/// Whether `text` speaks about the present moment or the current task only.
pub fn is_temporary(text: &str) -> bool {
    TEMPORARY.is_match(text)
}

/// Strips one leading `-`, `*` or `•` bullet (only at the very start and only when followed by
/// whitespace, as upstream), then collapses whitespace.
fn strip_bullet_and_collapse(s: &str) -> String {
    let mut chars = s.chars();
    let stripped = match chars.next() {
        Some('-' | '*' | '•') if chars.clone().next().is_some_and(is_js_whitespace) => {
            chars.as_str()
        }
        _ => s,
    };
    collapse_whitespace(stripped)
}

/// Words too common to show that a summary came from a message.
const GROUNDING_STOP: &[&str] = &[
    "the", "and", "for", "are", "was", "were", "with", "that", "this", "these", "those", "from",
    "into", "onto", "use", "uses", "used", "using", "user", "users", "always", "never", "should",
    "must", "will", "would", "can", "could", "not", "don", "does", "doesn", "has", "have", "had",
    "our", "your", "you", "they", "their", "them", "its", "when", "then", "than", "there", "here",
    "also", "only", "all", "any", "every", "some", "prefers", "prefer", "wants", "want", "likes",
    "like", "project", "team", "please",
];

/// The content words of `text` for [`is_grounded`]: lowercase runs of 3+ letters or digits
/// (cut to 5 characters, a crude stem) minus [`GROUNDING_STOP`], and the bigrams of CJK runs.
fn grounding_terms(text: &str) -> HashSet<String> {
    let lower = text.to_lowercase();
    let mut out = HashSet::new();
    let mut word = String::new();
    let mut cjk: Vec<char> = Vec::new();
    let is_cjk = |c: char| matches!(c as u32, 0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xAC00..=0xD7A3 | 0xF900..=0xFAFF);
    let flush_word = |word: &mut String, out: &mut HashSet<String>| {
        if word.chars().count() >= 3 && !GROUNDING_STOP.contains(&word.as_str()) {
            out.insert(word.chars().take(5).collect());
        }
        word.clear();
    };
    let flush_cjk = |cjk: &mut Vec<char>, out: &mut HashSet<String>| {
        for pair in cjk.windows(2) {
            out.insert(pair.iter().collect());
        }
        cjk.clear();
    };
    for c in lower.chars() {
        if is_cjk(c) {
            flush_word(&mut word, &mut out);
            cjk.push(c);
        } else if c.is_alphanumeric() {
            flush_cjk(&mut cjk, &mut out);
            word.push(c);
        } else {
            flush_word(&mut word, &mut out);
            flush_cjk(&mut cjk, &mut out);
        }
    }
    flush_word(&mut word, &mut out);
    flush_cjk(&mut cjk, &mut out);
    out
}

/// Whether a model's summary is grounded in the user text it cites (docs/DESIGN.md, "Extract"):
/// at least 40% of its content words (and at least one) occur in that text. A model patch
/// that cites "can you summarize the README?" for "always push to main" is not.
pub fn is_grounded(summary: &str, cited: &str) -> bool {
    let terms = grounding_terms(summary);
    if terms.is_empty() {
        return false;
    }
    let source = grounding_terms(cited);
    let shared = terms.iter().filter(|t| source.contains(*t)).count();
    shared >= 1 && shared * 10 >= terms.len() * 4
}

/// Normalizes a planned patch and drops it when it cannot be a durable memory (docs/DESIGN.md, "Extract"
/// step 5): a summary under 12 units ([`summary_len`]: CJK counts double), ending in `?`, or speaking about the moment
/// ([`is_temporary`]). `why` and `howToApply` are whitespace-collapsed but not judged; one that
/// is empty after collapsing becomes `None`. The secret check is the caller's.
pub fn normalize_patch(p: Patch) -> Option<Patch> {
    let summary = strip_bullet_and_collapse(&p.summary);
    if summary_len(&summary) < MIN_SUMMARY_LEN || summary.ends_with('?') || is_temporary(&summary) {
        return None;
    }
    let tidy = |o: Option<String>| o.map(|s| collapse_whitespace(&s)).filter(|s| !s.is_empty());
    Some(Patch {
        topic: p.topic,
        summary,
        why: tidy(p.why),
        how_to_apply: tidy(p.how_to_apply),
        source_offset: p.source_offset,
    })
}

/// Removes repeated patches, keyed by the entry key of the summary (any topic: one fact is kept
/// once); the first one wins and order
/// is kept. Expects normalized patches (the key is the summary as given).
pub fn dedupe(patches: Vec<Patch>) -> Vec<Patch> {
    let mut seen = HashSet::new();
    patches
        .into_iter()
        .filter(|p| seen.insert(crate::formats::doc::entry_key(&p.summary)))
        .collect()
}

/// The file stem for a new document: lowercase letters and digits of any script (with their
/// combining marks), every other run becomes `-`, trimmed of `-`, at most 80 characters (and 200
/// bytes, so a numbered or stamped name stays within file-name limits) and never ending in `-`;
/// `memory` only when the text has no letter or digit at all. `部署流程` stays `部署流程`, where
/// upstream's ASCII-only rule gave every Chinese memory the same `memory` stem.
pub fn slugify(text: &str) -> String {
    use unicode_normalization::char::is_combining_mark;
    use unicode_normalization::UnicodeNormalization;
    let lower: String = text.to_lowercase().nfc().collect();
    let mut slug = String::with_capacity(lower.len());
    let mut chars = 0usize;
    for c in lower.chars() {
        let keep = c.is_alphanumeric()
            || (is_combining_mark(c) && !slug.is_empty() && !slug.ends_with('-'));
        let piece = if keep {
            Some(c)
        } else if !slug.is_empty() && !slug.ends_with('-') {
            Some('-')
        } else {
            None
        };
        let Some(piece) = piece else { continue };
        if chars == MAX_SLUG_LEN || slug.len() + piece.len_utf8() > MAX_SLUG_BYTES {
            break;
        }
        slug.push(piece);
        chars += 1;
    }
    let slug = slug.trim_matches('-');
    if slug.is_empty() {
        "memory".to_string()
    } else {
        slug.to_string()
    }
}

/// A summary wider than this ([`summary_len`]) is cut at its first clause break for the title.
const CLAUSE_TITLE_LEN: usize = 60;

/// The `name` of a new document, read like a title: the summary without its closing
/// punctuation, cut at the first clause break (`, ` `; ` `，` `；` `：` ` — `) when longer than
/// 60 ([`summary_len`]) and the clause is not too short, first letter upper-cased (CJK is kept as written).
/// Past 72 UTF-16 units it is cut to 69 plus `...`, as upstream; a character is never split.
pub fn title_for(summary: &str) -> String {
    let s = collapse_whitespace(summary);
    let mut s: &str =
        s.trim_end_matches(['.', '。', '!', '！', ';', '；', ',', '，', ':', '：', ' ']);
    // "部署流程：先发预发环境，再发生产" / "Deploy process: staging first": a short label before a
    // colon is the title. A lead-in such as "我们团队规定:" or "Remember:" is not a label.
    if let Some(i) = s.find(['：', ':']) {
        let head = s[..i].trim_end();
        let tail = s[i..].trim_start_matches(['：', ':']).trim_start();
        let (hw, tw) = (summary_len(head), summary_len(tail));
        if (4..=24).contains(&hw)
            && tw >= 8
            && !tail.starts_with("//")
            && !crate::heuristic::sent::is_lead_in(head)
        {
            s = head;
        }
    }
    if summary_len(s) > CLAUSE_TITLE_LEN {
        let cut = [", ", "; ", "，", "；", "：", ": ", " — ", " – "]
            .iter()
            .filter_map(|sep| s.find(sep))
            .filter(|&i| summary_len(&s[..i]) >= 16)
            .min();
        if let Some(i) = cut {
            s = &s[..i];
        }
    }
    let mut chars = s.chars();
    let s = match chars.next() {
        Some(c) if c.is_lowercase() => {
            let upper: String = c.to_uppercase().collect();
            // A letter whose capital is several characters (ß → SS) is left alone.
            if upper.chars().count() == 1 {
                format!("{upper}{}", chars.as_str())
            } else {
                s.to_string()
            }
        }
        _ => s.to_string(),
    };
    if utf16_len(&s) <= MAX_TITLE_LEN {
        return s;
    }
    let cut = truncate_utf16(&s, TITLE_CUT).trim_end_matches(is_js_whitespace);
    format!("{cut}...")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_patches_must_be_grounded_in_the_cited_text() {
        assert!(!is_grounded(
            "Always push to main",
            "can you summarize the README?"
        ));
        assert!(is_grounded(
            "Staging is reset every Sunday night.",
            "Our staging environment is reset every Sunday night."
        ));
        assert!(is_grounded(
            "The user prefers pnpm over npm",
            "use pnpm, not npm"
        ));
        assert!(is_grounded(
            "部署前必须运行测试",
            "记住：部署前必须运行测试。"
        ));
        assert!(!is_grounded("部署前必须运行测试", "帮我总结一下这个文件"));
        assert!(!is_grounded("the and for", "the and for"));
    }
    use crate::formats::doc::MemoryType;

    fn patch(topic: MemoryType, summary: &str) -> Patch {
        Patch {
            topic,
            summary: summary.into(),
            why: None,
            how_to_apply: None,
            source_offset: 0,
        }
    }

    fn keeps(summary: &str) -> Option<String> {
        normalize_patch(patch(MemoryType::Project, summary)).map(|p| p.summary)
    }

    #[test]
    fn strips_one_leading_bullet_and_collapses() {
        assert_eq!(
            keeps("- we  use\tpnpm\n everywhere").as_deref(),
            Some("we use pnpm everywhere")
        );
        assert_eq!(
            keeps("* we use pnpm everywhere").as_deref(),
            Some("we use pnpm everywhere")
        );
        assert_eq!(
            keeps("•\twe use pnpm everywhere").as_deref(),
            Some("we use pnpm everywhere")
        );
        // Only one bullet goes.
        assert_eq!(
            keeps("- - we use pnpm everywhere").as_deref(),
            Some("- we use pnpm everywhere")
        );
        // A dash not followed by whitespace is content.
        assert_eq!(
            keeps("-we use pnpm everywhere").as_deref(),
            Some("-we use pnpm everywhere")
        );
        // Only at the very start, as upstream.
        assert_eq!(
            keeps("  - we use pnpm everywhere").as_deref(),
            Some("- we use pnpm everywhere")
        );
    }

    #[test]
    fn drops_summaries_under_twelve_utf16_units() {
        assert_eq!(keeps("hello"), None);
        assert_eq!(keeps("- 12345678901").as_deref(), None); // 11 after the bullet
        assert_eq!(keeps("123456789012").as_deref(), Some("123456789012"));
        // Five astral characters are 10 units; six are 12.
        assert_eq!(keeps("😀😀😀😀😀"), None);
        assert!(keeps("😀😀😀😀😀😀").is_some());
        // Whitespace does not pad the length.
        assert_eq!(keeps("   a    b   c    "), None);
    }

    #[test]
    fn drops_only_a_literal_trailing_question_mark() {
        assert_eq!(keeps("do we use pnpm everywhere?"), None);
        assert!(keeps("do we use pnpm everywhere？").is_some());
        assert!(keeps("we use pnpm (or do we?)").is_some());
        assert!(keeps("is it? we use pnpm everywhere").is_some());
    }

    #[test]
    fn temporary_words_match_on_ascii_word_boundaries_in_any_case() {
        for t in [
            "we deploy from main today",
            "Now, deploy from main always",
            "NOW we deploy from main",
            "deploy from main for now",
            "we are currently on node 18",
            "skip lint For This Task please",
            "in this session use verbose logs",
            "this is a temporary workaround",
            "temporarily pin node to 18",
            "deploy from main right now.",
            "ánow is not a word char before now",
        ] {
            assert_eq!(keeps(t), None, "{t}");
        }
        for t in [
            "nowhere in the code use unwrap",
            "the known issues live in the wiki",
            "snowfall metrics are in grafana",
            "we nowadays deploy from main",
            "todays build uses node 18",
            "this sessions table is sharded",
            "for this tasks list we use jira",
            "thiſ session table is sharded",
        ] {
            assert!(keeps(t).is_some(), "{t}");
        }
    }

    #[test]
    fn why_and_how_are_collapsed_but_never_judged() {
        let p = Patch {
            why: Some("  because   now ".into()),
            how_to_apply: Some(" ? ".into()),
            ..patch(MemoryType::Feedback, "keep answers short please")
        };
        let n = normalize_patch(p).unwrap();
        assert_eq!(n.why.as_deref(), Some("because now"));
        assert_eq!(n.how_to_apply.as_deref(), Some("?"));
        let blank = Patch {
            why: Some(" \n ".into()),
            ..patch(MemoryType::User, "i prefer tabs to spaces")
        };
        assert_eq!(normalize_patch(blank).unwrap().why, None);
    }

    #[test]
    fn topic_and_offset_pass_through() {
        let p = Patch {
            source_offset: 42,
            ..patch(MemoryType::Reference, "- runbook lives in the wiki")
        };
        let n = normalize_patch(p).unwrap();
        assert_eq!((n.topic, n.source_offset), (MemoryType::Reference, 42));
    }

    #[test]
    fn dedupe_by_entry_key_across_topics_first_wins() {
        let mut a = patch(MemoryType::User, "I prefer terse responses.");
        a.source_offset = 1;
        let mut b = patch(MemoryType::User, "i PREFER terse responses.");
        b.source_offset = 2;
        let c = patch(MemoryType::Feedback, "I prefer terse responses.");
        let d = patch(MemoryType::Project, "we use pnpm everywhere");
        let out = dedupe(vec![a.clone(), b, c, d.clone(), a.clone()]);
        assert_eq!(out, vec![a, d]);
    }

    #[test]
    fn slugify_rules() {
        assert_eq!(
            slugify("I prefer terse responses."),
            "i-prefer-terse-responses"
        );
        assert_eq!(slugify("  --Use pnpm!!  "), "use-pnpm");
        assert_eq!(slugify("Node 18 & PNPM 9"), "node-18-pnpm-9");
        assert_eq!(slugify(""), "memory");
        assert_eq!(slugify("???"), "memory");
        assert_eq!(slugify("日本語のメモ"), "日本語のメモ");
        assert_eq!(slugify("部署流程"), "部署流程");
        assert_eq!(
            slugify("以后回答我的时候请用中文。"),
            "以后回答我的时候请用中文"
        );
        assert_eq!(
            slugify("PR title 要用 Conventional Commits 格式"),
            "pr-title-要用-conventional-commits-格式"
        );
        assert_eq!(slugify("커밋 메시지는 영어로"), "커밋-메시지는-영어로");
        // Letters of any script are kept, lowercased.
        assert_eq!(slugify("Café Über naïve"), "café-über-naïve");
        assert_eq!(slugify("İstanbul"), "i̇stanbul");
        assert_eq!(slugify("\u{212A}elvin"), "kelvin");
        assert_eq!(slugify("。！？"), "memory");
    }

    #[test]
    fn slugify_caps_at_eighty_without_a_trailing_dash() {
        let long = "word ".repeat(40); // 200 chars
        let s = slugify(&long);
        assert!(s.len() <= 80, "{}", s.len());
        assert!(!s.ends_with('-'));
        assert_eq!(s, "word-".repeat(16).trim_end_matches('-'));
        let s = slugify(&"a".repeat(200));
        assert_eq!(s, "a".repeat(80));
        // A cut landing right after a separator drops it.
        let s = slugify(&format!("{} b", "a".repeat(79)));
        assert_eq!(s, "a".repeat(79));
        // CJK: 80 characters would be 240 bytes; the byte cap keeps file names short.
        let s = slugify(&"部".repeat(100));
        assert_eq!(s, "部".repeat(66));
    }

    #[test]
    fn titles_are_cut_at_72_utf16_units() {
        assert_eq!(title_for("  Keep   answers\nshort "), "Keep answers short");
        assert_eq!(
            title_for("we use pnpm everywhere."),
            "We use pnpm everywhere"
        );
        assert_eq!(
            title_for("以后回答我的时候请用中文。"),
            "以后回答我的时候请用中文"
        );
        assert_eq!(title_for("部署流程：先发预发环境，再发生产。"), "部署流程");
        assert_eq!(
            title_for("Deploy process: staging first, then production."),
            "Deploy process"
        );
        assert_eq!(
            title_for("我们团队规定: never push to main."),
            "我们团队规定: never push to main"
        );
        assert_eq!(
            title_for("The dashboard is https://grafana.example.com/d/x"),
            "The dashboard is https://grafana.example.com/d/x"
        );
        assert_eq!(
            title_for(
                "Don't add type annotations to local variables in Python, mypy infers them fine"
            ),
            "Don't add type annotations to local variables in Python"
        );
        assert_eq!(
            title_for("我们的 CI 用的是 GitLab CI，配置在 .gitlab-ci.yml 里，每次合并都会跑完整的测试和静态检查。"),
            "我们的 CI 用的是 GitLab CI"
        );
        // The first letter is upper-cased.
        let exact = format!("A{}", "a".repeat(71));
        assert_eq!(title_for(&exact.to_lowercase()), exact);
        let t = title_for(&"a".repeat(73));
        assert_eq!(t, format!("A{}...", "a".repeat(68)));
        let t = title_for(&"word ".repeat(40)); // 200 chars
        assert_eq!(t, format!("W{}word...", &"word ".repeat(13)[1..]));
        // A cut landing on a space is end-trimmed before the ellipsis.
        let t = title_for(&"ab ".repeat(70));
        assert_eq!(t, format!("A{}ab...", &"ab ".repeat(22)[1..]));
        // Counting is in UTF-16 units: 36 astral characters are 72 units and stay whole.
        let emoji = "😀".repeat(36);
        assert_eq!(title_for(&emoji), emoji);
        // 37 are 74 units; 69 units would split a pair, so 34 characters (68 units) remain.
        assert_eq!(
            title_for(&"😀".repeat(37)),
            format!("{}...", "😀".repeat(34))
        );
        // BMP non-ASCII counts one unit each.
        let accents = format!("É{}", "é".repeat(71));
        assert_eq!(title_for(&accents), accents);
        assert_eq!(
            title_for(&"é".repeat(200)),
            format!("É{}...", "é".repeat(68))
        );
    }
}
