//! The generated Synaplan server binary, started as a real child process against a loopback
//! stand-in for the Synaplan API, driven by real MCP clients: rmcp's client (stdio and
//! Streamable HTTP) and the MCP Inspector CLI.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use mcpgen_tests::{
    SYNAPLAN_PROMPTS, StandIn, http_client, node_bin, start_synaplan_http, synaplan_stand_in,
    workspace_binary,
};
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};

/// The edge limits (connections, bodies without a credential, refused batches, sessions) on a
/// real synaplan-mcp process.
mod edge_limits;

/// Every tool, with the `chat-organizer` plugin's `synaplan_rename_chat`: what `--no-auth` and
/// the admin key (all plugins) see.
/// The tools, and `describe_tools`: `synaplan_get_config`'s output schema is summarised.
const ALL_TOOLS: [&str; 9] = [
    "describe_tools",
    "synaplan_get_config",
    "synaplan_list_chats",
    "synaplan_list_files",
    "synaplan_list_prompts",
    "synaplan_rename_chat",
    "synaplan_search_documents",
    "synaplan_send_message",
    "synaplan_upload_file",
];

fn keys_file(dir: &Path) -> std::path::PathBuf {
    let path = dir.join("keys.yaml");
    std::fs::write(
        &path,
        "keys:\n  - id: reader\n    key: read-key-0123456789\n    principal: alice\n    scopes: [mcp:read]\n  - id: admin\n    key: admin-key-0123456789\n    principal: root\n    scopes: ['mcp:*']\n    plugins: ['*']\n",
    )
    .expect("write keys");
    path
}

fn call(name: &'static str, args: Value) -> CallToolRequestParams {
    let map = args.as_object().cloned().unwrap_or_default();
    CallToolRequestParams::new(name).with_arguments(map)
}

fn sorted_names(tools: &[rmcp::model::Tool]) -> Vec<String> {
    let mut names: Vec<String> = tools.iter().map(|t| t.name.to_string()).collect();
    names.sort();
    names
}

#[tokio::test]
async fn stdio_rmcp_client_lists_and_calls() {
    let upstream = synaplan_stand_in().await;
    let mut cmd = tokio::process::Command::new(workspace_binary("synaplan-mcp"));
    cmd.args(["--no-auth", "--upstream-url", &upstream.url])
        .env("RUST_LOG", "warn");
    let client = ().serve(TokioChildProcess::new(cmd).expect("spawn")).await.expect("connects");

    let tools = client.list_all_tools().await.expect("tools/list");
    assert_eq!(sorted_names(&tools), ALL_TOOLS);
    let search = tools
        .iter()
        .find(|t| t.name == "synaplan_search_documents")
        .expect("search");
    assert_eq!(search.input_schema.get("type"), Some(&json!("object")));
    assert!(search.input_schema["properties"].get("group_key").is_some());

    let result = client
        .call_tool(call("synaplan_list_prompts", json!({})))
        .await
        .expect("tools/call");
    assert_ne!(result.is_error, Some(true));
    let expected: Value = serde_json::from_str(SYNAPLAN_PROMPTS).expect("json");
    assert_eq!(result.structured_content, Some(expected));
    assert_eq!(upstream.received().len(), 1);
    assert_eq!(upstream.received()[0].uri, "/api/v1/prompts");
    client.cancel().await.ok();
}

#[tokio::test]
async fn stdio_authenticates_from_the_environment() {
    let upstream = synaplan_stand_in().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let keys = keys_file(dir.path());
    let mut cmd = tokio::process::Command::new(workspace_binary("synaplan-mcp"));
    cmd.args([
        "--keys",
        keys.to_str().expect("utf8"),
        "--upstream-url",
        &upstream.url,
    ])
    .env("MCPGEN_API_KEY", "read-key-0123456789")
    .env("RUST_LOG", "warn");
    let client = ().serve(TokioChildProcess::new(cmd).expect("spawn")).await.expect("connects");
    let tools = client.list_all_tools().await.expect("tools/list");
    // A read-only key sees the tools whose access is `read`: the GETs, and the search POST the
    // allowlist declares `access: read`.
    assert_eq!(
        sorted_names(&tools),
        [
            "describe_tools",
            "synaplan_get_config",
            "synaplan_list_chats",
            "synaplan_list_files",
            "synaplan_list_prompts",
            "synaplan_search_documents"
        ]
    );
    client.cancel().await.ok();

    // A wrong key: the server refuses to start.
    let out = tokio::process::Command::new(workspace_binary("synaplan-mcp"))
        .args([
            "--keys",
            keys.to_str().expect("utf8"),
            "--upstream-url",
            &upstream.url,
        ])
        .env("MCPGEN_API_KEY", "wrong")
        .stdin(Stdio::null())
        .output()
        .await
        .expect("runs");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("stdio authentication"));
}

