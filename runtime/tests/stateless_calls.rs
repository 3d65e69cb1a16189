//! Stateless 2026-07-28 `tools/call`s are answered by the runtime's own handler: on the wire
//! each answer must be exactly what rmcp sends for the same request.
//!
//! An `Accept` header with a weight (`;q=1`) means the same to rmcp but keeps a request off the
//! runtime's path, so each request is sent both ways and the answers compared: status,
//! `Content-Type` and body, byte for byte (the sealed `requestState` of an `input_required`
//! answer is random, so there the bodies are compared without it).

use crate::support;

use mcpgen_runtime::input::Elicitation;
use mcpgen_runtime::server::Server;
use mcpgen_runtime::{
    BoxFuture, CallContext, LogLevel, ToolContext, ToolDef, ToolError, ToolResult, ToolSet,
};
use serde_json::{Map, Value, json};
use std::time::Duration;
use support::*;
use tokio::sync::mpsc;

static TOOLS: &[ToolDef] = &[
    support::read_tool(
        "report",
        "Reports progress twice and logs once",
        r#"{"type":"object","properties":{}}"#,
    ),
    support::read_tool(
        "ask",
        "Asks the user for a colour",
        r#"{"type":"object","properties":{}}"#,
    ),
];

/// Tools that talk to the client before they answer.
struct Talkative;

impl ToolSet for Talkative {
    fn tools(&self) -> &'static [ToolDef] {
        TOOLS
    }

    fn call<'a>(
        &'a self,
        tool: &'static ToolDef,
        _args: Map<String, Value>,
        call: &'a CallContext,
    ) -> BoxFuture<'a, Result<ToolResult, ToolError>> {
        let ctx = ToolContext::from_call(call);
        Box::pin(async move {
            match tool.name {
                "report" => {
                    let _ = ctx.progress(1.0, Some(2.0), Some("half way")).await;
                    let _ = ctx.progress(2.0, Some(2.0), None).await;
                    let _ = ctx.log(LogLevel::Info, json!({"event": "done"})).await;
                    Ok(ToolResult::text("reported"))
                }
                "ask" => {
                    let schema =
                        json!({"type": "object", "properties": {"colour": {"type": "string"}}});
                    let form = Elicitation::new("Which colour?", schema);
                    Ok(match ctx.elicit("colour", form).await {
                        Ok(answer) => ToolResult::text(format!("{answer:?}")),
                        Err(error) => ToolResult::error(error.to_string()),
                    })
                }
                other => Err(ToolError::UnknownTool(other.to_owned())),
            }
        })
    }
}

static WAITING: &[ToolDef] = &[support::read_tool(
    "wait_for_cancel",
    "Waits until the call is cancelled",
    r#"{"type":"object","properties":{}}"#,
)];

/// A tool that says when it starts, waits for its cancellation, and says whether it came.
struct Waiting {
    started: mpsc::UnboundedSender<()>,
    outcome: mpsc::UnboundedSender<bool>,
}

impl ToolSet for Waiting {
    fn tools(&self) -> &'static [ToolDef] {
        WAITING
    }

    fn call<'a>(
        &'a self,
        _tool: &'static ToolDef,
        _args: Map<String, Value>,
        call: &'a CallContext,
    ) -> BoxFuture<'a, Result<ToolResult, ToolError>> {
        let ctx = ToolContext::from_call(call);
        Box::pin(async move {
            let _ = self.started.send(());
            let seen = tokio::time::timeout(Duration::from_secs(10), ctx.cancelled())
                .await
                .is_ok();
            let _ = self.outcome.send(seen && ctx.is_cancelled());
            Ok(ToolResult::text("waited"))
        })
    }
}

