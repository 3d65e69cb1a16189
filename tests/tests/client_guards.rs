//! The guards every client [`Session`] runs under, against real servers and real child
//! processes: the SSRF guard, the per-call timeout (with `notifications/cancelled`), the
//! response size cap, and shutdown reaping a server that ignores the end of its stdin.

use std::path::Path;
use std::time::Duration;

use mcpgen_client::{ClientError, McpConfig, ServerConfig, Session};
use mcpgen_runtime::Content;
use mcpgen_tests::{
    CountingListener, KillOnDrop, StandIn, free_port, node_bin, node_file, process_exists,
    start_synaplan_http, wait_port, workspace_binary,
};
use serde_json::{Map, Value, json};

fn server(json: Value) -> ServerConfig {
    let text = json!({ "mcpServers": { "peer": json } }).to_string();
    let mut config = McpConfig::from_json_str(&text).expect("valid configuration");
    config.servers.remove("peer").expect("the server")
}

fn args(value: Value) -> Map<String, Value> {
    value.as_object().cloned().unwrap_or_default()
}

/// The scripted stdio server, logging what it receives to `log`.
fn scripted(log: &Path, extra: Value) -> ServerConfig {
    let mut entry = json!({
        "command": node_bin("node").display().to_string(),
        "args": [
            node_file("scripted-server.mjs").display().to_string(),
            log.display().to_string()
        ],
    });
    if let (Some(entry), Value::Object(extra)) = (entry.as_object_mut(), extra) {
        entry.extend(extra);
    }
    server(entry)
}

// ---------------------------------------------------------------------------------------------
// SSRF.

#[tokio::test]
async fn ssrf_guard_refuses_internal_addresses_before_any_connection() {
    let listener = CountingListener::start().await.expect("listener");
    let port = listener.port;
    let cases = [
        (
            format!("http://127.0.0.1:{port}/mcp"),
            "127.0.0.1",
            "127.0.0.1",
        ),
        (format!("http://localhost:{port}/mcp"), "localhost", ""),
        (
            format!("http://[::ffff:127.0.0.1]:{port}/mcp"),
            "[::ffff:127.0.0.1]",
            "::ffff:127.0.0.1",
        ),
        ("http://10.0.0.1/mcp".to_owned(), "10.0.0.1", "10.0.0.1"),
        (
            "http://169.254.169.254/latest/meta-data".to_owned(),
            "169.254.169.254",
            "169.254.169.254",
        ),
    ];
    for transport in ["streamable-http", "sse"] {
        for (url, host, address) in &cases {
            let config = server(json!({"url": url, "transport": transport}));
            let result = Session::connect("guarded", &config).await;
            match result {
                Err(
                    ref e @ ClientError::Blocked {
                        ref server,
                        host: ref h,
                        address: ref a,
                        ..
                    },
                ) => {
                    assert_eq!(server, "guarded");
                    assert_eq!(h, host, "{url}");
                    if !address.is_empty() {
                        assert_eq!(a, address, "{url}");
                    }
                    let shown = e.to_string();
                    assert!(
                        shown.contains("guarded") && shown.contains(a.as_str()),
                        "{shown}"
                    );
                    assert!(shown.contains("allow_private"), "{shown}");
                }
                other => panic!("{transport} {url}: expected a refusal, got {other:?}"),
            }
        }
    }
    assert_eq!(listener.accepted(), 0, "a refused URL was connected to");
}

#[tokio::test]
async fn allow_private_admits_loopback() {
    let upstream = StandIn::start(vec![]).await.expect("stand-in");
    let (_server, url) = start_synaplan_http(&upstream.url, &["--no-auth"]).await;
    let port = url.rsplit(':').next().unwrap_or_default().to_owned();
    for (base, transport, path) in [
        (
            format!("http://localhost:{port}"),
            "streamable-http",
            "/mcp",
        ),
        (
            format!("http://127.0.0.1:{port}"),
            "streamable-http",
            "/mcp",
        ),
        (format!("http://localhost:{port}"), "sse", "/sse"),
    ] {
        let url = format!("{base}{path}");
        let refused = Session::connect(
            "local",
            &server(json!({"url": url, "transport": transport})),
        )
        .await;
        assert!(
            matches!(refused, Err(ClientError::Blocked { .. })),
            "{refused:?}"
        );
        let session = Session::connect(
            "local",
            &server(json!({"url": url, "transport": transport, "allow_private": true})),
        )
        .await
        .unwrap_or_else(|e| panic!("{url}: {e}"));
        // `--no-auth`: the 7 allowlisted tools, the `chat-organizer` plugin's one, and
        // `describe_tools` (a listed schema is summarised).
        assert_eq!(session.list_tools().await.expect("tools/list").len(), 9);
        session.shutdown().await.expect("shutdown");
    }
}