/// The seed product's model: the key a caller presents to the MCP server is the key the
/// Synaplan API receives, with `--upstream-pass-through`, and nothing is forwarded without it.
#[tokio::test]
async fn pass_through_sends_the_callers_own_key_upstream_over_stdio_and_http() {
    let upstream = synaplan_stand_in().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let keys = keys_file(dir.path());
    let keys = keys.to_str().expect("utf8");

    for pass_through in [true, false] {
        let mut cmd = tokio::process::Command::new(workspace_binary("synaplan-mcp"));
        cmd.args(["--keys", keys, "--upstream-url", &upstream.url])
            .env("MCPGEN_API_KEY", "read-key-0123456789")
            .env("RUST_LOG", "warn");
        if pass_through {
            cmd.arg("--upstream-pass-through");
        }
        let client = ().serve(TokioChildProcess::new(cmd).expect("spawn")).await.expect("connects");
        let result = client
            .call_tool(call("synaplan_list_prompts", json!({})))
            .await
            .expect("tools/call");
        assert_ne!(result.is_error, Some(true));
        client.cancel().await.ok();
        let sent = upstream
            .received()
            .pop()
            .expect("the stand-in got the call");
        let expected = pass_through.then_some("read-key-0123456789");
        assert_eq!(
            sent.header("x-api-key"),
            expected,
            "stdio, pass-through {pass_through}"
        );
    }

    let (server, url) =
        start_synaplan_http(&upstream.url, &["--keys", keys, "--upstream-pass-through"]).await;
    for key in ["admin-key-0123456789", "read-key-0123456789"] {
        let client = http_client(&url, key).await;
        let result = client
            .call_tool(call("synaplan_list_prompts", json!({})))
            .await
            .expect("tools/call");
        assert_ne!(result.is_error, Some(true));
        client.cancel().await.ok();
        let sent = upstream
            .received()
            .pop()
            .expect("the stand-in got the call");
        assert_eq!(sent.header("x-api-key"), Some(key), "HTTP caller {key}");
    }
    drop(server);
}

#[tokio::test]
async fn http_rmcp_client_with_api_key_scopes() {
    let upstream = synaplan_stand_in().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let keys = keys_file(dir.path());
    let (server, url) =
        start_synaplan_http(&upstream.url, &["--keys", keys.to_str().expect("utf8")]).await;

    let admin = http_client(&url, "admin-key-0123456789").await;
    assert_eq!(
        sorted_names(&admin.list_all_tools().await.expect("list")),
        ALL_TOOLS
    );
    let result = admin
        .call_tool(call("synaplan_list_prompts", json!({"language": "en"})))
        .await
        .expect("call");
    assert_ne!(result.is_error, Some(true));
    assert_eq!(
        result
            .structured_content
            .as_ref()
            .map(|v| v["prompts"][0]["id"].clone()),
        Some(json!(7))
    );
    assert_eq!(upstream.received()[0].uri, "/api/v1/prompts?language=en");
    admin.cancel().await.ok();

    let reader = http_client(&url, "read-key-0123456789").await;
    let names = sorted_names(&reader.list_all_tools().await.expect("list"));
    assert!(!names.contains(&"synaplan_send_message".to_owned()));
    // A tool outside the key's scopes is answered exactly like a tool that does not exist.
    let hidden = reader
        .call_tool(call("synaplan_send_message", json!({"message": "hi"})))
        .await;
    let missing = reader.call_tool(call("no_such_tool", json!({}))).await;
    let shape = |r: &Result<rmcp::model::CallToolResult, rmcp::ServiceError>| match r {
        Ok(res) => format!("result is_error={:?}", res.is_error),
        Err(e) => e
            .to_string()
            .replace("synaplan_send_message", "X")
            .replace("no_such_tool", "X"),
    };
    assert_eq!(shape(&hidden), shape(&missing));
    assert!(
        upstream
            .received()
            .iter()
            .all(|r| r.uri != "/api/v1/messages/send")
    );
    reader.cancel().await.ok();

    // No credential: 401 with WWW-Authenticate and a JSON-RPC error body.
    let resp = reqwest::Client::new()
        .post(format!("{}/mcp", url))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#)
        .send()
        .await
        .expect("request");
    assert_eq!(resp.status(), 401);
    assert!(resp.headers().contains_key("www-authenticate"));
    let body: Value = resp.json().await.expect("json body");
    assert_eq!(body["error"]["code"], -32001);
    drop(server);
}

