//! Interop suite for the MCP server: the real Qwen Code 0.24.4, Claude Code 2.1.332 and Codex CLI
//! 0.171.0, each configured by our `install --agent …`, driven against a loopback model server that
//! answers with a call of the server's `remember` and then of its `recall`. The memory must be
//! on disk (with MCP provenance), appear in `git qwen-memory list`, and the recall result must
//! reach the model's next request.
//!
//! Opt-in with `QWEN_MEMORY_INTEROP=1`, like tests/interop.rs and tests/interop_claude.rs
//! (`.ci/run` sets it); the clients are installed from npm into `target/tmp` on first use.

use crate::anthropic;
use crate::claude;
use crate::codex;
use crate::common;
use crate::gemini;
use crate::gemini_api;
use crate::qwen;
use crate::responses;
use crate::server;

use std::fs;
use std::path::Path;

use serde_json::{json, Value};

const FACT: &str = "The nightly load test runs against the perf-eu cluster";
const QUERY: &str = "where does the nightly load test run";

fn md_files(dir: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let Ok(entries) = fs::read_dir(dir) else {
        return out;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(md_files(&p));
        } else if p.extension().is_some_and(|x| x == "md") {
            out.push((
                p.display().to_string(),
                fs::read_to_string(&p).unwrap_or_default(),
            ));
        }
    }
    out
}

/// The memory document holding [`FACT`], with provenance naming the client.
fn assert_saved_through_mcp(root: &Path, client: &str, listed: &str) {
    let docs = md_files(root);
    let (path, text) = docs
        .iter()
        .find(|(p, t)| !p.ends_with("MEMORY.md") && t.contains(FACT))
        .unwrap_or_else(|| {
            panic!(
                "no memory holds the fact under {}: {docs:#?}",
                root.display()
            )
        });
    assert!(text.contains("source: mcp"), "{path}: {text}");
    let named = text
        .lines()
        .find_map(|l| l.strip_prefix("client: "))
        .unwrap_or_default()
        .to_lowercase();
    assert!(
        named.contains(client),
        "{path}: the client is not named: {text}"
    );
    assert!(listed.contains("nightly load test"), "list: {listed}");
}

#[test]
fn qwen_code_remembers_and_recalls_through_the_mcp_server() {
    if !qwen::enabled("qwen_code_remembers_and_recalls_through_the_mcp_server") {
        return;
    }
    let world = qwen::World::new();
    let out = world
        .ours()
        .args(["install", "--agent", "qwen"])
        .output()
        .unwrap();
    common::assert_success(&out, &["install", "--agent", "qwen"]);
    let settings: Value =
        serde_json::from_str(&fs::read_to_string(world.user_settings_path()).unwrap()).unwrap();
    assert_eq!(
        settings["mcpServers"]["qwen-memory"]["args"],
        json!(["mcp"])
    );

    // Qwen Code 0.24.4 defers MCP tools behind `tool_call`; a model may also be offered the
    // tool by its own name. Either way: remember first, then recall, then answer.
    let server = server::ModelServer::start(|req| {
        if req.is_extraction_agent() {
            return server::Answer::Text("Nothing to save.".into());
        }
        let names = req.tool_names();
        let call = |tool: &str, args: Value| {
            let full = format!("mcp__qwen-memory__{tool}");
            if names.contains(&full) {
                server::Answer::Tools(vec![(full, args)])
            } else {
                server::Answer::Tools(vec![(
                    "tool_call".to_string(),
                    json!({"name": full, "arguments": args}),
                )])
            }
        };
        if names.is_empty() {
            return server::Answer::Text("ok".into());
        }
        match req.tool_results() {
            0 => call("remember", json!({"text": FACT, "type": "project"})),
            1 => call("recall", json!({"query": QUERY})),
            _ => server::Answer::Text("Done.".into()),
        }
    });
    let stdout = world.qwen_ok(
        &server,
        "Please remember where the nightly load test runs.",
        &["--yolo"],
    );
    let listed =
        String::from_utf8_lossy(&world.ours().arg("list").output().unwrap().stdout).into_owned();
    assert_saved_through_mcp(&world.private_root(), "qwen", &listed);
    // The recall tool's answer is in the request after it.
    let last = server
        .main_requests()
        .into_iter()
        .rfind(|r| r.tool_results() >= 2)
        .unwrap_or_else(|| panic!("no request after the recall call; stdout: {stdout}"));
    let tool_messages: Vec<String> = last
        .messages()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(server::content_text)
        .collect();
    assert!(
        tool_messages
            .iter()
            .any(|t| t.contains("## Relevant memory") && t.contains("perf-eu")),
        "recall result not in the next request: {tool_messages:#?}"
    );
}

