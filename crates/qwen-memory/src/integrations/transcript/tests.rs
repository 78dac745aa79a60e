use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde_json::json;

use super::*;

const QWEN_MEM: &str = "/home/alice/.qwen/projects/-home-alice-src-shop/memory";
const CLAUDE_MEM: &str = "/home/alice/src/shop/.qwen/memory";

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/transcripts")
        .join(name)
}

fn read_all(path: &Path) -> ReadOutcome {
    read_transcript(path, 0, Format::Auto).unwrap()
}

/// A writable copy of a fixture in a temp dir.
fn temp_copy(name: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    fs::copy(fixture(name), &path).unwrap();
    (dir, path)
}

fn append(path: &Path, text: &str) {
    let mut f = fs::OpenOptions::new().append(true).open(path).unwrap();
    f.write_all(text.as_bytes()).unwrap();
}

fn texts(out: &ReadOutcome, role: Role) -> Vec<&str> {
    out.messages
        .iter()
        .filter(|m| m.role == role)
        .map(|m| m.text.as_str())
        .collect()
}

fn all_calls(out: &ReadOutcome) -> Vec<&ToolCall> {
    out.messages.iter().flat_map(|m| &m.tool_calls).collect()
}

/// Length of the fixture without its trailing partial line.
fn complete_len(path: &Path) -> u64 {
    let bytes = fs::read(path).unwrap();
    let last_nl = bytes.iter().rposition(|&b| b == b'\n').unwrap();
    assert_ne!(
        last_nl + 1,
        bytes.len(),
        "fixture must end in a partial line"
    );
    (last_nl + 1) as u64
}

fn injected_markers_absent(out: &ReadOutcome) {
    for m in &out.messages {
        for needle in [
            "Relevant memory",
            "Use pnpm, never npm",
            "system-reminder",
            "qwen:user-prompt-submit-context",
            "command-name",
            "local-command",
            "Caveat:",
            "Request interrupted",
            "continued from a previous conversation",
            "Search the repo",
        ] {
            assert!(
                !m.text.contains(needle),
                "{needle:?} leaked into {:?}",
                m.text
            );
        }
    }
}

fn msg(role: Role, text: &str, calls: Vec<ToolCall>) -> Message {
    Message {
        role,
        text: text.to_owned(),
        tool_calls: calls,
        offset: 0,
        session_id: None,
    }
}

fn call(name: &str, path: &str, succeeded: Option<bool>) -> ToolCall {
    ToolCall {
        name: name.to_owned(),
        paths: vec![path.to_owned()],
        succeeded,
    }
}

// ---------------------------------------------------------------- formats and detection

#[test]
fn format_names_round_trip() {
    for f in [Format::Auto, Format::Qwen, Format::Claude, Format::Jsonl] {
        assert_eq!(f.as_str().parse::<Format>().unwrap(), f);
        assert_eq!(f.to_string(), f.as_str());
    }
    assert_eq!(" Claude ".parse::<Format>().unwrap(), Format::Claude);
    assert!("gemini".parse::<Format>().is_err());
}

