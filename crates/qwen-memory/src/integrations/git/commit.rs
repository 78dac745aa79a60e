//! The commit helper (docs/DESIGN.md, "Git integration"): commits only the repository memory directory's additions,
//! edits and deletions, with a generated message, leaving every other staged and unstaged
//! change exactly as it was.
//!
//! The new tree is HEAD's tree with the memory directory replaced by its working-tree
//! content, built in an in-memory index; the real index is then updated for memory paths only.
//! When commit signing is configured, the `git` CLI makes the commit (`git commit --only`), so
//! the user's signing setup applies.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde::Serialize;

use super::{GitError, SecretHit};
use crate::formats::doc::{self, MemoryType};
use crate::storage::context::Context;
use crate::storage::safe_fs;
use crate::storage::store::StoreError;

/// How a memory file changed relative to HEAD.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ChangeStatus {
    Added,
    Modified,
    Deleted,
}

impl ChangeStatus {
    fn symbol(self) -> char {
        match self {
            ChangeStatus::Added => '+',
            ChangeStatus::Modified => '~',
            ChangeStatus::Deleted => '-',
        }
    }
}

/// One changed memory file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FileChange {
    pub status: ChangeStatus,
    /// Path relative to the working-tree root, `/`-separated.
    pub path: String,
    /// The memory type of the document, when it is one.
    #[serde(rename = "type")]
    pub memory_type: Option<String>,
}

/// How the commit was made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CommitMethod {
    /// Nothing to commit.
    None,
    Git2,
    /// The `git` CLI, because commit signing is configured.
    GitCli,
}

/// The result of [`commit_memory`].
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CommitOutcome {
    /// The new commit id; `None` when there was nothing to commit.
    pub commit: Option<String>,
    pub message: String,
    pub changes: Vec<FileChange>,
    pub method: CommitMethod,
}

/// A file of the memory directory as it is in the working tree.
struct WorkFile {
    content: Vec<u8>,
    mode: i32,
}

const MODE_FILE: i32 = 0o100644;
const MODE_EXEC: i32 = 0o100755;

