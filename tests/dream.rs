//! Dream against real repositories and the real binary: gates, lock, mechanical and model
//! consolidation, the never-silent safety nets (log, backups, undo, dry run) and reliability
//! under concurrency and crashes.

use crate::common;
use crate::common::openai_server;

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::*;
use openai_server::{OpenAiServer, Reply};
use qwen_memory::formats::doc;
use qwen_memory::ops::dream;
use qwen_memory::storage::scan::{self, Scope};
use qwen_memory::storage::store::ROOT_LOCK_FILE;
use serde_json::{json, Value};

/// The distinct (type, lowercased summary) pairs of every document of a root.
fn entry_set(root: &Path) -> BTreeSet<(String, String)> {
    let outcome = scan::scan_root(root, Scope::Private).unwrap();
    outcome
        .docs
        .iter()
        .flat_map(|d| {
            doc::parse_entries(&d.body)
                .into_iter()
                .map(|e| (d.memory_type.to_string(), doc::entry_key(&e.summary)))
        })
        .collect()
}

/// Every entry key and every reason (`Why:` parts) of a root: what a dream may never lose. The
/// type is not part of it: the same fact under two types is one fact, merged.
fn facts_and_reasons(root: &Path) -> (BTreeSet<String>, BTreeSet<String>) {
    let outcome = scan::scan_root(root, Scope::Private).unwrap();
    let mut keys = BTreeSet::new();
    let mut reasons = BTreeSet::new();
    for d in &outcome.docs {
        for e in doc::parse_entries(&d.body) {
            keys.insert(doc::entry_key(&e.summary));
            for r in e.why.iter().flat_map(|w| w.split("; ")) {
                reasons.insert(r.to_string());
            }
        }
    }
    (keys, reasons)
}

fn dream_json(sb: &Sandbox, args: &[&str], envs: &[(&str, &str)]) -> Value {
    let mut c = sb.cmd();
    c.arg("dream").args(args).arg("--json");
    for (k, v) in envs {
        c.env(k, v);
    }
    let out = c.output().unwrap();
    assert_success(&out, args);
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)))
}

fn meta(sb: &Sandbox) -> Value {
    serde_json::from_str(&fs::read_to_string(sb.private_state().join("meta.json")).unwrap())
        .unwrap()
}

fn set_meta(sb: &Sandbox, patch: Value) {
    let p = sb.private_state().join("meta.json");
    fs::create_dir_all(sb.private_state()).unwrap();
    let mut m: Value = fs::read_to_string(&p)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or(json!({"version": 1}));
    for (k, v) in patch.as_object().unwrap() {
        m[k] = v.clone();
    }
    fs::write(p, serde_json::to_string_pretty(&m).unwrap()).unwrap();
}

fn head(sb: &Sandbox) -> String {
    sb.git(&sb.repo, &["rev-parse", "HEAD"]).trim().to_string()
}

/// A root with duplicates across and within files, a pinned duplicate, and a non-memory file.
fn seed(sb: &Sandbox) -> PathBuf {
    let root = sb.private_root();
    write_doc(
        &root,
        "feedback/short.md",
        "---\nname: Short answers\ndescription: d\ntype: feedback\ncategory: style\nkeywords: [a, b]\n---\n\nKeep answers short\n\nWhy: narrow pane\n\nkeep   answers short\n\nHow to apply: a few lines\n",
    );
    let dup = write_doc(
        &root,
        "feedback/short-2.md",
        &doc_text(
            "Dup",
            "d",
            "feedback",
            "Keep answers short\n\nNo closing summary\n\nHow to apply: stop after the answer",
        ),
    );
    set_mtime(&dup, 1_600_000_000);
    write_doc(
        &root,
        "pinned/short.md",
        &doc_text("Pinned", "d", "feedback", "Keep answers short"),
    );
    write_doc(&root, "notes/readme.md", "no frontmatter here\n");
    write_doc(
        &root,
        "project/deploy.md",
        &doc_text("Deploy", "d", "project", "Deploy from release branches"),
    );
    root
}

