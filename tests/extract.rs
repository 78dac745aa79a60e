//! `extract` end to end: the real binary on fixtures of all three transcript formats in a
//! sandbox (temp HOME and base dir, real git repository).

use crate::common;
use crate::common::openai_server;

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::*;
use openai_server::{OpenAiServer, Reply};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

const QWEN_SESSION: &str = "5b0c6d1e-2f3a-4b5c-8d7e-9f0a1b2c3d4e";
const CLAUDE_SESSION: &str = "3f9a1c52-8d4e-4b61-a0f3-6c2b9e7d1a44";
const GITHUB_TOKEN: &str = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/extract")
        .join(name)
}

fn fixture_bytes(name: &str) -> Vec<u8> {
    fs::read(fixture(name)).unwrap()
}

/// Copies a fixture into the sandbox (outside the repository) and returns its path.
fn place(sb: &Sandbox, fixture_name: &str, as_name: &str) -> PathBuf {
    let dir = sb.root().join("transcripts");
    fs::create_dir_all(&dir).unwrap();
    let p = dir.join(as_name);
    fs::write(&p, fixture_bytes(fixture_name)).unwrap();
    p
}

fn append(path: &Path, bytes: &[u8]) {
    use std::io::Write;
    let mut f = fs::OpenOptions::new().append(true).open(path).unwrap();
    f.write_all(bytes).unwrap();
}

fn extract(sb: &Sandbox, transcript: &Path, extra: &[&str]) -> Value {
    let mut args = vec!["extract", "--transcript", transcript.to_str().unwrap()];
    args.extend_from_slice(extra);
    sb.json(&args)
}

