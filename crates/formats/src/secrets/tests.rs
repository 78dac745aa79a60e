use super::*;
use proptest::prelude::*;

#[path = "../../../../tests/common/secret_corpus.rs"]
mod corpus;

use corpus::{j, Gen, ALNUM};

fn alnum(n: usize) -> String {
    Gen::new(7).of(ALNUM, n)
}

fn pem(label: &str, body: &str) -> String {
    format!("-----BEGIN {label}-----\n{body}\n-----END {label}-----")
}

fn ids(text: &str) -> Vec<&'static str> {
    scan(text).into_iter().map(|f| f.rule_id).collect()
}

fn ghp() -> String {
    j(&["gh", "p_", &alnum(36)])
}

#[test]
fn upstream_rules_come_first_in_upstream_order() {
    let first: Vec<&str> = rule_ids().take(19).collect();
    assert_eq!(
        first,
        [
            "aws-access-token",
            "alibaba-cloud-access-key",
            "gcp-api-key",
            "digitalocean-pat",
            "anthropic-api-key",
            "openai-api-key",
            "huggingface-access-token",
            "github-pat",
            "github-fine-grained-pat",
            "github-app-token",
            "github-oauth",
            "gitlab-pat",
            "slack-bot-token",
            "slack-app-token",
            "npm-access-token",
            "stripe-access-token",
            "private-key",
            "gcp-oauth-client-secret",
            "sendgrid-api-token",
        ]
    );
    let mut all: Vec<&str> = rule_ids().collect();
    let n = all.len();
    all.sort_unstable();
    all.dedup();
    assert_eq!(all.len(), n, "rule ids are unique");
}

#[test]
fn corpus_is_big_and_varied_enough() {
    let secrets = corpus::secrets();
    assert!(secrets.len() >= 60, "{} secrets", secrets.len());
    let mut kinds: Vec<&str> = secrets.iter().map(|s| s.rule).collect();
    kinds.sort_unstable();
    kinds.dedup();
    assert!(kinds.len() >= 20, "{} kinds", kinds.len());
    assert!(corpus::benign().len() >= 30);
    // Every rule is exercised by the corpus.
    for id in rule_ids() {
        assert!(kinds.contains(&id), "no corpus sample for {id}");
    }
}

#[test]
fn every_corpus_secret_fires_its_rule() {
    let mut missed = Vec::new();
    for s in corpus::secrets() {
        let found = ids(&s.text);
        if !found.contains(&s.rule) {
            missed.push(format!(
                "{}: found {found:?} in sample #{}",
                s.rule,
                s.text.len()
            ));
        }
        assert!(contains_secret(&s.text), "{}", s.rule);
        assert!(contains_secret_as(&s.text, Origin::Person), "{}", s.rule);
    }
    assert!(missed.is_empty(), "missed:\n{}", missed.join("\n"));
}

#[test]
fn every_benign_look_alike_passes() {
    let mut flagged = Vec::new();
    for (label, text) in corpus::benign() {
        let found = ids(&text);
        if !found.is_empty() || contains_secret(&text) {
            flagged.push(format!("{label}: {found:?}"));
        }
    }
    assert!(
        flagged.is_empty(),
        "false positives:\n{}",
        flagged.join("\n")
    );
}

#[test]
fn hidden_tokens_are_caught_after_normalization() {
    for s in corpus::obfuscated() {
        assert!(
            ids(&s.text).contains(&s.rule),
            "{} hidden form not caught: {:?}",
            s.rule,
            ids(&s.text)
        );
        let folded = fold_all(&normalize(&s.text)).into_owned();
        assert!(folded.contains(&s.value), "{}: {folded:?}", s.rule);
        let out = redact(&s.text);
        assert!(!out.contains(&s.value) && !contains_secret(&out), "{out}");
    }
}

