//! Git's configuration for a repository, read from the files Git itself would read.
//!
//! libgit2 opens a repository's configuration from `$HOME/.gitconfig`,
//! `$XDG_CONFIG_HOME/git/config` and the system file, and ignores Git's `GIT_CONFIG_GLOBAL`,
//! `GIT_CONFIG_SYSTEM` and `GIT_CONFIG_NOSYSTEM` (it honours them only for repositories opened
//! "from the environment", which would also take over the work tree, index and object paths).
//! A user whose global file lives elsewhere (`GIT_CONFIG_GLOBAL`, common with dotfile managers)
//! would then see `git config --global qwen-memory.…` ignored, and a `core.hooksPath` Git uses
//! missed by `install`. When one of these variables is set, the configuration is assembled here
//! the way Git assembles it (docs/DESIGN.md, "Settings"); otherwise libgit2's own lookup already
//! is Git's.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// Git's variables that redirect or drop the global and system files.
pub const ENV_CONFIG_GLOBAL: &str = "GIT_CONFIG_GLOBAL";
pub const ENV_CONFIG_SYSTEM: &str = "GIT_CONFIG_SYSTEM";
pub const ENV_CONFIG_NOSYSTEM: &str = "GIT_CONFIG_NOSYSTEM";

/// The configuration Git reads for `repo` (or, outside a repository, Git's global and system
/// configuration).
pub fn open(repo: Option<&git2::Repository>) -> Result<git2::Config, git2::Error> {
    let env = |name: &str| std::env::var_os(name);
    if let Some(repo) = repo.filter(|_| redirected(&env)) {
        // Opened "from the environment", libgit2 finds the global and system files as Git does
        // and still resolves conditional includes (`includeIf "gitdir:…"`) against the
        // repository; only this configuration is taken from that handle.
        let flags = git2::RepositoryOpenFlags::FROM_ENV | git2::RepositoryOpenFlags::NO_SEARCH;
        let from_env = git2::Repository::open_ext(repo.path(), flags, std::iter::empty::<&str>());
        if let Ok(config) = from_env.and_then(|r| r.config()) {
            return Ok(config);
        }
    }
    open_with(repo, env)
}

/// Whether Git's environment moves or drops the global or system file.
fn redirected(env: &impl Fn(&str) -> Option<OsString>) -> bool {
    env(ENV_CONFIG_GLOBAL).is_some()
        || env(ENV_CONFIG_SYSTEM).is_some()
        || env(ENV_CONFIG_NOSYSTEM).is_some_and(|v| is_true(&v.to_string_lossy()))
}

/// [`open`] with the environment read through `env`, assembling the files itself when the
/// environment redirects them (conditional includes are not resolved then: libgit2 needs the
/// repository handle for them, which [`open`] provides).
pub fn open_with(
    repo: Option<&git2::Repository>,
    env: impl Fn(&str) -> Option<OsString>,
) -> Result<git2::Config, git2::Error> {
    if !redirected(&env) {
        return match repo {
            Some(r) => r.config(),
            None => git2::Config::open_default(),
        };
    }
    let global = env(ENV_CONFIG_GLOBAL);
    let system = env(ENV_CONFIG_SYSTEM);
    let no_system = env(ENV_CONFIG_NOSYSTEM).is_some_and(|v| is_true(&v.to_string_lossy()));
    let mut config = git2::Config::new()?;
    if !no_system {
        let path = match system {
            Some(p) => Some(PathBuf::from(p)),
            None => git2::Config::find_system().ok(),
        };
        add(&mut config, path, git2::ConfigLevel::System)?;
    }
    match global {
        // Git reads the named file instead of both `~/.gitconfig` and the XDG file.
        Some(p) => add(
            &mut config,
            Some(PathBuf::from(p)),
            git2::ConfigLevel::Global,
        )?,
        None => {
            add(
                &mut config,
                git2::Config::find_xdg().ok(),
                git2::ConfigLevel::XDG,
            )?;
            add(
                &mut config,
                git2::Config::find_global().ok(),
                git2::ConfigLevel::Global,
            )?;
        }
    }
    if let Some(repo) = repo {
        let common = repo.commondir().join("config");
        add(&mut config, Some(common), git2::ConfigLevel::Local)?;
        let worktree_config = config
            .get_bool("extensions.worktreeConfig")
            .unwrap_or(false);
        if worktree_config {
            let own = repo.path().join("config.worktree");
            add(&mut config, Some(own), git2::ConfigLevel::Worktree)?;
        }
    }
    Ok(config)
}

