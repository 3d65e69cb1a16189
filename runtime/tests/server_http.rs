//! The server over Streamable HTTP on loopback, driven by rmcp's client (session and
//! stateless eras) and by plain HTTP requests for what a client library hides (status codes,
//! headers, bodies).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use crate::support::*;
use mcpgen_runtime::BoxFuture;
use mcpgen_runtime::audit::{AuditEvent, AuditSink, AuditStatus};
use rmcp::model::{ErrorCode, ProtocolVersion};
use rmcp::service::ServiceError;
use rmcp::{ClientLifecycleMode, ClientServiceExt, ServiceExt};
use serde_json::{Value, json};

const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#;

fn post(url: &str) -> reqwest::RequestBuilder {
    reqwest::Client::new()
        .post(format!("{url}/mcp"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
}

async fn start() -> (Running, Notes, Recorder) {
    let notes = Notes::default();
    let recorder = Recorder::default();
    let server = builder(&notes, &recorder).build().unwrap();
    (Running::start(server).await, notes, recorder)
}

#[tokio::test]
async fn initialize_reports_the_server_and_the_tools_capability() {
    let (server, _, _) = start().await;
    let client = connect(&server.url, "reader-key").await;
    let info = client.peer_info().expect("server info after initialize");
    assert_eq!(info.server_info.as_ref().unwrap().name, "notes");
    assert_eq!(info.server_info.as_ref().unwrap().version, "0.1.0");
    assert_eq!(
        info.server_info.as_ref().unwrap().description.as_deref(),
        Some("Notes for tests")
    );
    assert!(info.capabilities.tools.is_some());
    client.cancel().await.unwrap();
    server.stop().await.unwrap();
}

#[tokio::test]
async fn tools_list_shows_each_principal_only_what_it_may_call() {
    let (server, _, _) = start().await;
    let cases: [(&str, &[&str]); 4] = [
        ("reader-key", &["list_notes", "remote_status", "slow"]),
        // `mcp:write` is not enough for a tool with its own required scope.
        ("writer-key", &["list_notes", "remote_status", "slow"]),
        (
            "notes-key",
            &[
                "add_note",
                "list_notes",
                "plugin_echo",
                "remote_status",
                "slow",
            ],
        ),
        (
            "admin-key",
            &[
                "add_note",
                "list_notes",
                "plugin_echo",
                "remote_status",
                "slow",
            ],
        ),
    ];
    for (key, expected) in cases {
        let client = connect(&server.url, key).await;
        let tools = client.list_all_tools().await.unwrap();
        assert_eq!(names(&tools), expected, "tools for {key}");
        client.cancel().await.unwrap();
    }
    server.stop().await.unwrap();
}

#[tokio::test]
async fn listed_tools_carry_schemas_title_and_annotations() {
    let (server, _, _) = start().await;
    let client = connect(&server.url, "admin-key").await;
    let tools = client.list_all_tools().await.unwrap();
    let list = tools.iter().find(|t| t.name == "list_notes").unwrap();
    assert_eq!(list.title.as_deref(), Some("List notes"));
    assert_eq!(list.description.as_deref(), Some("List the notes"));
    assert_eq!(
        Value::Object((*list.input_schema).clone()),
        json!({"type":"object","properties":{"limit":{"type":"integer","minimum":1}}})
    );
    assert!(list.output_schema.is_some());
    let annotations = list.annotations.as_ref().unwrap();
    assert_eq!(annotations.read_only_hint, Some(true));
    client.cancel().await.unwrap();
    server.stop().await.unwrap();
}

#[tokio::test]
async fn a_call_returns_text_and_structured_content() {
    let (server, notes, recorder) = start().await;
    let client = connect(&server.url, "reader-key").await;
    let result = client
        .call_tool(call("list_notes", json!({"limit": 3})))
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(false));
    assert_eq!(
        result.structured_content,
        Some(json!({"notes": ["note 1", "note 2", "note 3"]}))
    );
    assert!(text(&result).contains("note 3"));
    assert_eq!(notes.calls(), ["list_notes"]);
    let events = recorder.events();
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].status, AuditStatus::Ok);
    assert_eq!(events[0].principal.as_deref(), Some("reader"));
    assert_eq!(events[0].key_id.as_deref(), Some("reader-key-id"));
    assert_eq!(events[0].tool, "list_notes");
    assert!(events[0].request_id.is_some());
    assert_eq!(events[0].args_sha256.len(), 64);
    assert_eq!(events[0].args, None, "raw arguments only when asked for");
    client.cancel().await.unwrap();
    server.stop().await.unwrap();
}

