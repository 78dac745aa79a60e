//! Agent integration (docs/DESIGN.md, "Agent integration"): hook entries merged into Qwen Code's and Claude Code's
//! settings JSON, and removed again.
//!
//! Only our own handlers are touched: every other key, event and handler stays where it was,
//! in its order. Install is idempotent. The first install that changes a file keeps a copy of
//! the original bytes outside the agent's directory, so when uninstall leaves exactly the
//! original data it restores the original bytes (formatting included), or deletes a file that
//! install created.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::{json, Map, Value};

use crate::storage::agent_settings::{self, Edit, SettingsFileError};
use crate::storage::qwen_env::QwenDirs;
use crate::storage::safe_fs;

/// A supported agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Agent {
    Qwen,
    Claude,
}

impl Agent {
    pub const ALL: [Agent; 2] = [Agent::Qwen, Agent::Claude];

    pub fn as_str(self) -> &'static str {
        match self {
            Agent::Qwen => "qwen",
            Agent::Claude => "claude",
        }
    }

    /// Parses `qwen` / `claude`.
    pub fn parse(s: &str) -> Option<Agent> {
        Agent::ALL.into_iter().find(|a| a.as_str() == s)
    }
}

/// Which settings file of an agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SettingsScope {
    /// `~/.qwen/settings.json`, `~/.claude/settings.json` (`$CLAUDE_CONFIG_DIR`).
    User,
    /// `<project>/.qwen/settings.json`, `<project>/.claude/settings.json`.
    Project,
}

/// Failures editing agent settings.
#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    #[error("no home directory found")]
    NoHome,
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("{path}: not valid JSON ({message}); add the hooks by hand (git qwen-memory install --manual --agent …)")]
    InvalidJson { path: PathBuf, message: String },
    #[error("{path}: holds {what}, which rewriting the file would change; left as it is: make the change by hand (git qwen-memory install --manual --agent … prints the hooks)")]
    WouldChange { path: PathBuf, what: String },
    #[error("{path}: not valid TOML ({message}); left as it is: add [mcp_servers.qwen-memory] by hand (git qwen-memory install --manual --agent codex prints it)")]
    InvalidToml { path: PathBuf, message: String },
    #[error("{path}: adding [mcp_servers.qwen-memory] would make the file invalid TOML ({message}: `mcp_servers` or `qwen-memory` is already defined in another form, such as an inline table or a dotted key); left as it is: add the entry by hand (git qwen-memory install --manual --agent codex prints it)")]
    TomlWouldBreak { path: PathBuf, message: String },
    #[error("{path}: {what} is not a JSON object/array as expected; add the hooks by hand")]
    UnexpectedShape { path: PathBuf, what: String },
    #[error(transparent)]
    Store(#[from] crate::storage::store::StoreError),
}

impl From<SettingsFileError> for AgentError {
    fn from(e: SettingsFileError) -> AgentError {
        match e {
            SettingsFileError::Unparsable { path, message, .. } => {
                AgentError::InvalidJson { path, message }
            }
            SettingsFileError::WouldChange { path, what } => AgentError::WouldChange { path, what },
            SettingsFileError::Store(e) => AgentError::Store(e),
        }
    }
}

/// The events that trigger recall.
pub const RECALL_EVENTS: [&str; 1] = ["UserPromptSubmit"];
/// The events that trigger extraction.
pub const EXTRACT_EVENTS: [&str; 3] = ["Stop", "SessionEnd", "PreCompact"];
/// Every command we install starts with this guard: an agent on a machine where the binary is
/// not on its PATH (an IDE with another PATH, a teammate who has not installed it while the
/// project settings are committed) runs nothing and sees no error. Both Qwen Code and Claude
/// Code run a command through a POSIX shell (`bash -c` / `sh -c`).
pub const GUARD: &str = "command -v git-qwen-memory >/dev/null 2>&1 && ";
/// Ends every command we install, so the guard's own failure is not an error either.
pub const GUARD_END: &str = " || true";
/// What follows the guard: the binary itself, not `git qwen-memory`, which would start one
/// more process (git) on every prompt.
pub const COMMAND_PREFIX: &str = "git-qwen-memory hook ";
/// The unguarded form earlier versions installed; still recognized, so install upgrades it and
/// uninstall removes it.
const LEGACY_PREFIX: &str = "git qwen-memory hook ";
/// The event after which the per-session "already surfaced" record is reset, and the matcher
/// (the payload's `source`) it is installed with: both Claude Code and Qwen Code 0.24.4 fire
/// `SessionStart` with source `compact` after a compaction.
pub const RESET_EVENT: (&str, &str) = ("SessionStart", "compact");

