//! A team working for a week: real `git` (clone, pull, rebase, cherry-pick, merge, amend,
//! worktrees) with every hook of ours installed, three clones of one bare origin. No Git
//! operation may stop or leave the tree dirty because of us, `sync` must say what really
//! happened, and nothing a person wrote may be rewritten.

use crate::common;

use std::fs;
use std::path::{Path, PathBuf};

use common::*;
use serde_json::Value;

/// Clones of a bare origin whose first commit holds a local-mode setup.
struct Team {
    sb: Sandbox,
    remote: PathBuf,
    clones: Vec<PathBuf>,
}

impl Team {
    fn new(n: usize) -> Team {
        let sb = Sandbox::new();
        let out = sb
            .cmd()
            .args(["install", "--local", "--hooks", "none"])
            .output()
            .unwrap();
        assert_success(&out, &["install --local"]);
        sb.git(&sb.repo, &["add", "-A"]);
        sb.git(&sb.repo, &["commit", "-q", "-m", "local mode"]);
        let remote = sb.root().join("origin.git");
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
        let mut clones = Vec::new();
        for i in 0..n {
            let dir = sb.root().join(format!("clone{i}"));
            sb.git(
                &sb.root(),
                &[
                    "clone",
                    "-q",
                    remote.to_str().unwrap(),
                    dir.to_str().unwrap(),
                ],
            );
            sb.git(&dir, &["config", "user.name", &format!("Mate {i}")]);
            sb.git(
                &dir,
                &["config", "user.email", &format!("mate{i}@example.com")],
            );
            let out = sb
                .cmd_in(&dir)
                .args(["install", "--local", "--hooks", "all"])
                .output()
                .unwrap();
            assert_success(&out, &["install --local --hooks all"]);
            clones.push(dir);
        }
        let team = Team { sb, remote, clones };
        for c in &team.clones {
            team.assert_clean(c, "after install");
        }
        team
    }

    /// Runs real `git` with our hooks on PATH; it must succeed and print nothing of ours.
    fn git(&self, dir: &Path, args: &[&str]) -> String {
        self.git_env(dir, args, &[])
    }

    fn git_env(&self, dir: &Path, args: &[&str], env: &[(&str, &str)]) -> String {
        let out = self.sb.git_hooked(dir, args, env);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success(),
            "git {args:?} failed in {}: {stderr}\n{}",
            dir.display(),
            String::from_utf8_lossy(&out.stdout)
        );
        // The pre-commit's warning about new memory files is the one message we mean to show.
        let warning = "git-qwen-memory: new memory files are not in this commit";
        let noise = stderr
            .split(warning)
            .next()
            .unwrap_or("")
            .contains("qwen-memory");
        assert!(!noise, "git {args:?}: hook noise: {stderr}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn status(&self, dir: &Path) -> String {
        self.sb
            .git(dir, &["status", "--porcelain", "--untracked-files=all"])
    }

    fn assert_clean(&self, dir: &Path, when: &str) {
        let st = self.status(dir);
        assert!(
            st.trim().is_empty(),
            "{when}: {} is dirty:\n{st}",
            dir.display()
        );
        assert!(
            git_op(dir).is_none(),
            "{when}: an operation is still in progress in {}",
            dir.display()
        );
    }

    fn remember(&self, dir: &Path, text: &str, why: Option<&str>) {
        let mut args = vec!["remember", "--type", "project", text];
        if let Some(w) = why {
            args.extend(["--why", w]);
        }
        let out = self.sb.cmd_in(dir).args(&args).output().unwrap();
        assert_success(&out, &args);
    }

    /// `git add -A && git commit` the way a person does, hooks running.
    fn commit_all(&self, dir: &Path, msg: &str) {
        self.git(dir, &["add", "-A"]);
        self.git(dir, &["commit", "-q", "-m", msg]);
    }

    fn code_commit(&self, dir: &Path, file: &str, text: &str) {
        fs::write(dir.join(file), text).unwrap();
        self.git(dir, &["add", file]);
        self.git(dir, &["commit", "-q", "-m", &format!("code: {file}")]);
    }

    fn sync(&self, dir: &Path) -> (Value, i32) {
        let out = self
            .sb
            .cmd_in(dir)
            .env("PATH", path_with_bin())
            .args(["sync", "--json"])
            .output()
            .unwrap();
        let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "sync --json: {e}: {}\n{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            )
        });
        (v, out.status.code().unwrap_or(-1))
    }

    fn head(&self, dir: &Path) -> String {
        self.sb.git(dir, &["rev-parse", "HEAD"]).trim().to_string()
    }

    fn remote_head(&self) -> String {
        self.sb
            .git(&self.remote, &["rev-parse", "main"])
            .trim()
            .to_string()
    }

    fn index_ok(&self, dir: &Path) {
        let out = self
            .sb
            .cmd_in(dir)
            .args(["index", "--check"])
            .output()
            .unwrap();
        assert_success(&out, &["index --check"]);
    }
}

