//! Chinese rules (simplified and traditional; English words inside are read too).
//!
//! Durable: standing instructions ("以后…", "不要…", "永远不要…", "…统一用…", "请…" after a topic),
//! facts about the user ("我是…", "我负责…", "我更喜欢…"), rules and facts of the team or project
//! ("我们…", "线上用的是…", "…必须…", "每天…会…"), pointers ("…在 <URL>", "…见 docs/…").
//! Noise: requests about the work at hand ("帮我…", "把…改成…", "…一下"), the moment ("这次",
//! "今天", "刚才"), questions, thanks, opinions about a choice ("我觉得…更好"), acknowledgements.

use super::sent::{Lead, Sent, EN_MOMENT, EN_STANDING};
use super::words::zh as words;
use crate::formats::doc::MemoryType;

/// Always noise: the moment, thanks, opinions, questions words, requests for help, reports.
const MOMENT: &[&str] = words::MOMENT;

/// Noise unless a standing cue says otherwise: pointers at the work at hand. An explicit
/// "记住" lead-in waives them: the user asked to keep the sentence as it stands.
const AT_HAND: &[&str] = words::AT_HAND;

/// Noise unless a standing cue says otherwise, even after "记住": the moment, one-off verbs.
const AT_HAND_MOMENT: &[&str] = words::AT_HAND_MOMENT;

/// Demonstratives that name the project itself, not the work at hand.
const THIS_PROJECT: &[&str] = words::THIS_PROJECT;

/// Marks of a standing rule.
const STANDING: &[&str] = words::STANDING;

/// Openings of an instruction to the assistant.
const INSTRUCTION_START: &[&str] = words::INSTRUCTION_START;

const EN_INSTRUCTION_START: &[&str] = words::EN_INSTRUCTION_START;

/// Openings of a fact about the user.
const USER_START: &[&str] = words::USER_START;

/// "我在 <verb>": what the user is doing now, not where they are.
const USER_DOING: &[&str] = words::USER_DOING;

/// Openings of a fact or rule of the team or project.
const PROJECT_START: &[&str] = words::PROJECT_START;

/// Shapes of a rule or fact without a telling opening.
const PROJECT_SHAPE: &[&str] = words::PROJECT_SHAPE;

/// Nouns naming where knowledge lives.
const DOC_NOUN: &[&str] = words::DOC_NOUN;

const LOCATED: &[&str] = words::LOCATED;

/// Acknowledgements and sequencing that open a reply about the work at hand.
const ACK_START: &[&str] = words::ACK_START;

/// Conversational fillers dropped before judging the opening.
const FILLER: &[&str] = words::FILLER;

/// Whether `m` reads as one-off work: a cue of a one-off message fires (a request, a bug
/// report, a question) or a verb that changes the thing at hand is in it ("改成", "删掉"; the
/// two-character ones of `CHANGE_START`). "记住，这个按钮改成蓝色" is a change to make, not a
/// fact to keep.
fn one_off_work(m: &str) -> bool {
    CHANGE_START
        .iter()
        .any(|c| c.chars().count() >= 2 && m.contains(c))
        || super::cues::fired(m)
            .iter()
            .any(|c| c.class.starts_with("noise-"))
}

