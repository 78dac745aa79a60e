//! Scanning memory roots for topic documents (reference qwen-storage §4).

use std::path::PathBuf;

use crate::doc::MemoryType;

/// Which root a document came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scope {
    /// `<worktree>/.qwen/memory/` (local mode), committed with the repository.
    Repository,
    /// `<base>/projects/<key>/memory/`.
    Private,
    /// `<worktree>/.qwen/team-memory/` (read-only here).
    Team,
    /// `<base>/memories/`.
    User,
}

impl Scope {
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Repository => "repository",
            Scope::Private => "private",
            Scope::Team => "team",
            Scope::User => "user",
        }
    }
}

/// A topic document found by a scan.
#[derive(Debug, Clone, PartialEq)]
pub struct ScannedDoc {
    pub scope: Scope,
    pub memory_type: MemoryType,
    /// Absolute path of the file.
    pub path: PathBuf,
    /// Path relative to its root, with `/` separators.
    pub relative_path: String,
    pub title: String,
    pub description: String,
    /// LF-normalized, trimmed body.
    pub body: String,
    /// Modification time in milliseconds since the epoch.
    pub mtime_ms: f64,
    /// Scalar frontmatter keys other than name/title/description/type, in file order.
    pub extra: Vec<(String, String)>,
}
