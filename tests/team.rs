//! Team memory as a first-class scope and `user` facts kept out of shared roots, against the
//! real binary in real repositories.

use crate::common;

use std::fs;

use common::*;
use serde_json::Value;

fn team_root(sb: &Sandbox) -> std::path::PathBuf {
    sb.repo.join(".qwen").join("team-memory")
}

fn md_files(dir: &std::path::Path) -> Vec<String> {
    tree(dir)
        .into_keys()
        .filter(|k| k.ends_with(".md") && k != "MEMORY.md")
        .collect()
}

#[test]
fn remember_and_forget_in_team_scope() {
    let sb = Sandbox::new();
    let out = sb.json(&[
        "remember",
        "--scope",
        "team",
        "--type",
        "project",
        "Releases are cut from the release branch only",
    ]);
    assert_eq!(out["scope"], "team", "{out}");
    let team = team_root(&sb);
    let files = md_files(&team);
    assert_eq!(files.len(), 1, "{files:?}");
    let text = fs::read_to_string(team.join(&files[0])).unwrap();
    assert!(text.contains("Releases are cut from the release branch only"));
    assert!(
        team.join("MEMORY.md").is_file(),
        "the team root gets its index"
    );
    // Nothing leaked into the private root.
    assert!(md_files(&sb.private_root()).is_empty());

    // forget works on the team root when asked, and leaves other roots alone.
    let out = sb.json(&["forget", "--scope", "team", "--yes", "release branch only"]);
    assert_eq!(out["removedEntries"], 1, "{out}");
    assert!(md_files(&team).is_empty(), "{:?}", md_files(&team));
    // and undo brings it back byte for byte.
    sb.ok(&["forget", "--scope", "team", "--undo"]);
    assert_eq!(md_files(&team), files);
}

#[test]
fn user_facts_never_land_in_a_shared_root() {
    let sb = Sandbox::new();
    sb.git(&sb.repo, &["config", "qwen-memory.local", "true"]);
    let out = sb.json(&[
        "remember",
        "--type",
        "user",
        "I am a backend engineer who mostly writes Go",
    ]);
    assert_eq!(out["scope"], "user", "{out}");
    let user_root = sb.base.join("memories");
    assert_eq!(md_files(&user_root).len(), 1);
    assert!(
        md_files(&sb.repo.join(".qwen").join("memory")).is_empty(),
        "a user fact must never be written into the committed repository root"
    );
    // Even when the team scope is asked for.
    let out = sb.json(&[
        "remember",
        "--scope",
        "team",
        "--type",
        "user",
        "I prefer tabs over spaces in every language",
    ]);
    assert_eq!(out["scope"], "user", "{out}");
    assert!(!team_root(&sb).join("user").exists());
}