pub(super) fn classify(s: &Sent) -> Option<MemoryType> {
    if s.question() || matches!(s.last(), Some('吗' | '嗎' | '呢' | '么' | '麼')) {
        return None;
    }
    if moment(s) || s.any_word(EN_MOMENT) || hypothetical(&s.m) || complaint(&s.m) {
        return None;
    }
    if states_secret(s) {
        return None;
    }
    let m = strip_fillers(&s.m);
    if let Some(t) = label_fact(s, m) {
        return t;
    }
    if ACK_START.iter().any(|a| m.starts_with(a)) && !m.starts_with("可以用") {
        return None;
    }
    let standing =
        s.has(STANDING) || s.any_word(EN_STANDING) || s.lead == Lead::Standing || before_step(m);
    let at_hand = {
        let mut rest = m.to_string();
        for p in THIS_PROJECT {
            rest = rest.replace(p, "");
        }
        // "terraform code 在 infra/terraform/ 下面": where a named place is, not the screen.
        if s.path || s.url {
            for p in words::CLASSIFY__ON_SCREEN {
                rest = rest.replace(p, "");
            }
        }
        ((s.lead != Lead::Remember || one_off_work(m)) && AT_HAND.iter().any(|c| rest.contains(c)))
            || AT_HAND_MOMENT.iter().any(|c| rest.contains(c))
            || m.starts_with('把')
            || m.starts_with('它')
            || m.starts_with('將')
            || m.contains("请把")
            || m.contains("請把")
    };
    if at_hand && !standing {
        return None;
    }
    // A sentence ending in 了 or 吧 reports something done or suggests a one-off choice.
    if matches!(s.last(), Some('了' | '吧' | '啦')) && !standing {
        return None;
    }
    if s.lead == Lead::TeamRule {
        return Some(MemoryType::Project);
    }
    if s.lead == Lead::Standing {
        return Some(MemoryType::Feedback);
    }
    // "…，先用着", "功能先做个大概": a plan for now.
    let instructs = words::CLASSIFY__INSTRUCTS.iter().any(|w| m.contains(w));
    if !standing && !instructs && clauses(m).iter().skip(1).any(|c| plan_for_now(c)) {
        return None;
    }
    // "日志级别先调成debug": a change made for now.
    if !standing && for_now_change(m) {
        return None;
    }
    let lower = m.to_ascii_lowercase();
    let team_subject = TEAM_START.iter().any(|c| m.starts_with(c));
    // "给我 generate 一个 Dockerfile", "写个 migration …": one thing to make now.
    if !standing && !team_subject && one_off_request(m) {
        return None;
    }
    if INSTRUCTION_START.iter().any(|c| m.starts_with(c))
        || EN_INSTRUCTION_START.iter().any(|c| lower.starts_with(c))
        || step_then_do(m)
    {
        return Some(MemoryType::Feedback);
    }
    // "我 timezone 是 UTC+8", "我比较在意可读性": the speaker's own settings and values.
    if my_setting(m) {
        return Some(MemoryType::User);
    }
    if let Some(t) = user_fact(s, m) {
        return t;
    }
    // "crash 都上报到 Sentry", "实验结果都记到wandb": where a kind of thing is sent.
    if !team_subject && sent_to_tool(m) {
        return Some(MemoryType::Reference);
    }
    // "堡垒机地址问运维要", "权限找 IT 申请": who to ask for a thing.
    if asked_of(m) {
        return Some(MemoryType::Reference);
    }
    // "访问 grafana.internal 报 502": a host that fails now is a report.
    let host_fails = s.has(words::CLASSIFY__HOST_FAILS);
    if s.url || (host_named(m) && !host_fails && !STATE_REPORT.iter().any(|r| m.contains(r))) {
        return Some(MemoryType::Reference);
    }
    // "原型在墨刀上", "kubeconfig 在 1Password 的 infra vault": a thing kept in a named place.
    if !team_subject && kept_at(m) {
        return Some(MemoryType::Reference);
    }
    // "commit 之前记得跑 lint": remember to, at a recurring moment ("我记得…" recalls).
    if s.has(words::CLASSIFY__REMEMBER)
        && !s.has(words::CLASSIFY__I_RECALL)
        && s.has(words::CLASSIFY__RECURRING)
    {
        return Some(MemoryType::Feedback);
    }
    // "现在的逻辑是…", "目前的实现…": the code at hand as it is now.
    let starts_project = PROJECT_START.iter().any(|c| m.starts_with(c))
        && !words::CLASSIFY__CODE_NOW.iter().any(|c| m.starts_with(c));
    // "crash report 在 Firebase Crashlytics 看": where to look something up.
    let look_up = s.has(&["在"])
        && words::CLASSIFY__LOOK_UP
            .iter()
            .any(|e| s.core().ends_with(e));
    // "所有 cron job 的定义都在 ops/cron/ 里": a quantifier opens it, a path is where.
    let all_kept_at = s.path && s.has(words::CLASSIFY__ALL_KEPT_AT);
    if ((s.path || s.has(DOC_NOUN)) && s.has(LOCATED)
        || look_up
        || kept_in_tool(m)
        || names_channel(m))
        && (!starts_project || all_kept_at)
        && !team_subject
    {
        return Some(MemoryType::Reference);
    }
    // "数据库迁移一律用 Flyway，不要手动改表": a clause telling the assistant what not to do
    // makes the whole an instruction, unless the team is the subject ("我们组用飞书，不用钉钉").
    if !team_subject && instruction_clause(m) {
        return Some(MemoryType::Feedback);
    }
    // "前端传过来的时间戳是毫秒": a part of the project named first, then what it does now.
    // "所有 HTTP 接口超时 5s": a setting for all is not a symptom.
    let for_all = s.has(words::CLASSIFY__FOR_ALL);
    if starts_project
        && !team_subject
        && !standing
        && !for_all
        && STATE_REPORT.iter().any(|r| m.contains(r))
    {
        return None;
    }
    if starts_project {
        // "数据库表名一律小写加下划线": a naming rule is how the assistant writes.
        let style_rule = s.has(words::CLASSIFY__UNIFORM)
            && !s.has(words::CLASSIFY__UNIFORM_ADJ)
            && style_choice(m);
        return Some(if style_rule && !team_subject {
            MemoryType::Feedback
        } else {
            MemoryType::Project
        });
    }
    // "memory usage 在 peak 的时候到 4G": when a measurement was taken, not when to act.
    if (s.has(words::CLASSIFY__WHEN) && !s.has(words::CLASSIFY__MEASURED_AT))
        || s.m
            .replace("请求", "")
            .replace("請求", "")
            .replace("申请", "")
            .replace("申請", "")
            .contains(['请', '請'])
    {
        return Some(MemoryType::Feedback);
    }
    if s.has(words::CLASSIFY__ALWAYS) {
        // "依赖升级统一由 Renovate 提 PR", "feature flag 统一走 LaunchDarkly": who or what
        // the team has settled on; "提交信息统一用英文写": how the assistant writes.
        // "接口超时时间统一 3 秒": a setting of the project.
        return Some(
            if s.has(words::CLASSIFY__BY_WHOM)
                || !style_choice(m) && !s.has(words::CLASSIFY__WRITE_USE)
            {
                MemoryType::Project
            } else {
                MemoryType::Feedback
            },
        );
    }
    if s.has(PROJECT_SHAPE) || standing || s.lead == Lead::Remember || names_tool(m) {
        return Some(MemoryType::Project);
    }
    // What is left and still reads as a plain statement about how things are ("主分支叫
    // master", "上线要走审批单", "周四下午是 code review 时间") is durable by default; what
    // reads as work on the thing at hand was dropped above.
    if statement(m) {
        return Some(if style_choice(m) {
            MemoryType::Feedback
        } else {
            MemoryType::Project
        });
    }
    None
}