/// The operation Git has in progress in a clone, from its state files.
fn git_op(dir: &Path) -> Option<&'static str> {
    let g = dir.join(".git");
    [
        ("rebase-merge", "rebase"),
        ("rebase-apply", "rebase"),
        ("MERGE_HEAD", "merge"),
        ("CHERRY_PICK_HEAD", "cherry-pick"),
        ("sequencer", "sequencer"),
    ]
    .into_iter()
    .find(|(f, _)| g.join(f).exists())
    .map(|(_, w)| w)
}

/// Every entry (summary → why) in a clone's repository memory.
fn entries(dir: &Path) -> Vec<(String, Option<String>, String)> {
    let mut out = Vec::new();
    for (rel, bytes) in tree(&dir.join(".qwen/memory")) {
        if !rel.ends_with(".md") || rel == "MEMORY.md" {
            continue;
        }
        let text = String::from_utf8(bytes).unwrap();
        let body = text.splitn(3, "---\n").nth(2).unwrap_or("");
        let mut cur: Option<(String, Option<String>)> = None;
        for line in body.lines().map(str::trim).filter(|l| !l.is_empty()) {
            if let Some(w) = line.strip_prefix("Why: ") {
                if let Some(c) = cur.as_mut() {
                    c.1 = Some(w.to_string());
                }
            } else if line.starts_with("How to apply:") {
            } else {
                out.extend(cur.take().map(|(s, w)| (s, w, rel.clone())));
                cur = Some((line.to_string(), None));
            }
        }
        out.extend(cur.map(|(s, w)| (s, w, rel.clone())));
    }
    out
}

