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

/// `sync`: pull --ff-only, commit the memory directories, push when it is safe.
pub fn run_sync(cli: &Cli, ctx: &Context) -> Result<ExitCode> {
    let out = qwen_memory::integrations::git::sync::sync(ctx)?;
    if cli.json {
        print_json(&out)?;
    } else if !cli.quiet {
        let upstream = out.upstream.as_deref().unwrap_or("no upstream");
        match &out.pull_error {
            Some(e) => println!("pull      failed ({upstream}): {e}"),
            None => println!("pull      {} ({upstream})", out.pull),
        }
        match out
            .commit
            .as_ref()
            .and_then(|c| c.commit.as_ref().map(|id| (id, c)))
        {
            Some((id, c)) => println!(
                "commit    [{}] {} file{}",
                &id[..id.len().min(12)],
                c.changes.len(),
                if c.changes.len() == 1 { "" } else { "s" }
            ),
            None => println!("commit    nothing to commit in the memory directories"),
        }
        match (&out.push_error, out.push) {
            (Some(e), _) => println!(
                "push      failed: {e}{}",
                if out.commit_undone {
                    " (the memory commit was undone; the changes stay in the working tree)"
                } else {
                    ""
                }
            ),
            (None, "skipped-ahead") => println!(
                "push      skipped: the branch already had unpushed commits (push them yourself)"
            ),
            (None, p) => println!("push      {p}"),
        }
    }
    let failed = out.pull == "failed" || out.push == "failed";
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}
