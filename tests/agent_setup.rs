//! Agent setup as a new user meets it: `install --agent X` touches only the agent's settings,
//! the installed commands are harmless where the binary is missing, and one turn end starts one
//! extract.

use crate::common;

use std::fs;
use std::path::Path;
use std::process::Stdio;

use common::*;
use serde_json::{json, Value};

fn run(sb: &Sandbox, args: &[&str]) -> std::process::Output {
    let out = sb.cmd().args(args).output().unwrap();
    assert_success(&out, args);
    out
}

fn commands(settings: &Path) -> Vec<(String, String)> {
    let v: Value = serde_json::from_str(&fs::read_to_string(settings).unwrap()).unwrap();
    let mut out = Vec::new();
    for (event, groups) in v["hooks"].as_object().unwrap() {
        for g in groups.as_array().unwrap() {
            for h in g["hooks"].as_array().unwrap() {
                out.push((event.clone(), h["command"].as_str().unwrap().to_string()));
            }
        }
    }
    out
}

#[test]
fn install_agent_installs_only_agent_hooks_and_uninstall_removes_exactly_them() {
    let sb = Sandbox::new();
    let hooks_before = Sandbox::snapshot(&sb.repo.join(".git/hooks"));
    let config_before = fs::read(sb.repo.join(".git/config")).unwrap();
    run(&sb, &["install", "--agent", "claude"]);
    assert_eq!(
        Sandbox::snapshot(&sb.repo.join(".git/hooks")),
        hooks_before,
        "no Git hooks"
    );
    assert_eq!(
        fs::read(sb.repo.join(".git/config")).unwrap(),
        config_before
    );
    let settings = sb.home.join(".claude/settings.json");
    let cmds = commands(&settings);
    assert!(
        cmds.iter().any(|(e, _)| e == "UserPromptSubmit"),
        "{cmds:?}"
    );
    assert!(cmds.iter().any(|(e, _)| e == "Stop"), "{cmds:?}");
    let st = sb.json(&["status"]);
    assert!(st["hooks"]["git"].as_array().unwrap().is_empty(), "{st}");

    run(&sb, &["uninstall", "--agent", "claude"]);
    assert!(!settings.exists(), "the file install created is gone");
    assert_eq!(Sandbox::snapshot(&sb.repo.join(".git/hooks")), hooks_before);

    // Plain install still installs the Git hooks; --hooks with --agent adds the ones named.
    run(
        &sb,
        &["install", "--agent", "qwen", "--hooks", "post-commit"],
    );
    assert!(sb.repo.join(".git/hooks/post-commit").is_file());
    assert!(!sb.repo.join(".git/hooks/pre-commit").exists());
    run(&sb, &["uninstall", "--agent", "qwen"]);
    assert!(!sb.home.join(".qwen/settings.json").exists());
    assert!(
        sb.repo.join(".git/hooks/post-commit").is_file(),
        "uninstall --agent leaves Git hooks alone"
    );
    run(&sb, &["uninstall"]);
    assert_eq!(Sandbox::snapshot(&sb.repo.join(".git/hooks")), hooks_before);
}

#[test]
fn an_older_unguarded_install_is_upgraded_in_place() {
    let sb = Sandbox::new();
    let settings = sb.home.join(".claude/settings.json");
    fs::create_dir_all(settings.parent().unwrap()).unwrap();
    let old = json!({"hooks": {"UserPromptSubmit": [{"hooks": [
        {"type": "command", "command": "git qwen-memory hook recall --agent claude", "timeout": 10}
    ]}]}});
    fs::write(&settings, serde_json::to_string_pretty(&old).unwrap()).unwrap();
    run(&sb, &["install", "--agent", "claude"]);
    let cmds = commands(&settings);
    let recall: Vec<_> = cmds
        .iter()
        .filter(|(e, _)| e == "UserPromptSubmit")
        .collect();
    assert_eq!(recall.len(), 1, "{cmds:?}");
    assert!(
        recall[0].1.starts_with("command -v git-qwen-memory"),
        "{cmds:?}"
    );
}