/// Commits the changes of the shared memory directories, `.qwen/memory/` and
/// `.qwen/team-memory/` (docs/DESIGN.md, "Git integration"). `message` replaces the
/// generated subject; the body naming the files is always added. Refuses during a merge,
/// rebase, cherry-pick or revert, when the memory directory is not the one of this working
/// tree, and when a changed file holds a secret.
pub fn commit_memory(ctx: &Context, message: Option<&str>) -> Result<CommitOutcome, GitError> {
    let repo = super::open_repo(ctx)?;
    let workdir = repo.workdir().ok_or(GitError::Bare)?.to_path_buf();
    refuse_in_progress(&repo)?;
    // Both shared memory directories: the repository root and Qwen Code's team root.
    let mut prefixes = Vec::new();
    for memory in [&ctx.layout.repository.path, &ctx.layout.team.path] {
        prefixes.push((memory.clone(), relative_prefix(&workdir, memory)?));
    }
    let prefix_of = |path: &str| -> &str {
        prefixes
            .iter()
            .map(|(_, p)| p.as_str())
            .find(|p| path.starts_with(&format!("{p}/")))
            .unwrap_or("")
    };

    let head_commit = match repo.head() {
        Ok(h) => Some(h.peel_to_commit()?),
        Err(e)
            if e.code() == git2::ErrorCode::UnbornBranch
                || e.code() == git2::ErrorCode::NotFound =>
        {
            None
        }
        Err(e) => return Err(e.into()),
    };
    let head_tree = head_commit.as_ref().map(|c| c.tree()).transpose()?;
    refuse_submodules(&repo, head_tree.as_ref(), &prefixes)?;
    // Sharing memory is when a root gets the `.gitignore` that keeps its generated index out of
    // Git (hooks never write it; docs/DESIGN.md, "Git integration").
    for root in [&ctx.layout.repository, &ctx.layout.team] {
        if fs::symlink_metadata(&root.path).is_ok_and(|m| m.is_dir()) {
            crate::storage::root_writer::RootWriter::lock(root)?.ensure_index_ignored()?;
        }
    }
    let mut head_files = BTreeMap::new();
    let mut work = BTreeMap::new();
    let mut links = BTreeSet::new();
    for (memory, prefix) in &prefixes {
        if let Some(tree) = &head_tree {
            head_files.extend(tree_files(&repo, tree, prefix)?);
        }
        work.extend(work_files(memory, prefix, &mut links)?);
    }
    // A file Git ignores is not a change, as for `git add -A`: an untracked file that a
    // `.gitignore` names (personal notes, an editor's swap file) is never committed. A file
    // already in HEAD or in the index stays tracked (Git commits it whatever the ignore rules).
    let staged = repo.index()?;
    let mut ignored = Vec::new();
    for path in work.keys() {
        let tracked =
            head_files.contains_key(path) || staged.get_path(Path::new(path), 0).is_some();
        if !tracked && repo.is_path_ignored(Path::new(path))? {
            ignored.push(path.clone());
        }
    }
    for path in &ignored {
        work.remove(path);
    }
    let work_files = work;

    let mut changes = Vec::new();
    for (path, wf) in &work_files {
        let oid = git2::Oid::hash_object(git2::ObjectType::Blob, &wf.content)?;
        let status = match head_files.get(path) {
            Some((head_oid, head_mode)) if *head_oid == oid && *head_mode == wf.mode => continue,
            Some(_) => ChangeStatus::Modified,
            None => ChangeStatus::Added,
        };
        changes.push(FileChange {
            status,
            path: path.clone(),
            memory_type: memory_type_of(path, &wf.content, prefix_of(path)),
        });
    }
    for (path, (oid, _)) in &head_files {
        // A symlink in the working tree is never committed, and never read as a deletion
        // either: a teammate's committed link (or a file someone replaced by one) is left as
        // HEAD has it.
        if !work_files.contains_key(path) && !links.contains(path) {
            let content = repo
                .find_blob(*oid)
                .map(|b| b.content().to_vec())
                .unwrap_or_default();
            changes.push(FileChange {
                status: ChangeStatus::Deleted,
                path: path.clone(),
                memory_type: memory_type_of(path, &content, prefix_of(path)),
            });
        }
    }
    changes.sort_by(|a, b| a.path.cmp(&b.path));
    if changes.is_empty() {
        return Ok(CommitOutcome {
            commit: None,
            message: String::new(),
            changes,
            method: CommitMethod::None,
        });
    }

    // A file left with conflict markers (e.g. by a conflicted `git stash pop`, which leaves no
    // merge in progress) is an unresolved merge, never something to commit.
    let conflicted = changes
        .iter()
        .filter(|c| c.status != ChangeStatus::Deleted)
        .find_map(|c| {
            let file = work_files.get(&c.path)?;
            crate::formats::doc::conflict_marker_line(&String::from_utf8_lossy(&file.content))
                .map(|line| (c.path.clone(), line))
        });
    if let Some((path, line)) = conflicted {
        return Err(GitError::Refused(format!(
            "{path} holds unresolved merge conflict markers (line {line}); resolve them first"
        )));
    }

    // The pre-commit guard's hidden-character checks (docs/security.md): this commit path does
    // not run Git's hooks. A name first: it is what `git status` and a review list show.
    let hidden_name = changes
        .iter()
        .filter(|c| c.status != ChangeStatus::Deleted)
        .find_map(|c| {
            crate::formats::sanitize::hidden_in_name(&c.path).map(|what| (c.path.clone(), what))
        });
    if let Some((path, what)) = hidden_name {
        return Err(GitError::Refused(format!(
            "{}: {what}, which a reviewer cannot see; rename the file",
            crate::formats::sanitize::escape_for_terminal(&path)
        )));
    }
    let hidden = changes
        .iter()
        .filter(|c| c.status != ChangeStatus::Deleted)
        .find_map(|c| {
            let file = work_files.get(&c.path)?;
            let old = head_tree
                .as_ref()
                .and_then(|t| t.get_path(Path::new(&c.path)).ok())
                .and_then(|e| repo.find_blob(e.id()).ok())
                .map(|b| String::from_utf8_lossy(b.content()).into_owned());
            let found = crate::formats::sanitize::newly_hidden(
                old.as_deref(),
                &String::from_utf8_lossy(&file.content),
            );
            found.first().map(|f| (c.path.clone(), *f, found.len()))
        });
    if let Some((path, first, n)) = hidden {
        return Err(GitError::Refused(format!(
            "{path} holds hidden characters a reviewer cannot see: {first}{}; remove them (`git qwen-memory check` lists each one)",
            if n > 1 { format!(" (and {} more)", n - 1) } else { String::new() }
        )));
    }

    let hits: Vec<SecretHit> = changes
        .iter()
        .filter(|c| c.status != ChangeStatus::Deleted)
        .filter_map(|c| {
            let rule_ids = super::secret_rule_ids(&c.path, &work_files.get(&c.path)?.content);
            (!rule_ids.is_empty()).then(|| SecretHit {
                path: c.path.clone(),
                rule_ids,
            })
        })
        .collect();
    if !hits.is_empty() {
        return Err(GitError::Secret(hits));
    }

    let message = commit_message(message, &changes);
    let signing = super::config::open(Some(&repo))?
        .snapshot()?
        .get_bool("commit.gpgsign")
        .unwrap_or(false);
    if signing {
        let paths: Vec<&str> = prefixes.iter().map(|(_, p)| p.as_str()).collect();
        let id = commit_with_cli(&workdir, &paths, &message)?;
        return Ok(CommitOutcome {
            commit: Some(id),
            message,
            changes,
            method: CommitMethod::GitCli,
        });
    }

    let mut index = git2::Index::new()?;
    if let Some(tree) = &head_tree {
        index.read_tree(tree)?;
    }
    for change in &changes {
        let path = Path::new(&change.path);
        match work_files.get(&change.path) {
            None => index.remove_path(path)?,
            Some(wf) => {
                let oid = repo.blob(&wf.content)?;
                index.add(&index_entry(&change.path, oid, wf.mode, wf.content.len()))?;
            }
        }
    }
    let tree_id = index.write_tree_to(&repo)?;
    let tree = repo.find_tree(tree_id)?;
    let author = signature(&repo, "AUTHOR")?;
    let committer = signature(&repo, "COMMITTER")?;
    let parents: Vec<&git2::Commit> = head_commit.iter().collect();
    let id = repo.commit(Some("HEAD"), &author, &committer, &message, &tree, &parents)?;

    // The real index follows the new commit for memory paths only; every other staged entry
    // stays as the user left it.
    let mut real = repo.index()?;
    for change in &changes {
        let path = Path::new(&change.path);
        if change.status == ChangeStatus::Deleted {
            let _ = real.remove_path(path);
        } else {
            real.add_path(path)?;
        }
    }
    real.write()?;
    Ok(CommitOutcome {
        commit: Some(id.to_string()),
        message,
        changes,
        method: CommitMethod::Git2,
    })
}

