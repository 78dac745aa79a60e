//! `git-qwen-memory`: the command line. It parses arguments, calls the library and renders the
//! result; every capability lives in the `qwen_memory` library.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context as _, Result};
use clap::{CommandFactory, Parser, Subcommand};
use qwen_memory::storage::context::Context;
use qwen_memory::storage::settings::Key;

mod cli;
use cli::{ScopeArg, TypeArg};

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
        /// Print a stored secret instead of masking it.
        #[arg(long)]
        reveal: bool,
    },
    /// Show one memory by id (relative path) or file path.
    Show {
        /// The id from `list` (relative path, optionally `scope:path`) or a file path.
        id: String,
        /// Print a stored secret instead of masking it.
        #[arg(long)]
        reveal: bool,
    },
    /// Write one entry now (an explicit "remember this").
    Remember(cli::remember::RememberArgs),
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
    /// Print shell completions (bash and zsh also complete `git qwen-memory`).
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Print a manual page (roff), or write every page into a directory.
    Man {
        /// The command whose page to print (default: the overview page).
        command: Option<String>,
        /// Write every page (git-qwen-memory.1 and one per command) into this directory.
        #[arg(long, value_name = "DIR", conflicts_with = "command")]
        out_dir: Option<PathBuf>,
    },
    /// Install the Git hooks (with --local, local mode; with --agent, that agent's hooks only).
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
    /// Serve this project's memory to MCP clients on stdin/stdout (tools recall, remember,
    /// forget, list, show; MEMORY.md and topic documents as resources).
    Mcp,
    /// Embeds the memories the embeddings cache lacks (the background job recall starts).
    #[command(hide = true)]
    EmbedJob,
}

/// A usage error as clap writes it, unless it would echo a secret given where a flag or value
/// was expected (`--type ghp_…`, a key pasted into the wrong place): then the same message
/// with the secret redacted, as every other output (docs/DESIGN.md, "Security").
fn usage_error(err: clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(
        err.kind(),
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion
    ) || qwen_memory::formats::secrets::scan(&err.render().to_string()).is_empty()
    {
        err.exit()
    }
    let text = qwen_memory::formats::secrets::redact(&err.render().to_string());
    // A closed standard error is not a reason to panic.
    let _ = std::io::Write::write_all(&mut std::io::stderr(), text.as_bytes());
    ExitCode::from(u8::try_from(err.exit_code()).unwrap_or(2))
}

fn main() -> ExitCode {
    quiet_on_closed_stdout();
    // A Git hook as the shims run it skips clap (see `run_git_hook_from_args`).
    if let Some(code) = cli::hook::run_git_hook_from_args(std::env::args_os()) {
        return code;
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => return usage_error(err),
    };
    match run(cli) {
        Ok(code) => code,
        // `git qwen-memory list | head -1`: the reader left; like git, stop quietly.
        Err(err) if is_broken_pipe(&err) => {
            ExitCode::from(CLOSED_PIPE_EXIT.load(std::sync::atomic::Ordering::Relaxed))
        }
        Err(err) => {
            eprintln!("git-qwen-memory: {err:#}");
            ExitCode::from(1)
        }
    }
}

fn is_broken_pipe(err: &anyhow::Error) -> bool {
    let broken = Some(std::io::ErrorKind::BrokenPipe);
    err.chain().any(|cause| {
        cause.downcast_ref::<std::io::Error>().map(|e| e.kind()) == broken
            || cause
                .downcast_ref::<serde_json::Error>()
                .and_then(|e| e.io_error_kind())
                == broken
    })
}

/// The exit code when stdout closes early: success, unless the command already knows its
/// result is a failure (`check` found problems) and says so before printing.
pub static CLOSED_PIPE_EXIT: std::sync::atomic::AtomicU8 = std::sync::atomic::AtomicU8::new(0);

/// `println!` panics when stdout is a pipe whose reader has gone (`| head -1`). Rather than
/// thread a write error through every line of output, a panic caused by that ends the process
/// quietly with success, as git and other Unix tools do; every other panic is reported as
/// before.
fn quiet_on_closed_stdout() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let payload = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if payload.contains("Broken pipe") || payload.contains("os error 32") {
            std::process::exit(
                CLOSED_PIPE_EXIT
                    .load(std::sync::atomic::Ordering::Relaxed)
                    .into(),
            );
        }
        default(info);
    }));
}

