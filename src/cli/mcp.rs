//! `mcp`: a Model Context Protocol server on stdio (docs/mcp.md, docs/DESIGN.md "Agent
//! integration"). Any MCP client — Qwen Code, Claude Code, Codex CLI, Gemini CLI, an IDE — and
//! the host's own model recall, remember, forget, list and show memories through it, on the same
//! operations and the same write path as the command line.
//!
//! stdout carries the protocol and nothing else; diagnostics go to stderr. Every memory text the
//! server returns passes [`outbound`], the one boundary where text leaves a memory file here.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Result;
use qwen_memory::formats::doc::MemoryType;
use qwen_memory::formats::{sanitize, secrets};
use qwen_memory::ops::browse::{self, ShowError};
use qwen_memory::ops::forget::{self, ForgetError, StrategyChoice};
use qwen_memory::ops::hook_entry::{self, SessionState};
use qwen_memory::ops::recall;
use qwen_memory::ops::remember::{self, RememberRequest, Via};
use qwen_memory::storage::context::Context;
use qwen_memory::storage::root_writer;
use qwen_memory::storage::safe_fs;
use qwen_memory::storage::scan::{self, ScannedDoc, Scope};
use qwen_memory::storage::{index, store};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    InitializeRequestParams, InitializeResult, JsonObject, ListResourcesResult, ListToolsResult,
    PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult,
    Resource, ResourceContents, ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt};
use serde::Deserialize;
use serde_json::{json, Value};

/// How often the roots are looked at for `notifications/resources/list_changed`.
const WATCH_INTERVAL: Duration = Duration::from_secs(2);

/// How recent the last prompt hook's session record must be for a client that does not name
/// its session to be counted as part of it.
const SESSION_GUESS_WINDOW: Duration = Duration::from_secs(15 * 60);

/// Every text taken from a memory file leaves the server through here: the one sanitiser
/// (hidden, bidi, tag and control characters removed; docs/DESIGN.md, "Security"), then
/// secrets masked.
pub fn outbound(text: &str) -> String {
    secrets::redact(&sanitize::clean_text(text))
}

/// A whole memory file as the client reads it (`show`, a resource): [`outbound`] after
/// `formats::sanitize::neutralize_structure`, so its text cannot pose as the structure of
/// what the client puts around it (a heading, `</system-reminder>`, a tag).
fn outbound_document(text: &str) -> String {
    secrets::redact(&sanitize::neutralize_structure(text))
}

/// [`outbound`] over every string of a JSON value.
fn outbound_json(v: Value) -> Value {
    match v {
        Value::String(s) => Value::String(outbound(&s)),
        Value::Array(a) => Value::Array(a.into_iter().map(outbound_json).collect()),
        Value::Object(o) => {
            Value::Object(o.into_iter().map(|(k, v)| (k, outbound_json(v))).collect())
        }
        other => other,
    }
}

/// Runs the server on stdin/stdout until the client closes stdin.
pub fn run(ctx: Context) -> Result<ExitCode> {
    // The server is long-lived: every later scan reads only the files that changed.
    scan::keep_parsed_in_process();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .enable_time()
        .build()?;
    runtime.block_on(serve(ctx))?;
    Ok(ExitCode::SUCCESS)
}

async fn serve(ctx: Context) -> Result<()> {
    let server = MemoryServer {
        ctx: Arc::new(ctx),
        client: std::sync::Mutex::new(None),
        snapshot: std::sync::Mutex::new(None),
    };
    let watched = server.ctx.clone();
    // Lines the SDK would drop unanswered are answered (`mcp_input`); one byte under its limit,
    // so that no line passed on is over it.
    let input = super::mcp_input::Bounded::new(
        tokio::io::stdin(),
        rmcp::transport::async_rw::DEFAULT_MAX_LINE_LENGTH - 1,
    );
    let running = match server.serve((input, tokio::io::stdout())).await {
        Ok(running) => running,
        // A client that closes the pipe before it initializes (a probe, a start it cancelled)
        // asked for nothing: the server ends quietly, as after a session.
        Err(rmcp::service::ServerInitializeError::ConnectionClosed(_)) => return Ok(()),
        Err(e) => return Err(e.into()),
    };
    let peer = running.peer().clone();
    let watcher = tokio::spawn(async move {
        let mut last = fingerprint(&watched).0;
        loop {
            tokio::time::sleep(WATCH_INTERVAL).await;
            let now = fingerprint(&watched).0;
            if now != last {
                last = now;
                if peer.notify_resource_list_changed().await.is_err() {
                    break;
                }
            }
        }
    });
    let quit = running.waiting().await;
    watcher.abort();
    if let Err(e) = quit {
        eprintln!("git-qwen-memory mcp: {e}");
    }
    Ok(())
}

