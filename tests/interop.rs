//! Interop suite: this tool and the real Qwen Code 0.24.4 on one project.
//!
//! Opt-in with `QWEN_MEMORY_INTEROP=1` (`.ci/run` sets it); Qwen Code is installed from npm
//! into a cache on first use, and a missing `node`/`npm` fails loudly. Every check drives the
//! real `node cli.js -p …` against a loopback model server (`interop/server.rs`) in a sandbox
//! (`interop/qwen.rs`), then our real binary.
//!
//! Adding a check: write a `#[test]` that starts with
//! `if !qwen::enabled("name") { return; }`, builds a `World::new()`, starts a
//! `ModelServer` (`ModelServer::always("ok")`, or `ModelServer::start(|req| …)` to script
//! answers and tool calls), runs `world.qwen(&server, prompt, &["--yolo"])` and our binary with
//! `world.ours()`, and asserts on files and on `server.requests()`.

use crate::common;
use crate::qwen;
use crate::server;

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::json;

use common::assert_success;
use qwen::World;
use server::{Answer, ModelServer, Request};

/// A model whose main agent answers `reply` and whose extraction agent writes `files`
/// (absolute path, content) with `write_file` on its first turn, then stops.
fn extraction_writes(reply: &str, files: Vec<(PathBuf, String)>) -> ModelServer {
    let reply = reply.to_string();
    ModelServer::start(move |req: &Request| {
        if req.is_extraction_agent() {
            if req.tool_results() == 0 && !files.is_empty() {
                return Answer::Tools(
                    files
                        .iter()
                        .map(|(path, content)| {
                            (
                                "write_file".to_string(),
                                json!({"file_path": path.display().to_string(), "content": content}),
                            )
                        })
                        .collect(),
                );
            }
            return Answer::Text("Memory updated.".into());
        }
        Answer::Text(reply.clone())
    })
}

fn run_ours(world: &World, args: &[&str]) -> std::process::Output {
    world
        .ours()
        .args(args)
        .output()
        .expect("run git-qwen-memory")
}

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

