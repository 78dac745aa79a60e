//! Chinese rules (simplified and traditional; English words inside are read too).
//!
//! Durable: standing instructions ("以后…", "不要…", "永远不要…", "…统一用…", "请…" after a topic),
//! facts about the user ("我是…", "我负责…", "我更喜欢…"), rules and facts of the team or project
//! ("我们…", "线上用的是…", "…必须…", "每天…会…"), pointers ("…在 <URL>", "…见 docs/…").
//! Noise: requests about the work at hand ("帮我…", "把…改成…", "…一下"), the moment ("这次",
//! "今天", "刚才"), questions, thanks, opinions about a choice ("我觉得…更好"), acknowledgements.

use super::cjk::{Lead, Sent, EN_MOMENT, EN_STANDING};
use crate::formats::doc::MemoryType;

/// Always noise: the moment, thanks, opinions, questions words, requests for help, reports.
const MOMENT: &[&str] = &[
    "这次",
    "這次",
    "这回",
    "這回",
    "今天",
    "今晚",
    "明天",
    "昨天",
    "刚才",
    "剛才",
    "刚刚",
    "剛剛",
    "下次",
    "待会",
    "待會",
    "马上",
    "馬上",
    "谢谢",
    "謝謝",
    "感谢",
    "感謝",
    "多谢",
    "多謝",
    "我觉得",
    "我覺得",
    "我认为",
    "我認為",
    "感觉",
    "感覺",
    "好像",
    "似乎",
    "也许",
    "也許",
    "可能是",
    "已经",
    "已經",
    "为什么",
    "為什麼",
    "为啥",
    "怎么",
    "怎麼",
    "什么",
    "什麼",
    "能不能",
    "可不可以",
    "是不是",
    "有没有",
    "有沒有",
    "帮我",
    "幫我",
    "帮忙",
    "幫忙",
    "麻烦",
    "麻煩",
    "试试",
    "試試",
    "看看",
    "看一下",
    "搞定",
    "解决了",
    "解決了",
    "报错",
    "報錯",
    "出错",
    "出錯",
    "失败了",
    "失敗了",
    "正在",
    "更好",
    "需要一个",
    "需要一個",
    "缺一个",
    "缺一個",
    "就用",
    "不错",
    "不錯",
];

/// Noise unless a standing cue says otherwise: pointers at the work at hand, one-off verbs.
const AT_HAND: &[&str] = &[
    "一下", "这个", "這個", "这段", "這段", "这些", "這些", "那个", "那個", "这里", "這裡", "這裏",
    "这儿", "此处", "此處", "上面", "下面", "刚",
];

/// Demonstratives that name the project itself, not the work at hand.
const THIS_PROJECT: &[&str] = &[
    "这个项目",
    "這個項目",
    "這個專案",
    "这个仓库",
    "這個倉庫",
    "这个团队",
    "這個團隊",
    "这个系统",
    "這個系統",
    "这个服务",
    "這個服務",
];

/// Marks of a standing rule.
const STANDING: &[&str] = &[
    "以后",
    "以後",
    "今后",
    "今後",
    "往后",
    "往後",
    "从现在开始",
    "從現在開始",
    "从今以后",
    "從今以後",
    "每次",
    "每当",
    "每當",
    "始终",
    "始終",
    "永远",
    "永遠",
    "总是",
    "總是",
    "一律",
    "统一",
    "統一",
    "务必",
    "務必",
    "一定要",
    "必须",
    "必須",
    "都要",
    "都得",
    "不允许",
    "不允許",
    "禁止",
    "不准",
    "规定",
    "規定",
    "规范",
    "規範",
    "约定",
    "約定",
    "默认",
    "默認",
    "一般都",
    "平时",
    "平時",
    "的时候",
    "的時候",
    "时请",
    "時請",
];

/// Openings of an instruction to the assistant.
const INSTRUCTION_START: &[&str] = &[
    "以后",
    "以後",
    "今后",
    "今後",
    "往后",
    "往後",
    "从现在开始",
    "從現在開始",
    "从今以后",
    "從今以後",
    "每次",
    "始终",
    "始終",
    "永远",
    "永遠",
    "总是",
    "總是",
    "一律",
    "务必",
    "務必",
    "不要",
    "不許",
    "不许",
    "别",
    "別",
    "禁止",
    "不准",
    "不允许",
    "不允許",
    "请",
    "請",
    "切记",
    "切記",
    "千万",
    "千萬",
    "绝对",
    "絕對",
    "一定要",
    "回答",
    "回复",
    "回覆",
    "答复",
    "答覆",
    "跟我",
    "和我",
    "对我",
    "對我",
    "给我",
    "給我",
];

