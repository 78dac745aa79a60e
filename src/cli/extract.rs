//! `extract`: arguments and rendering (docs/DESIGN.md, "Extract").

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::{Args, ValueEnum};
use qwen_memory::integrations::telemetry;
use qwen_memory::integrations::transcript::Format;
use qwen_memory::ops::extract::run::{self, ExtractRequest, RunOutcome, RunStatus, Strategy};
use qwen_memory::ops::trigger::Trigger;
use qwen_memory::storage::context::Context;
use qwen_memory::storage::settings::Key;

use super::print_json;
use crate::Cli;

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum FormatArg {
    Auto,
    Qwen,
    Claude,
    Jsonl,
}

impl From<FormatArg> for Format {
    fn from(f: FormatArg) -> Format {
        match f {
            FormatArg::Auto => Format::Auto,
            FormatArg::Qwen => Format::Qwen,
            FormatArg::Claude => Format::Claude,
            FormatArg::Jsonl => Format::Jsonl,
        }
    }
}

/// Arguments of `extract`.
#[derive(Debug, Clone, Args)]
pub struct ExtractArgs {
    /// The chat transcript (JSONL). Default: the newest Qwen Code chat of this project.
    #[arg(long, value_name = "PATH")]
    pub transcript: Option<PathBuf>,
    /// The session to process (also picks `<ID>.jsonl` among the project's chats).
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
    /// Transcript format.
    #[arg(long, value_enum, default_value = "auto")]
    pub format: FormatArg,
    /// How to find facts (default: the `extract.strategy` setting, `auto`).
    #[arg(long, value_enum)]
    pub strategy: Option<Strategy>,
    /// Print the planned memories; write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Explain, sentence by sentence, what the offline extractor keeps from one message and
    /// why (the rules and cues that fired, the scores, the decision); writes nothing. The
    /// message is `--text`, or standard input.
    #[arg(long)]
    pub explain: bool,
    /// The message `--explain` explains (it may start with "-", as a pasted list item does).
    #[arg(
        long,
        value_name = "TEXT",
        requires = "explain",
        allow_hyphen_values = true
    )]
    pub text: Option<String>,
    /// Who started the run (telemetry); the agent hooks pass `hook`.
    #[arg(long, hide = true, default_value = "manual")]
    pub trigger: Trigger,
}

/// The settings this command's flags override.
pub fn flags(args: &ExtractArgs) -> Vec<(Key, String)> {
    args.strategy
        .map(|s| (Key::ExtractStrategy, super::value_name(&s)))
        .into_iter()
        .collect()
}

pub fn cmd_extract(cli: &Cli, ctx: &Context, args: &ExtractArgs) -> Result<ExitCode> {
    if args.explain {
        return explain(cli, args);
    }
    let req = ExtractRequest {
        transcript: args.transcript.clone(),
        session: args.session.clone(),
        format: args.format.into(),
        // `--strategy` reaches the run through the settings flag layer (see `main`).
        strategy: None,
        dry_run: args.dry_run,
        trigger: args.trigger.clone(),
    };
    let report = match run::extract(ctx, &req) {
        Ok(r) => r,
        Err(e) => {
            if !args.trigger.is_manual() {
                // Unattended runs have nobody watching stderr.
                telemetry::log_line(ctx.state_dir(), &format!("extract failed: {e}"));
            }
            return Err(e.into());
        }
    };
    if cli.json {
        print_json(&report)?;
        return Ok(ExitCode::SUCCESS);
    }
    if cli.quiet {
        return Ok(ExitCode::SUCCESS);
    }
    render(cli, &report.run);
    for t in &report.trailing {
        println!("then ran a queued request:");
        render(cli, t);
    }
    Ok(ExitCode::SUCCESS)
}

