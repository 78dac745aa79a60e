//! `man`: one manual page per command, rendered from the clap definition by `clap_mangen`, with
//! the sections a reader of a Git manual expects (SYNOPSIS, EXAMPLES, ENVIRONMENT, FILES, EXIT
//! STATUS, SEE ALSO). `git qwen-memory --help` is turned by git into `man git-qwen-memory`, so
//! these pages are also the tool's `--help` through git.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use clap::Command;
use qwen_memory::storage::settings;

/// The name pages are filed under (`git-qwen-memory.1`, `git-qwen-memory-status.1`, …).
pub const PAGE_NAME: &str = "git-qwen-memory";

/// The command tree as the pages show it: the help subcommand left out (each command has its
/// own page instead), built so every subcommand knows its page name.
pub fn page_tree(cmd: Command) -> Command {
    let mut cmd = cmd.name(PAGE_NAME).disable_help_subcommand(true);
    cmd.build();
    cmd
}

/// Every page: the top-level one first, then one per visible subcommand, as
/// (file name, roff).
pub fn render_all(root: &Command) -> io::Result<Vec<(String, Vec<u8>)>> {
    let mut pages = Vec::new();
    let mut buf = Vec::new();
    render(root, None, &mut buf)?;
    pages.push((format!("{PAGE_NAME}.1"), buf));
    for sub in visible_subcommands(root) {
        let mut buf = Vec::new();
        render(root, Some(sub), &mut buf)?;
        pages.push((format!("{}.1", page_of(sub.get_name())), buf));
    }
    Ok(pages)
}

/// Writes every page into `dir`, returning the paths written.
pub fn write_all(root: &Command, dir: &Path) -> io::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)?;
    let mut written = Vec::new();
    for (name, roff) in render_all(root)? {
        let path = dir.join(name);
        std::fs::write(&path, roff)?;
        written.push(path);
    }
    Ok(written)
}

/// The page of one subcommand, or the top-level page; `None` for an unknown name.
pub fn render_one(root: &Command, name: Option<&str>, w: &mut dyn Write) -> io::Result<bool> {
    match name {
        None => render(root, None, w).map(|()| true),
        Some(n) => match visible_subcommands(root).find(|s| s.get_name() == n) {
            Some(sub) => render(root, Some(sub), w).map(|()| true),
            None => Ok(false),
        },
    }
}

fn visible_subcommands(root: &Command) -> impl Iterator<Item = &Command> {
    root.get_subcommands().filter(|s| !s.is_hide_set())
}

fn page_of(sub: &str) -> String {
    format!("{PAGE_NAME}-{sub}")
}

fn render(root: &Command, sub: Option<&Command>, w: &mut dyn Write) -> io::Result<()> {
    let cmd = sub.unwrap_or(root);
    let man = clap_mangen::Man::new(cmd.clone()).title(match sub {
        Some(s) => page_of(s.get_name()).to_uppercase(),
        None => PAGE_NAME.to_uppercase(),
    });
    man.render_title(w)?;
    man.render_name_section(w)?;
    // clap_mangen's synopsis shows an option's value as nothing (`[-C ]`); ours names it.
    write_synopsis(root, sub, w)?;
    man.render_description_section(w)?;
    if cmd.get_arguments().any(|a| !a.is_hide_set()) {
        man.render_options_section(w)?;
    }
    if sub.is_none() {
        man.render_subcommands_section(w)?;
    }
    let name = sub.map(Command::get_name);
    write_examples(name, w)?;
    write_exit_status(name, w)?;
    write_environment(w)?;
    write_files(w)?;
    write_see_also(root, name, w)?;
    // Subcommands carry no version of their own; the top-level one does.
    if root.get_version().is_some() {
        clap_mangen::Man::new(root.clone()).render_version_section(w)?;
    }
    Ok(())
}

/// Escapes text for roff: backslashes and hyphens, and a leading `.` or `'`.
fn esc(text: &str) -> String {
    let body = text.replace('\\', "\\e").replace('-', "\\-");
    if body.starts_with('.') || body.starts_with('\'') {
        format!("\\&{body}")
    } else {
        body
    }
}

