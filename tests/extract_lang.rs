//! Chinese, Japanese and Korean end to end: extraction with a model (the loopback server) and
//! without one, and `remember`, all through the real binary.

use crate::common;
use crate::common::openai_server;

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use common::{assert_success, Sandbox};
use openai_server::{OpenAiServer, Reply, CHAT_PATH};
use serde_json::{json, Value};

fn files(root: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for (name, bytes) in common::tree(root) {
        if name.ends_with(".md") && name != "MEMORY.md" {
            out.insert(name, String::from_utf8(bytes).unwrap());
        }
    }
    out
}

/// A generic JSONL transcript; returns its path and the offset of each user line.
fn transcript(sb: &Sandbox, turns: &[(&str, &str)]) -> (std::path::PathBuf, Vec<u64>) {
    let mut text = String::new();
    let mut offsets = Vec::new();
    for (user, assistant) in turns {
        offsets.push(text.len() as u64);
        text.push_str(&json!({"role": "user", "content": user}).to_string());
        text.push('\n');
        text.push_str(&json!({"role": "assistant", "content": assistant}).to_string());
        text.push('\n');
    }
    let path = sb.root().join("chat.jsonl");
    fs::write(&path, text).unwrap();
    (path, offsets)
}

const TURNS: &[(&str, &str)] = &[
    ("帮我把这个函数改成异步的。", "好的，已经改好了。"),
    (
        "以后提交代码前都要先跑 cargo fmt，因为 CI 会拒绝没格式化的代码。",
        "明白，我们以后总是先格式化。",
    ),
    ("我们团队规定: never push to main.", "好的。"),
    ("部署流程见 docs/deploy.md。谢谢！", "不客气。"),
];