fn render(cli: &Cli, o: &RunOutcome) {
    for w in &o.warnings {
        eprintln!("warning: {w}");
    }
    if let Some(reason) = &o.model_fallback {
        eprintln!("note: model not used for every part: {reason}");
    }
    if o.user_facts_left_to_qwen > 0 {
        eprintln!(
            "note: left {} user fact(s) to Qwen Code's own extraction, which writes them for its chats",
            o.user_facts_left_to_qwen
        );
    }
    if o.dropped_secrets > 0 {
        eprintln!(
            "dropped {} patch(es) that look like secrets ({})",
            o.dropped_secrets,
            o.dropped_secret_rules.join(", ")
        );
    }
    match o.status {
        RunStatus::Skipped => {
            let why = match o.skipped_reason {
                Some(run::SkipReason::MemoryTool) => {
                    "memory_tool: the latest turn already wrote into a memory root"
                }
                Some(run::SkipReason::Queued) => {
                    "queued: another extraction of this root is running; it will run this \
                     request when it finishes"
                }
                Some(run::SkipReason::AlreadyRunning) => {
                    "already_running: another extraction of this root is running"
                }
                Some(run::SkipReason::HostModelRemembered) => {
                    "host_model_remembered: the agent's model saved these turns' facts through                      the MCP server"
                }
                None => "skipped",
            };
            println!("skipped ({why})");
        }
        RunStatus::Failed => {
            println!("failed: {}", o.error.as_deref().unwrap_or("unknown error"));
        }
        RunStatus::DryRun => {
            for p in &o.patches {
                println!("{:<9} {}", p.topic.as_str(), p.summary);
                if let Some(w) = &p.why {
                    println!("          Why: {w}");
                }
                if let Some(h) = &p.how_to_apply {
                    println!("          How to apply: {h}");
                }
            }
            println!(
                "dry run: {} memory patch(es) from {} new user message(s); nothing written",
                o.patches.len(),
                o.user_messages
            );
        }
        RunStatus::Updated | RunStatus::Noop => {
            for c in &o.changes {
                let verb = match c.kind {
                    qwen_memory::ops::remember::ChangeKind::Created => "created",
                    qwen_memory::ops::remember::ChangeKind::Merged => "merged ",
                    qwen_memory::ops::remember::ChangeKind::Unchanged => "known  ",
                };
                println!("{verb} {}", c.relative_path);
            }
            if o.status == RunStatus::Noop {
                println!(
                    "nothing new to remember ({} new user message(s))",
                    o.user_messages
                );
            }
        }
    }
    if cli.verbose {
        println!(
            "transcript {} ({}), bytes {}..{} ({} read), {} message(s), {} malformed line(s), {} oversized line(s), planner {}",
            o.transcript,
            o.format,
            o.start_offset,
            o.end_offset,
            o.bytes_read,
            o.messages_read,
            o.malformed_lines,
            o.oversized_lines,
            o.planner
        );
    }
    if o.oversized_lines > 0 && !cli.quiet {
        println!(
            "skipped {} line(s) longer than {} MiB",
            o.oversized_lines,
            qwen_memory::integrations::transcript::MAX_LINE_BYTES >> 20
        );
    }
}

/// `extract --explain`: what the offline extractor does with one message, and why.
fn explain(cli: &Cli, args: &ExtractArgs) -> Result<ExitCode> {
    let text = match &args.text {
        Some(t) => t.clone(),
        None => {
            let mut t = String::new();
            std::io::Read::read_to_string(&mut std::io::stdin(), &mut t)?;
            t
        }
    };
    let e = qwen_memory::ops::extract::explain(&text);
    if cli.json {
        print_json(&e)?;
        return Ok(ExitCode::SUCCESS);
    }
    for (i, s) in e.sentences.iter().enumerate() {
        println!("sentence {}: {}", i + 1, s.text);
        match &s.kept_as {
            Some((ty, summary)) => println!("  rules ({}): keep as {ty}: {summary}", s.rules),
            None => println!("  rules ({}): nothing", s.rules),
        }
        if let Some(score) = s.score {
            println!("  scorer: durable {score:.2}");
        }
    }
    println!(
        "cues: {}",
        if e.cues.is_empty() {
            "none".to_string()
        } else {
            e.cues.join(", ")
        }
    );
    match e.gate {
        Some(g) => println!(
            "gate: durable {g:.2} (keep >= {:.2}, rescue >= {:.2})",
            e.keep_threshold, e.rescue_threshold
        ),
        None => println!("gate: no verdict"),
    }
    if !e.top_features.is_empty() {
        let top: Vec<String> = e
            .top_features
            .iter()
            .map(|(n, w)| format!("{n} {w:+.2}"))
            .collect();
        println!("gate features: {}", top.join(", "));
    }
    println!("decision: {}", e.reason);
    for p in &e.kept {
        println!("  {:<9} {}", p.topic.as_str(), p.summary);
    }
    Ok(ExitCode::SUCCESS)
}
