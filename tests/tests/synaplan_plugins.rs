//! The Synaplan `chat-organizer` plugin (`specs/synaplan/plugins/chat-organizer/manifest.json`)
//! in the generated server binary: its tool `synaplan_rename_chat` is listed and callable for a
//! principal whose key names the plugin, and for any other principal it is absent from
//! `tools/list` and a call is answered exactly like a call to a tool that does not exist; over
//! stdio and over Streamable HTTP, with rmcp's client.

use std::path::{Path, PathBuf};

use mcpgen_tests::{StandIn, http_client, start_synaplan_http, workspace_binary};
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, ErrorData};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};

const PLUGIN_TOOL: &str = "synaplan_rename_chat";
/// A name of the same length that no catalog has.
const UNKNOWN_TOOL: &str = "synaplan_rename_chaX";
/// The allowlisted tools, and `describe_tools` (`synaplan_get_config`'s output schema is
/// summarised).
const CORE_TOOLS: [&str; 8] = [
    "describe_tools",
    "synaplan_get_config",
    "synaplan_list_chats",
    "synaplan_list_files",
    "synaplan_list_prompts",
    "synaplan_search_documents",
    "synaplan_send_message",
    "synaplan_upload_file",
];
const RENAMED: &str =
    r#"{"id":5,"title":"Contract review","createdAt":"2024-05-01T10:00:00Z","messageCount":3}"#;

/// Keys: `organizer` has the plugin, `everything` has every plugin (`*`), `plain` has none and
/// `billing` another one; all may call every tool otherwise (`mcp:*`).
const KEYS: [(&str, &str); 4] = [
    ("organizer", "plugins: [chat-organizer]"),
    ("everything", "plugins: ['*']"),
    ("plain", ""),
    ("billing", "plugins: [billing]"),
];

fn key(id: &str) -> String {
    format!("{id}-key-0123456789")
}

fn keys_file(dir: &Path) -> PathBuf {
    let mut text = String::from("keys:\n");
    for (id, plugins) in KEYS {
        text.push_str(&format!(
            "  - id: {id}\n    key: {}\n    principal: {id}\n    scopes: ['mcp:*']\n",
            key(id)
        ));
        if !plugins.is_empty() {
            text.push_str(&format!("    {plugins}\n"));
        }
    }
    let path = dir.join("keys.yaml");
    std::fs::write(&path, text).expect("write keys");
    path
}

async fn stand_in() -> StandIn {
    StandIn::start(vec![(
        "PUT /api/v1/chats/5",
        (200, "application/json", RENAMED.to_owned()),
    )])
    .await
    .expect("stand-in starts")
}

fn rename(name: &str) -> CallToolRequestParams {
    let args = json!({"id": 5, "body": {"title": "Contract review"}});
    CallToolRequestParams::new(name.to_owned())
        .with_arguments(args.as_object().cloned().unwrap_or_default())
}

async fn stdio_client(upstream: &str, keys: &Path, key: &str) -> RunningService<RoleClient, ()> {
    let mut cmd = tokio::process::Command::new(workspace_binary("synaplan-mcp"));
    cmd.args([
        "--keys",
        keys.to_str().expect("utf8"),
        "--upstream-url",
        upstream,
    ])
    .env("MCPGEN_API_KEY", key)
    .env("RUST_LOG", "warn");
    ().serve(TokioChildProcess::new(cmd).expect("spawn"))
        .await
        .expect("client connects")
}

fn protocol_error(
    what: &str,
    outcome: Result<rmcp::model::CallToolResult, rmcp::ServiceError>,
) -> ErrorData {
    match outcome {
        Err(rmcp::ServiceError::McpError(e)) => e,
        other => panic!("{what}: expected a JSON-RPC error, got {other:?}"),
    }
}

/// Lists and calls as the principal of `key_id` on `client`, checking what it may see.
async fn check(
    transport: &str,
    key_id: &str,
    client: RunningService<RoleClient, ()>,
    upstream: &StandIn,
) {
    let what = format!("{transport}, key {key_id}");
    let has_plugin = matches!(key_id, "organizer" | "everything");
    let before = upstream.received().len();

    let mut names: Vec<String> = client
        .list_all_tools()
        .await
        .expect("tools/list")
        .iter()
        .map(|t| t.name.to_string())
        .collect();
    names.sort();
    let mut expected: Vec<&str> = CORE_TOOLS.to_vec();
    if has_plugin {
        expected.push(PLUGIN_TOOL);
        expected.sort();
    }
    assert_eq!(names, expected, "{what}");

    let outcome = client.call_tool(rename(PLUGIN_TOOL)).await;
    if has_plugin {
        let result = outcome.unwrap_or_else(|e| panic!("{what}: tools/call failed: {e}"));
        assert_ne!(result.is_error, Some(true), "{what}: {result:?}");
        let expected: Value = serde_json::from_str(RENAMED).expect("json");
        assert_eq!(result.structured_content, Some(expected), "{what}");
        let received = upstream.received();
        assert_eq!(received.len(), before + 1, "{what}");
        let sent = &received[before];
        assert_eq!(
            (sent.method.as_str(), sent.uri.as_str()),
            ("PUT", "/api/v1/chats/5")
        );
        let body: Value = serde_json::from_slice(&sent.body).expect("JSON body");
        assert_eq!(body, json!({"title": "Contract review"}), "{what}");
    } else {
        let hidden = protocol_error(&what, outcome);
        let unknown = protocol_error(&what, client.call_tool(rename(UNKNOWN_TOOL)).await);
        assert_eq!(
            hidden.message,
            format!("Unknown tool: {PLUGIN_TOOL}"),
            "{what}"
        );
        // Exactly the answer for a tool that does not exist: same code, same data, same
        // message but for the echoed name.
        assert_eq!(hidden.code, unknown.code, "{what}");
        assert_eq!(hidden.data, unknown.data, "{what}");
        assert_eq!(
            hidden.message.replace(PLUGIN_TOOL, UNKNOWN_TOOL),
            unknown.message,
            "{what}"
        );
        assert_eq!(
            upstream.received().len(),
            before,
            "{what}: nothing reached the API"
        );
    }
    client.cancel().await.ok();
}

