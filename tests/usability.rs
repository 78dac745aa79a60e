//! The first hour with the tool: wording, plurals, exit codes, setting problems, refusing to
//! write outside a repository, and filling in a missing why/how with `remember`.

use crate::common;

use std::fs;

use common::*;

#[test]
fn status_reports_setting_problems_instead_of_dying() {
    let sb = Sandbox::new();
    sb.git(&sb.repo, &["config", "qwen-memory.recall.limit", "many"]);
    sb.git(&sb.repo, &["config", "qwen-memory.autocomit", "true"]);

    let out = sb.cmd().arg("status").output().unwrap();
    assert_success(&out, &["status"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("qwen-memory.recall.limit = \"many\""),
        "{text}"
    );
    assert!(
        text.contains(
            "unknown setting qwen-memory.autocomit (did you mean qwen-memory.autoCommit?)"
        ),
        "{text}"
    );
    let st = sb.json(&["status"]);
    assert_eq!(st["settingProblems"].as_array().unwrap().len(), 2, "{st}");
    let limit = status_setting(&st, "recall.limit");
    assert_eq!(limit["origin"], "default");

    // check reports both and fails.
    let out = sb.cmd().arg("check").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(
            "config: unknown setting qwen-memory.autocomit (did you mean qwen-memory.autoCommit?)"
        ),
        "{text}"
    );
    assert!(text.contains("config: qwen-memory.recall.limit"), "{text}");

    // Other commands refuse an invalid value, naming it.
    let out = sb.cmd().args(["recall", "x"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("recall.limit") && err.contains("git-config"),
        "{err}"
    );

    // An unknown key alone is a warning, not a failure.
    sb.git(&sb.repo, &["config", "--unset", "qwen-memory.recall.limit"]);
    let out = sb.cmd().args(["list"]).output().unwrap();
    assert_success(&out, &["list"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("did you mean qwen-memory.autoCommit?"),
        "{err}"
    );
}

#[test]
fn writing_outside_a_repository_refuses_like_git() {
    let sb = Sandbox::new();
    let plain = sb.root().join("plain");
    fs::create_dir_all(&plain).unwrap();
    for args in [
        &["remember", "Deploys go out on Tuesdays"][..],
        &["dream", "--force"],
        &["index"],
        &["forget", "--yes", "deploys"],
    ] {
        let out = sb.cmd_in(&plain).args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("not a git repository"), "{args:?}: {err}");
        assert!(
            err.contains("QWEN_CODE_MEMORY_PROJECT_SCOPE=workspace"),
            "{args:?}: {err}"
        );
    }
    assert!(!sb.base.join("projects").exists(), "nothing was written");

    // Reading still works, and the workspace scope makes the directory the project.
    let out = sb.cmd_in(&plain).args(["list"]).output().unwrap();
    assert_success(&out, &["list"]);
    let out = sb
        .cmd_in(&plain)
        .env("QWEN_CODE_MEMORY_PROJECT_SCOPE", "workspace")
        .args(["remember", "Deploys go out on Tuesdays"])
        .output()
        .unwrap();
    assert_success(&out, &["remember"]);
    let key = sanitize(&plain.display().to_string());
    assert!(sb.base.join("projects").join(key).join("memory").is_dir());
}

#[test]
fn agent_hooks_outside_a_repository_keep_the_directory_as_the_project() {
    let sb = Sandbox::new();
    let plain = sb.root().join("plain");
    fs::create_dir_all(&plain).unwrap();
    let key = sanitize(&plain.display().to_string());
    write_doc(
        &sb.base.join("projects").join(&key).join("memory"),
        "project/deploy.md",
        &doc_text(
            "Deploy day",
            "deploys",
            "project",
            "Deploys go out on Tuesdays",
        ),
    );
    let out = sb
        .cmd_in(&plain)
        .args(["hook", "recall", "--agent", "claude"])
        .write_stdin(r#"{"session_id":"s1","prompt":"when do deploys go out?"}"#)
        .output()
        .unwrap();
    assert_success(&out, &["hook", "recall"]);
    assert!(out.stderr.is_empty());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("Deploys go out on Tuesdays"), "{text}");
}

/// The one document `remember "Use pnpm for installs"` wrote: the type guess may file it as
/// `project` or `feedback` (both fit a tooling rule); the test is about its reasons.
fn pnpm_doc(sb: &Sandbox) -> std::path::PathBuf {
    let found: Vec<_> = ["project", "feedback"]
        .iter()
        .map(|t| sb.private_root().join(t).join("use-pnpm-for-installs.md"))
        .filter(|p| p.is_file())
        .collect();
    assert_eq!(found.len(), 1, "exactly one document: {found:?}");
    found[0].clone()
}

#[test]
fn remember_fills_in_a_missing_why_and_says_when_nothing_changed() {
    let sb = Sandbox::new();
    sb.ok(&["remember", "Use pnpm for installs"]);
    let out = sb.ok(&[
        "remember",
        "--why",
        "npm breaks the lockfile",
        "Use pnpm for installs",
    ]);
    assert!(
        out.contains("updated ") && out.contains("added why"),
        "{out}"
    );
    let doc = fs::read_to_string(pnpm_doc(&sb)).unwrap();
    assert!(doc.contains("Why: npm breaks the lockfile"), "{doc}");

    let out = sb.ok(&[
        "remember",
        "--why",
        "npm breaks the lockfile",
        "Use pnpm for installs",
    ]);
    assert!(
        out.contains("already known in") && out.contains("nothing changed"),
        "{out}"
    );

    // A different reason is joined to the one there, never dropped (docs/team.md).
    let out = sb.ok(&["remember", "--why", "it is faster", "Use pnpm for installs"]);
    assert!(out.contains("added why"), "{out}");
    let doc2 = fs::read_to_string(pnpm_doc(&sb)).unwrap();
    assert_ne!(doc, doc2);
    assert!(
        doc2.contains("Why: npm breaks the lockfile; it is faster"),
        "{doc2}"
    );

    let r = sb.json(&["remember", "--how", "pnpm install", "Use pnpm for installs"]);
    assert_eq!(r["change"]["kind"], "merged");
    assert_eq!(r["change"]["filled"], serde_json::json!(["how"]));
}

#[test]
fn wording_plurals_and_single_kinds() {
    let sb = Sandbox::new();
    let root = sb.private_root();
    sb.ok(&["remember", "Deploys go out on Tuesdays"]);
    // The title equals the description: printed once.
    let list = sb.ok(&["list"]);
    let line = list.lines().next().unwrap();
    assert_eq!(
        line.matches("Deploys go out on Tuesdays").count(),
        1,
        "{list}"
    );
    let status = sb.ok(&["status"]);
    assert!(status.contains("(1 doc)"), "{status}");

    // A document whose frontmatter is broken YAML; an index made stale by hand.
    write_doc(
        &root,
        "project/broken.md",
        "---\nname: x\ntype: [project\n---\nbody\n",
    );
    fs::write(root.join("MEMORY.md"), "# stale\n").unwrap();
    let out = sb.cmd().arg("check").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("not valid YAML"), "{text}");
    assert!(!text.contains("missing or unknown type"), "{text}");
    for l in text.lines() {
        for kind in ["stale-index", "skipped"] {
            assert!(l.matches(kind).count() <= 1, "kind printed twice: {l}");
        }
    }
    assert!(text.contains("private/MEMORY.md: stale-index: "), "{text}");
}

#[test]
fn stats_json_is_camel_case() {
    let sb = Sandbox::new();
    sb.ok(&["remember", "Deploys go out on Tuesdays"]);
    sb.ok(&["recall", "deploys"]);
    let stats = sb.json(&["stats"]);
    let first = &stats.as_array().unwrap()[0];
    assert!(
        first.get("p50Ms").is_some() && first.get("p95Ms").is_some(),
        "{stats}"
    );
    assert!(first.get("p50_ms").is_none());
}
