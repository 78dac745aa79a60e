//! Git integration against real repositories and the real `git`: hook install/uninstall
//! (foreign hooks, core.hooksPath, linked worktrees), post-commit detaching, the pre-commit
//! secret gate, local mode shared through a bare remote with the merge driver, and the commit
//! helper.

use crate::common;

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use common::*;

const AWS_KEY: &str = "AKIAZ7VRSQ5TJN2PXKQM";

fn hooks_dir_of(sb: &Sandbox, dir: &Path) -> PathBuf {
    let out = sb.git(
        dir,
        &["rev-parse", "--path-format=absolute", "--git-path", "hooks"],
    );
    PathBuf::from(out.trim())
}

fn write_exec(path: &Path, content: &[u8]) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, content).unwrap();
    fs::set_permissions(path, fs::Permissions::from_mode(0o755)).unwrap();
}

fn install(sb: &Sandbox, dir: &Path, args: &[&str]) -> std::process::Output {
    let mut all = vec!["install"];
    all.extend_from_slice(args);
    sb.cmd_in(dir).args(&all).output().unwrap()
}

#[test]
fn install_into_foreign_hooks_and_uninstall_restores_every_byte() {
    let sb = Sandbox::new();
    let hooks = sb.repo.join(".git/hooks");
    let marker = sb.root().join("foreign-ran");
    write_exec(
        &hooks.join("post-commit"),
        format!("#!/bin/sh\necho post >> {}\nexit 0\n", marker.display()).as_bytes(),
    );
    // A hook in another language (Python where it is installed; elsewhere `true` stands in as
    // the interpreter, so the commit below still runs it on a machine with only Git).
    let foreign: &[u8] = if find_program("python3").is_some() {
        b"#!/usr/bin/env python3\nimport sys\nsys.exit(0)\n"
    } else {
        b"#!/usr/bin/env true\nnot a shell script\n"
    };
    write_exec(&hooks.join("pre-commit"), foreign);
    write_exec(&hooks.join("post-merge"), b"#!/bin/sh\r\necho crlf\r\n");
    write_exec(
        &hooks.join("post-checkout"),
        b"#!/bin/bash\necho no-newline",
    );
    // Not executable: Git ignores it; install must keep its mode.
    fs::write(hooks.join("post-rewrite"), b"#!/bin/sh").unwrap();
    let before = Sandbox::snapshot(&hooks);

    let out = install(&sb, &sb.repo, &[]);
    assert_success(&out, &["install"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("post-rewrite is not executable"),
        "{stderr}"
    );
    let post = fs::read_to_string(hooks.join("post-commit")).unwrap();
    assert!(
        post.starts_with("#!/bin/sh\n# >>> git-qwen-memory >>>\n"),
        "{post}"
    );
    assert!(post.ends_with(&format!(
        "# <<< git-qwen-memory <<<\necho post >> {}\nexit 0\n",
        marker.display()
    )));
    // The Python hook was chained, not edited.
    assert_eq!(
        fs::read(hooks.join("pre-commit.qwen-memory-chained")).unwrap(),
        foreign
    );
    // Idempotent.
    let snap = Sandbox::snapshot(&hooks);
    assert_success(&install(&sb, &sb.repo, &[]), &["install again"]);
    assert_eq!(Sandbox::snapshot(&hooks), snap);
    // Both our hook and the foreign one run on a commit.
    let out = sb.git_hooked(&sb.repo, &["commit", "-q", "--allow-empty", "-m", "x"], &[]);
    assert_success(&out, &["commit"]);
    assert!(marker.exists(), "the foreign post-commit still runs");
    let st = sb.json(&["status"]);
    assert_eq!(st["hooks"]["git"].as_array().unwrap().len(), 5);

    let out = sb.cmd().args(["uninstall"]).output().unwrap();
    assert_success(&out, &["uninstall"]);
    assert_eq!(
        Sandbox::snapshot(&hooks),
        before,
        "hooks dir byte-identical after uninstall"
    );
    let st = sb.json(&["status"]);
    assert!(st["hooks"]["git"].as_array().unwrap().is_empty());
}

#[test]
fn install_follows_core_hooks_path_relative_and_absolute() {
    let sb = Sandbox::new();
    sb.git(&sb.repo, &["config", "core.hooksPath", ".githooks"]);
    write_exec(&sb.repo.join(".githooks/pre-commit"), b"#!/bin/sh\ntrue\n");
    let dir = hooks_dir_of(&sb, &sb.repo);
    assert_eq!(dir, sb.repo.join(".githooks"));
    let before = Sandbox::snapshot(&dir);
    assert_success(
        &install(&sb, &sb.repo, &["--hooks", "pre-commit,post-commit"]),
        &["install"],
    );
    assert!(fs::read_to_string(dir.join("post-commit"))
        .unwrap()
        .contains("hook post-commit"));
    assert!(fs::read_to_string(dir.join("pre-commit"))
        .unwrap()
        .contains("hook pre-commit"));
    assert!(!sb.repo.join(".git/hooks/post-commit").exists());
    sb.ok(&["uninstall"]);
    assert_eq!(Sandbox::snapshot(&dir), before);

    let abs = sb.root().join("shared-hooks");
    sb.git(
        &sb.repo,
        &["config", "core.hooksPath", &abs.display().to_string()],
    );
    assert_eq!(hooks_dir_of(&sb, &sb.repo), abs);
    assert_success(&install(&sb, &sb.repo, &[]), &["install abs"]);
    assert!(abs.join("post-merge").exists());
    sb.ok(&["uninstall"]);
    assert!(Sandbox::snapshot(&abs).is_empty());
}

#[test]
fn install_from_a_linked_worktree_uses_the_common_hooks_dir() {
    let sb = Sandbox::new();
    let wt = sb.root().join("wt");
    sb.git(
        &sb.repo,
        &["worktree", "add", "-q", &wt.display().to_string()],
    );
    let expected = hooks_dir_of(&sb, &wt);
    assert_eq!(expected, sb.repo.join(".git/hooks"));
    write_exec(&expected.join("post-commit"), b"#!/bin/sh\necho mine\n");
    let before = Sandbox::snapshot(&expected);
    assert_success(&install(&sb, &wt, &[]), &["install in worktree"]);
    assert!(fs::read_to_string(expected.join("post-commit"))
        .unwrap()
        .contains(hook_marker()));
    // The hooks fire from the worktree.
    let out = sb.git_hooked(&wt, &["commit", "-q", "--allow-empty", "-m", "wt"], &[]);
    assert_success(&out, &["commit in worktree"]);
    let out = sb.cmd_in(&wt).args(["uninstall"]).output().unwrap();
    assert_success(&out, &["uninstall"]);
    assert_eq!(Sandbox::snapshot(&expected), before);
}

fn hook_marker() -> &'static str {
    "# >>> git-qwen-memory >>>"
}

