//! Git integration (docs/DESIGN.md, "Git integration"): hook shims in the hooks directory Git really uses, local mode
//! (repository memory shared through commits), the commit helper and the merge driver.
//!
//! Everything here talks to Git through git2, except where only the `git` CLI can do the job
//! (signed commits, the textual fallback of the merge driver, reading Git's version).

pub mod commit;
pub mod config;
pub mod indexes;
pub mod merge;
pub mod provenance;
pub mod repo;
pub mod shims;
pub mod sync;
pub mod trust;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde::Serialize;

use crate::storage::context::Context;

/// The repository memory directory, relative to the working-tree root.
pub const MEMORY_DIR: &str = crate::storage::project::REPOSITORY_MEMORY_DIR;
/// The name of the merge driver in `.gitattributes` and `merge.<name>.driver`.
pub const MERGE_DRIVER: &str = "qwen-memory";
/// The `.gitattributes` lines routing memory documents (repository and team memory) to the
/// merge driver.
pub const ATTRIBUTES_LINES: [&str; 2] = [
    ".qwen/memory/**/*.md merge=qwen-memory",
    ".qwen/team-memory/**/*.md merge=qwen-memory",
];
/// The command Git runs for the merge driver. `%X` / `%Y` (Git >= 2.44) name the branches in
/// conflict markers; an older Git passes them through unexpanded and the driver asks the
/// environment instead.
pub const MERGE_DRIVER_COMMAND: &str =
    "git qwen-memory merge-file %O %A %B %P --marker-size=%L --ours-label=%X --theirs-label=%Y";

