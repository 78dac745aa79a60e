//! Recall with an embeddings endpoint (a loopback server with deterministic vectors), the time
//! budget of agent hooks, and the per-session record reset after a compaction. Drives the real
//! binary.

use crate::common;
use crate::common::embeddings_server;
use crate::common::openai_server;

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::time::Duration;

use common::*;
use embeddings_server::EmbeddingsServer;
use openai_server::{OpenAiServer, Reply};
use serde_json::{json, Value};

/// Generous limit after which a hook counts as hung (not a speed assertion).
const HANG: Duration = Duration::from_secs(30);

struct Labelled {
    /// Memory title → its concepts.
    titles: BTreeMap<String, Vec<String>>,
    /// Query text → its concepts.
    queries: BTreeMap<String, Vec<String>>,
    concepts: Vec<String>,
}

fn heldout() -> Value {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/recall-eval/heldout.json");
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect()
}

fn labelled(set: &Value) -> Labelled {
    let mut titles = BTreeMap::new();
    let mut queries = BTreeMap::new();
    let mut all = BTreeSet::new();
    for m in set["memories"].as_array().unwrap() {
        let c = strings(&m["concepts"]);
        all.extend(c.iter().cloned());
        titles.insert(m["title"].as_str().unwrap().to_string(), c);
    }
    for q in set["queries"].as_array().unwrap() {
        let c = strings(&q["concepts"]);
        all.extend(c.iter().cloned());
        queries.insert(q["q"].as_str().unwrap().to_string(), c);
    }
    Labelled {
        titles,
        queries,
        concepts: all.into_iter().collect(),
    }
}

/// A stand-in for an embedding model: one dimension per labelled meaning, plus a little
/// text-hash noise so unrelated texts are near-orthogonal but not identical.
fn vector_fn(l: Labelled) -> impl Fn(&str) -> Vec<f32> + Send + Sync + 'static {
    move |text: &str| {
        let first_line = text.lines().next().unwrap_or("");
        let concepts = l
            .titles
            .get(first_line)
            .or_else(|| l.queries.get(text))
            .cloned()
            .unwrap_or_default();
        let mut v = vec![0f32; l.concepts.len() + 8];
        for c in concepts {
            if let Some(i) = l.concepts.iter().position(|x| *x == c) {
                v[i] = 1.0;
            }
        }
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in text.bytes() {
            h = (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
        }
        for k in 0..8 {
            v[l.concepts.len() + k] = if (h >> k) & 1 == 1 { 0.15 } else { -0.15 };
        }
        v
    }
}

/// Writes every held-out memory into the sandbox's private root; returns id → relative path.
fn write_memories(sb: &Sandbox, set: &Value) -> BTreeMap<String, String> {
    let mut paths = BTreeMap::new();
    for m in set["memories"].as_array().unwrap() {
        let id = m["id"].as_str().unwrap();
        let ty = m["type"].as_str().unwrap();
        let rel = format!("{ty}/{id}.md");
        write_doc(
            &sb.private_root(),
            &rel,
            &doc_text(
                m["title"].as_str().unwrap(),
                m["description"].as_str().unwrap(),
                ty,
                m["body"].as_str().unwrap(),
            ),
        );
        paths.insert(id.to_string(), rel);
    }
    paths
}

/// The endpoint settings, with the detached background job switched off (its program is
/// `true`): these tests run `embed-job` themselves, so what reaches the server is known.
fn embeddings_env(server: &EmbeddingsServer) -> Vec<(&'static str, String)> {
    vec![
        ("QWEN_MEMORY_EMBEDDINGS_BASE_URL", server.base_url()),
        ("QWEN_MEMORY_EMBEDDINGS_MODEL", "test-embed".to_string()),
        ("QWEN_MEMORY_HOOK_EXEC", "true".to_string()),
    ]
}