#[test]
fn plain_dream_evaluates_gates_in_order_and_exits_zero() {
    let sb = Sandbox::new();
    seed(&sb);
    // Never dreamed, never scanned: min_sessions (0 of 5), and the scan time is persisted.
    let out = dream_json(&sb, &[], &[]);
    assert_eq!(out["status"], "skipped");
    assert_eq!(out["reason"], "min_sessions");
    assert!(meta(&sb)["lastSessionScanAt"].is_string());
    // Within ten minutes of a scan: scan_throttled.
    let out = dream_json(&sb, &[], &[]);
    assert_eq!(out["reason"], "scan_throttled");
    // Hooks disabled stops hook-triggered dreams only.
    let out = dream_json(
        &sb,
        &["--trigger", "post-commit"],
        &[("QWEN_MEMORY_HOOKS", "0")],
    );
    assert_eq!(out["reason"], "disabled");
    let out = dream_json(&sb, &[], &[("QWEN_MEMORY_HOOKS", "0")]);
    assert_eq!(out["reason"], "scan_throttled");
    // same_session comes before min_hours.
    set_meta(
        &sb,
        json!({"lastDreamSessionId": format!("git:{}", head(&sb)),
               "lastDreamAt": "2000-01-01T00:00:00.000Z"}),
    );
    assert_eq!(dream_json(&sb, &[], &[])["reason"], "same_session");
    // min_hours with a recent dream.
    let recent = chrono::Utc::now() - chrono::Duration::hours(2);
    set_meta(
        &sb,
        json!({"lastDreamSessionId": "other",
               "lastDreamAt": recent.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()}),
    );
    let out = dream_json(&sb, &[], &[]);
    assert_eq!(out["reason"], "min_hours");
    let gates = out["gates"]["gates"].as_array().unwrap();
    assert_eq!(gates.last().unwrap()["name"], "min_hours");
    // A lower minimum lets it through to the next gate.
    let out = dream_json(&sb, &[], &[("QWEN_MEMORY_DREAM_MIN_HOURS", "1")]);
    assert_eq!(out["reason"], "scan_throttled");
    // Nothing was consolidated by any of these.
    assert!(sb.private_root().join("feedback/short-2.md").exists());
}

#[test]
fn sessions_are_counted_from_meta_qwen_and_claude_without_the_current_one() {
    let sb = Sandbox::new();
    seed(&sb);
    let claude = sb.home.join(".claude");
    let claude_dir = claude
        .join("projects")
        .join(sanitize(&sb.repo.display().to_string()));
    let chats = sb.private_state().join("chats");
    fs::create_dir_all(&chats).unwrap();
    fs::create_dir_all(&claude_dir).unwrap();
    let id = |n: u32| format!("{n:08x}-0000-4000-8000-000000000000");
    for n in 0..2 {
        fs::write(chats.join(format!("{}.jsonl", id(n))), "{}\n").unwrap();
    }
    fs::write(claude_dir.join(format!("{}.jsonl", id(2))), "{}\n").unwrap();
    // Not session files, and an old one.
    fs::write(claude_dir.join("agent-1234.jsonl"), "{}\n").unwrap();
    let old = chats.join(format!("{}.jsonl", id(9)));
    fs::write(&old, "{}\n").unwrap();
    set_mtime(&old, 1_000_000_000);
    // Current session = lastExtractionSessionId (excluded); one more from meta.
    set_meta(
        &sb,
        json!({"lastExtractionSessionId": id(0),
               "lastDreamAt": "2002-01-01T00:00:00.000Z",
               "recentSessionIdsSinceDream": ["meta-session", id(1)]}),
    );
    let env = [("CLAUDE_CONFIG_DIR", claude.to_str().unwrap())];
    // {id1, id2, meta-session} = 3 < 4.
    let out = dream_json(&sb, &[], &[env[0], ("QWEN_MEMORY_DREAM_MIN_SESSIONS", "4")]);
    assert_eq!(out["reason"], "min_sessions", "{out}");
    assert_eq!(out["gates"]["sessionsSinceDream"], 3);
    // Status reports the same gates without writing.
    let st = sb.json(&["status"]);
    assert_eq!(st["dreamGates"]["blockedBy"], "scan_throttled");
    set_meta(
        &sb,
        json!({"lastSessionScanAt": "2002-01-01T00:00:00.000Z"}),
    );
    let out = dream_json(&sb, &[], &[env[0], ("QWEN_MEMORY_DREAM_MIN_SESSIONS", "3")]);
    assert_eq!(out["status"], "updated", "{out}");
    assert_eq!(meta(&sb)["recentSessionIdsSinceDream"], json!([]));
    assert_eq!(meta(&sb)["lastDreamSessionId"], id(0));
    // Right after: the same session.
    assert_eq!(dream_json(&sb, &[], &[])["reason"], "same_session");
}

