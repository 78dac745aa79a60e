//! Registering the tool server (`git-qwen-memory mcp`) in MCP clients' configuration
//! (docs/mcp.md, docs/DESIGN.md "Agent integration"): Qwen Code and Gemini CLI `mcpServers` in
//! their `settings.json`, Claude Code `mcpServers` in `~/.claude.json` (user) or `.mcp.json`
//! (project), Codex CLI `[mcp_servers.qwen-memory]` in `~/.codex/config.toml`.
//!
//! Only our own entry is touched; every other key keeps its place. Install is idempotent and
//! leaves an entry the user changed alone; uninstall removes exactly the entry install wrote,
//! and deletes a file install created when nothing else was put into it since.

use std::fs;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::{json, Map, Value};

use crate::integrations::agent::{read_settings, AgentError};
use crate::storage::agent_settings::{self, Edit};
use crate::storage::safe_fs;
use crate::storage::store::{self, StoreError};

/// The server's name in every client's configuration: tools appear as
/// `mcp__qwen-memory__recall` (Qwen Code, Claude Code).
pub const SERVER_NAME: &str = "qwen-memory";
/// The command the clients start (found on their PATH, like the hooks' command).
pub const COMMAND: &str = "git-qwen-memory";
/// Its arguments.
pub const ARGS: [&str; 1] = ["mcp"];

/// An MCP client we can register the server with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Client {
    Qwen,
    Claude,
    Codex,
    Gemini,
}

impl Client {
    pub fn as_str(self) -> &'static str {
        match self {
            Client::Qwen => "qwen",
            Client::Claude => "claude",
            Client::Codex => "codex",
            Client::Gemini => "gemini",
        }
    }

    /// Whether the client keeps a project-scope file we write (`--project`).
    pub fn has_project_scope(self) -> bool {
        matches!(self, Client::Qwen | Client::Claude | Client::Gemini)
    }

    /// The user-scope configuration directory of a client that is not installed may be absent;
    /// `install --agent all` registers only with clients whose directory exists.
    pub fn config_dir_exists(self) -> bool {
        user_dir(self).is_ok_and(|d| d.is_dir())
    }
}

fn home() -> Result<PathBuf, AgentError> {
    dirs::home_dir().ok_or(AgentError::NoHome)
}

fn env_dir(name: &str) -> Option<PathBuf> {
    std::env::var_os(name)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

fn user_dir(client: Client) -> Result<PathBuf, AgentError> {
    Ok(match client {
        Client::Qwen => home()?.join(".qwen"),
        Client::Claude => match env_dir("CLAUDE_CONFIG_DIR") {
            Some(d) => d,
            None => home()?,
        },
        Client::Codex => match env_dir("CODEX_HOME") {
            Some(d) => d,
            None => home()?.join(".codex"),
        },
        Client::Gemini => home()?.join(".gemini"),
    })
}

/// The configuration file holding the client's MCP servers: user scope, or the project's
/// file with `project`.
pub fn config_path(
    client: Client,
    project: bool,
    project_root: &Path,
) -> Result<PathBuf, AgentError> {
    Ok(match (client, project) {
        (Client::Qwen, true) => project_root.join(".qwen/settings.json"),
        (Client::Claude, true) => project_root.join(".mcp.json"),
        (Client::Gemini, true) => project_root.join(".gemini/settings.json"),
        (Client::Codex, true) => project_root.join(".codex/config.toml"),
        (Client::Qwen, false) => user_dir(client)?.join("settings.json"),
        // `claude mcp add --scope user` writes the top-level `mcpServers` of `.claude.json`.
        (Client::Claude, false) => match env_dir("CLAUDE_CONFIG_DIR") {
            Some(d) => d.join(".claude.json"),
            None => home()?.join(".claude.json"),
        },
        (Client::Codex, false) => user_dir(client)?.join("config.toml"),
        (Client::Gemini, false) => user_dir(client)?.join("settings.json"),
    })
}

/// The entry we write for a JSON client.
pub fn entry(client: Client) -> Value {
    match client {
        Client::Claude => json!({"type": "stdio", "command": COMMAND, "args": ARGS, "env": {}}),
        // `trust`: the user installs our own binary; its tools need no confirmation each call.
        Client::Qwen | Client::Gemini => json!({"command": COMMAND, "args": ARGS, "trust": true}),
        Client::Codex => json!({"command": COMMAND, "args": ARGS}),
    }
}

/// What to add by hand to `client`'s configuration (`install --manual`): the `mcpServers`
/// entry as JSON, or Codex's TOML table, exactly what `install` would write.
pub fn manual_snippet(client: Client) -> String {
    match client {
        Client::Codex => codex_block(),
        _ => {
            let value = json!({"mcpServers": {SERVER_NAME: entry(client)}});
            let mut text = serde_json::to_string_pretty(&value).unwrap_or_default();
            text.push('\n');
            text
        }
    }
}

/// What install/uninstall did to one configuration file.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct McpReport {
    pub client: Client,
    pub path: String,
    pub changed: bool,
    pub warnings: Vec<String>,
}