/// Files or directories changed this recently (ns) keep a snapshot from being reused: a
/// second write within the same clock tick could leave the stamp unchanged.
const SETTLE_NS: i128 = 2_000_000_000;

/// The change stamp of the readable roots: a hash of every entry's path and kind, of every
/// directory's owner, mode and ctime, and of every `.md` file's size, mtime, ctime, inode,
/// owner and mode (symlinks are never followed). Whatever a scan or its checks depend on
/// changes it. Also whether everything is older than [`SETTLE_NS`].
fn fingerprint(ctx: &Context) -> (u64, bool) {
    use std::os::unix::fs::MetadataExt;
    fn stat(meta: &std::fs::Metadata, h: &mut DefaultHasher, newest: &mut i128) {
        let ctime = meta.ctime() as i128 * 1_000_000_000 + meta.ctime_nsec() as i128;
        let mtime = meta.mtime() as i128 * 1_000_000_000 + meta.mtime_nsec() as i128;
        (
            meta.len(),
            mtime,
            ctime,
            meta.ino(),
            meta.uid(),
            meta.mode(),
        )
            .hash(h);
        *newest = (*newest).max(ctime).max(mtime);
    }
    fn walk(dir: &Path, h: &mut DefaultHasher, newest: &mut i128, depth: usize) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            0u8.hash(h);
            return;
        };
        let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
        entries.sort_by_key(|e| e.file_name());
        for e in entries {
            let Ok(meta) = e.metadata() else {
                continue;
            };
            e.file_name().hash(h);
            let kind = meta.file_type();
            (kind.is_dir(), kind.is_file(), kind.is_symlink()).hash(h);
            if kind.is_dir() && depth < 8 {
                stat(&meta, h, newest);
                walk(&e.path(), h, newest, depth + 1);
            } else if kind.is_file() && e.path().extension().is_some_and(|x| x == "md") {
                stat(&meta, h, newest);
            }
        }
    }
    let mut h = DefaultHasher::new();
    let mut newest = i128::MIN;
    for (scope, path) in ctx.layout.recall_roots() {
        scope.hash(&mut h);
        path.hash(&mut h);
        match std::fs::symlink_metadata(path) {
            Ok(meta) => {
                stat(&meta, &mut h, &mut newest);
                // A symlinked user root is walked where it points.
                if let Ok(target) = std::fs::metadata(path) {
                    stat(&target, &mut h, &mut newest);
                }
                walk(path, &mut h, &mut newest, 0);
            }
            Err(_) => 0u8.hash(&mut h),
        }
    }
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as i128);
    (h.finish(), newest < now - SETTLE_NS)
}

/// The scanned memory of the readable roots, kept while their [`fingerprint`] is unchanged:
/// `list`, `show` and the resources then read no file but the one shown.
struct Snapshot {
    stamp: u64,
    docs: Vec<ScannedDoc>,
    /// Per document (same order): its listing as JSON and as a text line, both through
    /// [`outbound`].
    listed: Vec<(Value, String)>,
}

struct MemoryServer {
    ctx: Arc<Context>,
    /// The client's `name version` from its `initialize`.
    client: std::sync::Mutex<Option<String>>,
    /// The last [`Snapshot`], reused while the roots' stamp is unchanged.
    snapshot: std::sync::Mutex<Option<Arc<Snapshot>>>,
}

