//! Did the latest turn write into a memory root itself? (docs/DESIGN.md, "Extract"
//! step 1). If it did, extraction skips with `memory_tool`.

use std::path::PathBuf;

use super::{Message, Role};

/// Write tools of Qwen Code (compared case-insensitively).
const QWEN_WRITE_TOOLS: &[&str] = &["write_file", "edit", "replace", "create_file"];
/// Write tools of Claude Code (exact names).
const CLAUDE_WRITE_TOOLS: &[&str] = &["Write", "Edit", "MultiEdit", "NotebookEdit"];

/// Whether `name` is a file-writing tool of either agent.
pub fn is_write_tool(name: &str) -> bool {
    CLAUDE_WRITE_TOOLS.contains(&name)
        || QWEN_WRITE_TOOLS
            .iter()
            .any(|t| t.eq_ignore_ascii_case(name))
}

/// The tool names an agent gives the tool server's `remember` (docs/mcp.md): Claude Code and
/// Qwen Code `mcp__qwen-memory__remember`, Gemini CLI `qwen-memory__remember` or the bare
/// `remember` with the server name elsewhere, Codex `qwen-memory.remember`.
pub fn is_memory_server_remember(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    [
        "qwen-memory__remember",
        "qwen-memory.remember",
        "qwen_memory__remember",
    ]
    .iter()
    .any(|suffix| n.ends_with(suffix))
}

/// True when an assistant message in `messages` called the tool server's `remember` and the
/// call did not fail.
pub fn called_memory_server_remember(messages: &[Message]) -> bool {
    messages
        .iter()
        .filter(|m| m.role == Role::Assistant)
        .flat_map(|m| &m.tool_calls)
        .any(|c| c.succeeded != Some(false) && is_memory_server_remember(&c.name))
}

/// True when the latest turn (the messages after the last user message, or all messages when
/// there is none) holds a write tool call that succeeded (`succeeded == Some(true)`) and whose
/// path lies inside one of `roots`.
///
/// Containment is lexical: `.` and `..` are resolved without touching the file system, `\` is
/// read as `/` (Windows transcripts), the root itself counts as inside and a sibling such as
/// `memory-old` next to `memory` does not. Relative tool paths were already resolved against
/// the record's `cwd` by the reader; one that is still relative matches nothing.
pub fn latest_turn_wrote_memory(messages: &[Message], roots: &[PathBuf]) -> bool {
    let start = messages
        .iter()
        .rposition(|m| m.role == Role::User)
        .map_or(0, |i| i + 1);
    let roots: Vec<Vec<String>> = roots
        .iter()
        .filter_map(|r| lexical_components(&r.to_string_lossy()))
        .collect();
    if roots.is_empty() {
        return false;
    }
    messages[start..]
        .iter()
        .filter(|m| m.role == Role::Assistant)
        .flat_map(|m| &m.tool_calls)
        .filter(|call| call.succeeded == Some(true) && is_write_tool(&call.name))
        .flat_map(|call| &call.paths)
        .filter_map(|p| lexical_components(p))
        .any(|path| roots.iter().any(|root| path.starts_with(root)))
}

/// Components of an absolute path after lexical normalisation; `None` for a relative path.
/// A Windows drive prefix (`C:`) becomes the first component, lowercased.
pub(super) fn lexical_components(path: &str) -> Option<Vec<String>> {
    let unified = path.replace('\\', "/");
    let bytes = unified.as_bytes();
    let (first, rest) = if let Some(rest) = unified.strip_prefix('/') {
        (None, rest)
    } else if bytes.len() >= 3 && bytes[0].is_ascii_alphabetic() && &bytes[1..3] == b":/" {
        (Some(unified[..2].to_ascii_lowercase()), &unified[3..])
    } else {
        return None;
    };
    let mut out: Vec<String> = first.into_iter().collect();
    let floor = out.len();
    for part in rest.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                if out.len() > floor {
                    out.pop();
                }
            }
            other => out.push(other.to_owned()),
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lexical_normalisation() {
        assert_eq!(
            lexical_components("/a/./b/../c//d/"),
            Some(vec!["a".to_owned(), "c".to_owned(), "d".to_owned()])
        );
        assert_eq!(lexical_components("/../x"), Some(vec!["x".to_owned()]));
        assert_eq!(
            lexical_components("C:\\Users\\me\\..\\mem"),
            Some(vec!["c:".to_owned(), "Users".to_owned(), "mem".to_owned()])
        );
        assert_eq!(lexical_components("rel/path"), None);
    }

    #[test]
    fn write_tool_names() {
        assert!(is_write_tool("write_file"));
        assert!(is_write_tool("Edit"));
        assert!(is_write_tool("NotebookEdit"));
        assert!(!is_write_tool("read_file"));
        assert!(!is_write_tool("Read"));
        assert!(!is_write_tool("manage_memory"));
    }
}