#[tokio::test]
async fn a_hidden_tool_is_answered_exactly_like_an_unknown_one() {
    let (server, notes, recorder) = start().await;
    let client = connect(&server.url, "writer-key").await;
    let hidden = client
        .call_tool(call("add_note", json!({"text": "hi"})))
        .await
        .unwrap_err();
    let unknown = client
        .call_tool(call("no_such_tool", json!({"text": "hi"})))
        .await
        .unwrap_err();
    let (ServiceError::McpError(hidden), ServiceError::McpError(unknown)) = (hidden, unknown)
    else {
        panic!("both calls should fail with a JSON-RPC error");
    };
    assert_eq!(hidden.code, unknown.code);
    assert_eq!(hidden.code, ErrorCode::INVALID_PARAMS);
    assert_eq!(hidden.message, "Unknown tool: add_note");
    assert_eq!(unknown.message, "Unknown tool: no_such_tool");
    assert_eq!(hidden.data, unknown.data);
    assert!(notes.calls().is_empty(), "the tool set saw no call");
    let statuses: Vec<AuditStatus> = recorder.events().iter().map(|e| e.status).collect();
    assert_eq!(statuses, [AuditStatus::Denied, AuditStatus::Denied]);
    client.cancel().await.unwrap();
    server.stop().await.unwrap();
}

#[tokio::test]
async fn plugin_tools_need_the_plugin() {
    let (server, _, _) = start().await;
    let with = connect(&server.url, "notes-key").await;
    let result = with
        .call_tool(call("plugin_echo", json!({"message": "hello"})))
        .await
        .unwrap();
    assert_eq!(text(&result), "hello");
    let without = connect(&server.url, "reader-key").await;
    let refused = without
        .call_tool(call("plugin_echo", json!({"message": "hello"})))
        .await
        .unwrap_err();
    assert!(
        refused.to_string().contains("Unknown tool: plugin_echo"),
        "{refused}"
    );
    with.cancel().await.unwrap();
    without.cancel().await.unwrap();
    server.stop().await.unwrap();
}

#[tokio::test]
async fn invalid_arguments_name_the_field_and_never_reach_the_tool_set() {
    let (server, notes, recorder) = start().await;
    let client = connect(&server.url, "notes-key").await;
    let wrong_type = client
        .call_tool(call("list_notes", json!({"limit": "ten"})))
        .await
        .unwrap();
    assert_eq!(wrong_type.is_error, Some(true));
    let message = text(&wrong_type);
    assert!(message.contains("`/limit`"), "{message}");
    assert!(message.contains("integer"), "{message}");
    let missing = client
        .call_tool(call("add_note", json!({"pinned": true})))
        .await
        .unwrap();
    assert_eq!(missing.is_error, Some(true));
    assert!(text(&missing).contains("`/text`"), "{}", text(&missing));
    assert!(notes.calls().is_empty(), "the tool set saw no call");
    let statuses: Vec<AuditStatus> = recorder.events().iter().map(|e| e.status).collect();
    assert_eq!(
        statuses,
        [AuditStatus::InvalidArguments, AuditStatus::InvalidArguments]
    );
    client.cancel().await.unwrap();
    server.stop().await.unwrap();
}

