//! Shared by the macro tests: a built server on loopback, and rmcp's client connected to it.

use std::net::SocketAddr;
use std::time::Duration;

use mcpgen::server::Server;
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::Value;
use tokio::sync::oneshot;

/// Serves `server` over HTTP on a free loopback port until the sender is used or dropped.
pub async fn listen(server: Server) -> (SocketAddr, oneshot::Sender<()>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a loopback port");
    let addr = listener.local_addr().expect("an address");
    let (stop, stopped) = oneshot::channel::<()>();
    tokio::spawn(async move {
        server
            .serve_listener(listener, async move {
                let _ = stopped.await;
            })
            .await
    });
    (addr, stop)
}

/// Serves `server` on loopback and connects rmcp's client (no credential) to it.
pub async fn serve(server: Server) -> (RunningService<RoleClient, ()>, oneshot::Sender<()>) {
    let (addr, stop) = listen(server).await;
    let config = StreamableHttpClientTransportConfig::with_uri(format!("http://{addr}/mcp"));
    let transport = StreamableHttpClientTransport::with_client(reqwest::Client::new(), config);
    let client = tokio::time::timeout(Duration::from_secs(10), ().serve(transport))
        .await
        .expect("the client connects in time")
        .expect("the client connects");
    (client, stop)
}

/// Calls tool `name` with `args` (a JSON object).
pub async fn call(
    client: &RunningService<RoleClient, ()>,
    name: &'static str,
    args: Value,
) -> CallToolResult {
    let Value::Object(args) = args else {
        panic!("arguments are an object");
    };
    client
        .call_tool(CallToolRequestParams::new(name).with_arguments(args))
        .await
        .expect("the call gets an answer")
}

/// The text blocks of `result`, one per line.
pub fn text(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}