fn bold(text: &str) -> String {
    format!("\\fB{}\\fR", esc(text))
}

fn italic(text: &str) -> String {
    format!("\\fI{}\\fR", esc(text))
}

fn arg_synopsis(arg: &clap::Arg) -> Option<String> {
    let flag = match (arg.get_short(), arg.get_long()) {
        (Some(s), Some(l)) => format!("{}|{}", bold(&format!("-{s}")), bold(&format!("--{l}"))),
        (Some(s), None) => bold(&format!("-{s}")),
        (None, Some(l)) => bold(&format!("--{l}")),
        (None, None) => {
            let names = arg
                .get_value_names()
                .map(|v| v.join(" "))
                .unwrap_or_else(|| arg.get_id().as_str().to_uppercase());
            let dots = if arg.get_num_args().is_some_and(|n| n.max_values() > 1) {
                "..."
            } else {
                ""
            };
            let text = format!("{}{dots}", italic(&names.to_lowercase()));
            return Some(if arg.is_required_set() {
                text
            } else {
                format!("[{text}]")
            });
        }
    };
    let takes_value = arg.get_num_args().is_some_and(|n| n.takes_values());
    let value = if takes_value {
        let names = arg
            .get_value_names()
            .map(|v| v.join(" "))
            .unwrap_or_else(|| arg.get_id().as_str().to_string());
        format!(" {}", italic(&names.to_lowercase()))
    } else {
        String::new()
    };
    let text = format!("{flag}{value}");
    Some(if arg.is_required_set() {
        text
    } else {
        format!("[{text}]")
    })
}

fn write_synopsis(root: &Command, sub: Option<&Command>, w: &mut dyn Write) -> io::Result<()> {
    let mut parts = vec![bold("git qwen-memory")];
    let globals = root
        .get_arguments()
        .filter(|a| !a.is_hide_set() && a.get_id() != "help" && a.get_id() != "version");
    parts.extend(globals.filter_map(arg_synopsis));
    match sub {
        None => parts.push(format!("{} [{}]", italic("command"), italic("options"))),
        Some(sub) => {
            parts.push(bold(sub.get_name()));
            let own = sub
                .get_arguments()
                .filter(|a| !a.is_hide_set() && !a.is_global_set() && a.get_id() != "help");
            let (positional, options): (Vec<_>, Vec<_>) = own.partition(|a| a.is_positional());
            parts.extend(options.into_iter().filter_map(arg_synopsis));
            parts.extend(positional.into_iter().filter_map(arg_synopsis));
        }
    }
    writeln!(w, ".SH SYNOPSIS")?;
    writeln!(w, "{}", parts.join(" "))
}

