//! `install` / `uninstall`: Git hook shims, local mode and agent hooks (docs/DESIGN.md, "Git integration").

use std::process::ExitCode;

use anyhow::Result;
use clap::{Args, ValueEnum};
use qwen_memory::integrations::agent::{self, Agent, SettingsScope};
use qwen_memory::integrations::git::{self, shims};
use qwen_memory::integrations::mcp_config::{self, Client};
use qwen_memory::storage::context::Context;
use serde_json::{json, Value};

use crate::{cli::print_json, Cli};

/// Which agents.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum AgentArg {
    /// Qwen Code: hooks and the MCP server.
    Qwen,
    /// Claude Code: hooks and the MCP server.
    Claude,
    /// Codex CLI: the MCP server.
    Codex,
    /// Gemini CLI: the MCP server.
    Gemini,
    /// Qwen Code and Claude Code, plus Codex CLI and Gemini CLI where their configuration
    /// directory exists.
    All,
}

impl AgentArg {
    /// The agents whose hooks are installed.
    fn agents(self) -> Vec<Agent> {
        match self {
            AgentArg::Qwen => vec![Agent::Qwen],
            AgentArg::Claude => vec![Agent::Claude],
            AgentArg::Codex | AgentArg::Gemini => Vec::new(),
            AgentArg::All => Agent::ALL.to_vec(),
        }
    }

    /// The MCP clients the server is registered with.
    fn mcp_clients(self) -> Vec<Client> {
        match self {
            AgentArg::Qwen => vec![Client::Qwen],
            AgentArg::Claude => vec![Client::Claude],
            AgentArg::Codex => vec![Client::Codex],
            AgentArg::Gemini => vec![Client::Gemini],
            AgentArg::All => {
                let mut all = vec![Client::Qwen, Client::Claude];
                all.extend(
                    [Client::Codex, Client::Gemini]
                        .into_iter()
                        .filter(|c| c.config_dir_exists()),
                );
                all
            }
        }
    }
}

/// The state directory where MCP registration remembers the files it created.
fn mcp_state_dir(ctx: &Context) -> std::path::PathBuf {
    ctx.layout.base.join("agent-settings-backup")
}

/// Registers (or removes) the MCP server for every client of `which`; returns the reports.
fn mcp_register(
    cli: &Cli,
    ctx: &Context,
    which: AgentArg,
    project: bool,
    remove: bool,
    warnings: &mut Vec<String>,
) -> Result<Vec<mcp_config::McpReport>> {
    let mut reports = Vec::new();
    for c in which.mcp_clients() {
        if project && !c.has_project_scope() {
            warnings.push(format!(
                "{} has no project MCP configuration; registered nothing for it (run without --project)",
                c.as_str()
            ));
            continue;
        }
        let path = mcp_config::config_path(c, project, &ctx.project.root)?;
        let r = if remove {
            mcp_config::uninstall(c, &path, &mcp_state_dir(ctx))?
        } else {
            mcp_config::install(c, &path, &mcp_state_dir(ctx))?
        };
        if !cli.json && !cli.quiet {
            let verb = match (remove, r.changed) {
                (false, true) => "registered in",
                (false, false) => "already registered in",
                (true, true) => "removed from",
                (true, false) => "was not in",
            };
            println!("{} MCP server {verb} {}", c.as_str(), r.path);
        }
        warnings.extend(r.warnings.iter().cloned());
        reports.push(r);
    }
    Ok(reports)
}

/// Arguments of `install`.
#[derive(Debug, Args)]
pub struct InstallArgs {
    /// Local mode: keep memory in `.qwen/memory/` (committed and shared), with the merge driver.
    #[arg(long)]
    pub local: bool,
    /// Turn on Qwen Code's team memory (`memory.enableTeamMemory`) in the project's
    /// `.qwen/settings.json`, so memory committed in `.qwen/team-memory/` reaches Qwen Code.
    #[arg(long)]
    pub team: bool,
    /// Add recall/extract hooks to this agent's settings (and no Git hooks unless --hooks
    /// names some).
    #[arg(long, value_enum)]
    pub agent: Option<AgentArg>,
    /// Use the project's agent settings file instead of the user's.
    #[arg(long)]
    pub project: bool,
    /// Git hooks to install: comma-separated names, `all` or `none` (default: `all`, or `none`
    /// with --agent).
    #[arg(long, value_name = "LIST")]
    pub hooks: Option<String>,
    /// Register config-based hooks (Git 2.54 or later) instead of hook files.
    #[arg(long)]
    pub config_hooks: bool,
    /// Print the hook snippets to add by hand; change nothing.
    #[arg(long)]
    pub manual: bool,
}

