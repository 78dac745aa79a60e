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

#[path = "common/mod.rs"]
mod common;
#[path = "interop/qwen.rs"]
mod qwen;
#[path = "interop/server.rs"]
mod server;

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

#[test]
fn qwen_written_memories_pass_our_check_and_index_check() {
    if !qwen::enabled("qwen_written_memories_pass_our_check_and_index_check") {
        return;
    }
    let world = World::new();
    let root = world.private_root();
    let user_root = world.user_root();
    let project_doc = root.join("project/deploy-branches.md");
    let user_doc = user_root.join("user/terse-answers.md");
    let server = extraction_writes(
        "Noted.",
        vec![
            (
                project_doc.clone(),
                "---\nname: Deploy only from release branches\ndescription: Production deploys \
                 are cut from release/* branches, never from main\ntype: project\n---\n\n\
                 Deploy only from release branches.\n\nWhy: main is not always green.\n"
                    .into(),
            ),
            (
                user_doc.clone(),
                "---\nname: Terse answers\ndescription: The user wants short answers\ntype: \
                 user\n---\n\nKeep answers short.\n"
                    .into(),
            ),
        ],
    );
    world.qwen_ok(
        &server,
        "We only deploy from release branches, and I like terse answers.",
        &["--yolo"],
    );
    assert!(
        server.requests().iter().any(Request::is_extraction_agent),
        "Qwen never ran its extraction agent"
    );
    assert!(
        project_doc.is_file(),
        "Qwen did not write {}",
        project_doc.display()
    );
    assert!(
        user_doc.is_file(),
        "Qwen did not write {}",
        user_doc.display()
    );
    let qwen_index = read(&root.join("MEMORY.md"));
    assert!(
        qwen_index.contains("deploy-branches.md"),
        "Qwen's index lacks the new file:\n{qwen_index}"
    );

    let check = run_ours(&world, &["check"]);
    assert_success(&check, &["check"]);
    let index_check = run_ours(&world, &["index", "--check"]);
    assert_success(&index_check, &["index", "--check"]);
    // Our own rebuild must leave Qwen's bytes exactly as they were.
    assert_success(&run_ours(&world, &["index"]), &["index"]);
    assert_eq!(read(&root.join("MEMORY.md")), qwen_index);
    assert!(read(&user_root.join("MEMORY.md")).contains("terse-answers.md"));
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
    let world = World::new();
    let doc = |title: &str, marker: &str| {
        format!(
            "---\nname: {title}\ndescription: checkout test timezone on CI\ntype: project\n---\n\n\
             The checkout test fails on CI unless TZ=UTC is set ({marker}).\n"
        )
    };
    let private = world.private_root().join("project/ci-timezone.md");
    let repo = world.sb.repo.join(".qwen/memory/project/ci-timezone.md");
    let team = world
        .sb
        .repo
        .join(".qwen/team-memory/project/ci-timezone.md");
    for (path, title, marker) in [
        (&private, "CI timezone private", "PRIVATEMARK"),
        (&repo, "CI timezone repository", "REPOMARK"),
        (&team, "CI timezone team", "TEAMMARK"),
    ] {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, doc(title, marker)).unwrap();
    }
    assert_success(
        &run_ours(&world, &["install", "--hooks", "none", "--agent", "qwen"]),
        &["install --agent qwen"],
    );
    let server = ModelServer::always("The timezone.");
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
            let t = r.all_text();
            t.contains("Why does the checkout test fail")
                && !t.contains("You are selecting memories")
        })
        .expect("Qwen sent no main request");
    let text = first.all_text();
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
    assert!(
        text.matches("PRIVATEMARK").count() <= 1,
        "private memory never twice (Qwen recalls it itself; our hook must not add it):\n{text}"
    );
    // Our hook's own log says which roots it read; no extraction of Qwen's turns by us.
    let log = fs::read_to_string(world.sb.private_state().join("hook.log")).unwrap_or_default();
    assert!(!log.contains("panicked"), "{log}");
}