/// The author or committer as Git would take it: `GIT_<ROLE>_NAME` / `_EMAIL` from the
/// environment, else `user.name` / `user.email` from the config.
fn signature(repo: &git2::Repository, role: &str) -> Result<git2::Signature<'static>, GitError> {
    let env = |k: &str| {
        std::env::var(format!("GIT_{role}_{k}"))
            .ok()
            .filter(|v| !v.is_empty())
    };
    let config = super::config::open(Some(repo))?.snapshot()?;
    let name = env("NAME").or_else(|| config.get_string("user.name").ok());
    let email = env("EMAIL").or_else(|| config.get_string("user.email").ok());
    match (name, email) {
        (Some(n), Some(e)) => Ok(git2::Signature::now(&n, &e)?),
        _ => Err(GitError::Refused(
            "no identity to commit with: set user.name and user.email (git config)".into(),
        )),
    }
}

/// A memory directory that is a submodule (a gitlink in HEAD or the index, or a `.git` of its
/// own) belongs to another repository: committing its files here would replace the gitlink
/// with a directory. Refused, as `git add` refuses to add files inside a submodule.
fn refuse_submodules(
    repo: &git2::Repository,
    head_tree: Option<&git2::Tree>,
    prefixes: &[(PathBuf, String)],
) -> Result<(), GitError> {
    let index = repo.index()?;
    for (memory, prefix) in prefixes {
        let in_head = head_tree
            .and_then(|t| t.get_path(Path::new(prefix)).ok())
            .is_some_and(|e| e.kind() == Some(git2::ObjectType::Commit));
        let in_index = index
            .get_path(Path::new(prefix), 0)
            .is_some_and(|e| e.mode == 0o160000);
        let own_git = fs::symlink_metadata(memory.join(".git")).is_ok();
        if in_head || in_index || own_git {
            return Err(GitError::Refused(format!(
                "{prefix} is a submodule (a repository of its own): commit its memory inside it \
                 (cd {prefix} && git commit), then commit the new submodule state here"
            )));
        }
    }
    Ok(())
}

