//! No garbled endings: every summary the heuristic saves ends on a whole word of what the user
//! wrote, or, where a clause splitter closes a clause cut mid-sentence (Korean "-고", "-는데"),
//! on a well-formed ending of its language. Checked over generated sentences in every language
//! (a one-off request, a durable statement, a reason, a second clause, in varying combinations),
//! plus the known cases ("작고" must never become "작요", "만들고" never "만들요").

use proptest::prelude::*;

use super::plan_heuristic;
use crate::UserText;

/// Punctuation a summary may close on (not part of its last word).
fn closing(c: char) -> bool {
    matches!(
        c,
        '.' | '!'
            | '?'
            | ';'
            | ','
            | ':'
            | '。'
            | '！'
            | '？'
            | '；'
            | '，'
            | '、'
            | '：'
            | '｡'
            | '．'
            | ' '
    )
}

/// A character that continues a word: a letter or digit of any script (CJK text has no spaces,
/// so for it a word is the run up to punctuation, a space or a reason marker).
fn word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '\''
}

fn is_hangul_syllable(c: char) -> bool {
    ('\u{AC00}'..='\u{D7A3}').contains(&c)
}

/// The final consonant (jongseong) index of a Hangul syllable: 0 none, 4 ㄴ, 8 ㄹ, 1 ㄱ, ….
fn final_consonant(c: char) -> u32 {
    (c as u32 - 0xAC00) % 28
}

/// Markers a fact is cut before when its reason follows in the same sentence (the text after
/// the fact starts with one of them, so the fact ends on a whole word even without punctuation).
const REASON_MARKERS: &[&str] = &[
    "因为",
    "因為",
    "由于",
    "由於",
    "所以",
    "ので",
    "から",
    "때문에",
    "니까",
    "because",
];

/// Endings the Korean clause splitter writes when it closes a clause cut at "-고" or "-는데"
/// (`ko::as_statement`), each with the endings of the source word it may replace.
const KO_CLOSINGS: &[(&str, &[&str])] = &[
    ("어요", &["고"]),
    ("해요", &["하고", "하는데"]),
    ("이에요", &["이고", "인데"]),
    ("있어요", &["있는데"]),
    ("없어요", &["없는데"]),
    ("다", &["고"]),
];

/// Why `summary` (saved from `source`) does not end well, if it does not.
fn bad_ending(summary: &str, source: &str) -> Option<String> {
    let core = summary.trim_end_matches(closing);
    let Some(last) = core.chars().last() else {
        return Some("empty summary".into());
    };
    // Korean: the polite "요" follows an open syllable ("해요", "써요", "이에요") or "ㄴ"
    // ("그렇군요", "거든요"); glued to any other final consonant it garbles the word ("작요",
    // "만들요", "먹요").
    let mut rev = core.chars().rev();
    if rev.next() == Some('요') {
        if let Some(before) = rev.next().filter(|&c| is_hangul_syllable(c)) {
            let fc = final_consonant(before);
            if fc != 0 && fc != 4 {
                return Some(format!("\"요\" glued to a closed syllable {before:?}"));
            }
        }
    }
    let ends_at_boundary = |tail: &str| {
        source.match_indices(tail).any(|(i, _)| {
            let after = &source[i + tail.len()..];
            after.chars().next().is_none_or(|c| !word_char(c))
                || REASON_MARKERS.iter().any(|m| after.starts_with(m))
        })
    };
    if word_char(last) && !is_hangul_syllable(last) && !last.is_ascii() {
        // Chinese or Japanese: the last two characters end a run of the source.
        let tail: String = {
            let mut t: Vec<char> = core.chars().rev().take(2).collect();
            t.reverse();
            t.into_iter().collect()
        };
        return (!ends_at_boundary(&tail)).then(|| format!("{tail:?} ends inside a word"));
    }
    let word = core.rsplit(' ').next().unwrap_or(core);
    let word = word.trim_start_matches(|c: char| !word_char(c));
    if word.is_empty() || ends_at_boundary(word) {
        return None;
    }
    // A Korean clause closed by the splitter: the source has the same stem with the ending it
    // replaced.
    for (closed, from) in KO_CLOSINGS {
        if let Some(stem) = word.strip_suffix(closed) {
            if from.iter().any(|f| ends_at_boundary(&format!("{stem}{f}"))) {
                return None;
            }
        }
    }
    Some(format!("{word:?} is not a whole word of the source"))
}