/// Failures of Git operations.
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    #[error("not inside a Git repository")]
    NoRepository,
    #[error("the repository has no working tree")]
    Bare,
    #[error(transparent)]
    Git2(#[from] git2::Error),
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("a {0} is in progress; finish or abort it first")]
    InProgress(&'static str),
    #[error("the memory directory {memory} is not inside the working tree {worktree}")]
    RootMismatch { memory: PathBuf, worktree: PathBuf },
    #[error("refusing to commit: {}", describe_secrets(.0))]
    Secret(Vec<SecretHit>),
    #[error("git {args}: {message}")]
    Cli { args: String, message: String },
    #[error("{0}")]
    Refused(String),
    #[error(transparent)]
    Store(#[from] crate::storage::store::StoreError),
    #[error(transparent)]
    Root(#[from] crate::storage::root_writer::RootError),
}

impl GitError {
    pub(crate) fn io(path: &Path, source: std::io::Error) -> GitError {
        GitError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}

/// A memory file the secret scanner flagged: its path and the rule ids, never the value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SecretHit {
    pub path: String,
    pub rule_ids: Vec<String>,
}

fn describe_secrets(hits: &[SecretHit]) -> String {
    hits.iter()
        .map(|h| {
            format!(
                "{} looks like it holds a secret ({})",
                h.path,
                h.rule_ids.join(", ")
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// The rule ids the scanner finds in a memory file about to be committed: its path and its
/// content (lossy UTF-8), sorted and deduplicated. A file in the repository is one a person
/// wrote or reviewed, so a `qwen-memory:allow` line counts in the content (never in the path).
pub fn secret_rule_ids(path: &str, bytes: &[u8]) -> Vec<String> {
    use crate::formats::secrets::{rule_ids_in, Origin};
    let text = String::from_utf8_lossy(bytes);
    let mut ids = rule_ids_in([text.as_ref()], Origin::Person);
    ids.extend(rule_ids_in([path], Origin::Machine));
    ids.sort();
    ids.dedup();
    ids
}

/// The Git operation in progress in a (per-worktree) git dir, read from the state files Git
/// keeps while it runs: `rebase-merge/`, `rebase-apply/` (rebase or `am`), `MERGE_HEAD`,
/// `CHERRY_PICK_HEAD`, `REVERT_HEAD`, `sequencer/` (a multi-commit pick or revert),
/// `BISECT_LOG`. A hook never writes a file in the working tree while one is in progress
/// (docs/DESIGN.md, "Git integration"). `ending` names the operations the calling hook ends
/// (post-merge runs before Git removes `MERGE_HEAD`, a rebase's post-rewrite before it removes
/// `rebase-merge/`): its state files do not count. Costs a few `stat`s, no repository open.
pub fn operation_in_progress(git_dir: &Path, ending: &[&str]) -> Option<&'static str> {
    const STATES: [(&str, &str); 8] = [
        ("rebase-merge", "rebase"),
        ("rebase-apply/applying", "am"),
        ("rebase-apply", "rebase"),
        ("MERGE_HEAD", "merge"),
        ("CHERRY_PICK_HEAD", "cherry-pick"),
        ("REVERT_HEAD", "revert"),
        ("sequencer", "cherry-pick"),
        ("BISECT_LOG", "bisect"),
    ];
    STATES
        .iter()
        .filter(|(_, what)| !ending.contains(what))
        .find(|(name, _)| fs::symlink_metadata(git_dir.join(name)).is_ok())
        .map(|(_, what)| *what)
}

/// Opens the repository of the context (the per-worktree git dir).
pub fn open_repo(ctx: &Context) -> Result<git2::Repository, GitError> {
    let git_dir = ctx.project.git_dir.as_ref().ok_or(GitError::NoRepository)?;
    Ok(git2::Repository::open(git_dir)?)
}

/// The version of the `git` on PATH, as (major, minor, patch).
pub fn git_version() -> Option<(u32, u32, u32)> {
    let out = Command::new("git").arg("--version").output().ok()?;
    parse_git_version(&String::from_utf8_lossy(&out.stdout))
}

/// Parses `git version 2.47.3` (also `2.39.2.windows.1`, `2.54.0-rc1`).
pub fn parse_git_version(text: &str) -> Option<(u32, u32, u32)> {
    let v = text.trim().strip_prefix("git version ")?;
    let mut parts = v.split(|c: char| !c.is_ascii_digit());
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next()?.parse().ok()?;
    let patch = parts.next().and_then(|p| p.parse().ok()).unwrap_or(0);
    Some((major, minor, patch))
}

/// What `install --local` did.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LocalOutcome {
    /// `qwen-memory.local` was not already true.
    pub enabled_local_mode: bool,
    /// `.gitattributes` was created or a line was added.
    pub attributes_changed: bool,
    pub attributes_path: String,
    /// The merge driver was registered or updated in the repository config.
    pub driver_registered: bool,
    /// The memory directory was created.
    pub memory_dir: String,
    /// `info/exclude` of the repository.
    pub exclude_path: String,
    /// Lines added to it this time (none when they were all there).
    pub exclude_added: Vec<String>,
}

/// Qwen Code's own state files in its local mode: they sit next to the committed memory in the
/// working tree, so `install --local` keeps them out of commits through `info/exclude` (a
/// per-clone file: nothing committed changes).
pub const QWEN_LOCAL_STATE_FILES: [&str; 5] = [
    ".qwen/meta.json",
    ".qwen/extract-cursor.json",
    ".qwen/consolidation.lock",
    // The generated indexes, also for a history whose memory has no `.gitignore` yet: a hook
    // rebuilds them without ever showing an untracked file.
    "/.qwen/memory/MEMORY.md",
    "/.qwen/team-memory/MEMORY.md",
];

/// Turns on local mode for the repository (docs/DESIGN.md, "Git integration"): `qwen-memory.local=true` in the
/// repository config, the `.gitattributes` line routing memory documents to the merge driver,
/// the driver itself in the repository config, and the memory directory with an empty index.
pub fn install_local(ctx: &Context) -> Result<LocalOutcome, GitError> {
    let repo = open_repo(ctx)?;
    let workdir = repo.workdir().ok_or(GitError::Bare)?.to_path_buf();
    let mut config = repo.config()?.open_level(git2::ConfigLevel::Local)?;
    let mut out = LocalOutcome::default();
    let was_local = config.get_bool("qwen-memory.local").ok().unwrap_or(false);
    if !was_local {
        config.set_bool("qwen-memory.local", true)?;
        out.enabled_local_mode = true;
    }
    let driver_key = format!("merge.{MERGE_DRIVER}.driver");
    if config.get_string(&driver_key).ok().as_deref() != Some(MERGE_DRIVER_COMMAND) {
        config.set_str(
            &format!("merge.{MERGE_DRIVER}.name"),
            "git-qwen-memory: entry-level merge of memory documents",
        )?;
        config.set_str(&driver_key, MERGE_DRIVER_COMMAND)?;
        out.driver_registered = true;
    }
    let attributes = workdir.join(".gitattributes");
    out.attributes_path = attributes.display().to_string();
    out.attributes_changed = ensure_attributes(&attributes)?;
    let exclude = repo.commondir().join("info").join("exclude");
    out.exclude_path = exclude.display().to_string();
    out.exclude_added = ensure_excludes(&exclude, &QWEN_LOCAL_STATE_FILES)?;
    let root = &ctx.layout.repository;
    crate::storage::root_writer::RootWriter::lock(root)?.ensure_scaffold()?;
    out.memory_dir = root.path.display().to_string();
    Ok(out)
}

/// Adds each of `patterns` to the exclude file at `path` unless a line already says exactly
/// that; keeps everything else byte for byte. Returns the lines added.
pub fn ensure_excludes(path: &Path, patterns: &[&str]) -> Result<Vec<String>, GitError> {
    let current = match fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(GitError::io(path, e)),
    };
    let text = String::from_utf8_lossy(&current);
    let missing: Vec<String> = patterns
        .iter()
        .filter(|p| !text.lines().any(|l| l.trim() == **p))
        .map(|p| p.to_string())
        .collect();
    if missing.is_empty() {
        return Ok(missing);
    }
    let mut next = current.clone();
    if !next.is_empty() && !next.ends_with(b"\n") {
        next.push(b'\n');
    }
    next.extend_from_slice(
        b"# Qwen Code's local-mode state files (git qwen-memory install --local).\n",
    );
    for p in &missing {
        next.extend_from_slice(p.as_bytes());
        next.push(b'\n');
    }
    crate::storage::store::atomic_write(path, &next)?;
    Ok(missing)
}

/// Adds the [`ATTRIBUTES_LINES`] a `.gitattributes` file lacks; keeps everything else byte
/// for byte. Returns whether the file changed.
pub fn ensure_attributes(path: &Path) -> Result<bool, GitError> {
    let current = match fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(GitError::io(path, e)),
    };
    let text = String::from_utf8_lossy(&current);
    let missing: Vec<&str> = ATTRIBUTES_LINES
        .iter()
        .copied()
        .filter(|line| !text.lines().any(|l| l.trim() == *line))
        .collect();
    if missing.is_empty() {
        return Ok(false);
    }
    let mut next = current.clone();
    if !next.is_empty() && !next.ends_with(b"\n") {
        next.push(b'\n');
    }
    if missing.len() == ATTRIBUTES_LINES.len() {
        next.extend_from_slice(
            b"# Memory documents of git-qwen-memory merge entry by entry (git qwen-memory install --local).\n",
        );
    }
    for line in missing {
        next.extend_from_slice(line.as_bytes());
        next.push(b'\n');
    }
    crate::storage::store::atomic_write(path, &next)?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn git_versions() {
        assert_eq!(parse_git_version("git version 2.47.3\n"), Some((2, 47, 3)));
        assert_eq!(
            parse_git_version("git version 2.39.2.windows.1"),
            Some((2, 39, 2))
        );
        assert_eq!(parse_git_version("git version 2.54"), Some((2, 54, 0)));
        assert_eq!(parse_git_version("nope"), None);
    }

    #[test]
    fn attributes_are_added_once_and_foreign_lines_kept() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join(".gitattributes");
        fs::write(&p, "*.png binary").unwrap();
        assert!(ensure_attributes(&p).unwrap());
        let text = fs::read_to_string(&p).unwrap();
        assert!(text.starts_with("*.png binary\n#"));
        assert!(text.ends_with(&format!("{}\n", ATTRIBUTES_LINES.join("\n"))));
        assert!(!ensure_attributes(&p).unwrap());
        assert_eq!(fs::read_to_string(&p).unwrap(), text);
        // A file that already routes repository memory gains only the team-memory line.
        fs::write(&p, format!("{}\n", ATTRIBUTES_LINES[0])).unwrap();
        assert!(ensure_attributes(&p).unwrap());
        assert_eq!(
            fs::read_to_string(&p).unwrap(),
            format!("{}\n", ATTRIBUTES_LINES.join("\n"))
        );
    }
}