/// The settings file of an agent. `project_root` is used for [`SettingsScope::Project`].
pub fn settings_path(
    agent: Agent,
    scope: SettingsScope,
    project_root: &Path,
) -> Result<PathBuf, AgentError> {
    let dir = match (agent, scope) {
        (Agent::Qwen, SettingsScope::Project) => project_root.join(".qwen"),
        (Agent::Claude, SettingsScope::Project) => project_root.join(".claude"),
        (Agent::Qwen, SettingsScope::User) => {
            dirs::home_dir().ok_or(AgentError::NoHome)?.join(".qwen")
        }
        (Agent::Claude, SettingsScope::User) => match std::env::var_os("CLAUDE_CONFIG_DIR") {
            Some(d) if !d.is_empty() => PathBuf::from(d),
            _ => dirs::home_dir().ok_or(AgentError::NoHome)?.join(".claude"),
        },
    };
    Ok(dir.join("settings.json"))
}

/// The command a hook entry runs (guarded, see [`GUARD`]).
pub fn hook_command(agent: Agent, action: &str) -> String {
    format!(
        "{GUARD}{COMMAND_PREFIX}{action} --agent {}{GUARD_END}",
        agent.as_str()
    )
}

/// The hook action (`recall`, `extract`, …) of one of our commands for `agent`, in the guarded
/// or the legacy form; `None` for anybody else's command.
pub fn our_action(command: &str, agent: Agent) -> Option<&str> {
    let inner = command
        .strip_prefix(GUARD)
        .map(|c| c.strip_suffix(GUARD_END).unwrap_or(c))
        .unwrap_or(command);
    let rest = inner
        .strip_prefix(COMMAND_PREFIX)
        .or_else(|| inner.strip_prefix(LEGACY_PREFIX))?;
    let (action, tail) = rest.split_once(' ')?;
    (tail == format!("--agent {}", agent.as_str())
        || tail.starts_with(&format!("--agent {} ", agent.as_str())))
    .then_some(action)
}

/// One handler object for `action` (`recall` / `extract`), with the timeout in seconds, the unit
/// both Qwen Code 0.24.4 and Claude Code read (Qwen still reads values of 1000 or more as legacy
/// milliseconds, and warns about them).
pub fn handler(agent: Agent, action: &str) -> Value {
    let command = hook_command(agent, action);
    match agent {
        Agent::Qwen => json!({
            "type": "command",
            "name": format!("qwen-memory-{action}"),
            "command": command,
            "timeout": if action == "recall" { 10 } else { 5 },
        }),
        Agent::Claude => json!({
            "type": "command",
            "command": command,
            "timeout": if action == "recall" { 10 } else { 5 },
        }),
    }
}

/// (event, handler) pairs install adds for an agent.
pub fn desired(agent: Agent) -> Vec<(&'static str, Value)> {
    let mut out: Vec<(&'static str, Value)> = RECALL_EVENTS
        .iter()
        .map(|e| (*e, handler(agent, "recall")))
        .collect();
    out.extend(
        EXTRACT_EVENTS
            .iter()
            .map(|e| (*e, handler(agent, "extract"))),
    );
    out.push((RESET_EVENT.0, handler(agent, "session-start")));
    out
}

/// The matcher of the group a handler for `event` is installed in, if any.
fn matcher_for(event: &str) -> Option<&'static str> {
    (event == RESET_EVENT.0).then_some(RESET_EVENT.1)
}

fn is_ours(handler: &Value, agent: Agent) -> bool {
    handler
        .get("command")
        .and_then(Value::as_str)
        .is_some_and(|c| our_action(c, agent).is_some())
}

fn action_of(handler: &Value, agent: Agent) -> Option<&str> {
    our_action(handler.get("command").and_then(Value::as_str)?, agent)
}

