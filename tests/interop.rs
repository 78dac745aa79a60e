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
