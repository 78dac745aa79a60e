//! `dream`: arguments and rendering.

use qwen_memory::formats::sanitize::escape_for_terminal;
use std::process::ExitCode;

use anyhow::Result;
use qwen_memory::ops::dream::{self, DreamOptions, DreamOutcome, DreamStatus, StrategyChoice};
use qwen_memory::ops::status::Status;
use qwen_memory::ops::trigger::Trigger;
use qwen_memory::storage::context::Context;
use qwen_memory::storage::settings::Key;

use super::print_json;
use crate::Cli;

/// Arguments of `dream`.
#[derive(Debug, clap::Args)]
pub struct DreamArgs {
    /// Run now: skip every gate except the lock.
    #[arg(long)]
    pub force: bool,
    /// Print the plan as a diff and change nothing (ignores the gates).
    #[arg(long, conflicts_with = "undo")]
    pub dry_run: bool,
    /// Restore every file the last dream changed or deleted.
    #[arg(long, conflicts_with_all = ["force", "strategy"])]
    pub undo: bool,
    /// Also merge the near-duplicate pairs the embedder finds (recall.embeddings.* set): keep
    /// the older entry, join both entries' Why: and How to apply:, remove the other entry.
    /// Without this flag they are only reported.
    #[arg(long, conflicts_with = "undo")]
    pub apply_similar: bool,
    /// How to plan: the model when configured (auto), mechanical, or model.
    #[arg(long, value_enum)]
    pub strategy: Option<StrategyChoice>,
    /// What started this dream (set by the Git hook).
    #[arg(long, hide = true, default_value = "manual")]
    pub trigger: Trigger,
}

/// The settings this command's flags override.
pub fn flags(args: &DreamArgs) -> Vec<(Key, String)> {
    args.strategy
        .map(|s| (Key::DreamStrategy, super::value_name(&s)))
        .into_iter()
        .collect()
}

pub fn run(cli: &Cli, ctx: &Context, args: &DreamArgs) -> Result<ExitCode> {
    if args.undo {
        let out = dream::undo(ctx)?;
        super::render_undo(cli, "dream", &out)?;
        return Ok(ExitCode::SUCCESS);
    }
    let opts = DreamOptions {
        force: args.force,
        dry_run: args.dry_run,
        // `--strategy` reaches the run through the settings flag layer (see `main`).
        strategy: None,
        trigger: args.trigger.clone(),
        apply_similar: args.apply_similar,
    };
    let out = dream::run(ctx, &opts)?;
    if cli.json {
        print_json(&out)?;
    } else if !cli.quiet {
        render(cli, &out);
    }
    super::render_auto_commit(cli, &out.auto_commit);
    Ok(ExitCode::SUCCESS)
}

