//! OpenTelemetry traces of the generated Synaplan server (built with its `otel` feature), a real
//! child process configured only by the standard `OTEL_*` variables, exporting OTLP/HTTP (JSON)
//! to a receiver on loopback: one trace per call, with a span per HTTP request (method, route,
//! status) that continues an incoming `traceparent` header and is the parent of the call's
//! span; the upstream request of each call carries the same trace id in `traceparent`, a
//! `traceparent` in `_meta` is continued too, and the audit record names the trace.

use std::collections::BTreeSet;
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
    let url = mcpgen_tests::serve_on_loopback(app).await.expect("bind");
    (url, got)
}

/// One span as exported.
#[derive(Debug, Clone)]
struct Span {
    trace: String,
    id: String,
    parent: String,
    name: String,
    attributes: Value,
}

impl Span {
    /// The value of attribute `key` (`stringValue` or `intValue`, as text).
    fn attribute(&self, key: &str) -> String {
        self.attributes
            .as_array()
            .into_iter()
            .flatten()
            .find(|a| a["key"] == key)
            .map(|a| {
                let value = &a["value"];
                value["stringValue"]
                    .as_str()
                    .map(str::to_owned)
                    .unwrap_or_else(|| match &value["intValue"] {
                        Value::String(s) => s.clone(),
                        other => other.to_string(),
                    })
            })
            .unwrap_or_default()
    }
}

/// Every span received.
fn spans(exports: &[Value]) -> Vec<Span> {
    let hex = |v: &Value| v.as_str().unwrap_or_default().to_ascii_lowercase();
    let mut out = Vec::new();
    for export in exports {
        for resource in export["resourceSpans"].as_array().into_iter().flatten() {
            for scope in resource["scopeSpans"].as_array().into_iter().flatten() {
                for span in scope["spans"].as_array().into_iter().flatten() {
                    out.push(Span {
                        trace: hex(&span["traceId"]),
                        id: hex(&span["spanId"]),
                        parent: hex(&span["parentSpanId"]),
                        name: span["name"].as_str().unwrap_or_default().to_owned(),
                        attributes: span["attributes"].clone(),
                    });
                }
            }
        }
    }
    out
}

/// A stateless call of `synaplan_list_prompts`, with `traceparent` as the HTTP header and
/// `meta_traceparent` in `_meta`.
async fn call(url: &str, id: u32, traceparent: Option<&str>, meta_traceparent: Option<&str>) {
    let mut meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {}});
    if let Some(traceparent) = meta_traceparent {
        meta["traceparent"] = json!(traceparent);
    }
    let mut request = reqwest::Client::new()
        .post(format!("{url}/mcp"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", "synaplan_list_prompts")
        .body(
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": {"name": "synaplan_list_prompts", "arguments": {}, "_meta": meta}})
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
    let incoming_parent = "00f067aa0ba902b7";
    call(
        &url,
        1,
        Some(&format!("00-{incoming}-{incoming_parent}-01")),
        None,
    )
    .await;
    for id in 2..=5 {
        call(&url, id, None, None).await;
    }
    let in_meta = "0af7651916cd43dd8448eb211c80319c";
    let in_meta_parent = "b7ad6b7169203331";
    call(
        &url,
        6,
        None,
        Some(&format!("00-{in_meta}-{in_meta_parent}-01")),
    )
    .await;

    // The upstream saw one trace per call, the incoming ones continued.
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
    assert_eq!(upstream_traces.len(), 6);
    let distinct: BTreeSet<String> = upstream_traces.iter().cloned().collect();
    assert_eq!(distinct.len(), 6, "one trace per call: {upstream_traces:?}");
    assert_eq!(
        upstream_traces[0], incoming,
        "the incoming header's trace is continued"
    );
    assert_eq!(
        upstream_traces[5], in_meta,
        "the trace in `_meta` is continued"
    );

    // The collector receives, per call, a tool_call span whose parent is the HTTP request's
    // span (itself a child of the incoming header's position).
    let mut exported = Vec::new();
    for _ in 0..100 {
        exported = spans(&exports.lock().expect("lock"));
        let calls = exported.iter().filter(|s| s.name == "tool_call").count();
        let requests = exported.iter().filter(|s| s.name == "http_request").count();
        if calls >= 6 && requests >= 6 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let tool_calls: Vec<&Span> = exported.iter().filter(|s| s.name == "tool_call").collect();
    let requests: Vec<&Span> = exported
        .iter()
        .filter(|s| s.name == "http_request")
        .collect();
    assert_eq!(tool_calls.len(), 6, "{exported:?}");
    assert_eq!(requests.len(), 6, "one span per HTTP request: {exported:?}");
    let exported_traces: BTreeSet<String> = tool_calls.iter().map(|s| s.trace.clone()).collect();
    assert_eq!(
        exported_traces, distinct,
        "exported traces are the calls' traces"
    );
    for request in &requests {
        assert_eq!(request.attribute("http.request.method"), "POST");
        assert_eq!(request.attribute("http.route"), "/mcp");
        assert_eq!(request.attribute("http.response.status_code"), "200");
    }
    for trace in &upstream_traces {
        let tool_call = tool_calls
            .iter()
            .find(|s| &s.trace == trace)
            .expect("a tool_call span");
        let text = tool_call.attributes.to_string();
        assert!(
            text.contains("synaplan_list_prompts") && text.contains("\"ok\""),
            "the span carries the tool and status: {text}"
        );
        if trace == in_meta {
            // The trace came in the body: the call continues it, not the HTTP request's new
            // trace.
            assert_eq!(tool_call.parent, in_meta_parent);
            continue;
        }
        let request = requests
            .iter()
            .find(|s| &s.trace == trace)
            .expect("an http_request span in the call's trace");
        assert_eq!(
            tool_call.parent, request.id,
            "the HTTP request's span is the tool_call's parent"
        );
        if trace == incoming {
            assert_eq!(
                request.parent, incoming_parent,
                "the HTTP request's span continues the incoming traceparent"
            );
        } else {
            assert_eq!(request.parent, "", "a new trace starts at the HTTP request");
        }
    }

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
