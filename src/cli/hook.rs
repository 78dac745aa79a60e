//! `hook <name>`: the entry point the installed Git and agent hooks call. Never for people.
//!
//! Exit code 0 on every path but pre-commit's deliberate block; nothing on stderr but that
//! block's message; panics are caught and logged by the library.

use std::ffi::OsString;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use qwen_memory::integrations::agent::Agent;
use qwen_memory::ops::hook_entry::{self, HookRun};

/// Arguments of `hook`.
#[derive(Debug, Args)]
pub struct HookArgs {
    /// The hook: pre-commit, post-commit, post-merge, post-checkout, post-rewrite (Git), or
    /// recall, extract, session-start (agents).
    pub name: String,
    /// The agent calling (qwen, claude) for recall/extract.
    #[arg(long)]
    pub agent: Option<String>,
    /// The arguments Git passes to the hook.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    pub args: Vec<String>,
}

/// The Git hooks the installed shims run.
const GIT_HOOKS: [&str; 5] = [
    "pre-commit",
    "post-commit",
    "post-merge",
    "post-checkout",
    "post-rewrite",
];

/// Runs a Git hook straight from the process arguments when they have exactly the shape the
/// shims give (`hook <Git hook> <Git's arguments>`, optionally after `-C <dir>`), without
/// building the whole command line first: Git runs these on every commit, checkout and merge,
/// and clap's parser was a fifth of a no-op hook's instructions (docs/bench/2026-12-02-hook-cost-2.md).
/// Git's arguments are object ids, a flag digit or a word (`amend`, `rebase`), at most three;
/// anything else (an option, more arguments, text that is not UTF-8) is `None`, and clap parses
/// it as before.
pub fn run_git_hook_from_args(args: impl IntoIterator<Item = OsString>) -> Option<ExitCode> {
    let (dir, hook_args) = git_hook_invocation(args)?;
    // As `main` resolves `-C` for a hook: a hook never fails on an unreadable directory.
    let cwd = std::env::current_dir().unwrap_or_default();
    let cwd = match dir {
        Some(d) => cwd.join(d),
        None => cwd,
    };
    Some(run(&cwd, &hook_args))
}

/// The `-C` directory and the hook of process arguments shaped as a shim gives them (see
/// [`run_git_hook_from_args`]), else `None`.
fn git_hook_invocation(
    args: impl IntoIterator<Item = OsString>,
) -> Option<(Option<PathBuf>, HookArgs)> {
    let args: Vec<OsString> = args.into_iter().skip(1).collect();
    let (dir, rest) = match args.as_slice() {
        // An empty `-C` is clap's to refuse, as for every other command.
        [flag, dir, rest @ ..] if flag.to_str() == Some("-C") && !dir.is_empty() => {
            (Some(PathBuf::from(dir)), rest)
        }
        rest => (None, rest),
    };
    let [hook, name, git_args @ ..] = rest else {
        return None;
    };
    let name = name
        .to_str()
        .filter(|n| hook.to_str() == Some("hook") && GIT_HOOKS.contains(n))?;
    let git_args: Vec<String> = git_args
        .iter()
        .map(|a| a.to_str().map(str::to_string))
        .collect::<Option<_>>()?;
    if git_args.len() > 3 || git_args.iter().any(|a| a.is_empty() || a.starts_with('-')) {
        return None;
    }
    let hook_args = HookArgs {
        name: name.to_string(),
        agent: None,
        args: git_args,
    };
    Some((dir, hook_args))
}

/// Runs a hook in `cwd` and renders its result.
pub fn run(cwd: &Path, args: &HookArgs) -> ExitCode {
    let name = args.name.clone();
    let run = hook_entry::guarded(&name, || match name.as_str() {
        "recall" | "extract" | "session-start" => {
            let mut stdin = Vec::new();
            // A hook without stdin (run by hand) just has an empty payload.
            let _ = std::io::stdin()
                .take(16 * 1024 * 1024)
                .read_to_end(&mut stdin);
            let agent = args.agent.as_deref().and_then(Agent::parse);
            hook_entry::agent_hook(cwd, &name, agent, &stdin)
        }
        _ => hook_entry::git_hook(cwd, &name, &args.args),
    });
    render(&run)
}

fn render(run: &HookRun) -> ExitCode {
    if !run.stdout.is_empty() {
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(run.stdout.as_bytes());
        let _ = out.flush();
    }
    if !run.stderr.is_empty() {
        let _ = std::io::stderr().write_all(run.stderr.as_bytes());
    }
    ExitCode::from(run.code)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn invocation(args: &[&str]) -> Option<(Option<PathBuf>, String, Vec<String>)> {
        let args = std::iter::once("git-qwen-memory")
            .chain(args.iter().copied())
            .map(OsString::from);
        git_hook_invocation(args).map(|(dir, h)| (dir, h.name, h.args))
    }

    #[test]
    fn only_the_shapes_the_shims_give_skip_clap() {
        let oid = "0123456789abcdef0123456789abcdef01234567";
        assert_eq!(
            invocation(&["hook", "post-checkout", oid, oid, "1"]),
            Some((
                None,
                "post-checkout".into(),
                vec![oid.into(), oid.into(), "1".into()]
            ))
        );
        assert_eq!(
            invocation(&["-C", "some dir", "hook", "post-commit"]),
            Some((
                Some(PathBuf::from("some dir")),
                "post-commit".into(),
                vec![]
            ))
        );
        assert_eq!(
            invocation(&["hook", "post-rewrite", "rebase"]).map(|i| i.2),
            Some(vec!["rebase".to_string()])
        );
        for clap_parses in [
            &["hook", "recall"][..],
            &["hook", "post-commit", "--help"],
            &["hook", "post-merge", "-q"],
            &["hook", "post-checkout", "a", "b", "c", "d"],
            &["hook", "post-merge", ""],
            &["-q", "hook", "post-commit"],
            &["-Cdir", "hook", "post-commit"],
            &["-C", "", "hook", "post-commit"],
            &["hooks", "post-commit"],
            &["hook"],
            &["list"],
            &[],
        ] {
            assert_eq!(invocation(clap_parses), None, "{clap_parses:?}");
        }
    }
}
