//! OpenTelemetry traces of the generated Synaplan server (built with its `otel` feature), a real
//! child process configured only by the standard `OTEL_*` variables, exporting OTLP/HTTP (JSON)
//! to a receiver on loopback: one trace per call, the upstream request of each call carries the
//! same trace id in `traceparent`, an incoming `traceparent` is continued, and the audit record
//! names the trace.

use std::collections::BTreeSet;
use std::net::SocketAddr;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::routing::post;
use mcpgen_tests::{free_port, synaplan_stand_in, wait_ready, workspace_binary};
use serde_json::{Value, json};

/// An OTLP/HTTP receiver on loopback keeping every JSON export request it gets.
async fn receiver() -> (String, Arc<Mutex<Vec<Value>>>) {
    let got: Arc<Mutex<Vec<Value>>> = Arc::default();
    let store = got.clone();
    let app = Router::new().route(
        "/v1/traces",
        post(move |body: Bytes| {
            let store = store.clone();
            async move {
                if let Ok(value) = serde_json::from_slice::<Value>(&body) {
                    store.lock().expect("lock").push(value);
                }
                ([("content-type", "application/json")], "{}")
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], 0)))
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    (format!("http://{addr}"), got)
}

/// (trace id, span name, attributes) of every span received.
fn spans(exports: &[Value]) -> Vec<(String, String, Value)> {
    let mut out = Vec::new();
    for export in exports {
        for resource in export["resourceSpans"].as_array().into_iter().flatten() {
            for scope in resource["scopeSpans"].as_array().into_iter().flatten() {
                for span in scope["spans"].as_array().into_iter().flatten() {
                    out.push((
                        span["traceId"]
                            .as_str()
                            .unwrap_or_default()
                            .to_ascii_lowercase(),
                        span["name"].as_str().unwrap_or_default().to_owned(),
                        span["attributes"].clone(),
                    ));
                }
            }
        }
    }
    out
}

async fn call(url: &str, id: u32, traceparent: Option<&str>) {
    let mut request = reqwest::Client::new()
        .post(format!("{url}/mcp"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", "synaplan_list_prompts")
        .body(
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": {"name": "synaplan_list_prompts", "arguments": {}, "_meta": {
                    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                    "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
                    "io.modelcontextprotocol/clientCapabilities": {}}}})
            .to_string(),
        );
    if let Some(traceparent) = traceparent {
        request = request.header("traceparent", traceparent);
    }
    let answer: Value = request
        .send()
        .await
        .expect("request")
        .json()
        .await
        .expect("json");
    assert_ne!(answer["result"]["isError"], true, "{answer}");
}

#[tokio::test(flavor = "multi_thread")]
async fn every_call_is_one_exported_trace_carried_upstream_and_audited() {
    let (collector, exports) = receiver().await;
    let upstream = synaplan_stand_in().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let audit = dir.path().join("audit.jsonl");
    let port = free_port();
    let mut server = tokio::process::Command::new(workspace_binary("synaplan-mcp"))
        .args([
            "--transport",
            "http",
            "--no-auth",
            "--upstream-url",
            &upstream.url,
        ])
        .args(["--listen", &format!("127.0.0.1:{port}")])
        .args(["--audit-log", audit.to_str().expect("utf8")])
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", &collector)
        .env("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json")
        .env("OTEL_BSP_SCHEDULE_DELAY", "100")
        .env("OTEL_SERVICE_NAME", "synaplan-under-test")
        .env("RUST_LOG", "info")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("server starts");
    let url = format!("http://127.0.0.1:{port}");
    assert!(wait_ready(&format!("{url}/healthz")).await, "server is up");

    let incoming = "4bf92f3577b34da6a3ce929d0e0e4736";
    call(&url, 1, Some(&format!("00-{incoming}-00f067aa0ba902b7-01"))).await;
    for id in 2..=5 {
        call(&url, id, None).await;
    }

    // The upstream saw one trace per call, the incoming one continued.
    let upstream_traces: Vec<String> = upstream
        .received()
        .iter()
        .map(|r| {
            let traceparent = r.header("traceparent").expect("traceparent upstream");
            traceparent
                .split('-')
                .nth(1)
                .expect("a trace id")
                .to_owned()
        })
        .collect();
    assert_eq!(upstream_traces.len(), 5);
    let distinct: BTreeSet<String> = upstream_traces.iter().cloned().collect();
    assert_eq!(distinct.len(), 5, "one trace per call: {upstream_traces:?}");
    assert_eq!(
        upstream_traces[0], incoming,
        "the incoming trace is continued"
    );

    // The collector receives one tool_call span per call, in the same traces.
    let mut exported = BTreeSet::new();
    for _ in 0..100 {
        let got = exports.lock().expect("lock").clone();
        exported = spans(&got)
            .into_iter()
            .filter(|(_, name, _)| name == "tool_call")
            .map(|(trace, _, attributes)| {
                let text = attributes.to_string();
                assert!(
                    text.contains("synaplan_list_prompts") && text.contains("\"ok\""),
                    "the span carries the tool and status: {text}"
                );
                trace
            })
            .collect();
        if exported.len() >= 5 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(exported, distinct, "exported traces are the calls' traces");

    // The audit records name the same traces.
    let audited: BTreeSet<String> = std::fs::read_to_string(&audit)
        .expect("audit")
        .lines()
        .map(|line| {
            let record: Value = serde_json::from_str(line).expect("json");
            record["trace_id"].as_str().expect("a trace id").to_owned()
        })
        .collect();
    assert_eq!(audited, distinct);
    server.start_kill().ok();
}
