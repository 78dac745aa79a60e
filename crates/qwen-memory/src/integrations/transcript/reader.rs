//! Turns parsed lines into [`Message`]s: format detection, per-format rules, and matching tool
//! results to the calls they answer.

use std::collections::{HashMap, VecDeque};
use std::path::Path;

use super::raw::{Args, Content, Item, RawLine, Response};
use super::strip::strip_injected_context;
use super::{Format, Message, Role, ToolCall, ASSISTANT_TEXT_LIMIT};

/// Claude line types that never occur in the other formats.
const CLAUDE_ONLY_TYPES: &[&str] = &[
    "summary",
    "attachment",
    "file-history-snapshot",
    "queue-operation",
    "progress",
    "custom-title",
    "ai-title",
    "last-prompt",
    "tag",
    "agent-name",
    "pr-link",
    "mode",
    "worktree-state",
    "attribution-snapshot",
    "content-replacement",
];

/// Which format a line belongs to, when the line alone tells. Every line that can yield a
/// message is decisive, so lines seen before the decision never carry one.
fn classify(line: &RawLine) -> Option<Format> {
    let kind = line.kind.as_deref();
    if let Some(msg) = line.message.as_ref() {
        if !msg.parts.is_absent() || msg.role.as_deref() == Some("model") {
            return Some(Format::Qwen);
        }
        if !msg.content.is_absent() {
            return Some(Format::Claude);
        }
    }
    match kind {
        Some("tool_result") => return Some(Format::Qwen),
        Some(k) if CLAUDE_ONLY_TYPES.contains(&k) => return Some(Format::Claude),
        Some("system") if line.level.0 || !line.content.is_absent() => return Some(Format::Claude),
        Some("system") if line.system_payload.as_ref().is_some() => return Some(Format::Qwen),
        _ => {}
    }
    if kind.is_none() && line.message.as_ref().is_none() && line.role.as_deref().is_some() {
        return Some(Format::Jsonl);
    }
    None
}

/// Where a tool call sits: (message index, call index).
type CallSlot = (usize, usize);

pub(super) struct Interpreter {
    pub format: Format,
    pub messages: Vec<Message>,
    pub session_id: Option<String>,
    /// Calls awaiting their result, by call id.
    pending: HashMap<String, CallSlot>,
    /// Calls without an id, matched to results by tool name in call order.
    pending_by_name: HashMap<String, VecDeque<CallSlot>>,
    /// Claude splits one API response over several lines sharing `message.id`.
    last_assistant_id: Option<String>,
}

impl Interpreter {
    pub fn new(format: Format) -> Self {
        Interpreter {
            format,
            messages: Vec::new(),
            session_id: None,
            pending: HashMap::new(),
            pending_by_name: HashMap::new(),
            last_assistant_id: None,
        }
    }

    pub fn feed(&mut self, line: RawLine, offset: u64) {
        if let Some(sid) = line.session_id() {
            if self.session_id.as_deref() != Some(sid) {
                self.session_id = Some(sid.to_owned());
            }
        }
        if self.format == Format::Auto {
            match classify(&line) {
                Some(f) => self.format = f,
                None => return,
            }
        }
        match self.format {
            Format::Qwen => self.feed_qwen(line, offset),
            Format::Claude => self.feed_claude(line, offset),
            Format::Jsonl => self.feed_jsonl(line, offset),
            Format::Auto => {}
        }
    }

    fn feed_qwen(&mut self, line: RawLine, offset: u64) {
        if line.is_sidechain.0 {
            return;
        }
        let Some(msg) = line.message.as_ref() else {
            return;
        };
        let kind = line
            .kind
            .as_deref()
            .or(match msg.role.as_deref() {
                Some("model") => Some("assistant"),
                other => other,
            })
            .unwrap_or("");
        let parts = &msg.parts;
        match kind {
            "assistant" => {
                let cwd = line.cwd.as_deref();
                let mut text = String::new();
                let mut calls = Vec::new();
                for item in parts.items() {
                    if let Some(fc) = item.function_call.as_ref() {
                        let (name, paths) =
                            resolve_call(fc.name.as_deref().unwrap_or(""), fc.args.as_ref(), cwd);
                        calls.push((fc.id.0.clone(), name, paths));
                    } else if !item.thought.0 {
                        if let Some(t) = item.text.as_deref() {
                            push_capped(&mut text, t);
                        }
                    }
                }
                if let Content::Text(t) = parts {
                    push_capped(&mut text, t);
                }
                self.push_assistant(text, calls, offset, &line, false);
            }
            "user" | "tool_result" => {
                let mut has_response = false;
                let mut statuses: Vec<(&str, bool)> = Vec::new();
                if let Some(tcr) = line.tool_call_result.as_ref() {
                    if let (Some(id), Some(status)) =
                        (tcr.call_id.as_deref(), tcr.status.as_deref())
                    {
                        statuses.push((id, status == "success"));
                    }
                }
                for item in parts.items() {
                    if let Some(fr) = item.function_response.as_ref() {
                        has_response = true;
                        let id = fr.id.as_deref();
                        let mut ok = fr.response == Response::Ok;
                        // A cancelled or failed call may still carry a plain output object.
                        if let Some((_, status_ok)) =
                            statuses.iter().find(|(sid, _)| Some(*sid) == id)
                        {
                            ok &= *status_ok;
                        }
                        self.resolve(id, fr.name.as_deref(), ok);
                    }
                }
                if !has_response {
                    for (id, ok) in &statuses {
                        self.resolve(Some(id), None, *ok);
                    }
                }
                if kind != "user" || has_response || line.is_meta.0 {
                    return;
                }
                let real_user = line.provenance.as_deref() == Some("real_user");
                if !real_user && (line.provenance.0.is_some() || line.subtype.0.is_some()) {
                    return;
                }
                let payload = line.system_payload.as_ref();
                let display = payload
                    .filter(|p| p.hook_context.0.is_some())
                    .and_then(|p| p.display_text.as_deref());
                let raw = match display {
                    Some(d) => d.to_owned(),
                    None => collect_text(parts),
                };
                self.push_user(&raw, offset, &line);
            }
            _ => {}
        }
    }