const EN_INSTRUCTION_START: &[&str] = &["please", "always", "never", "don't", "do not", "avoid"];

/// Openings of a fact about the user.
const USER_START: &[&str] = &[
    "我是",
    "我在",
    "我负责",
    "我負責",
    "我习惯",
    "我習慣",
    "我更喜欢",
    "我更喜歡",
    "我喜欢",
    "我喜歡",
    "我更习惯",
    "我更習慣",
    "我比较习惯",
    "我比較習慣",
    "我比较喜欢",
    "我比較喜歡",
    "我偏好",
    "我倾向",
    "我傾向",
    "我主要",
    "我平时",
    "我平時",
    "我一般",
    "我通常",
    "我的",
    "我对",
    "我對",
    "我不太",
    "我不喜欢",
    "我不喜歡",
    "我讨厌",
    "我討厭",
    "我用的是",
    "我住在",
    "本人",
];

/// "我在 <verb>": what the user is doing now, not where they are.
const USER_DOING: &[&str] = &[
    "我在调",
    "我在調",
    "我在看",
    "我在改",
    "我在写",
    "我在寫",
    "我在做",
    "我在跑",
    "我在测",
    "我在測",
    "我在查",
    "我在弄",
    "我在处理",
    "我在處理",
    "我在修",
    "我在想",
    "我在试",
    "我在試",
];

/// Openings of a fact or rule of the team or project.
const PROJECT_START: &[&str] = &[
    "我们",
    "我們",
    "咱们",
    "咱們",
    "团队",
    "團隊",
    "公司",
    "项目",
    "項目",
    "专案",
    "專案",
    "这个项目",
    "這個項目",
    "這個專案",
    "这个仓库",
    "這個倉庫",
    "本项目",
    "本專案",
    "仓库",
    "倉庫",
    "线上",
    "線上",
    "生产",
    "生產",
    "正式环境",
    "正式環境",
    "测试环境",
    "測試環境",
    "预发",
    "預發",
    "所有",
    "全部",
    "每个",
    "每個",
    "新功能",
    "前端",
    "后端",
    "後端",
    "服务端",
    "服務端",
    "客户端",
    "客戶端",
    "数据库",
    "數據庫",
    "資料庫",
    "目前",
    "当前",
    "當前",
    "现在",
    "現在",
];

/// Shapes of a rule or fact without a telling opening.
const PROJECT_SHAPE: &[&str] = &[
    "规定",
    "規定",
    "规范",
    "規範",
    "约定",
    "約定",
    "必须",
    "必須",
    "需要",
    "会被",
    "會被",
    "每天",
    "每周",
    "每週",
    "每两周",
    "每兩週",
    "每个月",
    "每個月",
    "每晚",
    "凌晨",
    "用的是",
    "使用",
    "部署在",
    "跑在",
    "运行在",
    "運行在",
    "基于",
    "基於",
    "不允许",
    "不允許",
    "不能",
    "只能",
    "只在",
    "还在用",
    "還在用",
    "都用",
    "统一用",
    "統一用",
    "是我们的",
    "是我們的",
    "只做",
    "只用来",
    "只用來",
    "用来做",
    "用來做",
    "最低支持",
    "支持到",
    "才能",
    "至少要",
    "至少需要",
];

/// Nouns naming where knowledge lives.
const DOC_NOUN: &[&str] = &[
    "文档",
    "文檔",
    "手册",
    "手冊",
    "链接",
    "連結",
    "鏈接",
    "地址",
    "网址",
    "網址",
    "看板",
    "大盘",
    "大盤",
    "仪表盘",
    "儀表板",
    "面板",
    "飞书",
    "飛書",
    "语雀",
    "語雀",
    "设计稿",
    "設計稿",
    "流程见",
    "流程見",
    "脚本",
    "腳本",
    "wiki",
    "Wiki",
    "Confluence",
    "Notion",
    "Jira",
    "Issues",
    "GitHub",
    "GitLab",
    "Linear",
    "Slack",
    "频道",
    "頻道",
    "群里",
    "群裡",
    "Figma",
    "Swagger",
    "禅道",
    "禪道",
    "TAPD",
    "Tapd",
];

