//! Installing and removing the Git hook shims (docs/DESIGN.md, "Git integration").
//!
//! Each shim is a marked block (`# >>> git-qwen-memory >>>` … `# <<< git-qwen-memory <<<`)
//! placed right after the shebang line of an existing shell hook, so it runs even when the
//! foreign script ends with `exec` or `exit`; foreign bytes are never changed. A hook written
//! in another language (Python, Node, …) cannot hold a shell block: it is moved aside to
//! `<hook>.qwen-memory-chained` and a small shell hook runs the block and then `exec`s it.
//! Small flag lines inside the block record what install did (created the file, added a line
//! break, chained a hook), so `uninstall` restores every hook byte for byte.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::GitError;
use crate::storage::context::Context;
use crate::storage::safe_fs;
use crate::storage::store::StoreError;

/// The hooks this tool installs, in install order.
pub const HOOK_NAMES: [&str; 5] = [
    "pre-commit",
    "post-commit",
    "post-merge",
    "post-checkout",
    "post-rewrite",
];

/// First line of every block.
pub const BEGIN: &str = "# >>> git-qwen-memory >>>";
/// Last line of every block.
pub const END: &str = "# <<< git-qwen-memory <<<";
/// Suffix of a foreign non-shell hook moved aside and chained.
pub const CHAINED_SUFFIX: &str = ".qwen-memory-chained";

const FLAG_PREFIX: &str = "# qwen-memory-install: ";
const FLAG_CREATED: &str = "created";
const FLAG_JOINED: &str = "added-line-break";
const FLAG_CHAINED: &str = "chained";
/// The header of a hook file this tool creates.
const NEW_HOOK_HEADER: &str = "#!/bin/sh\n";

/// The embedded shim template of a hook (the block without install flags).
pub fn template(name: &str) -> Option<&'static str> {
    Some(match name {
        "pre-commit" => include_str!("../../../hooks/pre-commit"),
        "post-commit" => include_str!("../../../hooks/post-commit"),
        "post-merge" => include_str!("../../../hooks/post-merge"),
        "post-checkout" => include_str!("../../../hooks/post-checkout"),
        "post-rewrite" => include_str!("../../../hooks/post-rewrite"),
        _ => return None,
    })
}

/// Parses a `--hooks` list: comma- or space-separated names, `all` or `none`.
pub fn parse_hook_list(list: &str) -> Result<Vec<&'static str>, String> {
    let mut out = Vec::new();
    for item in list.split([',', ' ']).filter(|s| !s.is_empty()) {
        match item {
            "all" => out.extend(HOOK_NAMES),
            "none" => {}
            other => match HOOK_NAMES.iter().find(|h| **h == other) {
                Some(h) => out.push(*h),
                None => {
                    return Err(format!(
                        "unknown hook {other:?} (expected all, none or {})",
                        HOOK_NAMES.join(", ")
                    ))
                }
            },
        }
    }
    out.sort_by_key(|h| HOOK_NAMES.iter().position(|n| n == h));
    out.dedup();
    Ok(out)
}

/// Where `core.hooksPath` came from, when set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum HooksPathScope {
    /// Repository or worktree config.
    Repository,
    /// Global, XDG or system config: it applies to every repository of the user.
    Global,
}

/// The hooks directory Git uses for a repository.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HooksDir {
    pub path: PathBuf,
    /// The raw `core.hooksPath` value and its scope, when set.
    pub hooks_path: Option<(String, HooksPathScope)>,
    /// Another hook manager that owns the directory (husky, lefthook, pre-commit).
    pub manager: Option<&'static str>,
}

