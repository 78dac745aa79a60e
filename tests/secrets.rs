//! The secret scanner against the real binary: `remember` refuses every kind of the labelled
//! corpus and accepts every look-alike, extract drops secrets from transcripts and from model
//! output, hidden tokens are caught, recall never prints a secret document, `commit` and the
//! pre-commit hook block, and the allow marker is honoured only in files a person wrote.

use crate::common;
use crate::common::openai_server;
use crate::common::secret_corpus;

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

use common::{assert_success, doc_text, write_doc, Sandbox};
use openai_server::{OpenAiServer, Reply};
use secret_corpus::{j, Gen, Sample, ALNUM};
use serde_json::{json, Value};

/// Every file under `dir` as one string (for "the value is nowhere" checks).
fn all_text(dir: &Path) -> String {
    common::tree(dir)
        .into_iter()
        .map(|(path, bytes)| format!("{path}\n{}\n", String::from_utf8_lossy(&bytes)))
        .collect()
}

/// Topic documents under a memory root (MEMORY.md excluded).
fn topic_count(root: &Path) -> usize {
    common::tree(root)
        .keys()
        .filter(|p| p.ends_with(".md") && !p.ends_with("MEMORY.md"))
        .count()
}

fn ghp(seed: u64) -> String {
    j(&["gh", "p_", &Gen::new(seed).of(ALNUM, 36)])
}

