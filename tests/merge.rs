//! The merge driver under a real `git merge` (installed by `install --local`): every pairing of
//! add / delete / reword / edit-why / edit-how on the same entry, identical changes, changes to
//! different entries; and unresolved conflict markers as an error for `check`, the pre-commit
//! hook and recall.

use crate::common;

use std::fs;

use common::*;

const OPS: [&str; 5] = ["add", "delete", "reword", "edit-why", "edit-how"];
const DOC: &str = "project/build.md";

/// Entry E (the one the pairings change) and entry F (for changes to different entries).
fn base_body() -> String {
    [
        "Use pnpm for installs.",
        "Why: the lockfile is pnpm's",
        "How to apply: run pnpm install",
        "Run the linter before pushing.",
        "Why: CI rejects lint errors",
        "How to apply: run pnpm lint",
    ]
    .join("\n\n")
}

/// Applies `op` to entry E (or F) of `body`; `tag` makes each side's text distinct. Returns the
/// new body and the text this side contributed (what a clean merge must keep).
fn apply(body: &str, op: &str, tag: &str, on_f: bool) -> (String, Option<String>) {
    let (summary, why, how) = if on_f {
        (
            "Run the linter before pushing.",
            "Why: CI rejects lint errors",
            "How to apply: run pnpm lint",
        )
    } else {
        (
            "Use pnpm for installs.",
            "Why: the lockfile is pnpm's",
            "How to apply: run pnpm install",
        )
    };
    match op {
        // A case-variant duplicate of the entry, with a Why of its own.
        "add" => {
            let added = format!("{}\n\nWhy: added on {tag}", summary.to_uppercase());
            (
                format!("{body}\n\n{added}"),
                Some(format!("added on {tag}")),
            )
        }
        "delete" => {
            let block = format!("{summary}\n\n{why}\n\n{how}");
            let out = body
                .replace(&format!("{block}\n\n"), "")
                .replace(&format!("\n\n{block}"), "");
            assert_ne!(out, body);
            (out, None)
        }
        "reword" => {
            let new = format!("{} (reworded on {tag})", summary.trim_end_matches('.'));
            (body.replace(summary, &new), Some(new))
        }
        "edit-why" => {
            let new = format!("{why}; edited on {tag}");
            (body.replace(why, &new), Some(new))
        }
        "edit-how" => {
            let new = format!("{how} --frozen-lockfile ({tag})");
            (body.replace(how, &new), Some(new))
        }
        other => panic!("unknown op {other}"),
    }
}

/// Whether the driver must conflict when ours does `a` and theirs does `b` (different text) to
/// the same entry: any pair where one side's change would otherwise be lost.
fn must_conflict(a: &str, b: &str) -> bool {
    let (x, y) = if a <= b { (a, b) } else { (b, a) };
    match (x, y) {
        // The same fact added on both sides (a case variant): one entry, both Whys joined.
        ("add", "add") => false,
        // The duplicate is a separate entry: nothing of either side is lost.
        ("add", _) => false,
        ("delete", "delete") => false,
        ("edit-how", "edit-why") => false,
        // Both only added to the reason (`why; edited on …`): every addition kept.
        ("edit-why", "edit-why") => false,
        _ => true,
    }
}

fn doc(body: &str) -> String {
    doc_text("Build", "How the project is built", "project", body)
}

fn mem(sb: &Sandbox) -> std::path::PathBuf {
    sb.repo.join(".qwen/memory")
}

fn local_repo() -> Sandbox {
    let sb = Sandbox::new();
    let out = sb.cmd().args(["install", "--local"]).output().unwrap();
    assert_success(&out, &["install", "--local"]);
    write_doc(&mem(&sb), DOC, &doc(&base_body()));
    sb.ok(&["index"]);
    sb.git(&sb.repo, &["add", "-A"]);
    sb.git(&sb.repo, &["commit", "-q", "-m", "base"]);
    sb
}

/// Commits `body` as the document on a new branch `name` made from main.
fn branch(sb: &Sandbox, name: &str, body: &str) {
    sb.git(&sb.repo, &["checkout", "-q", "-b", name, "main"]);
    write_doc(&mem(sb), DOC, &doc(body));
    sb.git(&sb.repo, &["commit", "-q", "-am", name]);
}

struct Outcome {
    code: Option<i32>,
    text: String,
    unmerged: String,
}

/// Checks out `left`, merges `right` with the hooks on PATH, and returns what happened; leaves
/// the repository back on main with no merge in progress.
fn merge(sb: &Sandbox, left: &str, right: &str) -> Outcome {
    sb.git(&sb.repo, &["checkout", "-q", left]);
    let out = sb.git_hooked(&sb.repo, &["merge", "--no-edit", "-q", right], &[]);
    let text = fs::read_to_string(mem(sb).join(DOC)).unwrap();
    let unmerged = sb.git(&sb.repo, &["diff", "--name-only", "--diff-filter=U"]);
    if out.status.success() {
        // The merged index matches the merged documents.
        let check = sb.cmd().args(["index", "--check"]).output().unwrap();
        assert_success(&check, &["index", "--check", "after merging", right]);
    } else {
        sb.git(&sb.repo, &["merge", "--abort"]);
    }
    sb.git(&sb.repo, &["checkout", "-q", "main"]);
    Outcome {
        code: out.status.code(),
        text,
        unmerged,
    }
}

