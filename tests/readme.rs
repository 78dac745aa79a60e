//! The README's quick starts, run as written from a fresh sandbox: every `git qwen-memory …`,
//! `git …` and `cd` line of each block is executed through the real `git` (so `git qwen-memory`
//! is Git's own subcommand dispatch to the built binary on PATH). Two things are not run here:
//! `./install.sh` (the binary under test stands in for what it installs; CI runs install.sh
//! itself) and starting the agent (`claude`, `qwen`: the interop suites run the real agents).
//! A line of any other shape fails the test, so the README and this test change together.

use crate::common;

use std::fs;
use std::path::{Path, PathBuf};

use common::*;

/// The `sh` blocks of the README's "Quick start" section, each with the bold heading above it.
fn quick_starts() -> Vec<(String, Vec<String>)> {
    let readme = fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
        .expect("README.md");
    let start = readme
        .find("## Quick start")
        .expect("a Quick start section");
    let section = &readme[start..];
    let end = section[3..].find("\n## ").map_or(section.len(), |i| i + 3);
    let section = &section[..end];
    let mut blocks = Vec::new();
    let mut heading = String::new();
    let mut current: Option<Vec<String>> = None;
    for line in section.lines() {
        match (&mut current, line.trim()) {
            (None, l) if l.starts_with("**") && l.ends_with("**") => {
                heading = l.trim_matches('*').to_string();
            }
            (None, "```sh") => current = Some(Vec::new()),
            (Some(_), "```") => blocks.push((heading.clone(), current.take().unwrap())),
            (Some(lines), l) if !l.is_empty() => lines.push(l.to_string()),
            _ => {}
        }
    }
    blocks
}

/// Splits a command line into words: whitespace-separated, double quotes group.
fn words(command: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut quoted = false;
    let mut any = false;
    for c in command.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                any = true;
            }
            c if c.is_whitespace() && !quoted => {
                if any {
                    out.push(std::mem::take(&mut word));
                    any = false;
                }
            }
            c => {
                word.push(c);
                any = true;
            }
        }
    }
    if any {
        out.push(word);
    }
    out
}

/// Runs one quick start in `sb`; returns what it skipped (install.sh, the agent).
fn follow(sb: &Sandbox, lines: &[String]) -> Vec<String> {
    let mut skipped = Vec::new();
    let mut cwd: PathBuf = sb.root();
    for line in lines {
        let line = match line
            .find(" # ")
            .or_else(|| line.starts_with('#').then_some(0))
        {
            Some(i) => &line[..i],
            None => line.as_str(),
        };
        for command in line.split("&&").map(str::trim).filter(|c| !c.is_empty()) {
            let w = words(command);
            match w[0].as_str() {
                "./install.sh" | "claude" | "qwen" => skipped.push(w[0].clone()),
                "cd" => {
                    assert!(
                        w[1].contains("your-project"),
                        "unknown directory: {command}"
                    );
                    cwd = sb.repo.clone();
                }
                "git" => {
                    let args: Vec<&str> = w[1..].iter().map(String::as_str).collect();
                    let out = sb.git_hooked(&cwd, &args, &[]);
                    assert!(
                        out.status.success(),
                        "`{command}` failed in {}:\n{}{}",
                        cwd.display(),
                        String::from_utf8_lossy(&out.stdout),
                        String::from_utf8_lossy(&out.stderr)
                    );
                }
                _ => panic!(
                    "the README's quick start has a command this test cannot follow: {command}"
                ),
            }
        }
    }
    skipped
}

fn block<'a>(blocks: &'a [(String, Vec<String>)], heading: &str) -> &'a [String] {
    &blocks
        .iter()
        .find(|(h, _)| h.contains(heading))
        .unwrap_or_else(|| panic!("no quick start headed {heading:?}: {blocks:?}"))
        .1
}

fn agent_settings(path: &Path) -> serde_json::Value {
    serde_json::from_str(&fs::read_to_string(path).expect("agent settings written")).unwrap()
}

