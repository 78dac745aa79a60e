//! Japanese rules.
//!
//! Durable: requests with a standing cue ("今後…", "常に…", "必ず…") or about a topic marked with
//! は ("コミットメッセージは英語で書いてください"), prohibitions ("…しないでください"), rules ("…こと。",
//! "…ルールです"), facts about the user ("私は…"), facts of the project ("このプロジェクトでは…",
//! "うちのチームでは…", "現在、…"), pointers ("…は <URL> にあります").
//! Noise: requests about an object marked with を and no standing cue ("変数名を userId に変えて
//! ください"), "この…", "今回", "今日", questions, thanks, opinions ("…と思います"), past tense.

use super::cjk::{is_han, is_kana, Lead, Sent, EN_MOMENT, EN_STANDING};
use crate::formats::doc::MemoryType;

const MOMENT: &[&str] = &[
    "今回",
    "今日",
    "今度",
    "明日",
    "昨日",
    "さっき",
    "先ほど",
    "ありがとう",
    "助かりました",
    "了解",
    "わかりました",
    "分かりました",
    "と思います",
    "と思う",
    "ほうがいい",
    "方がいい",
    "もう一度",
    "もう一回",
    "なぜ",
    "どうして",
    "どういう",
    "何を",
    "ましょう",
    "でしょうか",
    "ました",
    "でした",
    "ですか",
    "ますか",
    "ですね",
    "いいですね",
    "とりあえず",
    "ちょっと",
];

/// Reports about the work at hand: something fails, is slow or broken.
const REPORT: &[&str] = &[
    "古い",
    "古く",
    "間違",
    "ではありません",
    "じゃありません",
    "じゃない",
    "新しい",
    "失敗",
    "エラー",
    "通りません",
    "通らない",
    "動きません",
    "動かない",
    "遅い",
    "落ちて",
    "落ちる",
    "壊れ",
    "まだ",
    "問題",
    "バグ",
    "おかしい",
    "原因",
    "結果",
    "以下",
    "上記",
    "下記",
    "完了",
];

/// Where requests and reports go: asking to use one of these is a pointer, not a style rule.
const CHANNEL: &[&str] = &[
    "チャンネル",
    "Slack",
    "slack",
    "Jira",
    "JIRA",
    "Issues",
    "Teams",
    "Backlog",
    "Redmine",
];

const AT_HAND: &[&str] = &["この", "その", "あの", "ここ", "こちら", "これ", "それ"];

const THIS_PROJECT: &[&str] = &[
    "このプロジェクト",
    "このリポジトリ",
    "このチーム",
    "このサービス",
    "このアプリ",
    "このレポジトリ",
];

const STANDING: &[&str] = &[
    "今後",
    "これから",
    "常に",
    "いつも",
    "必ず",
    "絶対",
    "毎回",
    "毎日",
    "毎週",
    "原則",
    "ルール",
    "決まり",
    "禁止",
    "基本的に",
    "デフォルト",
    "覚えて",
    "忘れないで",
    "ずっと",
];

const REQUEST_END: &[&str] = &[
    "てください",
    "て下さい",
    "でください",
    "お願いします",
    "お願い",
    "てほしい",
    "てね",
    "ように",
];

const PROHIBITION: &[&str] = &[
    "ないでください",
    "ないで下さい",
    "ないこと",
    "しないで",
    "禁止",
];

const USER_START: &[&str] = &["私は", "僕は", "わたしは", "俺は", "自分は", "私の", "僕の"];

const PROJECT_START: &[&str] = &[
    "このプロジェクト",
    "このリポジトリ",
    "このレポジトリ",
    "うちの",
    "うちでは",
    "私たち",
    "我々",
    "弊社",
    "社内",
    "チーム",
    "本番",
    "ステージング",
    "検証環境",
    "開発環境",
    "現在",
    "現状",
    "今は",
];

const DOC_NOUN: &[&str] = &[
    "ドキュメント",
    "手順",
    "資料",
    "マニュアル",
    "ダッシュボード",
    "Wiki",
    "wiki",
    "仕様書",
    "設計書",
    "仕様",
    "Swagger",
    "Confluence",
    "Notion",
    "Figma",
];

const LOCATED: &[&str] = &[
    "にあります",
    "にある",
    "にまとめ",
    "に書いて",
    "を参照",
    "参照",
    "です",
    "で確認",
];

pub(super) fn classify(s: &Sent) -> Option<MemoryType> {
    if s.question() || matches!(s.last(), Some('か')) {
        return None;
    }
    if s.has(MOMENT) || s.any_word(EN_MOMENT) {
        return None;
    }
    let standing = s.has(STANDING) || s.any_word(EN_STANDING);
    let mut rest = s.m.clone();
    for p in THIS_PROJECT {
        rest = rest.replace(p, "");
    }
    if AT_HAND.iter().any(|c| rest.contains(c)) && !standing {
        return None;
    }
    let core = s.core();
    let prohibition = s.has(PROHIBITION);
    let request = REQUEST_END.iter().any(|e| core.ends_with(e)) || prohibition;
    let rule_end =
        core.ends_with("こと") || core.ends_with("ルールです") || core.ends_with("ルール");
    if request && !standing && !prohibition && (!topic_wa(core) || core.contains('を')) {
        // "変数名を userId に変えてください": a request about one object.
        return None;
    }
    if USER_START.iter().any(|c| s.m.starts_with(c)) {
        return Some(MemoryType::User);
    }
    if request && !prohibition && s.has(CHANNEL) {
        return Some(MemoryType::Reference);
    }
    if request || core.ends_with("こと") {
        return Some(MemoryType::Feedback);
    }
    if s.url {
        return Some(MemoryType::Reference);
    }
    let starts_project = PROJECT_START.iter().any(|c| s.m.starts_with(c));
    let report = s.has(REPORT);
    if s.has(LOCATED) && (s.has(DOC_NOUN) || (s.path && !starts_project)) && !report {
        return Some(MemoryType::Reference);
    }
    if s.lead == Lead::TeamRule || rule_end {
        return Some(MemoryType::Project);
    }
    let statement = ["ます", "です", "ている", "ません", "である", "だ", "ない"]
        .iter()
        .any(|e| core.ends_with(e));
    if statement && (starts_project || standing || s.lead == Lead::Remember) {
        return Some(MemoryType::Project);
    }
    // "ログは全て JSON 形式で出力します": a statement about a topic named first is how the
    // project works, unless it reports a failure.
    let opening: String = core.chars().take(16).collect();
    if statement && topic_wa(&opening) && !report {
        return Some(MemoryType::Project);
    }
    None
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