/// Openings naming the team as the subject.
const TEAM_START: &[&str] = words::TEAM_START;

/// "如果以后要支持多语言的话，这里可能得重构": a what-if, unless it states what then must be
/// done ("如果改了 proto，就要重新生成代码").
fn hypothetical(m: &str) -> bool {
    const IF: &[&str] = words::HYPOTHETICAL__IF;
    const THEN_RULE: &[&str] = words::HYPOTHETICAL__THEN_RULE;
    let m = strip_fillers(m);
    (IF.iter().any(|c| m.starts_with(c)) || m.contains("的话") || m.contains("的話"))
        && !THEN_RULE.iter().any(|c| m.contains(c))
        || m.contains("要不要")
}

/// A request to make or change one thing now: "给我 generate 一个 Dockerfile", "写个脚本",
/// "加个参数校验", "帮我生成 10 条测试数据", "改成用 channel 实现".
fn one_off_request(m: &str) -> bool {
    const COUNTED: &[&str] = words::ONE_OFF_REQUEST__COUNTED;
    let counted = COUNTED.iter().any(|c| m.contains(c))
        || m.char_indices().any(|(i, c)| {
            c.is_ascii_digit()
                && words::ONE_OFF_REQUEST__COUNTERS
                    .iter()
                    .any(|u| m[i + 1..].trim_start().starts_with(u))
        });
    let asks = REQUEST_START.iter().any(|c| m.starts_with(c))
        || words::ONE_OFF_REQUEST__ASK_FOR_ME
            .iter()
            .any(|c| m.starts_with(c));
    let after_ask = words::ONE_OFF_REQUEST__ASK_PREFIX
        .iter()
        .find_map(|c| m.strip_prefix(c))
        .unwrap_or(m)
        .trim_start();
    (counted && asks) || CHANGE_START.iter().any(|c| after_ask.starts_with(c))
}

/// Verbs that open a request about the work at hand.
const REQUEST_START: &[&str] = words::REQUEST_START;

/// Verbs that change the code at hand: "改成…", "换成…", "重构…", "删掉…".
const CHANGE_START: &[&str] = words::CHANGE_START;

/// A fact about the user (`Some(Some(User))`), what the user is doing now (`Some(None)`), or
/// neither (`None`).
fn user_fact(s: &Sent, m: &str) -> Option<Option<MemoryType>> {
    if m.starts_with("我们") || m.starts_with("我們") || m.starts_with("我司") {
        return None;
    }
    let lower = m.to_ascii_lowercase();
    // "我做嵌入式的", "我平常写 C 比较多", "我 prefer 先给思路": a habit or trait of the user.
    let habit = m.starts_with('我')
        && (s.has(USER_HABIT)
            || words::USER_FACT__EN_HABIT
                .iter()
                .any(|w| lower.starts_with(&w.to_ascii_lowercase())));
    if !(USER_START.iter().any(|c| m.starts_with(c)) || habit) {
        return None;
    }
    // "我在 review 小王的 PR", "我在公司电脑上装不了 docker": doing or stuck now.
    let doing_en = m.strip_prefix("我在").is_some_and(|r| {
        r.trim_start()
            .starts_with(|c: char| c.is_ascii_alphabetic())
    });
    if USER_DOING.iter().any(|c| m.starts_with(c)) || doing_en || s.has(words::USER_FACT__NOW) {
        return Some(None);
    }
    Some(Some(MemoryType::User))
}

/// Marks of a habit or trait in a sentence about the speaker.
const USER_HABIT: &[&str] = words::USER_HABIT;