#[test]
fn claude_code_remembers_and_recalls_through_the_mcp_server() {
    if !claude::enabled("claude_code_remembers_and_recalls_through_the_mcp_server") {
        return;
    }
    let world = claude::World::new();
    let out = world
        .ours()
        .env("CLAUDE_CONFIG_DIR", world.config_dir())
        .args(["install", "--agent", "claude"])
        .output()
        .unwrap();
    common::assert_success(&out, &["install", "--agent", "claude"]);
    let config = world.config_dir().join(".claude.json");
    let registered: Value = serde_json::from_str(&fs::read_to_string(&config).unwrap()).unwrap();
    assert_eq!(registered["mcpServers"]["qwen-memory"]["type"], "stdio");

    // Claude Code 2.1.332 defers MCP tools: the request names them, and `ToolSearch` with
    // `select:` loads them. The model loads ours, remembers, recalls, then answers.
    let server = anthropic::AnthropicServer::start(|req| {
        let tools: Vec<String> = req.body["tools"]
            .as_array()
            .map(|t| {
                t.iter()
                    .filter_map(|t| t["name"].as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        let called: Vec<String> = req.body["messages"]
            .as_array()
            .map(|m| {
                m.iter()
                    .filter(|m| m["role"] == "assistant")
                    .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
                    .filter(|c| c["type"] == "tool_use")
                    .filter_map(|c| c["name"].as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        let offered = |t: &str| tools.iter().any(|n| n == t);
        let done = |t: &str| called.iter().any(|n| n == t);
        let remember = "mcp__qwen-memory__remember";
        let recall = "mcp__qwen-memory__recall";
        if !offered(remember)
            && !done("ToolSearch")
            && req.text().contains(remember)
            && offered("ToolSearch")
        {
            return anthropic::Reply::ToolUse(
                "ToolSearch".into(),
                json!({"query": format!("select:{remember},{recall}"), "max_results": 5}),
            );
        }
        if !offered(remember) && !done(remember) {
            return anthropic::Reply::Text("ok".into());
        }
        if !done(remember) {
            return anthropic::Reply::ToolUse(
                remember.into(),
                json!({"text": FACT, "type": "project"}),
            );
        }
        if !done(recall) {
            return anthropic::Reply::ToolUse(recall.into(), json!({"query": QUERY}));
        }
        anthropic::Reply::Text("Done.".into())
    });
    let result = world.claude_ok(
        &server,
        "Please remember where the nightly load test runs.",
        &[
            "--allowedTools",
            "mcp__qwen-memory__remember,mcp__qwen-memory__recall",
        ],
    );
    let listed =
        String::from_utf8_lossy(&world.ours().arg("list").output().unwrap().stdout).into_owned();
    if !listed.contains("nightly load test") {
        let offered: Vec<Vec<String>> = server
            .requests()
            .iter()
            .filter(|r| r.is_message())
            .map(|r| {
                r.body["tools"]
                    .as_array()
                    .map(|t| {
                        t.iter()
                            .filter_map(|t| t["name"].as_str().map(str::to_string))
                            .collect()
                    })
                    .unwrap_or_default()
            })
            .collect();
        panic!("Claude Code did not save through the server.\ntools offered per request: {offered:?}\nresult: {result}");
    }
    assert_saved_through_mcp(&world.sb.private_root(), "claude", &listed);
    let after_recall = server
        .requests()
        .into_iter()
        .filter(|r| r.is_message())
        .map(|r| r.body["messages"].to_string())
        .rfind(|m| m.contains("mcp__qwen-memory__recall") && m.contains("## Relevant memory"))
        .unwrap_or_else(|| panic!("no request after the recall call: {result}"));
    assert!(
        after_recall.contains("## Relevant memory") && after_recall.contains("perf-eu"),
        "recall result not in the next request: {after_recall}"
    );
}

/// The namespace Codex CLI 0.171.0 offers our server's tools under (docs/mcp.md).
const CODEX_NAMESPACE: &str = "mcp__qwen_memory";

#[test]
fn codex_cli_remembers_and_recalls_through_the_mcp_server() {
    let check = "codex_cli_remembers_and_recalls_through_the_mcp_server";
    let Some(exe) = codex::ready(check) else {
        return;
    };
    let world = codex::World::new();
    let out = world
        .ours()
        .args(["install", "--agent", "codex"])
        .output()
        .unwrap();
    common::assert_success(&out, &["install", "--agent", "codex"]);
    let config = fs::read_to_string(world.config_path()).unwrap();
    assert!(
        config.contains("[mcp_servers.qwen-memory]")
            && config.contains("env_vars = [\"QWEN_CODE_MEMORY_BASE_DIR\"]"),
        "install wrote: {config}"
    );

    // Codex offers the server's tools as one namespace; the model calls `remember`, then
    // `recall`, then answers. A model not offered them just answers (and the checks fail).
    let server = responses::ResponsesServer::start(|req| {
        let offered = req.tool_names();
        if !offered.contains(&format!("{CODEX_NAMESPACE}.remember")) {
            return responses::Reply::Text("ok".into());
        }
        let done: Vec<String> = req
            .calls()
            .into_iter()
            .filter(|c| c.namespace.as_deref() == Some(CODEX_NAMESPACE))
            .map(|c| c.name)
            .collect();
        let call = |name: &str, arguments: Value| responses::Reply::Call {
            namespace: Some(CODEX_NAMESPACE.into()),
            name: name.into(),
            arguments,
        };
        if !done.iter().any(|n| n == "remember") {
            return call("remember", json!({"text": FACT, "type": "project"}));
        }
        if !done.iter().any(|n| n == "recall") {
            return call("recall", json!({"query": QUERY}));
        }
        responses::Reply::Text("Done.".into())
    });
    let run = world.codex_ok(
        &exe,
        &server,
        "Please remember where the nightly load test runs.",
        &["--dangerously-bypass-approvals-and-sandbox"],
    );
    let turns = server.turns();
    let ours_offered = turns.iter().any(|t| {
        t.tool_names()
            .contains(&format!("{CODEX_NAMESPACE}.remember"))
    });
    assert!(
        ours_offered,
        "Codex never offered our tools; tools per turn: {:?}\n{run}",
        turns.iter().map(|t| t.tool_names()).collect::<Vec<_>>()
    );
    assert!(
        turns
            .iter()
            .all(|t| t.header("authorization") == Some("Bearer sk-interop-dummy")),
        "Codex did not use the loopback provider's key"
    );

    let listed =
        String::from_utf8_lossy(&world.ours().arg("list").output().unwrap().stdout).into_owned();
    assert!(
        listed.contains("nightly load test"),
        "Codex did not save through the server: list says {listed}\n{run}"
    );
    assert_saved_through_mcp(&world.sb.private_root(), "codex", &listed);

    // Each tool's answer is in the request after its call: remember's is its structured
    // content (a document created), recall's holds the "## Relevant memory" block.
    let answer_of = |tool: &str| {
        turns
            .iter()
            .find_map(|t| {
                let call = t
                    .calls()
                    .into_iter()
                    .find(|c| c.namespace.as_deref() == Some(CODEX_NAMESPACE) && c.name == tool)?;
                t.output_of(&call.call_id)
            })
            .unwrap_or_else(|| panic!("no request carries the answer of `{tool}`\n{run}"))
    };
    let remembered = answer_of("remember");
    assert!(
        remembered.contains(r#""kind":"created""#) && remembered.contains("perf-eu"),
        "remember's answer: {remembered}"
    );
    let recalled = answer_of("recall");
    assert!(
        recalled.contains("## Relevant memory") && recalled.contains("perf-eu"),
        "recall result not in the next request: {recalled}"
    );
    assert!(
        run.stdout.contains("Done."),
        "the final answer is not printed\n{run}"
    );

    // Everything our server wrote on stdout is JSON-RPC.
    let said = fs::read_to_string(world.server_stdout_log()).unwrap_or_default();
    assert!(!said.trim().is_empty(), "the server said nothing\n{run}");
    for line in said.lines().filter(|l| !l.trim().is_empty()) {
        let message: Value = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("not JSON on the server's stdout ({e}): {line:?}"));
        assert_eq!(message["jsonrpc"], "2.0", "not JSON-RPC: {line}");
    }
}

#[test]
fn gemini_cli_remembers_and_recalls_through_the_mcp_server() {
    let check = "gemini_cli_remembers_and_recalls_through_the_mcp_server";
    let Some(cli) = gemini::ready(check) else {
        return;
    };
    let world = gemini::World::new();
    let out = world
        .ours()
        .args(["install", "--agent", "gemini"])
        .output()
        .unwrap();
    common::assert_success(&out, &["install", "--agent", "gemini"]);
    let entry = || -> Value {
        let settings: Value =
            serde_json::from_str(&fs::read_to_string(world.settings_path()).unwrap()).unwrap();
        settings["mcpServers"]["qwen-memory"].clone()
    };
    let installed = entry();
    assert_eq!(
        installed["args"],
        json!(["mcp"]),
        "install wrote: {installed}"
    );

    // Our tools by whatever name Gemini CLI declares them; side questions (which want JSON)
    // get a JSON answer.
    let server = gemini_api::GeminiServer::start(|req| {
        if !req.is_streamed() {
            return gemini_api::Reply::Text(
                json!({"complexity_reasoning": "simple", "complexity_score": 1,
                       "reasoning": "answered", "next_speaker": "user"})
                .to_string(),
            );
        }
        let names = req.tool_names();
        let ours = |tool: &str| {
            names
                .iter()
                .find(|n| *n == tool || (n.ends_with(&format!("_{tool}")) && n.contains("qwen")))
                .cloned()
        };
        let (Some(remember), Some(recall)) = (ours("remember"), ours("recall")) else {
            return gemini_api::Reply::Text("ok".into());
        };
        let called = req.called();
        if !called.contains(&remember) {
            return gemini_api::Reply::Call(remember, json!({"text": FACT, "type": "project"}));
        }
        if !called.contains(&recall) {
            return gemini_api::Reply::Call(recall, json!({"query": QUERY}));
        }
        gemini_api::Reply::Text("Done.".into())
    });
    let out = world.gemini(
        &cli,
        &server,
        "Please remember where the nightly load test runs.",
        &["--yolo"],
    );
    let run = format!(
        "gemini stdout:\n{}\ngemini stderr:\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.status.success(),
        "gemini failed ({:?})\n{run}",
        out.status.code()
    );
    let turns: Vec<gemini_api::Request> = server
        .requests()
        .into_iter()
        .filter(|r| r.is_streamed())
        .collect();
    let listed =
        String::from_utf8_lossy(&world.ours().arg("list").output().unwrap().stdout).into_owned();
    assert!(
        listed.contains("nightly load test"),
        "Gemini CLI did not save through the server: list says {listed}\ntools per turn: {:?}\n{run}",
        turns.iter().map(|t| t.tool_names()).collect::<Vec<_>>()
    );
    assert_saved_through_mcp(&world.sb.private_root(), "gemini", &listed);
    let recall = turns
        .iter()
        .flat_map(|t| t.called())
        .find(|n| n.ends_with("recall"))
        .unwrap_or_else(|| panic!("recall was never called\n{run}"));
    let recalled = turns
        .iter()
        .find_map(|t| t.response_of(&recall))
        .unwrap_or_else(|| panic!("no request carries recall's answer\n{run}"));
    assert!(
        recalled.contains("## Relevant memory") && recalled.contains("perf-eu"),
        "recall result not in the next request: {recalled}"
    );
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("Done."),
        "the final answer is not printed\n{run}"
    );
    assert_eq!(entry(), installed, "Gemini CLI changed our entry");

    let said = fs::read_to_string(world.server_stdout_log()).unwrap_or_default();
    assert!(!said.trim().is_empty(), "the server said nothing\n{run}");
    for line in said.lines().filter(|l| !l.trim().is_empty()) {
        let message: Value = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("not JSON on the server's stdout ({e}): {line:?}"));
        assert_eq!(message["jsonrpc"], "2.0", "not JSON-RPC: {line}");
    }
}
