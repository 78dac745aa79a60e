//! A hostile file system against the real binary: symlinks committed into a repository or
//! planted in the private root must never redirect a write outside the real root (the command
//! fails naming the link), and a FIFO where a state file, `MEMORY.md` or a lock file should be
//! must never hang a command, a hook or `git commit`.
//!
//! Every child runs under a hang detector: it is killed after [`HANG_LIMIT`] and the test fails.
//! That bound only detects a process blocked forever; it is not a speed assertion.

use crate::common;

use std::ffi::CString;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{symlink, FileTypeExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use common::*;

/// Generous: a debug build on a loaded machine finishes these commands in well under a second.
const HANG_LIMIT: Duration = Duration::from_secs(20);

/// Runs `cmd` in its own process group; kills the group and fails the test if it has not
/// finished after [`HANG_LIMIT`].
fn bounded(cmd: Command, what: &str) -> Output {
    bounded_with_stdin(cmd, Stdio::null(), what)
}

/// [`bounded`] with `stdin` as the child's standard input.
fn bounded_with_stdin(mut cmd: Command, stdin: Stdio, what: &str) -> Output {
    cmd.stdin(stdin)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let child = cmd.spawn().expect("spawn");
    let pid = child.id() as i32;
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(HANG_LIMIT) {
        Ok(out) => out.expect("wait"),
        Err(_) => {
            // SAFETY: signals the process group this test started.
            unsafe { libc::kill(-pid, libc::SIGKILL) };
            panic!("{what} hung (killed after {HANG_LIMIT:?})");
        }
    }
}

fn run(sb: &Sandbox, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = sb.std_cmd(&sb.repo);
    c.args(args);
    for (k, v) in env {
        c.env(k, v);
    }
    bounded(c, &format!("git-qwen-memory {}", args.join(" ")))
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn mkfifo(path: &Path) {
    if fs::symlink_metadata(path).is_ok() {
        fs::remove_file(path).unwrap();
    }
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    let c = CString::new(path.as_os_str().as_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(
        unsafe { libc::mkfifo(c.as_ptr(), 0o644) },
        0,
        "mkfifo {path:?}"
    );
}

fn transcript(sb: &Sandbox) -> PathBuf {
    let src =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/transcripts/generic.jsonl");
    let dir = sb.root().join("transcripts");
    fs::create_dir_all(&dir).unwrap();
    let p = dir.join("chat.jsonl");
    fs::copy(src, &p).unwrap();
    p
}

const LOCAL: (&str, &str) = ("QWEN_CODE_MEMORY_LOCAL", "1");

/// `<tmp>/outside` holding a memory tree that a symlink will point at: two duplicate
/// documents (so dream has work), a document forget will match, and an index.
fn outside(sb: &Sandbox) -> PathBuf {
    let out = sb.root().join("outside");
    let mem = out.join("memory");
    let dup = doc_text(
        "Terse answers",
        "short answers",
        "feedback",
        "Keep answers short; no closing summary.",
    );
    write_doc(&mem, "feedback/terse.md", &dup);
    write_doc(&mem, "feedback/terse-2.md", &dup);
    write_doc(
        &mem,
        "project/deploys.md",
        &doc_text(
            "Deploys",
            "how we ship",
            "project",
            "Deploy only from release branches",
        ),
    );
    fs::write(mem.join("MEMORY.md"), "OUTSIDE INDEX").unwrap();
    fs::write(out.join("sentinel"), "SENTINEL").unwrap();
    out
}

/// Runs a write command expecting a refusal that names `link`, with `outside` unchanged.
fn assert_refused(sb: &Sandbox, args: &[&str], env: &[(&str, &str)], link: &Path, outside: &Path) {
    let before = Sandbox::snapshot(outside);
    let out = run(sb, args, env);
    let err = stderr(&out);
    assert_ne!(out.status.code(), Some(0), "{args:?} succeeded: {err}");
    assert!(
        err.contains(&link.display().to_string()),
        "{args:?}: the error must name {}: {err}",
        link.display()
    );
    assert_eq!(
        Sandbox::snapshot(outside),
        before,
        "{args:?} changed a file outside the root"
    );
}

fn write_commands(t: &Path) -> Vec<Vec<String>> {
    let t = t.display().to_string();
    [
        vec!["remember", "--type", "feedback", "Keep answers short"],
        vec!["extract", "--transcript", &t],
        vec!["dream", "--force"],
        vec!["forget", "Deploy only from release branches", "--yes"],
        vec!["index"],
    ]
    .into_iter()
    .map(|v| v.into_iter().map(str::to_string).collect())
    .collect()
}

#[test]
fn a_committed_symlinked_type_directory_is_refused_by_name() {
    let sb = Sandbox::new();
    let out = outside(&sb);
    let mem = sb.repo.join(".qwen/memory");
    fs::create_dir_all(&mem).unwrap();
    // Relative, as a repository would commit it: .qwen/memory/feedback -> ../../../outside/…
    symlink("../../../outside/memory/feedback", mem.join("feedback")).unwrap();
    sb.git(&sb.repo, &["add", ".qwen"]);
    sb.git(&sb.repo, &["commit", "-q", "-m", "hostile"]);
    assert_refused(
        &sb,
        &["remember", "--type", "feedback", "Keep answers short"],
        &[LOCAL],
        &mem.join("feedback"),
        &out,
    );
}

#[test]
fn a_symlinked_dot_qwen_is_refused_by_every_writer() {
    let sb = Sandbox::new();
    let out = outside(&sb);
    let t = transcript(&sb);
    let link = sb.repo.join(".qwen");
    symlink(&out, &link).unwrap();
    for args in write_commands(&t) {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        assert_refused(&sb, &args, &[LOCAL], &link, &out);
    }
}

#[test]
fn a_symlinked_memory_directory_is_refused_by_every_writer() {
    let sb = Sandbox::new();
    let out = outside(&sb);
    let t = transcript(&sb);
    fs::create_dir_all(sb.repo.join(".qwen")).unwrap();
    let link = sb.repo.join(".qwen/memory");
    symlink(out.join("memory"), &link).unwrap();
    for args in write_commands(&t) {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        assert_refused(&sb, &args, &[LOCAL], &link, &out);
    }
}

#[test]
fn a_symlinked_type_directory_in_the_private_root_is_refused() {
    let sb = Sandbox::new();
    let out = outside(&sb);
    sb.ok(&[
        "remember",
        "--type",
        "project",
        "Releases are cut on Tuesdays",
    ]);
    let link = sb.private_root().join("feedback");
    symlink(out.join("memory/feedback"), &link).unwrap();
    assert_refused(
        &sb,
        &["remember", "--type", "feedback", "Keep answers short"],
        &[],
        &link,
        &out,
    );
}

#[test]
fn a_symlinked_index_is_refused_by_every_writer() {
    let sb = Sandbox::new();
    let out = outside(&sb);
    let t = transcript(&sb);
    let root = sb.private_root();
    // Real documents inside the root so dream and forget have work to do there.
    for (rel, body) in [
        ("feedback/a.md", "Keep answers short; no closing summary."),
        ("feedback/b.md", "Keep answers short; no closing summary."),
        ("project/deploys.md", "Deploy only from release branches"),
    ] {
        write_doc(
            &root,
            rel,
            &doc_text("T", "d", rel.split('/').next().unwrap(), body),
        );
    }
    let link = root.join("MEMORY.md");
    symlink(out.join("memory/MEMORY.md"), &link).unwrap();
    for args in write_commands(&t) {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let before = Sandbox::snapshot(&out);
        let o = run(&sb, &args, &[]);
        let err = format!("{}{}", stderr(&o), String::from_utf8_lossy(&o.stdout));
        assert!(
            err.contains(&link.display().to_string()),
            "{args:?} must report the link: {err}"
        );
        assert_eq!(Sandbox::snapshot(&out), before, "{args:?} wrote outside");
        assert!(fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
    }
}

/// The state files a FIFO is planted at, with the directory each lives in.
fn fifo_targets(sb: &Sandbox) -> Vec<PathBuf> {
    let state = sb.private_state();
    vec![
        state.join("meta.json"),
        sb.private_root().join("MEMORY.md"),
        state.join(qwen_memory::storage::store::CURSOR_FILE),
        state.join(qwen_memory::storage::store::ROOT_LOCK_FILE),
        state.join(qwen_memory::ops::extract::queue::RUN_LOCK_FILE),
        state.join(qwen_memory::ops::dream::lock::CONSOLIDATION_LOCK_FILE),
    ]
}

#[test]
fn a_fifo_at_any_state_file_never_hangs_a_command() {
    let probe = Sandbox::new();
    for i in 0..fifo_targets(&probe).len() {
        let sb = Sandbox::new();
        sb.ok(&[
            "remember",
            "--type",
            "project",
            "Releases are cut on Tuesdays",
        ]);
        let t = transcript(&sb);
        let fifo = fifo_targets(&sb)[i].clone();
        mkfifo(&fifo);
        let t = t.display().to_string();
        for args in [
            vec!["status"],
            vec!["status", "--json"],
            vec!["remember", "--type", "feedback", "Keep answers short"],
            vec!["check"],
            vec!["extract", "--transcript", &t],
            vec!["index"],
            vec!["dream", "--force"],
        ] {
            let out = run(&sb, &args, &[]);
            if !out.status.success() {
                let said = format!("{}{}", stderr(&out), String::from_utf8_lossy(&out.stdout));
                assert!(!said.trim().is_empty(), "{args:?} failed silently");
            }
        }
        let out = run(&sb, &["hook", "post-commit"], &[]);
        assert_eq!(out.status.code(), Some(0), "hook: {}", stderr(&out));
        assert!(
            stderr(&out).is_empty(),
            "hooks print nothing: {}",
            stderr(&out)
        );
        assert!(
            fs::symlink_metadata(&fifo).is_ok_and(|m| m.file_type().is_fifo()),
            "{fifo:?} was replaced or removed"
        );
    }
}

#[test]
fn a_fifo_names_itself_when_a_write_needs_the_file() {
    let sb = Sandbox::new();
    sb.ok(&[
        "remember",
        "--type",
        "project",
        "Releases are cut on Tuesdays",
    ]);
    let meta = sb.private_state().join("meta.json");
    mkfifo(&meta);
    let out = run(
        &sb,
        &["remember", "--type", "feedback", "Keep answers short"],
        &[],
    );
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains(&meta.display().to_string()) && err.contains("FIFO"),
        "{err}"
    );
    let index = sb.private_root().join("MEMORY.md");
    mkfifo(&index);
    fs::remove_file(&meta).unwrap();
    let out = run(&sb, &["index"], &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains(&index.display().to_string()),
        "{}",
        stderr(&out)
    );
    let out = run(&sb, &["check"], &[]);
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn git_commit_with_hooks_installed_never_hangs_on_a_fifo() {
    let probe = Sandbox::new();
    for i in 0..fifo_targets(&probe).len() {
        let sb = Sandbox::new();
        let out = run(&sb, &["install"], &[]);
        assert_success(&out, &["install"]);
        sb.ok(&[
            "remember",
            "--type",
            "project",
            "Releases are cut on Tuesdays",
        ]);
        let fifo = fifo_targets(&sb)[i].clone();
        mkfifo(&fifo);
        fs::write(sb.repo.join("file.txt"), format!("change {i}\n")).unwrap();
        sb.git(&sb.repo, &["add", "file.txt"]);
        let mut c = Command::new("git");
        common::clear_tool_env(&mut c)
            .args(["commit", "-q", "-m", "change"])
            .current_dir(&sb.repo)
            .envs(sb.env())
            .env("PATH", path_with_bin())
            .env_remove("GIT_DIR")
            .env_remove("GIT_WORK_TREE")
            .env_remove("QWEN_MEMORY_HOOKS")
            .env_remove("QWEN_CODE_MEMORY_LOCAL");
        let out = bounded(c, &format!("git commit with a FIFO at {fifo:?}"));
        assert_success(&out, &["git", "commit"]);
    }
}

/// The record an extract hook keeps of the transcript length it last launched a run for.
fn launch_record(sb: &Sandbox, transcript: &Path) -> PathBuf {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(transcript.as_os_str().as_encoded_bytes());
    let name: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
    sb.private_state().join("extract-launches").join(name)
}

/// A FIFO or a symlink planted where the extract hook records its last launch: the hook neither
/// hangs the agent's turn (reading or writing the FIFO would block forever) nor writes through
/// the link; it still exits 0 silently and says why in its log.
#[test]
fn a_fifo_or_symlink_at_the_extract_hook_launch_record_never_hangs_or_redirects() {
    for planted in ["fifo", "symlink"] {
        let sb = Sandbox::new();
        let t = transcript(&sb);
        let record = launch_record(&sb, &t);
        let target = sb.root().join("outside-record");
        fs::write(&target, "untouched").unwrap();
        if planted == "fifo" {
            mkfifo(&record);
        } else {
            fs::create_dir_all(record.parent().unwrap()).unwrap();
            symlink(&target, &record).unwrap();
        }
        let payload = serde_json::json!({
            "session_id": "3f9a1c52-0d4e-4b7a-8f61-5e2d9c0b7a44",
            "transcript_path": t.display().to_string(),
            "cwd": sb.repo.display().to_string(),
            "hook_event_name": "Stop",
        })
        .to_string();
        let payload_file = sb.root().join("payload.json");
        fs::write(&payload_file, payload).unwrap();
        let mut c = sb.std_cmd(&sb.repo);
        c.args(["hook", "extract", "--agent", "claude"])
            .env("QWEN_MEMORY_HOOK_EXEC", "/bin/true");
        let out = bounded_with_stdin(
            c,
            Stdio::from(fs::File::open(&payload_file).unwrap()),
            &format!("hook extract with a {planted} at the launch record"),
        );
        assert_eq!(out.status.code(), Some(0), "{planted}: {}", stderr(&out));
        assert!(stderr(&out).is_empty(), "{planted}: {}", stderr(&out));
        let meta = fs::symlink_metadata(&record).unwrap();
        if planted == "fifo" {
            assert!(meta.file_type().is_fifo(), "the FIFO was replaced");
        } else {
            assert!(meta.file_type().is_symlink(), "the link was replaced");
        }
        assert_eq!(fs::read_to_string(&target).unwrap(), "untouched");
        let log = fs::read_to_string(sb.private_state().join("hook.log")).unwrap_or_default();
        assert!(
            log.contains("cannot record the launch") && log.contains(&record.display().to_string()),
            "{planted}: {log}"
        );
    }
}

/// A repository can carry its Git hooks (`core.hooksPath`) and its agents' project settings:
/// a FIFO there, or a committed symlink to one, never hangs `status` or `install`, and
/// `install` names what it refused.
#[test]
fn a_fifo_among_the_hooks_or_agent_settings_never_hangs_status_or_install() {
    let sb = Sandbox::new();
    sb.git(&sb.repo, &["config", "core.hooksPath", ".githooks"]);
    let hook = sb.repo.join(".githooks/post-commit");
    mkfifo(&hook);
    mkfifo(&sb.repo.join(".qwen/settings.json"));
    let elsewhere = sb.root().join("fifo-elsewhere");
    mkfifo(&elsewhere);
    fs::create_dir_all(sb.repo.join(".claude")).unwrap();
    symlink(&elsewhere, sb.repo.join(".claude/settings.json")).unwrap();

    for args in [vec!["status"], vec!["status", "--json"]] {
        let out = run(&sb, &args, &[]);
        assert_success(&out, &args);
    }
    let out = run(&sb, &["install"], &[]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(&hook.display().to_string()) && stderr(&out).contains("FIFO"),
        "{}",
        stderr(&out)
    );
    assert!(fs::symlink_metadata(&hook).is_ok_and(|m| m.file_type().is_fifo()));
    for args in [
        vec!["install", "--agent", "qwen", "--project"],
        vec!["install", "--agent", "claude", "--project"],
    ] {
        let out = run(&sb, &args, &[]);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", stderr(&out));
        assert!(!stderr(&out).trim().is_empty(), "{args:?} failed silently");
    }
}
