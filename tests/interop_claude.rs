//! Interop suite: this tool's agent hooks inside the real Claude Code.
//!
//! Opt-in with `QWEN_MEMORY_INTEROP=1` (`.ci/run` sets it), like `tests/interop.rs`. The pinned
//! `@anthropic-ai/claude-code` is installed from npm into a cache on first use
//! (`interop/claude.rs`); every check runs `claude -p …` in a sandbox whose settings got
//! `git qwen-memory install --agent claude`, against a loopback Anthropic Messages server
//! (`interop/anthropic.rs`) that records every request and answers a fixed text.

use crate::anthropic;
use crate::claude;
use crate::common;

use std::fs;

use serde_json::Value;

use anthropic::{AnthropicServer, Request};
use claude::{hook_errors, result_json, OurBinary, World};
use common::assert_success;

const REPLY: &str = "Done: interop reply.";
const DEPLOY_PROMPT: &str = "How do we deploy from release branches?";

/// Remembers the deploy rule and installs the Claude hooks; returns the memory's heading as
/// our recall block prints it (`(<relative path>)`), which appears once per injection.
fn world_with_memory() -> (World, String) {
    let world = World::new();
    let out = world
        .ours()
        .args([
            "remember",
            "--json",
            "--type",
            "project",
            "Deploy only from release branches, because main is not always green.",
        ])
        .output()
        .expect("remember");
    assert_success(&out, &["remember"]);
    let v: Value = serde_json::from_slice(&out.stdout).expect("remember --json");
    let rel = v["change"]["relativePath"]
        .as_str()
        .expect("relativePath")
        .to_string();
    install(&world);
    (world, format!("({rel})"))
}

fn install(world: &World) {
    let out = world
        .ours()
        .args(["install", "--agent", "claude"])
        .output()
        .expect("install");
    assert_success(&out, &["install", "--agent", "claude"]);
    let settings = fs::read_to_string(world.settings_path()).expect("claude settings");
    for event in ["UserPromptSubmit", "Stop", "SessionStart"] {
        assert!(
            settings.contains(event),
            "{event} hook missing:\n{settings}"
        );
    }
}

fn message_requests(server: &AnthropicServer, since: usize) -> Vec<Request> {
    server
        .requests()
        .into_iter()
        .skip(since)
        .filter(Request::is_message)
        .collect()
}

/// The most times `needle` occurs in one model request made since request `since`.
fn max_count(server: &AnthropicServer, since: usize, needle: &str) -> usize {
    message_requests(server, since)
        .iter()
        .map(|r| r.text().matches(needle).count())
        .max()
        .unwrap_or(0)
}

fn session_id(result: &Value) -> String {
    result["session_id"]
        .as_str()
        .expect("session_id")
        .to_string()
}

fn assert_turn_ok(result: &Value) {
    assert_eq!(result["is_error"], Value::Bool(false), "{result}");
    assert_eq!(result["result"].as_str(), Some(REPLY), "{result}");
}

/// A memory we hold reaches Claude's model request exactly once, as the UserPromptSubmit
/// hook's additional context.
#[test]
fn claude_recall_hook_puts_a_held_memory_into_the_request_once() {
    if !claude::enabled("claude_recall_hook_puts_a_held_memory_into_the_request_once") {
        return;
    }
    let (world, heading) = world_with_memory();
    let server = AnthropicServer::always(REPLY);
    let result = world.claude_ok(&server, DEPLOY_PROMPT, &[]);
    assert_turn_ok(&result);
    let requests = message_requests(&server, 0);
    assert!(!requests.is_empty(), "Claude never asked the model");
    let total: usize = requests
        .iter()
        .map(|r| r.text().matches(&heading).count())
        .sum();
    assert_eq!(total, 1, "memory {heading} should reach the model once");
    let carrying = requests
        .iter()
        .find(|r| r.text().contains(&heading))
        .expect("request with the memory");
    let text = carrying.text();
    assert!(text.contains("## Relevant memory"), "{text}");
    assert!(text.contains("Why: main is not always green."), "{text}");
    assert!(
        hook_errors(&world.transcript(&session_id(&result))).is_empty(),
        "Claude recorded a hook error"
    );
}

/// After the turn, the Stop hook extracted the rule the user stated into memory, exactly once
/// (Stop and SessionEnd both fire; one memory must come of it).
#[test]
fn claude_stop_hook_extracts_a_stated_rule_once() {
    if !claude::enabled("claude_stop_hook_extracts_a_stated_rule_once") {
        return;
    }
    let world = World::new();
    install(&world);
    let server = AnthropicServer::always(REPLY);
    let result = world.claude_ok(
        &server,
        "From now on always run cargo fmt before committing.",
        &[],
    );
    assert_turn_ok(&result);
    world.wait_for_extractions();
    let out = world
        .ours()
        .args(["list", "--json"])
        .output()
        .expect("list");
    assert_success(&out, &["list", "--json"]);
    let docs: Vec<Value> = serde_json::from_slice(&out.stdout).expect("list --json");
    let about_fmt: Vec<&Value> = docs
        .iter()
        .filter(|d| {
            let t = format!("{} {}", d["title"], d["description"]).to_lowercase();
            t.contains("cargo fmt")
        })
        .collect();
    assert_eq!(
        about_fmt.len(),
        1,
        "one memory about cargo fmt expected: {docs:#?}"
    );
    assert_eq!(about_fmt[0]["entries"], 1, "{docs:#?}");
    let path = about_fmt[0]["path"].as_str().expect("path");
    let body = fs::read_to_string(path).expect("memory file");
    assert!(
        !body.contains(REPLY),
        "the assistant's reply is not a fact:\n{body}"
    );
    let log = fs::read_to_string(world.sb.private_state().join("hook.log")).unwrap_or_default();
    // Stop and SessionEnd both fire for this one turn: one extraction process comes of them.
    assert_eq!(
        log.matches("hook extract: started").count(),
        1,
        "one extract per turn end; hook.log:\n{log}"
    );
}

