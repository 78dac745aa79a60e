//! Project identity and paths (docs/DESIGN.md, "Roots and paths").
//!
//! A project is the working tree of the Git repository around the current directory (a linked
//! worktree is its own project). Its key is the root path with every UTF-16 unit outside
//! `[A-Za-z0-9]` replaced by `-`, exactly as Qwen Code keys its project folders, so both tools
//! find the same private memory.

use std::env;
use std::path::{Component, Path, PathBuf};

use crate::scan::Scope;

/// Environment variable naming the memory base directory (default: Qwen Code's runtime base).
pub const ENV_BASE_DIR: &str = "QWEN_CODE_MEMORY_BASE_DIR";
/// Environment variable selecting the project scope (`git-root` or `workspace`).
pub const ENV_PROJECT_SCOPE: &str = "QWEN_CODE_MEMORY_PROJECT_SCOPE";

/// Errors identifying a project.
#[derive(Debug, thiserror::Error)]
pub enum ProjectError {
    #[error("cannot read the current directory: {0}")]
    CurrentDir(std::io::Error),
    #[error("{0} is a bare repository: it has no working tree to keep memory for")]
    BareRepository(PathBuf),
    #[error("no home directory found; set {ENV_BASE_DIR}")]
    NoHome,
    #[error("not a directory: {0}")]
    NotADirectory(PathBuf),
    #[error("not a git repository (or any of the parent directories): {0}\nhint: set {ENV_PROJECT_SCOPE}=workspace to use this directory as the project anyway")]
    NotARepository(PathBuf),
}

/// How the project key is derived.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProjectScope {
    /// Key by the Git working-tree root (the default).
    GitRoot,
    /// Key by the exact current directory.
    Workspace,
}

impl ProjectScope {
    /// Reads `QWEN_CODE_MEMORY_PROJECT_SCOPE`: trimmed and lowercased; unknown values fall back
    /// to `git-root`, and the caller gets the raw value back so it can warn once.
    pub fn from_env_value(raw: Option<&str>) -> (ProjectScope, Option<String>) {
        let Some(raw) = raw else {
            return (ProjectScope::GitRoot, None);
        };
        match raw.trim().to_lowercase().as_str() {
            "" | "git-root" => (ProjectScope::GitRoot, None),
            "workspace" => (ProjectScope::Workspace, None),
            _ => (ProjectScope::GitRoot, Some(raw.to_string())),
        }
    }
}

/// The identified project.
#[derive(Debug, Clone)]
pub struct Project {
    /// The working-tree root (or the current directory outside a repository, or in workspace
    /// scope the exact current directory).
    pub root: PathBuf,
    /// The working-tree root of the repository, if any (independent of the scope).
    pub worktree: Option<PathBuf>,
    /// The sanitized key naming `<base>/projects/<key>/`.
    pub key: String,
    /// The per-worktree git dir (`.git`, or `.git/worktrees/<name>` for a linked worktree).
    pub git_dir: Option<PathBuf>,
    /// The git dir shared by all worktrees.
    pub common_dir: Option<PathBuf>,
    /// A scope value that was not understood (to warn about).
    pub scope_warning: Option<String>,
    /// How the key was derived.
    pub scope: ProjectScope,
}

/// The repository Git finds around a directory, as plain data (found by
/// `integrations::git::discover`, the one owner of Git access).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiscoveredRepo {
    /// The per-worktree git dir.
    pub git_dir: PathBuf,
    /// The git dir shared by all worktrees.
    pub common_dir: PathBuf,
    /// The working tree (`None` for a bare repository).
    pub workdir: Option<PathBuf>,
    pub bare: bool,
}

impl Project {
    /// Identifies the project around `cwd`, in `repo` (the repository Git finds from `cwd`).
    pub fn discover(
        cwd: &Path,
        scope_env: Option<&str>,
        repo: Option<DiscoveredRepo>,
    ) -> Result<Project, ProjectError> {
        let cwd = absolutize(cwd).map_err(ProjectError::CurrentDir)?;
        if !cwd.is_dir() {
            return Err(ProjectError::NotADirectory(cwd));
        }
        let (scope, scope_warning) = ProjectScope::from_env_value(scope_env);
        let (worktree, git_dir, common_dir) = match &repo {
            Some(repo) if repo.bare => {
                return Err(ProjectError::BareRepository(repo.git_dir.clone()));
            }
            Some(repo) => {
                let workdir = repo.workdir.as_deref().map(|w| lexical_worktree(&cwd, w));
                (
                    workdir,
                    Some(trim_trailing_slash(&repo.git_dir)),
                    Some(trim_trailing_slash(&repo.common_dir)),
                )
            }
            None => (None, None, None),
        };
        let root = match scope {
            ProjectScope::Workspace => cwd.clone(),
            ProjectScope::GitRoot => worktree.clone().unwrap_or_else(|| cwd.clone()),
        };
        let key = sanitize_key(&root.to_string_lossy());
        Ok(Project {
            root,
            worktree,
            key,
            git_dir,
            common_dir,
            scope_warning,
            scope,
        })
    }