#[test]
fn qwen_fixture() {
    let path = fixture("qwen.jsonl");
    let out = read_all(&path);
    assert_eq!(out.format, Format::Qwen);
    assert_eq!(out.malformed_lines, 1);
    assert_eq!(out.end_offset, complete_len(&path));
    assert_eq!(
        out.session_id.as_deref(),
        Some("7c1d2e0a-5b7e-4f0c-9a51-2f6f1d3c9b10")
    );
    assert_eq!(
        texts(&out, Role::User),
        [
            "Why does the checkout test fail on CI?",
            "We always run CI in UTC; tests must never depend on the local timezone.",
            "Please remember that we deploy only from release branches.",
            "Now fix the flaky cart test, please.",
        ]
    );
    assert_eq!(
        texts(&out, Role::Assistant),
        [
            "Let me read the workflow.",
            "CI runs with TZ=UTC while the test builds dates in local time, so the expected string differs.",
            "",
            "Saved: deploys happen only from release branches.",
            "",
            "Fixed the cart test by pinning the clock.",
        ]
    );
    injected_markers_absent(&out);
    assert!(out
        .messages
        .iter()
        .all(|m| !m.text.contains("CI env may differ")));
    assert!(out.messages.iter().all(|m| m.session_id == out.session_id));

    let calls = all_calls(&out);
    assert_eq!(calls.len(), 4);
    assert_eq!(calls[0].name, "read_file");
    assert_eq!(
        calls[0].paths,
        ["/home/alice/src/shop/.github/workflows/ci.yml"]
    );
    assert_eq!(calls[0].succeeded, Some(true));
    assert_eq!(calls[1].name, "write_file");
    assert_eq!(calls[1].succeeded, Some(true));
    // Relative path resolved against the record's cwd.
    assert_eq!(calls[2].name, "edit");
    assert_eq!(calls[2].paths, ["/home/alice/src/shop/src/cart.test.ts"]);
    assert_eq!(calls[2].succeeded, Some(true));
    // Cancelled by the user.
    assert_eq!(calls[3].paths, [format!("{QWEN_MEM}/feedback/clock.md")]);
    assert_eq!(calls[3].succeeded, Some(false));
}

#[test]
fn claude_fixture() {
    let path = fixture("claude.jsonl");
    let out = read_all(&path);
    assert_eq!(out.format, Format::Claude);
    assert_eq!(out.malformed_lines, 1);
    assert_eq!(out.end_offset, complete_len(&path));
    assert_eq!(
        out.session_id.as_deref(),
        Some("3f9a1c52-8d4e-4b61-a0f3-6c2b9e7d1a44")
    );
    assert_eq!(
        texts(&out, Role::User),
        [
            "Why does the checkout test fail on CI?",
            "We always run CI in UTC, never in local time.",
            "Please remember: we deploy only from release branches.",
            "Fix the flaky cart test.",
        ]
    );
    // msg_01 was split over three lines (thinking, text, tool_use): one message.
    assert_eq!(
        texts(&out, Role::Assistant),
        [
            "Let me read the workflow.",
            "CI sets TZ=UTC but the test formats dates in local time.",
            "I'll save that.",
            "Saved to project memory.",
            "",
            "Pinning the clock in the cart test instead.",
            "Done; the cart test no longer depends on the wall clock.",
        ]
    );
    injected_markers_absent(&out);
    assert!(out
        .messages
        .iter()
        .all(|m| !m.text.contains("Look at the CI env")));

    let first_assistant = &out.messages[1];
    assert_eq!(first_assistant.role, Role::Assistant);
    assert_eq!(first_assistant.tool_calls.len(), 1);
    assert_eq!(first_assistant.tool_calls[0].name, "Read");
    assert_eq!(first_assistant.tool_calls[0].succeeded, Some(true));

    let calls = all_calls(&out);
    let names: Vec<&str> = calls.iter().map(|c| c.name.as_str()).collect();
    // The sidechain Write is not there.
    assert_eq!(names, ["Read", "Write", "Edit", "Edit"]);
    assert_eq!(calls[1].succeeded, Some(true));
    assert_eq!(calls[2].succeeded, Some(false), "rejected edit");
    assert_eq!(calls[3].succeeded, Some(true));
}

#[test]
fn generic_fixture() {
    let path = fixture("generic.jsonl");
    let out = read_all(&path);
    assert_eq!(out.format, Format::Jsonl);
    assert_eq!(out.malformed_lines, 1);
    assert_eq!(out.end_offset, complete_len(&path));
    assert_eq!(out.session_id.as_deref(), Some("gen-1"));
    assert_eq!(
        texts(&out, Role::User),
        [
            "We use pnpm, not npm, in this repository.",
            "How do I run the tests?",
            "Never push directly to main.",
        ]
    );
    assert_eq!(
        texts(&out, Role::Assistant),
        ["Noted, I will use pnpm.", "Run pnpm test."]
    );
    injected_markers_absent(&out);
}

