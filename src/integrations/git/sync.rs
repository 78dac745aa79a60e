//! `sync`: the one-command team flow for memory shared through commits — pull (fast-forward
//! only), commit the memory directories, push — as Qwen Code's team sync does it
//! (docs/DESIGN.md, "Git integration").
//!
//! It never touches the user's other changes (the commit is `commit_memory`'s, which leaves
//! other staged and unstaged changes as they were), never prompts (no terminal prompts, SSH in
//! batch mode) and never waits forever (each Git command is killed after a time limit). A push
//! happens only when the branch was not already ahead of its upstream before our commit, so
//! sync never publishes the user's own unpushed work; a failed push undoes our commit with
//! `reset --soft`, so the memory changes stay in the working tree for the next try.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde::Serialize;

use super::commit::{commit_memory, CommitOutcome};
use super::GitError;
use crate::storage::context::Context;

/// How long one network Git command (pull, push) may take.
pub const NETWORK_TIMEOUT: Duration = Duration::from_secs(60);

/// What `sync` did, step by step.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SyncOutcome {
    /// The upstream branch (`origin/main`), when the branch has one.
    pub upstream: Option<String>,
    /// `fast-forwarded`, `up-to-date`, `skipped` (no upstream) or `failed`.
    pub pull: &'static str,
    pub pull_error: Option<String>,
    pub commit: Option<CommitOutcome>,
    /// `pushed`, `nothing-to-push`, `skipped-ahead` (the branch already had unpushed commits),
    /// `skipped` (no upstream or nothing committed) or `failed`.
    pub push: &'static str,
    pub push_error: Option<String>,
    /// Whether our commit was undone (soft) after a failed push.
    pub commit_undone: bool,
}

/// Runs the flow in the repository of `ctx`.
pub fn sync(ctx: &Context) -> Result<SyncOutcome, GitError> {
    let workdir = ctx.project.worktree.clone().ok_or(GitError::NoRepository)?;
    let mut out = SyncOutcome {
        upstream: None,
        pull: "skipped",
        pull_error: None,
        commit: None,
        push: "skipped",
        push_error: None,
        commit_undone: false,
    };
    out.upstream = git(
        &workdir,
        &["rev-parse", "--abbrev-ref", "--symbolic-full-name", "@{u}"],
        Duration::from_secs(10),
    )
    .ok()
    .map(|s| s.trim().to_string())
    .filter(|s| !s.is_empty());

    if out.upstream.is_some() {
        let before = head(&workdir);
        match git(&workdir, &["pull", "--ff-only", "--quiet"], NETWORK_TIMEOUT) {
            Ok(_) => {
                out.pull = if head(&workdir) == before {
                    "up-to-date"
                } else {
                    "fast-forwarded"
                }
            }
            Err(e) => {
                // A pull that cannot fast-forward (diverged) or cannot reach the remote leaves
                // everything as it was; committing locally is still useful.
                out.pull = "failed";
                out.pull_error = Some(e.to_string());
            }
        }
    }
    let ahead_before = out.upstream.is_some()
        && git(
            &workdir,
            &["rev-list", "--count", "@{u}..HEAD"],
            Duration::from_secs(10),
        )
        .map(|n| n.trim() != "0")
        .unwrap_or(true);

    let commit = commit_memory(ctx, Some("chore(memory): sync team memory"))?;
    let committed = commit.commit.clone();
    out.commit = Some(commit);

    match (&out.upstream, committed) {
        (None, _) => out.push = "skipped",
        (Some(_), None) => out.push = "nothing-to-push",
        (Some(_), Some(_)) if ahead_before => out.push = "skipped-ahead",
        (Some(_), Some(id)) => match git(&workdir, &["push", "--quiet"], NETWORK_TIMEOUT) {
            Ok(_) => out.push = "pushed",
            Err(e) => {
                out.push = "failed";
                out.push_error = Some(e.to_string());
                // Undo only our own commit, and only while it is still HEAD.
                if head(&workdir).as_deref() == Some(id.as_str()) {
                    out.commit_undone = git(
                        &workdir,
                        &["reset", "--soft", "HEAD~1"],
                        Duration::from_secs(10),
                    )
                    .is_ok();
                }
            }
        },
    }
    Ok(out)
}

fn head(dir: &Path) -> Option<String> {
    git(dir, &["rev-parse", "HEAD"], Duration::from_secs(10))
        .ok()
        .map(|s| s.trim().to_string())
}

/// Runs `git` non-interactively with a time limit; stdout on success.
fn git(dir: &Path, args: &[&str], limit: Duration) -> Result<String, GitError> {
    let cli_err = |message: String| GitError::Cli {
        args: args.join(" "),
        message,
    };
    let mut cmd = Command::new("git");
    cmd.args(args)
        .current_dir(dir)
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GCM_INTERACTIVE", "never")
        .env_remove("GIT_INDEX_FILE")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if std::env::var_os("GIT_SSH_COMMAND").is_none() {
        cmd.env("GIT_SSH_COMMAND", "ssh -o BatchMode=yes");
    }
    let mut child = cmd.spawn().map_err(|e| GitError::io(Path::new("git"), e))?;
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() > limit => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(cli_err(format!("timed out after {} s", limit.as_secs())));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => return Err(GitError::io(Path::new("git"), e)),
        }
    };
    let mut stdout = String::new();
    let mut stderr = String::new();
    if let Some(mut s) = child.stdout.take() {
        let _ = s.read_to_string(&mut stdout);
    }
    if let Some(mut s) = child.stderr.take() {
        let _ = s.read_to_string(&mut stderr);
    }
    if status.success() {
        Ok(stdout)
    } else {
        Err(cli_err(stderr.trim().to_string()))
    }
}
