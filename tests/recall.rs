//! `recall` end to end: roots, the prompt block, JSON, exclusions, secrets, bad input, and model
//! selection against a loopback OpenAI-compatible server with its fallbacks.

use crate::common;
use crate::common::openai_server;

use std::fs;
use std::time::{SystemTime, UNIX_EPOCH};

use common::*;
use openai_server::{OpenAiServer, Reply};

fn now_secs() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

#[test]
fn prompt_block_matches_the_upstream_layout() {
    let sb = Sandbox::new();
    let root = sb.private_root();
    let p = write_doc(
        &root,
        "feedback/deploy.md",
        &doc_text(
            "Deploy from release branches",
            "Release process rule",
            "feedback",
            "Deploy only from release branches.\n\nWhy: audits",
        ),
    );
    set_mtime(&p, now_secs() - 3 * 86_400 - 60);
    write_doc(
        &root,
        "user/editor.md",
        &doc_text("Editor", "Uses helix", "user", "The user edits in helix."),
    );
    let out = sb.ok(&["recall", "how", "do", "we", "deploy", "a", "release?"]);
    let expected = "## Relevant memory\n\nUse the following memories only when they are directly relevant to the current request. Verify file/function claims before relying on them.\n\n### Deploy from release branches (feedback/deploy.md)\nSaved 3 days ago.\nRelease process rule\n\nDeploy only from release branches.\n\nWhy: audits\n\n> NOTE: This memory is 3 days old. Memories are point-in-time observations, not live state — claims about code behavior or file:line citations may be outdated. Verify against current code before asserting as fact.\n";
    assert_eq!(out, expected);
}

/// `remember` writes the sentence as both `description` (Qwen Code's MEMORY.md line needs it)
/// and body; recall must show it once, and so for any document whose description only repeats
/// the start of its body (case, spacing, trailing punctuation aside). A description that says
/// something else is still shown.
#[test]
fn a_remembered_fact_is_recalled_once() {
    let sb = Sandbox::new();
    let fact = "The deploy script needs AWS_REGION set to eu-west-1.";
    sb.ok(&["remember", fact]);
    let out = sb.ok(&["recall", "deploy", "script", "region"]);
    // The title is the sentence without its full stop; description and body carry it whole.
    assert_eq!(out.matches(fact).count(), 1, "{out}");
    assert!(out.contains(&format!("Saved today.\n\n{fact}\n")), "{out}");

    write_doc(
        &sb.private_root(),
        "feedback/pnpm.md",
        &doc_text(
            "Package manager",
            "use PNPM,  never npm",
            "feedback",
            "- Use pnpm, never npm.\n\nWhy: one lockfile",
        ),
    );
    write_doc(
        &sb.private_root(),
        "project/ports.md",
        &doc_text(
            "Ports",
            "Which ports the services use",
            "project",
            "The API listens on port 8080.",
        ),
    );
    let out = sb.ok(&["recall", "pnpm", "npm", "ports", "api"]);
    assert_eq!(out.to_lowercase().matches("never npm").count(), 1, "{out}");
    assert!(
        out.contains("Saved today.\n\n- Use pnpm, never npm.\n"),
        "{out}"
    );
    assert!(
        out.contains("Saved today.\nWhich ports the services use\n\nThe API listens"),
        "{out}"
    );
}

