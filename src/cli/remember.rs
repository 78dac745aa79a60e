//! `remember`: write one entry now.

use std::process::ExitCode;

use anyhow::Result;
use clap::{Args, ValueEnum};
use qwen_memory::ops::remember::{self, ChangeKind, RememberRequest};
use qwen_memory::storage::context::Context;
use qwen_memory::storage::scan::Scope;

use super::{print_json, TypeArg};
use crate::Cli;

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum RememberScope {
    Project,
    User,
    /// `.qwen/team-memory/`, Qwen Code's shared tier, committed with the repository.
    Team,
}

#[derive(Debug, Args)]
pub struct RememberArgs {
    /// Memory type (default: guessed from the text, else project).
    #[arg(long = "type", value_enum)]
    pub memory_type: Option<TypeArg>,
    /// Project memory (the default), user memory shared by all projects, or team memory
    /// committed in `.qwen/team-memory/`. Facts of type `user` always go to user memory.
    #[arg(long, value_enum, default_value = "project")]
    pub scope: RememberScope,
    /// Why this holds.
    #[arg(long)]
    pub why: Option<String>,
    /// How to apply it.
    #[arg(long)]
    pub how: Option<String>,
    /// The fact to remember.
    #[arg(required = true, num_args = 1..)]
    pub text: Vec<String>,
}

pub fn run(cli: &Cli, ctx: &Context, args: &RememberArgs) -> Result<ExitCode> {
    let req = RememberRequest {
        text: args.text.join(" "),
        memory_type: args.memory_type.map(Into::into),
        scope: match args.scope {
            RememberScope::Project => ctx.layout.writable().scope,
            RememberScope::User => Scope::User,
            RememberScope::Team => Scope::Team,
        },
        why: args.why.clone(),
        how_to_apply: args.how.clone(),
        via: None,
    };
    let outcome = remember::remember(ctx, &req)?;
    if let Some(e) = &outcome.index_error {
        eprintln!("warning: MEMORY.md not rebuilt ({e}); run `git qwen-memory index`");
    }
    if cli.json {
        print_json(&outcome)?;
    } else if !cli.quiet {
        let change = &outcome.change;
        let verb = match change.kind {
            ChangeKind::Created => "saved",
            ChangeKind::Merged => "updated",
            ChangeKind::Unchanged => "already known in",
        };
        let mut note = String::new();
        if !change.filled.is_empty() {
            note.push_str(&format!("; added {}", change.filled.join(" and ")));
        }
        if !change.kept.is_empty() {
            note.push_str(&format!(
                "; kept its existing {} (the given text was not saved)",
                change.kept.join(" and ")
            ));
        }
        if change.kind == ChangeKind::Unchanged && change.kept.is_empty() {
            note.push_str("; nothing changed");
        }
        println!(
            "{verb} {} ({} memory){note}",
            change.relative_path, outcome.scope
        );
    }
    super::render_auto_commit(cli, &outcome.auto_commit);
    Ok(ExitCode::SUCCESS)
}