#[tokio::test]
async fn a_mixed_run_leaves_one_audit_record_per_call() {
    let notes = Notes::default();
    let recorder = Recorder::default();
    let server = builder(&notes, &recorder).audit_args(true).build().unwrap();
    let server = Running::start(server).await;
    let client = connect(&server.url, "notes-key").await;
    client
        .call_tool(call("list_notes", json!({})))
        .await
        .unwrap();
    client
        .call_tool(call("list_notes", json!({"limit": 0})))
        .await
        .unwrap();
    client
        .call_tool(call("hidden", json!({})))
        .await
        .unwrap_err();
    let failed = client
        .call_tool(call("remote_status", json!({})))
        .await
        .unwrap();
    assert_eq!(failed.is_error, Some(true));
    client
        .call_tool(call("add_note", json!({"text": "x"})))
        .await
        .unwrap();
    client.cancel().await.unwrap();
    server.stop().await.unwrap();

    let events = recorder.events();
    let statuses: Vec<AuditStatus> = events.iter().map(|e| e.status).collect();
    assert_eq!(
        statuses,
        [
            AuditStatus::Ok,
            AuditStatus::InvalidArguments,
            AuditStatus::Denied,
            AuditStatus::UpstreamError,
            AuditStatus::Ok,
        ]
    );
    assert_eq!(events[3].upstream_status, Some(502));
    assert_eq!(events[0].upstream_status, None);
    assert_eq!(events[4].args, Some(json!({"text": "x"})));
    assert!(events.iter().all(|e| e.time.ends_with('Z')));
    assert!(recorder.flushes() >= 1, "shutdown flushes the audit sinks");
}

#[tokio::test]
async fn the_rate_limit_says_when_to_retry() {
    let (server, notes, recorder) = start().await;
    let client = connect(&server.url, "limited-key").await;
    let first = client
        .call_tool(call("list_notes", json!({})))
        .await
        .unwrap();
    assert_eq!(first.is_error, Some(false));
    let second = client
        .call_tool(call("list_notes", json!({})))
        .await
        .unwrap();
    assert_eq!(second.is_error, Some(true));
    let message = text(&second);
    assert!(message.contains("retry after"), "{message}");
    assert!(message.contains("seconds"), "{message}");
    assert_eq!(notes.calls().len(), 1);
    assert_eq!(recorder.events()[1].status, AuditStatus::RateLimited);
    client.cancel().await.unwrap();
    server.stop().await.unwrap();
}

#[tokio::test]
async fn the_stateless_era_works_with_json_responses() {
    let (server, notes, _) = start().await;
    let client = ()
        .serve_with_lifecycle(
            http_transport(&server.url, &[("x-api-key", "reader-key")]),
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        )
        .await
        .expect("a 2026-07-28 client connects");
    let tools = client.list_all_tools().await.unwrap();
    assert_eq!(names(&tools), ["list_notes", "remote_status", "slow"]);
    let result = client
        .call_tool(call("list_notes", json!({})))
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(false));
    assert_eq!(notes.calls(), ["list_notes"]);
    client.cancel().await.unwrap();

    // On the wire: a plain JSON response, no session.
    let body = json!({
        "jsonrpc": "2.0", "id": 7, "method": "tools/list",
        "params": {"_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": {}
        }}
    });
    let response = post(&server.url)
        .header("x-api-key", "reader-key")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/list")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert!(response.headers().get("mcp-session-id").is_none());
    let content_type = response.headers()["content-type"]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(
        content_type.starts_with("application/json"),
        "{content_type}"
    );
    let answer: Value = response.json().await.unwrap();
    assert_eq!(answer["id"], 7);
    assert_eq!(answer["result"]["tools"].as_array().unwrap().len(), 3);
    server.stop().await.unwrap();
}

#[tokio::test]
async fn a_missing_or_wrong_credential_gets_401_with_a_challenge_and_a_jsonrpc_body() {
    let (server, _, _) = start().await;
    for (header, expected_error) in [
        (None, "missing credential"),
        (Some(("x-api-key", "wrong")), "invalid credential"),
        (
            Some(("authorization", "Bearer wrong")),
            "invalid credential",
        ),
    ] {
        let mut request = post(&server.url).body(INIT);
        if let Some((name, value)) = header {
            request = request.header(name, value);
        }
        let response = request.send().await.unwrap();
        assert_eq!(response.status(), 401, "{header:?}");
        let challenge = response.headers()["www-authenticate"]
            .to_str()
            .unwrap()
            .to_owned();
        assert!(challenge.starts_with("Bearer realm=\"mcp\""), "{challenge}");
        let body: Value = response.json().await.unwrap();
        assert_eq!(body["jsonrpc"], "2.0");
        assert_eq!(body["id"], Value::Null);
        assert_eq!(body["error"]["code"], -32001);
        let message = body["error"]["message"].as_str().unwrap();
        assert!(message.contains(expected_error), "{message}");
    }
    // The rmcp client sees the refusal as a failed connection.
    let refused = ().serve(http_transport(&server.url, &[("x-api-key", "wrong")])).await;
    assert!(refused.is_err());
    server.stop().await.unwrap();
}