/// The exact command strings written into the settings run through the shell the agents use,
/// with a PATH that lacks the binary: no output, no error, exit 0. With the binary on PATH the
/// same strings reach it.
#[test]
fn installed_hook_commands_are_silent_where_the_binary_is_missing() {
    let sb = Sandbox::new();
    write_doc(
        &sb.private_root(),
        "project/deploy.md",
        &doc_text(
            "Deploy day",
            "deploys",
            "project",
            "Deploys go out on Tuesdays",
        ),
    );
    run(&sb, &["install", "--agent", "all"]);
    for dir in ["/usr/bin", "/bin"] {
        assert!(
            !Path::new(dir).join("git-qwen-memory").exists(),
            "{dir} has the binary"
        );
    }
    let mut seen = 0;
    for agent in ["qwen", "claude"] {
        let dir = if agent == "qwen" { ".qwen" } else { ".claude" };
        // One session per agent: a session is shown a document once.
        let payload = json!({
            "session_id": format!("s-{agent}"), "prompt": "when do deploys go out?",
            "hook_event_name": "UserPromptSubmit", "cwd": sb.repo.display().to_string(),
            "transcript_path": "",
        })
        .to_string();
        for (event, cmd) in commands(&sb.home.join(dir).join("settings.json")) {
            seen += 1;
            let bash = require_program(
                "guarded agent hooks under bash",
                "bash",
                "install bash; the hooks are still run with sh",
            );
            for shell in ["sh", "bash"].into_iter().filter(|s| *s == "sh" || bash) {
                let mut c = std::process::Command::new(shell);
                clear_env(&mut c);
                let out = c
                    .args(["-c", &cmd])
                    .current_dir(&sb.repo)
                    .envs(sb.env())
                    .env("PATH", "/usr/bin:/bin")
                    .stdin(Stdio::piped())
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .and_then(|mut child| {
                        use std::io::Write;
                        // The guard may exit before reading: a closed stdin is fine.
                        let _ = child.stdin.take().unwrap().write_all(payload.as_bytes());
                        child.wait_with_output()
                    })
                    .unwrap();
                assert_eq!(out.status.code(), Some(0), "{agent} {event} {shell}: {cmd}");
                assert!(
                    out.stderr.is_empty(),
                    "{agent} {event} {shell}: {}",
                    String::from_utf8_lossy(&out.stderr)
                );
                assert!(out.stdout.is_empty(), "{agent} {event} {shell}");
            }
        }
        // With the binary on PATH the recall command answers. (Qwen Code recalls the private
        // root itself, so only Claude's hook injects it.)
        if agent == "qwen" {
            continue;
        }
        let recall = commands(&sb.home.join(dir).join("settings.json"))
            .into_iter()
            .find(|(e, _)| e == "UserPromptSubmit")
            .unwrap()
            .1;
        let mut c = std::process::Command::new("sh");
        clear_env(&mut c);
        let out = c
            .args(["-c", &recall])
            .current_dir(&sb.repo)
            .envs(sb.env())
            .env("PATH", path_with_bin())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .and_then(|mut child| {
                use std::io::Write;
                child.stdin.take().unwrap().write_all(payload.as_bytes())?;
                child.wait_with_output()
            })
            .unwrap();
        assert_eq!(out.status.code(), Some(0));
        assert!(out.stderr.is_empty());
        assert!(
            String::from_utf8_lossy(&out.stdout).contains("Deploys go out on Tuesdays"),
            "{agent}: {}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
    assert!(seen >= 8, "every installed command was run ({seen})");
}

#[test]
fn stop_then_session_end_start_one_extract_for_the_same_bytes() {
    let sb = Sandbox::new();
    let transcript = sb.root().join("t.jsonl");
    fs::write(
        &transcript,
        "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"hi\"}}\n",
    )
    .unwrap();
    let fire = |event: &str| {
        let payload = json!({
            "session_id": "s1", "transcript_path": transcript.display().to_string(),
            "hook_event_name": event, "cwd": sb.repo.display().to_string(),
        });
        let out = sb
            .cmd()
            .args(["hook", "extract", "--agent", "claude"])
            .env("QWEN_MEMORY_HOOK_EXEC", "/bin/true")
            .write_stdin(payload.to_string())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0));
        assert!(out.stderr.is_empty());
    };
    let started = || {
        fs::read_to_string(sb.private_state().join("hook.log"))
            .unwrap_or_default()
            .matches("hook extract: started")
            .count()
    };
    let append = |line: &[u8]| {
        let mut f = fs::OpenOptions::new()
            .append(true)
            .open(&transcript)
            .unwrap();
        std::io::Write::write_all(&mut f, line).unwrap();
    };
    fire("Stop");
    assert_eq!(started(), 1);
    fire("SessionEnd");
    fire("PreCompact");
    assert_eq!(started(), 1, "same bytes: no second extract");
    // Claude Code appends its own records between Stop and SessionEnd (the assistant's last
    // message, hook summaries): no user text, no second extract.
    append(b"{\"type\":\"assistant\",\"message\":{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"ok\"}]}}\n");
    append(b"{\"type\":\"system\",\"subtype\":\"stop_hook_summary\",\"content\":\"\"}\n");
    fire("SessionEnd");
    assert_eq!(
        started(),
        1,
        "grown without a user message: no second extract"
    );
    // A new turn appends a user message: the next Stop starts one again.
    append(b"{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"more\"}}\n");
    fire("Stop");
    assert_eq!(started(), 2);
}
