//! Japanese rules.
//!
//! Durable: requests with a standing cue ("今後…", "常に…", "必ず…") or about a topic marked with
//! は ("コミットメッセージは英語で書いてください"), prohibitions ("…しないでください"), rules ("…こと。",
//! "…ルールです"), facts about the user ("私は…"), facts of the project ("このプロジェクトでは…",
//! "うちのチームでは…", "現在、…"), pointers ("…は <URL> にあります").
//! Noise: requests about an object marked with を and no standing cue ("変数名を userId に変えて
//! ください"), "この…", "今回", "今日", questions, thanks, opinions ("…と思います"), past tense.

use super::script::{is_han, is_kana};
use super::sent::{Lead, Sent, EN_MOMENT, EN_STANDING};
use super::words::ja as words;
use crate::formats::doc::MemoryType;

const MOMENT: &[&str] = words::MOMENT;

/// Reports about the work at hand: something fails, is slow or broken.
const REPORT: &[&str] = words::REPORT;

/// Where requests and reports go: asking to use one of these is a pointer, not a style rule.
const CHANNEL: &[&str] = words::CHANNEL;

const AT_HAND: &[&str] = words::AT_HAND;

const THIS_PROJECT: &[&str] = words::THIS_PROJECT;

const STANDING: &[&str] = words::STANDING;

const REQUEST_END: &[&str] = words::REQUEST_END;

const PROHIBITION: &[&str] = words::PROHIBITION;

const USER_START: &[&str] = words::USER_START;

const PROJECT_START: &[&str] = words::PROJECT_START;

const DOC_NOUN: &[&str] = words::DOC_NOUN;

const LOCATED: &[&str] = words::LOCATED;