/// Merges our handlers into a settings value. Returns whether anything changed.
pub fn merge_settings(root: &mut Value, agent: Agent) -> Result<bool, String> {
    let obj = root.as_object_mut().ok_or("the settings file")?;
    let hooks = obj
        .entry("hooks")
        .or_insert_with(|| Value::Object(Map::new()))
        .as_object_mut()
        .ok_or("\"hooks\"")?;
    let mut changed = false;
    for (event, wanted) in desired(agent) {
        let groups = hooks
            .entry(event)
            .or_insert_with(|| Value::Array(Vec::new()))
            .as_array_mut()
            .ok_or_else(|| format!("\"hooks.{event}\""))?;
        let mut found = false;
        for group in groups.iter_mut() {
            let Some(list) = group.get_mut("hooks").and_then(Value::as_array_mut) else {
                continue;
            };
            // Our handler for the same action, in any form we ever wrote, is brought up to
            // date in place (an older unguarded command becomes the guarded one); a second
            // copy is removed.
            let wanted_action = action_of(&wanted, agent).map(str::to_string);
            let before = list.len();
            let mut kept = Vec::with_capacity(before);
            for mut h in std::mem::take(list) {
                if action_of(&h, agent).map(str::to_string) == wanted_action {
                    if found {
                        changed = true;
                        continue;
                    }
                    if h != wanted {
                        h = wanted.clone();
                        changed = true;
                    }
                    found = true;
                }
                kept.push(h);
            }
            *list = kept;
        }
        if !found {
            groups.push(match matcher_for(event) {
                Some(m) => json!({ "matcher": m, "hooks": [wanted] }),
                None => json!({ "hooks": [wanted] }),
            });
            changed = true;
        }
    }
    Ok(changed)
}

/// Removes our handlers for `agent`, then groups, events and the `hooks` object they leave
/// empty. Returns whether anything changed.
pub fn unmerge_settings(root: &mut Value, agent: Agent) -> bool {
    let Some(hooks) = root
        .as_object_mut()
        .and_then(|o| o.get_mut("hooks"))
        .and_then(Value::as_object_mut)
    else {
        return false;
    };
    let mut changed = false;
    let events: Vec<String> = hooks.keys().cloned().collect();
    for event in events {
        let Some(groups) = hooks.get_mut(&event).and_then(Value::as_array_mut) else {
            continue;
        };
        let before = groups.len();
        let mut touched = false;
        groups.retain_mut(|group| {
            let Some(list) = group.get_mut("hooks").and_then(Value::as_array_mut) else {
                return true;
            };
            let n = list.len();
            list.retain(|h| !is_ours(h, agent));
            if list.len() == n {
                return true;
            }
            touched = true;
            // A group we emptied goes too, unless it carries other keys (a matcher) with
            // handlers left.
            !list.is_empty()
        });
        changed |= touched || groups.len() != before;
        if touched && groups.is_empty() {
            hooks.shift_remove(&event);
        }
    }
    if changed && hooks.is_empty() {
        if let Some(obj) = root.as_object_mut() {
            obj.shift_remove("hooks");
        }
    }
    changed
}

/// Whether a settings value holds our handlers for `agent`.
pub fn has_ours(root: &Value, agent: Agent) -> bool {
    root.get("hooks")
        .and_then(Value::as_object)
        .is_some_and(|hooks| {
            hooks
                .values()
                .filter_map(Value::as_array)
                .flatten()
                .any(|g| {
                    g.get("hooks")
                        .and_then(Value::as_array)
                        .is_some_and(|l| l.iter().any(|h| is_ours(h, agent)))
                })
        })
}

/// What install/uninstall did to one settings file.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentReport {
    pub agent: Agent,
    pub scope: SettingsScope,
    pub path: String,
    pub changed: bool,
    /// The file was created (install) or deleted (uninstall).
    pub file_created_or_deleted: bool,
    pub warnings: Vec<String>,
}

/// The settings file at `path`, parsed (see [`agent_settings::read`]); `None` when missing.
pub(crate) fn read_settings(path: &Path) -> Result<Option<(Vec<u8>, Value)>, AgentError> {
    Ok(agent_settings::read(path)?)
}

/// Where the original bytes of a settings file are kept while our hooks are installed.
fn backup_path(backup_dir: &Path, settings: &Path) -> PathBuf {
    backup_dir.join(format!(
        "{}.json",
        crate::storage::project::sanitize_key(&settings.display().to_string())
    ))
}

const ABSENT_MARKER: &[u8] = b"\0qwen-memory: file did not exist\0";