const CODEX_MARKER: &str =
    "# Added by `git qwen-memory install`; removed by `git qwen-memory uninstall`.";

/// Variables Codex must pass on to the server: Codex starts MCP servers with a short allow
/// list of its own environment, so a memory base directory set in the user's shell would
/// otherwise be lost and memory would land in `~/.qwen`.
const CODEX_ENV_VARS: &[&str] = &["QWEN_CODE_MEMORY_BASE_DIR"];

fn codex_block() -> String {
    let quoted = |items: &[&str]| {
        items
            .iter()
            .map(|a| format!("\"{a}\""))
            .collect::<Vec<_>>()
            .join(", ")
    };
    format!(
        "{}env_vars = [{}]\n",
        legacy_codex_block(),
        quoted(CODEX_ENV_VARS)
    )
}

/// The block earlier releases wrote (no `env_vars`): still ours, upgraded by install and
/// removed by uninstall.
fn legacy_codex_block() -> String {
    format!(
        "{CODEX_MARKER}\n[mcp_servers.{SERVER_NAME}]\ncommand = \"{COMMAND}\"\nargs = [{}]\n",
        ARGS.iter()
            .map(|a| format!("\"{a}\""))
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// Where our block (current or legacy) starts in `text`, and its length.
fn find_codex_block(text: &str) -> Option<(usize, usize)> {
    let current = codex_block();
    if let Some(at) = text.find(&current) {
        return Some((at, current.len()));
    }
    let legacy = legacy_codex_block();
    let at = text.find(&legacy)?;
    // The legacy block is a prefix of the current one: only a block that ends there counts.
    let rest = &text[at + legacy.len()..];
    (rest.is_empty() || rest.starts_with('\n') || rest.starts_with('['))
        .then_some((at, legacy.len()))
}

/// Why `text` is not valid TOML (the parser's message, one line), if it is not.
fn toml_error(text: &str) -> Result<(), String> {
    text.parse::<toml_edit::DocumentMut>()
        .map(|_| ())
        .map_err(|e| {
            crate::formats::sanitize::clean_line(&e.message().replace('\n', " ")).into_owned()
        })
}

fn codex_header(line: &str) -> bool {
    let l = line.trim();
    l == format!("[mcp_servers.{SERVER_NAME}]") || l == format!("[mcp_servers.\"{SERVER_NAME}\"]")
}

/// A file we created is remembered here, so uninstall may delete it when it holds nothing
/// else.
fn created_marker(state_dir: &Path, path: &Path) -> PathBuf {
    state_dir.join(format!(
        "{}.created",
        crate::storage::project::sanitize_key(&path.display().to_string())
    ))
}

/// Remembers that install added the `mcpServers` key itself to a file that existed: uninstall
/// removes the key (once empty) only then, never a person's own empty `mcpServers`.
fn key_marker(state_dir: &Path, path: &Path) -> PathBuf {
    state_dir.join(format!(
        "{}.mcpservers-created",
        crate::storage::project::sanitize_key(&path.display().to_string())
    ))
}

/// The bytes of a blank (whitespace-only) file install wrote into: uninstall gives them back
/// when nothing but our entry was put into the file.
fn blank_marker(state_dir: &Path, path: &Path) -> PathBuf {
    state_dir.join(format!(
        "{}.blank",
        crate::storage::project::sanitize_key(&path.display().to_string())
    ))
}

/// Remembers that install added a line break to end a `config.toml` that had none before its
/// block: uninstall takes it out again, so the file is given back byte for byte.
fn no_newline_marker(state_dir: &Path, path: &Path) -> PathBuf {
    state_dir.join(format!(
        "{}.no-final-newline",
        crate::storage::project::sanitize_key(&path.display().to_string())
    ))
}

fn read_text(path: &Path) -> Result<Option<String>, AgentError> {
    Ok(safe_fs::read_regular_string(path).map_err(StoreError::from)?)
}

/// Registers the server with `client` in the file at `path`. `state_dir` remembers files
/// install created.
pub fn install(client: Client, path: &Path, state_dir: &Path) -> Result<McpReport, AgentError> {
    let mut report = McpReport {
        client,
        path: path.display().to_string(),
        changed: false,
        warnings: Vec::new(),
    };
    if client == Client::Codex {
        let existing = read_text(path)?;
        let text = existing.clone().unwrap_or_default();
        // Never turn a valid configuration into an invalid one (Codex would not start), and
        // never rewrite one that does not parse.
        if let Err(message) = toml_error(&text) {
            return Err(AgentError::InvalidToml {
                path: path.to_path_buf(),
                message,
            });
        }
        let still_valid = |out: &str| {
            toml_error(out).map_err(|message| AgentError::TomlWouldBreak {
                path: path.to_path_buf(),
                message,
            })
        };
        if text.lines().any(codex_header) {
            match find_codex_block(&text) {
                Some((at, len)) if len != codex_block().len() => {
                    // An earlier release's block: upgrade it in place.
                    let out = format!("{}{}{}", &text[..at], codex_block(), &text[at + len..]);
                    still_valid(&out)?;
                    write_new(path, out.as_bytes(), false, state_dir)?;
                    report.changed = true;
                }
                Some(_) => {}
                None => report.warnings.push(format!(
                    "{}: [mcp_servers.{SERVER_NAME}] exists and differs from ours; left as it is",
                    path.display()
                )),
            }
            return Ok(report);
        }
        let mut out = text;
        let unterminated = !out.is_empty() && !out.ends_with('\n');
        if unterminated {
            out.push('\n');
        }
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&codex_block());
        still_valid(&out)?;
        write_new(path, out.as_bytes(), existing.is_none(), state_dir)?;
        // Only this install's answer counts: a marker left by an earlier one (whose block a
        // person then removed) must not take a final line break of theirs.
        let no_newline = no_newline_marker(state_dir, path);
        if unterminated {
            store::atomic_write(&no_newline, b"")?;
        } else {
            let _ = fs::remove_file(&no_newline);
        }
        report.changed = true;
        return Ok(report);
    }
    // Every JSON client's file goes through the one settings edit, under its lock in
    // `state_dir`.
    let (changed, _, _) = agent_settings::edit::<_, AgentError>(
        path,
        state_dir,
        |value, original| {
            let shape = |what: &str| AgentError::UnexpectedShape {
                path: path.to_path_buf(),
                what: what.to_string(),
            };
            let root = value.as_object_mut().ok_or_else(|| shape("the file"))?;
            let added_key = !root.contains_key("mcpServers");
            let servers = root
                .entry("mcpServers")
                .or_insert_with(|| Value::Object(Map::new()))
                .as_object_mut()
                .ok_or_else(|| shape("mcpServers"))?;
            let want = entry(client);
            match servers.get(SERVER_NAME) {
                Some(v) if *v == want => Ok((Edit::Keep, (false, false, false))),
                Some(_) => {
                    report.warnings.push(format!(
                        "{}: mcpServers.{SERVER_NAME} exists and differs from ours; left as it is",
                        path.display()
                    ));
                    Ok((Edit::Keep, (false, false, false)))
                }
                None => {
                    servers.insert(SERVER_NAME.to_string(), want);
                    if let Some(blank) = original.filter(|b| b.iter().all(u8::is_ascii_whitespace))
                    {
                        store::atomic_write(&blank_marker(state_dir, path), blank)?;
                    }
                    Ok((Edit::Write, (true, original.is_none(), added_key)))
                }
            }
        },
        |&(_, created, added_key)| {
            if created {
                store::atomic_write(&created_marker(state_dir, path), b"")?;
            } else if added_key {
                store::atomic_write(&key_marker(state_dir, path), b"")?;
            }
            Ok(())
        },
    )?;
    report.changed = changed;
    Ok(report)
}

fn write_new(path: &Path, bytes: &[u8], created: bool, state_dir: &Path) -> Result<(), AgentError> {
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir).map_err(|e| AgentError::Io {
            path: dir.to_path_buf(),
            source: e,
        })?;
    }
    store::atomic_write(path, bytes)?;
    if created {
        store::atomic_write(&created_marker(state_dir, path), b"")?;
    }
    Ok(())
}