#[test]
fn prefilter_is_a_necessary_condition() {
    let mut texts: Vec<String> = corpus::secrets().into_iter().map(|s| s.text).collect();
    texts.extend(corpus::benign().into_iter().map(|(_, t)| t));
    let holds = |pre: &Prefilter, s: &str| {
        pre.literals.iter().any(|l| {
            if pre.fold {
                s.to_ascii_lowercase().contains(&l.to_ascii_lowercase())
            } else {
                s.contains(l)
            }
        })
    };
    let mut matched = 0;
    for (index, rule) in RULES.iter().enumerate() {
        assert!(!rule.prefilter.literals.is_empty(), "{}", rule.id);
        for text in &texts {
            let text = normalize(text);
            for m in rule_regex(index).find_iter(&text) {
                matched += 1;
                assert!(holds(&rule.prefilter, m.as_str()), "{}", rule.id);
                // And the automata find that rule in the match alone.
                assert!(candidates(m.as_str()).contains(&index), "{}", rule.id);
            }
        }
    }
    assert!(matched > RULES.len(), "{matched} matches");
}

#[test]
fn the_prefilter_finds_every_rule_whose_literal_is_there_in_any_case_it_allows() {
    for (index, rule) in RULES.iter().enumerate() {
        for l in rule.prefilter.literals {
            let text = format!("x {l} y");
            assert!(candidates(&text).contains(&index), "{}: {l}", rule.id);
            let upper = format!("x {} y", l.to_ascii_uppercase());
            assert_eq!(
                candidates(&upper).contains(&index),
                rule.prefilter.fold || upper == text || l.to_ascii_uppercase() == *l,
                "{}: {upper}",
                rule.id
            );
        }
    }
    assert!(candidates("nothing to see here").is_empty());
}

#[test]
fn upstream_near_misses_do_not_fire() {
    for text in [
        "key xAKIAIOSFODNN7EXAMPL here".to_string(),
        j(&["LT", "AI", &alnum(21)]),
        j(&["AI", "za", &alnum(34)]),
        j(&["dop_v1_", &"A".repeat(64)]),
        j(&["sk-ant-", &alnum(19)]),
        j(&["sk-proj-", &alnum(19)]),
        j(&["sk-", &alnum(47)]),
        j(&["hf_", &alnum(33)]),
        j(&["gh", "p_", &alnum(35)]),
        j(&["github_pat_", &alnum(81)]),
        j(&["gh", "s_", &alnum(35)]),
        j(&["gl", "pat-", &alnum(19)]),
        "xoxb-123456789-1234567890-abcDEF".to_string(),
        "xapp-12-A0123BCD-1234567890-abc123def".to_string(),
        j(&["np", "m_", &alnum(35)]),
        j(&["sk", "_live_", &alnum(9)]),
        pem("RSA PUBLIC KEY", &alnum(64)),
        j(&["GOC", "SPX-", &alnum(27)]),
        j(&["S", "G.", &alnum(21), ".", &alnum(43)]),
    ] {
        assert!(ids(&text).is_empty(), "fired: {:?}", ids(&text));
    }
}

#[test]
fn private_keys_of_any_length() {
    let key = "PRIVATE KEY";
    // A tiny complete block, a truncated paste, an encrypted header, case-insensitive armour.
    for text in [
        pem(key, "MIIE"),
        format!("-----BEGIN {key}-----\n{}", alnum(16)),
        format!(
            "-----BEGIN RSA {key}-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,AB\n\n{}",
            alnum(20)
        ),
        pem("openssh private key", &alnum(100)),
        pem("PGP PRIVATE KEY BLOCK", &alnum(100)),
    ] {
        assert_eq!(ids(&text), vec!["private-key"], "{text}");
    }
    // Only the armour: prose about keys, not a key.
    assert!(ids(&format!("-----BEGIN {key}----- then base64")).is_empty());
    assert!(ids(&format!("-----BEGIN {key}-----\n-----END {key}-----")).is_empty());
}

#[test]
fn findings_carry_line_numbers_and_dedupe_per_rule_and_line() {
    let tok = ghp();
    let aws = j(&["AK", "IA", "IOSFODNN7EXAMPLE"]);
    let text = format!("first\n{tok} {tok}\nthird {aws}\n{tok}");
    assert_eq!(
        scan(&text),
        vec![
            Finding {
                rule_id: "github-pat",
                line: 2
            },
            Finding {
                rule_id: "aws-access-token",
                line: 3
            },
            Finding {
                rule_id: "github-pat",
                line: 4
            },
        ]
    );
    let text = format!("a\nb\n{}\n", pem("PRIVATE KEY", &alnum(80)));
    assert_eq!(
        scan(&text),
        vec![Finding {
            rule_id: "private-key",
            line: 3
        }]
    );
}

