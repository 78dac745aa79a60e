//! Korean rules.
//!
//! Durable: requests with a standing cue ("앞으로…", "항상…", "절대…", "지금부터…", "다시는…",
//! "…할 때는", "배포 전에는") or about a topic marked with 은/는 ("변수 이름은 camelCase로 써
//! 주세요"), advice ("…하는 게 좋아요"), prohibitions ("…하지 마세요", "…하지마", "…하면 안
//! 됩니다", "…하는 건 안 돼요", "…금지"), obligations ("…해야 합니다", memo "…필수"), facts
//! about the user ("저는…", "전…", "난…", or without them: experience "…는 처음이에요", "5년
//! 차", and habitual likes "…는 싫어해요", "…하는 편이에요"), facts of the team or project
//! ("우리 팀은…", "이 프로젝트는…", a topic named first, a state that holds "현재/아직/요즘/
//! 지금은 …" when it names something technical, "작년부터 …"), changes told in the past that
//! stay true (decisions "…로 정했습니다" about something technical, migrations "…로
//! 넘어왔어요", "…로 바뀌었어요", something retired "폐기됐어요", someone who joined), pointers
//! ("…는 <URL>에 있습니다", "…는 <path> 보면 돼", "…는 #채널에 남기면 됩니다", a named place
//! "…는 PagerDuty에서 확인하세요", "'…' 페이지 참고", "…에서 볼 수 있어요"), in 합니다체,
//! 해요체, 반말 and memo style ("…하고 있음").
//! Noise: requests about an object marked with 을/를 and no standing cue ("변수 이름을 userId로
//! 바꿔 줘"), edits of one thing even when it is the topic ("README는 영어로 번역해 줘"), "이 …",
//! "그렇게 …", "이걸로 …" pointing at the work at hand, "이번", "오늘", "당분간", "…중이에요",
//! questions (also without a mark: "…할까", "…하는데요", "배포는 누가 해요"), thanks, opinions
//! ("…것 같아요", "…가 더 좋아요", "제 생각엔 …"), reactions ("저는 괜찮아요"), the speaker's own
//! plans ("…할게요"), past tense (what was just done, "로그 레벨을 DEBUG로 바꿨어요"),
//! complaints ("항상 빌드가 실패해요"), the state of a thing now ("현재 CI가 빨간불입니다").
//! A reason in the same sentence ("…때문에", "…니까") is not judged: only the fact after it is.
//!
//! Statement-shaped by default: a present or habitual statement about the stack is durable
//! even without a topic or team ("PostgreSQL 15 써요", "커밋 메시지 영어로 써요", memo
//! "…따름"), as is "X가 <name>이에요" ("메인 DB가 PostgreSQL이에요"), unless a noise shape
//! above applies (also "그럼 …로 해요", "…하면 어때요", "…는 중", moods "바빠요/짜증나요",
//! the speaker's own doing "당분간 배포는 제가 …"). Chat fillers around a statement ("아
//! 그리고", "근데", "아니 그게 아니라,", "ㅋㅋ", "~") are taken off first ([`tidy`]); a message
//! that joins a one-off request to a statement ("이거 고쳐 주고, 참고로 우리는 …") is cut at
//! its clause boundaries ([`clauses`]: commas, "…고", "…는데", "그리고", "참고로") and the
//! first durable clause after any clause about this once is kept, with its own type.
//!
//! What is judged ([`judged_part`]): a reason said after the point ("…작성해 주세요, 데이터가
//! 커서요", "… ㅋㅋ 팀 분위기상") is left out, a standing cue said after the verb ("…짜 주세요
//! 앞으로도요") counts as if said first, and a reason about the moment ("지금 … 작업 중이니까 …")
//! makes the whole a one-off. Who and what the sentence is about decides the type: the
//! assistant as subject ("넌 …해") or what it writes as the topic of a 반말 verb ("주석은 영어로
//! 달아") instructs; the speaker's experience ("…년 했지만", "…한 지 3개월 됐어요") is theirs in
//! any tense; a place — a host name, somewhere "…에 … 있어요", a name in quotes and the kind of
//! place it is — makes a pointer.

use super::sent::{has_path, Lead, Sent, EN_MOMENT, EN_STANDING};
use super::words::ko as words;
use crate::formats::doc::MemoryType;

const MOMENT: &[&str] = words::MOMENT;

/// Past-tense endings spelled out (the rest is found by [`past_tense`]): what was just done,
/// unless it is a lasting change ([`lasting_change`]).
const PAST: &[&str] = words::PAST;

/// Phrases that contain a moment word but mark a standing rule: "지금부터" (from now on),
/// "다시는" (never again), "어떤 경우에도" (in any case). They are taken out before the moment
/// words are looked for.
const STANDING_OVER_MOMENT: &[&str] = words::STANDING_OVER_MOMENT;

/// "…하기로 했어요", "…하기로 결정했습니다": a decision of the team, told in the past but
/// standing from now on.
/// "…로 정했습니다", "…로 결정됐어요": the same for a choice.
const DECISION: &[&str] = words::DECISION;

/// Changes told in the past that stay true: something retired ("폐기됐어요", "deprecated",
/// "더 이상 …"), someone who joined or left the team.
const RETIRED_OR_JOINED: &[&str] = words::RETIRED_OR_JOINED;

/// Verbs of a migration from one system to another ("Jira에서 Linear로 넘어왔어요", "셀프
/// 호스팅으로 전환했습니다").
const MIGRATED: &[&str] = words::MIGRATED;

/// Verbs of any change: "로그 레벨을 DEBUG로 바꿨어요" is an edit just done; only told about
/// the team or since a time ("작년에 …로 옮겼어요") is it a change of the stack.
const CHANGED: &[&str] = words::CHANGED;

/// "팀에서 Bun 도입했어요": something adopted by the team or since a time stays in use.
const ADOPTED: &[&str] = words::ADOPTED;

/// A time long enough ago that what changed then is how things are now.
const SINCE_THEN: &[&str] = words::SINCE_THEN;

/// Objects of a change that name code, not a system: renaming a variable is work at hand.
const CODE_NAME: &[&str] = words::CODE_NAME;

/// A change of the team's stack or membership, told in the past but true from then on: a move
/// "from A to B" or "since then" ("…에서 …로 옮겼어요", "지난달부터 ArgoCD로 바뀌었습니다",
/// "저희 팀은 …로 넘어갔습니다"), something retired, someone who joined.
fn lasting_change(s: &Sent, words: &[&str], team: bool) -> bool {
    if s.has(RETIRED_OR_JOINED) || s.has(RULE_GIVEN) {
        return true;
    }
    // "용어집은 docs/glossary.md 에 모아 두었어요": put somewhere and left there.
    // "위에 붙여 놨어요" points into the conversation, not at a place.
    const IN_CHAT: &[&str] = words::LASTING_CHANGE__IN_CHAT;
    if s.has(words::LASTING_CHANGE__LEFT)
        && (s.path || s.has(DOC_NOUN) || quoted_name(&s.m))
        && !s.has(CODE_NAME)
        && !words
            .iter()
            .any(|w| IN_CHAT.iter().any(|c| w.starts_with(c)))
    {
        return true;
    }
    // "저희 보드는 클럭을 168MHz로 고정해 놨어요": the team set something and left it so.
    // "타임아웃은 기본 3초로 맞춰 두었습니다": a setting put in place and left, about a topic.
    let left_so = s.has(words::LASTING_CHANGE__LEFT_SO) && !s.has(CODE_NAME);
    let set = s.has(words::LASTING_CHANGE__SET);
    if left_so && (team || (set && words.iter().any(|w| is_topic(w)))) {
        return true;
    }
    if s.has(ADOPTED) && (team || since_clause(words) || s.has(SINCE_THEN)) {
        return true;
    }
    let target = words
        .iter()
        .any(|w| w.ends_with("로") && w.chars().count() >= 2);
    if !target || s.has(CODE_NAME) {
        return false;
    }
    let object = words
        .iter()
        .any(|w| w.chars().count() >= 2 && (w.ends_with('을') || w.ends_with('를')));
    // "배포 방식이 ArgoCD로 바뀌었어요": the way things are done changed, nobody edited a thing.
    let became = !object && s.has(BECAME);
    let since = since_clause(words) || s.has(SINCE_THEN);
    s.has(MIGRATED) || became || ((team || since) && s.has(CHANGED))
}

/// A rule someone set ("교수님이 외부 라이브러리는 못 쓰게 하셨어요", "팀장님이 PR은 작게
/// 올리라고 하셨어요") or a role taken on ("백엔드는 제가 맡았어요"): told in the past, still true.
const RULE_GIVEN: &[&str] = words::RULE_GIVEN;

/// Intransitive changes ("바뀌었어요", "전환됐습니다"): a system or a way of working changed.
const BECAME: &[&str] = words::BECAME;