/// One stateless `tools/call` of `name` with `arguments` and extra `_meta`, as `key`.
async fn call_tool(
    url: &str,
    key: &str,
    name: &str,
    arguments: Value,
    meta: Value,
    accept: &str,
) -> Answer {
    let mut extra =
        json!({"io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}}});
    if let (Some(extra), Some(meta)) = (extra.as_object_mut(), meta.as_object()) {
        extra.extend(meta.clone());
    }
    let body = json!({
        "jsonrpc": "2.0", "id": "call-1", "method": "tools/call",
        "params": {"name": name, "arguments": arguments, "_meta": stateless_meta(extra)}
    });
    post_stateless(url, key, "tools/call", &[("mcp-name", name)], &body, accept).await
}

/// Sends the call both ways; asserts the answers are the same and returns the runtime's.
async fn both_ways(url: &str, key: &str, name: &str, arguments: Value, meta: Value) -> Answer {
    let ours = call_tool(
        url,
        key,
        name,
        arguments.clone(),
        meta.clone(),
        RUNTIME_PATH,
    )
    .await;
    let rmcp = call_tool(url, key, name, arguments, meta, THROUGH_RMCP).await;
    assert_eq!(
        (ours.status, &ours.content_type),
        (rmcp.status, &rmcp.content_type),
        "{name}"
    );
    assert_eq!(ours.body, rmcp.body, "{name}");
    ours
}

#[tokio::test]
async fn results_and_errors_are_rmcps() {
    let notes = Notes::default();
    let recorder = Recorder::default();
    let server = Running::start(builder(&notes, &recorder).build().unwrap()).await;
    let url = &server.url;

    let listed = both_ways(url, "reader-key", "list_notes", json!({}), json!({})).await;
    assert_eq!(listed.status, 200);
    assert!(listed.content_type.starts_with("application/json"));
    let answer: Value = serde_json::from_str(&listed.body).unwrap();
    assert_eq!(answer["id"], "call-1");
    assert_eq!(answer["result"]["isError"], false, "{answer}");

    // Invalid arguments: an error result naming the field.
    let invalid = both_ways(url, "notes-key", "add_note", json!({"text": 5}), json!({})).await;
    let answer: Value = serde_json::from_str(&invalid.body).unwrap();
    assert_eq!(answer["result"]["isError"], true, "{answer}");

    // An unknown tool and a tool the caller may not see: the same JSON-RPC error.
    let unknown = both_ways(url, "reader-key", "no_such_tool", json!({}), json!({})).await;
    let hidden = both_ways(
        url,
        "reader-key",
        "add_note",
        json!({"text": "x"}),
        json!({}),
    )
    .await;
    let unknown: Value = serde_json::from_str(&unknown.body).unwrap();
    let hidden: Value = serde_json::from_str(&hidden.body).unwrap();
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
    assert_eq!(hidden["error"]["code"], -32602, "{hidden}");

    // Each call ran once per way.
    assert_eq!(notes.calls(), ["list_notes", "list_notes"]);
    server.stop().await.unwrap();
}

#[tokio::test]
async fn notifications_come_first_on_an_sse_answer_as_rmcp_sends_them() {
    let server = Server::builder("talkative", "0.1.0")
        .tool_set(Talkative)
        .authenticator(FixedKeys::new())
        .audit(Recorder::default())
        .build()
        .unwrap();
    let server = Running::start(server).await;
    let meta = json!({"progressToken": "p-1", "io.modelcontextprotocol/logLevel": "info"});
    let answer = both_ways(&server.url, "reader-key", "report", json!({}), meta).await;
    assert!(
        answer.content_type.starts_with("text/event-stream"),
        "{}",
        answer.content_type
    );
    let events: Vec<Value> = answer
        .body
        .lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .map(|data| serde_json::from_str(data.trim()).unwrap())
        .collect();
    let methods: Vec<&str> = events
        .iter()
        .map(|e| e["method"].as_str().unwrap_or("(answer)"))
        .collect();
    assert_eq!(
        methods,
        [
            "notifications/progress",
            "notifications/progress",
            "notifications/message",
            "(answer)"
        ]
    );
    assert_eq!(events[3]["result"]["content"][0]["text"], "reported");

    // Without a progress token or a log level nothing is sent first: plain JSON.
    let quiet = both_ways(&server.url, "reader-key", "report", json!({}), json!({})).await;
    assert!(quiet.content_type.starts_with("application/json"));
    server.stop().await.unwrap();
}

#[tokio::test]
async fn input_required_is_answered_as_rmcp_answers_it() {
    let server = Server::builder("talkative", "0.1.0")
        .tool_set(Talkative)
        .authenticator(FixedKeys::new())
        .audit(Recorder::default())
        .build()
        .unwrap();
    let server = Running::start(server).await;
    let mut answers = Vec::new();
    for accept in [RUNTIME_PATH, THROUGH_RMCP] {
        let answer = call_tool(
            &server.url,
            "reader-key",
            "ask",
            json!({}),
            json!({}),
            accept,
        )
        .await;
        let mut body: Value = serde_json::from_str(&answer.body).unwrap();
        let state = body["result"]
            .as_object_mut()
            .and_then(|result| result.remove("requestState"));
        assert!(state.is_some_and(|s| s.is_string()), "{body}");
        answers.push((answer.status, answer.content_type, body));
    }
    assert_eq!(answers[0], answers[1]);
    assert_eq!(
        answers[0].2["result"]["resultType"], "input_required",
        "{}",
        answers[0].2
    );
    server.stop().await.unwrap();
}

#[tokio::test]
async fn a_client_that_goes_away_cancels_the_call_which_still_runs_to_its_record() {
    let (started, mut has_started) = mpsc::unbounded_channel();
    let (outcome, mut has_ended) = mpsc::unbounded_channel();
    let recorder = Recorder::default();
    let server = Server::builder("waiting", "0.1.0")
        .tool_set(Waiting { started, outcome })
        .authenticator(FixedKeys::new())
        .audit(recorder.clone())
        .build()
        .unwrap();
    let server = Running::start(server).await;
    let url = server.url.clone();
    let request = tokio::spawn(async move {
        call_tool(
            &url,
            "reader-key",
            "wait_for_cancel",
            json!({}),
            json!({}),
            RUNTIME_PATH,
        )
        .await
    });
    let patience = Duration::from_secs(10);
    tokio::time::timeout(patience, has_started.recv())
        .await
        .expect("the tool starts in time");
    // The client goes away: its connection closes with the call unanswered.
    request.abort();
    let cancelled = tokio::time::timeout(patience, has_ended.recv())
        .await
        .expect("the tool ends in time");
    assert_eq!(cancelled, Some(true), "the tool saw its cancellation");
    let recorded = async {
        while recorder.events().is_empty() {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    };
    tokio::time::timeout(patience, recorded)
        .await
        .expect("the call is recorded");
    let events = recorder.events();
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].tool, "wait_for_cancel");
    server.stop().await.unwrap();
}