pub(super) fn classify(s: &Sent) -> Option<MemoryType> {
    if s.question() || matches!(s.last(), Some('か')) {
        return None;
    }
    let m = strip_fillers(&s.m);
    if states_secret(&s.lower) {
        return None;
    }
    if let Some(t) = super::zh::label_fact(s, m) {
        return t;
    }
    if s.has(MOMENT) || s.any_word(EN_MOMENT) {
        return None;
    }
    let standing = s.has(STANDING) || s.any_word(EN_STANDING);
    let mut rest = s.m.clone();
    for p in THIS_PROJECT {
        rest = rest.replace(p, "");
    }
    // "覚えておいて、このAPIの時刻はUTC": asked to keep it, the demonstrative stays.
    if AT_HAND.iter().any(|c| rest.contains(c)) && !standing && s.lead != Lead::Remember {
        return None;
    }
    let core = m.trim_end_matches(['。', '！', '？', '.', '!', '?', ' ', '｡', '．', '〜', '~']);
    let core = core.trim_end_matches(['、', ',']);
    let prohibition = s.has(PROHIBITION);
    // "コメントは日本語で書いて": a casual request ends on the bare て form.
    let casual_te = core.ends_with('て')
        && core
            .chars()
            .rev()
            .nth(1)
            .is_some_and(|c| "いっしんきびみり".contains(c));
    let request = REQUEST_END.iter().any(|e| core.ends_with(e)) || prohibition || casual_te;
    // "…で出す方針です", "…しない決まりになってます": a rule of the team, stated.
    let rule_end = core.ends_with("こと")
        || core.ends_with("ルールです")
        || core.ends_with("ルール")
        || words::CLASSIFY__POLICY_END
            .iter()
            .any(|e| core.ends_with(e));
    if request && !standing && !prohibition && !topic_before_object(core) {
        // "変数名を userId に変えてください": a request about one object.
        return None;
    }
    if USER_START.iter().any(|c| m.starts_with(c)) {
        return Some(MemoryType::User);
    }
    // "Python はあまり詳しくない": what the speaker knows, said without 私は.
    if SKILL_END.iter().any(|e| core.ends_with(e)) && !s.has(REPORT_SKILL) {
        return Some(MemoryType::User);
    }
    if request && !prohibition && s.has(CHANNEL) {
        return Some(MemoryType::Reference);
    }
    let starts_project = PROJECT_START.iter().any(|c| m.starts_with(c));
    // "うちの main ブランチへの直 push は禁止です": a rule of the team, stated.
    if starts_project && core.ends_with("禁止です") {
        return Some(MemoryType::Project);
    }
    if request || core.ends_with("こと") {
        return Some(MemoryType::Feedback);
    }
    if s.url {
        return Some(MemoryType::Reference);
    }
    // "docs/ 以下に…": under a path, not "the following".
    let report = REPORT.iter().any(|r| s.m.replace("以下に", "").contains(r));
    // "PagerDuty で管理してます", "Slack では #dev-help に…": a named tool or a channel.
    let tool_managed = s.m.match_indices("で管理").any(|(i, _)| {
        s.m[..i]
            .trim_end()
            .rsplit(' ')
            .next()
            .is_some_and(|w| w.chars().any(|c| c.is_ascii_uppercase()))
    });
    if (tool_managed || super::zh::names_channel(&s.m)) && !report {
        return Some(MemoryType::Reference);
    }
    if s.has(LOCATED) && (s.has(DOC_NOUN) || (s.path && !starts_project)) && !report {
        return Some(MemoryType::Reference);
    }
    if s.lead == Lead::TeamRule || rule_end {
        return Some(MemoryType::Project);
    }
    let statement = words::CLASSIFY__STATEMENT_END
        .iter()
        .any(|e| core.ends_with(e));
    // "監視は Zabbix でやってる": the casual progressive, read only after a topic ("CPU 使用率が
    // ずっと 100% に張り付いてる" is a symptom).
    let casual = core.ends_with("てる") || core.ends_with("でる");
    // "現状、テストカバレッジは 35% です": a measurement of now, not how things are done.
    let measured_now = s.has(REPORT) && !standing;
    if statement && (starts_project || standing || s.lead == Lead::Remember) && !measured_now {
        return Some(MemoryType::Project);
    }
    // "ログは全て JSON 形式で出力します": a statement about a topic named first is how the
    // project works, unless it reports a failure.
    let opening: String = core.chars().take(16).collect();
    if (statement || casual) && topic_wa(&opening) && !report {
        return Some(MemoryType::Project);
    }
    // "リリースは毎月第一火曜日": a topic and a noun for a standing fact.
    if topic_wa(&opening) && (standing || starts_project) && !report {
        return Some(MemoryType::Project);
    }
    // "課題管理は Backlog", "インデントはタブ", "リリースは月末締め": a topic answered by a bare
    // noun is how things are, by default — unless the topic is about the moment ("次は…",
    // "原因は…") or the line reports something.
    let noun_end = core
        .chars()
        .last()
        .is_some_and(|c| !('\u{3040}'..='\u{309F}').contains(&c) && c != 'ー');
    if noun_end && topic_wa(&opening) && !report && !s.has(NOW_TOPIC) && !number_value(core) {
        let topic = &core[..core.find('は').unwrap_or(0)];
        if s.has(CHANNEL) || DOC_NOUN.iter().chain(CONTACT).any(|d| topic.contains(d)) {
            return Some(MemoryType::Reference);
        }
        return Some(MemoryType::Project);
    }
    // "画像は全部 WebP に変換して使う": a topic and a rule for all of it.
    if topic_wa(&opening) && s.has(words::CLASSIFY__FOR_ALL) && !report && !core.ends_with('た') {
        return Some(MemoryType::Project);
    }
    // "マージ前に必ずレビュー2人": a firm standing cue carries a bare noun line.
    if noun_end && s.has(FIRM) && !report {
        return Some(MemoryType::Project);
    }
    None
}

/// Topics that name the moment, not how things are: "次はログイン画面", "原因はキャッシュ".
const NOW_TOPIC: &[&str] = words::NOW_TOPIC;

/// "レスポンスは500", "ビルド時間は4分": a topic answered by a number is a measurement.
fn number_value(core: &str) -> bool {
    let Some(i) = core.rfind('は') else {
        return false;
    };
    let value = core[i + 'は'.len_utf8()..].trim();
    // "PHPは8.1固定", "…は3回まで": a limit set, not a measurement.
    let limit = words::NUMBER_VALUE__LIMIT.iter().any(|w| value.contains(w));
    !limit
        && value.starts_with(|c: char| c.is_ascii_digit())
        && value
            .chars()
            .filter(|c| !c.is_ascii_digit() && !matches!(c, '.' | ',' | ' '))
            .count()
            <= 2
}