/// The summaries `text` yields and whether each ends well.
fn check(text: &str) -> Vec<(String, Option<String>)> {
    plan_heuristic(&[UserText { offset: 0, text }])
        .into_iter()
        .map(|p| {
            let why = bad_ending(&p.summary, text);
            (p.summary, why)
        })
        .collect()
}

#[test]
fn the_checker_catches_garbled_endings() {
    // The known Korean garbles, and words cut short in every language.
    assert!(bad_ending("파일은 작요", "파일은 작고 빨라요").is_some());
    assert!(bad_ending("테스트를 먼저 만들요", "테스트를 먼저 만들고 커밋해요").is_some());
    assert!(bad_ending(
        "We deploy only from rel",
        "We deploy only from release branches."
    )
    .is_some());
    assert!(bad_ending(
        "我们的 ESLint config 是 airb",
        "我们的 ESLint config 是 airbnb base"
    )
    .is_some());
    assert!(bad_ending("所有 PR 都要两个人 rev", "所有 PR 都要两个人 review。").is_some());
    assert!(bad_ending("部署只能从 release 分", "部署只能从 release 分支走。").is_some());
    assert!(bad_ending("テストは pytest で書", "テストは pytest で書いてね").is_some());
    // And accepts what the splitters write.
    assert_eq!(bad_ending("파일은 작다", "파일은 작고 빨라요"), None);
    assert_eq!(
        bad_ending(
            "라벨링은 Label Studio로 해요",
            "라벨링은 Label Studio로 하고 리뷰는 둘이 해요"
        ),
        None
    );
    assert_eq!(
        bad_ending("보드는 STM32이에요", "보드는 STM32이고 전원은 5V예요"),
        None
    );
    assert_eq!(bad_ending("그렇군요", "그렇군요"), None);
    assert_eq!(
        bad_ending(
            "所有的 SQL 都要用参数化查询。",
            "所有的 SQL 都要用参数化查询，因为之前出过注入问题。"
        ),
        None
    );
    assert_eq!(
        bad_ending(
            "We deploy only from release branches.",
            "We deploy only from release branches, because hotfixes are cherry-picked there."
        ),
        None
    );
}

/// The known case: a Korean clause cut at "-고" is closed without gluing "요" to the stem, for
/// stems with and without a final consonant, whatever follows.
#[test]
fn korean_clauses_cut_at_go_are_never_garbled() {
    for stem in [
        "작",
        "만들",
        "먹",
        "길",
        "좋",
        "쓰",
        "크",
        "빠르",
        "리뷰하",
        "PostgreSQL이",
    ] {
        for (first, second) in [
            ("우리 팀 PR은 항상", "리뷰는 두 명이 해요."),
            ("앞으로 커밋은", "메시지는 영어로 써 주세요."),
            (
                "이번엔 그냥 npm 써 주고, 우리 프로젝트 테스트 파일은 항상",
                "CI는 GitHub Actions를 써요.",
            ),
        ] {
            let text = format!("{first} {stem}고 {second}");
            for (summary, why) in check(&text) {
                assert!(
                    why.is_none(),
                    "{text:?} -> {summary:?}: {}",
                    why.unwrap_or_default()
                );
            }
        }
    }
}

fn sentence(parts: &[&[&str]]) -> impl Strategy<Value = String> {
    let parts: Vec<Vec<String>> = parts
        .iter()
        .map(|p| p.iter().map(|s| s.to_string()).collect())
        .collect();
    parts
        .into_iter()
        .map(proptest::sample::select)
        .collect::<Vec<_>>()
        .prop_map(|v| v.concat())
}

fn english() -> impl Strategy<Value = String> {
    sentence(&[
        &[
            "",
            "Please fix the failing test, and ",
            "Can you run the build? ",
            "Thanks! Also, ",
        ],
        &[
            "we always deploy from release branches",
            "never push directly to main",
            "I prefer terse answers without a closing summary",
            "our CI runs on GitHub Actions",
            "from now on, write commit messages in English",
            "the staging database is reset every Sunday night",
        ],
        &[
            "",
            ", because hotfixes are cherry-picked there",
            " since the reviewers read English",
        ],
        &[".", "", "!", "; the runbook is at docs/runbook.md."],
    ])
}

fn chinese() -> impl Strategy<Value = String> {
    sentence(&[
        &[
            "",
            "帮我 fix 一下这个 lint error，",
            "先把这个测试跑一下，",
            "谢谢！另外，",
        ],
        &[
            "我们的 ESLint config 是 airbnb base",
            "以后提交信息都用英文写",
            "我们团队规定所有 PR 都要两个人 review",
            "部署只能从 release 分支走",
            "記住，我們的 CI 用 GitHub Actions",
            "测试数据库每周日晚上重置",
        ],
        &["", "，因为之前出过问题", "因为审计要求"],
        &["。", "", "！", "，另外我们用 pnpm。"],
    ])
}