#[test]
fn mechanical_dream_is_lossless_and_leaves_pinned_and_foreign_files() {
    let sb = Sandbox::new();
    let root = seed(&sb);
    let before = entry_set(&root);
    let pinned = fs::read(root.join("pinned/short.md")).unwrap();
    let foreign = fs::read(root.join("notes/readme.md")).unwrap();
    let out = dream_json(&sb, &["--force"], &[]);
    assert_eq!(out["status"], "updated");
    assert_eq!(out["strategy"], "mechanical");
    assert_eq!(out["dedupedEntries"], 2, "{out}");
    assert_eq!(out["touchedTopics"], json!(["feedback"]));
    assert_eq!(entry_set(&root), before, "no entry lost");
    assert!(!root.join("feedback/short-2.md").exists());
    assert_eq!(fs::read(root.join("pinned/short.md")).unwrap(), pinned);
    assert_eq!(fs::read(root.join("notes/readme.md")).unwrap(), foreign);
    let text = fs::read_to_string(root.join("feedback/short.md")).unwrap();
    assert_eq!(
        text,
        "---\nname: Short answers\ndescription: d\ntype: feedback\ncategory: style\nkeywords: [a, b]\n---\n\n\
         Keep answers short\n\nWhy: narrow pane\n\nHow to apply: a few lines\n\n\
         No closing summary\n\nHow to apply: stop after the answer\n"
    );
    // Index rebuilt without the deleted duplicate.
    let index = fs::read_to_string(root.join("MEMORY.md")).unwrap();
    assert!(index.contains("feedback/short.md"));
    assert!(!index.contains("short-2.md"));
    // Meta, log, telemetry.
    let m = meta(&sb);
    assert_eq!(m["lastDreamStatus"], "updated");
    assert_eq!(m["lastDreamTouchedTopics"], json!(["feedback"]));
    assert!(m["lastDreamAt"].is_string());
    let log = fs::read_to_string(sb.private_state().join("dream-log.jsonl")).unwrap();
    let line: Value = serde_json::from_str(log.lines().last().unwrap()).unwrap();
    assert_eq!(line["changes"][1]["action"], "delete");
    assert!(line["changes"][1]["reason"]
        .as_str()
        .unwrap()
        .contains("carried over"));
    let tel = fs::read_to_string(sb.private_state().join("telemetry.jsonl")).unwrap();
    let ev: Value = tel
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|e| e["event"] == "qwen-code.memory.dream")
        .unwrap();
    assert_eq!(ev["status"], "updated");
    assert_eq!(ev["trigger"], "manual");
    assert_eq!(ev["deduped_entries"], 2);
    assert!(ev["duration_ms"].is_u64());
    assert!(!tel.contains("short"), "telemetry carries no paths/content");
    // Second run: nothing left to do.
    let out = dream_json(&sb, &["--force"], &[]);
    assert_eq!(out["status"], "noop");
    assert_eq!(meta(&sb)["lastDreamStatus"], "noop");
}

#[test]
fn dry_run_prints_a_diff_and_writes_nothing() {
    let sb = Sandbox::new();
    seed(&sb);
    let before_root = tree(&sb.private_root());
    let before_state = tree(&sb.private_state());
    let out = sb.ok(&["dream", "--dry-run"]);
    assert!(
        out.contains("--- a/feedback/short-2.md\n+++ /dev/null\n"),
        "{out}"
    );
    assert!(out.contains("+No closing summary"), "{out}");
    assert!(out.contains("nothing written"));
    let j = dream_json(&sb, &["--dry-run"], &[]);
    assert_eq!(j["status"], "dry-run");
    assert!(j["diff"].as_str().unwrap().contains("@@"));
    assert_eq!(tree(&sb.private_root()), before_root);
    assert_eq!(tree(&sb.private_state()), before_state);
}

#[test]
fn dry_run_never_prints_a_memory_s_escape_sequences_raw() {
    let sb = Sandbox::new();
    let root = sb.private_root();
    // Two documents that dream merges; one carries a terminal escape (clear screen) and a bidi
    // override in an entry, as a pulled or pasted memory might.
    write_doc(
        &root,
        "feedback/terse.md",
        &doc_text("Terse", "d", "feedback", "Keep answers terse"),
    );
    let dup = write_doc(
        &root,
        "feedback/terse-2.md",
        &doc_text(
            "Dup",
            "d",
            "feedback",
            "Keep answers terse\n\nNo recap \u{1b}[2J at the end \u{202E}gnihton",
        ),
    );
    set_mtime(&dup, 1_600_000_000);
    let out = sb.ok(&["dream", "--dry-run"]);
    assert!(out.contains("terse-2.md"), "{out}");
    assert!(
        !out.contains('\u{1b}') && !out.contains('\u{202E}'),
        "{out:?}"
    );
    assert!(
        out.contains("<U+001B>") && out.contains("<U+202E>"),
        "{out}"
    );
}