#[test]
fn explicit_format_is_respected() {
    // Reading a Claude transcript as Qwen yields nothing rather than garbage.
    let out = read_transcript(&fixture("claude.jsonl"), 0, Format::Qwen).unwrap();
    assert_eq!(out.format, Format::Qwen);
    assert!(out.messages.is_empty());
    let out = read_transcript(&fixture("claude.jsonl"), 0, Format::Claude).unwrap();
    assert_eq!(texts(&out, Role::User).len(), 4);
}

#[test]
fn detection_skips_undecisive_leading_lines() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.jsonl");
    fs::write(
        &path,
        "{}\n{\"type\":\"system\"}\n{\"role\":\"user\",\"content\":\"We use tabs.\"}\n",
    )
    .unwrap();
    let out = read_all(&path);
    assert_eq!(out.format, Format::Jsonl);
    assert_eq!(texts(&out, Role::User), ["We use tabs."]);

    fs::write(&path, "{\"type\":\"system\"}\n").unwrap();
    assert_eq!(read_all(&path).format, Format::Auto);
}

#[test]
fn qwen_hook_context_without_system_payload_and_model_role() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("q.jsonl");
    let lines = [
        json!({"type":"user","sessionId":"s","message":{"role":"user","parts":[
            {"text":"Keep commits small."},
            {"text":"<qwen:user-prompt-submit-context>\n## Relevant memory\n\nx\n</qwen:user-prompt-submit-context>"}]}}),
        // Other provenances are not the user speaking.
        json!({"type":"user","sessionId":"s","provenance":"goal_control","message":{"role":"user","parts":[{"text":"Continue toward the goal."}]}}),
        json!({"type":"user","sessionId":"s","subtype":"mid_turn_user_message","provenance":"real_user","message":{"role":"user","parts":[{"text":"Use rebase, not merge."}]}}),
        json!({"type":"user","sessionId":"s","message":{"role":"user","parts":[{"text":"<system-reminder>only a reminder</system-reminder>"}]}}),
    ];
    let body: String = lines.iter().map(|l| format!("{l}\n")).collect();
    fs::write(&path, body).unwrap();
    let out = read_all(&path);
    assert_eq!(out.format, Format::Qwen);
    assert_eq!(
        texts(&out, Role::User),
        ["Keep commits small.", "Use rebase, not merge."]
    );
}

// ---------------------------------------------------------------- offsets

#[test]
fn message_offsets_are_line_starts() {
    for name in ["qwen.jsonl", "claude.jsonl", "generic.jsonl"] {
        let path = fixture(name);
        let bytes = fs::read(&path).unwrap();
        let out = read_all(&path);
        assert!(!out.messages.is_empty());
        for m in &out.messages {
            let at = m.offset as usize;
            assert!(at == 0 || bytes[at - 1] == b'\n', "{name}: {at}");
            // Re-reading from the offset yields this message first.
            let again = read_transcript(&path, m.offset, Format::Auto).unwrap();
            assert_eq!(again.messages[0].text, m.text, "{name} at {at}");
        }
    }
}

#[test]
fn partial_line_is_consumed_once_completed() {
    let expected_user = "Also update the changelog.";
    for name in ["qwen.jsonl", "claude.jsonl", "generic.jsonl"] {
        let (_dir, path) = temp_copy(name);
        let first = read_all(&path);
        assert!(first.messages.iter().all(|m| m.text != expected_user));
        let size = fs::metadata(&path).unwrap().len();
        assert!(first.end_offset < size, "{name}: partial line consumed");

        // Nothing new: the same cursor comes back.
        let idle = read_transcript(&path, first.end_offset, Format::Auto).unwrap();
        assert!(idle.messages.is_empty());
        assert_eq!(idle.end_offset, first.end_offset);

        let rest = fs::read_to_string(fixture(&format!("{name}.rest"))).unwrap();
        append(&path, &rest);
        let second = read_transcript(&path, first.end_offset, Format::Auto).unwrap();
        assert_eq!(second.end_offset, fs::metadata(&path).unwrap().len());
        assert_eq!(second.malformed_lines, 0, "{name}");
        assert_eq!(texts(&second, Role::User), [expected_user], "{name}");
        assert_eq!(second.messages.len(), 1);
        assert_eq!(second.messages[0].offset, first.end_offset);
        assert_eq!(second.format, first.format);
    }
}

