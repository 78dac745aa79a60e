//! `git-qwen-memory`: the command line. It parses arguments, calls the library and renders the
//! result; every capability lives in the `qwen_memory` library.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context as _, Result};
use clap::{CommandFactory, Parser, Subcommand, ValueEnum};
use qwen_memory::context::Context;
use qwen_memory::scan::Scope;
use qwen_memory::{check, remember, telemetry};

mod cli;
use cli::{print_json, ScopeArg, TypeArg};

/// Persistent, file-based memory for AI coding assistants, per Git project.
///
/// Extracts durable facts from chat transcripts into Markdown topic files, consolidates them,
/// recalls the relevant ones for a prompt, and keeps a MEMORY.md index. File-compatible with
/// Qwen Code's Managed Auto-Memory; offline by default.
#[derive(Debug, Parser)]
#[command(name = "git-qwen-memory", bin_name = "git qwen-memory", version)]
struct Cli {
    /// Run as if started in <DIR> (like git -C).
    #[arg(short = 'C', global = true, value_name = "DIR")]
    dir: Option<PathBuf>,
    /// Print machine-readable JSON.
    #[arg(long, global = true)]
    json: bool,
    /// Print less.
    #[arg(short, long, global = true)]
    quiet: bool,
    /// Print more.
    #[arg(short, long, global = true)]
    verbose: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum RememberScope {
    Project,
    User,
    /// `.qwen/team-memory/`, Qwen Code's shared tier, committed with the repository.
    Team,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Project key, mode, roots and their document counts, meta.json, settings and their origins.
    Status,
    /// List memories of every root.
    List {
        /// Only this type.
        #[arg(long = "type", value_enum)]
        memory_type: Option<TypeArg>,
        /// Only this root.
        #[arg(long, value_enum)]
        scope: Option<ScopeArg>,
    },
    /// Show one memory by id (relative path) or file path.
    Show {
        /// The id from `list` (relative path, optionally `scope:path`) or a file path.
        id: String,
    },
    /// Write one entry now (an explicit "remember this").
    Remember {
        /// Memory type (default: guessed from the text, else project).
        #[arg(long = "type", value_enum)]
        memory_type: Option<TypeArg>,
        /// Project memory (the default), user memory shared by all projects, or team memory
        /// committed in `.qwen/team-memory/`. Facts of type `user` always go to user memory.
        #[arg(long, value_enum, default_value = "project")]
        scope: RememberScope,
        /// Why this holds.
        #[arg(long)]
        why: Option<String>,
        /// How to apply it.
        #[arg(long)]
        how: Option<String>,
        /// The fact to remember.
        #[arg(required = true, num_args = 1..)]
        text: Vec<String>,
    },
    /// Print the memories relevant to a query (the "## Relevant memory" prompt block).
    Recall(cli::recall::RecallArgs),
    /// Read new turns of a chat transcript and save the durable facts in them.
    Extract(cli::extract::ExtractArgs),
    /// Rebuild MEMORY.md of every existing writable root.
    Index {
        /// Change nothing; exit 1 when an index is out of date (for CI).
        #[arg(long)]
        check: bool,
    },
    /// Validate every memory file: format, secrets, index links, budgets. Exit 1 on problems.
    Check,
    /// Consolidate memories: dedupe and merge entries, gated (see `status`), undoable.
    Dream(cli::dream::DreamArgs),
    /// Remove precisely the entries a query or exact ids name; undoable.
    Forget(cli::forget::ForgetArgs),
    /// Telemetry summary: counts and p50/p95 durations per event.
    Stats,
    /// Print shell completions.
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff).
    Man,
    /// Install the Git hooks (and with --local, local mode; with --agent, agent hooks).
    Install(cli::install::InstallArgs),
    /// Remove the Git hooks (or with --agent, that agent's hooks).
    Uninstall(cli::install::UninstallArgs),
    /// Commit only the repository memory directory's changes.
    Commit(cli::commit::CommitArgs),
    /// Pull (fast-forward only), commit the memory directories, push when the branch was not
    /// already ahead; undoes its own commit when the push fails. Never prompts.
    Sync,
    /// The merge driver Git calls for memory documents (%O %A %B %P).
    #[command(name = "merge-file")]
    MergeFile(cli::commit::MergeFileArgs),
    /// Entry point of the installed Git and agent hooks (not for people).
    Hook(cli::hook::HookArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("git-qwen-memory: {err:#}");
            ExitCode::from(1)
        }
    }
}