// ---------------------------------------------------------------------------------------------
// Timeout.

/// Waits (up to ten seconds) until `log` has a line matching `pred`.
async fn logged(log: &Path, pred: impl Fn(&Value) -> bool) -> Option<Value> {
    for _ in 0..200 {
        let text = std::fs::read_to_string(log).unwrap_or_default();
        let found = text
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .find(|v| pred(v));
        if found.is_some() {
            return found;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    None
}

#[tokio::test]
async fn timeout_fails_the_call_and_cancels_it_on_the_server() {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("received.jsonl");
    // Generous enough for a loaded machine to start Node and finish the handshake, which runs
    // under the same timeout.
    let config = scripted(&log, json!({"timeout_ms": 2500}));
    let session = Session::connect("scripted", &config)
        .await
        .expect("connects");

    let started = std::time::Instant::now();
    let result = session.call_tool("hang", Map::new()).await;
    match &result {
        Err(
            e @ ClientError::Timeout {
                server,
                operation,
                timeout_ms,
            },
        ) => {
            assert_eq!(server, "scripted");
            assert!(operation.contains("hang"), "{operation}");
            assert_eq!(*timeout_ms, 2500);
            assert!(e.to_string().contains("timed out after 2500 ms"), "{e}");
        }
        other => panic!("expected a timeout, got {other:?}"),
    }
    // Sanity bound only: the call did not wait for a far longer default.
    assert!(started.elapsed() < Duration::from_secs(20));

    // The server was told: notifications/cancelled for the request it got.
    let call = logged(&log, |v| {
        v["method"] == "tools/call" && v["params"]["name"] == "hang"
    })
    .await
    .expect("the call reached the server");
    let cancelled = logged(&log, |v| v["method"] == "notifications/cancelled")
        .await
        .expect("notifications/cancelled reached the server");
    assert_eq!(cancelled["params"]["requestId"], call["id"]);

    // The session still works.
    let echo = session
        .call_tool("echo", args(json!({"text": "still here"})))
        .await
        .expect("echo after a timeout");
    assert_eq!(echo.content, vec![Content::Text("still here".into())]);
    session.shutdown().await.expect("shutdown");
}

#[tokio::test]
async fn timeout_over_streamable_http() {
    // An upstream that accepts connections and never answers: the generated server's call
    // waits, and the client gives up after its own timeout.
    let silent = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let upstream = format!("http://{}", silent.local_addr().expect("addr"));
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((stream, _)) = silent.accept().await {
            held.push(stream);
        }
    });
    let (_server, url) = start_synaplan_http(&upstream, &["--no-auth"]).await;
    let config =
        server(json!({"url": format!("{url}/mcp"), "allow_private": true, "timeout_ms": 2000}));
    let session = Session::connect("slow", &config).await.expect("connects");
    let result = session.call_tool("synaplan_list_prompts", Map::new()).await;
    assert!(
        matches!(
            result,
            Err(ClientError::Timeout {
                timeout_ms: 2000,
                ..
            })
        ),
        "{result:?}"
    );
    session.shutdown().await.expect("shutdown");
}

// ---------------------------------------------------------------------------------------------
// Size cap.

#[tokio::test]
async fn oversized_stdio_response_is_an_error_and_the_session_recovers() {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("received.jsonl");
    let config = scripted(&log, json!({"max_response_bytes": 4096}));
    let session = Session::connect("scripted", &config)
        .await
        .expect("connects");

    let small = session
        .call_tool("big", args(json!({"bytes": 1000})))
        .await
        .expect("under the cap");
    assert_eq!(small.joined_text().len(), 1000);

    let result = session
        .call_tool("big", args(json!({"bytes": 200_000})))
        .await;
    match &result {
        Err(
            e @ ClientError::ResponseTooLarge {
                server,
                size: Some(size),
                limit,
                ..
            },
        ) => {
            assert_eq!(server, "scripted");
            assert_eq!(*limit, 4096);
            assert!(*size > 200_000, "{size}");
            assert!(
                e.to_string().contains("max_response_bytes (4096 bytes)"),
                "{e}"
            );
        }
        other => panic!("expected a size error, got {other:?}"),
    }

    let echo = session
        .call_tool("echo", args(json!({"text": "after"})))
        .await
        .expect("echo after an oversized answer");
    assert_eq!(echo.joined_text(), "after");
    session.shutdown().await.expect("shutdown");
}