/// With our binary absent from Claude's PATH the guarded hooks do nothing: the turn succeeds,
/// nothing is injected and Claude records no hook error. The same run with the unguarded
/// command shows the error, so the check can see one.
#[test]
fn claude_guarded_hooks_without_our_binary_cause_no_hook_error() {
    if !claude::enabled("claude_guarded_hooks_without_our_binary_cause_no_hook_error") {
        return;
    }
    let (world, heading) = world_with_memory();
    let server = AnthropicServer::always(REPLY);
    let out = world.claude(&server, DEPLOY_PROMPT, &[], OurBinary::Absent);
    let result = result_json(&out, DEPLOY_PROMPT);
    assert_turn_ok(&result);
    assert!(
        out.stderr.is_empty(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        !stdout.to_lowercase().contains("hook"),
        "stdout mentions a hook: {stdout}"
    );
    let errors = hook_errors(&world.transcript(&session_id(&result)));
    assert!(
        errors.is_empty(),
        "Claude recorded hook errors: {errors:#?}"
    );
    assert_eq!(
        max_count(&server, 0, &heading),
        0,
        "nothing can be recalled without the binary"
    );

    // Control: the unguarded form of the same command is reported as a hook error.
    let settings = fs::read_to_string(world.settings_path()).expect("settings");
    let unguarded = settings
        .replace("command -v git-qwen-memory >/dev/null 2>&1 && ", "")
        .replace(" || true", "");
    assert_ne!(
        unguarded, settings,
        "the installed commands are not guarded:\n{settings}"
    );
    fs::write(world.settings_path(), unguarded).expect("write settings");
    let out = world.claude(&server, DEPLOY_PROMPT, &[], OurBinary::Absent);
    let result = result_json(&out, DEPLOY_PROMPT);
    let errors = hook_errors(&world.transcript(&session_id(&result)));
    assert!(
        errors
            .iter()
            .any(|e| e["attachment"]["hookEvent"] == "UserPromptSubmit"),
        "the unguarded command should be recorded as a hook error: {errors:#?}"
    );
}

/// Runs the deploy prompt, the same prompt resumed, `/compact`, and the prompt again; returns
/// how often the memory reached the model in the first, second and last turn.
fn surfaced_around_compaction(world: &World, heading: &str) -> [usize; 3] {
    let server = AnthropicServer::always(REPLY);
    let first = world.claude_ok(&server, DEPLOY_PROMPT, &[]);
    assert_turn_ok(&first);
    let sid = session_id(&first);
    let in_first = max_count(&server, 0, heading);
    let mark = server.requests().len();
    let second = world.claude_ok(&server, DEPLOY_PROMPT, &["--resume", &sid]);
    assert_turn_ok(&second);
    // The resumed request replays the first turn's context; a second injection would make 2.
    let in_second = max_count(&server, mark, heading);
    let compacted = world.claude_ok(&server, "/compact", &["--resume", &sid]);
    assert_eq!(compacted["is_error"], Value::Bool(false), "{compacted}");
    let mark = server.requests().len();
    let last = world.claude_ok(&server, DEPLOY_PROMPT, &["--resume", &sid]);
    assert_turn_ok(&last);
    let in_last = max_count(&server, mark, heading);
    world.wait_for_extractions();
    [in_first, in_second, in_last]
}

/// `claude -p --resume <id> /compact` compacts the session and fires SessionStart with source
/// `compact`; our hook resets the session's "already surfaced" record, so the memory reaches
/// the model again on the next turn. Without that hook (control) it does not.
#[test]
fn claude_compaction_resets_surfaced_memories() {
    if !claude::enabled("claude_compaction_resets_surfaced_memories") {
        return;
    }
    let (world, heading) = world_with_memory();
    assert_eq!(surfaced_around_compaction(&world, &heading), [1, 1, 1]);
    let log = fs::read_to_string(world.sb.private_state().join("hook.log")).unwrap_or_default();
    assert!(
        log.contains("hook session-start: compact"),
        "hook.log:\n{log}"
    );

    let (control, heading) = world_with_memory();
    let mut settings: Value =
        serde_json::from_str(&fs::read_to_string(control.settings_path()).expect("settings"))
            .expect("settings json");
    settings["hooks"]
        .as_object_mut()
        .expect("hooks")
        .remove("SessionStart")
        .expect("SessionStart installed");
    fs::write(control.settings_path(), settings.to_string()).expect("write settings");
    assert_eq!(
        surfaced_around_compaction(&control, &heading),
        [1, 1, 0],
        "without the SessionStart hook the memory stays marked as surfaced after compaction"
    );
}