fn refuse_in_progress(repo: &git2::Repository) -> Result<(), GitError> {
    use git2::RepositoryState as S;
    let what = match repo.state() {
        S::Clean | S::Bisect => return Ok(()),
        S::Merge => "merge",
        S::Revert | S::RevertSequence => "revert",
        S::CherryPick | S::CherryPickSequence => "cherry-pick",
        S::Rebase | S::RebaseInteractive | S::RebaseMerge => "rebase",
        S::ApplyMailbox | S::ApplyMailboxOrRebase => "git am",
    };
    Err(GitError::InProgress(what))
}

/// The memory directory relative to the working-tree root, `/`-separated.
fn relative_prefix(workdir: &Path, memory: &Path) -> Result<String, GitError> {
    let canon = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
    let workdir_c = canon(workdir);
    // The memory directory may not exist yet; canonicalize its parent chain that does.
    let memory_c = match memory.canonicalize() {
        Ok(p) => p,
        Err(_) => {
            let mut existing = memory.to_path_buf();
            let mut tail = Vec::new();
            while !existing.exists() {
                match (existing.file_name(), existing.parent()) {
                    (Some(name), Some(parent)) => {
                        tail.push(name.to_os_string());
                        existing = parent.to_path_buf();
                    }
                    _ => break,
                }
            }
            let mut p = canon(&existing);
            for seg in tail.into_iter().rev() {
                p.push(seg);
            }
            p
        }
    };
    let mismatch = || GitError::RootMismatch {
        memory: memory.to_path_buf(),
        worktree: workdir.to_path_buf(),
    };
    let rel = memory_c.strip_prefix(&workdir_c).map_err(|_| mismatch())?;
    let parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.is_empty() {
        return Err(mismatch());
    }
    Ok(parts.join("/"))
}

/// Files under `prefix` in a tree: path → (blob id, mode).
fn tree_files(
    repo: &git2::Repository,
    tree: &git2::Tree,
    prefix: &str,
) -> Result<BTreeMap<String, (git2::Oid, i32)>, GitError> {
    let mut out = BTreeMap::new();
    let sub = match tree.get_path(Path::new(prefix)) {
        Ok(e) if e.kind() == Some(git2::ObjectType::Tree) => repo.find_tree(e.id())?,
        _ => return Ok(out),
    };
    sub.walk(git2::TreeWalkMode::PreOrder, |dir, entry| {
        if entry.kind() == Some(git2::ObjectType::Blob) {
            if let Some(name) = entry.name() {
                out.insert(
                    format!("{prefix}/{dir}{name}"),
                    (entry.id(), entry.filemode()),
                );
            }
        }
        git2::TreeWalkResult::Ok
    })?;
    Ok(out)
}

/// Regular files under the memory directory (symlinks and the store's temporary files are
/// left out): repository path → content and mode. The paths of symlinks found are added to
/// `links`.
fn work_files(
    memory: &Path,
    prefix: &str,
    links: &mut BTreeSet<String>,
) -> Result<BTreeMap<String, WorkFile>, GitError> {
    let mut out = BTreeMap::new();
    match fs::symlink_metadata(memory) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => {
            return Err(GitError::Refused(format!(
                "{} is not a directory (a symlinked memory directory is never committed)",
                memory.display()
            )))
        }
        Err(_) => return Ok(out),
    }
    let mut stack: Vec<(PathBuf, String)> = vec![(memory.to_path_buf(), prefix.to_string())];
    while let Some((dir, rel)) = stack.pop() {
        let entries = fs::read_dir(&dir).map_err(|e| GitError::io(&dir, e))?;
        for entry in entries {
            let entry = entry.map_err(|e| GitError::io(&dir, e))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let path = entry.path();
            let meta = fs::symlink_metadata(&path).map_err(|e| GitError::io(&path, e))?;
            let rel_path = format!("{rel}/{name}");
            if rel == prefix && name == crate::storage::store::INDEX_FILE {
                // The generated index is never committed (docs/DESIGN.md, "Git integration").
                continue;
            }
            if meta.file_type().is_symlink() {
                links.insert(rel_path);
            } else if meta.is_dir() {
                if name != ".git" {
                    stack.push((path, rel_path));
                }
            } else if meta.is_file() && !(name.starts_with('.') && name.ends_with(".tmp")) {
                // Read without following a link swapped in since the listing, or blocking on
                // a FIFO; a file gone meanwhile is simply not committed.
                let Some(content) = safe_fs::read_regular(&path).map_err(StoreError::from)? else {
                    continue;
                };
                let mode = if meta.permissions().mode() & 0o111 != 0 {
                    MODE_EXEC
                } else {
                    MODE_FILE
                };
                out.insert(rel_path, WorkFile { content, mode });
            }
        }
    }
    Ok(out)
}

