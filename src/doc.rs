//! Topic documents: YAML frontmatter plus a body of entries (SPEC §4.1, reference qwen-storage §3).

use std::fmt;

/// The four memory types. Case-sensitive on disk: `Project` is not a type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MemoryType {
    User,
    Feedback,
    Project,
    Reference,
}

impl MemoryType {
    pub const ALL: [MemoryType; 4] = [
        MemoryType::User,
        MemoryType::Feedback,
        MemoryType::Project,
        MemoryType::Reference,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            MemoryType::User => "user",
            MemoryType::Feedback => "feedback",
            MemoryType::Project => "project",
            MemoryType::Reference => "reference",
        }
    }

    /// Exact, case-sensitive match, as upstream.
    pub fn parse(s: &str) -> Option<MemoryType> {
        MemoryType::ALL.into_iter().find(|t| t.as_str() == s)
    }
}

impl fmt::Display for MemoryType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One memory entry of a body: a summary line with optional `Why:` / `How to apply:`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Entry {
    pub summary: String,
    pub why: Option<String>,
    pub how_to_apply: Option<String>,
}

/// A parsed topic document.
#[derive(Debug, Clone, PartialEq)]
pub struct TopicDocument {
    /// The frontmatter text between the fences, LF-normalized, exactly as in the file, so a
    /// rewrite keeps every key (known or not) byte for byte.
    pub frontmatter: String,
    pub memory_type: MemoryType,
    /// `name`, else `title`, else the type.
    pub title: String,
    /// `description` or empty.
    pub description: String,
    /// Text after the frontmatter, LF-normalized and trimmed.
    pub body: String,
    /// Top-level frontmatter keys other than name/title/description/type whose value is a
    /// scalar, stringified, in file order (provenance keys `created`, `session`, `commit`, and
    /// upstream's `category`, …).
    pub extra: Vec<(String, String)>,
}

/// Why a file is not a memory document.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DocError {
    #[error("no frontmatter at the start of the file")]
    NoFrontmatter,
    #[error("frontmatter could not be parsed")]
    MalformedFrontmatter,
    #[error("missing or unknown type")]
    InvalidType,
}

/// Parses a topic document. CRLF is read as LF.
pub fn parse_document(_text: &str) -> Result<TopicDocument, DocError> {
    todo!("doc helper")
}

/// Parses body entries as upstream's entries.ts does (reference qwen-storage §3.6).
pub fn parse_entries(_body: &str) -> Vec<Entry> {
    todo!("doc helper")
}

/// Renders entries; no entries renders `_No entries yet._`. No trailing newline.
pub fn render_body(_entries: &[Entry]) -> String {
    todo!("doc helper")
}

/// `---\n<frontmatter>\n---\n\n<rendered body>\n`.
pub fn render_document(_frontmatter: &str, _entries: &[Entry]) -> String {
    todo!("doc helper")
}