#[test]
fn finding_formatting_never_contains_the_value() {
    for s in corpus::secrets() {
        for f in scan(&s.text) {
            for shown in [format!("{f:?}"), f.to_string()] {
                assert!(!shown.contains(&s.value), "{}: {shown}", s.rule);
            }
        }
        let err = prepare_document("project/x.md", &s.text, Origin::Person, None).unwrap_err();
        assert!(!err.to_string().contains(&s.value), "{}", s.rule);
        assert!(err.rule_ids.iter().any(|r| r == s.rule), "{}", s.rule);
    }
}

#[test]
fn labels_are_readable() {
    assert_eq!(label("github-pat"), Some("GitHub PAT"));
    assert_eq!(label("url-credentials"), Some("Credentials in URL"));
    assert_eq!(label("nope"), None);
    let f = Finding {
        rule_id: "github-pat",
        line: 7,
    };
    assert_eq!(f.to_string(), "line 7: GitHub PAT (github-pat)");
    for id in rule_ids() {
        assert!(label(id).is_some_and(|l| !l.is_empty()), "{id}");
    }
}

#[test]
fn allow_marker_only_for_person_text() {
    let tok = ghp();
    let allowed = format!("example {tok} <!-- qwen-memory:allow -->");
    assert!(scan_as(&allowed, Origin::Person).is_empty());
    assert!(!contains_secret_as(&allowed, Origin::Person));
    assert_eq!(redact_as(&allowed, Origin::Person), allowed);
    // Machine text: the marker means nothing.
    assert_eq!(ids(&allowed), vec!["github-pat"]);
    assert!(contains_secret(&allowed));
    assert!(!redact(&allowed).contains(&tok));

    let mixed = format!("{allowed}\nreal {tok}\n");
    assert_eq!(
        scan_as(&mixed, Origin::Person),
        vec![Finding {
            rule_id: "github-pat",
            line: 2
        }]
    );
    assert_eq!(
        redact_as(&mixed, Origin::Person),
        format!("{allowed}\nreal [REDACTED:github-pat]\n")
    );
    // A PEM block can be allowed from its BEGIN or END line, not from an unrelated line.
    let key = pem("PRIVATE KEY", &alnum(80));
    assert!(scan_as(&format!("{key} qwen-memory:allow"), Origin::Person).is_empty());
    assert!(scan_as(&format!("qwen-memory:allow {key}"), Origin::Person).is_empty());
    assert!(!scan_as(&format!("qwen-memory:allow\n\n{key}"), Origin::Person).is_empty());
}

#[test]
fn prepare_document_scans_path_and_returns_the_scanned_form() {
    let hidden = format!("note: gh\u{200b}p_{}", alnum(36));
    let err = prepare_document("project/a.md", &hidden, Origin::Person, None).unwrap_err();
    assert_eq!(err.rule_ids, vec!["github-pat"]);
    assert!(err.to_string().contains("project/a.md"));
    // A slug can hold a secret on its own.
    let slug = format!("project/{}.md", j(&["gl", "pat-", &alnum(20)]));
    assert_eq!(
        prepare_document(&slug, "fine", Origin::Person, None)
            .unwrap_err()
            .rule_ids,
        vec!["gitlab-pat"]
    );
    // What comes back is the normalized text, invisible characters gone, Chinese punctuation kept.
    let ok = prepare_document(
        "a.md",
        "用ｃａｒｇｏ构建，好的\u{200b}。",
        Origin::Person,
        None,
    )
    .unwrap();
    assert_eq!(ok, "用cargo构建，好的。");
}

#[test]
fn machine_documents_cannot_add_allowed_secrets() {
    let tok = ghp();
    let reviewed = format!("- example {tok} qwen-memory:allow\n");
    // A person's reviewed line survives a rewrite by a machine...
    let rewritten = format!("{reviewed}- new fact from a transcript\n");
    assert!(prepare_document("a.md", &rewritten, Origin::Machine, Some(&reviewed)).is_ok());
    // ...but a machine cannot add a second one, nor a first.
    let smuggled = format!(
        "{reviewed}- more {} qwen-memory:allow\n",
        j(&["gh", "p_", &"Z".repeat(36)])
    );
    assert!(prepare_document("a.md", &smuggled, Origin::Machine, Some(&reviewed)).is_err());
    assert!(prepare_document("a.md", &reviewed, Origin::Machine, None).is_err());
    assert!(prepare_document("a.md", &smuggled, Origin::Person, None).is_ok());
}