/// Past tense: a syllable ending in ㅆ ("했", "놨", "었") before an ending ("어요", "습니다",
/// "다", "는데"), except "있" (to be) and "겠" (will).
fn past_tense(text: &str) -> bool {
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let code = c as u32;
        let ss = (0xAC00..=0xD7A3).contains(&code) && (code - 0xAC00) % 28 == 20;
        if ss
            && !matches!(c, '있' | '겠')
            && chars
                .peek()
                .is_some_and(|n| matches!(n, '어' | '습' | '다' | '죠' | '네' | '는' | '고' | '지'))
        {
            return true;
        }
    }
    false
}

/// Opinions about one version or one diff; about the user ("저는 …가 더 편해요") they are a
/// preference.
const OPINION: &[&str] = words::OPINION;

/// Sentence endings that make a question, a confirmation or a lead-up to one even without a
/// question mark, or the speaker's own plan ("…할게요").
const NOT_A_STATEMENT_END: &[&str] = words::NOT_A_STATEMENT_END;

/// Reports about the work at hand: something fails, is slow or broken.
const REPORT: &[&str] = words::REPORT;

/// Compounds with a report word that name a topic, not a failure ("에러 처리는 …로 통일합니다").
const NOT_A_REPORT: &[&str] = words::NOT_A_REPORT;

/// Words after "그"/"저" inside a sentence that make them point back at the sentence's own
/// clause ("그 전에") or name the speaker ("저 포함").
const WITHIN_SENTENCE: &[&str] = words::WITHIN_SENTENCE;

/// Where requests and reports go: asking to use one of these is a pointer, not a style rule.
const CHANNEL: &[&str] = words::CHANNEL;

const AT_HAND: &[&str] = words::AT_HAND;

/// Word beginnings that point at the work at hand whatever follows ("이걸로", "그거는").
const AT_HAND_PREFIX: &[&str] = words::AT_HAND_PREFIX;

const THIS_PROJECT: &[&str] = words::THIS_PROJECT;

/// Cues that make a request a rule even when it names something at hand ("절대 이 파일은
/// 건드리지 마").
const STRONG_STANDING: &[&str] = words::STRONG_STANDING;

/// Cues of a rule that also say "be sure to" about one task ("이 함수 꼭 고쳐 줘"): a rule only
/// when nothing at hand is named.
const WEAK_STANDING: &[&str] = words::WEAK_STANDING;

/// Experience told in the past ("…해 봤어요", "오래 했어요", "3년 했어요").
const TRIED: &[&str] = words::TRIED;

/// Who the speaker may be ("인턴이라 …", "신입이라서 …").
const ROLE_NOUN: &[&str] = words::ROLE_NOUN;

/// Words of the trade: a statement about one of these is about the work.
const WORK_NOUN: &[&str] = words::WORK_NOUN;

/// Conditions that hold whenever something grows past a limit ("함수 길어지면 …").
const THRESHOLD: &[&str] = words::THRESHOLD;

/// "…하는 게 좋아요": advice, which asks for it every time.
const ADVICE_END: &[&str] = words::ADVICE_END;

const REQUEST_END: &[&str] = words::REQUEST_END;

/// "…해 주면 좋겠어요", "…해 줬으면 해요": a wish, which is how the speaker wants things done
/// rather than a task of the moment unless it names what to change (an object or something at
/// hand).
const WISH_END: &[&str] = words::WISH_END;

const PROHIBITION: &[&str] = words::PROHIBITION;

/// "…해야 합니다": an obligation.
const OBLIGATION_END: &[&str] = words::OBLIGATION_END;

/// "…해도 괜찮아요": a permission.
const PERMISSION: &[&str] = words::PERMISSION;

/// "…에 남기면 됩니다": where something goes.
const WHERE_END: &[&str] = words::WHERE_END;

/// Verbs that change one thing ("바꿔 주세요", "삭제해 줘"): a request with one of them and no
/// standing cue is about the work at hand even when its object is the topic.
const ONE_OFF_VERB: &[&str] = words::ONE_OFF_VERB;

const USER_START: &[&str] = words::USER_START;

/// "전 버전으로 …" (the previous version) is not "전 (= 저는)".
const NOT_USER_AFTER_JEON: &[&str] = words::NOT_USER_AFTER_JEON;

const PROJECT_START: &[&str] = words::PROJECT_START;

const DOC_NOUN: &[&str] = words::DOC_NOUN;

const LOCATED: &[&str] = words::LOCATED;

/// Verb stems with "-기" that close a to-do line ("테스트 돌리기", "약어 쓰지 말기"); nouns end
/// in 기 too ("크기", "얘기"), so only these.
const MEMO_VERB: &[&str] = words::MEMO_VERB;

/// What the assistant writes: named as the topic of a 반말 verb ("주석은 영어로 달아") it is an
/// instruction, not a fact of the project.
const OUTPUT_NOUN: &[&str] = words::OUTPUT_NOUN;

/// A name in quotes followed by the kind of place it is ("'platform-core' 서비스로", "'KPI
/// Weekly' 대시보드 기준으로").
fn quoted_place(words: &[&str]) -> bool {
    const PLACE: &[&str] = words::QUOTED_PLACE__PLACE;
    let closes = |w: &str| w.ends_with('\'') || w.ends_with('’') || w.ends_with('"');
    // "'web-app'에서 하면 됩니다": the place itself ("'feat:'로 시작" is a form, not a place).
    let at = words.iter().any(|w| {
        words::QUOTED_PLACE__AT
            .iter()
            .any(|p| w.strip_suffix(p).is_some_and(&closes))
    });
    at || words.windows(2).any(|w| {
        closes(w[0]) && PLACE.iter().any(|p| w[1].starts_with(p)) && w[1].chars().count() > 2
    })
}

/// "infra/charts/ 밑에 다 있음", "팀 노션에 걸려 있어요": somewhere (…에) and a form of 있
/// closing the sentence.
fn located_at(words: &[&str]) -> bool {
    words.last().is_some_and(|w| w.starts_with('있'))
        && words[..words.len() - 1].iter().any(|w| w.ends_with('에'))
}

/// "admin.internal.example.com": a host name without a scheme is an address too.
fn host_name(word: &str) -> bool {
    const TLD: &[&str] = words::HOST_NAME__TLD;
    let w = word.trim_end_matches(|c: char| !c.is_ascii_alphanumeric());
    let parts: Vec<&str> = w.split('.').collect();
    let alnum = parts
        .iter()
        .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'));
    alnum
        && parts.last().is_some_and(|t| TLD.contains(t))
        && (parts.len() >= 3 || !words::HOST_NAME__SHORT_TLD.contains(parts.last().unwrap_or(&"")))
}

/// Verbs of looking something up: a request to look at a document is a pointer to it.
const LOOK_UP: &[&str] = words::LOOK_UP;

/// "현재 …", "아직 …", "요즘은 …", "지금은 …": a sentence that starts with one of these states
/// what holds now, about the project when it names a technical thing ("아직 Java 11을 써요")
/// and no subject that could be a failure ("현재 CI가 빨간불입니다").
const STATE_START: &[&str] = words::STATE_START;

/// Verbs of using or running the stack ("써요", "…로 개발해요", "…로 돌아가요").
const STACK_VERB: &[&str] = words::STACK_VERB;

/// Words of using or running something, for a state without a technical name.
const USAGE: &[&str] = words::USAGE;

/// What the user knows or has done: "프론트는 처음이에요", "Rust는 아직 익숙하지 않아요",
/// "백엔드 개발 5년 차입니다" — facts about the user without "저는".
const EXPERIENCE: &[&str] = words::EXPERIENCE;

/// What the user likes or avoids in general: "장황한 설명은 싫어해요" (the habitual verb, not
/// "…가 좋아요", which judges one thing).
const PREFERENCE: &[&str] = words::PREFERENCE;

/// Places one looks things up: "…에서 볼 수 있어요" is a pointer whatever the place is called.
const LOOK_UP_THERE: &[&str] = words::LOOK_UP_THERE;

/// Question words: without a question mark "배포는 누가 해요" is still a question.
const QUESTION_WORD: &[&str] = words::QUESTION_WORD;

/// "작년부터", "3월부터", "v2부터": since when a state holds.
fn since_clause(words: &[&str]) -> bool {
    words.iter().any(|w| {
        w.strip_suffix("부터").is_some_and(|stem| {
            stem.ends_with(['년', '해', '달', '월', '주', '기'])
                || stem.chars().any(|c| c.is_ascii_digit())
        })
    })
}

/// A name in quotes ("'Backend Onboarding' 페이지", "'개발자 센터'"): a named place.
fn quoted_name(text: &str) -> bool {
    [
        ('\'', '\''),
        ('"', '"'),
        ('‘', '’'),
        ('“', '”'),
        ('「', '」'),
    ]
    .iter()
    .any(|(open, close)| {
        text.find(*open)
            .is_some_and(|i| text[i + open.len_utf8()..].contains(*close))
    })
}

