//! `/mcp` sessions belong to the principal that initialized them: another valid key cannot
//! use (or open the stream of) someone else's session; the stateless protocol is unaffected.
//! A principal at `--sessions-max-per-principal` gives up its own least recently used idle
//! session or is refused (429); at `--sessions-max` new sessions are refused (503) and no
//! other principal's session is closed.

use std::time::Duration;

use crate::support::*;
use serde_json::{Value, json};

const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#;

const WAIT: Duration = Duration::from_secs(10);

fn post(url: &str, key: &str) -> reqwest::RequestBuilder {
    reqwest::Client::new()
        .post(format!("{url}/mcp"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("x-api-key", key)
}

async fn send(request: reqwest::RequestBuilder) -> reqwest::Response {
    tokio::time::timeout(WAIT, request.send())
        .await
        .expect("the server answers in time")
        .expect("the request is sent")
}

async fn body(response: reqwest::Response) -> String {
    tokio::time::timeout(WAIT, response.text())
        .await
        .expect("the body arrives in time")
        .expect("the body is read")
}

/// Initializes a session as the holder of `key`; returns its id.
async fn initialize(url: &str, key: &str) -> String {
    let response = send(post(url, key).body(INIT)).await;
    assert_eq!(response.status(), 200);
    let id = response.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_owned();
    drop(response);
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let response = send(
        post(url, key)
            .header("mcp-session-id", &id)
            .header("mcp-protocol-version", "2025-06-18")
            .body(initialized.to_string()),
    )
    .await;
    assert!(response.status().is_success(), "{}", response.status());
    id
}

fn tools_list(id: u64) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/list", "params": {}}).to_string()
}

async fn assert_refused(response: reqwest::Response) {
    assert_eq!(response.status(), 403);
    let answer: Value = serde_json::from_str(&body(response).await).unwrap();
    assert_eq!(answer["error"]["code"], -32001);
    assert_eq!(
        answer["error"]["message"],
        "session belongs to another principal"
    );
}

#[tokio::test]
async fn a_session_is_usable_only_by_the_principal_that_opened_it() {
    let notes = Notes::default();
    let recorder = Recorder::default();
    let server = Running::start(builder(&notes, &recorder).build().unwrap()).await;
    let session = initialize(&server.url, "reader-key").await;

    // Another valid key on A's session: refused, on POST and on the GET stream.
    let hijack = send(
        post(&server.url, "admin-key")
            .header("mcp-session-id", &session)
            .header("mcp-protocol-version", "2025-06-18")
            .body(tools_list(2)),
    )
    .await;
    assert_refused(hijack).await;
    let stream = send(
        reqwest::Client::new()
            .get(format!("{}/mcp", server.url))
            .header("accept", "text/event-stream")
            .header("x-api-key", "admin-key")
            .header("mcp-session-id", &session)
            .header("mcp-protocol-version", "2025-06-18"),
    )
    .await;
    assert_refused(stream).await;

    // The owner's own request on its session still works.
    let own = send(
        post(&server.url, "reader-key")
            .header("mcp-session-id", &session)
            .header("mcp-protocol-version", "2025-06-18")
            .body(tools_list(3)),
    )
    .await;
    assert_eq!(own.status(), 200);
    let text = body(own).await;
    assert!(text.contains("list_notes"), "{text}");

    // Without a session header (the stateless 2026-07-28 protocol), B is served.
    let stateless = json!({
        "jsonrpc": "2.0", "id": 4, "method": "tools/list",
        "params": {"_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": {}
        }}
    });
    let response = send(
        post(&server.url, "admin-key")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", "tools/list")
            .body(stateless.to_string()),
    )
    .await;
    assert_eq!(response.status(), 200);
    assert!(response.headers().get("mcp-session-id").is_none());
    let answer: Value = serde_json::from_str(&body(response).await).unwrap();
    assert_eq!(answer["result"]["tools"].as_array().unwrap().len(), 5);

    // Deleting the session ends it; its id is then unknown (404) to everyone.
    let deleted = send(
        reqwest::Client::new()
            .delete(format!("{}/mcp", server.url))
            .header("x-api-key", "reader-key")
            .header("mcp-session-id", &session)
            .header("mcp-protocol-version", "2025-06-18"),
    )
    .await;
    assert!(deleted.status().is_success(), "{}", deleted.status());
    let after = send(
        post(&server.url, "admin-key")
            .header("mcp-session-id", &session)
            .header("mcp-protocol-version", "2025-06-18")
            .body(tools_list(5)),
    )
    .await;
    assert_eq!(after.status(), 404);

    server.stop().await.unwrap();
}

#[tokio::test]
async fn a_different_principal_cannot_delete_the_session() {
    let notes = Notes::default();
    let recorder = Recorder::default();
    let server = Running::start(builder(&notes, &recorder).build().unwrap()).await;
    let session = initialize(&server.url, "notes-key").await;
    let delete = send(
        reqwest::Client::new()
            .delete(format!("{}/mcp", server.url))
            .header("x-api-key", "writer-key")
            .header("mcp-session-id", &session)
            .header("mcp-protocol-version", "2025-06-18"),
    )
    .await;
    assert_refused(delete).await;
    let own = send(
        post(&server.url, "notes-key")
            .header("mcp-session-id", &session)
            .header("mcp-protocol-version", "2025-06-18")
            .body(tools_list(2)),
    )
    .await;
    assert_eq!(own.status(), 200);
    server.stop().await.unwrap();
}

/// The status of a tools/list on `session` as the holder of `key`.
async fn list_on(url: &str, key: &str, session: &str) -> u16 {
    let response = send(
        post(url, key)
            .header("mcp-session-id", session)
            .header("mcp-protocol-version", "2025-06-18")
            .body(tools_list(9)),
    )
    .await;
    let status = response.status().as_u16();
    let _ = body(response).await;
    status
}