#[tokio::test]
async fn a_lowercase_bearer_scheme_is_accepted() {
    let (server, _, _) = start().await;
    let client = ()
        .serve(http_transport(
            &server.url,
            &[("authorization", "bearer admin-key")],
        ))
        .await
        .expect("lowercase bearer connects");
    let tools = client.list_all_tools().await.unwrap();
    assert_eq!(tools.len(), 5);
    client.cancel().await.unwrap();
    server.stop().await.unwrap();
}

#[tokio::test]
async fn a_foreign_origin_gets_403() {
    let (server, _, _) = start().await;
    let response = post(&server.url)
        .header("x-api-key", "admin-key")
        .header("origin", "https://evil.example")
        .body(INIT)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 403);
    // A loopback origin is fine on a loopback server.
    let response = post(&server.url)
        .header("x-api-key", "admin-key")
        .header("origin", "http://localhost:6274")
        .body(INIT)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    server.stop().await.unwrap();
}

#[tokio::test]
async fn a_foreign_host_gets_403_before_authentication() {
    let (server, _, _) = start().await;
    let response = post(&server.url)
        .header("host", format!("evil.example:{}", server.addr.port()))
        .body(INIT)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 403);
    let body = response.text().await.unwrap();
    assert!(body.contains("Host"), "{body}");
    server.stop().await.unwrap();
}

#[tokio::test]
async fn configured_hosts_replace_the_loopback_defaults() {
    let notes = Notes::default();
    let recorder = Recorder::default();
    let server = builder(&notes, &recorder)
        .allowed_hosts(vec!["mcp.example.com".into()])
        .build()
        .unwrap();
    let server = Running::start(server).await;
    let response = post(&server.url)
        .header("x-api-key", "admin-key")
        .body(INIT)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 403, "127.0.0.1 is no longer allowed");
    let response = post(&server.url)
        .header("x-api-key", "admin-key")
        .header("host", "mcp.example.com")
        .body(INIT)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    server.stop().await.unwrap();
}

#[tokio::test]
async fn an_oversized_body_gets_413() {
    let notes = Notes::default();
    let recorder = Recorder::default();
    let server = builder(&notes, &recorder)
        .max_body_bytes(1024)
        .build()
        .unwrap();
    let server = Running::start(server).await;
    let big = json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "add_note", "arguments": {"text": "x".repeat(2048)}}
    });
    let response = post(&server.url)
        .header("x-api-key", "admin-key")
        .body(big.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 413);
    let body: Value = response.json().await.unwrap();
    assert!(body["error"]["message"].as_str().unwrap().contains("1024"));
    assert!(notes.calls().is_empty());
    server.stop().await.unwrap();
}

#[tokio::test]
async fn healthz_needs_no_credential() {
    let (server, _, _) = start().await;
    let response = reqwest::get(format!("{}/healthz", server.url))
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.text().await.unwrap(), "ok");
    server.stop().await.unwrap();
}