    /// Refuses, as git does, a project that is no Git repository, unless the workspace scope
    /// asked for the directory to be the project. Commands a person runs that write call this;
    /// agent hooks do not (for them the directory is the project, as in Qwen Code).
    pub fn require_repository(&self) -> Result<(), ProjectError> {
        if self.worktree.is_none() && self.scope != ProjectScope::Workspace {
            return Err(ProjectError::NotARepository(self.root.clone()));
        }
        Ok(())
    }
}

/// Qwen Code's project-key sanitizer: every UTF-16 code unit outside `[A-Za-z0-9]` becomes `-`,
/// so a character outside the BMP becomes `--`. No collapsing, no truncation.
pub fn sanitize_key(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for c in path.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c);
        } else {
            for _ in 0..c.len_utf16() {
                out.push('-');
            }
        }
    }
    out
}

/// Tilde expansion (`~`, `~/rest`) and resolution against `cwd`, lexically normalized.
pub fn expand_path(value: &str, cwd: &Path) -> PathBuf {
    let home = dirs::home_dir();
    let expanded = match (value, &home) {
        ("~", Some(h)) => h.clone(),
        (v, Some(h)) if v.starts_with("~/") => h.join(&v[2..]),
        (v, _) => PathBuf::from(v),
    };
    if expanded.is_absolute() {
        expanded
    } else {
        normalize_lexically(&cwd.join(expanded))
    }
}