#[test]
fn reading_from_end_offset_returns_only_appended_messages() {
    let (_dir, path) = temp_copy("claude.jsonl");
    let rest = fs::read_to_string(fixture("claude.jsonl.rest")).unwrap();
    append(&path, &rest);
    let first = read_all(&path);
    let before = first.messages.len();
    let sid = "3f9a1c52-8d4e-4b61-a0f3-6c2b9e7d1a44";
    let more = [
        json!({"type":"assistant","sessionId":sid,"cwd":"/home/alice/src/shop","message":{"id":"msg_08","role":"assistant","content":[{"type":"text","text":"Updated CHANGELOG.md."}]}}),
        json!({"type":"user","sessionId":sid,"message":{"role":"user","content":"Thanks. We tag releases as vX.Y.Z."}}),
    ];
    append(
        &path,
        &more.iter().map(|l| format!("{l}\n")).collect::<String>(),
    );
    let second = read_transcript(&path, first.end_offset, Format::Auto).unwrap();
    assert_eq!(second.messages.len(), 2);
    assert_eq!(second.messages[0].text, "Updated CHANGELOG.md.");
    assert_eq!(
        second.messages[1].text,
        "Thanks. We tag releases as vX.Y.Z."
    );
    assert_eq!(second.format, Format::Claude);
    let whole = read_all(&path);
    assert_eq!(whole.messages.len(), before + 2);
}

#[test]
fn offset_past_end_reads_nothing() {
    let path = fixture("generic.jsonl");
    let out = read_transcript(&path, 1 << 40, Format::Auto).unwrap();
    assert!(out.messages.is_empty());
    assert_eq!(out.end_offset, 1 << 40);
}

#[test]
fn missing_file_is_an_io_error() {
    let err = read_transcript(Path::new("/nonexistent/t.jsonl"), 0, Format::Auto).unwrap_err();
    assert!(matches!(err, TranscriptError::Io { .. }));
    assert!(err.to_string().contains("/nonexistent/t.jsonl"));
}

// ---------------------------------------------------------------- malformed input

#[test]
fn malformed_and_odd_lines() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.jsonl");
    let a = json!({"role":"user","content":"First fact here."});
    let b = json!({"role":"user","content":"Second fact here."});
    let body =
        format!("\n   \n[1,2]\n\"text\"\n42\n{{\"role\":\n{a}{b}\r\n{a} trailing\n\u{0}\n{b}\r\n");
    fs::write(&path, body).unwrap();
    let out = read_all(&path);
    // [1,2], "text", 42, the cut object, the trailing garbage, NUL: six malformed lines.
    assert_eq!(out.malformed_lines, 6);
    assert_eq!(
        texts(&out, Role::User),
        [
            "First fact here.",
            "Second fact here.",
            "First fact here.",
            "Second fact here."
        ]
    );
    assert_eq!(out.end_offset, fs::metadata(&path).unwrap().len());
}

#[test]
fn odd_field_types_do_not_break_a_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("o.jsonl");
    let line = json!({"type":"user","sessionId":7,"isMeta":"yes","cwd":null,
        "message":{"role":"user","content":[1, null, "Plain string block.", {"type":"text","text":5}]}});
    fs::write(&path, format!("{line}\n")).unwrap();
    let out = read_all(&path);
    assert_eq!(out.malformed_lines, 0);
    assert_eq!(texts(&out, Role::User), ["Plain string block."]);
    assert_eq!(out.session_id, None);
}

