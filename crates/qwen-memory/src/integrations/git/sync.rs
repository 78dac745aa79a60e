//! `sync`: the one-command team flow for memory shared through commits (docs/DESIGN.md, "Git
//! integration"): commit the memory directories, fetch, bring in what teammates pushed (rebase
//! or merge, as `pull.rebase` says), push, and try again when someone pushed in between.
//!
//! It never touches the user's other changes (the commit is `commit_memory`'s; rebase and merge
//! run with `--autostash`), never publishes the user's own work (it pushes only when every
//! unpushed commit changes nothing but the memory directories), never prompts (no terminal
//! prompts, SSH in batch mode) and never waits forever (each Git command has a time limit). A
//! conflict is aborted, so the tree is as it was, and reported with the files and the command
//! that reproduces it for resolving by hand.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde::Serialize;

use super::commit::{commit_memory, CommitOutcome};
use super::GitError;
use crate::storage::context::Context;

/// How long one network Git command (fetch, push) may take.
pub const NETWORK_TIMEOUT: Duration = Duration::from_secs(60);
/// How many times sync fetches, integrates and pushes before it gives up on a busy remote.
pub const ATTEMPTS: usize = 4;
const LOCAL_TIMEOUT: Duration = Duration::from_secs(60);

/// How sync ended. Each outcome has its exit code ([`SyncStatus::exit_code`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SyncStatus {
    /// Our memory commits are on the upstream now.
    Pushed,
    /// Nothing to publish: the branch and its upstream hold the same commits.
    UpToDate,
    /// Memory was committed and teammates' commits brought in, but unpushed commits of the
    /// user's own (changing more than memory) keep sync from pushing; `git push` publishes.
    AheadNotPushed,
    /// The branch has no upstream: committed locally only.
    NoUpstream,
    /// Bringing in the upstream conflicted; aborted, the tree is as it was.
    Conflict,
    /// Fetch or push failed (network, permissions, a remote that kept moving).
    Failed,
}

impl SyncStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            SyncStatus::Pushed => "pushed",
            SyncStatus::UpToDate => "up-to-date",
            SyncStatus::AheadNotPushed => "ahead-not-pushed",
            SyncStatus::NoUpstream => "no-upstream",
            SyncStatus::Conflict => "conflict",
            SyncStatus::Failed => "failed",
        }
    }

    /// 0 when the memory is shared (or there was nothing to share), 3 when it is committed but
    /// not published (a reason the user acts on), 1 when sync stopped on an error or conflict.
    pub fn exit_code(self) -> u8 {
        match self {
            SyncStatus::Pushed | SyncStatus::UpToDate => 0,
            SyncStatus::AheadNotPushed | SyncStatus::NoUpstream => 3,
            SyncStatus::Conflict | SyncStatus::Failed => 1,
        }
    }
}

/// What `sync` did.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SyncOutcome {
    pub status: SyncStatus,
    /// The upstream branch (`origin/main`), when the branch has one.
    pub upstream: Option<String>,
    /// `rebase` or `merge` (from `branch.<name>.rebase` / `pull.rebase`).
    pub integrate: &'static str,
    /// Teammates' commits brought in (over all attempts).
    pub pulled: usize,
    /// Our memory commit, if there was anything to commit.
    pub commit: Option<CommitOutcome>,
    /// Commits published by the push.
    pub pushed: usize,
    /// Fetch-integrate-push rounds run (more than one when the remote moved meanwhile).
    pub attempts: usize,
    /// Files in conflict, when the status is `conflict`.
    pub conflicts: Vec<String>,
    /// The unpushed commits that are not memory-only, when the status is `ahead-not-pushed`.
    pub own_commits: Vec<String>,
    /// What went wrong, for `failed` and `conflict`.
    pub error: Option<String>,
    /// The command to run next, when sync stopped short of publishing.
    pub next: Option<String>,
}

/// Runs the flow in the repository of `ctx`.
pub fn sync(ctx: &Context) -> Result<SyncOutcome, GitError> {
    let workdir = ctx.project.worktree.clone().ok_or(GitError::NoRepository)?;
    if let Some(op) = ctx
        .project
        .git_dir
        .as_deref()
        .and_then(|d| super::operation_in_progress(d, &[]))
    {
        return Err(GitError::InProgress(op));
    }
    let upstream = git(
        &workdir,
        &["rev-parse", "--abbrev-ref", "--symbolic-full-name", "@{u}"],
        LOCAL_TIMEOUT,
    )
    .ok()
    .map(|s| s.trim().to_string())
    .filter(|s| !s.is_empty());
    let rebase = pull_rebase(&workdir);
    let mut out = SyncOutcome {
        status: SyncStatus::UpToDate,
        upstream: upstream.clone(),
        integrate: if rebase.is_some() { "rebase" } else { "merge" },
        pulled: 0,
        commit: None,
        pushed: 0,
        attempts: 0,
        conflicts: Vec::new(),
        own_commits: Vec::new(),
        error: None,
        next: None,
    };

    // Commit first: a rebase or merge then meets a clean memory directory.
    let commit = commit_memory(ctx, Some("chore(memory): sync team memory"))?;
    out.commit = Some(commit);

    let Some(upstream) = upstream else {
        out.status = SyncStatus::NoUpstream;
        out.next = Some("git push -u <remote> <branch>".into());
        return Ok(out);
    };
    let (remote, branch) = upstream_parts(&workdir, &upstream);
    let prefixes = memory_prefixes(ctx, &workdir);

    let out = rounds(&workdir, out, rebase, &remote, &branch, &prefixes);
    // A fast-forward or a rebase that only fast-forwards runs no hook that rebuilds the
    // generated indexes: rebuild them here (only an untracked index, only when changed).
    if out.pulled > 0 {
        refresh_indexes(ctx);
    }
    Ok(out)
}