fn render(cli: &Cli, out: &DreamOutcome) {
    let strategy = out.strategy.map(|s| s.as_str()).unwrap_or("-");
    if let Some(e) = &out.index_error {
        eprintln!("warning: MEMORY.md not rebuilt ({e}); run `git qwen-memory index`");
    }
    if let Some(why) = &out.fallback_reason {
        eprintln!("note: model plan not used ({why}); planned mechanically");
    }
    match out.status {
        DreamStatus::Skipped => {
            let reason = out.reason.map(|r| r.as_str()).unwrap_or("?");
            let detail = out
                .gates
                .as_ref()
                .and_then(|g| g.gates.last())
                .map(|g| format!(": {}", g.value))
                .unwrap_or_default();
            println!("dream skipped ({reason}){detail}");
            if out.reason != Some(dream::SkipReason::Locked) {
                println!("run `git qwen-memory dream --force` to dream now");
            }
        }
        DreamStatus::Noop => println!("dream ({strategy}): nothing to consolidate"),
        DreamStatus::DryRun => {
            if let Some(d) = &out.diff {
                // Memory text (a pulled memory's escape sequences included) never reaches the
                // terminal raw: hidden characters are shown as <U+XXXX>.
                print!("{}", escape_for_terminal(d));
            }
            if out.changes.is_empty() {
                println!("dry run ({strategy}): nothing to consolidate");
            } else {
                println!(
                    "dry run ({strategy}): would change {} file(s), merging away {} duplicate entr{}; nothing written",
                    out.changes.len(),
                    out.deduped_entries,
                    if out.deduped_entries == 1 { "y" } else { "ies" }
                );
            }
        }
        DreamStatus::Updated => {
            println!(
                "dream ({strategy}): changed {} file(s), merged away {} duplicate entr{} [{}]",
                out.changes.len(),
                out.deduped_entries,
                if out.deduped_entries == 1 { "y" } else { "ies" },
                escape_for_terminal(&out.touched_topics.join(", "))
            );
            let shown = if cli.verbose { usize::MAX } else { 10 };
            for c in out.changes.iter().take(shown) {
                let verb = match c.action {
                    dream::Action::Rewrite => "rewrote",
                    dream::Action::Delete => "deleted",
                };
                println!(
                    "  {verb} {} ({})",
                    escape_for_terminal(&c.path),
                    escape_for_terminal(&c.reason)
                );
            }
            if out.changes.len() > shown {
                println!("  … and {} more (-v for all)", out.changes.len() - shown);
            }
            for d in &out.dropped {
                println!(
                    "  dropped \"{}\" from {} ({})",
                    escape_for_terminal(&d.entry),
                    escape_for_terminal(&d.path),
                    escape_for_terminal(&d.reason)
                );
            }
            println!("undo with `git qwen-memory dream --undo`");
        }
    }
    for l in &out.left_alone {
        println!(
            "  left alone {}: {}",
            escape_for_terminal(&l.path),
            l.reason
        );
    }
    render_similar(out);
}

/// The near-duplicate pairs the embedder found, each with both texts and files.
fn render_similar(out: &DreamOutcome) {
    let proposed: Vec<_> = out.similar.iter().filter(|p| !p.applied).collect();
    let merged: Vec<_> = out.similar.iter().filter(|p| p.applied).collect();
    let would = out.status == DreamStatus::DryRun;
    let line = |p: &dream::similar::SimilarPair| {
        println!(
            "  keep   {}: {}",
            escape_for_terminal(&p.keep.path),
            escape_for_terminal(&p.keep.entry)
        );
        println!(
            "  {} {}: {} (similarity {:.2})",
            if p.applied && !would {
                "merged"
            } else {
                "merge "
            },
            escape_for_terminal(&p.merge.path),
            escape_for_terminal(&p.merge.entry),
            p.similarity
        );
    };
    if !merged.is_empty() {
        println!(
            "near-duplicates {} ({}): the older entry kept, every reason joined",
            if would {
                "that would be merged"
            } else {
                "merged"
            },
            merged.len()
        );
        merged.iter().for_each(|p| line(p));
    }
    if !proposed.is_empty() {
        println!(
            "near-duplicates proposed ({}); merge them with `git qwen-memory dream --force --apply-similar`",
            proposed.len()
        );
        proposed.iter().for_each(|p| line(p));
    }
    if out.similar_not_embedded > 0 {
        println!(
            "near-duplicates: {} memor{} not embedded yet, left out",
            out.similar_not_embedded,
            if out.similar_not_embedded == 1 {
                "y"
            } else {
                "ies"
            }
        );
    }
}

/// The dream lines of human `status` output.
pub fn render_status(st: &Status) {
    let Some(g) = &st.dream_gates else {
        return;
    };
    match (g.blocked_by, &g.due_at) {
        (None, _) => println!("dream     due (the next commit starts one)"),
        (Some(r), Some(at)) => {
            println!(
                "dream     not due ({}); min_hours passes at {at}",
                r.as_str()
            )
        }
        (Some(r), None) => println!("dream     not due ({})", r.as_str()),
    }
    for gate in &g.gates {
        let mark = match gate.passes {
            Some(true) => "ok",
            Some(false) => "no",
            None => "--",
        };
        println!("  {mark} {:<15} {}", gate.name, gate.value);
    }
}