/// Memories written by Qwen's own extraction agent, the way its prompt tells it to work (read
/// first, then write new files, `edit` an existing one and update `MEMORY.md` itself), pass
/// our `check` and `index --check`, and our index rebuild leaves Qwen's bytes alone. The
/// existing document it edits was written by us.
#[test]
fn qwen_written_memories_pass_our_check_and_index_check() {
    if !qwen::enabled("qwen_written_memories_pass_our_check_and_index_check") {
        return;
    }
    let world = World::new();
    let root = world.private_root();
    let user_root = world.user_root();
    let remembered = run_ours(
        &world,
        &[
            "remember",
            "--json",
            "--type",
            "project",
            "Deploy only from release branches, because main is not always green.",
        ],
    );
    assert_success(&remembered, &["remember"]);
    let remembered: serde_json::Value = serde_json::from_slice(&remembered.stdout).unwrap();
    let our_doc = root.join(
        remembered["change"]["relativePath"]
            .as_str()
            .expect("relativePath"),
    );
    let our_text = read(&our_doc);
    let our_body_line = "Why: main is not always green.";
    assert!(our_text.contains(our_body_line), "{our_text}");
    let project_index = root.join("MEMORY.md");
    let index_before = read(&project_index);

    let freeze_doc = root.join("project/release-freeze.md");
    let user_doc = user_root.join("user/terse-answers.md");
    let cjk_doc = user_root.join("feedback/\u{56de}\u{7b54}\u{8981}\u{7b80}\u{6d01}.md");
    let writes = {
        let (our_doc, freeze_doc, user_doc, cjk_doc, project_index) = (
            our_doc.clone(),
            freeze_doc.clone(),
            user_doc.clone(),
            cjk_doc.clone(),
            project_index.clone(),
        );
        let index_before = index_before.clone();
        let p = |p: &PathBuf| p.display().to_string();
        move || -> Vec<(String, serde_json::Value)> {
            vec![
                (
                    "write_file".into(),
                    json!({"file_path": p(&freeze_doc), "content":
                        "---\nname: Release freeze: no merges after 2026-03-05\n\
                         description: Non-critical merges stop on 2026-03-05 for the mobile release cut\n\
                         type: project\n---\n\n\
                         Merge freeze begins 2026-03-05 for the mobile release cut.\n\n\
                         **Why:** the mobile team is cutting a release branch.\n\n\
                         **How to apply:** flag any non-critical PR scheduled after that date.\n"}),
                ),
                (
                    "write_file".into(),
                    json!({"file_path": p(&user_doc), "content":
                        "---\nname: Terse answers\ndescription: The user wants short answers \
                         without trailing summaries\ntype: user\n---\n\nKeep answers short.\n"}),
                ),
                (
                    "write_file".into(),
                    json!({"file_path": p(&cjk_doc), "content":
                        "---\nname: \u{56de}\u{7b54}\u{8981}\u{7b80}\u{6d01}\n\
                         description: \u{7528}\u{6237}\u{559c}\u{6b22}\u{7b80}\u{77ed}\u{7684}\u{56de}\u{7b54}\n\
                         type: feedback\n---\n\n\u{56de}\u{7b54}\u{8981}\u{7b80}\u{6d01}\u{3002}\n\n\
                         **Why:** \u{7528}\u{6237}\u{8bf4}\u{8fc7}\u{3002}\n"}),
                ),
                (
                    "edit".into(),
                    json!({"file_path": p(&our_doc), "old_string": our_body_line, "new_string":
                        format!("{our_body_line}\n\n**How to apply:** cut hotfixes from the release branch too.")}),
                ),
                (
                    "edit".into(),
                    json!({"file_path": p(&project_index), "old_string": index_before.clone(),
                        "new_string": format!("{index_before}\n- [Release freeze](project/release-freeze.md) \u{2014} merge freeze")}),
                ),
            ]
        }
    };
    let reads = {
        let (our_doc, project_index) = (our_doc.clone(), project_index.clone());
        move || -> Vec<(String, serde_json::Value)> {
            [our_doc.clone(), project_index.clone()]
                .iter()
                .map(|f| {
                    (
                        "read_file".to_string(),
                        json!({"file_path": f.display().to_string()}),
                    )
                })
                .collect()
        }
    };
    let server = ModelServer::start(move |req: &Request| {
        if !req.is_extraction_agent() {
            return Answer::Text("Noted.".into());
        }
        match req.tool_results() {
            0 => Answer::Tools(reads()),
            2 => Answer::Tools(writes()),
            _ => Answer::Text("Memory updated.".into()),
        }
    });
    world.qwen_ok(
        &server,
        "Merges freeze on 2026-03-05 for the mobile release cut. I like terse answers. \u{56de}\u{7b54}\u{8981}\u{7b80}\u{6d01}\u{3002}",
        &["--yolo"],
    );
    let agent_requests: Vec<Request> = server
        .requests()
        .into_iter()
        .filter(Request::is_extraction_agent)
        .collect();
    assert_eq!(
        agent_requests.len(),
        3,
        "Qwen's agent did not run all three turns"
    );
    // Every tool call of the agent succeeded inside Qwen (the edits needed the reads first).
    let last = agent_requests.last().unwrap();
    for m in last.messages().iter().filter(|m| m["role"] == "tool") {
        let t = server::content_text(m);
        let t = t.to_lowercase();
        assert!(
            !t.contains("error") && !t.contains("fail"),
            "a tool call failed in Qwen: {t}"
        );
    }
    for doc in [&freeze_doc, &user_doc, &cjk_doc] {
        assert!(doc.is_file(), "Qwen did not write {}", doc.display());
    }
    assert!(
        read(&our_doc).contains("**How to apply:** cut hotfixes"),
        "Qwen's edit of our document did not land:\n{}",
        read(&our_doc)
    );
    // Qwen rebuilt both indexes after its agent (its own line from the `edit` is gone).
    let qwen_index = read(&project_index);
    assert!(
        qwen_index
            .contains("[Release freeze: no merges after 2026-03-05](project/release-freeze.md)"),
        "{qwen_index}"
    );
    let qwen_user_index = read(&user_root.join("MEMORY.md"));
    assert!(qwen_user_index.contains("%E5%9B%9E"), "{qwen_user_index}");

    let check = run_ours(&world, &["check"]);
    assert_success(&check, &["check"]);
    let index_check = run_ours(&world, &["index", "--check"]);
    assert_success(&index_check, &["index", "--check"]);
    // Our own rebuild must leave Qwen's bytes exactly as they were.
    assert_success(&run_ours(&world, &["index"]), &["index"]);
    assert_eq!(read(&project_index), qwen_index);
    assert_eq!(read(&user_root.join("MEMORY.md")), qwen_user_index);
    // And we read Qwen's title as Qwen does: unquoted, colon and all.
    let list = run_ours(&world, &["list", "--json"]);
    assert_success(&list, &["list", "--json"]);
    let list = String::from_utf8_lossy(&list.stdout);
    assert!(
        list.contains("Release freeze: no merges after 2026-03-05"),
        "{list}"
    );
}