/// Resolves the hooks directory like `git rev-parse --git-path hooks`: `core.hooksPath`
/// (tilde expanded; relative to the working-tree root, where Git runs hooks) or the common
/// git dir's `hooks/`, shared by every linked worktree.
pub fn resolve_hooks_dir(repo: &git2::Repository) -> Result<HooksDir, GitError> {
    let config = super::config::open(Some(repo))?.snapshot()?;
    let hooks_path = config
        .get_entry("core.hooksPath")
        .ok()
        .and_then(|e| {
            let value = e.value()?.to_string();
            let scope = match e.level() {
                git2::ConfigLevel::Local
                | git2::ConfigLevel::Worktree
                | git2::ConfigLevel::App
                | git2::ConfigLevel::Highest => HooksPathScope::Repository,
                _ => HooksPathScope::Global,
            };
            Some((value, scope))
        })
        .filter(|(v, _)| !v.is_empty());
    let path = match &hooks_path {
        Some((value, _)) => {
            let expanded = match (value.strip_prefix("~/"), dirs::home_dir()) {
                (Some(rest), Some(home)) => home.join(rest),
                _ if value == "~" => dirs::home_dir().unwrap_or_default(),
                _ => PathBuf::from(value),
            };
            if expanded.is_absolute() {
                expanded
            } else {
                let base = repo
                    .workdir()
                    .map(Path::to_path_buf)
                    .unwrap_or_else(|| repo.path().to_path_buf());
                crate::storage::project::normalize_lexically(&base.join(expanded))
            }
        }
        None => repo.commondir().join("hooks"),
    };
    let path: PathBuf = path.components().collect();
    let manager = detect_manager(&path, hooks_path.as_ref().map(|(v, _)| v.as_str()));
    Ok(HooksDir {
        path,
        hooks_path,
        manager,
    })
}

/// Recognizes hook directories owned by another hook manager, which would overwrite our
/// blocks on its next install.
fn detect_manager(dir: &Path, hooks_path: Option<&str>) -> Option<&'static str> {
    if hooks_path.is_some_and(|v| v.contains(".husky")) {
        return Some("husky");
    }
    for name in HOOK_NAMES {
        let Ok(Some(text)) = safe_fs::read_regular(&dir.join(name)) else {
            continue;
        };
        let text = String::from_utf8_lossy(&text);
        if text.contains("lefthook") {
            return Some("lefthook");
        }
        if text.contains("File generated by pre-commit") || text.contains("pre_commit") {
            return Some("pre-commit");
        }
        if text.contains("husky") {
            return Some("husky");
        }
    }
    None
}

/// What install or uninstall did to one hook.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum HookAction {
    /// A new hook file was written.
    Created,
    /// The block was inserted into an existing shell hook.
    Inserted,
    /// A foreign non-shell hook was moved aside and chained.
    Chained,
    /// An older block was replaced by the current template.
    Updated,
    /// Already installed as is.
    Unchanged,
    /// The block was removed and the hook restored.
    Restored,
    /// The file this tool created was deleted.
    Removed,
    /// Nothing of ours was there.
    NotInstalled,
}

/// One hook's result.
#[derive(Debug, Clone, Serialize)]
pub struct HookReport {
    pub hook: &'static str,
    pub path: String,
    pub action: HookAction,
    /// A note for the user (e.g. the hook is not executable, so Git ignores it).
    pub warning: Option<String>,
}

/// The block of `name` with install flags and an optional chained hook.
fn render_block(name: &str, flags: &[&str], chained: Option<&str>) -> String {
    let template = template(name).unwrap_or_default();
    let mut lines: Vec<String> = template.lines().map(str::to_string).collect();
    let mut extra: Vec<String> = flags.iter().map(|f| format!("{FLAG_PREFIX}{f}")).collect();
    if let Some(file) = chained {
        extra.push(format!("{FLAG_PREFIX}{FLAG_CHAINED} {file}"));
    }
    lines.splice(1..1, extra);
    if let Some(file) = chained {
        let end = lines.len() - 1;
        lines.insert(end, format!("exec \"$(dirname \"$0\")/{file}\" \"$@\""));
    }
    let mut out = lines.join("\n");
    out.push('\n');
    out
}

/// Where a block sits in a hook file.
#[derive(Debug, Clone, PartialEq, Eq)]
struct BlockSpan {
    start: usize,
    end: usize,
    flags: Vec<String>,
}

/// Finds our block: [`BEGIN`] at a line start through the [`END`] line and its line break.
fn find_block(bytes: &[u8]) -> Option<BlockSpan> {
    let text = String::from_utf8_lossy(bytes);
    // Lossy decoding keeps byte offsets only for valid UTF-8; hooks are scripts, and a hook
    // with invalid bytes before our block would give wrong offsets, so refuse it.
    if std::str::from_utf8(bytes).is_err() {
        return None;
    }
    let mut start = None;
    let mut pos = 0;
    for line in text.split_inclusive('\n') {
        let bare = line.trim_end_matches(['\n', '\r']);
        if start.is_none() && bare == BEGIN {
            start = Some(pos);
        } else if start.is_some() && bare == END {
            let s = start?;
            let end = pos + line.len();
            let flags = text[s..end]
                .lines()
                .filter_map(|l| l.strip_prefix(FLAG_PREFIX))
                .map(str::to_string)
                .collect();
            return Some(BlockSpan {
                start: s,
                end,
                flags,
            });
        }
        pos += line.len();
    }
    None
}

