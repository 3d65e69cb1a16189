//! Code mode's `execute` with any program: the input (as text) is the code of a stateless
//! `tools/call` of `execute`, sent through the router of a server in code mode (Synaplan's
//! generated tools, upstream a closed loopback port, 1 s and 16 MiB per program). Every answer
//! must be a tool result within the time limit: a success carrying `{result, logs}`, or an
//! error result; never a server error, a JSON-RPC error or a hang.
#![no_main]

use std::sync::OnceLock;
use std::time::Duration;

use axum::body::Body;
use http::Request;
use libfuzzer_sys::fuzz_target;
use mcpgen_runtime::code::CodeLimits;
use mcpgen_runtime::server::{Server, ToolMode};
use mcpgen_runtime::{Upstream, UpstreamConfig};
use serde_json::{Value, json};
use tower::ServiceExt;

/// The router of a server in code mode, and the runtime it runs on.
struct Harness {
    runtime: tokio::runtime::Runtime,
    router: axum::Router,
    _server: Server,
}

fn harness() -> &'static Harness {
    static HARNESS: OnceLock<Harness> = OnceLock::new();
    HARNESS.get_or_init(|| {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime");
        let (server, router) = runtime.block_on(async {
            let upstream = Upstream::new(
                UpstreamConfig::new("http://127.0.0.1:9").with_timeout(Duration::from_secs(1)),
            )
            .expect("an upstream");
            let limits = CodeLimits::default()
                .with_timeout(Duration::from_secs(1))
                .with_memory(16 * 1024 * 1024)
                .with_max_calls(5)
                .with_max_output(64 * 1024);
            let server = Server::builder("fuzz", "0.1.0")
                .tool_set(synaplan_mcp::tool_set(upstream))
                .tool_mode(ToolMode::Code)
                .code_limits(limits)
                .no_auth()
                .max_body_bytes(1024 * 1024)
                .build()
                .expect("a server");
            let router = server.router();
            (server, router)
        });
        Harness {
            runtime,
            router,
            _server: server,
        }
    })
}

fuzz_target!(|data: &[u8]| {
    let code = String::from_utf8_lossy(data);
    if code.is_empty() {
        return;
    }
    let body = json!({
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {
            "name": "execute",
            "arguments": {"code": code},
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientInfo": {"name": "fuzz", "version": "1"},
                "io.modelcontextprotocol/clientCapabilities": {},
            },
        },
    });
    let Ok(request) = Request::post("http://127.0.0.1/mcp")
        .header("host", "127.0.0.1")
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", "execute")
        .body(Body::from(body.to_string()))
    else {
        return;
    };
    let harness = harness();
    let router = harness.router.clone();
    harness.runtime.block_on(async move {
        let answered = tokio::time::timeout(Duration::from_secs(10), async move {
            let response = router.oneshot(request).await.expect("infallible");
            let status = response.status();
            let body = axum::body::to_bytes(response.into_body(), 8 * 1024 * 1024)
                .await
                .expect("the body is read");
            (status, body)
        })
        .await;
        let (status, body) = answered.expect("the program is answered in time");
        assert!(status.is_success(), "status {status}");
        let answer: Value = serde_json::from_slice(&body).expect("a JSON-RPC answer");
        let result = &answer["result"];
        assert!(result.is_object(), "a tool result, not an error: {answer}");
        if result["isError"] != true {
            let output = &result["structuredContent"];
            assert!(output.get("result").is_some(), "{answer}");
            assert!(output["logs"].is_array(), "{answer}");
        }
    });
});
