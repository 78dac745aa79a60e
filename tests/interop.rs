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
