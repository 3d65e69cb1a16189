//! Operations signals of the generated Synaplan server, started as a real child process against
//! the loopback Synaplan stand-in: a mixed run (ok, invalid arguments, denied, unauthenticated,
//! forbidden, upstream 500, rate-limited) leaves one audit record per call with its status,
//! error text, operationId and trace id; `/metrics` counts the same calls per status; the
//! trace of an incoming `traceparent` is continued and carried upstream; bad metrics flags stop
//! the start naming the fix.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use mcpgen_tests::{
    free_port, start_synaplan_http, synaplan_stand_in, text, wait_ready, workspace_binary,
};
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const METRICS_TOKEN: &str = "metrics-token-0123456789abcdef";
const TRACE_ID: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const TRACEPARENT: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

fn keys_file(dir: &Path) -> std::path::PathBuf {
    let path = dir.join("keys.yaml");
    std::fs::write(
        &path,
        "keys:\n  - id: reader\n    key: read-key-0123456789\n    principal: alice\n    scopes: [mcp:read]\n  - id: slow\n    key: limited-key-0123456789\n    principal: bob\n    scopes: [mcp:read]\n    rate_limit: 0.001\n",
    )
    .expect("write keys");
    path
}

fn call(name: &'static str, args: Value) -> CallToolRequestParams {
    let map = args.as_object().cloned().unwrap_or_default();
    CallToolRequestParams::new(name).with_arguments(map)
}