/// `git-qwen-memory <args>` with the endpoint settings `env`.
fn run_with(sb: &Sandbox, env: &[(&'static str, String)], args: &[&str]) -> std::process::Output {
    sb.cmd()
        .args(args)
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
        .timeout(HANG)
        .output()
        .unwrap()
}

/// Runs the background embedding job in the foreground.
fn embed_job(sb: &Sandbox, env: &[(&'static str, String)]) -> String {
    let out = run_with(sb, env, &["embed-job"]);
    assert_success(&out, &["embed-job"]);
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The calibration texts the job embeds before any memory.
fn background_count() -> usize {
    qwen_memory::ops::recall::embed::background_texts().len()
}

fn recall_json(sb: &Sandbox, env: &[(&'static str, String)], query: &str) -> Value {
    let out = run_with(sb, env, &["recall", "--json", query]);
    assert_success(&out, &["recall", query]);
    serde_json::from_slice(&out.stdout).unwrap()
}

fn selected(v: &Value) -> Vec<String> {
    v["documents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["relativePath"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn paraphrase_and_cross_language_queries_are_found_with_embeddings() {
    let set = heldout();
    let sb = Sandbox::new();
    let paths = write_memories(&sb, &set);
    let server = EmbeddingsServer::start(vector_fn(labelled(&set)), Duration::ZERO);
    let env = embeddings_env(&server);
    let job = embed_job(&sb, &env);
    assert!(job.contains("done"), "{job}");
    let mut per_kind: BTreeMap<String, (usize, f64, usize, usize)> = BTreeMap::new();
    for q in set["queries"].as_array().unwrap() {
        let kind = q["kind"].as_str().unwrap();
        let text = q["q"].as_str().unwrap();
        let relevant: Vec<String> = strings(&q["relevant"])
            .iter()
            .map(|id| paths[id].clone())
            .collect();
        let v = recall_json(&sb, &env, text);
        let got = selected(&v);
        let e = per_kind.entry(kind.to_string()).or_default();
        e.0 += 1;
        if relevant.is_empty() {
            e.1 += f64::from(u8::from(got.is_empty()));
        } else {
            e.1 +=
                relevant.iter().filter(|r| got.contains(r)).count() as f64 / relevant.len() as f64;
        }
        e.2 += got.len();
        e.3 += got.iter().filter(|g| relevant.contains(g)).count();
    }
    for (kind, (n, sum, injected, good)) in &per_kind {
        println!(
            "held-out with embeddings / {kind:10}: {} {:.2} over {n} queries; injected {injected}, relevant {good}",
            if kind == "none" { "silent share" } else { "recall@5" },
            sum / *n as f64
        );
    }
    let share = |k: &str| per_kind[k].1 / per_kind[k].0 as f64;
    assert!(
        share("paraphrase") >= 0.9,
        "paraphrase recall@5 {}",
        share("paraphrase")
    );
    assert!(
        share("cross") >= 0.9,
        "cross-language recall@5 {}",
        share("cross")
    );
    assert!(
        share("direct") >= 0.95,
        "direct recall@5 {}",
        share("direct")
    );
    assert!(
        share("none") >= 0.9,
        "no-answer silent share {}",
        share("none")
    );
    // The job embedded the calibration texts and each document once; every recall sent
    // only its query.
    let requests = server.requests();
    let queries = set["queries"].as_array().unwrap().len();
    let inputs: usize = requests.iter().map(Vec::len).sum();
    assert_eq!(
        inputs - queries,
        set["memories"].as_array().unwrap().len() + background_count(),
        "each document embedded once"
    );
}

#[test]
fn warm_cache_sends_only_the_query_and_changed_documents() {
    let sb = Sandbox::new();
    let root = sb.private_root();
    write_doc(
        &root,
        "project/region.md",
        &doc_text(
            "Deployment region",
            "New services run in eu-west-1",
            "project",
            "- Ireland",
        ),
    );
    write_doc(
        &root,
        "project/backup.md",
        &doc_text(
            "数据库备份",
            "每天凌晨两点全量备份",
            "project",
            "- 保留三十天",
        ),
    );
    // A document holding a secret is never sent anywhere.
    write_doc(
        &root,
        "reference/keys.md",
        &doc_text(
            "Keys",
            "staging key",
            "reference",
            "- AKIAIOSFODNN7EXAMPLE is the staging key",
        ),
    );
    let server = EmbeddingsServer::start(|t: &str| vec![t.len() as f32, 1.0], Duration::ZERO);
    let env = embeddings_env(&server);

    // Nothing embedded yet: recall is lexical and sends nothing (not even the query: there is
    // no calibration to judge its similarities by).
    let first = recall_json(&sb, &env, "which region");
    assert_ne!(first["semantic"], true, "{first}");
    assert_eq!(
        selected(&first),
        ["project/region.md"],
        "lexical still answers"
    );
    assert!(server.requests().is_empty(), "{:?}", server.requests());

    // The job embeds the calibration and the two clean documents, in batches.
    embed_job(&sb, &env);
    let sent = server.requests();
    let inputs: Vec<&String> = sent.iter().flatten().collect();
    assert_eq!(inputs.len(), background_count() + 2, "{sent:?}");
    assert!(sent.iter().all(|r| r.len() <= 16), "batches of at most 16");
    assert!(
        inputs.iter().all(|t| !t.contains("AKIA")),
        "never the secret"
    );
    assert!(inputs.iter().any(|t| t.contains("eu-west-1")));

    let warm = recall_json(&sb, &env, "which region");
    assert_eq!(warm["semantic"], true, "{warm}");
    // The job's batches: the calibration texts and the two documents, 16 a request.
    let batches = (background_count() + 2).div_ceil(16);
    let sent = server.requests();
    assert_eq!(sent.len(), batches + 1);
    assert_eq!(
        sent[batches],
        ["which region"],
        "warm cache: only the query"
    );

    // One changed document: recall still sends only the query and ranks the changed document
    // lexically; the next job embeds only it.
    write_doc(
        &root,
        "project/region.md",
        &doc_text(
            "Deployment region",
            "New services run in eu-central-1",
            "project",
            "- Frankfurt",
        ),
    );
    let changed = recall_json(&sb, &env, "which region");
    assert_eq!(selected(&changed), ["project/region.md"]);
    assert!(
        changed["fallback"]
            .as_str()
            .unwrap_or("")
            .contains("1 memories not embedded"),
        "{changed}"
    );
    let sent = server.requests();
    assert_eq!(sent.len(), batches + 2);
    assert_eq!(sent[batches + 1], ["which region"]);
    embed_job(&sb, &env);
    let sent = server.requests();
    assert_eq!(sent.len(), batches + 3);
    assert_eq!(sent[batches + 2].len(), 1);
    assert!(sent[batches + 2][0].contains("eu-central-1"));
    // The query is redacted before it leaves the machine.
    recall_json(&sb, &env, "region for AKIAIOSFODNN7EXAMPLE");
    assert!(server
        .requests()
        .iter()
        .flatten()
        .all(|t| !t.contains("AKIAIOSFODNN7EXAMPLE")));
}

/// A damaged cache (a value overwritten with NaN without fixing its record's check) or one of
/// an older format version never answers: the vectors from the damage on count as not embedded
/// (recall ranks them lexically and says so), the background job embeds them again, and recall
/// then answers every query as before the damage.
#[test]
fn a_damaged_or_old_cache_is_rebuilt_and_never_answers() {
    let set = heldout();
    let sb = Sandbox::new();
    write_memories(&sb, &set);
    let server = EmbeddingsServer::start(vector_fn(labelled(&set)), Duration::ZERO);
    let env = embeddings_env(&server);
    embed_job(&sb, &env);
    let memories = set["memories"].as_array().unwrap().len();
    let queries: Vec<&str> = set["queries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|q| q["q"].as_str().unwrap())
        .take(12)
        .collect();
    let answers = |what: &str| -> Vec<(Vec<String>, Value)> {
        queries
            .iter()
            .map(|q| {
                let v = recall_json(&sb, &env, q);
                (selected(&v), v)
            })
            .inspect(|(_, v)| {
                assert!(
                    v["semantic"] == true || v["fallback"].is_string(),
                    "{what}: {v}"
                )
            })
            .collect()
    };
    let before: Vec<Vec<String>> = answers("warm")
        .into_iter()
        .map(|(s, v)| {
            assert_eq!(v["semantic"], true, "{v}");
            assert!(v["fallback"].is_null(), "{v}");
            s
        })
        .collect();
    let cache = sb.private_state().join("recall-embeddings.bin");
    let good = std::fs::read(&cache).unwrap();
    let sent = |server: &EmbeddingsServer| server.requests().iter().map(Vec::len).sum::<usize>();

    // The last record's last value becomes NaN; its check is left as it was.
    let mut bad = good.clone();
    let at = bad.len() - 8 - 4;
    bad[at..at + 4].copy_from_slice(&f32::NAN.to_le_bytes());
    std::fs::write(&cache, &bad).unwrap();
    for (_, v) in answers("damaged") {
        assert!(
            v["fallback"]
                .as_str()
                .is_some_and(|f| f.contains("1 memories not embedded")),
            "the damaged vector is not used: {v}"
        );
    }
    let was = sent(&server);
    embed_job(&sb, &env);
    assert_eq!(
        sent(&server) - was,
        1,
        "only the damaged vector is embedded again"
    );
    let after: Vec<Vec<String>> = answers("repaired")
        .into_iter()
        .map(|(s, v)| {
            assert!(v["fallback"].is_null(), "{v}");
            s
        })
        .collect();
    assert_eq!(after, before);

    // A cache of format version 1: not read; the job embeds everything again.
    let mut old = std::fs::read(&cache).unwrap();
    old[..8].copy_from_slice(b"QMEMB01\n");
    std::fs::write(&cache, &old).unwrap();
    for (_, v) in answers("old version") {
        assert_ne!(v["semantic"], true, "{v}");
    }
    let was = sent(&server);
    embed_job(&sb, &env);
    assert_eq!(sent(&server) - was, memories + background_count());
    let rebuilt: Vec<Vec<String>> = answers("rebuilt").into_iter().map(|(s, _)| s).collect();
    assert_eq!(rebuilt, before);
}

fn hook(
    sb: &Sandbox,
    name: &str,
    env: &[(&'static str, String)],
    payload: &Value,
) -> std::process::Output {
    sb.cmd()
        .args(["hook", name, "--agent", "claude"])
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
        .write_stdin(payload.to_string())
        .timeout(HANG)
        .output()
        .unwrap()
}

fn region_sandbox() -> Sandbox {
    let sb = Sandbox::new();
    write_doc(
        &sb.private_root(),
        "project/region.md",
        &doc_text(
            "Deployment region",
            "New services run in eu-west-1",
            "project",
            "- Ireland",
        ),
    );
    sb
}

fn prompt(sb: &Sandbox, session: &str, text: &str) -> Value {
    json!({"session_id": session, "cwd": sb.repo.display().to_string(),
           "hook_event_name": "UserPromptSubmit", "prompt": text})
}

#[test]
fn slow_embeddings_in_a_hook_fall_back_to_lexical_and_exit_zero() {
    let sb = region_sandbox();
    // The cache is warm (so recall does try the query)...
    let fast = EmbeddingsServer::start(|t: &str| vec![t.len() as f32, 1.0], Duration::ZERO);
    embed_job(&sb, &embeddings_env(&fast));
    // ...but the server has become far slower than any hook budget.
    let server = EmbeddingsServer::start(|_: &str| vec![1.0, 0.0], Duration::from_secs(120));
    let out = hook(
        &sb,
        "recall",
        &embeddings_env(&server),
        &prompt(&sb, "s-slow", "deployment region please"),
    );
    assert!(out.status.success());
    assert!(out.stderr.is_empty());
    let v: Value = serde_json::from_slice(&out.stdout).expect("hook answered with JSON");
    let ctx = v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    assert!(
        ctx.contains("### Deployment region (project/region.md)"),
        "{ctx}"
    );
    assert_eq!(server.requests().len(), 1, "the query was tried");
    let log = std::fs::read_to_string(sb.private_state().join("hook.log")).unwrap_or_default();
    assert!(log.contains("embeddings"), "{log}");
}

#[test]
fn slow_model_in_a_hook_falls_back_and_exits_zero() {
    let sb = region_sandbox();
    let server = OpenAiServer::start(vec![
        Reply::Slow(
            Duration::from_secs(120),
            json!({"selected_memories": []}).to_string(),
        ),
        Reply::Slow(
            Duration::from_secs(120),
            json!({"selected_memories": []}).to_string(),
        ),
    ]);
    let env = vec![
        ("QWEN_MEMORY_RECALL_STRATEGY", "model".to_string()),
        ("OPENAI_BASE_URL", server.base_url()),
        ("OPENAI_MODEL", "test-model".to_string()),
    ];
    let out = hook(
        &sb,
        "recall",
        &env,
        &prompt(&sb, "s-model", "deployment region please"),
    );
    assert!(out.status.success());
    assert!(out.stderr.is_empty());
    let v: Value = serde_json::from_slice(&out.stdout).expect("hook answered with JSON");
    assert!(v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap()
        .contains("Deployment region"));
    let log = std::fs::read_to_string(sb.private_state().join("hook.log")).unwrap_or_default();
    // On a loaded machine the scan can use up the whole budget first: then the model is not
    // asked at all; either way the hook fell back to the lexical ranking.
    assert!(
        log.contains("model selection timed out") || log.contains("model selection skipped"),
        "{log}"
    );
}

#[test]
fn compaction_resets_what_the_session_was_shown() {
    let sb = region_sandbox();
    let first = hook(
        &sb,
        "recall",
        &[],
        &prompt(&sb, "s-compact", "deployment region"),
    );
    assert!(String::from_utf8_lossy(&first.stdout).contains("Deployment region"));
    // Same session: already surfaced, not injected again.
    let again = hook(
        &sb,
        "recall",
        &[],
        &prompt(&sb, "s-compact", "deployment region"),
    );
    assert!(again.stdout.is_empty());
    // A startup does not reset; a compaction does.
    let start = json!({"session_id": "s-compact", "hook_event_name": "SessionStart", "source": "startup",
                       "cwd": sb.repo.display().to_string()});
    let out = hook(&sb, "session-start", &[], &start);
    assert!(out.status.success() && out.stdout.is_empty() && out.stderr.is_empty());
    assert!(hook(
        &sb,
        "recall",
        &[],
        &prompt(&sb, "s-compact", "deployment region")
    )
    .stdout
    .is_empty());
    let compact = json!({"session_id": "s-compact", "hook_event_name": "SessionStart", "source": "compact",
                         "cwd": sb.repo.display().to_string()});
    let out = hook(&sb, "session-start", &[], &compact);
    assert!(out.status.success() && out.stdout.is_empty() && out.stderr.is_empty());
    let back = hook(
        &sb,
        "recall",
        &[],
        &prompt(&sb, "s-compact", "deployment region"),
    );
    assert!(String::from_utf8_lossy(&back.stdout).contains("Deployment region"));
    // Another session's record is untouched by this one's compaction.
    let other = hook(
        &sb,
        "recall",
        &[],
        &prompt(&sb, "s-other", "deployment region"),
    );
    assert!(!other.stdout.is_empty());
    hook(&sb, "session-start", &[], &compact);
    assert!(hook(
        &sb,
        "recall",
        &[],
        &prompt(&sb, "s-other", "deployment region")
    )
    .stdout
    .is_empty());
}

#[test]
fn install_adds_the_compaction_hook_for_both_agents() {
    let sb = Sandbox::new();
    let out = sb
        .cmd()
        .args(["install", "--hooks", "none", "--agent", "all"])
        .output()
        .unwrap();
    assert_success(&out, &["install"]);
    for (file, agent) in [
        (".claude/settings.json", "claude"),
        (".qwen/settings.json", "qwen"),
    ] {
        let v: Value = serde_json::from_slice(&std::fs::read(sb.home.join(file)).unwrap()).unwrap();
        let groups = v["hooks"]["SessionStart"].as_array().unwrap();
        assert_eq!(groups.len(), 1, "{v}");
        assert_eq!(groups[0]["matcher"], "compact");
        assert_eq!(
            groups[0]["hooks"][0]["command"],
            format!(
                "command -v git-qwen-memory >/dev/null 2>&1 && git-qwen-memory hook session-start --agent {agent} || true"
            )
        );
    }
    let out = sb
        .cmd()
        .args(["uninstall", "--agent", "all"])
        .output()
        .unwrap();
    assert_success(&out, &["uninstall"]);
    for file in [".claude/settings.json", ".qwen/settings.json"] {
        let text = std::fs::read_to_string(sb.home.join(file)).unwrap_or_default();
        assert!(!text.contains("SessionStart"), "{text}");
    }
}

/// A recall that finds uncached documents starts the detached background job, which fills the
/// cache and reports its progress in `status`; the recall itself sent only nothing (no
/// calibration yet), and the next recall uses the vectors.
#[test]
fn recall_starts_the_background_job_which_fills_the_cache() {
    let sb = region_sandbox();
    let server = EmbeddingsServer::start(|t: &str| vec![t.len() as f32, 1.0], Duration::ZERO);
    // The job is this binary (no QWEN_MEMORY_HOOK_EXEC override).
    let env: Vec<(&'static str, String)> = embeddings_env(&server)
        .into_iter()
        .filter(|(k, _)| *k != "QWEN_MEMORY_HOOK_EXEC")
        .collect();
    let first = recall_json(&sb, &env, "which region");
    assert_ne!(first["semantic"], true, "{first}");
    let status = || {
        let out = run_with(&sb, &env, &["status", "--json"]);
        serde_json::from_slice::<Value>(&out.stdout).unwrap_or(Value::Null)
    };
    let done = wait_until(
        "the background job to finish",
        || {
            let s = status();
            (s["embeddings"]["state"] == "done").then_some(s)
        },
        || format!("{}", status()),
    );
    assert_eq!(
        done["embeddings"]["done"].as_u64(),
        Some(background_count() as u64 + 1),
        "{done}"
    );
    let warm = recall_json(&sb, &env, "which region");
    assert_eq!(warm["semantic"], true, "{warm}");
    assert!(warm["fallback"].is_null(), "{warm}");
}

/// Something at the cache's place that cannot be read (here a directory; in life also a passing
/// I/O error) is never replaced by a cache of the few vectors one job embeds: the job stops with
/// the reason in `status`, sends nothing, and a recall still answers lexically.
#[test]
fn a_cache_that_cannot_be_read_is_left_alone_and_reported() {
    let sb = region_sandbox();
    let server = EmbeddingsServer::start(|t: &str| vec![t.len() as f32, 1.0], Duration::ZERO);
    let env = embeddings_env(&server);
    let cache = sb.private_state().join("recall-embeddings.bin");
    std::fs::create_dir_all(&cache).unwrap();
    std::fs::write(cache.join("person.txt"), b"mine").unwrap();
    // Run in the foreground, the job says why it stopped (detached, its output goes nowhere).
    let out = run_with(&sb, &env, &["embed-job"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("cannot be read"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(server.requests().is_empty(), "{:?}", server.requests());
    assert_eq!(std::fs::read(cache.join("person.txt")).unwrap(), b"mine");
    let status: Value =
        serde_json::from_slice(&run_with(&sb, &env, &["status", "--json"]).stdout).unwrap();
    assert_eq!(status["embeddings"]["state"], "failed", "{status}");
    let error = status["embeddings"]["error"].as_str().unwrap_or_default();
    assert!(
        error.contains("cannot be read") && error.contains("remove it"),
        "{status}"
    );
    let r = recall_json(&sb, &env, "which region");
    assert_ne!(r["semantic"], true, "{r}");
    assert_eq!(
        r["documents"][0]["relativePath"], "project/region.md",
        "{r}"
    );
    let fallback = r["fallback"].as_str().unwrap_or_default();
    assert!(fallback.contains("cannot be read"), "{r}");
}

/// A memory saved through the MCP server's `remember` tool is embedded by the detached
/// background job, as one saved with the CLI's `remember` is.
#[test]
fn mcp_remember_starts_the_background_job() {
    use std::io::{BufRead, BufReader, Write};
    use std::process::Stdio;
    let sb = Sandbox::new();
    let server = EmbeddingsServer::start(|t: &str| vec![t.len() as f32, 1.0], Duration::ZERO);
    // The job is this binary (no QWEN_MEMORY_HOOK_EXEC override).
    let env: Vec<(&'static str, String)> = embeddings_env(&server)
        .into_iter()
        .filter(|(k, _)| *k != "QWEN_MEMORY_HOOK_EXEC")
        .collect();
    let mut child = sb
        .std_cmd(&sb.repo)
        .arg("mcp")
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let messages = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "embed-test", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "remember",
            "arguments": {"text": "The staging cluster runs in the Frankfurt region"}}}),
    ];
    for m in &messages {
        writeln!(stdin, "{m}").unwrap();
    }
    stdin.flush().unwrap();
    let mut answer = Value::Null;
    for line in BufReader::new(child.stdout.take().unwrap()).lines() {
        let v: Value = serde_json::from_str(&line.unwrap()).unwrap();
        if v["id"] == json!(2) {
            answer = v;
            break;
        }
    }
    drop(stdin);
    let _ = child.wait();
    assert_ne!(answer["result"]["isError"], json!(true), "{answer}");
    assert!(answer["result"].is_object(), "{answer}");
    let status = || {
        let out = sb
            .cmd()
            .args(["status", "--json"])
            .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
            .timeout(HANG)
            .output()
            .unwrap();
        serde_json::from_slice::<Value>(&out.stdout).unwrap_or(Value::Null)
    };
    let done = wait_until(
        "the background job started by MCP remember to finish",
        || {
            let s = status();
            (s["embeddings"]["state"] == "done").then_some(s)
        },
        || format!("{}", status()),
    );
    assert_eq!(
        done["embeddings"]["done"].as_u64(),
        Some(background_count() as u64 + 1),
        "{done}"
    );
}