/// Removes our server entry for `client` from the file at `path`.
pub fn uninstall(client: Client, path: &Path, state_dir: &Path) -> Result<McpReport, AgentError> {
    let mut report = McpReport {
        client,
        path: path.display().to_string(),
        changed: false,
        warnings: Vec::new(),
    };
    let marker = created_marker(state_dir, path);
    let key_marker = key_marker(state_dir, path);
    if client == Client::Codex {
        let Some(text) = read_text(path)? else {
            return Ok(report);
        };
        let Some((at, len)) = find_codex_block(&text) else {
            // No block of ours: nothing of this file is ours to give back.
            let _ = fs::remove_file(no_newline_marker(state_dir, path));
            if text.lines().any(codex_header) {
                report.warnings.push(format!(
                    "{}: [mcp_servers.{SERVER_NAME}] was changed by hand; left as it is",
                    path.display()
                ));
            }
            return Ok(report);
        };
        let mut out = format!("{}{}", &text[..at], &text[at + len..]);
        // The blank line install put before the block.
        if at > 0 && out[..at].ends_with("\n\n") {
            out.remove(at - 1);
        }
        // The line break install added to end a file that had none, when the block is still
        // the file's end (text a person added after it keeps its line break).
        let no_newline = no_newline_marker(state_dir, path);
        if at + len == text.len() && no_newline.exists() && out.ends_with('\n') {
            out.pop();
        }
        let _ = fs::remove_file(&no_newline);
        finish(path, out.trim().is_empty(), out.as_bytes(), &marker)?;
        // Our block is gone: the marker has served either way.
        let _ = fs::remove_file(&marker);
        report.changed = true;
        return Ok(report);
    }
    // (changed, deleted)
    let (changed, _) = agent_settings::edit::<_, AgentError>(
        path,
        state_dir,
        |value, bytes| {
            let Some(root) = value.as_object_mut().filter(|_| bytes.is_some()) else {
                return Ok((Edit::Keep, (false, false)));
            };
            let Some(servers) = root.get_mut("mcpServers").and_then(Value::as_object_mut) else {
                return Ok((Edit::Keep, (false, false)));
            };
            match servers.get(SERVER_NAME) {
                Some(v) if *v == entry(client) => {
                    servers.shift_remove(SERVER_NAME);
                }
                Some(_) => {
                    report.warnings.push(format!(
                        "{}: mcpServers.{SERVER_NAME} was changed by hand; left as it is",
                        path.display()
                    ));
                    return Ok((Edit::Keep, (false, false)));
                }
                None => return Ok((Edit::Keep, (false, false))),
            }
            // The key goes only when install put it there (a person's own empty
            // `mcpServers` stays).
            if servers.is_empty() && (marker.exists() || key_marker.exists()) {
                root.shift_remove("mcpServers");
            }
            // A file install created goes when nothing else was put into it since; a blank
            // file install wrote into is given back as it was.
            let blank = safe_fs::read_regular(&blank_marker(state_dir, path))
                .ok()
                .flatten();
            if root.is_empty() && marker.exists() {
                Ok((Edit::Remove, (true, true)))
            } else if let Some(blank) = blank.filter(|_| root.is_empty()) {
                Ok((Edit::WriteBytes(blank), (true, false)))
            } else {
                Ok((Edit::Write, (true, false)))
            }
        },
        |_| Ok(()),
    )?;
    // Once our entry is gone the markers have served (or were stale): a later key or file of
    // the person's is never taken for one install made.
    if !installed(client, path) {
        let _ = fs::remove_file(&marker);
        let _ = fs::remove_file(&key_marker);
        let _ = fs::remove_file(blank_marker(state_dir, path));
    }
    report.changed = changed;
    Ok(report)
}

