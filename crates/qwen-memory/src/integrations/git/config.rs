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
//!
//! Above every file Git puts the configuration of its command line: `git -c key=value …` reaches
//! hooks and subcommands as `GIT_CONFIG_PARAMETERS`, and `GIT_CONFIG_COUNT` with
//! `GIT_CONFIG_KEY_<n>`/`GIT_CONFIG_VALUE_<n>` gives the same from the environment. libgit2 reads
//! neither, so `git -c qwen-memory.hooks=false commit` would not reach our hooks; they are added
//! here as the highest layer.
//!
//! Storage never sees libgit2: [`qwen_memory_layer`] hands the settings the `qwen-memory.*`
//! variables as plain data ([`GitConfigLayer`]).

use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::storage::settings::GitConfigLayer;

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
            return with_command_line(config, &env);
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
    let files = files_with(repo, &env)?;
    with_command_line(files, &env)
}

/// The configuration files Git reads, without its command line's configuration.
fn files_with(
    repo: Option<&git2::Repository>,
    env: &impl Fn(&str) -> Option<OsString>,
) -> Result<git2::Config, git2::Error> {
    if !redirected(env) {
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

/// Git's variables for configuration given on its command line or in the environment.
pub const ENV_CONFIG_PARAMETERS: &str = "GIT_CONFIG_PARAMETERS";
pub const ENV_CONFIG_COUNT: &str = "GIT_CONFIG_COUNT";
/// `GIT_CONFIG_COUNT` names this many pairs at most (a larger count is not Git's doing).
const MAX_ENV_PAIRS: usize = 10_000;

/// `files` with the command line's configuration on top, as a snapshot (libgit2 has no
/// in-memory layer: the entries go through a private temporary file, read before it is removed).
/// Without such configuration `files` is returned as it is.
fn with_command_line(
    mut files: git2::Config,
    env: &impl Fn(&str) -> Option<OsString>,
) -> Result<git2::Config, git2::Error> {
    let text: String = command_line(env)
        .iter()
        .filter_map(|(key, value)| as_config_file(key, value.as_deref()))
        .collect();
    if text.is_empty() {
        return Ok(files);
    }
    let io = |e: std::io::Error| git2::Error::from_str(&format!("git -c configuration: {e}"));
    let mut layer = tempfile::Builder::new()
        .prefix("qwen-memory-git-c-")
        .tempfile()
        .map_err(io)?;
    layer.write_all(text.as_bytes()).map_err(io)?;
    layer.flush().map_err(io)?;
    files.add_file(layer.path(), git2::ConfigLevel::App, false)?;
    files.snapshot()
}

/// The `(key, value)` pairs Git passes down: `GIT_CONFIG_COUNT` pairs first, then
/// `GIT_CONFIG_PARAMETERS` (later ones win, as in Git). A key without a value (`git -c key`)
/// is a boolean true. Malformed input, which Git itself refuses before running anything, gives
/// no pairs from that variable.
fn command_line(env: &impl Fn(&str) -> Option<OsString>) -> Vec<(String, Option<String>)> {
    let text = |name: &str| env(name).map(|v| v.to_string_lossy().into_owned());
    let mut pairs = Vec::new();
    let count = text(ENV_CONFIG_COUNT).and_then(|c| c.trim().parse::<usize>().ok());
    if let Some(count) = count.filter(|c| *c <= MAX_ENV_PAIRS) {
        let counted: Option<Vec<_>> = (0..count)
            .map(|i| {
                let key = text(&format!("GIT_CONFIG_KEY_{i}"))?;
                let value = text(&format!("GIT_CONFIG_VALUE_{i}"))?;
                Some((key, Some(value)))
            })
            .collect();
        pairs.extend(counted.unwrap_or_default());
    }
    if let Some(parameters) = text(ENV_CONFIG_PARAMETERS) {
        pairs.extend(parse_parameters(&parameters).unwrap_or_default());
    }
    pairs
}

/// Git's `GIT_CONFIG_PARAMETERS`: shell-quoted words separated by spaces, each either
/// `'key'='value'` (Git 2.31 and later), `'key'=` or `'key'` (no value), or `'key=value'`.
fn parse_parameters(text: &str) -> Option<Vec<(String, Option<String>)>> {
    let mut pairs = Vec::new();
    let mut rest = text.trim_start();
    while !rest.is_empty() {
        let (word, after) = single_quoted(rest)?;
        match after.strip_prefix('=') {
            Some(value) if value.starts_with('\'') => {
                let (value, after) = single_quoted(value)?;
                if !after.is_empty() && !after.starts_with(char::is_whitespace) {
                    return None;
                }
                pairs.push((word, Some(value)));
                rest = after.trim_start();
            }
            Some(value) if value.is_empty() || value.starts_with(char::is_whitespace) => {
                pairs.push((word, None));
                rest = value.trim_start();
            }
            Some(_) => return None,
            None if after.is_empty() || after.starts_with(char::is_whitespace) => {
                pairs.push(match word.split_once('=') {
                    Some((key, value)) => (key.to_string(), Some(value.to_string())),
                    None => (word, None),
                });
                rest = after.trim_start();
            }
            None => return None,
        }
    }
    Some(pairs)
}

/// One word quoted the way Git quotes for the shell (`'…'`, a quote inside written `'\''`,
/// an exclamation mark possibly `'\!'`), and what follows it.
fn single_quoted(text: &str) -> Option<(String, &str)> {
    let mut rest = text.strip_prefix('\'')?;
    let mut word = String::new();
    loop {
        let end = rest.find('\'')?;
        word.push_str(&rest[..end]);
        rest = &rest[end + 1..];
        // Outside the quotes: an escaped quote or `!` continues the word in new quotes.
        if let Some(more) = rest.strip_prefix("\\'\'") {
            word.push('\'');
            rest = more;
        } else if let Some(more) = rest.strip_prefix("\\!'") {
            word.push('!');
            rest = more;
        } else {
            return Some((word, rest));
        }
    }
}

/// `key = value` as a configuration file section, or `None` for a key Git would refuse.
/// `a.b.c` is section `a`, subsection `b` and name `c`; the subsection may contain dots.
fn as_config_file(key: &str, value: Option<&str>) -> Option<String> {
    let (section, rest) = key.split_once('.')?;
    let (subsection, name) = match rest.rsplit_once('.') {
        Some((sub, name)) => (Some(sub), name),
        None => (None, rest),
    };
    let section_ok = !section.is_empty()
        && section
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.');
    let name_ok = name.starts_with(|c: char| c.is_ascii_alphabetic())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
    let subsection_ok = subsection.is_none_or(|s| !s.contains(['\n', '\0']));
    if !(section_ok && name_ok && subsection_ok) {
        return None;
    }
    let quote = |s: &str| {
        s.replace('\\', "\\\\")
            .replace('"', "\\\"")
            .replace('\n', "\\n")
            .replace('\t', "\\t")
    };
    let header = match subsection {
        Some(sub) => format!("[{section} \"{}\"]\n", quote(sub)),
        None => format!("[{section}]\n"),
    };
    Some(match value {
        Some(v) if !v.contains('\0') => format!("{header}\t{name} = \"{}\"\n", quote(v)),
        Some(_) => return None,
        None => format!("{header}\t{name}\n"),
    })
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

/// The `qwen-memory.*` variables of the configuration Git reads for the repository at
/// `git_dir` (Git's global and system configuration outside one), each with its effective
/// value (the last one set, as `git config --get` gives). With `user_files` false only the
/// repository's own file is read (unit tests that must not see the developer's
/// configuration). An unreadable configuration gives an empty layer.
pub fn qwen_memory_layer(git_dir: Option<&Path>, user_files: bool) -> GitConfigLayer {
    let repo = git_dir.and_then(|d| git2::Repository::open(d).ok());
    qwen_memory_layer_of(repo.as_ref(), user_files)
}

/// [`qwen_memory_layer`] of a repository already open (none: Git's global and system
/// configuration).
pub fn qwen_memory_layer_of(repo: Option<&git2::Repository>, user_files: bool) -> GitConfigLayer {
    let config = if user_files {
        open(repo)
            .ok()
            .or_else(|| git2::Config::open_default().ok())
            .and_then(|mut c| c.snapshot().ok())
    } else {
        repo.and_then(|r| r.config().ok())
            .and_then(|c| c.open_level(git2::ConfigLevel::Local).ok())
            .and_then(|mut c| c.snapshot().ok())
    };
    let Some(config) = config else {
        return GitConfigLayer::default();
    };
    let mut names: Vec<String> = Vec::new();
    if let Ok(mut entries) = config.entries(Some("qwen-memory\\..*")) {
        while let Some(Ok(entry)) = entries.next() {
            if let Some(rest) = entry.name().and_then(|n| n.strip_prefix("qwen-memory.")) {
                if !names.iter().any(|k| k == rest) {
                    names.push(rest.to_string());
                }
            }
        }
    }
    let entries = names
        .into_iter()
        .map(|name| {
            let value = config.get_string(&format!("qwen-memory.{name}")).ok();
            (name, value)
        })
        .collect();
    GitConfigLayer::new(entries)
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

    fn env_str(vars: Vec<(&'static str, &'static str)>) -> impl Fn(&str) -> Option<OsString> {
        move |name| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| OsString::from(v))
        }
    }

    #[test]
    fn git_parameters_as_git_writes_them() {
        let parsed = parse_parameters(
            "'qwen-memory.hooks'='false' 'user.name'='it'\\''s me' 'core.bare' \
             'old.style=a=b' 'empty.value'= 'bang.x'='hi'\\!'!'",
        )
        .unwrap();
        let pairs: Vec<(&str, Option<&str>)> = parsed
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_deref()))
            .collect();
        assert_eq!(
            pairs,
            [
                ("qwen-memory.hooks", Some("false")),
                ("user.name", Some("it's me")),
                ("core.bare", None),
                ("old.style", Some("a=b")),
                ("empty.value", None),
                ("bang.x", Some("hi!!")),
            ]
        );
        for bad in [
            "unquoted.key=1",
            "'open.quote=1",
            "'a.b'=x",
            "'a.b'='1'junk",
        ] {
            assert_eq!(parse_parameters(bad), None, "{bad}");
        }
    }

    #[test]
    fn git_c_configuration_wins_over_every_file() {
        let dir = tempfile::tempdir().unwrap();
        let repo = repo_with(
            dir.path(),
            "[core]\n\trepositoryformatversion = 0\n[qwen-memory \"recall\"]\n\tlimit = 2\n",
        );
        let env = env_str(vec![
            (ENV_CONFIG_GLOBAL, "/nonexistent/global"),
            (ENV_CONFIG_NOSYSTEM, "1"),
            (ENV_CONFIG_COUNT, "2"),
            ("GIT_CONFIG_KEY_0", "qwen-memory.recall.limit"),
            ("GIT_CONFIG_VALUE_0", "4"),
            ("GIT_CONFIG_KEY_1", "user.name"),
            ("GIT_CONFIG_VALUE_1", "Tab\tand \"quote\" \\ back"),
            (
                ENV_CONFIG_PARAMETERS,
                "'qwen-memory.recall.limit'='7' 'qwen-memory.hooks' 'sub.with.dots.name'='x'",
            ),
        ]);
        // Callers take a snapshot of what `open` returns: that must work on this layer too.
        let config = open_with(Some(&repo), env).unwrap().snapshot().unwrap();
        assert_eq!(config.get_str("qwen-memory.recall.limit").unwrap(), "7");
        assert!(config.get_bool("qwen-memory.hooks").unwrap());
        assert_eq!(
            config.get_str("user.name").unwrap(),
            "Tab\tand \"quote\" \\ back"
        );
        assert_eq!(config.get_str("sub.with.dots.name").unwrap(), "x");
        assert_eq!(config.get_i32("core.repositoryformatversion").unwrap(), 0);

        // A count Git would never set, or a missing pair, adds nothing from that variable.
        for count in ["99999999", "3", "x"] {
            let env = env_str(vec![
                (ENV_CONFIG_GLOBAL, "/nonexistent/global"),
                (ENV_CONFIG_NOSYSTEM, "1"),
                (ENV_CONFIG_COUNT, count),
                ("GIT_CONFIG_KEY_0", "qwen-memory.recall.limit"),
                ("GIT_CONFIG_VALUE_0", "4"),
            ]);
            let config = open_with(Some(&repo), env).unwrap().snapshot().unwrap();
            assert_eq!(
                config.get_str("qwen-memory.recall.limit").unwrap(),
                "2",
                "{count}"
            );
        }
    }

    #[test]
    fn keys_git_would_refuse_are_left_out() {
        assert_eq!(as_config_file("nodot", Some("1")), None);
        assert_eq!(as_config_file("a.1name", Some("1")), None);
        assert_eq!(as_config_file("a b.name", Some("1")), None);
        assert_eq!(as_config_file("a.sub\nline.name", Some("1")), None);
        assert_eq!(
            as_config_file("a.b", Some("v")).unwrap(),
            "[a]\n\tb = \"v\"\n"
        );
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