#[test]
fn extract_routes_user_facts_to_the_user_root() {
    let sb = Sandbox::new();
    sb.git(&sb.repo, &["config", "qwen-memory.local", "true"]);
    let transcript = sb.root().join("t.jsonl");
    let lines = [
        serde_json::json!({"role": "user", "content": "Remember that I am a data scientist and I mostly write Python."}),
        serde_json::json!({"role": "assistant", "content": "Noted."}),
        serde_json::json!({"role": "user", "content": "We deploy only from release branches, never from main."}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    fs::write(&transcript, text).unwrap();
    let out: Value = sb.json(&["extract", "--transcript", transcript.to_str().unwrap()]);
    let repo_root = sb.repo.join(".qwen").join("memory");
    let user_root = sb.base.join("memories");
    let repo_files = md_files(&repo_root);
    let user_files = md_files(&user_root);
    assert!(
        repo_files.iter().all(|f| !f.starts_with("user/")),
        "no user fact in the repository root: {repo_files:?} ({out})"
    );
    assert!(
        user_files.iter().any(|f| f.starts_with("user/")),
        "the user fact is in the user root: {user_files:?} ({out})"
    );
    assert!(
        repo_files.iter().any(|f| f.starts_with("project/")),
        "the project fact stays in the repository root: {repo_files:?} ({out})"
    );
}

#[test]
fn install_team_turns_on_qwen_team_memory_and_keeps_other_keys() {
    let sb = Sandbox::new();
    let settings = sb.repo.join(".qwen/settings.json");
    fs::create_dir_all(settings.parent().unwrap()).unwrap();
    fs::write(
        &settings,
        r#"{"model": {"name": "qwen3"}, "memory": {"enableManagedAutoMemory": true}}"#,
    )
    .unwrap();
    sb.ok(&["install", "--team", "--hooks", "none"]);
    let v: Value = serde_json::from_str(&fs::read_to_string(&settings).unwrap()).unwrap();
    assert_eq!(v["memory"]["enableTeamMemory"], true);
    assert_eq!(v["memory"]["enableManagedAutoMemory"], true);
    assert_eq!(v["model"]["name"], "qwen3");
    let before = fs::read(&settings).unwrap();
    let out = sb.json(&["install", "--team", "--hooks", "none"]);
    assert_eq!(out["team"]["changed"], false, "idempotent: {out}");
    assert_eq!(fs::read(&settings).unwrap(), before);
    // status sees Qwen's team memory switched on.
    let st = sb.json(&["status"]);
    assert_eq!(st["agents"]["qwen"]["teamMemory"], true, "{st}");
    // A settings file with comments is never rewritten (the comments would be lost).
    fs::write(&settings, "// ours\n{\"memory\": {}}\n").unwrap();
    let out = sb
        .cmd()
        .args(["install", "--team", "--hooks", "none"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("comments"));
    assert_eq!(
        fs::read_to_string(&settings).unwrap(),
        "// ours\n{\"memory\": {}}\n"
    );
}

#[test]
fn commit_takes_team_memory_and_nothing_else() {
    let sb = Sandbox::new();
    sb.ok(&[
        "remember",
        "--scope",
        "team",
        "--type",
        "project",
        "Staging deploys happen on Tuesdays only",
    ]);
    fs::write(sb.repo.join("README"), "changed by the user\n").unwrap();
    let out = sb.json(&["commit"]);
    let files: Vec<String> = out["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["path"].as_str().unwrap().to_string())
        .collect();
    assert!(
        files.iter().all(|f| f.starts_with(".qwen/team-memory/")),
        "{files:?}"
    );
    // The generated index stays out of Git; the ignore file that keeps it out is committed.
    assert!(!files.iter().any(|f| f.ends_with("MEMORY.md")), "{files:?}");
    assert!(
        files.iter().any(|f| f.ends_with("team-memory/.gitignore")),
        "{files:?}"
    );
    assert!(
        out["message"]
            .as_str()
            .unwrap()
            .starts_with("memory: +1 project"),
        "{out}"
    );
    let status = sb.git(&sb.repo, &["status", "--porcelain"]);
    assert_eq!(status.trim(), "M README", "the user's change is untouched");
}

/// A bare "remote" in the sandbox (a local path: no network) and two clones of it.
fn remote_and_clones(sb: &Sandbox) -> (std::path::PathBuf, std::path::PathBuf, std::path::PathBuf) {
    let remote = sb.root().join("remote.git");
    sb.git(
        &sb.root(),
        &[
            "clone",
            "-q",
            "--bare",
            sb.repo.to_str().unwrap(),
            remote.to_str().unwrap(),
        ],
    );
    let a = sb.root().join("a");
    let b = sb.root().join("b");
    for dir in [&a, &b] {
        sb.git(
            &sb.root(),
            &[
                "clone",
                "-q",
                remote.to_str().unwrap(),
                dir.to_str().unwrap(),
            ],
        );
    }
    (remote, a, b)
}

/// `remember --scope team --type project <text>` in the clone `dir`, which must succeed.
fn remember_team(sb: &Sandbox, dir: &std::path::Path, text: &str) {
    let args = ["remember", "--scope", "team", "--type", "project", text];
    let out = sb.cmd_in(dir).args(args).output().unwrap();
    assert_success(&out, &args);
}

/// `sync --json` in the clone `dir`, which must succeed; its report.
fn sync_ok(sb: &Sandbox, dir: &std::path::Path) -> Value {
    let out = sb.cmd_in(dir).args(["sync", "--json"]).output().unwrap();
    assert_success(&out, &["sync", "--json"]);
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn sync_pulls_commits_and_pushes_team_memory() {
    let sb = Sandbox::new();
    let (remote, a, b) = remote_and_clones(&sb);
    remember_team(&sb, &a, "The billing service owns the invoices table");
    let v = sync_ok(&sb, &a);
    assert_eq!(v["status"], "pushed", "{v}");
    let log = sb.git(&remote, &["log", "--format=%s", "-1"]);
    assert_eq!(log.trim(), "chore(memory): sync team memory");

    // The teammate syncs: the memory comes in; nothing to push.
    let v = sync_ok(&sb, &b);
    assert_eq!(v["pulled"], 1, "{v}");
    assert_eq!(v["status"], "up-to-date", "{v}");
    assert_eq!(md_files(&b.join(".qwen/team-memory")).len(), 1);

    // A branch already ahead of its upstream: commit, but never publish the user's own work.
    fs::write(b.join("work.txt"), "mine\n").unwrap();
    sb.git(&b, &["add", "work.txt"]);
    sb.git(&b, &["commit", "-q", "-m", "my unpushed work"]);
    remember_team(&sb, &b, "Invoices are immutable once sent");
    let out = sb.cmd_in(&b).args(["sync", "--json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(3), "committed, not published");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["status"], "ahead-not-pushed", "{v}");
    let remote_log = sb.git(&remote, &["log", "--format=%s"]);
    assert!(!remote_log.contains("my unpushed work"), "{remote_log}");
}

#[test]
fn a_failed_push_keeps_the_memory_commit_and_says_what_to_do() {
    let sb = Sandbox::new();
    let (remote, a, _b) = remote_and_clones(&sb);
    // The remote refuses every push.
    let hook = remote.join("hooks/pre-receive");
    fs::write(&hook, "#!/bin/sh\necho refused >&2\nexit 1\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(&hook, fs::Permissions::from_mode(0o755)).unwrap();
    let head_before = sb.git(&a, &["rev-parse", "HEAD"]);
    remember_team(&sb, &a, "Refunds need two approvals");
    let out = sb.cmd_in(&a).args(["sync", "--json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "a failed push is a failure");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["status"], "failed", "{v}");
    assert!(v["error"].as_str().unwrap().contains("refused"), "{v}");
    assert!(v["next"].as_str().unwrap().contains("sync"), "{v}");
    // The memory commit stays (a retry pushes it; undoing it made every retry commit again).
    let head = sb.git(&a, &["rev-parse", "HEAD"]);
    assert_ne!(head, head_before);
    let parent = sb.git(&a, &["rev-parse", "HEAD~1"]);
    assert_eq!(parent, head_before);
    let status = sb.git(&a, &["status", "--porcelain"]);
    assert!(status.trim().is_empty(), "{status}");
    let remote_head = sb.git(&remote, &["rev-parse", "main"]);
    assert_eq!(remote_head, head_before, "nothing reached the remote");
}