/// Writes a document with an explicit frontmatter block.
fn put(root: &Path, rel: &str, frontmatter: &str, body: &str) -> PathBuf {
    common::write_doc(root, rel, &format!("---\n{frontmatter}\n---\n\n{body}\n"))
}

/// The fixture both indexers must agree on: CJK names, long paths, quotes, zero-width and bidi
/// characters, emoji at the cut points, equal mtimes, and more than 200 files.
fn hard_fixture(root: &Path) {
    let same_time = 1_700_000_000;
    for (rel, name) in [
        ("feedback/b.md", "b lower"),
        ("feedback/B.md", "B upper"),
        ("feedback/a.md", "a"),
        ("feedback/\u{e1}.md", "a acute"),
        ("feedback/_x.md", "underscore"),
        ("feedback/10.md", "ten"),
        ("feedback/9.md", "nine"),
        ("project/a.md", "same name, other dir"),
        ("feedback/a\u{200b}.md", "zero-width in the file name"),
        ("feedback/\u{56e2}\u{961f}.md", "CJK file name"),
    ] {
        let p = put(
            root,
            rel,
            &format!("name: {name}\ndescription: tie {name}\ntype: feedback"),
            "x",
        );
        common::set_mtime(&p, same_time);
    }
    let docs = [
        (
            "project/\u{56e2}\u{961f}\u{8bb0}\u{5fc6}-\u{4f7f}\u{7528}pnpm.md",
            "name: \u{56e2}\u{961f}\u{8bb0}\u{5fc6}\u{ff1a}\u{4f7f}\u{7528} pnpm\ndescription: \u{6240}\u{6709}\u{4ed3}\u{5e93}\u{90fd}\u{7528} pnpm \u{7ba1}\u{7406}\u{4f9d}\u{8d56}\ntype: project",
        ),
        (
            "project/quoted.md",
            "name: \"Deploy: only from release branches\"\ndescription: 'single quoted' # not a comment\ntype: project",
        ),
        (
            "reference/zero-width.md",
            "name: Zero\u{200b}width\u{202e}bidi\u{feff}title\ndescription: tabs\tand `ticks` and ](links)\ntype: reference",
        ),
        (
            "user/emoji-cut.md",
            &format!("name: {}\u{1F600}tail\ndescription: {}\ntype: user", "a".repeat(118), "d".repeat(200)),
        ),
        (
            &format!("project/{}.md", "long-path-segment-".repeat(9)),
            "name: Long path\ndescription: the link target is cut at 120 code points\ntype: project",
        ),
        (
            &format!("project/{}/{}.md", "\u{76ee}\u{5f55}".repeat(40), "\u{6587}\u{4ef6}".repeat(30)),
            "name: Long CJK path\ndescription: percent-encoded and cut\ntype: project",
        ),
        (
            "project/no-description.md",
            "name: No description\ntype: project",
        ),
        ("project/title-only.md", "title: Title key\ndescription: title instead of name\ntype: project"),
        ("project/hash-type.md", "name: Not a memory\ntype: project # comment"),
        ("project/bad-type.md", "name: Not a memory either\ntype: Project"),
    ];
    for (i, (rel, fm)) in docs.iter().enumerate() {
        let p = put(root, rel, fm, "body text");
        common::set_mtime(&p, same_time + 100 + i as i64);
    }
    // Past the 200-document cap: the oldest must drop out of the private and user indexes.
    for i in 0..200 {
        let p = put(
            root,
            &format!("project/bulk-{i:03}.md"),
            &format!(
                "name: Bulk fact {i}\ndescription: bulk description number {i}\ntype: project"
            ),
            "bulk",
        );
        common::set_mtime(&p, same_time - 1000 + i64::from(i % 150));
    }
}

/// Qwen Code's team fixture: grouping by normalized description, paths in code-unit order.
fn team_fixture(root: &Path) {
    for (rel, fm) in [
        (
            "project/b.md",
            "name: B\ndescription: Shared fact.\ntype: project",
        ),
        (
            "project/a.md",
            "name: A\ndescription: shared   FACT\ntype: project",
        ),
        (
            "project/\u{56e2}.md",
            "name: \u{56e2}\ndescription: SHARED fact!\ntype: project",
        ),
        (
            "reference/c.md",
            "name: C\ndescription: other\ntype: reference",
        ),
        ("reference/d.md", "name: D\ntype: reference"),
        ("reference/e.md", "name: E\ntype: reference"),
        (
            "Z.md",
            "name: \"Quoted: Z\"\ndescription: upper case sorts first\ntype: user",
        ),
    ] {
        put(root, rel, fm, "team body");
    }
}

