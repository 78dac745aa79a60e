//! Forget against real repositories and the real binary: heuristic and model selection, exact
//! ids, confirmation, dry run, the 400 cap, backups and undo.

use crate::common;
use crate::common::openai_server;

use std::fs;
use std::io::Write;
use std::process::Stdio;

use common::*;
use openai_server::{OpenAiServer, Reply};
use serde_json::{json, Value};

const FRONT: &str = "---\nname: Deploys\ndescription: how we ship\ntype: project\ncategory: ops\nkeywords:\n  - deploy\n  - release\n---\n";

fn seed(sb: &Sandbox) -> std::path::PathBuf {
    let root = sb.private_root();
    write_doc(
        &root,
        "project/deploys.md",
        &format!(
            "{FRONT}\nDeploy only from release branches\n\nWhy: staging FREEZE on Fridays\n\nTag every release\n\nDeploy only from release branches\n"
        ),
    );
    write_doc(
        &root,
        "feedback/freeze.md",
        &doc_text("Freeze", "d", "feedback", "Mind the staging   freeze"),
    );
    write_doc(
        &root,
        "feedback/short.md",
        &doc_text("Short", "d", "feedback", "Keep answers short"),
    );
    write_doc(
        &root,
        "pinned/freeze.md",
        &doc_text("Pinned", "d", "project", "Staging freeze is sacred"),
    );
    sb.ok(&["index"]);
    root
}