/// Worked examples per command: (command line, what it does).
fn examples(name: Option<&str>) -> &'static [(&'static str, &'static str)] {
    match name {
        None => &[
            ("git qwen-memory install --agent claude", "Recall and extract in every Claude Code session (no Git hooks)."),
            ("git qwen-memory install --local", "Keep memory in .qwen/memory/, committed and shared, with the Git hooks."),
            ("git qwen-memory remember --why \"CI uses it\" \"Use pnpm, not npm\"", "Save one fact now."),
            ("git qwen-memory recall \"how do we deploy?\"", "Print the memories relevant to a question."),
            ("git qwen-memory status", "Where memory lives, what is installed, when the next dream is due."),
        ],
        Some("status") => &[
            ("git qwen-memory status", "Project key, roots and document counts, hooks, dream gates."),
            ("git qwen-memory status -v", "Also every setting and where its value came from."),
            ("git qwen-memory status --json", "The same as data."),
        ],
        Some("list") => &[
            ("git qwen-memory list", "Every memory of every root."),
            ("git qwen-memory list --type feedback --scope repository", "Only the feedback kept in the repository."),
            ("git qwen-memory list | head -5", "The first five."),
        ],
        Some("show") => &[
            ("git qwen-memory show project/use-pnpm.md", "Print one memory by the id `list` shows."),
            ("git qwen-memory show user:user/prefers-short-answers.md", "A memory of another root."),
        ],
        Some("remember") => &[
            ("git qwen-memory remember \"Deploys go out on Tuesdays\"", "Save a project fact."),
            ("git qwen-memory remember --why \"npm breaks the lockfile\" \"Use pnpm\"", "Save it with its reason, or add the reason to the existing entry."),
            ("git qwen-memory remember --scope user \"I prefer short answers\"", "A fact about you, shared by all projects."),
        ],
        Some("recall") => &[
            ("git qwen-memory recall \"how do we deploy?\"", "The relevant memories as a prompt block."),
            ("echo \"release steps\" | git qwen-memory recall - --format json", "Read the query from stdin; print JSON."),
            ("git qwen-memory recall --limit 3 --strategy model deploy", "At most three, chosen by the configured model."),
        ],
        Some("extract") => &[
            ("git qwen-memory extract", "Read the newest chat of this project and save its durable facts."),
            ("git qwen-memory extract --transcript ~/.claude/projects/x/s.jsonl --dry-run", "Show what one transcript would add; write nothing."),
        ],
        Some("index") => &[
            ("git qwen-memory index", "Rebuild MEMORY.md."),
            ("git qwen-memory index --check", "In CI: exit 1 when MEMORY.md is out of date."),
        ],
        Some("check") => &[
            ("git qwen-memory check", "Validate every memory file and the settings; exit 1 on problems."),
            ("git qwen-memory check --json", "The problems as data."),
        ],
        Some("dream") => &[
            ("git qwen-memory dream --dry-run", "Show the consolidation as a diff; change nothing."),
            ("git qwen-memory dream --force", "Consolidate now, whatever the gates say."),
            ("git qwen-memory dream --undo", "Restore every file the last dream changed."),
        ],
        Some("forget") => &[
            ("git qwen-memory forget --dry-run \"staging server\"", "Show which entries a query names."),
            ("git qwen-memory forget --yes \"staging server\"", "Remove them without asking."),
            ("git qwen-memory forget --undo", "Bring back what the last forget removed."),
        ],
        Some("stats") => &[
            ("git qwen-memory stats", "How often each operation ran and how long it took."),
            ("git qwen-memory stats --json", "The same as data (p50Ms, p95Ms)."),
        ],
        Some("completions") => &[
            ("git qwen-memory completions bash > ~/.local/share/bash-completion/completions/git-qwen-memory", "Bash: completes both `git qwen-memory <TAB>` and `git-qwen-memory <TAB>`."),
            ("git qwen-memory completions zsh > ~/.zfunc/_git-qwen-memory", "Zsh (with ~/.zfunc in fpath): used by zsh's git completion too."),
            ("git qwen-memory completions fish > ~/.config/fish/completions/git-qwen-memory.fish", "Fish."),
        ],
        Some("man") => &[
            ("git qwen-memory man | man -l -", "Read this manual."),
            ("git qwen-memory man status | man -l -", "The page of one command."),
            ("git qwen-memory man --out-dir ~/.local/share/man/man1", "Install every page (install.sh does this)."),
        ],
        Some("install") => &[
            ("git qwen-memory install", "The Git hooks of this repository."),
            ("git qwen-memory install --agent claude", "Only Claude Code's hooks, in ~/.claude/settings.json."),
            ("git qwen-memory install --agent qwen --project", "Qwen Code's hooks and MCP server in this project's .qwen/settings.json."),
            ("git qwen-memory install --agent codex", "Register the MCP server with Codex CLI (~/.codex/config.toml)."),
            ("git qwen-memory install --local", "Local mode: memory committed in .qwen/memory/, with the merge driver."),
        ],
        Some("uninstall") => &[
            ("git qwen-memory uninstall", "Remove the Git hooks, restoring any hook that was there."),
            ("git qwen-memory uninstall --agent all", "Remove the agent hooks from the user settings."),
        ],
        Some("commit") => &[
            ("git qwen-memory commit -m \"memory: deploy facts\"", "Commit only the memory directories' changes."),
        ],
        Some("sync") => &[
            ("git qwen-memory sync", "Pull, commit the memory directories, push: share memory in one command."),
        ],
        Some("merge-file") => &[
            ("git config merge.qwen-memory.driver \"git qwen-memory merge-file %O %A %B %P\"", "What `install --local` registers for .qwen/memory/*.md."),
        ],
        Some("mcp") => &[
            ("git qwen-memory install --agent claude", "Register the server with Claude Code (also --agent qwen, codex, gemini)."),
            ("claude mcp add qwen-memory -- git-qwen-memory mcp", "The same by hand, with the client's own command."),
            ("git qwen-memory -C ~/src/shop mcp", "Serve another project's memory."),
        ],
        Some("hook") => &[
            ("git qwen-memory hook post-commit", "What the installed post-commit shim runs."),
            ("echo '{\"prompt\":\"deploy?\"}' | git qwen-memory hook recall --agent claude", "What Claude Code's UserPromptSubmit hook runs."),
        ],
        Some(_) => &[],
    }
}