/// Installs our hooks for `agent` into the settings file at `path` (through
/// [`agent_settings::edit`]). `backup_dir` keeps the original bytes for a byte-exact uninstall.
pub fn install(
    agent: Agent,
    scope: SettingsScope,
    path: &Path,
    backup_dir: &Path,
) -> Result<AgentReport, AgentError> {
    let (changed, created) = agent_settings::edit::<_, AgentError>(
        path,
        // The edit's lock sits beside the backups (the MCP registration uses the same folder).
        backup_dir,
        |value, original| {
            let changed =
                merge_settings(value, agent).map_err(|what| AgentError::UnexpectedShape {
                    path: path.to_path_buf(),
                    what,
                })?;
            if !changed {
                return Ok((Edit::Keep, (false, false)));
            }
            let backup = backup_path(backup_dir, path);
            if !backup.exists() {
                crate::storage::store::atomic_write(&backup, original.unwrap_or(ABSENT_MARKER))?;
            }
            Ok((Edit::Write, (true, original.is_none())))
        },
        |_| Ok(()),
    )?;
    Ok(AgentReport {
        agent,
        scope,
        path: path.display().to_string(),
        changed,
        file_created_or_deleted: created,
        warnings: Vec::new(),
    })
}

/// What uninstall did to the file, and whether the backup has served.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Undone {
    /// Nothing of ours was there.
    Nothing,
    /// Our hooks were removed and the rest serialized; the backup stays.
    Removed,
    /// The original bytes were written back, or the file install created was deleted.
    Restored { deleted: bool },
}

/// Removes our hooks for `agent` from the settings file at `path`, restoring the original
/// bytes when nothing else changed since install.
pub fn uninstall(
    agent: Agent,
    scope: SettingsScope,
    path: &Path,
    backup_dir: &Path,
) -> Result<AgentReport, AgentError> {
    let backup = backup_path(backup_dir, path);
    let undone = agent_settings::edit::<_, AgentError>(
        path,
        // The edit's lock sits beside the backups (the MCP registration uses the same folder).
        backup_dir,
        |value, bytes| {
            if bytes.is_none() || !unmerge_settings(value, agent) {
                return Ok((Edit::Keep, Undone::Nothing));
            }
            let original = safe_fs::read_regular(&backup).ok().flatten();
            // Another agent's hooks may still be installed in the same file (or be installed
            // later): restore the original only when the data is exactly what it was.
            Ok(match original {
                Some(b) if b == ABSENT_MARKER => {
                    if without_empty_hooks(value) == Value::Object(Map::new()) {
                        (Edit::Remove, Undone::Restored { deleted: true })
                    } else {
                        (Edit::Write, Undone::Removed)
                    }
                }
                // A blank file (whitespace only) stands for an empty object: given back as it was.
                Some(b)
                    if b.iter().all(u8::is_ascii_whitespace)
                        && without_empty_hooks(value) == Value::Object(Map::new()) =>
                {
                    (Edit::WriteBytes(b), Undone::Restored { deleted: false })
                }
                Some(b)
                    if serde_json::from_slice::<Value>(&b)
                        .is_ok_and(|v| without_empty_hooks(&v) == without_empty_hooks(value)) =>
                {
                    (Edit::WriteBytes(b), Undone::Restored { deleted: false })
                }
                _ => (Edit::Write, Undone::Removed),
            })
        },
        |undone| {
            if matches!(undone, Undone::Restored { .. }) {
                let _ = fs::remove_file(&backup);
            }
            Ok(())
        },
    )?;
    Ok(AgentReport {
        agent,
        scope,
        path: path.display().to_string(),
        changed: undone != Undone::Nothing,
        file_created_or_deleted: undone == Undone::Restored { deleted: true },
        warnings: Vec::new(),
    })
}

/// The value without empty event lists and an empty `hooks` object: the containers install
/// may have created, which do not count as a difference from the original.
fn without_empty_hooks(value: &Value) -> Value {
    let mut v = value.clone();
    if let Some(obj) = v.as_object_mut() {
        if let Some(hooks) = obj.get_mut("hooks").and_then(Value::as_object_mut) {
            hooks.retain(|_, groups| groups.as_array().is_none_or(|g| !g.is_empty()));
            if hooks.is_empty() {
                obj.shift_remove("hooks");
            }
        }
    }
    v
}

/// Whether the settings file at `path` holds our hooks for `agent`.
pub fn installed(agent: Agent, path: &Path) -> bool {
    matches!(read_settings(path), Ok(Some((_, v))) if has_ours(&v, agent))
}

