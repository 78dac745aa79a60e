//! A CJK sentence as the rules of each language see it ([`Sent`]), the lead-in before it
//! ("记住：", "我们团队规定:", "覚えておいて：", "기억해:", "Remember:") and the English words
//! the rules look for inside CJK text. Shared by [`super::cjk`], which reads the sentence, and
//! by the rules of each language ([`super::zh`], [`super::ja`], [`super::ko`]) and the patch
//! filter, which judge it; it depends on none of them (docs/DESIGN.md, "Extract").

use super::script::is_cjk;
use super::words::cjk as words;

/// What a lead-in says about the sentence after it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Lead {
    None,
    /// "记住", "覚えて", "기억해", "Remember": store what follows; the cue is not kept.
    Remember,
    /// "我们团队规定", "チームのルール": a rule of the team; the cue is kept in the summary.
    TeamRule,
    /// "From now on", "Going forward" before CJK text: what follows is a standing instruction.
    /// The cue is not kept (its "now" would trip the filter).
    Standing,
}

const STANDING_CUES: &[&str] = words::STANDING_CUES;

const REMEMBER_CUES: &[&str] = words::REMEMBER_CUES;

const TEAM_RULE_CUES: &[&str] = words::TEAM_RULE_CUES;

/// The sentence as the rules see it: the masked text (code spans and URLs hidden) without its
/// lead-in, plus the facts every language asks about.
pub(super) struct Sent {
    /// Masked text, trimmed, lead-in removed.
    pub m: String,
    /// `m` with ASCII lowercased, for English words inside CJK text.
    pub lower: String,
    pub url: bool,
    pub path: bool,
    pub lead: Lead,
}

impl Sent {
    pub fn has(&self, cues: &[&str]) -> bool {
        cues.iter().any(|c| self.m.contains(c))
    }

    /// An ASCII word or phrase (lowercase) at ASCII word boundaries.
    pub fn word(&self, w: &str) -> bool {
        let b = self.lower.as_bytes();
        self.lower.match_indices(w).any(|(i, _)| {
            let before = i == 0 || !b[i - 1].is_ascii_alphanumeric();
            let j = i + w.len();
            let after = j >= b.len() || !b[j].is_ascii_alphanumeric();
            before && after
        })
    }

    pub fn any_word(&self, ws: &[&str]) -> bool {
        ws.iter().any(|w| self.word(w))
    }

    /// The text without its closing punctuation.
    pub fn core(&self) -> &str {
        self.m
            .trim_end_matches(['。', '！', '？', '；', '.', '!', '?', ';', '｡', '．', ' '])
    }

    /// The last character before the closing punctuation.
    pub fn last(&self) -> Option<char> {
        self.core().chars().last()
    }

    /// A question: a question mark at the end, or a full-width one anywhere (an ASCII `?`
    /// inside the text can be Rust's `?` operator).
    pub fn question(&self) -> bool {
        self.m.contains('？') || self.m.trim_end().ends_with('?')
    }
}

/// English words that make a CJK sentence about the moment, whatever else it says.
pub(super) const EN_MOMENT: &[&str] = words::EN_MOMENT;

/// English words that mark a standing rule inside a CJK sentence.
pub(super) const EN_STANDING: &[&str] = words::EN_STANDING;

/// Whether the whole of `text` is a known lead-in cue.
pub(crate) fn is_lead_in(text: &str) -> bool {
    let lower = text.trim().to_ascii_lowercase();
    TEAM_RULE_CUES.contains(&lower.as_str()) || REMEMBER_CUES.contains(&lower.as_str())
}

/// The lead-in of a sentence and the byte offset where the rest begins. A lead-in is a known
/// cue followed by a colon, a comma or a space, or any short text before a colon.
pub(super) fn lead_in(mask: &str) -> (Lead, usize) {
    let lower = mask.to_ascii_lowercase();
    let after_cue = |cue: &str| -> Option<usize> {
        if !lower.starts_with(cue) {
            return None;
        }
        let rest = &mask[cue.len()..];
        let skipped = rest.trim_start_matches([':', '：', ',', '，', '、', ' ', '-', '—']);
        // A cue glued to the text ("记住我们…") still counts in CJK; in English a word must end.
        let glued = skipped.len() == rest.len();
        if glued && !rest.starts_with(is_cjk) && cue.is_ascii() {
            return None;
        }
        Some(mask.len() - skipped.len())
    };
    for cue in TEAM_RULE_CUES {
        if let Some(at) = after_cue(cue) {
            return (Lead::TeamRule, at);
        }
    }
    for cue in REMEMBER_CUES {
        if let Some(at) = after_cue(cue) {
            return (Lead::Remember, at);
        }
    }
    for cue in STANDING_CUES {
        if let Some(at) = after_cue(cue) {
            return (Lead::Standing, at);
        }
    }
    // "把这条写进 CLAUDE.md：…", "CLAUDE.mdに追記して：…", "이거 규칙으로 추가해줘: …": a short
    // request to record what follows the colon; the request is not part of the fact.
    if let Some(colon) = mask.find(['：', ':']) {
        let head = &lower[..colon];
        let rest = &mask[colon..];
        let skipped = rest.trim_start_matches([':', '：', ' ']);
        if head.chars().count() <= RECORD_HEAD_CHARS
            && RECORD_REQUEST_HEADS.iter().any(|w| head.contains(w))
            && RECORD_TARGETS.iter().any(|w| head.contains(w))
            && !skipped.trim().is_empty()
        {
            return (Lead::Remember, mask.len() - skipped.len());
        }
    }
    (Lead::None, 0)
}