fn open_context(cli: &Cli) -> Result<Context> {
    let cwd = match &cli.dir {
        Some(d) => std::env::current_dir()?.join(d),
        None => std::env::current_dir().context("cannot read the current directory")?,
    };
    Ok(Context::open(&cwd, &[])?)
}

fn run(cli: Cli) -> Result<ExitCode> {
    match &cli.command {
        Command::Completions { shell } => {
            clap_complete::generate(
                *shell,
                &mut Cli::command(),
                "git-qwen-memory",
                &mut std::io::stdout(),
            );
            return Ok(ExitCode::SUCCESS);
        }
        Command::Man => {
            clap_mangen::Man::new(Cli::command().name("git-qwen-memory"))
                .render(&mut std::io::stdout())?;
            return Ok(ExitCode::SUCCESS);
        }
        // A hook never fails on a context error: it logs and exits 0.
        Command::Hook(args) => {
            let cwd = match &cli.dir {
                Some(d) => std::env::current_dir().unwrap_or_default().join(d),
                None => std::env::current_dir().unwrap_or_default(),
            };
            return Ok(cli::hook::run(&cwd, args));
        }
        Command::MergeFile(args) => return cli::commit::run_merge_file(args),
        _ => {}
    }
    let ctx = open_context(&cli)?;
    match &cli.command {
        Command::Status => cli::cmd_status(&cli, &ctx),
        Command::List { memory_type, scope } => cli::cmd_list(&cli, &ctx, *memory_type, *scope),
        Command::Show { id } => cli::cmd_show(&cli, &ctx, id),
        Command::Remember {
            memory_type,
            scope,
            why,
            how,
            text,
        } => {
            let req = remember::RememberRequest {
                text: text.join(" "),
                memory_type: memory_type.map(Into::into),
                scope: match scope {
                    RememberScope::Project => ctx.layout.writable().scope,
                    RememberScope::User => Scope::User,
                    RememberScope::Team => Scope::Team,
                },
                why: why.clone(),
                how_to_apply: how.clone(),
            };
            let outcome = remember::remember(&ctx, &req)?;
            if outcome.change.kind != remember::ChangeKind::Unchanged {
                cli::report_auto_commit(&cli, &ctx);
            }
            if cli.json {
                print_json(&outcome)?;
            } else if !cli.quiet {
                let verb = match outcome.change.kind {
                    remember::ChangeKind::Created => "saved",
                    remember::ChangeKind::Merged => "merged into",
                    remember::ChangeKind::Unchanged => "already known in",
                };
                println!(
                    "{verb} {} ({} memory)",
                    outcome.change.relative_path, outcome.scope
                );
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Recall(args) => cli::recall::run(&cli, &ctx, args),
        Command::Extract(args) => cli::extract::cmd_extract(&cli, &ctx, args),
        Command::Index { check } => cli::cmd_index(&cli, &ctx, *check),
        Command::Dream(args) => cli::dream::run(&cli, &ctx, args),
        Command::Forget(args) => cli::forget::run(&cli, &ctx, args),
        Command::Check => {
            let problems = check::check(&ctx);
            if cli.json {
                print_json(&problems)?;
            } else {
                for p in &problems {
                    println!(
                        "{}: {}/{}: {}: {}",
                        p.kind, p.scope, p.path, p.kind, p.message
                    );
                }
                if problems.is_empty() && !cli.quiet {
                    println!("all memory files are valid");
                }
            }
            Ok(if problems.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            })
        }
        Command::Stats => {
            let events = telemetry::read_events(ctx.state_dir());
            let stats = telemetry::summarize(&events);
            if cli.json {
                print_json(&stats)?;
            } else if stats.is_empty() {
                println!("no telemetry events yet");
            } else {
                println!(
                    "{:<28} {:>6} {:>8} {:>8}",
                    "event", "count", "p50 ms", "p95 ms"
                );
                for s in &stats {
                    let ms = |v: Option<u64>| v.map_or("-".to_string(), |n| n.to_string());
                    println!(
                        "{:<28} {:>6} {:>8} {:>8}",
                        s.event,
                        s.count,
                        ms(s.p50_ms),
                        ms(s.p95_ms)
                    );
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Install(args) => cli::install::run_install(&cli, &ctx, args),
        Command::Uninstall(args) => cli::install::run_uninstall(&cli, &ctx, args),
        Command::Commit(args) => cli::commit::run_commit(&cli, &ctx, args),
        Command::Sync => cli::commit::run_sync(&cli, &ctx),
        Command::Completions { .. } | Command::Man | Command::Hook(_) | Command::MergeFile(_) => {
            Ok(ExitCode::SUCCESS)
        }
    }
}
