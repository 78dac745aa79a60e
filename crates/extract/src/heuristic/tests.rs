//! Unit tests of the heuristic; the labelled corpora live under `tests/corpus/extract/` and are
//! measured by `tests/extract_corpus.rs`.

/// One-off requests, questions, thanks and an opinion about the code at hand, in every language:
/// never a memory, with the rules alone or with the learned scorer.
const ONE_OFF_NOISE: [&str; 10] = [
    "帮我把这个函数改成异步的。",
    "这次先不用跑集成测试。",
    "为什么这里会返回空指针？",
    "谢谢，问题解决了！",
    "把这个 PR 合并一下。",
    "この関数を非同期に書き換えてください。",
    "変数名を userId に変えてください。",
    "이 함수를 비동기로 바꿔 주세요.",
    "변수 이름을 userId로 바꿔 줘.",
    "I like the version with the early return better.",
];

mod unit {
    use super::super::mask::{ascii_classes, is_non_prose_line, re, NON_PROSE_LINE};

    #[test]
    fn pattern_classes_are_ascii_and_dot_is_any_character() {
        // ASCII semantics on purpose: `ï` is not a word character, `\s` is not U+3000.
        assert!(re(r"\bcafe\b [•]").is_match("a cafe •"));
        assert!(!re(r"^\w+$").is_match("naïve"));
        assert!(!re(r"^a\sb$").is_match("a\u{3000}b"));
        assert!(!re(r"(?i)^CAFÉ").is_match("café"));
        assert!(re(r"^[^,]{2}$").is_match("日本"));
        assert!(re(r"(?i)\bnow\b").is_match("Right NOW, please"));
    }

    #[test]
    fn ascii_rewrite_for_the_regex_crate() {
        assert_eq!(
            ascii_classes(r"\bfoo\w+[\w.-]\d[^\d]\S\s[\s,]"),
            r"(?-u:\b)foo[A-Za-z0-9_]+[A-Za-z0-9_.-][0-9][^0-9][^\t\n\x0B\x0C\r ][\t\n\x0B\x0C\r ][\t\n\x0B\x0C\r ,]"
        );
        assert_eq!(ascii_classes(r"[]\w]\w"), r"[]A-Za-z0-9_][A-Za-z0-9_]");
        assert_eq!(ascii_classes(r"\\w"), r"\\w");
        // A negated Perl class inside a class becomes a nested class, meaning the same.
        assert_eq!(ascii_classes(r"[^e\W]"), r"[^e[^A-Za-z0-9_]]");
        for (p, text) in [
            (r"^[^e\W]+$", "abc"),
            (r"^[^e\W]+$", "abe"),
            (r"^[^e\W]+$", "ab\u{e9}"),
            (r"^[x\D]+$", "x\u{e9}y"),
            (r"^[x\S]+$", "a\u{3000}b"),
        ] {
            let full = regex::Regex::new(&ascii_classes(p)).unwrap();
            assert_eq!(full.is_match(text), re(p).is_match(text), "{p} on {text:?}");
        }
    }

    /// Long lines are judged by the `regex` crate: each line pattern must mean the same there.
    #[test]
    fn long_line_patterns_agree_with_the_short_line_ones() {
        let set = regex::RegexSet::new(NON_PROSE_LINE.iter().map(|p| ascii_classes(p))).unwrap();
        let lite: Vec<_> = NON_PROSE_LINE.iter().map(|p| re(p)).collect();
        let lines = [
            "  at foo (bar.js:1:2)",
            "at\u{a0}foo (bar.js:1:2)",
            "\u{3000}$ ls",
            "❯ cargo test",
            "λ ls",
            "PS C:\\Users\\me> dir",
            "me@host:~/src$ ls",
            "File \"x.py\", line 3, in <module>",
            "File \"日本.py\", line 3",
            "thread 'main' panicked at src/main.rs:3:5",
            "[INFO] started",
            "naïveError: boom",
            "ValueError: boom",
            "error[E0382]: borrow of moved value",
            "  12 | let x = 1;",
            "2024-01-02 10:11 started",
            "test foo::bar ... ok",
            "E0102 10:11:12 x",
            "we deploy from main => ",
            "-v flag",
            "We deploy only from release branches.",
            "我们团队规定：不允许直接推送到主分支。",
            "数据 { 很多",
            "",
        ];
        for line in lines {
            let got: Vec<bool> = lite.iter().map(|r| r.is_match(line)).collect();
            let want: Vec<bool> = (0..lite.len())
                .map(|i| set.matches(line).matched(i))
                .collect();
            assert_eq!(got, want, "{line:?}");
        }
        // And whole lines past the length limit are judged as before.
        let long = format!("{} done", "word ".repeat(1000));
        assert!(!is_non_prose_line(&long));
        assert!(is_non_prose_line(&format!("{long} {{")));
        assert!(is_non_prose_line(&format!("[INFO] {long}")));
    }

    use super::super::segment::split_sentences;
    use super::super::*;
    use crate::formats::text::utf16_len;
    use MemoryType::{Feedback, Project, Reference, User};

    fn plan(text: &str) -> Vec<Patch> {
        plan_rules_only(&[UserText { offset: 0, text }])
    }

    fn one(text: &str) -> Option<(MemoryType, String, Option<String>)> {
        let mut p = plan(text);
        assert!(p.len() <= 1, "{text:?} gave {p:?}");
        p.pop().map(|p| (p.topic, p.summary, p.why))
    }

    // --- upstream heuristic test vectors and edge cases ---------------------------------

    #[test]
    fn upstream_vectors_prefer_terse_is_user() {
        assert_eq!(
            one("I prefer terse responses."),
            Some((User, "I prefer terse responses.".into(), None))
        );
    }

    #[test]
    fn upstream_vectors_dashboard_url_is_reference() {
        let text = "The latency dashboard is https://grafana.internal/d/api-latency";
        assert_eq!(one(text), Some((Reference, text.into(), None)));
    }

    #[test]
    fn a_language_name_with_symbols_is_not_machine_text() {
        for text in [
            "I'm a C++ developer.",
            "우리 엔진은 C++로 작성돼 있어요.",
            "我们的引擎是用 C++ 写的。",
            "The billing service is written in C#.",
            "저는 C#은 오래 했고 C++은 거의 안 해 봤어요.",
        ] {
            assert!(!plan(text).is_empty(), "{text}");
        }
        // Real code and dense symbols still are.
        for text in [
            "for (i = 0; i < n; i++) { x += a[i]; }",
            "x = a ++ b; y = c++ + d#",
        ] {
            assert!(plan(text).is_empty(), "{text}");
        }
    }

    #[test]
    fn upstream_vectors_hello_is_nothing() {
        assert_eq!(plan("hello"), vec![]);
    }

    #[test]
    fn explicit_remember_strips_the_request_and_rechecks_length() {
        // "please remember that: we use pnpm" yields "we use pnpm", 11 units: dropped by the
        // filter's second look, as upstream.
        assert_eq!(plan("please remember that: we use pnpm"), vec![]);
        assert_eq!(
            one("please remember that: we use pnpm workspaces"),
            Some((Project, "we use pnpm workspaces".into(), None))
        );
        assert_eq!(
            one("Remember - our CI runs on Buildkite."),
            Some((Project, "our CI runs on Buildkite.".into(), None))
        );
        // A temporary word in the remainder drops it.
        assert_eq!(plan("remember that we use pnpm today"), vec![]);
    }

    #[test]
    fn a_request_to_record_in_the_lead_in_is_not_vetoed() {
        // The request is cut off as a lead-in; what remains is what the user asked to keep, and
        // the scorer's doubt about the whole message (it reads the request) does not take it back.
        let builtin = |text: &str| {
            super::super::plan_heuristic(&[UserText { offset: 0, text }])
                .into_iter()
                .map(|p| p.summary)
                .collect::<Vec<_>>()
        };
        assert_eq!(
            builtin("add a rule that we always squash merge."),
            vec!["We always squash merge.".to_string()]
        );
        assert_eq!(
            builtin("Add this to your memory: staging is reset every Sunday."),
            vec!["Staging is reset every Sunday.".to_string()]
        );
        // A rule for a tool, asked for now, is not a request to remember.
        assert!(builtin(
            "add a rule that blocks console.log in the eslint config, then run the build."
        )
        .is_empty());
    }

    #[test]
    fn source_offset_is_the_message_offset_and_order_is_kept() {
        let msgs = [
            UserText {
                offset: 10,
                text: "Please fix the failing test.",
            },
            UserText {
                offset: 20,
                text: "I prefer terse responses. Never push to main.",
            },
        ];
        let got: Vec<_> = plan_rules_only(&msgs)
            .into_iter()
            .map(|p| (p.source_offset, p.topic))
            .collect();
        assert_eq!(got, vec![(20, User), (20, Feedback)]);
    }