fn hook_commands(settings: &serde_json::Value, event: &str) -> Vec<String> {
    settings["hooks"][event]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|m| m["hooks"].as_array().into_iter().flatten())
        .filter_map(|h| h["command"].as_str().map(str::to_string))
        .collect()
}

fn our_git_hooks(sb: &Sandbox) -> Vec<String> {
    let dir = sb.repo.join(".git/hooks");
    fs::read_dir(&dir)
        .map(|d| {
            d.filter_map(|e| {
                let e = e.ok()?;
                let text = fs::read_to_string(e.path()).ok()?;
                text.contains("qwen-memory")
                    .then(|| e.file_name().to_string_lossy().into_owned())
            })
            .collect()
        })
        .unwrap_or_default()
}

#[test]
fn the_readme_has_the_three_quick_starts_of_three_commands() {
    let blocks = quick_starts();
    for heading in ["Claude Code", "Qwen Code", "Team memory"] {
        assert_eq!(
            block(&blocks, heading).len(),
            3,
            "{heading}: three commands"
        );
    }
}

#[test]
fn quick_start_claude_code() {
    let sb = Sandbox::new();
    let skipped = follow(&sb, block(&quick_starts(), "Claude Code"));
    assert_eq!(skipped, ["./install.sh", "claude"]);
    let settings = agent_settings(&sb.home.join(".claude/settings.json"));
    for event in ["UserPromptSubmit", "Stop", "SessionStart"] {
        let commands = hook_commands(&settings, event);
        assert!(
            commands.iter().any(|c| c.contains("qwen-memory")),
            "{event}: {settings}"
        );
    }
    assert!(
        our_git_hooks(&sb).is_empty(),
        "--agent installs no Git hooks"
    );
}

#[test]
fn quick_start_qwen_code() {
    let sb = Sandbox::new();
    let skipped = follow(&sb, block(&quick_starts(), "Qwen Code"));
    assert_eq!(skipped, ["./install.sh", "qwen"]);
    let settings = agent_settings(&sb.home.join(".qwen/settings.json"));
    let commands = hook_commands(&settings, "UserPromptSubmit");
    assert!(
        commands.iter().any(|c| c.contains("qwen-memory")),
        "{settings}"
    );
    assert!(
        our_git_hooks(&sb).is_empty(),
        "--agent installs no Git hooks"
    );
}

#[test]
fn quick_start_team_memory_reaches_the_remote() {
    let sb = Sandbox::new();
    // The teammate's clone has an upstream to push to.
    let remote = sb.root().join("remote.git");
    sb.git(
        &sb.root(),
        &["init", "-q", "--bare", remote.to_str().unwrap()],
    );
    sb.git(
        &sb.repo,
        &["remote", "add", "origin", remote.to_str().unwrap()],
    );
    sb.git(&sb.repo, &["push", "-q", "-u", "origin", "main"]);

    let skipped = follow(&sb, block(&quick_starts(), "Team memory"));
    assert_eq!(skipped, ["./install.sh"]);
    assert!(
        !our_git_hooks(&sb).is_empty(),
        "install --local installs the Git hooks"
    );
    let files = sb.git(&remote, &["show", "--name-only", "--format=%s", "main"]);
    assert!(files.starts_with("memory:"), "{files}");
    let memory: Vec<&str> = files
        .lines()
        .filter(|f| f.starts_with(".qwen/memory/") && f.ends_with(".md"))
        .collect();
    // The generated index is never pushed (docs/DESIGN.md, "Git integration"); the ignore
    // file that keeps it out is.
    assert!(!memory.iter().any(|f| f.ends_with("MEMORY.md")), "{files}");
    assert!(files.contains(".qwen/memory/.gitignore"), "{files}");
    let topic = memory
        .iter()
        .find(|f| !f.ends_with("MEMORY.md"))
        .expect("a topic file was pushed");
    let text = sb.git(&remote, &["show", &format!("main:{topic}")]);
    assert!(text.contains("Deploys go out on Tuesdays"), "{text}");
}