#[test]
fn memory_md_is_byte_identical_whichever_tool_rebuilt_it_last() {
    if !qwen::enabled("memory_md_is_byte_identical_whichever_tool_rebuilt_it_last") {
        return;
    }
    let world = World::new();
    world.merge_project_settings(json!({"memory": {"enableTeamMemory": true}}));
    let private = world.private_root();
    let user = world.user_root();
    let team = world.sb.repo.join(".qwen/team-memory");
    hard_fixture(&private);
    hard_fixture(&user);
    team_fixture(&team);
    // Qwen rebuilds the private and user indexes after its extraction agent wrote there, and
    // the team index at session start.
    let fresh = |name: &str| {
        format!("---\nname: {name}\ndescription: written by Qwen \u{201c}now\u{201d}\ntype: project\n---\n\nfresh\n")
    };
    let server = extraction_writes(
        "ok",
        vec![
            (
                private.join("project/fresh.md"),
                fresh("Fresh project fact"),
            ),
            (user.join("user/fresh.md"), fresh("Fresh user fact")),
        ],
    );

    // Qwen rebuilds first; we must agree and leave its bytes alone.
    world.qwen_ok(&server, "hello", &["--yolo"]);
    let qwen_private = read(&private.join("MEMORY.md"));
    let qwen_user = read(&user.join("MEMORY.md"));
    let qwen_team = read(&team.join("MEMORY.md"));
    assert_eq!(qwen_private.split('\n').count(), 200, "{qwen_private}");
    assert!(qwen_team.contains("(also: "), "{qwen_team}");
    let check = run_ours(&world, &["index", "--check"]);
    assert_success(&check, &["index", "--check"]);
    assert_success(&run_ours(&world, &["index"]), &["index"]);
    assert_eq!(read(&private.join("MEMORY.md")), qwen_private);
    assert_eq!(read(&user.join("MEMORY.md")), qwen_user);
    let scanned =
        qwen_memory::storage::scan::scan_root(&team, qwen_memory::storage::scan::Scope::Team)
            .expect("scan team root");
    assert_eq!(
        qwen_memory::storage::index::build_team_index(&scanned.docs),
        qwen_team
    );

    // We rebuild from scratch; Qwen must write the very same bytes.
    for root in [&private, &user] {
        fs::write(root.join("MEMORY.md"), "stale").unwrap();
    }
    assert_success(&run_ours(&world, &["index"]), &["index"]);
    let ours_private = read(&private.join("MEMORY.md"));
    let ours_user = read(&user.join("MEMORY.md"));
    assert_eq!(ours_private, qwen_private);
    assert_eq!(ours_user, qwen_user);
    // Qwen rewrites the same (already newest) files and rebuilds: the same bytes again.
    world.qwen_ok(&server, "hello again", &["--yolo"]);
    assert_eq!(read(&private.join("MEMORY.md")), ours_private);
    assert_eq!(read(&user.join("MEMORY.md")), ours_user);
}

/// With our hooks installed in Qwen Code, a prompt gets each memory once: Qwen recalls the
/// private and user roots itself, our hook adds the repository and team roots only.
#[test]
fn our_hooks_add_repository_and_team_memory_once_and_never_what_qwen_recalls() {
    if !qwen::enabled("our_hooks_add_repository_and_team_memory_once_and_never_what_qwen_recalls") {
        return;
    }
    each_memory_once(false);
}

/// The same with Qwen's own team memory switched on by `install --team`: Qwen then shows the
/// team index in its system prompt, our hook still brings the team documents themselves, once.
#[test]
fn with_install_team_qwen_shows_the_team_index_and_each_memory_arrives_once() {
    if !qwen::enabled("with_install_team_qwen_shows_the_team_index_and_each_memory_arrives_once") {
        return;
    }
    each_memory_once(true);
}