/// Tool arguments.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RecallArgs {
    query: String,
    limit: Option<usize>,
    session_id: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RememberArgs {
    text: String,
    #[serde(rename = "type")]
    memory_type: Option<String>,
    scope: Option<String>,
    why: Option<String>,
    how: Option<String>,
    session_id: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ForgetArgs {
    query: Option<String>,
    #[serde(default)]
    ids: Vec<String>,
    #[serde(default)]
    dry_run: bool,
    scope: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ListArgs {
    #[serde(rename = "type")]
    memory_type: Option<String>,
    scope: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ShowArgs {
    id: String,
}

const TYPES: [&str; 4] = ["user", "feedback", "project", "reference"];
const SCOPES: [&str; 4] = ["repository", "private", "team", "user"];

fn schema(v: Value) -> Arc<JsonObject> {
    match v {
        Value::Object(o) => Arc::new(o),
        _ => Arc::new(JsonObject::new()),
    }
}

/// The five tools, each described for a model deciding whether to call it.
fn tools() -> Vec<Tool> {
    let session = json!({"type": "string", "description": "The agent session id, when known (memories this session was already shown are left out)."});
    vec![
        Tool::new(
            "recall",
            "Look up this project's persistent memory: facts, decisions, conventions and user preferences saved in earlier sessions. Call it before answering a question about the project's history, conventions, setup or the user's preferences, or when the user says 'remember when', 'as before' or 'like last time'. Returns the relevant memories as a Markdown block (memories already shown in this session are left out).",
            schema(json!({
                "type": "object",
                "properties": {
                    "query": {"type": "string", "description": "What to look for, usually the user's request in their own words."},
                    "limit": {"type": "integer", "minimum": 1, "maximum": 50, "description": "Most memory documents to return (default: the project's recall.limit, 5)."},
                    "session_id": session,
                },
                "required": ["query"],
            })),
        )
        .with_annotations(ToolAnnotations::new().read_only(true).open_world(false)),
        Tool::new(
            "remember",
            "Save one durable fact to the project's persistent memory so later sessions (of any agent) know it: a decision, a convention, a correction the user made, a user preference, where something lives. Call it when the user asks you to remember something, or states a lasting rule ('always…', 'never…', 'we use…'). One fact per call, in a full sentence; never save secrets, credentials or one-off task details. An existing memory with the same fact is updated, not duplicated.",
            schema(json!({
                "type": "object",
                "properties": {
                    "text": {"type": "string", "description": "The fact, one sentence."},
                    "type": {"type": "string", "enum": TYPES, "description": "user (about the person), feedback (how to work), project (facts and decisions, the default), reference (where to find things)."},
                    "scope": {"type": "string", "enum": ["project", "team", "user"], "description": "project (default), team (shared through the repository) or user (all projects)."},
                    "why": {"type": "string", "description": "Why it holds (optional)."},
                    "how": {"type": "string", "description": "How to apply it (optional)."},
                    "session_id": session,
                },
                "required": ["text"],
            })),
        )
        .with_annotations(
            ToolAnnotations::new()
                .read_only(false)
                .destructive(false)
                .idempotent(true)
                .open_world(false),
        ),
        Tool::new(
            "forget",
            "Remove memory entries the user wants gone (outdated, wrong, or asked to forget). Give a query (entries whose text contains it) or exact ids from `list`. Call it with dry_run true first and show the user what would go; the removal can be undone with `git qwen-memory forget --undo`.",
            schema(json!({
                "type": "object",
                "properties": {
                    "query": {"type": "string", "description": "Entries whose summary, why or how-to-apply contain this text."},
                    "ids": {"type": "array", "items": {"type": "string"}, "description": "Exact entry ids (`path` or `path:i`) instead of a query."},
                    "dry_run": {"type": "boolean", "description": "Only show what would be removed (default false)."},
                    "scope": {"type": "string", "enum": SCOPES, "description": "Which memory to forget from (default: the project's)."},
                },
            })),
        )
        .with_annotations(
            ToolAnnotations::new()
                .read_only(false)
                .destructive(true)
                .open_world(false),
        ),
        Tool::new(
            "list",
            "List the saved memories (id, type, scope, title), optionally of one type or scope. Use it to browse what is remembered, or to find the id for `show` or `forget`.",
            schema(json!({
                "type": "object",
                "properties": {
                    "type": {"type": "string", "enum": TYPES},
                    "scope": {"type": "string", "enum": SCOPES},
                },
            })),
        )
        .with_annotations(ToolAnnotations::new().read_only(true).open_world(false)),
        Tool::new(
            "show",
            "Show one memory document in full by its id from `list` (secrets masked).",
            schema(json!({
                "type": "object",
                "properties": {"id": {"type": "string", "description": "The id `list` shows (relative path, or scope:path)."}},
                "required": ["id"],
            })),
        )
        .with_annotations(ToolAnnotations::new().read_only(true).open_world(false)),
    ]
}

/// A tool's result: text for the model plus the same as structured content.
fn success(text: String, structured: Value) -> CallToolResult {
    let mut r = CallToolResult::success(vec![ContentBlock::text(text)]);
    r.structured_content = Some(structured);
    r
}

/// A failure the model should read (`isError`), worded as the command line words it.
fn failure(message: impl std::fmt::Display) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(message.to_string())])
}

