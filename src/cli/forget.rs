//! `forget`: arguments, confirmation and rendering.

use std::io::{BufRead, IsTerminal, Write};
use std::process::ExitCode;

use anyhow::Result;
use clap::ValueEnum;
use qwen_memory::ops::forget::{self, ForgetError, ForgetOutcome, StrategyChoice};
use qwen_memory::storage::context::Context;

use super::print_json;
use crate::Cli;

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum ForgetStrategyArg {
    Auto,
    Heuristic,
    Model,
}

impl From<ForgetStrategyArg> for StrategyChoice {
    fn from(s: ForgetStrategyArg) -> StrategyChoice {
        match s {
            ForgetStrategyArg::Auto => StrategyChoice::Auto,
            ForgetStrategyArg::Heuristic => StrategyChoice::Heuristic,
            ForgetStrategyArg::Model => StrategyChoice::Model,
        }
    }
}

/// Arguments of `forget`.
#[derive(Debug, clap::Args)]
pub struct ForgetArgs {
    /// What to forget: entries whose summary, why or how-to-apply contain it.
    #[arg(num_args = 0..)]
    pub query: Vec<String>,
    /// Forget exactly this entry: `path` (one-entry file) or `path:i` (0-based), as `list` shows.
    #[arg(long = "id", value_name = "ID")]
    pub ids: Vec<String>,
    /// Show the change as a diff and write nothing.
    #[arg(long, conflicts_with = "undo")]
    pub dry_run: bool,
    /// Do not ask (required when not on a terminal).
    #[arg(short = 'y', long)]
    pub yes: bool,
    /// Restore every file the last forget changed or deleted.
    #[arg(long, conflicts_with_all = ["ids", "query", "strategy"])]
    pub undo: bool,
    /// Which memory to forget from: the project's (default), `team` (`.qwen/team-memory/`) or
    /// `user`.
    #[arg(long, value_enum)]
    pub scope: Option<super::ScopeArg>,
    /// How to match a query: the model when configured (auto), heuristic, or model.
    #[arg(long, value_enum)]
    pub strategy: Option<ForgetStrategyArg>,
}

pub fn run(cli: &Cli, ctx: &Context, args: &ForgetArgs) -> Result<ExitCode> {
    if args.undo {
        let out = forget::undo(ctx, args.scope.map(Into::into))?;
        super::render_undo(cli, "forget", &out)?;
        return Ok(ExitCode::SUCCESS);
    }
    let query = args.query.join(" ");
    let query = (!query.trim().is_empty()).then_some(query.as_str());
    let strategy = args
        .strategy
        .map(Into::into)
        .unwrap_or(StrategyChoice::Auto);
    let sel = match forget::select(ctx, args.scope.map(Into::into), query, &args.ids, strategy) {
        Ok(s) => s,
        Err(e @ (ForgetError::NothingRequested | ForgetError::QueryAndIds)) => {
            eprintln!("git-qwen-memory: {e}");
            return Ok(ExitCode::from(2));
        }
        Err(e) => return Err(e.into()),
    };
    if let Some(why) = &sel.fallback_reason {
        eprintln!("note: model selection not used ({why}); matched by substring");
    }
    if sel.over_cap > 0 {
        eprintln!(
            "note: {} more matching entries are left for another run (at most {} per run)",
            sel.over_cap,
            forget::MAX_FORGET
        );
    }
    if sel.matches.is_empty() {
        if cli.json {
            print_json(&forget::preview(ctx, &sel)?)?;
        } else if !cli.quiet {
            println!("nothing matches; nothing forgotten");
        }
        return Ok(ExitCode::SUCCESS);
    }
    if args.dry_run {
        let out = forget::preview(ctx, &sel)?;
        if cli.json {
            print_json(&out)?;
        } else {
            if let Some(d) = &out.diff {
                // Memory text: hidden characters shown, never sent to the terminal raw.
                print!("{}", qwen_memory::formats::sanitize::escape_for_terminal(d));
            }
            println!(
                "dry run: would forget {} entr{}; nothing written",
                out.removed_entries,
                if out.removed_entries == 1 { "y" } else { "ies" }
            );
        }
        return Ok(ExitCode::SUCCESS);
    }
    if !args.yes {
        if !std::io::stdin().is_terminal() {
            eprintln!(
                "git-qwen-memory: refusing to forget {} entr{} without confirmation; pass --yes (or --dry-run to preview)",
                sel.matches.len(),
                if sel.matches.len() == 1 { "y" } else { "ies" }
            );
            return Ok(ExitCode::from(2));
        }
        let mut err = std::io::stderr().lock();
        for m in &sel.matches {
            writeln!(
                err,
                "  {}  {}",
                qwen_memory::formats::sanitize::escape_for_terminal(&m.id),
                qwen_memory::formats::sanitize::escape_for_terminal(
                    &qwen_memory::ops::browse::masked_for_report(&m.summary)
                )
            )?;
        }
        if sel.matches.len() == 1 {
            write!(err, "Forget this entry? [y/N] ")?;
        } else {
            write!(err, "Forget these {} entries? [y/N] ", sel.matches.len())?;
        }
        err.flush()?;
        let mut answer = String::new();
        std::io::stdin().lock().read_line(&mut answer)?;
        if !matches!(answer.trim(), "y" | "Y" | "yes" | "Yes") {
            eprintln!("nothing forgotten");
            return Ok(ExitCode::from(1));
        }
    }
    let out = forget::apply(ctx, &sel)?;
    if cli.json {
        print_json(&out)?;
    } else if !cli.quiet {
        render(&out);
    }
    super::render_auto_commit(cli, &out.auto_commit);
    Ok(ExitCode::SUCCESS)
}

fn render(out: &ForgetOutcome) {
    if let Some(e) = &out.index_error {
        eprintln!("warning: MEMORY.md not rebuilt ({e}); run `git qwen-memory index`");
    }
    println!(
        "forgot {} entr{} ({}): {} file(s) rewritten, {} deleted",
        out.removed_entries,
        if out.removed_entries == 1 { "y" } else { "ies" },
        out.strategy.as_str(),
        out.rewritten_files.len(),
        out.deleted_files.len()
    );
    for r in &out.removed {
        println!(
            "  - {}  {}",
            qwen_memory::formats::sanitize::escape_for_terminal(&r.id),
            qwen_memory::formats::sanitize::escape_for_terminal(&r.summary)
        );
    }
    if out.run_id.is_some() {
        println!("undo with `git qwen-memory forget --undo`");
    }
}
