//! The server's HTTP and JSON-RPC request handling, driven through the router in process on
//! both protocol eras: the first byte picks the era and the headers, the rest is the body.
//! Any answer is fine except a server error (5xx), a 415 for a body declared as JSON, or an
//! answer that never completes.
#![no_main]

use std::sync::OnceLock;
use std::time::Duration;

use axum::body::Body;
use http::Request;
use libfuzzer_sys::fuzz_target;
use mcpgen_runtime::server::Server;
use mcpgen_runtime::{Upstream, UpstreamConfig};
use tower::ServiceExt;

/// The router of a generated server (Synaplan's tools, no auth) whose upstream is a closed
/// loopback port, and the runtime it runs on.
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
                UpstreamConfig::new("http://127.0.0.1:9").with_timeout(Duration::from_secs(2)),
            )
            .expect("an upstream");
            let server = Server::builder("fuzz", "0.1.0")
                .tool_set(synaplan_mcp::tool_set(upstream))
                .no_auth()
                .max_body_bytes(64 * 1024)
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

/// The `Mcp-Method` a 2026-07-28 client would send for `body` (`tools/call` when unknown).
fn method_of(body: &[u8]) -> String {
    serde_json::from_slice::<serde_json::Value>(body)
        .ok()
        .and_then(|v| v.get("method").and_then(|m| m.as_str()).map(str::to_owned))
        .filter(|m| http::HeaderValue::from_str(m).is_ok())
        .unwrap_or_else(|| "tools/call".to_owned())
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, body)) = data.split_first() else {
        return;
    };
    let harness = harness();
    let stateless = mode & 1 == 1;
    let json = mode & 2 == 0;
    let mut request = Request::post("http://127.0.0.1/mcp")
        .header("host", "127.0.0.1")
        .header("accept", "application/json, text/event-stream")
        .header(
            "content-type",
            if json {
                "application/json"
            } else {
                "text/plain"
            },
        );
    if stateless {
        request = request
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", method_of(body));
    }
    let Ok(request) = request.body(Body::from(body.to_vec())) else {
        return;
    };
    let router = harness.router.clone();
    harness.runtime.block_on(async move {
        let answered = tokio::time::timeout(Duration::from_secs(10), async move {
            let response = router.oneshot(request).await.expect("infallible");
            let status = response.status();
            let body = axum::body::to_bytes(response.into_body(), 8 * 1024 * 1024)
                .await
                .map(|b| b.len());
            (status, body)
        })
        .await;
        let (status, body) = answered.expect("the request is answered in time");
        assert!(
            !status.is_server_error(),
            "server error {status} for mode {mode}"
        );
        assert!(
            !(json && status == http::StatusCode::UNSUPPORTED_MEDIA_TYPE),
            "415 for a JSON body"
        );
        assert!(body.is_ok(), "the body is read");
    });
});
