//! The model client and recall's model selection against a scripted loopback server.

use crate::common::openai_server;

use std::net::{Ipv4Addr, TcpListener};
use std::path::PathBuf;
use std::time::Duration;

use openai_server::{OpenAiServer, Reply, CHAT_PATH};
use qwen_memory::formats::doc::MemoryType;
use qwen_memory::integrations::model::{ModelClient, ModelConfig, ModelError};
use qwen_memory::ops::recall::select::{select_by_model, SelectError};
use qwen_memory::storage::scan::{ScannedDoc, Scope};
use serde_json::json;

const KEY: &str = "sk-test-UNIQUE-7f3c9a1e-do-not-leak";
const PROMPT_MARKER: &str = "PROMPT-MARKER-41b2c7";

fn config(base_url: String, key: Option<&str>, timeout: Duration) -> ModelConfig {
    ModelConfig {
        base_url,
        model: "test-model".into(),
        api_key: key.map(str::to_string),
        timeout,
    }
}

fn client_for(server: &OpenAiServer, key: Option<&str>) -> ModelClient {
    ModelClient::new(config(server.base_url(), key, Duration::from_secs(5)))
}

#[test]
fn good_answer_is_parsed_and_request_is_well_formed() {
    let server = OpenAiServer::start(vec![Reply::good_json(json!({"ok": true, "n": [1, 2]}))]);
    let client = client_for(&server, None);
    let answer = client.chat_json("sys text", "user text").unwrap();
    assert_eq!(answer, json!({"ok": true, "n": [1, 2]}));

    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    let req = &requests[0];
    assert_eq!(req.method, "POST");
    assert_eq!(req.path, CHAT_PATH);
    assert_eq!(
        req.header("content-type").map(str::to_ascii_lowercase),
        Some("application/json".into())
    );
    let body = req.json();
    assert_eq!(body["model"], "test-model");
    assert_eq!(body["temperature"], 0);
    assert_eq!(body["response_format"], json!({"type": "json_object"}));
    assert_eq!(
        body["messages"],
        json!([
            {"role": "system", "content": "sys text"},
            {"role": "user", "content": "user text"}
        ])
    );
}

#[test]
fn fenced_content_is_accepted() {
    let server = OpenAiServer::start(vec![Reply::Good("```json\n{\"a\": 1}\n```".into())]);
    let answer = client_for(&server, None).chat_json("s", "u").unwrap();
    assert_eq!(answer, json!({"a": 1}));
}

#[test]
fn trailing_slash_in_base_url_is_harmless() {
    let server = OpenAiServer::start(vec![Reply::good_json(json!({}))]);
    let env = |_: &str| None;
    let cfg = ModelConfig::resolve(
        &env,
        Some(format!("{}/", server.base_url())),
        Some("m".into()),
        None,
    )
    .unwrap();
    ModelClient::new(cfg).chat_json("s", "u").unwrap();
    assert_eq!(server.requests()[0].path, CHAT_PATH);
}

#[test]
fn malformed_content_is_not_json() {
    let server = OpenAiServer::start(vec![Reply::Malformed]);
    let err = client_for(&server, None).chat_json("s", "u").unwrap_err();
    assert_eq!(err, ModelError::NotJson);
}

#[test]
fn body_that_is_not_a_completion_is_bad_response() {
    let server = OpenAiServer::start(vec![Reply::Raw(200, "{\"choices\": []}".into())]);
    let err = client_for(&server, None).chat_json("s", "u").unwrap_err();
    assert!(matches!(err, ModelError::BadResponse(_)), "{err:?}");
}

#[test]
fn wrong_base_url_is_http_404_without_retry() {
    let server = OpenAiServer::start(vec![]);
    let client = ModelClient::new(config(
        format!("{}/wrong", server.origin()),
        None,
        Duration::from_secs(5),
    ));
    let err = client.chat_json("s", "u").unwrap_err();
    assert_eq!(err, ModelError::Http { status: 404 });
    let requests = server.requests();
    assert_eq!(requests.len(), 1, "404 is not retried");
    assert_eq!(requests[0].path, "/wrong/chat/completions");
}