/// A clause that tells the assistant what not to do or how to go about it.
fn instruction_clause(m: &str) -> bool {
    const OPEN: &[&str] = words::INSTRUCTION_CLAUSE__OPEN;
    const INSIDE: &[&str] = words::INSTRUCTION_CLAUSE__INSIDE;
    // "migration script 不要 drop column": the instruction is the first clause itself;
    // "unit test 用 vitest，不要 jest": a choice, then what not to pick. A fact followed by a
    // warning ("每个 PR 只做一件事，不要把重构混进来") stays a fact.
    let cl = clauses(m);
    let first = cl.first().copied().unwrap_or(m);
    INSIDE
        .iter()
        .any(|w| first.match_indices(w).any(|(i, _)| i > 0))
        || words::INSTRUCTION_CLAUSE__ASK_ME
            .iter()
            .any(|w| m.contains(w))
        || ((first.contains('用')
            || first.contains('走')
            || first.contains("直接")
            || words::INSTRUCTION_CLAUSE__WHEN_MEETING
                .iter()
                .any(|w| first.starts_with(w)))
            && cl.iter().skip(1).any(|c| {
                let c = strip_fillers(c);
                OPEN.iter().any(|o| c.starts_with(o))
                    && c.trim_end_matches(['。', '！', '.', '!']).chars().count() >= 3
            }))
        || words::INSTRUCTION_CLAUSE__ENOUGH
            .iter()
            .any(|e| m.contains(e) && !m.starts_with('我'))
}

/// How code or answers are written: naming, formatting, language, layout.
fn style_choice(m: &str) -> bool {
    const STYLE: &[&str] = words::STYLE_CHOICE__STYLE;
    (m.starts_with('用') && !m.starts_with("用户") && !m.starts_with("用戶"))
        || m.starts_with("不用")
        || STYLE.iter().any(|w| m.contains(w))
}

/// Words of a report about the thing at hand: a symptom, a measurement, an opinion, a wish.
const STATE_REPORT: &[&str] = words::STATE_REPORT;

/// A plain statement: a subject named first, then a predicate that says how things are or
/// must be ("主分支叫 master", "上线要走审批单", "固件要能在 STM32 上跑", "RAM 只有 20K"). Reports
/// about the work at hand ("服务起不来", "内存占用降下来"), changes just made (…了…) and
/// opinions ("有点丑") are not.
fn statement(m: &str) -> bool {
    const PREDICATE: &[&str] = words::STATEMENT__PREDICATE;

    // The speaker's or the assistant's doing: "我要的是倒序", "你用 React 写个 demo".
    if m.starts_with(['我', '你', '您']) {
        return false;
    }
    if REQUEST_START
        .iter()
        .any(|c| m.starts_with(c) && !m[c.len()..].starts_with('的'))
        && !m.starts_with('用')
    {
        return false;
    }
    // "下午要 demo，先搞个能跑的版本": a plan for now.
    if clauses(m).iter().any(|c| {
        words::STATEMENT__FOR_NOW
            .iter()
            .any(|w| strip_fillers(c).starts_with(w))
    }) {
        return false;
    }
    if CHANGE_START.iter().any(|c| m.starts_with(c)) || STATE_REPORT.iter().any(|r| m.contains(r)) {
        return false;
    }
    if past(m) {
        return false;
    }
    let han = m.chars().filter(|&c| super::script::is_han(c)).count();
    han >= 2
        && settles(m)
        && PREDICATE
            .iter()
            .any(|p| m.match_indices(p).any(|(i, _)| i > 0))
}

/// What makes a plain statement a standing fact rather than a description of the thing at
/// hand ("前端传过来的时间戳是毫秒", "回调有时候会重复"): an obligation or a limit (要, 不能,
/// 只有), a rule for all (都, 一律, 默认, 每…), a name (叫, 是/用 <Name>), a schedule (周四),
/// a place it runs or is kept (走, 跑在, 存在), who owns it (由, 负责).
fn settles(m: &str) -> bool {
    const SETTLED: &[&str] = words::SETTLES__SETTLED;
    if SETTLED.iter().any(|w| m.contains(w)) || style_choice(m) {
        return true;
    }
    // "合并用 squash merge", "secret 用 sealed-secrets 管理", "小程序用的是 uni-app": what is
    // used for a thing.
    let uses = m.match_indices('用').any(|(i, _)| {
        let after = &m[i + '用'.len_utf8()..];
        let after = after.strip_prefix("的是").unwrap_or(after);
        !after.starts_with('的')
            && after
                .trim_start()
                .starts_with(|c: char| c.is_ascii_alphabetic())
    });
    if uses {
        return true;
    }
    // "配置中心用的apollo": a tool named last, after what it is used for.
    let core = m.trim_end_matches(['。', '.', ' ', '！', '!']);
    let named_last = words::SETTLES__USED.iter().any(|v| {
        core.match_indices(v).any(|(i, _)| {
            let name = core[i + v.len()..].trim();
            i > 0
                && name.len() >= 3
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
                && name.starts_with(|c: char| c.is_ascii_alphabetic())
        })
    });
    if named_last {
        return true;
    }
    // "…是 Kong", "…用的 Unity 2021", "全是 Java 17": a named thing after the verb.
    // "跑测试：make test": a label and the command or value it names.
    let labelled = ["：", ":"].iter().any(|c| {
        m.match_indices(c).any(|(i, _)| {
            i > 0
                && m[i + c.len()..]
                    .trim_start()
                    .starts_with(|ch: char| ch.is_ascii_alphabetic())
        })
    });
    if labelled {
        return true;
    }
    words::SETTLES__NAMED_AFTER.iter().any(|v| {
        m.match_indices(v).any(|(i, _)| {
            let after = m[i + v.len()..].trim_start_matches(['的', ' ']);
            let name: String = after
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | '+'))
                .collect();
            // "toolchain 是 arm-none-eabi-gcc 12", "min SDK 是 24": a version counts too.
            let words: String = after.chars().take(24).collect();
            // "包名是 com.example.shop": an identifier.
            let identifier = name.len() >= 3
                && name
                    .trim_end_matches(['.', '-', '_'])
                    .contains(['.', '-', '_']);
            (name.starts_with(|c: char| c.is_ascii_alphabetic()) && identifier)
                || (name.starts_with(|c: char| c.is_ascii_alphabetic())
                    && words
                        .chars()
                        .any(|c| c.is_ascii_uppercase() || c.is_ascii_digit()))
                || (*v == "是" && name.starts_with(|c: char| c.is_ascii_digit()))
        })
    })
}

