//! The secret scanner (SPEC §11, reference qwen-extract §6).
//!
//! Runs on every memory write, on text about to be sent to a model, on `check`, in the
//! pre-commit hook and on recall output, so the common case (no secret at all) must be cheap in
//! a short-lived process: one pass of a [`RegexSet`] of each rule's distinctive prefix, which
//! compiles in well under a millisecond. A rule's full regex is compiled and run only when its
//! prefix occurs (compiling all of them up front costs several milliseconds).
//!
//! Nothing here ever returns, logs or formats a matched value: a [`Finding`] carries only the
//! rule id and the line number.
//!
//! A line containing [`ALLOW_MARKER`] is a reviewed false positive: matches touching that line
//! are neither reported by [`scan`] nor replaced by [`redact`].

use std::fmt;
use std::sync::OnceLock;

use regex::{Regex, RegexSet};

/// Inline marker that suppresses findings on the line that carries it.
pub const ALLOW_MARKER: &str = "qwen-memory:allow";

/// Upper bound on redaction passes; see [`redact`] for why more than one pass can be needed.
const MAX_REDACT_PASSES: usize = 16;

/// One rule: upstream's id, its human label, a prefilter and the pattern.
///
/// `prefilter` must match wherever `pattern` does (it is a necessary condition, normally the
/// rule's fixed prefix); a test checks this on every sample.
///
/// Patterns spell character classes out in ASCII (`[A-Za-z0-9_]` rather than `\w`, `[0-9]`
/// rather than `\d`) and use ASCII word boundaries, because upstream's rules are JavaScript
/// regexes whose `\w`, `\d` and `\b` are ASCII-only.
struct Rule {
    id: &'static str,
    label: &'static str,
    prefilter: &'static str,
    pattern: &'static str,
}

/// The rules in upstream's order (reference qwen-extract §6).
const RULES: &[Rule] = &[
    Rule {
        id: "aws-access-token",
        label: "AWS Access Token",
        prefilter: r"A3T|AKIA|ASIA|ABIA|ACCA",
        pattern: r"(?-u:\b)(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}(?-u:\b)",
    },
    Rule {
        id: "alibaba-cloud-access-key",
        label: "Alibaba Cloud Access Key",
        prefilter: r"LTAI",
        pattern: r"(?-u:\b)LTAI[A-Za-z0-9]{12,20}(?-u:\b)",
    },
    Rule {
        id: "gcp-api-key",
        label: "GCP API Key",
        prefilter: r"AIza",
        pattern: r"AIza[A-Za-z0-9_-]{35}",
    },
    Rule {
        id: "digitalocean-pat",
        label: "DigitalOcean PAT",
        prefilter: r"dop_v1_",
        pattern: r"dop_v1_[a-f0-9]{64}",
    },
    Rule {
        id: "anthropic-api-key",
        label: "Anthropic API Key",
        prefilter: r"sk-ant-",
        pattern: r"sk-ant-[A-Za-z0-9_-]{20,}",
    },
    Rule {
        id: "openai-api-key",
        label: "OpenAI API Key",
        prefilter: r"sk-",
        pattern: concat!(
            r"sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,}",
            r"|sk-[A-Za-z0-9-]{20,}T3BlbkFJ[A-Za-z0-9-]{20,}",
            r"|sk-[A-Za-z0-9]{48}",
        ),
    },
    Rule {
        id: "huggingface-access-token",
        label: "HuggingFace Access Token",
        prefilter: r"hf_",
        pattern: r"hf_[A-Za-z0-9]{34,}",
    },
    Rule {
        id: "github-pat",
        label: "GitHub PAT",
        prefilter: r"ghp_",
        pattern: r"ghp_[A-Za-z0-9]{36}",
    },
    Rule {
        id: "github-fine-grained-pat",
        label: "GitHub Fine Grained PAT",
        prefilter: r"github_pat_",
        pattern: r"github_pat_[A-Za-z0-9_]{82}",
    },
    Rule {
        id: "github-app-token",
        label: "GitHub App Token",
        prefilter: r"gh[us]_",
        pattern: r"(?:ghu|ghs)_[A-Za-z0-9]{36}",
    },
    Rule {
        id: "github-oauth",
        label: "GitHub OAuth",
        prefilter: r"gho_",
        pattern: r"gho_[A-Za-z0-9]{36}",
    },
    Rule {
        id: "gitlab-pat",
        label: "GitLab PAT",
        prefilter: r"glpat-",
        pattern: r"glpat-[A-Za-z0-9_-]{20}",
    },
    Rule {
        id: "slack-bot-token",
        label: "Slack Bot Token",
        prefilter: r"xoxb-",
        pattern: r"xoxb-[0-9]{10,13}-[0-9]{10,13}[A-Za-z0-9-]*",
    },
    Rule {
        id: "slack-app-token",
        label: "Slack App Token",
        prefilter: r"(?i)xapp-",
        pattern: r"(?i)xapp-[0-9]-[A-Z0-9]+-[0-9]+-[a-z0-9]+",
    },
    Rule {
        id: "npm-access-token",
        label: "NPM Access Token",
        prefilter: r"npm_",
        pattern: r"npm_[A-Za-z0-9]{36}",
    },
    Rule {
        id: "stripe-access-token",
        label: "Stripe Access Token",
        prefilter: r"[sr]k_(?:test|live|prod)_",
        pattern: r"(?:sk|rk)_(?:test|live|prod)_[A-Za-z0-9]{10,99}",
    },
    Rule {
        id: "private-key",
        label: "Private Key",
        prefilter: r"(?i)-----BEGIN",
        pattern: concat!(
            r"(?i)-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----",
            r"(?s:.){64,}?",
            r"-----END[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----",
        ),
    },
];