/// Rebuilds the untracked `MEMORY.md` of the shared roots after sync brought documents in (the
/// hooks' own rebuild; best effort: a stale index is reported by `check`, never a sync failure).
fn refresh_indexes(ctx: &Context) {
    let _ = super::indexes::refresh_shared_indexes(ctx, None);
}

/// The fetch-integrate-push rounds.
#[allow(clippy::too_many_arguments)]
fn rounds(
    workdir: &Path,
    mut out: SyncOutcome,
    rebase: Option<&'static [&'static str]>,
    remote: &str,
    branch: &str,
    prefixes: &[String],
) -> SyncOutcome {
    for attempt in 1..=ATTEMPTS {
        out.attempts = attempt;
        if let Err(e) = git(workdir, &["fetch", "--quiet", remote], NETWORK_TIMEOUT) {
            out.status = SyncStatus::Failed;
            out.error = Some(e.to_string());
            out.next = Some("git fetch (check the remote), then git qwen-memory sync".into());
            return out;
        }
        let behind = count(workdir, "HEAD..@{u}");
        if behind > 0 {
            let before = head(workdir);
            let integrated = match rebase {
                Some(flags) => {
                    let mut args = vec!["rebase", "--autostash", "--quiet"];
                    args.extend(flags);
                    args.push("@{u}");
                    git(workdir, &args, LOCAL_TIMEOUT)
                }
                None => git(
                    workdir,
                    &["merge", "--autostash", "--no-edit", "--quiet", "@{u}"],
                    LOCAL_TIMEOUT,
                ),
            };
            if let Err(e) = integrated {
                out.conflicts = conflicted_files(workdir);
                let aborted = match rebase {
                    Some(_) => git(workdir, &["rebase", "--abort"], LOCAL_TIMEOUT),
                    None => git(workdir, &["merge", "--abort"], LOCAL_TIMEOUT),
                };
                out.status = if out.conflicts.is_empty() {
                    SyncStatus::Failed
                } else {
                    SyncStatus::Conflict
                };
                out.error = Some(match aborted {
                    Ok(_) => e.to_string(),
                    Err(a) => format!("{e}; aborting it failed too: {a}"),
                });
                let mode = if rebase.is_some() {
                    "--rebase"
                } else {
                    "--no-rebase"
                };
                out.next = Some(format!(
                    "git pull {mode}, resolve the conflicts (keep both sides' entries), commit, then git qwen-memory sync"
                ));
                if head(workdir) != before {
                    out.error = Some(format!(
                        "{}; HEAD moved and was not restored",
                        out.error.clone().unwrap_or_default()
                    ));
                }
                return out;
            }
            out.pulled += behind;
        }
        let ahead = unpushed(workdir);
        if ahead.is_empty() {
            out.status = SyncStatus::UpToDate;
            return out;
        }
        let mut own: Vec<String> = ahead
            .iter()
            .filter(|c| !is_merge(workdir, c) && !touches_only(workdir, c, prefixes))
            .cloned()
            .collect();
        if own.is_empty() && !changes_only(workdir, "@{u}", "HEAD", prefixes) {
            own = vec!["HEAD".to_string()];
        }
        if !own.is_empty() {
            out.status = SyncStatus::AheadNotPushed;
            out.own_commits = own;
            out.next = Some("git push (your own unpushed commits go with the memory)".into());
            return out;
        }
        let refspec = format!("HEAD:refs/heads/{branch}");
        match git(
            workdir,
            &["push", "--quiet", "--porcelain", remote, &refspec],
            NETWORK_TIMEOUT,
        ) {
            Ok(_) => {
                out.status = SyncStatus::Pushed;
                out.pushed = ahead.len();
                // Keep the remote-tracking branch current (a push with an explicit refspec to a
                // remote name updates it; an URL remote would not).
                return out;
            }
            Err(e) => {
                let text = e.to_string();
                let race = ["rejected", "fetch first", "non-fast-forward", "stale info"]
                    .iter()
                    .any(|w| text.contains(w));
                if race && attempt < ATTEMPTS {
                    continue;
                }
                out.status = SyncStatus::Failed;
                out.error = Some(text);
                out.next =
                    Some("git qwen-memory sync again (the memory commit is kept locally)".into());
                return out;
            }
        }
    }
    out
}