#[test]
fn slow_answer_times_out() {
    let server = OpenAiServer::start(vec![Reply::Slow(
        Duration::from_millis(1500),
        json!({"late": true}).to_string(),
    )]);
    let client = ModelClient::new(config(server.base_url(), None, Duration::from_millis(300)));
    let err = client.chat_json("s", "u").unwrap_err();
    // The error kind, not a wall-clock bound, proves the client gave up instead of waiting.
    assert_eq!(err, ModelError::Timeout);
    assert_eq!(server.requests().len(), 1, "timeouts are not retried");
}

#[test]
fn server_error_then_good_succeeds_after_one_retry() {
    let server = OpenAiServer::start(vec![
        Reply::Status(500),
        Reply::good_json(json!({"second": "try"})),
    ]);
    let answer = client_for(&server, None).chat_json("s", "u").unwrap();
    assert_eq!(answer, json!({"second": "try"}));
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(
        requests[0].body, requests[1].body,
        "the retry resends the same request"
    );
}

#[test]
fn server_error_twice_is_http_500_after_exactly_one_retry() {
    let server = OpenAiServer::start(vec![
        Reply::Status(500),
        Reply::Status(500),
        Reply::good_json(json!({"never": "reached"})),
    ]);
    let err = client_for(&server, None).chat_json("s", "u").unwrap_err();
    assert_eq!(err, ModelError::Http { status: 500 });
    assert_eq!(server.requests().len(), 2);
}

/// The pause a `Retry-After` asks for is decided by `retry_pause` (unit-tested in
/// `integrations::model`); here only that the answer after it is used, without timing the run.
#[test]
fn rate_limit_with_retry_after_is_retried() {
    let server = OpenAiServer::start(vec![
        Reply::StatusRetryAfter(429, 1),
        Reply::good_json(json!({"after": "wait"})),
    ]);
    let answer = client_for(&server, None).chat_json("s", "u").unwrap();
    assert_eq!(answer, json!({"after": "wait"}));
    assert_eq!(server.requests().len(), 2);
}

#[test]
fn plain_429_is_retried_once() {
    let server = OpenAiServer::start(vec![Reply::Status(429), Reply::Status(503)]);
    let err = client_for(&server, None).chat_json("s", "u").unwrap_err();
    assert_eq!(err, ModelError::Http { status: 503 });
    assert_eq!(server.requests().len(), 2);
}

#[test]
fn client_errors_are_not_retried() {
    let server = OpenAiServer::start(vec![Reply::Status(400), Reply::good_json(json!({}))]);
    let err = client_for(&server, None).chat_json("s", "u").unwrap_err();
    assert_eq!(err, ModelError::Http { status: 400 });
    assert_eq!(server.requests().len(), 1);
}

#[test]
fn authorization_header_only_with_a_key() {
    let server = OpenAiServer::start(vec![
        Reply::good_json(json!({})),
        Reply::good_json(json!({})),
    ]);
    client_for(&server, Some(KEY)).chat_json("s", "u").unwrap();
    client_for(&server, None).chat_json("s", "u").unwrap();
    let requests = server.requests();
    assert_eq!(
        requests[0].header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
    assert_eq!(requests[1].header("authorization"), None);
}

#[test]
fn connection_refused_is_a_transport_error() {
    let port = {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).unwrap();
        listener.local_addr().unwrap().port()
    };
    let client = ModelClient::new(config(
        format!("http://127.0.0.1:{port}/v1"),
        Some(KEY),
        Duration::from_secs(2),
    ));
    let err = client.chat_json("s", "u").unwrap_err();
    assert!(matches!(err, ModelError::Transport { .. }), "{err:?}");
}