/// Opens the GET stream of `session` (which keeps the session in use while it is open).
async fn open_stream(url: &str, key: &str, session: &str) -> reqwest::Response {
    let stream = send(
        reqwest::Client::new()
            .get(format!("{url}/mcp"))
            .header("accept", "text/event-stream")
            .header("x-api-key", key)
            .header("mcp-session-id", session)
            .header("mcp-protocol-version", "2025-06-18"),
    )
    .await;
    assert_eq!(stream.status(), 200);
    stream
}

/// The status, `Retry-After` and JSON-RPC error message of a refused `initialize`.
async fn refused_initialize(url: &str, key: &str) -> (u16, Option<String>, String) {
    let response = send(post(url, key).body(INIT)).await;
    let status = response.status().as_u16();
    let retry = response
        .headers()
        .get("retry-after")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    assert!(response.headers().get("mcp-session-id").is_none());
    let answer: Value = serde_json::from_str(&body(response).await).unwrap_or_default();
    let message = answer["error"]["message"].as_str().unwrap_or_default();
    (status, retry, message.to_owned())
}

#[tokio::test]
async fn a_principal_at_its_cap_gives_up_its_own_idle_session_or_is_refused() {
    let notes = Notes::default();
    let recorder = Recorder::default();
    let server = builder(&notes, &recorder)
        .sessions_max_per_principal(2)
        .build()
        .unwrap();
    let server = Running::start(server).await;
    let url = &server.url;
    let others = initialize(url, "admin-key").await;
    let first = initialize(url, "reader-key").await;
    let second = initialize(url, "reader-key").await;
    // The first is used again: the second is now the least recently used.
    assert_eq!(list_on(url, "reader-key", &first).await, 200);
    let third = initialize(url, "reader-key").await;
    assert_eq!(list_on(url, "reader-key", &second).await, 404);
    assert_eq!(list_on(url, "reader-key", &first).await, 200);
    // Both sessions left in use (their streams open): the next one is refused.
    let streams = [
        open_stream(url, "reader-key", &first).await,
        open_stream(url, "reader-key", &third).await,
    ];
    let (status, retry, message) = refused_initialize(url, "reader-key").await;
    assert_eq!(status, 429, "{message}");
    assert!(retry.is_some());
    assert!(
        message.contains("--sessions-max-per-principal"),
        "{message}"
    );
    assert_eq!(list_on(url, "reader-key", &first).await, 200);
    // Once a stream ends, its session is idle and can be given up.
    drop(streams);
    let fourth = tokio::time::timeout(WAIT, async {
        loop {
            let response = send(post(url, "reader-key").body(INIT)).await;
            if response.status() == 200 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await;
    assert!(fourth.is_ok(), "a session is opened once one is idle");
    // Another principal's session was never touched.
    assert_eq!(list_on(url, "admin-key", &others).await, 200);
    server.stop().await.unwrap();
}

#[tokio::test]
async fn at_the_server_cap_new_sessions_are_refused_and_others_sessions_stay() {
    let notes = Notes::default();
    let recorder = Recorder::default();
    let server = builder(&notes, &recorder).sessions_max(3).build().unwrap();
    let server = Running::start(server).await;
    let url = &server.url;
    let others = initialize(url, "admin-key").await;
    let first = initialize(url, "reader-key").await;
    let second = initialize(url, "reader-key").await;
    let _streams = [
        open_stream(url, "reader-key", &first).await,
        open_stream(url, "reader-key", &second).await,
    ];
    for _ in 0..5 {
        let (status, retry, message) = refused_initialize(url, "reader-key").await;
        assert_eq!(status, 503, "{message}");
        assert!(retry.is_some());
        assert!(message.contains("--sessions-max"), "{message}");
    }
    // The idle session of another principal is not closed to make room.
    assert_eq!(list_on(url, "admin-key", &others).await, 200);
    // Its owner, whose one session is idle, gives that one up for a new one.
    let renewed = initialize(url, "admin-key").await;
    assert_eq!(list_on(url, "admin-key", &others).await, 404);
    assert_eq!(list_on(url, "admin-key", &renewed).await, 200);
    server.stop().await.unwrap();
}

#[test]
fn the_connection_and_session_flags_default_and_refuse_zero() {
    use clap::Parser as _;
    use mcpgen_runtime::cli::ServeArgs;
    use mcpgen_runtime::server::{
        DEFAULT_MAX_CONNECTIONS, DEFAULT_SESSIONS_MAX, DEFAULT_SESSIONS_MAX_PER_PRINCIPAL,
    };
    let parse = |extra: &[&str]| {
        let mut argv = vec!["notes-mcp", "--no-auth"];
        argv.extend(extra);
        ServeArgs::try_parse_from(argv)
    };
    let defaults = parse(&[]).unwrap().connections;
    assert_eq!(defaults.max_connections, DEFAULT_MAX_CONNECTIONS);
    assert_eq!(defaults.sessions_max, DEFAULT_SESSIONS_MAX);
    assert_eq!(
        defaults.sessions_max_per_principal,
        DEFAULT_SESSIONS_MAX_PER_PRINCIPAL
    );
    let set = parse(&[
        "--max-connections",
        "8",
        "--sessions-max",
        "20",
        "--sessions-max-per-principal",
        "3",
    ])
    .unwrap()
    .connections;
    assert_eq!(
        (
            set.max_connections,
            set.sessions_max,
            set.sessions_max_per_principal
        ),
        (8, 20, 3)
    );
    for flag in [
        "--max-connections",
        "--sessions-max",
        "--sessions-max-per-principal",
    ] {
        assert!(parse(&[flag, "0"]).is_err(), "{flag} 0 is refused");
    }
}
