//! `commit [-m MSG]` (the commit helper) and `merge-file %O %A %B %P` (the merge driver).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::Args;
use qwen_memory::integrations::git::{commit, merge};
use qwen_memory::storage::context::Context;

use crate::{cli::print_json, Cli};

/// Arguments of `commit`.
#[derive(Debug, Args)]
pub struct CommitArgs {
    /// The commit subject (default: generated from the changes, e.g. `memory: +2 feedback`).
    #[arg(short, long)]
    pub message: Option<String>,
}

/// Arguments of `merge-file`.
#[derive(Debug, Args)]
pub struct MergeFileArgs {
    /// %O: the common ancestor's version.
    pub base: PathBuf,
    /// %A: our version; the result is written here.
    pub ours: PathBuf,
    /// %B: their version.
    pub theirs: PathBuf,
    /// %P: the path in the repository.
    pub path: String,
    /// %L: the conflict marker size.
    #[arg(long)]
    pub marker_size: Option<String>,
    /// %X: the label of our side (Git >= 2.44; else the checked-out branch).
    #[arg(long)]
    pub ours_label: Option<String>,
    /// %Y: the label of their side (Git >= 2.44; else the branch being merged).
    #[arg(long)]
    pub theirs_label: Option<String>,
}

pub fn run_commit(cli: &Cli, ctx: &Context, args: &CommitArgs) -> Result<ExitCode> {
    let outcome = commit::commit_memory(ctx, args.message.as_deref())?;
    if outcome.commit.is_some() {
        after_memory_commit(ctx);
    }
    if cli.json {
        print_json(&outcome)?;
    } else if !cli.quiet {
        match &outcome.commit {
            None => println!("nothing to commit in the memory directory"),
            Some(id) => {
                let subject = outcome.message.lines().next().unwrap_or("");
                println!("[{}] {subject}", &id[..id.len().min(12)]);
                if cli.verbose {
                    for c in &outcome.changes {
                        println!("  {:?} {}", c.status, c.path);
                    }
                }
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

pub fn run_merge_file(args: &MergeFileArgs) -> Result<ExitCode> {
    let markers = merge::Markers::from_git(
        args.ours_label.as_deref(),
        args.theirs_label.as_deref(),
        args.marker_size.as_deref(),
    );
    let outcome = merge::merge_file(&args.base, &args.ours, &args.theirs, &args.path, &markers)?;
    Ok(ExitCode::from(outcome.exit_code()))
}

/// `sync`: commit the memory directories, fetch, rebase or merge, push, retry on a race.
pub fn run_sync(cli: &Cli, ctx: &Context) -> Result<ExitCode> {
    use qwen_memory::integrations::git::sync::SyncStatus;
    let out = qwen_memory::integrations::git::sync::sync(ctx)?;
    if out.commit.as_ref().is_some_and(|c| c.commit.is_some()) {
        after_memory_commit(ctx);
    }
    if cli.json {
        print_json(&out)?;
    } else if !cli.quiet {
        if let Some((id, c)) = out
            .commit
            .as_ref()
            .and_then(|c| c.commit.as_ref().map(|id| (id, c)))
        {
            println!(
                "committed [{}] {} file{}",
                &id[..id.len().min(12)],
                c.changes.len(),
                if c.changes.len() == 1 { "" } else { "s" }
            );
        }
        let upstream = out.upstream.as_deref().unwrap_or("no upstream");
        if out.pulled > 0 {
            println!(
                "{}d {} commit{} from {upstream}",
                out.integrate,
                out.pulled,
                if out.pulled == 1 { "" } else { "s" }
            );
        }
        match out.status {
            SyncStatus::Pushed => println!(
                "pushed: {} commit{} to {upstream}",
                out.pushed,
                if out.pushed == 1 { "" } else { "s" }
            ),
            SyncStatus::UpToDate => println!("up-to-date with {upstream}"),
            SyncStatus::AheadNotPushed => println!(
                "ahead-not-pushed: {} unpushed commit{} of your own change more than memory; sync does not publish them",
                out.own_commits.len(),
                if out.own_commits.len() == 1 { "" } else { "s" }
            ),
            SyncStatus::NoUpstream => {
                println!("no-upstream: the branch has no upstream; committed locally only")
            }
            SyncStatus::Conflict => println!(
                "conflict: {} (aborted; the tree is as it was)",
                out.conflicts.join(", ")
            ),
            SyncStatus::Failed => println!(
                "failed: {}",
                out.error.as_deref().unwrap_or("unknown error")
            ),
        }
        if let Some(next) = &out.next {
            println!("next: {next}");
        }
    }
    Ok(ExitCode::from(out.status.exit_code()))
}

/// A memory commit made here (not by `git commit`) runs no Git hooks; do what our post-commit
/// hook would, when it is installed: rebuild indexes and start a dream when one is due.
fn after_memory_commit(ctx: &Context) {
    use qwen_memory::integrations::git::shims;
    let installed = qwen_memory::integrations::git::open_repo(ctx)
        .ok()
        .and_then(|repo| shims::resolve_hooks_dir(&repo).ok())
        .is_some_and(|d| shims::installed_in(&d.path).contains(&"post-commit"));
    if installed {
        // Guarded as the installed hook is: a panic there is logged, never the command's exit.
        let _ = qwen_memory::ops::hook_entry::guarded("post-commit", || {
            qwen_memory::ops::hook_entry::git_hook(&ctx.project.root, "post-commit", &[])
        });
    }
}