fn assert_conflict(o: &Outcome, left: &str, right: &str, texts: &[&Option<String>], what: &str) {
    assert_ne!(o.code, Some(0), "{what}: git merge must fail\n{}", o.text);
    assert!(o.unmerged.contains(DOC), "{what}: {}", o.unmerged);
    assert!(
        o.text.contains(&format!("\n<<<<<<< {left}\n"))
            && o.text.contains("\n=======\n")
            && o.text.contains(&format!("\n>>>>>>> {right}\n")),
        "{what}: markers must name both branches\n{}",
        o.text
    );
    for t in texts.iter().copied().flatten() {
        assert!(
            o.text.contains(t.as_str()),
            "{what}: lost {t:?}\n{}",
            o.text
        );
    }
}

fn assert_clean(o: &Outcome, texts: &[&Option<String>], what: &str) {
    assert_eq!(
        o.code,
        Some(0),
        "{what}: expected a clean merge\n{}",
        o.text
    );
    assert!(!o.text.contains("<<<<<<<"), "{what}\n{}", o.text);
    for t in texts.iter().copied().flatten() {
        assert!(
            o.text.contains(t.as_str()),
            "{what}: lost {t:?}\n{}",
            o.text
        );
    }
}

#[test]
fn every_pairing_on_the_same_entry_merges_losslessly_or_conflicts() {
    let sb = local_repo();
    let base = base_body();
    let mut conflicts = 0;
    for a in OPS {
        for b in OPS {
            let (left, right) = (format!("left-{a}-{b}"), format!("right-{a}-{b}"));
            let (lbody, ltext) = apply(&base, a, "left", false);
            let (rbody, rtext) = apply(&base, b, "right", false);
            branch(&sb, &left, &lbody);
            branch(&sb, &right, &rbody);
            let o = merge(&sb, &left, &right);
            let what = format!("ours {a} × theirs {b}");
            if must_conflict(a, b) {
                conflicts += 1;
                assert_conflict(&o, &left, &right, &[&ltext, &rtext], &what);
            } else if a == "edit-why" && b == "edit-why" {
                // Both added to the same reason: one Why holding the base's and both additions.
                let both = Some("; edited on left; edited on right".to_string());
                assert_clean(&o, &[&both], &what);
            } else {
                assert_clean(&o, &[&ltext, &rtext], &what);
                if a == "delete" && b == "delete" {
                    assert!(!o.text.contains("Use pnpm for installs."), "{}", o.text);
                }
            }
        }
    }
    // Not conflicts: delete×delete, add with anything (9 pairs), edit-how×edit-why (2),
    // edit-why×edit-why (both only add to the reason).
    assert_eq!(conflicts, 25 - 1 - 9 - 2 - 1);
}

#[test]
fn identical_changes_on_both_sides_merge_cleanly() {
    let sb = local_repo();
    let base = base_body();
    for op in OPS {
        let (body, text) = apply(&base, op, "both", false);
        let (left, right) = (format!("left-{op}"), format!("right-{op}"));
        branch(&sb, &left, &format!("{body}\n\nOnly on the left."));
        branch(&sb, &right, &format!("{body}\n\nOnly on the right."));
        let o = merge(&sb, &left, &right);
        let (l, r) = (
            Some("Only on the left.".to_string()),
            Some("Only on the right.".to_string()),
        );
        assert_clean(&o, &[&text, &l, &r], op);
        if let Some(t) = &text {
            assert_eq!(o.text.matches(t.as_str()).count(), 1, "{op}\n{}", o.text);
        }
    }
}

#[test]
fn changes_to_different_entries_merge_cleanly_with_both_present() {
    let sb = local_repo();
    let base = base_body();
    for (a, b) in [
        ("reword", "edit-why"),
        ("delete", "edit-how"),
        ("edit-why", "delete"),
        ("add", "reword"),
        ("reword", "reword"),
        ("edit-how", "edit-why"),
    ] {
        let (lbody, ltext) = apply(&base, a, "left", false);
        let (rbody, rtext) = apply(&base, b, "right", true);
        let (left, right) = (format!("left-{a}-{b}"), format!("right-{a}-{b}"));
        branch(&sb, &left, &lbody);
        branch(&sb, &right, &rbody);
        let o = merge(&sb, &left, &right);
        assert_clean(&o, &[&ltext, &rtext], &format!("E {a} × F {b}"));
    }
}