/// The words of a request to record ("写进", "追記して", "추가해") and of what it records into
/// (CLAUDE.md, 规则, ルール, 규칙, …) that together make the short text before a colon a lead-in
/// ([`lead_in`]); the verb alone is a label or a report as often ("日志写入：…").
const RECORD_REQUEST_HEADS: &[&str] = words::RECORD_REQUEST_HEADS;
const RECORD_TARGETS: &[&str] = words::RECORD_TARGETS;

/// How long (in characters) the text before a colon may be to read as a request to record.
const RECORD_HEAD_CHARS: usize = 24;

/// `text` without a correction's opening ("不是，", "いや、", "아니, "; `CORRECTION_CUES`),
/// which only says that what follows replaces something said before.
pub(super) fn strip_correction(text: &str) -> &str {
    const CUES: &[&str] = words::CORRECTION_CUES;
    let trimmed = text.trim_start();
    for cue in CUES {
        let Some(rest) = trimmed.strip_prefix(cue) else {
            continue;
        };
        let after = rest.trim_start_matches([',', '，', '、']);
        if after.len() < rest.len() {
            let after = after.trim_start();
            if !after.is_empty() {
                return after;
            }
        }
    }
    text
}

/// A file path or file name: a token with a `/` between letters, or ending in a known extension.
pub(super) fn has_path(mask: &str) -> bool {
    const EXT: &[&str] = words::HAS_PATH__EXT;
    mask.split(|c: char| c.is_whitespace() || (is_cjk(c) && c != '／'))
        .map(|t| t.trim_matches(|c: char| matches!(c, ',' | '.' | ';' | ':' | '(' | ')' | '`')))
        .any(|t| {
            let lower = t.to_ascii_lowercase();
            // "Next.js", "Node.js": a framework's name, not a file.
            let framework =
                lower.ends_with(".js") && t.starts_with(|c: char| c.is_ascii_uppercase());
            (t.contains('/') && t.chars().filter(|c| c.is_ascii_alphabetic()).count() >= 2)
                || (!framework
                    && EXT
                        .iter()
                        .any(|e| lower.ends_with(e) && lower.len() > e.len()))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_corrections_opening_is_not_part_of_the_rule() {
        assert_eq!(
            strip_correction("不是，链接放在每条分析下面"),
            "链接放在每条分析下面"
        );
        assert_eq!(
            strip_correction("いや、太字は使わないで"),
            "太字は使わないで"
        );
        assert_eq!(strip_correction("아니, 커밋은 영어로"), "커밋은 영어로");
        // Without the comma it is the sentence's own word; alone it leaves nothing to keep.
        assert_eq!(strip_correction("不是很好的方案"), "不是很好的方案");
        assert_eq!(strip_correction("いやだ、それは"), "いやだ、それは");
        assert_eq!(strip_correction("不是，"), "不是，");
    }

    #[test]
    fn lead_ins_are_recognized_and_skipped() {
        let (l, at) = lead_in("我们团队规定: never push to main.");
        assert_eq!(
            (l, &"我们团队规定: never push to main."[at..]),
            (Lead::TeamRule, "never push to main.")
        );
        let (l, at) = lead_in("记住，我们用 pnpm。");
        assert_eq!(
            (l, &"记住，我们用 pnpm。"[at..]),
            (Lead::Remember, "我们用 pnpm。")
        );
        assert_eq!(lead_in("Remembering things is hard").0, Lead::None);
        for (text, rest) in [
            ("把这条写进 CLAUDE.md：提交信息用英文。", "提交信息用英文。"),
            (
                "CLAUDE.mdに追記して：mainへの直接pushは禁止。",
                "mainへの直接pushは禁止。",
            ),
            (
                "이거 규칙으로 추가해줘: 커밋 메시지는 영어로.",
                "커밋 메시지는 영어로.",
            ),
            (
                "Remember this: the prod DB is read-only.",
                "the prod DB is read-only.",
            ),
        ] {
            let (l, at) = lead_in(text);
            assert_eq!((l, &text[at..]), (Lead::Remember, rest), "{text}");
        }
        // A label before a colon is not a request to record, nor is a report.
        assert_eq!(lead_in("代码规范：使用 4 空格缩进。").0, Lead::None);
        assert_eq!(lead_in("日志写入：每秒 2000 条。").0, Lead::None);
        assert_eq!(
            lead_in("我刚才把 token 加到 header 里了: 现在还是 401").0,
            Lead::None
        );
        assert_eq!(lead_in("部署流程：先发预发环境，再发生产。").0, Lead::None);
        assert_eq!(lead_in("我们用 pnpm。").0, Lead::None);
    }

    #[test]
    fn paths_are_found() {
        assert!(has_path("部署脚本在 scripts/deploy.sh。"));
        assert!(has_path("配置在 .gitlab-ci.yml 里"));
        assert!(!has_path("我们用 pnpm 和 Node 20。"));
        assert!(!has_path("不要用 unwrap()，用 ? 或者 expect。"));
    }
}