fn parse_args<T: for<'de> Deserialize<'de>>(args: Option<JsonObject>) -> Result<T, String> {
    serde_json::from_value(Value::Object(args.unwrap_or_default()))
        .map_err(|e| format!("invalid arguments: {e}"))
}

fn parse_type(t: Option<&str>) -> Result<Option<MemoryType>, String> {
    match t {
        None => Ok(None),
        Some(t) => MemoryType::parse(t)
            .map(Some)
            .ok_or_else(|| format!("invalid type {t:?}: one of {}", TYPES.join(", "))),
    }
}

fn parse_scope(s: Option<&str>) -> Result<Option<Scope>, String> {
    match s {
        None => Ok(None),
        Some("repository") => Ok(Some(Scope::Repository)),
        Some("private") => Ok(Some(Scope::Private)),
        Some("team") => Ok(Some(Scope::Team)),
        Some("user") => Ok(Some(Scope::User)),
        Some(s) => Err(format!("invalid scope {s:?}: one of {}", SCOPES.join(", "))),
    }
}

/// A session id the client gave in the request's `_meta` (any key naming a session id), if any.
fn meta_session(meta: &rmcp::model::RequestMetaObject) -> Option<String> {
    meta.0 .0.iter().find_map(|(k, v)| {
        let k = k.to_ascii_lowercase();
        (k.ends_with("sessionid") || k.ends_with("session_id"))
            .then(|| v.as_str().map(str::to_string))
            .flatten()
    })
}

/// A client's `name version`, kept short and printable (it is written into provenance).
fn clean_client(info: &Implementation) -> Option<String> {
    let text = format!("{} {}", info.name, info.version);
    let clean: String = text
        .chars()
        .filter(|ch| !ch.is_control())
        .take(80)
        .collect();
    let clean = clean.trim().to_string();
    (!clean.is_empty()).then_some(clean)
}

impl MemoryServer {
    /// The session a call belongs to and what it was shown: the one the client named, else the
    /// one whose prompt hook ran last (within [`SESSION_GUESS_WINDOW`]), else none.
    fn session(&self, given: Option<String>) -> (Option<String>, SessionState) {
        let dir = self.ctx.state_dir();
        match given.filter(|s| !s.trim().is_empty()) {
            Some(s) => {
                let state = SessionState::load(dir, &s);
                (Some(s), state)
            }
            None => match SessionState::load_latest(dir, SESSION_GUESS_WINDOW) {
                Some((s, state)) => (Some(s), state),
                None => (None, SessionState::default()),
            },
        }
    }