/// Memo style ends in a verb made a noun with ㅁ ("배포는 목요일에 함", "Conventional Commits
/// 따름", "매일 밤 초기화됨").
fn nominal_end(core: &str) -> bool {
    core.chars().last().is_some_and(|c| {
        let code = c as u32;
        (0xAC00..=0xD7A3).contains(&code) && (code - 0xAC00) % 28 == 16
    })
}

/// "security@example.com 으로 보내면 됩니다": an address to write to.
fn email(text: &str) -> bool {
    text.split_whitespace().any(|w| {
        w.split_once('@')
            .is_some_and(|(a, b)| !a.is_empty() && b.contains('.') && b.is_ascii())
    })
}

/// The last word is a noun or a number, not a verb form ("…월요일 오전 10시", "…담당 Kim").
fn noun_end(core: &str) -> bool {
    const VERBISH: &[char] = &[
        '다', '요', '어', '아', '해', '지', '고', '서', '면', '게', '며', '니', '까', '죠', '네',
        '음', '함', '임', '됨', '야', '자', '라', '나', '데', '도', '만', '는', '은', '가', '이',
        '를', '을', '에', '로', '와', '과', '랑', '줘', '둬', '봐', '써',
    ];
    core.chars()
        .last()
        .is_some_and(|c| c.is_ascii_alphanumeric() || (is_syllable(c) && !VERBISH.contains(&c)))
}

/// Where a topic (은/는) is among the first four words when only bare nouns come before it
/// ("에러 응답 포맷은 …"): a word with a case particle (가, 를, 에, 로, …) ends the search.
fn leading_topic<W: AsRef<str>>(words: &[W]) -> Option<usize> {
    words
        .iter()
        .map(AsRef::as_ref)
        .take(4)
        .take_while(|w| {
            w.chars().count() < 2
                || !w.ends_with(['가', '를', '을', '에', '로', '의', '도', '만', '서'])
        })
        .position(is_topic)
}

fn is_syllable(c: char) -> bool {
    (0xAC00..=0xD7A3).contains(&(c as u32))
}

/// Words after 저 that make it "that" ("저 파일", "저 부분"), not "I".
const POINTED_AT: &[&str] = words::POINTED_AT;

/// A rule in memo style: "PR 리뷰 승인 2명 필수".
/// "…접근 불가": what cannot be done, said as a memo, is a rule as much as what must.
const REQUIRED_END: &[&str] = words::REQUIRED_END;

/// The words before "때" or "전에" that make it a time ago or a time span, not a habit
/// ("10분 전에", "아까 전에").
fn time_span(word: &str) -> bool {
    words::TIME_SPAN__UNITS.iter().any(|u| word.ends_with(u))
        || words::TIME_SPAN__VAGUE.contains(&word)
}

/// "새 컴포넌트 만들면 …", "PR 올리면 …": whenever something is made or comes up; not "빌드
/// 끝나면 알려 주세요", the end of the task at hand.
fn recurring_condition(words: &[&str]) -> bool {
    const WHENEVER: &[&str] = words::RECURRING_CONDITION__WHENEVER;
    words
        .iter()
        .rev()
        .skip(1)
        .any(|w| WHENEVER.iter().any(|c| w.ends_with(c)))
}

/// "PR을 만들 때는", "배포 전에는", "머지 후에는": a clause that says when, every time.
fn habitual_clause(words: &[&str]) -> bool {
    const WHEN: &[&str] = words::HABITUAL_CLAUSE__WHEN;
    words
        .iter()
        .enumerate()
        .skip(1)
        .any(|(i, w)| WHEN.contains(w) && !time_span(words[i - 1]))
}

/// "장애가 나면 …", "배포가 실패하면 …": whenever something happens. Alone it may be about the
/// task at hand ("에러가 나면 알려 줘"); with a channel to report to it is a procedure.
fn on_event(words: &[&str]) -> bool {
    const ON_EVENT: &[&str] = words::ON_EVENT__ON_EVENT;
    words
        .iter()
        .enumerate()
        .skip(1)
        .any(|(i, w)| ON_EVENT.contains(w) && words[i - 1].ends_with(['가', '이']))
}

/// "좋은 주말", "사용하는 도구": a verb or adjective before a noun ends in 은/는 like a topic.
/// Endings of verb forms (no noun ends in them) and whole adjectives (a noun may end in "보는":
/// "제보는").
const ADNOMINAL_END: &[&str] = words::ADNOMINAL_END;
const ADNOMINAL: &[&str] = words::ADNOMINAL;

/// A word marked as the topic (은/는), not a modifier ending the same way.
fn is_topic(w: &str) -> bool {
    // "금요일 오후엔": 엔 is 에는 contracted.
    w.chars().count() >= 2
        && (w.ends_with('은') || w.ends_with('는') || w.ends_with('엔'))
        && !ADNOMINAL_END.iter().any(|a| w.ends_with(a))
        && !ADNOMINAL.contains(&w)
}

/// "PagerDuty에서", "Jenkins에": a place named like a product (an ASCII name, capitalised).
fn named_place(words: &[&str]) -> bool {
    words.iter().any(|w| {
        words::NAMED_PLACE__AT.iter().any(|p| {
            w.strip_suffix(p).is_some_and(|stem| {
                stem.starts_with(|c: char| c.is_ascii_uppercase())
                    && stem
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
            })
        })
    })
}

/// The fact of a sentence that gives its reason first ("보안 감사 때문에 모든 SQL은 …",
/// "로그가 많으니까 …"): the reason may name errors, moments or objects the fact does not.
fn fact_part(m: &str) -> &str {
    const SEP: &[&str] = words::FACT_PART__SEP;
    SEP.iter()
        .filter_map(|sep| m.rfind(sep).map(|i| i + sep.len()))
        .max()
        .map(|at| &m[at..])
        .filter(|rest| rest.chars().count() >= 4)
        .unwrap_or(m)
}

/// Endings of a reason given after the point ("…작성해 주세요, 데이터가 커서요").
const REASON_END: &[&str] = words::REASON_END;

/// Standing cues said as an afterthought, after the verb ("…짜 주세요 앞으로도요").
const AFTERTHOUGHT: &[&str] = words::AFTERTHOUGHT;

/// What of a sentence the rules judge: the fact after a reason given first ([`fact_part`]), the
/// point before a reason added after a comma, a standing cue said after the verb put back in
/// front. `None` when the reason given first is about the moment ("지금 이 브랜치에서 작업
/// 중이니까 main은 건드리지 마세요"): what rests on it lasts no longer than the moment.
fn judged_part(m: &str) -> Option<String> {
    let fact = fact_part(m);
    let reason = &m[..m.len() - fact.len()];
    // "printf 호출하면 안 되니까 코드 짤 때 그 부분 주의해 주세요": what follows only points
    // back ("그 부분", "그 점"); the rule is the reason itself.
    if let Some(rule) = reason.strip_suffix("니까 ") {
        if has_any(fact, words::JUDGED_PART__THAT_PART) && rule.chars().count() >= 6 {
            return Some(format!("{rule}요."));
        }
    }
    if !reason.is_empty() && (one_time(reason) || has_any(reason, words::JUDGED_PART__NOW)) {
        return None;
    }
    let mut out = fact;
    // The reason comes after a comma or a laugh ("…넣어 줘 ㅋㅋ 팀 분위기상").
    let cut = out.rfind(", ").map(|i| (i, 2)).or_else(|| {
        out.match_indices(' ')
            .map(|(i, _)| i)
            .rfind(|&i| {
                let next = out[i + 1..].split(' ').next().unwrap_or("");
                !next.is_empty()
                    && next.chars().all(chat_mark)
                    && out[i + 1 + next.len()..].starts_with(' ')
            })
            .map(|i| (i, 1 + out[i + 1..].find(' ').unwrap_or(0) + 1))
    });
    if let Some((at, skip)) = cut {
        let (head, tail) = (&out[..at], &out[at + skip..]);
        let tail = tail.trim_end_matches(['.', '!', '。', '！', ' ']);
        let head_core = head.trim_end_matches(chat_mark);
        let reason = tail.split_whitespace().last().is_some_and(|w| {
            w.chars().count() >= 2
                && (REASON_END.iter().any(|e| w.ends_with(e)) || w.ends_with("상"))
        });
        if head.chars().count() >= 4
            && tail.split_whitespace().count() <= 4
            && (reason || ends_with_any(head_core, REQUEST_END))
        {
            out = head;
        }
    }
    // "…받고 있어요 (forms.gle/acme-qa)": an aside in brackets after the sentence.
    let trimmed = out.trim_end_matches(['.', '!', '。', '！', ' ']);
    if let Some(open) = trimmed.strip_suffix(')').and_then(|t| t.rfind('(')) {
        let head = trimmed[..open].trim_end();
        if head.split_whitespace().count() >= 2 {
            out = head;
        }
    }
    // "…짜 줘 이식성 때문에": a reason said last, without a comma.
    let trimmed = out.trim_end_matches(['.', '!', '。', '！', ' ']);
    if let Some(head) = trimmed
        .strip_suffix(" 때문에")
        .or_else(|| trimmed.strip_suffix(" 때문에요"))
        .and_then(|h| h.rsplit_once(' '))
        .map(|(h, _)| h)
    {
        if head.split_whitespace().count() >= 2 && ends_with_any(head, REQUEST_END) {
            out = head;
        }
    }
    let body = out.trim_end_matches(['.', '!', '。', '！', ' ']);
    if let Some((rest, last)) = body.rsplit_once(' ') {
        let cue = last.strip_suffix('요').unwrap_or(last);
        if rest.split_whitespace().count() >= 2 && AFTERTHOUGHT.contains(&cue) {
            return Some(format!("{cue} {rest}"));
        }
    }
    Some(out.to_string())
}