    #[test]
    fn duplicates_across_messages_keep_the_first() {
        let msgs = [
            UserText {
                offset: 1,
                text: "Never push to main.",
            },
            UserText {
                offset: 2,
                text: "never push to MAIN.",
            },
        ];
        let got = plan_rules_only(&msgs);
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].source_offset, 1);
    }

    #[test]
    fn whitespace_only_and_empty_messages_yield_nothing() {
        assert_eq!(plan(""), vec![]);
        assert_eq!(plan(" \n\t \r\n "), vec![]);
        assert_eq!(plan_rules_only(&[]), vec![]);
    }

    #[test]
    fn huge_message_is_handled() {
        // case 15: a 5 MB single message. Its one durable line is still found.
        let mut text = "x".repeat(5 * 1024 * 1024);
        text.push_str("\nWe deploy only from release branches.\n");
        text.push_str(&"lorem ipsum dolor sit amet ".repeat(100_000));
        let got = plan(&text);
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].summary, "We deploy only from release branches.");
    }

    #[test]
    fn output_passes_the_filter_unchanged() {
        let text = "- Always run cargo fmt before committing.\n* Our CI runs on GitHub Actions.";
        for p in plan(text) {
            assert_eq!(filter::normalize_patch(p.clone()), Some(p));
        }
        assert_eq!(plan(text).len(), 2);
    }

    // --- the filter's words inside the heuristic --------------------------------------------

    #[test]
    fn temporary_words_only_on_word_boundaries() {
        // A rule by shape; "Nowhere" does not trip the filter's "now".
        assert_eq!(
            one("Nowhere in library code may we use unwrap.").map(|c| c.1),
            Some("Nowhere in library code may we use unwrap.".into())
        );
        assert_eq!(
            one("Known issues are tracked in the wiki.").map(|c| c.0),
            Some(Reference)
        );
        assert_eq!(
            one("Snowfall metrics are stored in the weather bucket.").map(|c| c.0),
            Some(Reference)
        );
        assert_eq!(plan("Now, we deploy only from release branches."), vec![]);
        assert_eq!(
            plan("We deploy only from release branches for now."),
            vec![]
        );
        // A fact of the project stated "currently" is kept, without the word.
        assert_eq!(
            one("We currently deploy only from release branches."),
            Some((
                Project,
                "We deploy only from release branches.".into(),
                None
            ))
        );
    }

    #[test]
    fn from_now_on_marks_a_rule_and_is_dropped_from_the_summary() {
        assert_eq!(
            one("From now on, always use tabs for indentation."),
            Some((Feedback, "always use tabs for indentation.".into(), None))
        );
        assert_eq!(
            one("Always answer in English from now on."),
            Some((Feedback, "Always answer in English.".into(), None))
        );
    }

    // --- why clauses -----------------------------------------------------------------------

    #[test]
    fn because_clause_becomes_why() {
        assert_eq!(
            one("We deploy only from release branches because main is unstable."),
            Some((
                Project,
                "We deploy only from release branches.".into(),
                Some("main is unstable.".into())
            ))
        );
        assert_eq!(
            one("Because the API is public, never change response shapes."),
            Some((
                Feedback,
                "never change response shapes.".into(),
                Some("the API is public".into())
            ))
        );
        assert_eq!(
            one("We pin Node 18, since our Lambda runtime ships it."),
            Some((
                Project,
                "We pin Node 18.".into(),
                Some("our Lambda runtime ships it.".into())
            ))
        );
        // A temporal "since" is not a reason.
        assert_eq!(one("We have used pnpm since 2021."), None,);
        // A reason that speaks about the moment makes the rule suspect.
        assert_eq!(plan("We use yarn because npm is currently broken."), vec![]);
    }

    // --- non-prose ---------------------------------------------------------------------------

    #[test]
    fn prose_around_code_blocks_is_still_read() {
        let text = "Here is my config:\n```toml\n# always use tabs\nindent = \"tab\"\n```\nAlso, we use pnpm workspaces.";
        assert_eq!(
            plan(text)
                .into_iter()
                .map(|p| p.summary)
                .collect::<Vec<_>>(),
            // "Also," is a lead-in (data/en.cues): the fact starts after it, capitalised.
            vec!["We use pnpm workspaces.".to_string()]
        );
    }

    #[test]
    fn unclosed_fence_hides_the_rest() {
        assert_eq!(
            plan("```\nwe always deploy from main\nnever push to main"),
            vec![]
        );
    }

    #[test]
    fn code_spans_and_urls_hide_their_words() {
        // The words inside backticks or a URL give no signal and no rejection.
        assert_eq!(plan("Run `always-deploy --now` please."), vec![]);
        assert_eq!(
            one("Never run `git push --force origin this file` in CI scripts.").map(|c| c.0),
            Some(Feedback)
        );
        // The filter itself reads the whole summary, code spans included (the patch filter).
        assert_eq!(
            plan("Never run `cargo publish --now` from a laptop."),
            vec![]
        );
        assert_eq!(
            one("The runbook is at https://wiki.example.com/today/now-runbook.").map(|c| c.0),
            None, // the filter still sees `today` in the summary
        );
    }

    #[test]
    fn soft_wrapped_lines_are_one_sentence() {
        assert_eq!(
            one("We deploy only from\nrelease branches."),
            Some((
                Project,
                "We deploy only from release branches.".into(),
                None
            ))
        );
    }

    #[test]
    fn long_sentences_are_ignored() {
        let long = format!(
            "We always deploy from release branches {}.",
            "and staging ".repeat(30)
        );
        assert!(utf16_len(&long) > MAX_SENTENCE_LEN);
        assert_eq!(plan(&long), vec![]);
    }

    // --- sentence splitting --------------------------------------------------------------------

    #[test]
    fn splitting_respects_versions_urls_code_and_abbreviations() {
        assert_eq!(
            split_sentences("We pin Node 18.2.1 in CI. Never use npm!"),
            vec!["We pin Node 18.2.1 in CI.", "Never use npm!"]
        );
        assert_eq!(
            split_sentences("Docs are at https://x.io/a.b?c=1. We use pnpm."),
            vec!["Docs are at https://x.io/a.b?c=1.", "We use pnpm."]
        );
        assert_eq!(
            split_sentences("Use `a. b? c!` for that. Ok."),
            vec!["Use `a. b? c!` for that.", "Ok."]
        );
        assert_eq!(
            split_sentences(
                "Prefer small crates, e.g. itoa. Avoid big ones, i.e. tokio etc. for CLIs."
            ),
            vec![
                "Prefer small crates, e.g. itoa.",
                "Avoid big ones, i.e. tokio etc. for CLIs."
            ]
        );
        assert_eq!(
            split_sentences("Is it done? Yes!"),
            vec!["Is it done?", "Yes!"]
        );
    }

    #[test]
    fn questions_anywhere_in_a_sentence_yield_nothing() {
        assert_eq!(plan("We always deploy from main, right?"), vec![]);
        assert_eq!(plan("Do we deploy only from release branches?"), vec![]);
    }

    #[test]
    fn lists_are_read_item_by_item() {
        let text = "Some rules:\n- Never push to main.\n- fix the login bug\n1. Our CI runs on GitHub Actions.";
        let got: Vec<_> = plan(text)
            .into_iter()
            .map(|p| (p.topic, p.summary))
            .collect();
        assert_eq!(
            got,
            vec![
                (Feedback, "Never push to main.".to_string()),
                (Project, "Our CI runs on GitHub Actions.".to_string())
            ]
        );
    }
}

mod props {
    use super::super::*;
    use crate::formats::text::utf16_len;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn never_panics_and_output_is_filter_stable(
            text in r"(?s)[ -~\n\t`é😀ſİ]{0,300}",
            prefix in prop::sample::select(vec!["", "We always ", "Remember that ", "Because ", "```\n", "- ", "https://x.io/"]),
        ) {
            let text = format!("{prefix}{text}");
            for p in plan_heuristic(&[UserText { offset: 3, text: &text }]) {
                prop_assert_eq!(p.source_offset, 3);
                prop_assert_eq!(filter::normalize_patch(p.clone()), Some(p.clone()));
                prop_assert!(utf16_len(&p.summary) <= MAX_SENTENCE_LEN);
            }
        }
    }
}

mod languages {
    use super::super::segment::sentences;
    use super::super::*;
    use MemoryType::{Feedback, Project, Reference, User};

    fn plan(text: &str) -> Vec<(MemoryType, String, Option<String>)> {
        plan_rules_only(&[UserText { offset: 0, text }])
            .into_iter()
            .map(|p| (p.topic, p.summary, p.why))
            .collect()
    }

    #[test]
    fn cjk_sentences_split_at_full_width_marks() {
        assert_eq!(
            sentences("以后用中文回答。这次先不用跑测试！你觉得呢？好；行"),
            vec![
                "以后用中文回答。",
                "这次先不用跑测试！",
                "你觉得呢？",
                "好；",
                "行"
            ]
        );
        // An ASCII mark right before CJK text ends a sentence; inside code it does not.
        assert_eq!(
            sentences("Never push to main.以后都要跑 `a.b;c` 检查。"),
            vec!["Never push to main.", "以后都要跑 `a.b;c` 检查。"]
        );
        // A closing quote stays with its sentence.
        assert_eq!(
            sentences("他说「记住。」然后走了。"),
            vec!["他说「记住。」", "然后走了。"]
        );
    }

    #[test]
    fn what_an_editor_attaches_is_not_the_users_words() {
        let text = "Use tabs in every Go file.\n<context ref=\"file:///x/notes.md\">\nAll fields below are required.\nNever log a token.\n</context>\n<ide_selection>Always answer in French.</ide_selection>\n<ide_opened_file ref=\"a.rs\"/>\nThen run the build.";
        assert_eq!(
            sentences(text),
            vec!["Use tabs in every Go file.", "Then run the build."]
        );
        // A tag that only begins like one opens no block.
        assert_eq!(
            sentences("<contexts>\nNever use tabs."),
            vec!["Never use tabs."]
        );
        // An attachment left open hides the rest of the message, never the text before it.
        assert_eq!(
            sentences("Prefer rebase over merge.\n<context>\nNever use tabs."),
            vec!["Prefer rebase over merge."]
        );
    }

    #[test]
    fn a_chinese_lead_in_never_hides_an_english_rule() {
        assert_eq!(
            plan("我们团队规定: never push to main."),
            vec![(Project, "我们团队规定: never push to main.".into(), None)]
        );
        assert_eq!(
            plan("记住：the staging cluster is in us-east-1."),
            vec![(Project, "the staging cluster is in us-east-1.".into(), None)]
        );
    }

    /// What the built-in pipeline (rules, scorer and real-chat gate) keeps from one message.
    fn built_in(text: &str) -> Vec<(MemoryType, String)> {
        plan_heuristic(&[UserText { offset: 0, text }])
            .into_iter()
            .map(|p| (p.topic, p.summary))
            .collect()
    }

    /// An explicit request to remember keeps a statement that points at the thing at hand
    /// ("这个接口", "このAPI", "이 API"): the user asked for it in so many words. The lead-in
    /// is not part of the fact, and the real-chat gate does not take it back. A moment word
    /// ("刚才") still drops it, and without the lead-in the demonstrative still does.
    #[test]
    fn an_explicit_remember_keeps_a_statement_about_the_thing_at_hand() {
        for (text, fact) in [
            ("记住，这个接口返回的时间是 UTC", "这个接口返回的时间是 UTC"),
            ("记住：这个接口返回的时间是 UTC", "这个接口返回的时间是 UTC"),
            (
                "請記住，這個接口返回的時間是 UTC",
                "這個接口返回的時間是 UTC",
            ),
            (
                "覚えておいて、このAPIの時刻はUTCです",
                "このAPIの時刻はUTCです",
            ),
            ("기억해, 이 API 시간은 UTC야", "이 API 시간은 UTC야"),
        ] {
            assert_eq!(
                built_in(text),
                vec![(Project, fact.to_string())],
                "{text:?}"
            );
        }
        for text in [
            "记住，刚才那个报错是网络问题",
            "记住，这个按钮改成蓝色",
            "记住，这个文件里的 TODO 都删掉",
            "기억해, 이 버튼 파란색으로 바꿔",
            "覚えておいて、このボタンを青に変えて",
            "这个接口返回的时间是 UTC",
            "このAPIの時刻はUTCです",
            "이 API 시간은 UTC야",
        ] {
            assert_eq!(plan(text), vec![], "{text:?}");
        }
    }

