//! Command implementations of the binary: each calls the library and renders its result.

pub mod commit;
pub mod completions;
pub mod hook;
pub mod install;

use std::io::Write;
use std::process::ExitCode;

use anyhow::Result;
use clap::ValueEnum;
use qwen_memory::formats::doc::MemoryType;
use qwen_memory::formats::sanitize::escape_for_terminal;
use qwen_memory::integrations::git::commit::AutoCommit;
use qwen_memory::storage::context::Context;
use qwen_memory::storage::root_writer;
use qwen_memory::storage::scan::Scope;
use qwen_memory::{ops::browse, ops::status};

use crate::Cli;

pub mod dream;
pub mod extract;
pub mod forget;
pub mod man;
pub mod mcp;
mod mcp_input;
pub mod recall;
pub mod remember;

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum TypeArg {
    User,
    Feedback,
    Project,
    Reference,
}

impl From<TypeArg> for MemoryType {
    fn from(t: TypeArg) -> MemoryType {
        match t {
            TypeArg::User => MemoryType::User,
            TypeArg::Feedback => MemoryType::Feedback,
            TypeArg::Project => MemoryType::Project,
            TypeArg::Reference => MemoryType::Reference,
        }
    }
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum ScopeArg {
    Repository,
    Private,
    Team,
    User,
}

impl From<ScopeArg> for Scope {
    fn from(s: ScopeArg) -> Scope {
        match s {
            ScopeArg::Repository => Scope::Repository,
            ScopeArg::Private => Scope::Private,
            ScopeArg::Team => Scope::Team,
            ScopeArg::User => Scope::User,
        }
    }
}

/// The command-line spelling of a value enum (what the settings layer expects as its value).
pub fn value_name(v: &impl ValueEnum) -> String {
    v.to_possible_value()
        .map(|p| p.get_name().to_string())
        .unwrap_or_default()
}

/// "1 doc", "2 docs".
pub fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Prints a value as pretty JSON plus newline, in one buffered write (the serializer writes
/// token by token: ~50 write calls for one extract report unbuffered).
pub fn print_json(value: &impl serde::Serialize) -> Result<()> {
    let mut out = std::io::BufWriter::with_capacity(64 * 1024, std::io::stdout().lock());
    serde_json::to_writer_pretty(&mut out, value)?;
    writeln!(out)?;
    out.flush()?;
    Ok(())
}

fn list_or_none(items: &[&str]) -> String {
    if items.is_empty() {
        "nothing".to_string()
    } else {
        items.join(", ")
    }
}

pub fn cmd_status(cli: &Cli, ctx: &Context) -> Result<ExitCode> {
    let st = status::status(ctx);
    if cli.json {
        print_json(&st)?;
        return Ok(ExitCode::SUCCESS);
    }
    for w in &st.warnings {
        eprintln!("warning: {w}");
    }
    for p in &st.setting_problems {
        println!("config    {p}");
    }
    println!("project   {}", st.project_root);
    println!("key       {}", st.project_key);
    println!("mode      {}", st.mode);
    println!("state     {}", st.state_dir);
    for r in &st.roots {
        let note = match (&r.error, r.exists) {
            (Some(e), _) => format!("error: {e}"),
            (None, true) => plural(r.docs, "doc", "docs"),
            (None, false) => "absent".to_string(),
        };
        let mark = if r.writable { "*" } else { " " };
        println!("{mark}{:<11} {}  ({note})", r.scope, r.path);
    }
    if let Some(pid) = &st.dream_lock_holder {
        println!("dream lock held by pid {pid}");
    }
    let h = &st.hooks;
    let mut installed: Vec<String> = h.git.iter().map(|s| s.to_string()).collect();
    installed.extend(h.config.iter().cloned());
    installed.extend(h.agents.iter().map(|a| {
        format!(
            "{}:{}",
            a.agent.as_str(),
            serde_json::to_value(a.scope)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default()
        )
    }));
    if installed.is_empty() {
        println!("hooks     none (git qwen-memory install)");
    } else {
        println!("hooks     {}", installed.join(", "));
    }
    let q = &st.agents.qwen;
    println!(
        "qwen      Qwen Code's own memory {}; it recalls {}; our hook adds {}; extraction by {}",
        if q.managed_auto_memory { "on" } else { "off" },
        list_or_none(&q.qwen_recalls),
        list_or_none(&q.hook_injects),
        q.extracts,
    );
    render_trust_status(&st);
    dream::render_status(&st);
    render_extract_status(&st.extraction);
    if let Some(p) = &st.embeddings {
        let error = p
            .error
            .as_deref()
            .map(|e| format!(": {e}"))
            .unwrap_or_default();
        println!(
            "embeddings: {} ({} of {} embedded with {}, updated {}){error}",
            p.state, p.done, p.total, p.model, p.updated_at
        );
    }
    if cli.verbose {
        println!("settings:");
        for s in &st.settings {
            println!(
                "  {:<18} {:<24} ({})",
                s.key,
                s.value.as_deref().unwrap_or("-"),
                s.origin
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The trust policy, pending memories and what the last pull brought (docs/security.md).
fn render_trust_status(st: &status::Status) {
    if let Some(p) = &st.trust_policy {
        println!("trust     shared memory is recalled only {p}");
    }
    for p in &st.pending {
        println!("  pending {}:{}: {}", p.scope, p.path, p.reason);
    }
    if !st.arrived.is_empty() {
        println!(
            "pulled    {} new shared memor{} from the last pull:",
            st.arrived.len(),
            if st.arrived.len() == 1 { "y" } else { "ies" }
        );
    }
    for a in &st.arrived {
        let from = match (&a.author, &a.age) {
            (Some(author), Some(age)) => format!("from {author}, {age}"),
            _ => "author unknown".to_string(),
        };
        let pending = if a.trusted { "" } else { " (pending)" };
        println!("  {} {from}{pending}", a.path);
    }
}

fn render_extract_status(x: &status::ExtractStatus) {
    let queued = if x.queued > 0 {
        format!(", {} request(s) queued", x.queued)
    } else {
        String::new()
    };
    println!(
        "extract   {} transcript(s) with a cursor{queued}",
        x.transcripts
    );
    if let Some(e) = &x.error {
        println!("          cursor file unreadable: {e}");
    }
    if let Some(e) = &x.queue_error {
        println!("          {e} (the next extract moves it aside)");
    }
    if let Some(f) = &x.last_failure {
        let session = f
            .session_id
            .as_deref()
            .map(|s| format!(", session {s}"))
            .unwrap_or_default();
        println!(
            "          last failure {}: {} (transcript {}{session})",
            f.at, f.error, f.transcript_path
        );
        match &f.retried_at {
            Some(at) => println!("          retried successfully {at}"),
            None if x
                .pending_retries
                .iter()
                .any(|p| p.transcript_path == f.transcript_path) =>
            {
                println!(
                    "          not saved yet: the next extract retries it ({} failed attempt(s))",
                    f.attempts
                )
            }
            None => {}
        }
    }
    for p in x
        .pending_retries
        .iter()
        .filter(|p| x.last_failure.as_ref().map(|l| &l.transcript_path) != Some(&p.transcript_path))
    {
        println!(
            "          pending retry: {} ({} failed attempt(s), last {}: {})",
            p.transcript_path, p.attempts, p.at, p.error
        );
    }
}

pub fn cmd_list(
    cli: &Cli,
    ctx: &Context,
    memory_type: Option<TypeArg>,
    scope: Option<ScopeArg>,
    reveal: bool,
) -> Result<ExitCode> {
    let (listed, errors) = browse::list(
        ctx,
        memory_type.map(Into::into),
        scope.map(Into::into),
        reveal,
    );
    for e in &errors {
        eprintln!("warning: {e}");
    }
    if cli.json {
        print_json(&listed)?;
    } else {
        for l in &listed {
            // A description that only repeats the title says nothing.
            let desc = if l.description.is_empty() || l.description == l.title {
                String::new()
            } else {
                format!(" — {}", l.description)
            };
            // Memory text reaches the terminal only escaped (docs/DESIGN.md, "Security").
            let line = format!(
                "{:<10} {:<9} {}  {}{desc}",
                l.scope, l.memory_type, l.id, l.title
            );
            println!("{}", escape_for_terminal(&line.replace(['\n', '\r'], " ")));
        }
        if listed.iter().any(|l| l.masked) && !cli.quiet {
            eprintln!("note: secrets are masked; pass --reveal to print them");
        }
        if listed.is_empty() && !cli.quiet {
            println!("no memories yet");
        }
    }
    Ok(ExitCode::SUCCESS)
}

pub fn cmd_show(cli: &Cli, ctx: &Context, id: &str, reveal: bool) -> Result<ExitCode> {
    let shown = browse::show(ctx, id, reveal)?;
    if cli.json {
        print_json(&shown)?;
        return Ok(ExitCode::SUCCESS);
    }
    let heading = format!(
        "# {} ({}: {})",
        shown.listed.title, shown.listed.scope, shown.listed.id
    );
    println!(
        "{}",
        escape_for_terminal(&heading.replace(['\n', '\r'], " "))
    );
    if let Some(n) = shown.commits_behind_head {
        if n > 0 {
            println!("# written {n} commit(s) before HEAD; check it still holds");
        }
    }
    let content = escape_for_terminal(&shown.content);
    print!("{content}");
    if !content.ends_with('\n') {
        println!();
    }
    if shown.listed.masked && !cli.quiet {
        eprintln!("note: a secret is masked; pass --reveal to print it");
    }
    Ok(ExitCode::SUCCESS)
}

pub fn cmd_index(cli: &Cli, ctx: &Context, check_only: bool) -> Result<ExitCode> {
    let layout = &ctx.layout;
    let mut roots = vec![layout.writable()];
    for extra in [&layout.repository, &layout.team, &layout.user] {
        if extra.path.is_dir() && !roots.contains(&extra) {
            roots.push(extra);
        }
    }
    let mut stale = Vec::new();
    let mut rebuilt = Vec::new();
    for r in roots {
        if check_only {
            if root_writer::index_is_stale(r)? {
                stale.push(r.path.join("MEMORY.md").display().to_string());
            }
        } else if root_writer::rebuild_index(r)? {
            rebuilt.push(r.path.join("MEMORY.md").display().to_string());
        }
    }
    if cli.json {
        print_json(&serde_json::json!({ "stale": stale, "rebuilt": rebuilt }))?;
    } else if !cli.quiet {
        for s in &stale {
            println!("stale: {s}");
        }
        for r in &rebuilt {
            println!("rebuilt: {r}");
        }
        if stale.is_empty() && rebuilt.is_empty() {
            println!("index up to date");
        }
    }
    Ok(if stale.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// Says what the auto-commit that followed a command's change did (the operation ran it).
pub fn render_auto_commit(cli: &Cli, auto_commit: &Option<AutoCommit>) {
    let Some(done) = auto_commit else {
        return;
    };
    if let Some(e) = &done.error {
        eprintln!("warning: memory saved but not committed: {e}");
    } else if let (Some(id), false) = (&done.commit, cli.quiet || cli.json) {
        println!(
            "committed {} ({})",
            &id[..id.len().min(12)],
            done.subject.as_deref().unwrap_or("")
        );
    }
}

/// Renders the result of `dream --undo` / `forget --undo` (`what` names the run kind).
pub fn render_undo(cli: &Cli, what: &str, undone: &qwen_memory::ops::undo::Undone) -> Result<()> {
    let out = &undone.outcome;
    if let Some(e) = &out.index_error {
        eprintln!("warning: MEMORY.md not rebuilt ({e}); run `git qwen-memory index`");
    }
    if cli.json {
        let mut v = serde_json::to_value(undone)?;
        v["status"] = "undone".into();
        print_json(&v)?;
    } else if !cli.quiet {
        println!(
            "restored {} file(s) from {what} run {}",
            out.restored.len() + out.removed.len(),
            out.run_id
        );
        if cli.verbose {
            for p in &out.restored {
                println!("  restored {p}");
            }
            for p in &out.removed {
                println!("  removed  {p}");
            }
        }
    }
    render_auto_commit(cli, &undone.auto_commit);
    Ok(())
}

/// `check`: every problem on its own line; exit 1 when there is one.
pub fn cmd_check(cli: &Cli, ctx: &Context) -> Result<ExitCode> {
    let problems = qwen_memory::ops::check::check(ctx);
    if !problems.is_empty() {
        crate::CLOSED_PIPE_EXIT.store(1, std::sync::atomic::Ordering::Relaxed);
    }
    if cli.json {
        print_json(&problems)?;
    } else {
        for p in &problems {
            if p.path.is_empty() {
                println!("{}: {}", p.kind, p.message);
            } else {
                let line = format!("{}/{}: {}: {}", p.scope, p.path, p.kind, p.message);
                println!("{}", escape_for_terminal(&line.replace(['\n', '\r'], " ")));
            }
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

/// `stats`: counts and latency percentiles per telemetry event.
pub fn cmd_stats(cli: &Cli, ctx: &Context) -> Result<ExitCode> {
    use qwen_memory::integrations::telemetry;
    let stats = telemetry::summarize(&telemetry::read_events(ctx.state_dir()));
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