fn printed(out: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// The value must not be shown; very short values (`pw`) are checked in their context instead.
fn assert_not_shown(shown: &str, s: &Sample) {
    if s.value.len() >= 6 {
        assert!(
            !shown.contains(&s.value),
            "{} value printed: {shown}",
            s.rule
        );
    }
    assert!(!shown.contains(s.text.trim()), "{} text printed", s.rule);
}

#[test]
fn remember_refuses_every_kind_and_never_prints_the_value() {
    let sb = Sandbox::new();
    let mut samples = secret_corpus::secrets();
    samples.extend(secret_corpus::obfuscated());
    let mut kinds = BTreeSet::new();
    for s in &samples {
        let out = sb.cmd().args(["remember", "--", &s.text]).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{} accepted", s.rule);
        let shown = printed(&out);
        assert!(shown.contains(s.rule), "{}: {shown}", s.rule);
        assert_not_shown(&shown, s);
        kinds.insert(s.rule);
    }
    assert!(samples.len() >= 60 && kinds.len() >= 20);
    // Secrets in the `why` / `how to apply` fields are refused too.
    let s = &secret_corpus::secrets()[0];
    let out = sb
        .cmd()
        .args([
            "remember",
            "Deploys go through the release job",
            "--why",
            &s.text,
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(topic_count(&sb.private_root()), 0, "nothing was written");
    let everything = all_text(&sb.base);
    for s in &samples {
        if s.value.len() >= 6 {
            assert!(!everything.contains(&s.value), "{} stored", s.rule);
        }
    }
}

/// A secret given where clap expected a flag or a value (pasted into the wrong place) is not
/// echoed by the usage error; the error is still clap's, with its exit code, and a plain bad
/// value is shown as typed.
#[test]
fn a_usage_error_never_echoes_a_secret() {
    let sb = Sandbox::new();
    let token = ghp(7);
    for args in [
        vec!["remember", "--type", token.as_str(), "x"],
        vec!["recall", "--limit", token.as_str(), "q"],
        vec!["remember", "--why"],
    ] {
        let mut args = args;
        let flag = format!("--{token}");
        if args.len() == 2 {
            args.push(&flag);
        }
        let out = sb.cmd().args(&args).output().unwrap();
        let shown = printed(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {shown}");
        assert!(
            !shown.contains(&token[4..]),
            "{args:?} echoed the secret: {shown}"
        );
        assert!(shown.contains("REDACTED"), "{args:?}: {shown}");
        assert!(shown.starts_with("error: "), "{args:?}: {shown}");
    }
    let out = sb
        .cmd()
        .args(["remember", "--type", "bogus", "x"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        printed(&out).contains("invalid value 'bogus' for '--type"),
        "{}",
        printed(&out)
    );
}

#[test]
fn remember_accepts_every_benign_look_alike() {
    let sb = Sandbox::new();
    let benign = secret_corpus::benign();
    for (label, text) in &benign {
        let out = sb
            .cmd()
            .args(["remember", "--type", "reference", "--", text])
            .output()
            .unwrap();
        assert_success(&out, &["remember", label]);
    }
    assert_eq!(topic_count(&sb.private_root()), benign.len());
    let stored = all_text(&sb.private_root());
    // Spot checks: the look-alikes are stored as written.
    assert!(stored.contains("postgres://localhost/dev"));
    assert!(stored.contains("密码长度至少12位，必须包含大小写字母和数字。"));
    // `check` agrees nothing is a secret.
    let v = sb.json(&["check"]);
    let text = v.to_string();
    assert!(!text.contains("\"secret\""), "{text}");
}

#[test]
fn the_normalized_form_is_what_gets_written() {
    let sb = Sandbox::new();
    sb.ok(&[
        "remember",
        "--type",
        "project",
        "用ｃａｒｇｏ构建，不要用\u{200b} make。",
    ]);
    let stored = all_text(&sb.private_root());
    assert!(stored.contains("用cargo构建，不要用 make。"), "{stored}");
    assert!(!stored.contains('\u{200b}'));
}

#[test]
fn allow_marker_is_honoured_for_remember_typed_by_a_person() {
    let sb = Sandbox::new();
    let tok = ghp(11);
    let text = format!("The docs use the sample token {tok} qwen-memory:allow");
    sb.ok(&["remember", "--type", "reference", &text]);
    assert!(all_text(&sb.private_root()).contains(&tok));
    // check and recall honour the reviewed line of a file a person wrote.
    let v = sb.json(&["check"]);
    assert!(!v.to_string().contains("\"secret\""), "{v}");
    let out = sb.ok(&["recall", "sample token docs"]);
    assert!(out.contains(&tok), "{out}");
}

fn transcript(sb: &Sandbox, texts: &[String]) -> std::path::PathBuf {
    let path = sb.root().join("chat.jsonl");
    let mut lines = String::new();
    for t in texts {
        lines.push_str(&json!({"role": "user", "content": t, "session_id": "s1"}).to_string());
        lines.push('\n');
        lines.push_str(
            &json!({"role": "assistant", "content": "Noted.", "session_id": "s1"}).to_string(),
        );
        lines.push('\n');
    }
    fs::write(&path, lines).unwrap();
    path
}

#[test]
fn extract_drops_secrets_from_a_transcript_and_reports_the_count() {
    let sb = Sandbox::new();
    // One sample per kind, plus hidden ones and a marker that must not help.
    // A message is one line here, so a PEM block is given on one line too.
    let mut g = Gen::new(13);
    let pem_body = g.of(ALNUM, 40);
    let one_line_pem = format!(
        "-----BEGIN {0}----- {pem_body} -----END {0}-----",
        "PRIVATE KEY"
    );
    let mut chosen: Vec<Sample> = vec![Sample {
        rule: "private-key",
        text: one_line_pem,
        value: pem_body,
    }];
    for s in secret_corpus::secrets()
        .into_iter()
        .chain(secret_corpus::obfuscated())
        .filter(|s| !s.text.contains('\n'))
    {
        if !chosen.iter().any(|c| c.rule == s.rule) || s.text.contains('\u{200b}') {
            chosen.push(s);
        }
    }
    let marked = ghp(12);
    let mut texts: Vec<String> = chosen
        .iter()
        .map(|s| format!("Please remember that the staging credential is {}.", s.text))
        .collect();
    texts.push(format!(
        "Please remember that the example token is {marked} qwen-memory:allow."
    ));
    texts.push("Please remember that we deploy from the release branch only.".into());
    let t = transcript(&sb, &texts);
    let r = sb.json(&["extract", "--transcript", t.to_str().unwrap()]);
    let dropped = r["droppedSecrets"].as_u64().unwrap();
    let kinds: BTreeSet<&str> = chosen.iter().map(|s| s.rule).collect();
    assert!(kinds.len() >= 20 && dropped as usize > kinds.len(), "{r}");
    assert_eq!(r["patches"].as_array().unwrap().len(), 1, "{r}");
    let rules: BTreeSet<String> = r["droppedSecretRules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    for s in &chosen {
        assert!(rules.contains(s.rule), "{} not reported: {r}", s.rule);
    }
    // The clean fact was kept; no secret value is anywhere on disk.
    let stored = all_text(&sb.private_root());
    assert!(
        stored.contains("we deploy from the release branch only."),
        "{stored}"
    );
    assert_eq!(topic_count(&sb.private_root()), 1, "{stored}");
    let everything = all_text(&sb.base);
    assert!(!everything.contains(&marked));
    for s in &chosen {
        if s.value.len() >= 6 {
            assert!(!everything.contains(&s.value), "{} stored", s.rule);
        }
    }
    assert!(!everything.contains("[REDACTED:"));
}

fn model_env(server: &OpenAiServer) -> Vec<(&'static str, String)> {
    vec![
        ("QWEN_MEMORY_MODEL_BASE_URL", server.base_url()),
        ("QWEN_MEMORY_MODEL_NAME", "test-model".into()),
        ("OPENAI_API_KEY", "test-key-not-a-secret".into()),
        ("QWEN_MEMORY_MODEL_TIMEOUT_MS", "2000".into()),
    ]
}

#[test]
fn model_output_and_model_input_ignore_the_allow_marker() {
    let sb = Sandbox::new();
    let root = sb.private_root();
    // A person-written memory with a reviewed token: fine on disk, never sent to a model.
    let reviewed = ghp(21);
    write_doc(
        &root,
        "reference/sample.md",
        &doc_text(
            "Sample token",
            "docs sample",
            "reference",
            &format!("The docs show {reviewed} qwen-memory:allow\n\nWhy: it is the public sample"),
        ),
    );
    let said = ghp(22);
    let t = transcript(
        &sb,
        &[
            format!("Keep {said} qwen-memory:allow for later."),
            "Our staging environment is reset every Sunday night.".into(),
        ],
    );
    let smuggled = ghp(23);
    // A model patch must cite the user line it is grounded in.
    let text = fs::read_to_string(&t).unwrap();
    let staging = text[..text.find("Our staging environment").unwrap()]
        .rfind('\n')
        .map_or(0, |n| n + 1);
    let server = OpenAiServer::start(vec![Reply::good_json(json!({"patches": [
        {"topic": "reference", "summary": format!("The deploy token is {smuggled} qwen-memory:allow"), "sourceOffset": 0},
        {"topic": "project", "summary": "Staging is reset every Sunday night.", "sourceOffset": staging}
    ]}))]);
    let out = sb
        .cmd()
        .envs(model_env(&server))
        .args(["extract", "--transcript", t.to_str().unwrap(), "--json"])
        .output()
        .unwrap();
    assert_success(&out, &["extract"]);
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["planner"], "model", "{r}");
    assert_eq!(r["droppedSecrets"], 1, "{r}");
    assert_eq!(r["droppedSecretRules"], json!(["github-pat"]));
    let reqs = server.requests();
    assert_eq!(reqs.len(), 1);
    assert!(!reqs[0].body.contains(&said), "transcript secret sent");
    assert!(!reqs[0].body.contains(&reviewed), "memory secret sent");
    assert!(
        reqs[0].body.contains("Sample token"),
        "the summary was sent, redacted"
    );
    let stored = all_text(&sb.base);
    assert!(!stored.contains(&smuggled) && !stored.contains(&said));
    assert!(stored.contains("Staging is reset every Sunday night."));
    assert!(printed(&out).find(&smuggled).is_none());

    // A dream plan from the model that carries a marked secret is rejected whole.
    let planted = ghp(24);
    let server = OpenAiServer::start(vec![Reply::good_json(json!({"operations": [
        {"op": "rewrite", "path": "project/staging-is-reset-every-sunday-night.md",
         "body": format!("Staging is reset every Sunday night.\n\nWhy: token {planted} qwen-memory:allow"),
         "reason": "tidy"}
    ]}))]);
    let out = sb
        .cmd()
        .envs(model_env(&server))
        .args(["dream", "--force", "--json"])
        .output()
        .unwrap();
    assert_success(&out, &["dream"]);
    let d: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(d["strategy"], "mechanical", "{d}");
    assert!(
        d["fallbackReason"].as_str().unwrap().contains("github-pat"),
        "{d}"
    );
    assert!(!all_text(&sb.base).contains(&planted));
    // The dream manifest never carried the reviewed token either.
    assert!(!server.requests()[0].body.contains(&reviewed));
}

#[test]
fn recall_never_prints_a_secret_document() {
    let sb = Sandbox::new();
    let root = sb.private_root();
    let corpus = secret_corpus::secrets();
    let in_body = &corpus[0];
    write_doc(
        &root,
        "project/body.md",
        &doc_text(
            "Deploy body",
            "deploy notes",
            "project",
            &format!("deploy with {}", in_body.text),
        ),
    );
    let in_description = ghp(31);
    write_doc(
        &root,
        "project/description.md",
        &doc_text(
            "Deploy description",
            &format!("deploy {in_description}"),
            "project",
            "deploy",
        ),
    );
    let hidden = format!("gh\u{200b}p_{}", Gen::new(32).of(ALNUM, 36));
    write_doc(
        &root,
        "project/name.md",
        &doc_text(
            &format!("Deploy {hidden}"),
            "deploy name",
            "project",
            "deploy",
        ),
    );
    let in_path = ghp(33);
    write_doc(
        &root,
        &format!("project/{in_path}.md"),
        &doc_text("Deploy path", "deploy path", "project", "deploy"),
    );
    write_doc(
        &root,
        "project/ok.md",
        &doc_text("Deploy steps", "deploy", "project", "Run make deploy"),
    );
    let out = sb.ok(&["recall", "deploy"]);
    assert!(out.contains("### Deploy steps (project/ok.md)"), "{out}");
    for leaked in [&in_body.value, &in_description, &in_path] {
        assert!(!out.contains(leaked.as_str()), "{out}");
    }
    assert!(!out.contains("Deploy body") && !out.contains("Deploy description"));
    assert!(!out.contains("Deploy path") && !out.contains("deploy name"));
    let v = sb
        .json(&["recall", "--format", "json", "deploy"])
        .to_string();
    assert!(
        !v.contains(&in_path) && !v.contains("description.md"),
        "{v}"
    );

    // `check` reports each of them, by rule id only.
    let out = sb.cmd().args(["check", "--json"]).output().unwrap();
    let text = printed(&out);
    for p in [
        "project/body.md",
        "project/description.md",
        "project/name.md",
    ] {
        assert!(text.contains(p), "{p}: {text}");
    }
    assert!(!text.contains(&in_description) && !text.contains(&in_body.value));

    // MEMORY.md never shows them, even where sanitizing would join `gh` and `p_` again.
    sb.ok(&["index"]);
    let index = fs::read_to_string(root.join("MEMORY.md")).unwrap();
    assert!(index.contains("Deploy steps"), "{index}");
    let joined = hidden.replace('\u{200b}', "");
    for leaked in [&in_description, &in_path, &joined] {
        assert!(!index.contains(leaked.as_str()), "{index}");
    }
}

fn install_local(sb: &Sandbox) {
    let out = sb
        .cmd()
        .args(["install", "--local"])
        .env("PATH", common::path_with_bin())
        .output()
        .unwrap();
    assert_success(&out, &["install --local"]);
}

#[test]
fn commit_and_pre_commit_block_memory_files_with_secrets() {
    let sb = Sandbox::new();
    install_local(&sb);
    let mem = sb.repo.join(".qwen/memory");
    let jwt = secret_corpus::secrets()
        .into_iter()
        .find(|s| s.rule == "jwt")
        .unwrap();
    write_doc(
        &mem,
        "reference/session.md",
        &doc_text(
            "Session",
            "session",
            "reference",
            &format!("Use {}", jwt.text),
        ),
    );
    let head = sb.git(&sb.repo, &["rev-parse", "HEAD"]);
    let out = sb.cmd().args(["commit"]).output().unwrap();
    assert_ne!(out.status.code(), Some(0), "commit refused");
    let shown = printed(&out);
    assert!(
        shown.contains("jwt") && shown.contains("reference/session.md"),
        "{shown}"
    );
    assert!(!shown.contains(&jwt.value));
    assert_eq!(sb.git(&sb.repo, &["rev-parse", "HEAD"]), head);
    fs::remove_file(mem.join("reference/session.md")).unwrap();

    // pre-commit: team memory and the file name are scanned too, hidden tokens caught.
    let team = sb.repo.join(".qwen/team-memory");
    let url = "postgres://admin:pw@db.internal:5432/app";
    write_doc(
        &team,
        "project/db.md",
        &doc_text("Database", "db", "project", &format!("Connect to {url}")),
    );
    sb.git(&sb.repo, &["add", "-A"]);
    let out = sb.git_hooked(&sb.repo, &["commit", "-q", "-m", "team leak"], &[]);
    assert_eq!(out.status.code(), Some(1), "{}", printed(&out));
    let shown = printed(&out);
    assert!(shown.contains("url-credentials") && shown.contains(".qwen/team-memory/project/db.md"));
    assert!(!shown.contains(url));
    sb.git(
        &sb.repo,
        &["rm", "-q", "--cached", "-r", ".qwen/team-memory"],
    );
    fs::remove_dir_all(&team).unwrap();

    let hidden = format!("Token ｇｈｐ＿{}", Gen::new(41).of(ALNUM, 36));
    write_doc(
        &mem,
        "reference/hidden.md",
        &doc_text("Hidden", "hidden", "reference", &hidden),
    );
    let named = ghp(42);
    write_doc(
        &mem,
        &format!("reference/{named}.md"),
        &doc_text("Named", "named", "reference", "nothing here"),
    );
    sb.git(&sb.repo, &["add", "-A"]);
    let out = sb.git_hooked(&sb.repo, &["commit", "-q", "-m", "hidden"], &[]);
    assert_eq!(out.status.code(), Some(1));
    let shown = printed(&out);
    assert!(
        shown.contains("reference/hidden.md") && shown.contains("github-pat"),
        "{shown}"
    );
    assert!(
        shown.contains("reference/ghp_") || shown.contains(&format!("reference/{named}")),
        "{shown}"
    );
    assert_eq!(sb.git(&sb.repo, &["rev-parse", "HEAD"]), head);

    // A reviewed false positive in a file a person wrote passes both.
    sb.git(&sb.repo, &["rm", "-q", "--cached", "-r", ".qwen/memory"]);
    fs::remove_dir_all(&mem).unwrap();
    write_doc(
        &mem,
        "reference/sample.md",
        &doc_text(
            "Sample",
            "sample",
            "reference",
            &format!("The docs show {} qwen-memory:allow", ghp(43)),
        ),
    );
    sb.git(&sb.repo, &["add", "-A"]);
    let out = sb.git_hooked(&sb.repo, &["commit", "-q", "-m", "reviewed"], &[]);
    assert_success(&out, &["commit reviewed"]);
}

/// The commands that show a memory's content in a report mask a secret in it, as `list` and
/// `show` do: `forget`'s confirmation list, its dry-run diff and its report (text and JSON);
/// `dream` leaves such documents alone and names them without their content. `forget` is what a user runs to get rid of a leaked secret; it must
/// not print it to the terminal or a CI log.
#[test]
fn forget_and_dream_reports_mask_a_secret_in_a_memory() {
    let sb = Sandbox::new();
    let token = ghp(7);
    let root = sb.private_root();
    write_doc(
        &root,
        "reference/ci.md",
        &doc_text(
            "CI notes",
            "CI notes",
            "reference",
            &format!("- The CI token is {token}\n- The CI runs on every push"),
        ),
    );
    write_doc(
        &root,
        "reference/ci-2.md",
        &doc_text(
            "CI notes",
            "CI notes",
            "reference",
            &format!("- The CI token is {token}\n- CI caches the cargo registry"),
        ),
    );
    // A dream leaves both documents alone (they hold a secret) and says so.
    for args in [
        vec!["dream", "--dry-run", "--force"],
        vec!["--json", "dream", "--dry-run", "--force"],
    ] {
        let out = sb.cmd().args(&args).output().unwrap();
        let shown = printed(&out);
        assert!(
            !shown.contains(&token),
            "{args:?} printed the token: {shown}"
        );
        assert!(
            shown.contains("left alone") || shown.contains("leftAlone"),
            "{args:?}: {shown}"
        );
    }
    for args in [
        vec!["forget", "ci token", "--dry-run"],
        vec!["--json", "forget", "ci token", "--dry-run"],
        vec!["forget", "ci token", "--yes"],
    ] {
        let out = sb.cmd().args(&args).output().unwrap();
        let shown = printed(&out);
        assert!(
            !shown.contains(&token),
            "{args:?} printed the token: {shown}"
        );
        assert!(shown.contains("[REDACTED:github-pat]"), "{args:?}: {shown}");
    }
    assert!(
        !all_text(&root).contains("The CI token is"),
        "forget --yes removed both entries"
    );
}

/// One document holding a secret does not stop a dream: it is left as it is and named, and
/// the rest is consolidated (a dry run shows the same plan the run applies).
#[test]
fn a_dream_leaves_a_document_with_a_secret_alone_and_consolidates_the_rest() {
    let sb = Sandbox::new();
    let token = ghp(9);
    let root = sb.private_root();
    let secret_doc = write_doc(
        &root,
        "reference/ci.md",
        &doc_text(
            "CI notes",
            "CI notes",
            "reference",
            // Unsorted, with a duplicate: a dream would rewrite it.
            &format!(
                "- The CI token is {token}\n- CI caches the registry\n- CI caches the registry"
            ),
        ),
    );
    let before = fs::read(&secret_doc).unwrap();
    write_doc(
        &root,
        "feedback/r.md",
        &doc_text(
            "Replies",
            "Replies",
            "feedback",
            "- Keep replies short.\n- Keep replies short.",
        ),
    );
    let dry = sb.json(&["dream", "--dry-run", "--force"]);
    let out = sb.cmd().args(["dream", "--force"]).output().unwrap();
    assert_success(&out, &["dream --force"]);
    let text = printed(&out);
    assert!(
        text.contains("left alone reference/ci.md: it holds a secret"),
        "{text}"
    );
    assert!(!text.contains(&token), "{text}");
    assert_eq!(fs::read(&secret_doc).unwrap(), before, "left as it was");
    let r = fs::read_to_string(root.join("feedback/r.md")).unwrap();
    assert_eq!(r.matches("Keep replies short.").count(), 1, "{r}");
    assert_eq!(dry["leftAlone"][0]["path"], "reference/ci.md", "{dry}");
    assert_eq!(dry["changes"].as_array().unwrap().len(), 1, "{dry}");
}
