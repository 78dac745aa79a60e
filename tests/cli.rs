//! Foundation commands against real repositories: status, list, show, remember, index, check,
//! completions, man; identity, roots, settings, bad input.

use crate::common;

use std::fs;
use std::path::{Path, PathBuf};

use common::*;

#[test]
fn status_reports_key_roots_and_setting_origins() {
    let sb = Sandbox::new();
    sb.git(&sb.repo, &["config", "qwen-memory.recall.limit", "9"]);
    let st = sb.json(&["status"]);
    assert_eq!(st["projectKey"], sanitize(&sb.repo.display().to_string()));
    assert_eq!(st["projectRoot"], sb.repo.display().to_string());
    assert_eq!(st["mode"], "private");
    let find = |k: &str| status_setting(&st, k);
    assert_eq!(find("recall.limit")["value"], "9");
    assert_eq!(find("recall.limit")["origin"], "git-config");
    assert_eq!(find("dream.minHours")["origin"], "default");
    let roots = st["roots"].as_array().unwrap();
    let private = roots.iter().find(|r| r["scope"] == "private").unwrap();
    assert_eq!(private["path"], sb.private_root().display().to_string());

    let out = sb
        .cmd()
        .args(["status", "--json"])
        .env("QWEN_MEMORY_RECALL_LIMIT", "3")
        .output()
        .unwrap();
    let st: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let limit = status_setting(&st, "recall.limit");
    assert_eq!(limit["value"], "3");
    assert_eq!(limit["origin"], "env:QWEN_MEMORY_RECALL_LIMIT");
    // Human output works too.
    assert!(sb
        .ok(&["status"])
        .contains(&sanitize(&sb.repo.display().to_string())));
}

#[test]
fn subdirectory_shares_the_repository_key_and_workspace_scope_does_not() {
    let sb = Sandbox::new();
    let sub = sb.repo.join("a/b");
    fs::create_dir_all(&sub).unwrap();
    let out = sb.cmd_in(&sub).args(["status", "--json"]).output().unwrap();
    let st: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(st["projectKey"], sanitize(&sb.repo.display().to_string()));
    let out = sb
        .cmd_in(&sub)
        .args(["status", "--json"])
        .env("QWEN_CODE_MEMORY_PROJECT_SCOPE", "  Workspace ")
        .output()
        .unwrap();
    let st: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(st["projectKey"], sanitize(&sub.display().to_string()));
    let out = sb
        .cmd_in(&sub)
        .args(["status"])
        .env("QWEN_CODE_MEMORY_PROJECT_SCOPE", "exact")
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("QWEN_CODE_MEMORY_PROJECT_SCOPE"));
}

#[test]
fn outside_a_repository_the_directory_is_the_project() {
    let sb = Sandbox::new();
    let plain = sb.root().join("plain");
    fs::create_dir_all(&plain).unwrap();
    let out = sb
        .cmd_in(&plain)
        .args(["status", "--json"])
        .output()
        .unwrap();
    assert_success(&out, &["status"]);
    let st: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(st["projectKey"], sanitize(&plain.display().to_string()));
    assert!(st["worktree"].is_null());
}