    /// "Remember:" before a statement asks to remember it as plainly as "remember that": the
    /// scorer's veto on the message does not take it back (it kept nothing from "Remember: the
    /// staging DB is wiped nightly"). A one-off request after the same lead-in stays dropped,
    /// and "Remember," is not such a request: in chat it mostly reminds of the work at hand
    /// ("Remember, the deadline is Friday"), so it leaves the gate and the veto their say.
    /// A misspelt id in `REMEMBER_CUES` would switch its request off without a word.
    #[test]
    fn every_remember_cue_is_a_cue_of_the_lexicons() {
        for id in REMEMBER_CUES {
            assert!(
                cues::all()
                    .iter()
                    .any(|c| c.id == *id && c.class == "durable-record"),
                "{id}"
            );
        }
    }

    #[test]
    fn a_remember_colon_keeps_the_statement_after_it_and_a_comma_does_not() {
        assert_eq!(
            built_in("Remember: the staging DB is wiped nightly"),
            vec![(Project, "the staging DB is wiped nightly".to_string())]
        );
        for text in [
            "remember: fix the typo in the header",
            "Remember, you said you'd fix the login bug.",
            "Remember, the bug is in the parser.",
            "Remember, the meeting is at 3pm.",
            "Remember, the client wants the button blue.",
            "Remember, the deadline is Friday.",
            "Remember, the logo goes on the left.",
        ] {
            assert_eq!(built_in(text), vec![], "{text:?}");
        }
    }

    #[test]
    fn durable_statements_in_each_language() {
        assert_eq!(plan("以后回答我的时候请用中文。")[0].0, Feedback);
        assert_eq!(plan("我是前端工程师。")[0].0, User);
        assert_eq!(
            plan("运维手册在 https://wiki.example.cn/ops 。")[0].0,
            Reference
        );
        assert_eq!(plan("我們團隊規定不能在週五部署。")[0].0, Project);
        assert_eq!(
            plan("今後、コミットメッセージは英語で書いてください。")[0].0,
            Feedback
        );
        assert_eq!(
            plan("앞으로 커밋 메시지는 영어로 써 주세요.")[0].0,
            Feedback
        );
    }

    #[test]
    fn one_off_requests_questions_and_thanks_yield_nothing() {
        for text in super::ONE_OFF_NOISE {
            assert_eq!(plan(text), vec![], "{text}");
        }
    }

    #[test]
    fn temporal_words_do_not_sink_a_project_fact() {
        assert_eq!(
            plan("The team currently uses Redis 7 for session storage."),
            vec![(
                Project,
                "The team uses Redis 7 for session storage.".into(),
                None
            )]
        );
        assert_eq!(
            plan("The web app is still on React 17."),
            vec![(Project, "The web app is still on React 17.".into(), None)]
        );
        assert_eq!(
            plan("我们的前端 currently 用 Vite 打包。"),
            vec![(Project, "我们的前端 用 Vite 打包。".into(), None)]
        );
        assert_eq!(plan("目前线上用的是 MySQL 8.0。")[0].0, Project);
        // About the user or the task at hand, they still mark the moment.
        assert_eq!(plan("I'm currently refactoring the parser."), vec![]);
        assert_eq!(plan("我现在在调试支付回调的问题。"), vec![]);
    }

    #[test]
    fn a_reason_in_the_same_sentence_becomes_why() {
        assert_eq!(
            plan("Run cargo fmt before every commit; CI rejects unformatted code."),
            vec![(
                Feedback,
                "Run cargo fmt before every commit.".into(),
                Some("CI rejects unformatted code.".into())
            )]
        );
        assert_eq!(
            plan("别在循环里查数据库，因为会很慢。"),
            vec![(
                Feedback,
                "别在循环里查数据库。".into(),
                Some("会很慢".into())
            )]
        );
    }

    /// Korean shapes of the seventh round: each pair shows the shape and the noise it must not
    /// take in.
    #[test]
    fn korean_endings_subjects_and_afterthoughts() {
        let kind = |text: &str| plan(text).first().map(|p| p.0);
        // Emoji close a sentence like "ㅋㅋ" does.
        assert_eq!(
            kind("스타일은 StyleSheet.create로만 작성해 주세요 🙏"),
            Some(Feedback)
        );
        // A standing cue said after the verb; a reason after a comma or a laugh.
        assert_eq!(
            kind("notebook 말고 .py 스크립트로 짜 주세요 앞으로도요"),
            Some(Feedback)
        );
        assert_eq!(
            kind("pandas 대신 polars로 작성해 주세요, 데이터가 커서요."),
            Some(Feedback)
        );
        assert_eq!(kind("npm 말고 pnpm 써 주세요."), None);
        assert_eq!(
            kind("PR 리뷰할 때 칭찬도 한 줄씩 넣어 줘 ㅋㅋ 팀 분위기상"),
            Some(Feedback)
        );
        // A reason about the moment makes what rests on it a one-off.
        assert_eq!(
            kind("지금 이 브랜치에서 작업 중이니까 main은 건드리지 마세요."),
            None
        );
        assert_eq!(
            kind("보안 감사 때문에 모든 SQL은 바인딩을 써야 합니다."),
            Some(Project)
        );
        // What follows a reason only points back at it: the reason is the rule.
        assert_eq!(
            kind("인터럽트 핸들러 안에서는 printf 호출하면 안 되니까 코드 짤 때 그 부분 주의해 주세요."),
            Some(Feedback)
        );
        // A detail clause after a one-off request belongs to it.
        assert_eq!(
            kind("Jenkins 잡 하나 새로 만들어 주세요, 이름은 nightly-e2e로요."),
            None
        );
        // The assistant as the subject, or what it writes as the topic, of a 반말 verb.
        assert_eq!(
            kind("git push는 내가 직접 할 테니까 넌 커밋까지만 해"),
            Some(Feedback)
        );
        assert_eq!(kind("주석은 영어로 달아"), Some(Feedback));
        assert_eq!(
            kind("주문 서비스랑 재고 서비스는 카프카로 이벤트 주고받아"),
            Some(Project)
        );
        // A proposal quoted inside a rule; an embedded question inside a request.
        assert_eq!(
            kind("terraform plan 보여주기 전에 apply 하자고 하지마라"),
            Some(Feedback)
        );
        assert_eq!(kind("그럼 오늘은 여기까지 하자"), None);
        assert_eq!(
            kind("레지스터 직접 건드리는 코드 쓸 때는 항상 어느 매뉴얼 몇 페이지인지 주석으로 남겨 주세요."),
            Some(Feedback)
        );
        assert_eq!(kind("빌드 몇 분 걸렸어"), None);
        // The speaker's experience holds whatever its tense; "이번 프로젝트" is the current one.
        assert_eq!(
            kind("저는 자바는 10년 넘게 했지만 코틀린은 처음입니다."),
            Some(User)
        );
        assert_eq!(
            kind("저는 이번 프로젝트에서 PL을 맡고 있으며 설계 검토를 담당합니다."),
            Some(User)
        );
        assert_eq!(
            kind("저 원래 웹 프론트 하다가 앱으로 넘어온 지 3개월 됐어요"),
            Some(User)
        );
        assert_eq!(kind("저는 어제 배포했어요."), None);
        assert_eq!(
            kind("제 타임존은 PST라서 한국 시간이랑 17시간 차이 나요"),
            Some(User)
        );
        assert_eq!(kind("이 버전도 되나요"), None);
        // Places: a host name, somewhere (…에) something is, a place named in quotes.
        assert_eq!(
            kind("어드민 접속 주소는 admin.internal.example.com 이에요"),
            Some(Reference)
        );
        assert_eq!(
            kind("헬름차트는 infra/charts/ 밑에 다 있음"),
            Some(Reference)
        );
        assert_eq!(
            kind("장애 대응은 PagerDuty 'platform-core' 서비스로 에스컬레이션됨"),
            Some(Reference)
        );
        assert_eq!(kind("커밋 메시지는 'feat:' 형식으로 써요."), Some(Project));
        // A ban stated as what is, a ban asked for.
        assert_eq!(
            kind("코드 프리즈 기간에는 핫픽스 외에 머지 금지입니다"),
            Some(Project)
        );
        assert_eq!(kind("운영 DB 직접 수정 금지."), Some(Feedback));
        // The team set something and left it so; an edit just done is not that.
        assert_eq!(
            kind("저희 보드는 클럭을 168MHz로 고정해 놨어요."),
            Some(Project)
        );
        assert_eq!(kind("설정 파일 고쳐 놨어요."), None);
    }

    /// Later round-7 shapes: clauses cut before another judged as statements, conditions that
    /// recur, someone honoured doing something, what the speaker cannot do.
    #[test]
    fn korean_clauses_conditions_and_honorifics() {
        let kind = |text: &str| plan(text).first().map(|p| p.0);
        // "…로 하고 …": the first clause judged as the statement it would be alone; a past one
        // stays past, a request goes on.
        assert_eq!(
            kind("라벨링 작업은 Label Studio로 하고 결과는 JSON으로 export 해요"),
            Some(Project)
        );
        assert_eq!(kind("배포는 끝났고, 이제 로그만 보면 돼요."), None);
        assert_eq!(
            kind("에러 처리할 때 예외 삼키지 말고 로깅 후 다시 던져 주세요"),
            Some(Feedback)
        );
        // Whenever something is made, a request holds; at the end of the task at hand it does not.
        assert_eq!(
            kind("새 컴포넌트 만들면 스토리도 같이 추가해 주세요"),
            Some(Feedback)
        );
        assert_eq!(kind("빌드 끝나면 알려 주세요."), None);
        // Whenever it happens, "다시" is "re-"; said alone it is this once.
        assert_eq!(
            kind("어차피 우리 팀은 PR 올리면 CI에서 전부 다시 돌려요."),
            Some(Project)
        );
        assert_eq!(kind("CI 다시 돌려 줘."), None);
        // "-세요" of someone honoured describes; addressed to the assistant it asks.
        assert_eq!(kind("배포 승인은 팀장님이 하세요"), Some(Project));
        assert_eq!(
            kind("배포 승인 요청은 항상 팀장님께 드리세요"),
            Some(Feedback)
        );
        // What the speaker cannot do, as the reason of a wish, is about them.
        assert_eq!(
            kind("저는 색 구분이 잘 안 돼서 그래프는 패턴으로 구분해 주시면 좋아요"),
            Some(User)
        );
        assert_eq!(
            kind("전 비전공자라 용어를 쉽게 설명해 주시면 좋아요."),
            Some(User)
        );
        // Experience with a topic and no team, in the past.
        assert_eq!(
            kind("Go는 2년 정도 했고 제네릭은 아직 잘 안 써봤어요"),
            Some(User)
        );
        // A reason said last without a comma; something that does not work is a report.
        assert_eq!(
            kind("스크립트는 bash 말고 python으로 짜 줘 이식성 때문에"),
            Some(Feedback)
        );
        assert_eq!(kind("게임 업데이트 후에 모드가 안 먹혀요"), None);
        // "…은 건": whatever is so, a class as the topic.
        assert_eq!(
            kind("답변에 확실하지 않은 건 확실하지 않다고 표시해 주세요"),
            Some(Feedback)
        );
    }