/// The selector side query Qwen sends with a configured model: answered by picking every
/// memory it offers, so the private memory arrives once whether Qwen takes the model's choice
/// or its lexical fallback (both pick it).
fn select_all_memories(req: &Request) -> Option<Answer> {
    if !req.system().contains("You are selecting memories") {
        return None;
    }
    let offered: Vec<String> = req
        .user_texts()
        .iter()
        .flat_map(|t| t.lines().map(str::to_string).collect::<Vec<_>>())
        .filter_map(|line| {
            let rest = line.strip_prefix("- [")?;
            let (_, rest) = rest.split_once("] ")?;
            Some(rest.rsplit_once(" (").map_or(rest, |(p, _)| p).to_string())
        })
        .collect();
    Some(Answer::Text(
        json!({ "selected_memories": offered }).to_string(),
    ))
}

fn each_memory_once(team: bool) {
    let world = World::new();
    let doc = |title: &str, marker: &str| {
        format!(
            "---\nname: {title}\ndescription: checkout test timezone on CI\ntype: project\n---\n\n\
             The checkout test fails on CI unless TZ=UTC is set ({marker}).\n"
        )
    };
    let private = world.private_root().join("project/ci-timezone.md");
    let repo = world.sb.repo.join(".qwen/memory/project/ci-timezone.md");
    let team_doc = world
        .sb
        .repo
        .join(".qwen/team-memory/project/ci-timezone.md");
    for (path, title, marker) in [
        (&private, "CI timezone private", "PRIVATEMARK"),
        (&repo, "CI timezone repository", "REPOMARK"),
        (&team_doc, "CI timezone team", "TEAMMARK"),
    ] {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, doc(title, marker)).unwrap();
    }
    let mut install = vec!["install", "--hooks", "none", "--agent", "qwen"];
    if team {
        install.push("--team");
    }
    assert_success(&run_ours(&world, &install), &install);
    // The check is about what reaches the request, not about speed: on a loaded machine a debug
    // build's hook can take longer than the installed 10 s, so give Qwen ample time to wait.
    fn raise_timeouts(v: &mut serde_json::Value) -> usize {
        match v {
            serde_json::Value::Object(map) => {
                let mut n = 0;
                if let Some(t) = map.get_mut("timeout") {
                    *t = json!(170);
                    n += 1;
                }
                n + map.values_mut().map(raise_timeouts).sum::<usize>()
            }
            serde_json::Value::Array(items) => items.iter_mut().map(raise_timeouts).sum(),
            _ => 0,
        }
    }
    let user_settings = world.user_settings_path();
    let mut settings: serde_json::Value = serde_json::from_str(&read(&user_settings)).unwrap();
    assert!(
        raise_timeouts(&mut settings) > 0,
        "no hook timeouts in {settings}"
    );
    fs::write(
        &user_settings,
        serde_json::to_string_pretty(&settings).unwrap(),
    )
    .unwrap();
    let project_settings = fs::read_to_string(world.project_settings_path()).unwrap_or_default();
    assert_eq!(
        project_settings.contains("enableTeamMemory"),
        team,
        "{project_settings}"
    );
    let server = ModelServer::start(|req: &Request| {
        select_all_memories(req).unwrap_or_else(|| Answer::Text("The timezone.".into()))
    });
    world.qwen_ok(
        &server,
        "Why does the checkout test fail on CI? Is it the timezone?",
        &[],
    );
    // The main agent's turn (not Qwen's memory-selection side query).
    let first = server
        .main_requests()
        .into_iter()
        .find(|r| {
            r.all_text().contains("Why does the checkout test fail")
                && !r.system().contains("You are selecting memories")
        })
        .expect("Qwen sent no main request");
    let log = fs::read_to_string(world.sb.private_state().join("hook.log")).unwrap_or_default();
    let text = format!("{}\n--- hook.log:\n{log}", first.all_text());
    assert_eq!(
        text.matches("REPOMARK").count(),
        1,
        "repository memory exactly once:\n{text}"
    );
    assert_eq!(
        text.matches("TEAMMARK").count(),
        1,
        "team memory exactly once:\n{text}"
    );
    assert_eq!(
        text.matches("PRIVATEMARK").count(),
        1,
        "private memory exactly once (Qwen recalls it itself; our hook must not add it):\n{text}"
    );
    // Qwen's own view of team memory is its index in the system prompt, only when it is on.
    assert_eq!(
        first
            .system()
            .contains("[CI timezone team](project/ci-timezone.md)"),
        team,
        "team index in Qwen's system prompt:\n{}",
        first.system()
    );
    // Qwen awaits its Stop hook: ours ran and left the turn to Qwen's own extraction, so the
    // turn is extracted once, by Qwen.
    let log = fs::read_to_string(world.sb.private_state().join("hook.log")).unwrap_or_default();
    assert!(!log.contains("panicked"), "{log}");
    assert!(log.contains("skipped (qwen_extracts)"), "hook.log:\n{log}");
    assert!(
        !world
            .sb
            .private_state()
            .join("transcript-cursors.json")
            .exists(),
        "we extracted a turn Qwen extracts"
    );
}

