//! mcpgen's client ([`Session`]) against real MCP servers: the reference servers
//! `server-everything` (stdio, Streamable HTTP, legacy SSE) and `server-filesystem` (stdio),
//! and our generated Synaplan server (stdio, Streamable HTTP, legacy SSE), including its
//! generated typed client stubs called through a session.

use std::process::Stdio;

use mcpgen_client::{ClientError, ListedTool, McpConfig, ServerConfig, Session};
use mcpgen_runtime::{CallError, Content};
use mcpgen_tests::{
    KillOnDrop, StandIn, admin_keys_file, free_port, node_bin, node_file, process_exists,
    start_synaplan_http, synaplan_stand_in, wait_port, workspace_binary,
};
use serde_json::{Map, Value, json};
use synaplan_mcp::types::input::SynaplanListPromptsArgs;

/// The one server of a configuration written as JSON.
fn server(json: Value) -> ServerConfig {
    let text = json!({ "mcpServers": { "peer": json } }).to_string();
    let mut config = McpConfig::from_json_str(&text).expect("valid configuration");
    config.servers.remove("peer").expect("the server")
}

fn args(value: Value) -> Map<String, Value> {
    value.as_object().cloned().unwrap_or_default()
}

fn names(tools: &[ListedTool]) -> Vec<String> {
    let mut names: Vec<String> = tools.iter().map(|t| t.name.clone()).collect();
    names.sort();
    names
}

fn node() -> String {
    node_bin("node").display().to_string()
}

fn everything_script() -> String {
    node_file("node_modules/@modelcontextprotocol/server-everything/dist/index.js")
        .display()
        .to_string()
}

/// `server-everything` in an HTTP mode (`streamableHttp` or `sse`) on a free port.
async fn everything_http(mode: &str) -> (KillOnDrop, u16) {
    let port = free_port();
    let child = tokio::process::Command::new(node())
        .args([everything_script(), mode.to_owned()])
        .env("PORT", port.to_string())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("server-everything starts");
    assert!(wait_port(port).await, "server-everything did not listen");
    (KillOnDrop(child), port)
}

async fn check_everything(session: &Session) {
    let tools = names(&session.list_tools().await.expect("tools/list"));
    for tool in [
        "echo",
        "get-structured-content",
        "get-sum",
        "get-tiny-image",
    ] {
        assert!(
            tools.contains(&tool.to_owned()),
            "{tool} missing: {tools:?}"
        );
    }
    let echo = session
        .call_tool("echo", args(json!({"message": "hello"})))
        .await
        .expect("echo");
    assert!(!echo.is_error);
    assert_eq!(echo.content, vec![Content::Text("Echo: hello".into())]);

    let weather = session
        .call_tool(
            "get-structured-content",
            args(json!({"location": "Chicago"})),
        )
        .await
        .expect("structured");
    assert_eq!(
        weather.structured_content,
        Some(json!({"temperature": 36, "conditions": "Light rain / drizzle", "humidity": 82}))
    );

    let image = session
        .call_tool("get-tiny-image", Map::new())
        .await
        .expect("image");
    assert!(
        image.content.iter().any(|c| matches!(c,
            Content::Image { mime_type, data } if mime_type == "image/png" && data.len() > 100)),
        "{:?}",
        image.content
    );

    // Invalid arguments come back as the server's error, not as a success.
    match session.call_tool("get-sum", args(json!({"a": "x"}))).await {
        Ok(result) => assert!(result.is_error, "{result:?}"),
        Err(e) => assert!(matches!(e, ClientError::Rpc { .. }), "{e}"),
    }
}

#[tokio::test]
async fn everything_over_stdio_then_shutdown_reaps_the_child() {
    let config = server(json!({"command": node(), "args": [everything_script(), "stdio"]}));
    let session = Session::connect("everything", &config)
        .await
        .expect("connects");
    assert_eq!(session.name(), "everything");
    check_everything(&session).await;
    let pid = session.pid().expect("a child process");
    assert!(process_exists(pid));
    session.shutdown().await.expect("shutdown");
    assert!(
        !process_exists(pid),
        "process {pid} still exists after shutdown"
    );
}

#[tokio::test]
async fn everything_over_streamable_http() {
    let (_server, port) = everything_http("streamableHttp").await;
    let config =
        server(json!({"url": format!("http://127.0.0.1:{port}/mcp"), "allow_private": true}));
    let session = Session::connect("everything", &config)
        .await
        .expect("connects");
    check_everything(&session).await;
    session.shutdown().await.expect("shutdown");
}

#[tokio::test]
async fn everything_over_legacy_sse() {
    let (_server, port) = everything_http("sse").await;
    let config = server(json!({
        "url": format!("http://127.0.0.1:{port}/sse"),
        "transport": "sse",
        "allow_private": true
    }));
    let session = Session::connect("everything", &config)
        .await
        .expect("connects");
    check_everything(&session).await;
    session.shutdown().await.expect("shutdown");
}