/// Produces every error variant with a unique key and prompt text, and checks that neither
/// shows up in any Display or Debug rendering, even when the server echoes the request back.
#[test]
fn key_and_prompt_never_appear_in_errors() {
    let mut errors = Vec::new();
    let system = format!("system {PROMPT_MARKER}");
    let user = format!("user {PROMPT_MARKER} {KEY}");

    // Key embedded in the base URL's userinfo too: even that must not surface.
    let refused_port = {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).unwrap();
        listener.local_addr().unwrap().port()
    };
    let refused = ModelClient::new(config(
        format!("http://user:{KEY}@127.0.0.1:{refused_port}/v1"),
        Some(KEY),
        Duration::from_secs(2),
    ));
    errors.push(refused.chat_json(&system, &user).unwrap_err());

    let bad_url = ModelClient::new(config(
        format!("not a url {KEY}"),
        Some(KEY),
        Duration::from_secs(2),
    ));
    errors.push(bad_url.chat_json(&system, &user).unwrap_err());

    let server = OpenAiServer::start(vec![
        Reply::Echo(400),
        Reply::Echo(500),
        Reply::Echo(500),
        Reply::Echo(200),
        Reply::Good(format!("not json {PROMPT_MARKER} {KEY}")),
        Reply::Slow(Duration::from_millis(1000), "{}".into()),
    ]);
    let client = client_for(&server, Some(KEY));
    for _ in 0..4 {
        errors.push(client.chat_json(&system, &user).unwrap_err());
    }
    let slow = ModelClient::new(config(
        server.base_url(),
        Some(KEY),
        Duration::from_millis(300),
    ));
    errors.push(slow.chat_json(&system, &user).unwrap_err());

    let not_found = ModelClient::new(config(
        format!("{}/nope", server.origin()),
        Some(KEY),
        Duration::from_secs(2),
    ));
    errors.push(not_found.chat_json(&system, &user).unwrap_err());

    let kinds: Vec<&str> = errors
        .iter()
        .map(|e| match e {
            ModelError::Timeout => "timeout",
            ModelError::Http { .. } => "http",
            ModelError::Transport { .. } => "transport",
            ModelError::BadResponse(_) => "bad",
            ModelError::NotJson => "notjson",
        })
        .collect();
    for kind in ["timeout", "http", "transport", "bad", "notjson"] {
        assert!(
            kinds.contains(&kind),
            "no {kind} error produced: {errors:?}"
        );
    }
    // The echoing server did receive the key, so the check below is meaningful.
    assert!(server
        .requests()
        .iter()
        .any(|r| r.header("authorization").is_some_and(|v| v.contains(KEY))));
    for err in &errors {
        for shown in [err.to_string(), format!("{err:?}")] {
            assert!(!shown.contains(KEY), "key leaked: {shown}");
            assert!(!shown.contains(PROMPT_MARKER), "prompt leaked: {shown}");
        }
    }
    let client_debug = format!("{client:?}");
    assert!(!client_debug.contains(KEY), "{client_debug}");
}

// ---------------------------------------------------------------------------------------------
// Recall model selection

fn doc(scope: Scope, path: &str, description: &str) -> ScannedDoc {
    let relative = path.rsplit('/').next().unwrap_or(path).to_string();
    ScannedDoc {
        scope,
        memory_type: MemoryType::Project,
        path: PathBuf::from(path),
        relative_path: relative.clone(),
        title: relative,
        description: description.to_string(),
        body: "- something".into(),
        mtime_ms: 1_700_000_000_000.0,
        extra: Vec::new(),
    }
}

fn corpus() -> Vec<ScannedDoc> {
    vec![
        doc(Scope::Private, "/p/memory/deploy.md", "How deploys work"),
        doc(
            Scope::Private,
            "/p/memory/latency.md",
            "Latency dashboard link",
        ),
        doc(
            Scope::User,
            "/u/memories/deploy.md",
            "User deploy preferences",
        ),
        doc(Scope::Private, "/p/memory/unrelated.md", "Lunch spots"),
    ]
}

fn selected(paths: &[&str]) -> Reply {
    Reply::good_json(json!({ "selected_memories": paths }))
}