#[test]
fn global_hooks_path_and_hook_managers_are_refused_with_manual_offered() {
    let sb = Sandbox::new();
    let global = sb.home.join("global-hooks");
    sb.git(
        &sb.repo,
        &[
            "config",
            "--global",
            "core.hooksPath",
            &global.display().to_string(),
        ],
    );
    let out = install(&sb, &sb.repo, &[]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("globally") && err.contains("--manual"),
        "{err}"
    );
    assert!(!global.exists());
    let out = install(&sb, &sb.repo, &["--manual"]);
    assert_success(&out, &["install --manual"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("git-qwen-memory hook post-commit") && text.contains(hook_marker()));
    assert!(!global.exists());

    let sb = Sandbox::new();
    sb.git(&sb.repo, &["config", "core.hooksPath", ".husky/_"]);
    let out = install(&sb, &sb.repo, &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("husky"));

    let sb = Sandbox::new();
    write_exec(
        &sb.repo.join(".git/hooks/pre-commit"),
        b"#!/usr/bin/env bash\n# File generated by pre-commit: https://pre-commit.com\nexec python -mpre_commit\n",
    );
    let out = install(&sb, &sb.repo, &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("pre-commit"));
}

/// Git reads the global file `GIT_CONFIG_GLOBAL` names instead of `~/.gitconfig` (dotfile
/// managers set it) and, with `GIT_CONFIG_NOSYSTEM`, no system file; the tool must read what Git
/// reads: its settings, a global `core.hooksPath` (install must not put hooks where Git never
/// runs them) and the identity its commit helper commits with.
#[test]
fn the_global_file_git_config_global_names_is_read_as_git_reads_it() {
    let sb = local_sandbox();
    let dotfiles = sb.root().join("dotfiles-gitconfig");
    let global_hooks = sb.root().join("global-hooks");
    // The identity comes through a conditional include, as many people keep a work identity.
    let identity = sb.root().join("identity-gitconfig");
    fs::write(
        &identity,
        "[user]\n\tname = Dot Files\n\temail = dot@example.com\n",
    )
    .unwrap();
    fs::write(
        &dotfiles,
        format!(
            "[qwen-memory \"recall\"]\n\tlimit = 3\n[includeIf \"gitdir:{}/\"]\n\tpath = {}\n[core]\n\thooksPath = {}\n",
            sb.repo.display(),
            identity.display(),
            global_hooks.display()
        ),
    )
    .unwrap();
    let env = ("GIT_CONFIG_GLOBAL", dotfiles.display().to_string());
    let git_sees = clear_tool_env(&mut std::process::Command::new("git"))
        .args(["config", "qwen-memory.recall.limit"])
        .current_dir(&sb.repo)
        .envs(sb.env())
        .env(env.0, &env.1)
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&git_sees.stdout).trim(), "3");

    let out = sb
        .cmd()
        .args(["status", "--json"])
        .env(env.0, &env.1)
        .output()
        .unwrap();
    assert_success(&out, &["status"]);
    let st: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let limit = status_setting(&st, "recall.limit");
    assert_eq!(
        (limit["value"].as_str(), limit["origin"].as_str()),
        (Some("3"), Some("git-config")),
        "{limit}"
    );

    let out = sb
        .cmd()
        .args(["install"])
        .env(env.0, &env.1)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "a global core.hooksPath is refused"
    );
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("globally"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    write_doc(
        &sb.repo.join(".qwen/memory"),
        "project/dot.md",
        &doc_text("Dot", "Dot", "project", "A fact to commit."),
    );
    let out = sb
        .cmd()
        .args(["commit", "--json"])
        .env(env.0, &env.1)
        .env_remove("GIT_AUTHOR_NAME")
        .env_remove("GIT_AUTHOR_EMAIL")
        .env_remove("GIT_COMMITTER_NAME")
        .env_remove("GIT_COMMITTER_EMAIL")
        .output()
        .unwrap();
    assert_success(&out, &["commit"]);
    let who = sb.git(&sb.repo, &["log", "-1", "--format=%an <%ae>"]);
    assert_eq!(who.trim(), "Dot Files <dot@example.com>");
}