/// A rule that fired: which rule and on which line. Deliberately has no field for the value,
/// so neither `Debug` nor `Display` can leak it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Finding {
    /// Stable rule id, e.g. `github-pat` (upstream's ids).
    pub rule_id: &'static str,
    /// 1-based line on which the match starts.
    pub line: usize,
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match label(self.rule_id) {
            Some(label) => write!(f, "line {}: {} ({})", self.line, label, self.rule_id),
            None => write!(f, "line {}: {}", self.line, self.rule_id),
        }
    }
}

fn prefilter() -> &'static RegexSet {
    static SET: OnceLock<RegexSet> = OnceLock::new();
    SET.get_or_init(|| {
        // The patterns are constants covered by tests; failing here is a programming error.
        RegexSet::new(RULES.iter().map(|r| r.prefilter)).expect("secret prefilters are valid")
    })
}

fn rule_regex(index: usize) -> &'static Regex {
    static REGEXES: [OnceLock<Regex>; RULES.len()] = [const { OnceLock::new() }; RULES.len()];
    REGEXES[index]
        .get_or_init(|| Regex::new(RULES[index].pattern).expect("secret rule pattern is valid"))
}

/// All rule ids, in the order rules are evaluated.
pub fn rule_ids() -> impl Iterator<Item = &'static str> {
    RULES.iter().map(|r| r.id)
}

/// Human-readable label of a rule id (e.g. `GitHub PAT`), as upstream words it in errors.
pub fn label(rule_id: &str) -> Option<&'static str> {
    RULES.iter().find(|r| r.id == rule_id).map(|r| r.label)
}

/// Byte offsets at which each line starts; line `i` (0-based) starts at `starts[i]`.
struct Lines<'a> {
    text: &'a str,
    starts: Vec<usize>,
}

impl<'a> Lines<'a> {
    fn new(text: &'a str) -> Self {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        Lines { text, starts }
    }

    /// 0-based index of the line holding byte `offset`.
    fn index_of(&self, offset: usize) -> usize {
        self.starts
            .partition_point(|&s| s <= offset)
            .saturating_sub(1)
    }