fn japanese() -> impl Strategy<Value = String> {
    sentence(&[
        &[
            "",
            "この関数を直して、",
            "とりあえずテストを回して、",
            "ありがとう！あと、",
        ],
        &[
            "テストは pytest で書いてね",
            "コミットメッセージは英語で書く方針です",
            "うちのチームは常に pnpm を使います",
            "本番には main からのみデプロイします",
            "覚えておいて：レビューは二人必要です",
        ],
        &["", "、unittest は使わない方針なので", "。監査のためです"],
        &["。", "", "！"],
    ])
}

fn korean() -> impl Strategy<Value = String> {
    prop_oneof![korean_statements(), korean_joined()]
}

/// Two statements joined at a verb ending ("…작고 …", "…Rust로 하고 …", "…3년차인데 …"): the
/// first is a clause the splitter closes when it is the one kept.
fn korean_joined() -> impl Strategy<Value = String> {
    sentence(&[
        &["", "이번엔 그냥 npm 써 주고, ", "일단 빌드 좀 돌려 주고, "],
        &[
            "우리 팀 PR은 항상 ",
            "앞으로 커밋은 ",
            "우리 프로젝트 테스트 파일은 항상 ",
            "저는 ",
            "배포 스크립트는 ",
        ],
        &[
            "작고",
            "만들고",
            "먹고",
            "길고",
            "좋고",
            "쓰고",
            "크고",
            "빠르고",
            "리뷰하고",
            "Rust로 하고",
            "PostgreSQL이고",
            "백엔드 3년차인데",
            "Go로 작성하는데",
        ],
        &[
            " 리뷰는 두 명이 해요",
            " CI는 GitHub Actions를 써요",
            " 메시지는 영어로 써 주세요",
        ],
        &[".", "", "!"],
    ])
}

fn korean_statements() -> impl Strategy<Value = String> {
    sentence(&[
        &[
            "",
            "이거 고쳐 주고, ",
            "일단 빌드 좀 돌려 주고, ",
            "고마워요! 그리고 ",
        ],
        &[
            "우리 팀은 항상 pnpm을 써요",
            "커밋 메시지는 영어로 써 주세요",
            "앞으로 main에 직접 푸시하지 마세요",
            "테스트 파일은 작고 ",
            "배포 스크립트는 Rust로 하고 ",
            "우리 보드는 STM32이고 ",
            "저는 백엔드 3년차인데 ",
            "기억해: 리뷰는 두 명이 해요",
        ],
        &[
            "",
            "리뷰는 두 명이 해요",
            "CI는 GitHub Actions를 써요",
            ", 보안 감사 때문에 SQL은 바인딩을 써요",
        ],
        &[".", "", "!", "요."],
    ])
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn every_saved_summary_ends_on_a_whole_word(
        text in prop_oneof![english(), chinese(), japanese(), korean()]
    ) {
        for (summary, why) in check(&text) {
            prop_assert!(why.is_none(), "{:?} -> {:?}: {}", text, summary, why.unwrap_or_default());
        }
    }
}

/// The generators reach the splitters: each language's sentences yield memories, and some
/// Korean summaries are clauses the splitter closed (so the property is not vacuous).
#[test]
fn the_generated_sentences_yield_memories_in_every_language() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let langs: [(&str, BoxedStrategy<String>); 4] = [
        ("en", english().boxed()),
        ("zh", chinese().boxed()),
        ("ja", japanese().boxed()),
        ("ko", korean().boxed()),
    ];
    let mut closed = 0;
    for (lang, strategy) in langs {
        let mut kept = 0;
        for _ in 0..64 {
            let text = strategy.new_tree(&mut runner).unwrap().current();
            for (summary, _) in check(&text) {
                kept += 1;
                let last = summary
                    .trim_end_matches(closing)
                    .rsplit(' ')
                    .next()
                    .unwrap_or("")
                    .to_string();
                if lang == "ko" && !text.contains(&last) {
                    closed += 1;
                }
            }
        }
        assert!(kept >= 16, "{lang}: only {kept} memories from 64 sentences");
    }
    assert!(
        closed > 0,
        "no Korean summary was a clause the splitter closed"
    );
}