    fn recall(&self, a: RecallArgs, meta_session: Option<String>) -> CallToolResult {
        if a.query.trim().is_empty() {
            return failure("nothing to recall: the query is empty");
        }
        let ctx = &*self.ctx;
        let limit = a
            .limit
            .unwrap_or_else(|| recall::limit_from_settings(&ctx.settings))
            .clamp(1, 50);
        let (session, state) = self.session(a.session_id.or(meta_session));
        let out = hook_entry::recall_in_session(
            ctx,
            &a.query,
            limit,
            &state,
            qwen_memory::ops::trigger::Trigger::Mcp,
        );
        for e in &out.root_errors {
            eprintln!("git-qwen-memory mcp: recall: {e}");
        }
        let text = if out.documents.is_empty() {
            "No relevant memories (or they were already shown in this session).".to_string()
        } else {
            out.prompt.clone()
        };
        let structured = json!({
            "strategy": out.strategy,
            "session": session,
            "documents": out.documents.iter().map(|d| json!({
                "id": d.relative_path,
                "scope": d.scope,
                "type": d.memory_type,
                "title": d.title,
                "score": d.score,
            })).collect::<Vec<_>>(),
            "prompt": out.prompt,
        });
        success(outbound(&text), outbound_json(structured))
    }

    fn remember(
        &self,
        a: RememberArgs,
        client: Option<String>,
        meta_session: Option<String>,
    ) -> (CallToolResult, bool) {
        let ctx = &*self.ctx;
        if let Err(e) = ctx.project.require_repository() {
            return (failure(e), false);
        }
        let memory_type = match parse_type(a.memory_type.as_deref()) {
            Ok(t) => t,
            Err(m) => return (failure(m), false),
        };
        let scope = match a.scope.as_deref() {
            None | Some("project") => ctx.layout.writable().scope,
            Some("team") => Scope::Team,
            Some("user") => Scope::User,
            Some(s) => {
                return (
                    failure(format!("invalid scope {s:?}: one of project, team, user")),
                    false,
                )
            }
        };
        let session = a.session_id.or(meta_session);
        let req = RememberRequest {
            text: a.text,
            memory_type,
            scope,
            why: a.why,
            how_to_apply: a.how,
            via: Some(Via {
                source: "mcp".to_string(),
                client,
                session: session.clone(),
            }),
        };
        match remember::remember(ctx, &req) {
            Ok(outcome) => {
                let change = &outcome.change;
                let verb = match change.kind {
                    remember::ChangeKind::Created => "saved",
                    remember::ChangeKind::Merged => "updated",
                    remember::ChangeKind::Unchanged => "already known in",
                };
                let mut text =
                    format!("{verb} {} ({} memory)", change.relative_path, outcome.scope);
                if let Some(e) = &outcome.index_error {
                    text.push_str(&format!("; MEMORY.md not rebuilt ({e})"));
                }
                let structured = serde_json::to_value(&outcome).unwrap_or(Value::Null);
                let changed = change.kind != remember::ChangeKind::Unchanged;
                (success(outbound(&text), outbound_json(structured)), changed)
            }
            Err(e) => (failure(e), false),
        }
    }

    fn forget(&self, a: ForgetArgs) -> (CallToolResult, bool) {
        let ctx = &*self.ctx;
        let scope = match parse_scope(a.scope.as_deref()) {
            Ok(s) => s,
            Err(m) => return (failure(m), false),
        };
        if !a.dry_run {
            if let Err(e) = ctx.project.require_repository() {
                return (failure(e), false);
            }
        }
        let sel = match forget::select(ctx, scope, a.query.as_deref(), &a.ids, StrategyChoice::Auto)
        {
            Ok(s) => s,
            Err(e) => return (failure(forget_message(e)), false),
        };
        let out = if a.dry_run || sel.matches.is_empty() {
            forget::preview(ctx, &sel)
        } else {
            forget::apply(ctx, &sel)
        };
        let out = match out {
            Ok(o) => o,
            Err(e) => return (failure(forget_message(e)), false),
        };
        let mut text = if sel.matches.is_empty() {
            "nothing matches; nothing forgotten".to_string()
        } else if out.dry_run {
            format!(
                "dry run: would forget {} entr{}; nothing written",
                out.removed_entries,
                if out.removed_entries == 1 { "y" } else { "ies" }
            )
        } else {
            format!(
                "forgot {} entr{}; undo with `git qwen-memory forget --undo`",
                out.removed_entries,
                if out.removed_entries == 1 { "y" } else { "ies" }
            )
        };
        for r in &out.removed {
            text.push_str(&format!("\n  - {}  {}", r.id, r.summary));
        }
        let structured = serde_json::to_value(&out).unwrap_or(Value::Null);
        let changed = !out.dry_run && out.removed_entries > 0;
        (success(outbound(&text), outbound_json(structured)), changed)
    }

