//! The strict keep rule, as data (docs/DESIGN.md, "Extract"): a per-language decision list of
//! explicit standing-rule signals ("from now on", "always", 以后, 常に, 앞으로 …, class
//! `keep-<type>`) and of hard negatives (a question without a question mark, a bug report, class
//! `veto-…`), one file per language under `data/` (`*.standing`), every rule with an id.
//!
//! On real chats most declarative sentences are one-off: a message the real-chat gate is not
//! sure of ([`super::gate::STRICT_THRESHOLD`]) is kept only when one of its sentences carries a
//! standing-rule signal and no hard negative. The build script compiles the lists into a static
//! table.

use super::cues::{self, Cue, Where};

include!(concat!(env!("OUT_DIR"), "/standing.rs"));

/// What the decision list says about one message.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Verdict {
    /// The first `keep-` rule that fired in a sentence no `veto-` rule fired in.
    pub keep: Option<&'static Cue>,
    /// Every `veto-` rule that fired (in any sentence).
    pub vetoes: Vec<&'static Cue>,
}

/// Judges `text` sentence by sentence (lines, then sentence marks, after [`cues::normalize`];
/// `>` quote marks are dropped, so a quoted rule counts).
pub fn judge(text: &str) -> Verdict {
    let mut out = Verdict::default();
    // Lines first: [`cues::normalize`] collapses line breaks.
    let norms: Vec<String> = text.lines().map(cues::normalize).collect();
    for s in norms.iter().flat_map(|n| cues::split_normalized(n)) {
        let s = s.trim_start_matches(['>', ' ']);
        let vetoes: Vec<&'static Cue> = STANDING
            .iter()
            .filter(|c| c.class.starts_with("veto-") && cues::matches(c, s))
            .collect();
        if vetoes.is_empty() && out.keep.is_none() {
            out.keep = STANDING
                .iter()
                .find(|c| c.class.starts_with("keep-") && cues::matches(c, s));
        }
        for v in vetoes {
            if !out.vetoes.contains(&v) {
                out.vetoes.push(v);
            }
        }
    }
    out
}