#[test]
fn assistant_text_is_capped_on_a_char_boundary() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.jsonl");
    let long = "é".repeat(10_000);
    let lines = [
        json!({"role":"assistant","content":long}),
        json!({"type":"assistant","message":{"id":"m","role":"assistant","content":[{"type":"text","text":long}]}}),
    ];
    for line in lines {
        fs::write(&path, format!("{line}\n")).unwrap();
        let out = read_all(&path);
        let text = &out.messages[0].text;
        assert!(text.len() <= ASSISTANT_TEXT_LIMIT && text.len() >= ASSISTANT_TEXT_LIMIT - 1);
        assert!(text.chars().all(|c| c == 'é'));
    }
}

#[test]
fn huge_user_message_is_kept_whole() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("h.jsonl");
    let big = "We keep every fixture in tests/fixtures. ".repeat(130_000);
    let line = json!({"type":"user","sessionId":"s","message":{"role":"user","content":big}});
    fs::write(&path, format!("{line}\n")).unwrap();
    let out = read_all(&path);
    assert_eq!(out.messages.len(), 1);
    assert_eq!(out.messages[0].text, big.trim());
}

// ---------------------------------------------------------------- memory writes

#[test]
fn memory_write_qwen_fixture() {
    let out = read_all(&fixture("qwen.jsonl"));
    let roots = [PathBuf::from(QWEN_MEM)];
    // Latest turn: the memory write was cancelled; the successful one is an earlier turn.
    assert!(!latest_turn_wrote_memory(&out.messages, &roots));
    // Cut the history before "Now fix the flaky cart test": the successful write is latest.
    let cut = out
        .messages
        .iter()
        .position(|m| m.text == "Now fix the flaky cart test, please.")
        .unwrap();
    assert!(latest_turn_wrote_memory(&out.messages[..cut], &roots));
    // Same turn, write outside the roots.
    let elsewhere = [PathBuf::from("/home/alice/.qwen/projects/other/memory")];
    assert!(!latest_turn_wrote_memory(&out.messages[..cut], &elsewhere));
    // Root spelled with `..` and a trailing slash.
    let odd_root = [PathBuf::from(
        "/home/alice/.qwen/projects/x/../-home-alice-src-shop/./memory/",
    )];
    assert!(latest_turn_wrote_memory(&out.messages[..cut], &odd_root));
    assert!(!latest_turn_wrote_memory(&out.messages[..cut], &[]));
}

#[test]
fn memory_write_claude_fixture() {
    let out = read_all(&fixture("claude.jsonl"));
    let roots = [PathBuf::from(CLAUDE_MEM)];
    // Latest turn: the memory Edit was rejected, the sidechain Write is ignored.
    assert!(!latest_turn_wrote_memory(&out.messages, &roots));
    let cut = out
        .messages
        .iter()
        .position(|m| m.text == "Fix the flaky cart test.")
        .unwrap();
    assert!(latest_turn_wrote_memory(&out.messages[..cut], &roots));
}

#[test]
fn memory_write_rules() {
    let root = PathBuf::from("/p/.qwen/memory");
    let roots = std::slice::from_ref(&root);
    let user = msg(Role::User, "remember this", vec![]);
    let turn = |calls: Vec<ToolCall>| vec![user.clone(), msg(Role::Assistant, "", calls)];

    assert!(latest_turn_wrote_memory(
        &turn(vec![call("Write", "/p/.qwen/memory/user/x.md", Some(true))]),
        roots
    ));
    assert!(latest_turn_wrote_memory(
        &turn(vec![call(
            "replace",
            "/p/.qwen/memory/a/../b.md",
            Some(true)
        )]),
        roots
    ));
    assert!(latest_turn_wrote_memory(
        &turn(vec![call("MultiEdit", "/p/.qwen/memory", Some(true))]),
        roots
    ));
    // Failed, unknown outcome, read-only tool, escaping `..`, sibling prefix, relative path.
    for c in [
        call("write_file", "/p/.qwen/memory/x.md", Some(false)),
        call("write_file", "/p/.qwen/memory/x.md", None),
        call("read_file", "/p/.qwen/memory/x.md", Some(true)),
        call("Edit", "/p/.qwen/memory/../secrets.md", Some(true)),
        call("Edit", "/p/.qwen/memory-old/x.md", Some(true)),
        call("Write", "memory/x.md", Some(true)),
    ] {
        assert!(
            !latest_turn_wrote_memory(&turn(vec![c.clone()]), roots),
            "{c:?}"
        );
    }
    // A write in an earlier turn does not count.
    let mut earlier = turn(vec![call("Write", "/p/.qwen/memory/x.md", Some(true))]);
    earlier.push(msg(Role::User, "thanks, now run the tests", vec![]));
    earlier.push(msg(Role::Assistant, "All green.", vec![]));
    assert!(!latest_turn_wrote_memory(&earlier, roots));
    // No user message at all: the whole history is the turn.
    let no_user = vec![msg(
        Role::Assistant,
        "",
        vec![call("Write", "/p/.qwen/memory/x.md", Some(true))],
    )];
    assert!(latest_turn_wrote_memory(&no_user, roots));
    // Windows spelling on both sides.
    let win_root = [PathBuf::from("C:\\Users\\me\\.qwen\\memory")];
    assert!(latest_turn_wrote_memory(
        &turn(vec![call(
            "write_file",
            "c:/Users/me/.qwen/memory/x.md",
            Some(true)
        )]),
        &win_root
    ));
}