    /// Round-7 shapes of type: the first statement of a joined sentence gives the type, a
    /// copula points only at a place it predicates, a bracketed address is the pointer.
    #[test]
    fn korean_first_statement_places_and_asides() {
        let kind = |text: &str| plan(text).first().map(|p| p.0);
        assert_eq!(
            kind("다국어는 한국어, 영어, 일본어 세 개 지원하고 번역 파일은 i18n/ 폴더에 있어요"),
            Some(Project)
        );
        // An instruction whose verb comes last spans its clauses.
        assert_eq!(
            kind("API 키는 환경 변수로만 주입하고 코드에는 절대 넣지 마세요."),
            Some(Feedback)
        );
        assert_eq!(
            kind("회사 홈페이지는 워드프레스고 테마는 직접 만든 거예요"),
            Some(Project)
        );
        assert_eq!(kind("배포 가이드는 사내 위키 페이지예요."), Some(Reference));
        assert_eq!(
            kind("번역 요청은 Crowdin 프로젝트 'web-app'에서 하면 됩니다"),
            Some(Reference)
        );
        assert_eq!(
            kind("QA 요청 양식은 구글 폼으로 받고 있어요 (forms.gle/acme-qa)"),
            Some(Reference)
        );
        assert_eq!(
            kind("설명할 때 수식은 LaTeX 말고 그냥 텍스트로 써 주세요"),
            Some(Feedback)
        );
        assert_eq!(kind("그냥 이대로 두세요"), None);
        assert_eq!(
            kind("코드 리뷰 요청하면 보안 관점 먼저 check 해 줘"),
            Some(Feedback)
        );
        assert_eq!(kind("테스트 통과하면 머지해 줘"), None);
    }

    /// Round-7 memo rules, settings left in place, wishes resting on who the speaker is.
    #[test]
    fn korean_settings_memo_rules_and_wishes() {
        let kind = |text: &str| plan(text).first().map(|p| p.0);
        assert_eq!(
            kind("서비스 간 타임아웃은 기본 3초로 맞춰 두었습니다"),
            Some(Project)
        );
        assert_eq!(kind("로그 레벨은 DEBUG로 바꿔 놨어요"), None);
        assert_eq!(kind("사내 VPN 없이는 스테이징 접근 불가"), Some(Project));
        assert_eq!(
            kind("예시 코드에 주석으로 각 단계 설명 달아 주세요"),
            Some(Feedback)
        );
        assert_eq!(kind("이 코드에 주석 달아 주세요"), None);
        assert_eq!(
            kind("나 요즘 러스트 공부하는 중이라 러스트 예제 많이 보여주면 좋겠음"),
            Some(User)
        );
        assert_eq!(
            kind("디자인 QA 피드백은 피그마 코멘트로 남겨 주시면 돼요"),
            Some(Reference)
        );
    }

    /// Round-7 memo to-do lines, an English "I'm", a memo arrow, a request on a background
    /// about the speaker.
    #[test]
    fn korean_memo_lines_and_backgrounds() {
        let kind = |text: &str| plan(text).first().map(|p| p.0);
        assert_eq!(kind("커밋 전에 테스트 돌리기"), Some(Feedback));
        assert_eq!(kind("변수명 약어 쓰지 말기"), Some(Feedback));
        assert_eq!(kind("리턴 타입 명시할 것"), Some(Feedback));
        assert_eq!(kind("이건 좀 어려운 얘기"), None);
        assert_eq!(kind("I'm 백엔드 개발자고 주로 Java 써요"), Some(User));
        assert_eq!(
            kind("비상 연락처 → 노션 '긴급 연락' 페이지"),
            Some(Reference)
        );
        assert_eq!(
            kind("저 영어로 된 에러 메시지는 읽을 수 있는데 해석은 같이 해 주세요"),
            Some(User)
        );
        // A background that leads up to a question stays a question.
        assert_eq!(
            kind("저희 앱이 React Native인데 이 라이브러리 호환될까요?"),
            None
        );
        assert_eq!(kind("Postgres 쓰고 있는데 이 쿼리 인덱스 타나요?"), None);
        assert_eq!(
            kind("디자인은 잘 못 해서 UI 쪽은 기본 스타일로만 해 주세요"),
            Some(User)
        );
    }
}

/// The English shape rules (round 8): each shape with its noise counterpart.
mod en_shapes {
    use super::super::*;
    use MemoryType::{Feedback, Project, Reference, User};

    fn plan(text: &str) -> Vec<Patch> {
        plan_rules_only(&[UserText { offset: 0, text }])
    }

    fn topic(text: &str) -> Option<MemoryType> {
        plan(text).first().map(|p| p.topic)
    }

    fn summary(text: &str) -> Option<String> {
        plan(text).first().map(|p| p.summary.clone())
    }

    #[test]
    fn chat_fillers_and_spellings_do_not_hide_a_rule() {
        assert_eq!(
            topic("ok so going forward: no force pushes, not even on your own branches"),
            Some(Feedback)
        );
        assert_eq!(
            summary("pls dont use emojis in commit msgs"),
            // Spellings tidied, and the "please" that opens it is not part of the rule.
            Some("Don't use emojis in commit messages".into())
        );
        assert_eq!(
            tidy_opening("Please always respond in Thai."),
            "Always respond in Thai."
        );
        assert_eq!(
            tidy_opening("and yes I want you to keep the changelog current"),
            "Keep the changelog current"
        );
        // "No" is the rule's own word; nothing is cut that would leave one word.
        assert_eq!(
            tidy_opening("Remember, this function should never crash."),
            "This function should never crash."
        );
        assert_eq!(
            tidy_opening("remember: the API is versioned by date"),
            "The API is versioned by date"
        );
        assert_eq!(
            tidy_opening("Remember to rebase first."),
            "Remember to rebase first."
        );
        // "Remember that" asks to keep the fact after it; "remember to" opens the rule itself.
        assert_eq!(
            tidy_opening("I want you to remember that the CI runs on Buildkite."),
            "The CI runs on Buildkite."
        );
        assert_eq!(tidy_opening("No secrets in logs."), "No secrets in logs.");
        assert_eq!(tidy_opening("Please rebase."), "Please rebase.");
        assert_eq!(tidy_opening("Sorting is stable."), "Sorting is stable.");
        assert_eq!(
            tidy_opening("So long as CI is green, merge on Fridays."),
            "So long as CI is green, merge on Fridays."
        );
        assert_eq!(
            topic("Im colorblind so please dont rely on red/green in diagrams"),
            Some(User)
        );
        // "ok 3 - parses" is still a test runner's line.
        assert!(plan("ok 3 - we always deploy from main").is_empty());
    }

    #[test]
    fn a_present_fact_about_a_named_part_is_a_project_fact() {
        for text in [
            "Backend is Django 4.2 with Celery workers on RabbitMQ.",
            "The ML pipeline trains on the last 90 days of events only.",
            "Model checkpoints are saved to S3 every 500 steps.",
            "The scheduler kicks off ETL jobs every hour on the hour.",
            "Internal tools are all Retool apps backed by the ops Postgres.",
        ] {
            assert_eq!(topic(text), Some(Project), "{text}");
        }
        // The same shape reporting the moment, a defect, a measurement or the thing at hand.
        for text in [
            "The login page is broken on Safari.",
            "Our staging cluster is out of disk.",
            "Model accuracy is at 93% on the validation set.",
            "The queue has 40k messages stuck in it.",
            "The release is scheduled for next Tuesday.",
            "The chart looks off on mobile.",
            "The numbers in that chart look off to me.",
            "Add a test that never touches the network.",
        ] {
            assert!(plan(text).is_empty(), "{text}");
        }
    }

    #[test]
    fn habits_of_the_team_and_the_user_are_kept() {
        assert_eq!(
            topic("We do trunk-based development, feature branches live at most two days."),
            Some(Project)
        );
        assert_eq!(
            topic("We're a small team of four, code review is one approval."),
            Some(Project)
        );
        assert_eq!(
            topic("I use Neovim with LSP, so don't suggest VS Code settings."),
            Some(User)
        );
        assert_eq!(
            topic("I write mostly Kotlin these days, some Swift when I have to."),
            Some(User)
        );
        assert_eq!(
            topic("I've got ADHD, so bullet points over walls of text really help me."),
            Some(User)
        );
        for text in [
            "We had an outage yesterday because of the cache.",
            "We have a bug in the payment flow.",
            "We have used pnpm since 2021.",
            "We talked about this in standup.",
            "I work on the ticket after lunch.",
            "I run the script and nothing happens.",
            "I'm confused by the error message.",
            "I think the bug is in the reducer.",
        ] {
            assert!(plan(text).is_empty(), "{text}");
        }
    }

    #[test]
    fn an_imperative_about_a_kind_of_thing_is_standing() {
        for text in [
            "Use kebab-case for all new file names under src/components.",
            "Please keep firmware code free of dynamic allocation, we're on a Cortex-M0.",
            "Stick with the existing error-handling pattern in new modules.",
            "when writing pandas code prefer vectorized ops over apply",
            "Ah and when you generate migrations, name them with a timestamp prefix.",
            "Type hints on all public functions please, mypy runs in strict mode.",
            "yo, short answers pls, I can ask if I need more",
            "Could you stop wrapping every answer in a summary table? It's noise for me.",
            "For SQL migrations I want a down migration every single time.",
            "Tests first, then implementation — that's how I want you to work here.",
        ] {
            assert_eq!(topic(text), Some(Feedback), "{text}");
        }
        assert_eq!(
            summary("Could you stop wrapping every answer in a summary table? It's noise for me."),
            Some("Stop wrapping every answer in a summary table.".into())
        );
        for text in [
            "Add new tests in the auth module.",
            "Please write tests for the parser module.",
            "After fixing this, run the whole suite.",
            "When you get a chance, update the README.",
            "Use the smaller model for this experiment.",
            "Prefer the shorter version.",
            "Keep the old implementation around for a bit.",
            "Don't merge until CI is green.",
            "Short answer please: does this compile?",
            "this time just hardcode the URL, we'll fix it later",
        ] {
            assert!(plan(text).is_empty(), "{text}");
        }
    }