    fn line(&self, index: usize) -> &'a str {
        let start = self.starts.get(index).copied().unwrap_or(self.text.len());
        let end = self
            .starts
            .get(index + 1)
            .map(|&s| s - 1)
            .unwrap_or(self.text.len());
        self.text.get(start..end).unwrap_or("")
    }

    /// Whether any line touched by `start..end` carries the allow marker. A multi-line match
    /// (a PEM block) can be allowed from its first or last line.
    fn allowed(&self, start: usize, end: usize) -> bool {
        let first = self.index_of(start);
        let last = self.index_of(end.saturating_sub(1).max(start));
        (first..=last).any(|i| self.line(i).contains(ALLOW_MARKER))
    }
}

/// A reportable match: rule index and byte span.
struct Hit {
    rule: usize,
    start: usize,
    end: usize,
}

/// Every non-allowed match of every rule, in rule order then position; with `first_only`,
/// stops at the first one.
fn hits<'a>(text: &'a str, lines: &mut Option<Lines<'a>>, first_only: bool) -> Vec<Hit> {
    let candidates = prefilter().matches(text);
    let mut out = Vec::new();
    if !candidates.matched_any() {
        return out;
    }
    let check_allow = text.contains(ALLOW_MARKER);
    for rule in candidates.iter() {
        for m in rule_regex(rule).find_iter(text) {
            if check_allow
                && lines
                    .get_or_insert_with(|| Lines::new(text))
                    .allowed(m.start(), m.end())
            {
                continue;
            }
            out.push(Hit {
                rule,
                start: m.start(),
                end: m.end(),
            });
            if first_only {
                return out;
            }
        }
    }
    out
}

/// Scans `text` and returns one finding per (rule, line), ordered by line then rule order.
/// Lines carrying [`ALLOW_MARKER`] are skipped.
pub fn scan(text: &str) -> Vec<Finding> {
    let mut lines = None;
    let hits = hits(text, &mut lines, false);
    if hits.is_empty() {
        return Vec::new();
    }
    let lines = lines.unwrap_or_else(|| Lines::new(text));
    let mut keyed: Vec<(usize, usize)> = hits
        .iter()
        .map(|h| (lines.index_of(h.start) + 1, h.rule))
        .collect();
    keyed.sort_unstable();
    keyed.dedup();
    keyed
        .into_iter()
        .map(|(line, rule)| Finding {
            rule_id: RULES[rule].id,
            line,
        })
        .collect()
}

/// Whether `text` holds any secret not covered by an allow marker.
pub fn contains_secret(text: &str) -> bool {
    !hits(text, &mut None, true).is_empty()
}

/// One replacement pass; `None` when nothing needed replacing.
fn redact_once(text: &str) -> Option<String> {
    let mut hits = hits(text, &mut None, false);
    if hits.is_empty() {
        return None;
    }
    // Earliest first; at equal starts the longest span wins so overlaps collapse into it.
    hits.sort_unstable_by(|a, b| a.start.cmp(&b.start).then(b.end.cmp(&a.end)));
    let mut out = String::with_capacity(text.len());
    let mut pos = 0;
    for h in hits {
        if h.start < pos {
            // Overlaps a span already replaced; extend over its tail if it reaches further.
            pos = pos.max(h.end);
            continue;
        }
        out.push_str(&text[pos..h.start]);
        out.push_str("[REDACTED:");
        out.push_str(RULES[h.rule].id);
        out.push(']');
        pos = h.end;
    }
    out.push_str(&text[pos..]);
    Some(out)
}