/// "…迁到了 TiDB", "推上去了": something that happened, not how things are. 了 in
/// "为了", "除了", "了解" is not a past mark.
fn past(m: &str) -> bool {
    let chars: Vec<char> = m.chars().collect();
    chars.iter().enumerate().any(|(i, &c)| {
        c == '了'
            && !(i > 0 && matches!(chars[i - 1], '为' | '為' | '除' | '罢' | '罷' | '得' | '不'))
            && !matches!(chars.get(i + 1), Some('解'))
    }) || m.contains("过了")
        || m.contains("過了")
}

/// The clauses of a sentence: cut at commas and before a change of topic ("另外", "对了",
/// "顺便说下", "btw"). Code spans are never cut.
pub(super) fn clauses(text: &str) -> Vec<&str> {
    const SHIFT: &[&str] = words::CLAUSES__SHIFT;
    let mut out = Vec::new();
    let mut start = 0;
    let mut in_code = false;
    for (i, c) in text.char_indices() {
        if c == '`' {
            in_code = !in_code;
        }
        if in_code {
            continue;
        }
        let rest = &text[i..];
        let cut_before = i > start && SHIFT.iter().any(|w| rest.starts_with(w));
        // "我是实习生 刚学python不久": a fast typist's space between two CJK characters is a
        // comma.
        let bare_space = c == ' '
            && text[..i].ends_with(super::script::is_cjk)
            && rest[1..].starts_with(super::script::is_cjk);
        let comma = c == '，'
            || bare_space
            || (c == ','
                && (rest[1..].starts_with(' ') || rest[1..].starts_with(super::script::is_cjk)));
        if cut_before || comma {
            let clause = text[start..i].trim().trim_end_matches([',', '，']);
            if !clause.is_empty() {
                out.push(clause);
            }
            start = if comma { i + c.len_utf8() } else { i };
        }
    }
    let last = text[start..].trim();
    if !last.is_empty() {
        out.push(last);
    }
    out
}

/// A clause about this once: "这次先用 npm", "今天先不管".
pub(super) fn one_time(clause: &str) -> bool {
    const ONCE: &[&str] = words::ONE_TIME__ONCE;
    // 先 opens a plan ("先放着"); inside a clause it orders steps ("出事先看那个").
    ONCE.iter().any(|c| clause.contains(c))
        || strip_fillers(clause).starts_with('先')
        || words::ONE_TIME__HELP
            .iter()
            .any(|c| strip_fillers(clause).starts_with(c))
}

/// A moment word; "帮我" and "麻烦" do not make a standing instruction one ("以后出 SQL 都帮我
///加上注释").
fn moment(s: &Sent) -> bool {
    const ASKS: &[&str] = words::MOMENT__ASKS;
    let standing_open = words::MOMENT__STANDING_OPEN.iter().any(|w| s.m.contains(w));
    // "我比较怕麻烦", "太麻烦": trouble, not a polite request.
    let m =
        s.m.replace("怕麻烦", "")
            .replace("怕麻煩", "")
            .replace("很麻烦", "")
            .replace("很麻煩", "")
            .replace("太麻烦", "")
            .replace("太麻煩", "");
    MOMENT
        .iter()
        .any(|w| m.contains(w) && !(standing_open && ASKS.contains(w)))
}

/// "太慢了", "太大了": a complaint about the thing at hand.
fn complaint(m: &str) -> bool {
    // "给变量起名别用拼音，太难读了": the reason for an instruction.
    if words::COMPLAINT__DONT.iter().any(|w| m.contains(w)) {
        return false;
    }
    let chars: Vec<char> = m.chars().collect();
    chars.iter().enumerate().any(|(i, &c)| {
        c == '太'
            && chars[i + 1..]
                .iter()
                .take(4)
                .any(|&n| n == '了' || n == '啦')
    })
}

/// "数据库密码是 …", "我的 API key：sk-…": a secret handed over, never a memory.
fn states_secret(s: &Sent) -> bool {
    const SECRET: &[&str] = words::STATES_SECRET__SECRET;
    SECRET.iter().any(|w| {
        s.lower.match_indices(w).any(|(i, _)| {
            let after = s.lower[i + w.len()..].trim_start();
            let value = after.trim_start_matches(['是', ':', '：', ' ']);
            // "root 密码 abc123456": a value straight after the word.
            let token: String = value.chars().take_while(|c| c.is_ascii_graphic()).collect();
            (after.starts_with(['是', ':', '：']) && token.len() >= 4)
                || (token.len() >= 6 && token.chars().any(|c| c.is_ascii_digit()))
        })
    })
}