#[test]
fn undo_restores_the_last_run_exactly_and_refuses_after_edits() {
    let sb = Sandbox::new();
    let root = seed(&sb);
    sb.ok(&["index"]);
    let before = tree(&root);
    dream_json(&sb, &["--force"], &[]);
    assert_ne!(tree(&root), before);
    let out = sb.json(&["dream", "--undo"]);
    assert_eq!(out["status"], "undone");
    assert_eq!(tree(&root), before, "byte for byte");
    // Nothing more to undo.
    let o = sb.cmd().args(["dream", "--undo"]).output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("nothing to undo"));
    // A file edited after the run blocks the undo, and nothing is restored.
    dream_json(&sb, &["--force"], &[]);
    fs::write(root.join("feedback/short.md"), "edited by hand\n").unwrap();
    let after_edit = tree(&root);
    let o = sb.cmd().args(["dream", "--undo"]).output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("changed since"));
    assert_eq!(tree(&root), after_edit);
}

fn model_env(server: &OpenAiServer) -> Vec<(String, String)> {
    vec![
        ("QWEN_MEMORY_MODEL_BASE_URL".into(), server.base_url()),
        ("QWEN_MEMORY_MODEL_NAME".into(), "test-model".into()),
        ("OPENAI_API_KEY".into(), "sk-test-dream".into()),
    ]
}