fn model_cmd(sb: &Sandbox, server: &OpenAiServer, args: &[&str]) -> Value {
    let out = sb
        .cmd()
        .env("QWEN_MEMORY_MODEL_BASE_URL", server.base_url())
        .env("QWEN_MEMORY_MODEL_NAME", "test-model")
        .env("OPENAI_API_KEY", "sk-test-key-not-a-secret")
        .env("QWEN_MEMORY_MODEL_TIMEOUT_MS", "1500")
        .args(args)
        .arg("--json")
        .output()
        .unwrap();
    assert_success(&out, args);
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn a_model_with_chinese_patches_writes_readable_chinese_memories() {
    let sb = Sandbox::new();
    let (t, off) = transcript(&sb, TURNS);
    let server = OpenAiServer::start(vec![Reply::good_json(json!({"patches": [
        {"topic": "feedback", "summary": "提交代码前先跑 cargo fmt。", "why": "CI 会拒绝没格式化的代码。", "sourceOffset": off[1]},
        {"topic": "project", "summary": "部署流程见 docs/deploy.md。", "sourceOffset": off[3]},
        {"topic": "project", "summary": "把这个函数改成异步", "sourceOffset": off[0]}
    ]}))]);
    let r = model_cmd(
        &sb,
        &server,
        &["extract", "--transcript", t.to_str().unwrap()],
    );
    assert_eq!(r["planner"], "model", "{r}");
    assert_eq!(r["modelFallback"], Value::Null);
    // The third summary is 9 CJK characters (18 by width): kept; the patch filter judges width.
    // (It is grounded in the turn it cites: a model patch must be.)
    let docs = files(&sb.private_root());
    let names: Vec<&str> = docs.keys().map(String::as_str).collect();
    assert_eq!(
        names,
        vec![
            "feedback/提交代码前先跑-cargo-fmt.md",
            "project/把这个函数改成异步.md",
            "project/部署流程见-docs-deploy-md.md",
        ]
    );
    let fmt = &docs["feedback/提交代码前先跑-cargo-fmt.md"];
    assert!(
        fmt.starts_with("---\nname: 提交代码前先跑 cargo fmt\n"),
        "{fmt}"
    );
    assert!(fmt.contains("\n提交代码前先跑 cargo fmt。\n\nWhy: CI 会拒绝没格式化的代码。\n"));
    // What was sent keeps the Chinese text as written.
    let reqs = server.requests();
    assert_eq!(reqs.len(), 1);
    let body = reqs[0].json();
    let user = body["messages"][1]["content"].as_str().unwrap();
    assert!(
        user.contains(&format!(
            "- offset={} role=user text={}",
            off[1], TURNS[1].0
        )),
        "{user}"
    );
    assert!(user.contains("role=assistant text=明白"));
}

#[test]
fn without_a_working_model_chinese_falls_back_to_the_heuristic() {
    let sb = Sandbox::new();
    let (t, _) = transcript(&sb, TURNS);
    let server = OpenAiServer::start(vec![Reply::Status(500), Reply::Malformed]);
    let r = model_cmd(
        &sb,
        &server,
        &["extract", "--transcript", t.to_str().unwrap()],
    );
    assert_eq!(r["planner"], "heuristic", "{r}");
    // The model was really asked (after the 500, the retry got prose instead of JSON), with the
    // Chinese turns, and the fallback names the cause: a run that ignored the model
    // configuration could not pass.
    let reqs = server.requests();
    assert_eq!(reqs.len(), 2, "{r}");
    for req in &reqs {
        assert_eq!(req.path, CHAT_PATH);
        let body = req.json();
        assert_eq!(body["model"], "test-model");
        let user = body["messages"][1]["content"].as_str().unwrap();
        assert!(user.contains(TURNS[1].0), "{user}");
    }
    assert_eq!(reqs[0].body, reqs[1].body, "the retry resends the request");
    let reason = r["modelFallback"].as_str().unwrap_or_default();
    assert_eq!(reason, "model answer content is not JSON", "{r}");
    let docs = files(&sb.private_root());
    let names: Vec<&str> = docs.keys().map(String::as_str).collect();
    assert_eq!(
        names,
        vec![
            "feedback/以后提交代码前都要先跑-cargo-fmt.md",
            "project/我们团队规定-never-push-to-main.md",
            "reference/部署流程见-docs-deploy-md.md",
        ],
        "{r}"
    );
    let fmt = &docs["feedback/以后提交代码前都要先跑-cargo-fmt.md"];
    assert!(
        fmt.contains("\n以后提交代码前都要先跑 cargo fmt。\n\nWhy: CI 会拒绝没格式化的代码\n"),
        "{fmt}"
    );
    let rule = &docs["project/我们团队规定-never-push-to-main.md"];
    let name = rule.lines().nth(1).unwrap();
    assert!(
        name.starts_with("name: ")
            && name.contains("我们团队规定")
            && name.contains("never push to main"),
        "{rule}"
    );
    assert!(
        rule.contains("\n\n我们团队规定: never push to main.\n"),
        "{rule}"
    );
}

#[test]
fn chinese_remember_gets_a_cjk_slug_and_never_a_placeholder() {
    let sb = Sandbox::new();
    let first = sb.json(&["remember", "部署流程：先发预发环境，再发生产。"]);
    let second = sb.json(&["remember", "接口文档在 https://docs.example.cn/api 。"]);
    let third = sb.json(&[
        "remember",
        "--type",
        "feedback",
        "代码注释统一用中文写，因为团队里大多数人读中文更快。",
    ]);
    let paths: Vec<String> = [&first, &second, &third]
        .iter()
        .map(|r| r["change"]["relativePath"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(paths[0], "project/部署流程.md", "{first}");
    assert!(
        paths[1].ends_with("/接口文档在-https-docs-example-cn-api.md"),
        "{second}"
    );
    assert_eq!(paths[2], "feedback/代码注释统一用中文写.md", "{third}");
    for p in &paths {
        assert!(!p.contains("memory"), "{p}");
    }
    let doc = fs::read_to_string(sb.private_root().join(&paths[2])).unwrap();
    assert!(
        doc.starts_with("---\nname: 代码注释统一用中文写\n"),
        "{doc}"
    );
    assert!(
        doc.contains("\n代码注释统一用中文写。\n\nWhy: 团队里大多数人读中文更快\n"),
        "{doc}"
    );
}
