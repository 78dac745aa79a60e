//! Sentences with Chinese, Japanese or Korean text, alone or mixed with English.
//!
//! A sentence is read in three steps. A lead-in before a colon or comma ("记住：", "我们团队规定:",
//! "覚えておいて：", "기억해:", "Remember:") is taken off and remembered. If what remains has no
//! CJK text, the English rules judge it, so a Chinese or Japanese lead-in never hides an English
//! rule. Otherwise the rules of the sentence's script judge it: Korean when it has Hangul,
//! Japanese when it has kana, Chinese (simplified and traditional alike) otherwise.
//!
//! The rules are plain substring and character tests, no regular expressions: they cost
//! nothing to set up, which matters for a process started after every agent turn.

use super::mask::Masked;
use super::script::{is_cjk, is_hangul, is_kana};
use super::segment::MAX_SENTENCE_LEN;
use super::sent::{has_path, lead_in, strip_correction, Lead, Sent};
use super::words::cjk as words;
use super::{en, ja, ko, zh, Candidate};
use crate::filter;
use crate::formats::doc::MemoryType;
use crate::formats::text::{collapse_whitespace, utf16_len};

pub(super) fn classify_sentence(raw: &str) -> Option<Candidate> {
    let text = collapse_whitespace(raw);
    if text.chars().any(is_hangul) {
        // Korean chat: "아 그리고 …", "…해요 ㅋㅋ" — the filler around a statement says nothing.
        let tidy = ko::tidy(&text);
        return classify_text(tidy.to_string()).or_else(|| korean_clauses(tidy));
    }
    if text.chars().any(is_kana) {
        return classify_text(text.clone()).or_else(|| japanese_clauses(&text));
    }
    classify_text(text.clone()).or_else(|| chinese_clauses(&text))
}

/// The first clause that still counts: the one after the last clause about this once ("저도
/// pnpm 좋아해요, 근데 이번엔 npm 써요": what comes before it gives way to it).
fn after_last_one_time(clauses: &[&str], one_time: fn(&str) -> bool) -> usize {
    clauses
        .iter()
        .rposition(|c| one_time(c))
        .map_or(0, |i| i + 1)
}

/// "이거 고쳐 주고, 참고로 우리는 …": a one-off request joined to a durable statement; each
/// clause is judged alone and the first durable one is kept, with its own type.
fn korean_clauses(tidy: &str) -> Option<Candidate> {
    let clauses = ko::clauses(tidy);
    if clauses.len() < 2 {
        return None;
    }
    let from = after_last_one_time(&clauses, ko::one_time);
    clauses[from..]
        .iter()
        .enumerate()
        .filter(|(i, c)| from + i == 0 || !ko::detail(c))
        .find_map(|(i, c)| {
            let c = ko::tidy(c);
            if from + i + 1 < clauses.len() {
                classify_text(ko::as_statement(c, false))
            } else {
                classify_text(c.to_string())
            }
        })
}

/// "帮我 fix 一下这个 lint error，btw 我们的 ESLint config 是 airbnb base": a request about the
/// work at hand joined to a durable statement. Each clause is judged alone and the first
/// durable one after the last clause about this once is kept, unless the whole sentence is a
/// question, a what-if or thanks.
fn chinese_clauses(text: &str) -> Option<Candidate> {
    if zh::sentence_noise(text) {
        return None;
    }
    let clauses = zh::clauses(text);
    if clauses.len() < 2 {
        return None;
    }
    // "…你先按这个思路改，另外提醒一下我们上线必须走灰度，先放 5% 流量": after a change of
    // topic the clauses about this once are skipped, not taken as the end of everything before.
    let shift = clauses.iter().rposition(|c| zh::shifts_topic(c));
    let from = shift.unwrap_or_else(|| after_last_one_time(&clauses, zh::one_time));
    let moment = zh::in_the_moment(text);
    // "…这个报错哈 另外提醒你一下 我们的python是3.8": after the change of topic the clauses
    // that follow it are free of the moment too.
    clauses[from..]
        .iter()
        .enumerate()
        .filter(|(k, c)| {
            (!moment || zh::shifts_topic(c) || (shift.is_some() && *k > 0)) && !zh::continues(c)
        })
        .filter(|(_, c)| shift.is_none() || !zh::one_time(c))
        .find_map(|(_, c)| classify_text(c.to_string()))
}