#[test]
fn qwen_bridge_tool_is_unwrapped() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("b.jsonl");
    let mem = "/p/.qwen/memory";
    let lines = [
        json!({"type":"user","message":{"role":"user","parts":[{"text":"Save it."}]}}),
        json!({"type":"assistant","message":{"role":"model","parts":[
            {"functionCall":{"id":"c1","name":"tool_call","args":{"name":"write_file",
                "arguments":format!("{{\"file_path\":\"{mem}/project/a.md\",\"content\":\"x\"}}")}}},
            {"functionCall":{"id":"c2","name":"tool_call","args":{"name":"web_fetch",
                "arguments":{"file_path":format!("{mem}/project/b.md")}}}}]}}),
        json!({"type":"tool_result","message":{"role":"user","parts":[
            {"functionResponse":{"id":"c1","name":"tool_call","response":{"output":"ok"}}},
            {"functionResponse":{"id":"c2","name":"tool_call","response":{"output":"ok"}}}]}}),
    ];
    fs::write(
        &path,
        lines.iter().map(|l| format!("{l}\n")).collect::<String>(),
    )
    .unwrap();
    let out = read_all(&path);
    let calls = all_calls(&out);
    assert_eq!(calls[0].name, "write_file");
    assert_eq!(calls[0].paths, [format!("{mem}/project/a.md")]);
    assert_eq!(calls[0].succeeded, Some(true));
    assert_eq!(calls[1].name, "web_fetch");
    assert!(latest_turn_wrote_memory(
        &out.messages,
        &[PathBuf::from(mem)]
    ));

    // Only the bridged non-write tool: no memory write.
    let mut only_fetch = out.messages.clone();
    only_fetch[1].tool_calls.remove(0);
    assert!(!latest_turn_wrote_memory(
        &only_fetch,
        &[PathBuf::from(mem)]
    ));
}

#[test]
fn id_less_calls_match_results_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("n.jsonl");
    let lines = [
        json!({"type":"assistant","message":{"role":"model","parts":[
            {"functionCall":{"name":"write_file","args":{"file_path":"/m/a.md"}}}]}}),
        json!({"type":"tool_result","message":{"role":"user","parts":[
            {"functionResponse":{"name":"write_file","response":{"error":"disk full"}}}]}}),
    ];
    fs::write(
        &path,
        lines.iter().map(|l| format!("{l}\n")).collect::<String>(),
    )
    .unwrap();
    let out = read_all(&path);
    assert_eq!(all_calls(&out)[0].succeeded, Some(false));
}

// ---------------------------------------------------------------- head hash

