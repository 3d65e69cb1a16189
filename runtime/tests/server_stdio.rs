//! The server over the stdio framing (newline-delimited JSON-RPC), through an in-memory pipe,
//! driven by rmcp's client. The caller is fixed when serving starts.

use crate::support::*;
use mcpgen_runtime::Principal;
use mcpgen_runtime::audit::AuditStatus;
use mcpgen_runtime::server::Server;
use rmcp::ServiceExt;
use rmcp::model::ErrorCode;
use rmcp::service::ServiceError;
use serde_json::json;

/// Serves `server` as `principal` over a duplex pipe and connects a client to the other end.
async fn connect_stdio(
    server: Server,
    principal: Principal,
) -> (
    Client,
    tokio::task::JoinHandle<Result<(), mcpgen_runtime::server::ServerError>>,
) {
    let (client_end, server_end) = tokio::io::duplex(64 * 1024);
    let (read, write) = tokio::io::split(server_end);
    let serving = tokio::spawn(async move { server.serve_io(principal, read, write).await });
    let client = ().serve(client_end).await.expect("the client initializes");
    (client, serving)
}

#[tokio::test]
async fn stdio_lists_and_calls_as_the_fixed_principal() {
    let notes = Notes::default();
    let recorder = Recorder::default();
    let server = builder(&notes, &recorder).build().unwrap();
    let (client, serving) = connect_stdio(server, FixedKeys::principal("reader-key")).await;

    let info = client.peer_info().unwrap();
    assert_eq!(info.server_info.as_ref().unwrap().name, "notes");
    let tools = client.list_all_tools().await.unwrap();
    assert_eq!(names(&tools), ["list_notes", "remote_status", "slow"]);

    let result = client
        .call_tool(call("list_notes", json!({"limit": 1})))
        .await
        .unwrap();
    assert_eq!(
        result.structured_content,
        Some(json!({"notes": ["note 1"]}))
    );

    let hidden = client
        .call_tool(call("add_note", json!({"text": "x"})))
        .await
        .unwrap_err();
    let ServiceError::McpError(hidden) = hidden else {
        panic!("a JSON-RPC error");
    };
    assert_eq!(hidden.code, ErrorCode::INVALID_PARAMS);
    assert_eq!(hidden.message, "Unknown tool: add_note");

    let invalid = client
        .call_tool(call("list_notes", json!({"limit": -1})))
        .await
        .unwrap();
    assert_eq!(invalid.is_error, Some(true));
    assert!(text(&invalid).contains("`/limit`"), "{}", text(&invalid));

    assert_eq!(notes.calls(), ["list_notes"]);
    client.cancel().await.unwrap();
    serving.await.unwrap().unwrap();
    let statuses: Vec<AuditStatus> = recorder.events().iter().map(|e| e.status).collect();
    assert_eq!(
        statuses,
        [
            AuditStatus::Ok,
            AuditStatus::Denied,
            AuditStatus::InvalidArguments
        ]
    );
    assert!(
        recorder.flushes() >= 1,
        "the end of the connection flushes the audit"
    );
}

#[tokio::test]
async fn stdio_with_an_unrestricted_principal_sees_every_tool() {
    let notes = Notes::default();
    let server = Server::builder("notes", "0.1.0")
        .tool_set(notes.clone())
        .no_auth()
        .build()
        .unwrap();
    let (client, serving) = connect_stdio(server, Principal::unrestricted("local")).await;
    let tools = client.list_all_tools().await.unwrap();
    assert_eq!(tools.len(), 5);
    let result = client
        .call_tool(call("plugin_echo", json!({"message": "hi"})))
        .await
        .unwrap();
    assert_eq!(text(&result), "hi");
    client.cancel().await.unwrap();
    serving.await.unwrap().unwrap();
}

#[tokio::test]
async fn a_client_that_leaves_before_initializing_is_not_an_error() {
    let server = Server::builder("notes", "0.1.0")
        .tool_set(Notes::default())
        .build()
        .unwrap();
    let (client_end, server_end) = tokio::io::duplex(1024);
    drop(client_end);
    let (read, write) = tokio::io::split(server_end);
    server
        .serve_io(Principal::unrestricted("local"), read, write)
        .await
        .unwrap();
}

/// A tool set whose only tool panics.
struct Panicky;

static PANICKY_TOOLS: &[mcpgen_runtime::ToolDef] = &[mcpgen_runtime::ToolDef {
    name: "explode",
    title: None,
    description: "Panics",
    input_schema: r#"{"type":"object"}"#,
    output_schema: None,
    full_input_schema: None,
    full_output_schema: None,
    full_defs: None,
    documented_output_schema: None,
    wrap_output: false,
    access: mcpgen_runtime::Access::Read,
    annotations: mcpgen_runtime::ToolAnnotations {
        read_only_hint: Some(true),
        destructive_hint: None,
        idempotent_hint: None,
        open_world_hint: None,
    },
    confirm: false,
    required_scope: None,
    plugin: None,
    http: None,
    declaration: None,
    view: None,
}];

impl mcpgen_runtime::ToolSet for Panicky {
    fn tools(&self) -> &'static [mcpgen_runtime::ToolDef] {
        PANICKY_TOOLS
    }

    fn call<'a>(
        &'a self,
        _tool: &'static mcpgen_runtime::ToolDef,
        _args: serde_json::Map<String, serde_json::Value>,
        _ctx: &'a mcpgen_runtime::CallContext,
    ) -> mcpgen_runtime::BoxFuture<'a, Result<mcpgen_runtime::ToolResult, mcpgen_runtime::ToolError>>
    {
        Box::pin(async { panic!("boom") })
    }
}

#[tokio::test]
async fn a_panicking_tool_is_an_error_result_and_the_connection_survives() {
    let recorder = Recorder::default();
    let server = Server::builder("notes", "0.1.0")
        .tool_set(Panicky)
        .tool_set(Notes::default())
        .audit(recorder.clone())
        .build()
        .unwrap();
    let (client, serving) = connect_stdio(server, Principal::unrestricted("local")).await;
    let result = client.call_tool(call("explode", json!({}))).await.unwrap();
    assert_eq!(result.is_error, Some(true));
    assert!(
        text(&result).contains("failed unexpectedly"),
        "{}",
        text(&result)
    );
    let after = client
        .call_tool(call("list_notes", json!({})))
        .await
        .unwrap();
    assert_eq!(after.is_error, Some(false));
    client.cancel().await.unwrap();
    serving.await.unwrap().unwrap();
    assert_eq!(recorder.events()[0].status, AuditStatus::ToolError);
}