/// "テストは pytest で書いてね、unittest は使わない方針なので": each clause of a Japanese
/// sentence is judged alone when the whole is not kept, as for Chinese.
fn japanese_clauses(text: &str) -> Option<Candidate> {
    if ja::sentence_noise(text) {
        return None;
    }
    let clauses = ja::clauses(text);
    if clauses.len() < 2 {
        return None;
    }
    let from = after_last_one_time(&clauses, ja::one_time);
    clauses[from..]
        .iter()
        .find_map(|c| classify_text(c.to_string()))
}

fn classify_text(text: String) -> Option<Candidate> {
    let text = match strip_correction(&text) {
        rest if rest.len() < text.len() => rest.to_string(),
        _ => text,
    };
    let len = utf16_len(&text);
    if len > MAX_SENTENCE_LEN || filter::summary_len(&text) < filter::MIN_SUMMARY_LEN {
        return None;
    }
    let masked = Masked::new(&text);
    if en::looks_like_machine_text(&masked) {
        return None;
    }
    let (lead, body_at) = lead_in(&masked.mask);
    let body = masked.tail(body_at)?;
    let body_text = body.orig.trim();
    if body_text.is_empty() {
        return None;
    }
    if !body_text.chars().any(is_cjk) {
        return english_after_lead(&text, body_text, lead);
    }
    // "对了，I use Neovim …", "注意：never run kubectl …": a filler or a label before an English
    // sentence; the English rules judge the English.
    if lead == Lead::None {
        if let Some(english) = english_after_filler(body_text) {
            return english_after_lead(&text, english, lead);
        }
    }
    let m = if body.mask.chars().any(|c| is_kana(c) || is_hangul(c)) {
        body.mask.trim().to_string()
    } else {
        cantonese_to_mandarin(body.mask.trim())
    };
    let s = Sent {
        lower: m.to_ascii_lowercase(),
        m,
        url: body.has_url(),
        path: has_path(&body.mask),
        lead,
    };
    let topic = if s.m.chars().any(is_hangul) {
        ko::classify(&s)
    } else if s.m.chars().any(is_kana) {
        ja::classify(&s)
    } else {
        zh::classify(&s)
    }?;
    // A remember cue is a request to store, not part of the fact; a team-rule cue is.
    let kept = match lead {
        Lead::Remember | Lead::Standing => body_text.to_string(),
        _ => text.clone(),
    };
    let (mut summary, why) = split_why(&kept);
    if topic == MemoryType::Project {
        summary = drop_state_adverbs(&summary);
    }
    Some(Candidate {
        topic,
        summary,
        why,
    })
}

/// Written Cantonese ("我哋 team 用 Jira", "runbook 都喺 Notion", "我係 junior") says what
/// Mandarin says with other function words; the Chinese rules read it in the Mandarin ones.
/// Only the text the rules read changes, never the summary.
pub(super) fn cantonese_to_mandarin(m: &str) -> String {
    const MAP: &[(&str, &str)] = words::CANTONESE_TO_MANDARIN__MAP;
    // Only a character Mandarin never writes marks the text as Cantonese: 係 (關係), 呢 and
    // 就得 ("上线前就得过 review": an obligation) are Mandarin too and must keep their meaning.
    if !m.contains(['哋', '唔', '喺', '嘅', '咗', '啲', '冇', '嚟', '掂']) {
        return m.to_string();
    }
    let mut out = m.to_string();
    for (from, to) in MAP {
        out = out.replace(from, to);
    }
    out
}

/// "我们 currently 用 Redis 7": an English "currently"/"now" inside a fact of the project qualifies
/// a standing state, not the moment. It leaves the summary (the patch filter would drop the
/// fact for it); "目前"/"現在" are not in the filter's list and stay.
fn drop_state_adverbs(summary: &str) -> String {
    let mut out = String::with_capacity(summary.len());
    for (i, w) in summary.split(' ').enumerate() {
        let bare = w.to_ascii_lowercase();
        if matches!(bare.as_str(), "currently" | "now") {
            continue;
        }
        if i > 0 && !out.is_empty() {
            out.push(' ');
        }
        out.push_str(w);
    }
    out
}

/// The English after a leading CJK filler or label ("另外", "对了，", "注意：", "ちなみに、"),
/// when nothing else in the sentence is CJK.
fn english_after_filler(text: &str) -> Option<&str> {
    const FILLER: &[&str] = words::ENGLISH_AFTER_FILLER__FILLER;
    let cue = FILLER.iter().find(|c| text.starts_with(**c))?;
    let rest = text[cue.len()..].trim_start_matches([':', '：', ',', '，', '、', ' ', '-', '—']);
    (rest.len() < text.len() - cue.len() || rest.starts_with(|c: char| c.is_ascii_alphabetic()))
        .then_some(rest)
        .filter(|r| !r.is_empty() && !r.chars().any(is_cjk))
}