fn key(s: &str) -> String {
    s.to_lowercase()
        .trim_end_matches(['.', '!', '?', '。'])
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

fn doc_files(dir: &Path) -> Vec<String> {
    tree(&dir.join(".qwen/memory"))
        .into_keys()
        .filter(|k| k.ends_with(".md") && k != "MEMORY.md")
        .collect()
}

fn index_text(dir: &Path) -> String {
    fs::read_to_string(dir.join(".qwen/memory/MEMORY.md")).unwrap_or_default()
}

#[test]
fn the_index_is_generated_per_clone_and_never_tracked() {
    let t = Team::new(1);
    let a = &t.clones[0];
    assert_eq!(
        fs::read_to_string(a.join(".qwen/memory/.gitignore"))
            .unwrap()
            .lines()
            .last(),
        Some("/MEMORY.md")
    );
    t.remember(a, "Deploys go out from the release branch", None);
    assert!(index_text(a).contains("project/"), "{}", index_text(a));
    let out = t.sb.cmd_in(a).args(["commit"]).output().unwrap();
    assert_success(&out, &["commit"]);
    let files = t.sb.git(a, &["ls-files", ".qwen"]);
    assert!(!files.contains("MEMORY.md"), "{files}");
    assert!(files.contains(".qwen/memory/.gitignore"), "{files}");
    t.assert_clean(a, "after commit");
}

#[test]
fn hooks_in_a_history_without_the_ignore_file_create_nothing_beside_the_index() {
    let t = Team::new(1);
    let a = &t.clones[0];
    // An old history: memory documents committed, no `.gitignore` in the memory dir.
    write_doc(
        &a.join(".qwen/memory"),
        "project/deploys.md",
        &doc_text(
            "Deploys",
            "d",
            "project",
            "Deploys go out from the release branch",
        ),
    );
    t.git(a, &["rm", "-q", ".qwen/memory/.gitignore"]);
    t.commit_all(a, "old style memory");
    let old = t.head(a);
    write_doc(
        &a.join(".qwen/memory"),
        "project/reviews.md",
        &doc_text("Reviews", "d", "project", "Every change gets one review"),
    );
    t.commit_all(a, "more memory");
    let new = t.head(a);
    // Checkouts that change the documents rebuild the index (excluded per clone by `install
    // --local`) and write nothing else into the work tree.
    for rev in [old.as_str(), "main", new.as_str(), "main"] {
        t.git(a, &["checkout", "-q", rev]);
        assert!(
            !a.join(".qwen/memory/.gitignore").exists(),
            "a hook created the ignore file at {rev}"
        );
        t.assert_clean(a, &format!("after checkout {rev}"));
        t.index_ok(a);
    }
    assert!(index_text(a).contains("reviews.md"), "{}", index_text(a));
    // Sharing memory explicitly is when the ignore file comes back, committed.
    t.remember(a, "Releases are tagged", None);
    let out = t.sb.cmd_in(a).args(["commit"]).output().unwrap();
    assert_success(&out, &["commit"]);
    let files = t.sb.git(a, &["ls-files", ".qwen/memory"]);
    assert!(files.contains(".qwen/memory/.gitignore"), "{files}");
    t.assert_clean(a, "after commit");
}

#[test]
fn pull_rebase_with_memory_on_both_sides_never_stops() {
    let t = Team::new(2);
    let (a, b) = (&t.clones[0], &t.clones[1]);
    t.sb.git(b, &["config", "pull.rebase", "true"]);
    t.remember(a, "Use pnpm for installs", Some("the lockfile is pnpm's"));
    t.commit_all(a, "memory a");
    t.git(a, &["push", "-q"]);
    // B: the same fact written differently (case, period, another reason), a new fact, code.
    t.remember(b, "use pnpm for installs.", Some("disk space"));
    t.commit_all(b, "memory b");
    t.remember(b, "CI runs on Ubuntu 24.04", None);
    t.commit_all(b, "memory b2");
    t.code_commit(b, "main.rs", "fn main() {}\n");
    t.git(b, &["pull", "-q"]);
    t.assert_clean(b, "after pull --rebase");
    t.index_ok(b);
    let e = entries(b);
    let pnpm: Vec<_> = e
        .iter()
        .filter(|(s, _, _)| key(s) == "use pnpm for installs")
        .collect();
    assert_eq!(pnpm.len(), 1, "one copy of the fact: {e:?}");
    let why = pnpm[0].1.clone().unwrap_or_default();
    assert!(
        why.contains("lockfile") && why.contains("disk space"),
        "both reasons: {why}"
    );
    assert!(index_text(b).lines().count() >= 2, "{}", index_text(b));
}

#[test]
fn pull_with_merge_and_with_autostash_leave_the_tree_as_the_user_had_it() {
    let t = Team::new(2);
    let (a, b) = (&t.clones[0], &t.clones[1]);
    t.remember(a, "Releases are tagged from main", None);
    t.commit_all(a, "memory a");
    t.git(a, &["push", "-q"]);
    t.remember(b, "The staging database is reset nightly", None);
    t.commit_all(b, "memory b");
    t.git(b, &["pull", "-q", "--no-rebase", "--no-edit"]);
    t.assert_clean(b, "after pull (merge)");
    t.index_ok(b);
    assert_eq!(doc_files(b).len(), 2);
    t.git(b, &["push", "-q"]);

    // A: an unstaged edit of the user's own, then pull --rebase --autostash.
    t.remember(a, "Feature flags live in flags.toml", None);
    t.commit_all(a, "memory a2");
    fs::write(a.join("README"), "hello, edited\n").unwrap();
    t.git(a, &["pull", "-q", "--rebase", "--autostash"]);
    assert_eq!(t.status(a).trim(), "M README", "only the user's own edit");
    assert_eq!(
        fs::read_to_string(a.join("README")).unwrap(),
        "hello, edited\n"
    );
    t.index_ok(a);
    assert_eq!(doc_files(a).len(), 3);
}

#[test]
fn rebase_i_cherry_pick_amend_checkout_and_worktrees_never_stop_or_dirty() {
    let t = Team::new(1);
    let a = &t.clones[0];
    t.remember(a, "Logs go through the Vole library", None);
    t.commit_all(a, "m1");
    t.code_commit(a, "lib.rs", "// lib\n");
    t.remember(a, "Errors are typed with thiserror", None);
    t.commit_all(a, "m2");
    // rebase -i, non-interactive: squash the last commit into the one before.
    t.git_env(
        a,
        &["rebase", "-q", "-i", "HEAD~3"],
        &[
            ("GIT_SEQUENCE_EDITOR", "sed -i -e '3s/^pick/fixup/'"),
            ("GIT_EDITOR", "true"),
        ],
    );
    t.assert_clean(a, "after rebase -i");
    t.index_ok(a);
    // amend with a memory change, commit -a.
    t.remember(
        a,
        "Errors are typed with thiserror",
        Some("callers match on them"),
    );
    t.git(a, &["commit", "-q", "-a", "--amend", "--no-edit"]);
    t.assert_clean(a, "after amend");
    t.index_ok(a);
    // cherry-pick a memory commit from a side branch.
    t.git(a, &["checkout", "-q", "-b", "side"]);
    t.remember(a, "Benchmarks run on the quiet box", None);
    t.commit_all(a, "side memory");
    t.git(a, &["checkout", "-q", "main"]);
    t.assert_clean(a, "after checkout main");
    t.index_ok(a);
    assert_eq!(doc_files(a).len(), 2);
    t.git(a, &["cherry-pick", "side"]);
    t.assert_clean(a, "after cherry-pick");
    t.index_ok(a);
    assert_eq!(doc_files(a).len(), 3);
    // Checkout of old commits (detached), then back.
    t.git(a, &["checkout", "-q", "HEAD~3"]);
    t.assert_clean(a, "after checkout of an old commit");
    t.index_ok(a);
    t.git(a, &["checkout", "-q", "main"]);
    t.assert_clean(a, "after checkout back");
    t.index_ok(a);
    // A linked worktree has its own generated index and stays clean too.
    let wt = t.sb.root().join("wt");
    t.git(
        a,
        &[
            "worktree",
            "add",
            "-q",
            wt.to_str().unwrap(),
            "-b",
            "wt-branch",
        ],
    );
    t.assert_clean(&wt, "new worktree");
    t.assert_clean(a, "main worktree after worktree add");
    t.remember(&wt, "The worktree fact", None);
    t.commit_all(&wt, "wt memory");
    t.assert_clean(&wt, "worktree after commit");
    t.assert_clean(a, "main worktree after a commit in the other");
    t.git(a, &["merge", "-q", "--no-edit", "wt-branch"]);
    t.assert_clean(a, "after merging the worktree branch");
    t.index_ok(a);
}

#[test]
fn a_conflicted_merge_resolved_by_hand_ends_clean_with_a_current_index() {
    let t = Team::new(2);
    let (a, b) = (&t.clones[0], &t.clones[1]);
    t.remember(a, "Ship on Tuesdays", None);
    t.commit_all(a, "memory a");
    t.code_commit(a, "README", "hello from a\n");
    t.git(a, &["push", "-q"]);
    t.remember(b, "Freeze on Fridays", None);
    t.commit_all(b, "memory b");
    t.code_commit(b, "README", "hello from b\n");
    let out =
        t.sb.git_hooked(b, &["pull", "-q", "--no-rebase", "--no-edit"], &[]);
    assert!(!out.status.success(), "README conflicts");
    let index_during = index_text(b);
    fs::write(b.join("README"), "hello from both\n").unwrap();
    t.git(b, &["add", "README"]);
    t.git(b, &["commit", "-q", "--no-edit"]);
    t.assert_clean(b, "after resolving");
    t.index_ok(b);
    assert_ne!(index_text(b), index_during, "the post-commit rebuilt it");
}

#[test]
fn a_tracked_index_of_an_old_history_is_never_dirtied_by_a_hook() {
    let t = Team::new(2);
    let (a, b) = (&t.clones[0], &t.clones[1]);
    // An old history that tracks MEMORY.md.
    t.remember(a, "Old fact", None);
    t.git(a, &["add", "-f", ".qwen/memory/MEMORY.md"]);
    t.commit_all(a, "old style");
    t.git(a, &["push", "-q"]);
    t.git(b, &["pull", "-q"]);
    t.remember(a, "Newer fact", None);
    t.git(a, &["add", "-A"]);
    t.git(a, &["add", "-f", ".qwen/memory/MEMORY.md"]);
    t.git(a, &["commit", "-q", "-m", "old style 2"]);
    t.git(a, &["push", "-q"]);
    fs::write(b.join(".qwen/memory/MEMORY.md"), index_text(b)).unwrap();
    t.git(b, &["pull", "-q", "--rebase"]);
    t.assert_clean(b, "after pull of a tracked index");
    // `commit` stops tracking it.
    t.remember(b, "A third fact", None);
    let out = t.sb.cmd_in(b).args(["commit"]).output().unwrap();
    assert_success(&out, &["commit"]);
    let files = t.sb.git(b, &["ls-files", ".qwen/memory"]);
    assert!(!files.contains("MEMORY.md"), "{files}");
    t.assert_clean(b, "after commit");
}

#[test]
fn structure_a_person_wrote_survives_the_driver_and_foreign_docs_get_gits_merge() {
    let t = Team::new(2);
    let (a, b) = (&t.clones[0], &t.clones[1]);
    let doc = |note: &str, step: &str| {
        format!(
            "---\nname: Release runbook\ndescription: How we release\ntype: project\n---\n\n# Release runbook\n\n{note}\n\n```sh\ngit tag v1\n{step}\n```\n\n| env | host |\n|-----|------|\n| prod | p1 |\n\n- Announce it.\n  - in #releases\n"
        )
    };
    let base = doc("Tag from main.", "git push --tags");
    // An ordinary doc that happens to parse as a memory (frontmatter, a list): the driver
    // would re-render it; it must get Git's own merge.
    let guide = "---\nname: Guide\ndescription: A guide\ntype: reference\n---\n\n- Intro line.\n- two\n- three\n- four\n- Outro line.\n";
    write_doc(&a.join(".qwen/memory"), "project/release-runbook.md", &base);
    fs::create_dir_all(a.join("docs")).unwrap();
    fs::write(a.join("docs/guide.md"), guide).unwrap();
    // A committed line routing ordinary docs to our driver: it must fall back to Git's merge.
    let mut attrs = fs::read_to_string(a.join(".gitattributes")).unwrap();
    attrs.push_str("docs/**/*.md merge=qwen-memory\n");
    fs::write(a.join(".gitattributes"), attrs).unwrap();
    t.commit_all(a, "runbook");
    t.git(a, &["push", "-q"]);
    t.git(b, &["pull", "-q"]);
    // Two one-line edits, one on each side.
    write_doc(
        &a.join(".qwen/memory"),
        "project/release-runbook.md",
        &doc("Tag from main only.", "git push --tags"),
    );
    fs::write(
        a.join("docs/guide.md"),
        guide.replace("Intro line.", "Intro line, edited."),
    )
    .unwrap();
    t.commit_all(a, "edit a");
    t.git(a, &["push", "-q"]);
    write_doc(
        &b.join(".qwen/memory"),
        "project/release-runbook.md",
        &doc("Tag from main.", "git push origin --tags"),
    );
    fs::write(
        b.join("docs/guide.md"),
        guide.replace("Outro line.", "Outro line, edited."),
    )
    .unwrap();
    t.commit_all(b, "edit b");
    t.git(b, &["pull", "-q", "--no-rebase", "--no-edit"]);
    t.assert_clean(b, "after merging structured edits");
    assert_eq!(
        fs::read_to_string(b.join(".qwen/memory/project/release-runbook.md")).unwrap(),
        doc("Tag from main only.", "git push origin --tags"),
        "both edits, every other byte kept"
    );
    assert_eq!(
        fs::read_to_string(b.join("docs/guide.md")).unwrap(),
        guide
            .replace("Intro line.", "Intro line, edited.")
            .replace("Outro line.", "Outro line, edited.")
    );
    // Mechanical dream leaves the runbook alone; forget of one line keeps the rest.
    let before = fs::read(b.join(".qwen/memory/project/release-runbook.md")).unwrap();
    let out = t.sb.cmd_in(b).args(["dream", "--force"]).output().unwrap();
    assert_success(&out, &["dream --force"]);
    assert_eq!(
        fs::read(b.join(".qwen/memory/project/release-runbook.md")).unwrap(),
        before
    );
    let out =
        t.sb.cmd_in(b)
            .args(["forget", "--yes", "Announce it"])
            .output()
            .unwrap();
    assert_success(&out, &["forget"]);
    let after = fs::read_to_string(b.join(".qwen/memory/project/release-runbook.md")).unwrap();
    assert!(
        after.contains("# Release runbook\n") && after.contains("```sh\ngit tag v1\n"),
        "{after}"
    );
    assert!(!after.contains("Announce it"), "{after}");
    assert!(after.contains("| prod | p1 |"), "{after}");
}

#[test]
fn commit_refuses_a_submodule_memory_dir() {
    let t = Team::new(1);
    let a = &t.clones[0];
    t.git(a, &["rm", "-q", "-r", "--cached", ".qwen/memory"]);
    fs::remove_dir_all(a.join(".qwen/memory")).unwrap();
    let head = t.head(a);
    t.git(
        a,
        &[
            "update-index",
            "--add",
            "--cacheinfo",
            &format!("160000,{head},.qwen/memory"),
        ],
    );
    t.git(a, &["commit", "-q", "-m", "memory is a submodule"]);
    fs::create_dir_all(a.join(".qwen/memory/project")).unwrap();
    write_doc(
        &a.join(".qwen/memory"),
        "project/x.md",
        &doc_text("X", "x", "project", "A fact."),
    );
    let out = t.sb.cmd_in(a).args(["commit"]).output().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("submodule"), "{err}");
    let tree = t.sb.git(a, &["ls-tree", "HEAD", ".qwen/memory"]);
    assert!(
        tree.starts_with("160000 commit"),
        "the gitlink stays: {tree}"
    );
}

