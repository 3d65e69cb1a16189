//! The legacy HTTP+SSE transport (MCP 2024-11-05) on loopback, driven by hand with reqwest:
//! `GET /sse`, the `endpoint` event, POSTs to the announced URL, answers on the stream.

use std::time::Duration;

use crate::support::*;
use mcpgen_runtime::audit::AuditStatus;
use serde_json::{Value, json};

/// Bound on every wait in these tests, so a bug cannot hang the suite.
const WAIT: Duration = Duration::from_secs(5);

async fn start() -> (Running, Notes, Recorder) {
    let notes = Notes::default();
    let recorder = Recorder::default();
    let server = builder(&notes, &recorder).build().unwrap();
    (Running::start(server).await, notes, recorder)
}

/// One server-sent event.
#[derive(Debug)]
struct SseEvent {
    event: String,
    data: String,
}

/// An open `GET /sse` stream, read chunk by chunk and parsed by hand.
struct SseStream {
    response: reqwest::Response,
    buffer: String,
}

impl SseStream {
    /// Opens the stream as the holder of `key` (no credential when `None`).
    async fn open(url: &str, key: Option<&str>) -> reqwest::Response {
        let mut request = reqwest::Client::new()
            .get(format!("{url}/sse"))
            .header("accept", "text/event-stream");
        if let Some(key) = key {
            request = request.header("x-api-key", key);
        }
        tokio::time::timeout(WAIT, request.send())
            .await
            .expect("the stream opens in time")
            .expect("the request is sent")
    }

    /// Opens the stream and expects it to be accepted.
    async fn connect(url: &str, key: &str) -> Self {
        let response = Self::open(url, Some(key)).await;
        assert_eq!(response.status(), 200);
        let content_type = response.headers()["content-type"].to_str().unwrap();
        assert!(
            content_type.starts_with("text/event-stream"),
            "content type {content_type}"
        );
        Self {
            response,
            buffer: String::new(),
        }
    }

    /// The next event (comments skipped), or `None` when the stream ends.
    async fn next(&mut self) -> Option<SseEvent> {
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let block: String = self.buffer.drain(..end + 2).collect();
                let mut event = String::from("message");
                let mut data: Vec<&str> = Vec::new();
                let mut any = false;
                for line in block.lines() {
                    if let Some(value) = line.strip_prefix("event:") {
                        event = value.trim_start().to_owned();
                        any = true;
                    } else if let Some(value) = line.strip_prefix("data:") {
                        data.push(value.strip_prefix(' ').unwrap_or(value));
                        any = true;
                    }
                }
                if any {
                    return Some(SseEvent {
                        event,
                        data: data.join("\n"),
                    });
                }
                continue; // a comment (keep-alive)
            }
            let chunk = tokio::time::timeout(WAIT, self.response.chunk())
                .await
                .expect("an event arrives in time")
                .expect("the stream is readable")?;
            self.buffer.push_str(std::str::from_utf8(&chunk).unwrap());
        }
    }

    /// The next event, which must be a `message`; its JSON.
    async fn message(&mut self) -> Value {
        let event = self.next().await.expect("the stream is still open");
        assert_eq!(event.event, "message", "{event:?}");
        serde_json::from_str(&event.data).unwrap()
    }

    /// Reads the `endpoint` event; the absolute message URL.
    async fn endpoint(&mut self, url: &str) -> String {
        let event = self.next().await.expect("the endpoint event");
        assert_eq!(event.event, "endpoint");
        assert!(
            event.data.starts_with("/message?sessionId="),
            "endpoint {}",
            event.data
        );
        format!("{url}{}", event.data)
    }
}

/// POSTs `message` to the session's URL as the holder of `key`.
pub async fn post(endpoint: &str, key: &str, message: &Value) -> reqwest::Response {
    let request = reqwest::Client::new()
        .post(endpoint)
        .header("content-type", "application/json")
        .header("x-api-key", key)
        .body(message.to_string());
    tokio::time::timeout(WAIT, request.send())
        .await
        .expect("the POST is answered in time")
        .expect("the POST is sent")
}