/// Every file under `root`, relative path → content.
fn files(root: &Path) -> BTreeMap<String, String> {
    fn walk(dir: &Path, root: &Path, out: &mut BTreeMap<String, String>) {
        let Ok(entries) = fs::read_dir(dir) else {
            return;
        };
        for e in entries {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, root, out);
            } else {
                let rel = p.strip_prefix(root).unwrap().to_string_lossy().into_owned();
                out.insert(
                    rel,
                    String::from_utf8_lossy(&fs::read(&p).unwrap()).into_owned(),
                );
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(root, root, &mut out);
    out
}

fn topic_files(root: &Path) -> Vec<String> {
    files(root)
        .into_keys()
        // The generated index and the shared root's ignore file that keeps it out of Git.
        .filter(|k| k != "MEMORY.md" && k != ".gitignore")
        .collect()
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap()
}

/// This tool's own cursor file (Qwen Code's `extract-cursor.json` is never written).
const CURSORS: &str = "transcript-cursors.json";

/// The cursor of the transcript updated last, with its path as `transcriptPath`.
fn cursor(sb: &Sandbox) -> Value {
    let file = read_json(&sb.private_state().join(CURSORS));
    let (path, c) = file["transcripts"]
        .as_object()
        .unwrap()
        .iter()
        .max_by_key(|(_, c)| c["updatedAt"].as_str().unwrap().to_string())
        .unwrap();
    let mut c = c.clone();
    c["transcriptPath"] = path.clone().into();
    c
}

/// The cursor of one transcript.
fn cursor_of(sb: &Sandbox, t: &Path) -> Value {
    read_json(&sb.private_state().join(CURSORS))["transcripts"][t.display().to_string()].clone()
}

fn telemetry(sb: &Sandbox) -> Vec<Value> {
    let p = sb.private_state().join("telemetry.jsonl");
    fs::read_to_string(p)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn head(sb: &Sandbox) -> String {
    sb.git(&sb.repo, &["rev-parse", "HEAD"]).trim().to_string()
}

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Replaces the `created:` value so documents compare exactly, and unquotes `commit:` (a hash
/// that happens to look like a number gets quoted in YAML, others do not).
fn mask_created(doc: &str) -> String {
    doc.lines()
        .map(|l| {
            if l.starts_with("created: ") {
                "created: <ts>".to_string()
            } else if let Some(v) = l.strip_prefix("commit: ") {
                format!("commit: {}", v.trim_matches('"'))
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

fn kinds(report: &Value) -> Vec<(String, String)> {
    report["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["kind"].as_str().unwrap().to_string(),
                c["relativePath"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// The three formats: exact files, idempotent re-run, appended turns only

#[test]
fn qwen_transcript_writes_exact_files_then_nothing_then_only_the_appended_turn() {
    let sb = Sandbox::new();
    let t = place(&sb, "qwen.jsonl", "qwen.jsonl");
    let len = fs::metadata(&t).unwrap().len();
    let r = extract(&sb, &t, &[]);
    assert_eq!(r["status"], "updated");
    assert_eq!(r["format"], "qwen");
    assert_eq!(r["sessionId"], QWEN_SESSION);
    assert_eq!(r["startReason"], "fresh");
    assert_eq!(r["startOffset"], 0);
    assert_eq!(r["endOffset"], len);
    assert_eq!(r["bytesRead"], len);
    assert_eq!(r["malformedLines"], 1);
    assert_eq!(r["userMessages"], 4);
    assert_eq!(r["planner"], "heuristic");
    assert_eq!(r["touchedTopics"], json!(["project", "user", "reference"]));

    let root = sb.private_root();
    assert_eq!(
        topic_files(&root),
        vec![
            "project/we-deploy-only-from-release-branches.md",
            "reference/the-on-call-runbook-is-at-https-wiki-example-com-runbooks-checkout.md",
        ]
    );
    // The fact about the person went to the user root, never into a project root.
    assert_eq!(
        topic_files(&sb.base.join("memories")),
        vec!["user/i-prefer-terse-answers-without-a-closing-summary.md"]
    );
    let commit = head(&sb);
    let doc =
        fs::read_to_string(root.join("project/we-deploy-only-from-release-branches.md")).unwrap();
    assert_eq!(
        mask_created(&doc),
        format!(
            "---\nname: We deploy only from release branches\ndescription: We deploy only from release branches.\ntype: project\ncreated: <ts>\nsession: \"{QWEN_SESSION}\"\ncommit: {commit}\n---\n\nWe deploy only from release branches.\n\nWhy: hotfixes are cherry-picked onto them.\n"
        )
    );
    let index = fs::read_to_string(root.join("MEMORY.md")).unwrap();
    assert_eq!(index.lines().count(), 2, "{index}");
    let user_index = fs::read_to_string(sb.base.join("memories/MEMORY.md")).unwrap();
    assert!(user_index.contains("(user/i-prefer-terse-answers-without-a-closing-summary.md)"));
    // Injected context, assistant text, code blocks and sidechains were not learned.
    let all: String = files(&root).into_values().collect();
    for never in ["pnpm", "Fridays", "French", "fix the failing"] {
        assert!(!all.contains(never), "{never} leaked into memory");
    }

    // Meta, cursor, telemetry.
    let meta = read_json(&sb.private_state().join("meta.json"));
    assert_eq!(meta["lastExtractionSessionId"], QWEN_SESSION);
    assert_eq!(meta["lastExtractionStatus"], "updated");
    assert_eq!(
        meta["lastExtractionTouchedTopics"],
        json!(["project", "user", "reference"])
    );
    assert_eq!(meta["recentSessionIdsSinceDream"], json!([QWEN_SESSION]));
    assert!(meta["lastExtractionAt"].is_string());
    let c = cursor(&sb);
    assert_eq!(c["sessionId"], QWEN_SESSION);
    assert_eq!(c["transcriptPath"], t.display().to_string());
    assert_eq!(c["byteOffset"], len);
    let bytes = fs::read(&t).unwrap();
    assert_eq!(
        c["headHash"],
        sha256_hex(&bytes[..bytes.len().min(4096)]),
        "head hash covers the first 4 KiB"
    );
    assert_eq!(c["messagesRead"], 9);
    assert!(
        !sb.private_state().join("extract-cursor.json").exists(),
        "Qwen Code's cursor file is never created"
    );
    let events = telemetry(&sb);
    assert_eq!(events.len(), 1);
    let e = &events[0];
    assert_eq!(e["event"], "qwen-code.memory.extract");
    assert_eq!(e["trigger"], "manual");
    assert_eq!(e["status"], "completed");
    assert_eq!(e["patches_count"], 3);
    assert_eq!(e["touched_topics"], "project,user,reference");
    assert!(e["duration_ms"].is_u64());

    // Re-running on the same transcript reads nothing and writes nothing.
    let before = files(&root);
    let r2 = extract(&sb, &t, &[]);
    assert_eq!(r2["status"], "noop");
    assert_eq!(r2["startReason"], "resume");
    assert_eq!(r2["bytesRead"], 0);
    assert_eq!(r2["changes"], json!([]));
    assert_eq!(files(&root), before);

    // Appending a turn processes only it.
    let extra = fixture_bytes("qwen-append.jsonl");
    append(&t, &extra);
    let r3 = extract(&sb, &t, &[]);
    assert_eq!(r3["startReason"], "resume");
    assert_eq!(r3["startOffset"], len);
    assert_eq!(r3["bytesRead"], extra.len() as u64);
    assert_eq!(r3["messagesRead"], 2);
    assert_eq!(r3["patches"][0]["sourceOffset"], len);
    assert_eq!(
        kinds(&r3),
        vec![(
            "created".to_string(),
            "feedback/never-push-directly-to-main.md".to_string()
        )]
    );
    let after = files(&root);
    for (k, v) in &before {
        if k != "MEMORY.md" {
            assert_eq!(after.get(k), Some(v), "{k} untouched");
        }
    }
    assert_eq!(cursor(&sb)["byteOffset"], len + extra.len() as u64);
    assert_eq!(cursor(&sb)["messagesRead"], 11);
}

#[test]
fn claude_transcript_drops_the_secret_and_learns_only_user_facts() {
    let sb = Sandbox::new();
    let t = place(&sb, "claude.jsonl", "claude.jsonl");
    let r = extract(&sb, &t, &[]);
    assert_eq!(r["format"], "claude");
    assert_eq!(r["sessionId"], CLAUDE_SESSION);
    assert_eq!(r["malformedLines"], 1);
    assert_eq!(r["droppedSecrets"], 1);
    assert_eq!(r["droppedSecretRules"], json!(["github-pat"]));
    let root = sb.private_root();
    assert_eq!(
        topic_files(&root),
        vec![
            "feedback/always-use-pnpm-instead-of-npm-in-this-repository.md",
            "project/our-staging-environment-is-reset-every-sunday-night.md",
        ]
    );
    let all: String = files(&root).into_values().collect();
    assert!(!all.contains(GITHUB_TOKEN));
    assert!(!all.contains("competitors"), "sidechain text is ignored");
    assert!(!all.contains("Fridays"), "thinking is ignored");
    // The secret value is nowhere in the state dir either.
    let state: String = files(&sb.private_state()).into_values().collect();
    assert!(!state.contains(GITHUB_TOKEN));

    let len = fs::metadata(&t).unwrap().len();
    let extra = fixture_bytes("claude-append.jsonl");
    append(&t, &extra);
    let r2 = extract(&sb, &t, &[]);
    assert_eq!(r2["startOffset"], len);
    assert_eq!(r2["bytesRead"], extra.len() as u64);
    assert_eq!(
        kinds(&r2),
        vec![(
            "created".to_string(),
            "project/commits-must-follow-conventional-commits.md".to_string()
        )]
    );
}

#[test]
fn generic_jsonl_extracts_and_resumes() {
    let sb = Sandbox::new();
    let t = place(&sb, "generic.jsonl", "chat.jsonl");
    let r = extract(&sb, &t, &[]);
    assert_eq!(r["format"], "jsonl");
    assert_eq!(r["sessionId"], "gen-1");
    assert_eq!(
        topic_files(&sb.private_root()),
        vec!["project/the-payments-service-owns-the-orders-table.md"]
    );
    let again = extract(&sb, &t, &[]);
    assert_eq!(again["bytesRead"], 0);
    let extra = fixture_bytes("generic-append.jsonl");
    append(&t, &extra);
    let r2 = extract(&sb, &t, &[]);
    assert_eq!(r2["bytesRead"], extra.len() as u64);
    assert_eq!(r2["format"], "jsonl");
    assert_eq!(
        kinds(&r2),
        vec![(
            "created".to_string(),
            "reference/the-latency-dashboard-is-https-grafana-example-com-d-api-latency.md"
                .to_string()
        )]
    );
}

#[test]
fn format_flag_overrides_detection() {
    let sb = Sandbox::new();
    let t = place(&sb, "qwen.jsonl", "qwen.jsonl");
    // Read as generic JSONL, a Qwen transcript has no role/content lines: nothing is learned.
    let r = extract(&sb, &t, &["--format", "jsonl", "--dry-run"]);
    assert_eq!(r["format"], "jsonl");
    assert_eq!(r["patches"], json!([]));
    let r = extract(&sb, &t, &["--format", "qwen", "--dry-run"]);
    assert_eq!(r["patches"].as_array().unwrap().len(), 3);
}

#[test]
fn merging_into_an_existing_document_of_the_same_summary() {
    let sb = Sandbox::new();
    let root = sb.private_root();
    write_doc(
        &root,
        "project/deploys.md",
        &doc_text(
            "Deploys",
            "Release branches",
            "project",
            "We deploy only from release branches.",
        ),
    );
    let t = place(&sb, "qwen.jsonl", "qwen.jsonl");
    let r = extract(&sb, &t, &[]);
    let k = kinds(&r);
    assert!(k.contains(&("merged".to_string(), "project/deploys.md".to_string())));
    let doc = fs::read_to_string(root.join("project/deploys.md")).unwrap();
    assert!(doc.starts_with("---\nname: Deploys\n"), "{doc}");
    assert!(doc.contains("Why: hotfixes are cherry-picked onto them."));
    assert!(!root
        .join("project/we-deploy-only-from-release-branches.md")
        .exists());
}

// ---------------------------------------------------------------------------------------------
// Cursor edge cases

#[test]
fn a_line_cut_mid_write_is_not_consumed_until_complete() {
    let sb = Sandbox::new();
    let t = place(&sb, "generic.jsonl", "chat.jsonl");
    let len = fs::metadata(&t).unwrap().len();
    let extra = fixture_bytes("generic-append.jsonl");
    let first_line_end = extra.iter().position(|b| *b == b'\n').unwrap();
    let cut = first_line_end / 2;
    append(&t, &extra[..cut]);
    let r = extract(&sb, &t, &[]);
    assert_eq!(r["endOffset"], len, "the partial line is left for later");
    assert_eq!(cursor(&sb)["byteOffset"], len);
    append(&t, &extra[cut..]);
    let r2 = extract(&sb, &t, &[]);
    assert_eq!(r2["startOffset"], len);
    assert_eq!(r2["userMessages"], 1);
    assert_eq!(r2["touchedTopics"], json!(["reference"]));
}

#[test]
fn truncated_or_replaced_transcript_restarts_from_zero() {
    let sb = Sandbox::new();
    let t = place(&sb, "qwen.jsonl", "t.jsonl");
    extract(&sb, &t, &[]);
    // Shrinks: the file now holds only the generic chat.
    fs::write(&t, fixture_bytes("generic.jsonl")).unwrap();
    let r = extract(&sb, &t, &[]);
    assert_eq!(r["startReason"], "truncated");
    assert_eq!(r["startOffset"], 0);
    assert_eq!(r["format"], "jsonl");
    assert_eq!(r["touchedTopics"], json!(["project"]));

    // Replaced by a longer file with a different head.
    let mut replaced = fixture_bytes("claude.jsonl");
    replaced.extend(fixture_bytes("claude-append.jsonl"));
    fs::write(&t, &replaced).unwrap();
    let r = extract(&sb, &t, &[]);
    assert_eq!(r["startReason"], "replaced");
    assert_eq!(r["startOffset"], 0);
    assert_eq!(r["format"], "claude");
    assert_eq!(r["bytesRead"], replaced.len() as u64);
}

#[test]
fn a_session_change_restarts_from_the_start() {
    let sb = Sandbox::new();
    let t = place(&sb, "generic.jsonl", "chat.jsonl");
    let r = extract(&sb, &t, &["--session", "first"]);
    assert_eq!(r["sessionId"], "first");
    let r = extract(&sb, &t, &["--session", "first"]);
    assert_eq!(r["startReason"], "resume");
    let r = extract(&sb, &t, &["--session", "second"]);
    assert_eq!(r["startReason"], "other_session");
    assert_eq!(r["startOffset"], 0);
    assert_eq!(
        r["changes"][0]["kind"], "unchanged",
        "re-reading is harmless"
    );
    let meta = read_json(&sb.private_state().join("meta.json"));
    assert_eq!(
        meta["recentSessionIdsSinceDream"],
        json!(["first", "second"])
    );
    // Another transcript also restarts.
    let other = place(&sb, "generic.jsonl", "other.jsonl");
    let r = extract(&sb, &other, &["--session", "second"]);
    assert_eq!(
        r["startReason"], "fresh",
        "each transcript has its own cursor"
    );
}

#[test]
fn a_failed_run_leaves_the_cursor_untouched() {
    let sb = Sandbox::new();
    let t = place(&sb, "generic.jsonl", "chat.jsonl");
    extract(&sb, &t, &[]);
    let cursor_before = cursor_of(&sb, &t);
    append(&t, &fixture_bytes("generic-append.jsonl"));
    // The memory root becomes a symlink: writes are refused.
    let root = sb.private_root();
    let moved = sb.root().join("moved-memory");
    fs::rename(&root, &moved).unwrap();
    std::os::unix::fs::symlink(&moved, &root).unwrap();
    let out = sb
        .cmd()
        .args(["extract", "--transcript", t.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(cursor_of(&sb, &t), cursor_before);
    assert_eq!(telemetry(&sb).last().unwrap()["status"], "failed");
    // Once the root is fixed, the appended turn is picked up.
    fs::remove_file(&root).unwrap();
    fs::rename(&moved, &root).unwrap();
    let r = extract(&sb, &t, &[]);
    assert_eq!(r["touchedTopics"], json!(["reference"]));
}

#[test]
fn a_corrupt_cursor_restarts_with_a_warning() {
    let sb = Sandbox::new();
    let t = place(&sb, "generic.jsonl", "chat.jsonl");
    extract(&sb, &t, &[]);
    fs::write(sb.private_state().join(CURSORS), "{broken").unwrap();
    let r = extract(&sb, &t, &[]);
    assert_eq!(r["startReason"], "fresh");
    assert_eq!(r["warnings"].as_array().unwrap().len(), 1);
    assert_eq!(cursor(&sb)["transcriptPath"], t.display().to_string());
}

// ---------------------------------------------------------------------------------------------
// Bad input

#[test]
fn missing_transcript_and_directory_fail_cleanly() {
    let sb = Sandbox::new();
    let out = sb
        .cmd()
        .args(["extract", "--transcript", "/nonexistent/x.jsonl"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("transcript not found"));
    let dir = sb.root().join("adir");
    fs::create_dir_all(&dir).unwrap();
    let out = sb
        .cmd()
        .args(["extract", "--transcript", dir.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a transcript file"));
    assert!(!sb.private_state().join("extract-cursor.json").exists());
    assert!(!sb.private_state().join(CURSORS).exists());
    let out = sb
        .cmd()
        .args(["extract", "--session", "../../etc/passwd"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("invalid session id"));
}

#[test]
fn empty_file_and_binary_junk_write_nothing() {
    let sb = Sandbox::new();
    let dir = sb.root().join("transcripts");
    fs::create_dir_all(&dir).unwrap();
    let empty = dir.join("empty.jsonl");
    fs::write(&empty, b"").unwrap();
    let r = extract(&sb, &empty, &[]);
    assert_eq!(r["status"], "noop");
    assert_eq!(r["bytesRead"], 0);
    assert_eq!(topic_files(&sb.private_root()), Vec::<String>::new());

    let junk = dir.join("junk.jsonl");
    let mut bytes: Vec<u8> = (0..20_000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    bytes.extend_from_slice(b"\n{\"role\":\"user\",\"content\":[1,2]}\nnot json\n");
    fs::write(&junk, &bytes).unwrap();
    let r = extract(&sb, &junk, &[]);
    assert_eq!(r["status"], "noop");
    assert!(r["malformedLines"].as_u64().unwrap() >= 2, "{r}");
    assert_eq!(r["endOffset"], bytes.len() as u64);
    assert_eq!(topic_files(&sb.private_root()), Vec::<String>::new());
}

#[test]
fn a_five_megabyte_message_is_handled() {
    let sb = Sandbox::new();
    let dir = sb.root().join("transcripts");
    fs::create_dir_all(&dir).unwrap();
    let t = dir.join("big.jsonl");
    let filler = "lorem ipsum dolor sit amet ".repeat(5 * 1024 * 1024 / 27);
    let text = format!("{filler}\n\nWe deploy only from release branches.");
    let line = json!({"role": "user", "content": text}).to_string() + "\n";
    assert!(line.len() > 5 * 1024 * 1024);
    fs::write(&t, &line).unwrap();
    let r = extract(&sb, &t, &[]);
    assert_eq!(r["userMessages"], 1);
    assert_eq!(r["endOffset"], line.len() as u64);
    assert_eq!(
        topic_files(&sb.private_root()),
        vec!["project/we-deploy-only-from-release-branches.md"]
    );
}

/// Runs the binary to completion and returns its output and peak resident set size in KiB
/// (`ru_maxrss` of the child from `wait4`: a resource bound, measured by the kernel). A child
/// still running after 120 s is killed and the test fails (a hang detector).
fn run_measuring_rss(sb: &Sandbox, args: &[&str]) -> (std::process::ExitStatus, Value, i64) {
    use std::os::unix::process::ExitStatusExt;
    let out_path = sb
        .root()
        .join(format!("rss-out-{}.json", std::process::id()));
    // Reaped by `wait4` below (which also reports its resource usage), not by `Child::wait`.
    #[allow(clippy::zombie_processes)]
    let child = sb
        .std_cmd(&sb.repo)
        .args(args)
        .stdout(fs::File::create(&out_path).unwrap())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id() as libc::pid_t;
    let deadline = Instant::now() + HANG_AFTER;
    let mut status: libc::c_int = 0;
    // SAFETY: a zeroed rusage is a valid out-parameter for wait4.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: waits for our own child; both pointers are valid for the call.
        let r = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
        if r == pid {
            break;
        }
        assert_eq!(r, 0, "wait4 failed");
        if Instant::now() > deadline {
            // SAFETY: signals our own child.
            unsafe { libc::kill(pid, libc::SIGKILL) };
            panic!("extract hung on the huge transcript");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let text = fs::read_to_string(&out_path).unwrap();
    let report = serde_json::from_str(&text).unwrap_or(Value::Null);
    (
        std::process::ExitStatus::from_raw(status),
        report,
        usage.ru_maxrss,
    )
}

#[test]
fn a_100_mb_line_is_skipped_and_counted_in_bounded_memory() {
    use std::io::Write;
    let sb = Sandbox::new();
    let dir = sb.root().join("transcripts");
    fs::create_dir_all(&dir).unwrap();
    let t = dir.join("huge.jsonl");
    let before = json!({"role": "user", "content": "We deploy only from release branches."});
    let after = json!({"role": "user", "content": "The on-call runbook is at https://wiki.example.com/oncall."});
    {
        let mut f = std::io::BufWriter::new(fs::File::create(&t).unwrap());
        writeln!(f, "{before}").unwrap();
        // One 100 MB line: an answer carrying a huge tool output (one base64-like blob).
        f.write_all(br#"{"role":"assistant","content":""#).unwrap();
        let chunk = "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo0123456789+/".repeat(20_000);
        let mut written = 0;
        while written < 100 * 1024 * 1024 {
            f.write_all(chunk.as_bytes()).unwrap();
            written += chunk.len();
        }
        f.write_all(b"\"}\n").unwrap();
        writeln!(f, "{after}").unwrap();
    }
    let len = fs::metadata(&t).unwrap().len();
    assert!(len > 100 * 1024 * 1024);
    let (status, r, max_rss_kib) = run_measuring_rss(
        &sb,
        &["extract", "--json", "--transcript", t.to_str().unwrap()],
    );
    assert!(status.success(), "{status:?} {r}");
    eprintln!("peak RSS on a 100 MB line: {} KiB", max_rss_kib);
    assert!(
        max_rss_kib <= 64 * 1024,
        "peak RSS {} MiB on a 100 MB line",
        max_rss_kib / 1024
    );
    assert_eq!(r["oversizedLines"], 1, "{r}");
    assert_eq!(r["malformedLines"], 0);
    assert_eq!(r["userMessages"], 2);
    assert_eq!(
        r["endOffset"], len,
        "the huge line is consumed, not re-read forever"
    );
    assert_eq!(
        topic_files(&sb.private_root()),
        vec![
            "project/we-deploy-only-from-release-branches.md",
            "reference/the-on-call-runbook-is-at-https-wiki-example-com-oncall.md",
        ]
    );
}

// ---------------------------------------------------------------------------------------------
// memory_tool

fn memory_tool_transcript(sb: &Sandbox, fixture_name: &str) -> PathBuf {
    let text = String::from_utf8(fixture_bytes(fixture_name)).unwrap();
    let text = text.replace("@MEMORY_ROOT@", &sb.private_root().display().to_string());
    let dir = sb.root().join("transcripts");
    fs::create_dir_all(&dir).unwrap();
    let p = dir.join(fixture_name);
    fs::write(&p, text).unwrap();
    p
}

#[test]
fn a_turn_that_wrote_memory_itself_is_skipped_and_the_cursor_untouched() {
    let sb = Sandbox::new();
    let t = memory_tool_transcript(&sb, "memory-tool.jsonl");
    let r = extract(&sb, &t, &[]);
    assert_eq!(r["status"], "skipped");
    assert_eq!(r["skippedReason"], "memory_tool");
    assert!(!sb.private_state().join(CURSORS).exists());
    assert_eq!(topic_files(&sb.private_root()), Vec::<String>::new());
    let e = telemetry(&sb);
    assert_eq!(e.last().unwrap()["status"], "skipped");
    assert_eq!(e.last().unwrap()["skipped_reason"], "memory_tool");
    // Human output names the reason.
    let out = sb.ok(&["extract", "--transcript", t.to_str().unwrap()]);
    assert!(out.contains("memory_tool"), "{out}");
}

#[test]
fn a_rejected_memory_write_does_not_skip() {
    let sb = Sandbox::new();
    let t = memory_tool_transcript(&sb, "memory-tool-rejected.jsonl");
    let r = extract(&sb, &t, &[]);
    assert_eq!(r["skippedReason"], Value::Null);
    assert_eq!(r["status"], "updated");
    assert_eq!(
        topic_files(&sb.private_root()),
        vec!["project/we-use-trunk-based-development.md"]
    );
}

// ---------------------------------------------------------------------------------------------
// Dry run, trigger, transcript discovery, local mode

#[test]
fn dry_run_prints_patches_and_writes_nothing() {
    let sb = Sandbox::new();
    let t = place(&sb, "qwen.jsonl", "qwen.jsonl");
    let out = sb.ok(&["extract", "--transcript", t.to_str().unwrap(), "--dry-run"]);
    assert!(
        out.contains("We deploy only from release branches."),
        "{out}"
    );
    assert!(
        out.contains("Why: hotfixes are cherry-picked onto them."),
        "{out}"
    );
    assert!(out.contains("nothing written"), "{out}");
    let r = extract(&sb, &t, &["--dry-run"]);
    assert_eq!(r["status"], "dry_run");
    assert_eq!(r["patches"].as_array().unwrap().len(), 3);
    assert!(
        !sb.private_state().exists(),
        "no state, no memory, no telemetry"
    );
}

#[test]
fn hook_trigger_is_hidden_and_reported_in_telemetry() {
    let sb = Sandbox::new();
    let help = sb.ok(&["extract", "--help"]);
    assert!(!help.contains("--trigger"));
    assert!(help.contains("--dry-run"));
    let t = place(&sb, "generic.jsonl", "chat.jsonl");
    let out = sb
        .std_cmd(&sb.repo)
        .args([
            "extract",
            "--transcript",
            t.to_str().unwrap(),
            "--session",
            "s-hook",
            "--trigger",
            "hook",
        ])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_success(&out, &["extract"]);
    let e = telemetry(&sb);
    assert_eq!(e.last().unwrap()["trigger"], "hook");
    // Telemetry never carries content or paths.
    let raw = fs::read_to_string(sb.private_state().join("telemetry.jsonl")).unwrap();
    assert!(!raw.contains("payments"));
    assert!(!raw.contains('/'));
}

#[test]
fn without_transcript_the_newest_qwen_chat_of_the_project_is_used() {
    let sb = Sandbox::new();
    let out = sb.cmd().args(["extract"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("pass --transcript"));

    let chats = sb
        .base
        .join("projects")
        .join(sanitize(&sb.repo.display().to_string()))
        .join("chats");
    fs::create_dir_all(&chats).unwrap();
    let old = chats.join("11111111-1111-4111-8111-111111111111.jsonl");
    let new = chats.join("22222222-2222-4222-8222-222222222222.jsonl");
    fs::write(&old, fixture_bytes("claude.jsonl")).unwrap();
    fs::write(&new, fixture_bytes("qwen.jsonl")).unwrap();
    fs::write(
        chats.join("22222222-2222-4222-8222-222222222222.runtime.json"),
        "{}",
    )
    .unwrap();
    set_mtime(&old, 1_700_000_000);
    set_mtime(&new, 1_700_000_100);
    let sub = sb.repo.join("src");
    fs::create_dir_all(&sub).unwrap();
    let out = sb
        .cmd_in(&sub)
        .args(["extract", "--dry-run", "--json"])
        .output()
        .unwrap();
    assert_success(&out, &["extract"]);
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["transcript"], new.display().to_string());
    let r = sb.json(&[
        "extract",
        "--session",
        "11111111-1111-4111-8111-111111111111",
        "--dry-run",
    ]);
    assert_eq!(r["transcript"], old.display().to_string());
    assert_eq!(r["format"], "claude");
    let out = sb
        .cmd()
        .args([
            "extract",
            "--session",
            "33333333-3333-4333-8333-333333333333",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn local_mode_writes_into_the_repository_and_keeps_state_in_the_git_dir() {
    let sb = Sandbox::new();
    let t = place(&sb, "generic.jsonl", "chat.jsonl");
    let out = sb
        .cmd()
        .env("QWEN_CODE_MEMORY_LOCAL", "1")
        .args(["extract", "--json", "--transcript", t.to_str().unwrap()])
        .output()
        .unwrap();
    assert_success(&out, &["extract"]);
    let root = sb.repo.join(".qwen/memory");
    assert_eq!(
        topic_files(&root),
        vec!["project/the-payments-service-owns-the-orders-table.md"]
    );
    let state = sb.repo.join(".git/qwen-memory");
    assert!(state.join(CURSORS).is_file());
    assert!(!state.join("extract-cursor.json").exists());
    assert!(state.join("meta.json").is_file());
    assert!(!root.join("extract-cursor.json").exists());
    assert!(!sb.private_state().exists());
}

/// When both tools extract (ours into the repository root in local mode, Qwen Code's own agent
/// into its private root), Qwen's agent also writes the `user` facts of its chats into the user
/// root both share; our extract of a Qwen chat leaves those to it and says so. With Qwen's
/// extraction switched off, or for another agent's transcript, we write them.
#[test]
fn both_extract_mode_leaves_the_user_facts_of_qwen_chats_to_qwen() {
    let sb = Sandbox::new();
    sb.git(&sb.repo, &["config", "qwen-memory.local", "true"]);
    let status = sb.json(&["status"]);
    assert_eq!(status["agents"]["qwen"]["extracts"], "both", "{status}");
    let user_root = sb.base.join("memories");
    let t = place(&sb, "qwen.jsonl", "qwen.jsonl");
    let r = extract(&sb, &t, &[]);
    assert_eq!(r["format"], "qwen");
    assert_eq!(r["userFactsLeftToQwen"], 1, "{r}");
    assert!(
        !r["patches"].to_string().contains("terse"),
        "{}",
        r["patches"]
    );
    assert_eq!(r["touchedTopics"], json!(["project", "reference"]));
    assert!(
        topic_files(&user_root).is_empty(),
        "{:?}",
        topic_files(&user_root)
    );
    assert_eq!(
        topic_files(&sb.repo.join(".qwen/memory")),
        vec![
            "project/we-deploy-only-from-release-branches.md",
            "reference/the-on-call-runbook-is-at-https-wiki-example-com-runbooks-checkout.md",
        ]
    );

    // Another agent's transcript: Qwen never sees it, so its user facts are ours to write.
    let other = sb.root().join("transcripts/other-agent.jsonl");
    fs::write(
        &other,
        json!({"role": "user", "content": "I prefer answers in British English."}).to_string()
            + "\n",
    )
    .unwrap();
    let r = extract(&sb, &other, &[]);
    assert_eq!(r["format"], "jsonl");
    assert_eq!(r["userFactsLeftToQwen"], 0, "{r}");
    let written = topic_files(&user_root);
    assert_eq!(written.len(), 1, "{written:?}");
    assert!(written[0].contains("british-english"), "{written:?}");
    fs::remove_file(user_root.join(&written[0])).unwrap();

    // Qwen's own extraction off: nobody else writes the user fact, so we do.
    let settings = sb.home.join(".qwen/settings.json");
    fs::create_dir_all(settings.parent().unwrap()).unwrap();
    fs::write(
        &settings,
        r#"{"memory": {"enableManagedAutoMemory": false}}"#,
    )
    .unwrap();
    let t2 = place(&sb, "qwen.jsonl", "qwen-again.jsonl");
    let r = extract(&sb, &t2, &[]);
    assert_eq!(r["userFactsLeftToQwen"], 0, "{r}");
    assert_eq!(
        topic_files(&user_root),
        vec!["user/i-prefer-terse-answers-without-a-closing-summary.md"]
    );
}

// ---------------------------------------------------------------------------------------------
// Model planner

/// The byte offsets of the lines of `path` holding a user message with `needle`.
fn offset_of(path: &Path, needle: &str) -> u64 {
    let bytes = fs::read(path).unwrap();
    let mut pos = 0u64;
    for line in bytes.split_inclusive(|b| *b == b'\n') {
        if String::from_utf8_lossy(line).contains(needle) {
            return pos;
        }
        pos += line.len() as u64;
    }
    panic!("{needle} not found");
}

fn model_cmd(sb: &Sandbox, server: &OpenAiServer, args: &[&str]) -> Value {
    let out = sb
        .cmd()
        .env("QWEN_MEMORY_MODEL_BASE_URL", server.base_url())
        .env("QWEN_MEMORY_MODEL_NAME", "test-model")
        .env("OPENAI_API_KEY", "sk-test-key-not-a-secret")
        .env("QWEN_MEMORY_MODEL_TIMEOUT_MS", "1500")
        .args(args)
        .arg("--json")
        .output()
        .unwrap();
    assert_success(&out, args);
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn model_patches_are_validated_and_applied() {
    let sb = Sandbox::new();
    let t = place(&sb, "claude.jsonl", "claude.jsonl");
    let staging = offset_of(&t, "Our staging environment");
    let server = OpenAiServer::start(vec![Reply::good_json(json!({"patches": [
        {"topic": "project", "summary": "- Staging is reset every Sunday night.", "why": "A weekly job rebuilds it.", "sourceOffset": staging},
        {"topic": "project", "summary": "Staging is reset every Sunday night.", "sourceOffset": staging},
        {"topic": "feedback", "summary": "Keep the token ghp_abcdefghijklmnopqrstuvwxyz0123456789 handy.", "sourceOffset": staging},
        {"topic": "feedback", "summary": "Fix it right now please.", "sourceOffset": staging}
    ]}))]);
    let r = model_cmd(
        &sb,
        &server,
        &["extract", "--transcript", t.to_str().unwrap()],
    );
    assert_eq!(r["planner"], "model");
    assert_eq!(r["modelFallback"], Value::Null);
    assert_eq!(r["droppedSecrets"], 1);
    assert_eq!(r["filteredPatches"], 1);
    assert_eq!(r["patches"].as_array().unwrap().len(), 1, "deduped: {r}");
    assert_eq!(
        topic_files(&sb.private_root()),
        vec!["project/staging-is-reset-every-sunday-night.md"]
    );
    let doc = fs::read_to_string(
        sb.private_root()
            .join("project/staging-is-reset-every-sunday-night.md"),
    )
    .unwrap();
    assert!(
        doc.contains("\nStaging is reset every Sunday night.\n\nWhy: A weekly job rebuilds it.\n")
    );

    // What was sent: offset/role/text lines, user and assistant, secrets redacted.
    let reqs = server.requests();
    assert_eq!(reqs.len(), 1);
    let body = reqs[0].json();
    let user = body["messages"][1]["content"].as_str().unwrap();
    assert!(user.starts_with("Transcript slice:\n- offset="), "{user}");
    assert!(user.contains(&format!(
        "- offset={staging} role=user text=Our staging environment is reset every Sunday night."
    )));
    assert!(user.contains("role=assistant text=Staging is rebuilt by a weekly job."));
    assert!(user.contains("[REDACTED:github-pat]"));
    assert!(!reqs[0].body.contains(GITHUB_TOKEN));
    assert!(
        !user.contains("Use pnpm, never npm"),
        "injected context is stripped"
    );
    assert!(user.contains("Current topic summaries:\n(no topics found)"));
    let system = body["messages"][0]["content"].as_str().unwrap();
    assert!(system.contains("JSON"));
}

#[test]
fn model_failures_fall_back_to_the_heuristic() {
    // (case, reply, requests the server must have seen, the reason the fallback must give)
    let cases: Vec<(&str, Reply, usize, &str)> = vec![
        ("garbage", Reply::Malformed, 1, "not JSON"),
        ("server error", Reply::Status(500), 2, "not JSON"),
        (
            "bad offset",
            Reply::good_json(json!({"patches": [
                {"topic": "project", "summary": "Staging is reset every Sunday night.", "sourceOffset": 1}
            ]})),
            1,
            "sourceOffset",
        ),
        (
            "unknown topic",
            Reply::good_json(json!({"patches": [
                {"topic": "misc", "summary": "Staging is reset every Sunday night.", "sourceOffset": 0}
            ]})),
            1,
            "unknown topic",
        ),
        (
            "timeout",
            Reply::Slow(Duration::from_secs(4), json!({"patches": []}).to_string()),
            1,
            "timed out",
        ),
    ];
    for (name, reply, calls, why) in cases {
        let sb = Sandbox::new();
        let t = place(&sb, "claude.jsonl", "claude.jsonl");
        // A 5xx is retried once; give the retry a garbage answer too.
        let server = OpenAiServer::start(vec![reply, Reply::Malformed]);
        let r = model_cmd(
            &sb,
            &server,
            &["extract", "--transcript", t.to_str().unwrap()],
        );
        assert_eq!(r["planner"], "heuristic", "{name}: {r}");
        // The model was really asked, and the fallback names the cause, so a run that ignored
        // the model configuration could not pass.
        assert_eq!(server.requests().len(), calls, "{name}: {r}");
        let reason = r["modelFallback"].as_str().unwrap_or_default();
        assert!(reason.contains(why), "{name}: reason {reason:?}");
        assert_eq!(
            topic_files(&sb.private_root()),
            vec![
                "feedback/always-use-pnpm-instead-of-npm-in-this-repository.md",
                "project/our-staging-environment-is-reset-every-sunday-night.md",
            ],
            "{name}"
        );
        assert!(cursor(&sb)["byteOffset"].as_u64().unwrap() > 0);
    }
}

#[test]
fn heuristic_strategy_never_calls_the_model_and_model_without_config_falls_back() {
    let sb = Sandbox::new();
    let t = place(&sb, "generic.jsonl", "chat.jsonl");
    let server = OpenAiServer::start(vec![]);
    let r = model_cmd(
        &sb,
        &server,
        &[
            "extract",
            "--transcript",
            t.to_str().unwrap(),
            "--strategy",
            "heuristic",
            "--dry-run",
        ],
    );
    assert_eq!(r["planner"], "heuristic");
    assert!(server.requests().is_empty());
    let r = extract(&sb, &t, &["--strategy", "model", "--dry-run"]);
    assert_eq!(r["planner"], "heuristic");
    assert_eq!(r["modelFallback"], "no model configured");
}

// ---------------------------------------------------------------------------------------------
// One extraction per root: queue

fn hold_run_lock(sb: &Sandbox) -> fd_lock::RwLock<fs::File> {
    let state = sb.private_state();
    fs::create_dir_all(&state).unwrap();
    let f = fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(state.join("extract.lock"))
        .unwrap();
    fd_lock::RwLock::new(f)
}

#[test]
fn a_corrupt_queue_slot_is_named_by_status_moved_aside_and_reported_never_run() {
    let sb = Sandbox::new();
    let a = place(&sb, "generic.jsonl", "a.jsonl");
    let queue = sb.private_state().join("extract-queue");
    fs::create_dir_all(&queue).unwrap();
    let bad = queue.join("0123456789abcdef0123456789abcdef.json");
    // Well-formed JSON with a strategy no version wrote: not a request.
    fs::write(
        &bad,
        r#"{"transcriptPath": "/elsewhere.jsonl", "format": "auto", "strategy": "guess", "trigger": "hook", "queuedAt": "t"}"#,
    )
    .unwrap();

    let (st, text) = status_of(&sb);
    let named = st["extraction"]["queueError"].as_str().unwrap_or_default();
    assert!(named.contains(&*bad.to_string_lossy()), "{st}");
    assert!(text.contains("unreadable extract queue slot"), "{text}");

    let r = extract(&sb, &a, &[]);
    assert_eq!(r["trailing"].as_array().unwrap().len(), 0, "{r}");
    let warnings = r["warnings"].to_string();
    assert!(
        warnings.contains("moved aside") && warnings.contains("guess"),
        "{r}"
    );
    assert!(!bad.exists());
    let aside = queue.join("0123456789abcdef0123456789abcdef.json.corrupt");
    assert!(aside.is_file(), "the slot is kept for a person to look at");
    let (st, _) = status_of(&sb);
    assert!(st["extraction"]["queueError"].is_null(), "{st}");
    assert_eq!(st["extraction"]["queued"], 0);
}

#[test]
fn a_queued_trigger_this_version_does_not_know_is_carried_not_made_manual_and_the_cli_refuses_it() {
    let sb = Sandbox::new();
    let a = place(&sb, "generic.jsonl", "a.jsonl");
    let c = place(&sb, "qwen.jsonl", "c.jsonl");
    // A slot a newer version queued, with a trigger this one has no name for.
    let queue = sb.private_state().join("extract-queue");
    fs::create_dir_all(&queue).unwrap();
    fs::write(
        queue.join("0123456789abcdef0123456789abcdef.json"),
        serde_json::to_string(&serde_json::json!({
            "transcriptPath": a.display().to_string(),
            "sessionId": null,
            "format": "auto",
            "strategy": "auto",
            "trigger": "codex-hook",
            "queuedAt": "t",
        }))
        .unwrap(),
    )
    .unwrap();
    let r = extract(&sb, &c, &[]);
    assert_eq!(r["trigger"], "manual", "{r}");
    let trailing = r["trailing"].as_array().unwrap();
    assert_eq!(trailing.len(), 1, "{r}");
    assert_eq!(trailing[0]["trigger"], "codex-hook", "{r}");
    let triggers: Vec<Value> = telemetry(&sb)
        .iter()
        .map(|e| e["trigger"].clone())
        .collect();
    assert_eq!(triggers, ["manual", "codex-hook"]);

    // On the command line only the known names are taken, and the error lists them.
    let out = sb
        .std_cmd(&sb.repo)
        .args([
            "extract",
            "--transcript",
            c.to_str().unwrap(),
            "--trigger",
            "codex-hook",
        ])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("unknown trigger `codex-hook`") && err.contains("manual, hook, retry"),
        "{err}"
    );
    let out = sb
        .std_cmd(&sb.repo)
        .args(["dream", "--trigger", "Manual"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(2),
        "a near miss is no trigger either"
    );
}

#[test]
fn requests_during_a_run_are_queued_per_transcript_and_run_by_the_next_holder() {
    let sb = Sandbox::new();
    let a = place(&sb, "generic.jsonl", "a.jsonl");
    let b = place(&sb, "claude.jsonl", "b.jsonl");
    let c = place(&sb, "qwen.jsonl", "c.jsonl");
    let mut lock = hold_run_lock(&sb);
    {
        let _held = lock.write().unwrap();
        let r = extract(&sb, &a, &["--trigger", "hook"]);
        assert_eq!(r["status"], "skipped");
        assert_eq!(r["skippedReason"], "queued");
        let r = extract(&sb, &b, &["--trigger", "hook"]);
        assert_eq!(r["skippedReason"], "queued");
        let out = sb.ok(&["extract", "--transcript", b.to_str().unwrap()]);
        assert!(out.contains("queued"), "{out}");
        let r = extract(&sb, &b, &["--dry-run"]);
        assert_eq!(r["skippedReason"], "already_running");
        let slots: Vec<Value> = fs::read_dir(sb.private_state().join("extract-queue"))
            .unwrap()
            .map(|e| read_json(&e.unwrap().path()))
            .collect();
        assert_eq!(slots.len(), 2, "one slot per transcript: {slots:?}");
        let b_slot = slots
            .iter()
            .find(|q| q["transcriptPath"] == b.display().to_string())
            .unwrap();
        assert_eq!(b_slot["trigger"], "manual", "b's latest request won");
        assert_eq!(topic_files(&sb.private_root()), Vec::<String>::new());
    }
    let events = telemetry(&sb);
    assert_eq!(events.len(), 3);
    assert!(events
        .iter()
        .all(|e| e["skipped_reason"] == "queued" && e["status"] == "skipped"));
    assert_eq!(events[0]["trigger"], "hook");

    // The next extraction runs its own request, then both queued ones (b once, with its
    // latest request).
    let r = extract(&sb, &c, &[]);
    assert_eq!(r["status"], "updated");
    let trailing = r["trailing"].as_array().unwrap();
    assert_eq!(trailing.len(), 2, "{r}");
    let ran: BTreeMap<String, String> = trailing
        .iter()
        .map(|t| {
            assert_eq!(t["status"], "updated", "{t}");
            (
                t["transcript"].as_str().unwrap().to_string(),
                t["trigger"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        ran,
        BTreeMap::from([
            (a.display().to_string(), "hook".to_string()),
            (b.display().to_string(), "manual".to_string()),
        ])
    );
    assert_eq!(
        fs::read_dir(sb.private_state().join("extract-queue"))
            .unwrap()
            .count(),
        0
    );
    let topics = topic_files(&sb.private_root());
    assert!(
        topics.contains(&"feedback/always-use-pnpm-instead-of-npm-in-this-repository.md".into())
    );
    assert!(topics.contains(&"project/we-deploy-only-from-release-branches.md".into()));
    assert!(topics.contains(&"project/the-payments-service-owns-the-orders-table.md".into()));
}

#[test]
fn two_processes_at_once_one_runs_one_queues_both_slices_land_once() {
    let sb = Sandbox::new();
    let a = place(&sb, "qwen.jsonl", "a.jsonl");
    // b repeats a fact of a: it must not be written twice.
    let b = sb.root().join("transcripts/b.jsonl");
    let mut b_bytes = fixture_bytes("generic.jsonl");
    b_bytes.extend_from_slice(
        (json!({"role": "user", "content": "We deploy only from release branches."}).to_string()
            + "\n")
            .as_bytes(),
    );
    fs::write(&b, &b_bytes).unwrap();

    // A's model call is slow (then garbage, so the heuristic plans): A holds the root meanwhile.
    let server = OpenAiServer::start(vec![
        Reply::Slow(Duration::from_millis(1200), "not json".into()),
        Reply::Malformed,
    ]);
    let mut first = sb.std_cmd(&sb.repo);
    first
        .env("QWEN_MEMORY_MODEL_BASE_URL", server.base_url())
        .env("QWEN_MEMORY_MODEL_NAME", "test-model")
        .env("QWEN_MEMORY_MODEL_TIMEOUT_MS", "5000")
        .args(["extract", "--json", "--transcript", a.to_str().unwrap()])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let child = first.spawn().unwrap();
    // Wait until A holds the run lock.
    let lock_path = sb.private_state().join("extract.lock");
    let held = || {
        let Ok(f) = fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(&lock_path)
        else {
            return false;
        };
        fd_lock::RwLock::new(f).try_write().is_err()
    };
    wait_until(
        "the first extract take the lock",
        || held().then_some(()),
        String::new,
    );
    let r_b = extract(&sb, &b, &[]);
    assert_eq!(r_b["skippedReason"], "queued");
    let out = child.wait_with_output().unwrap();
    assert_success(&out, &["extract (first)"]);
    let r_a: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r_a["status"], "updated");
    let trailing = r_a["trailing"].as_array().unwrap();
    assert_eq!(trailing.len(), 1, "{r_a}");
    assert_eq!(trailing[0]["transcript"], b.display().to_string());

    let topics = topic_files(&sb.private_root());
    assert_eq!(
        topics,
        vec![
            "project/the-payments-service-owns-the-orders-table.md",
            "project/we-deploy-only-from-release-branches.md",
            "reference/the-on-call-runbook-is-at-https-wiki-example-com-runbooks-checkout.md",
        ]
    );
    assert_eq!(
        topic_files(&sb.base.join("memories")),
        vec!["user/i-prefer-terse-answers-without-a-closing-summary.md"]
    );
    let doc = fs::read_to_string(
        sb.private_root()
            .join("project/we-deploy-only-from-release-branches.md"),
    )
    .unwrap();
    assert!(
        doc.starts_with("---\nname: We deploy only from release branches\n"),
        "{doc}"
    );
    assert_eq!(
        doc.matches("We deploy only from release branches.").count(),
        2
    ); // description, body (the title has no closing period)
}

/// Two extractions at once: the first to take the run lock keeps it (the library's lock test
/// seam) until the other has found it busy, so the race really happens; the second's slice is
/// queued and run by the first, and nothing is lost.
#[test]
fn simultaneous_processes_never_lose_a_slice() {
    let sb = Sandbox::new();
    let a = place(&sb, "qwen.jsonl", "a.jsonl");
    let b = place(&sb, "claude.jsonl", "b.jsonl");
    let barrier = LockBarrier::new(&sb);
    barrier.hold("extract.lock");
    let lock = sb.private_state().join("extract.lock");
    let (var, dir) = barrier.env();
    let spawn = |t: &Path| {
        sb.std_cmd(&sb.repo)
            .env(var, &dir)
            .args(["extract", "--json", "--transcript", t.to_str().unwrap()])
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (ca, cb) = (spawn(&a), spawn(&b));
    let pids = BTreeSet::from([ca.id(), cb.id()]);
    barrier.wait_until(
        "one extraction holding the run lock, the other finding it busy",
        |b| b.pids("held", &lock).len() == 1 && !b.pids("busy", &lock).is_empty(),
    );
    let holder = barrier.pids("held", &lock);
    let busy = barrier.pids("busy", &lock);
    assert!(holder.is_disjoint(&busy), "{:#?}", barrier.events());
    assert_eq!(holder.union(&busy).copied().collect::<BTreeSet<_>>(), pids);
    let holder = *holder.first().unwrap();
    // The one that found the lock busy queues its slice and leaves while the holder still runs.
    let (queued_child, queued_t, holder_child) = if ca.id() == holder {
        (cb, &b, ca)
    } else {
        (ca, &a, cb)
    };
    let queued_out = queued_child.wait_with_output().unwrap();
    assert_success(&queued_out, &["extract (queued)"]);
    let queued: Value = serde_json::from_slice(&queued_out.stdout).unwrap();
    assert_eq!(queued["skippedReason"], "queued", "{queued}");
    barrier.release("extract.lock");
    let holder_out = holder_child.wait_with_output().unwrap();
    assert_success(&holder_out, &["extract (holder)"]);
    let ran: Value = serde_json::from_slice(&holder_out.stdout).unwrap();
    assert_eq!(ran["status"], "updated", "{ran}");
    let trailing = ran["trailing"].as_array().unwrap();
    assert_eq!(trailing.len(), 1, "{ran}");
    assert_eq!(trailing[0]["status"], "updated", "{ran}");
    assert_eq!(trailing[0]["transcript"], queued_t.display().to_string());

    let topics = topic_files(&sb.private_root());
    assert_eq!(topics.len(), 4, "{topics:?}");
    assert_eq!(topic_files(&sb.base.join("memories")).len(), 1);
}

#[test]
fn a_queued_request_that_fails_is_reported_with_the_run_that_carried_it() {
    let sb = Sandbox::new();
    let gone = place(&sb, "claude.jsonl", "gone.jsonl");
    let t = place(&sb, "generic.jsonl", "chat.jsonl");
    let mut lock = hold_run_lock(&sb);
    {
        let _held = lock.write().unwrap();
        assert_eq!(extract(&sb, &gone, &[])["skippedReason"], "queued");
    }
    fs::remove_file(&gone).unwrap();
    let r = extract(&sb, &t, &[]);
    assert_eq!(r["status"], "updated");
    let trailing = &r["trailing"][0];
    assert_eq!(trailing["status"], "failed");
    assert_eq!(trailing["transcript"], gone.display().to_string());
    assert!(trailing["error"]
        .as_str()
        .unwrap()
        .contains("transcript not found"));
    let events = telemetry(&sb);
    assert_eq!(events.last().unwrap()["status"], "failed");
    // The cursor belongs to the run that succeeded.
    assert_eq!(cursor(&sb)["transcriptPath"], t.display().to_string());
}

/// Model use is opt-in: generic `OPENAI_*` variables set for other tools never make the default
/// (`auto`) strategy call a model; this tool's own `QWEN_MEMORY_MODEL_*` settings do, and with
/// them the generic key is used.
#[test]
fn generic_openai_variables_do_not_turn_on_the_model() {
    let sb = Sandbox::new();
    let t = place(&sb, "claude.jsonl", "claude.jsonl");
    let server = OpenAiServer::start(vec![Reply::good_json(json!({"patches": []}))]);
    let out = sb
        .cmd()
        .env("OPENAI_BASE_URL", server.base_url())
        .env("OPENAI_MODEL", "test-model")
        .env("OPENAI_API_KEY", "sk-test-generic")
        .args(["extract", "--json", "--transcript", t.to_str().unwrap()])
        .output()
        .unwrap();
    assert_success(&out, &["extract"]);
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["planner"], "heuristic", "{r}");
    assert!(server.requests().is_empty(), "the model server was called");

    // Opted in through this tool's own variable: the generic key is sent.
    let sb = Sandbox::new();
    let t = place(&sb, "claude.jsonl", "claude.jsonl");
    let out = sb
        .cmd()
        .env("QWEN_MEMORY_MODEL_BASE_URL", server.base_url())
        .env("OPENAI_MODEL", "test-model")
        .env("OPENAI_API_KEY", "sk-test-generic")
        .args(["extract", "--json", "--transcript", t.to_str().unwrap()])
        .output()
        .unwrap();
    assert_success(&out, &["extract"]);
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["planner"], "model", "{r}");
    let reqs = server.requests();
    assert_eq!(reqs.len(), 1);
    assert_eq!(reqs[0].json()["model"], "test-model");
    assert!(reqs[0]
        .headers
        .iter()
        .any(|(k, v)| k == "authorization" && v == "Bearer sk-test-generic"));
}

/// A Qwen Code chat file recorded in `cwd`, using the fixture's turns.
fn qwen_chat_in(dir: &Path, session: &str, cwd: &Path, mtime: i64) -> PathBuf {
    fs::create_dir_all(dir).unwrap();
    let text = String::from_utf8(fixture_bytes("qwen.jsonl"))
        .unwrap()
        .replace(
            "\"cwd\":\"/home/alice/src/shop\"",
            &format!(
                "\"cwd\":{}",
                serde_json::to_string(&cwd.display().to_string()).unwrap()
            ),
        );
    let path = dir.join(format!("{session}.jsonl"));
    fs::write(&path, text).unwrap();
    set_mtime(&path, mtime);
    path
}

#[test]
fn chats_of_a_subdirectory_under_the_qwen_runtime_dir_are_found() {
    let sb = Sandbox::new();
    let runtime = sb.root().join("runtime");
    let projects = runtime.join("projects");
    let key = |p: &Path| sanitize(&p.display().to_string());
    let sub = sb.repo.join("src/app");
    fs::create_dir_all(&sub).unwrap();
    let sibling = sb.root().join("repo-old");
    let own = qwen_chat_in(
        &projects.join(key(&sb.repo)).join("chats"),
        "11111111-1111-4111-8111-111111111111",
        &sb.repo,
        1_700_000_000,
    );
    let in_sub = qwen_chat_in(
        &projects.join(key(&sub)).join("chats"),
        "22222222-2222-4222-8222-222222222222",
        &sub,
        1_700_000_100,
    );
    // A sibling project whose key extends ours (`…-repo-old`): newer, but not this project.
    let not_ours = qwen_chat_in(
        &projects.join(key(&sibling)).join("chats"),
        "33333333-3333-4333-8333-333333333333",
        &sibling,
        1_700_000_200,
    );
    assert!(key(&sibling).starts_with(&key(&sb.repo)));
    let run = |dir: &Path| {
        let out = sb
            .cmd_in(dir)
            .env("QWEN_RUNTIME_DIR", &runtime)
            .args(["extract", "--dry-run", "--json"])
            .output()
            .unwrap();
        assert_success(&out, &["extract"]);
        serde_json::from_slice::<Value>(&out.stdout).unwrap()["transcript"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(run(&sb.repo), in_sub.display().to_string());
    assert_eq!(run(&sub), in_sub.display().to_string());
    // Without the subdirectory chat, the project's own chat is the newest of the project.
    fs::remove_file(&in_sub).unwrap();
    assert_eq!(run(&sb.repo), own.display().to_string());
    assert!(not_ours.is_file());
}

// ---------------------------------------------------------------------------------------------
// Concurrent sessions, failures and retries, coexisting with Qwen Code's cursor

/// Five facts, one per session, each in its own generic transcript.
const SESSION_FACTS: [(&str, &str); 5] = [
    (
        "s1",
        "We deploy the billing service only from release branches.",
    ),
    (
        "s2",
        "Never push directly to the main branch of the mobile app.",
    ),
    (
        "s3",
        "Remember that the payments service owns the invoices table.",
    ),
    ("s4", "We always run the integration tests before merging."),
    ("s5", "Always use pnpm instead of npm in the web frontend."),
];

#[test]
fn five_concurrent_sessions_are_all_saved() {
    let sb = Sandbox::new();
    let dir = sb.root().join("transcripts");
    fs::create_dir_all(&dir).unwrap();
    let transcripts: Vec<PathBuf> = SESSION_FACTS
        .iter()
        .map(|(session, fact)| {
            let p = dir.join(format!("{session}.jsonl"));
            let lines = [
                json!({"role": "user", "content": fact}),
                json!({"role": "assistant", "content": "Noted."}),
            ];
            fs::write(
                &p,
                lines.iter().map(|l| format!("{l}\n")).collect::<String>(),
            )
            .unwrap();
            p
        })
        .collect();
    // The first model call is held until the test opens the gate: whichever process took the
    // root waits inside its run while the four others arrive. Every other call gets 410 and
    // falls back to the heuristic, like the held one (its answer is not JSON).
    let gate = sb.root().join("open-the-gate");
    let server = OpenAiServer::start(vec![Reply::Gate(gate.clone(), "not json".into())]);
    sb.git(
        &sb.repo,
        &["config", "qwen-memory.model.baseUrl", &server.base_url()],
    );
    sb.git(
        &sb.repo,
        &["config", "qwen-memory.model.name", "test-model"],
    );
    sb.git(
        &sb.repo,
        &["config", "qwen-memory.model.timeoutMs", "120000"],
    );

    // The lock test seam logs who found the run lock busy and who took it.
    let barrier = LockBarrier::new(&sb);
    let run_lock = sb.private_state().join("extract.lock");
    let (var, barrier_dir) = barrier.env();
    let mut children: Vec<Option<std::process::Child>> = SESSION_FACTS
        .iter()
        .zip(&transcripts)
        .map(|((session, _), t)| {
            Some(
                sb.std_cmd(&sb.repo)
                    .env(var, &barrier_dir)
                    .args(["extract", "--json", "--session", session, "--transcript"])
                    .arg(t)
                    .stdout(std::process::Stdio::piped())
                    .stderr(std::process::Stdio::piped())
                    .spawn()
                    .unwrap(),
            )
        })
        .collect();
    // Four of the five finish while the fifth holds the root.
    let deadline = Instant::now() + HANG_AFTER;
    let mut finished: Vec<Value> = Vec::new();
    let mut finished_pids = BTreeSet::new();
    while finished.len() < 4 {
        for slot in children.iter_mut() {
            let done = slot
                .as_mut()
                .is_some_and(|c| c.try_wait().unwrap().is_some());
            if done {
                let child = slot.take().unwrap();
                finished_pids.insert(child.id());
                let out = child.wait_with_output().unwrap();
                assert_success(&out, &["extract (queued)"]);
                finished.push(serde_json::from_slice(&out.stdout).unwrap());
            }
        }
        if Instant::now() > deadline {
            for c in children.iter_mut().flatten() {
                let _ = c.kill();
            }
            panic!("the extractions never overlapped: {finished:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    // They overlapped: each of the four was queued, and all four wait in the queue at once,
    // one slot per transcript, while the holder is still inside its run.
    for r in &finished {
        assert_eq!(r["skippedReason"], "queued", "{r}");
    }
    let waiting: BTreeSet<String> = fs::read_dir(sb.private_state().join("extract-queue"))
        .unwrap()
        .map(|e| {
            read_json(&e.unwrap().path())["sessionId"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    let queued_sessions: BTreeSet<String> = finished
        .iter()
        .map(|r| r["sessionId"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(waiting.len(), 4, "{waiting:?}");
    assert_eq!(waiting, queued_sessions);
    // As the processes logged it: the one still running holds the run lock, and each of the
    // four that left found it busy.
    let holder_pid = children.iter().flatten().next().unwrap().id();
    assert_eq!(
        barrier.pids("held", &run_lock),
        BTreeSet::from([holder_pid]),
        "{:#?}",
        barrier.events()
    );
    assert!(
        finished_pids.is_subset(&barrier.pids("busy", &run_lock)),
        "{:#?}",
        barrier.events()
    );

    fs::write(&gate, "").unwrap();
    let holder = children.into_iter().flatten().next().unwrap();
    let out = holder.wait_with_output().unwrap();
    assert_success(&out, &["extract (holder)"]);
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["status"], "updated", "{r}");
    let trailing = r["trailing"].as_array().unwrap();
    assert_eq!(trailing.len(), 4, "{r}");
    let mut ran: BTreeSet<String> = trailing
        .iter()
        .map(|t| {
            assert_eq!(t["status"], "updated", "{t}");
            t["sessionId"].as_str().unwrap().to_string()
        })
        .collect();
    ran.insert(r["sessionId"].as_str().unwrap().to_string());
    assert_eq!(ran.len(), 5);

    // Every session's fact is in memory, and in the index.
    let root = sb.private_root();
    let all: String = files(&root).into_values().collect();
    let index = fs::read_to_string(root.join("MEMORY.md")).unwrap();
    for (session, fact) in SESSION_FACTS {
        // The fact as stored: a lead-in such as "Remember that" is not part of it.
        let key = fact
            .trim_start_matches("Remember that the ")
            .trim_end_matches('.');
        assert!(all.contains(key), "{session}: {fact} missing: {all}");
        assert!(index.contains(key), "{session} not indexed: {index}");
    }
    let meta = read_json(&sb.private_state().join("meta.json"));
    let recent: BTreeSet<String> = meta["recentSessionIdsSinceDream"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    assert_eq!(recent.len(), 5, "{meta}");
    assert!(!sb
        .private_state()
        .join("extract-queue")
        .read_dir()
        .unwrap()
        .any(|_| true));
}

fn status_of(sb: &Sandbox) -> (Value, String) {
    (sb.json(&["status"]), sb.ok(&["status"]))
}

#[test]
fn a_failed_write_keeps_the_cursor_is_shown_and_the_next_run_retries_it() {
    let sb = Sandbox::new();
    let t = place(&sb, "generic.jsonl", "chat.jsonl");
    extract(&sb, &t, &[]);
    let before = cursor_of(&sb, &t);
    let len_before = fs::metadata(&t).unwrap().len();
    assert_eq!(before["byteOffset"], len_before);
    append(&t, &fixture_bytes("generic-append.jsonl"));
    let len = fs::metadata(&t).unwrap().len();

    // A file planted where the `reference` type directory must go: the write fails.
    let root = sb.private_root();
    let planted = root.join("reference");
    fs::write(&planted, "not a directory").unwrap();
    let out = sb
        .cmd()
        .args(["extract", "--transcript", t.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let error = String::from_utf8_lossy(&out.stderr).trim().to_string();
    assert!(!error.is_empty());
    assert_eq!(cursor_of(&sb, &t), before, "the cursor stays where it was");

    // status shows the failure, as data and to a person.
    let (st, human) = status_of(&sb);
    let x = &st["extraction"];
    assert_eq!(
        x["lastFailure"]["transcriptPath"],
        t.display().to_string(),
        "{x}"
    );
    let recorded = x["lastFailure"]["error"].as_str().unwrap();
    assert!(
        !recorded.is_empty() && error.contains(recorded),
        "{recorded} / {error}"
    );
    assert_eq!(x["lastFailure"]["attempts"], 1);
    assert_eq!(x["lastFailure"]["retriedAt"], Value::Null);
    assert_eq!(x["pendingRetries"].as_array().unwrap().len(), 1);
    assert!(human.contains("last failure"), "{human}");
    assert!(human.contains("the next extract retries it"), "{human}");

    // Fixed. The next run, of another transcript, retries the failed one after its own.
    fs::remove_file(&planted).unwrap();
    let other = place(&sb, "claude.jsonl", "other.jsonl");
    let r = extract(&sb, &other, &[]);
    assert_eq!(r["status"], "updated");
    let trailing = r["trailing"].as_array().unwrap();
    assert_eq!(trailing.len(), 1, "{r}");
    assert_eq!(trailing[0]["transcript"], t.display().to_string());
    assert_eq!(trailing[0]["trigger"], "retry");
    assert_eq!(trailing[0]["status"], "updated");
    assert_eq!(trailing[0]["startOffset"], len_before);
    assert_eq!(trailing[0]["touchedTopics"], json!(["reference"]));
    assert_eq!(cursor_of(&sb, &t)["byteOffset"], len);
    assert!(topic_files(&root)
        .iter()
        .any(|f| f.starts_with("reference/")));

    let (st, human) = status_of(&sb);
    let x = &st["extraction"];
    assert!(x["lastFailure"]["retriedAt"].is_string(), "{x}");
    assert_eq!(x["pendingRetries"], json!([]));
    assert!(human.contains("retried successfully"), "{human}");
    // Nothing left to retry: the next run carries nothing extra.
    let r = extract(&sb, &other, &[]);
    assert_eq!(r["trailing"], json!([]));
}

#[test]
fn qwen_codes_cursor_file_is_never_written_and_ours_survives_its_rewrites() {
    let sb = Sandbox::new();
    let t = place(&sb, "generic.jsonl", "chat.jsonl");
    let state = sb.private_state();
    fs::create_dir_all(&state).unwrap();
    let qwen_cursor = state.join("extract-cursor.json");
    let qwen_v1 = "{\n  \"sessionId\": \"qwen-session\",\n  \"processedOffset\": 7,\n  \"updatedAt\": \"2026-11-30T08:00:00.000Z\"\n}\n";
    fs::write(&qwen_cursor, qwen_v1).unwrap();

    let r = extract(&sb, &t, &[]);
    assert_eq!(r["status"], "updated");
    assert_eq!(
        fs::read_to_string(&qwen_cursor).unwrap(),
        qwen_v1,
        "byte-identical"
    );
    let ours = cursor_of(&sb, &t);
    assert_eq!(ours["byteOffset"], fs::metadata(&t).unwrap().len());

    // Qwen Code rewrites its file whole, as it does after each of its extractions.
    let qwen_v2 = "{\n  \"sessionId\": \"another\",\n  \"processedOffset\": 12,\n  \"updatedAt\": \"2026-11-30T09:00:00.000Z\"\n}\n";
    fs::write(&qwen_cursor, qwen_v2).unwrap();
    let appended = fixture_bytes("generic-append.jsonl");
    append(&t, &appended);
    let r = extract(&sb, &t, &[]);
    assert_eq!(r["startReason"], "resume", "our cursor survived: {r}");
    assert_eq!(r["bytesRead"], appended.len() as u64);
    assert_eq!(fs::read_to_string(&qwen_cursor).unwrap(), qwen_v2);

    // Also when Qwen Code deletes it: we never create it.
    fs::remove_file(&qwen_cursor).unwrap();
    append(&t, &appended);
    let r = extract(&sb, &t, &[]);
    assert_eq!(r["startReason"], "resume");
    assert!(!qwen_cursor.exists());
}

#[test]
fn an_older_versions_cursor_in_qwens_file_is_carried_over_once() {
    let sb = Sandbox::new();
    let t = place(&sb, "generic.jsonl", "chat.jsonl");
    let bytes = fs::read(&t).unwrap();
    let state = sb.private_state();
    fs::create_dir_all(&state).unwrap();
    let qwen_cursor = state.join("extract-cursor.json");
    // What an older version of this tool left in Qwen Code's file: the whole transcript read.
    let old = format!(
        "{{\n  \"sessionId\": \"chat\",\n  \"processedOffset\": 2,\n  \"updatedAt\": \"2026-11-30T08:00:00.000Z\",\n  \"transcriptPath\": \"{}\",\n  \"byteOffset\": {},\n  \"headHash\": \"{}\",\n  \"format\": \"jsonl\"\n}}\n",
        t.display(),
        bytes.len(),
        sha256_hex(&bytes[..bytes.len().min(4096)])
    );
    fs::write(&qwen_cursor, &old).unwrap();
    let appended = fixture_bytes("generic-append.jsonl");
    append(&t, &appended);
    let r = extract(&sb, &t, &[]);
    assert_eq!(r["startReason"], "resume", "{r}");
    assert_eq!(r["bytesRead"], appended.len() as u64);
    assert_eq!(
        r["touchedTopics"],
        json!(["reference"]),
        "only the new turn"
    );
    assert_eq!(
        fs::read_to_string(&qwen_cursor).unwrap(),
        old,
        "left as it was"
    );
    let file = read_json(&state.join(CURSORS));
    assert_eq!(file["migratedFrom"], "extract-cursor.json");

    // Once: later contents of Qwen Code's file are never taken for ours.
    let stale = old.replace(
        &format!("\"byteOffset\": {}", bytes.len()),
        "\"byteOffset\": 0",
    );
    fs::write(&qwen_cursor, &stale).unwrap();
    let r = extract(&sb, &t, &[]);
    assert_eq!(r["startReason"], "resume");
    assert_eq!(r["bytesRead"], 0);
}