#[test]
fn commit_a_warns_about_new_memory_files_it_leaves_behind() {
    let t = Team::new(1);
    let a = &t.clones[0];
    t.remember(a, "First fact", None);
    t.commit_all(a, "first");
    t.remember(a, "Second fact", None);
    let out =
        t.sb.git_hooked(a, &["commit", "-q", "-a", "-m", "code"], &[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("new memory files are not in this commit"),
        "{err}"
    );
    assert!(err.contains(".qwen/memory/project/second-fact.md"), "{err}");
    let st = t.sb.json(&["status", "-C", a.to_str().unwrap()]);
    let warnings = st["warnings"].to_string();
    assert!(warnings.contains("second-fact.md"), "{warnings}");
}

#[test]
fn sync_with_two_active_people_reports_what_happened() {
    let t = Team::new(2);
    let (a, b) = (&t.clones[0], &t.clones[1]);
    for c in [a, b] {
        t.sb.git(c, &["config", "pull.rebase", "true"]);
    }
    t.remember(a, "Use pnpm", None);
    let (v, code) = t.sync(a);
    assert_eq!((v["status"].as_str(), code), (Some("pushed"), 0), "{v}");
    assert_eq!(t.remote_head(), t.head(a));
    // B has an uncommitted memory change while A pushed: committed, rebased, pushed.
    t.remember(b, "Run lint before pushing", None);
    let (v, code) = t.sync(b);
    assert_eq!((v["status"].as_str(), code), (Some("pushed"), 0), "{v}");
    assert_eq!(v["pulled"], 1, "{v}");
    assert_eq!(t.remote_head(), t.head(b));
    t.assert_clean(b, "after sync");
    let (v, code) = t.sync(b);
    assert_eq!((v["status"].as_str(), code), (Some("up-to-date"), 0), "{v}");
    // A commits with `commit`, then syncs: its commit is pushed, not "nothing to push".
    t.remember(a, "Squash before merging", None);
    assert_success(
        &t.sb.cmd_in(a).args(["commit"]).output().unwrap(),
        &["commit"],
    );
    let (v, code) = t.sync(a);
    assert_eq!((v["status"].as_str(), code), (Some("pushed"), 0), "{v}");
    assert_eq!(t.remote_head(), t.head(a));
    assert_eq!(doc_files(a).len(), 3);
    // B's own unpushed code commit is never published by sync.
    t.code_commit(b, "main.rs", "fn main() {}\n");
    t.remember(b, "The fourth fact", None);
    let (v, code) = t.sync(b);
    assert_eq!(
        (v["status"].as_str(), code),
        (Some("ahead-not-pushed"), 3),
        "{v}"
    );
    assert!(v["next"].as_str().unwrap_or("").contains("git push"), "{v}");
    assert_ne!(t.remote_head(), t.head(b));
    let remote_log = t.sb.git(&t.remote, &["log", "--format=%s", "main"]);
    assert!(!remote_log.contains("code: main.rs"), "{remote_log}");
    t.assert_clean(b, "after ahead-not-pushed");
}

#[test]
fn sync_stops_on_a_conflict_with_the_tree_as_it_was() {
    let t = Team::new(2);
    let (a, b) = (&t.clones[0], &t.clones[1]);
    let fm = "name: Build\ndescription: How we build\ntype: project";
    write_doc(
        &a.join(".qwen/memory"),
        "project/build.md",
        &doc_text(
            "Build",
            "How we build",
            "project",
            "Use pnpm.\n\nWhy: speed",
        ),
    );
    let (v, _) = t.sync(a);
    assert_eq!(v["status"], "pushed", "{v}");
    t.git(b, &["pull", "-q"]);
    let _ = fm;
    write_doc(
        &a.join(".qwen/memory"),
        "project/build.md",
        &doc_text(
            "Build",
            "How we build",
            "project",
            "Use pnpm.\n\nWhy: the lockfile",
        ),
    );
    let (v, _) = t.sync(a);
    assert_eq!(v["status"], "pushed", "{v}");
    write_doc(
        &b.join(".qwen/memory"),
        "project/build.md",
        &doc_text(
            "Build",
            "How we build",
            "project",
            "Use pnpm.\n\nWhy: disk space",
        ),
    );
    t.sb.git(b, &["config", "pull.rebase", "true"]);
    let (v, code) = t.sync(b);
    assert_eq!((v["status"].as_str(), code), (Some("conflict"), 1), "{v}");
    assert!(
        v["conflicts"].to_string().contains("project/build.md"),
        "{v}"
    );
    assert!(
        v["next"]
            .as_str()
            .unwrap_or("")
            .contains("git pull --rebase"),
        "{v}"
    );
    t.assert_clean(b, "after a conflicted sync");
    assert!(fs::read_to_string(b.join(".qwen/memory/project/build.md"))
        .unwrap()
        .contains("disk space"));
}

#[test]
fn sync_retries_when_a_teammate_pushes_in_between() {
    let t = Team::new(2);
    let (a, b) = (&t.clones[0], &t.clones[1]);
    // A's commit reaches the origin under a side ref; the origin's pre-receive hook moves
    // `main` to it when B's push arrives, the first time only (a teammate's push landing
    // between B's fetch and B's push), and rejects B's push.
    t.remember(a, "Teammate fact", None);
    t.commit_all(a, "teammate");
    t.git(a, &["push", "-q", "origin", "HEAD:refs/pending/a"]);
    let marker = t.sb.root().join("raced");
    let hook = t.remote.join("hooks/pre-receive");
    fs::write(
        &hook,
        format!(
            "#!/bin/sh\nif [ ! -e '{m}' ]; then touch '{m}'; env -u GIT_QUARANTINE_PATH git update-ref refs/heads/main refs/pending/a; echo 'rejected: main moved' >&2; exit 1; fi\nexit 0\n",
            m = marker.display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(&hook, fs::Permissions::from_mode(0o755)).unwrap();
    t.remember(b, "Own fact", None);
    let (v, code) = t.sync(b);
    assert_eq!((v["status"].as_str(), code), (Some("pushed"), 0), "{v}");
    assert_eq!(v["attempts"], 2, "{v}");
    assert!(marker.exists());
    assert_eq!(t.remote_head(), t.head(b));
    assert_eq!(doc_files(b).len(), 2);
    t.assert_clean(b, "after a raced sync");
}

/// A small deterministic generator (xorshift), so a failing week can be replayed by its seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Facts a team keeps, each with the spellings teammates type and reasons they give.
const FACTS: [(&str, &str); 8] = [
    ("Use pnpm for installs", "the lockfile is pnpm's"),
    (
        "Deploys go out from the release branch",
        "main is not always green",
    ),
    ("Run the linter before pushing", "CI rejects lint errors"),
    (
        "Log through the Vole library",
        "logs are shipped from Vole only",
    ),
    (
        "Feature flags live in flags.toml",
        "one place to audit them",
    ),
    (
        "The staging database is reset nightly",
        "seed data must stay fresh",
    ),
    ("Errors are typed with thiserror", "callers match on them"),
    ("Benchmarks run on the quiet box", "laptops are too noisy"),
];

fn spelling(rng: &mut Rng, fact: &str) -> String {
    match rng.below(4) {
        0 => fact.to_string(),
        1 => format!("{fact}."),
        2 => fact.to_lowercase(),
        _ => format!("{}!", fact.to_uppercase()),
    }
}

/// Asserts a sync outcome says what the repositories show.
fn check_sync(t: &Team, dir: &Path, v: &Value, code: i32) {
    let status = v["status"].as_str().unwrap_or("?");
    let (head, remote) = (t.head(dir), t.remote_head());
    match status {
        "pushed" | "up-to-date" => {
            assert_eq!(code, 0, "{v}");
            assert_eq!(head, remote, "{status} but HEAD is not the remote's: {v}");
        }
        "ahead-not-pushed" => {
            assert_eq!(code, 3, "{v}");
            assert_ne!(head, remote, "{v}");
            let ancestor =
                t.sb.git_hooked(dir, &["merge-base", "--is-ancestor", &remote, &head], &[]);
            assert!(
                ancestor.status.success(),
                "the remote's commits were brought in: {v}"
            );
        }
        other => panic!("sync in {}: {other} (exit {code}): {v}", dir.display()),
    }
    t.assert_clean(dir, "after sync");
}

fn run_week(seed: u64) {
    let t = Team::new(3);
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    for (i, c) in t.clones.iter().enumerate() {
        t.sb.git(
            c,
            &[
                "config",
                "pull.rebase",
                if i == 1 { "false" } else { "true" },
            ],
        );
    }
    // Every reason given for a fact, by the fact's key.
    let mut expected: std::collections::BTreeMap<String, std::collections::BTreeSet<String>> =
        Default::default();
    let mut code_lines = vec![0usize; t.clones.len()];
    // What happened, for the summary printed at the end (`--nocapture`).
    let mut syncs: std::collections::BTreeMap<String, usize> = Default::default();
    let mut git_ops = 0usize;
    let mut record = |v: &Value| {
        *syncs
            .entry(v["status"].as_str().unwrap_or("?").to_string())
            .or_default() += 1;
    };
    for day in 0..4 {
        for (i, c) in t.clones.iter().enumerate() {
            for _ in 0..3 {
                match rng.below(7) {
                    0..=2 => {
                        let (fact, why) = FACTS[rng.below(FACTS.len())];
                        let why = format!("{why} (day {day}, mate {i})");
                        let text = spelling(&mut rng, fact);
                        let ty = ["project", "feedback"][rng.below(2)];
                        let args = ["remember", "--type", ty, &text, "--why", &why];
                        let out = t.sb.cmd_in(c).args(args).output().unwrap();
                        assert_success(&out, &args);
                        expected.entry(key(fact)).or_default().insert(why);
                    }
                    3 => {
                        code_lines[i] += 1;
                        let file = format!("code{i}.txt");
                        let mut text = fs::read_to_string(c.join(&file)).unwrap_or_default();
                        text.push_str(&format!("line {}\n", code_lines[i]));
                        fs::write(c.join(&file), text).unwrap();
                        t.git(c, &["add", &file]);
                        git_ops += 1;
                        if rng.below(2) == 0
                            && !t.sb.git(c, &["rev-list", "@{u}..HEAD"]).trim().is_empty()
                        {
                            t.git(c, &["commit", "-q", "-a", "--amend", "--no-edit"]);
                        } else {
                            t.git(c, &["commit", "-q", "-a", "-m", &format!("code {i}")]);
                        }
                    }
                    4 => {
                        t.commit_all_if_needed(c);
                        t.git(c, &["pull", "-q", "--no-edit"]);
                        git_ops += 2;
                        t.assert_clean(c, "after pull");
                        t.index_ok(c);
                    }
                    _ => {
                        let (v, code) = t.sync(c);
                        check_sync(&t, c, &v, code);
                        record(&v);
                        if v["status"] == "ahead-not-pushed" {
                            // The person publishes their own work as sync suggests.
                            t.git(c, &["push", "-q"]);
                        }
                    }
                }
            }
        }
    }
    // End of the week: everyone publishes, one person dreams, everyone syncs again.
    for _ in 0..2 {
        for c in &t.clones {
            t.commit_all_if_needed(c);
            let (v, code) = t.sync(c);
            check_sync(&t, c, &v, code);
            record(&v);
            if v["status"] == "ahead-not-pushed" {
                t.git(c, &["push", "-q"]);
            }
        }
    }
    let dreamer = &t.clones[0];
    let out =
        t.sb.cmd_in(dreamer)
            .args(["dream", "--force"])
            .output()
            .unwrap();
    assert_success(&out, &["dream --force"]);
    for c in t.clones.iter().chain(t.clones.iter()) {
        let (v, code) = t.sync(c);
        check_sync(&t, c, &v, code);
        record(&v);
    }
    // Converged: one history, byte-identical memory (the generated index included).
    let reference = tree(&t.clones[0].join(".qwen/memory"));
    for c in &t.clones {
        assert_eq!(
            t.head(c),
            t.remote_head(),
            "seed {seed}: {} diverged",
            c.display()
        );
        assert_eq!(
            tree(&c.join(".qwen/memory")),
            reference,
            "seed {seed}: {}",
            c.display()
        );
        t.index_ok(c);
    }
    // No fact lost, none kept twice (by case, punctuation or type), no reason dropped.
    let kept = entries(&t.clones[0]);
    for (k, whys) in &expected {
        let copies: Vec<_> = kept.iter().filter(|(s, _, _)| key(s) == *k).collect();
        assert_eq!(copies.len(), 1, "seed {seed}: {k}: {copies:?}\n{kept:?}");
        let why = copies[0].1.clone().unwrap_or_default();
        for w in whys {
            assert!(
                why.contains(w.as_str()),
                "seed {seed}: {k}: lost reason {w:?} in {why:?}"
            );
        }
    }
    assert_eq!(kept.len(), expected.len(), "seed {seed}: {kept:?}");
    let reasons: usize = expected.values().map(|w| w.len()).sum();
    eprintln!(
        "seed {seed}: {} facts and {reasons} reasons kept (0 lost, 0 dropped, 0 duplicates); \
         {git_ops}+ hooked git commands, none stopped or dirtied; syncs {syncs:?}, each matching \
         the repositories; clones converged",
        expected.len()
    );
}

impl Team {
    fn commit_all_if_needed(&self, dir: &Path) {
        if !self.status(dir).trim().is_empty() {
            self.commit_all(dir, "memory");
        }
    }
}

#[test]
fn a_seeded_team_week_loses_nothing_and_converges() {
    for seed in [1, 2, 3] {
        run_week(seed);
    }
}