    fn feed_claude(&mut self, line: RawLine, offset: u64) {
        if line.is_sidechain.0 {
            return;
        }
        let Some(msg) = line.message.as_ref() else {
            return;
        };
        match line.kind.as_deref() {
            Some("user") => {
                let mut has_result = false;
                for item in msg.content.items() {
                    if item.kind.as_deref() == Some("tool_result") {
                        has_result = true;
                        self.resolve(item.tool_use_id.as_deref(), None, !item.is_error.0);
                    }
                }
                if has_result
                    || line.is_meta.0
                    || line.is_compact_summary.0
                    || line.visible_in_transcript_only.0
                {
                    return;
                }
                let raw = collect_text(&msg.content);
                self.push_user(&raw, offset, &line);
            }
            Some("assistant") => {
                if line.is_meta.0 {
                    return;
                }
                let cwd = line.cwd.as_deref();
                let mut text = String::new();
                let mut calls = Vec::new();
                for item in msg.content.items() {
                    match item.kind.as_deref() {
                        Some("text") => {
                            if let Some(t) = item.text.as_deref() {
                                push_capped(&mut text, t);
                            }
                        }
                        Some("tool_use") => {
                            let (name, paths) = resolve_call(
                                item.name.as_deref().unwrap_or(""),
                                item.input.as_ref(),
                                cwd,
                            );
                            calls.push((item.id.0.clone(), name, paths));
                        }
                        _ => {}
                    }
                }
                if let Content::Text(t) = &msg.content {
                    push_capped(&mut text, t);
                }
                let id = msg.id.0.clone();
                let merge = id.is_some() && id == self.last_assistant_id;
                self.last_assistant_id = id;
                self.push_assistant(text, calls, offset, &line, merge);
            }
            _ => {}
        }
    }

    fn feed_jsonl(&mut self, line: RawLine, offset: u64) {
        if line.is_meta.0 || line.is_sidechain.0 {
            return;
        }
        match line.role.as_deref() {
            Some("user") => {
                let raw = collect_text(&line.content);
                self.push_user(&raw, offset, &line);
            }
            Some("assistant") => {
                let mut text = String::new();
                push_capped(&mut text, &collect_text(&line.content));
                self.push_assistant(text, Vec::new(), offset, &line, false);
            }
            _ => {}
        }
    }

    fn push_user(&mut self, raw: &str, offset: u64, line: &RawLine) {
        let text = strip_injected_context(raw);
        if text.is_empty() {
            return;
        }
        self.last_assistant_id = None;
        self.messages.push(Message {
            role: Role::User,
            text,
            tool_calls: Vec::new(),
            offset,
            session_id: line.session_id().map(str::to_owned),
        });
    }

    fn push_assistant(
        &mut self,
        text: String,
        calls: Vec<(Option<String>, String, Vec<String>)>,
        offset: u64,
        line: &RawLine,
        merge: bool,
    ) {
        let text = if text.contains('<') || text.contains(super::strip::RELEVANT_MEMORY_HEADING) {
            strip_injected_context(&text)
        } else {
            text.trim().to_owned()
        };
        if text.is_empty() && calls.is_empty() {
            return;
        }
        let merge_into = match self.messages.last() {
            Some(last) if merge && last.role == Role::Assistant => Some(self.messages.len() - 1),
            _ => None,
        };
        let msg_idx = match merge_into {
            Some(i) => {
                let last = &mut self.messages[i];
                if !text.is_empty() {
                    if !last.text.is_empty() {
                        push_capped(&mut last.text, "\n");
                    }
                    push_capped(&mut last.text, &text);
                }
                i
            }
            None => {
                self.messages.push(Message {
                    role: Role::Assistant,
                    text,
                    tool_calls: Vec::new(),
                    offset,
                    session_id: line.session_id().map(str::to_owned),
                });
                self.messages.len() - 1
            }
        };
        for (id, name, paths) in calls {
            let call_idx = self.messages[msg_idx].tool_calls.len();
            let slot = (msg_idx, call_idx);
            match id.filter(|s| !s.is_empty()) {
                Some(id) => {
                    self.pending.insert(id, slot);
                }
                None => self
                    .pending_by_name
                    .entry(name.clone())
                    .or_default()
                    .push_back(slot),
            }
            self.messages[msg_idx].tool_calls.push(ToolCall {
                name,
                paths,
                succeeded: None,
            });
        }
    }

