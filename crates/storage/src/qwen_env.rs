//! Qwen Code's own folders and settings, resolved exactly as Qwen Code 0.24.4 resolves them, so
//! both tools use the same memory base, find the same chats and read the same settings
//! (docs/DESIGN.md, "Roots and paths").
//!
//! - global dir: `QWEN_HOME`, else `~/.qwen` (holds the user `settings.json`);
//! - runtime base: `QWEN_RUNTIME_DIR`, else the merged setting `advanced.runtimeOutputDir`
//!   (relative to the current directory), else the global dir (holds `projects/<key>/chats/`);
//! - memory base: `QWEN_CODE_MEMORY_BASE_DIR`, else `QWEN_RUNTIME_DIR`, else the *user*
//!   setting `advanced.runtimeOutputDir`, else the global dir: a repository's own settings
//!   never move personal memory (docs/DESIGN.md, "Roots and paths").
//!
//! An empty variable counts as unset; `~` and `~/…` are expanded; relative values resolve
//! against the current directory. Settings are Qwen Code's merged settings
//! ([`crate::qwen_settings`]) for a session started in the current directory.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::project::{normalize_lexically, ProjectError};
use crate::qwen_settings::QwenSettings;

/// Moves the memory base only.
pub const ENV_MEMORY_BASE_DIR: &str = "QWEN_CODE_MEMORY_BASE_DIR";
/// Moves Qwen Code's runtime output (chats, temp files) and, with it, the memory base.
pub const ENV_RUNTIME_DIR: &str = "QWEN_RUNTIME_DIR";
/// Moves Qwen Code's global dir (settings) and, unless overridden, everything else.
pub const ENV_QWEN_HOME: &str = crate::qwen_settings::ENV_QWEN_HOME;

/// Where Qwen Code keeps things for one current directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QwenDirs {
    /// `QWEN_HOME` or `~/.qwen`: user settings, trusted folders.
    pub global_dir: PathBuf,
    /// Chats and other runtime output: `<runtime_base>/projects/<key>/chats/`.
    pub runtime_base: PathBuf,
    /// Memory: `<memory_base>/projects/<key>/memory/`, `<memory_base>/memories/`.
    pub memory_base: PathBuf,
}

impl QwenDirs {
    /// Resolves the folders for `cwd` from the process environment and settings files.
    pub fn resolve(cwd: &Path) -> Result<QwenDirs, ProjectError> {
        QwenDirs::resolve_with(cwd, |name| std::env::var(name).ok(), dirs::home_dir())
    }

    /// [`QwenDirs::resolve`] with the environment and home dir given (for tests).
    pub fn resolve_with(
        cwd: &Path,
        env: impl Fn(&str) -> Option<String>,
        home: Option<PathBuf>,
    ) -> Result<QwenDirs, ProjectError> {
        let var = |name: &str| env(name).filter(|v| !v.is_empty());
        let cwd = normalize_lexically(cwd);
        let global_dir = match var(ENV_QWEN_HOME) {
            Some(v) => resolve_path(&v, &cwd, home.as_deref()),
            None => home.as_ref().ok_or(ProjectError::NoHome)?.join(".qwen"),
        };
        let runtime_base = match var(ENV_RUNTIME_DIR) {
            Some(v) => resolve_path(&v, &cwd, home.as_deref()),
            None => match runtime_output_setting(&global_dir, &cwd) {
                Some(v) => resolve_path(&v, &cwd, home.as_deref()),
                None => global_dir.clone(),
            },
        };
        // Personal memory stays personal: the memory base follows the environment and the
        // user's own settings, never a repository's `.qwen/settings.json` (a cloned project
        // could otherwise move the private and user roots into its work tree).
        let memory_base = match (var(ENV_MEMORY_BASE_DIR), var(ENV_RUNTIME_DIR)) {
            (Some(v), _) | (None, Some(v)) => resolve_path(&v, &cwd, home.as_deref()),
            (None, None) => match user_runtime_output_setting(&global_dir) {
                Some(v) => resolve_path(&v, &cwd, home.as_deref()),
                None => global_dir.clone(),
            },
        };
        Ok(QwenDirs {
            global_dir,
            runtime_base,
            memory_base,
        })
    }