    fn list(&self, a: ListArgs) -> CallToolResult {
        let memory_type = match parse_type(a.memory_type.as_deref()) {
            Ok(t) => t,
            Err(m) => return failure(m),
        };
        let scope = match parse_scope(a.scope.as_deref()) {
            Ok(s) => s,
            Err(m) => return failure(m),
        };
        let snap = self.snapshot();
        let admit = self.admission();
        let mut text = String::new();
        let mut memories = Vec::new();
        for (d, (json, line)) in snap.docs.iter().zip(&snap.listed) {
            if memory_type.is_none_or(|t| d.memory_type == t)
                && scope.is_none_or(|s| d.scope == s)
                && admit.admits(d)
            {
                text.push_str(line);
                memories.push(json.clone());
            }
        }
        if memories.is_empty() {
            text.push_str("no memories yet\n");
        }
        success(text, json!({ "memories": memories }))
    }

    fn show(&self, a: ShowArgs) -> CallToolResult {
        let snap = self.snapshot();
        let admit = self.admission();
        let shown = if admit.policy.is_none() {
            browse::show_of(&self.ctx, &snap.docs, &a.id, false)
        } else {
            let admitted: Vec<ScannedDoc> = snap
                .docs
                .iter()
                .filter(|d| admit.admits(d))
                .cloned()
                .collect();
            match browse::show_of(&self.ctx, &admitted, &a.id, false) {
                Err(ShowError::NotFound(_))
                    if browse::show_of(&self.ctx, &snap.docs, &a.id, false).is_ok() =>
                {
                    return failure(format!("{:?} {PENDING}", a.id));
                }
                other => other,
            }
        };
        match shown {
            Ok(mut shown) => {
                shown.content = outbound_document(&shown.content);
                let structured = serde_json::to_value(&shown).unwrap_or(Value::Null);
                success(shown.content.clone(), outbound_json(structured))
            }
            Err(e @ (ShowError::NotFound(_) | ShowError::Ambiguous(_))) => failure(e),
            Err(e) => failure(format!("cannot read {:?}: {e}", a.id)),
        }
    }

    /// The [`Snapshot`] of the roots as they are now: the kept one while their stamp is
    /// unchanged, else a new scan (kept only when it is complete and nothing in it is
    /// younger than [`SETTLE_NS`]).
    fn snapshot(&self) -> Arc<Snapshot> {
        let (stamp, settled) = fingerprint(&self.ctx);
        let mut kept = self.snapshot.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(snap) = kept.as_ref().filter(|s| s.stamp == stamp) {
            return snap.clone();
        }
        let (docs, errors) = browse::scan_all(&self.ctx);
        for e in &errors {
            eprintln!("git-qwen-memory mcp: scan: {e}");
        }
        let listed = browse::list_of(&docs, None, None, false)
            .into_iter()
            .map(|l| {
                let line = format!(
                    "{:<10} {:<9} {}  {}\n",
                    l.scope, l.memory_type, l.id, l.title
                );
                // What a model browsing needs: the CLI's `list --json` also has the absolute
                // path, mtime and commit, a third of the answer on 1,000 memories.
                let json = json!({
                    "scope": l.scope,
                    "type": l.memory_type,
                    "id": l.id,
                    "title": l.title,
                    "description": l.description,
                    "entries": l.entries,
                    "created": l.created,
                    "masked": l.masked,
                });
                (outbound_json(json), outbound(&line))
            })
            .collect();
        let snap = Arc::new(Snapshot {
            stamp,
            docs,
            listed,
        });
        *kept = (settled && errors.is_empty()).then(|| snap.clone());
        snap
    }

    /// Which memories may reach the client: recall's trust policy (docs/security.md), checked
    /// on every call (the trusted ref moves without any memory file changing).
    fn admission(&self) -> Admission {
        Admission {
            policy: recall::trust_policy(&self.ctx),
        }
    }