/// Topics that say who to reach: "障害時の連絡先は…".
const CONTACT: &[&str] = words::CONTACT;

/// Cues firm enough to carry a line without a verb.
const FIRM: &[&str] = words::FIRM;

/// "…は詳しくない", "…が苦手": what the speaker knows or is used to.
const SKILL_END: &[&str] = words::SKILL_END;

/// A failure or the code at hand, not the speaker.
const REPORT_SKILL: &[&str] = words::REPORT_SKILL;

/// Chat openers that say nothing: "あと、", "ちなみに", "えっと".
const FILLER: &[&str] = words::FILLER;

fn strip_fillers(m: &str) -> &str {
    let mut m = m.trim_start();
    loop {
        let before = m.len();
        for f in FILLER {
            if let Some(rest) = m.strip_prefix(f) {
                m = rest.trim_start_matches(['、', ',', ' ']);
            }
        }
        if m.len() == before {
            return m;
        }
    }
}

/// A topic (は, には, では) named before the object (を): "関数には docstring を書いてください"
/// is a rule for every function; "変数名を userId に変えてください" is about one name.
fn topic_before_object(core: &str) -> bool {
    let head = match core.find('を') {
        Some(i) => &core[..i],
        None => core,
    };
    topic_wa(head)
        || words::TOPIC_BEFORE_OBJECT__TOPIC
            .iter()
            .any(|w| head.contains(w))
}

/// The clauses of a Japanese sentence, cut at "、" after a verb form that closes a thought
/// ("…てね、", "…お願いします、", "…ます、", "…です、") and before "あと"/"ちなみに".
pub(super) fn clauses(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, c) in text.char_indices() {
        if c != '、' && c != ',' {
            continue;
        }
        let before = &text[start..i];
        let closes = words::CLAUSES__CLOSES.iter().any(|e| before.ends_with(e));
        let shift = FILLER
            .iter()
            .any(|f| text[i + c.len_utf8()..].trim_start().starts_with(f));
        if closes || shift {
            let clause = before.trim();
            if !clause.is_empty() {
                out.push(clause);
            }
            start = i + c.len_utf8();
        }
    }
    let last = text[start..].trim();
    if !last.is_empty() {
        out.push(last);
    }
    out
}

/// "パスワードは hunter2 です", "トークン: …": a secret handed over, never a memory.
fn states_secret(lower: &str) -> bool {
    const SECRET: &[&str] = words::STATES_SECRET__SECRET;
    SECRET.iter().any(|w| {
        lower.match_indices(w).any(|(i, _)| {
            let after = lower[i + w.len()..].trim_start();
            // A value follows: "パスワードは hunter2hunter2 です", not "API キーは環境変数から…".
            let value = after.trim_start_matches(['は', ':', '：', ' ']);
            let token: String = value.chars().take_while(|c| c.is_ascii_graphic()).collect();
            after.starts_with(['は', ':', '：']) && token.len() >= 4
        })
    })
}

/// A clause about this once.
pub(super) fn one_time(clause: &str) -> bool {
    words::ONE_TIME__ONCE.iter().any(|w| clause.contains(w))
}

/// Whole-sentence noise no clause of it escapes: a question, thanks, a what-if.
pub(super) fn sentence_noise(text: &str) -> bool {
    let t = text.trim_end_matches(['。', '！', '.', '!', ' ']);
    t.contains('？')
        || t.ends_with('?')
        || t.ends_with('か')
        || words::SENTENCE_NOISE__NOISE.iter().any(|w| t.contains(w))
        || states_secret(&t.to_ascii_lowercase())
}

/// A topic marked with は: は right after kanji, katakana or Latin text (a particle, not part of
/// a hiragana word such as "はい").
fn topic_wa(core: &str) -> bool {
    let chars: Vec<char> = core.chars().collect();
    chars.windows(2).any(|w| {
        w[1] == 'は'
            && (is_han(w[0])
                || (is_kana(w[0]) && !('\u{3040}'..='\u{309F}').contains(&w[0]))
                || w[0].is_ascii_alphanumeric()
                || w[0] == ' ')
    })
}
