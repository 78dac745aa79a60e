//! Model dream plans are lossless or rejected: against the real binary and the loopback model
//! server, a plan that deletes everything, one that merges and drops entries silently, one that
//! drops with reasons within the cap (applied) and one over the cap (rejected, mechanical dream).

use crate::common;
use crate::common::openai_server;

use std::fs;
use std::path::PathBuf;

use common::*;
use openai_server::{OpenAiServer, Reply};
use serde_json::{json, Value};

/// Four documents, eight entries: the cap is 25 % of 8 = 2 dropped entries per run.
fn seed(sb: &Sandbox) -> PathBuf {
    let root = sb.private_root();
    for (rel, ty, body) in [
        (
            "feedback/short.md",
            "feedback",
            "Keep answers short\n\nWhy: narrow pane\n\nNo closing summary",
        ),
        (
            "feedback/terse.md",
            "feedback",
            "Answers must be terse\n\nSkip the recap",
        ),
        (
            "project/deploy.md",
            "project",
            "Deploy from release branches\n\nHow to apply: tag first\n\nStaging deploys on merge",
        ),
        (
            "project/ci.md",
            "project",
            "CI runs on every push\n\nLint before push\n\nWhy: CI rejects lint errors",
        ),
    ] {
        write_doc(&root, rel, &doc_text(rel, "d", ty, body));
    }
    root
}

const FILES: [&str; 4] = [
    "feedback/short.md",
    "feedback/terse.md",
    "project/deploy.md",
    "project/ci.md",
];

/// Runs `dream --force --json` against a server answering `plan`; returns the outcome and the
/// number of requests the server received.
fn dream(sb: &Sandbox, plan: Value) -> (Value, usize) {
    let server = OpenAiServer::start(vec![Reply::good_json(plan)]);
    let out = sb
        .cmd()
        .args(["dream", "--force", "--json"])
        .env("QWEN_MEMORY_MODEL_BASE_URL", server.base_url())
        .env("QWEN_MEMORY_MODEL_NAME", "test-model")
        .env("OPENAI_API_KEY", "sk-test")
        .output()
        .unwrap();
    assert_success(&out, &["dream", "--force", "--json"]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    (v, server.requests().len())
}

fn rejected(sb: &Sandbox, root: &std::path::Path, plan: Value) -> String {
    let before: Vec<String> = FILES
        .iter()
        .map(|f| fs::read_to_string(root.join(f)).unwrap())
        .collect();
    let (out, calls) = dream(sb, plan);
    assert_eq!(calls, 1, "the model was asked");
    assert_eq!(out["strategy"], "mechanical", "{out}");
    // Nothing to consolidate mechanically: every file is as it was.
    for (f, text) in FILES.iter().zip(before) {
        assert_eq!(fs::read_to_string(root.join(f)).unwrap(), text, "{f}");
    }
    out["fallbackReason"]
        .as_str()
        .unwrap_or_else(|| panic!("no fallbackReason: {out}"))
        .to_string()
}

#[test]
fn a_plan_that_deletes_everything_is_rejected() {
    let sb = Sandbox::new();
    let root = seed(&sb);
    let with_reasons: Vec<Value> = FILES
        .iter()
        .map(|f| json!({"op": "delete", "path": f, "reason": "no longer relevant"}))
        .collect();
    let reason = rejected(&sb, &root, json!({ "operations": with_reasons }));
    assert!(
        reason.contains("drops 8 of 8 entries; at most 2"),
        "{reason}"
    );

    let silent: Vec<Value> = FILES
        .iter()
        .map(|f| json!({"op": "delete", "path": f}))
        .collect();
    let reason = rejected(&sb, &root, json!({ "operations": silent }));
    assert!(reason.contains("loses the entry"), "{reason}");
}

fn merge_terse_into_short(dropped: Value) -> Value {
    json!({"op": "merge", "target": "feedback/short.md", "sources": ["feedback/terse.md"],
           "body": "Keep answers short\n\nWhy: narrow pane\n\nNo closing summary",
           "reason": "same preference", "dropped": dropped})
}

#[test]
fn a_merge_that_drops_entries_silently_is_rejected() {
    let sb = Sandbox::new();
    let root = seed(&sb);
    let reason = rejected(
        &sb,
        &root,
        json!({"operations": [merge_terse_into_short(json!([]))]}),
    );
    assert!(
        reason.contains("loses the entry \"Answers must be terse\" of \"feedback/terse.md\""),
        "{reason}"
    );
    // Naming only one of the two lost entries is still a silent loss.
    let one = json!([{"entry": "Answers must be terse", "reason": "same as keep answers short"}]);
    let reason = rejected(
        &sb,
        &root,
        json!({"operations": [merge_terse_into_short(one)]}),
    );
    assert!(reason.contains("\"Skip the recap\""), "{reason}");
}

fn both_drops() -> Value {
    json!([
        {"entry": "Answers must be terse", "reason": "same as keep answers short"},
        {"entry": "skip the RECAP", "reason": "same as no closing summary"}
    ])
}

#[test]
fn drops_with_reasons_within_the_cap_are_applied_and_logged() {
    let sb = Sandbox::new();
    let root = seed(&sb);
    let (out, calls) = dream(
        &sb,
        json!({"operations": [merge_terse_into_short(both_drops())]}),
    );
    assert_eq!(calls, 1);
    assert_eq!(out["strategy"], "model", "{out}");
    assert!(out["fallbackReason"].is_null(), "{out}");
    assert!(!root.join("feedback/terse.md").exists());
    let dropped = out["dropped"].as_array().unwrap();
    assert_eq!(dropped.len(), 2, "{out}");
    assert_eq!(dropped[0]["path"], "feedback/terse.md");
    assert_eq!(dropped[0]["entry"], "Answers must be terse");
    assert_eq!(dropped[0]["reason"], "same as keep answers short");
    let log = fs::read_to_string(sb.private_state().join("dream-log.jsonl")).unwrap();
    assert!(log.contains("same as no closing summary"), "{log}");
    // The undo brings the dropped entries back.
    sb.ok(&["dream", "--undo"]);
    assert!(fs::read_to_string(root.join("feedback/terse.md"))
        .unwrap()
        .contains("Skip the recap"));
}

#[test]
fn drops_over_the_cap_are_rejected() {
    let sb = Sandbox::new();
    let root = seed(&sb);
    let reason = rejected(
        &sb,
        &root,
        json!({"operations": [
            merge_terse_into_short(both_drops()),
            {"op": "delete", "path": "project/ci.md", "reason": "obsolete"}
        ]}),
    );
    assert!(
        reason.contains("drops 4 of 8 entries; at most 2 may be dropped per run"),
        "{reason}"
    );
}