fn open_context(cli: &Cli) -> Result<Context> {
    let cwd = match &cli.dir {
        Some(d) => std::env::current_dir()?.join(d),
        None => std::env::current_dir().context("cannot read the current directory")?,
    };
    let flags: Vec<(Key, String)> = match &cli.command {
        Command::Recall(args) => cli::recall::flags(args),
        Command::Extract(args) => cli::extract::flags(args),
        Command::Dream(args) => cli::dream::flags(args),
        _ => Vec::new(),
    };
    // `status` and `check` report setting problems instead of dying on them.
    let ctx = if matches!(cli.command, Command::Status | Command::Check) {
        qwen_memory::integrations::git::repo::open_context_lenient(&cwd, &flags)?
    } else {
        let ctx = qwen_memory::integrations::git::repo::open_context(&cwd, &flags)?;
        for problem in ctx.settings.problems() {
            eprintln!("warning: {problem}");
        }
        ctx
    };
    if writes(&cli.command) {
        ctx.project.require_repository()?;
    }
    Ok(ctx)
}

/// Commands a person runs that change memory, hooks or settings files. Outside a Git
/// repository they refuse, as git does, instead of keying a project by whatever directory
/// they were started in.
fn writes(command: &Command) -> bool {
    match command {
        Command::Remember(_)
        | Command::Extract(_)
        | Command::Dream(_)
        | Command::Forget(_)
        | Command::Commit(_)
        | Command::Sync => true,
        Command::Install(args) => args.needs_repository(),
        Command::Uninstall(args) => args.agent.is_none() || args.project,
        Command::Index { check } => !check,
        _ => false,
    }
}

fn run(cli: Cli) -> Result<ExitCode> {
    match &cli.command {
        Command::Completions { shell } => {
            cli::completions::write(*shell, Cli::command(), &mut std::io::stdout().lock())?;
            return Ok(ExitCode::SUCCESS);
        }
        Command::Man { command, out_dir } => {
            let tree = cli::man::page_tree(Cli::command());
            if let Some(dir) = out_dir {
                let written = cli::man::write_all(&tree, dir)?;
                if !cli.quiet {
                    println!("wrote {} manual pages to {}", written.len(), dir.display());
                }
                return Ok(ExitCode::SUCCESS);
            }
            let mut page = Vec::new();
            if !cli::man::render_one(&tree, command.as_deref(), &mut page)? {
                eprintln!(
                    "git-qwen-memory: no manual page for {:?}",
                    command.as_deref().unwrap_or_default()
                );
                return Ok(ExitCode::from(2));
            }
            std::io::Write::write_all(&mut std::io::stdout().lock(), &page)?;
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
    if matches!(cli.command, Command::Mcp) {
        // The server owns its context for as long as it runs.
        return cli::mcp::run(ctx);
    }
    let result = match &cli.command {
        Command::Status => cli::cmd_status(&cli, &ctx),
        Command::List {
            memory_type,
            scope,
            reveal,
        } => cli::cmd_list(&cli, &ctx, *memory_type, *scope, *reveal),
        Command::Show { id, reveal } => cli::cmd_show(&cli, &ctx, id, *reveal),
        Command::Remember(args) => cli::remember::run(&cli, &ctx, args),
        Command::Recall(args) => cli::recall::run(&cli, &ctx, args),
        Command::Extract(args) => cli::extract::cmd_extract(&cli, &ctx, args),
        Command::Index { check } => cli::cmd_index(&cli, &ctx, *check),
        Command::Dream(args) => cli::dream::run(&cli, &ctx, args),
        Command::Forget(args) => cli::forget::run(&cli, &ctx, args),
        Command::Check => cli::cmd_check(&cli, &ctx),
        Command::Stats => cli::cmd_stats(&cli, &ctx),
        Command::Install(args) => cli::install::run_install(&cli, &ctx, args),
        Command::Uninstall(args) => cli::install::run_uninstall(&cli, &ctx, args),
        Command::Commit(args) => cli::commit::run_commit(&cli, &ctx, args),
        Command::Sync => cli::commit::run_sync(&cli, &ctx),
        Command::EmbedJob => cli::recall::run_embed_job(&ctx),
        Command::Completions { .. }
        | Command::Man { .. }
        | Command::Hook(_)
        | Command::Mcp
        | Command::MergeFile(_) => Ok(ExitCode::SUCCESS),
    };
    // Memory was written: embed it in the background when semantic recall is configured.
    if result.is_ok()
        && matches!(
            cli.command,
            Command::Remember(_)
                | Command::Extract(_)
                | Command::Dream(_)
                | Command::Forget(_)
                | Command::Sync
        )
    {
        qwen_memory::ops::recall::job::kick(&ctx);
    }
    result
}