fn finish(path: &Path, empty: bool, bytes: &[u8], marker: &Path) -> Result<(), AgentError> {
    if empty && marker.exists() {
        fs::remove_file(path).map_err(|e| AgentError::Io {
            path: path.to_path_buf(),
            source: e,
        })?;
        let _ = fs::remove_file(marker);
        return Ok(());
    }
    store::atomic_write(path, bytes)?;
    Ok(())
}

/// Whether the file at `path` registers our server.
pub fn installed(client: Client, path: &Path) -> bool {
    if client == Client::Codex {
        return matches!(read_text(path), Ok(Some(t)) if t.lines().any(codex_header));
    }
    matches!(read_settings(path), Ok(Some((_, v))) if v.pointer(&format!("/mcpServers/{SERVER_NAME}")).is_some())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_install_is_idempotent_and_uninstall_restores() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("state");
        let path = dir.path().join("settings.json");
        fs::write(&path, "{\n    \"theme\": \"dark\"\n}\n").unwrap();
        let before = fs::read(&path).unwrap();
        assert!(install(Client::Qwen, &path, &state).unwrap().changed);
        assert!(!install(Client::Qwen, &path, &state).unwrap().changed);
        let v: Value = serde_json::from_slice(&fs::read(&path).unwrap()).unwrap();
        assert_eq!(v["theme"], "dark");
        assert_eq!(v["mcpServers"][SERVER_NAME]["args"], json!(["mcp"]));
        assert!(installed(Client::Qwen, &path));
        assert!(uninstall(Client::Qwen, &path, &state).unwrap().changed);
        assert_eq!(fs::read(&path).unwrap(), before);
        assert!(!uninstall(Client::Qwen, &path, &state).unwrap().changed);
    }

    #[test]
    fn a_persons_own_empty_mcp_servers_survives_uninstall() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("state");
        let path = dir.path().join("settings.json");
        let before = "{\n  \"theme\": \"dark\",\n  \"mcpServers\": {}\n}\n";
        fs::write(&path, before).unwrap();
        assert!(install(Client::Gemini, &path, &state).unwrap().changed);
        assert!(uninstall(Client::Gemini, &path, &state).unwrap().changed);
        assert_eq!(fs::read_to_string(&path).unwrap(), before);
        // Install adds the key to a file without one, uninstall takes it away again, and then
        // leaves a person's empty key alone on the next round.
        fs::write(&path, "{\n  \"theme\": \"dark\"\n}\n").unwrap();
        install(Client::Gemini, &path, &state).unwrap();
        uninstall(Client::Gemini, &path, &state).unwrap();
        assert_eq!(
            fs::read_to_string(&path).unwrap(),
            "{\n  \"theme\": \"dark\"\n}\n"
        );
        fs::write(&path, before).unwrap();
        install(Client::Gemini, &path, &state).unwrap();
        uninstall(Client::Gemini, &path, &state).unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), before);
    }

    #[test]
    fn a_file_install_created_and_a_person_filled_is_theirs_after_uninstall() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("state");
        let path = dir.path().join("settings.json");
        install(Client::Gemini, &path, &state).unwrap();
        let mut v: Value = serde_json::from_slice(&fs::read(&path).unwrap()).unwrap();
        v["theme"] = json!("dark");
        fs::write(&path, serde_json::to_vec_pretty(&v).unwrap()).unwrap();
        uninstall(Client::Gemini, &path, &state).unwrap();
        assert!(path.exists());
        // The person now writes their own empty key: a later round leaves it and the file.
        let theirs = "{\n  \"theme\": \"dark\",\n  \"mcpServers\": {}\n}\n";
        fs::write(&path, theirs).unwrap();
        install(Client::Gemini, &path, &state).unwrap();
        uninstall(Client::Gemini, &path, &state).unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), theirs);
        // A stale marker (our entry removed by hand) is cleared by the next uninstall.
        fs::write(&path, "{}\n").unwrap();
        install(Client::Gemini, &path, &state).unwrap();
        fs::write(&path, "{\"mcpServers\": {}}\n").unwrap();
        uninstall(Client::Gemini, &path, &state).unwrap();
        assert_eq!(
            fs::read_dir(&state)
                .unwrap()
                .filter(|e| {
                    e.as_ref().is_ok_and(|e| {
                        e.file_name()
                            .to_string_lossy()
                            .contains("mcpservers-created")
                    })
                })
                .count(),
            0
        );
    }

    #[test]
    fn a_created_file_is_deleted_and_a_changed_entry_is_left() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("state");
        let path = dir.path().join(".mcp.json");
        install(Client::Claude, &path, &state).unwrap();
        assert!(path.exists());
        uninstall(Client::Claude, &path, &state).unwrap();
        assert!(!path.exists());
        install(Client::Claude, &path, &state).unwrap();
        let mut v: Value = serde_json::from_slice(&fs::read(&path).unwrap()).unwrap();
        v["mcpServers"][SERVER_NAME]["args"] = json!(["mcp", "-v"]);
        fs::write(&path, v.to_string()).unwrap();
        let r = uninstall(Client::Claude, &path, &state).unwrap();
        assert!(!r.changed && !r.warnings.is_empty());
        assert!(path.exists());
    }

    #[test]
    fn codex_toml_block_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("state");
        let path = dir.path().join("config.toml");
        let original = "model = \"o4\"\n\n[mcp_servers.other]\ncommand = \"x\"\n";
        fs::write(&path, original).unwrap();
        assert!(install(Client::Codex, &path, &state).unwrap().changed);
        assert!(!install(Client::Codex, &path, &state).unwrap().changed);
        let text = fs::read_to_string(&path).unwrap();
        assert!(text.starts_with(original));
        assert!(text.contains(
            "[mcp_servers.qwen-memory]\ncommand = \"git-qwen-memory\"\nargs = [\"mcp\"]\nenv_vars = [\"QWEN_CODE_MEMORY_BASE_DIR\"]\n"
        ));
        assert!(installed(Client::Codex, &path));
        uninstall(Client::Codex, &path, &state).unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), original);
        // A file without a final line break gets it back without one.
        let original = "model = \"o4\"\n\n[mcp_servers.other]\ncommand = \"x\"";
        fs::write(&path, original).unwrap();
        assert!(install(Client::Codex, &path, &state).unwrap().changed);
        assert!(installed(Client::Codex, &path));
        uninstall(Client::Codex, &path, &state).unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), original);
        // ... unless the person added something after our block: then the file keeps it.
        fs::write(&path, original).unwrap();
        assert!(install(Client::Codex, &path, &state).unwrap().changed);
        let mut text = fs::read_to_string(&path).unwrap();
        text.push_str("\n[profiles.x]\nmodel = \"y\"\n");
        fs::write(&path, &text).unwrap();
        uninstall(Client::Codex, &path, &state).unwrap();
        assert_eq!(
            fs::read_to_string(&path).unwrap(),
            format!("{original}\n\n[profiles.x]\nmodel = \"y\"\n")
        );
        assert!(!no_newline_marker(&state, &path).exists());
        // An install on a file without a final line break whose block the person then removed
        // by hand: a later install on a file that has one leaves it there on uninstall.
        fs::write(&path, original).unwrap();
        assert!(install(Client::Codex, &path, &state).unwrap().changed);
        assert!(no_newline_marker(&state, &path).exists());
        let terminated = format!("{original}\n");
        fs::write(&path, &terminated).unwrap();
        assert!(install(Client::Codex, &path, &state).unwrap().changed);
        uninstall(Client::Codex, &path, &state).unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), terminated);
        // And an uninstall that finds no block of ours forgets the marker too.
        fs::write(&path, original).unwrap();
        assert!(install(Client::Codex, &path, &state).unwrap().changed);
        fs::write(&path, &terminated).unwrap();
        uninstall(Client::Codex, &path, &state).unwrap();
        assert!(!no_newline_marker(&state, &path).exists());
        assert_eq!(fs::read_to_string(&path).unwrap(), terminated);
    }

    /// Install never makes a valid `config.toml` invalid (Codex would not start) and never
    /// rewrites one that does not parse: `mcp_servers` as an inline table, our server already
    /// defined as an inline table or a dotted key, or a broken file are refused, byte for byte
    /// untouched. Other tables and dotted keys are added to as before.
    #[test]
    fn codex_install_never_breaks_the_toml() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("state");
        let path = dir.path().join("config.toml");
        for refused in [
            "model = \"o3\"\nmcp_servers = { other = { command = \"x\" } }\n",
            "[mcp_servers]\nqwen-memory = { command = \"git-qwen-memory\", args = [\"mcp\"] }\n",
            "mcp_servers.qwen-memory.command = \"git-qwen-memory\"\n",
            "model = \"o3\n",
        ] {
            fs::write(&path, refused).unwrap();
            let err = install(Client::Codex, &path, &state).unwrap_err();
            assert!(
                matches!(
                    err,
                    AgentError::TomlWouldBreak { .. } | AgentError::InvalidToml { .. }
                ),
                "{refused:?}: {err}"
            );
            assert!(err.to_string().contains("by hand"), "{err}");
            assert_eq!(fs::read_to_string(&path).unwrap(), refused);
        }
        for fine in [
            "[mcp_servers]\n\n[mcp_servers.other]\ncommand = \"x\"\n",
            "mcp_servers.other.command = \"x\"\n",
            "[[profiles]]\nname = \"a\"\n",
        ] {
            fs::write(&path, fine).unwrap();
            assert!(
                install(Client::Codex, &path, &state).unwrap().changed,
                "{fine:?}"
            );
            let text = fs::read_to_string(&path).unwrap();
            assert!(toml_error(&text).is_ok(), "{text}");
            uninstall(Client::Codex, &path, &state).unwrap();
            assert_eq!(fs::read_to_string(&path).unwrap(), fine);
        }
    }

    #[test]
    fn codex_block_of_an_earlier_release_is_upgraded_and_removed() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("state");
        let path = dir.path().join("config.toml");
        let original = "model = \"o4\"\n";
        let old = format!(
            "{original}\n{}\n[profiles.x]\nmodel = \"y\"\n",
            legacy_codex_block()
        );
        fs::write(&path, &old).unwrap();
        assert!(install(Client::Codex, &path, &state).unwrap().changed);
        let text = fs::read_to_string(&path).unwrap();
        assert!(text.contains(&codex_block()), "{text}");
        assert!(text.ends_with("\n[profiles.x]\nmodel = \"y\"\n"), "{text}");
        assert!(!install(Client::Codex, &path, &state).unwrap().changed);
        // An earlier release's block, as it was, is removed by uninstall.
        fs::write(&path, &old).unwrap();
        assert!(uninstall(Client::Codex, &path, &state).unwrap().changed);
        assert_eq!(
            fs::read_to_string(&path).unwrap(),
            format!("{original}\n[profiles.x]\nmodel = \"y\"\n")
        );
    }
}