/// Whether the rules must not keep `sentence` (one sentence of a message, as the rules read it):
/// the one-off drop list, on by default (docs/DESIGN.md, "Extract"). A `drop-` rule (a one-off
/// request about the work at hand: "implement …", "…추가해줘", "对比一下 …", a status or bug
/// report) drops it unless a `keep-` rule fires in the same sentence, so a standing rule inside
/// a one-off message is still kept — except a `drop-fragment` rule (the tail or head of a sentence
/// the split cut), which no cue overrules. The `veto-` rules of the strict rule are not used here:
/// words such as 报错, 에러 or エラー also open standing rules ("에러 메시지는 영어로").
/// The rule that dropped it, if any.
pub fn drops(sentence: &str) -> Option<&'static Cue> {
    let norm = cues::normalize(sentence);
    let parts: Vec<&str> = cues::split_normalized(&norm)
        .into_iter()
        .map(|s| s.trim_start_matches(['>', ' ']))
        .collect();
    let fires = |prefix: &str| {
        STANDING
            .iter()
            .find(|c| c.class.starts_with(prefix) && parts.iter().any(|s| cues::matches(c, s)))
    };
    let d = fires("drop-")?;
    // A fragment holds no whole rule, whatever cue its tail has.
    (d.class == "drop-fragment" || fires("keep-").is_none()).then_some(d)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SOURCES: [(&str, &str); 4] = [
        ("en", include_str!("data/en.standing")),
        ("zh", include_str!("data/zh.standing")),
        ("ja", include_str!("data/ja.standing")),
        ("ko", include_str!("data/ko.standing")),
    ];

    #[test]
    fn every_list_parses_with_unique_ids_and_known_classes() {
        let mut ids = std::collections::HashSet::new();
        let mut all = Vec::new();
        for (name, text) in SOURCES {
            let rules = super::super::cue_format::parse(text).unwrap();
            assert!(rules.len() >= 20, "{name}: {}", rules.len());
            for r in rules {
                assert!(r.id.starts_with(&format!("{name}.")), "{}", r.id);
                assert!(ids.insert(r.id.clone()), "duplicate id {}", r.id);
                assert!(
                    [
                        "keep-feedback",
                        "keep-project",
                        "keep-user",
                        "keep-reference"
                    ]
                    .contains(&r.class.as_str())
                        || r.class.starts_with("veto-")
                        || r.class.starts_with("drop-"),
                    "{}: class {}",
                    r.id,
                    r.class
                );
                all.push(r.id);
            }
        }
        let table: Vec<String> = STANDING.iter().map(|r| r.id.to_string()).collect();
        assert_eq!(table, all, "the compiled table is the files, in order");
    }

    fn keep(text: &str) -> Option<&'static str> {
        judge(text).keep.map(|c| c.id)
    }

    #[test]
    fn a_standing_rule_is_kept_and_a_hard_negative_vetoes_its_sentence() {
        assert_eq!(
            keep("Go ahead. Also, from now on use pnpm."),
            Some("en.keep.from-now-on")
        );
        assert_eq!(keep("Why does it always crash?"), None);
        assert_eq!(keep("the build always fails, it doesn't work"), None);
        assert_eq!(keep("把按钮改成蓝色"), None);
        assert_eq!(keep("以後都用繁體回答"), Some("zh.keep.from-now-on"));
        assert_eq!(keep("以后都用这个吗"), None);
        assert_eq!(keep("常に日本語で回答する"), Some("ja.keep.always"));
        assert_eq!(keep("常に日本語でいいですか"), None);
        assert_eq!(
            keep("앞으로 커밋 메시지는 영어로"),
            Some("ko.keep.from-now-on")
        );
        assert_eq!(keep("앞으로 어떻게 할까"), None);
        // A rule in a quote counts; a question elsewhere in the message does not veto it.
        assert_eq!(
            keep("> never push to main\nwhat do you think?"),
            Some("en.keep.never")
        );
        assert_eq!(keep("Fix the login page."), None);
    }

    #[test]
    fn the_strict_gate_keeps_a_stated_rule_and_no_one_off_request() {
        use super::super::{gate::Gate, learned::Model, plan_with_gate, UserText};
        let model = Model::builtin();
        let strict = Gate::builtin().with_strict_rule();
        let plan = |text: &str| plan_with_gate(&[UserText { offset: 0, text }], &model, &strict);
        let kept = plan("Go ahead. Also, from now on run the linter before every commit.");
        assert_eq!(kept.len(), 1, "{kept:?}");
        assert!(kept[0].summary.contains("linter"), "{kept:?}");
        for one_off in [
            "把这个页面的按钮改成蓝色",
            "这个配置没有生效",
            "커밋 푸시해줘",
            "make sure the submit button on this page is blue",
            "The login page is broken after the last deploy, it doesn't work",
        ] {
            assert!(plan(one_off).is_empty(), "{one_off}: {:?}", plan(one_off));
        }
    }

    #[test]
    fn a_one_off_request_sentence_is_dropped_unless_it_states_a_standing_rule() {
        let dropped = |s: &str| drops(s).map(|c| c.id);
        assert_eq!(dropped("README.md를 작성해주세요."), Some("ko.drop.write2"));
        assert_eq!(dropped("해당 부분은 제거해줘."), Some("ko.drop.remove"));
        assert_eq!(
            dropped("Implement the data generation script in scripts/gen.py"),
            Some("en.drop.implement")
        );
        assert_eq!(dropped("对比一下这两个文件"), Some("zh.drop.compare-once"));
        assert_eq!(
            dropped("PHP Code Modernization is done"),
            Some("en.drop.is-done")
        );
        // A standing-rule signal in the same sentence keeps it; rules that merely share a
        // verb or a word with a report are not touched.
        assert_eq!(dropped("앞으로 테스트 코드도 같이 추가해줘"), None);
        assert_eq!(dropped("코드 리뷰할 때는 보안 이슈부터 확인해줘"), None);
        assert_eq!(dropped("From now on implement the tests first."), None);
        assert_eq!(dropped("에러 메시지는 영어로 써 주세요."), None);
        assert_eq!(dropped("测试失败就不要合并"), None);
        assert_eq!(dropped("We deploy only from release branches."), None);
    }

    #[test]
    fn tool_written_words_and_cut_fragments_of_round_six_are_dropped() {
        let dropped = |s: &str| drops(s).map(|c| c.id);
        assert_eq!(
            dropped("If you propose a fix, please make it concise."),
            Some("en.drop.propose-a-fix")
        );
        assert_eq!(
            dropped("Read more about how to reset the cache: https://example.com/x"),
            Some("en.drop.read-more-about")
        );
        // A console's own words pasted in.
        assert_eq!(
            dropped("'deploy' 不是内部或外部命令，也不是可运行的程序"),
            Some("zh.drop.not-a-command")
        );
        assert_eq!(
            dropped("'make' is not recognized as an internal or external command, operable program or batch file."),
            Some("en.drop.not-recognized-cmd")
        );
        // The tail of a sentence whose head was a link, the head cut before its verb: a keep
        // cue inside (마다) does not overrule a fragment.
        assert_eq!(
            dropped("을 사용해서 문서마다 헤더를 넣어줘."),
            Some("ko.drop.frag-eul")
        );
        assert_eq!(dropped("에서 빌드할 때"), Some("ko.drop.frag-eseo"));
        assert_eq!(dropped("문서를 작성할때"), Some("ko.drop.frag-ttae"));
        // A word that only begins with a particle's syllable is no fragment.
        assert_eq!(dropped("은행 API는 항상 sandbox 키로 호출한다."), None);
        assert_eq!(dropped("에러 메시지는 영어로 써 주세요."), None);
        assert_eq!(dropped("커밋할 때는 항상 테스트를 돌린다."), None);
    }

    #[test]
    fn questions_without_a_mark_requests_and_reports_of_round_four_are_dropped() {
        let dropped = |s: &str| drops(s).map(|c| c.id);
        // Questions without a question mark, in each language.
        assert_eq!(dropped("为什么这个接口返回空"), Some("zh.drop.why"));
        assert_eq!(dropped("配置文件放在哪里比较好呢"), Some("zh.drop.ne"));
        assert_eq!(
            dropped("このテストはまだ必要ですか"),
            Some("ja.drop.desuka")
        );
        assert_eq!(dropped("이 방식은 어때"), Some("ko.drop.eottae"));
        // One-off requests and reports.
        assert_eq!(
            dropped("Comment on the open issues"),
            Some("en.drop.comment-on")
        );
        assert_eq!(
            dropped("I'm still seeing the old banner on the home page."),
            Some("en.drop.still-seeing")
        );
        assert_eq!(dropped("配置文件在哪里"), Some("zh.drop.where"));
        // Shapes standing rules and project facts share are not drop rules: a rule asked for
        // with "please" or as a request, a condition on an error, a state of the project.
        for kept in [
            "No emojis in commit messages or code comments, please.",
            "Give me options with trade-offs instead of a single answer.",
            "Don't make any changes to vendor/, it is synced from upstream.",
            "Telemetry is not enabled in production builds.",
            "エラーが出たらスタックトレースも貼ってください",
            "このリポジトリでは自動フォーマットが設定されていない",
            "日志格式已改为 JSON",
            "不管在哪里都要用 UTF-8",
            "合并前 CI 全绿才算构建成功",
        ] {
            assert_eq!(dropped(kept), None, "{kept}");
        }
        // A standing-rule signal in the same sentence still keeps it; a statement that merely
        // ends like a question ("…차이 나요") is not one of these rules.
        assert_eq!(dropped("以后标题都改为中文"), None);
        assert_eq!(dropped("From now on give me short answers."), None);
        assert_eq!(dropped("제 타임존은 PST라서 17시간 차이 나요"), None);
        assert_eq!(
            dropped("Could you stop wrapping every answer in a table? It's noise."),
            None
        );
    }

    #[test]
    fn chinese_requests_and_reports_of_round_eleven_are_dropped() {
        let dropped = |s: &str| drops(s).map(|c| c.id);
        for (s, id) in [
            ("按要求把登录页的文案都改一遍。", "zh.drop.as-required"),
            ("请按以上要求完成修改。", "zh.drop.please-follow"),
            ("按照上述方案重写导出模块。", "zh.drop.as-above"),
            ("使用上述目录结构生成项目骨架。", "zh.drop.use-above"),
            ("更新相关的设计文档。", "zh.drop.update-related"),
            ("把你改过的三个文件发给我。", "zh.drop.your-changes2"),
            ("把你更新的文档发到群里。", "zh.drop.your-changes"),
            ("请给我一份部署步骤的清单。", "zh.drop.give-me"),
            ("订单页的分页也没生效，检查并修改。", "zh.drop.and-fix"),
            ("导出区域我要新增一个 CSV 按钮。", "zh.drop.i-want-to-add"),
            ("将现有的脚本都挪到 scripts 目录。", "zh.drop.move-existing"),
            ("我问过运维了，端口不能改。", "zh.drop.i-asked"),
            ("消息推送调试成功。", "zh.drop.debug-ok"),
        ] {
            assert_eq!(dropped(s), Some(id), "{s}");
        }
        // The same shapes with a standing-rule signal are kept; so are a request to record and
        // a rule that opens like a request.
        for kept in [
            "以后请按 Conventional Commits 写提交信息。",
            "别忘了每次提交前先跑 lint。",
            "今后把你生成的代码都放到 generated 目录。",
            "修改 CLAUDE.md：所有路径都用绝对路径。",
            "重新生成的文件统一使用 LF 换行。",
            // Standing rules that open like the requests (a review's examples).
            "请在回答中使用中文。",
            "请在提交前运行 cargo fmt。",
            "请按 PEP 8 风格写 Python 代码。",
            "请按字母顺序排列 import。",
            "修改接口时要同时更新相关文档。",
            "回答时请给我完整的代码，不要省略。",
            "别忘了提交前先跑 lint。",
            "把你的回答控制在三段以内。",
        ] {
            assert_eq!(dropped(kept), None, "{kept}");
        }
    }

    #[test]
    fn the_built_in_pipeline_drops_one_off_sentences_and_long_specs_but_keeps_a_rule_in_them() {
        use super::super::{plan_heuristic, UserText};
        let plan = |text: &str| plan_heuristic(&[UserText { offset: 0, text }]);
        for one_off in [
            "다른 사람이 로컬에서 수행해볼 수 있도록 README.md를 작성해주세요.",
            "스펙문서에 해당 경로들을 반영해.",
        ] {
            assert!(plan(one_off).is_empty(), "{one_off}: {:?}", plan(one_off));
        }
        // Four sentences of the shape of a fact in a long message and no standing-rule
        // signal: a spec. The same four facts alone are kept.
        let facts = "We deploy only from release branches. Commits must be signed. Our CI runs \
                     on GitHub Actions. The staging database is reset every Sunday night.";
        let rules_only = super::super::learned::Model::rules_only();
        let m = UserText {
            offset: 0,
            text: facts,
        };
        let (kept, _) = super::super::plan_rules(&m, &rules_only);
        assert_eq!(kept.len(), 4, "{kept:?}");
        let spec = format!("{facts} Set up the page. Add the header. Add the footer. Wire it up.");
        let m = UserText {
            offset: 0,
            text: &spec,
        };
        let (kept, sentences) = super::super::plan_rules(&m, &rules_only);
        assert_eq!(sentences.len(), 8, "{sentences:?}");
        assert!(kept.is_empty(), "{kept:?}");
        let kept = plan("README.md를 작성해주세요. 앞으로 커밋 메시지는 영어로 써 줘.");
        assert_eq!(kept.len(), 1, "{kept:?}");
        assert!(kept[0].summary.contains("커밋"), "{kept:?}");
    }

    #[test]
    fn a_long_message_yields_at_most_one_memory_unless_it_states_separate_rules() {
        use super::super::{plan_rules, UserText};
        let rules_only = super::super::learned::Model::rules_only();
        let run = |text: &str| plan_rules(&UserText { offset: 0, text }, &rules_only);
        let facts = "We deploy only from release branches. Our CI runs on GitHub Actions.";
        let work = "Set up the page. Add the header. Add the footer. Wire it up. Then the form. \
                    Then the table.";
        // A long message: at least twice `SPEC_SENTENCES` sentences.
        let long = |tail: &str| {
            let (kept, sentences) = run(&format!("{facts} {work} {tail}"));
            assert!(
                sentences.len() >= 2 * super::super::SPEC_SENTENCES,
                "{sentences:?}"
            );
            kept
        };
        // The two facts alone, and in a short message, are both kept.
        let (kept_apart, _) = run(facts);
        assert_eq!(kept_apart.len(), 2, "{kept_apart:?}");
        // In a long message (fewer than `SPEC_SENTENCES` kept, so not dropped as a spec), two
        // fact-shaped sentences that state no rule of their own yield one memory.
        let kept = long("I'm new here, by the way.");
        assert_eq!(kept.len(), 1, "{kept:?}");
        // What the user asked to record counts as a rule of its own, though the request was cut.
        let kept = long("Add a rule that PRs need two approvals.");
        assert_eq!(kept.len(), 1, "{kept:?}");
        assert!(kept[0].summary.contains("approvals"), "{kept:?}");
        // Separate standing rules in it are each kept, and only they.
        let kept = long(
            "From now on, always run the linter before committing. \
             Never push directly to main from now on.",
        );
        assert_eq!(kept.len(), 2, "{kept:?}");
        assert!(
            kept.iter()
                .all(|p| !kept_apart.iter().any(|f| f.summary == p.summary)),
            "{kept:?}"
        );
        assert!(
            kept.iter().any(|p| p.summary.contains("linter")),
            "{kept:?}"
        );
        assert!(kept.iter().any(|p| p.summary.contains("main")), "{kept:?}");
    }
}
