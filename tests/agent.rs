//! Agent integration: settings install/uninstall on existing files, and the hook entry points
//! fed the payloads of docs/DESIGN.md, "Agent integration" (Qwen Code and Claude Code).

use crate::common;

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use common::*;
use serde_json::{json, Value};

const QWEN_EXISTING: &str = r#"{
  "model": { "name": "qwen3-coder-plus" },
  "hooks": {
    "UserPromptSubmit": [
      { "hooks": [ { "type": "command", "name": "lint-reminder", "command": "echo remember lint", "timeout": 2000 } ] }
    ],
    "PreToolUse": [
      { "matcher": "run_shell_command", "hooks": [ { "type": "command", "command": "audit.sh" } ] }
    ]
  },
  "ui": { "theme": "dark" }
}
"#;

const CLAUDE_EXISTING: &str = "{\n    \"permissions\": {\"allow\": [\"Bash(npm test)\"]},\n    \"hooks\": {\n        \"Stop\": [ {\"hooks\": [ {\"type\": \"command\", \"command\": \"notify-send done\"} ]} ]\n    }\n}";

fn run(sb: &Sandbox, args: &[&str]) -> std::process::Output {
    let out = sb.cmd().args(args).output().unwrap();
    assert_success(&out, args);
    out
}

#[test]
fn settings_install_merges_and_uninstall_restores_bytes() {
    let sb = Sandbox::new();
    let qwen = sb.home.join(".qwen/settings.json");
    let claude = sb.home.join(".claude/settings.json");
    fs::create_dir_all(qwen.parent().unwrap()).unwrap();
    fs::create_dir_all(claude.parent().unwrap()).unwrap();
    fs::write(&qwen, QWEN_EXISTING).unwrap();
    fs::write(&claude, CLAUDE_EXISTING).unwrap();

    run(&sb, &["install", "--hooks", "none", "--agent", "all"]);
    let q: Value = serde_json::from_str(&fs::read_to_string(&qwen).unwrap()).unwrap();
    assert_eq!(q["model"]["name"], "qwen3-coder-plus");
    assert_eq!(q["ui"]["theme"], "dark");
    let ups = q["hooks"]["UserPromptSubmit"].as_array().unwrap();
    assert_eq!(ups.len(), 2);
    assert_eq!(ups[0]["hooks"][0]["name"], "lint-reminder");
    assert_eq!(
        ups[1]["hooks"][0]["command"],
        "command -v git-qwen-memory >/dev/null 2>&1 && git-qwen-memory hook recall --agent qwen || true"
    );
    assert_eq!(
        ups[1]["hooks"][0]["timeout"], 10,
        "Qwen 0.24.4 reads hook timeouts in seconds"
    );
    for event in ["Stop", "SessionEnd", "PreCompact"] {
        assert_eq!(
            q["hooks"][event][0]["hooks"][0]["command"],
            "command -v git-qwen-memory >/dev/null 2>&1 && git-qwen-memory hook extract --agent qwen || true"
        );
    }
    assert_eq!(q["hooks"]["PreToolUse"][0]["matcher"], "run_shell_command");
    let c: Value = serde_json::from_str(&fs::read_to_string(&claude).unwrap()).unwrap();
    assert_eq!(c["permissions"]["allow"][0], "Bash(npm test)");
    let stop = c["hooks"]["Stop"].as_array().unwrap();
    assert_eq!(stop[0]["hooks"][0]["command"], "notify-send done");
    assert_eq!(
        stop[1]["hooks"][0]["command"],
        "command -v git-qwen-memory >/dev/null 2>&1 && git-qwen-memory hook extract --agent claude || true"
    );
    assert_eq!(
        c["hooks"]["UserPromptSubmit"][0]["hooks"][0]["timeout"], 10,
        "Claude: seconds"
    );
    assert!(
        fs::read_to_string(&claude)
            .unwrap()
            .contains("\n    \"permissions\""),
        "indent kept"
    );

    // Idempotent.
    let (q1, c1) = (fs::read(&qwen).unwrap(), fs::read(&claude).unwrap());
    run(&sb, &["install", "--hooks", "none", "--agent", "all"]);
    assert_eq!(
        (fs::read(&qwen).unwrap(), fs::read(&claude).unwrap()),
        (q1, c1)
    );
    let st = sb.json(&["status"]);
    assert_eq!(st["hooks"]["agents"].as_array().unwrap().len(), 2);

    run(&sb, &["uninstall", "--agent", "qwen"]);
    assert_eq!(fs::read_to_string(&qwen).unwrap(), QWEN_EXISTING);
    assert!(fs::read_to_string(&claude)
        .unwrap()
        .contains("hook recall --agent claude"));
    run(&sb, &["uninstall", "--agent", "claude"]);
    assert_eq!(fs::read_to_string(&claude).unwrap(), CLAUDE_EXISTING);
    // Nothing left to remove.
    run(&sb, &["uninstall", "--agent", "all"]);
    assert_eq!(fs::read_to_string(&qwen).unwrap(), QWEN_EXISTING);
}