const LOCATED: &[&str] = &[
    "在",
    "见",
    "見",
    "放在",
    "位于",
    "位於",
    "参考",
    "參考",
    "参见",
    "參見",
    "链接是",
    "地址是",
    "提到",
    "提交到",
    "发到",
    "發到",
    "记在",
    "記在",
    "写在",
    "寫在",
];

/// Acknowledgements and sequencing that open a reply about the work at hand.
const ACK_START: &[&str] = &[
    "好的",
    "好",
    "嗯",
    "行",
    "可以",
    "收到",
    "明白",
    "没问题",
    "沒問題",
    "对",
    "對",
    "先",
    "再",
    "继续",
    "繼續",
    "算了",
    "ok",
    "OK",
    "Ok",
];

/// Conversational fillers dropped before judging the opening.
const FILLER: &[&str] = &[
    "另外",
    "还有",
    "還有",
    "对了",
    "對了",
    "顺便说一下",
    "順便說一下",
    "顺便",
    "順便",
    "而且",
    "然后",
    "然後",
    "btw",
    "BTW",
];

pub(super) fn classify(s: &Sent) -> Option<MemoryType> {
    if s.question() || matches!(s.last(), Some('吗' | '嗎' | '呢' | '么' | '麼')) {
        return None;
    }
    if s.has(MOMENT) || s.any_word(EN_MOMENT) {
        return None;
    }
    let m = strip_fillers(&s.m);
    if ACK_START.iter().any(|a| m.starts_with(a)) && !m.starts_with("可以用") {
        return None;
    }
    let standing = s.has(STANDING) || s.any_word(EN_STANDING) || s.lead == Lead::Standing;
    let at_hand = {
        let mut rest = m.to_string();
        for p in THIS_PROJECT {
            rest = rest.replace(p, "");
        }
        AT_HAND.iter().any(|c| rest.contains(c))
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
    let lower = m.to_ascii_lowercase();
    if INSTRUCTION_START.iter().any(|c| m.starts_with(c))
        || EN_INSTRUCTION_START.iter().any(|c| lower.starts_with(c))
    {
        return Some(MemoryType::Feedback);
    }
    if USER_START.iter().any(|c| m.starts_with(c)) && !m.starts_with("我们") {
        if USER_DOING.iter().any(|c| m.starts_with(c)) || s.has(&["现在", "現在", "目前"]) {
            return None;
        }
        return Some(MemoryType::User);
    }
    if s.url {
        return Some(MemoryType::Reference);
    }
    // "commit 之前记得跑 lint": remember to, at a recurring moment.
    if s.has(&["记得", "記得"])
        && s.has(&[
            "之前",
            "之后",
            "之後",
            "以后",
            "以後",
            "每次",
            "的时候",
            "的時候",
        ])
    {
        return Some(MemoryType::Feedback);
    }
    let starts_project = PROJECT_START.iter().any(|c| m.starts_with(c));
    if (s.path || s.has(DOC_NOUN)) && s.has(LOCATED) && !starts_project {
        return Some(MemoryType::Reference);
    }
    if starts_project {
        return Some(MemoryType::Project);
    }
    if s.has(&[
        "请",
        "請",
        "统一",
        "統一",
        "一律",
        "始终",
        "始終",
        "总是",
        "總是",
        "的时候",
        "的時候",
    ]) {
        return Some(MemoryType::Feedback);
    }
    if s.has(PROJECT_SHAPE) || standing || s.lead == Lead::Remember || names_tool(m) {
        return Some(MemoryType::Project);
    }
    None
}

/// "前端的 state management 用 Zustand", "API gateway 现在是 Kong", "老的后台还是 jQuery 写的":
/// a part of the project named before 用/是/还是 and a named tool (an ASCII word) after it.
fn names_tool(m: &str) -> bool {
    const VERBS: &[&str] = &[
        "用的是",
        "用",
        "还是",
        "還是",
        "是",
        "走",
        "跑在",
        "基于",
        "基於",
    ];
    const NOT_SUBJECT: &[&str] = &[
        "我", "你", "您", "帮", "幫", "把", "将", "將", "请", "請", "用", "先", "再", "改", "换",
        "換", "它", "他", "她", "这", "這", "那",
    ];
    // What went wrong and why: a report about the work at hand.
    const REPORT: &[&str] = &[
        "问题", "問題", "原因", "结果", "結果", "返回", "输出", "輸出", "错误", "錯誤", "报", "報",
        "日志", "日誌", "异常", "異常", "提示",
    ];
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
                m = rest.trim_start_matches([',', '，', '、', ' ']);
            }
        }
        if m.len() == before {
            return m;
        }
    }
}