    /// Records the outcome of a call; results for calls outside this read are ignored.
    fn resolve(&mut self, id: Option<&str>, name: Option<&str>, ok: bool) {
        let slot = id.and_then(|id| self.pending.remove(id)).or_else(|| {
            name.and_then(|n| self.pending_by_name.get_mut(n))
                .and_then(VecDeque::pop_front)
        });
        if let Some((m, c)) = slot {
            if let Some(call) = self
                .messages
                .get_mut(m)
                .and_then(|msg| msg.tool_calls.get_mut(c))
            {
                call.succeeded = Some(ok);
            }
        }
    }
}

/// Text blocks/parts joined by newlines; thoughts, thinking, tool blocks and images skipped.
fn collect_text(content: &Content) -> String {
    match content {
        Content::Absent => String::new(),
        Content::Text(t) => t.clone(),
        Content::Items(items) => {
            let mut out = String::new();
            for item in items.iter().filter(|i| is_text_item(i)) {
                if let Some(t) = item.text.as_deref() {
                    if !out.is_empty() {
                        out.push('\n');
                    }
                    out.push_str(t);
                }
            }
            out
        }
    }
}

fn is_text_item(item: &Item) -> bool {
    !item.thought.0
        && matches!(item.kind.as_deref(), None | Some("text"))
        && item.function_call.as_ref().is_none()
        && item.function_response.as_ref().is_none()
}

/// Appends without letting `text` grow past [`ASSISTANT_TEXT_LIMIT`] bytes (cut on a char
/// boundary): assistant text is context only, and long answers would make memory grow with
/// the transcript.
fn push_capped(text: &mut String, add: &str) {
    let room = ASSISTANT_TEXT_LIMIT.saturating_sub(text.len());
    if add.len() <= room {
        text.push_str(add);
        return;
    }
    let mut cut = room;
    while cut > 0 && !add.is_char_boundary(cut) {
        cut -= 1;
    }
    text.push_str(&add[..cut]);
}

/// The real tool name and its path arguments, unwrapping Qwen's bridge tool `tool_call`
/// (`args.name` + `args.arguments` as an object or JSON text) and resolving relative paths
/// against the record's working directory.
fn resolve_call(name: &str, args: Option<&Args>, cwd: Option<&str>) -> (String, Vec<String>) {
    let mut raw_paths: Vec<String> = Vec::new();
    let mut real_name = name.to_owned();
    if name.eq_ignore_ascii_case("tool_call") {
        if let Some(inner) = args.and_then(|a| a.name.as_deref()) {
            real_name = inner.to_owned();
        }
        let inner_args = args
            .and_then(|a| a.arguments.as_ref())
            .and_then(|v| match v {
                serde_json::Value::Object(_) => Some(v.clone()),
                serde_json::Value::String(s) => {
                    let t = s.trim();
                    if t.starts_with('{') && t.ends_with('}') {
                        serde_json::from_str::<serde_json::Value>(t).ok()
                    } else {
                        None
                    }
                }
                _ => None,
            });
        if let Some(serde_json::Value::Object(map)) = inner_args {
            for key in PATH_KEYS {
                if let Some(serde_json::Value::String(p)) = map.get(*key) {
                    raw_paths.push(p.clone());
                }
            }
        }
    } else if let Some(a) = args {
        for p in [
            &a.file_path,
            &a.path,
            &a.absolute_path,
            &a.notebook_path,
            &a.target_file,
        ] {
            if let Some(p) = p.as_deref() {
                raw_paths.push(p.to_owned());
            }
        }
    }
    let mut paths: Vec<String> = Vec::with_capacity(raw_paths.len());
    for p in raw_paths.into_iter().filter(|p| !p.is_empty()) {
        let resolved = match cwd {
            Some(cwd) if !is_absolute_any(&p) => {
                Path::new(cwd).join(&p).to_string_lossy().into_owned()
            }
            _ => p,
        };
        if !paths.contains(&resolved) {
            paths.push(resolved);
        }
    }
    (real_name, paths)
}

const PATH_KEYS: &[&str] = &[
    "file_path",
    "path",
    "absolute_path",
    "notebook_path",
    "target_file",
];

/// Absolute in POSIX or Windows spelling (transcripts may come from either).
fn is_absolute_any(p: &str) -> bool {
    let b = p.as_bytes();
    p.starts_with('/')
        || p.starts_with('\\')
        || (b.len() >= 3
            && b[0].is_ascii_alphabetic()
            && b[1] == b':'
            && (b[2] == b'\\' || b[2] == b'/'))
}