#[test]
fn normalization_folds_and_strips_but_keeps_chinese_punctuation() {
    assert_eq!(normalize("plain ascii"), "plain ascii");
    assert!(matches!(normalize("plain ascii"), Cow::Borrowed(_)));
    assert!(matches!(normalize("中文，没问题。"), Cow::Borrowed(_)));
    assert_eq!(normalize("ａｂｃ１２３"), "abc123");
    assert_eq!(
        normalize("a\u{200b}b\u{200c}c\u{200d}d\u{2060}e\u{feff}f"),
        "abcdef"
    );
    assert_eq!(normalize("a\u{202e}b\u{2066}c\u{2069}"), "abc");
    assert_eq!(normalize("x\u{e0041}y\u{fe0f}z\u{ad}"), "xyz");
    assert_eq!(normalize("密码：好，（注）！"), "密码：好，（注）！");
    assert_eq!(normalize("e\u{301}"), "\u{e9}");
    assert_eq!(normalize("①"), "1");
}

#[test]
fn full_width_punctuation_cannot_hide_a_token() {
    let text = format!("ghp＿{}", alnum(36));
    assert_eq!(ids(&text), vec!["github-pat"]);
    let out = redact(&text);
    assert!(!contains_secret(&out), "{out}");
}

#[test]
fn redact_replaces_values_and_keeps_the_rest() {
    let tok = ghp();
    let aws = j(&["AK", "IA", "IOSFODNN7EXAMPLE"]);
    assert_eq!(
        redact(&format!("use {tok}, and {aws}.\nok")),
        "use [REDACTED:github-pat], and [REDACTED:aws-access-token].\nok"
    );
    assert_eq!(
        redact(&format!(
            "before\n{}\nafter",
            pem("RSA PRIVATE KEY", &alnum(80))
        )),
        "before\n[REDACTED:private-key]\nafter"
    );
    // Assignments keep their key.
    let pw = Gen::new(3).password(12);
    assert_eq!(
        redact(&format!("password={pw} ok")),
        "password=[REDACTED:password-assignment] ok"
    );
    // Overlapping rules collapse into one marker; an exposed neighbour is caught on a second pass.
    let both = format!("sk-ant-{}T3BlbkFJ{}", alnum(20), alnum(20));
    assert!(!contains_secret(&redact(&both)));
    let glued = format!("{tok}{aws}");
    assert_eq!(
        redact(&glued),
        "[REDACTED:github-pat][REDACTED:aws-access-token]"
    );
}

#[test]
fn secret_in_non_ascii_context() {
    let aws = j(&["AK", "IA", "IOSFODNN7EXAMPLE"]);
    assert_eq!(ids(&format!("é{aws}")), vec!["aws-access-token"]);
    assert_eq!(ids(&format!("日本語 {} 日本語", ghp())), vec!["github-pat"]);
}

fn secretish() -> impl Strategy<Value = String> {
    let pieces = prop::collection::vec(
        prop_oneof![
            Just("AKIA".to_string()),
            Just("ghp_".to_string()),
            Just("sk-".to_string()),
            Just("sk-ant-".to_string()),
            Just("T3BlbkFJ".to_string()),
            Just("-----BEGIN PRIVATE KEY-----".to_string()),
            Just("-----END PRIVATE KEY-----".to_string()),
            Just(ALLOW_MARKER.to_string()),
            Just("\n".to_string()),
            Just("password=".to_string()),
            Just("密码：".to_string()),
            Just("postgres://u:".to_string()),
            Just("@host".to_string()),
            Just("\u{200b}".to_string()),
            Just("＿".to_string()),
            Just("ｇｈｐ".to_string()),
            Just("IOSFODNN7EXAMPLE".to_string()),
            "[A-Za-z0-9_-]{0,40}",
            "\\PC{0,8}",
        ],
        0..24,
    );
    pieces.prop_map(|p| p.concat())
}