/// Whether a hook is a shell script our block can live in: no shebang (Git runs it with
/// `sh`) or a shebang naming a POSIX-like shell, directly or through `env`.
fn is_shell_script(bytes: &[u8]) -> bool {
    let Some(rest) = bytes.strip_prefix(b"#!") else {
        return true;
    };
    let line_end = rest.iter().position(|b| *b == b'\n').unwrap_or(rest.len());
    let line = String::from_utf8_lossy(&rest[..line_end]);
    let mut words = line.split_whitespace();
    let Some(mut program) = words.next() else {
        return false;
    };
    let base = |p: &str| p.rsplit('/').next().unwrap_or(p).to_string();
    if base(program) == "env" {
        match words.find(|w| !w.starts_with('-')) {
            Some(p) => program = p,
            None => return false,
        }
    }
    matches!(
        base(program).as_str(),
        "sh" | "bash" | "dash" | "ksh" | "zsh" | "ash" | "mksh" | "busybox"
    )
}

/// Inserts `block` into a shell hook: after the shebang line, or at the top without one.
/// Returns the new bytes and whether a line break had to be added after the shebang.
fn insert_block(bytes: &[u8], block: &str) -> (Vec<u8>, bool) {
    let (at, joined) = if bytes.starts_with(b"#!") {
        match bytes.iter().position(|b| *b == b'\n') {
            Some(i) => (i + 1, false),
            None => (bytes.len(), true),
        }
    } else {
        (0, false)
    };
    let mut out = Vec::with_capacity(bytes.len() + block.len() + 1);
    out.extend_from_slice(&bytes[..at]);
    if joined {
        out.push(b'\n');
    }
    out.extend_from_slice(block.as_bytes());
    out.extend_from_slice(&bytes[at..]);
    (out, joined)
}

/// Removes a block, undoing the line break install added before it when flagged.
fn remove_block(bytes: &[u8], span: &BlockSpan) -> Vec<u8> {
    let mut start = span.start;
    if span.flags.iter().any(|f| f == FLAG_JOINED) && start > 0 && bytes[start - 1] == b'\n' {
        start -= 1;
    }
    let mut out = bytes[..start].to_vec();
    out.extend_from_slice(&bytes[span.end..]);
    out
}

fn chained_target(span: &BlockSpan) -> Option<String> {
    span.flags
        .iter()
        .find_map(|f| f.strip_prefix(FLAG_CHAINED))
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty() && !s.contains('/'))
}

/// A hook file's bytes; `None` when it does not exist. The hooks directory can be in the
/// working tree (`core.hooksPath`), so a FIFO there is an error rather than a hang, and a
/// symlinked hook is refused by name: editing it in place would change the file it points to,
/// often a script committed in the repository.
fn read_optional(path: &Path) -> Result<Option<Vec<u8>>, GitError> {
    Ok(safe_fs::read_regular(path).map_err(StoreError::from)?)
}

/// Rewrites a file in place, keeping its inode and mode (other tools may hold it open or
/// have set its permissions deliberately).
fn rewrite_in_place(path: &Path, bytes: &[u8]) -> Result<(), GitError> {
    fs::write(path, bytes).map_err(|e| GitError::io(path, e))
}

fn write_executable(path: &Path, bytes: &[u8]) -> Result<(), GitError> {
    fs::write(path, bytes).map_err(|e| GitError::io(path, e))?;
    fs::set_permissions(path, fs::Permissions::from_mode(0o755)).map_err(|e| GitError::io(path, e))
}