/// The JSON snippet to add by hand for an agent.
pub fn manual_snippet(agent: Agent) -> String {
    let mut value = Value::Object(Map::new());
    // Merging into an empty object cannot fail.
    let _ = merge_settings(&mut value, agent);
    String::from_utf8_lossy(&agent_settings::to_bytes(&value, None)).into_owned()
}

// ---------------------------------------------------------------------------------------------
// Where agents keep their transcripts (docs/DESIGN.md, "Agent integration")

/// Claude Code cuts project directory names longer than this and appends a hash of its own.
const CLAUDE_NAME_LIMIT: usize = 200;

fn env_dir(name: &str) -> Option<PathBuf> {
    std::env::var_os(name)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

/// Qwen Code's chat-recording directories for `project_dir`: `<runtime base>/projects/<sanitized
/// dir>/chats/`, where Qwen Code writes them even when `QWEN_CODE_MEMORY_BASE_DIR` moves the
/// memory, then the same under the memory base when it differs.
pub fn qwen_chat_dirs(qwen: &QwenDirs, project_dir: &Path) -> Vec<PathBuf> {
    let key = crate::storage::project::sanitize_key(&project_dir.to_string_lossy());
    let mut out = vec![qwen.runtime_base.join("projects").join(&key).join("chats")];
    if qwen.memory_base != qwen.runtime_base {
        out.push(qwen.memory_base.join("projects").join(&key).join("chats"));
    }
    out
}

/// Qwen Code's chat directories of sessions started in a subdirectory of `worktree` (Qwen Code
/// keys chats by the directory it was started in): every `<base>/projects/<key>-…/chats/` whose
/// name extends the worktree's key. The key is lossy (`/` and `-` both become `-`), so a
/// sibling such as `<worktree>-old` matches too; callers check the `cwd` recorded in the
/// transcript with [`qwen_transcript_cwd`].
pub fn qwen_subdir_chat_dirs(qwen: &QwenDirs, worktree: &Path) -> Vec<PathBuf> {
    let prefix = format!(
        "{}-",
        crate::storage::project::sanitize_key(&worktree.to_string_lossy())
    );
    let mut bases = vec![qwen.runtime_base.clone()];
    if qwen.memory_base != qwen.runtime_base {
        bases.push(qwen.memory_base.clone());
    }
    let mut out = Vec::new();
    for base in bases {
        let Ok(entries) = fs::read_dir(base.join("projects")) else {
            continue;
        };
        let mut found: Vec<PathBuf> = entries
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().starts_with(&prefix))
            .map(|e| e.path().join("chats"))
            .filter(|d| d.is_dir())
            .collect();
        found.sort();
        out.extend(found);
    }
    out
}

/// The working directory a Qwen Code transcript was recorded in: the `cwd` of its first record
/// that has one (read from the first 64 KiB only).
pub fn qwen_transcript_cwd(transcript: &Path) -> Option<PathBuf> {
    use std::io::Read;
    let mut head = Vec::new();
    safe_fs::open_regular(transcript)
        .ok()?
        .take(64 * 1024)
        .read_to_end(&mut head)
        .ok()?;
    String::from_utf8_lossy(&head)
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .find_map(|record| record.get("cwd")?.as_str().map(PathBuf::from))
}

/// Claude Code's transcript directories for `project_dir` under `$CLAUDE_CONFIG_DIR` (else
/// `~/.claude`): the sanitized name, or for names longer than 200 characters every directory
/// starting with the first 200 and `-` (the hash Claude appends cannot be reproduced).
pub fn claude_project_dirs(project_dir: &Path) -> Vec<PathBuf> {
    let Some(root) =
        env_dir("CLAUDE_CONFIG_DIR").or_else(|| dirs::home_dir().map(|h| h.join(".claude")))
    else {
        return Vec::new();
    };
    let projects = root.join("projects");
    let name = crate::storage::project::sanitize_key(&project_dir.to_string_lossy());
    if name.len() <= CLAUDE_NAME_LIMIT {
        return vec![projects.join(name)];
    }
    let prefix = format!("{}-", &name[..CLAUDE_NAME_LIMIT]);
    let Ok(entries) = fs::read_dir(&projects) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(&prefix))
        .map(|e| e.path())
        .collect()
}

