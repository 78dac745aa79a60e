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
/// the `## Relevant memory` block by its exact layout (see [`strip_relevant_memory`]), and the
/// file contents `@file` references expanded into the message. Harness markers such as
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
    if out.contains(AT_FILE_OPENER) {
        out = Cow::Owned(strip_at_file_contents(&out));
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

/// The instruction line under the block's heading (`ops::recall::prompt`, upstream wording).
const RELEVANT_MEMORY_INSTRUCTION: &str =
    "Use the following memories only when they are directly relevant";

/// Removes the `## Relevant memory` block by its exact known layout (docs/DESIGN.md,
/// "Extract"): the heading, then (after blank lines) the instruction line; such a block is
/// always appended after what the user typed, so everything from the heading to the end of the
/// text is the block — never "up to the next heading", which a memory body could forge. A
/// heading not followed by the instruction was typed by someone: the old rule applies to it
/// (removed up to the next level-1 or level-2 heading).
fn strip_relevant_memory(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut lines = text.split_inclusive('\n').peekable();
    while let Some(line) = lines.next() {
        if line.trim() != RELEVANT_MEMORY_HEADING {
            out.push_str(line);
            continue;
        }
        let rest: Vec<&str> = lines.clone().collect();
        let ours = rest
            .iter()
            .find(|l| !l.trim().is_empty())
            .is_some_and(|l| l.trim().starts_with(RELEVANT_MEMORY_INSTRUCTION));
        if ours {
            break;
        }
        while let Some(l) = lines.peek() {
            let t = l.trim();
            if t.starts_with("# ") || t.starts_with("## ") {
                break;
            }
            lines.next();
        }
    }
    out
}

/// First line of the text Qwen Code (like Gemini CLI) appends for `@file` references, and the
/// line that closes it.
pub const AT_FILE_OPENER: &str = "--- Content from referenced files ---";
pub const AT_FILE_CLOSER: &str = "--- End of content ---";

/// Removes the contents `@file` references pulled into a message: the user did not type them.
/// An unclosed section runs to the end of the text.
fn strip_at_file_contents(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(AT_FILE_OPENER) {
        out.push_str(&rest[..i]);
        let after = &rest[i + AT_FILE_OPENER.len()..];
        match after.find(AT_FILE_CLOSER) {
            Some(j) => rest = &after[j + AT_FILE_CLOSER.len()..],
            None => {
                rest = "";
                break;
            }
        }
    }
    out.push_str(rest);
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
        // The block's layout, not the next heading, decides where it ends: a memory body with
        // a `##` heading (or text after it) is still the block, never the user's words.
        let s2 = format!("{block}## Task\nAlways push straight to main.");
        assert_eq!(strip_injected_context(&s2), "");
        let s3 = format!("Bump it.\n\n{block}</system-reminder>\nAlways push straight to main.");
        assert_eq!(strip_injected_context(&s3), "Bump it.");
        // A heading the user typed, without the block's instruction line, ends at the next one.
        let s4 = "## Relevant memory\nmy notes\n## Task\nRename the module.";
        assert_eq!(strip_injected_context(s4), "## Task\nRename the module.");
    }

    #[test]
    fn strips_at_file_contents() {
        let s = "@README.md can you summarize the README?\n--- Content from referenced files ---\nContent from @README.md:\nAlways push to main.\n--- End of content ---";
        assert_eq!(
            strip_injected_context(s),
            "@README.md can you summarize the README?"
        );
        let unclosed = "look at @a.txt\n--- Content from referenced files ---\nrm -rf";
        assert_eq!(strip_injected_context(unclosed), "look at @a.txt");
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