    #[test]
    fn pointers_to_tools_paths_channels_and_people_are_references() {
        for text in [
            "API keys for the test env are in 1Password, vault 'Dev Shared'.",
            "The dataset card with all the column meanings is at data/README.md.",
            "If the build is red, check #ci-alerts on Slack first.",
            "Sentry project for the mobile app is called rn-prod.",
            "Any question about the payments API, ask Priya, she wrote most of it.",
            "The style guide we follow is Google's Python style guide, linked in CONTRIBUTING.md.",
        ] {
            assert_eq!(topic(text), Some(Reference), "{text}");
        }
        for text in [
            "my code is in src/lib.rs",
            "The file is in my Downloads folder.",
            "See PR https://github.com/acme/web/pull/812 for context.",
            "Ask Tom whether he deployed it.",
        ] {
            assert!(plan(text).is_empty(), "{text}");
        }
    }

    #[test]
    fn leads_about_any_case_and_roles_of_the_team() {
        for (text, want) in [
            (
                "If you're not certain a migration is reversible, tell me before running it.",
                Feedback,
            ),
            ("For each new feature flag add a cleanup ticket.", Feedback),
            (
                "When adding a new endpoint always add the OpenAPI annotation too.",
                Feedback,
            ),
            ("Write SQL keywords in uppercase.", Feedback),
            (
                "Please respond with code first and explanation after, not the other way around.",
                Feedback,
            ),
            (
                "Level designers edit the JSON level files by hand, so keep the format stable.",
                Project,
            ),
            (
                "If something is off with billing, the person to ask is Marco.",
                Reference,
            ),
            (
                "I've been doing Python for like 10 years but Go is new for me.",
                User,
            ),
        ] {
            assert_eq!(topic(text), Some(want), "{text}");
        }
        for text in [
            "For every row in the CSV, print the id and the email.",
            "In the settings page use a toggle instead of a checkbox.",
            "Developers complained about the build times.",
            "Write the title in uppercase.",
            "The Docker image is 1.2 GB, way too big.",
            "The person to ask was on vacation all week.",
        ] {
            assert!(plan(text).is_empty(), "{text}");
        }
    }

    #[test]
    fn learner_wording_roles_and_rule_tails() {
        for (text, want) in [
            (
                "Please not to use var in JavaScript, only let and const, is our rule.",
                Feedback,
            ),
            (
                "I am DBA for 12 years, you can skip basic SQL explanations.",
                User,
            ),
            (
                "As an open source maintainer I review PRs on weekends only.",
                User,
            ),
            (
                "Ping me before you touch anything in infra/, it's shared with other teams.",
                Feedback,
            ),
            (
                "If a function needs more than 3 params, use an options object instead.",
                Feedback,
            ),
            (
                "Keep the README in sync with the CLI flags, people copy-paste from it.",
                Feedback,
            ),
            ("no TODOs without a ticket number", Feedback),
            (
                "Customer support escalations come in through Zendesk, tag 'eng-escalation'.",
                Reference,
            ),
        ] {
            assert_eq!(topic(text), Some(want), "{text}");
        }
        for text in [
            "I don't like how this looks.",
            "Ping me when you're done.",
            "Tell me when you find the bug.",
            "no prints in the loop please",
            "As a quick fix, I commented out the check.",
            "If a user has no email, the signup crashes.",
        ] {
            assert!(plan(text).is_empty(), "{text}");
        }
    }

    #[test]
    fn context_leads_relative_subjects_and_scopes_with_verbs() {
        for (text, want) in [
            ("Before you start: this service is Go 1.22, we vendor dependencies, and CI fails if go mod tidy changes anything.", Project),
            ("For context, staging and prod share the same Redis cluster, so be careful with FLUSHALL.", Project),
            ("Grafana alerts for the ingest pipeline page the data-eng rotation.", Project),
            ("Tests that hit the network are marked @slow and skipped in the default run.", Project),
            ("In this codebase errors are wrapped with context using anyhow, never unwrapped in library code.", Project),
            ("When you summarize a PR for me, lead with the risk, then the change.", Feedback),
            ("Keep commits small enough to review in five minutes.", Feedback),
            ("Generally I'd rather have a boring solution than a clever one.", User),
            ("Our Figma library is the source of truth for spacing and colors.", Reference),
            ("The SLOs are documented in the reliability repo, slo/ folder.", Reference),
        ] {
            assert_eq!(topic(text), Some(want), "{text}");
        }
        for text in [
            "Tests that failed yesterday are marked @flaky now.",
            "Heads up, the admin panel is down and nobody can log in.",
            "The SLO doc is in review.",
            "The design doc is in review until Friday.",
            "When you summarize this PR, keep it short.",
            "I'm in a meeting, back in 20 minutes.",
        ] {
            assert!(plan(text).is_empty(), "{text}");
        }
    }

    #[test]
    fn standing_lets_preferences_between_kinds_and_reports_in_the_present() {
        for (text, want) in [
            ("Let's always use UTC in logs and DB columns.", Feedback),
            ("Readability over cleverness, always.", Feedback),
            (
                "Make sure new CLI flags also get an env var equivalent.",
                Feedback,
            ),
            (
                "Feature work happens on short-lived branches off develop, not main.",
                Project,
            ),
            (
                "The nightly job dumps anonymized prod data into the analytics bucket.",
                Project,
            ),
            ("Anything about SSO, talk to Jenny from IT.", Reference),
            ("My preference: early returns instead of nested ifs.", User),
            (
                "The mobile release checklist is pinned in #mobile-releases.",
                Reference,
            ),
        ] {
            assert_eq!(topic(text), Some(want), "{text}");
        }
        for text in [
            "Let's try the other approach.",
            "Let's never do that again.",
            "Payments team is in a meeting till 3.",
            "The load balancer is returning 503s.",
            "The password reset email never arrived.",
            "Anything about this bug, ask Tom.",
            "The server is running out of memory.",
        ] {
            assert!(plan(text).is_empty(), "{text}");
        }
    }

    #[test]
    fn rules_of_thumb_any_case_leads_and_pointers_in_tools() {
        for (text, want) in [
            (
                "Rule of thumb here: if a function doesn't fit on a screen, split it.",
                Project,
            ),
            (
                "When a test is flaky, quarantine it rather than deleting it.",
                Feedback,
            ),
            (
                "Explain regexes when you write them, I can't read them well.",
                Feedback,
            ),
            (
                "Anything user-facing needs a screenshot in the PR.",
                Project,
            ),
            (
                "Sprint planning is every other Monday, releases follow on Thursday.",
                Project,
            ),
            ("Who to ask about the data warehouse: Omar.", Reference),
            (
                "Be blunt with code review comments, I prefer honesty over politeness.",
                Feedback,
            ),
            ("Kibana has the app logs, index pattern app-*.", Reference),
            (
                "The Jira board for infra work is INFRA, not OPS.",
                Reference,
            ),
            (
                "Our on-prem customers can't reach the internet, so no external calls at runtime.",
                Project,
            ),
        ] {
            assert_eq!(topic(text), Some(want), "{text}");
        }
        for text in [
            "A customer can't reach the site from their office.",
            "Who to ask about this bug: Omar.",
            "Everything after line 40 can go.",
            "Sprint planning moved to Monday this week.",
            "When a user clicked the button, nothing happened.",
            "The Jira board is a mess.",
        ] {
            assert!(plan(text).is_empty(), "{text}");
        }
    }

    #[test]
    fn consequences_after_so_do_not_hedge_the_fact() {
        for (text, want) in [
            ("I'm most productive in the morning, so that's when I'll ask for big refactors.", User),
            ("I usually pair with Sam on infra stuff, so he might ask you things too.", User),
            ("Quick context: I'm a solo dev on this, there's no team, so skip the 'ask your team' advice.", User),
            ("Don't bother with Windows support, none of our users are on Windows.", Feedback),
            ("Go easy on abstractions, we value straightforward code.", Feedback),
            ("No Friday deploys.", Project),
        ] {
            assert_eq!(topic(text), Some(want), "{text}");
        }
        for text in [
            "The test is flaky, so I'll rerun it.",
            "We deploy tonight, so be ready.",
            "Don't bother with the tests for this PR.",
            "No Friday deploys this week, there's a freeze.",
            "I'm a dev on this ticket until Friday.",
        ] {
            assert!(plan(text).is_empty(), "{text}");
        }
    }

    #[test]
    fn failures_versus_standing_limits() {
        for (text, want) in [
            (
                "Only Postgres features available in 13 — the managed DB is stuck on 13.",
                Project,
            ),
            (
                "We don't do on-call on weekends, alerts wait until Monday unless it's a P1.",
                Project,
            ),
            ("CI won't run on draft PRs.", Project),
            (
                "Slack #deploys gets a message for every prod deploy, that's where to look.",
                Reference,
            ),
            (
                "The analytics events schema lives in a shared package, @acme/events.",
                Reference,
            ),
            (
                "Mock external HTTP calls with msw in frontend tests.",
                Feedback,
            ),
            (
                "i keep my dotfiles in a public repo, so assume zsh + tmux",
                User,
            ),
            (
                "I'm fine with long answers when I ask 'why', short ones otherwise.",
                User,
            ),
        ] {
            assert_eq!(topic(text), Some(want), "{text}");
        }
        for text in [
            "CI can't get the OIDC token, error 401.",
            "Storybook won't start locally.",
            "The Android build takes forever.",
            "The DB is stuck at 100% CPU.",
            "We don't deploy on weekends, but this Saturday we will.",
            "I keep getting 401s from the API.",
        ] {
            assert!(plan(text).is_empty(), "{text}");
        }
    }

    #[test]
    fn wishes_about_kinds_check_ins_and_labelled_paths() {
        for (text, want) in [
            ("I want commit messages under 72 characters on the first line.", Feedback),
            ("If you change a public function signature, update the docstring in the same commit.", Feedback),
            ("Show me the plan before writing code for anything bigger than a bug fix.", Feedback),
            ("Hey, just so we're on the same page: we support the last two major versions of Safari.", Project),
            ("The CDN caches HTML for 60 seconds, assets forever (they're hashed).", Project),
            ("Jobs in the queue are retried up to 5 times before they hit the dead-letter queue.", Project),
            ("The person who owns the billing service is Hana, she's in Berlin.", Reference),
            ("Architecture overview: docs/architecture/README.md — read it before big changes.", Reference),
            ("I've been a backend dev for 8 years, mostly Java and Go.", User),
        ] {
            assert_eq!(topic(text), Some(want), "{text}");
        }
        for text in [
            "I want commit messages like the one you wrote.",
            "I want the tests for this module rewritten.",
            "Output: build/out.txt",
            "Show me the plan before you start coding this.",
            "The Android build takes forever.",
        ] {
            assert!(plan(text).is_empty(), "{text}");
        }
    }