/// Every directory that may hold this project's transcripts, Qwen Code's first, for the
/// project root and, when different, the current directory (agents key by the directory they
/// were started in). `agent` narrows the list to one agent.
pub fn transcript_dirs(
    ctx: &crate::storage::context::Context,
    agent: Option<Agent>,
) -> Vec<PathBuf> {
    let mut project_dirs = vec![ctx.project.root.clone()];
    let cwd = crate::storage::project::normalize_lexically(&ctx.cwd);
    if cwd != ctx.project.root {
        project_dirs.push(cwd);
    }
    let mut out: Vec<PathBuf> = Vec::new();
    if agent != Some(Agent::Claude) {
        for d in &project_dirs {
            out.extend(qwen_chat_dirs(&ctx.qwen, d));
        }
    }
    if agent != Some(Agent::Qwen) {
        for d in &project_dirs {
            out.extend(claude_project_dirs(d));
        }
    }
    let mut seen = std::collections::HashSet::new();
    out.retain(|d| seen.insert(d.clone()));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_keeps_foreign_hooks_and_is_idempotent() {
        let mut v: Value = serde_json::from_str(
            r#"{"theme":"dark","hooks":{"UserPromptSubmit":[{"hooks":[{"type":"command","command":"echo hi"}]}],
                "PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"audit"}]}]}}"#,
        )
        .unwrap();
        let before = v.clone();
        assert!(merge_settings(&mut v, Agent::Claude).unwrap());
        let ups = v["hooks"]["UserPromptSubmit"].as_array().unwrap();
        assert_eq!(ups.len(), 2);
        assert_eq!(ups[0]["hooks"][0]["command"], "echo hi");
        assert_eq!(
            ups[1]["hooks"][0]["command"],
            "command -v git-qwen-memory >/dev/null 2>&1 && git-qwen-memory hook recall --agent claude || true"
        );
        assert_eq!(ups[1]["hooks"][0]["timeout"], 10);
        assert_eq!(
            v["hooks"]["SessionEnd"][0]["hooks"][0]["command"],
            "command -v git-qwen-memory >/dev/null 2>&1 && git-qwen-memory hook extract --agent claude || true"
        );
        let after = v.clone();
        assert!(!merge_settings(&mut v, Agent::Claude).unwrap());
        assert_eq!(v, after);
        assert!(has_ours(&v, Agent::Claude));
        assert!(!has_ours(&v, Agent::Qwen));
        assert!(unmerge_settings(&mut v, Agent::Claude));
        assert_eq!(v, before);
    }

    #[test]
    fn timeouts_are_seconds_for_both_agents() {
        let h = handler(Agent::Qwen, "recall");
        assert_eq!(h["timeout"], 10);
        assert_eq!(h["name"], "qwen-memory-recall");
        let h = handler(Agent::Claude, "extract");
        assert_eq!(h["timeout"], 5);
    }

    #[test]
    fn unmerge_on_empty_settings_creates_nothing() {
        let mut v = json!({});
        assert!(merge_settings(&mut v, Agent::Qwen).unwrap());
        assert!(unmerge_settings(&mut v, Agent::Qwen));
        assert_eq!(v, json!({}));
        assert!(!unmerge_settings(&mut v, Agent::Qwen));
    }

    #[test]
    fn unexpected_shapes_are_refused() {
        let mut v = json!({"hooks": []});
        assert!(merge_settings(&mut v, Agent::Qwen).is_err());
        let mut v = json!([1]);
        assert!(merge_settings(&mut v, Agent::Qwen).is_err());
    }

    #[test]
    fn install_uninstall_restores_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        let original = b"{\n    \"model\": {\"name\": \"x\"},\n    \"hooks\": {}\n}";
        fs::write(&path, original).unwrap();
        let backups = dir.path().join("backups");
        let r = install(Agent::Qwen, SettingsScope::User, &path, &backups).unwrap();
        assert!(r.changed);
        let text = fs::read_to_string(&path).unwrap();
        assert!(
            text.contains("\n    \"model\""),
            "keeps the 4-space indent: {text}"
        );
        assert!(installed(Agent::Qwen, &path));
        assert!(
            !install(Agent::Qwen, SettingsScope::User, &path, &backups)
                .unwrap()
                .changed
        );
        uninstall(Agent::Qwen, SettingsScope::User, &path, &backups).unwrap();
        assert_eq!(fs::read(&path).unwrap(), original);

        let created = dir.path().join("new/settings.json");
        install(Agent::Claude, SettingsScope::User, &created, &backups).unwrap();
        assert!(created.exists());
        let r = uninstall(Agent::Claude, SettingsScope::User, &created, &backups).unwrap();
        assert!(r.file_created_or_deleted);
        assert!(!created.exists());
    }
}
