//! Removing context that an agent or this tool injected into a user message, so extraction
//! never re-learns its own memories or harness boilerplate (docs/DESIGN.md, "Extract").

use std::borrow::Cow;

/// Tag-delimited blocks that are injected, never typed: agent reminders, Qwen's hook-context
/// wrapper, Claude's older hook-output wrapper, and Claude's slash-command / shell-mode
/// wrappers (command name, arguments and captured output are not statements by the user).
const INJECTED_TAGS: &[&str] = &[
    "system-reminder",
    "qwen:user-prompt-submit-context",
    "user-prompt-submit-hook",
    "command-name",
    "command-message",
    "command-args",
    "command-contents",
    "local-command-stdout",
    "local-command-stderr",
    "local-command-caveat",
    "bash-input",
    "bash-stdout",
    "bash-stderr",
];

/// Whole-message markers the Claude harness writes as if the user had typed them.
const HARNESS_MARKERS: &[&str] = &[
    "[Request interrupted by user]",
    "[Request interrupted by user for tool use]",
];

/// First line of the block `recall` prints (and the hook injects).
pub const RELEVANT_MEMORY_HEADING: &str = "## Relevant memory";

/// Strips injected context from `text` and trims the result.
///
/// Removed: `<tag>…</tag>` blocks for the tags above (an opening tag without its closing tag
/// is left alone: a harness always closes its tags, so an unclosed one was typed by the user),
/// and the `## Relevant memory` block from its heading line up to the next level-1 or level-2
/// heading, or to the end of the text when none follows. Harness markers such as
/// `[Request interrupted by user]` become empty.
pub fn strip_injected_context(text: &str) -> String {
    let mut out: Cow<'_, str> = Cow::Borrowed(text);
    if out.contains('<') {
        for tag in INJECTED_TAGS {
            if let Some(stripped) = strip_tag(&out, tag) {
                out = Cow::Owned(stripped);
            }
        }
    }
    if out.contains(RELEVANT_MEMORY_HEADING) {
        out = Cow::Owned(strip_relevant_memory(&out));
    }
    let trimmed = out.trim();
    if HARNESS_MARKERS.contains(&trimmed) {
        return String::new();
    }
    trimmed.to_owned()
}

/// Removes every closed `<tag …>…</tag>` block; `None` when nothing was removed.
fn strip_tag(text: &str, tag: &str) -> Option<String> {
    let open = format!("<{tag}");
    let close = format!("</{tag}>");
    let mut out = String::new();
    let mut rest = text;
    let mut changed = false;
    while let Some(i) = rest.find(&open) {
        let after = &rest[i + open.len()..];
        // `<command-name` must not match `<command-names>`.
        if !(after.starts_with('>') || after.starts_with(char::is_whitespace)) {
            out.push_str(&rest[..i + open.len()]);
            rest = after;
            continue;
        }
        match after.find(&close) {
            Some(j) => {
                out.push_str(&rest[..i]);
                rest = &after[j + close.len()..];
                changed = true;
            }
            None => break,
        }
    }
    if !changed {
        return None;
    }
    out.push_str(rest);
    Some(out)
}

fn strip_relevant_memory(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut skipping = false;
    for line in text.split_inclusive('\n') {
        let t = line.trim();
        if t == RELEVANT_MEMORY_HEADING {
            skipping = true;
            continue;
        }
        if skipping {
            // Documents inside the block use `###`; a `#`/`##` heading starts something else.
            if t.starts_with("# ") || t.starts_with("## ") {
                skipping = false;
            } else {
                continue;
            }
        }
        out.push_str(line);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_system_reminder_blocks() {
        let s = "Use tabs.<system-reminder>\nToday is Monday.\n</system-reminder> Always.";
        assert_eq!(strip_injected_context(s), "Use tabs. Always.");
        let only =
            "<system-reminder>ctx</system-reminder>\n\n<system-reminder>more</system-reminder>";
        assert_eq!(strip_injected_context(only), "");
    }

    #[test]
    fn strips_qwen_hook_context() {
        let s = "Why does CI fail?\n<qwen:user-prompt-submit-context>\n## Relevant memory\n\nuse pnpm\n</qwen:user-prompt-submit-context>";
        assert_eq!(strip_injected_context(s), "Why does CI fail?");
    }

    #[test]
    fn strips_claude_command_wrappers() {
        let s = "<command-name>/clear</command-name>\n<command-message>clear</command-message>\n<command-args></command-args>";
        assert_eq!(strip_injected_context(s), "");
        let out = "<local-command-stdout>Cleared</local-command-stdout>";
        assert_eq!(strip_injected_context(out), "");
        assert_eq!(strip_injected_context("<bash-input>ls</bash-input>"), "");
        assert_eq!(
            strip_injected_context("[Request interrupted by user for tool use]"),
            ""
        );
    }

    #[test]
    fn strips_relevant_memory_block_to_next_heading_or_end() {
        let block = "## Relevant memory\n\nUse the following memories only when they are directly relevant.\n\n### Deploy (project/deploy.md)\nSaved today.\nDeploy from release branches.\n\n- only release/*\n";
        let s = format!("Please bump the version.\n\n{block}");
        assert_eq!(strip_injected_context(&s), "Please bump the version.");
        let s2 = format!("{block}## Task\nRename the module.");
        assert_eq!(strip_injected_context(&s2), "## Task\nRename the module.");
    }

    #[test]
    fn leaves_unclosed_and_lookalike_tags() {
        let s = "The hook emits a <system-reminder> tag, right?";
        assert_eq!(strip_injected_context(s), s);
        let s2 = "<command-names>x</command-names>";
        assert_eq!(strip_injected_context(s2), s2);
    }

    #[test]
    fn plain_text_is_only_trimmed() {
        assert_eq!(
            strip_injected_context("  We deploy only from release branches.\n"),
            "We deploy only from release branches."
        );
    }
}