/// A settings file the person edited after `install` is not restored from the backup; the
/// uninstall takes out only its own entries, where they are, so the person's layout (inline
/// arrays, spacing) and their edit stay byte for byte (docs/DESIGN.md, "Agent integration").
#[test]
fn uninstall_after_a_persons_edit_cuts_out_only_its_own_entries() {
    let sb = Sandbox::new();
    let qwen = sb.home.join(".qwen/settings.json");
    fs::create_dir_all(qwen.parent().unwrap()).unwrap();
    fs::write(&qwen, QWEN_EXISTING).unwrap();
    run(&sb, &["install", "--hooks", "none", "--agent", "qwen"]);
    let installed = fs::read_to_string(&qwen).unwrap();
    assert!(
        installed.contains("hook recall --agent qwen"),
        "{installed}"
    );
    // The person's own edit, in their own layout.
    let edited = installed.replace("\"theme\": \"dark\"", "\"theme\":  \"light\"");
    assert_ne!(edited, installed);
    fs::write(&qwen, &edited).unwrap();
    run(&sb, &["uninstall", "--agent", "qwen"]);
    assert_eq!(
        fs::read_to_string(&qwen).unwrap(),
        QWEN_EXISTING.replace("\"theme\": \"dark\"", "\"theme\":  \"light\"")
    );
}

