//! `recall`: the memories relevant to a query, as a prompt block or JSON.

use std::process::ExitCode;

use anyhow::Result;
use clap::{Args, ValueEnum};
use qwen_memory::ops::recall::{self, RecallRequest, Strategy};
use qwen_memory::ops::trigger::Trigger;
use qwen_memory::storage::context::Context;
use qwen_memory::storage::settings::Key;
use qwen_memory::storage::store;

use super::print_json;
use crate::Cli;

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum RecallFormat {
    Prompt,
    Json,
}

#[derive(Debug, Args)]
pub struct RecallArgs {
    /// The query (usually the user's prompt); `-` reads it from standard input.
    #[arg(required = true, num_args = 1..)]
    query: Vec<String>,
    /// Most documents to return (default: recall.limit, 5).
    #[arg(long)]
    limit: Option<usize>,
    /// Output format.
    #[arg(long, value_enum, default_value = "prompt")]
    format: RecallFormat,
    /// Leave out this document (relative path, scope:path or file path); repeatable.
    #[arg(long, value_name = "PATH")]
    exclude: Vec<String>,
    /// Ranking strategy (default: recall.strategy, `auto`).
    #[arg(long, value_enum)]
    strategy: Option<qwen_memory::storage::settings::RecallStrategy>,
}

/// The settings this command's flags override (`--limit`, `--strategy`).
pub fn flags(args: &RecallArgs) -> Vec<(Key, String)> {
    let mut flags = Vec::new();
    if let Some(limit) = args.limit {
        flags.push((Key::RecallLimit, limit.to_string()));
    }
    if let Some(s) = args.strategy {
        flags.push((Key::RecallStrategy, super::value_name(&s)));
    }
    flags
}

pub fn run(cli: &Cli, ctx: &Context, args: &RecallArgs) -> Result<ExitCode> {
    let strategy = Strategy::from_settings(&ctx.settings);
    let limit = recall::limit_from_settings(&ctx.settings);
    let query = if args.query == ["-"] {
        let mut text = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut text)?;
        text
    } else {
        args.query.join(" ")
    };
    let req = RecallRequest {
        query,
        limit,
        exclude: args.exclude.clone(),
        strategy,
        now_ms: store::now_ms(),
        max_prompt_chars: None,
        trigger: Trigger::Manual,
        network_budget: None,
    };
    let out = recall::run(ctx, &req);
    if cli.verbose {
        for e in &out.root_errors {
            eprintln!("warning: {e}");
        }
        if let Some(reason) = &out.fallback {
            eprintln!("note: {reason}");
        }
    }
    if cli.json || matches!(args.format, RecallFormat::Json) {
        print_json(&out)?;
    } else {
        print!("{}", out.prompt);
    }
    Ok(ExitCode::SUCCESS)
}

/// `embed-job` (hidden; started detached by recall, writes and Git hooks): embeds what the
/// embeddings cache lacks. Its output goes to the hook log.
pub fn run_embed_job(ctx: &Context) -> Result<ExitCode> {
    match qwen_memory::ops::recall::job::run(ctx)? {
        Some(p) => println!(
            "embed-job: {} ({} of {} texts embedded with {})",
            p.state, p.done, p.total, p.model
        ),
        None => println!("embed-job: another embedding job is running"),
    }
    Ok(ExitCode::SUCCESS)
}