/// A CJK lead-in followed by English: the English rules judge the English part.
fn english_after_lead(whole: &str, body: &str, lead: Lead) -> Option<Candidate> {
    match lead {
        Lead::Remember => {
            let c = en::classify_sentence(&format!("Remember that {body}"))?;
            Some(c)
        }
        Lead::TeamRule => {
            let c = en::classify_sentence(body).or_else(|| {
                // The lead-in already says it is a rule: any English statement of a few words
                // that is not a question is one.
                let words = body.split_whitespace().count();
                (words >= 3 && !body.contains('?')).then(|| Candidate {
                    topic: MemoryType::Project,
                    summary: body.to_string(),
                    why: None,
                })
            })?;
            Some(Candidate {
                topic: MemoryType::Project,
                summary: whole.to_string(),
                why: c.why,
            })
        }
        Lead::Standing => en::classify_sentence(&format!("From now on, {body}")),
        Lead::None => en::classify_sentence(body),
    }
}

/// Splits off a reason given in the same sentence: "…，因为…", "因为…，所以…", "…ので、…",
/// "…때문에 …", "…; because …". Returns the fact (with its closing mark) and the reason.
pub(super) fn split_why(text: &str) -> (String, Option<String>) {
    let text = text.trim();
    let end = text
        .chars()
        .last()
        .filter(|c| matches!(c, '。' | '！' | '.' | '!'))
        .map(String::from)
        .unwrap_or_default();
    let core = text.trim_end_matches(['。', '！', '.', '!']);
    // Reason after the fact.
    for sep in words::SPLIT_WHY__AFTER {
        if let Some(i) = core.find(sep) {
            let (fact, why) = (&core[..i], &core[i + sep.len()..]);
            let fact = fact.trim_end_matches([',', '，', ' ', ';', '；']);
            let why = why.trim();
            if fact.chars().count() >= 4 && why.chars().count() >= 2 {
                return (format!("{fact}{end}"), Some(why.to_string()));
            }
        }
    }
    // Reason before the fact: "因为…，所以…", "…ので、…", "…때문에 …", "…から、…".
    for (open, sep) in [
        ("因为", "，所以"),
        ("因為", "，所以"),
        ("", "ので、"),
        ("", "ので，"),
        ("", "から、"),
        ("", "때문에, "),
        ("", "때문에 "),
        ("", "니까, "),
        ("", "니까 "),
    ] {
        let body = core.strip_prefix(open).unwrap_or(core);
        if open.is_empty() || core.starts_with(open) {
            if let Some(i) = body.find(sep) {
                // A Korean reason keeps its marker: "…못 읽기 때문에" reads as a reason,
                // "…못 읽기" does not.
                let why_end = if sep.starts_with(is_hangul) {
                    i + sep.trim_end_matches([' ', ',']).len()
                } else {
                    i
                };
                let (why, fact) = (&body[..why_end], &body[i + sep.len()..]);
                if fact.chars().count() >= 4 && why.chars().count() >= 2 {
                    return (
                        format!("{}{end}", fact.trim()),
                        Some(why.trim().to_string()),
                    );
                }
            }
        }
    }
    (text.to_string(), None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reasons_become_why() {
        assert_eq!(
            split_why("所有的 SQL 都要用参数化查询，因为之前出过注入问题。"),
            (
                "所有的 SQL 都要用参数化查询。".to_string(),
                Some("之前出过注入问题".to_string())
            )
        );
        assert_eq!(
            split_why("因为上线要审批，所以周五不发版。"),
            ("周五不发版。".to_string(), Some("上线要审批".to_string()))
        );
        assert_eq!(
            split_why("리뷰어가 한국어를 못 읽기 때문에 PR 설명은 영어로 써 주세요."),
            (
                "PR 설명은 영어로 써 주세요.".to_string(),
                Some("리뷰어가 한국어를 못 읽기 때문에".to_string())
            )
        );
        assert_eq!(
            split_why("로그가 너무 많으니까 debug 로그는 남기지 마."),
            (
                "debug 로그는 남기지 마.".to_string(),
                Some("로그가 너무 많으니까".to_string())
            )
        );
        assert_eq!(
            split_why("我们用 pnpm。"),
            ("我们用 pnpm。".to_string(), None)
        );
    }
}
