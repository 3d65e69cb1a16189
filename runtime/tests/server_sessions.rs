//! `/mcp` sessions belong to the principal that initialized them: another valid key cannot
//! use (or open the stream of) someone else's session; the stateless protocol is unaffected.

mod support;

use std::time::Duration;

use serde_json::{Value, json};
use support::*;

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