fn is_executable(path: &Path) -> bool {
    fs::metadata(path)
        .map(|m| m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

/// Installs (or updates) the block of one hook in `dir`.
pub fn install_hook(dir: &Path, name: &'static str) -> Result<HookReport, GitError> {
    fs::create_dir_all(dir).map_err(|e| GitError::io(dir, e))?;
    let path = dir.join(name);
    let report = |action, warning| HookReport {
        hook: name,
        path: path.display().to_string(),
        action,
        warning,
    };
    let Some(bytes) = read_optional(&path)? else {
        let text = format!(
            "{NEW_HOOK_HEADER}{}",
            render_block(name, &[FLAG_CREATED], None)
        );
        write_executable(&path, text.as_bytes())?;
        return Ok(report(HookAction::Created, None));
    };
    if let Some(span) = find_block(&bytes) {
        let flags: Vec<&str> = span
            .flags
            .iter()
            .filter(|f| !f.starts_with(FLAG_CHAINED))
            .map(String::as_str)
            .collect();
        let chained = chained_target(&span);
        let block = render_block(name, &flags, chained.as_deref());
        if bytes[span.start..span.end] == *block.as_bytes() {
            return Ok(report(HookAction::Unchanged, None));
        }
        let mut next = bytes[..span.start].to_vec();
        next.extend_from_slice(block.as_bytes());
        next.extend_from_slice(&bytes[span.end..]);
        rewrite_in_place(&path, &next)?;
        return Ok(report(HookAction::Updated, None));
    }
    if is_shell_script(&bytes) && std::str::from_utf8(&bytes).is_ok() {
        let (next, joined) = insert_block(&bytes, &render_block(name, &[], None));
        let next = if joined {
            // Re-render with the flag so uninstall knows to take the line break back out.
            insert_block(&bytes, &render_block(name, &[FLAG_JOINED], None)).0
        } else {
            next
        };
        rewrite_in_place(&path, &next)?;
        let warning = (!is_executable(&path)).then(|| {
            format!(
                "{} is not executable, so Git does not run it (nor the block added to it); \
                 run chmod +x on it if it should run",
                path.display()
            )
        });
        return Ok(report(HookAction::Inserted, warning));
    }
    let chained_name = format!("{name}{CHAINED_SUFFIX}");
    let chained_path = dir.join(&chained_name);
    if chained_path.exists() {
        return Err(GitError::Refused(format!(
            "{} already exists; move it away and run install again",
            chained_path.display()
        )));
    }
    fs::rename(&path, &chained_path).map_err(|e| GitError::io(&path, e))?;
    let text = format!(
        "{NEW_HOOK_HEADER}{}",
        render_block(name, &[FLAG_CREATED], Some(&chained_name))
    );
    write_executable(&path, text.as_bytes())?;
    Ok(report(HookAction::Chained, None))
}

/// Removes the block of one hook from `dir`, restoring the hook as it was before install.
pub fn uninstall_hook(dir: &Path, name: &'static str) -> Result<HookReport, GitError> {
    let path = dir.join(name);
    let report = |action| HookReport {
        hook: name,
        path: path.display().to_string(),
        action,
        warning: None,
    };
    let Some(bytes) = read_optional(&path)? else {
        return Ok(report(HookAction::NotInstalled));
    };
    let Some(span) = find_block(&bytes) else {
        return Ok(report(HookAction::NotInstalled));
    };
    let rest = remove_block(&bytes, &span);
    if let Some(chained) = chained_target(&span) {
        let chained_path = dir.join(chained);
        if chained_path.exists() {
            fs::remove_file(&path).map_err(|e| GitError::io(&path, e))?;
            fs::rename(&chained_path, &path).map_err(|e| GitError::io(&chained_path, e))?;
            return Ok(report(HookAction::Restored));
        }
    }
    let created = span.flags.iter().any(|f| f == FLAG_CREATED);
    if created && (rest == NEW_HOOK_HEADER.as_bytes() || rest.is_empty()) {
        fs::remove_file(&path).map_err(|e| GitError::io(&path, e))?;
        return Ok(report(HookAction::Removed));
    }
    rewrite_in_place(&path, &rest)?;
    Ok(report(HookAction::Restored))
}

/// The hooks of ours present in a directory.
pub fn installed_in(dir: &Path) -> Vec<&'static str> {
    HOOK_NAMES
        .into_iter()
        .filter(|name| {
            safe_fs::read_regular(&dir.join(name))
                .ok()
                .flatten()
                .is_some_and(|b| find_block(&b).is_some())
        })
        .collect()
}

/// The result of installing or removing the file hooks.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HooksOutcome {
    pub hooks_dir: HooksDir,
    pub hooks: Vec<HookReport>,
    pub warnings: Vec<String>,
}

