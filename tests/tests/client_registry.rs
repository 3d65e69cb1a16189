//! The registry against real servers: our Streamable HTTP server on loopback, a command that
//! does not exist, and an address with nothing listening.

/// The runtime tests' helpers: a notes server on loopback and rmcp's clients.
#[allow(dead_code)] // the runtime's own tests use the rest
#[path = "../../runtime/tests/support/mod.rs"]
mod support;

use std::sync::Arc;
use std::time::Duration;

use mcpgen_client::breaker::{BreakerConfig, BreakerState, ManualClock};
use mcpgen_client::registry::{Registry, RegistryOptions};
use mcpgen_client::{
    ClientError, EnrichCall, Llm, LlmError, LlmTurn, LoopOptions, McpConfig, Message, ToolCall,
    ToolDefinition, enrich, run_tool_loop,
};
use mcpgen_runtime::server::Server;
use mcpgen_runtime::{BoxFuture, ToolDef, ToolResult};
use serde_json::{Value, json};
use support::*;
use tokio::sync::oneshot;

/// A server of the notes tools on loopback; `tools` limits which tools it has.
async fn notes_server(tools: Option<&'static [ToolDef]>) -> (Running, Notes) {
    let notes = Notes {
        tools,
        ..Notes::default()
    };
    let server = builder(&notes, &Recorder::default()).build().unwrap();
    (Running::start(server).await, notes)
}

/// A config entry for our loopback server, as the admin key holder.
fn http_entry(url: &str) -> Value {
    json!({
        "url": format!("{url}/mcp"),
        "headers": {"X-API-Key": "admin-key"},
        "allow_private": true,
        "timeout_ms": 5000
    })
}

fn config(servers: Value) -> McpConfig {
    McpConfig::from_json_str(&json!({ "mcpServers": servers }).to_string()).unwrap()
}

/// A loopback port with nothing listening on it.
fn dead_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .unwrap()
}

fn names(tools: &[mcpgen_client::registry::RegisteredTool]) -> Vec<String> {
    tools.iter().map(|t| t.name.clone()).collect()
}

fn text(result: &ToolResult) -> String {
    result.joined_text()
}

#[tokio::test]
async fn one_dead_server_of_three_leaves_the_others_working() {
    let (server, notes) = notes_server(None).await;
    let dead = dead_port();
    let cfg = config(json!({
        "gone": {"command": "/nonexistent/mcpgen-test-server", "args": []},
        "nobody": {"url": format!("http://127.0.0.1:{dead}/mcp"), "allow_private": true},
        "notes": http_entry(&server.url),
    }));
    let registry = Registry::connect(&cfg).await;

    let failures = registry.failures();
    let failed: Vec<&str> = failures.iter().map(|f| f.server.as_str()).collect();
    assert_eq!(failed, ["gone", "nobody"], "{failures:?}");
    assert!(
        failures[0]
            .error
            .contains("/nonexistent/mcpgen-test-server"),
        "{}",
        failures[0].error
    );
    assert!(
        failures[1].error.contains("nobody"),
        "{}",
        failures[1].error
    );
    assert_eq!(registry.connected_servers(), ["notes"]);

    let tools = registry.tools().await;
    assert_eq!(
        names(&tools),
        [
            "add_note",
            "list_notes",
            "plugin_echo",
            "remote_status",
            "slow"
        ]
    );
    let result = registry
        .call("list_notes", args(json!({"limit": 1})))
        .await
        .unwrap();
    assert_eq!(
        result.structured_content,
        Some(json!({"notes": ["note 1"]}))
    );
    assert_eq!(notes.calls(), ["list_notes"]);

    // A tool's own failure is a result, and does not count against the server.
    let failed = registry
        .call("remote_status", args(json!({})))
        .await
        .unwrap();
    assert!(failed.is_error);
    assert_eq!(
        registry.breaker_state("notes"),
        Some(BreakerState::Closed { failures: 0 })
    );

    let unknown = registry.call("nope", args(json!({}))).await.unwrap_err();
    assert!(matches!(unknown, ClientError::UnknownTool { .. }));
    assert_eq!(
        unknown.to_string(),
        "no tool `nope` in the registry (tools: add_note, list_notes, plugin_echo, remote_status, slow)"
    );

    registry.shutdown().await.unwrap();
    server.stop().await.unwrap();
}