fn states_secret_text(t: &str) -> bool {
    let lower = t.to_ascii_lowercase();
    states_secret(&Sent {
        m: t.to_string(),
        lower,
        url: false,
        path: false,
        lead: Lead::None,
    })
}

/// "commit 前跑 make check", "提交之前…", "上线前…": what to do before a recurring step.
fn before_step(m: &str) -> bool {
    const STEPS: &[&str] = words::BEFORE_STEP__STEPS;
    const EN_STEPS: &[&str] = words::BEFORE_STEP__EN_STEPS;
    let head: String = m.chars().take(16).collect();
    if STEPS.iter().any(|w| head.contains(w)) {
        return true;
    }
    let lower = head.to_ascii_lowercase();
    EN_STEPS.iter().any(|w| {
        lower.match_indices(w).any(|(i, _)| {
            let rest = lower[i + w.len()..].trim_start();
            let word_start = i == 0 || !lower.as_bytes()[i - 1].is_ascii_alphanumeric();
            word_start && (rest.starts_with('前') || rest.starts_with("之前"))
        })
    })
}

/// "commit 前跑 make check": a bare verb after the step is an instruction; "上线前要先跑…"
/// (a modal) states the team's rule.
fn step_then_do(m: &str) -> bool {
    const DO: &[&str] = words::STEP_THEN_DO__DO;
    if !before_step(m) {
        return false;
    }
    let Some(i) = m.find('前') else {
        return false;
    };
    let rest = m[i + '前'.len_utf8()..].trim_start_matches([',', '，', ' ']);
    DO.iter().any(|d| rest.starts_with(d))
}

/// "产品需求都在 PingCode 上", "API keys 都在 1Password 里": kept in a named tool. Where
/// something runs ("部署在 Kubernetes 上") is a fact of the project instead.
fn kept_in_tool(m: &str) -> bool {
    const RUNS: &[&str] = words::KEPT_IN_TOOL__RUNS;
    m.match_indices('在').any(|(i, _)| {
        let before = &m[..i];
        let after = m[i + '在'.len_utf8()..].trim_start();
        let name: String = after
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_'))
            .collect();
        let rest = after[name.len()..].trim_start();
        !RUNS.iter().any(|r| before.ends_with(r))
            && name.chars().any(|c| c.is_ascii_uppercase())
            && rest.starts_with(['上', '里', '裡', '中'])
            // The clause ends there: "…在 PingCode 上，", not "…在 Slurm 上排队".
            && rest[3..]
                .trim_start()
                .chars()
                .next()
                .is_none_or(|c| matches!(c, '，' | ',' | '。' | '；' | '.' | '!' | '！'))
    })
}

/// "我 timezone 是 UTC+8", "我比较在意可读性": a setting or value of the speaker.
fn my_setting(m: &str) -> bool {
    const VALUES: &[&str] = words::MY_SETTING__VALUES;
    if VALUES.iter().any(|v| m.starts_with(v)) {
        return true;
    }
    let Some(rest) = m.strip_prefix("我 ") else {
        return false;
    };
    let word: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphabetic() || *c == ' ')
        .collect();
    let after = rest[word.len()..].trim_start();
    // "我 code 是刚 pull 的": the state of the speaker's copy now.
    let now = words::MY_SETTING__NOW.iter().any(|w| after.contains(w));
    word.trim().len() >= 3 && !now && (after.starts_with('是') || after.starts_with("用的"))
}

/// "crash 都上报到 Sentry", "实验结果都记到wandb": a kind of thing sent to a named tool, the
/// clause ending on the name.
fn sent_to_tool(m: &str) -> bool {
    const TO: &[&str] = words::SENT_TO_TOOL__TO;
    if m.starts_with(['我', '你', '把']) || m.contains(['先', '暂', '暫']) {
        return false;
    }
    TO.iter().any(|t| {
        m.match_indices(t).any(|(i, _)| {
            let after = m[i + t.len()..].trim_start();
            let end = after
                .find(['，', ',', '。', '；', ';', '！', '!', ' '])
                .unwrap_or(after.len());
            let name = &after[..end];
            i > 0
                && after[end..].trim().is_empty()
                && name.len() >= 3
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
                && name.starts_with(|c: char| c.is_ascii_alphabetic())
        })
    })
}

/// "堡垒机地址问运维要", "权限找 IT 申请": who to ask for a thing.
fn asked_of(m: &str) -> bool {
    let core = m.trim_end_matches(['。', '.', ' ', '！', '!']);
    if m.starts_with(['我', '你', '把', '先'])
        || words::ASKED_OF__NOT_ASKED_OF
            .iter()
            .any(|w| core.contains(w))
    {
        return false;
    }
    words::ASKED_OF__GET.iter().any(|e| core.ends_with(e))
        && core
            .char_indices()
            .any(|(i, c)| matches!(c, '找' | '问' | '問') && i >= 6)
}