#[test]
fn empty_and_unmatched_queries_print_nothing() {
    let sb = Sandbox::new();
    write_doc(
        &sb.private_root(),
        "project/a.md",
        &doc_text("Alpha", "alpha service", "project", "Alpha runs on port 80"),
    );
    for q in ["   ", "?!", "漢", "zzzzqqq"] {
        let out = sb.cmd().args(["recall", q]).output().unwrap();
        assert_success(&out, &["recall", q]);
        assert!(
            out.stdout.is_empty(),
            "{q:?} printed {:?}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
    let huge = "word ".repeat(200_000);
    let out = sb
        .cmd()
        .args(["recall", "-"])
        .write_stdin(huge)
        .output()
        .unwrap();
    assert_success(&out, &["recall", "<1 MB>"]);
    // Full-width forms are folded by NFKC.
    let out = sb.ok(&["recall", "ＡＬＰＨＡ"]);
    assert!(out.contains("### Alpha (project/a.md)"), "{out}");
}

#[test]
fn roots_json_limit_and_exclude() {
    let sb = Sandbox::new();
    write_doc(
        &sb.private_root(),
        "project/cache.md",
        &doc_text(
            "Cache policy",
            "Redis cache",
            "project",
            "Cache entries expire after an hour",
        ),
    );
    write_doc(
        &sb.repo.join(".qwen/memory"),
        "project/cache-team.md",
        &doc_text(
            "Cache keys",
            "Shared cache naming",
            "project",
            "Cache keys are prefixed by tenant",
        ),
    );
    write_doc(
        &sb.base.join("memories"),
        "user/cache.md",
        &doc_text(
            "Cache opinions",
            "User likes caches",
            "user",
            "Prefers explicit cache invalidation",
        ),
    );
    let v = sb.json(&["recall", "cache"]);
    assert_eq!(v["strategy"], "auto");
    let docs = v["documents"].as_array().unwrap();
    let scopes: Vec<&str> = docs.iter().map(|d| d["scope"].as_str().unwrap()).collect();
    assert_eq!(scopes.len(), 3, "{v}");
    assert!(
        scopes.contains(&"repository") && scopes.contains(&"private") && scopes.contains(&"user")
    );
    assert!(docs.iter().all(|d| d["score"].as_u64().unwrap() > 0));
    let v = sb.json(&["recall", "--limit", "1", "cache"]);
    assert_eq!(v["documents"].as_array().unwrap().len(), 1);
    let v = sb.json(&[
        "recall",
        "--exclude",
        "project/cache.md",
        "--exclude",
        "user:user/cache.md",
        "cache",
    ]);
    let ids: Vec<&str> = v["documents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["relativePath"].as_str().unwrap())
        .collect();
    assert_eq!(ids, vec!["project/cache-team.md"]);
    let v = sb.json(&["recall", "--format", "json", "cache"]);
    assert_eq!(v["documents"].as_array().unwrap().len(), 3);
}

#[test]
fn secrets_symlinks_and_malformed_docs_are_never_recalled() {
    let sb = Sandbox::new();
    let root = sb.private_root();
    let secret = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";
    write_doc(
        &root,
        "reference/token.md",
        &doc_text(
            "Deploy token",
            "deploy token",
            "reference",
            &format!("token {secret}"),
        ),
    );
    write_doc(
        &root,
        "project/broken.md",
        "---\nname: deploy broken\n---\n\ndeploy\n",
    );
    let outside = sb.root().join("outside.md");
    fs::write(
        &outside,
        doc_text("Deploy outside", "deploy", "project", "deploy outside"),
    )
    .unwrap();
    fs::create_dir_all(root.join("project")).unwrap();
    std::os::unix::fs::symlink(&outside, root.join("project/link.md")).unwrap();
    write_doc(
        &root,
        "project/ok.md",
        &doc_text("Deploy steps", "deploy", "project", "Run make deploy"),
    );
    let out = sb.ok(&["recall", "deploy"]);
    assert!(!out.contains(secret));
    assert!(
        !out.contains("Deploy token") && !out.contains("Deploy outside") && !out.contains("broken")
    );
    assert!(out.contains("### Deploy steps (project/ok.md)"));
}

fn model_env(server: &OpenAiServer) -> Vec<(&'static str, String)> {
    vec![
        ("QWEN_MEMORY_MODEL_BASE_URL", server.base_url()),
        ("QWEN_MEMORY_MODEL_NAME", "test-model".into()),
        ("OPENAI_API_KEY", "sk-test-never-printed".into()),
        ("QWEN_MEMORY_MODEL_TIMEOUT_MS", "2000".into()),
    ]
}

fn model_sandbox() -> Sandbox {
    let sb = Sandbox::new();
    let root = sb.private_root();
    write_doc(
        &root,
        "project/a.md",
        &doc_text(
            "Alpha deploys",
            "alpha",
            "project",
            "Alpha deploys on Fridays",
        ),
    );
    write_doc(
        &root,
        "project/b.md",
        &doc_text("Beta service", "beta", "project", "Beta is written in Go"),
    );
    sb
}

#[test]
fn model_selection_keeps_the_model_order() {
    let sb = model_sandbox();
    let b = sb.private_root().join("project/b.md").display().to_string();
    let server = OpenAiServer::start(vec![Reply::good_json(
        serde_json::json!({ "selected_memories": [b] }),
    )]);
    let out = sb
        .cmd()
        .args([
            "recall",
            "--strategy",
            "model",
            "--format",
            "json",
            "which language is beta in",
        ])
        .envs(model_env(&server))
        .output()
        .unwrap();
    assert_success(&out, &["recall model"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["strategy"], "model");
    assert_eq!(v["documents"][0]["relativePath"], "project/b.md");
    assert_eq!(v["documents"].as_array().unwrap().len(), 1);
    let sent = server.requests();
    assert_eq!(sent.len(), 1);
    assert!(sent[0].body.contains("which language is beta in"));
}

#[test]
fn model_failures_fall_back_to_the_heuristic() {
    // (reply, requests the server must have seen, the reason the fallback must give)
    for (reply, calls, why) in [
        (Reply::Malformed, 1, "JSON"),
        (Reply::Status(500), 2, "HTTP 500"),
        (
            Reply::good_json(serde_json::json!({"selected_memories": ["/etc/passwd"]})),
            1,
            "unknown file path",
        ),
    ] {
        let sb = model_sandbox();
        let server = OpenAiServer::start(vec![reply.clone(), reply]);
        let out = sb
            .cmd()
            .args(["recall", "--strategy", "model", "--json", "alpha deploys"])
            .envs(model_env(&server))
            .output()
            .unwrap();
        assert_success(&out, &["recall model fallback"]);
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["strategy"], "auto", "{v}");
        assert_eq!(server.requests().len(), calls, "{v}");
        let reason = v["fallback"].as_str().unwrap_or_default();
        assert!(reason.contains(why), "reason {reason:?}");
        assert_eq!(v["documents"][0]["relativePath"], "project/a.md");
        assert!(!String::from_utf8_lossy(&out.stderr).contains("sk-test-never-printed"));
    }
    // Not configured at all: the auto ranking, with the reason.
    let sb = model_sandbox();
    let v = sb.json(&["recall", "--strategy", "model", "alpha"]);
    assert_eq!(v["strategy"], "auto");
    assert!(v["fallback"]
        .as_str()
        .unwrap()
        .contains("no model configured"));
}

#[test]
fn an_empty_model_answer_is_final() {
    let sb = model_sandbox();
    let server = OpenAiServer::start(vec![Reply::good_json(
        serde_json::json!({"selected_memories": []}),
    )]);
    let out = sb
        .cmd()
        .args(["recall", "--strategy", "model", "alpha deploys"])
        .envs(model_env(&server))
        .output()
        .unwrap();
    assert_success(&out, &["recall"]);
    assert!(out.stdout.is_empty());
}

#[test]
fn recall_emits_telemetry_without_content() {
    let sb = model_sandbox();
    sb.ok(&["recall", "alpha deploys secret-query-text"]);
    let tel = fs::read_to_string(sb.private_state().join("telemetry.jsonl")).unwrap();
    assert!(tel.contains("qwen-code.memory.recall"));
    assert!(tel.contains("\"docs_selected\":1"), "{tel}");
    assert!(!tel.contains("secret-query-text") && !tel.contains("alpha"));
}