/// The two tools' extraction cursors live side by side in the project's state dir and neither
/// ever writes the other's: Qwen rewrites `extract-cursor.json` whole after each of its
/// extractions, we keep ours in `transcript-cursors.json`, and no turn is read twice by us.
#[test]
fn cursor_files_qwen_rewrites_its_own_and_ours_survives() {
    if !qwen::enabled("cursor_files_qwen_rewrites_its_own_and_ours_survives") {
        return;
    }
    let world = World::new();
    let session = "3b1f6c2e-8d4a-4f7e-9c11-0a2b3c4d5e6f";
    let state = world.sb.private_state();
    let qwen_cursor = state.join("extract-cursor.json");
    let our_cursor = state.join("transcript-cursors.json");
    let private = world.private_root();
    let first_prompt = "Remember: the checkout test needs TZ=UTC on CI.";
    let second_prompt = "Remember: we always squash-merge pull requests into main.";
    // Qwen's extraction agent writes one document per turn, as its prompt tells it to; which
    // one is decided by the conversation it is shown, never by timing.
    let doc_a = private.join("project/ci-timezone.md");
    let doc_b = private.join("project/squash-merges.md");
    let server = {
        let (doc_a, doc_b) = (doc_a.clone(), doc_b.clone());
        ModelServer::start(move |req: &Request| {
            if !req.is_extraction_agent() {
                return Answer::Text("Understood.".into());
            }
            if req.tool_results() > 0 {
                return Answer::Text("Memory updated.".into());
            }
            let (path, name) = if req.all_text().contains("squash-merge") {
                (&doc_b, "Squash merges only")
            } else {
                (&doc_a, "CI needs UTC")
            };
            let content = format!(
                "---\nname: {name}\ndescription: {name} (written by QWENAGENT)\ntype: project\n---\n\n\
                 {name}.\n\n**Why:** said in chat.\n\n**How to apply:** follow it.\n"
            );
            Answer::Tools(vec![(
                "write_file".into(),
                json!({"file_path": path.display().to_string(), "content": content}),
            )])
        })
    };
    let extract = |what: &str| -> serde_json::Value {
        let out = run_ours(&world, &["extract", "--json"]);
        assert_success(&out, &["extract", "--json", what]);
        serde_json::from_slice(&out.stdout).expect("extract --json output")
    };

    // 1. Qwen's first turn: its agent writes, and it writes its cursor.
    world.qwen_ok(&server, first_prompt, &["--yolo", "--session-id", session]);
    assert!(
        doc_a.is_file(),
        "Qwen's agent did not write {}",
        doc_a.display()
    );
    let qwen_after_first = fs::read(&qwen_cursor).expect("Qwen wrote extract-cursor.json");
    let parsed: serde_json::Value = serde_json::from_slice(&qwen_after_first).unwrap();
    assert_eq!(parsed["sessionId"], session, "{parsed}");
    let first_offset = parsed["processedOffset"].as_u64().expect("processedOffset");
    assert!(first_offset > 0, "{parsed}");
    assert!(!our_cursor.exists(), "nothing of ours ran yet");

    // 2. Our extract of the same chat: our own cursor, Qwen's file byte for byte as it was.
    let run1 = extract("first");
    let transcript = run1["transcript"].as_str().expect("transcript").to_string();
    assert!(
        transcript.ends_with(&format!("/chats/{session}.jsonl")),
        "picked {transcript}"
    );
    assert_eq!(run1["startReason"], "fresh", "{run1}");
    let end1 = run1["endOffset"].as_u64().unwrap();
    assert_eq!(end1, fs::metadata(&transcript).unwrap().len(), "{run1}");
    let summaries = |run: &serde_json::Value| -> String {
        run["patches"]
            .as_array()
            .map(|ps| {
                ps.iter()
                    .filter_map(|p| p["summary"].as_str())
                    .collect::<Vec<_>>()
                    .join("\n")
            })
            .unwrap_or_default()
    };
    assert!(
        summaries(&run1).contains("TZ=UTC"),
        "{run1}\ntranscript:\n{}",
        read(Path::new(&transcript))
    );
    assert_eq!(fs::read(&qwen_cursor).unwrap(), qwen_after_first);
    let ours_after_first: serde_json::Value =
        serde_json::from_slice(&fs::read(&our_cursor).expect("our cursor file")).unwrap();
    assert_eq!(
        ours_after_first["transcripts"][&transcript]["byteOffset"], end1,
        "{ours_after_first}"
    );
    let ours_bytes = fs::read(&our_cursor).unwrap();
    // Nothing new: nothing read again.
    let again = extract("again");
    assert_eq!(again["startOffset"], end1, "{again}");
    assert_eq!(again["messagesRead"], 0, "{again}");
    assert_eq!(fs::read(&qwen_cursor).unwrap(), qwen_after_first);

    // 3. Qwen resumes the session: it rewrites its own cursor, ours is left alone.
    world.qwen_ok(&server, second_prompt, &["--yolo", "--resume", session]);
    assert!(
        doc_b.is_file(),
        "Qwen's agent did not write {}",
        doc_b.display()
    );
    let qwen_after_second = fs::read(&qwen_cursor).unwrap();
    let parsed: serde_json::Value = serde_json::from_slice(&qwen_after_second).unwrap();
    let mut keys: Vec<&String> = parsed.as_object().unwrap().keys().collect();
    keys.sort();
    assert_eq!(
        keys,
        ["processedOffset", "sessionId", "updatedAt"],
        "{parsed}"
    );
    assert_eq!(parsed["sessionId"], session);
    assert!(
        parsed["processedOffset"].as_u64().unwrap() > first_offset,
        "Qwen's cursor did not move: {parsed}"
    );
    assert_eq!(
        fs::read(&our_cursor).unwrap(),
        ours_bytes,
        "Qwen touched our cursor"
    );

    // 4. Our extract reads only what the resumed session added.
    let run2 = extract("second");
    assert_eq!(run2["transcript"], transcript.as_str(), "{run2}");
    assert_eq!(run2["startReason"], "resume", "{run2}");
    assert_eq!(run2["startOffset"], end1, "{run2}");
    let second = summaries(&run2);
    assert!(second.contains("squash"), "{run2}");
    assert!(
        !second.contains("TZ=UTC"),
        "the first turn was extracted twice: {run2}"
    );
    assert_eq!(fs::read(&qwen_cursor).unwrap(), qwen_after_second);

    // Each fact is in our memory once, next to what Qwen's agent wrote, and all of it passes.
    let docs: Vec<String> = walk_md(&private)
        .into_iter()
        .filter(|p| !p.ends_with("MEMORY.md"))
        .map(|p| read(&p))
        .collect();
    let holding = |needle: &str| docs.iter().filter(|d| d.contains(needle)).count();
    assert_eq!(holding("TZ=UTC"), 1, "{docs:#?}");
    assert_eq!(holding("squash-merge pull requests"), 1, "{docs:#?}");
    assert_eq!(holding("QWENAGENT"), 2, "{docs:#?}");
    assert_success(&run_ours(&world, &["check"]), &["check"]);
    assert_success(
        &run_ours(&world, &["index", "--check"]),
        &["index", "--check"],
    );
}