    /// The user settings file, `<global dir>/settings.json`.
    pub fn user_settings_path(&self) -> PathBuf {
        self.global_dir.join("settings.json")
    }
}

/// Tilde expansion and resolution against `cwd`, as Qwen Code's path helpers do.
fn resolve_path(value: &str, cwd: &Path, home: Option<&Path>) -> PathBuf {
    let expanded = match (value, home) {
        ("~", Some(h)) => h.to_path_buf(),
        (v, Some(h)) if v.starts_with("~/") => h.join(v[2..].trim_start_matches('/')),
        (v, _) => PathBuf::from(v),
    };
    if expanded.is_absolute() {
        normalize_lexically(&expanded)
    } else {
        normalize_lexically(&cwd.join(expanded))
    }
}

/// `advanced.runtimeOutputDir` of Qwen Code's merged settings for a session in `cwd` (Qwen
/// Code reads the project file of the directory it was started in), when a non-empty string.
fn runtime_output_setting(global_dir: &Path, cwd: &Path) -> Option<String> {
    QwenSettings::load(Some(global_dir), cwd)
        .get("advanced.runtimeOutputDir")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

/// `advanced.runtimeOutputDir` of the user settings alone.
fn user_runtime_output_setting(global_dir: &Path) -> Option<String> {
    QwenSettings::load_user(global_dir)
        .get("advanced.runtimeOutputDir")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;
    use std::fs;

    fn resolve(cwd: &Path, vars: &[(&str, &str)], home: &Path) -> QwenDirs {
        let vars: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        QwenDirs::resolve_with(cwd, |k| vars.get(k).cloned(), Some(home.to_path_buf())).unwrap()
    }

    #[test]
    fn precedence_of_every_source() {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().join("home");
        let cwd = tmp.path().join("proj");
        fs::create_dir_all(cwd.join(".qwen")).unwrap();
        fs::create_dir_all(home.join(".qwen")).unwrap();

        let d = resolve(&cwd, &[], &home);
        assert_eq!(d.global_dir, home.join(".qwen"));
        assert_eq!(d.runtime_base, home.join(".qwen"));
        assert_eq!(d.memory_base, home.join(".qwen"));

        let d = resolve(
            &cwd,
            &[(ENV_QWEN_HOME, "~/alt"), (ENV_RUNTIME_DIR, "")],
            &home,
        );
        assert_eq!(d.global_dir, home.join("alt"));
        assert_eq!(d.memory_base, home.join("alt"));

        // User setting, relative to the cwd; the project file wins over the user file.
        fs::write(
            home.join(".qwen/settings.json"),
            "{ // comment\n \"advanced\": {\"runtimeOutputDir\": \"out/../rt\"} }",
        )
        .unwrap();
        let d = resolve(&cwd, &[], &home);
        assert_eq!(d.runtime_base, cwd.join("rt"));
        assert_eq!(d.memory_base, cwd.join("rt"));
        fs::write(
            cwd.join(".qwen/settings.json"),
            r#"{"advanced": {"runtimeOutputDir": "~/prt"}, "x": "a // not a comment"}"#,
        )
        .unwrap();
        let d = resolve(&cwd, &[], &home);
        assert_eq!(d.runtime_base, home.join("prt"));
        // ... but never the memory base: that stays where the user's settings put it.
        assert_eq!(d.memory_base, cwd.join("rt"));
        fs::remove_file(home.join(".qwen/settings.json")).unwrap();
        let d = resolve(&cwd, &[], &home);
        assert_eq!(d.runtime_base, home.join("prt"));
        assert_eq!(d.memory_base, home.join(".qwen"));

        // The environment wins over settings; the memory base moves memory only.
        let d = resolve(&cwd, &[(ENV_RUNTIME_DIR, "/rt")], &home);
        assert_eq!(d.runtime_base, PathBuf::from("/rt"));
        let d = resolve(
            &cwd,
            &[(ENV_RUNTIME_DIR, "/rt"), (ENV_MEMORY_BASE_DIR, "mem")],
            &home,
        );
        assert_eq!(d.runtime_base, PathBuf::from("/rt"));
        assert_eq!(d.memory_base, cwd.join("mem"));
    }
}