fn ends_with_any(core: &str, ends: &[&str]) -> bool {
    ends.iter().any(|e| core.ends_with(e))
}

fn has_any(text: &str, cues: &[&str]) -> bool {
    cues.iter().any(|c| text.contains(c))
}

/// 반말 verb endings ("작성해", "써", "돌려", "둬"): an imperative when a standing cue comes
/// with it and nobody else is the subject.
fn banmal_verb_end(core: &str) -> bool {
    core.chars().last().is_some_and(|c| {
        matches!(
            c,
            '해' | '써'
                | '둬'
                | '봐'
                | '라'
                | '켜'
                | '겨'
                | '려'
                | '춰'
                | '줘'
                | '어'
                | '아'
                | '워'
        )
    })
}

/// Words that open a chat message without adding to it: "아 그리고 …", "근데 …", "맞다, …", and
/// the start of a correction ("아니 그게 아니라, 우리 API는 …"), which says what follows replaces
/// something said before.
const FILLER_START: &[&str] = words::FILLER_START;

/// Chat marks at the end ("ㅋㅋ", "ㅠㅠ", "ㅎㅎ", "~", "^^", emoji "🙏 😅"): a tone, not a word.
fn chat_mark(c: char) -> bool {
    matches!(c as u32, 0x1100..=0x11FF | 0x3131..=0x318E)
        || emoji(c)
        || matches!(c, '~' | '^' | ' ' | '～')
}

/// Emoji and pictographs, with the joiners and variation selectors that build them.
fn emoji(c: char) -> bool {
    matches!(c as u32, 0x1F000..=0x1FAFF | 0x2600..=0x27BF | 0xFE0F | 0x200D)
}

/// The statement of a chat sentence without fillers at its start or chat marks at its end.
pub(super) fn tidy(text: &str) -> &str {
    let mut t = text.trim();
    loop {
        let before = t.len();
        // "ㅋㅋ 참고로 …": a laugh before the statement.
        let lead = t.trim_start_matches(chat_mark);
        if lead.len() != t.len() && lead.chars().count() >= 4 {
            t = lead;
        }
        for f in FILLER_START {
            if let Some(rest) = t.strip_prefix(f) {
                if rest.starts_with([' ', ',', '，', '.', '…']) {
                    let rest = rest.trim_start_matches([' ', ',', '，', '.', '…']);
                    if rest.chars().count() >= 4 {
                        t = rest;
                        break;
                    }
                }
            }
        }
        if t.len() == before {
            break;
        }
    }
    // "…해요 ㅋㅋ.", "해주세요~": the marks before a closing stop go with them.
    let stop = t.ends_with(['.', '!', '。', '！']);
    let body = t.trim_end_matches(['.', '!', '。', '！']);
    let bare = body.trim_end_matches(chat_mark);
    if bare.len() == body.len() || bare.chars().count() < 4 || bare.ends_with(' ') {
        return t;
    }
    if stop {
        // Keep the stop: it is the last char of `t`, and `bare` is a prefix of `t`.
        return bare;
    }
    bare
}

/// "…만들어 주세요, 이름은 nightly-e2e로요": a clause without a verb that only gives a detail of
/// the request before it.
pub(super) fn detail(clause: &str) -> bool {
    let core = clause.trim_end_matches(['.', '!', '。', '！', ' ']);
    core.ends_with("로요") || core.ends_with("로") || core.ends_with("으로요")
}

/// A clause cut before a following one ("라벨링 작업은 Label Studio로 하고", "저희 보드는
/// STM32F407이고") is judged as the statement it would be on its own.
///
/// With `background`, a "-는데" clause too ("…읽을 수 있는데" → "…읽을 수 있어요"): only to type
/// a sentence already judged durable, since a background clause often leads up to a question
/// ("저희 앱이 React Native인데 이 라이브러리 호환될까요?").
pub(super) fn as_statement(clause: &str, background: bool) -> String {
    // "…하지 말고", "고쳐 주고": a request goes on in the next clause.
    if clause.ends_with("말고") || clause.ends_with("주고") {
        return clause.to_string();
    }
    // "…끝났고": past stays past.
    let past = |stem: &str| {
        stem.chars()
            .last()
            .is_some_and(|c| is_syllable(c) && (c as u32 - 0xAC00) % 28 == 20)
    };
    // "…읽을 수 있는데", "…3년차인데": the background clause of "-는데" states a fact.
    for (ending, statement) in background
        .then_some(words::AS_STATEMENT__BACKGROUND)
        .into_iter()
        .flatten()
    {
        if let Some(stem) = clause.strip_suffix(ending) {
            return format!("{stem}{statement}");
        }
    }
    if let Some(stem) = clause.strip_suffix('고').filter(|s| past(s)) {
        format!("{stem}어요")
    } else if let Some(stem) = clause.strip_suffix("하고") {
        format!("{stem}해요")
    } else if let Some(stem) = clause.strip_suffix("이고") {
        format!("{stem}이에요")
    } else if let Some(stem) = clause
        .strip_suffix('고')
        // "…하라고", "…한다고": a quoted clause, not one to close.
        .filter(|s| s.ends_with(is_syllable) && !s.ends_with(['라', '다']))
    {
        // The plain form: "작고" → "작다", "만들고" → "만들다". Gluing "요" to the bare stem
        // garbled them ("작요", "만들요"); the polite form's vowel harmony is not worth guessing.
        format!("{stem}다")
    } else {
        clause.to_string()
    }
}

/// A clause about this once ("근데 이번엔 npm 써요", "일단 …", "오늘은 …").
pub(super) fn one_time(clause: &str) -> bool {
    const ONCE: &[&str] = words::ONE_TIME__ONCE;
    let mut c = clause.replace("이번부터", " ");
    for noun in THIS_PROJECT {
        c = c.replace(&format!("이번 {noun}"), " ");
    }
    has_any(&c, ONCE)
}

/// Clause boundaries of a sentence that joins several statements: a comma, "그리고", "참고로",
/// a verb ending in "…고" or "…는데" ("고쳐 주고 …", "3년차인데 …"). A "…고" that goes on with
/// the same verb ("쓰고 있어요", "하고 싶어요", "하고 나서") is not one, nor a condition
/// ("…하면, …"), whose clause only holds with the next.
pub(super) fn clauses(text: &str) -> Vec<&str> {
    const GOES_ON: &[&str] = words::CLAUSES__GOES_ON;
    let mut out = Vec::new();
    let mut start = 0;
    let mut words = text
        .char_indices()
        .filter(|(_, c)| *c == ' ')
        .map(|(i, _)| i)
        .peekable();
    while let Some(space) = words.next() {
        let word_start = text[..space]
            .rfind(' ')
            .map_or(start, |i| (i + 1).max(start));
        let word = &text[word_start..space];
        let next = &text[space + 1..];
        let bare = word.trim_end_matches([',', '，']);
        // "머리아파요 ㅠㅠ 쉽게 설명해주세요": a laugh or a sigh between words ends a clause.
        let comma = bare.len() != word.len() || (!word.is_empty() && word.chars().all(chat_mark));
        let joined = (bare.ends_with('고')
            || bare.ends_with("고요")
            || bare.ends_with("는데")
            || bare.ends_with("은데")
            || bare.ends_with("인데"))
            && bare.chars().count() >= 2
            && bare != "그리고"
            && !GOES_ON.iter().any(|g| next.starts_with(g));
        let condition = bare.ends_with('면') || bare.ends_with("면은");
        let before_cue = words::CLAUSES__CUE.iter().any(|c| next.starts_with(c));
        if (comma || joined || before_cue) && !condition {
            // The comma that cut it is not part of the clause: its ending is judged.
            let clause = text[start..space].trim().trim_end_matches([',', '，']);
            if !clause.is_empty() {
                out.push(clause);
            }
            start = space + 1;
        }
        let _ = words.peek();
    }
    let last = text[start..].trim();
    if !last.is_empty() {
        out.push(last);
    }
    out
}