#[tokio::test]
async fn colliding_tools_are_qualified_by_server_and_reach_their_server() {
    static TWO: &[ToolDef] = &[LIST_NOTES, SLOW];
    let (first, first_notes) = notes_server(None).await;
    let (second, second_notes) = notes_server(Some(TWO)).await;
    let cfg = config(json!({
        "alpha": http_entry(&first.url),
        "beta": http_entry(&second.url),
    }));
    let registry = Registry::connect(&cfg).await;
    assert!(registry.failures().is_empty(), "{:?}", registry.failures());
    let tools = registry.tools().await;
    assert_eq!(
        names(&tools),
        [
            "add_note",
            "alpha__list_notes",
            "alpha__slow",
            "beta__list_notes",
            "beta__slow",
            "plugin_echo",
            "remote_status",
        ]
    );
    assert!(registry.call("list_notes", args(json!({}))).await.is_err());
    let result = registry
        .call("beta__list_notes", args(json!({"limit": 2})))
        .await
        .unwrap();
    assert_eq!(text(&result), r#"{"notes":["note 1","note 2"]}"#);
    assert_eq!(second_notes.calls(), ["list_notes"]);
    assert!(first_notes.calls().is_empty());

    let beta = tools.iter().find(|t| t.name == "beta__slow").unwrap();
    assert_eq!((beta.server.as_str(), beta.tool.as_str()), ("beta", "slow"));
    registry.shutdown().await.unwrap();
    first.stop().await.unwrap();
    second.stop().await.unwrap();
}

#[tokio::test]
async fn allowlists_and_disabled_servers_limit_the_tools() {
    let (server, notes) = notes_server(None).await;
    let mut entry = http_entry(&server.url);
    entry["tools"] = json!(["list_notes", "plugin_echo"]);
    let cfg = config(json!({
        "notes": entry,
        "off": {"command": "/nonexistent/never-started", "disabled": true},
    }));
    let registry = Registry::connect(&cfg).await;
    assert!(registry.failures().is_empty(), "{:?}", registry.failures());
    assert_eq!(registry.connected_servers(), ["notes"]);
    assert_eq!(
        names(&registry.tools().await),
        ["list_notes", "plugin_echo"]
    );
    let refused = registry.call("slow", args(json!({"ms": 0}))).await;
    assert!(refused.is_err());
    assert!(notes.calls().is_empty());
    registry.shutdown().await.unwrap();
    server.stop().await.unwrap();
}

#[tokio::test]
async fn the_breaker_opens_when_a_server_goes_away() {
    let (server, _) = notes_server(None).await;
    let cfg = config(json!({ "notes": http_entry(&server.url) }));
    let clock = ManualClock::new();
    let options = RegistryOptions::default()
        .with_clock(Arc::new(clock.clone()))
        .with_breaker(BreakerConfig {
            failure_threshold: 3,
            cool_down: Duration::from_secs(30),
        });
    let registry = Registry::connect_with(&cfg, options).await;
    registry
        .call("list_notes", args(json!({})))
        .await
        .expect("works while the server is up");
    server.stop().await.unwrap();

    for i in 1..=3 {
        let err = registry
            .call("list_notes", args(json!({})))
            .await
            .unwrap_err();
        assert!(
            !err.to_string().contains("circuit breaker"),
            "call {i} reaches the server: {err}"
        );
    }
    assert!(matches!(
        registry.breaker_state("notes"),
        Some(BreakerState::Open { .. })
    ));
    let err = registry
        .call("list_notes", args(json!({})))
        .await
        .unwrap_err();
    assert!(matches!(err, ClientError::Unavailable(_)));
    assert_eq!(
        err.to_string(),
        "server `notes` is unavailable: circuit breaker open after 3 consecutive failures; next attempt allowed in 30 s"
    );

    // After the cool-down one probe goes through; it fails, so the breaker opens again.
    clock.advance(Duration::from_secs(30));
    let probe = registry
        .call("list_notes", args(json!({})))
        .await
        .unwrap_err();
    assert!(!probe.to_string().contains("circuit breaker"), "{probe}");
    assert!(matches!(
        registry.breaker_state("notes"),
        Some(BreakerState::Open { .. })
    ));
    let _ = registry.shutdown().await;
}

/// Serves the notes tools on `port`, until the returned sender is dropped or fired.
async fn notes_on_port(port: u16) -> (oneshot::Sender<()>, tokio::task::JoinHandle<()>) {
    let notes = Notes::default();
    let server: Server = builder(&notes, &Recorder::default()).build().unwrap();
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
        .await
        .unwrap();
    let (stop, stopped) = oneshot::channel::<()>();
    let task = tokio::spawn(async move {
        let _ = server
            .serve_listener(listener, async move {
                let _ = stopped.await;
            })
            .await;
    });
    (stop, task)
}

#[tokio::test]
async fn the_tool_list_is_cached_and_a_refresh_reaches_a_server_that_came_back() {
    let port = dead_port();
    let cfg = config(json!({
        "late": {"url": format!("http://127.0.0.1:{port}/mcp"), "headers": {"X-API-Key": "admin-key"}, "allow_private": true}
    }));
    let clock = ManualClock::new();
    let registry = Registry::connect_with(
        &cfg,
        RegistryOptions::default()
            .with_clock(Arc::new(clock.clone()))
            .with_tools_ttl(Duration::from_secs(60)),
    )
    .await;
    assert_eq!(registry.failures().len(), 1);
    assert!(registry.tools().await.is_empty());

    let (stop, task) = notes_on_port(port).await;
    // Within the time to live the cached (empty) list is used.
    clock.advance(Duration::from_secs(59));
    assert!(registry.tools().await.is_empty());
    assert_eq!(registry.failures().len(), 1);
    // Past it, the registry lists again and reconnects.
    clock.advance(Duration::from_secs(1));
    assert_eq!(registry.tools().await.len(), 5);
    assert!(registry.failures().is_empty());

    // An explicit refresh works at any time.
    registry.refresh().await;
    assert_eq!(registry.tools().await.len(), 5);
    registry.shutdown().await.unwrap();
    let _ = stop.send(());
    let _ = task.await;
}

#[tokio::test]
async fn enrichment_labels_results_with_server_and_tool() {
    let (server, _) = notes_server(None).await;
    let cfg = config(json!({
        "notes": http_entry(&server.url),
        "gone": {"command": "/nonexistent/mcpgen-test-server"},
    }));
    let registry = Registry::connect(&cfg).await;
    let out = enrich(&registry, "show me one note", |message| {
        let mut calls = vec![EnrichCall::new("remote_status", args(json!({})))];
        if message.contains("one note") {
            calls.push(EnrichCall::new("list_notes", args(json!({"limit": 1}))));
        }
        calls
    })
    .await;
    assert_eq!(
        out.block,
        "[notes/list_notes] {\"notes\":[\"note 1\"]}\n\
         (not available: [notes/remote_status]: GET /status failed with status 502 Bad Gateway (empty body))"
    );
    registry.shutdown().await.unwrap();
    server.stop().await.unwrap();
}

/// A model that asks for two tools once, then answers with what it was shown.
struct TwoCalls;

impl Llm for TwoCalls {
    fn respond<'a>(
        &'a self,
        messages: &'a [Message],
        tools: &'a [ToolDefinition],
    ) -> BoxFuture<'a, Result<LlmTurn, LlmError>> {
        Box::pin(async move {
            let results: Vec<String> = messages
                .iter()
                .filter_map(|m| match m {
                    Message::Tool {
                        content, is_error, ..
                    } => Some(format!("{is_error}:{content}")),
                    _ => None,
                })
                .collect();
            if !results.is_empty() {
                return Ok(LlmTurn::Final(results.join(" | ")));
            }
            assert!(tools.iter().any(|t| t.name == "list_notes"));
            let call = |id: &str, name: &str, args: Value| ToolCall {
                id: id.into(),
                name: name.into(),
                arguments: args,
            };
            Ok(LlmTurn::ToolCalls {
                text: None,
                calls: vec![
                    call("a", "list_notes", json!({"limit": 1})),
                    call("b", "remote_status", json!({})),
                ],
            })
        })
    }
}

#[tokio::test]
async fn the_tool_loop_runs_over_a_registry() {
    let (server, notes) = notes_server(None).await;
    let cfg = config(json!({ "notes": http_entry(&server.url) }));
    let registry = Registry::connect(&cfg).await;
    let tools = registry.definitions().await;
    let outcome = run_tool_loop(
        &TwoCalls,
        &registry,
        &tools,
        vec![Message::User("notes?".into())],
        &LoopOptions::default(),
    )
    .await
    .unwrap();
    assert_eq!(
        outcome.answer,
        "false:{\"notes\":[\"note 1\"]} | true:Error: GET /status failed with status 502 Bad Gateway (empty body)"
    );
    let flags: Vec<(&str, bool)> = outcome
        .trace
        .iter()
        .map(|t| (t.tool.as_str(), t.is_error))
        .collect();
    assert_eq!(flags, [("list_notes", false), ("remote_status", true)]);
    let mut called = notes.calls();
    called.sort();
    assert_eq!(called, ["list_notes", "remote_status"]);
    registry.shutdown().await.unwrap();
    server.stop().await.unwrap();
}