#[test]
fn head_hash_covers_the_first_4_kib() {
    let dir = tempfile::tempdir().unwrap();
    let small = dir.path().join("small");
    fs::write(&small, "hello").unwrap();
    assert_eq!(
        head_hash(&small).unwrap(),
        "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"
    );

    let big = dir.path().join("big");
    let mut bytes = vec![b'a'; 10_000];
    fs::write(&big, &bytes).unwrap();
    let h1 = head_hash(&big).unwrap();
    assert_eq!(h1.len(), 64);
    bytes[HEAD_HASH_BYTES] = b'b'; // first byte past the head
    fs::write(&big, &bytes).unwrap();
    assert_eq!(head_hash(&big).unwrap(), h1);
    bytes[HEAD_HASH_BYTES - 1] = b'b'; // last byte of the head
    fs::write(&big, &bytes).unwrap();
    assert_ne!(head_hash(&big).unwrap(), h1);
    assert!(head_hash(&dir.path().join("missing")).is_err());
}

// ---------------------------------------------------------------- generated transcripts

struct Generated {
    users: usize,
    assistants: usize,
    last_user: String,
    bytes: u64,
}

/// Writes a Claude-style transcript of at least `target` bytes: turns of user prompt (with an
/// injected reminder), assistant text + tool call, a large tool result, and noise lines.
fn generate_claude(path: &Path, target: u64) -> Generated {
    let file = fs::File::create(path).unwrap();
    let mut w = std::io::BufWriter::new(file);
    let sid = "9b2f0c1e-0000-4000-8000-000000000001";
    let output = "line of tool output with \"quotes\" and \\ escapes\n".repeat(80);
    let mut g = Generated {
        users: 0,
        assistants: 0,
        last_user: String::new(),
        bytes: 0,
    };
    let mut i = 0u64;
    while g.bytes < target {
        let user = format!("Turn {i}: we always run the integration suite before merging.");
        let lines = [
            json!({"type":"user","uuid":format!("u{i}"),"sessionId":sid,"cwd":"/w","isSidechain":false,
                "message":{"role":"user","content":[{"type":"text","text":format!("<system-reminder>ctx {i}</system-reminder>")},{"type":"text","text":user}]}}),
            json!({"type":"attachment","uuid":format!("x{i}"),"sessionId":sid,
                "attachment":{"type":"hook_additional_context","content":["## Relevant memory\n\nold"]}}),
            json!({"type":"assistant","uuid":format!("a{i}"),"sessionId":sid,"cwd":"/w","isSidechain":false,
                "message":{"id":format!("msg_{i}"),"role":"assistant","content":[
                    {"type":"thinking","thinking":"t".repeat(300),"signature":"sig"},
                    {"type":"text","text":format!("Running the suite for turn {i}.")},
                    {"type":"tool_use","id":format!("toolu_{i}"),"name":"Bash","input":{"command":"cargo test"}}]}}),
            json!({"type":"user","uuid":format!("r{i}"),"sessionId":sid,"cwd":"/w","isSidechain":false,
                "message":{"role":"user","content":[{"type":"tool_result","tool_use_id":format!("toolu_{i}"),"content":output,"is_error":false}]},
                "toolUseResult":{"stdout":output,"stderr":""}}),
        ];
        for line in lines {
            let s = format!("{line}\n");
            g.bytes += s.len() as u64;
            w.write_all(s.as_bytes()).unwrap();
        }
        g.users += 1;
        g.assistants += 1;
        g.last_user = user;
        i += 1;
    }
    w.flush().unwrap();
    g
}

#[test]
fn generated_5_mb_transcript() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.jsonl");
    let g = generate_claude(&path, 5 * 1024 * 1024);
    let out = read_all(&path);
    assert_eq!(out.format, Format::Claude);
    assert_eq!(out.malformed_lines, 0);
    assert_eq!(out.end_offset, g.bytes);
    assert_eq!(texts(&out, Role::User).len(), g.users);
    assert_eq!(texts(&out, Role::Assistant).len(), g.assistants);
    assert_eq!(
        texts(&out, Role::User).last().copied(),
        Some(g.last_user.as_str())
    );
    assert!(all_calls(&out).iter().all(|c| c.succeeded == Some(true)));
    injected_markers_absent(&out);

    // Resuming from a message offset in the middle reads exactly the rest.
    let mid = &out.messages[out.messages.len() / 2];
    let rest = read_transcript(&path, mid.offset, Format::Auto).unwrap();
    assert_eq!(
        rest.messages.len(),
        out.messages.len() - out.messages.len() / 2
    );
    assert_eq!(rest.end_offset, g.bytes);
}