/// `Some(extra rebase flags)` when pulling this branch rebases (`branch.<name>.rebase`, else
/// `pull.rebase`: `true`, `interactive`, `merges`), `None` when it merges.
fn pull_rebase(dir: &Path) -> Option<&'static [&'static str]> {
    let branch = git(
        dir,
        &["symbolic-ref", "--short", "-q", "HEAD"],
        LOCAL_TIMEOUT,
    )
    .ok()
    .map(|s| s.trim().to_string())
    .unwrap_or_default();
    let get = |key: &str| {
        git(dir, &["config", "--get", key], LOCAL_TIMEOUT)
            .ok()
            .map(|s| s.trim().to_lowercase())
    };
    let value = (!branch.is_empty())
        .then(|| get(&format!("branch.{branch}.rebase")))
        .flatten()
        .or_else(|| get("pull.rebase"))?;
    match value.as_str() {
        "true" | "yes" | "on" | "1" | "interactive" | "i" => Some(&[]),
        "merges" | "m" => Some(&["--rebase-merges"]),
        _ => None,
    }
}

/// The remote and the remote's branch name of an upstream such as `origin/main`.
fn upstream_parts(dir: &Path, upstream: &str) -> (String, String) {
    let branch = git(
        dir,
        &["symbolic-ref", "--short", "-q", "HEAD"],
        LOCAL_TIMEOUT,
    )
    .ok()
    .map(|s| s.trim().to_string())
    .unwrap_or_default();
    let get = |key: String| {
        git(dir, &["config", "--get", &key], LOCAL_TIMEOUT)
            .ok()
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
    };
    let remote = get(format!("branch.{branch}.remote"))
        .or_else(|| upstream.split_once('/').map(|(r, _)| r.to_string()))
        .unwrap_or_else(|| "origin".into());
    let merge = get(format!("branch.{branch}.merge"))
        .and_then(|m| m.strip_prefix("refs/heads/").map(str::to_string))
        .or_else(|| upstream.split_once('/').map(|(_, b)| b.to_string()))
        .unwrap_or(branch);
    (remote, merge)
}

/// The memory directories relative to the working tree, `/`-terminated.
fn memory_prefixes(ctx: &Context, workdir: &Path) -> Vec<String> {
    [&ctx.layout.repository.path, &ctx.layout.team.path]
        .iter()
        .filter_map(|p| p.strip_prefix(workdir).ok())
        .map(|p| format!("{}/", p.to_string_lossy()))
        .collect()
}

fn count(dir: &Path, range: &str) -> usize {
    git(dir, &["rev-list", "--count", range], LOCAL_TIMEOUT)
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(0)
}

/// The commits on HEAD that the upstream lacks, oldest first.
fn unpushed(dir: &Path) -> Vec<String> {
    git(dir, &["rev-list", "--reverse", "@{u}..HEAD"], LOCAL_TIMEOUT)
        .map(|s| s.lines().map(str::to_string).collect())
        .unwrap_or_default()
}

fn is_merge(dir: &Path, commit: &str) -> bool {
    git(
        dir,
        &["rev-parse", "-q", "--verify", &format!("{commit}^2")],
        LOCAL_TIMEOUT,
    )
    .is_ok()
}

/// Whether the trees of two commits differ only under the memory directories.
fn changes_only(dir: &Path, from: &str, to: &str, prefixes: &[String]) -> bool {
    git(
        dir,
        &["diff", "--name-only", "--no-renames", from, to],
        LOCAL_TIMEOUT,
    )
    .is_ok_and(|f| {
        f.lines()
            .filter(|l| !l.is_empty())
            .all(|l| prefixes.iter().any(|p| l.starts_with(p.as_str())))
    })
}

/// Whether a (non-merge) commit changes only files under the memory directories.
fn touches_only(dir: &Path, commit: &str, prefixes: &[String]) -> bool {
    let parent = format!("{commit}^1");
    let files = match git(
        dir,
        &["diff", "--name-only", "--no-renames", &parent, commit],
        LOCAL_TIMEOUT,
    ) {
        Ok(f) => f,
        // A root commit.
        Err(_) => match git(
            dir,
            &["show", "--name-only", "--format=", commit],
            LOCAL_TIMEOUT,
        ) {
            Ok(f) => f,
            Err(_) => return false,
        },
    };
    files
        .lines()
        .filter(|l| !l.is_empty())
        .all(|l| prefixes.iter().any(|p| l.starts_with(p.as_str())))
}

fn conflicted_files(dir: &Path) -> Vec<String> {
    git(
        dir,
        &["diff", "--name-only", "--diff-filter=U"],
        LOCAL_TIMEOUT,
    )
    .map(|s| s.lines().map(str::to_string).collect())
    .unwrap_or_default()
}

fn head(dir: &Path) -> Option<String> {
    git(dir, &["rev-parse", "HEAD"], LOCAL_TIMEOUT)
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