fn index_entry(path: &str, id: git2::Oid, mode: i32, size: usize) -> git2::IndexEntry {
    let zero = git2::IndexTime::new(0, 0);
    git2::IndexEntry {
        ctime: zero,
        mtime: zero,
        dev: 0,
        ino: 0,
        mode: mode as u32,
        uid: 0,
        gid: 0,
        file_size: size as u32,
        id,
        flags: path.len().min(0xfff) as u16,
        flags_extended: 0,
        path: path.as_bytes().to_vec(),
    }
}

/// The memory type of a changed file: from its frontmatter, else from a type-named top
/// directory; `None` for MEMORY.md and other files.
fn memory_type_of(path: &str, content: &[u8], prefix: &str) -> Option<String> {
    let rel = path.strip_prefix(prefix)?.trim_start_matches('/');
    if rel == crate::storage::store::INDEX_FILE {
        return None;
    }
    if let Ok(d) = doc::parse_document(&String::from_utf8_lossy(content)) {
        return Some(d.memory_type.as_str().to_string());
    }
    let top = rel.split('/').next()?;
    MemoryType::parse(top).map(|t| t.as_str().to_string())
}

/// `memory: +2 feedback, ~1 project, -1 reference`, then a body naming every file.
pub fn commit_message(subject: Option<&str>, changes: &[FileChange]) -> String {
    let subject = match subject.map(str::trim).filter(|s| !s.is_empty()) {
        Some(s) => s.to_string(),
        None => generated_subject(changes),
    };
    let mut out = subject;
    out.push_str("\n\n");
    for c in changes {
        out.push(c.status.symbol());
        out.push(' ');
        out.push_str(&c.path);
        out.push('\n');
    }
    out
}

fn generated_subject(changes: &[FileChange]) -> String {
    let mut counts: Vec<String> = Vec::new();
    for status in [
        ChangeStatus::Added,
        ChangeStatus::Modified,
        ChangeStatus::Deleted,
    ] {
        let mut per_type: BTreeMap<usize, (String, usize)> = BTreeMap::new();
        for c in changes.iter().filter(|c| c.status == status) {
            let Some(t) = &c.memory_type else { continue };
            let order = MemoryType::parse(t)
                .and_then(|mt| MemoryType::ALL.iter().position(|x| *x == mt))
                .unwrap_or(MemoryType::ALL.len());
            per_type.entry(order).or_insert_with(|| (t.clone(), 0)).1 += 1;
        }
        for (t, n) in per_type.into_values() {
            counts.push(format!("{}{n} {t}", status.symbol()));
        }
    }
    if counts.is_empty() {
        "memory: update index".to_string()
    } else {
        format!("memory: {}", counts.join(", "))
    }
}

/// `git add -A -- <memory>` then `git commit --only -- <memory>`: the CLI path for signed
/// commits. `--only` commits the working-tree content of those paths and leaves other staged
/// changes staged.
fn commit_with_cli(workdir: &Path, prefixes: &[&str], message: &str) -> Result<String, GitError> {
    // A directory that does not exist in the work tree nor in HEAD would make `git add` fail.
    let present: Vec<&str> = prefixes
        .iter()
        .copied()
        .filter(|p| {
            workdir.join(p).exists()
                || run_git(workdir, &["ls-tree", "-d", "HEAD", "--", p])
                    .is_ok_and(|o| !o.trim().is_empty())
        })
        .collect();
    let mut add = vec!["add", "-A", "--"];
    add.extend(&present);
    run_git(workdir, &add)?;
    let mut commit = vec!["commit", "--only", "-q", "-m", message, "--"];
    commit.extend(&present);
    run_git(workdir, &commit)?;
    Ok(run_git(workdir, &["rev-parse", "HEAD"])?.trim().to_string())
}