#[test]
fn install_local_routes_repository_and_team_memory_to_the_driver() {
    let sb = local_repo();
    let attrs = fs::read_to_string(sb.repo.join(".gitattributes")).unwrap();
    assert!(
        attrs.contains(".qwen/memory/**/*.md merge=qwen-memory"),
        "{attrs}"
    );
    assert!(
        attrs.contains(".qwen/team-memory/**/*.md merge=qwen-memory"),
        "{attrs}"
    );
    let attr = sb.git(
        &sb.repo,
        &["check-attr", "merge", ".qwen/team-memory/project/x.md"],
    );
    assert!(attr.contains("merge: qwen-memory"), "{attr}");
    let driver = sb.git(&sb.repo, &["config", "merge.qwen-memory.driver"]);
    assert!(driver.contains("merge-file %O %A %B %P"), "{driver}");
}

fn conflicted_repo() -> Sandbox {
    let sb = local_repo();
    let base = base_body();
    branch(&sb, "left", &apply(&base, "reword", "left", false).0);
    branch(&sb, "right", &apply(&base, "edit-why", "right", false).0);
    sb.git(&sb.repo, &["checkout", "-q", "left"]);
    let out = sb.git_hooked(&sb.repo, &["merge", "--no-edit", "-q", "right"], &[]);
    assert!(!out.status.success());
    sb
}

#[test]
fn conflict_markers_block_the_pre_commit_hook_and_fail_check() {
    let sb = conflicted_repo();
    let text = fs::read_to_string(mem(&sb).join(DOC)).unwrap();
    assert!(text.contains("<<<<<<< left\n"), "{text}");
    // Staging the unresolved file and committing: the hook blocks and names the file.
    sb.git(&sb.repo, &["add", "-A"]);
    let out = sb.git_hooked(&sb.repo, &["commit", "-q", "--no-edit"], &[]);
    assert_eq!(out.status.code(), Some(1), "blocked");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(&format!(".qwen/memory/{DOC}")), "{err}");
    assert!(err.contains("conflict markers"), "{err}");
    assert!(
        sb.git(&sb.repo, &["rev-parse", "-q", "--verify", "MERGE_HEAD"])
            .len()
            > 1
    );

    let out = sb.cmd().args(["check", "--json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let problems: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        problems
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["kind"] == "conflict-markers" && p["path"] == DOC),
        "{problems}"
    );

    // Resolved (both texts kept as entries): the commit goes through and check is clean.
    let resolved: String = text
        .lines()
        .filter(|l| {
            !l.starts_with("<<<<<<<") && !l.starts_with("=======") && !l.starts_with(">>>>>>>")
        })
        .collect::<Vec<_>>()
        .join("\n");
    fs::write(mem(&sb).join(DOC), resolved).unwrap();
    sb.ok(&["index"]);
    sb.git(&sb.repo, &["add", "-A"]);
    let out = sb.git_hooked(&sb.repo, &["commit", "-q", "--no-edit"], &[]);
    assert_success(&out, &["commit resolved"]);
    sb.ok(&["check"]);
}

#[test]
fn the_commit_helper_refuses_a_file_with_conflict_markers() {
    let sb = local_repo();
    let path = mem(&sb).join(DOC);
    let text = fs::read_to_string(&path).unwrap();
    let marked = text.replace(
        "Why: the lockfile is pnpm's",
        "<<<<<<< Updated upstream\nWhy: the lockfile is pnpm's\n=======\nWhy: speed\n>>>>>>> Stashed changes",
    );
    fs::write(&path, &marked).unwrap();
    let out = sb.cmd().args(["commit"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(DOC) && err.contains("conflict markers"),
        "{err}"
    );
    assert_eq!(
        sb.git(&sb.repo, &["status", "--porcelain"]).trim(),
        format!("M .qwen/memory/{DOC}")
    );
    // Resolved, it commits.
    fs::write(&path, text.replace("pnpm's", "pnpm's; speed")).unwrap();
    let out = sb.cmd().args(["commit"]).output().unwrap();
    assert_success(&out, &["commit"]);
}

#[test]
fn conflict_markers_in_team_memory_block_the_commit() {
    let sb = local_repo();
    let team = sb.repo.join(".qwen/team-memory");
    write_doc(
        &team,
        "project/ci.md",
        &doc("CI runs on every push.\n\n<<<<<<< main\nWhy: a\n=======\nWhy: b\n>>>>>>> topic"),
    );
    sb.git(&sb.repo, &["add", "-A"]);
    let out = sb.git_hooked(&sb.repo, &["commit", "-q", "-m", "team"], &[]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(".qwen/team-memory/project/ci.md (line "),
        "{err}"
    );
}

#[test]
fn recall_never_injects_a_document_with_conflict_markers() {
    let sb = conflicted_repo();
    let query = [
        "recall",
        "how",
        "do",
        "we",
        "use",
        "pnpm",
        "for",
        "installs?",
    ];
    let out = sb.ok(&query);
    assert!(!out.contains("<<<<<<<"), "{out}");
    assert!(!out.contains("pnpm"), "{out}");
    // The same document resolved is recalled, so the query does reach it.
    sb.git(&sb.repo, &["merge", "--abort"]);
    sb.git(&sb.repo, &["checkout", "-q", "left"]);
    let out = sb.ok(&query);
    assert!(out.contains("reworded on left"), "{out}");
}