#[test]
fn config_hooks_need_git_2_54() {
    let sb = Sandbox::new();
    let version = sb.git(&sb.repo, &["--version"]);
    let out = install(&sb, &sb.repo, &["--config-hooks"]);
    let v: Vec<u32> = version
        .trim()
        .trim_start_matches("git version ")
        .split(|c: char| !c.is_ascii_digit())
        .take(2)
        .filter_map(|p| p.parse().ok())
        .collect();
    if v >= vec![2, 54] {
        assert_success(&out, &["install --config-hooks"]);
        let list = sb.git(&sb.repo, &["config", "--get-regexp", "^hook\\.qwen-memory"]);
        assert!(list.contains("post-commit"));
        sb.ok(&["uninstall"]);
    } else {
        assert_eq!(out.status.code(), Some(1));
        assert!(String::from_utf8_lossy(&out.stderr).contains("2.54"));
        assert!(!sb.repo.join(".git/hooks/post-commit").exists());
    }
}

/// A stand-in for the detached program: records its arguments and session id, then sleeps.
/// A stand-in for the detached program: records its arguments and session, then waits until the
/// test creates `<out>/release` (bounded, so a broken test cannot leave it running forever).
fn fake_program(sb: &Sandbox) -> (PathBuf, PathBuf) {
    let out_dir = sb.root().join("fake-out");
    fs::create_dir_all(&out_dir).unwrap();
    let script = sb.root().join("fake-program");
    write_exec(
        &script,
        format!(
            "#!/bin/sh\necho \"$@\" > {o}/args\ncut -d' ' -f6 /proc/$$/stat > {o}/sid\ni=0\nwhile [ ! -e {o}/release ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done\ntouch {o}/done\n",
            o = out_dir.display()
        )
        .as_bytes(),
    );
    (script, out_dir)
}

fn wait_for(path: &Path) {
    wait_until(
        &path.display().to_string(),
        || path.exists().then_some(()),
        String::new,
    )
}

#[test]
fn post_commit_starts_dream_detached_and_returns_at_once() {
    let sb = Sandbox::new();
    assert_success(&install(&sb, &sb.repo, &[]), &["install"]);
    // Never dreamed and no sessions required: the gates say a dream is due.
    sb.git(&sb.repo, &["config", "qwen-memory.dream.minSessions", "0"]);
    let (script, out) = fake_program(&sb);
    let res = sb.git_hooked(
        &sb.repo,
        &["commit", "-q", "--allow-empty", "-m", "c"],
        &[("QWEN_MEMORY_HOOK_EXEC", &script.display().to_string())],
    );
    assert_success(&res, &["commit"]);
    // The detached run cannot end before the test releases it, so a commit that had waited for
    // it would never have returned; no wall-clock bound is needed to prove it did not wait.
    assert!(
        !out.join("done").exists(),
        "returned before the detached run ended"
    );
    wait_for(&out.join("args"));
    assert_eq!(
        fs::read_to_string(out.join("args")).unwrap().trim(),
        "dream --force --trigger post-commit"
    );
    let child_sid: i32 = wait_read(&out.join("sid")).trim().parse().unwrap();
    let my_sid = unsafe { libc::getsid(0) };
    assert_ne!(child_sid, my_sid, "the detached run has its own session");
    fs::write(out.join("release"), "").unwrap();
    wait_for(&out.join("done"));
    let log = fs::read_to_string(sb.private_state().join("hook.log")).unwrap();
    assert!(
        log.contains("hook post-commit: started `dream --force --trigger post-commit`"),
        "{log}"
    );
}

fn wait_read(path: &Path) -> String {
    wait_until(
        &path.display().to_string(),
        || {
            fs::read_to_string(path)
                .ok()
                .filter(|t| !t.trim().is_empty())
        },
        String::new,
    )
}