/// Judges a sentence; when it joins statements ("다국어는 세 개 지원하고 번역 파일은 i18n/ 폴더에
/// 있어요") and is durable, its first statement that is durable on its own gives the type: the
/// type is that of the first memory the sentence holds.
pub(super) fn classify(s: &Sent) -> Option<MemoryType> {
    let whole = classify_whole(s)?;
    let parts = clauses(&s.m);
    // An instruction whose verb comes last ("…주입하고 코드에는 절대 넣지 마세요") spans its
    // clauses: the first is part of it.
    if parts.len() < 2 || s.lead != Lead::None {
        return Some(whole);
    }
    let first = as_statement(parts[0], true);
    let sent = Sent {
        lower: first.to_ascii_lowercase(),
        url: first.contains("URLx"),
        path: has_path(&first),
        lead: s.lead,
        m: first,
    };
    // "저 영어 에러 메시지는 읽을 수 있는데 해석은 같이 해 주세요": a request resting on a fact
    // about the speaker said first is about the speaker.
    let first = classify_whole(&sent).filter(|t| {
        *t != MemoryType::Feedback && (whole != MemoryType::Feedback || *t == MemoryType::User)
    });
    Some(first.unwrap_or(whole))
}

fn classify_whole(s: &Sent) -> Option<MemoryType> {
    let full = s;
    let fact = judged_part(&s.m)?;
    let fact_sent;
    let s = if fact == s.m {
        s
    } else {
        fact_sent = Sent {
            m: fact.clone(),
            lower: fact.to_ascii_lowercase(),
            url: s.url,
            path: s.path,
            lead: s.lead,
        };
        &fact_sent
    };
    let core = s.core();
    let wish = ends_with_any(core, WISH_END);
    // "17시간 차이 나요": "나요" as a word of its own is the verb 나다 after a noun, not the
    // question ending of a verb ("되나요").
    let verb_na = core.ends_with(" 나요");
    if full.question() || (ends_with_any(core, NOT_A_STATEMENT_END) && !wish && !verb_na) {
        return None;
    }
    // "잡 하나 만들어 주세요, 이름은 nightly-e2e로요": the detail after a request belongs to it.
    let parts = clauses(&s.m);
    if let Some((last, before)) = parts.split_last() {
        if detail(last)
            && before
                .iter()
                .any(|c| ends_with_any(c.trim_end_matches(chat_mark), REQUEST_END))
        {
            return None;
        }
    }
    let words: Vec<&str> = s.m.split_whitespace().collect();
    // "저 눈이 안 좋아서 …해 주세요": a request that rests on a fact about the speaker.
    let user_reason = words.iter().rev().skip(2).any(|w| {
        w.chars().count() >= 2
            && (w.ends_with("아서")
                || w.ends_with("어서")
                || w.ends_with("라서")
                || w.ends_with("해서")
                // "헷갈려서", "어려워서", "서툴러서": other vowels before the ending.
                // "공부하는 중이라 …": the copula's reason form.
                || words::CLASSIFY_WHOLE__REASON_END
                    .iter()
                    .any(|e| w.ends_with(e))
                // "저 … 읽을 수 있는데 …해 주세요": the background the request rests on.
                || words::CLASSIFY_WHOLE__BACKGROUND_END
                    .iter()
                    .any(|e| w.ends_with(e)))
    });
    // "저 맥북 M2 쓰고 있어요": 저 without 는 is the speaker unless it points at a thing ("저 파일
    // 지워 줘") or the sentence asks for something.
    // "나 코틀린 코루틴 아직 헷갈려서 …" in 반말 the same.
    let jeo_user = (s.m.starts_with("저 ") || s.m.starts_with("나 "))
        && words
            .get(1)
            .is_some_and(|w| !POINTED_AT.iter().any(|p| w.starts_with(p)))
        && (!ends_with_any(core, REQUEST_END) || user_reason)
        && !s.has(PROHIBITION);
    // "인턴이라 권한이 없어서 …": who the speaker is, given as the reason of what follows.
    let role_reason = words.first().is_some_and(|w| {
        ROLE_NOUN.iter().any(|r| w.starts_with(r))
            && words::CLASSIFY_WHOLE__ROLE_REASON
                .iter()
                .any(|e| w.ends_with(e))
    });
    // "I'm 백엔드 개발자고 …": the speaker named in English.
    let english_i = words::CLASSIFY_WHOLE__ENGLISH_I
        .iter()
        .any(|c| s.lower.starts_with(c));
    let user_cue =
        USER_START.iter().any(|c| s.m.starts_with(c)) || jeo_user || role_reason || english_i;
    // "저는 괜찮아요", "저는 상관없습니다": a reaction, not a fact about the speaker.
    if user_cue && words.len() < 3 && core.chars().count() <= 10 {
        return None;
    }
    // "몇 페이지인지 주석으로 남겨 주세요": a question word inside an embedded question
    // ("…인지", "…는지") names what to write down, it does not ask.
    let embedded = words.iter().any(|w| {
        words::CLASSIFY_WHOLE__EMBEDDED
            .iter()
            .any(|e| w.ends_with(e))
    });
    if !embedded && words.iter().any(|w| QUESTION_WORD.contains(w)) {
        return None;
    }
    let user_start = user_cue
        && !s
            .m
            .strip_prefix("전 ")
            .is_some_and(|rest| NOT_USER_AFTER_JEON.iter().any(|n| rest.starts_with(n)));
    let mut unmarked = s.m.clone();
    for p in STANDING_OVER_MOMENT.iter().chain(DECISION) {
        unmarked = unmarked.replace(p, " ");
    }
    // "이번 프로젝트에서 PL을 맡고 있어요": "this" project is the current one, not this once.
    for noun in THIS_PROJECT {
        unmarked = unmarked.replace(&format!("이번 {noun}"), " ");
    }
    // "이번 달에 처음 만져봄", "이번에 처음 합류한 신입": when something was new to the speaker
    // tells how new they are to it.
    for when in words::CLASSIFY_WHOLE__FIRST_TIME {
        unmarked = unmarked.replace(when, "처음");
    }
    // "apply 하자고 하지 마": a proposal quoted inside a rule is not one made now.
    unmarked = unmarked.replace("자고 ", " ");
    // "C는 좀 하는데": about the speaker, "좀" is "a little", not a softened request.
    if user_start && !ends_with_any(core, REQUEST_END) {
        unmarked = unmarked.replace("좀", " ");
    }
    // "확실하지 않은 건 …": "whatever is so" (것은) as the topic is a class, not one thing.
    let topic = words
        .iter()
        .any(|w| is_topic(w) || *w == "건" || *w == "것은");
    // "이제 CI는 GitHub Actions만 써요": "now" before a topic tells how things are from now on.
    if words.first() == Some(&"이제") && words.get(1).is_some_and(|w| is_topic(w)) {
        unmarked = unmarked.replacen("이제 ", " ", 1);
    }
    // "설명은 좀 더 짧았으면 좋겠어요": a softener in a wish about a topic, not "just this once".
    if wish && topic {
        unmarked = unmarked.replace("좀", " ");
    }
    let team =
        PROJECT_START.iter().any(|c| s.m.starts_with(c)) || s.has(words::CLASSIFY_WHOLE__TEAM);
    // A technical name (ASCII letters) or a word of using a system.
    let technical = s.m.chars().any(|c| c.is_ascii_alphabetic()) || s.has(USAGE);
    // "점심은 김밥으로 정했어요": a choice of the moment unless it names something technical
    // or the team.
    let decision = s.has(DECISION) && (s.m.contains("기로 ") || technical || team);
    if s.has(DECISION) && !decision {
        return None;
    }
    // "저는 C#은 오래 했고 C++은 거의 안 해 봤어요": what the speaker has (or never) done is
    // their experience, which lasts.
    // "저는 자바는 10년 넘게 했지만 …": a span of years or months is experience too.
    let span = words.iter().any(|w| {
        let digits = w.trim_start_matches(|c: char| c.is_ascii_digit());
        digits.len() != w.len() && (digits.starts_with('년') || digits.starts_with("개월"))
    });
    let tried = (user_start && (s.has(TRIED) || s.has(EXPERIENCE) || span))
        || (!team && topic && s.has(TRIED) && s.has(words::CLASSIFY_WHOLE__DID));
    // "앱으로 넘어온 지 3개월 됐어요": how long a state has held.
    let held_for = words.windows(3).any(|w| {
        w[0] == "지" && time_span(w[1]) && (w[2].starts_with("됐") || w[2].starts_with("넘었"))
    });
    let lasting = decision || tried || held_for || lasting_change(s, &words, team);
    let past = past_tense(&unmarked) || has_any(&unmarked, PAST);
    // "답변할 때 코드 먼저 보여 주고 설명은 나중에 해 주세요": within a habit, "나중에" orders
    // the steps.
    // "우리 팀은 PR 올리면 CI에서 전부 다시 돌려요": whenever it happens, "다시" is "re-".
    if recurring_condition(&words) {
        unmarked = unmarked.replace("다시", " ");
    }
    // "…, 그냥 텍스트로 써 주세요": "plain", not "just this once".
    if habitual_clause(&words) {
        unmarked = unmarked.replace("나중에", " ").replace("그냥", " ");
    }
    if has_any(&unmarked, MOMENT)
        || (past && !lasting)
        || s.any_word(EN_MOMENT)
        || core.ends_with("네요")
        || core.ends_with("네")
        || (!user_start
            // "별로" (not much) only as a word: "도메인별로" is "per domain".
            && (has_any(&unmarked, OPINION) || words.iter().any(|w| w.starts_with("별로")))
            && !s.has(PREFERENCE))
    {
        return None;
    }
    // "늘" (always) only as a word: it is also the stem of "늘리다" (to increase).
    let strong = s.has(STRONG_STANDING) || s.any_word(EN_STANDING) || words.contains(&"늘");
    let habitual = habitual_clause(&words);
    // "매 배포 전날까지", "함수 길어지면 알아서 쪼개 줘": every time, whenever a threshold is
    // passed, at the assistant's own judgement.
    let weak = s.has(WEAK_STANDING)
        || habitual
        || since_clause(&words)
        || words
            .iter()
            .any(|w| matches!(*w, "매" | "알아서") || THRESHOLD.contains(w));
    let at_hand = words.iter().enumerate().any(|(i, w)| {
        !(i == 0 && jeo_user)
            && (AT_HAND.contains(w) || AT_HAND_PREFIX.iter().any(|p| w.starts_with(p)))
            && !words
                .get(i + 1)
                .is_some_and(|n| THIS_PROJECT.iter().any(|p| n.starts_with(p)))
            // "마감이 일요일이라서 그 전에 …", "팀원은 저 포함 네 명": inside a sentence "그"
            // points back at its own clause and "저" is the speaker, not the work at hand.
            && !(i > 0
                && matches!(*w, "그" | "저")
                && words.get(i + 1).is_some_and(|n| WITHIN_SENTENCE.contains(n)))
    });
    let required = ends_with_any(core, REQUIRED_END);
    // "로그 포맷 바꾸면 데이터팀에 미리 알려야 해요": an obligation under a condition holds
    // whenever the condition does.
    let conditional_rule = ends_with_any(core, OBLIGATION_END)
        && words
            .iter()
            .rev()
            .skip(2)
            .any(|w| w.chars().count() >= 2 && w.ends_with('면') && !s.has(PROHIBITION));
    // "계속 그렇게 해 주세요": asking to keep doing something is a standing request.
    // "계속 진행해 주세요" only goes on with the task: the manner must be named.
    let keep_on = words.contains(&"계속")
        && s.has(words::CLASSIFY_WHOLE__MANNER)
        && ends_with_any(core, REQUEST_END);
    // "넌 커밋까지만 해": the assistant named as the one who does it.
    let addressed = words
        .first()
        .is_some_and(|w| words::CLASSIFY_WHOLE__ADDRESSED.contains(w));
    // "pandas 대신 polars로 작성해 주세요, 데이터가 커서요": one way chosen over another, for a
    // reason, is how it is done ("npm 말고 pnpm 써 주세요" alone may be for this once).
    let reasoned = full.m.len() != s.m.len();
    let alternative = reasoned
        && s.has(words::CLASSIFY_WHOLE__INSTEAD)
        && !words
            .iter()
            .any(|w| w.chars().count() >= 2 && (w.ends_with('을') || w.ends_with('를')));
    // "윈도우 서버 기준으로 명령어 알려주세요": a frame to work in holds for every answer.
    let frame = words.contains(&"기준으로") && leading_topic(&words).is_none();
    let recurring = recurring_condition(&words);
    // "예시 코드에 주석으로 … 달아 주세요": into what the assistant writes, every time.
    let into_output = words.iter().any(|w| {
        OUTPUT_NOUN.iter().any(|n| w.starts_with(n)) && (w.ends_with('에') || w.ends_with("에는"))
    }) || s.has(words::CLASSIFY_WHOLE__INTO_OUTPUT);
    // Memo rules: "리턴 타입 명시할 것", "변수명 약어 쓰지 말기", "커밋 전에 테스트 돌리기" — a
    // to-do line, written once for every time.
    let memo_rule = ends_with_any(core, words::CLASSIFY_WHOLE__MEMO_END)
        || words
            .last()
            .is_some_and(|w| w.chars().count() >= 2 && ends_with_any(w, MEMO_VERB));
    let standing = memo_rule
        || into_output
        || recurring
        || frame
        || strong
        || weak
        || required
        || keep_on
        || conditional_rule
        || addressed
        || alternative;
    // A subject ("빌드가 항상 실패해") makes it a statement about that subject.
    let subject = words
        .iter()
        .any(|w| w.chars().count() >= 2 && w.ends_with('가'));
    let state_start = STATE_START.iter().any(|c| s.m.starts_with(c));
    // "요즘 너무 피곤해요", "현재 CI가 빨간불입니다": the moment of the speaker or of a thing.
    if state_start && (subject || !technical) {
        return None;
    }
    let starts_project = team || state_start;
    let prohibition = s.has(PROHIBITION);
    let obligation = ends_with_any(core, OBLIGATION_END);
    // "주석은 영어로 달아": what the assistant writes, named as the topic of a 반말 verb.
    let output_topic =
        leading_topic(&words).is_some_and(|i| OUTPUT_NOUN.iter().any(|n| words[i].starts_with(n)));
    // "한국어로 대답하되 …": "do it, but …" only instructs.
    let concessive = words
        .iter()
        .any(|w| w.chars().count() >= 3 && (w.ends_with("하되") || w.ends_with("쓰되")));
    let imperative = (strong || habitual || addressed || output_topic || concessive)
        && !subject
        && !starts_project
        && !user_start
        && s.lead != Lead::TeamRule
        && banmal_verb_end(core);
    // "배포 승인은 팀장님이 하세요": "-세요" of someone honoured tells what they do.
    let honoured = words
        .iter()
        .any(|w| w.ends_with("님이") || w.ends_with("께서"));
    let request = memo_rule
        || ((!honoured || s.has(words::CLASSIFY_WHOLE__POLITE_ASK))
            && ends_with_any(core, REQUEST_END))
        || ends_with_any(core, ADVICE_END)
        || prohibition
        || imperative;
    // "절대 이 파일은 건드리지 마": a strong cue makes a request a rule even about something at
    // hand; a statement about it ("항상 이런 식이면 곤란해요") stays about the moment.
    // "기억해, 이 API 시간은 UTC야": asked to keep a statement, the demonstrative stays; "기억해,
    // 이 버튼 파란색으로 바꿔" (not a declarative ending) is still a change to make.
    let declarative = core
        .chars()
        .last()
        .is_some_and(|c| matches!(c, '다' | '야' | '임' | '음' | '죠' | '요'));
    if at_hand
        && !(s.lead == Lead::Remember && declarative && !request)
        && !((strong || keep_on) && request)
    {
        return None;
    }
    let channel = s.has(CHANNEL);
    let host =
        s.m.split(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '-')))
            .any(host_name);
    // "장애 연락처는 위키의 '온콜' 페이지를 참고하세요": where to look, not a task.
    let quoted = quoted_name(&s.m);
    let place = channel || s.has(DOC_NOUN) || s.path || quoted || named_place(&words);
    // "QA 피드백은 피그마 코멘트로 남겨 주시면 돼요": where to leave something, in a named tool.
    let pointer = place && (s.has(LOOK_UP) || (ends_with_any(core, WHERE_END) && !s.path));
    let object = words
        .iter()
        .any(|w| w.chars().count() >= 2 && (w.ends_with('을') || w.ends_with('를')));
    // A request about an object, or with nothing named as its topic, is a task, unless it says
    // where to look ("…는 '온콜' 페이지를 참고하세요") or where to report whenever something
    // happens ("장애가 나면 #incident 채널에 알려 주세요").
    let task = (!topic || (object && !pointer)) && !(channel && on_event(&words));
    // "핵심만 세 줄로 요약해 주면 좋겠어요": a wish that names nothing to change is how the
    // speaker wants answers, not a task.
    // The wish must say how ("핵심만", "세 줄 정도로", "짧게", "자세히"): "회의록 요약해 주면
    // 좋겠어요" is a task.
    let manner = words.iter().any(|w| {
        w.chars().count() >= 2
            && (w.ends_with('게')
                || w.ends_with('히')
                || w.ends_with('만')
                || w.ends_with("정도로")
                || w.ends_with("식으로")
                || w.ends_with("위주로"))
    });
    let standing_wish = wish && manner && !object && !at_hand;
    // "나 코루틴 아직 헷갈려서 자세하게 설명해 줘": the request rests on a fact about the speaker.
    // "전 비전공자라 용어를 쉽게 설명해 주시면 좋아요": the same after who the speaker is.
    let rests_on_user = (jeo_user || user_start)
        && (user_reason || words.get(1).is_some_and(|w| w.ends_with('라')));
    if request && !standing && !prohibition && task && !standing_wish && !rests_on_user {
        return None;
    }
    // The verb of a request is in its last two words ("바꿔 주세요", "바꿔주세요").
    let one_off = words
        .iter()
        .rev()
        .take(2)
        .any(|w| ONE_OFF_VERB.iter().any(|v| w.starts_with(v)));
    if request && !standing && !prohibition && one_off {
        return None;
    }
    // A failure word before the topic's head names a thing ("실패 알림은 …", "장애 대응 런북은
    // …"): only the topic's head ("원인은 …") and what is said about it can report a failure,
    // and "새 …" (a new thing) anywhere.
    let topic_at = leading_topic(&words);
    let mut report_text = match topic_at {
        Some(i) if !s.m.contains("새 ") => words[i..].join(" "),
        _ => s.m.clone(),
    };
    // "wiki/runbooks/ 아래에 있음": under a path, not "see below".
    if s.path || quoted {
        report_text = report_text.replace("아래에", " ");
    }
    for c in NOT_A_REPORT {
        report_text = report_text.replace(c, " ");
    }
    let report = has_any(&report_text, REPORT);
    // "저는 색 구분이 잘 안 돼서 그래프는 …해 주시면 좋아요": what the speaker cannot do, given as
    // the reason of a wish, is about them, not a failure.
    let report = report
        && !(user_start
            && wish
            && words
                .iter()
                .position(|w| w.ends_with("서") && w.chars().count() >= 2)
                .is_some_and(|i| !has_any(&words[i + 1..].join(" "), REPORT)));
    // "전 이해가 안 돼요": about the speaker's moment, not a fact about them.
    if user_start {
        return (!report).then_some(MemoryType::User);
    }
    // "오후엔 제가 자리에 없어요", "당분간 배포는 제가 수동으로 해요": the speaker's own doing,
    // unless it is their role ("배포는 제가 담당해요").
    // A habit of theirs about a topic ("릴리스 노트는 PM인 제가 매 배포 전날까지 작성합니다")
    // is how the project works.
    if !request && words.iter().skip(1).any(|w| matches!(*w, "제가" | "내가")) {
        if report {
            return None;
        }
        if s.has(words::CLASSIFY_WHOLE__IN_CHARGE) {
            return Some(MemoryType::User);
        }
        return (standing && topic_at.is_some()).then_some(MemoryType::Project);
    }
    if (request || obligation || ends_with_any(core, WHERE_END))
        && !prohibition
        && (channel
            || pointer
            || ((s.path || email(&s.m) || host) && ends_with_any(core, WHERE_END)))
    {
        return Some(MemoryType::Reference);
    }
    // "영어보다 한국어 설명이 편해요": what the user finds easier than something else.
    let easier = s.has(&["보다 "]) && s.has(words::CLASSIFY_WHOLE__EASIER);
    // "리액트는 잘 몰라서 설명 자세히 해 주세요": the request rests on a fact about the user.
    if request && s.has(EXPERIENCE) && s.has(words::CLASSIFY_WHOLE__USER_REASON) && !report {
        return Some(MemoryType::User);
    }
    // "커밋 단위는 작게 가져가는 편이에요": a tendency of a thing named as the topic is how the
    // project works, not a taste of the user.
    const TENDS: &[&str] = words::CLASSIFY_WHOLE__TENDS;
    let tends_only = s.has(TENDS)
        && !PREFERENCE
            .iter()
            .any(|p| !TENDS.contains(p) && s.m.contains(p));
    let preference = s.has(PREFERENCE) && !(tends_only && topic);
    if (s.has(EXPERIENCE) || preference || easier || tried) && !request && !team && !report {
        return Some(MemoryType::User);
    }
    if s.has(LOOK_UP_THERE) && !report {
        return Some(MemoryType::Reference);
    }
    // "우리 팀은 금요일 배포 금지예요": a prohibition stated as the team's rule.
    // "코드 프리즈 기간에는 머지 금지입니다": a ban stated as what is, not asked for.
    let ban_stated = ends_with_any(core, words::CLASSIFY_WHOLE__BAN_STATED);
    if (ban_stated || s.has(words::CLASSIFY_WHOLE__BAN_SUBJECT))
        && prohibition
        && !ends_with_any(core, REQUEST_END)
        && !s.has(words::CLASSIFY_WHOLE__DONT)
    {
        return Some(MemoryType::Project);
    }
    if request {
        return Some(MemoryType::Feedback);
    }
    // "…받고 있어요 (forms.gle/acme-qa)": the aside in brackets is the address.
    let aside = full.m.len() != s.m.len()
        && full
            .m
            .trim_end_matches(['.', '!', '。', '！', ' '])
            .ends_with(')');
    // "비상 연락처 → 노션 '긴급 연락' 페이지": a memo arrow to a place.
    let arrow_to_place = ["→", "->", "=>"].iter().any(|a| {
        s.m.split_once(a).is_some_and(|(_, to)| {
            has_any(to, DOC_NOUN) || has_any(to, CHANNEL) || quoted_name(to) || has_path(to)
        })
    });
    if s.url || host || arrow_to_place || (aside && s.path && !report) {
        return Some(MemoryType::Reference);
    }
    // "실험 결과는 MLflow 대시보드에서 볼 수 있어요": a failure word as the topic of a pointer
    // to a document or channel is what is found there.
    let placed = s.has(DOC_NOUN) || channel || quoted;
    // "장애 대응은 PagerDuty 'platform-core' 서비스로 에스컬레이션됨": a place named in quotes
    // is where the topic goes.
    if topic_at.is_some() && quoted_place(&words) && !report && !obligation {
        return Some(MemoryType::Reference);
    }
    // "회사 홈페이지는 워드프레스고 …예요": a copula points somewhere only when the place is what
    // the topic is said to be, not the topic itself.
    const COPULA: &[&str] = words::CLASSIFY_WHOLE__COPULA;
    let predicate = topic_at.map_or_else(|| s.m.clone(), |i| words[i + 1..].join(" "));
    let located_verb = located_at(&words)
        || LOCATED
            .iter()
            .any(|l| !COPULA.contains(l) && s.m.contains(l));
    let placed_in_predicate =
        has_any(&predicate, DOC_NOUN) || has_any(&predicate, CHANNEL) || quoted_name(&predicate);
    if (located_verb || (s.has(COPULA) && (placed_in_predicate || s.path)))
        && (placed || (s.path && (!starts_project || located_at(&words))))
        && (!report || (placed && topic_at.is_some()))
    {
        return Some(MemoryType::Reference);
    }
    // "더 이상 필요 없어요" names nothing that lasts: a change needs a topic, the team or a name.
    if s.lead == Lead::TeamRule || (lasting && !report && (topic || team || technical)) {
        return Some(MemoryType::Project);
    }
    let statement = words::CLASSIFY_WHOLE__STATEMENT_END
        .iter()
        .any(|e| core.ends_with(e));
    // "…에 남기면 됩니다" without a channel, "…로 돌리면 돼요": how things are done here.
    let statement = statement || ends_with_any(core, WHERE_END) || required || nominal_end(core);
    // "온콜은 주 단위로 돌아가고 교대는 월요일 오전 10시": a memo that ends in a noun.
    let statement = statement || (words.len() >= 3 && noun_end(core));
    // "로그는 모두 JSON 형식으로 남깁니다": a statement about a topic named first (은/는 on one
    // of the first three words, the words before it bare nouns: "에러 응답 포맷은 …") is how the
    // project works, unless it reports a failure.
    let topic_first = leading_topic(&words).is_some();
    // An obligation or a permission with nobody and no topic named is addressed to the
    // assistant ("커밋하기 전에 테스트를 꼭 돌려야 해요", "주석은 한국어로 달아도 괜찮아요").
    let permission = s.has(PERMISSION);
    if (obligation && !starts_project && !topic_first && standing)
        || (permission && topic_first && !starts_project && !report)
    {
        return Some(MemoryType::Feedback);
    }
    if statement && s.lead == Lead::Remember {
        return Some(MemoryType::Project);
    }
    if statement && starts_project && !report {
        return Some(MemoryType::Project);
    }
    if statement && standing && !report {
        return Some(MemoryType::Project);
    }
    if statement && topic_first && !report {
        return Some(MemoryType::Project);
    }
    // "메인 DB가 PostgreSQL이에요": a thing named as what it is, with a technical name.
    let copula = ends_with_any(core, words::CLASSIFY_WHOLE__COPULA_END);
    let named = words
        .last()
        .is_some_and(|w| w.chars().any(|c| c.is_ascii_alphabetic()));
    if copula && named && subject && !report {
        return Some(MemoryType::Project);
    }
    // "PostgreSQL 15 써요", "커밋 메시지 영어로 써요", "배포 파이프라인 GitHub Actions로
    // 돌아가요": how the stack is used, said without a topic. Using something named, or in a
    // way ("…로", "… 대신"), is a habit; the moment, requests, plans and reports left above.
    let stack_verb = s.has(STACK_VERB);
    let how =
        named || s.m.chars().any(|c| c.is_ascii_alphabetic()) || s.has(words::CLASSIFY_WHOLE__HOW);
    if statement && stack_verb && how && !report && !request && !obligation {
        return Some(MemoryType::Project);
    }
    // Undecided: a plain statement about the work (a technical name or a word of the trade)
    // that no noise shape above caught leans durable.
    if statement && !report && !request && topic && !subject && (technical || s.has(WORK_NOUN)) {
        return Some(MemoryType::Project);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A clause cut at "-고" is closed grammatically: no "요" glued to a bare stem ("작요",
    /// "만들요"), and a quoted "-라고/-다고" stays whole.
    #[test]
    fn clauses_cut_at_go_are_closed_without_garbling() {
        assert_eq!(as_statement("파일은 작고", false), "파일은 작다");
        assert_eq!(
            as_statement("테스트를 먼저 만들고", false),
            "테스트를 먼저 만들다"
        );
        assert_eq!(
            as_statement("라벨링은 Label Studio로 하고", false),
            "라벨링은 Label Studio로 해요"
        );
        assert_eq!(
            as_statement("보드는 STM32이고", false),
            "보드는 STM32이에요"
        );
        assert_eq!(
            as_statement("issue.png를 참고하라고", false),
            "issue.png를 참고하라고"
        );
        for clause in ["작고", "만들고", "쓰고", "먹고", "크고"] {
            let s = as_statement(clause, false);
            assert!(
                !s.ends_with("요") || s.ends_with("어요") || s.ends_with("해요"),
                "{s}"
            );
        }
    }

    #[test]
    fn the_fact_after_a_reason_is_judged() {
        assert_eq!(
            fact_part("보안 감사 때문에 모든 SQL은 바인딩을 써야 합니다."),
            "모든 SQL은 바인딩을 써야 합니다."
        );
        assert_eq!(
            fact_part("로그는 JSON으로 남깁니다."),
            "로그는 JSON으로 남깁니다."
        );
        // Too little after the marker: the sentence is judged whole.
        assert_eq!(
            fact_part("그건 그렇기 때문에 응."),
            "그건 그렇기 때문에 응."
        );
    }

    #[test]
    fn past_tense_is_told_from_being() {
        assert!(past_tense("위에 붙여 놨어요."));
        assert!(past_tense("배포는 실패했습니다."));
        assert!(past_tense("서버를 재시작했는데"));
        assert!(!past_tense("문서는 위키에 있어요."));
        assert!(!past_tense("제가 하겠습니다."));
        assert!(!past_tense("답변은 짧게 했으면 좋겠어요."));
    }

    fn sent(m: &str) -> Sent {
        Sent {
            m: m.to_string(),
            lower: m.to_ascii_lowercase(),
            url: false,
            path: false,
            lead: Lead::None,
        }
    }

    fn lasting(m: &str) -> bool {
        let words: Vec<&str> = m.split_whitespace().collect();
        lasting_change(&sent(m), &words, false)
    }

    #[test]
    fn a_change_of_the_stack_is_told_from_an_edit() {
        assert!(lasting("우리는 Jira에서 Linear로 넘어왔어요."));
        assert!(lasting("배포 방식이 ArgoCD로 바뀌었어요."));
        assert!(lasting("작년에 DB를 PostgreSQL로 옮겼어요."));
        assert!(lasting("구 결제 API는 폐기됐어요."));
        assert!(!lasting("로그 레벨을 INFO에서 DEBUG로 바꿨어요."));
        assert!(!lasting("변수명을 data에서 userData로 바꿨어요."));
        assert!(!lasting("테스트를 tests 폴더로 옮겼어요."));
    }

    #[test]
    fn topics_are_not_modifiers() {
        assert!(is_topic("설명은") && is_topic("제보는") && is_topic("저는"));
        assert!(!is_topic("좋은") && !is_topic("사용하는") && !is_topic("은"));
    }

    #[test]
    fn places_and_times_are_recognized() {
        assert!(named_place(&[
            "온콜",
            "일정은",
            "PagerDuty에서",
            "확인하세요."
        ]));
        assert!(!named_place(&["로그를", "파일에", "남겨요."]));
        assert!(quoted_name("노션 '릴리스 절차' 문서"));
        assert!(!quoted_name("노션 문서"));
        assert!(since_clause(&["작년부터", "Go를", "써요."]));
        assert!(since_clause(&["v2부터", "바뀝니다."]));
        assert!(!since_clause(&["처음부터", "다시", "해"]));
    }

    #[test]
    fn chat_fillers_and_marks_are_taken_off() {
        assert_eq!(
            tidy("아 그리고 우리 DB는 Flyway로 해요 ㅋㅋ"),
            "우리 DB는 Flyway로 해요"
        );
        assert_eq!(
            tidy("아니 그게 아니라, 우리 API는 항상 snake_case로 응답해요."),
            "우리 API는 항상 snake_case로 응답해요."
        );
        assert_eq!(
            tidy("답변은 한국어로 해주세요~"),
            "답변은 한국어로 해주세요"
        );
        // A filler that is the whole message stays.
        assert_eq!(tidy("아니요"), "아니요");
    }

    #[test]
    fn clauses_are_cut_where_statements_join() {
        assert_eq!(
            clauses("이거 고쳐 주고, 참고로 우리는 커밋 메시지를 영어로 써요."),
            ["이거 고쳐 주고", "참고로 우리는 커밋 메시지를 영어로 써요."]
        );
        assert_eq!(
            clauses("저 프론트 3년차인데 Rust는 처음이에요"),
            ["저 프론트 3년차인데", "Rust는 처음이에요"]
        );
        // "쓰고 있어요" goes on with the same verb; a condition holds only with what follows.
        assert_eq!(
            clauses("프론트는 React 쓰고 있어요."),
            ["프론트는 React 쓰고 있어요."]
        );
        assert_eq!(
            clauses("배포가 실패하면, 롤백해 주세요."),
            ["배포가 실패하면, 롤백해 주세요."]
        );
        assert!(one_time("근데 이번엔 npm 써요.") && !one_time("이번부터 pnpm 써요."));
    }

    #[test]
    fn memo_endings_are_statements() {
        assert!(nominal_end("커밋 메시지는 Conventional Commits 따름"));
        assert!(nominal_end("배포는 목요일에 함") && nominal_end("초기화됨"));
        assert!(!nominal_end("배포는 목요일에 해요"));
    }

    #[test]
    fn habits_are_not_time_spans() {
        assert!(habitual_clause(&[
            "PR을",
            "만들",
            "때는",
            "적어",
            "주세요."
        ]));
        assert!(habitual_clause(&["배포", "전에는", "확인해야", "합니다."]));
        assert!(!habitual_clause(&["10분", "전에", "배포했어요."]));
        assert!(!habitual_clause(&["전에", "말했듯이"]));
    }
    #[test]
    fn memo_noun_endings_addresses_and_set_rules() {
        let kind = |m: &str| classify(&sent(m));
        // A memo that ends in a noun, an address to write to, a rule someone set.
        assert!(noun_end("교대는 월요일 오전 10시") && !noun_end("배포는 금요일에 해요"));
        assert!(email("신고는 security@example.com 으로") && !email("@channel 멘션"));
        assert!(lasting("교수님이 외부 라이브러리는 못 쓰게 하셨어요."));
        assert_eq!(
            kind("온콜은 주 단위로 돌아가고 교대는 월요일 오전 10시."),
            Some(MemoryType::Project)
        );
        // A wish that says how is standing; one that names only the task is not.
        assert_eq!(
            kind("핵심만 세 줄 정도로 요약해 주면 좋겠어요."),
            Some(MemoryType::Feedback)
        );
        assert_eq!(kind("회의록 요약해 주면 좋겠어요."), None);
        // Keeping on in a named manner is a rule; going on with the task is not.
        assert_eq!(kind("계속 그렇게 해 주세요."), Some(MemoryType::Feedback));
        assert_eq!(kind("계속 진행해 주세요."), None);
        // A failure word before the topic's head names a thing; the head itself reports.
        assert!(kind("파이프라인 실패 알림은 #data-alerts 채널로 옵니다.").is_some());
        assert_eq!(kind("에러 원인은 메모리 누수예요."), None);
        // "별로" only as a word.
        assert!(kind("DAG 파일은 폴더 밑에 도메인별로 나눠 둡니다.").is_some());
        assert_eq!(kind("인턴이라 잘 모르겠어요."), None);
        assert_eq!(
            kind("인턴이라 권한이 없어서 프로덕션 콘솔은 못 들어가요."),
            Some(MemoryType::User)
        );
    }
}
