//! `hook <name>`: the entry point the installed Git and agent hooks call. Never for people.
//!
//! Exit code 0 on every path but pre-commit's deliberate block; nothing on stderr but that
//! block's message; panics are caught and logged by the library.

use std::io::{Read, Write};
use std::path::Path;
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
