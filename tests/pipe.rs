//! A closed stdout (`git qwen-memory list | head -1`) ends every command quietly: no panic, no
//! backtrace, the usual exit code.

use crate::common;

use std::process::Stdio;

use common::*;

/// Runs the binary with a stdout whose reading end is already closed, so its first write fails
/// with a broken pipe, deterministically.
fn run_closed(sb: &Sandbox, args: &[&str]) -> std::process::Output {
    let (reader, writer) = std::io::pipe().expect("pipe");
    drop(reader);
    let mut c = sb.std_cmd(&sb.repo);
    c.args(args)
        .env("RUST_BACKTRACE", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::from(writer))
        .stderr(Stdio::piped());
    let child = c.spawn().expect("spawn");
    child.wait_with_output().expect("wait")
}

#[test]
fn every_command_exits_quietly_on_a_closed_pipe() {
    let sb = Sandbox::new();
    for i in 0..3 {
        sb.ok(&[
            "remember",
            &format!("Deploys go out on day {i} of the sprint"),
        ]);
    }
    sb.ok(&["remember", "Deploys go out on day 0 of the sprint again"]);
    let id = "project/deploys-go-out-on-day-0-of-the-sprint.md";
    let cases: Vec<Vec<&str>> = vec![
        vec!["list"],
        vec!["list", "--json"],
        vec!["status"],
        vec!["status", "--json"],
        vec!["show", id],
        vec!["man"],
        vec!["completions", "bash"],
        vec!["completions", "zsh"],
        vec!["recall", "deploys sprint"],
        vec!["check"],
        vec!["index"],
        vec!["stats"],
        vec!["dream", "--force", "--dry-run"],
        vec!["dream", "--force"],
        vec!["--help"],
        vec!["remember", "The release train leaves on Fridays"],
    ];
    for args in cases {
        let out = run_closed(&sb, &args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            !err.contains("panicked") && !err.contains("backtrace") && !err.contains("Broken pipe"),
            "{args:?}: {err}"
        );
        assert_eq!(out.status.code(), Some(0), "{args:?}: {err}");
    }
    // `check` still fails for real problems, pipe or not.
    std::fs::write(sb.private_root().join("MEMORY.md"), "# stale\n").unwrap();
    let out = run_closed(&sb, &["check"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