proptest! {
    #[test]
    fn scan_never_panics_on_arbitrary_strings(s in "\\PC*|(?s).*") {
        let found = scan(&s);
        let lines = s.split('\n').count();
        for f in &found {
            prop_assert!(f.line >= 1 && f.line <= lines);
        }
        prop_assert_eq!(contains_secret(&s), !found.is_empty());
        let _ = redact(&s);
    }

    /// The folding by runs of non-ASCII text gives what one pass over the whole text gives,
    /// on text dense in what composes across a run's edge: combining marks after ASCII
    /// letters, invisible characters between them, Hangul jamo, compatibility forms.
    #[test]
    fn folding_by_runs_is_folding_the_whole(parts in prop::collection::vec(prop_oneof![
        "[a-zA-Z0-9 ._-]{0,6}",
        Just("\u{301}".to_string()),
        Just("\u{308}\u{323}".to_string()),
        Just("\u{200b}".to_string()),
        Just("\u{ad}".to_string()),
        Just("\u{1100}\u{1161}\u{11a8}".to_string()),
        Just("\u{1161}".to_string()),
        Just("…—".to_string()),
        Just("ｇｈｐ＿".to_string()),
        Just("ﬁ①".to_string()),
        Just("\u{3000}，".to_string()),
        "\\PC{0,3}",
    ], 0..16)) {
        let s = parts.concat();
        prop_assert_eq!(nfkc_stripped(&s), nfkc_stripped_whole(&s), "{:?}", s);
    }

    #[test]
    fn normalize_is_idempotent(s in "\\PC*|(?s).*") {
        let once = normalize(&s).into_owned();
        prop_assert_eq!(normalize(&once).into_owned(), once);
    }

    /// The rules slice by byte offsets: text dense in Han, kana, Hangul and full-width forms
    /// (which arbitrary Unicode rarely produces) must never split a character.
    #[test]
    fn scan_never_panics_on_cjk_text(s in crate::text::FUZZ_CJK) {
        let found = scan(&s);
        let lines = s.split('\n').count();
        for f in &found {
            prop_assert!(f.line >= 1 && f.line <= lines);
        }
        prop_assert_eq!(contains_secret(&s), !found.is_empty());
        let out = redact(&s);
        prop_assert!(!contains_secret(&out), "left a secret in {:?}", out);
        let once = normalize(&s).into_owned();
        prop_assert_eq!(normalize(&once).into_owned(), once);
    }

    #[test]
    fn redacted_text_contains_no_secret(s in secretish()) {
        for origin in [Origin::Person, Origin::Machine] {
            let found = scan_as(&s, origin);
            prop_assert_eq!(contains_secret_as(&s, origin), !found.is_empty());
            let out = redact_as(&s, origin);
            prop_assert!(!contains_secret_as(&out, origin), "left a secret in {:?}", out);
            if found.is_empty() {
                prop_assert_eq!(out, normalize(&s).into_owned());
            }
        }
    }

    #[test]
    fn prepared_documents_pass_their_own_scan(s in secretish()) {
        if let Ok(written) = prepare_document("a.md", &s, Origin::Machine, None) {
            prop_assert!(!contains_secret(&written));
            prop_assert_eq!(normalize(&written).into_owned(), written);
        }
    }
}

#[test]
fn passwords_stated_in_english_prose_are_caught_and_prose_about_them_is_not() {
    for caught in [
        "the database password is Hunter2-prod-9921",
        "The wifi password is hunter22.",
        "our staging passphrase is correct-horse-battery-staple",
        "the old admin password was Summer2024!",
    ] {
        assert_eq!(
            rule_ids_in([caught], Origin::Machine),
            vec!["password-assignment"],
            "{caught}"
        );
    }
    for benign in [
        "The password is stored in Vault.",
        "The password is at least 12 characters long.",
        "the API key is rotated every 90 days",
        "The token is valid for 24h only",
        "The secret is AWS_SECRET_ACCESS_KEY in the CI settings",
        "The passphrase is required on every login",
        "This is the password-reset flow; it is well-tested",
        "the token is refreshed-daily by the cron job",
    ] {
        assert!(
            rule_ids_in([benign], Origin::Machine).is_empty(),
            "{benign}"
        );
    }
}