    /// Every resource: each readable root's `MEMORY.md` and topic documents.
    fn resources(&self) -> Vec<Resource> {
        let ctx = &*self.ctx;
        let mut out = Vec::new();
        for (scope, path) in ctx.layout.recall_roots() {
            let index = path.join(store::INDEX_FILE);
            if index.is_file() && scan::refused_file(&index).is_none() {
                out.push(
                    Resource::new(
                        resource_uri(scope, store::INDEX_FILE),
                        format!("{} {}", scope.as_str(), store::INDEX_FILE),
                    )
                    .with_description(format!("The index of the {} memory", scope.as_str()))
                    .with_mime_type("text/markdown"),
                );
            }
        }
        let snap = self.snapshot();
        let admit = self.admission();
        for (d, (json, _)) in snap.docs.iter().zip(&snap.listed) {
            if !admit.admits(d) {
                continue;
            }
            let field = |k: &str| json[k].as_str().unwrap_or_default().to_string();
            out.push(
                Resource::new(resource_uri(d.scope, &d.relative_path), field("title"))
                    .with_description(field("description"))
                    .with_mime_type("text/markdown"),
            );
        }
        out
    }

    /// A resource's text, through the same scan, checks, trust policy and sanitising as
    /// `show`: a topic document is served only as a document the scan accepted, an index
    /// only when its owner and directory pass the scan's rules.
    fn read(&self, uri: &str) -> Result<String, McpError> {
        let not_found = || McpError::resource_not_found(format!("no memory resource {uri}"), None);
        let rest = uri.strip_prefix("memory://").ok_or_else(not_found)?;
        let (scope_name, relative) = rest.split_once('/').ok_or_else(not_found)?;
        let relative = percent_encoding::percent_decode_str(relative)
            .decode_utf8()
            .map_err(|_| not_found())?
            .into_owned();
        let scope = parse_scope(Some(scope_name))
            .map_err(|_| not_found())?
            .ok_or_else(not_found)?;
        let (_, root) = self
            .ctx
            .layout
            .recall_roots()
            .into_iter()
            .find(|(s, _)| *s == scope)
            .ok_or_else(not_found)?;
        if root_writer::resolve_relative(root, &relative).is_none()
            || root_writer::passes_through_symlink(root, &relative)
        {
            return Err(not_found());
        }
        let snap = self.snapshot();
        let admit = self.admission();
        if relative == store::INDEX_FILE {
            let path = root.join(store::INDEX_FILE);
            if let Some(why) = scan::refused_file(&path) {
                return Err(McpError::invalid_request(
                    format!("{uri}: refused: {why}"),
                    None,
                ));
            }
            // Under a trust policy a shared root's index lists only what may be shown.
            let text = if admit.policy.is_some() && matches!(scope, Scope::Repository | Scope::Team)
            {
                let admitted: Vec<ScannedDoc> = snap
                    .docs
                    .iter()
                    .filter(|d| d.scope == scope && admit.admits(d))
                    .cloned()
                    .collect();
                index::build(&admitted, root_writer::index_kind(scope))
            } else {
                safe_fs::read_regular_string(&path)
                    .map_err(|e| McpError::internal_error(e.to_string(), None))?
                    .ok_or_else(not_found)?
            };
            return Ok(outbound_document(&text));
        }
        let doc = snap
            .docs
            .iter()
            .find(|d| d.scope == scope && d.relative_path == relative)
            .ok_or_else(not_found)?;
        if !admit.admits(doc) {
            return Err(McpError::invalid_request(format!("{uri} {PENDING}"), None));
        }
        let shown = browse::show_of(
            &self.ctx,
            std::slice::from_ref(doc),
            &format!("{}:{}", scope.as_str(), relative),
            false,
        )
        .map_err(|e| match e {
            ShowError::NotFound(_) => not_found(),
            e => McpError::internal_error(e.to_string(), None),
        })?;
        Ok(outbound_document(&shown.content))
    }
}

/// Why a shared memory the trust policy holds back is not shown.
const PENDING: &str = "is held back by the trust policy (trust.ref, trust.authors, trust.signed) until it is trusted (see `git qwen-memory check`)";