fn run_git(dir: &Path, args: &[&str]) -> Result<String, GitError> {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env_remove("GIT_INDEX_FILE")
        .output()
        .map_err(|e| GitError::io(Path::new("git"), e))?;
    if !out.status.success() {
        return Err(GitError::Cli {
            args: args.join(" "),
            message: String::from_utf8_lossy(&out.stderr).trim().to_string(),
        });
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Commits the memory directory's changes when local mode and `qwen-memory.autoCommit` are
/// both on (docs/DESIGN.md, "Git integration"); `None` when auto-commit does not apply. Writers call this after they
/// changed files, and report a failure without undoing their write.
pub fn auto_commit(ctx: &Context) -> Option<Result<CommitOutcome, GitError>> {
    let applies = ctx.layout.local
        && ctx.settings.bool(crate::storage::settings::Key::AutoCommit)
        && ctx.project.git_dir.is_some();
    applies.then(|| commit_memory(ctx, None))
}

/// What the auto-commit after a change did, as the changing command reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AutoCommit {
    /// The new commit id; `None` when there was nothing to commit or the commit failed.
    pub commit: Option<String>,
    /// The first line of its message.
    pub subject: Option<String>,
    /// Why the memory was saved but not committed.
    pub error: Option<String>,
}

/// [`auto_commit`] as a report: `None` when auto-commit does not apply.
pub fn auto_commit_report(ctx: &Context) -> Option<AutoCommit> {
    Some(match auto_commit(ctx)? {
        Ok(out) => AutoCommit {
            subject: out
                .commit
                .as_ref()
                .map(|_| out.message.lines().next().unwrap_or("").to_string()),
            commit: out.commit,
            error: None,
        },
        Err(e) => AutoCommit {
            commit: None,
            subject: None,
            error: Some(e.to_string()),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn change(status: ChangeStatus, path: &str, t: Option<&str>) -> FileChange {
        FileChange {
            status,
            path: path.into(),
            memory_type: t.map(str::to_string),
        }
    }

    #[test]
    fn generated_message_counts_by_change_and_type() {
        let changes = vec![
            change(
                ChangeStatus::Added,
                ".qwen/memory/feedback/a.md",
                Some("feedback"),
            ),
            change(
                ChangeStatus::Added,
                ".qwen/memory/feedback/b.md",
                Some("feedback"),
            ),
            change(
                ChangeStatus::Modified,
                ".qwen/memory/project/c.md",
                Some("project"),
            ),
            change(
                ChangeStatus::Deleted,
                ".qwen/memory/reference/d.md",
                Some("reference"),
            ),
            change(ChangeStatus::Modified, ".qwen/memory/MEMORY.md", None),
        ];
        let msg = commit_message(None, &changes);
        let mut lines = msg.lines();
        assert_eq!(
            lines.next(),
            Some("memory: +2 feedback, ~1 project, -1 reference")
        );
        assert_eq!(lines.next(), Some(""));
        assert!(msg.contains("\n+ .qwen/memory/feedback/a.md\n"));
        assert!(msg.contains("\n- .qwen/memory/reference/d.md\n"));
        assert!(msg.contains("\n~ .qwen/memory/MEMORY.md\n"));
        assert_eq!(
            commit_message(Some("docs: memory"), &changes)
                .lines()
                .next(),
            Some("docs: memory")
        );
        let only_index = vec![change(
            ChangeStatus::Modified,
            ".qwen/memory/MEMORY.md",
            None,
        )];
        assert!(commit_message(None, &only_index).starts_with("memory: update index\n"));
    }

    #[test]
    fn types_come_from_frontmatter_or_directory() {
        let p = ".qwen/memory";
        assert_eq!(
            memory_type_of(
                ".qwen/memory/x/a.md",
                b"---\nname: A\ntype: feedback\n---\n\nx\n",
                p
            )
            .as_deref(),
            Some("feedback")
        );
        assert_eq!(
            memory_type_of(".qwen/memory/user/a.md", b"garbage", p).as_deref(),
            Some("user")
        );
        assert_eq!(memory_type_of(".qwen/memory/MEMORY.md", b"", p), None);
    }
}