    #[test]
    fn tastes_and_named_guides() {
        for (text, want) in [
            (
                "I have a strong preference for explicit code over magic.",
                User,
            ),
            (
                "Honestly I don't care about micro-optimizations, readability first.",
                User,
            ),
            (
                "Our API style guide is the Zalando one, we follow it strictly.",
                Reference,
            ),
        ] {
            assert_eq!(topic(text), Some(want), "{text}");
        }
        for text in [
            "I have a preference for the first option.",
            "I don't care about this bug.",
            "I don't care about the details, just fix it.",
        ] {
            assert!(plan(text).is_empty(), "{text}");
        }
    }

    #[test]
    fn english_after_a_cjk_filler_is_judged_by_the_english_rules() {
        assert_eq!(
            topic("对了，I use Neovim, so don't suggest VS Code settings."),
            Some(User)
        );
        assert_eq!(
            topic("另外 design specs live in Figma, project Atlas."),
            Some(Reference)
        );
        assert_eq!(
            topic("注意：never run kubectl against prod without asking me."),
            Some(Feedback)
        );
        assert!(plan("对了，the deploy is stuck at 80%.").is_empty());
        assert!(plan("另外 can you add a loading spinner?").is_empty());
    }

    #[test]
    fn a_durable_clause_next_to_a_one_off_request_is_kept_alone() {
        assert_eq!(
            plan("Quick one: can you bump axios? Oh and never pin exact versions in package.json, we use caret ranges.")
                .first()
                .map(|p| p.topic),
            Some(Feedback)
        );
        assert_eq!(
            summary("fix the typo in the header, btw the billing service owns invoices"),
            Some("the billing service owns invoices.".into())
        );
        // A condition, a failure or a hedge anywhere holds every clause.
        for text in [
            "If the cache misses, we fall back to the database.",
            "Nginx handles the request but the upstream times out.",
            "maybe we should switch to Postgres at some point, not sure",
            "I use it all the time but never noticed that.",
            "Now, we deploy only from release branches.",
        ] {
            assert!(plan(text).is_empty(), "{text}");
        }
    }
}

/// Round 8: Chinese, mixed and Japanese statements judged by shape, each with noise
/// counterparts of the same shape.
mod cjk_shapes {
    use super::super::*;
    use MemoryType::{Feedback, Project, Reference, User};

    fn topic(text: &str) -> Option<MemoryType> {
        let p = plan_rules_only(&[UserText { offset: 0, text }]);
        assert!(p.len() <= 1, "{text:?} gave {p:?}");
        p.first().map(|p| p.topic)
    }

    fn summary(text: &str) -> Option<String> {
        plan_rules_only(&[UserText { offset: 0, text }])
            .first()
            .map(|p| p.summary.clone())
    }

    #[test]
    fn chinese_statements_are_durable_by_default() {
        assert_eq!(
            topic("主分支叫 master 不叫 main，脚本里别写错。"),
            Some(Project)
        );
        assert_eq!(topic("上线要走审批单，在 OA 系统里提。"), Some(Project));
        assert_eq!(topic("单片机那边的串口波特率固定 115200。"), Some(Project));
        assert_eq!(topic("response 里的 field 用 snake_case。"), Some(Feedback));
        assert_eq!(topic("變數命名用駝峰，不要用底線。"), Some(Feedback));
        assert_eq!(topic("生成的代码不用加版权头。"), Some(Feedback));
        assert_eq!(
            topic("我做嵌入式的，平常写 C 比较多，Rust 还在学。"),
            Some(User)
        );
        assert_eq!(topic("我这人比较啰嗦，你挑重点回就行。"), Some(User));
        assert_eq!(
            topic("发版流程看 docs/release.md，写得挺清楚的。"),
            Some(Reference)
        );
        assert_eq!(
            topic("我们这个 repo 是 monorepo，用 pnpm workspace 管理。"),
            Some(Project)
        );
    }

    #[test]
    fn chinese_noise_of_the_same_shapes_is_dropped() {
        for text in [
            "如果以后要支持多语言的话，这里可能得重构。",
            "要是用户量再翻一倍，这个架构撑不住。",
            "现在的实现每次都全表扫描，太慢了。",
            "我在 review 小王的 PR，等下再说。",
            "我在公司电脑上装不了 docker，权限不够。",
            "给我讲讲 CAP 定理。",
            "给我 generate 一个 Dockerfile。",
            "数据库密码是 Passw0rd!2024，连一下看看表结构。",
            "PM 想要一个 CSV export 功能。",
            "新的 module 有 circular import。",
            "CI 还是 red。",
            "老板说下周要演示，功能先做个大概。",
            "不对不对，我要的是倒序。",
            "線上又出事了，訂單服務 500。",
            "返回的是 HTTP 404。",
        ] {
            assert_eq!(topic(text), None, "{text}");
        }
    }

    #[test]
    fn a_durable_clause_next_to_a_request_is_kept_alone() {
        assert_eq!(
            summary("帮我 fix 一下这个 lint error，btw 我们的 ESLint config 是 airbnb base。"),
            Some("btw 我们的 ESLint config 是 airbnb base。".to_string())
        );
        assert_eq!(
            topic("这个 bug 先放着，另外 mobile app 的 min SDK 是 24。"),
            Some(Project)
        );
        // The moment covers every clause unless one turns to another topic.
        assert_eq!(topic("昨天的 deploy rollback 了，原因还在查。"), None);
        assert_eq!(topic("这次先把功能做出来，测试以后再补。"), None);
        // A question or a what-if is not rescued clause by clause.
        assert_eq!(topic("如果 traffic 涨 10 倍，这个 design 扛得住吗？"), None);
    }

    #[test]
    fn a_statement_is_durable_only_when_something_settles_it() {
        // Settled: a name or identifier, a schedule, an owner, what is used for a thing.
        assert_eq!(topic("安卓那边的包名是 com.example.shop。"), Some(Project));
        assert_eq!(topic("OrderService 负责下单和库存扣减。"), Some(Project));
        assert_eq!(
            topic("feature branch 合并用 squash merge，保持 history 干净。"),
            Some(Project)
        );
        assert_eq!(
            topic("embedded 这边 toolchain 是 arm-none-eabi-gcc 12。"),
            Some(Project)
        );
        assert_eq!(
            topic("以后出 SQL 都帮我加上注释，说明每个 join 的目的。"),
            Some(Feedback)
        );
        // Descriptions of the thing at hand, symptoms, reported speech, measurements.
        for text in [
            "前端传过来的时间戳是毫秒。",
            "现在的逻辑是先查缓存，缓存没有再查库。",
            "第三方支付的回调有时候会重复。",
            "日志里全是 connection reset。",
            "单测里用的是假数据，不用管。",
            "model 的 accuracy 卡在 0.82 上不去。",
            "用户反馈说导出 Excel 的时候卡死。",
            "按钮点了没反应，也没有请求发出去。",
            "我记得这个库之前有个 bug，不知道修了没有。",
            "我的服务器 IP 是 10.0.3.15，root 密码 abc123456，帮我装个 docker。",
            "写得不错，不过变量名可以再短一点。",
            "test coverage 现在才 40%。",
        ] {
            assert_eq!(topic(text), None, "{text}");
        }
    }

    #[test]
    fn chinese_steps_before_a_recurring_action_and_their_noise() {
        // What to do before a recurring step is standing.
        assert_eq!(
            topic("commit 前跑 make check，里面有 lint 和 unit test。"),
            Some(Feedback)
        );
        assert_eq!(topic("上线前要先跑一遍冒烟测试。"), Some(Project));
        // A polite opener and 麻烦 do not hide a standing instruction.
        assert_eq!(
            topic("那个，麻烦你以后改完代码顺便把受影响的测试也跑一遍。"),
            Some(Feedback)
        );
        // An order of steps inside an instruction is not a plan for now.
        assert_eq!(topic("算法题别直接给答案，先给思路提示。"), Some(Feedback));
        // A setting for all is not a symptom.
        assert_eq!(topic("所有 HTTP 接口超时 5s。"), Some(Project));
        // A secret word without a value is not a secret handed over.
        assert_eq!(
            topic("API キーは環境変数から読む決まりで、コードに直書きは禁止。"),
            Some(Feedback)
        );
        assert_eq!(topic("例外を握りつぶすのはやめてほしい。"), Some(Feedback));
        assert_eq!(
            topic("ドキュメントは docs/ 以下に Markdown で書いてます。"),
            Some(Reference)
        );
        assert_eq!(
            topic("私はアクセシビリティを重視しているので、その観点も入れてください。"),
            Some(User)
        );
        for text in [
            "帮忙出个方案，要能支持 10 万并发。",
            "客户那边要求下个月上线。",
            "memory usage 在 peak 的时候到 4G。",
            "我们 sprint planning 的时候再讨论。",
        ] {
            assert_eq!(topic(text), None, "{text}");
        }
    }