/// Replaces each matched value with `[REDACTED:<rule_id>]`, leaving allowed lines untouched.
///
/// Removing one secret can expose another: a word-bounded rule (AWS, Alibaba) that was glued to
/// a preceding token becomes bounded once that token is replaced. So passes repeat until nothing
/// matches. Every pass strictly shrinks the non-marker text (markers never match a rule), which
/// bounds the loop; [`MAX_REDACT_PASSES`] is a belt-and-braces cap.
pub fn redact(text: &str) -> String {
    let mut current = match redact_once(text) {
        Some(s) => s,
        None => return text.to_owned(),
    };
    for _ in 1..MAX_REDACT_PASSES {
        match redact_once(&current) {
            Some(next) => current = next,
            None => break,
        }
    }
    current
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn rep(c: char, n: usize) -> String {
        std::iter::repeat_n(c, n).collect()
    }

    /// Alphanumeric filler of length `n` (mixed case and digits).
    fn alnum(n: usize) -> String {
        "aB3dE5gH7jK9mN1pQ2rS4tU6vW8xY0zC"
            .chars()
            .cycle()
            .take(n)
            .collect()
    }

    fn pem(label: &str, body_len: usize) -> String {
        format!(
            "-----BEGIN {label}-----\n{}\n-----END {label}-----",
            alnum(body_len)
        )
    }

    /// For every rule: a canonical positive sample and a near miss that must not fire.
    fn samples() -> Vec<(&'static str, String, String)> {
        vec![
            (
                "aws-access-token",
                "key AKIAIOSFODNN7EXAMPLE here".into(),
                // Glued to a preceding word character: no word boundary.
                "key xAKIAIOSFODNN7EXAMPLE here".into(),
            ),
            (
                "alibaba-cloud-access-key",
                format!("id=LTAI{}", alnum(16)),
                // 21 characters after the prefix: too long for the bounded rule.
                format!("id=LTAI{}", alnum(21)),
            ),
            (
                "gcp-api-key",
                format!("AIza{}", rep('x', 35)),
                format!("AIza{}", rep('x', 34)),
            ),
            (
                "digitalocean-pat",
                format!("dop_v1_{}", rep('a', 64)),
                // Upper-case hex is outside the rule.
                format!("dop_v1_{}", rep('A', 64)),
            ),
            (
                "anthropic-api-key",
                format!("sk-ant-{}", alnum(20)),
                format!("sk-ant-{}", alnum(19)),
            ),
            (
                "openai-api-key",
                format!("sk-proj-{}", alnum(20)),
                format!("sk-proj-{}", alnum(19)),
            ),
            (
                "huggingface-access-token",
                format!("hf_{}", alnum(34)),
                format!("hf_{}", alnum(33)),
            ),
            (
                "github-pat",
                format!("ghp_{}", alnum(36)),
                format!("ghp_{}", alnum(35)),
            ),
            (
                "github-fine-grained-pat",
                format!("github_pat_{}", alnum(82)),
                format!("github_pat_{}", alnum(81)),
            ),
            (
                "github-app-token",
                format!("ghs_{}", alnum(36)),
                format!("ghs_{}", alnum(35)),
            ),
            (
                "github-oauth",
                format!("gho_{}", alnum(36)),
                format!("gho_{}", alnum(35)),
            ),
            (
                "gitlab-pat",
                format!("glpat-{}", alnum(20)),
                format!("glpat-{}", alnum(19)),
            ),
            (
                "slack-bot-token",
                "xoxb-1234567890-1234567890-abcDEF".into(),
                "xoxb-123456789-1234567890-abcDEF".into(),
            ),
            (
                "slack-app-token",
                "XAPP-1-A0123BCD-1234567890-abc123def".into(),
                // Two digits where exactly one is required.
                "xapp-12-A0123BCD-1234567890-abc123def".into(),
            ),
            (
                "npm-access-token",
                format!("npm_{}", alnum(36)),
                format!("npm_{}", alnum(35)),
            ),
            (
                "stripe-access-token",
                format!("sk_live_{}", alnum(10)),
                format!("sk_live_{}", alnum(9)),
            ),
            (
                "private-key",
                pem("RSA PRIVATE KEY", 64),
                // A public key block is not a private key.
                pem("RSA PUBLIC KEY", 64),
            ),
        ]
    }

    #[test]
    fn prefilter_is_a_necessary_condition() {
        for (index, rule) in RULES.iter().enumerate() {
            let pre = Regex::new(rule.prefilter).unwrap();
            for (id, positive, negative) in samples() {
                for text in [positive, negative] {
                    for m in rule_regex(index).find_iter(&text) {
                        assert!(pre.is_match(m.as_str()), "{id}: {}", rule.id);
                    }
                }
            }
        }
    }

    fn ids(text: &str) -> Vec<&'static str> {
        scan(text).into_iter().map(|f| f.rule_id).collect()
    }

    #[test]
    fn every_rule_has_a_positive_and_a_near_miss_sample() {
        let sampled: Vec<&str> = samples().iter().map(|s| s.0).collect();
        assert_eq!(sampled, rule_ids().collect::<Vec<_>>());
    }

    #[test]
    fn positives_fire_their_rule() {
        for (id, positive, _) in samples() {
            let found = ids(&positive);
            assert!(found.contains(&id), "{id} not detected: {found:?}");
            assert!(contains_secret(&positive), "{id}");
        }
    }

    #[test]
    fn near_misses_do_not_fire() {
        for (id, _, negative) in samples() {
            let found = ids(&negative);
            assert!(found.is_empty(), "{id} near miss fired: {found:?}");
            assert!(!contains_secret(&negative), "{id}");
        }
    }

    #[test]
    fn all_three_openai_formats() {
        for key in [
            format!("sk-svcacct-{}", alnum(24)),
            format!("sk-admin-{}", alnum(24)),
            format!("sk-{}T3BlbkFJ{}", alnum(20), alnum(20)),
            format!("sk-{}", alnum(48)),
        ] {
            assert_eq!(ids(&key), vec!["openai-api-key"]);
        }
        // Legacy form one character short.
        assert!(ids(&format!("sk-{}", alnum(47))).is_empty());
    }

    #[test]
    fn other_boundary_cases() {
        // Trailing punctuation after a token does not stop the match.
        for tail in [".", ",", ")", "}", "\"", "'"] {
            let text = format!("token=ghp_{}{tail}", alnum(36));
            assert_eq!(ids(&text), vec!["github-pat"], "{tail}");
        }
        // A HuggingFace token containing digits.
        assert_eq!(
            ids("hf_0123456789abcdefghijABCDEFGHIJ1234"),
            vec!["huggingface-access-token"]
        );
        // The A3T prefix variant of AWS, and an AWS id glued on the right side.
        assert_eq!(ids("A3TXIOSFODNN7EXAMPLE"), vec!["aws-access-token"]);
        assert!(ids("AKIAIOSFODNN7EXAMPLEx").is_empty());
        // Alibaba needs a leading boundary too.
        assert!(ids(&format!("xLTAI{}", alnum(16))).is_empty());
        // PEM body one char short.
        assert!(ids(&pem("PRIVATE KEY", 61)).is_empty());
        assert_eq!(ids(&pem("EC PRIVATE KEY", 62)), vec!["private-key"]);
        // Case-insensitive PEM armour.
        assert_eq!(ids(&pem("openssh private key", 100)), vec!["private-key"]);
        // A PGP private key block.
        assert_eq!(ids(&pem("PGP PRIVATE KEY BLOCK", 100)), vec!["private-key"]);
    }

    #[test]
    fn clean_prose_has_no_findings() {
        let text = "We use AWS and GitHub; the sk- prefix marks keys. ghp_ tokens expire.\n\
                    I prefer terse responses. See https://example.com/dashboard.";
        assert!(scan(text).is_empty());
        assert!(!contains_secret(text));
        assert_eq!(redact(text), text);
    }

    #[test]
    fn findings_carry_line_numbers_and_dedupe_per_rule_and_line() {
        let tok = format!("ghp_{}", alnum(36));
        let text = format!("first\n{tok} {tok}\nthird AKIAIOSFODNN7EXAMPLE\n{tok}");
        let found = scan(&text);
        assert_eq!(
            found,
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
        // Multi-line PEM is reported on its first line.
        let text = format!("a\nb\n{}\n", pem("PRIVATE KEY", 80));
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
        for (id, positive, _) in samples() {
            for f in scan(&positive) {
                let debug = format!("{f:?}");
                let display = format!("{f}");
                for shown in [&debug, &display] {
                    assert!(!shown.contains(&positive), "{id}: {shown}");
                    assert!(shown.contains(id), "{id}: {shown}");
                }
                // No 8-char slice of the sample's tail appears either.
                let tail: String = positive.chars().rev().take(8).collect();
                let tail: String = tail.chars().rev().collect();
                assert!(!debug.contains(&tail) && !display.contains(&tail), "{id}");
            }
        }
    }

    #[test]
    fn labels_are_readable() {
        assert_eq!(label("github-pat"), Some("GitHub PAT"));
        assert_eq!(label("aws-access-token"), Some("AWS Access Token"));
        assert_eq!(
            label("alibaba-cloud-access-key"),
            Some("Alibaba Cloud Access Key")
        );
        assert_eq!(label("openai-api-key"), Some("OpenAI API Key"));
        assert_eq!(label("private-key"), Some("Private Key"));
        assert_eq!(label("nope"), None);
        let f = Finding {
            rule_id: "github-pat",
            line: 7,
        };
        assert_eq!(f.to_string(), "line 7: GitHub PAT (github-pat)");
    }

    #[test]
    fn allow_marker_suppresses_only_its_line() {
        let tok = format!("ghp_{}", alnum(36));
        let allowed = format!("example {tok} <!-- qwen-memory:allow -->");
        assert!(scan(&allowed).is_empty());
        assert!(!contains_secret(&allowed));
        assert_eq!(redact(&allowed), allowed);

        let mixed = format!("{allowed}\nreal {tok}\n");
        assert_eq!(
            scan(&mixed),
            vec![Finding {
                rule_id: "github-pat",
                line: 2
            }]
        );
        assert!(contains_secret(&mixed));
        assert_eq!(
            redact(&mixed),
            format!("{allowed}\nreal [REDACTED:github-pat]\n")
        );

        // A PEM block can be allowed from its BEGIN or END line.
        let key = pem("PRIVATE KEY", 80);
        assert!(scan(&format!("{key} qwen-memory:allow")).is_empty());
        assert!(scan(&format!("qwen-memory:allow {key}")).is_empty());
        // The marker on an unrelated line does not help.
        assert!(!scan(&format!("qwen-memory:allow\n\n{key}")).is_empty());
    }

    #[test]
    fn redact_replaces_values_and_keeps_the_rest() {
        let tok = format!("ghp_{}", alnum(36));
        let text = format!("use {tok}, and AKIAIOSFODNN7EXAMPLE.\nok");
        assert_eq!(
            redact(&text),
            "use [REDACTED:github-pat], and [REDACTED:aws-access-token].\nok"
        );
        let key = pem("RSA PRIVATE KEY", 80);
        assert_eq!(
            redact(&format!("before\n{key}\nafter")),
            "before\n[REDACTED:private-key]\nafter"
        );
    }

    #[test]
    fn redact_handles_overlaps_and_exposed_neighbours() {
        // Both openai and anthropic fire on this span; one marker replaces it.
        let both = format!("sk-ant-{}T3BlbkFJ{}", alnum(20), alnum(20));
        let out = redact(&both);
        assert!(!contains_secret(&out), "{out}");
        assert!(out.starts_with("[REDACTED:"), "{out}");
        // The AWS id only becomes word-bounded once the GitHub token before it is removed.
        let glued = format!("ghp_{}AKIAIOSFODNN7EXAMPLE", alnum(36));
        let out = redact(&glued);
        assert_eq!(out, "[REDACTED:github-pat][REDACTED:aws-access-token]");
    }

    #[test]
    fn secret_in_non_ascii_context() {
        // Upstream's \b is ASCII: a non-ASCII letter before the id still counts as a boundary.
        assert_eq!(ids("éAKIAIOSFODNN7EXAMPLE"), vec!["aws-access-token"]);
        assert_eq!(
            ids(&format!("日本語 ghp_{} 日本語", alnum(36))),
            vec!["github-pat"]
        );
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

        #[test]
        fn redacted_text_contains_no_secret(s in secretish()) {
            let found = scan(&s);
            prop_assert_eq!(contains_secret(&s), !found.is_empty());
            let out = redact(&s);
            prop_assert!(!contains_secret(&out), "left a secret in {:?}", out);
            if found.is_empty() {
                prop_assert_eq!(out, s);
            }
        }
    }
}
