//! `extract --explain`: what the offline extractor does with one message, sentence by sentence
//! (the rules' verdict, the scorer's score, the cue rules that fired, the gate's score and the
//! decision), through the real binary. It writes nothing.

use crate::common;

use common::Sandbox;

fn explain_json(sb: &Sandbox, text: &str) -> serde_json::Value {
    sb.json(&["extract", "--explain", "--text", text])
}

#[test]
fn a_standing_rule_is_explained_and_kept() {
    let sb = Sandbox::new();
    let e = explain_json(
        &sb,
        "Go ahead with the refactor. Also, from now on always use pnpm instead of npm.",
    );
    let sentences = e["sentences"].as_array().unwrap();
    assert_eq!(sentences.len(), 2, "{e}");
    assert_eq!(sentences[0]["rules"], "en", "{e}");
    let cues: Vec<&str> = e["cues"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c.as_str())
        .collect();
    assert!(cues.contains(&"en.future.from-now-on"), "{e}");
    assert!(cues.contains(&"en.always.always"), "{e}");
    let gate = e["gate"].as_f64().unwrap();
    assert!(gate >= e["keepThreshold"].as_f64().unwrap(), "{e}");
    let kept = e["kept"].as_array().unwrap();
    assert_eq!(kept.len(), 1, "{e}");
    assert!(kept[0]["summary"].as_str().unwrap().contains("pnpm"), "{e}");
    assert!(e["reason"].as_str().unwrap().starts_with("kept"), "{e}");
    assert!(!e["topFeatures"].as_array().unwrap().is_empty(), "{e}");
}

#[test]
fn a_one_off_request_is_explained_and_dropped() {
    let sb = Sandbox::new();
    let e = explain_json(
        &sb,
        "Can you fix the login page? It shows an error after submit.",
    );
    assert!(e["kept"].as_array().unwrap().is_empty(), "{e}");
    let reason = e["reason"].as_str().unwrap();
    assert!(
        reason.starts_with("dropped") || reason.starts_with("nothing"),
        "{e}"
    );
    let cues = e["cues"].to_string();
    assert!(cues.contains("en.question.mark"), "{e}");
    assert!(cues.contains("en.bug.error"), "{e}");
}

/// The decision says who kept the memory: here the rules kept nothing and the scorer rescued
/// the sentence, which the gate let through only because the scorer is sure.
#[test]
fn a_sentence_the_scorer_rescued_is_not_called_the_rules_own() {
    let sb = Sandbox::new();
    let e = explain_json(&sb, "Postgres 16 in prod.");
    assert!(e["sentences"][0]["keptAs"].is_null(), "{e}");
    assert!(!e["kept"].as_array().unwrap().is_empty(), "{e}");
    let reason = e["reason"].as_str().unwrap();
    assert!(
        reason.starts_with("kept") && reason.contains("the scorer rescued 1 sentence"),
        "{reason}"
    );
    assert!(!reason.contains("the rules kept 1"), "{reason}");
}

#[test]
fn explain_reads_standard_input_and_renders_text() {
    let sb = Sandbox::new();
    let out = sb
        .cmd()
        .args(["extract", "--explain"])
        .write_stdin("以後請記住：總是用繁體中文回答。")
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("sentence 1:"), "{text}");
    assert!(text.contains("rules (cjk)"), "{text}");
    // Traditional Chinese is folded before the cues match.
    assert!(text.contains("zh.future.from-now-on"), "{text}");
    assert!(text.contains("decision: "), "{text}");
}

#[test]
fn text_without_explain_is_refused() {
    let sb = Sandbox::new();
    let out = sb
        .cmd()
        .args(["extract", "--text", "hello"])
        .output()
        .unwrap();
    assert!(!out.status.success());
}

/// A message that starts like a flag (a pasted list item) is the text, not an option.
#[test]
fn text_may_start_with_a_dash() {
    let sb = Sandbox::new();
    let e = explain_json(&sb, "- never commit the .env file");
    assert_eq!(
        e["sentences"][0]["text"], "never commit the .env file",
        "{e}"
    );
}

