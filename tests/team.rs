//! Team memory as a first-class scope and `user` facts kept out of shared roots, against the
//! real binary in real repositories.

mod common;

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