/// Removes `.` and resolves `..` without touching the file system (as Node's `path.resolve`).
pub fn normalize_lexically(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for comp in path.components() {
        match comp {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// True when `path` lies inside `root` (or is `root`), compared lexically after normalization.
pub fn is_inside(path: &Path, root: &Path) -> bool {
    normalize_lexically(path).starts_with(normalize_lexically(root))
}

fn absolutize(cwd: &Path) -> std::io::Result<PathBuf> {
    if cwd.is_absolute() {
        Ok(normalize_lexically(cwd))
    } else {
        Ok(normalize_lexically(&env::current_dir()?.join(cwd)))
    }
}

fn trim_trailing_slash(p: &Path) -> PathBuf {
    p.components().collect()
}

/// Prefers the spelling of the working-tree root as seen from `cwd` (an ancestor of `cwd`
/// holding `.git`), as upstream walks up lexically; git2 may report a canonicalized spelling
/// that would give a different key when the path goes through a symlink.
fn lexical_worktree(cwd: &Path, workdir: &Path) -> PathBuf {
    let workdir = trim_trailing_slash(workdir);
    let canonical_workdir = workdir.canonicalize().unwrap_or_else(|_| workdir.clone());
    for dir in cwd.ancestors() {
        if dir.join(".git").exists() {
            let same = dir
                .canonicalize()
                .map(|c| c == canonical_workdir)
                .unwrap_or(false);
            if same {
                return dir.to_path_buf();
            }
            break;
        }
    }
    workdir
}

/// One memory root and where its state lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Root {
    pub scope: Scope,
    /// The directory trusted as given (it may be reached through symlinks the user set up):
    /// every component from here down to `path` and below is opened without following a
    /// symlink, so a repository cannot redirect writes (see docs/DESIGN.md, "Writes"). The
    /// working tree for repository and team roots, the state dir for the private root, the
    /// root itself for the user root (a dotfiles link there is the user's own).
    pub anchor: PathBuf,
    /// The memory directory itself (holds topic files and `MEMORY.md`), `anchor` or below it.
    pub path: PathBuf,
    /// Where `meta.json`, the cursor, locks, logs and backups for this root live: always
    /// outside `path`, so state is never committed with repository memory.
    pub state_dir: PathBuf,
    /// The mutation lock every writer of this root takes.
    pub lock_path: PathBuf,
}

impl Root {
    /// A root whose state (and mutation lock) lives in `state_dir`.
    pub fn new(scope: Scope, anchor: PathBuf, path: PathBuf, state_dir: PathBuf) -> Root {
        Root {
            scope,
            anchor,
            path,
            lock_path: state_dir.join(crate::store::ROOT_LOCK_FILE),
            state_dir,
        }
    }
}

/// The repository memory directory (`Scope::Repository`), relative to the working-tree root.
pub const REPOSITORY_MEMORY_DIR: &str = ".qwen/memory";
/// Qwen Code's team memory directory (`Scope::Team`), relative to the working-tree root.
pub const TEAM_MEMORY_DIR: &str = ".qwen/team-memory";
/// The shared roots' directories, relative to the working-tree root: the only places the merge
/// driver, `commit` and `sync` act on.
pub const SHARED_MEMORY_DIRS: [&str; 2] = [REPOSITORY_MEMORY_DIR, TEAM_MEMORY_DIR];

/// Every root of a project (docs/DESIGN.md, "Roots and paths").
#[derive(Debug, Clone)]
pub struct Layout {
    pub base: PathBuf,
    pub local: bool,
    /// `<base>/projects/<key>/memory/`.
    pub private: Root,
    /// `<worktree>/.qwen/memory/`, when there is a working tree (or a directory outside Git).
    pub repository: Root,
    /// `<base>/memories/`.
    pub user: Root,
    /// `<worktree>/.qwen/team-memory/`: Qwen Code's shared tier, written only by a person
    /// (`remember --scope team`, `forget --scope team`) and merges, never by extract or dream.
    pub team: Root,
    /// When set, recall reads only these roots (the Qwen recall hook leaves out the roots Qwen
    /// Code recalls by itself).
    pub recall_only: Option<Vec<Scope>>,
}

impl Layout {
    /// Computes every root of `project` for the given base dir and mode.
    pub fn new(project: &Project, base: PathBuf, local: bool) -> Layout {
        let private_state = base.join("projects").join(&project.key);
        let private = Root {
            scope: Scope::Private,
            anchor: private_state.clone(),
            path: private_state.join("memory"),
            lock_path: private_state.join(crate::store::ROOT_LOCK_FILE),
            state_dir: private_state.clone(),
        };
        let repo_state = repo_state_for(project, &private_state);
        let repository = Root {
            scope: Scope::Repository,
            anchor: project.root.clone(),
            path: project.root.join(REPOSITORY_MEMORY_DIR),
            lock_path: repo_state.join(crate::store::ROOT_LOCK_FILE),
            state_dir: repo_state,
        };
        let user = Root {
            scope: Scope::User,
            anchor: base.join("memories"),
            path: base.join("memories"),
            lock_path: base.join("user-memory.lock"),
            state_dir: base.join("user-memory-state"),
        };
        // Team state shares the per-worktree git dir with local mode but has its own lock, so a
        // person writing team memory never waits for an extraction of the repository root.
        let team_state = repo_state_for(project, &private_state).join("team");
        let team = Root {
            scope: Scope::Team,
            anchor: project.root.clone(),
            path: project.root.join(TEAM_MEMORY_DIR),
            lock_path: team_state.join(crate::store::ROOT_LOCK_FILE),
            state_dir: team_state,
        };
        Layout {
            recall_only: None,
            team,
            base,
            local,
            private,
            repository,
            user,
        }
    }

    /// The root that extract, dream, forget and project-scoped remember write to.
    pub fn writable(&self) -> &Root {
        if self.local {
            &self.repository
        } else {
            &self.private
        }
    }

    /// Roots recall reads, in scan order: repository, private, team, user. The repository root
    /// is read whenever it exists, even outside local mode (it is shared through commits).
    pub fn recall_roots(&self) -> Vec<(Scope, &Path)> {
        let mut roots = vec![
            (Scope::Repository, self.repository.path.as_path()),
            (Scope::Private, self.private.path.as_path()),
            (Scope::Team, self.team.path.as_path()),
            (Scope::User, self.user.path.as_path()),
        ];
        if let Some(only) = &self.recall_only {
            roots.retain(|(s, _)| only.contains(s));
        }
        roots
    }

    /// The root a scope writes to.
    pub fn root_for(&self, scope: Scope) -> &Root {
        match scope {
            Scope::Repository => &self.repository,
            Scope::Private => &self.private,
            Scope::User => &self.user,
            Scope::Team => &self.team,
        }
    }
}

/// Local-mode state lives in the per-worktree git dir so it is never committed; outside Git it
/// falls back to the private state dir.
fn repo_state_for(project: &Project, private_state: &Path) -> PathBuf {
    project
        .git_dir
        .as_ref()
        .map(|g| g.join("qwen-memory"))
        .unwrap_or_else(|| private_state.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sanitize_matches_upstream_examples() {
        assert_eq!(sanitize_key("/home/u/my_proj.v2"), "-home-u-my-proj-v2");
        assert_eq!(
            sanitize_key("/Users/bing/-Code-/CCTV_Admin"),
            "-Users-bing--Code--CCTV-Admin"
        );
        assert_eq!(sanitize_key("/a/é"), "-a--");
        assert_eq!(sanitize_key("/a/e\u{301}"), "-a-e-");
        assert_eq!(sanitize_key("/x/😀"), "-x---");
    }

    #[test]
    fn scope_values() {
        assert_eq!(
            ProjectScope::from_env_value(Some("  Workspace  ")).0,
            ProjectScope::Workspace
        );
        assert_eq!(
            ProjectScope::from_env_value(Some("")),
            (ProjectScope::GitRoot, None)
        );
        let (s, w) = ProjectScope::from_env_value(Some("exact"));
        assert_eq!(s, ProjectScope::GitRoot);
        assert_eq!(w.as_deref(), Some("exact"));
    }

    #[test]
    fn expand_and_normalize() {
        let cwd = Path::new("/work/x");
        assert_eq!(expand_path("rel/../m", cwd), PathBuf::from("/work/x/m"));
        assert_eq!(expand_path("/abs", cwd), PathBuf::from("/abs"));
        assert!(is_inside(Path::new("/a/b/../b/c"), Path::new("/a/b")));
        assert!(!is_inside(Path::new("/a/bc"), Path::new("/a/b")));
    }
}