#[test]
fn bare_repository_is_a_clear_error() {
    let sb = Sandbox::new();
    let bare = sb.root().join("bare.git");
    sb.git(
        &sb.root(),
        &["init", "-q", "--bare", bare.to_str().unwrap()],
    );
    let out = sb.cmd_in(&bare).args(["status"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bare repository"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "one-line error: {err}");
}

#[test]
fn linked_worktree_is_its_own_project() {
    let sb = Sandbox::new();
    let wt = sb.root().join("wt");
    sb.git(&sb.repo, &["worktree", "add", "-q", wt.to_str().unwrap()]);
    let out = sb.cmd_in(&wt).args(["status", "--json"]).output().unwrap();
    let st: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(st["projectKey"], sanitize(&wt.display().to_string()));
    assert_ne!(st["projectKey"], sanitize(&sb.repo.display().to_string()));
    // Local-mode state goes to the worktree's own git dir.
    let out = sb
        .cmd_in(&wt)
        .args([
            "remember",
            "--json",
            "Always run the linter before committing changes",
        ])
        .env("QWEN_CODE_MEMORY_LOCAL", "1")
        .output()
        .unwrap();
    assert_success(&out, &["remember"]);
    assert!(wt.join(".qwen/memory/MEMORY.md").is_file());
    assert!(sb
        .repo
        .join(".git/worktrees/wt/qwen-memory/meta.json")
        .is_file());
    assert!(!wt.join(".qwen/meta.json").exists());
}

#[test]
fn remember_writes_a_document_the_index_and_provenance() {
    let sb = Sandbox::new();
    let v = sb.json(&[
        "remember",
        "--type",
        "feedback",
        "--why",
        "CI is slow",
        "--how",
        "Open a pull request",
        "Never push directly to main",
    ]);
    assert_eq!(v["change"]["kind"], "created");
    assert_eq!(
        v["change"]["relativePath"],
        "feedback/never-push-directly-to-main.md"
    );
    let root = sb.private_root();
    let text = fs::read_to_string(root.join("feedback/never-push-directly-to-main.md")).unwrap();
    assert!(
        text.starts_with("---\nname: Never push directly to main\n"),
        "{text}"
    );
    assert!(text.contains("\ntype: feedback\n"));
    assert!(text.contains("\ncreated: "));
    let head = sb.git(&sb.repo, &["rev-parse", "HEAD"]);
    let parsed = qwen_memory::formats::doc::parse_document(&text).unwrap();
    assert_eq!(
        qwen_memory::formats::doc::frontmatter_value(&parsed, "commit"),
        Some(head.trim())
    );
    assert!(text.contains(
        "\n\nNever push directly to main\n\nWhy: CI is slow\n\nHow to apply: Open a pull request\n"
    ));
    let index = fs::read_to_string(root.join("MEMORY.md")).unwrap();
    assert_eq!(
        index,
        "- [Never push directly to main](feedback/never-push-directly-to-main.md) — Never push directly to main"
    );
    let meta = fs::read_to_string(sb.private_state().join("meta.json")).unwrap();
    assert!(meta.contains("\"version\": 1"));

    // The same summary merges: the other reason is joined to the kept one, no new file.
    let v = sb.json(&[
        "remember",
        "--type",
        "feedback",
        "--why",
        "other",
        "never push  directly to MAIN",
    ]);
    assert_eq!(v["change"]["kind"], "merged", "{v}");
    assert_eq!(fs::read_dir(root.join("feedback")).unwrap().count(), 1);
    let text = fs::read_to_string(root.join("feedback/never-push-directly-to-main.md")).unwrap();
    assert!(text.contains("\n\nWhy: CI is slow; other\n"), "{text}");
    // Again: the reason is there already, nothing changes.
    let v = sb.json(&[
        "remember",
        "--type",
        "feedback",
        "--why",
        "other",
        "Never push directly to main.",
    ]);
    assert_eq!(v["change"]["kind"], "unchanged", "{v}");

    let list = sb.json(&["list"]);
    assert_eq!(list.as_array().unwrap().len(), 1);
    assert_eq!(list[0]["id"], "feedback/never-push-directly-to-main.md");
    assert_eq!(list[0]["scope"], "private");
    let shown = sb.ok(&["show", "feedback/never-push-directly-to-main.md"]);
    assert!(shown.contains("Why: CI is slow"));
    let out = sb.cmd().args(["show", "nope.md"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn remember_merges_missing_why_into_existing() {
    let sb = Sandbox::new();
    sb.ok(&[
        "remember",
        "--type",
        "project",
        "We deploy only from release branches",
    ]);
    let v = sb.json(&[
        "remember",
        "--type",
        "project",
        "--why",
        "audits",
        "We deploy only from release branches",
    ]);
    assert_eq!(v["change"]["kind"], "merged");
    let text = fs::read_to_string(
        sb.private_root()
            .join("project/we-deploy-only-from-release-branches.md"),
    )
    .unwrap();
    assert!(text.contains("Why: audits"), "{text}");
}

#[test]
fn remember_refuses_secrets_without_printing_them() {
    let sb = Sandbox::new();
    let key = "AKIAIOSFODNN7EXAMPLQ";
    let out = sb
        .cmd()
        .args(["remember", &format!("the deploy key is {key}")])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("secret"), "{err}");
    assert!(!err.contains(key));
    assert!(!sb.private_root().join("project").exists());
}

#[test]
fn remember_and_extract_report_an_index_they_cannot_write_beside_what_they_saved() {
    let sb = Sandbox::new();
    sb.ok(&["remember", "We deploy only from release branches."]);
    let root = sb.private_root();
    // MEMORY.md that cannot be replaced (a directory where the file was).
    fs::remove_file(root.join("MEMORY.md")).unwrap();
    fs::create_dir(root.join("MEMORY.md")).unwrap();
    let out = sb
        .cmd()
        .args(["remember", "Never push straight to main."])
        .output()
        .unwrap();
    assert_success(&out, &["remember with a broken index"]);
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(stdout.starts_with("saved "), "{stdout}");
    assert!(
        stderr.contains("MEMORY.md not rebuilt") && stderr.contains("git qwen-memory index"),
        "{stderr}"
    );
    assert!(
        root.join("feedback/never-push-straight-to-main.md")
            .is_file(),
        "the document is saved"
    );
    let out = sb
        .cmd()
        .args(["--json", "remember", "Tag every release from main."])
        .output()
        .unwrap();
    assert_success(&out, &["remember --json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["change"]["kind"], "created", "{v}");
    assert!(
        v["indexError"].as_str().unwrap().contains("MEMORY.md"),
        "{v}"
    );
    // extract saves the turn, warns, and moves on (the cursor advances).
    let t = sb.root().join("chat.jsonl");
    let line =
        serde_json::json!({"role": "user", "content": "From now on always answer in French."});
    fs::write(&t, format!("{line}\n")).unwrap();
    let r = sb.json(&["extract", "--transcript", t.to_str().unwrap()]);
    assert_eq!(r["status"], "updated", "{r}");
    assert!(
        r["warnings"].to_string().contains("MEMORY.md not rebuilt"),
        "{r}"
    );
    let again = sb.json(&["extract", "--transcript", t.to_str().unwrap()]);
    assert_ne!(again["status"], "updated", "{again}");
    // Once MEMORY.md can be written, `index` lists all three.
    fs::remove_dir(root.join("MEMORY.md")).unwrap();
    sb.ok(&["index"]);
    let index = fs::read_to_string(root.join("MEMORY.md")).unwrap();
    assert!(
        index.contains("never-push-straight-to-main") && index.contains("tag-every-release"),
        "{index}"
    );
}

#[test]
fn remember_user_scope_and_local_mode_roots() {
    let sb = Sandbox::new();
    sb.ok(&[
        "remember",
        "--scope",
        "user",
        "I prefer answers without a closing summary",
    ]);
    let user_docs: Vec<_> = fs::read_dir(sb.base.join("memories/user"))
        .unwrap()
        .collect();
    assert_eq!(user_docs.len(), 1);
    assert!(sb.base.join("memories/MEMORY.md").is_file());

    let out = sb
        .cmd()
        .args([
            "remember",
            "--type",
            "project",
            "The staging database is reset every night",
        ])
        .env("QWEN_CODE_MEMORY_LOCAL", "1")
        .output()
        .unwrap();
    assert_success(&out, &["remember local"]);
    assert!(sb
        .repo
        .join(".qwen/memory/project/the-staging-database-is-reset-every-night.md")
        .is_file());
    assert!(sb.repo.join(".git/qwen-memory/meta.json").is_file());
    assert!(
        !sb.repo.join(".qwen/meta.json").exists(),
        "state never in the work tree"
    );
    // git config turns local mode on as well.
    sb.git(&sb.repo, &["config", "qwen-memory.local", "true"]);
    let st = sb.json(&["status"]);
    assert_eq!(st["mode"], "local");
    // Both roots are listed.
    let list = sb.json(&["list"]);
    let scopes: Vec<_> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["scope"].clone())
        .collect();
    assert!(
        scopes.contains(&"repository".into()) && scopes.contains(&"user".into()),
        "{scopes:?}"
    );
    let only_user = sb.json(&["list", "--scope", "user"]);
    assert_eq!(only_user.as_array().unwrap().len(), 1);
}

/// Six `remember`s at once: the first to take the root's lock keeps it (the library's lock test
/// seam) until the five others are seen waiting for it, so the race really happens; then every
/// entry is kept.
#[test]
fn concurrent_remember_keeps_every_entry() {
    let sb = Sandbox::new();
    let barrier = LockBarrier::new(&sb);
    barrier.hold("memory.lock");
    let lock = sb.private_state().join("memory.lock");
    let (var, dir) = barrier.env();
    let children: Vec<_> = (0..6)
        .map(|i| {
            sb.std_cmd(&sb.repo)
                .env(var, &dir)
                .args([
                    "remember",
                    "--type",
                    "project",
                    &format!("Service number {i} listens on port 80{i}0"),
                ])
                .spawn()
                .unwrap()
        })
        .collect();
    let pids: std::collections::BTreeSet<u32> = children.iter().map(|c| c.id()).collect();
    barrier.wait_until("one remember holding the lock while five wait", |b| {
        b.pids("held", &lock).len() == 1 && b.pids("busy", &lock).len() == 5
    });
    // The overlap, as the processes recorded it: one held the root's lock while each of the
    // five others found it taken and waited.
    let holder = barrier.pids("held", &lock);
    let waiters = barrier.pids("busy", &lock);
    assert!(holder.is_disjoint(&waiters), "{:#?}", barrier.events());
    assert_eq!(
        holder
            .union(&waiters)
            .copied()
            .collect::<std::collections::BTreeSet<_>>(),
        pids
    );
    barrier.release("memory.lock");
    for mut c in children {
        assert!(c.wait().unwrap().success());
    }
    // Each waiter then took the lock in turn.
    assert!(pids.is_subset(&barrier.pids("held", &lock)));
    let list = sb.json(&["list"]);
    assert_eq!(list.as_array().unwrap().len(), 6);
    let index = fs::read_to_string(sb.private_root().join("MEMORY.md")).unwrap();
    assert_eq!(index.lines().count(), 6, "{index}");
}

#[test]
fn index_check_detects_staleness_and_rebuild_fixes_it() {
    let sb = Sandbox::new();
    sb.ok(&[
        "remember",
        "--type",
        "project",
        "The API is versioned by date",
    ]);
    sb.ok(&["index", "--check"]);
    write_doc(
        &sb.private_root(),
        "reference/dash.md",
        &doc_text(
            "Dashboards",
            "Grafana board for latency",
            "reference",
            "See grafana.internal/d/latency",
        ),
    );
    let out = sb.cmd().args(["index", "--check"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let out = sb.cmd().args(["check"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("stale-index"));
    sb.ok(&["index"]);
    sb.ok(&["index", "--check"]);
    sb.ok(&["check"]);
    let index = fs::read_to_string(sb.private_root().join("MEMORY.md")).unwrap();
    assert!(index.contains("](reference/dash.md) — Grafana board for latency"));
}

#[test]
fn symlinked_index_is_refused_naming_it_and_target_untouched() {
    let sb = Sandbox::new();
    sb.ok(&[
        "remember",
        "--type",
        "project",
        "Releases are cut on Tuesdays",
    ]);
    let outside = sb.root().join("outside.md");
    fs::write(&outside, "SENTINEL").unwrap();
    let index = sb.private_root().join("MEMORY.md");
    fs::remove_file(&index).unwrap();
    std::os::unix::fs::symlink(&outside, &index).unwrap();
    let out = sb.cmd().args(["index"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(&index.display().to_string()), "{stderr}");
    assert_eq!(fs::read_to_string(&outside).unwrap(), "SENTINEL");
    assert!(fs::symlink_metadata(&index)
        .unwrap()
        .file_type()
        .is_symlink());
}

#[test]
fn symlinked_memory_root_is_refused() {
    let sb = Sandbox::new();
    let elsewhere = sb.root().join("elsewhere");
    fs::create_dir_all(&elsewhere).unwrap();
    fs::create_dir_all(sb.repo.join(".qwen")).unwrap();
    std::os::unix::fs::symlink(&elsewhere, sb.repo.join(".qwen/memory")).unwrap();
    let out = sb
        .cmd()
        .args(["remember", "Tests run with nextest in CI"])
        .env("QWEN_CODE_MEMORY_LOCAL", "1")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("symlink"));
    assert_eq!(fs::read_dir(&elsewhere).unwrap().count(), 0);
    let out = sb.cmd().args(["check"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn bad_topic_files_are_skipped_and_reported_by_check() {
    let sb = Sandbox::new();
    sb.ok(&[
        "remember",
        "--type",
        "project",
        "The monorepo uses pnpm workspaces",
    ]);
    let root = sb.private_root();
    write_doc(&root, "bad/plain.md", "just text, no frontmatter\n");
    write_doc(
        &root,
        "bad/unknown-type.md",
        "---\nname: x\ntype: Project\n---\n\nbody\n",
    );
    write_doc(&root, "bad/empty-head.md", "---\n---\nbody\n");
    let alias_bomb = "---\ntype: project\na: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\ng: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]\nh: [*g,*g,*g,*g,*g,*g,*g,*g,*g]\n---\n\nbomb\n";
    write_doc(&root, "odd/alias.md", alias_bomb);
    // Oddities Qwen Code 0.24.4 reads as memories (CRLF, duplicate keys, invalid UTF-8) and two
    // it does not (a tab before `type:`, a BOM), which are therefore not memories here either.
    write_doc(
        &root,
        "odd/tabs.md",
        "---\n\ttype: project\nname: Tabbed\n---\n\nTabbed body line\n",
    );
    write_doc(
        &root,
        "odd/bom.md",
        "\u{feff}---\nname: Bommed\ntype: user\n---\n\nBOM body\n",
    );
    write_doc(
        &root,
        "odd/crlf.md",
        "---\r\nname: Windows\r\ntype: reference\r\n---\r\n\r\nCRLF body\r\n",
    );
    write_doc(
        &root,
        "odd/dup.md",
        "---\nname: First\nname: Second\ntype: project\n---\n\nDup body\n",
    );
    let mut bytes = b"---\nname: Bytes\ntype: project\n---\n\nbad \xff\xfe byte\n".to_vec();
    bytes.extend_from_slice(b"");
    fs::write(root.join("odd/utf8.md"), bytes).unwrap();
    let big = format!(
        "---\nname: Big\ntype: project\n---\n\n{}\n",
        "x".repeat(5 * 1024 * 1024)
    );
    write_doc(&root, "bad/big.md", &big);
    std::os::unix::fs::symlink(root.join("odd/tabs.md"), root.join("odd/link.md")).unwrap();

    let list = sb.json(&["list"]);
    let ids: Vec<String> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["id"].as_str().unwrap().to_string())
        .collect();
    for want in ["odd/crlf.md", "odd/dup.md", "odd/utf8.md"] {
        assert!(
            ids.contains(&want.to_string()),
            "{want} missing from {ids:?}"
        );
    }
    for unwanted in [
        "odd/tabs.md",
        "odd/bom.md",
        "bad/plain.md",
        "bad/unknown-type.md",
        "bad/empty-head.md",
        "bad/big.md",
        "odd/link.md",
    ] {
        assert!(!ids.contains(&unwanted.to_string()), "{unwanted} listed");
    }
    let crlf = list
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["id"] == "odd/crlf.md")
        .unwrap();
    assert_eq!(crlf["title"], "Windows");
    let out = sb.cmd().args(["check", "--json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let problems: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let flagged: Vec<String> = problems
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["path"].as_str().unwrap().to_string())
        .collect();
    for want in [
        "bad/plain.md",
        "bad/unknown-type.md",
        "bad/big.md",
        "odd/link.md",
        "odd/tabs.md",
        "odd/bom.md",
    ] {
        assert!(
            flagged.contains(&want.to_string()),
            "{want} not reported: {flagged:?}"
        );
    }
    // Nothing was deleted or rewritten.
    assert_eq!(
        fs::read_to_string(root.join("bad/plain.md")).unwrap(),
        "just text, no frontmatter\n"
    );
    sb.ok(&["index"]);
    assert!(root.join("bad/big.md").is_file());
}

#[test]
fn index_limits_through_the_cli() {
    let sb = Sandbox::new();
    let root = sb.private_root();
    for i in 0..201 {
        let p = write_doc(
            &root,
            &format!("project/doc-{i:03}.md"),
            &doc_text(&format!("Doc {i}"), "d", "project", "body"),
        );
        set_mtime(&p, 1_700_000_000 + i);
    }
    let long_title = "T".repeat(400);
    write_doc(
        &root,
        "f/long.md",
        &doc_text(&long_title, "desc", "feedback", "x"),
    );
    // A path longer than the 120 characters a link target keeps, and CJK lines (more bytes
    // than UTF-16 units): neither is a dangling link or over budget for `check`.
    let long_path = format!("project/{}/{}.md", "长".repeat(70), "长".repeat(70));
    let p = write_doc(
        &root,
        &long_path,
        &doc_text("长路径", "中文描述", "project", "x"),
    );
    set_mtime(&p, 1_600_000_000);
    sb.ok(&["index"]);
    let index = fs::read_to_string(root.join("MEMORY.md")).unwrap();
    let lines: Vec<&str> = index.lines().collect();
    // As Qwen Code: only the newest 200 documents, and no warning for the ones left out.
    assert_eq!(lines.len(), 200);
    assert!(lines.iter().all(|l| l.starts_with("- [")));
    assert!(!index.contains("WARNING") && !index.ends_with('\n'));
    // Newest first: the long-title file (written now), then doc-200 down to doc-002.
    assert!(lines[0].starts_with(&format!("- [{}\u{2026}](f/long.md)", "T".repeat(119))));
    assert!(lines[1].contains("(project/doc-200.md)"));
    assert!(lines[199].contains("(project/doc-002.md)"));
    assert!(!index.contains("doc-001.md") && !index.contains("doc-000.md"));
    sb.ok(&["index", "--check"]);
    sb.ok(&["check"]);
    // The long path is listed once it is among the newest 200.
    set_mtime(&p, 1_800_000_000);
    sb.ok(&["index"]);
    let index = fs::read_to_string(root.join("MEMORY.md")).unwrap();
    assert!(index.starts_with("- [长路径](project/%E9%95%BF"), "{index}");
    sb.ok(&["check"]);
}

#[test]
fn upstream_legacy_layout_reads() {
    let sb = Sandbox::new();
    let root = sb.private_root();
    write_doc(
        &root,
        "feedback.md",
        "---\ntype: feedback\ntitle: Feedback Memory\ndescription: Corrections and validated guidance\n---\n\n# Feedback Memory\n\n- Run tests with nextest\n  - Why: faster\n  - How to apply: use cargo nextest run\n- Keep commits small\n",
    );
    write_doc(&root, "user.md", "---\ntype: user\ntitle: User Memory\ndescription: User profile\n---\n\n# User Memory\n\n_No entries yet._\n");
    write_doc(
        &root,
        "project/structured.md",
        "---\nname: Build system\ndescription: How the project builds\ntype: project\ncategory: build_configuration\nkeywords:\n  - \"cargo\"\n  - \"release\"\nusage_scenarios:\n  - \"building\"\n---\n\nThe build uses cargo workspaces.\n\n**Why:** one lockfile\n\n**How to apply:** add crates under crates/\n",
    );
    let list = sb.json(&["list"]);
    let by_id = |id: &str| {
        list.as_array()
            .unwrap()
            .iter()
            .find(|d| d["id"] == id)
            .cloned()
            .unwrap()
    };
    assert_eq!(by_id("feedback.md")["title"], "Feedback Memory");
    assert_eq!(by_id("feedback.md")["entries"], 2);
    assert_eq!(by_id("user.md")["entries"], 0);
    assert_eq!(by_id("project/structured.md")["entries"], 1);
    let shown = sb.json(&["show", "project/structured.md"]);
    assert!(shown["content"].as_str().unwrap().contains("keywords:"));
}

#[test]
fn completions_and_man_page() {
    let sb = Sandbox::new();
    let bash = sb.ok(&["completions", "bash"]);
    assert!(bash.contains("remember"));
    let man = sb.ok(&["man"]);
    assert!(
        man.contains(".TH") && man.contains("remember"),
        "{}",
        &man[..200.min(man.len())]
    );
}

// `git qwen-memory --help` through git: tests/completions_man.rs, without needing `man`.

#[test]
fn stats_summarize_telemetry_and_opt_out_writes_nothing() {
    let sb = Sandbox::new();
    sb.ok(&[
        "remember",
        "--type",
        "project",
        "The nightly build publishes docs",
    ]);
    sb.ok(&[
        "remember",
        "--type",
        "project",
        "Integration tests need docker compose",
    ]);
    let stats = sb.json(&["stats"]);
    let remember = stats
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["event"] == "qwen-code.memory.remember")
        .cloned()
        .expect("remember events counted");
    assert_eq!(remember["count"], 2);
    let tel = fs::read_to_string(sb.private_state().join("telemetry.jsonl")).unwrap();
    assert!(!tel.contains("nightly"), "no content in telemetry");
    let out = sb
        .cmd()
        .args([
            "remember",
            "--type",
            "project",
            "Feature flags live in LaunchDarkly",
        ])
        .env("QWEN_MEMORY_TELEMETRY", "0")
        .output()
        .unwrap();
    assert_success(&out, &["remember"]);
    let after = fs::read_to_string(sb.private_state().join("telemetry.jsonl")).unwrap();
    assert_eq!(tel, after);
}

#[test]
fn a_base_dir_that_is_a_file_is_a_clear_error() {
    let sb = Sandbox::new();
    let file = sb.root().join("not-a-dir");
    fs::write(&file, "x").unwrap();
    let out = sb
        .cmd()
        .args(["remember", "Lint with clippy before pushing"])
        .env("QWEN_CODE_MEMORY_BASE_DIR", &file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("not-a-dir"), "{err}");
    assert_eq!(fs::read_to_string(&file).unwrap(), "x");
    // Reading commands still work and report the problem instead of failing.
    let out = sb
        .cmd()
        .args(["status"])
        .env("QWEN_CODE_MEMORY_BASE_DIR", &file)
        .output()
        .unwrap();
    assert_success(&out, &["status"]);
}

#[test]
fn remember_auto_commits_in_local_mode_only_when_asked() {
    let sb = Sandbox::new();
    sb.git(&sb.repo, &["config", "qwen-memory.local", "true"]);
    fs::write(sb.repo.join("work.txt"), "unstaged user work\n").unwrap();
    sb.ok(&[
        "remember",
        "--type",
        "project",
        "Benchmarks run on the quiet machine",
    ]);
    let log = sb.git(&sb.repo, &["log", "--oneline"]);
    assert_eq!(log.lines().count(), 1, "no commit without autoCommit");
    sb.git(&sb.repo, &["config", "qwen-memory.autoCommit", "true"]);
    sb.ok(&[
        "remember",
        "--type",
        "project",
        "Releases are tagged with a v prefix",
    ]);
    let log = sb.git(&sb.repo, &["log", "--format=%s"]);
    assert_eq!(log.lines().count(), 2, "{log}");
    assert!(log.lines().next().unwrap().starts_with("memory:"), "{log}");
    let files = sb.git(&sb.repo, &["show", "--name-only", "--format=", "HEAD"]);
    assert!(
        files.lines().all(|f| f.starts_with(".qwen/memory/")),
        "{files}"
    );
    assert!(files.contains("releases-are-tagged-with-a-v-prefix.md"));
    let status = sb.git(&sb.repo, &["status", "--porcelain"]);
    assert!(
        status.contains("?? work.txt"),
        "user work untouched: {status}"
    );
}

#[test]
fn base_dir_is_resolved_as_qwen_code_resolves_it() {
    let sb = Sandbox::new();
    let root = sb.root();
    let base = |envs: &[(&str, &Path)]| {
        let mut c = sb.cmd();
        c.env_remove("QWEN_CODE_MEMORY_BASE_DIR")
            .env_remove("QWEN_HOME")
            .env_remove("QWEN_RUNTIME_DIR");
        for (k, v) in envs {
            c.env(k, v);
        }
        let out = c.args(["status", "--json"]).output().unwrap();
        assert_success(&out, &["status"]);
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        PathBuf::from(v["baseDir"].as_str().unwrap())
    };
    // Default: ~/.qwen; a repository's own setting never moves personal memory (see
    // tests/security.rs and docs/DESIGN.md, "Roots and paths").
    assert_eq!(base(&[]), sb.home.join(".qwen"));
    write_doc(
        &sb.repo,
        ".qwen/settings.json",
        r#"{"advanced": {"runtimeOutputDir": "~/project-rt"}}"#,
    );
    assert_eq!(base(&[]), sb.home.join(".qwen"));
    fs::remove_file(sb.repo.join(".qwen/settings.json")).unwrap();
    // QWEN_HOME moves the global dir, whose settings may move the runtime dir (relative to the
    // current directory).
    let qwen_home = root.join("qh");
    assert_eq!(base(&[("QWEN_HOME", &qwen_home)]), qwen_home);
    write_doc(
        &qwen_home,
        "settings.json",
        "{ // comments are allowed\n \"advanced\": {\"runtimeOutputDir\": \"rt\"} }",
    );
    assert_eq!(base(&[("QWEN_HOME", &qwen_home)]), sb.repo.join("rt"));
    // The environment wins over settings; QWEN_CODE_MEMORY_BASE_DIR wins over everything.
    let env_rt = root.join("env-rt");
    assert_eq!(
        base(&[("QWEN_HOME", &qwen_home), ("QWEN_RUNTIME_DIR", &env_rt)]),
        env_rt
    );
    let mem = root.join("mem");
    assert_eq!(
        base(&[
            ("QWEN_HOME", &qwen_home),
            ("QWEN_RUNTIME_DIR", &env_rt),
            ("QWEN_CODE_MEMORY_BASE_DIR", &mem)
        ]),
        mem
    );
}

#[test]
fn each_changing_operation_reports_its_own_auto_commit() {
    // The policy lives in the operation: its JSON report carries the commit it made.
    let sb = Sandbox::new();
    sb.git(&sb.repo, &["config", "qwen-memory.local", "true"]);
    sb.git(&sb.repo, &["config", "qwen-memory.autoCommit", "true"]);
    let head = |sb: &Sandbox| sb.git(&sb.repo, &["rev-parse", "HEAD"]).trim().to_string();

    let saved = sb.json(&[
        "remember",
        "--type",
        "project",
        "Nightly builds run at 02:00 UTC",
    ]);
    assert_eq!(
        saved["autoCommit"]["commit"].as_str(),
        Some(head(&sb).as_str())
    );
    assert!(saved["autoCommit"]["subject"]
        .as_str()
        .unwrap()
        .starts_with("memory:"));

    let again = sb.json(&[
        "remember",
        "--type",
        "project",
        "Nightly builds run at 02:00 UTC",
    ]);
    assert!(
        again.get("autoCommit").is_none(),
        "nothing changed: {again}"
    );

    let forgot = sb.json(&["forget", "-y", "nightly builds"]);
    assert_eq!(forgot["removedEntries"], 1, "{forgot}");
    assert_eq!(
        forgot["autoCommit"]["commit"].as_str(),
        Some(head(&sb).as_str())
    );

    let undone = sb.json(&["forget", "--undo"]);
    assert_eq!(undone["status"], "undone");
    assert_eq!(
        undone["autoCommit"]["commit"].as_str(),
        Some(head(&sb).as_str())
    );
    let log = sb.git(&sb.repo, &["log", "--format=%s"]);
    assert_eq!(
        log.lines().count(),
        4,
        "init + remember + forget + undo: {log}"
    );

    // Without autoCommit the report has no autoCommit and nothing is committed.
    sb.git(&sb.repo, &["config", "qwen-memory.autoCommit", "false"]);
    let quiet = sb.json(&[
        "remember",
        "--type",
        "project",
        "Staging resets every Monday",
    ]);
    assert!(quiet.get("autoCommit").is_none(), "{quiet}");
    assert_eq!(sb.git(&sb.repo, &["log", "--format=%s"]).lines().count(), 4);
}

/// A child of a test inherits only the allow list: a setting of this tool, Git's configuration
/// overrides and an unknown variable are all gone, whatever the parent had (set here on the
/// command itself, as the parent's environment would be inherited), and PATH stays.
#[test]
fn test_children_inherit_only_the_allow_list() {
    for var in qwen_memory::storage::settings::ENV_VARS
        .iter()
        .chain(GIT_CONFIG_ENV)
        .chain(&["HOME", "GIT_DIR", "QWEN_HOME", "OPENAI_API_KEY"])
    {
        assert!(
            !ENV_ALLOWED.contains(var),
            "{var} must not pass the allow list"
        );
    }
    let mut c = std::process::Command::new("sh");
    c.env("QWEN_MEMORY_RECALL_LIMIT", "7")
        .env("GIT_CONFIG_GLOBAL", "/nonexistent")
        .env("SOME_UNLISTED_VARIABLE", "x");
    clear_tool_env(&mut c);
    let out = c.args(["-c", "env"]).output().expect("sh");
    let env = String::from_utf8_lossy(&out.stdout);
    for gone in [
        "QWEN_MEMORY_RECALL_LIMIT=",
        "GIT_CONFIG_GLOBAL=",
        "SOME_UNLISTED_VARIABLE=",
    ] {
        assert!(!env.lines().any(|l| l.starts_with(gone)), "{gone} in {env}");
    }
    if std::env::var_os("PATH").is_some() {
        assert!(env.lines().any(|l| l.starts_with("PATH=")), "{env}");
    }
}