fn run(sb: &Sandbox, args: &[&str]) -> std::process::Output {
    sb.std_cmd(&sb.repo)
        .arg("forget")
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn run_json(sb: &Sandbox, args: &[&str]) -> Value {
    let mut all = args.to_vec();
    all.push("--json");
    let out = run(sb, &all);
    assert_success(&out, &all);
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn heuristic_forget_removes_matches_keeps_frontmatter_and_deletes_emptied_files() {
    let sb = Sandbox::new();
    let root = seed(&sb);
    let pinned = fs::read(root.join("pinned/freeze.md")).unwrap();
    let out = run_json(&sb, &["staging  Freeze", "--yes"]);
    assert_eq!(out["strategy"], "heuristic");
    assert_eq!(out["removedEntries"], 2, "{out}");
    assert_eq!(out["deletedFiles"], json!(["feedback/freeze.md"]));
    assert_eq!(out["rewrittenFiles"], json!(["project/deploys.md"]));
    // The why matched; the other entries stay; frontmatter is byte-identical.
    let text = fs::read_to_string(root.join("project/deploys.md")).unwrap();
    assert_eq!(
        text,
        format!("{FRONT}\nTag every release\n\nDeploy only from release branches\n")
    );
    assert!(!root.join("feedback/freeze.md").exists());
    assert_eq!(fs::read(root.join("pinned/freeze.md")).unwrap(), pinned);
    let index = fs::read_to_string(root.join("MEMORY.md")).unwrap();
    assert!(!index.contains("feedback/freeze.md"));
    let tel = fs::read_to_string(sb.private_state().join("telemetry.jsonl")).unwrap();
    let ev: Value = tel
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|e| e["event"] == "qwen-code.memory.forget")
        .unwrap();
    assert_eq!(ev["removed_entries"], 2);
    assert_eq!(ev["strategy"], "heuristic");
    assert!(!tel.contains("freeze"));
    let meta: Value =
        serde_json::from_str(&fs::read_to_string(sb.private_state().join("meta.json")).unwrap())
            .unwrap();
    assert!(meta["updatedAt"].is_string());
}

#[test]
fn without_a_terminal_yes_is_required_and_dry_run_writes_nothing() {
    let sb = Sandbox::new();
    let root = seed(&sb);
    let before = tree(&root);
    let state_before = tree(&sb.private_state());
    let out = run(&sb, &["freeze"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--yes"));
    assert_eq!(tree(&root), before);
    let out = run(&sb, &["freeze", "--dry-run"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("--- a/feedback/freeze.md\n+++ /dev/null"),
        "{text}"
    );
    assert!(
        text.contains("-Deploy only from release branches\n-\n-Why: staging FREEZE on Fridays"),
        "{text}"
    );
    assert_eq!(tree(&root), before);
    assert_eq!(tree(&sb.private_state()), state_before);
    // Nothing matching is not an error.
    let out = run(&sb, &["no such thing", "--yes"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("nothing matches"));
    // Neither a query nor an id: usage error.
    assert_eq!(run(&sb, &["--yes"]).status.code(), Some(2));
}

#[test]
fn exact_ids_remove_exactly_that_entry_even_among_duplicates() {
    let sb = Sandbox::new();
    let root = seed(&sb);
    // Two entries with the same summary: index 2 goes, index 0 stays.
    let out = run_json(&sb, &["--id", "project/deploys.md:2", "--yes"]);
    assert_eq!(out["strategy"], "id");
    assert_eq!(
        out["removed"],
        json!([{"id": "project/deploys.md:2",
                                        "summary": "Deploy only from release branches"}])
    );
    let text = fs::read_to_string(root.join("project/deploys.md")).unwrap();
    assert_eq!(
        text,
        format!("{FRONT}\nDeploy only from release branches\n\nWhy: staging FREEZE on Fridays\n\nTag every release\n")
    );
    // Pinned entries go only by exact id.
    run_json(&sb, &["--id", "pinned/freeze.md", "--yes"]);
    assert!(!root.join("pinned/freeze.md").exists());
    // A multi-entry file needs an index; unknown ids fail.
    let out = run(&sb, &["--id", "project/deploys.md", "--yes"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("name one as"));
    let out = run(&sb, &["--id", "project/deploys.md:9", "--yes"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        run(&sb, &["q", "--id", "feedback/short.md", "--yes"])
            .status
            .code(),
        Some(2)
    );
}

#[test]
fn traversal_absolute_and_symlinked_ids_are_rejected() {
    let sb = Sandbox::new();
    let root = seed(&sb);
    let outside = sb.root().join("outside");
    fs::create_dir_all(&outside).unwrap();
    fs::write(
        outside.join("x.md"),
        doc_text("X", "d", "project", "outside fact"),
    )
    .unwrap();
    std::os::unix::fs::symlink(&outside, root.join("link")).unwrap();
    let before = tree(&root);
    let abs = outside.join("x.md").display().to_string();
    for id in [
        "../outside/x.md",
        "project/../../outside/x.md",
        abs.as_str(),
        "link/x.md",
    ] {
        let out = run(&sb, &["--id", id, "--yes"]);
        assert_eq!(out.status.code(), Some(1), "{id}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("invalid id"),
            "{id}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert_eq!(tree(&root), before);
    assert!(outside.join("x.md").exists());
}

#[test]
fn undo_round_trips_and_refuses_after_edits() {
    let sb = Sandbox::new();
    let root = seed(&sb);
    let before = tree(&root);
    run_json(&sb, &["freeze", "--yes"]);
    assert_ne!(tree(&root), before);
    let out = sb.json(&["forget", "--undo"]);
    assert_eq!(out["status"], "undone");
    assert_eq!(tree(&root), before, "byte for byte, index included");
    assert_eq!(
        sb.cmd()
            .args(["forget", "--undo"])
            .output()
            .unwrap()
            .status
            .code(),
        Some(1)
    );
    run_json(&sb, &["freeze", "--yes"]);
    fs::write(root.join("project/deploys.md"), "hand edit\n").unwrap();
    let out = sb.cmd().args(["forget", "--undo"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("changed since"));
    assert_eq!(
        fs::read_to_string(root.join("project/deploys.md")).unwrap(),
        "hand edit\n"
    );
}

#[test]
fn a_crlf_document_stays_crlf_through_remember_forget_and_undo() {
    let sb = Sandbox::new();
    let root = sb.private_root();
    let crlf = |s: &str| s.replace('\n', "\r\n");
    let path = write_doc(
        &root,
        "project/deploys.md",
        &crlf(&doc_text(
            "Deploys",
            "how we ship",
            "project",
            "- Deploy only from release branches.\n- Tag every release.\n- The freeze starts on Friday noon.",
        )),
    );
    let all_crlf = |b: &[u8]| {
        let lf = b.iter().filter(|&&c| c == b'\n').count();
        lf > 0 && lf == b.windows(2).filter(|w| w == b"\r\n").count()
    };
    // A reason added to an entry (a merge into the document).
    sb.ok(&[
        "remember",
        "--why",
        "audits read the release tags",
        "Tag every release.",
    ]);
    let merged = fs::read(&path).unwrap();
    assert!(
        String::from_utf8_lossy(&merged).contains("audits read the release tags"),
        "{}",
        String::from_utf8_lossy(&merged)
    );
    assert!(all_crlf(&merged), "{:?}", String::from_utf8_lossy(&merged));
    // One entry forgotten.
    let before_forget = fs::read(&path).unwrap();
    run_json(&sb, &["freeze starts", "--yes"]);
    let forgotten = fs::read(&path).unwrap();
    let text = String::from_utf8_lossy(&forgotten);
    assert!(!text.contains("freeze"), "{text}");
    assert!(text.contains("Deploy only from release branches"), "{text}");
    assert!(all_crlf(&forgotten), "{text:?}");
    // Undo restores the bytes as they were (the backup recorded what was written).
    let out = sb.json(&["forget", "--undo"]);
    assert_eq!(out["status"], "undone", "{out}");
    assert_eq!(fs::read(&path).unwrap(), before_forget);
}

#[test]
fn at_most_400_entries_per_run() {
    let sb = Sandbox::new();
    let root = sb.private_root();
    for i in 0..401 {
        write_doc(
            &root,
            &format!("project/n{i:03}.md"),
            &doc_text("N", "d", "project", &format!("obsolete note {i}")),
        );
    }
    let out = run_json(&sb, &["obsolete note", "--yes"]);
    assert_eq!(out["removedEntries"], 400);
    assert_eq!(out["overCap"], 1);
    let left = fs::read_dir(root.join("project")).unwrap().count();
    assert_eq!(left, 1);
}

fn model_env(server: &OpenAiServer) -> Vec<(String, String)> {
    vec![
        ("QWEN_MEMORY_MODEL_BASE_URL".into(), server.base_url()),
        ("QWEN_MEMORY_MODEL_NAME".into(), "test-model".into()),
    ]
}

fn run_model(sb: &Sandbox, server: &OpenAiServer, args: &[&str]) -> Value {
    let out = sb
        .std_cmd(&sb.repo)
        .arg("forget")
        .args(args)
        .arg("--json")
        .envs(model_env(server))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_success(&out, args);
    let mut v: Value = serde_json::from_slice(&out.stdout).unwrap();
    // The CLI gives the fallback reason as a note on stderr; keep it for the assertions.
    v["stderr"] = Value::String(String::from_utf8_lossy(&out.stderr).into_owned());
    v
}

#[test]
fn model_selection_is_validated_with_heuristic_fallback() {
    let sb = Sandbox::new();
    let root = seed(&sb);
    let server = OpenAiServer::start(vec![Reply::good_json(
        json!({"selectedCandidateIds": ["feedback/short.md"], "reasoning": "brevity"}),
    )]);
    let out = run_model(&sb, &server, &["the terse-answers preference", "--yes"]);
    assert_eq!(out["strategy"], "model");
    assert_eq!(out["removedEntries"], 1);
    assert!(!root.join("feedback/short.md").exists());
    let body = server.requests()[0].json();
    let prompt = body["messages"][1]["content"].as_str().unwrap();
    assert!(prompt.contains("<user-content>\nthe terse-answers preference\n</user-content>"));
    assert!(prompt.contains("id: project/deploys.md:1"));
    assert!(!prompt.contains("pinned/freeze.md"), "pinned never offered");

    // An unknown id rejects the answer: the heuristic decides.
    let sb = Sandbox::new();
    let root = seed(&sb);
    let server = OpenAiServer::start(vec![Reply::good_json(
        json!({"selectedCandidateIds": ["../etc/passwd.md"]}),
    )]);
    let out = run_model(&sb, &server, &["keep answers", "--yes"]);
    assert_eq!(out["strategy"], "heuristic");
    assert_eq!(server.requests().len(), 1, "the model was asked: {out}");
    let note = out["stderr"].as_str().unwrap_or_default();
    assert!(
        note.contains("model selection not used ("),
        "stderr {note:?}"
    );
    assert!(note.contains("unknown id"), "stderr {note:?}");
    assert_eq!(out["removedEntries"], 1);
    assert!(!root.join("feedback/short.md").exists());
    assert!(root.join("project/deploys.md").exists());

    // A failing model: heuristic too; --strategy heuristic never asks.
    let sb = Sandbox::new();
    seed(&sb);
    let server = OpenAiServer::start(vec![Reply::Status(500), Reply::Status(500)]);
    let out = run_model(&sb, &server, &["keep answers", "--dry-run"]);
    assert_eq!(out["strategy"], "heuristic");
    assert_eq!(server.requests().len(), 2, "asked, and retried once: {out}");
    let note = out["stderr"].as_str().unwrap_or_default();
    assert!(
        note.contains("model selection not used ("),
        "stderr {note:?}"
    );
    assert!(note.contains("HTTP 500"), "stderr {note:?}");
    let quiet = OpenAiServer::start(vec![]);
    let out = run_model(
        &sb,
        &quiet,
        &["keep answers", "--dry-run", "--strategy", "heuristic"],
    );
    assert_eq!(out["strategy"], "heuristic");
    assert!(quiet.requests().is_empty());
}

#[test]
fn model_prompt_is_capped_at_400_candidates_literal_matches_first() {
    let sb = Sandbox::new();
    let root = sb.private_root();
    for i in 0..450 {
        let p = write_doc(
            &root,
            &format!("project/n{i:03}.md"),
            &doc_text("N", "d", "project", &format!("filler note {i}")),
        );
        set_mtime(&p, 1_700_000_000 + i);
    }
    // The oldest document is the only literal match.
    let p = write_doc(
        &root,
        "project/target.md",
        &doc_text("T", "d", "project", "the unique target"),
    );
    set_mtime(&p, 1_600_000_000);
    let server = OpenAiServer::start(vec![Reply::good_json(json!({"selectedCandidateIds": []}))]);
    let out = run_model(&sb, &server, &["unique target", "--dry-run"]);
    assert_eq!(out["strategy"], "model");
    assert_eq!(out["removedEntries"], 0);
    let body = server.requests()[0].json();
    let prompt = body["messages"][1]["content"].as_str().unwrap().to_string();
    assert_eq!(prompt.matches("\nid: ").count(), 400);
    assert!(prompt.contains("id: project/target.md"));
    assert!(prompt.contains("id: project/n449.md"), "newest filler kept");
    assert!(
        !prompt.contains("id: project/n000.md"),
        "oldest filler dropped"
    );
}

#[test]
fn a_piped_answer_is_not_a_confirmation() {
    // stdin is a pipe here, so the confirmation path is not taken: --yes is what makes it go.
    let sb = Sandbox::new();
    let root = seed(&sb);
    let mut child = sb
        .std_cmd(&sb.repo)
        .args(["forget", "keep answers"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The command may refuse and exit before reading: a closed pipe here is that refusal, not
    // a test failure (the exit code below is what is checked).
    match child.stdin.take().unwrap().write_all(b"y\n") {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        Err(e) => panic!("writing the answer: {e}"),
    }
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(2),
        "a piped 'y' is not a confirmation"
    );
    assert!(root.join("feedback/short.md").exists());
}

#[test]
fn an_index_that_cannot_be_rebuilt_keeps_the_deletion() {
    let sb = Sandbox::new();
    let root = seed(&sb);
    fs::remove_file(root.join("MEMORY.md")).unwrap();
    fs::create_dir(root.join("MEMORY.md")).unwrap();
    let out = run_json(&sb, &["keep answers", "--yes"]);
    assert_eq!(out["removedEntries"], 1);
    assert!(out["indexError"].is_string(), "{out}");
    assert!(!root.join("feedback/short.md").exists());
    // Still undoable.
    sb.ok(&["forget", "--undo"]);
    assert!(root.join("feedback/short.md").exists());
}

/// A runbook a person wrote: a heading, a code block holding a line that reads like an entry,
/// a second section, a table.
const RUNBOOK: &str = "---\nname: Release runbook\ndescription: How we release\ntype: project\n---\n\n# Release runbook\n\n- Push the tags last.\n\n```sh\nPush the tags last.\ngit push --tags\n```\n\n## Notes\n\n- Tag from main.\n  Why: CI builds from main.\n- Announce it.\n\n| step | who |\n|---|---|\n| tag | lead |\n";

#[test]
fn in_a_structured_document_forget_removes_exactly_the_entry_line() {
    let sb = Sandbox::new();
    let root = sb.private_root();
    write_doc(&root, "project/release-runbook.md", RUNBOOK);
    sb.ok(&["index"]);
    let out = run_json(&sb, &["Push the tags last", "--yes"]);
    assert_eq!(out["removedEntries"], 1, "{out}");
    let text = fs::read_to_string(root.join("project/release-runbook.md")).unwrap();
    // The bullet went with its blank line; the same words inside the code block stayed, and
    // every other byte too.
    assert_eq!(text, RUNBOOK.replace("- Push the tags last.\n\n", ""));
}

#[test]
fn in_a_structured_document_remember_adds_the_new_reason_in_place() {
    let sb = Sandbox::new();
    let root = sb.private_root();
    write_doc(&root, "project/release-runbook.md", RUNBOOK);
    sb.ok(&["index"]);
    // A different reason for a fact with one: joined on its own `Why:` line.
    let out = sb.json(&[
        "remember",
        "--type",
        "project",
        "tag from main",
        "--why",
        "Releases are signed there",
    ]);
    assert!(out.to_string().contains("release-runbook.md"), "{out}");
    // A reason for a fact without one: a `Why:` line under it, in the list's style.
    sb.ok(&[
        "remember",
        "--type",
        "project",
        "Announce it",
        "--why",
        "People watch the channel",
    ]);
    let text = fs::read_to_string(root.join("project/release-runbook.md")).unwrap();
    let expected = RUNBOOK
        .replace(
            "  Why: CI builds from main.\n",
            "  Why: CI builds from main. Releases are signed there\n",
        )
        .replace(
            "- Announce it.\n",
            "- Announce it.\n  Why: People watch the channel\n",
        );
    assert_eq!(text, expected);
    assert_eq!(
        fs::read_dir(root.join("project")).unwrap().count(),
        1,
        "no second document"
    );
}

/// `git-qwen-memory <args>` run under `strace` (`-y`: the paths behind descriptors), tracing
/// `calls`; the trace's lines, or `None` (printed) where `strace` is missing or cannot trace.
fn traced(sb: &Sandbox, test: &str, calls: &str, args: &[&str]) -> Option<Vec<String>> {
    if !require_program(test, "strace", "apt-get install strace") {
        return None;
    }
    let probe = std::process::Command::new("strace")
        .args(["-f", "-o", "/dev/null", "true"])
        .output()
        .unwrap();
    if !probe.status.success() {
        // A container without ptrace: the test cannot observe the calls here (not a missing tool).
        eprintln!(
            "SKIPPED {test}: strace cannot trace here ({})",
            String::from_utf8_lossy(&probe.stderr).trim()
        );
        return None;
    }
    let trace = sb.root().join(format!("trace-{}.txt", args[0]));
    let trace_arg = trace.to_string_lossy().into_owned();
    let out = under_strace(sb, &["-y", "-e", calls, "-o", &trace_arg], args);
    assert_success(&out, args);
    Some(
        fs::read_to_string(&trace)
            .unwrap()
            .lines()
            .map(str::to_owned)
            .collect(),
    )
}

/// How `strace -y` shows `path` inside `<…>`: bytes outside printable ASCII as octal escapes.
fn shown(path: &std::path::Path) -> String {
    use std::os::unix::ffi::OsStrExt;
    let path = fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    path.as_os_str()
        .as_bytes()
        .iter()
        .map(|&b| match b {
            b' '..=b'~' if b != b'\\' => (b as char).to_string(),
            _ => format!("\\{b:03o}"),
        })
        .collect()
}

/// The binary run with `args` in the sandbox's repository under `strace -f -qq` and its
/// `options`.
fn under_strace(sb: &Sandbox, options: &[&str], args: &[&str]) -> std::process::Output {
    let mut c = std::process::Command::new("strace");
    c.args(["-f", "-qq"])
        .args(options)
        .arg(assert_cmd::cargo::cargo_bin("git-qwen-memory"))
        .args(args)
        .current_dir(&sb.repo)
        .stdin(Stdio::null());
    clear_tool_env(&mut c);
    c.envs(sb.env());
    c.output().unwrap()
}

/// The line of the trace that creates the directory `name`.
fn mkdir_of(lines: &[String], name: &str) -> usize {
    let quoted = format!("\"{name}\"");
    lines
        .iter()
        .position(|l| l.contains("mkdir") && l.contains(&quoted))
        .unwrap_or_else(|| panic!("no mkdir of {name}/ in the trace:\n{}", lines.join("\n")))
}

/// The first line at or after `from` that fsyncs the directory `dir` itself.
fn fsync_of(lines: &[String], dir: &std::path::Path, from: usize) -> Option<usize> {
    let needle = format!("<{}>)", shown(dir));
    lines
        .iter()
        .enumerate()
        .skip(from)
        .find(|(_, l)| l.starts_with_pid_call("fsync(") && l.contains(&needle))
        .map(|(i, _)| i)
}

trait TraceLine {
    fn starts_with_pid_call(&self, call: &str) -> bool;
}

impl TraceLine for String {
    /// `strace -f` lines start with the PID: "1234  fsync(3</path>) = 0".
    fn starts_with_pid_call(&self, call: &str) -> bool {
        self.split_once(char::is_whitespace)
            .is_some_and(|(_, rest)| rest.trim_start().starts_with(call))
    }
}

const SYNC_CALLS: &str =
    "trace=fsync,?fdatasync,?rename,?renameat,?renameat2,?unlink,?unlinkat,?mkdir,?mkdirat";

/// A document written or deleted survives a crash once the call returns: after the rename
/// (or unlink) the document's directory is fsynced, and a directory the write created has its
/// parent fsynced (docs/DESIGN.md, "Writes").
#[test]
fn a_document_written_or_deleted_has_its_directory_synced() {
    let test = "a_document_written_or_deleted_has_its_directory_synced";
    let sb = Sandbox::new();
    let root = seed(&sb);
    assert!(!root.join("reference").exists());
    let Some(lines) = traced(
        &sb,
        test,
        SYNC_CALLS,
        &[
            "remember",
            "--type",
            "reference",
            "The ops dashboards live at grafana.example.com/d/ops",
        ],
    ) else {
        return;
    };
    let reference = root.join("reference");
    let written: Vec<_> = fs::read_dir(&reference)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md"))
        .collect();
    assert_eq!(written.len(), 1, "{written:?}");
    let mkdir = mkdir_of(&lines, "reference");
    let parent_synced = fsync_of(&lines, &root, mkdir);
    let rename = lines
        .iter()
        .position(|l| l.contains("rename") && l.contains(&written[0]))
        .unwrap_or_else(|| panic!("no rename of the document:\n{}", lines.join("\n")));
    assert!(
        parent_synced.is_some_and(|at| at < rename),
        "the memory directory was not synced after reference/ was created:\n{}",
        lines.join("\n")
    );
    assert!(
        fsync_of(&lines, &reference, rename + 1).is_some(),
        "reference/ was not synced after the document was renamed into it:\n{}",
        lines.join("\n")
    );

    // A forget that empties a document deletes it, and syncs the directory it was in.
    let Some(lines) = traced(
        &sb,
        test,
        SYNC_CALLS,
        &["forget", "Keep answers short", "--yes", "--json"],
    ) else {
        return;
    };
    assert!(!root.join("feedback/short.md").exists());
    let unlink = lines
        .iter()
        .position(|l| l.contains("unlink") && l.contains("short.md"))
        .unwrap_or_else(|| panic!("no unlink of short.md:\n{}", lines.join("\n")));
    assert!(
        fsync_of(&lines, &root.join("feedback"), unlink + 1).is_some(),
        "feedback/ was not synced after short.md was deleted:\n{}",
        lines.join("\n")
    );
}

/// A forget run's backup is on disk before the first document changes: its file is synced by
/// the atomic write, and so are the run directory and `backups/` (a new entry in each), or a
/// crash after the rewrite could leave a changed document and no undo record. Traced with
/// `strace`, which sees the `fsync` calls and the paths behind their descriptors.
#[test]
fn a_forget_backup_run_and_its_directories_are_synced_before_documents_change() {
    let test = "a_forget_backup_run_and_its_directories_are_synced_before_documents_change";
    let sb = Sandbox::new();
    let root = seed(&sb);
    let doc = root.join("project/deploys.md");
    let Some(lines) = traced(
        &sb,
        test,
        "trace=fsync,?fdatasync,?rename,?renameat,?renameat2",
        &["forget", "Tag every release", "--yes", "--json"],
    ) else {
        return;
    };
    assert!(
        !fs::read_to_string(&doc)
            .unwrap()
            .contains("Tag every release"),
        "the entry was not forgotten"
    );
    let backups = sb.private_state().join("backups");
    let backups = fs::canonicalize(&backups).unwrap_or(backups);
    let run_dir = fs::read_dir(&backups)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| p.is_dir())
        .expect("a backup run directory");
    let doc_rename = lines
        .iter()
        .position(|l| l.contains("rename") && l.contains("deploys.md"))
        .unwrap_or_else(|| {
            panic!(
                "no rename of the document in the trace:\n{}",
                lines.join("\n")
            )
        });
    let state = backups.parent().expect("the state directory").to_path_buf();
    for dir in [&run_dir, &backups, &state] {
        let at = fsync_of(&lines, dir, 0)
            .unwrap_or_else(|| panic!("{} was never synced:\n{}", dir.display(), lines.join("\n")));
        assert!(
            at < doc_rename,
            "{} synced only after the document changed:\n{}",
            dir.display(),
            lines.join("\n")
        );
    }
}

/// A directory whose creation could not be made durable (the fsync of its parent failed) is
/// not left behind: the write fails, the new directory is gone, and the next write creates it
/// again and syncs its parent then (docs/DESIGN.md, "Writes"). Kept, no later write would sync
/// the parent, and a crash could lose the directory with every document renamed into it.
#[test]
fn a_new_directory_whose_parent_cannot_be_synced_is_taken_back() {
    let test = "a_new_directory_whose_parent_cannot_be_synced_is_taken_back";
    let args = [
        "remember",
        "--type",
        "reference",
        "The ops dashboards live at grafana.example.com/d/ops",
    ];
    // Which fsync is the parent's after the mkdir, from a run on the same state elsewhere.
    let dry = Sandbox::new();
    let dry_root = seed(&dry);
    let Some(lines) = traced(&dry, test, SYNC_CALLS, &args) else {
        return;
    };
    let mkdir = mkdir_of(&lines, "reference");
    let at = fsync_of(&lines, &dry_root, mkdir)
        .unwrap_or_else(|| panic!("no fsync of the parent:\n{}", lines.join("\n")));
    let nth = lines[..=at]
        .iter()
        .filter(|l| l.starts_with_pid_call("fsync("))
        .count();

    let sb = Sandbox::new();
    let root = seed(&sb);
    let inject = format!("inject=fsync:error=EIO:when={nth}");
    let out = under_strace(
        &sb,
        &["-o", "/dev/null", "-e", "trace=fsync", "-e", &inject],
        &args,
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "the failed sync was not reported");
    assert!(
        stderr.contains("Input/output error") || stderr.contains("os error 5"),
        "{stderr}"
    );
    assert!(
        !root.join("reference").exists(),
        "the directory whose creation was not synced was left behind"
    );

    // The next write creates it again, and this time its parent is synced.
    let Some(lines) = traced(&sb, test, SYNC_CALLS, &args) else {
        return;
    };
    let mkdir = mkdir_of(&lines, "reference");
    assert!(
        fsync_of(&lines, &root, mkdir).is_some(),
        "the parent was not synced after reference/ was created again:\n{}",
        lines.join("\n")
    );
    assert_eq!(
        fs::read_dir(root.join("reference")).unwrap().count(),
        1,
        "one document in the new directory"
    );
}