#[test]
fn selection_keeps_model_order_and_sends_the_manifest() {
    let server = OpenAiServer::start(vec![selected(&[
        "/u/memories/deploy.md",
        "/p/memory/deploy.md",
    ])]);
    let docs = corpus();
    let picked = select_by_model(
        &client_for(&server, None),
        "  how do we deploy?  ",
        &docs,
        &[0, 1, 2],
        5,
    )
    .unwrap();
    assert_eq!(picked, vec![2, 0]);

    let body = server.requests()[0].json();
    let user = body["messages"][1]["content"].as_str().unwrap();
    assert!(
        user.starts_with("Query: how do we deploy?\n\nAvailable memories:\n"),
        "{user}"
    );
    assert!(user
        .contains("- [project] /p/memory/deploy.md (2023-11-14T22:13:20.000Z): How deploys work"));
    assert!(user.contains("/u/memories/deploy.md"));
    assert!(
        !user.contains("unrelated.md"),
        "non-candidates are not offered"
    );
    let system = body["messages"][0]["content"].as_str().unwrap();
    assert!(system.contains("selected_memories"));
}

#[test]
fn selection_rejects_unknown_paths() {
    // Index 3 exists in docs but was not a candidate, so it is unknown to this selection.
    let server = OpenAiServer::start(vec![selected(&["/p/memory/unrelated.md"])]);
    let err =
        select_by_model(&client_for(&server, None), "lunch", &corpus(), &[0, 1], 5).unwrap_err();
    assert!(matches!(err, SelectError::UnknownPath), "{err:?}");
}

#[test]
fn selection_rejects_too_many() {
    let server = OpenAiServer::start(vec![selected(&[
        "/p/memory/deploy.md",
        "/p/memory/latency.md",
        "/u/memories/deploy.md",
    ])]);
    let err = select_by_model(
        &client_for(&server, None),
        "deploy",
        &corpus(),
        &[0, 1, 2],
        2,
    )
    .unwrap_err();
    assert!(
        matches!(err, SelectError::TooMany { count: 3, limit: 2 }),
        "{err:?}"
    );
}

#[test]
fn selection_drops_duplicates() {
    let server = OpenAiServer::start(vec![selected(&[
        "/p/memory/latency.md",
        "/p/memory/latency.md",
    ])]);
    let picked =
        select_by_model(&client_for(&server, None), "latency", &corpus(), &[0, 1], 5).unwrap();
    assert_eq!(picked, vec![1]);
}

#[test]
fn empty_selection_is_a_final_answer() {
    let server = OpenAiServer::start(vec![selected(&[])]);
    let picked = select_by_model(
        &client_for(&server, None),
        "weather",
        &corpus(),
        &[0, 1, 2, 3],
        5,
    )
    .unwrap();
    assert!(picked.is_empty());
    assert_eq!(server.requests().len(), 1);
}

#[test]
fn garbage_answers_are_errors() {
    let server = OpenAiServer::start(vec![
        Reply::Malformed,
        Reply::good_json(json!({"selected": ["/p/memory/deploy.md"]})),
        Reply::good_json(json!({"selected_memories": "/p/memory/deploy.md"})),
        Reply::Status(500),
        Reply::Status(500),
    ]);
    let client = client_for(&server, None);
    let docs = corpus();
    let run = || select_by_model(&client, "deploy", &docs, &[0, 1, 2], 5);
    assert!(matches!(
        run(),
        Err(SelectError::Model(ModelError::NotJson))
    ));
    assert!(matches!(run(), Err(SelectError::BadShape(_))));
    assert!(matches!(run(), Err(SelectError::BadShape(_))));
    assert!(matches!(
        run(),
        Err(SelectError::Model(ModelError::Http { status: 500 }))
    ));
}

#[test]
fn nothing_to_ask_means_no_call() {
    let server = OpenAiServer::start(vec![]);
    let client = client_for(&server, None);
    let docs = corpus();
    assert!(select_by_model(&client, "   ", &docs, &[0, 1], 5)
        .unwrap()
        .is_empty());
    assert!(select_by_model(&client, "deploy", &docs, &[0, 1], 0)
        .unwrap()
        .is_empty());
    assert!(select_by_model(&client, "deploy", &docs, &[], 5)
        .unwrap()
        .is_empty());
    assert!(server.requests().is_empty());
}