/// "日志级别先调成debug", "超时先改成 30s": 先 before a change of a setting marks it as for now.
fn for_now_change(m: &str) -> bool {
    const CHANGE: &[&str] = words::FOR_NOW_CHANGE__CHANGE;
    m.match_indices('先').any(|(i, _)| {
        let after = &m[i + '先'.len_utf8()..];
        CHANGE.iter().any(|c| after.trim_start().starts_with(c))
    })
}

/// "新人文档 wiki.corp/onboarding", "storybook 地址 storybook.corp.io": a host named without a
/// scheme — a dotted name followed by a path, or ending in a domain suffix ("config.yaml" is a
/// file, not a host).
fn host_named(m: &str) -> bool {
    const SUFFIX: &[&str] = words::HOST_NAMED__SUFFIX;
    let mut rest = m;
    while let Some(start) = rest.find(|c: char| c.is_ascii_alphanumeric()) {
        let tail = &rest[start..];
        let len = tail
            .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '/' | '_')))
            .unwrap_or(tail.len());
        let token = &tail[..len];
        let host = token.split('/').next().unwrap_or("");
        let labels: Vec<&str> = host.split('.').collect();
        if labels.len() >= 2 && labels.iter().all(|l| !l.is_empty()) {
            let last = labels[labels.len() - 1];
            // "Fly.io", "Node.js": products are written capitalized; hosts are not.
            let first_alpha = labels[0].starts_with(|c: char| c.is_ascii_alphabetic())
                && !host.chars().any(|c| c.is_ascii_uppercase());
            if first_alpha && (SUFFIX.contains(&last) || (token.contains('/') && last.len() >= 3)) {
                return true;
            }
        }
        rest = &tail[len.max(1)..];
    }
    false
}

/// "原型在墨刀上", "错误码规范在confluence上", "kubeconfig 在 1Password 的 infra vault",
/// "周报模板在共享盘 运营/周报": something kept in a named tool or store. Not the speaker's or
/// anyone's doing ("我在开会", "正在跑"), not where a fault lies ("bug 在 handler 里").
fn kept_at(m: &str) -> bool {
    const STORE: &[&str] = words::KEPT_AT__STORE;
    const NOT_KEPT: &[&str] = words::KEPT_AT__NOT_KEPT;
    let clause_end = |t: &str| {
        t.find(['，', ',', '。', '；', ';', '！', '!'])
            .unwrap_or(t.len())
    };
    // The first clause only: "…用 Nacos，配置也在 Nacos" adds to a fact of the project.
    let first = &m[..clause_end(m)];
    first.match_indices('在').any(|(i, _)| {
        let m = first;
        let before = m[..i].trim_end();
        if before.chars().count() < 2 || NOT_KEPT.iter().any(|w| before.contains(w)) {
            return false;
        }
        let after = m[i + '在'.len_utf8()..].trim_start();
        let after = &after[..clause_end(after)];
        let name_len = STORE
            .iter()
            .find(|s| after.starts_with(*s))
            .map(|s| s.len())
            .unwrap_or_else(|| {
                after
                    .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_')))
                    .unwrap_or(after.len())
            });
        let name = &after[..name_len];
        if name.is_empty() || (name.is_ascii() && !name.chars().any(|c| c.is_ascii_alphabetic())) {
            return false;
        }
        // "focus 在 logic 上": a lower-case word after English is a verb's object, not a
        // store; after Chinese ("规范在confluence上") it names one.
        let plain_word = name.chars().all(|c| c.is_ascii_lowercase());
        let rest_of = after[name_len..].trim_start();
        if plain_word && before.ends_with(|c: char| c.is_ascii()) && !rest_of.starts_with('的') {
            return false;
        }
        let rest = after[name_len..].trim();
        rest.is_empty()
            || words::KEPT_AT__ON.contains(&rest)
            || ((rest.starts_with('的') || rest.contains('/'))
                && rest.chars().count() <= 20
                && !rest.ends_with(['了', '吗', '呢']))
    })
}

/// "#dev-help", "#deploy": a chat channel named in the sentence.
pub(super) fn names_channel(m: &str) -> bool {
    m.match_indices('#').any(|(i, _)| {
        let before_ok = i == 0 || m[..i].ends_with([' ', '「', '“', '"', '(', '（']);
        // "Slackの#dev-spec", "发到#ops": right after CJK text, a letter must follow (not an
        // issue number).
        let after_cjk = m[..i].chars().last().is_some_and(super::script::is_cjk);
        let next = m[i + 1..].chars().next();
        (before_ok && next.is_some_and(|c| c.is_ascii_alphanumeric()))
            || (after_cjk && next.is_some_and(|c| c.is_ascii_alphabetic()))
    })
}