#[tokio::test]
async fn a_read_key_calls_the_search_post_declared_read() {
    let upstream = StandIn::start(vec![(
        "POST /api/v1/rag/search",
        (
            200,
            "application/json",
            r#"{"results":[{"fileId":3,"fileName":"contract-2024.pdf","chunk":"Notice period: 30 days","score":0.82}]}"#
                .to_owned(),
        ),
    )])
    .await
    .expect("stand-in starts");
    let dir = tempfile::tempdir().expect("tempdir");
    let keys = keys_file(dir.path());
    let (server, url) =
        start_synaplan_http(&upstream.url, &["--keys", keys.to_str().expect("utf8")]).await;

    let reader = http_client(&url, "read-key-0123456789").await;
    let tools = reader.list_all_tools().await.expect("list");
    let search = tools
        .iter()
        .find(|t| t.name == "synaplan_search_documents")
        .expect("a mcp:read key sees the search tool");
    assert_eq!(
        search.annotations.as_ref().and_then(|a| a.read_only_hint),
        Some(true)
    );
    let names = sorted_names(&tools);
    assert!(!names.contains(&"synaplan_send_message".to_owned()));
    assert!(!names.contains(&"synaplan_upload_file".to_owned()));

    let result = reader
        .call_tool(call(
            "synaplan_search_documents",
            json!({"query": "notice period", "limit": 5}),
        ))
        .await
        .expect("tools/call");
    assert_ne!(result.is_error, Some(true), "{result:?}");
    assert_eq!(
        result
            .structured_content
            .as_ref()
            .map(|v| v["results"][0]["fileId"].clone()),
        Some(json!(3))
    );
    let received = upstream.received();
    assert_eq!(received.len(), 1);
    assert_eq!(
        (received[0].method.as_str(), received[0].uri.as_str()),
        ("POST", "/api/v1/rag/search")
    );
    let body: Value = serde_json::from_slice(&received[0].body).expect("a JSON body");
    assert_eq!(body, json!({"query": "notice period", "limit": 5}));
    reader.cancel().await.ok();
    drop(server);
}

#[tokio::test]
async fn invalid_arguments_never_reach_the_upstream() {
    let upstream = synaplan_stand_in().await;
    let (_server, url) = start_synaplan_http(&upstream.url, &["--no-auth"]).await;
    let client = http_client(&url, "unused").await;
    let result = client
        .call_tool(call("synaplan_list_chats", json!({"limit": "twenty"})))
        .await
        .expect("call answered");
    assert_eq!(result.is_error, Some(true));
    let text: String = result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect();
    assert!(text.contains("limit"), "{text}");
    assert!(upstream.received().is_empty(), "the upstream was called");
    client.cancel().await.ok();
}

/// N calls of every outcome → exactly N audit records; with `--audit-fsync always` none is lost
/// when the server is killed with SIGKILL right after the client received its results.
#[tokio::test]
async fn audit_log_survives_kill_9() {
    let upstream = synaplan_stand_in().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let keys = keys_file(dir.path());
    let log = dir.path().join("audit.jsonl");
    let (mut server, url) = start_synaplan_http(
        &upstream.url,
        &[
            "--keys",
            keys.to_str().expect("utf8"),
            "--audit-log",
            log.to_str().expect("utf8"),
            "--audit-fsync",
            "always",
        ],
    )
    .await;
    let reader = http_client(&url, "read-key-0123456789").await;
    let calls = [
        ("synaplan_list_prompts", json!({}), "ok"),
        (
            "synaplan_list_chats",
            json!({"limit": "x"}),
            "invalid_arguments",
        ),
        ("synaplan_send_message", json!({"message": "hi"}), "denied"),
        ("synaplan_list_files", json!({}), "upstream_error"),
        ("synaplan_list_prompts", json!({"language": "de"}), "ok"),
    ];
    for (name, args, _) in &calls {
        let _ = reader.call_tool(call(name, args.clone())).await;
    }
    server.0.start_kill().expect("kill -9");
    let _ = server.0.wait().await;

    let text = std::fs::read_to_string(&log).expect("audit log");
    let records: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect();
    assert_eq!(records.len(), calls.len(), "{text}");
    for (record, (name, _, status)) in records.iter().zip(&calls) {
        assert_eq!(record["tool"], *name, "{record}");
        assert_eq!(record["status"], *status, "{record}");
        assert_eq!(record["principal"], "alice");
        assert_eq!(record["key_id"], "reader");
        assert_eq!(record["args_sha256"].as_str().map(str::len), Some(64));
        assert!(record["time"].as_str().is_some_and(|t| t.ends_with('Z')));
        assert!(record["duration_ms"].is_u64());
        assert!(
            record.get("args").is_none_or(Value::is_null),
            "raw args recorded without --audit-args"
        );
    }
    assert_eq!(records[3]["upstream_status"], 500);
    assert!(
        !text.contains("read-key-0123456789"),
        "credential in the audit log"
    );
    // Only the ok and upstream-failure calls reached the upstream.
    assert_eq!(upstream.received().len(), 3);
}

