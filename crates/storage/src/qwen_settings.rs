//! What Qwen Code itself will do on this machine, read from its merged `settings.json` files.
//!
//! Qwen Code 0.24.4 recalls and extracts on its own when `memory.enableManagedAutoMemory` is on
//! (its default) and shows team memory when `memory.enableTeamMemory` is on. The Qwen hooks read
//! these settings at run time so the two tools share the work instead of doing it twice
//! (docs/DESIGN.md, "Sharing with Qwen Code").
//!
//! Merging follows Qwen: the user file in the global Qwen dir (`QWEN_HOME`, else `~/.qwen`),
//! then the project's `.qwen/settings.json`, later files winning key by key. The files may hold
//! comments (Qwen strips them before parsing); an unreadable or invalid file counts as empty,
//! as in Qwen.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::agent_settings::{self, strip_comments, Edit, SettingsFileError};

/// Environment variable naming Qwen Code's global directory (default `~/.qwen`).
pub const ENV_QWEN_HOME: &str = "QWEN_HOME";
/// Environment override of team memory: `0` forces it off, `1` on.
pub const ENV_QWEN_TEAM: &str = "QWEN_CODE_MEMORY_TEAM";

/// Qwen Code's global directory: `QWEN_HOME` (tilde expanded, relative to `cwd`), else `~/.qwen`.
pub fn global_dir(qwen_home: Option<&str>, cwd: &Path) -> Option<PathBuf> {
    match qwen_home {
        Some(v) if !v.trim().is_empty() => Some(crate::project::expand_path(v, cwd)),
        _ => dirs::home_dir().map(|h| h.join(".qwen")),
    }
}

/// Qwen Code's merged settings (user, then project).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct QwenSettings {
    merged: Map<String, Value>,
    /// The files that were read, in merge order.
    pub files: Vec<PathBuf>,
}

impl QwenSettings {
    /// Reads the user settings in `global_dir` and the project settings under `project_root`.
    pub fn load(global_dir: Option<&Path>, project_root: &Path) -> QwenSettings {
        let mut out = QwenSettings::default();
        let candidates = global_dir
            .map(|g| g.join("settings.json"))
            .into_iter()
            .chain(std::iter::once(
                project_root.join(".qwen").join("settings.json"),
            ));
        for path in candidates {
            if let Some(Value::Object(map)) = read_jsonc(&path) {
                deep_merge(&mut out.merged, map);
                out.files.push(path);
            }
        }
        out
    }

    /// Reads the user settings in `global_dir` only: what a repository's own
    /// `.qwen/settings.json` must never decide (where personal memory lives).
    pub fn load_user(global_dir: &Path) -> QwenSettings {
        let mut out = QwenSettings::default();
        let path = global_dir.join("settings.json");
        if let Some(Value::Object(map)) = read_jsonc(&path) {
            out.merged = map;
            out.files.push(path);
        }
        out
    }

    /// These settings with the project settings under `project_root` merged over them: what
    /// [`QwenSettings::load`] gives, from user settings already read.
    pub fn with_project(&self, project_root: &Path) -> QwenSettings {
        let mut out = self.clone();
        let path = project_root.join(".qwen").join("settings.json");
        if let Some(Value::Object(map)) = read_jsonc(&path) {
            deep_merge(&mut out.merged, map);
            out.files.push(path);
        }
        out
    }

    /// The value at a dotted path (`memory.enableTeamMemory`).
    pub fn get(&self, dotted: &str) -> Option<&Value> {
        let mut parts = dotted.split('.');
        let mut cur = self.merged.get(parts.next()?)?;
        for p in parts {
            cur = cur.as_object()?.get(p)?;
        }
        Some(cur)
    }

    fn bool_or(&self, dotted: &str, default: bool) -> bool {
        self.get(dotted).and_then(Value::as_bool).unwrap_or(default)
    }

    /// Whether Qwen Code recalls from the private and user roots and extracts by itself.
    pub fn managed_auto_memory(&self) -> bool {
        self.bool_or("memory.enableManagedAutoMemory", true)
    }

    /// Whether Qwen Code shows team memory (`QWEN_CODE_MEMORY_TEAM` overrides the setting).
    pub fn team_memory(&self, env_override: Option<&str>) -> bool {
        match env_override {
            Some("0") => false,
            Some("1") => true,
            _ => self.bool_or("memory.enableTeamMemory", false),
        }
    }
}

/// Reads a JSON file that may contain `//` and `/* */` comments; `None` when missing or invalid.
fn read_jsonc(path: &Path) -> Option<Value> {
    let text = read_text(path).ok()??;
    serde_json::from_str(&strip_comments(&text)).ok()
}

/// Reads a settings file: non-blocking and regular files only, so a FIFO planted as
/// `settings.json` never hangs a hook; `None` when missing.
fn read_text(path: &Path) -> std::io::Result<Option<String>> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let file = match std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(crate::sys::O_NONBLOCK)
        .open(path)
    {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    if !file.metadata()?.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    let mut bytes = Vec::new();
    file.take(4 << 20).read_to_end(&mut bytes)?;
    Ok(Some(String::from_utf8_lossy(&bytes).into_owned()))
}