fn dream_with(sb: &Sandbox, env: &[(String, String)], args: &[&str]) -> Value {
    let out = sb
        .cmd()
        .arg("dream")
        .args(args)
        .arg("--json")
        .envs(env.iter().map(|(a, b)| (a.as_str(), b.as_str())))
        .output()
        .unwrap();
    assert_success(&out, args);
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn model_plan_is_validated_and_applied() {
    let sb = Sandbox::new();
    let root = seed(&sb);
    let server = OpenAiServer::start(vec![Reply::good_json(json!({"operations": [
        {"op": "merge", "target": "feedback/short.md", "sources": ["feedback/short-2.md"],
         "body": "Keep answers short\n\nWhy: narrow pane\n\nHow to apply: a few lines\n\nNo closing summary\n\nHow to apply: stop after the answer",
         "reason": "same preference"},
        {"op": "delete", "path": "project/deploy.md", "reason": "stale"}
    ]}))]);
    let out = dream_with(&sb, &model_env(&server), &["--force"]);
    assert_eq!(out["strategy"], "model", "{out}");
    assert_eq!(out["status"], "updated");
    assert!(!root.join("feedback/short-2.md").exists());
    assert!(!root.join("project/deploy.md").exists());
    let text = fs::read_to_string(root.join("feedback/short.md")).unwrap();
    assert!(text.starts_with(
        "---\nname: Short answers\ndescription: d\ntype: feedback\ncategory: style\n"
    ));
    assert!(text.contains("Keep answers short\n\nWhy: narrow pane\n\nHow to apply: a few lines\n\nNo closing summary\n"));
    // The pinned document was never shown to the model; the key is never logged.
    let req = &server.requests()[0];
    assert!(!req.body.contains("pinned/short.md"));
    let log = fs::read_to_string(sb.private_state().join("dream-log.jsonl")).unwrap();
    assert!(log.contains("\"stale\""));
    assert!(!log.contains("sk-test-dream"));
    // Undo restores the model's changes too.
    sb.ok(&["dream", "--undo"]);
    assert!(root.join("project/deploy.md").exists());
}

#[test]
fn invalid_model_plans_and_failures_fall_back_to_mechanical() {
    // (reply, requests the server must have seen, the reason the fallback must give)
    for (reply, calls, why) in [
        (
            Reply::good_json(json!({"operations": [{"op": "delete", "path": "pinned/short.md"}]})),
            1,
            "pinned/short.md",
        ),
        (
            Reply::good_json(json!({"operations": [{"op": "delete", "path": "../../outside.md"}]})),
            1,
            "../../outside.md",
        ),
        (
            Reply::good_json(json!({"operations": [{"op": "delete", "path": "MEMORY.md"}]})),
            1,
            "MEMORY.md",
        ),
        (
            Reply::good_json(
                json!({"operations": [{"op": "rewrite", "path": "project/deploy.md",
                "body": "token ghp_0123456789abcdefghijklmnopqrstuvwxyzAB"}]}),
            ),
            1,
            "secret",
        ),
        (Reply::good_json(json!({"plan": "nope"})), 1, "schema"),
        (Reply::Malformed, 1, "JSON"),
        (Reply::Status(500), 2, "HTTP 500"),
    ] {
        let sb = Sandbox::new();
        let root = seed(&sb);
        let pinned = fs::read(root.join("pinned/short.md")).unwrap();
        let server = OpenAiServer::start(vec![reply.clone(), reply.clone()]);
        let out = dream_with(&sb, &model_env(&server), &["--force"]);
        assert_eq!(out["strategy"], "mechanical", "{reply:?}: {out}");
        assert_eq!(server.requests().len(), calls, "{reply:?}: {out}");
        let reason = out["fallbackReason"].as_str().unwrap_or_default();
        assert!(reason.contains(why), "{reply:?}: reason {reason:?}");
        assert_eq!(out["status"], "updated");
        assert_eq!(fs::read(root.join("pinned/short.md")).unwrap(), pinned);
        assert!(root.join("project/deploy.md").exists());
        let text = fs::read_to_string(root.join("project/deploy.md")).unwrap();
        assert!(!text.contains("ghp_"));
    }
    // --strategy mechanical never calls the model.
    let sb = Sandbox::new();
    seed(&sb);
    let server = OpenAiServer::start(vec![]);
    let out = dream_with(
        &sb,
        &model_env(&server),
        &["--force", "--strategy", "mechanical"],
    );
    assert_eq!(out["strategy"], "mechanical");
    assert!(server.requests().is_empty());
}

// ---------------------------------------------------------------------------------------------
// Reliability

/// `n` documents of one type with two entries each, every `dup_every`-th a duplicate of the
/// one before (same first entry) with another entry of its own.
fn many_docs(root: &Path, n: usize, dup_every: usize) {
    for i in 0..n {
        let body = if dup_every > 0 && i % dup_every == dup_every - 1 {
            format!("Fact number {}\n\nMore detail {i}", i - 1)
        } else {
            format!("Fact number {i}\n\nNote {i}")
        };
        write_doc(
            root,
            &format!("project/f{i:04}.md"),
            &doc_text(&format!("F{i}"), "d", "project", &body),
        );
    }
}

/// The dream checkpoints of the lock test seam (`safe_fs::test_checkpoint`).
const LOCKED: &str = dream::CHECKPOINT_LOCKED;
const HALF_APPLIED: &str = dream::CHECKPOINT_HALF_APPLIED;

#[test]
fn eight_concurrent_dreams_one_consolidates_the_others_are_locked() {
    let sb = Sandbox::new();
    let root = sb.private_root();
    many_docs(&root, 60, 3);
    let before = entry_set(&root);
    // Whichever dream takes the dream lock first stops right there, holding it, until the other
    // seven have finished: they provably ran while it was held.
    let barrier = LockBarrier::new(&sb);
    barrier.hold(LOCKED);
    let (var, dir) = barrier.env();
    let mut children: Vec<_> = (0..8)
        .map(|_| {
            sb.std_cmd(&sb.repo)
                .args(["dream", "--force", "--json"])
                .env(var, &dir)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    wait_until(
        "seven dreams finished while one holds the dream lock",
        || {
            let done = children
                .iter_mut()
                .filter_map(|c| c.try_wait().unwrap())
                .count();
            (done == 7).then_some(())
        },
        || format!("{:#?}", barrier.events()),
    );
    let holders = barrier.pids("at", Path::new(LOCKED));
    assert_eq!(holders.len(), 1, "{:#?}", barrier.events());
    let running: Vec<u32> = children
        .iter_mut()
        .filter_map(|c| c.try_wait().unwrap().is_none().then(|| c.id()))
        .collect();
    assert_eq!(running, holders.iter().copied().collect::<Vec<_>>());
    barrier.release(LOCKED);
    let outs: Vec<(u32, Value)> = children
        .into_iter()
        .map(|c| {
            let pid = c.id();
            let o = c.wait_with_output().unwrap();
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
            (pid, serde_json::from_slice(&o.stdout).unwrap())
        })
        .collect();
    for (pid, out) in &outs {
        if holders.contains(pid) {
            assert_eq!(out["status"], "updated", "{out}");
        } else {
            assert_eq!(out["reason"], "locked", "{out}");
        }
    }
    assert_eq!(entry_set(&root), before, "no entry lost");
    let scanned = scan::scan_root(&root, Scope::Private).unwrap();
    assert!(scanned.skipped.is_empty(), "every file parses");
    assert_eq!(scanned.docs.len(), 40);
    assert!(!sb.private_state().join("consolidation.lock").exists());
}

#[test]
fn dream_while_remember_writes_loses_no_update() {
    let sb = Sandbox::new();
    let root = sb.private_root();
    many_docs(&root, 30, 3);
    let barrier = LockBarrier::new(&sb);
    barrier.hold(HALF_APPLIED);
    let (var, dir) = barrier.env();
    let dream = sb
        .std_cmd(&sb.repo)
        .args(["dream", "--force", "--json"])
        .env(var, &dir)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    // Once the dream is half applied (it wrote its first file and holds the root's lock), write
    // concurrently: new facts, and a why for an entry of a file the dream rewrites.
    barrier.wait_until("the dream half applied", |b| {
        b.pids("at", Path::new(HALF_APPLIED)).contains(&dream.id())
    });
    let writers: Vec<_> = (0..4)
        .map(|i| {
            let mut c = sb.std_cmd(&sb.repo);
            if i == 0 {
                c.args([
                    "remember",
                    "--type",
                    "project",
                    "--why",
                    "added while dreaming",
                    "Fact number 1",
                ]);
            } else {
                c.args([
                    "remember",
                    "--type",
                    "project",
                    &format!("Concurrent fact {i}"),
                ]);
            }
            c.env(var, &dir).stdout(Stdio::null()).spawn().unwrap()
        })
        .collect();
    // Every writer found the root's lock taken by the half-applied dream and queued behind it.
    let writer_pids: BTreeSet<u32> = writers.iter().map(|w| w.id()).collect();
    barrier.wait_until("every writer waiting for the dream", |b| {
        let waiting: BTreeSet<u32> = b
            .events()
            .into_iter()
            .filter(|e| {
                e.kind == "busy" && e.lock.file_name() == Some(std::ffi::OsStr::new(ROOT_LOCK_FILE))
            })
            .map(|e| e.pid)
            .collect();
        writer_pids.is_subset(&waiting)
    });
    barrier.release(HALF_APPLIED);
    for mut w in writers {
        assert!(w.wait().unwrap().success());
    }
    let o = dream.wait_with_output().unwrap();
    let out: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(out["status"], "updated");
    let set = entry_set(&root);
    for i in 1..4 {
        assert!(set.contains(&("project".into(), format!("concurrent fact {i}"))));
    }
    // The document holding "Fact number 1" kept both the dream's merge and remember's why.
    let holder = scan::scan_root(&root, Scope::Private)
        .unwrap()
        .docs
        .into_iter()
        .find(|d| d.body.contains("Fact number 1\n"))
        .unwrap();
    assert!(
        holder.body.contains("Why: added while dreaming"),
        "{}",
        holder.body
    );
    assert!(holder.body.contains("More detail 2"), "{}", holder.body);
}

#[test]
fn sigkill_mid_dream_leaves_whole_files_and_a_stale_lock_the_next_run_clears() {
    let sb = Sandbox::new();
    let root = sb.private_root();
    many_docs(&root, 30, 3);
    let before = entry_set(&root);
    // The run stops after its first file was written (never released: it is killed there).
    let barrier = LockBarrier::new(&sb);
    barrier.hold(HALF_APPLIED);
    let (var, dir) = barrier.env();
    let mut child = sb
        .std_cmd(&sb.repo)
        .args(["dream", "--force"])
        .env(var, &dir)
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let lock = sb.private_state().join("consolidation.lock");
    barrier.wait_until("the dream half applied", |b| {
        b.pids("at", Path::new(HALF_APPLIED)).contains(&child.id())
    });
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    assert_eq!(fs::read_to_string(&lock).unwrap(), child.id().to_string());
    // Every file is whole: it parses, and nothing was lost (rewrites come before deletions).
    let scanned = scan::scan_root(&root, Scope::Private).unwrap();
    assert!(scanned.skipped.is_empty());
    assert_eq!(entry_set(&root), before);
    let st = sb.json(&["status"]);
    assert_eq!(st["dreamGates"]["lock"]["live"], false);
    // The next run clears the stale lock and finishes the job.
    let out = dream_json(&sb, &["--force"], &[]);
    assert_eq!(out["status"], "updated");
    assert!(!lock.exists());
    assert_eq!(entry_set(&root), before);
    assert_eq!(
        scan::scan_root(&root, Scope::Private).unwrap().docs.len(),
        20
    );
}

#[test]
fn sigterm_releases_the_lock() {
    let sb = Sandbox::new();
    many_docs(&sb.private_root(), 6, 3);
    let barrier = LockBarrier::new(&sb);
    barrier.hold(LOCKED);
    let (var, dir) = barrier.env();
    let child = sb
        .std_cmd(&sb.repo)
        .args(["dream", "--force"])
        .env(var, &dir)
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let lock = sb.private_state().join("consolidation.lock");
    barrier.wait_until("the dream holding its lock", |b| {
        b.pids("at", Path::new(LOCKED)).contains(&child.id())
    });
    assert!(lock.exists());
    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let out = child.wait_with_output().unwrap();
    assert!(!out.status.success());
    assert!(!lock.exists(), "SIGTERM removed the lock");
}

#[test]
fn a_live_foreign_lock_is_a_locked_skip() {
    let sb = Sandbox::new();
    seed(&sb);
    fs::create_dir_all(sb.private_state()).unwrap();
    // This test process is alive.
    let pid = std::process::id().to_string();
    fs::write(sb.private_state().join("consolidation.lock"), &pid).unwrap();
    let out = dream_json(&sb, &["--force"], &[]);
    assert_eq!(out["status"], "skipped");
    assert_eq!(out["reason"], "locked");
    assert_eq!(
        fs::read_to_string(sb.private_state().join("consolidation.lock")).unwrap(),
        pid
    );
}

mod property {
    use super::*;
    use proptest::prelude::*;
    use qwen_memory::ops::dream::{self, mechanical};
    use qwen_memory::storage::backup;
    use qwen_memory::storage::project::Root;
    use qwen_memory::storage::root_writer::RootWriter;

    fn root_in(dir: &Path) -> Root {
        Root::new(
            Scope::Private,
            dir.to_path_buf(),
            dir.join("memory"),
            dir.to_path_buf(),
        )
    }

    const TYPES: [&str; 2] = ["feedback", "project"];
    const WORDS: [&str; 6] = [
        "Alpha",
        "alpha",
        "beta  rule",
        "Gamma",
        "delta",
        "BETA rule",
    ];

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        #[test]
        fn dream_preserves_every_fact_and_every_reason(
            docs in prop::collection::vec(
                (0usize..2, prop::collection::vec((0usize..6, any::<bool>()), 0..5), any::<bool>()),
                1..12,
            )
        ) {
            let dir = tempfile::tempdir().unwrap();
            let root = root_in(dir.path());
            for (n, (t, entries, pinned)) in docs.iter().enumerate() {
                let body: Vec<String> = entries
                    .iter()
                    .map(|(w, why)| if *why {
                        format!("{}\n\nWhy: reason {n}", WORDS[*w])
                    } else {
                        WORDS[*w].to_string()
                    })
                    .collect();
                let rel = if *pinned { format!("pinned/d{n}.md") } else { format!("{}/d{n}.md", TYPES[*t]) };
                let p = write_doc(&root.path, &rel, &doc_text("n", "d", TYPES[*t], &body.join("\n\n")));
                set_mtime(&p, 1_700_000_000 + n as i64);
            }
            let before_set = facts_and_reasons(&root.path);
            let before_tree = tree(&root.path);
            let plan = mechanical::plan(&dream::snapshot(&root).unwrap());
            dream::apply_plan_locked(&RootWriter::lock(&root).unwrap(), &plan, "r1").unwrap();
            prop_assert_eq!(facts_and_reasons(&root.path), before_set);
            // And the run undoes byte for byte.
            if !plan.changes.is_empty() {
                backup::undo_last(&root, backup::RunKind::Dream).unwrap();
                let mut after = tree(&root.path);
                after.remove("MEMORY.md");
                prop_assert_eq!(after, before_tree);
            }
        }
    }
}

#[test]
fn an_index_that_cannot_be_rebuilt_keeps_the_consolidation() {
    let sb = Sandbox::new();
    let root = seed(&sb);
    fs::create_dir_all(root.join("MEMORY.md")).unwrap();
    let out = dream_json(&sb, &["--force"], &[]);
    assert_eq!(out["status"], "updated");
    assert!(out["indexError"].is_string(), "{out}");
    assert!(!root.join("feedback/short-2.md").exists());
    assert_eq!(meta(&sb)["lastDreamStatus"], "updated");
}

#[test]
fn a_live_qwen_code_lock_in_the_working_tree_is_a_locked_skip() {
    for local in [true, false] {
        let sb = Sandbox::new();
        let envs: &[(&str, &str)] = if local {
            &[("QWEN_CODE_MEMORY_LOCAL", "1")]
        } else {
            &[]
        };
        let root = if local {
            sb.repo.join(".qwen/memory")
        } else {
            sb.private_root()
        };
        write_doc(
            &root,
            "feedback/short.md",
            &doc_text("Short", "d", "feedback", "Keep answers short"),
        );
        let qwen_lock = sb.repo.join(".qwen/consolidation.lock");
        fs::create_dir_all(qwen_lock.parent().unwrap()).unwrap();
        // This test process is alive: Qwen Code is dreaming.
        let pid = std::process::id().to_string();
        fs::write(&qwen_lock, &pid).unwrap();
        let out = dream_json(&sb, &["--force"], envs);
        assert_eq!(out["status"], "skipped", "local={local}: {out}");
        assert_eq!(out["reason"], "locked");
        let mut c = sb.cmd();
        c.args(["status", "--json"]);
        for (k, v) in envs {
            c.env(k, v);
        }
        let out = c.output().unwrap();
        assert_success(&out, &["status"]);
        let st: Value = serde_json::from_slice(&out.stdout).unwrap();
        let gate = st["dreamGates"]["gates"]
            .as_array()
            .unwrap()
            .iter()
            .find(|g| g["name"] == "locked")
            .unwrap()
            .clone();
        assert_eq!(gate["passes"], false, "{gate}");
        assert!(
            gate["value"].as_str().unwrap().contains("Qwen Code"),
            "{gate}"
        );
        assert_eq!(fs::read_to_string(&qwen_lock).unwrap(), pid, "only read");

        // A dead PID, or a lock over an hour old, no longer blocks, and is left for Qwen Code.
        fs::write(&qwen_lock, "2147483646").unwrap();
        let out = dream_json(&sb, &["--force"], envs);
        assert_ne!(out["reason"], "locked", "local={local}: {out}");
        assert_eq!(fs::read_to_string(&qwen_lock).unwrap(), "2147483646");
        fs::write(&qwen_lock, &pid).unwrap();
        set_mtime(&qwen_lock, 1_700_000_000);
        let out = dream_json(&sb, &["--force"], envs);
        assert_ne!(out["reason"], "locked", "local={local}: {out}");
        assert!(qwen_lock.exists());
    }
}

/// A duplicate whose frontmatter holds what a person wrote (keywords, usage scenarios, a
/// description of their own, a comment) and the newer document lacks is not deleted by a
/// merge: both stay, nothing of it is lost. A duplicate with only generated frontmatter is
/// still merged.
#[test]
fn a_duplicate_with_a_person_s_frontmatter_is_not_merged_away() {
    let sb = Sandbox::new();
    let root = sb.private_root();
    let older = write_doc(
        &root,
        "feedback/a-push.md",
        "---\nname: Pushing\ndescription: Alice notes on protected branches\ntype: feedback\nkeywords: push, main, protected-branch\nusage_scenarios:\n  - before git push\n---\n\n- Never push to main\n  How to apply: open a pull request\n",
    );
    set_mtime(&older, 1_000_000);
    write_doc(
        &root,
        "feedback/b-push.md",
        "---\nname: Pushing\ndescription: Pushing\ntype: feedback\n---\n\n- Never push to main\n",
    );
    let before = fs::read(&older).unwrap();
    let out = dream_json(&sb, &["--force"], &[]);
    assert_eq!(fs::read(&older).unwrap(), before, "{out}");
    assert!(root.join("feedback/b-push.md").is_file(), "{out}");
    // Generated frontmatter only: merged as before.
    let dup = write_doc(
        &root,
        "feedback/c-replies.md",
        &doc_text(
            "Short replies",
            "Short replies",
            "feedback",
            "- Keep replies short\n  Why: narrow pane",
        ),
    );
    set_mtime(&dup, 1_000_000);
    write_doc(
        &root,
        "feedback/d-replies.md",
        &doc_text(
            "Short replies",
            "Short replies",
            "feedback",
            "- Keep replies short",
        ),
    );
    let out = dream_json(&sb, &["--force"], &[]);
    assert!(!dup.exists(), "{out}");
    let kept = fs::read_to_string(root.join("feedback/d-replies.md")).unwrap();
    assert!(kept.contains("Why: narrow pane"), "{kept}");
}