/// POSTs and expects `202 Accepted` with an empty body.
async fn accepted(endpoint: &str, key: &str, message: Value) {
    let response = post(endpoint, key, &message).await;
    assert_eq!(response.status(), 202, "for {message}");
    let body = tokio::time::timeout(WAIT, response.text())
        .await
        .unwrap()
        .unwrap();
    assert!(body.is_empty(), "body {body:?}");
}

/// Opens a stream as `key` and goes through the `initialize` handshake; the message URL.
async fn initialized(url: &str, key: &str) -> (SseStream, String) {
    let mut stream = SseStream::connect(url, key).await;
    let endpoint = stream.endpoint(url).await;
    accepted(
        &endpoint,
        key,
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2024-11-05",
            "capabilities": {},
            "clientInfo": {"name": "legacy", "version": "1"},
        }}),
    )
    .await;
    let answer = stream.message().await;
    assert_eq!(answer["id"], 1, "{answer}");
    assert_eq!(answer["result"]["serverInfo"]["name"], "notes", "{answer}");
    assert_eq!(
        answer["result"]["protocolVersion"], "2024-11-05",
        "{answer}"
    );
    assert!(answer["result"]["capabilities"]["tools"].is_object());
    accepted(
        &endpoint,
        key,
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    )
    .await;
    (stream, endpoint)
}

async fn tool_names(stream: &mut SseStream, endpoint: &str, key: &str, id: u64) -> Vec<String> {
    accepted(
        endpoint,
        key,
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/list", "params": {}}),
    )
    .await;
    let answer = stream.message().await;
    assert_eq!(answer["id"], id, "{answer}");
    let mut names: Vec<String> = answer["result"]["tools"]
        .as_array()
        .expect("a tool list")
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect();
    names.sort();
    names
}

#[tokio::test]
async fn a_session_initializes_lists_and_calls_tools_over_the_stream() {
    let (server, notes, recorder) = start().await;
    let (mut stream, endpoint) = initialized(&server.url, "notes-key").await;

    assert_eq!(
        tool_names(&mut stream, &endpoint, "notes-key", 2).await,
        [
            "add_note",
            "list_notes",
            "plugin_echo",
            "remote_status",
            "slow"
        ]
    );

    accepted(
        &endpoint,
        "notes-key",
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
            "name": "add_note", "arguments": {"text": "hello"},
        }}),
    )
    .await;
    let answer = stream.message().await;
    assert_eq!(answer["id"], 3, "{answer}");
    assert_eq!(answer["result"]["isError"], false, "{answer}");
    assert_eq!(answer["result"]["content"][0]["text"], "added: hello");

    // Structured output of a read-only tool.
    accepted(
        &endpoint,
        "notes-key",
        json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {
            "name": "list_notes", "arguments": {"limit": 1},
        }}),
    )
    .await;
    let answer = stream.message().await;
    assert_eq!(answer["id"], 4, "{answer}");
    assert_eq!(
        answer["result"]["structuredContent"],
        json!({"notes": ["note 1"]})
    );

    assert_eq!(notes.calls(), ["add_note", "list_notes"]);
    let events = recorder.events();
    assert_eq!(events.len(), 2);
    assert!(events.iter().all(|e| e.status == AuditStatus::Ok));
    assert!(
        events
            .iter()
            .all(|e| e.principal.as_deref() == Some("notes"))
    );
    drop(stream);
    server.stop().await.unwrap();
}