fn walk_md(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Ok(entries) = fs::read_dir(dir) {
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                out.extend(walk_md(&p));
            } else if p.extension().is_some_and(|x| x == "md") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// "Both extract": in our local mode we extract into `.qwen/memory/` while Qwen's own agent
/// extracts into its private root. The user root is shared, so the `user` facts of a Qwen chat
/// are written once, by Qwen's agent; our extract of the same chat writes only the rest.
#[test]
fn both_extracting_writes_each_user_fact_once() {
    if !qwen::enabled("both_extracting_writes_each_user_fact_once") {
        return;
    }
    let world = World::new();
    world
        .sb
        .git(&world.sb.repo, &["config", "qwen-memory.local", "true"]);
    let user_doc = world.user_root().join("user/terse-answers.md");
    let server = extraction_writes(
        "Noted.",
        vec![(
            user_doc.clone(),
            "---\nname: Terse answers\ndescription: The user prefers terse answers\ntype: user\n\
             ---\n\nThe user prefers terse answers.\n"
                .into(),
        )],
    );
    world.qwen_ok(
        &server,
        "I prefer terse answers. Remember: we deploy only from release branches.",
        &["--yolo"],
    );
    assert!(
        user_doc.is_file(),
        "Qwen's agent did not write {}",
        user_doc.display()
    );

    let out = run_ours(&world, &["extract", "--json"]);
    assert_success(&out, &["extract", "--json"]);
    let run: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(run["format"], "qwen", "{run}");
    assert_eq!(run["userFactsLeftToQwen"], 1, "{run}");
    let repo_docs: String = walk_md(&world.sb.repo.join(".qwen/memory"))
        .iter()
        .map(|p| read(p))
        .collect();
    assert!(repo_docs.contains("release branches"), "{repo_docs}");
    let user_docs: Vec<PathBuf> = walk_md(&world.user_root())
        .into_iter()
        .filter(|p| !p.ends_with("MEMORY.md"))
        .collect();
    assert_eq!(user_docs, vec![user_doc], "one copy of the user fact");
    assert_success(&run_ours(&world, &["check"]), &["check"]);
}

/// Folders as Qwen resolves them: with `QWEN_RUNTIME_DIR` set (and no memory base dir), Qwen
/// keeps memory and chats under it; a session started in a subdirectory gets its own chats dir.
/// Our `status` names the very project root Qwen told its extraction agent, and our `extract`
/// run at the top of the working tree finds the subdirectory's chat.
#[test]
fn runtime_dir_and_subdirectory_sessions_resolve_as_in_qwen() {
    if !qwen::enabled("runtime_dir_and_subdirectory_sessions_resolve_as_in_qwen") {
        return;
    }
    use std::sync::{Arc, Mutex};
    let world = World::new();
    let runtime = world.sb.root().join("runtime");
    let runtime_s = runtime.display().to_string();
    let subdir = world.sb.repo.join("src/app");
    fs::create_dir_all(&subdir).unwrap();
    // The project root Qwen names in its extraction agent's task.
    let told: Arc<Mutex<Option<String>>> = Arc::default();
    let server = {
        let told = Arc::clone(&told);
        ModelServer::start(move |req: &Request| {
            if !req.is_extraction_agent() {
                return Answer::Text("Noted.".into());
            }
            if req.tool_results() > 0 {
                return Answer::Text("Memory updated.".into());
            }
            let text = req.all_text();
            let Some(root) = text
                .lines()
                .find_map(|l| l.strip_prefix("- PROJECT memory (this project only): `"))
                .and_then(|rest| rest.strip_suffix('`'))
            else {
                return Answer::Text("no project root in the task".into());
            };
            *told.lock().unwrap() = Some(root.to_string());
            Answer::Tools(vec![(
                "write_file".into(),
                json!({"file_path": format!("{root}/project/runtime-dir.md"), "content":
                    "---\nname: Runtime dir\ndescription: Memory lives under QWEN_RUNTIME_DIR\n\
                     type: project\n---\n\nMemory lives under QWEN_RUNTIME_DIR.\n"}),
            )])
        })
    };
    let env = [
        ("QWEN_RUNTIME_DIR", Some(runtime_s.as_str())),
        ("QWEN_CODE_MEMORY_BASE_DIR", None),
    ];
    let out = world.qwen_env(
        &subdir,
        &server,
        "Remember: the app module never imports from the cli module.",
        &["--yolo"],
        &env,
    );
    assert!(
        out.status.success(),
        "qwen failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let told = told
        .lock()
        .unwrap()
        .clone()
        .expect("Qwen's extraction agent was never asked to write");
    assert!(told.starts_with(&runtime_s), "Qwen's project root {told}");
    assert!(Path::new(&told).join("project/runtime-dir.md").is_file());

    let ours = |args: &[&str]| {
        let out = world
            .ours()
            .env("QWEN_RUNTIME_DIR", &runtime)
            .env_remove("QWEN_CODE_MEMORY_BASE_DIR")
            .args(args)
            .output()
            .expect("run git-qwen-memory");
        assert_success(&out, args);
        serde_json::from_slice::<serde_json::Value>(&out.stdout).expect("json")
    };
    let status = ours(&["status", "--json"]);
    let private = status["roots"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["scope"] == "private")
        .expect("private root")["path"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(private, told, "{status}");
    assert!(
        status["roots"].to_string().contains("\"docs\":1"),
        "we do not see Qwen's document: {status}"
    );
    let run = ours(&["extract", "--json"]);
    let transcript = run["transcript"].as_str().unwrap();
    assert!(transcript.starts_with(&runtime_s), "{run}");
    assert!(
        transcript.contains(&common::sanitize(&subdir.display().to_string())),
        "not the subdirectory's chat: {run}"
    );
    assert!(
        run["patches"]
            .to_string()
            .contains("never imports from the cli module"),
        "{run}"
    );
}