fn write_examples(name: Option<&str>, w: &mut dyn Write) -> io::Result<()> {
    let list = examples(name);
    if list.is_empty() {
        return Ok(());
    }
    writeln!(w, ".SH EXAMPLES")?;
    for (line, what) in list {
        writeln!(w, ".TP")?;
        writeln!(w, "{}", bold(line))?;
        writeln!(w, "{}", esc(what))?;
    }
    Ok(())
}

fn write_exit_status(name: Option<&str>, w: &mut dyn Write) -> io::Result<()> {
    writeln!(w, ".SH \"EXIT STATUS\"")?;
    let lines: &[(&str, &str)] = match name {
        Some("hook") => &[
            ("0", "Always, whatever happened (problems go to hook.log in the state directory), except that the pre\\-commit hook exits 1 to block a commit that would add a secret or conflict markers."),
        ],
        Some("check") => &[
            ("0", "Every memory file and setting is valid."),
            ("1", "Problems were found (each is printed), or the check could not run."),
            ("2", "Usage error."),
        ],
        Some("index") => &[
            ("0", "The index is up to date (or was rebuilt)."),
            ("1", "With \\-\\-check: an index is out of date; or a failure."),
            ("2", "Usage error."),
        ],
        _ => &[
            ("0", "Success."),
            ("1", "Failure (the message says why), including a command that writes run outside a Git repository."),
            ("2", "Usage error."),
        ],
    };
    for (code, what) in lines {
        writeln!(w, ".TP\n{}", bold(code))?;
        // Already escaped above where needed.
        writeln!(w, "{what}")?;
    }
    writeln!(w, ".PP\nA closed standard output (a pager or `head` that stopped reading) ends a command quietly with its usual status.")
}

/// What the environment variables that are not settings do.
fn env_description(name: &str) -> Option<&'static str> {
    Some(match name {
        "QWEN_CODE_MEMORY_BASE_DIR" => "The memory base directory (default: ~/.qwen, as Qwen Code).",
        "QWEN_CODE_MEMORY_PROJECT_SCOPE" => "\"workspace\" keys the project by the current directory instead of the Git root, and lets commands that write run outside a repository.",
        "QWEN_RUNTIME_DIR" => "Qwen Code's runtime directory, where its chats are found.",
        "QWEN_HOME" => "Qwen Code's home directory (its settings.json).",
        "CLAUDE_CONFIG_DIR" => "Claude Code's configuration directory (default: ~/.claude).",
        "QWEN_MEMORY_MODEL_API_KEY" => "The model's API key (never stored or printed).",
        "OPENAI_API_KEY" => "The model's API key when QWEN_MEMORY_MODEL_API_KEY is unset.",
        "OPENAI_BASE_URL" | "OPENAI_MODEL" => "Fill in model.baseUrl / model.name once model use is on; never turn it on by themselves.",
        "QWEN_MEMORY_HOOK_EXEC" => "The program hooks start for detached work instead of this executable.",
        "QWEN_MEMORY_TELEMETRY" => "0 writes no telemetry file.",
        "QWEN_CODE_MEMORY_TEAM" => "Qwen Code's team-memory switch (0 off, 1 on); status and the Qwen hooks read it to know what Qwen Code shows.",
        "QWEN_MEMORY_EMBEDDINGS_API_KEY" => "The embeddings endpoint's API key (else OPENAI_API_KEY), used only once recall.embeddings.* is set.",
        "GIT_DIR" | "GIT_WORK_TREE" | "GIT_INDEX_FILE" => "As for git: which repository, working tree and index the Git operations use.",
        "GIT_SSH_COMMAND" => "Used by sync's pull and push; when unset, sync runs ssh in batch mode so it never prompts.",
        "GIT_AUTHOR_NAME" | "GIT_AUTHOR_EMAIL" | "GIT_COMMITTER_NAME" | "GIT_COMMITTER_EMAIL" => "As for git: the author and committer of the commits this tool makes; else user.name and user.email.",
        "GIT_CONFIG_GLOBAL" | "GIT_CONFIG_SYSTEM" | "GIT_CONFIG_NOSYSTEM" => "As for git: which global and system configuration files are read (settings, core.hooksPath, the commit identity).",
        "GIT_CONFIG_PARAMETERS" | "GIT_CONFIG_COUNT" => "As for git: configuration given with git -c (or GIT_CONFIG_KEY_<n>/GIT_CONFIG_VALUE_<n>), above every file; git -c qwen-memory.hooks.enabled=false commit runs the commit without this tool's hooks.",
        _ => return None,
    })
}

