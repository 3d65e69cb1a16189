//! The generated Synaplan tool set against a loopback stand-in for the Synaplan API. (Arguments
//! are validated by the server before a tool set is called: see `synaplan_server.rs`.)

use mcpgen_runtime::{
    CallContext, Credential, LocalConnection, McpConnection, ToolDef, ToolSet, Upstream,
    UpstreamConfig,
};
use mcpgen_tests::{SYNAPLAN_PROMPTS, StandIn};
use serde_json::{Map, json};

fn tools_for(url: &str) -> mcpgen_runtime::OpenApiTools {
    let config = UpstreamConfig::new(url).with_credential(Credential::Header {
        name: "X-API-Key".into(),
        value: "sk-test-123".into(),
    });
    synaplan_mcp::tool_set(Upstream::new(config).expect("upstream client"))
}

/// The table entry of the tool `name`.
fn def(name: &str) -> &'static ToolDef {
    synaplan_mcp::TOOLS
        .iter()
        .find(|t| t.name == name)
        .expect("a Synaplan tool")
}

#[tokio::test]
async fn list_prompts_sends_get_with_api_key_and_returns_the_json() {
    let server = StandIn::start(vec![(
        "GET /api/v1/prompts",
        (200, "application/json", SYNAPLAN_PROMPTS.to_owned()),
    )])
    .await
    .expect("stand-in starts");
    let tools = tools_for(&server.url);

    let result = tools
        .call(
            def("synaplan_list_prompts"),
            Map::new(),
            &CallContext::default(),
        )
        .await
        .expect("dispatched");

    assert!(
        !result.is_error,
        "unexpected error: {}",
        result.joined_text()
    );
    let expected: serde_json::Value = serde_json::from_str(SYNAPLAN_PROMPTS).expect("json");
    assert_eq!(result.structured_content, Some(expected.clone()));
    let text: serde_json::Value =
        serde_json::from_str(&result.joined_text()).expect("text is JSON");
    assert_eq!(text, expected);

    let received = server.received();
    assert_eq!(received.len(), 1);
    assert_eq!(received[0].method, "GET");
    assert_eq!(received[0].uri, "/api/v1/prompts");
    assert_eq!(received[0].header("x-api-key"), Some("sk-test-123"));
}

#[tokio::test]
async fn query_arguments_reach_the_upstream() {
    let server = StandIn::start(vec![(
        "GET /api/v1/prompts",
        (200, "application/json", SYNAPLAN_PROMPTS.to_owned()),
    )])
    .await
    .expect("stand-in starts");
    let tools = tools_for(&server.url);
    let args = json!({ "language": "de" })
        .as_object()
        .cloned()
        .unwrap_or_default();
    let result = tools
        .call(def("synaplan_list_prompts"), args, &CallContext::default())
        .await
        .expect("dispatched");
    assert!(!result.is_error);
    assert_eq!(server.received()[0].uri, "/api/v1/prompts?language=de");
}

#[tokio::test]
async fn typed_client_stub_returns_typed_output() {
    let server = StandIn::start(vec![(
        "GET /api/v1/prompts",
        (200, "application/json", SYNAPLAN_PROMPTS.to_owned()),
    )])
    .await
    .expect("stand-in starts");
    let client = synaplan_mcp::Client::new(LocalConnection(tools_for(&server.url)));
    let args: synaplan_mcp::types::input::SynaplanListPromptsArgs =
        serde_json::from_value(json!({})).expect("args");
    let out = client
        .synaplan_list_prompts(&args)
        .await
        .expect("call succeeds");
    let out = serde_json::to_value(&out).expect("serialises");
    assert_eq!(out["prompts"][0]["topic"], "general");
}

#[tokio::test]
async fn unknown_tools_are_reported() {
    let connection = LocalConnection(tools_for("http://127.0.0.1:9"));
    let err = connection
        .call_tool("admin_delete_user", Map::new())
        .await
        .expect_err("unknown");
    assert!(err.to_string().contains("admin_delete_user"), "{err}");
}

#[test]
fn the_table_holds_exactly_the_allowlisted_tools() {
    let names: Vec<(&str, Option<&str>)> = synaplan_mcp::TOOLS
        .iter()
        .map(|t| (t.name, t.plugin))
        .collect();
    // The allowlist's tools in its order, then the `chat-organizer` plugin's.
    assert_eq!(
        names,
        [
            ("synaplan_send_message", None),
            ("synaplan_list_chats", None),
            ("synaplan_list_prompts", None),
            ("synaplan_search_documents", None),
            ("synaplan_upload_file", None),
            ("synaplan_list_files", None),
            ("synaplan_get_config", None),
            ("synaplan_rename_chat", Some("chat-organizer")),
        ]
    );
    let prompts = &synaplan_mcp::TOOLS[2];
    let http = prompts.http.expect("http binding");
    assert_eq!((http.method, http.path), ("GET", "/api/v1/prompts"));
    assert_eq!(prompts.annotations.read_only_hint, Some(true));
}
