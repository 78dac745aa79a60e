//! Korean rules.
//!
//! Durable: requests with a standing cue ("앞으로…", "항상…", "절대…") or about a topic marked with
//! 은/는 ("변수 이름은 camelCase로 써 주세요"), prohibitions ("…하지 마세요"), facts about the user
//! ("저는…"), facts of the team or project ("우리 팀은…", "이 프로젝트는…", "현재…"), pointers
//! ("…는 <URL>에 있습니다").
//! Noise: requests about an object marked with 을/를 and no standing cue ("변수 이름을 userId로
//! 바꿔 줘"), "이 …" pointing at the work at hand, "이번", "오늘", questions, thanks, opinions
//! ("…것 같아요"), past tense.

use super::cjk::{Lead, Sent, EN_MOMENT, EN_STANDING};
use crate::formats::doc::MemoryType;

const MOMENT: &[&str] = &[
    "이번",
    "오늘",
    "내일",
    "어제",
    "방금",
    "아까",
    "감사",
    "고마워",
    "고맙",
    "알겠",
    "알았",
    "같아요",
    "같아",
    "다시",
    "왜",
    "무슨",
    "뭐",
    "어떻게",
    "어떤",
    "보자",
    "하자",
    "합시다",
    "했어",
    "했습니다",
    "었어",
    "았어",
    "었습니다",
    "았습니다",
    "됐",
    "좀",
    "일단",
    "지금",
];

/// Demonstratives pointing at the work at hand (as separate words).
/// Reports about the work at hand: something fails, is slow or broken.
const REPORT: &[&str] = &[
    "아니에요",
    "아닙니다",
    "아니야",
    "오래됐",
    "새 ",
    "실패",
    "에러",
    "오류",
    "안 돼",
    "안 되",
    "안돼",
    "느려",
    "깨져",
    "깨졌",
    "문제",
    "버그",
    "이상해",
    "원인",
    "결과",
    "아래",
    "다음과",
    "위와",
    "완료",
];

/// Where requests and reports go: asking to use one of these is a pointer, not a style rule.
const CHANNEL: &[&str] = &[
    "채널", "Slack", "slack", "Jira", "JIRA", "Issues", "Teams", "위키",
];

const AT_HAND: &[&str] = &[
    "이", "그", "저", "이거", "그거", "저거", "여기", "거기", "이걸", "그걸",
];

const THIS_PROJECT: &[&str] = &[
    "프로젝트",
    "저장소",
    "레포",
    "리포지토리",
    "팀",
    "서비스",
    "회사",
];

const STANDING: &[&str] = &[
    "앞으로",
    "항상",
    "언제나",
    "절대",
    "매번",
    "반드시",
    "꼭",
    "기본적으로",
    "규칙",
    "원칙",
    "매일",
    "매주",
    "무조건",
    "기 전에",
    "할 때",
    "때마다",
];

const REQUEST_END: &[&str] = &[
    "주세요",
    "줘",
    "줘요",
    "주십시오",
    "하세요",
    "할 것",
    "바랍니다",
    "부탁해",
    "부탁합니다",
];

const PROHIBITION: &[&str] = &[
    "지 마세요",
    "지 마",
    "지 말아",
    "지 말 것",
    "하지 마",
    "금지",
];

const USER_START: &[&str] = &["저는", "나는", "제가", "내가", "제 ", "내 "];

const PROJECT_START: &[&str] = &[
    "우리",
    "저희",
    "이 프로젝트",
    "이 저장소",
    "이 레포",
    "운영",
    "현재",
    "프로덕션",
    "스테이징",
    "개발 서버",
    "회사",
];

const DOC_NOUN: &[&str] = &[
    "문서",
    "가이드",
    "위키",
    "대시보드",
    "매뉴얼",
    "Wiki",
    "wiki",
];

const LOCATED: &[&str] = &["에 있", "입니다", "이에요", "예요", "참고", "에서 확인"];

pub(super) fn classify(s: &Sent) -> Option<MemoryType> {
    let core = s.core();
    if s.question()
        || ["나요", "까요", "가요", "습니까", "니"]
            .iter()
            .any(|e| core.ends_with(e))
    {
        return None;
    }
    if s.has(MOMENT) || s.any_word(EN_MOMENT) || core.ends_with("네요") {
        return None;
    }
    let words: Vec<&str> = s.m.split_whitespace().collect();
    // "늘" (always) only as a word: it is also the stem of "늘리다" (to increase).
    let standing = s.has(STANDING) || s.any_word(EN_STANDING) || words.contains(&"늘");
    let at_hand = words.iter().enumerate().any(|(i, w)| {
        AT_HAND.contains(w)
            && !words
                .get(i + 1)
                .is_some_and(|n| THIS_PROJECT.iter().any(|p| n.starts_with(p)))
    });
    if at_hand && !standing {
        return None;
    }
    let prohibition = s.has(PROHIBITION);
    let request = REQUEST_END.iter().any(|e| core.ends_with(e)) || prohibition;
    let topic = words
        .iter()
        .any(|w| w.chars().count() >= 2 && (w.ends_with('은') || w.ends_with('는')));
    let object = words
        .iter()
        .any(|w| w.chars().count() >= 2 && (w.ends_with('을') || w.ends_with('를')));
    if request && !standing && !prohibition && (!topic || object) {
        return None;
    }
    if USER_START.iter().any(|c| s.m.starts_with(c)) {
        return Some(MemoryType::User);
    }
    if request && !prohibition && s.has(CHANNEL) {
        return Some(MemoryType::Reference);
    }
    if request {
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
    if s.lead == Lead::TeamRule {
        return Some(MemoryType::Project);
    }
    let statement = ["니다", "요", "어", "다", "야", "해"]
        .iter()
        .any(|e| core.ends_with(e));
    if statement && (starts_project || standing || s.lead == Lead::Remember) {
        return Some(MemoryType::Project);
    }
    // "로그는 모두 JSON 형식으로 남깁니다": a statement about a topic named first (은/는 in the
    // first two words) is how the project works, unless it reports a failure.
    let topic_first = words
        .iter()
        .take(2)
        .any(|w| w.chars().count() >= 2 && (w.ends_with('은') || w.ends_with('는')));
    if statement && topic_first && !report {
        return Some(MemoryType::Project);
    }
    None
}
