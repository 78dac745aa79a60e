//! Chinese rules (simplified and traditional; English words inside are read too).
//!
//! Durable: standing instructions ("以后…", "不要…", "永远不要…", "…统一用…", "请…" after a topic),
//! facts about the user ("我是…", "我负责…", "我更喜欢…"), rules and facts of the team or project
//! ("我们…", "线上用的是…", "…必须…", "每天…会…"), pointers ("…在 <URL>", "…见 docs/…").
//! Noise: requests about the work at hand ("帮我…", "把…改成…", "…一下"), the moment ("这次",
//! "今天", "刚才"), questions, thanks, opinions about a choice ("我觉得…更好"), acknowledgements.

use super::sent::{Lead, Sent, EN_MOMENT, EN_STANDING};
use crate::formats::doc::MemoryType;

/// Always noise: the moment, thanks, opinions, questions words, requests for help, reports.
const MOMENT: &[&str] = &[
    "晚点",
    "晚點",
    "在开会",
    "在開會",
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
    "当时",
    "當時",
    "以后再",
    "以後再",
    "之后再",
    "之後再",
    "回头再",
    "回頭再",
    "上周",
    "上週",
    "这周",
    "這週",
    "本周",
    "本週",
    "上个月",
    "上個月",
    "终于",
    "終於",
    "下周",
    "下週",
    "等下再",
    "等下我",
    "等一下",
    "等会",
    "等會",
    "出事",
    "又出",
    "又挂",
    "又掛",
    "又报",
    "又報",
    "照你说的",
    "照你說的",
    "按你说的",
    "按你說的",
    "不錯",
    "了没有",
    "了沒有",
    "反馈说",
    "反饋說",
    "同学说",
    "同學說",
    "老板说",
    "老闆說",
    "客户说",
    "客戶說",
    "用户说",
    "用戶說",
    "用户反馈",
    "用戶反饋",
    "他说",
    "他說",
    "她说",
    "她說",
    "产品说",
    "產品說",
    "测试说",
    "測試說",
    "卡死",
    "白屏",
    "错位",
    "錯位",
    "闪退",
    "閃退",
    "泄漏",
    "再想想",
    "各有利弊",
    "可以再",
    "上次",
    "上回",
    "现在才",
    "現在才",
    "目前才",
    "不知道修",
    "看下",
    "想把",
    "没反应",
    "沒反應",
    "不用管",
    "下个月",
    "下個月",
    "再讨论",
    "再討論",
    "再说",
    "再說",
    "的时候到",
    "的時候到",
    "下个 sprint",
    "下個 sprint",
    "下个迭代",
    "下個迭代",
    "下个版本",
    "下個版本",
    "文档说",
    "文檔說",
    "我看到",
    "说这个",
    "說這個",
    "有时候",
    "有時候",
    "偶尔",
    "偶爾",
    "就按",
    "就照",
    "就这么",
    "就這麼",
    "先不要",
    "先别",
    "先別",
    "先不",
    "為啥",
    "這周",
    "洩漏",
    "使用者說",
    "使用者反饋",
    "文件說",
];

/// Noise unless a standing cue says otherwise: pointers at the work at hand, one-off verbs.
const AT_HAND: &[&str] = &[
    "一下", "这个", "這個", "这段", "這段", "这些", "這些", "那个", "那個", "这里", "這裡", "這裏",
    "这儿", "此处", "此處", "上面", "下面", "刚", "这么", "這麼", "这样", "這樣", "这版", "這版",
    "這兒", "剛",
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
    "这个 repo",
    "這個 repo",
    "这个 app",
    "这个 App",
    "这个库",
    "這個庫",
    "这个工程",
    "這個工程",
    "这个代码库",
    "這個代碼庫",
    "这个产品",
    "這個產品",
    "這個 app",
    "這個 App",
    "這個程式碼庫",
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
    "預設",
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
    "没必要",
    "沒必要",
    "不用",
    "不需要",
    "无需",
    "無需",
    "不必",
    "尽量",
    "盡量",
    "我希望你",
    "我更希望你",
    "希望你",
    "我想让你",
    "我想讓你",
    "我需要你",
    "中文回复",
    "中文回答",
    "中文回覆",
    "英文回复",
    "英文回答",
    "繁體回覆",
    "简洁点",
    "簡潔點",
    "详细点",
    "詳細點",
    "简短点",
    "簡短點",
    "直接点",
    "直接點",
    "我 prefer 你",
    "我 prefer 您",
    "儘量",
    "英文回覆",
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
    "我：",
    "我:",
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
    "本項目",
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
    "執行在",
    "最低支援",
    "支援到",
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
    "流程看",
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
    "Sentry",
    "Grafana",
    "Kibana",
    "Datadog",
    "Apifox",
    "YApi",
    "Postman",
    "Jenkins",
    ".com",
    ".cn",
    ".io",
    ".dev",
    ".net",
    "儀表盤",
    "儀錶板",
];