#[tokio::test]
async fn the_server_cards_describe_the_server_without_a_credential() {
    let (server, _, _) = start().await;
    let card: Value = reqwest::get(format!("{}/.well-known/mcp.json", server.url))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        card,
        json!({
            "name": "notes",
            "version": "0.1.0",
            "description": "Notes for tests",
            "endpoint": "/mcp",
            "transports": ["streamable-http", "sse"],
            "auth": "api-key",
        })
    );

    let draft: Value = reqwest::get(format!("{}/mcp/server-card", server.url))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        draft["$schema"],
        "https://static.modelcontextprotocol.io/schemas/v2/server-card.schema.json"
    );
    assert_eq!(draft["name"], "mcpgen.local/notes");
    assert_eq!(draft["version"], "0.1.0");
    assert_eq!(draft["description"], "Notes for tests");
    let remotes = draft["remotes"].as_array().unwrap();
    assert_eq!(remotes[0]["type"], "streamable-http");
    assert_eq!(remotes[0]["url"], format!("{}/mcp", server.url));
    assert_eq!(remotes[0]["headers"][0]["name"], "Authorization");
    assert!(
        remotes[0]["supportedProtocolVersions"]
            .as_array()
            .unwrap()
            .contains(&json!("2026-07-28"))
    );
    assert_eq!(remotes[1]["type"], "sse");
    server.stop().await.unwrap();
}

#[tokio::test]
async fn without_auth_the_card_says_none_and_calls_act_as_anonymous() {
    let notes = Notes::default();
    let recorder = Recorder::default();
    let server = mcpgen_runtime::server::Server::builder("open", "1.0.0")
        .tool_set(notes.clone())
        .no_auth()
        .audit(recorder.clone())
        .build()
        .unwrap();
    let server = Running::start(server).await;
    let card: Value = reqwest::get(format!("{}/.well-known/mcp.json", server.url))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(card["auth"], "none");
    let client = ().serve(http_transport(&server.url, &[])).await.unwrap();
    assert_eq!(client.list_all_tools().await.unwrap().len(), 5);
    client
        .call_tool(call("list_notes", json!({})))
        .await
        .unwrap();
    assert_eq!(recorder.events()[0].principal.as_deref(), Some("anonymous"));
    client.cancel().await.unwrap();
    server.stop().await.unwrap();
}

/// A sink that keeps records only while its switch is on, and counts what it is handed.
#[derive(Clone, Default)]
struct Switched {
    on: Arc<AtomicBool>,
    handed: Arc<AtomicUsize>,
}

impl AuditSink for Switched {
    fn record<'a>(&'a self, event: AuditEvent) -> BoxFuture<'a, ()> {
        assert!(!event.time.is_empty(), "a record handed over is complete");
        self.handed.fetch_add(1, Ordering::SeqCst);
        Box::pin(std::future::ready(()))
    }

    fn flush<'a>(&'a self) -> BoxFuture<'a, ()> {
        Box::pin(std::future::ready(()))
    }

    fn keeps_records(&self) -> bool {
        self.on.load(Ordering::SeqCst)
    }
}

#[tokio::test]
async fn no_record_is_put_together_for_sinks_that_keep_none() {
    let sink = Switched::default();
    let server = mcpgen_runtime::server::Server::builder("open", "1.0.0")
        .tool_set(Notes::default())
        .no_auth()
        .audit(sink.clone())
        .build()
        .unwrap();
    let server = Running::start(server).await;
    let client = ().serve(http_transport(&server.url, &[])).await.unwrap();
    let list = || call("list_notes", json!({}));
    client.call_tool(list()).await.unwrap();
    assert_eq!(sink.handed.load(Ordering::SeqCst), 0);
    sink.on.store(true, Ordering::SeqCst);
    client.call_tool(list()).await.unwrap();
    assert_eq!(sink.handed.load(Ordering::SeqCst), 1);
    client.cancel().await.unwrap();
    server.stop().await.unwrap();
}

#[tokio::test]
async fn shutdown_lets_a_call_in_progress_finish_and_flushes_the_audit() {
    let (mut server, notes, recorder) = start().await;
    let client = connect(&server.url, "reader-key").await;
    let call_in_progress = tokio::spawn(async move {
        let result = client.call_tool(call("slow", json!({"ms": 300}))).await;
        (client, result)
    });
    // Wait until the tool set has the call, then ask the server to stop.
    for _ in 0..100 {
        if !notes.calls().is_empty() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    server.trigger_stop();
    let (client, result) = call_in_progress.await.unwrap();
    let result = result.expect("the call in progress gets its answer");
    assert_eq!(text(&result), "waited 300 ms");
    server.stop().await.unwrap();
    assert_eq!(recorder.events().len(), 1);
    assert!(recorder.flushes() >= 1);
    drop(client);
}