#[test]
fn post_commit_when_dream_is_not_due_changes_nothing() {
    let sb = Sandbox::new();
    assert_success(&install(&sb, &sb.repo, &[]), &["install"]);
    sb.ok(&["remember", "We deploy only from release branches"]);
    let memory_before = Sandbox::snapshot(&sb.private_root());
    let head_before = sb.git(&sb.repo, &["rev-parse", "HEAD"]);
    fs::write(sb.repo.join("file.txt"), "x\n").unwrap();
    sb.git(&sb.repo, &["add", "file.txt"]);
    let res = sb.git_hooked(&sb.repo, &["commit", "-q", "-m", "work"], &[]);
    assert_success(&res, &["commit"]);
    assert!(
        res.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&res.stderr)
    );
    // The gates were evaluated in the hook itself and no dream was started.
    let hook_log = fs::read_to_string(sb.private_state().join("hook.log")).unwrap_or_default();
    assert!(
        hook_log.contains("hook post-commit: dream not due (min_sessions)"),
        "{hook_log}"
    );
    assert!(!hook_log.contains("started `dream"), "{hook_log}");
    assert_eq!(Sandbox::snapshot(&sb.private_root()), memory_before);
    assert_eq!(sb.git(&sb.repo, &["status", "--porcelain"]), "");
    assert_eq!(sb.git(&sb.repo, &["rev-parse", "HEAD~1"]), head_before);
    assert_eq!(
        sb.git(&sb.repo, &["log", "--format=%s", "-1"]).trim(),
        "work"
    );

    // QWEN_MEMORY_HOOKS=0 bypasses the hook entirely.
    let log = sb.private_state().join("hook.log");
    let before = fs::read_to_string(&log).unwrap_or_default();
    let res = sb.git_hooked(
        &sb.repo,
        &["commit", "-q", "--allow-empty", "-m", "quiet"],
        &[("QWEN_MEMORY_HOOKS", "0")],
    );
    assert_success(&res, &["commit"]);
    assert_eq!(fs::read_to_string(&log).unwrap_or_default(), before);
}

/// `git -c key=value …` reaches hooks and `git qwen-memory` only through Git's environment
/// (`GIT_CONFIG_PARAMETERS`), which libgit2 does not read: the real Git passes it here.
#[test]
fn git_dash_c_reaches_the_subcommand_and_the_hooks() {
    let sb = Sandbox::new();
    let out = sb.git_hooked(
        &sb.repo,
        &[
            "-c",
            "qwen-memory.recall.limit=4",
            "-c",
            "qwen-memory.dream.minHours=9",
            "qwen-memory",
            "status",
            "--json",
        ],
        &[],
    );
    assert_success(&out, &["git -c … qwen-memory status"]);
    let st: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let setting = |key: &str| {
        let s = status_setting(&st, key);
        (s["value"].to_string(), s["origin"].to_string())
    };
    assert_eq!(
        setting("recall.limit"),
        ("\"4\"".into(), "\"git-config\"".into())
    );
    assert_eq!(
        setting("dream.minHours"),
        ("\"9\"".into(), "\"git-config\"".into())
    );

    assert_success(&install(&sb, &sb.repo, &[]), &["install"]);
    let log = sb.private_state().join("hook.log");
    let commit = |extra: &[&str], message: &str| {
        let mut args = extra.to_vec();
        args.extend(["commit", "-q", "--allow-empty", "-m", message]);
        assert_success(&sb.git_hooked(&sb.repo, &args, &[]), &["commit"]);
        fs::read_to_string(&log).unwrap_or_default()
    };
    let before = commit(&[], "hooks run");
    assert!(before.contains("hook post-commit"), "{before}");
    let after = commit(&["-c", "qwen-memory.hooks.enabled=false"], "hooks off");
    assert_eq!(
        after, before,
        "a hook ran with hooks.enabled=false given to git -c"
    );
}