#[test]
fn project_settings_are_created_and_removed_and_duplicates_warned() {
    let sb = Sandbox::new();
    let project = sb.repo.join(".qwen/settings.json");
    run(
        &sb,
        &["install", "--hooks", "none", "--agent", "qwen", "--project"],
    );
    let v: Value = serde_json::from_str(&fs::read_to_string(&project).unwrap()).unwrap();
    assert_eq!(
        v["hooks"]["UserPromptSubmit"][0]["hooks"][0]["name"],
        "qwen-memory-recall"
    );
    let out = run(&sb, &["install", "--hooks", "none", "--agent", "qwen"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("twice"));
    run(&sb, &["uninstall", "--agent", "qwen", "--project"]);
    assert!(!project.exists(), "a file install created is deleted");
    run(&sb, &["uninstall", "--agent", "qwen"]);
    assert!(!sb.home.join(".qwen/settings.json").exists());
}

#[test]
fn invalid_settings_json_is_left_alone() {
    let sb = Sandbox::new();
    let path = sb.home.join(".claude/settings.json");
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(&path, "{ // a comment\n}").unwrap();
    let out = sb
        .cmd()
        .args(["install", "--hooks", "none", "--agent", "claude"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not valid JSON"));
    assert_eq!(fs::read_to_string(&path).unwrap(), "{ // a comment\n}");
    let out = sb
        .cmd()
        .args([
            "install", "--manual", "--hooks", "none", "--agent", "claude",
        ])
        .output()
        .unwrap();
    assert_success(&out, &["--manual"]);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("command -v git-qwen-memory >/dev/null 2>&1 && git-qwen-memory hook recall --agent claude || true")
    );
}

fn hook(sb: &Sandbox, name: &str, agent: &str, payload: &str) -> std::process::Output {
    let out = sb
        .cmd()
        .args(["hook", name, "--agent", agent])
        .write_stdin(payload.to_string())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "hooks always exit 0");
    assert!(
        out.stderr.is_empty(),
        "no stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn seed(sb: &Sandbox) {
    let root = sb.private_root();
    write_doc(
        &root,
        "project/ci-timezone.md",
        &doc_text(
            "CI timezone",
            "CI runs tests with TZ=UTC",
            "project",
            "The checkout test fails on CI unless TZ=UTC is set.\n\nHow to apply: export TZ=UTC before running tests locally.",
        ),
    );
    write_doc(
        &root,
        "feedback/pnpm.md",
        &doc_text(
            "Use pnpm",
            "Use pnpm, not npm",
            "feedback",
            "Use pnpm for every install.",
        ),
    );
}

/// Turns Qwen Code's own managed auto-memory off in the sandbox's user settings, so our Qwen
/// hooks recall from every root and extract (they leave to Qwen what it does itself).
fn qwen_own_memory_off(sb: &Sandbox) {
    let dir = sb.home.join(".qwen");
    fs::create_dir_all(&dir).unwrap();
    fs::write(
        dir.join("settings.json"),
        r#"{"memory": {"enableManagedAutoMemory": false}}"#,
    )
    .unwrap();
}

fn qwen_payload(sb: &Sandbox, session: &str) -> String {
    // The UserPromptSubmit payload of docs/DESIGN.md, "Agent integration", for this sandbox.
    json!({
        "session_id": session,
        "transcript_path": format!("{}/.qwen/projects/{}/chats/{session}.jsonl", sb.home.display(), sanitize(&sb.repo.display().to_string())),
        "cwd": sb.repo.display().to_string(),
        "hook_event_name": "UserPromptSubmit",
        "timestamp": "2026-03-02T09:14:05.000Z",
        "prompt": "Why does the checkout test fail on CI?\n\n--- Content from referenced files ---\n(expanded text)",
        "submitted_prompt": "Why does the checkout test fail on CI?",
    })
    .to_string()
}

/// The context the hook injects carries a remembered fact once, not once as the description and
/// again as the body (`remember` writes the sentence as both).
#[test]
fn recall_hook_injects_a_remembered_fact_once() {
    let sb = Sandbox::new();
    qwen_own_memory_off(&sb);
    let fact = "The checkout test needs TZ=UTC on CI.";
    sb.ok(&["remember", fact]);
    let out = hook(&sb, "recall", "qwen", &qwen_payload(&sb, "one-fact"));
    let v: Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    let ctx = v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    assert_eq!(ctx.matches(fact).count(), 1, "{ctx}");
}

#[test]
fn recall_hook_answers_qwen_with_additional_context_once_per_session() {
    let sb = Sandbox::new();
    qwen_own_memory_off(&sb);
    seed(&sb);
    let out = hook(
        &sb,
        "recall",
        "qwen",
        &qwen_payload(&sb, "7c1d2e0a-5b8f-4c1e-9a33-2f6b1d0e4a10"),
    );
    let v: Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    assert_eq!(v["hookSpecificOutput"]["hookEventName"], "UserPromptSubmit");
    let ctx = v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    assert!(ctx.starts_with("## Relevant memory"), "{ctx}");
    assert!(
        ctx.contains("### CI timezone (project/ci-timezone.md)"),
        "{ctx}"
    );
    assert!(!ctx.contains("pnpm"), "only relevant documents: {ctx}");
    assert!(
        !ctx.contains('<') && !ctx.contains('>'),
        "plain Markdown: {ctx}"
    );
    assert_eq!(v.as_object().unwrap().len(), 1);

    // Same session: already surfaced, so nothing is printed.
    let again = hook(
        &sb,
        "recall",
        "qwen",
        &qwen_payload(&sb, "7c1d2e0a-5b8f-4c1e-9a33-2f6b1d0e4a10"),
    );
    assert!(
        again.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&again.stdout)
    );
    // Another session sees it again.
    let other = hook(
        &sb,
        "recall",
        "qwen",
        &qwen_payload(&sb, "0e6f0000-0000-4000-8000-000000000000"),
    );
    assert!(!other.stdout.is_empty());
    let sessions = sb.private_state().join("recall-sessions");
    assert_eq!(fs::read_dir(&sessions).unwrap().count(), 2);
}

#[test]
fn recall_hook_answers_claude_and_prints_nothing_when_nothing_is_relevant() {
    let sb = Sandbox::new();
    seed(&sb);
    // The UserPromptSubmit payload of docs/DESIGN.md, "Agent integration".
    let payload = json!({
        "session_id": "3f9a1c52-0d4e-4b7a-8f61-5e2d9c0b7a44",
        "prompt_id": "a1b2c3d4-0000-4000-8000-000000000001",
        "transcript_path": format!("{}/.claude/projects/x/3f9a1c52.jsonl", sb.home.display()),
        "cwd": sb.repo.display().to_string(),
        "permission_mode": "default",
        "hook_event_name": "UserPromptSubmit",
        "prompt": "Should I use npm or pnpm to install?",
    })
    .to_string();
    let out = hook(&sb, "recall", "claude", &payload);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let ctx = v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    assert!(ctx.contains("### Use pnpm (feedback/pnpm.md)"), "{ctx}");

    let nothing = json!({"session_id": "s", "cwd": sb.repo.display().to_string(),
        "hook_event_name": "UserPromptSubmit", "prompt": "zebra quantum lattice"});
    assert!(hook(&sb, "recall", "claude", &nothing.to_string())
        .stdout
        .is_empty());
}

#[test]
fn hooks_survive_garbage_input_and_broken_setups_silently() {
    let sb = Sandbox::new();
    qwen_own_memory_off(&sb);
    seed(&sb);
    for payload in [
        "",
        "not json",
        "[1,2]",
        "{\"prompt\": 5}",
        "{\"cwd\": \"/nonexistent/dir\", \"prompt\": \"CI timezone\"}",
    ] {
        for name in ["recall", "extract"] {
            let out = hook(&sb, name, "qwen", payload);
            if payload.contains("nonexistent") && name == "recall" {
                // Falls back to the process cwd, the repository.
                assert!(!out.stdout.is_empty());
            } else {
                assert!(out.stdout.is_empty(), "{name} {payload}");
            }
        }
    }
    sb.git(&sb.repo, &["config", "qwen-memory.recall.limit", "many"]);
    let out = hook(&sb, "recall", "qwen", &qwen_payload(&sb, "s"));
    assert!(out.stdout.is_empty());
    let log = fs::read_to_string(sb.base.join("hook.log")).unwrap();
    assert!(log.contains("recall.limit"), "the error is logged: {log}");
    // Unknown hooks and the bypass variable are no-ops.
    hook(&sb, "no-such-hook", "qwen", "{}");
    let out = sb
        .cmd()
        .args(["hook", "recall", "--agent", "qwen"])
        .env("QWEN_MEMORY_HOOKS", "0")
        .write_stdin(qwen_payload(&sb, "s"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty() && out.stderr.is_empty());
}

fn recorder(sb: &Sandbox) -> (PathBuf, PathBuf) {
    let out = sb.root().join("rec");
    fs::create_dir_all(&out).unwrap();
    let script = sb.root().join("recorder");
    fs::write(
        &script,
        format!(
            "#!/bin/sh\nprintf '%s\\n' \"$@\" > {o}/args.tmp\npwd > {o}/cwd\ni=0\nwhile [ ! -e {o}/release ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done\nmv {o}/args.tmp {o}/args\n",
            o = out.display()
        ),
    )
    .unwrap();
    fs::set_permissions(&script, fs::Permissions::from_mode(0o755)).unwrap();
    (script, out)
}

fn wait_file(p: &Path) -> String {
    wait_until(
        &p.display().to_string(),
        || fs::read_to_string(p).ok(),
        String::new,
    )
}

#[test]
fn extract_hook_detaches_with_the_transcript_and_session() {
    let sb = Sandbox::new();
    let (script, rec) = recorder(&sb);
    let transcript = sb.home.join(".claude/projects/x/3f9a1c52.jsonl");
    // The SessionEnd payload of docs/DESIGN.md, "Agent integration".
    let payload = json!({
        "session_id": "3f9a1c52-0d4e-4b7a-8f61-5e2d9c0b7a44",
        "transcript_path": transcript.display().to_string(),
        "cwd": sb.repo.display().to_string(),
        "hook_event_name": "SessionEnd",
        "reason": "prompt_input_exit",
    })
    .to_string();
    let out = sb
        .cmd()
        .args(["hook", "extract", "--agent", "claude"])
        .env("QWEN_MEMORY_HOOK_EXEC", &script)
        .write_stdin(payload)
        .output()
        .unwrap();
    // The recorder holds its result until released, so returning before it proves the hook
    // did not wait for the detached run.
    assert!(
        !rec.join("args").exists(),
        "returned before the detached run ended"
    );
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty() && out.stderr.is_empty());
    fs::write(rec.join("release"), "").unwrap();
    let args = wait_file(&rec.join("args"));
    assert_eq!(
        args.lines().collect::<Vec<_>>(),
        vec![
            "extract",
            "--transcript",
            &transcript.display().to_string(),
            "--session",
            "3f9a1c52-0d4e-4b7a-8f61-5e2d9c0b7a44",
            "--trigger",
            "hook"
        ]
    );
    assert_eq!(
        wait_file(&rec.join("cwd")).trim(),
        sb.repo.display().to_string()
    );
}

#[test]
fn extract_hook_falls_back_to_the_qwen_chat_file_when_recording_path_is_empty() {
    let sb = Sandbox::new();
    qwen_own_memory_off(&sb);
    let (script, rec) = recorder(&sb);
    let session = "7c1d2e0a-5b8f-4c1e-9a33-2f6b1d0e4a10";
    let chats = sb
        .home
        .join(".qwen/projects")
        .join(sanitize(&sb.repo.display().to_string()))
        .join("chats");
    fs::create_dir_all(&chats).unwrap();
    let file = chats.join(format!("{session}.jsonl"));
    fs::write(&file, "{}\n").unwrap();
    // A Qwen Stop payload with chat recording reported off (transcript_path "").
    let payload = json!({
        "session_id": session, "transcript_path": "", "cwd": sb.repo.display().to_string(),
        "hook_event_name": "Stop", "timestamp": "2026-03-02T09:14:09.000Z",
        "stop_hook_active": false, "last_assistant_message": "Done.",
    })
    .to_string();
    let out = sb
        .cmd()
        .args(["hook", "extract", "--agent", "qwen"])
        .env("QWEN_MEMORY_HOOK_EXEC", &script)
        .write_stdin(payload)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    fs::write(rec.join("release"), "").unwrap();
    let args = wait_file(&rec.join("args"));
    assert!(args.contains(&file.display().to_string()), "{args}");

    // No file anywhere: nothing starts, the reason is logged.
    let payload = json!({"session_id": "missing", "transcript_path": "", "cwd": sb.repo.display().to_string()});
    let out = sb
        .cmd()
        .args(["hook", "extract", "--agent", "qwen"])
        .env("QWEN_MEMORY_HOOK_EXEC", &script)
        .write_stdin(payload.to_string())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let log = fs::read_to_string(sb.private_state().join("hook.log")).unwrap();
    assert!(log.contains("no transcript path"), "{log}");
}

#[test]
fn qwen_hooks_leave_to_qwen_what_it_does_itself() {
    // Qwen Code's defaults: it recalls the private and user roots and extracts by itself.
    let sb = Sandbox::new();
    seed(&sb); // private root: CI timezone
    write_doc(
        &sb.repo.join(".qwen/memory"),
        "project/ci-tz-repo.md",
        &doc_text(
            "CI timezone in the repository",
            "CI checkout test needs TZ=UTC",
            "project",
            "The checkout test fails on CI unless TZ=UTC is set (shared).",
        ),
    );
    write_doc(
        &sb.repo.join(".qwen/team-memory"),
        "project/ci-tz-team.md",
        &doc_text(
            "CI timezone for the team",
            "CI checkout test fails without TZ",
            "project",
            "The checkout test on CI fails unless TZ=UTC (team).",
        ),
    );
    let out = hook(&sb, "recall", "qwen", &qwen_payload(&sb, "s-default"));
    let v: Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    let ctx = v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    assert!(ctx.contains("(project/ci-tz-repo.md)"), "{ctx}");
    assert!(ctx.contains("(project/ci-tz-team.md)"), "{ctx}");
    assert!(
        !ctx.contains("(project/ci-timezone.md)"),
        "Qwen recalls the private root itself; injecting it too would show it twice: {ctx}"
    );
    // Claude Code has no memory of its own: it gets every root.
    let out = hook(&sb, "recall", "claude", &qwen_payload(&sb, "s-claude"));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let ctx = v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    assert!(ctx.contains("(project/ci-timezone.md)"), "{ctx}");

    // Extraction: Qwen extracts into the private root itself, so our hook stays out.
    let (script, rec) = recorder(&sb);
    let transcript = sb.root().join("chat.jsonl");
    fs::write(&transcript, "{}\n").unwrap();
    let payload = json!({"session_id": "s1", "transcript_path": transcript.display().to_string(), "cwd": sb.repo.display().to_string(), "hook_event_name": "Stop"}).to_string();
    let out = sb
        .cmd()
        .args(["hook", "extract", "--agent", "qwen"])
        .env("QWEN_MEMORY_HOOK_EXEC", &script)
        .write_stdin(payload.clone())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stderr.is_empty());
    let log = fs::read_to_string(sb.private_state().join("hook.log")).unwrap();
    assert!(log.contains("qwen_extracts"), "{log}");
    assert!(!rec.join("args").exists(), "no extraction was started");

    // In local mode we extract into the repository root, which Qwen does not write.
    sb.git(&sb.repo, &["config", "qwen-memory.local", "true"]);
    let out = sb
        .cmd()
        .args(["hook", "extract", "--agent", "qwen"])
        .env("QWEN_MEMORY_HOOK_EXEC", &script)
        .write_stdin(payload)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    fs::write(rec.join("release"), "").unwrap();
    let args = wait_file(&rec.join("args"));
    assert!(args.contains(&transcript.display().to_string()), "{args}");

    // status says who extracts and what each side recalls.
    let st = sb.json(&["status"]);
    let q = &st["agents"]["qwen"];
    assert_eq!(q["extracts"], "both", "{st}");
    assert_eq!(q["qwenRecalls"], json!(["private", "user"]));
    assert_eq!(q["hookInjects"], json!(["repository", "team"]));
}