fn deep_merge(into: &mut Map<String, Value>, from: Map<String, Value>) {
    for (k, v) in from {
        match (into.get_mut(&k), v) {
            (Some(Value::Object(a)), Value::Object(b)) => deep_merge(a, b),
            (_, v) => {
                into.insert(k, v);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn project_overrides_user_key_by_key() {
        let dir = tempfile::tempdir().unwrap();
        let global = dir.path().join("g");
        let project = dir.path().join("p");
        std::fs::create_dir_all(&global).unwrap();
        std::fs::create_dir_all(project.join(".qwen")).unwrap();
        std::fs::write(
            global.join("settings.json"),
            r#"{"memory": {"enableManagedAutoMemory": false, "enableTeamMemory": true}}"#,
        )
        .unwrap();
        std::fs::write(
            project.join(".qwen/settings.json"),
            "// project\n{\"memory\": {\"enableTeamMemory\": false}}",
        )
        .unwrap();
        let s = QwenSettings::load(Some(&global), &project);
        assert!(!s.managed_auto_memory());
        assert!(!s.team_memory(None));
        assert!(s.team_memory(Some("1")));
        assert_eq!(s.files.len(), 2);
        let none = QwenSettings::load(None, dir.path());
        assert!(none.managed_auto_memory(), "Qwen's default is on");
        assert!(!none.team_memory(None));
    }

    #[test]
    fn enabling_team_memory_names_a_syntax_error_as_one_and_leaves_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let qwen = dir.path().join(".qwen");
        std::fs::create_dir_all(&qwen).unwrap();
        let path = qwen.join("settings.json");
        for (text, invalid) in [("{\"memory\": {", true), ("[1, 2]", false)] {
            std::fs::write(&path, text).unwrap();
            let err = enable_team_memory(dir.path(), dir.path()).unwrap_err();
            let said = err.to_string();
            if invalid {
                assert!(matches!(err, QwenSettingsError::Invalid { .. }), "{err:?}");
                assert!(said.contains("not valid JSON ("), "{said}");
            } else {
                assert!(matches!(err, QwenSettingsError::NotAnObject(_)), "{err:?}");
                assert!(said.contains("not a JSON object"), "{said}");
            }
            assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
        }
    }
}

/// Failures changing Qwen Code's project settings.
#[derive(Debug, thiserror::Error)]
pub enum QwenSettingsError {
    #[error("{0}: not a JSON object; set \"memory\": {{\"enableTeamMemory\": true}} by hand")]
    NotAnObject(PathBuf),
    #[error("{path}: not valid JSON ({message}); fix it, or set \"memory\": {{\"enableTeamMemory\": true}} by hand")]
    Invalid { path: PathBuf, message: String },
    #[error("{path}: holds {what}, which rewriting the file would change; set \"memory\": {{\"enableTeamMemory\": true}} by hand")]
    WouldChange { path: PathBuf, what: String },
    #[error("{0}: holds comments, which a rewrite would drop; set \"memory\": {{\"enableTeamMemory\": true}} by hand")]
    HasComments(PathBuf),
    #[error(transparent)]
    Store(#[from] crate::store::StoreError),
}

impl From<SettingsFileError> for QwenSettingsError {
    fn from(e: SettingsFileError) -> QwenSettingsError {
        match e {
            SettingsFileError::Unparsable {
                path,
                has_comments: true,
                ..
            } => QwenSettingsError::HasComments(path),
            SettingsFileError::Unparsable { path, message, .. } => {
                QwenSettingsError::Invalid { path, message }
            }
            SettingsFileError::WouldChange { path, what } => {
                QwenSettingsError::WouldChange { path, what }
            }
            SettingsFileError::Store(e) => QwenSettingsError::Store(e),
        }
    }
}

/// Turns on Qwen Code's team memory (`memory.enableTeamMemory: true`) in the project's
/// `.qwen/settings.json`, keeping every other key (through [`agent_settings::edit`], under its
/// lock in `lock_dir`). Returns whether the file changed.
pub fn enable_team_memory(project_root: &Path, lock_dir: &Path) -> Result<bool, QwenSettingsError> {
    let path = project_root.join(".qwen").join("settings.json");
    let not_an_object = || QwenSettingsError::NotAnObject(path.clone());
    agent_settings::edit(
        &path,
        lock_dir,
        |root, _| {
            let memory = root
                .as_object_mut()
                .ok_or_else(not_an_object)?
                .entry("memory")
                .or_insert_with(|| Value::Object(Map::new()))
                .as_object_mut()
                .ok_or_else(not_an_object)?;
            if memory.get("enableTeamMemory") == Some(&Value::Bool(true)) {
                return Ok((Edit::Keep, false));
            }
            memory.insert("enableTeamMemory".into(), Value::Bool(true));
            Ok((Edit::Write, true))
        },
        |_| Ok(()),
    )
}