#[tokio::test]
async fn the_plugin_tool_is_only_for_principals_with_the_plugin_over_stdio() {
    let upstream = stand_in().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let keys = keys_file(dir.path());
    for (id, _) in KEYS {
        let client = stdio_client(&upstream.url, &keys, &key(id)).await;
        check("stdio", id, client, &upstream).await;
    }
}

#[tokio::test]
async fn the_plugin_tool_is_only_for_principals_with_the_plugin_over_http() {
    let upstream = stand_in().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let keys = keys_file(dir.path());
    let (server, url) =
        start_synaplan_http(&upstream.url, &["--keys", keys.to_str().expect("utf8")]).await;
    for (id, _) in KEYS {
        let client = http_client(&url, &key(id)).await;
        check("HTTP", id, client, &upstream).await;
    }
    drop(server);
}

#[tokio::test]
async fn without_auth_every_plugin_tool_is_listed() {
    let upstream = stand_in().await;
    let mut cmd = tokio::process::Command::new(workspace_binary("synaplan-mcp"));
    cmd.args(["--no-auth", "--upstream-url", &upstream.url])
        .env("RUST_LOG", "warn");
    let client = ().serve(TokioChildProcess::new(cmd).expect("spawn")).await.expect("connects");
    // `--no-auth` serves an unrestricted principal: it has every plugin.
    check("stdio --no-auth", "everything", client, &upstream).await;
}

/// In search mode the plugin tool is found, described and called only by principals with the
/// plugin; for others `call_tool` answers exactly as for a tool that does not exist.
#[tokio::test]
async fn search_mode_finds_the_plugin_tool_only_with_the_plugin() {
    let upstream = stand_in().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let keys = keys_file(dir.path());
    let (server, url) = start_synaplan_http(
        &upstream.url,
        &[
            "--keys",
            keys.to_str().expect("utf8"),
            "--tool-mode",
            "search",
        ],
    )
    .await;
    for (id, _) in KEYS {
        let has_plugin = matches!(id, "organizer" | "everything");
        let client = http_client(&url, &key(id)).await;
        let search = |query: &str| {
            let args = json!({"query": query, "limit": 50});
            CallToolRequestParams::new("search_tools")
                .with_arguments(args.as_object().cloned().unwrap_or_default())
        };
        let result = client
            .call_tool(search("rename a chat"))
            .await
            .expect("search_tools");
        let found: Vec<String> = result
            .structured_content
            .as_ref()
            .and_then(|v| v["tools"].as_array().cloned())
            .unwrap_or_default()
            .iter()
            .filter_map(|t| t["name"].as_str().map(str::to_owned))
            .collect();
        assert_eq!(
            found.iter().any(|n| n == PLUGIN_TOOL),
            has_plugin,
            "{id}: {found:?}"
        );

        let through = |name: &str| {
            let args =
                json!({"name": name, "arguments": {"id": 5, "body": {"title": "Contract review"}}});
            CallToolRequestParams::new("call_tool")
                .with_arguments(args.as_object().cloned().unwrap_or_default())
        };
        let outcome = client.call_tool(through(PLUGIN_TOOL)).await;
        if has_plugin {
            let result = outcome.expect("call_tool");
            assert_ne!(result.is_error, Some(true), "{id}: {result:?}");
        } else {
            let hidden = protocol_error(id, outcome);
            let unknown = protocol_error(id, client.call_tool(through(UNKNOWN_TOOL)).await);
            assert_eq!(
                (hidden.code, hidden.data.clone()),
                (unknown.code, unknown.data)
            );
            assert_eq!(
                hidden.message.replace(PLUGIN_TOOL, UNKNOWN_TOOL),
                unknown.message
            );
        }
        client.cancel().await.ok();
    }
    let calls = upstream.received();
    assert_eq!(
        calls.len(),
        2,
        "only the two principals with the plugin reached the API"
    );
    drop(server);
}
