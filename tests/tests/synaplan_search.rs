//! The generated Synaplan server binary in search mode (`--tool-mode search`), as a child
//! process over Streamable HTTP against a loopback stand-in for the Synaplan API, driven by
//! rmcp's client: the compiled index finds tools, `call_tool` reaches the API and the audit log
//! names the inner tool.

use std::path::Path;

use mcpgen_tests::{SYNAPLAN_PROMPTS, http_client, start_synaplan_http, synaplan_stand_in};
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::ServiceError;
use serde_json::{Value, json};

fn keys_file(dir: &Path) -> std::path::PathBuf {
    let path = dir.join("keys.yaml");
    std::fs::write(
        &path,
        "keys:\n  - id: reader\n    key: read-key-0123456789\n    principal: alice\n    scopes: [mcp:read]\n  - id: admin\n    key: admin-key-0123456789\n    principal: root\n    scopes: ['mcp:*']\n",
    )
    .expect("write keys");
    path
}

fn call(name: &'static str, args: Value) -> CallToolRequestParams {
    let map = args.as_object().cloned().unwrap_or_default();
    CallToolRequestParams::new(name).with_arguments(map)
}

fn structured(result: &CallToolResult) -> Value {
    assert_ne!(result.is_error, Some(true), "{result:?}");
    result
        .structured_content
        .clone()
        .expect("structured content")
}

fn found(result: &CallToolResult) -> Vec<(String, String)> {
    structured(result)["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| {
            (
                t["name"].as_str().unwrap_or_default().to_owned(),
                t["access"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

#[tokio::test]
async fn search_mode_finds_describes_and_calls_generated_tools() {
    let upstream = synaplan_stand_in().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let keys = keys_file(dir.path());
    let audit = dir.path().join("audit.jsonl");
    let (_child, url) = start_synaplan_http(
        &upstream.url,
        &[
            "--keys",
            keys.to_str().expect("UTF-8 path"),
            "--tool-mode",
            "search",
            "--pin",
            "synaplan_get_config",
            "--audit-log",
            audit.to_str().expect("UTF-8 path"),
            "--audit-fsync",
            "always",
        ],
    )
    .await;

    let reader = http_client(&url, "read-key-0123456789").await;
    let tools = reader.list_all_tools().await.expect("tools/list");
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(
        names,
        [
            "search_tools",
            "describe_tools",
            "call_tool",
            "synaplan_get_config"
        ]
    );

    let result = reader
        .call_tool(call(
            "search_tools",
            json!({"query": "list my prompts", "limit": 3}),
        ))
        .await
        .expect("search_tools");
    let hits = found(&result);
    assert_eq!(
        hits.first(),
        Some(&("synaplan_list_prompts".to_owned(), "read".to_owned())),
        "{hits:?}"
    );

    let result = reader
        .call_tool(call(
            "describe_tools",
            json!({"names": ["synaplan_search_documents"]}),
        ))
        .await
        .expect("describe_tools");
    let described = &structured(&result)["tools"][0];
    assert_eq!(described["inputSchema"]["type"], "object");
    assert!(
        described["inputSchema"]["properties"]
            .get("group_key")
            .is_some()
    );

    let result = reader
        .call_tool(call(
            "call_tool",
            json!({"name": "synaplan_list_prompts", "arguments": {}}),
        ))
        .await
        .expect("call_tool");
    let expected: Value = serde_json::from_str(SYNAPLAN_PROMPTS).expect("json");
    assert_eq!(structured(&result), expected);
    assert_eq!(upstream.received().len(), 1);
    assert_eq!(upstream.received()[0].uri, "/api/v1/prompts");

    // A read-only key never finds the write tools, and calling one through `call_tool` is
    // answered like calling it directly.
    for query in ["send a message", "upload a file", "chat"] {
        let result = reader
            .call_tool(call("search_tools", json!({"query": query, "limit": 50})))
            .await
            .expect("search_tools");
        for (name, access) in found(&result) {
            assert_eq!(access, "read", "{query}: {name}");
        }
    }
    let mcp_error = |e: ServiceError| match e {
        ServiceError::McpError(e) => e,
        other => panic!("expected a JSON-RPC error, got {other:?}"),
    };
    let through_call = mcp_error(
        reader
            .call_tool(call(
                "call_tool",
                json!({"name": "synaplan_send_message", "arguments": {"message": "hi"}}),
            ))
            .await
            .unwrap_err(),
    );
    let direct = mcp_error(
        reader
            .call_tool(call("synaplan_send_message", json!({"message": "hi"})))
            .await
            .unwrap_err(),
    );
    assert_eq!(through_call, direct);
    assert_eq!(direct.message, "Unknown tool: synaplan_send_message");
    reader.cancel().await.ok();

    let admin = http_client(&url, "admin-key-0123456789").await;
    let result = admin
        .call_tool(call(
            "search_tools",
            json!({"query": "send a chat message"}),
        ))
        .await
        .expect("search_tools");
    assert_eq!(
        found(&result).first().map(|(n, _)| n.as_str()),
        Some("synaplan_send_message")
    );
    admin.cancel().await.ok();

    let log = std::fs::read_to_string(&audit).expect("audit log");
    let records: Vec<(String, String)> = log
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("JSON line"))
        .map(|r| {
            (
                r["tool"].as_str().unwrap_or_default().to_owned(),
                r["status"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        records.first().map(|(t, _)| t.as_str()),
        Some("synaplan_list_prompts"),
        "the audit record names the inner tool: {records:?}"
    );
    assert!(
        records
            .iter()
            .all(|(t, _)| t != "call_tool" && t != "search_tools"),
        "{records:?}"
    );
}
