//! Legacy HTTP+SSE framing, both sides. Server: the bytes are POSTed to `/message` of an
//! initialized session opened through the router in process; the answer must be 202 (handed
//! to the session) or 400 (not JSON-RPC), never a server error or a hang. Client: the same
//! bytes, read as a `text/event-stream` by the client's parser with a small data cap, must
//! give the same events whether they arrive in one piece or split at any point.
#![no_main]

use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use axum::body::Body;
use futures::StreamExt;
use http::Request;
use libfuzzer_sys::fuzz_target;
use mcpgen_client::fuzzing::sse_events;
use mcpgen_runtime::server::Server;
use mcpgen_runtime::{Upstream, UpstreamConfig};
use tower::ServiceExt;

struct Harness {
    runtime: tokio::runtime::Runtime,
    router: axum::Router,
    _server: Server,
    /// The message URL of the open session.
    endpoint: Mutex<Option<String>>,
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
                .tool_set(library2_mcp::tool_set(upstream))
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
            endpoint: Mutex::new(None),
        }
    })
}

async fn post(router: &axum::Router, endpoint: &str, body: Vec<u8>) -> (http::StatusCode, usize) {
    let request = Request::post(format!("http://127.0.0.1{endpoint}"))
        .header("host", "127.0.0.1")
        .header("content-type", "application/json")
        .body(Body::from(body))
        .expect("a request");
    let response = router.clone().oneshot(request).await.expect("infallible");
    let status = response.status();
    let len = axum::body::to_bytes(response.into_body(), 1024 * 1024)
        .await
        .map_or(0, |b| b.len());
    (status, len)
}

/// Opens `GET /sse`, drains the stream in the background, and initializes the session.
async fn open_session(router: &axum::Router) -> String {
    let request = Request::get("http://127.0.0.1/sse")
        .header("host", "127.0.0.1")
        .header("accept", "text/event-stream")
        .body(Body::empty())
        .expect("a request");
    let response = router.clone().oneshot(request).await.expect("infallible");
    assert_eq!(response.status(), 200, "the stream opens");
    let mut stream = response.into_body().into_data_stream();
    let mut text = String::new();
    let endpoint = loop {
        let chunk = stream
            .next()
            .await
            .expect("an endpoint event")
            .expect("bytes");
        text.push_str(&String::from_utf8_lossy(&chunk));
        if let Some(data) = text.lines().find_map(|l| l.strip_prefix("data:")) {
            break data.trim().to_owned();
        }
    };
    tokio::spawn(async move { while stream.next().await.is_some() {} });
    let init = br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"fuzz","version":"1"}}}"#;
    assert_eq!(post(router, &endpoint, init.to_vec()).await.0, 202);
    let initialized = br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    assert_eq!(post(router, &endpoint, initialized.to_vec()).await.0, 202);
    endpoint
}

fn server_side(body: &[u8]) {
    let harness = harness();
    harness.runtime.block_on(async {
        tokio::time::timeout(Duration::from_secs(10), async {
            let current = harness.endpoint.lock().expect("not poisoned").clone();
            let endpoint = match current {
                Some(endpoint) => endpoint,
                None => open_session(&harness.router).await,
            };
            let (mut status, _) = post(&harness.router, &endpoint, body.to_vec()).await;
            if status == http::StatusCode::NOT_FOUND {
                // An earlier message ended the session: open another and try again.
                let endpoint = open_session(&harness.router).await;
                status = post(&harness.router, &endpoint, body.to_vec()).await.0;
                *harness.endpoint.lock().expect("not poisoned") = Some(endpoint);
            } else {
                *harness.endpoint.lock().expect("not poisoned") = Some(endpoint);
            }
            assert!(
                status == http::StatusCode::ACCEPTED || status == http::StatusCode::BAD_REQUEST,
                "unexpected status {status}"
            );
        })
        .await
        .expect("the message is answered in time");
    });
}

fn client_side(split: u8, cap: u8, stream: &[u8]) {
    let limit = usize::from(cap) * 4;
    let whole = sse_events(limit, &[stream]);
    let at = usize::from(split).min(stream.len());
    let (a, b) = stream.split_at(at);
    assert_eq!(whole, sse_events(limit, &[a, b]), "split at {at}");
    let bytes: Vec<&[u8]> = stream.chunks(1).collect();
    assert_eq!(whole, sse_events(limit, &bytes), "byte by byte");
    for event in &whole {
        if let Some(data) = &event.data {
            assert!(data.len() <= limit, "data over the cap");
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let [split, cap, rest @ ..] = data else {
        return;
    };
    client_side(*split, *cap, rest);
    server_side(rest);
});