/// Installs the blocks of `names` into the hooks directory of the context's repository.
/// Refuses a global `core.hooksPath` (the hooks would run in every repository) and a
/// directory owned by another hook manager (it would overwrite our blocks); `--manual`
/// prints the snippet instead, and `--config-hooks` coexists with any manager.
pub fn install(ctx: &Context, names: &[&'static str]) -> Result<HooksOutcome, GitError> {
    let repo = super::open_repo(ctx)?;
    let hooks_dir = resolve_hooks_dir(&repo)?;
    if let Some((value, HooksPathScope::Global)) = &hooks_dir.hooks_path {
        return Err(GitError::Refused(format!(
            "core.hooksPath is set globally ({value}): hooks written there would run in every \
             repository. Use `git qwen-memory install --manual` to print the hook snippet, or \
             `--config-hooks` with Git 2.54 or later"
        )));
    }
    if let Some(manager) = hooks_dir.manager {
        return Err(GitError::Refused(format!(
            "the hooks in {} are managed by {manager}, which would overwrite them. Add the \
             snippet printed by `git qwen-memory install --manual` to your {manager} \
             configuration, or use `--config-hooks` with Git 2.54 or later",
            hooks_dir.path.display()
        )));
    }
    let mut hooks = Vec::new();
    let mut warnings = Vec::new();
    for name in names {
        let r = install_hook(&hooks_dir.path, name)?;
        warnings.extend(r.warning.clone());
        hooks.push(r);
    }
    Ok(HooksOutcome {
        hooks_dir,
        hooks,
        warnings,
    })
}

/// Removes every block of ours from the hooks directory (and config-based hooks).
pub fn uninstall(ctx: &Context) -> Result<HooksOutcome, GitError> {
    let repo = super::open_repo(ctx)?;
    let hooks_dir = resolve_hooks_dir(&repo)?;
    let mut hooks = Vec::new();
    for name in HOOK_NAMES {
        hooks.push(uninstall_hook(&hooks_dir.path, name)?);
    }
    let removed = uninstall_config_hooks(&repo)?;
    let warnings = if removed.is_empty() {
        Vec::new()
    } else {
        vec![format!(
            "removed config-based hooks: {}",
            removed.join(", ")
        )]
    };
    Ok(HooksOutcome {
        hooks_dir,
        hooks,
        warnings,
    })
}

/// The config-based hook name of an event.
fn config_hook_name(event: &str) -> String {
    format!("qwen-memory-{event}")
}

/// The command a config-based hook runs: the shim's guard in one line.
pub fn config_hook_command(event: &str) -> String {
    let tail = if event == "pre-commit" { "" } else { " || :" };
    format!(
        "[ \"${{QWEN_MEMORY_HOOKS:-1}}\" = 0 ] || ! command -v git-qwen-memory >/dev/null 2>&1 || git-qwen-memory hook {event} \"$@\" </dev/null{tail}"
    )
}

/// The first Git version with config-based hooks (`hook.<name>.command` / `.event`).
pub const CONFIG_HOOKS_MIN_GIT: (u32, u32, u32) = (2, 54, 0);

/// Registers config-based hooks (Git ≥ 2.54) in the repository config, which coexist with
/// hook files and other hook managers. Returns the hook names written.
pub fn install_config_hooks(
    ctx: &Context,
    names: &[&'static str],
    git_version: Option<(u32, u32, u32)>,
) -> Result<Vec<String>, GitError> {
    match git_version {
        Some(v) if v >= CONFIG_HOOKS_MIN_GIT => {}
        found => {
            let found = found
                .map(|(a, b, c)| format!("{a}.{b}.{c}"))
                .unwrap_or_else(|| "no git on PATH".into());
            return Err(GitError::Refused(format!(
                "--config-hooks needs Git 2.54 or later (found {found}); install the hook files instead"
            )));
        }
    }
    let repo = super::open_repo(ctx)?;
    let mut config = repo.config()?.open_level(git2::ConfigLevel::Local)?;
    let mut written = Vec::new();
    for event in names {
        let hook = config_hook_name(event);
        config.set_str(&format!("hook.{hook}.command"), &config_hook_command(event))?;
        config.set_str(&format!("hook.{hook}.event"), event)?;
        written.push(hook);
    }
    Ok(written)
}

/// Removes every config-based hook of ours from the repository config.
fn uninstall_config_hooks(repo: &git2::Repository) -> Result<Vec<String>, GitError> {
    let mut config = repo.config()?.open_level(git2::ConfigLevel::Local)?;
    let mut removed = Vec::new();
    for event in HOOK_NAMES {
        let hook = config_hook_name(event);
        let mut any = false;
        for key in ["command", "event"] {
            let full = format!("hook.{hook}.{key}");
            if config.get_entry(&full).is_ok() {
                // `event` may be multi-valued; remove every value.
                let _ = config.remove_multivar(&full, ".*");
                let _ = config.remove(&full);
                any = true;
            }
        }
        if any {
            removed.push(hook);
        }
    }
    Ok(removed)
}

/// The config-based hooks of ours registered for the repository.
pub fn installed_config_hooks(repo: &git2::Repository) -> Vec<String> {
    let Ok(config) = super::config::open(Some(repo)).and_then(|mut c| c.snapshot()) else {
        return Vec::new();
    };
    HOOK_NAMES
        .into_iter()
        .map(config_hook_name)
        .filter(|h| config.get_entry(&format!("hook.{h}.command")).is_ok())
        .collect()
}

/// The snippet `--manual` prints: each hook's block, to paste into a hook file or a hook
/// manager's configuration.
pub fn manual_snippet(names: &[&'static str]) -> String {
    let mut out = String::new();
    for name in names {
        out.push_str(&format!("## {name}\n"));
        out.push_str(&render_block(name, &[], None));
        out.push('\n');
    }
    out
}

/// Which hooks of this tool are installed, for `status`.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HooksStatus {
    /// The hooks directory Git uses, when in a repository.
    pub hooks_dir: Option<String>,
    /// Git hook files holding our block.
    pub git: Vec<&'static str>,
    /// Config-based hooks (Git ≥ 2.54) of ours.
    pub config: Vec<String>,
    /// Agent settings files holding our hooks, as `agent:scope` with the path.
    pub agents: Vec<AgentHookStatus>,
}

/// One agent settings file holding our hooks.
#[derive(Debug, Clone, Serialize)]
pub struct AgentHookStatus {
    pub agent: crate::integrations::agent::Agent,
    pub scope: crate::integrations::agent::SettingsScope,
    pub path: String,
}

/// Gathers [`HooksStatus`] (cheap: a few small file reads).
pub fn status(ctx: &Context) -> HooksStatus {
    use crate::integrations::agent::{self, Agent, SettingsScope};
    let mut out = HooksStatus::default();
    if let Ok(repo) = super::open_repo(ctx) {
        if let Ok(dir) = resolve_hooks_dir(&repo) {
            out.git = installed_in(&dir.path);
            out.hooks_dir = Some(dir.path.display().to_string());
        }
        out.config = installed_config_hooks(&repo);
    }
    for a in Agent::ALL {
        for scope in [SettingsScope::User, SettingsScope::Project] {
            if let Ok(path) = agent::settings_path(a, scope, &ctx.project.root) {
                if agent::installed(a, &path) {
                    out.agents.push(AgentHookStatus {
                        agent: a,
                        scope,
                        path: path.display().to_string(),
                    });
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_detection() {
        for yes in [
            &b"#!/bin/sh\n"[..],
            b"#!/usr/bin/env bash\nset -e\n",
            b"#!/usr/bin/env -S bash -e\n",
            b"echo no shebang\n",
            b"",
            b"#!/bin/zsh",
        ] {
            assert!(is_shell_script(yes), "{}", String::from_utf8_lossy(yes));
        }
        for no in [
            &b"#!/usr/bin/env python3\n"[..],
            b"#!/usr/bin/node\n",
            b"#!/usr/bin/env fish\n",
        ] {
            assert!(!is_shell_script(no), "{}", String::from_utf8_lossy(no));
        }
    }

    fn roundtrip(original: &[u8]) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("post-commit");
        fs::write(&path, original).unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
        let r = install_hook(dir.path(), "post-commit").unwrap();
        assert!(matches!(
            r.action,
            HookAction::Inserted | HookAction::Chained
        ));
        let installed = fs::read(&path).unwrap();
        assert!(find_block(&installed).is_some());
        // Idempotent.
        assert_eq!(
            install_hook(dir.path(), "post-commit").unwrap().action,
            HookAction::Unchanged
        );
        assert_eq!(fs::read(&path).unwrap(), installed);
        let r = uninstall_hook(dir.path(), "post-commit").unwrap();
        assert_eq!(r.action, HookAction::Restored);
        assert_eq!(fs::read(&path).unwrap(), original);
        assert_eq!(
            fs::metadata(&path).unwrap().permissions().mode() & 0o777,
            0o755
        );
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn foreign_hooks_round_trip_byte_for_byte() {
        roundtrip(b"#!/bin/sh\necho foreign\nexit 0\n");
        roundtrip(b"#!/bin/sh\r\necho crlf\r\n");
        roundtrip(b"#!/bin/bash\necho no trailing newline");
        roundtrip(b"#!/bin/sh");
        roundtrip(b"echo no shebang\n");
        roundtrip(b"");
        roundtrip(b"#!/usr/bin/env python3\nprint('hi')\n");
    }

    #[test]
    fn block_goes_right_after_the_shebang() {
        let (out, joined) = insert_block(b"#!/bin/sh\nexec foo\n", "BLOCK\n");
        assert_eq!(out, b"#!/bin/sh\nBLOCK\nexec foo\n");
        assert!(!joined);
        let (out, joined) = insert_block(b"#!/bin/sh", "BLOCK\n");
        assert_eq!(out, b"#!/bin/sh\nBLOCK\n");
        assert!(joined);
    }

    #[test]
    fn created_hook_is_removed_and_user_additions_survive() {
        let dir = tempfile::tempdir().unwrap();
        let r = install_hook(dir.path(), "pre-commit").unwrap();
        assert_eq!(r.action, HookAction::Created);
        let path = dir.path().join("pre-commit");
        assert!(is_executable(&path));
        assert_eq!(
            uninstall_hook(dir.path(), "pre-commit").unwrap().action,
            HookAction::Removed
        );
        assert!(!path.exists());
        install_hook(dir.path(), "pre-commit").unwrap();
        let mut text = fs::read_to_string(&path).unwrap();
        text.push_str("echo mine\n");
        fs::write(&path, &text).unwrap();
        assert_eq!(
            uninstall_hook(dir.path(), "pre-commit").unwrap().action,
            HookAction::Restored
        );
        assert_eq!(fs::read_to_string(&path).unwrap(), "#!/bin/sh\necho mine\n");
    }

    #[test]
    fn outdated_block_is_updated_in_place() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("post-merge");
        fs::write(
            &path,
            format!("#!/bin/sh\necho a\n{BEGIN}\nold stuff\n{END}\necho b\n"),
        )
        .unwrap();
        assert_eq!(
            install_hook(dir.path(), "post-merge").unwrap().action,
            HookAction::Updated
        );
        let text = fs::read_to_string(&path).unwrap();
        assert!(text.starts_with("#!/bin/sh\necho a\n# >>> git-qwen-memory >>>\n"));
        assert!(text.ends_with("# <<< git-qwen-memory <<<\necho b\n"));
        assert!(text.contains("hook post-merge"));
    }

    #[test]
    fn hook_lists() {
        assert_eq!(parse_hook_list("all").unwrap(), HOOK_NAMES.to_vec());
        assert_eq!(
            parse_hook_list("post-commit,pre-commit").unwrap(),
            vec!["pre-commit", "post-commit"]
        );
        assert!(parse_hook_list("none").unwrap().is_empty());
        assert!(parse_hook_list("post-receive").is_err());
    }

    #[test]
    fn every_template_is_a_guarded_block() {
        for name in HOOK_NAMES {
            let t = template(name).unwrap();
            assert!(
                t.starts_with(BEGIN) && t.trim_end().ends_with(END),
                "{name}"
            );
            assert!(t.contains(&format!("hook {name} \"$@\"")), "{name}");
            assert!(t.contains("QWEN_MEMORY_HOOKS") && t.contains("command -v"));
        }
    }
}