/// Adds a configuration file that exists as a regular file (Git skips a missing one; anything
/// else, a FIFO say, is not read at all rather than risk blocking).
fn add(
    config: &mut git2::Config,
    path: Option<PathBuf>,
    level: git2::ConfigLevel,
) -> Result<(), git2::Error> {
    match path {
        Some(p) if is_regular_file(&p) => config.add_file(&p, level, false),
        _ => Ok(()),
    }
}

fn is_regular_file(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file())
}

/// Git's boolean spelling for "true" (`GIT_CONFIG_NOSYSTEM=1`, `yes`, `on`, `true`).
fn is_true(value: &str) -> bool {
    let v = value.trim().to_ascii_lowercase();
    match v.as_str() {
        "true" | "yes" | "on" => true,
        _ => v.parse::<i64>().is_ok_and(|n| n != 0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn repo_with(dir: &Path, local: &str) -> git2::Repository {
        let repo = git2::Repository::init(dir.join("repo")).unwrap();
        fs::write(repo.path().join("config"), local).unwrap();
        repo
    }

    fn env_of(vars: Vec<(&'static str, PathBuf)>) -> impl Fn(&str) -> Option<OsString> {
        move |name| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.clone().into_os_string())
        }
    }

    #[test]
    fn a_named_global_file_is_read_and_the_repository_still_wins() {
        let dir = tempfile::tempdir().unwrap();
        let global = dir.path().join("dotfiles-gitconfig");
        fs::write(
            &global,
            "[qwen-memory \"recall\"]\n\tlimit = 2\n[core]\n\thooksPath = /g/hooks\n",
        )
        .unwrap();
        let repo = repo_with(
            dir.path(),
            "[core]\n\trepositoryformatversion = 0\n\thooksPath = .githooks\n",
        );
        let env = env_of(vec![
            (ENV_CONFIG_GLOBAL, global),
            (ENV_CONFIG_NOSYSTEM, PathBuf::from("1")),
        ]);
        let config = open_with(Some(&repo), env).unwrap().snapshot().unwrap();
        assert_eq!(config.get_str("qwen-memory.recall.limit").unwrap(), "2");
        let hooks = config.get_entry("core.hooksPath").unwrap();
        assert_eq!(hooks.value(), Some(".githooks"));
        assert_eq!(hooks.level(), git2::ConfigLevel::Local);
    }

    #[test]
    fn a_named_system_file_is_read_unless_nosystem() {
        let dir = tempfile::tempdir().unwrap();
        let system = dir.path().join("system");
        fs::write(&system, "[qwen-memory]\n\tautoCommit = true\n").unwrap();
        let repo = repo_with(dir.path(), "[core]\n\trepositoryformatversion = 0\n");
        // A missing global file, so the developer's own global and XDG files stay out of it.
        let no_global = dir.path().join("no-global");
        let on = open_with(
            Some(&repo),
            env_of(vec![
                (ENV_CONFIG_SYSTEM, system.clone()),
                (ENV_CONFIG_GLOBAL, no_global.clone()),
            ]),
        )
        .unwrap()
        .snapshot()
        .unwrap();
        assert_eq!(on.get_str("qwen-memory.autoCommit").unwrap(), "true");
        let off = open_with(
            Some(&repo),
            env_of(vec![
                (ENV_CONFIG_SYSTEM, system),
                (ENV_CONFIG_NOSYSTEM, PathBuf::from("true")),
                (ENV_CONFIG_GLOBAL, no_global),
            ]),
        )
        .unwrap()
        .snapshot()
        .unwrap();
        assert!(off.get_str("qwen-memory.autoCommit").is_err());
    }

    #[test]
    fn a_missing_or_special_file_is_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let repo = repo_with(dir.path(), "[core]\n\trepositoryformatversion = 0\n");
        let env = env_of(vec![
            (ENV_CONFIG_GLOBAL, dir.path().join("missing")),
            (ENV_CONFIG_SYSTEM, PathBuf::from("/dev/null")),
        ]);
        let config = open_with(Some(&repo), env).unwrap().snapshot().unwrap();
        assert!(config.get_str("qwen-memory.autoCommit").is_err());
        assert_eq!(config.get_i32("core.repositoryformatversion").unwrap(), 0);
    }

    #[test]
    fn git_booleans() {
        for t in ["1", "true", "YES", "on", "2"] {
            assert!(is_true(t), "{t}");
        }
        for f in ["0", "false", "no", "off", "", "maybe"] {
            assert!(!is_true(f), "{f}");
        }
    }
}