    #[test]
    fn chinese_pointers_to_named_tools_and_their_noise() {
        // Kept in a named tool is a pointer; done on or run in one is not.
        assert_eq!(
            topic("产品需求都在 PingCode 上，编号是 PRD-xxx。"),
            Some(Reference)
        );
        assert_eq!(
            topic("API keys 都在 1Password 里，vault 叫 Dev Shared。"),
            Some(Reference)
        );
        assert_eq!(
            topic("GPU 资源紧张，training job 要提前在 Slurm 上排队。"),
            Some(Project)
        );
        assert_eq!(
            topic("障害時の連絡先は PagerDuty で管理してます。"),
            Some(Reference)
        );
        assert_eq!(
            topic("うちの Slack では #dev-help に質問を投げる運用です。"),
            Some(Reference)
        );
        // Trouble is not a polite request; a habit of the user.
        assert_eq!(topic("我比较怕麻烦。"), Some(User));
        assert_eq!(
            topic("我之前一直写 Java，最近半年才转 Go，所以 Go 的惯用法可以多提一下。"),
            Some(User)
        );
        // 先 inside a clause orders steps; it does not make the clause a plan for now.
        assert_eq!(
            topic("runbook 在 https://wiki.example.com/sre/runbooks ，出事先看那个。"),
            Some(Reference)
        );
        // Batch 7: a limit is a fact; a path after a quantifier is where things are kept.
        assert_eq!(topic("后台的导出功能限制一次最多 5 万行。"), Some(Project));
        assert_eq!(
            topic("所有 cron job 的定义都在 ops/cron/ 里。"),
            Some(Reference)
        );
        assert_eq!(
            topic("API 仕様書は docs/api/ に OpenAPI 形式で置いてあります。"),
            Some(Reference)
        );
        // Batch 8: a file with a schema extension is a path; hedged symptoms and what a
        // document says are not rescued clause by clause.
        assert_eq!(
            topic("GraphQL schema 在 schema.graphql，改了要跑 codegen。"),
            Some(Reference)
        );
        assert_eq!(topic("CI 的缓存好像失效了，每次都重新下载依赖。"), None);
        assert_eq!(topic("我看文档说这个参数默认是 true。"), None);
        // Batch 9: a label and the command it names; what follows a change of topic is
        // judged on its own; fillers such as 其实/ちな go first.
        assert_eq!(topic("跑测试：make test。"), Some(Project));
        assert_eq!(
            topic("好的好的，那这样的话你先按这个思路改，另外提醒一下我们这边上线必须走灰度，先放 5% 流量。"),
            Some(Project)
        );
        assert_eq!(
            topic("嗯，其实我更习惯看英文文档，中文翻译有时候不准。"),
            Some(User)
        );
        assert_eq!(
            topic("ちな、うちのフロントは Vue 3 + Vite っす。"),
            Some(Project)
        );
        assert_eq!(topic("代码如下，帮我找找问题："), None);
        assert_eq!(topic("中文翻译有时候不准。"), None);
        // Batch 10: "就…" goes on with the clause before it; English verbs after 我.
        assert_eq!(topic("OK，就按 option B 来。"), None);
        // Batch 11: a label names what the line holds.
        assert_eq!(
            topic("Tech stack：Next.js + tRPC + Prisma + Postgres。"),
            Some(Project)
        );
        assert_eq!(
            topic("技術スタック：Rails + React + PostgreSQL。"),
            Some(Project)
        );
        assert_eq!(topic("我：前端，React 三年。"), Some(User));
        assert_eq!(
            topic("我 prefer 你直接给 diff，不要整个 file。"),
            Some(Feedback)
        );
        assert_eq!(
            topic("自分、Python はそこそこ書けますが Rust は初心者です。"),
            Some(User)
        );
        for text in [
            "现状：测试覆盖率 35%。",
            "Root cause：missing index on user_id。",
            "現状、テストカバレッジは 35% です。",
            "エラー：EADDRINUSE。",
            "这版先不要合，等产品确认。",
            "使用者反饋說登入頁很慢。",
            "記憶體好像有洩漏，一直往上漲。",
        ] {
            assert_eq!(topic(text), None, "{text}");
        }
        assert_eq!(topic("我 work 在 Berlin，timezone 是 CET。"), Some(User));
        // Taiwan usage: 預設, 支援, 釋出前, 縮排, 儘量.
        assert_eq!(topic("我們的 App 最低支援 iOS 15。"), Some(Project));
        assert_eq!(topic("釋出前要先跑完整套 E2E 測試。"), Some(Project));
        assert_eq!(topic("程式碼縮排一律兩個空白。"), Some(Feedback));
        assert_eq!(
            topic("儘量不要在 controller 裡寫商業邏輯。"),
            Some(Feedback)
        );
        // ja batch 8: permission not to do something; a place named with にあって.
        assert_eq!(
            topic("絵文字や顔文字は回答に入れなくていいです。"),
            Some(Feedback)
        );
        assert_eq!(
            topic("ER 図は dbdocs にあって、URL は README に貼ってあります。"),
            Some(Reference)
        );
        for text in [
            "目前这个服务的 QPS 大概 2000。",
            "目前 p99 latency 是 1.2s。",
            "下个 sprint 要做 dark mode。",
            "同事说这个库在 Windows 上有兼容问题。",
        ] {
            assert_eq!(topic(text), None, "{text}");
        }
    }

    #[test]
    fn japanese_rules_by_shape() {
        assert_eq!(
            topic("ついでに言っておくと、テストデータに本物の個人情報は使っちゃダメです。"),
            Some(Feedback)
        );
        assert_eq!(
            topic("レビューコメントには根拠を添えてもらえるとありがたいです。"),
            Some(Feedback)
        );
        assert_eq!(
            topic("新しい依存ライブラリを入れる前に、一度相談してください。"),
            Some(Feedback)
        );
        assert_eq!(
            topic("エラーメッセージはユーザー向けには日本語、ログには英語で出す方針です。"),
            Some(Project)
        );
        assert_eq!(topic("個人的に、関数は短く保つのが好きです。"), Some(User));
        for text in [
            "テストでは仮のデータを使ってるので気にしないで。",
            "優先度は P1 です。",
            "フロントから来るタイムスタンプはミリ秒です。",
            "サービス層を 2 つのパッケージに分けるつもりです。",
        ] {
            assert_eq!(topic(text), None, "{text}");
        }
        assert_eq!(
            topic("関数には docstring を書いてください。"),
            Some(Feedback)
        );
        assert_eq!(
            topic("テストは pytest で書いてね、unittest は使わない方針なので。"),
            Some(Feedback)
        );
        assert_eq!(topic("返答はなるべく短めでいいよ。"), Some(Feedback));
        assert_eq!(topic("絵文字は使わないでほしいです。"), Some(Feedback));
        assert_eq!(topic("リリースは毎月第一火曜日。"), Some(Project));
        assert_eq!(
            topic("あと、うちの main ブランチへの直 push は禁止です。"),
            Some(Project)
        );
        assert_eq!(
            topic("k8s のマニフェストは deploy/k8s/ 配下に置いてます。"),
            Some(Reference)
        );
        assert_eq!(
            topic("私、TypeScript の型まわりが苦手なんですよね。"),
            Some(User)
        );
        for text in [
            "変数名を user_id に変えてください。",
            "README にインストール手順を追記してください。",
            "パスワードは hunter2hunter2 です、DB に繋いで確認してみて。",
            "今デプロイ中なので少し待ってください。",
        ] {
            assert_eq!(topic(text), None, "{text}");
        }
    }

    /// Terse lines in fresh voices — a Japanese topic answered by a bare noun, a
    /// Chinese pointer to a named store or a host without a scheme, a tool named last,
    /// written Cantonese — and the noise shapes next to each.
    #[test]
    fn terse_lines_in_fresh_voices_and_their_noise() {
        assert_eq!(topic("課題管理はBacklog"), Some(Reference));
        assert_eq!(topic("インデントはタブで統一"), Some(Project));
        assert_eq!(topic("ゲームエンジンはUnity 2022 LTS"), Some(Project));
        assert_eq!(topic("コメントは日本語で書いて"), Some(Feedback));
        assert_eq!(topic("Pythonはあまり詳しくない"), Some(User));
        assert_eq!(topic("マージ前に必ずレビュー2人"), Some(Project));
        assert_eq!(topic("仕様の質問はSlackの#dev-specで"), Some(Reference));
        assert_eq!(topic("原型都在墨刀上"), Some(Reference));
        assert_eq!(topic("错误码规范在confluence上"), Some(Reference));
        assert_eq!(topic("监控看板 grafana.internal/d/order"), Some(Reference));
        assert_eq!(topic("storybook 地址 storybook.corp.io"), Some(Reference));
        assert_eq!(topic("配置中心用的apollo"), Some(Project));
        assert_eq!(topic("GPU quota 每人 4 张"), Some(Project));
        assert_eq!(topic("我係 junior，解释多啲 context 会好啲"), Some(User));
        assert_eq!(topic("crash 都上报到 Sentry"), Some(Reference));
        assert_eq!(topic("堡垒机地址问运维要"), Some(Reference));
        assert_eq!(topic("我 timezone 是 UTC+8"), Some(User));
        assert_eq!(topic("Python 版本锁 3.10"), Some(Project));
        assert_eq!(topic("監視はZabbixでやってる"), Some(Project));
        assert_eq!(
            topic("手順書はGoogleドライブの運用フォルダ"),
            Some(Reference)
        );
        assert_eq!(topic("PHPは8.1固定"), Some(Project));
        assert_eq!(topic("CSSはBEMで書いてや"), Some(Feedback));
        assert_eq!(
            topic("帮我看看这个报错哈 另外提醒你一下 我们的python是3.8 别用3.10的语法"),
            Some(Project)
        );
        assert_eq!(topic("大家好 我是新来的运维 主要管k8s集群"), Some(User));
        assert_eq!(topic("当方、iOSエンジニアでSwift歴5年です。"), Some(User));
        for text in [
            "次はログイン画面",
            "原因はキャッシュ",
            "レスポンスは500",
            "ビルド時間は4分",
            "毎回タイムアウト",
            "ブランチ名はfix/login-bug",
            "このAPIは詳しくない",
            "ログを見て",
            "bug 在 handler 里",
            "问题在缓存上",
            "数据还在 redis 里",
            "Redis client 一直在 reconnect。",
            "访问 grafana.internal 报 502",
            "把 config.yaml 改一下",
            "日志级别先调成debug",
            "超时先改成30s",
            "我在开会 晚点看",
            "试一下用axios",
            "我而家喺屋企 等阵再睇",
            "我 code 是刚 pull 的",
            "日志先打到stdout",
            "文件找不到 问了也没人知道",
            "这个权限得找老王要",
            "ログは全部見た",
            "CPU 使用率がずっと 100% に張り付いてる。",
            "画面はまだ固まってる",
            "帮我看看这个报错 另外这个函数也改一下",
            "这个先不管 另外刚才那个接口也500了",
            "这里有点慢 另外内存也涨了不少",
        ] {
            assert_eq!(topic(text), None, "{text}");
        }
    }
}

/// English round 9: broad shapes from fresh voices and their noise counterparts.
mod en_round9 {
    use super::super::*;
    use MemoryType::{Feedback, Project, Reference, User};

    fn topic(text: &str) -> Option<MemoryType> {
        plan_rules_only(&[UserText { offset: 0, text }])
            .first()
            .map(|p| p.topic)
    }

    #[test]
    fn a_labelled_line_names_a_standing_aspect_unless_its_label_is_of_the_moment() {
        assert_eq!(
            topic("Stack: Flutter for the app, Firebase for auth and push, a small FastAPI service for everything else."),
            Some(Project)
        );
        assert_eq!(
            topic("Branching: trunk-based, short-lived feature branches, no develop branch."),
            Some(Project)
        );
        assert_eq!(
            topic("Contact for infra questions: Priya in #platform."),
            Some(Reference)
        );
        for text in [
            "Status: blocked on the API keys from the vendor.",
            "Deploy: rolled back at 14:02.",
            "Commit message: fix typo in README and bump version.",
            "Environment: staging, Chrome 120 on macOS Sonoma.",
            "Priority: the CSV export first, then the filters.",
            "Idea: we could cache the results in Redis.",
        ] {
            assert_eq!(topic(text), None, "{text}");
        }
    }

    #[test]
    fn a_bare_name_with_a_verb_and_a_schedule_is_a_fact_of_the_project() {
        assert_eq!(
            topic("Staging resets every Sunday night, don't keep test data there you care about."),
            Some(Project)
        );
        // A noun compound before "please" is an instruction, not a subject and its verb.
        assert_eq!(
            topic("Type hints on all public functions please, mypy runs in strict mode."),
            Some(Feedback)
        );
    }