/// An rmcp client (session era) to `<url>/mcp` with `headers`.
async fn client(
    url: &str,
    headers: &[(&'static str, &str)],
) -> rmcp::service::RunningService<rmcp::RoleClient, ()> {
    let headers = headers
        .iter()
        .map(|(name, value)| {
            (
                http::HeaderName::from_static(name),
                http::HeaderValue::from_str(value).expect("header value"),
            )
        })
        .collect();
    let config =
        StreamableHttpClientTransportConfig::with_uri(format!("{url}/mcp")).custom_headers(headers);
    ().serve(StreamableHttpClientTransport::with_client(
        reqwest::Client::new(),
        config,
    ))
    .await
    .expect("client connects")
}

/// A raw stateless (2026-07-28) `tools/call` of `tool` with `headers`; returns the HTTP status.
async fn raw_call(url: &str, id: u32, tool: &str, headers: &[(&str, &str)]) -> u16 {
    let body = json!({
        "jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": tool, "arguments": {}, "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": {}
        }}
    });
    let mut request = reqwest::Client::new()
        .post(format!("{url}/mcp"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", tool)
        .body(body.to_string());
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    request.send().await.expect("request").status().as_u16()
}

fn read_audit(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .expect("audit log")
        .lines()
        .map(|line| serde_json::from_str(line).expect("a JSON line"))
        .collect()
}

/// `mcpgen_tool_calls_total` summed per status, from a Prometheus text scrape.
fn calls_per_status(scrape: &str) -> BTreeMap<String, u64> {
    let mut counts = BTreeMap::new();
    for line in scrape.lines() {
        let Some(rest) = line.strip_prefix("mcpgen_tool_calls_total{") else {
            continue;
        };
        let (labels, value) = rest.split_once("} ").expect("labels then value");
        let status = labels
            .split(',')
            .find_map(|l| l.strip_prefix("status=\""))
            .and_then(|s| s.strip_suffix('"'))
            .expect("a status label");
        *counts.entry(status.to_owned()).or_default() += value.trim().parse::<u64>().expect("n");
    }
    counts
}

#[tokio::test]
async fn a_mixed_run_leaves_one_record_per_call_and_metrics_that_match_them() {
    let upstream = synaplan_stand_in().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let keys = keys_file(dir.path());
    let audit = dir.path().join("audit.jsonl");
    let (mut server, url) = {
        let port = free_port();
        let child = tokio::process::Command::new(workspace_binary("synaplan-mcp"))
            .args(["--transport", "http", "--upstream-url", &upstream.url])
            .args(["--listen", &format!("127.0.0.1:{port}")])
            .args(["--keys", keys.to_str().expect("utf8")])
            .args(["--audit-log", audit.to_str().expect("utf8")])
            .args(["--audit-fsync", "always"])
            .args(["--metrics", "--metrics-token-env", "SCRAPE_TOKEN"])
            .env("SCRAPE_TOKEN", METRICS_TOKEN)
            // INFO: the audit records are in the log file, not also in the server's log.
            .env("RUST_LOG", "info")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("server starts");
        let url = format!("http://127.0.0.1:{port}");
        assert!(wait_ready(&format!("{url}/healthz")).await, "server is up");
        (child, url)
    };

    // ok ×3 (one continuing a trace), invalid arguments ×1, denied ×1, upstream 500 ×2.
    let reader = client(&url, &[("x-api-key", "read-key-0123456789")]).await;
    for _ in 0..2 {
        let result = reader
            .call_tool(call("synaplan_list_prompts", json!({})))
            .await
            .expect("ok call");
        assert_ne!(result.is_error, Some(true), "{}", text(&result));
    }
    let invalid = reader
        .call_tool(call(
            "synaplan_list_prompts",
            json!({"language": "english"}),
        ))
        .await
        .expect("answered");
    assert_eq!(invalid.is_error, Some(true));
    let denied = reader
        .call_tool(call("synaplan_send_message", json!({"message": "hi"})))
        .await;
    assert!(denied.is_err(), "a write tool is hidden from a read key");
    for _ in 0..2 {
        let failed = reader
            .call_tool(call("synaplan_list_files", json!({})))
            .await
            .expect("answered");
        assert_eq!(failed.is_error, Some(true));
    }
    reader.cancel().await.ok();
    let traced = raw_call(
        &url,
        40,
        "synaplan_list_prompts",
        &[
            ("x-api-key", "read-key-0123456789"),
            ("traceparent", TRACEPARENT),
        ],
    )
    .await;
    assert_eq!(traced, 200);

    // rate-limited: the limited key's bucket holds one call.
    let limited = client(&url, &[("x-api-key", "limited-key-0123456789")]).await;
    let first = limited
        .call_tool(call("synaplan_get_config", json!({})))
        .await
        .expect("answered");
    let second = limited
        .call_tool(call("synaplan_get_config", json!({})))
        .await
        .expect("answered");
    assert!(text(&second).contains("rate limit"), "{}", text(&second));
    assert_eq!(second.is_error, Some(true));
    limited.cancel().await.ok();

    // unauthenticated ×2 (missing, wrong key), forbidden ×1 (a foreign Origin).
    assert_eq!(raw_call(&url, 41, "synaplan_list_prompts", &[]).await, 401);
    let wrong = [("x-api-key", "not-a-key")];
    assert_eq!(raw_call(&url, 42, "synaplan_get_config", &wrong).await, 401);
    let foreign = [
        ("x-api-key", "read-key-0123456789"),
        ("origin", "https://evil.example"),
    ];
    assert_eq!(
        raw_call(&url, 43, "synaplan_list_files", &foreign).await,
        403
    );

    // Every call has its record; with --audit-fsync always, before its answer.
    let records = read_audit(&audit);
    let mut per_status: BTreeMap<String, u64> = BTreeMap::new();
    for record in &records {
        *per_status
            .entry(record["status"].as_str().expect("status").to_owned())
            .or_default() += 1;
    }
    let config_status = if first.is_error == Some(true) {
        "upstream_error"
    } else {
        "ok"
    };
    let mut expected: BTreeMap<String, u64> = BTreeMap::new();
    for (status, n) in [
        ("ok", 3),
        ("invalid_arguments", 1),
        ("denied", 1),
        ("upstream_error", 2),
        ("rate_limited", 1),
        ("unauthenticated", 2),
        ("forbidden", 1),
        (config_status, 1),
    ] {
        *expected.entry(status.to_owned()).or_default() += n;
    }
    assert_eq!(per_status, expected, "{records:#?}");

    let with = |status: &str| -> Vec<&Value> {
        records
            .iter()
            .filter(|r| r["status"] == status)
            .collect::<Vec<_>>()
    };
    for record in with("ok") {
        assert_eq!(record["error"], Value::Null);
    }
    assert!(
        with("invalid_arguments")[0]["error"]
            .as_str()
            .is_some_and(|e| e.contains("invalid arguments") && e.contains("language")),
        "{records:#?}"
    );
    assert!(
        with("denied")[0]["error"]
            .as_str()
            .is_some_and(|e| e.contains("synaplan_send_message")),
        "{records:#?}"
    );
    for record in with("upstream_error")
        .into_iter()
        .filter(|r| r["tool"] == "synaplan_list_files")
    {
        assert_eq!(record["upstream_status"], 500);
        assert!(record["operation_id"].as_str().is_some(), "{record}");
        assert!(
            record["error"]
                .as_str()
                .is_some_and(|e| e.contains("500") && e.contains("disk on fire")),
            "{record}"
        );
    }
    assert!(
        with("rate_limited")[0]["error"]
            .as_str()
            .is_some_and(|e| e.contains("rate limit")),
        "{records:#?}"
    );
    let unauthenticated = with("unauthenticated");
    assert!(
        unauthenticated.iter().any(|r| r["error"]
            .as_str()
            .is_some_and(|e| e.contains("missing credential"))
            && r["tool"] == "synaplan_list_prompts"
            && r["request_id"] == "41"),
        "{records:#?}"
    );
    assert!(
        unauthenticated.iter().any(|r| r["error"]
            .as_str()
            .is_some_and(|e| e.contains("invalid credential"))
            && r["tool"] == "synaplan_get_config"),
        "{records:#?}"
    );
    let forbidden = with("forbidden");
    assert_eq!(forbidden[0]["tool"], "synaplan_list_files");
    assert!(
        forbidden[0]["error"]
            .as_str()
            .is_some_and(|e| e.to_ascii_lowercase().contains("origin")),
        "{records:#?}"
    );

    // The traced call: its record carries the incoming trace id, and the upstream request
    // carried the same trace with a span of its own.
    let traced: Vec<&Value> = records
        .iter()
        .filter(|r| r["trace_id"] == TRACE_ID)
        .collect();
    assert_eq!(traced.len(), 1, "{records:#?}");
    assert_eq!(traced[0]["status"], "ok");
    assert_eq!(traced[0]["request_id"], "40");
    let carried: Vec<String> = upstream
        .received()
        .iter()
        .filter_map(|r| r.header("traceparent").map(str::to_owned))
        .collect();
    assert_eq!(carried.len(), 1, "only the traced call carries a trace");
    let parts: Vec<&str> = carried[0].split('-').collect();
    assert_eq!(parts.len(), 4, "{}", carried[0]);
    assert_eq!(parts[1], TRACE_ID);
    assert_ne!(
        parts[2], "00f067aa0ba902b7",
        "the upstream request is a new span"
    );
    assert!(
        records
            .iter()
            .filter(|r| r["trace_id"] != TRACE_ID)
            .all(|r| r["trace_id"].is_null())
    );

    // /metrics on the MCP listener needs the token, and counts what the audit recorded.
    let scraper = reqwest::Client::new();
    let refused = scraper
        .get(format!("{url}/metrics"))
        .send()
        .await
        .expect("scrape");
    assert_eq!(refused.status(), 401);
    let refused = scraper
        .get(format!("{url}/metrics"))
        .bearer_auth("read-key-0123456789")
        .send()
        .await
        .expect("scrape");
    assert_eq!(refused.status(), 401, "an MCP key is not the metrics token");
    let scrape = scraper
        .get(format!("{url}/metrics"))
        .bearer_auth(METRICS_TOKEN)
        .send()
        .await
        .expect("scrape");
    assert_eq!(scrape.status(), 200);
    let scrape = scrape.text().await.expect("body");
    assert_eq!(calls_per_status(&scrape), per_status, "{scrape}");
    for series in [
        "mcpgen_tool_call_duration_seconds_bucket",
        "mcpgen_upstream_requests_total{code=\"500\",tool=\"synaplan_list_files\"} 2",
        "mcpgen_upstream_duration_seconds_count{tool=\"synaplan_list_files\"} 2",
        "mcpgen_calls_in_flight 0",
        "mcpgen_auth_failures_total{reason=\"missing\"} 1",
        "mcpgen_auth_failures_total{reason=\"invalid\"} 1",
        "mcpgen_auth_failures_total{reason=\"host_or_origin\"} 1",
        "mcpgen_rate_limited_total{tool=\"synaplan_get_config\"} 1",
        "mcpgen_audit_queue_depth 0",
        "mcpgen_audit_spooled_records 0",
        "mcpgen_audit_errors_total 0",
    ] {
        assert!(scrape.contains(series), "{series} missing:\n{scrape}");
    }
    // Labels carry tool names from the tool table, never keys, principals or arguments.
    for secret in [
        "read-key",
        "limited-key",
        "not-a-key",
        "alice",
        "bob",
        "english",
    ] {
        assert!(!scrape.contains(secret), "{secret} leaked:\n{scrape}");
    }
    server.start_kill().ok();
    let out = server
        .wait_with_output()
        .await
        .expect("the server's output");
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(log.contains(" INFO "), "the server logged at INFO: {log}");
    assert!(
        !log.contains("mcpgen::audit: tool call"),
        "with --audit-log, audit records stay out of the INFO log: {log}"
    );
}

#[tokio::test]
async fn metrics_on_a_listener_of_their_own_and_flags_that_stop_the_start() {
    let upstream = synaplan_stand_in().await;
    let metrics_port = free_port();
    let metrics_addr = format!("127.0.0.1:{metrics_port}");
    let (_server, url) = start_synaplan_http(
        &upstream.url,
        &[
            "--no-auth",
            "--metrics-listen",
            &metrics_addr,
            "--header-read-timeout",
            "1",
        ],
    )
    .await;
    let mcp = client(&url, &[]).await;
    mcp.call_tool(call("synaplan_list_prompts", json!({})))
        .await
        .expect("ok call");
    mcp.cancel().await.ok();
    assert!(wait_ready(&format!("http://{metrics_addr}/metrics")).await);
    let scrape = reqwest::get(format!("http://{metrics_addr}/metrics"))
        .await
        .expect("scrape")
        .text()
        .await
        .expect("body");
    assert!(
        scrape.contains("mcpgen_tool_calls_total{status=\"ok\",tool=\"synaplan_list_prompts\"} 1"),
        "{scrape}"
    );
    // Not on the MCP listener.
    let main = reqwest::get(format!("{url}/metrics")).await.expect("get");
    assert_ne!(main.status(), 200);
    // A client that never finishes its request head is cut off after --header-read-timeout.
    let mut slow = tokio::net::TcpStream::connect(&metrics_addr)
        .await
        .expect("connects");
    slow.write_all(b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        .await
        .expect("writes");
    let mut rest = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(20), slow.read_to_end(&mut rest)).await;
    assert!(
        read.is_ok(),
        "the metrics listener kept a connection whose head never ended"
    );

    for (flags, expected) in [
        (vec!["--metrics"], "--metrics-token-env"),
        (
            vec!["--metrics", "--metrics-token-env", "NO_SUCH_VARIABLE_19"],
            "NO_SUCH_VARIABLE_19",
        ),
        (
            vec!["--metrics-token-env", "SCRAPE_TOKEN"],
            "--metrics-listen",
        ),
        (
            vec!["--metrics", "--metrics-listen", "127.0.0.1:1"],
            "not both",
        ),
    ] {
        let out = tokio::process::Command::new(workspace_binary("synaplan-mcp"))
            .args(["--transport", "http", "--no-auth", "--upstream-url"])
            .arg(&upstream.url)
            .args(["--listen", &format!("127.0.0.1:{}", free_port())])
            .args(&flags)
            .env("SCRAPE_TOKEN", METRICS_TOKEN)
            .stdin(Stdio::null())
            .output()
            .await
            .expect("runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{flags:?} started");
        assert!(stderr.contains(expected), "{flags:?}: {stderr}");
    }
}
