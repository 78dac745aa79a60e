//! `recall`: the memories relevant to a query, as a prompt block or JSON.

use std::process::ExitCode;

use anyhow::{bail, Result};
use clap::{Args, ValueEnum};
use qwen_memory::context::Context;
use qwen_memory::recall::{self, RecallRequest, Strategy};
use qwen_memory::store;

use super::print_json;
use crate::Cli;

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum RecallFormat {
    Prompt,
    Json,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum RecallStrategy {
    /// Relevance ranking, plus embeddings when recall.embeddings.* is set (the default).
    Auto,
    /// Qwen Code 0.24.4's exact lexical ranking.
    Upstream,
    /// Alias of `upstream`.
    Heuristic,
    /// A configured chat model chooses; falls back to `auto`.
    Model,
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
    strategy: Option<RecallStrategy>,
}

pub fn run(cli: &Cli, ctx: &Context, args: &RecallArgs) -> Result<ExitCode> {
    let strategy = match args.strategy {
        Some(RecallStrategy::Auto) => Strategy::Auto,
        Some(RecallStrategy::Upstream | RecallStrategy::Heuristic) => Strategy::Upstream,
        Some(RecallStrategy::Model) => Strategy::Model,
        None => {
            let value = ctx.settings.text("recall.strategy").unwrap_or("auto");
            match Strategy::parse(value) {
                Some(s) => s,
                None => bail!("unknown recall.strategy {value:?}"),
            }
        }
    };
    let limit = args
        .limit
        .or_else(|| ctx.settings.number("recall.limit").map(|n| n as usize))
        .unwrap_or(recall::MAX_RELEVANT_DOCS);
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
        trigger: "manual",
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