fn write_environment(w: &mut dyn Write) -> io::Result<()> {
    writeln!(w, ".SH ENVIRONMENT")?;
    writeln!(w, "Settings are read from a command\\-line flag, then the environment, then git config (qwen\\-memory.*, any scope), then the default.")?;
    for def in settings::DEFS {
        let Some(env) = def.env else { continue };
        let default = def
            .default
            .map(|d| format!(" (default: {d})"))
            .unwrap_or_default();
        writeln!(w, ".TP\n{}", bold(env))?;
        writeln!(
            w,
            "{}",
            esc(&format!("Sets qwen-memory.{}{default}.", def.name))
        )?;
    }
    for name in settings::ENV_VARS {
        if let Some(what) = env_description(name) {
            writeln!(w, ".TP\n{}\n{}", bold(name), esc(what))?;
        }
    }
    Ok(())
}

fn write_files(w: &mut dyn Write) -> io::Result<()> {
    writeln!(w, ".SH FILES")?;
    let files: &[(&str, &str)] = &[
        ("~/.qwen/projects/<key>/memory/", "The private memory of a project (the default root), shared with Qwen Code; MEMORY.md is its index."),
        ("<worktree>/.qwen/memory/", "The repository memory in local mode: committed and shared with the team."),
        ("<worktree>/.qwen/team-memory/", "Team memory (Qwen Code's shared tier), written only by a person."),
        ("~/.qwen/memories/", "User memory: facts about you, for every project."),
        ("~/.qwen/projects/<key>/", "State of the private root: meta.json, consolidation.lock, hook.log, telemetry, backups for undo."),
        ("<git-dir>/qwen-memory/", "State in local mode, never in the working tree."),
        ("~/.qwen/settings.json, ~/.claude/settings.json", "Agent settings that install --agent edits."),
    ];
    for (path, what) in files {
        writeln!(w, ".TP\n{}\n{}", italic(path), esc(what))?;
    }
    Ok(())
}

fn write_see_also(root: &Command, name: Option<&str>, w: &mut dyn Write) -> io::Result<()> {
    writeln!(w, ".SH \"SEE ALSO\"")?;
    // Only pages this tool installs, plus git's own.
    let mut refs: Vec<String> = match name {
        Some(_) => vec![format!("{}(1)", bold(PAGE_NAME))],
        None => visible_subcommands(root)
            .map(|s| format!("{}(1)", bold(&page_of(s.get_name()))))
            .collect(),
    };
    refs.push(format!("{}(1)", bold("git")));
    writeln!(w, "{}", refs.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roff_escaping() {
        assert_eq!(esc("a-b"), "a\\-b");
        assert_eq!(esc(".x"), "\\&.x");
        assert_eq!(esc("a\\b"), "a\\eb");
    }
}