#[tokio::test]
async fn each_session_sees_only_what_its_principal_may_call() {
    let (server, notes, _) = start().await;
    let (mut stream, endpoint) = initialized(&server.url, "reader-key").await;
    assert_eq!(
        tool_names(&mut stream, &endpoint, "reader-key", 2).await,
        ["list_notes", "remote_status", "slow"]
    );
    // A tool it may not call is answered like an unknown one, and not run.
    accepted(
        &endpoint,
        "reader-key",
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
            "name": "add_note", "arguments": {"text": "x"},
        }}),
    )
    .await;
    let answer = stream.message().await;
    assert_eq!(answer["id"], 3, "{answer}");
    let unknown = answer.get("error").is_some() || answer["result"]["isError"] == true;
    assert!(unknown, "{answer}");
    assert!(notes.calls().is_empty());
    drop(stream);
    server.stop().await.unwrap();
}

#[tokio::test]
async fn the_stream_is_refused_without_a_valid_credential() {
    let (server, _, _) = start().await;
    for key in [None, Some("wrong-key")] {
        let response = SseStream::open(&server.url, key).await;
        assert_eq!(response.status(), 401, "key {key:?}");
        assert!(response.headers().contains_key("www-authenticate"));
        let body: Value = tokio::time::timeout(WAIT, response.json())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(body["error"]["code"], -32001, "{body}");
    }
    server.stop().await.unwrap();
}

#[tokio::test]
async fn an_unknown_session_is_not_found() {
    let (server, _, _) = start().await;
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});
    let response = post(
        &format!("{}/message?sessionId=no-such-session", server.url),
        "admin-key",
        &ping,
    )
    .await;
    assert_eq!(response.status(), 404);
    // Without a credential, the POST is refused before the session is looked up.
    let response = reqwest::Client::new()
        .post(format!("{}/message?sessionId=no-such-session", server.url))
        .header("content-type", "application/json")
        .body(ping.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 401);
    server.stop().await.unwrap();
}

#[tokio::test]
async fn another_caller_cannot_post_to_a_session() {
    let (server, notes, _) = start().await;
    let (mut stream, endpoint) = initialized(&server.url, "reader-key").await;
    let call = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
        "name": "list_notes", "arguments": {},
    }});
    let response = post(&endpoint, "admin-key", &call).await;
    assert_eq!(response.status(), 403);
    assert!(notes.calls().is_empty());
    // The owner's session is unaffected.
    accepted(&endpoint, "reader-key", call).await;
    let answer = stream.message().await;
    assert_eq!(answer["id"], 7, "{answer}");
    assert_eq!(notes.calls(), ["list_notes"]);
    drop(stream);
    server.stop().await.unwrap();
}

#[tokio::test]
async fn a_malformed_message_is_a_bad_request() {
    let (server, _, _) = start().await;
    let mut stream = SseStream::connect(&server.url, "reader-key").await;
    let endpoint = stream.endpoint(&server.url).await;
    let response = reqwest::Client::new()
        .post(&endpoint)
        .header("content-type", "application/json")
        .header("x-api-key", "reader-key")
        .body("{not json")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 400);
    drop(stream);
    server.stop().await.unwrap();
}

#[tokio::test]
async fn closing_the_stream_ends_the_session() {
    let (server, _, _) = start().await;
    let (stream, endpoint) = initialized(&server.url, "reader-key").await;
    drop(stream);
    let ping = json!({"jsonrpc": "2.0", "id": 9, "method": "ping"});
    let ended = tokio::time::timeout(WAIT, async {
        loop {
            if post(&endpoint, "reader-key", &ping).await.status() == 404 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await;
    assert!(ended.is_ok(), "the session outlived its stream");
    server.stop().await.unwrap();
}

#[tokio::test]
async fn shutdown_closes_open_streams() {
    let (server, _, _) = start().await;
    let (mut stream, _endpoint) = initialized(&server.url, "reader-key").await;
    let stopping = tokio::spawn(server.stop());
    // The stream ends (cleanly or with a reset) instead of staying open.
    let end = tokio::time::timeout(WAIT, async {
        while let Ok(Some(_)) = stream.response.chunk().await {}
    })
    .await;
    assert!(end.is_ok(), "the stream stayed open after shutdown");
    tokio::time::timeout(Duration::from_secs(15), stopping)
        .await
        .expect("the server stops")
        .unwrap()
        .unwrap();
}