/// "技术栈：Next.js + Prisma", "报错：EADDRINUSE": a line that names what it holds before a
/// colon. A label for a standing kind of fact makes the line one (`Some(Some(_))`), a label
/// for a report about the work at hand makes it noise (`Some(None)`); any other label, or none,
/// leaves the line to the other rules (`None`).
pub(super) fn label_fact(s: &Sent, m: &str) -> Option<Option<MemoryType>> {
    const FACT: &[&str] = words::LABEL_FACT__FACT;
    const POINTER: &[&str] = words::LABEL_FACT__POINTER;
    const REPORT: &[&str] = words::LABEL_FACT__REPORT;
    let (i, colon) = [("：", 3usize), (":", 1usize)]
        .iter()
        .filter_map(|(c, n)| m.find(c).map(|i| (i, *n)))
        .min()?;
    let label = m[..i].trim();
    let value = m[i + colon..].trim();
    if label.is_empty() || label.chars().count() > 12 || value.chars().count() < 2 {
        return None;
    }
    let lower = label.to_ascii_lowercase();
    if REPORT.iter().any(|r| lower.contains(r)) {
        return Some(None);
    }
    if POINTER.iter().any(|p| lower.contains(p)) && (s.url || s.path) {
        return Some(Some(MemoryType::Reference));
    }
    FACT.iter()
        .any(|f| lower.contains(f))
        .then_some(Some(MemoryType::Project))
}

/// A clause about doing something for now: "先用着", "先放一放", "暂时这样".
fn plan_for_now(clause: &str) -> bool {
    let c = strip_fillers(clause);
    // "算法题别直接给答案，先给思路提示": an order of steps inside an instruction is not
    // checked here; the caller sees the instruction first.
    // "暂时不能升级" is a constraint that holds until further notice, not a plan.
    (words::PLAN_FOR_NOW__FOR_NOW
        .iter()
        .any(|w| c.starts_with(w))
        || (words::PLAN_FOR_NOW__TEMPORARILY
            .iter()
            .any(|w| c.starts_with(w))
            && !c.contains('不')))
        || c.contains("先做")
        || c.contains("先用")
}

/// Time words that put the whole sentence in the moment unless a clause turns to another
/// topic ("昨天的 deploy rollback 了，原因还在查").
pub(super) fn in_the_moment(text: &str) -> bool {
    const WHEN: &[&str] = words::IN_THE_MOMENT__WHEN;
    WHEN.iter().any(|w| text.contains(w))
}

/// Whether a clause opens with a change of topic ("另外…", "btw …").
pub(super) fn shifts_topic(clause: &str) -> bool {
    words::SHIFTS_TOPIC__TOPIC_SHIFT
        .iter()
        .any(|w| clause.starts_with(w))
        || clause.to_ascii_lowercase().starts_with("btw")
        || clause.to_ascii_lowercase().starts_with("by the way")
}

/// A clause that goes on with the one before it ("…，要能支持 10 万并发", "…，然后…"): it has
/// no subject of its own, so it is never judged alone.
pub(super) fn continues(clause: &str) -> bool {
    const ON: &[&str] = words::CONTINUES__ON;
    ON.iter().any(|w| clause.starts_with(w))
}

/// Whole-sentence noise that no clause of it escapes: a question, a what-if, thanks.
pub(super) fn sentence_noise(text: &str) -> bool {
    let t = text.trim_end_matches(['。', '！', '.', '!', ' ']);
    t.contains('？')
        || t.ends_with('?')
        || t.ends_with(['吗', '嗎', '呢'])
        || hypothetical(t)
        || complaint(t)
        || words::SENTENCE_NOISE__OPINION.iter().any(|w| t.contains(w))
        || states_secret_text(t)
        || words::SENTENCE_NOISE__THANKS.iter().any(|w| t.contains(w))
}

/// "前端的 state management 用 Zustand", "API gateway 现在是 Kong", "老的后台还是 jQuery 写的":
/// a part of the project named before 用/是/还是 and a named tool (an ASCII word) after it.
fn names_tool(m: &str) -> bool {
    const VERBS: &[&str] = words::NAMES_TOOL__VERBS;
    const NOT_SUBJECT: &[&str] = words::NAMES_TOOL__NOT_SUBJECT;
    // What went wrong and why: a report about the work at hand.
    const REPORT: &[&str] = words::NAMES_TOOL__REPORT;
    if NOT_SUBJECT.iter().any(|p| m.starts_with(p)) || REPORT.iter().any(|r| m.contains(r)) {
        return false;
    }
    VERBS.iter().any(|v| {
        m.match_indices(v).any(|(i, _)| {
            let before = m[..i].trim_end();
            let after = m[i + v.len()..].trim_start();
            // A name has a capital or a digit ("Kong", "jQuery", "Vue3"); "CI 还是 red" reports
            // a state.
            let name: String = after
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | '+'))
                .collect();
            before.chars().filter(|c| c.is_alphanumeric()).count() >= 2
                && name.starts_with(|c: char| c.is_ascii_alphabetic())
                && name
                    .chars()
                    .any(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
                && !before.ends_with(['，', ',', '、'])
        })
    })
}

fn strip_fillers(m: &str) -> &str {
    let mut m = m;
    loop {
        let before = m.len();
        for f in FILLER {
            if let Some(rest) = m.strip_prefix(f) {
                m = rest.trim_start_matches([',', '，', '、', ' ', ':', '：']);
            }
        }
        if m.len() == before {
            return m;
        }
    }
}