/// The trust policy of one call.
struct Admission {
    policy: Option<qwen_memory::integrations::git::trust::TrustPolicy>,
}

impl Admission {
    /// Whether `d` may reach the client: personal memory always; shared (repository, team)
    /// memory, under a policy, only when the policy trusts its last commit.
    fn admits(&self, d: &ScannedDoc) -> bool {
        !matches!(d.scope, Scope::Repository | Scope::Team)
            || self.policy.as_ref().is_none_or(|p| p.trusts(&d.path))
    }
}

fn forget_message(e: ForgetError) -> String {
    e.to_string()
}

fn resource_uri(scope: Scope, relative: &str) -> String {
    let scope = scope.as_str();
    const SEGMENT: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
        .remove(b'/')
        .remove(b'-')
        .remove(b'_')
        .remove(b'.');
    format!(
        "memory://{scope}/{}",
        percent_encoding::utf8_percent_encode(relative, SEGMENT)
    )
}

impl ServerHandler for MemoryServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_resources()
                .enable_resources_list_changed()
                .enable_tools()
                .build(),
        )
        .with_server_info(Implementation::new(
            "git-qwen-memory",
            env!("CARGO_PKG_VERSION"),
        ))
        .with_instructions(
            "This project's persistent memory (shared with Qwen Code's auto-memory). Call `recall` before answering questions about the project's conventions, history or the user's preferences; call `remember` when the user states a lasting fact or asks you to remember something.",
        )
    }

    /// The stand-in for a request too large to read (`mcp_input`): answered with an error that
    /// says so, instead of silence.
    async fn on_custom_request(
        &self,
        request: rmcp::model::CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::CustomResult, McpError> {
        if request.method == super::mcp_input::TOO_LARGE_METHOD {
            return Err(McpError::invalid_request(
                format!(
                    "request too large: over {} MiB on one line; send less text at once",
                    rmcp::transport::async_rw::DEFAULT_MAX_LINE_LENGTH >> 20
                ),
                None,
            ));
        }
        Err(McpError::new(
            rmcp::model::ErrorCode::METHOD_NOT_FOUND,
            request.method,
            None,
        ))
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, McpError> {
        if let Ok(mut c) = self.client.lock() {
            *c = clean_client(&request.client_info);
        }
        context.peer.set_peer_info(request.clone());
        self.negotiate_initialize(&request)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(tools()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        tools().into_iter().find(|t| t.name == name)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let session = request
            .meta
            .as_ref()
            .and_then(meta_session)
            .or_else(|| meta_session(&context.meta));
        // From `initialize`, or for a client on the stateless protocol from the request's
        // `_meta`.
        let client = self
            .client
            .lock()
            .ok()
            .and_then(|c| c.clone())
            .or_else(|| context.meta.client_info().as_ref().and_then(clean_client));
        let args = request.arguments;
        let result = match request.name.as_ref() {
            "recall" => parse_args(args).map(|a| (self.recall(a, session), false)),
            "remember" => parse_args(args).map(|a| self.remember(a, client, session)),
            "forget" => parse_args(args).map(|a| self.forget(a)),
            "list" => parse_args(args).map(|a| (self.list(a), false)),
            "show" => parse_args(args).map(|a| (self.show(a), false)),
            other => {
                return Err(McpError::invalid_params(
                    format!("unknown tool {other:?}"),
                    None,
                ))
            }
        };
        let (result, changed) = result.unwrap_or_else(|m| (failure(m), false));
        // A fact already known, a dry run or a forget that matched nothing wrote nothing.
        if changed {
            // Memory was written: embed it in the background, as the CLI's remember/forget do.
            qwen_memory::ops::recall::job::kick(&self.ctx);
            let _ = context.peer.notify_resource_list_changed().await;
        }
        Ok(CallToolResponse::Complete(result))
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        Ok(ListResourcesResult::with_all_items(self.resources()))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        let text = self.read(&request.uri)?;
        Ok(ReadResourceResponse::Complete(ReadResourceResult::new(
            vec![ResourceContents::text(text, request.uri).with_mime_type("text/markdown")],
        )))
    }
}