fn inspector(args: &[&str]) -> Value {
    let node_dir = node_bin("node")
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let path = format!(
        "{}:{}",
        node_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = std::process::Command::new(node_bin("mcp-inspector"))
        .arg("--cli")
        .args(args)
        .env("PATH", path)
        .env("RUST_LOG", "warn")
        .output()
        .expect("inspector runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "inspector {args:?} failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("inspector output is not JSON ({e}):\n{stdout}"))
}

fn inspector_tool_names(list: &Value) -> Vec<String> {
    let mut names: Vec<String> = list["tools"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|t| t["name"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

#[tokio::test]
async fn inspector_cli_over_stdio() {
    let upstream = synaplan_stand_in().await;
    let bin = workspace_binary("synaplan-mcp");
    let bin = bin.to_str().expect("utf8");
    let list = tokio::task::spawn_blocking({
        let (bin, url) = (bin.to_owned(), upstream.url.clone());
        move || {
            inspector(&[
                &bin,
                "--no-auth",
                "--upstream-url",
                &url,
                "--method",
                "tools/list",
            ])
        }
    })
    .await
    .expect("join");
    assert_eq!(inspector_tool_names(&list), ALL_TOOLS);
    let result = tokio::task::spawn_blocking({
        let (bin, url) = (bin.to_owned(), upstream.url.clone());
        move || {
            inspector(&[
                &bin,
                "--no-auth",
                "--upstream-url",
                &url,
                "--method",
                "tools/call",
                "--tool-name",
                "synaplan_list_prompts",
            ])
        }
    })
    .await
    .expect("join");
    assert_eq!(
        result["structuredContent"]["prompts"][0]["topic"], "general",
        "{result}"
    );
}

#[tokio::test]
async fn inspector_cli_over_streamable_http() {
    let upstream = synaplan_stand_in().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let keys = keys_file(dir.path());
    let (_server, base) =
        start_synaplan_http(&upstream.url, &["--keys", keys.to_str().expect("utf8")]).await;
    let url = format!("{base}/mcp");
    let list = tokio::task::spawn_blocking({
        let url = url.clone();
        move || {
            inspector(&[
                &url,
                "--transport",
                "http",
                "--header",
                "X-API-Key: admin-key-0123456789",
                "--method",
                "tools/list",
            ])
        }
    })
    .await
    .expect("join");
    assert_eq!(inspector_tool_names(&list), ALL_TOOLS);
    let result = tokio::task::spawn_blocking(move || {
        inspector(&[
            &url,
            "--transport",
            "http",
            "--header",
            "X-API-Key: admin-key-0123456789",
            "--method",
            "tools/call",
            "--tool-name",
            "synaplan_list_prompts",
        ])
    })
    .await
    .expect("join");
    assert_eq!(
        result["structuredContent"]["prompts"][0]["topic"], "general",
        "{result}"
    );
    let _ = Duration::from_secs(0);
}

#[tokio::test]
async fn inspector_cli_over_legacy_sse() {
    let upstream = synaplan_stand_in().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let keys = keys_file(dir.path());
    let (_server, base) =
        start_synaplan_http(&upstream.url, &["--keys", keys.to_str().expect("utf8")]).await;
    let url = format!("{base}/sse");
    let list = tokio::task::spawn_blocking({
        let url = url.clone();
        move || {
            inspector(&[
                &url,
                "--transport",
                "sse",
                "--header",
                "X-API-Key: admin-key-0123456789",
                "--method",
                "tools/list",
            ])
        }
    })
    .await
    .expect("join");
    assert_eq!(inspector_tool_names(&list), ALL_TOOLS);
    let result = tokio::task::spawn_blocking(move || {
        inspector(&[
            &url,
            "--transport",
            "sse",
            "--header",
            "X-API-Key: admin-key-0123456789",
            "--method",
            "tools/call",
            "--tool-name",
            "synaplan_list_prompts",
        ])
    })
    .await
    .expect("join");
    assert_eq!(
        result["structuredContent"]["prompts"][0]["topic"], "general",
        "{result}"
    );
    assert!(
        upstream
            .received()
            .iter()
            .any(|r| r.uri == "/api/v1/prompts")
    );
}