#[tokio::test]
async fn filesystem_over_stdio_reads_a_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().canonicalize().expect("canonical");
    std::fs::write(root.join("hello.txt"), "hello from a file\n").expect("write");
    let script = node_file("node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");
    let config = server(json!({
        "command": node(),
        "args": [script.display().to_string(), root.display().to_string()],
        "tools": ["read_text_file", "list_directory"]
    }));
    let session = Session::connect("files", &config).await.expect("connects");
    // The allowlist hides every other tool the server has.
    assert_eq!(
        names(&session.list_tools().await.expect("tools/list")),
        ["list_directory", "read_text_file"]
    );
    let path = root.join("hello.txt").display().to_string();
    let read = session
        .call_tool("read_text_file", args(json!({"path": path})))
        .await
        .expect("read");
    assert!(!read.is_error, "{read:?}");
    assert_eq!(
        read.content,
        vec![Content::Text("hello from a file\n".into())]
    );
    let listing = session
        .call_tool(
            "list_directory",
            args(json!({"path": root.display().to_string()})),
        )
        .await
        .expect("list");
    assert!(listing.joined_text().contains("hello.txt"), "{listing:?}");
    // Outside the allowlist: refused before anything is sent.
    let refused = session
        .call_tool("write_file", args(json!({"path": path, "content": "x"})))
        .await;
    assert!(
        matches!(refused, Err(ClientError::NotAllowed { ref tool, .. }) if tool == "write_file"),
        "{refused:?}"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("hello.txt")).expect("read back"),
        "hello from a file\n"
    );
    session.shutdown().await.expect("shutdown");
}

// ---------------------------------------------------------------------------------------------
// Our generated Synaplan server, with its typed client stubs.

/// Lists `expected_tools` tools (7 allowlisted, plus the `chat-organizer` plugin's when the
/// principal has it, plus `describe_tools`: a listed schema is summarised), then calls through the generated typed stubs over `session`.
async fn check_synaplan(session: Session, upstream: &StandIn, expected_tools: usize) {
    let tools = names(&session.list_tools().await.expect("tools/list"));
    assert_eq!(tools.len(), expected_tools, "{tools:?}");
    assert!(tools.contains(&"synaplan_list_prompts".to_owned()));

    let client = synaplan_mcp::client::Client::new(&session);
    let prompts = client
        .synaplan_list_prompts(&SynaplanListPromptsArgs {
            language: Some("en".into()),
        })
        .await
        .expect("typed call");
    let listed = prompts.prompts.as_deref().unwrap_or_default();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].id, Some(7));
    assert_eq!(
        listed[0].short_description.as_deref(),
        Some("Default assistant")
    );
    assert!(
        upstream
            .received()
            .iter()
            .any(|r| r.uri == "/api/v1/prompts?language=en")
    );

    // An upstream failure reaches the typed caller as a tool error, not as a success.
    let files = client.synaplan_list_files(&Default::default()).await;
    match files {
        Err(CallError::Tool { tool, message }) => {
            assert_eq!(tool, "synaplan_list_files");
            assert!(message.contains("500"), "{message}");
        }
        other => panic!("expected a tool error, got {other:?}"),
    }
    session.shutdown().await.expect("shutdown");
}

#[tokio::test]
async fn synaplan_over_stdio_with_typed_stubs() {
    let upstream = synaplan_stand_in().await;
    let config = server(json!({
        "command": workspace_binary("synaplan-mcp").display().to_string(),
        "args": ["--no-auth", "--upstream-url", upstream.url],
        "env": {"RUST_LOG": "warn"}
    }));
    let session = Session::connect("synaplan", &config)
        .await
        .expect("connects");
    // `--no-auth`: every plugin.
    check_synaplan(session, &upstream, 9).await;
}

#[tokio::test]
async fn synaplan_over_streamable_http_with_typed_stubs() {
    let upstream = synaplan_stand_in().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let keys = admin_keys_file(dir.path());
    let (_server, url) =
        start_synaplan_http(&upstream.url, &["--keys", &keys.display().to_string()]).await;
    let config = server(json!({
        "url": format!("{url}/mcp"),
        "headers": {"X-API-Key": "admin-key-0123456789"},
        "allow_private": true
    }));
    let session = Session::connect("synaplan", &config)
        .await
        .expect("connects");
    // The admin key has no plugins.
    check_synaplan(session, &upstream, 8).await;

    // Without the key header the server refuses the session.
    let config = server(json!({"url": format!("{url}/mcp"), "allow_private": true}));
    let refused = Session::connect("synaplan", &config).await;
    assert!(
        matches!(refused, Err(ClientError::Connect { .. })),
        "{refused:?}"
    );
}

#[tokio::test]
async fn synaplan_over_legacy_sse_with_typed_stubs() {
    let upstream = synaplan_stand_in().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let keys = admin_keys_file(dir.path());
    let (_server, url) =
        start_synaplan_http(&upstream.url, &["--keys", &keys.display().to_string()]).await;
    let config = server(json!({
        "url": format!("{url}/sse"),
        "transport": "sse",
        "headers": {"X-API-Key": "admin-key-0123456789"},
        "allow_private": true
    }));
    let session = Session::connect("synaplan", &config)
        .await
        .expect("connects");
    // The admin key has no plugins.
    check_synaplan(session, &upstream, 8).await;

    let config =
        server(json!({"url": format!("{url}/sse"), "transport": "sse", "allow_private": true}));
    let refused = Session::connect("synaplan", &config).await;
    match refused {
        Err(ClientError::Connect { message, .. }) => assert!(message.contains("401"), "{message}"),
        other => panic!("expected a refusal, got {other:?}"),
    }
}