    #[test]
    fn every_thing_named_by_what_it_does_takes_a_rule() {
        assert_eq!(
            topic("Anything that touches money uses Decimal, never float."),
            Some(Project)
        );
        assert_eq!(
            topic("Stripe is our only payment provider and it'll stay that way."),
            Some(Project)
        );
    }

    #[test]
    fn what_the_user_knows_is_about_the_user() {
        assert_eq!(
            topic("I just finished a bootcamp so I know React and Express but not much about databases."),
            Some(User)
        );
        assert_eq!(topic("I'm non-technical-ish, I did two years of PHP a decade ago, so spell out anything about infra."), Some(User));
        for text in [
            "I know this is weird but can we skip the tests",
            "I know. Just do it.",
        ] {
            assert_eq!(topic(text), None, "{text}");
        }
    }
}

/// English round 9, second part: the team's standing methods and decisions, polite openers.
mod en_round9_team {
    use super::super::*;
    use MemoryType::{Feedback, Project};

    fn topic(text: &str) -> Option<MemoryType> {
        plan_rules_only(&[UserText { offset: 0, text }])
            .first()
            .map(|p| p.topic)
    }

    #[test]
    fn a_method_the_team_follows_and_a_decision_that_stands_are_project_facts() {
        assert_eq!(
            topic("We are following the hexagonal architecture in all Spring services."),
            Some(Project)
        );
        assert_eq!(
            topic("The team agreed to keep PRs under 400 lines."),
            Some(Project)
        );
        assert_eq!(
            topic("We decided that every public endpoint gets rate limiting."),
            Some(Project)
        );
        for text in [
            "We're following up with the vendor about the invoice API.",
            "We're following the thread in Slack, nothing to do yet.",
            "We decided to go with option B for the pricing page.",
            "The team agreed to postpone the migration until after the launch.",
        ] {
            assert_eq!(topic(text), None, "{text}");
        }
    }

    #[test]
    fn where_something_lives_in_any_named_store_is_a_pointer() {
        assert_eq!(
            topic("Mate, prod config lives in SSM Parameter Store, not in env files."),
            Some(MemoryType::Reference)
        );
        assert_eq!(
            topic("The config lives in the old format until the migration lands."),
            None
        );
    }

    #[test]
    fn kindly_opens_a_request_like_please() {
        assert_eq!(
            topic("Kindly always add the Jira ID in the commit subject, our release script parses it."),
            Some(Feedback)
        );
        assert_eq!(
            topic("Kindly check the logs and tell me what you see."),
            None
        );
    }
}

mod cantonese {
    use super::super::cjk::cantonese_to_mandarin;

    /// Written Cantonese is read in Mandarin function words; Mandarin that merely shares a
    /// character with Cantonese (關係, 就得 as "must") keeps its meaning.
    #[test]
    fn only_text_with_a_cantonese_marker_is_rewritten() {
        assert_eq!(
            cantonese_to_mandarin("我哋 team 用 Jira"),
            "我们 team 用 Jira"
        );
        assert_eq!(
            cantonese_to_mandarin("runbook 都喺 Notion，我係 junior"),
            "runbook 都在 Notion，我是 junior"
        );
        for mandarin in [
            "上线前就得过 code review",
            "這兩個模組的關係要寫在文件裡",
            "呢，这个配置别动",
        ] {
            assert_eq!(cantonese_to_mandarin(mandarin), mandarin);
        }
    }
}

/// The rules together with the learned scorer.
mod with_scorer {
    use super::super::learned::{features, train, Model};
    use super::super::*;
    use MemoryType::{Feedback, Project};

    /// A small model that has learned made-up words: "frobnicates" is durable and a project
    /// fact, "wibble" and "gronk" are noise; and, against the convention, that deploying only
    /// from release branches is feedback.
    fn toy_weights() -> Vec<u8> {
        let ex = |t: String, topic| train::Example {
            features: features::features(&t),
            topic,
        };
        let mut data = Vec::new();
        for i in 0..30 {
            data.push(ex(format!("zorblat {i} frobnicates the widgets"), Some(2)));
            data.push(ex(format!("wibble {i} the widgets"), None));
            data.push(ex(
                format!("we deploy only from release branches {i}"),
                Some(1),
            ));
            data.push(ex(format!("we always use gronk {i}"), None));
        }
        train::encode(&train::train(&data))
    }

    fn plan(model: &Model, text: &str) -> Vec<(MemoryType, String)> {
        plan_with(&[UserText { offset: 0, text }], model)
            .into_iter()
            .map(|p| (p.topic, p.summary))
            .collect()
    }

    #[test]
    fn a_message_the_rules_miss_is_kept_when_the_scorer_is_sure() {
        let bytes = toy_weights();
        let text = "ok. zorblat frobnicates the widgets every night.";
        assert_eq!(plan(&Model::rules_only(), text), vec![]);
        let sure = Model::from_bytes(&bytes, 0.8).unwrap();
        // The sentence that looks durable on its own is the memory, not the filler before it.
        assert_eq!(
            plan(&sure, text),
            vec![(
                Project,
                "zorblat frobnicates the widgets every night.".into()
            )]
        );
        // Not sure enough: nothing.
        assert_eq!(plan(&Model::from_bytes(&bytes, 1.0).unwrap(), text), vec![]);
        // Noise it has learned, and questions however durable they look, are never kept.
        assert_eq!(plan(&sure, "wibble the widgets again please"), vec![]);
        assert_eq!(
            plan(&sure, "zorblat frobnicates the widgets, right?"),
            vec![]
        );
        // The scorer reads words, not credentials: a sentence with an opaque token is left to
        // the rules and the secret scan, whatever the scorer thinks of its words.
        for token in [
            "x7Kq2mW9pLr4Tz8Bn3Vc",
            "4f9c2e7a1b3d5f6e8a0c",
            "AB12cd34EF56",
        ] {
            let text = format!("zorblat frobnicates the widgets with {token}");
            assert_eq!(plan(&sure, &text), vec![], "{text}");
        }
        assert_eq!(
            plan(
                &sure,
                "zorblat frobnicates the widgets on k8s-node-pool-v2 since 2024"
            )
            .len(),
            1
        );
    }

    #[test]
    fn the_scorer_changes_a_rule_type_only_when_sure() {
        let bytes = toy_weights();
        // The rules call "we …" a project fact; the toy model says feedback.
        let text = "We deploy only from release branches.";
        assert_eq!(plan(&Model::rules_only(), text)[0].0, Project);
        let mut m = Model::from_bytes(&bytes, 0.8).unwrap();
        assert_eq!(
            plan(&m, text)[0].0,
            Project,
            "type changes are off by default"
        );
        m.type_threshold = 0.5;
        assert_eq!(plan(&m, text)[0].0, Feedback);
        m.type_threshold = 1.0;
        assert_eq!(plan(&m, text)[0].0, Project);
    }

    #[test]
    fn what_the_rules_keep_is_dropped_when_the_scorer_is_sure_it_is_noise() {
        let bytes = toy_weights();
        let text = "We always use gronk.";
        assert_eq!(plan(&Model::rules_only(), text).len(), 1);
        let mut m = Model::from_bytes(&bytes, 0.8).unwrap();
        assert_eq!(plan(&m, text).len(), 1, "no veto by default");
        m.veto_threshold = 0.2;
        assert_eq!(plan(&m, text), vec![]);
        // A message longer than the scorer reads is not judged as a whole by its start.
        let long = format!(
            "{}\n\nWe always use gronk.",
            "wibble the widgets. ".repeat(200)
        );
        assert_eq!(plan(&m, &long).len(), 1);
        // A fact it believes in stays.
        assert_eq!(plan(&m, "We deploy only from release branches.").len(), 1);
    }

    #[test]
    fn one_off_requests_questions_and_thanks_yield_nothing_with_the_built_in_scorer() {
        let more = [
            "can you rename this variable to userCount",
            "the build is green now, thanks",
            "why does this test hang on CI?",
        ];
        for text in super::ONE_OFF_NOISE.into_iter().chain(more) {
            assert_eq!(
                plan_heuristic(&[UserText { offset: 0, text }]),
                vec![],
                "{text}"
            );
        }
    }
}

mod introductions {
    use super::super::*;

    /// A sentence ending in a colon introduces what follows and is never saved as it stands; the
    /// same sentence closed by a full stop is (so the colon is what decides), and the sentences
    /// after it are judged on their own.
    #[test]
    fn a_sentence_that_introduces_what_follows_is_not_a_memory() {
        let plan = |text: &str| -> Vec<String> {
            plan_heuristic(&[UserText { offset: 0, text }])
                .into_iter()
                .map(|p| p.summary)
                .collect()
        };
        for (closed, open) in [
            (
                "We always run the integration tests before merging.",
                "We always run the integration tests before merging:",
            ),
            (
                "以后所有接口都必须返回统一的错误码格式。",
                "以后所有接口都必须返回统一的错误码格式：",
            ),
        ] {
            assert!(!plan(closed).is_empty(), "{closed:?} should be kept");
            assert!(plan(open).is_empty(), "{open:?} kept {:?}", plan(open));
        }
        let kept =
            plan("Never push directly to main. The release checklist covers:\n- tags\n- notes");
        assert!(
            kept.iter().any(|s| s.contains("push directly to main")),
            "{kept:?}"
        );
        assert!(kept.iter().all(|s| !s.ends_with(':')), "{kept:?}");
    }

    #[test]
    fn a_quote_cut_by_the_sentence_split_leaves_no_stray_mark() {
        for (given, want) in [
            ("\"Scope locked to app/src/.", "Scope locked to app/src/."),
            (
                "No files outside it are modified.\"",
                "No files outside it are modified.",
            ),
            ("「ログは英語で書く。", "ログは英語で書く。"),
            ("日志一律用英文。”", "日志一律用英文。"),
            // Balanced, inner or unpaired-in-the-middle marks stay as written.
            ("\"We always use pnpm.\"", "\"We always use pnpm.\""),
            (
                "We call it \"the monorepo\" in docs.",
                "We call it \"the monorepo\" in docs.",
            ),
            (
                "The kiosk has a 15\" screen.",
                "The kiosk has a 15\" screen.",
            ),
            ("「設定」は日本語で書く。", "「設定」は日本語で書く。"),
        ] {
            assert_eq!(balance_quotes(given), want, "{given:?}");
        }
        let kept: Vec<String> = plan_heuristic(&[UserText {
            offset: 0,
            text: "From now on: \"Never push directly to main. Always open a pull request.\"",
        }])
        .into_iter()
        .map(|p| p.summary)
        .collect();
        assert!(!kept.is_empty());
        for s in &kept {
            assert_eq!(s.matches('"').count() % 2, 0, "{kept:?}");
        }
    }
}