/// Arguments of `uninstall`.
#[derive(Debug, Args)]
pub struct UninstallArgs {
    /// Remove this agent's hooks from its settings (instead of the Git hooks).
    #[arg(long, value_enum)]
    pub agent: Option<AgentArg>,
    /// With --agent: the project's settings file instead of the user's.
    #[arg(long)]
    pub project: bool,
}

fn scope(project: bool) -> SettingsScope {
    if project {
        SettingsScope::Project
    } else {
        SettingsScope::User
    }
}

fn backup_dir(ctx: &Context) -> std::path::PathBuf {
    ctx.layout.base.join("agent-settings-backup")
}

impl InstallArgs {
    /// The Git hooks asked for: `--hooks`, else all of them unless only agent hooks were asked
    /// for (`--agent` alone installs the agent's hooks and nothing in the repository).
    pub fn git_hooks(&self) -> &str {
        match (&self.hooks, self.agent) {
            (Some(list), _) => list,
            (None, Some(_)) => "none",
            (None, None) => "all",
        }
    }

    /// Whether this install touches the repository (its hooks, config or project settings).
    pub fn needs_repository(&self) -> bool {
        self.local || self.project || self.team || self.git_hooks() != "none"
    }
}

pub fn run_install(cli: &Cli, ctx: &Context, args: &InstallArgs) -> Result<ExitCode> {
    let names = shims::parse_hook_list(args.git_hooks()).map_err(anyhow::Error::msg)?;
    let agents = args.agent.map(AgentArg::agents).unwrap_or_default();
    if args.manual {
        let clients = args.agent.map(AgentArg::mcp_clients).unwrap_or_default();
        return manual(ctx, &names, &agents, &clients, args.project);
    }
    let mut report = serde_json::Map::new();
    let mut warnings: Vec<String> = Vec::new();
    let mut failed = false;
    if args.local {
        let out = git::install_local(ctx)?;
        if !cli.json && !cli.quiet {
            println!(
                "local mode on: memory in {} (merge driver registered, {} {})",
                out.memory_dir,
                out.attributes_path,
                if out.attributes_changed {
                    "updated"
                } else {
                    "already set"
                }
            );
        }
        if !cli.json && !cli.quiet && !out.exclude_added.is_empty() {
            println!(
                "Qwen Code's local state files excluded from commits in {}: {}",
                out.exclude_path,
                out.exclude_added.join(", ")
            );
        }
        report.insert("local".into(), serde_json::to_value(&out)?);
    }
    if args.team {
        let changed = qwen_memory::storage::qwen_settings::enable_team_memory(
            &ctx.project.root,
            &backup_dir(ctx),
        )?;
        if !cli.json && !cli.quiet {
            println!(
                "Qwen Code team memory {} in {}",
                if changed { "turned on" } else { "already on" },
                ctx.project.root.join(".qwen/settings.json").display()
            );
        }
        report.insert("team".into(), json!({ "changed": changed }));
    }
    if !names.is_empty() {
        let result = if args.config_hooks {
            shims::install_config_hooks(ctx, &names, git::git_version()).map(|written| {
                if !cli.json && !cli.quiet {
                    println!("config-based hooks registered: {}", written.join(", "));
                }
                json!({ "config": written })
            })
        } else {
            shims::install(ctx, &names).map(|out| {
                if !cli.json && !cli.quiet {
                    println!("git hooks in {}:", out.hooks_dir.path.display());
                    for h in &out.hooks {
                        print_hook_line(h);
                    }
                }
                warnings.extend(out.warnings.iter().cloned());
                serde_json::to_value(&out).unwrap_or(Value::Null)
            })
        };
        match result {
            Ok(v) => {
                report.insert("gitHooks".into(), v);
            }
            Err(e) => {
                failed = true;
                warnings.push(format!("git hooks not installed: {e}"));
            }
        }
    }
    let mut agent_reports = Vec::new();
    for a in agents {
        let path = agent::settings_path(a, scope(args.project), &ctx.project.root)?;
        let mut r = agent::install(a, scope(args.project), &path, &backup_dir(ctx))?;
        // Qwen Code runs a hook once per settings file that lists it.
        let other = agent::settings_path(a, scope(!args.project), &ctx.project.root)?;
        if a == Agent::Qwen && agent::installed(a, &other) {
            r.warnings.push(format!(
                "{} also has these hooks; Qwen Code would run them twice. Remove one with \
                 `git qwen-memory uninstall --agent qwen{}`",
                other.display(),
                if args.project { "" } else { " --project" }
            ));
        }
        if !cli.json && !cli.quiet {
            println!(
                "{} hooks {} {}",
                a.as_str(),
                if r.changed { "added to" } else { "already in" },
                r.path
            );
        }
        warnings.extend(r.warnings.iter().cloned());
        agent_reports.push(r);
    }
    if !agent_reports.is_empty() {
        report.insert("agents".into(), serde_json::to_value(&agent_reports)?);
    }
    if let Some(which) = args.agent {
        let mcp = mcp_register(cli, ctx, which, args.project, false, &mut warnings)?;
        report.insert("mcp".into(), serde_json::to_value(&mcp)?);
    }
    report.insert("warnings".into(), json!(warnings));
    if cli.json {
        print_json(&Value::Object(report))?;
    } else {
        for w in &warnings {
            eprintln!("warning: {w}");
        }
    }
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

fn manual(
    ctx: &Context,
    names: &[&'static str],
    agents: &[Agent],
    clients: &[Client],
    project: bool,
) -> Result<ExitCode> {
    if !names.is_empty() {
        let dir = git::open_repo(ctx)
            .and_then(|r| shims::resolve_hooks_dir(&r))
            .map(|d| d.path.display().to_string())
            .unwrap_or_else(|_| "your hooks directory".into());
        println!("# Add each block to the hook of that name in {dir}");
        println!(
            "# (after the shebang line of a shell script), or to your hook manager's config.\n"
        );
        print!("{}", shims::manual_snippet(names));
    }
    for a in agents {
        let path = agent::settings_path(*a, scope(project), &ctx.project.root)?;
        println!("# Merge into {}:", path.display());
        print!("{}", agent::manual_snippet(*a));
    }
    // The MCP server, as `install` would register it.
    for c in clients {
        if project && !c.has_project_scope() {
            println!(
                "# {} has no project MCP configuration (run without --project)",
                c.as_str()
            );
            continue;
        }
        let path = mcp_config::config_path(*c, project, &ctx.project.root)?;
        let how = if *c == Client::Codex {
            "Append to"
        } else {
            "Merge into"
        };
        println!("# {how} {} (the MCP server):", path.display());
        print!("{}", mcp_config::manual_snippet(*c));
    }
    Ok(ExitCode::SUCCESS)
}

pub fn run_uninstall(cli: &Cli, ctx: &Context, args: &UninstallArgs) -> Result<ExitCode> {
    if let Some(which) = args.agent {
        // The MCP entry first: removing the hooks then finds the settings file as it was.
        let mut warnings = Vec::new();
        let mcp = mcp_register(cli, ctx, which, args.project, true, &mut warnings)?;
        let mut reports = Vec::new();
        for a in which.agents() {
            let path = agent::settings_path(a, scope(args.project), &ctx.project.root)?;
            let r = agent::uninstall(a, scope(args.project), &path, &backup_dir(ctx))?;
            if !cli.json && !cli.quiet {
                println!(
                    "{} hooks {} {}",
                    a.as_str(),
                    if r.changed {
                        "removed from"
                    } else {
                        "were not in"
                    },
                    r.path
                );
            }
            reports.push(r);
        }
        if cli.json {
            print_json(&json!({ "agents": reports, "mcp": mcp, "warnings": warnings }))?;
        } else {
            for w in &warnings {
                eprintln!("warning: {w}");
            }
        }
        return Ok(ExitCode::SUCCESS);
    }
    let out = shims::uninstall(ctx)?;
    if cli.json {
        print_json(&out)?;
    } else if !cli.quiet {
        for h in out
            .hooks
            .iter()
            .filter(|h| h.action != shims::HookAction::NotInstalled)
        {
            print_hook_line(h);
        }
        for w in &out.warnings {
            println!("{w}");
        }
        if out
            .hooks
            .iter()
            .all(|h| h.action == shims::HookAction::NotInstalled)
            && out.warnings.is_empty()
        {
            println!(
                "no hooks of git-qwen-memory in {}",
                out.hooks_dir.path.display()
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// One line of `install`/`uninstall` output: the hook and what was done to it.
fn print_hook_line(h: &shims::HookReport) {
    let action = serde_json::to_value(h.action).unwrap_or(Value::Null);
    println!("  {:<14} {}", h.hook, action.as_str().unwrap_or(""));
}