#[tokio::test]
async fn oversized_http_and_sse_responses_are_errors() {
    let text = "y".repeat(300_000);
    let body = json!({"prompts": [{"id": 1, "topic": "t", "shortDescription": "s", "prompt": text, "language": "en"}]})
        .to_string();
    let upstream = StandIn::start(vec![(
        "GET /api/v1/prompts",
        (200, "application/json", body),
    )])
    .await
    .expect("stand-in");
    let (_server, url) = start_synaplan_http(&upstream.url, &["--no-auth"]).await;
    for (transport, path) in [("streamable-http", "/mcp"), ("sse", "/sse")] {
        let config = server(json!({
            "url": format!("{url}{path}"),
            "transport": transport,
            "allow_private": true,
            "max_response_bytes": 65536
        }));
        let session = Session::connect("big", &config).await.expect("connects");
        let result = session.call_tool("synaplan_list_prompts", Map::new()).await;
        assert!(
            matches!(
                result,
                Err(ClientError::ResponseTooLarge { limit: 65536, size: Some(s), .. }) if s > 300_000
            ),
            "{transport}: {result:?}"
        );
        session.shutdown().await.expect("shutdown");

        // With a larger cap the same call succeeds.
        let config = server(json!({
            "url": format!("{url}{path}"),
            "transport": transport,
            "allow_private": true,
            "max_response_bytes": 4_000_000
        }));
        let session = Session::connect("big", &config).await.expect("connects");
        let result = session
            .call_tool("synaplan_list_prompts", Map::new())
            .await
            .expect("under the cap");
        assert_eq!(
            result
                .structured_content
                .as_ref()
                .map(|v| v["prompts"][0]["prompt"].as_str().map(str::len)),
            Some(Some(300_000)),
            "{transport}"
        );
        session.shutdown().await.expect("shutdown");
    }
}

#[tokio::test]
async fn oversized_sse_framed_streamable_http_response_is_an_error() {
    // server-everything answers Streamable HTTP calls as SSE events; its `get-env` tool
    // returns the environment, made large here.
    let port = free_port();
    let child = tokio::process::Command::new(node_bin("node"))
        .arg(node_file(
            "node_modules/@modelcontextprotocol/server-everything/dist/index.js",
        ))
        .arg("streamableHttp")
        .env("PORT", port.to_string())
        .env("MCPGEN_BIG_VALUE", "z".repeat(100_000))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("server-everything starts");
    let _server = KillOnDrop(child);
    assert!(wait_port(port).await, "server-everything did not listen");
    let config = server(json!({
        "url": format!("http://127.0.0.1:{port}/mcp"),
        "allow_private": true,
        "max_response_bytes": 32768
    }));
    let session = Session::connect("everything", &config)
        .await
        .expect("connects");
    let result = session.call_tool("get-env", Map::new()).await;
    assert!(
        matches!(
            result,
            Err(ClientError::ResponseTooLarge { limit: 32768, .. })
        ),
        "{result:?}"
    );
    let echo = session
        .call_tool("echo", args(json!({"message": "after"})))
        .await
        .expect("echo after an oversized answer");
    assert_eq!(echo.joined_text(), "Echo: after");
    session.shutdown().await.expect("shutdown");
}

// ---------------------------------------------------------------------------------------------
// Shutdown.

#[tokio::test]
async fn shutdown_kills_and_reaps_a_server_that_ignores_end_of_input() {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("received.jsonl");
    let config = scripted(&log, json!({"env": {"SCRIPTED_IGNORE_EOF": "1"}}));
    let session = Session::connect("stubborn", &config)
        .await
        .expect("connects");
    let pid = session.pid().expect("pid");
    assert!(process_exists(pid));
    session.shutdown().await.expect("shutdown");
    assert!(
        !process_exists(pid),
        "process {pid} still exists (running or zombie)"
    );
}

#[tokio::test]
async fn a_stdio_server_that_cannot_start_names_the_command() {
    let config = server(json!({"command": "/nonexistent/mcp-server"}));
    let result = Session::connect("missing", &config).await;
    match result {
        Err(ClientError::Connect { server, message }) => {
            assert_eq!(server, "missing");
            assert!(message.contains("/nonexistent/mcp-server"), "{message}");
        }
        other => panic!("expected a connect error, got {other:?}"),
    }
    // A program that is not an MCP server: the handshake fails (or times out) clearly.
    let config = server(json!({
        "command": workspace_binary("synaplan-mcp").display().to_string(),
        "args": ["--version"],
        "timeout_ms": 5000
    }));
    let result = Session::connect("not-mcp", &config).await;
    assert!(
        matches!(
            result,
            Err(ClientError::Connect { .. } | ClientError::Timeout { .. })
        ),
        "{result:?}"
    );
}