#[test]
fn hook_with_missing_binary_or_broken_setup_never_fails_git() {
    let sb = Sandbox::new();
    assert_success(&install(&sb, &sb.repo, &[]), &["install"]);
    // Binary not on PATH: the shim exits quietly.
    let out = common::clear_tool_env(&mut std::process::Command::new("git"))
        .args(["commit", "-q", "--allow-empty", "-m", "no binary"])
        .current_dir(&sb.repo)
        .envs(sb.env())
        .env("PATH", "/usr/bin:/bin")
        .output()
        .unwrap();
    assert_success(&out, &["commit without binary"]);
    assert!(out.stderr.is_empty());
    // An invalid setting: the hook logs and Git goes on.
    sb.git(&sb.repo, &["config", "qwen-memory.recall.limit", "many"]);
    let out = sb.git_hooked(
        &sb.repo,
        &["commit", "-q", "--allow-empty", "-m", "bad"],
        &[],
    );
    assert_success(&out, &["commit with bad settings"]);
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn local_sandbox() -> Sandbox {
    let sb = Sandbox::new();
    assert_success(&install(&sb, &sb.repo, &["--local"]), &["install --local"]);
    sb
}

#[test]
fn pre_commit_blocks_staged_secrets_by_rule_and_file_only() {
    let sb = local_sandbox();
    let mem = sb.repo.join(".qwen/memory");
    let bad = format!("Use the deploy key {AWS_KEY} for staging.");
    write_doc(
        &mem,
        "reference/keys.md",
        &doc_text("Keys", "Keys", "reference", &bad),
    );
    sb.git(&sb.repo, &["add", "-A"]);
    let out = sb.git_hooked(&sb.repo, &["commit", "-q", "-m", "leak"], &[]);
    assert_eq!(out.status.code(), Some(1), "blocked");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("aws-access-token") && err.contains(".qwen/memory/reference/keys.md"),
        "{err}"
    );
    assert!(!err.contains(AWS_KEY), "never prints the value");
    assert!(!String::from_utf8_lossy(&out.stdout).contains(AWS_KEY));

    // The staged blob decides, not the working file.
    write_doc(
        &mem,
        "reference/keys.md",
        &doc_text("Keys", "Keys", "reference", "Ask ops for the key."),
    );
    let out = sb.git_hooked(&sb.repo, &["commit", "-q", "-m", "still staged"], &[]);
    assert_eq!(out.status.code(), Some(1));
    sb.git(&sb.repo, &["add", "-A"]);
    let out = sb.git_hooked(&sb.repo, &["commit", "-q", "-m", "clean"], &[]);
    assert_success(&out, &["clean commit"]);

    // `git commit -a` stages into a temporary index (GIT_INDEX_FILE): still scanned.
    write_doc(
        &mem,
        "reference/keys.md",
        &doc_text("Keys", "Keys", "reference", &bad),
    );
    let out = sb.git_hooked(&sb.repo, &["commit", "-q", "-a", "-m", "leak -a"], &[]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // A reviewed false positive passes with the allow marker.
    let allowed = format!("{bad} qwen-memory:allow");
    write_doc(
        &mem,
        "reference/keys.md",
        &doc_text("Keys", "Keys", "reference", &allowed),
    );
    let out = sb.git_hooked(&sb.repo, &["commit", "-q", "-a", "-m", "allowed"], &[]);
    assert_success(&out, &["allowed"]);
}

#[test]
fn commit_helper_commits_only_memory_and_keeps_other_changes() {
    let sb = local_sandbox();
    let mem = sb.repo.join(".qwen/memory");
    write_doc(
        &mem,
        "project/old.md",
        &doc_text("Old", "Old", "project", "An old fact here."),
    );
    write_doc(
        &mem,
        "reference/gone.md",
        &doc_text("Gone", "Gone", "reference", "Soon deleted."),
    );
    sb.git(&sb.repo, &["add", "-A"]);
    sb.git(&sb.repo, &["commit", "-q", "-m", "seed"]);

    write_doc(
        &mem,
        "feedback/new.md",
        &doc_text("New", "New", "feedback", "Keep answers short."),
    );
    write_doc(
        &mem,
        "project/old.md",
        &doc_text(
            "Old",
            "Old",
            "project",
            "An old fact here.\n\nAnd one more.",
        ),
    );
    fs::remove_file(mem.join("reference/gone.md")).unwrap();
    // Unrelated: a staged edit, an unstaged edit, an untracked file.
    fs::write(sb.repo.join("README"), "staged\n").unwrap();
    sb.git(&sb.repo, &["add", "README"]);
    fs::write(sb.repo.join("README"), "staged\nthen unstaged\n").unwrap();
    fs::write(sb.repo.join("notes.txt"), "untracked\n").unwrap();
    let staged_before = sb.git(&sb.repo, &["diff", "--cached", "--", "README"]);
    let unstaged_before = sb.git(&sb.repo, &["diff", "--", "README"]);

    let out = sb.json(&["commit"]);
    assert_eq!(out["method"], "git2");
    let files = sb.git(&sb.repo, &["show", "--name-status", "--format=", "HEAD"]);
    let mut lines: Vec<&str> = files.lines().collect();
    lines.sort();
    assert_eq!(
        lines,
        vec![
            "A\t.qwen/memory/feedback/new.md",
            "D\t.qwen/memory/reference/gone.md",
            "M\t.qwen/memory/project/old.md",
        ]
    );
    let subject = sb.git(&sb.repo, &["log", "-1", "--format=%s"]);
    assert_eq!(
        subject.trim(),
        "memory: +1 feedback, ~1 project, -1 reference"
    );
    let body = sb.git(&sb.repo, &["log", "-1", "--format=%b"]);
    assert!(body.contains("+ .qwen/memory/feedback/new.md"));
    assert_eq!(
        sb.git(&sb.repo, &["diff", "--cached", "--", "README"]),
        staged_before
    );
    assert_eq!(sb.git(&sb.repo, &["diff", "--", "README"]), unstaged_before);
    let status = sb.git(&sb.repo, &["status", "--porcelain"]);
    assert!(
        status.contains("MM README") && status.contains("?? notes.txt"),
        "{status}"
    );
    assert!(!status.contains(".qwen/memory"), "{status}");
    // Nothing left: a second run commits nothing.
    assert!(sb.json(&["commit"])["commit"].is_null());
}

/// `commit` commits what `git add -A` would: an untracked file a `.gitignore` names is not a
/// change (personal notes, an editor's swap file), a tracked one still is, and a teammate's
/// committed symlink is neither committed through nor read as a deletion.
#[test]
fn commit_helper_leaves_ignored_files_and_committed_symlinks_alone() {
    let sb = local_sandbox();
    let mem = sb.repo.join(".qwen/memory");
    write_doc(
        &mem,
        "project/old.md",
        &doc_text("Old", "Old", "project", "An old fact here."),
    );
    fs::create_dir_all(sb.repo.join("docs")).unwrap();
    fs::write(sb.repo.join("docs/conventions.md"), "# Conventions\n").unwrap();
    fs::create_dir_all(mem.join("reference")).unwrap();
    std::os::unix::fs::symlink(
        "../../../docs/conventions.md",
        mem.join("reference/conventions.md"),
    )
    .unwrap();
    // Tracked before the ignore rule names it: stays tracked.
    fs::write(mem.join("kept.swp"), "tracked swap\n").unwrap();
    sb.git(&sb.repo, &["add", "-A"]);
    sb.git(&sb.repo, &["commit", "-q", "-m", "seed"]);
    let gitignore = fs::read_to_string(mem.join(".gitignore")).unwrap_or_default();
    fs::write(
        mem.join(".gitignore"),
        format!("{gitignore}notes/\n*.swp\n"),
    )
    .unwrap();
    sb.git(&sb.repo, &["commit", "-q", "-am", "ignore notes"]);

    fs::create_dir_all(mem.join("notes")).unwrap();
    fs::write(mem.join("notes/me.txt"), "talk to HR\n").unwrap();
    fs::write(mem.join(".draft.md.swp"), "swap data\n").unwrap();
    fs::write(mem.join("kept.swp"), "tracked swap, edited\n").unwrap();
    write_doc(
        &mem,
        "feedback/new.md",
        &doc_text("New", "New", "feedback", "Keep answers short."),
    );

    let out = sb.json(&["commit"]);
    assert!(out["commit"].is_string(), "{out}");
    let files = sb.git(&sb.repo, &["show", "--name-status", "--format=", "HEAD"]);
    let mut lines: Vec<&str> = files.lines().collect();
    lines.sort();
    assert_eq!(
        lines,
        vec![
            "A\t.qwen/memory/feedback/new.md",
            "M\t.qwen/memory/kept.swp",
        ],
        "{files}"
    );
    let status = sb.git(&sb.repo, &["status", "--porcelain"]);
    assert!(!status.contains(".qwen/memory"), "{status}");
    assert_eq!(
        sb.git(&sb.repo, &["ls-files", "-s", ".qwen/memory/reference"])
            .split_whitespace()
            .next(),
        Some("120000"),
        "the link is still in the index as a link"
    );
    assert!(sb.json(&["commit"])["commit"].is_null());

    // Deleting the link in the working tree is a change like any other.
    fs::remove_file(mem.join("reference/conventions.md")).unwrap();
    sb.json(&["commit"]);
    let files = sb.git(&sb.repo, &["show", "--name-status", "--format=", "HEAD"]);
    assert_eq!(files.trim(), "D\t.qwen/memory/reference/conventions.md");
}

#[test]
fn commit_helper_refuses_secrets_and_in_progress_merges() {
    let sb = local_sandbox();
    let mem = sb.repo.join(".qwen/memory");
    write_doc(
        &mem,
        "reference/k.md",
        &doc_text("K", "K", "reference", &format!("key {AWS_KEY}")),
    );
    let out = sb.cmd().args(["commit"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("aws-access-token") && !err.contains(AWS_KEY),
        "{err}"
    );
    fs::remove_file(mem.join("reference/k.md")).unwrap();

    fs::write(sb.repo.join("c.txt"), "base\n").unwrap();
    sb.git(&sb.repo, &["add", "-A"]);
    sb.git(&sb.repo, &["commit", "-q", "-m", "base"]);
    sb.git(&sb.repo, &["checkout", "-q", "-b", "other"]);
    fs::write(sb.repo.join("c.txt"), "other\n").unwrap();
    sb.git(&sb.repo, &["commit", "-q", "-am", "other"]);
    sb.git(&sb.repo, &["checkout", "-q", "main"]);
    fs::write(sb.repo.join("c.txt"), "main\n").unwrap();
    sb.git(&sb.repo, &["commit", "-q", "-am", "main"]);
    let out = sb.git_hooked(&sb.repo, &["merge", "other"], &[]);
    assert!(!out.status.success());
    write_doc(
        &mem,
        "project/x.md",
        &doc_text("X", "X", "project", "A fact during merge."),
    );
    let out = sb.cmd().args(["commit"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("merge is in progress"));
}

#[test]
fn commit_helper_uses_the_cli_when_signing_is_configured() {
    let sb = local_sandbox();
    let gpg = sb.root().join("fake-gpg");
    write_exec(
        &gpg,
        b"#!/bin/sh\ncat >/dev/null\nprintf '\\n[GNUPG:] SIG_CREATED D 1 8 00 1700000000 FAKE\\n' >&2\nprintf -- '-----BEGIN PGP SIGNATURE-----\\nfake\\n-----END PGP SIGNATURE-----\\n'\n",
    );
    sb.git(&sb.repo, &["config", "commit.gpgsign", "true"]);
    sb.git(
        &sb.repo,
        &["config", "gpg.program", &gpg.display().to_string()],
    );
    sb.git(&sb.repo, &["config", "user.signingkey", "FAKE"]);
    fs::write(sb.repo.join("README"), "staged elsewhere\n").unwrap();
    sb.git(&sb.repo, &["add", "README"]);
    write_doc(
        &sb.repo.join(".qwen/memory"),
        "project/a.md",
        &doc_text("A", "A", "project", "Signed fact here."),
    );
    let out = sb.json(&["commit"]);
    assert_eq!(out["method"], "git-cli");
    let raw = sb.git(&sb.repo, &["cat-file", "commit", "HEAD"]);
    assert!(raw.contains("gpgsig"), "{raw}");
    let files = sb.git(&sb.repo, &["show", "--name-only", "--format=", "HEAD"]);
    assert!(
        files.lines().all(|l| l.starts_with(".qwen/memory/")),
        "{files}"
    );
    assert_eq!(
        sb.git(&sb.repo, &["diff", "--cached", "--name-only"])
            .trim(),
        "README"
    );
}

fn recall_json(sb: &Sandbox, dir: &Path, prompt: &str, session: &str) -> String {
    let payload = serde_json::json!({
        "session_id": session, "transcript_path": "", "cwd": dir.display().to_string(),
        "hook_event_name": "UserPromptSubmit", "prompt": prompt,
    });
    let out = sb
        .cmd_in(dir)
        .args(["hook", "recall", "--agent", "claude"])
        .write_stdin(payload.to_string())
        .output()
        .unwrap();
    assert_success(&out, &["hook recall"]);
    assert!(out.stderr.is_empty());
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn two_clones_share_memory_through_a_bare_remote() {
    let sb = Sandbox::new();
    let remote = sb.root().join("remote.git");
    sb.git(
        &sb.root(),
        &[
            "init",
            "-q",
            "--bare",
            "-b",
            "main",
            &remote.display().to_string(),
        ],
    );
    sb.git(
        &sb.repo,
        &["remote", "add", "origin", &remote.display().to_string()],
    );
    assert_success(&install(&sb, &sb.repo, &["--local"]), &["install --local"]);
    write_doc(
        &sb.repo.join(".qwen/memory"),
        "project/build.md",
        &doc_text(
            "Build",
            "How the project is built",
            "project",
            "Use pnpm, not npm.",
        ),
    );
    sb.ok(&["index"]);
    sb.git(&sb.repo, &["add", "-A"]);
    sb.git(&sb.repo, &["commit", "-q", "-m", "team memory"]);
    sb.git(&sb.repo, &["push", "-q", "origin", "main"]);

    let clone = |name: &str| {
        let dir = sb.root().join(name);
        sb.git(
            &sb.root(),
            &["clone", "-q", &remote.display().to_string(), name],
        );
        sb.git(&dir, &["config", "pull.rebase", "false"]);
        assert_success(
            &install(&sb, &dir, &["--local"]),
            &["install --local in clone"],
        );
        dir
    };
    let a = clone("alice");
    let b = clone("bob");
    // Each side remembers something different and adds an entry to the shared document.
    let out = sb
        .cmd_in(&a)
        .args(["remember", "We deploy only from release branches"])
        .output()
        .unwrap();
    assert_success(&out, &["remember a"]);
    let out = sb
        .cmd_in(&b)
        .args(["remember", "Never push directly to the main branch"])
        .output()
        .unwrap();
    assert_success(&out, &["remember b"]);
    let build_a = doc_text(
        "Build",
        "How the project is built",
        "project",
        "Use pnpm, not npm.\n\nRun the linter before pushing.",
    );
    let build_b = doc_text(
        "Build",
        "How the project is built",
        "project",
        "Use pnpm, not npm.\n\nCI sets TZ=UTC for tests.",
    );
    fs::write(a.join(".qwen/memory/project/build.md"), build_a).unwrap();
    fs::write(b.join(".qwen/memory/project/build.md"), build_b).unwrap();
    for dir in [&a, &b] {
        let out = sb.cmd_in(dir).args(["index"]).output().unwrap();
        assert_success(&out, &["index"]);
        let out = sb.cmd_in(dir).args(["commit"]).output().unwrap();
        assert_success(&out, &["commit helper"]);
    }
    assert_success(
        &sb.git_hooked(&a, &["push", "-q", "origin", "main"], &[]),
        &["push a"],
    );
    let pull = sb.git_hooked(&b, &["pull", "-q", "--no-edit", "origin", "main"], &[]);
    assert_success(&pull, &["pull b (automatic merge)"]);
    assert_eq!(
        sb.git(&b, &["status", "--porcelain"]),
        "",
        "merge left nothing behind"
    );
    let build = fs::read_to_string(b.join(".qwen/memory/project/build.md")).unwrap();
    assert!(
        build.contains("Run the linter before pushing.")
            && build.contains("CI sets TZ=UTC for tests."),
        "{build}"
    );
    assert!(!build.contains("<<<<<<<"));
    let out = sb.cmd_in(&b).args(["index", "--check"]).output().unwrap();
    assert_success(&out, &["index --check after merge"]);
    assert_success(
        &sb.git_hooked(&b, &["push", "-q", "origin", "main"], &[]),
        &["push b"],
    );
    assert_success(
        &sb.git_hooked(&a, &["pull", "-q", "--no-edit", "origin", "main"], &[]),
        &["pull a"],
    );

    for dir in [&a, &b] {
        let out = recall_json(
            &sb,
            dir,
            "which branches do we deploy and push from?",
            "s-1",
        );
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let ctx = v["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap();
        assert!(
            ctx.contains("We deploy only from release branches"),
            "{ctx}"
        );
        assert!(
            ctx.contains("Never push directly to the main branch"),
            "{ctx}"
        );
    }
}

#[test]
fn merge_driver_conflicts_only_on_real_conflicts_and_falls_back_for_non_documents() {
    let sb = local_sandbox();
    let mem = sb.repo.join(".qwen/memory");
    write_doc(
        &mem,
        "project/a.md",
        &doc_text("A", "A", "project", "Use pnpm.\n\nWhy: speed"),
    );
    fs::write(mem.join("notes.md"), "line one\nline two\n").unwrap();
    sb.git(&sb.repo, &["add", "-A"]);
    sb.git(&sb.repo, &["commit", "-q", "-m", "base"]);
    sb.git(&sb.repo, &["checkout", "-q", "-b", "other"]);
    write_doc(
        &mem,
        "project/a.md",
        &doc_text("A", "A", "project", "Use pnpm.\n\nWhy: disk space"),
    );
    fs::write(mem.join("notes.md"), "line one\nline two (other)\n").unwrap();
    sb.git(&sb.repo, &["commit", "-q", "-am", "other"]);
    sb.git(&sb.repo, &["checkout", "-q", "main"]);
    write_doc(
        &mem,
        "project/a.md",
        &doc_text("A", "A", "project", "Use pnpm.\n\nWhy: lockfile"),
    );
    fs::write(mem.join("notes.md"), "line one\nline two (main)\n").unwrap();
    sb.git(&sb.repo, &["commit", "-q", "-am", "main"]);
    let out = sb.git_hooked(&sb.repo, &["merge", "-q", "other"], &[]);
    assert!(!out.status.success(), "both conflicts stop the merge");
    let unmerged = sb.git(&sb.repo, &["diff", "--name-only", "--diff-filter=U"]);
    assert!(
        unmerged.contains(".qwen/memory/project/a.md")
            && unmerged.contains(".qwen/memory/notes.md"),
        "{unmerged}"
    );
    let a = fs::read_to_string(mem.join("project/a.md")).unwrap();
    assert!(a.contains("<<<<<<< main\nUse pnpm.\n\nWhy: lockfile\n=======\nUse pnpm.\n\nWhy: disk space\n>>>>>>> other"), "{a}");
    let notes = fs::read_to_string(mem.join("notes.md")).unwrap();
    assert!(
        notes.contains("<<<<<<< main\n") && notes.contains("line two (other)\n>>>>>>> other"),
        "ordinary conflict: {notes}"
    );
}

#[test]
fn install_local_excludes_qwen_codes_local_state_files() {
    let sb = Sandbox::new();
    let exclude = sb.repo.join(".git/info/exclude");
    fs::create_dir_all(exclude.parent().unwrap()).unwrap();
    // Someone's own exclude lines, without a final newline, are kept byte for byte.
    fs::write(&exclude, "# mine\n*.log\n.qwen/meta.json").unwrap();
    assert_success(&install(&sb, &sb.repo, &["--local"]), &["install --local"]);
    let text = fs::read_to_string(&exclude).unwrap();
    assert!(
        text.starts_with("# mine\n*.log\n.qwen/meta.json\n"),
        "{text}"
    );
    for line in [
        ".qwen/meta.json",
        ".qwen/extract-cursor.json",
        ".qwen/consolidation.lock",
    ] {
        assert_eq!(
            text.lines().filter(|l| *l == line).count(),
            1,
            "{line} listed once: {text}"
        );
    }
    // Idempotent.
    assert_success(
        &install(&sb, &sb.repo, &["--local"]),
        &["install --local again"],
    );
    assert_eq!(fs::read_to_string(&exclude).unwrap(), text);

    // Git itself now ignores what Qwen Code writes next to the committed memory.
    let qwen = sb.repo.join(".qwen");
    fs::write(qwen.join("meta.json"), "{}\n").unwrap();
    fs::write(qwen.join("extract-cursor.json"), "{}\n").unwrap();
    fs::write(qwen.join("consolidation.lock"), "123").unwrap();
    let status = sb.git(
        &sb.repo,
        &["status", "--porcelain", "--untracked-files=all"],
    );
    assert!(!status.contains("meta.json"), "{status}");
    assert!(!status.contains("extract-cursor.json"), "{status}");
    assert!(!status.contains("consolidation.lock"), "{status}");
    assert!(
        status.contains(".qwen/memory/.gitignore"),
        "memory stays visible: {status}"
    );
    // The generated index is never committed (docs/DESIGN.md, "Git integration").
    assert!(!status.contains(".qwen/memory/MEMORY.md"), "{status}");
}