/// Throughput on a 50 MB transcript. Run with
/// `cargo test --release --lib transcript::tests::throughput -- --ignored --nocapture`.
#[test]
#[ignore]
fn throughput_50_mb() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("huge.jsonl");
    let g = generate_claude(&path, 50 * 1024 * 1024);
    let mut best = f64::MAX;
    for _ in 0..3 {
        let start = Instant::now();
        let out = read_all(&path);
        best = best.min(start.elapsed().as_secs_f64());
        assert_eq!(out.end_offset, g.bytes);
        assert_eq!(texts(&out, Role::User).len(), g.users);
    }
    let mb = g.bytes as f64 / (1024.0 * 1024.0);
    println!(
        "read_transcript: {mb:.1} MiB in {:.1} ms = {:.0} MiB/s",
        best * 1e3,
        mb / best
    );
    // Reading one appended turn from the end stays cheap.
    let end = read_all(&path).end_offset;
    append(
        &path,
        &format!(
            "{}\n",
            json!({"type":"user","message":{"role":"user","content":"One more turn."}})
        ),
    );
    let start = Instant::now();
    let tail = read_transcript(&path, end, Format::Auto).unwrap();
    println!(
        "incremental read of one new line: {:.3} ms",
        start.elapsed().as_secs_f64() * 1e3
    );
    assert_eq!(tail.messages.len(), 1);
}

// ---------------------------------------------------------------- line cap

#[test]
fn next_line_holds_at_most_the_cap_and_skips_longer_lines() {
    use std::io::BufReader;
    let data = b"short\nabcdefghijklmnopqrstuvwxyz\nok\ntail-without-newline".to_vec();
    // A tiny reader buffer so lines span several chunks.
    let mut r = BufReader::with_capacity(4, &data[..]);
    let mut buf = Vec::new();
    assert_eq!(
        next_line(&mut r, &mut buf, 10).unwrap(),
        LineRead::Complete(6)
    );
    assert_eq!(buf, b"short\n");
    buf.clear();
    assert_eq!(
        next_line(&mut r, &mut buf, 10).unwrap(),
        LineRead::Oversized(27)
    );
    assert!(buf.capacity() <= 10, "never held the long line");
    buf.clear();
    assert_eq!(
        next_line(&mut r, &mut buf, 10).unwrap(),
        LineRead::Complete(3)
    );
    assert_eq!(buf, b"ok\n");
    buf.clear();
    assert_eq!(
        next_line(&mut r, &mut buf, 10).unwrap(),
        LineRead::Incomplete
    );
}

#[test]
fn an_oversized_line_is_skipped_counted_and_consumed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.jsonl");
    let before = json!({"role":"user","content":"We deploy only from release branches."});
    let huge = json!({"role":"user","content":"x".repeat(MAX_LINE_BYTES)});
    let after = json!({"role":"user","content":"The on-call runbook lives in the wiki."});
    let body = format!("{before}\n{huge}\n{after}\n");
    fs::write(&path, &body).unwrap();
    let out = read_all(&path);
    assert_eq!(out.oversized_lines, 1);
    assert_eq!(out.malformed_lines, 0);
    assert_eq!(
        texts(&out, Role::User),
        [
            "We deploy only from release branches.",
            "The on-call runbook lives in the wiki."
        ]
    );
    assert_eq!(out.end_offset, body.len() as u64);
    // The same line still being written (no newline yet) is not consumed.
    let partial = format!("{before}\n{huge}");
    fs::write(&path, &partial).unwrap();
    let out = read_all(&path);
    assert_eq!(out.oversized_lines, 0);
    assert_eq!(out.end_offset, before.to_string().len() as u64 + 1);
}