/// The saved fact is the rule: a request to record it, a lead-in and a one-off part are not.
#[test]
fn saved_facts_are_the_rule_itself() {
    let sb = Sandbox::new();
    for (text, want) in [
        (
            "add to CLAUDE.md that we always use uv instead of pip.",
            "We always use uv instead of pip.",
        ),
        (
            "go ahead. also, from now on run the linter before every commit.",
            "run the linter before every commit.",
        ),
        (
            "Log through the Vole logging library, never with print.",
            "Log through the Vole logging library, never with print.",
        ),
        // A request to record the rule in the agent's instructions, in its own words.
        (
            "Update the Copilot instructions so agents know to use pnpm, never npm.",
            "Use pnpm, never npm.",
        ),
        (
            "add to cursor rules \"never commit generated protobuf files\"",
            "Never commit generated protobuf files",
        ),
        // A correction's opening is not part of the rule.
        ("いや、太字は使わないでください", "太字は使わないでください"),
        // The request to record, cut off as a lead-in, is not a reason to drop what it asks to
        // keep; "remember that" is no part of the fact.
        (
            "add a rule that we always squash merge.",
            "We always squash merge.",
        ),
        (
            "Add this to your memory: staging is reset every Sunday.",
            "Staging is reset every Sunday.",
        ),
        (
            "I want you to remember that the CI runs on Buildkite.",
            "The CI runs on Buildkite.",
        ),
        (
            "make it a rule to run the tests before every push.",
            "Run the tests before every push.",
        ),
        (
            "Remember this: the prod DB is read-only for devs.",
            "The prod DB is read-only for devs.",
        ),
        // A short request to record before a colon, in Chinese, Japanese and Korean.
        ("把这条写进 CLAUDE.md：提交信息用英文。", "提交信息用英文。"),
        ("加到规则里：所有接口都要有超时。", "所有接口都要有超时。"),
        (
            "CLAUDE.mdに追記して：mainへの直接pushは禁止。",
            "mainへの直接pushは禁止。",
        ),
        (
            "これをルールにして：コミットメッセージは英語で。",
            "コミットメッセージは英語で。",
        ),
        (
            "CLAUDE.md에 추가해: main에 직접 push 금지.",
            "main에 직접 push 금지.",
        ),
    ] {
        let e = explain_json(&sb, text);
        let kept: Vec<&str> = e["kept"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|p| p["summary"].as_str())
            .collect();
        assert_eq!(kept, vec![want], "{text}: {e}");
    }
}

#[test]
fn explain_never_prints_a_secret_and_drops_what_the_real_extract_drops() {
    use common::secret_corpus::{j, Gen, ALNUM};
    let sb = Sandbox::new();
    let token = j(&["gh", "p_", &Gen::new(21).of(ALNUM, 36)]);
    let text = format!("From now on always use the deploy token {token} for the staging CI.");
    // The real extract saves nothing from it.
    let t = sb.root().join("chat.jsonl");
    let line = serde_json::json!({"role": "user", "content": text});
    std::fs::write(&t, format!("{line}\n")).unwrap();
    let out = sb.json(&["extract", "--transcript", t.to_str().unwrap()]);
    assert_eq!(out["patches"], serde_json::json!([]), "{out}");
    assert_eq!(out["droppedSecrets"], 1, "{out}");
    // Explain, as JSON and as text: the token nowhere, the memory not listed as kept.
    let e = explain_json(&sb, &text);
    assert!(!e.to_string().contains(&token), "{e}");
    assert!(e["kept"].as_array().unwrap().is_empty(), "{e}");
    assert!(e["reason"].as_str().unwrap().contains("secret"), "{e}");
    let shown = sb.ok(&["extract", "--explain", "--text", &text]);
    assert!(!shown.contains(&token), "{shown}");
    assert!(shown.contains("REDACTED"), "{shown}");
}