const LOCATED: &[&str] = &[
    "在",
    "看 ",
    "里的",
    "裡的",
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
    "里有",
    "裡有",
    "鏈接是",
    "連結是",
];

/// Acknowledgements and sequencing that open a reply about the work at hand.
const ACK_START: &[&str] = &[
    "不用了",
    "不要了",
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
    "大家好",
    "老师好",
    "老師好",
    "告诉你个事",
    "告訴你個事",
    "跟你说一下",
    "跟你說一下",
    "跟你说",
    "跟你說",
    "说一下",
    "說一下",
    "补充一下",
    "補充一下",
    "哦对了",
    "哦對了",
    "哦对",
    "哦對",
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
    "记一下",
    "記一下",
    "记住",
    "記住",
    "顺便提一句",
    "順便提一句",
    "顺便说一句",
    "順便說一句",
    "提一句",
    "说一句",
    "說一句",
    "那个，",
    "那個，",
    "麻烦你",
    "麻煩你",
    "提醒一下",
    "提醒",
    "注意",
    "重要",
    "其实",
    "其實",
    "说实话",
    "說實話",
];

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
            for p in ["上面", "下面"] {
                rest = rest.replace(p, "");
            }
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
    // "…，先用着", "功能先做个大概": a plan for now.
    let instructs = ["别", "別", "不要", "千万", "千萬"]
        .iter()
        .any(|w| m.contains(w));
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
    let host_fails = s.has(&[
        "报",
        "報",
        "打不开",
        "打不開",
        "挂了",
        "掛了",
        "访问",
        "訪問",
        "超时",
        "超時",
        "不通",
    ]);
    if s.url || (host_named(m) && !host_fails && !STATE_REPORT.iter().any(|r| m.contains(r))) {
        return Some(MemoryType::Reference);
    }
    // "原型在墨刀上", "kubeconfig 在 1Password 的 infra vault": a thing kept in a named place.
    if !team_subject && kept_at(m) {
        return Some(MemoryType::Reference);
    }
    // "commit 之前记得跑 lint": remember to, at a recurring moment ("我记得…" recalls).
    if s.has(&["记得", "記得"])
        && !s.has(&["我记得", "我記得"])
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
    // "现在的逻辑是…", "目前的实现…": the code at hand as it is now.
    let starts_project = PROJECT_START.iter().any(|c| m.starts_with(c))
        && !["现在的", "現在的", "目前的", "当前的", "當前的"]
            .iter()
            .any(|c| m.starts_with(c));
    // "crash report 在 Firebase Crashlytics 看": where to look something up.
    let look_up = s.has(&["在"])
        && ["看", "查", "找", "查看"]
            .iter()
            .any(|e| s.core().ends_with(e));
    // "所有 cron job 的定义都在 ops/cron/ 里": a quantifier opens it, a path is where.
    let all_kept_at = s.path && s.has(&["都在", "都放在"]);
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
    let for_all = s.has(&["所有", "全部", "每个", "每個", "一律", "都"]);
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
        let style_rule =
            s.has(&["统一", "統一", "一律"]) && !s.has(&["统一的", "統一的"]) && style_choice(m);
        return Some(if style_rule && !team_subject {
            MemoryType::Feedback
        } else {
            MemoryType::Project
        });
    }
    // "memory usage 在 peak 的时候到 4G": when a measurement was taken, not when to act.
    if (s.has(&["的时候", "的時候"]) && !s.has(&["peak", "峰值", "高峰", "的时候到", "的時候到"]))
        || s.m
            .replace("请求", "")
            .replace("請求", "")
            .replace("申请", "")
            .replace("申請", "")
            .contains(['请', '請'])
    {
        return Some(MemoryType::Feedback);
    }
    if s.has(&["统一", "統一", "一律", "始终", "始終", "总是", "總是"]) {
        // "依赖升级统一由 Renovate 提 PR", "feature flag 统一走 LaunchDarkly": who or what
        // the team has settled on; "提交信息统一用英文写": how the assistant writes.
        // "接口超时时间统一 3 秒": a setting of the project.
        return Some(
            if s.has(&["由", "走"]) || !style_choice(m) && !s.has(&["用", "写", "寫"]) {
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
const TEAM_START: &[&str] = &[
    "我们", "我們", "咱们", "咱們", "咱", "团队", "團隊", "公司", "我司", "组里", "組裡", "大家",
];

/// "如果以后要支持多语言的话，这里可能得重构": a what-if, unless it states what then must be
/// done ("如果改了 proto，就要重新生成代码").
fn hypothetical(m: &str) -> bool {
    const IF: &[&str] = &[
        "如果",
        "要是",
        "假如",
        "假设",
        "假設",
        "万一",
        "萬一",
        "若是",
        "想一下",
        "考虑",
        "考慮",
    ];
    const THEN_RULE: &[&str] = &[
        "就要",
        "就得",
        "必须",
        "必須",
        "一定要",
        "都要",
        "记得",
        "記得",
        "要先",
        "请",
        "請",
        "不要",
        "别",
        "別",
    ];
    let m = strip_fillers(m);
    (IF.iter().any(|c| m.starts_with(c)) || m.contains("的话") || m.contains("的話"))
        && !THEN_RULE.iter().any(|c| m.contains(c))
        || m.contains("要不要")
}

/// A request to make or change one thing now: "给我 generate 一个 Dockerfile", "写个脚本",
/// "加个参数校验", "帮我生成 10 条测试数据", "改成用 channel 实现".
fn one_off_request(m: &str) -> bool {
    const COUNTED: &[&str] = &[
        "一个", "一個", "一份", "一版", "一段", "一条", "一條", "一套", "一张", "一張", "一篇",
        "几个", "幾個", "加个", "加個", "写个", "寫個", "建个", "建個", "搞个", "搞個", "来个",
        "來個", "弄个", "弄個", "做个", "做個", "起个", "起個", "开个", "開個", "补个", "補個",
    ];
    let counted = COUNTED.iter().any(|c| m.contains(c))
        || m.char_indices().any(|(i, c)| {
            c.is_ascii_digit()
                && ["条", "條", "个", "個"]
                    .iter()
                    .any(|u| m[i + 1..].trim_start().starts_with(u))
        });
    let asks = REQUEST_START.iter().any(|c| m.starts_with(c))
        || ["给我", "給我", "帮我", "幫我"]
            .iter()
            .any(|c| m.starts_with(c));
    let after_ask = ["给我", "給我", "帮我", "幫我", "跟我", "和我"]
        .iter()
        .find_map(|c| m.strip_prefix(c))
        .unwrap_or(m)
        .trim_start();
    (counted && asks) || CHANGE_START.iter().any(|c| after_ask.starts_with(c))
}

/// Verbs that open a request about the work at hand.
const REQUEST_START: &[&str] = &[
    "写", "寫", "生成", "加", "建", "新建", "创建", "創建", "做", "搞", "弄", "来", "來", "补",
    "補", "帮", "幫", "整", "出", "列", "画", "畫", "用", "建立",
];

/// Verbs that change the code at hand: "改成…", "换成…", "重构…", "删掉…".
const CHANGE_START: &[&str] = &[
    "改成", "改为", "改為", "换成", "換成", "换一", "換一", "重构", "重構", "重写", "重寫", "删掉",
    "刪掉", "去掉", "拆", "重新", "解释", "解釋", "讲讲", "講講", "讲一", "講一", "翻译", "翻譯",
    "总结", "總結", "试", "試",
];

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
            || [
                "我 prefer",
                "我比较 prefer",
                "我比較 prefer",
                "我更 prefer",
                "我 like",
                "我 usually",
                "我 mostly",
                "我 always",
                "我 work",
                "我 live",
                "我 use",
                "我 am",
            ]
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
    if USER_DOING.iter().any(|c| m.starts_with(c))
        || doing_en
        || s.has(&[
            "现在", "現在", "目前", "不了", "不够", "不夠", "没法", "沒法",
        ])
    {
        return Some(None);
    }
    Some(Some(MemoryType::User))
}

/// Marks of a habit or trait in a sentence about the speaker.
const USER_HABIT: &[&str] = &[
    "平常",
    "平时",
    "平時",
    "一般",
    "通常",
    "主要",
    "习惯",
    "習慣",
    "比较多",
    "比較多",
    "不太熟",
    "不熟",
    "熟悉",
    "擅长",
    "擅長",
    "做嵌入式",
    "做前端",
    "做后端",
    "做後端",
    "做算法",
    "做游戏",
    "做遊戲",
    "做运维",
    "做運維",
    "做数据",
    "做數據",
    "转开发",
    "轉開發",
    "出身",
    "还在学",
    "還在學",
    "在学",
    "在學",
    "有空",
    "没空",
    "沒空",
    "时区",
    "時區",
    "用的是",
    "用 Mac",
    "用 mac",
    "用 Windows",
    "用 Linux",
    "喜欢",
    "喜歡",
    "偏好",
    "讨厌",
    "討厭",
    "看不懂",
    "不懂",
    "基础",
    "基礎",
    "这人",
    "這人",
    "色弱",
    "色盲",
    "近视",
    "近視",
    "左撇子",
    "新手",
    "小白",
    "零基础",
    "零基礎",
    "学生",
    "學生",
    "在校",
    "人在",
    "眼睛",
    "视力",
    "視力",
    "一直写",
    "一直寫",
    "一直做",
    "一直用",
    "年经验",
    "年經驗",
    "年的经验",
    "工作经验",
    "比较怕",
    "比較怕",
    "怕麻烦",
    "怕麻煩",
    "做演算法",
    "做資料",
    "年的經驗",
    "工作經驗",
];

/// A clause that tells the assistant what not to do or how to go about it.
fn instruction_clause(m: &str) -> bool {
    const OPEN: &[&str] = &[
        "不要",
        "别",
        "別",
        "不用",
        "不需要",
        "无需",
        "無需",
        "没必要",
        "沒必要",
        "不必",
        "请",
        "請",
        "尽量",
        "盡量",
        "记得",
        "記得",
        "千万",
        "千萬",
        "切记",
        "切記",
        "禁止",
        "儘量",
    ];
    const INSIDE: &[&str] = &[
        "不要",
        "别",
        "別",
        "千万别",
        "千萬別",
        "尽量",
        "盡量",
        "记得",
        "記得",
        "不用加",
        "不用写",
        "不用寫",
        "不用改",
        "不用给",
        "不用給",
        "不用做",
        "不用解释",
        "不用解釋",
        "不需要",
        "儘量",
    ];
    // "migration script 不要 drop column": the instruction is the first clause itself;
    // "unit test 用 vitest，不要 jest": a choice, then what not to pick. A fact followed by a
    // warning ("每个 PR 只做一件事，不要把重构混进来") stays a fact.
    let cl = clauses(m);
    let first = cl.first().copied().unwrap_or(m);
    INSIDE
        .iter()
        .any(|w| first.match_indices(w).any(|(i, _)| i > 0))
        || [
            "问我",
            "問我",
            "告诉我",
            "告訴我",
            "跟我确认",
            "跟我確認",
            "提醒我",
            "通知我",
        ]
        .iter()
        .any(|w| m.contains(w))
        || ((first.contains('用')
            || first.contains('走')
            || first.contains("直接")
            || ["遇到", "碰到", "如果遇到"]
                .iter()
                .any(|w| first.starts_with(w)))
            && cl.iter().skip(1).any(|c| {
                let c = strip_fillers(c);
                OPEN.iter().any(|o| c.starts_with(o))
                    && c.trim_end_matches(['。', '！', '.', '!']).chars().count() >= 3
            }))
        || ["就行", "就好", "即可", "就可以"]
            .iter()
            .any(|e| m.contains(e) && !m.starts_with('我'))
}

/// How code or answers are written: naming, formatting, language, layout.
fn style_choice(m: &str) -> bool {
    const STYLE: &[&str] = &[
        "snake_case",
        "camelcase",
        "camelCase",
        "kebab-case",
        "PascalCase",
        "驼峰",
        "駝峰",
        "下划线",
        "下劃線",
        "底线",
        "底線",
        "缩进",
        "縮進",
        "空格",
        "tab",
        "单引号",
        "單引號",
        "双引号",
        "雙引號",
        "中文",
        "英文",
        "命名",
        "style",
        "Style",
        "风格",
        "風格",
        "大写",
        "大寫",
        "小写",
        "小寫",
        "注释",
        "註釋",
        "註解",
        "格式",
        "回答",
        "回复",
        "回覆",
        "解释",
        "解釋",
        "代码示例",
        "範例",
        "縮排",
        "程式碼示例",
        "代碼示例",
    ];
    (m.starts_with('用') && !m.starts_with("用户") && !m.starts_with("用戶"))
        || m.starts_with("不用")
        || STYLE.iter().any(|w| m.contains(w))
}

/// Words of a report about the thing at hand: a symptom, a measurement, an opinion, a wish.
const STATE_REPORT: &[&str] = &[
    "挂",
    "掛",
    "慢",
    "起不来",
    "起不來",
    "失败",
    "失敗",
    "占用",
    "佔用",
    "降",
    "超时",
    "超時",
    "崩",
    "卡住",
    "不行",
    "没反应",
    "沒反應",
    "成功",
    "通过",
    "通過",
    "打不开",
    "打不開",
    "能打开",
    "能打開",
    "不对",
    "不對",
    "少了",
    "多了",
    "错了",
    "錯了",
    "有点",
    "有點",
    "丑",
    "醜",
    "难看",
    "難看",
    "清晰",
    "优雅",
    "優雅",
    "奇怪",
    "问题",
    "問題",
    "报错",
    "報錯",
    "bug",
    "Bug",
    "BUG",
    "error",
    "Error",
    "fail",
    "Fail",
    "返回",
    "输出",
    "輸出",
    "显示",
    "顯示",
    "结果",
    "結果",
    "想要",
    "想让",
    "想讓",
    "打算",
    "准备",
    "準備",
    "还是",
    "還是",
    "一直",
    "又",
    "老是",
    "新的",
    "新加的",
    "有时候",
    "有時候",
    "有时",
    "有時",
    "偶尔",
    "偶爾",
    "经常",
    "經常",
    "全是",
    "现在的",
    "現在的",
    "目前的",
    "当前的",
    "當前的",
    "卡在",
    "上不去",
    "平均",
    "传过来",
    "傳過來",
    "差了",
    "积压",
    "積壓",
    "快满",
    "满了",
    "滿了",
    "不一致",
    "不一样",
    "不一樣",
    "停了",
    "看起来",
    "看起來",
    "应该是",
    "應該是",
    "peak",
    "峰值",
    "高峰",
    "大概",
    "左右",
    "大约",
    "大約",
    "QPS",
    "qps",
    "latency",
    "p99",
    "p95",
    "耗时",
    "耗時",
    "快滿",
    "能開啟",
];

/// A plain statement: a subject named first, then a predicate that says how things are or
/// must be ("主分支叫 master", "上线要走审批单", "固件要能在 STM32 上跑", "RAM 只有 20K"). Reports
/// about the work at hand ("服务起不来", "内存占用降下来"), changes just made (…了…) and
/// opinions ("有点丑") are not.
fn statement(m: &str) -> bool {
    const PREDICATE: &[&str] = &[
        "是",
        "叫",
        "要",
        "得",
        "用",
        "走",
        "在",
        "只有",
        "都",
        "会",
        "會",
        "跑",
        "放",
        "由",
        "靠",
        "不用",
        "不要",
        "别",
        "別",
        "为准",
        "為準",
        "不能",
        "可以",
        "支持",
        "兼容",
        "依赖",
        "依賴",
        "对接",
        "對接",
        "有",
        "固定",
        "统一",
        "統一",
        "按",
        "负责",
        "負責",
        "限制",
        "最多",
        "最少",
        "至少",
        "上限",
        "不超过",
        "不超過",
        "：",
        ":",
        "支援",
        "相容",
        "每人",
        "每個人",
        "每个人",
        "锁",
        "鎖",
        "管",
    ];

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
        ["先", "再", "暂时", "暫時", "临时", "臨時"]
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
    const SETTLED: &[&str] = &[
        "要",
        "必须",
        "必須",
        "不能",
        "只能",
        "禁止",
        "不允许",
        "不允許",
        "不许",
        "不許",
        "不要",
        "别",
        "別",
        "需要",
        "才能",
        "至少",
        "最多",
        "不超过",
        "不超過",
        "不得",
        "都",
        "全部",
        "一律",
        "统一",
        "統一",
        "默认",
        "默認",
        "固定",
        "每",
        "只有",
        "一般",
        "叫",
        "为准",
        "為準",
        "按",
        "走",
        "跑在",
        "部署在",
        "基于",
        "基於",
        "依赖",
        "依賴",
        "对接",
        "對接",
        "兼容",
        "支持",
        "由",
        "靠",
        "放在",
        "存在",
        "负责",
        "負責",
        "周一",
        "周二",
        "周三",
        "周四",
        "周五",
        "周六",
        "周日",
        "週一",
        "週二",
        "週三",
        "週四",
        "週五",
        "週六",
        "週日",
        "星期",
        "不用",
        "只",
        "不做",
        "不支持",
        "不支援",
        "預設",
        "相容",
        "支援",
        "锁",
        "鎖",
    ];
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
    let named_last = ["用的是", "用的", "用"].iter().any(|v| {
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
    ["是", "用", "有"].iter().any(|v| {
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
    const SHIFT: &[&str] = &[
        "另外",
        "对了",
        "對了",
        "顺便",
        "順便",
        "btw",
        "BTW",
        "Btw",
        "by the way",
    ];
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
    const ONCE: &[&str] = &[
        "这次",
        "這次",
        "这回",
        "這回",
        "今天",
        "今晚",
        "暂时",
        "暫時",
        "临时",
        "臨時",
        "这周",
        "這週",
        "这个",
        "這個",
        "先用",
        "先做",
        "先跑",
        "先这样",
        "先這樣",
        "這周",
    ];
    // 先 opens a plan ("先放着"); inside a clause it orders steps ("出事先看那个").
    ONCE.iter().any(|c| clause.contains(c))
        || strip_fillers(clause).starts_with('先')
        || [
            "帮我", "幫我", "帮忙", "幫忙", "麻烦", "麻煩", "给我", "給我",
        ]
        .iter()
        .any(|c| strip_fillers(clause).starts_with(c))
}

/// A moment word; "帮我" and "麻烦" do not make a standing instruction one ("以后出 SQL 都帮我
///加上注释").
fn moment(s: &Sent) -> bool {
    const ASKS: &[&str] = &["帮我", "幫我", "帮忙", "幫忙", "麻烦", "麻煩"];
    let standing_open = [
        "以后",
        "以後",
        "今后",
        "今後",
        "每次",
        "从现在开始",
        "從現在開始",
    ]
    .iter()
    .any(|w| s.m.contains(w));
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
    if ["别", "別", "不要", "不许", "不許"]
        .iter()
        .any(|w| m.contains(w))
    {
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
    const SECRET: &[&str] = &[
        "密码",
        "密碼",
        "密钥",
        "密鑰",
        "口令",
        "私钥",
        "私鑰",
        "api key",
        "token",
        "secret",
        "password",
        "access key",
        "金鑰",
    ];
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
    const STEPS: &[&str] = &[
        "提交前",
        "提交之前",
        "上线前",
        "上線前",
        "上线之前",
        "上線之前",
        "合并前",
        "合併前",
        "发版前",
        "發版前",
        "部署前",
        "部署之前",
        "发布前",
        "發布前",
        "推送前",
        "釋出前",
        "發佈前",
    ];
    const EN_STEPS: &[&str] = &[
        "commit", "push", "merge", "deploy", "release", "pr", "mr", "rebase", "tag",
    ];
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
    const DO: &[&str] = &[
        "跑",
        "运行",
        "運行",
        "执行",
        "執行",
        "检查",
        "檢查",
        "确认",
        "確認",
        "更新",
        "先跑",
        "先问",
        "先問",
        "问我",
        "問我",
        "告诉我",
        "告訴我",
        "记得",
        "記得",
        "run",
    ];
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
    const RUNS: &[&str] = &[
        "部署",
        "跑",
        "运行",
        "運行",
        "托管",
        "託管",
        "运行在",
        "跑在",
        "装",
        "裝",
        "執行",
        "執行在",
    ];
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
    const VALUES: &[&str] = &[
        "我比较在意",
        "我比較在意",
        "我更在意",
        "我在意",
        "我宁可",
        "我寧可",
        "我宁愿",
        "我寧願",
    ];
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
    let now = [
        "刚", "剛", "了", "最新", "好的", "对的", "對的", "错", "錯", "空", "旧", "舊",
    ]
    .iter()
    .any(|w| after.contains(w));
    word.trim().len() >= 3 && !now && (after.starts_with('是') || after.starts_with("用的"))
}

/// "crash 都上报到 Sentry", "实验结果都记到wandb": a kind of thing sent to a named tool, the
/// clause ending on the name.
fn sent_to_tool(m: &str) -> bool {
    const TO: &[&str] = &[
        "上报到",
        "上報到",
        "记到",
        "記到",
        "记录到",
        "記錄到",
        "发到",
        "發到",
        "推到",
        "同步到",
        "传到",
        "傳到",
        "存到",
        "写到",
        "寫到",
        "打到",
    ];
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
        || ["找不到", "找到", "问题", "問題", "一下", "下"]
            .iter()
            .any(|w| core.contains(w))
    {
        return false;
    }
    ["要", "拿", "申请", "申請", "开通", "開通"]
        .iter()
        .any(|e| core.ends_with(e))
        && core
            .char_indices()
            .any(|(i, c)| matches!(c, '找' | '问' | '問') && i >= 6)
}

/// "日志级别先调成debug", "超时先改成 30s": 先 before a change of a setting marks it as for now.
fn for_now_change(m: &str) -> bool {
    const CHANGE: &[&str] = &[
        "调成",
        "調成",
        "改成",
        "改为",
        "改為",
        "调到",
        "調到",
        "关掉",
        "關掉",
        "关了",
        "注释掉",
        "註解掉",
        "跳过",
        "跳過",
        "写死",
        "寫死",
        "hardcode",
        "开着",
        "開著",
    ];
    m.match_indices('先').any(|(i, _)| {
        let after = &m[i + '先'.len_utf8()..];
        CHANGE.iter().any(|c| after.trim_start().starts_with(c))
    })
}

/// "新人文档 wiki.corp/onboarding", "storybook 地址 storybook.corp.io": a host named without a
/// scheme — a dotted name followed by a path, or ending in a domain suffix ("config.yaml" is a
/// file, not a host).
fn host_named(m: &str) -> bool {
    const SUFFIX: &[&str] = &[
        "io", "com", "cn", "net", "org", "tw", "hk", "dev", "corp", "internal", "local", "intra",
        "jp", "app",
    ];
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
    const STORE: &[&str] = &[
        "墨刀",
        "共享盘",
        "共享盤",
        "网盘",
        "網盤",
        "云盘",
        "雲盤",
        "飞书",
        "飛書",
        "钉钉",
        "釘釘",
        "语雀",
        "語雀",
        "腾讯文档",
        "騰訊文件",
        "石墨",
        "知识库",
        "知識庫",
        "群文件",
        "企业微信",
        "企業微信",
        "蓝湖",
        "藍湖",
    ];
    const NOT_KEPT: &[&str] = &[
        "我", "你", "他", "她", "正", "还", "還", "bug", "Bug", "问题", "問題", "报错", "報錯",
        "出错", "出錯", "错了", "錯了", "异常", "異常", "原因", "逻辑", "邏輯", "代码", "代碼",
        "瓶颈", "瓶頸", "卡", "现在", "現在", "都是", "人", "不许", "不許", "不要", "别", "別",
        "不能", "禁止", "写死", "寫死", "deploy", "部署", "跑", "运行", "運行", "托管", "託管",
        "装", "裝", "执行", "執行", "host", "一直", "存",
    ];
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
            || ["上", "里", "裡", "中"].contains(&rest)
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
    const FACT: &[&str] = &[
        "技术栈",
        "技術棧",
        "技術スタック",
        "tech stack",
        "stack",
        "环境变量",
        "環境變數",
        "環境変数",
        "端口",
        "ポート",
        "版本",
        "バージョン",
        "约定",
        "約定",
        "規約",
        "规范",
        "規範",
        "规则",
        "規則",
        "ルール",
        "命名",
        "分支",
        "ブランチ",
        "部署",
        "デプロイ",
        "备注",
        "備註",
        "要求",
        "架构",
        "架構",
        "構成",
        "conventions",
        "convention",
        "rules",
        "環境變量",
        "埠",
    ];
    const POINTER: &[&str] = &[
        "文档",
        "文檔",
        "ドキュメント",
        "wiki",
        "runbook",
        "手册",
        "手冊",
        "地址",
        "链接",
        "連結",
        "dashboard",
        "看板",
        "repo",
        "仓库",
        "倉庫",
        "リポジトリ",
        "文件",
        "鏈接",
    ];
    const REPORT: &[&str] = &[
        "报错",
        "報錯",
        "错误",
        "錯誤",
        "问题",
        "問題",
        "原因",
        "结论",
        "結論",
        "现状",
        "現狀",
        "現状",
        "目标",
        "目標",
        "步骤",
        "步驟",
        "结果",
        "結果",
        "エラー",
        "error",
        "root cause",
        "next step",
        "status",
        "todo",
        "log",
        "日志",
        "日誌",
        "ログ",
    ];
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
    (["先", "临时", "臨時"].iter().any(|w| c.starts_with(w))
        || (["暂时", "暫時"].iter().any(|w| c.starts_with(w)) && !c.contains('不')))
        || c.contains("先做")
        || c.contains("先用")
}

/// Time words that put the whole sentence in the moment unless a clause turns to another
/// topic ("昨天的 deploy rollback 了，原因还在查").
pub(super) fn in_the_moment(text: &str) -> bool {
    const WHEN: &[&str] = &[
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
        "当时",
        "當時",
        "上周",
        "上週",
        "这周",
        "這週",
        "下午",
        "上午",
        "晚点",
        "晚點",
        "下周",
        "下週",
        "等下再",
        "等一下",
        "报错",
        "報錯",
        "白屏",
        "卡死",
        "挂了",
        "掛了",
        "崩了",
        "没反应",
        "沒反應",
        "超时",
        "超時",
        "失败",
        "失敗",
        "上次",
        "上回",
        "這周",
    ];
    WHEN.iter().any(|w| text.contains(w))
}

/// Whether a clause opens with a change of topic ("另外…", "btw …").
pub(super) fn shifts_topic(clause: &str) -> bool {
    ["另外", "对了", "對了", "顺便", "順便", "还有", "還有"]
        .iter()
        .any(|w| clause.starts_with(w))
        || clause.to_ascii_lowercase().starts_with("btw")
        || clause.to_ascii_lowercase().starts_with("by the way")
}

/// A clause that goes on with the one before it ("…，要能支持 10 万并发", "…，然后…"): it has
/// no subject of its own, so it is never judged alone.
pub(super) fn continues(clause: &str) -> bool {
    const ON: &[&str] = &[
        "要", "得", "需要", "能", "可以", "必须", "必須", "并且", "並且", "而且", "然后", "然後",
        "再", "也", "还要", "還要", "最好", "就",
    ];
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
        || [
            "不错", "不錯", "挺好", "还行", "還行", "好像", "似乎", "感觉", "感覺", "也许", "也許",
        ]
        .iter()
        .any(|w| t.contains(w))
        || states_secret_text(t)
        || [
            "谢谢", "謝謝", "感谢", "感謝", "多谢", "多謝", "谢啦", "謝啦",
        ]
        .iter()
        .any(|w| t.contains(w))
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
                m = rest.trim_start_matches([',', '，', '、', ' ', ':', '：']);
            }
        }
        if m.len() == before {
            return m;
        }
    }
}
