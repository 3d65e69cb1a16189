//! Custom headers (`x-mcp-header`, mirrored as `Mcp-Param-*`) on a real server on loopback:
//! requests of the 2026-07-28 protocol whose headers contradict the body are refused with 400
//! and HeaderMismatch (-32020); matching ones, and requests of earlier revisions, are served.
//! A tool whose annotation clients could not honour stops the server's build.

use crate::support;

use std::net::SocketAddr;
use std::sync::Arc;

use mcpgen::AppToolSet;
use mcpgen::server::Server;
use mcpgen::{mcp_tool, tool_set};
use serde_json::{Value, json};
use tokio::sync::oneshot;

const VERSION: &str = "2026-07-28";

/// Finds the rooms of a region.
#[mcp_tool(read_only)]
fn find_rooms(
    /// Where to look.
    #[schemars(extend("x-mcp-header" = "Region"))]
    region: String,
    /// Most rooms to return.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "i64", extend("x-mcp-header" = "Limit"))]
    limit: Option<i64>,
    /// Free text, not mirrored.
    text: Option<String>,
) -> String {
    format!(
        "{region} {} {}",
        limit.unwrap_or(10),
        text.unwrap_or_default()
    )
}

/// Mirrors a list, which no header can carry.
#[mcp_tool(read_only)]
fn bad_header(
    /// Tags.
    #[schemars(extend("x-mcp-header" = "Tags"))]
    tags: Vec<String>,
) -> usize {
    tags.len()
}

async fn serve() -> (SocketAddr, oneshot::Sender<()>) {
    let set: AppToolSet<()> = tool_set![find_rooms];
    let server = Server::builder("headers", "0.1.0")
        .no_auth()
        .shared_tool_set(Arc::new(set))
        .build()
        .expect("the server builds");
    support::listen(server).await
}

/// Posts a `tools/call` of `find_rooms` with `arguments` and the extra `headers`; the
/// protocol headers are those of `version` (`None`: a request of an earlier revision).
async fn post(
    addr: SocketAddr,
    version: Option<&str>,
    arguments: Value,
    headers: &[(&str, &str)],
) -> (u16, Value) {
    let mut params = json!({"name": "find_rooms", "arguments": arguments});
    let mut request = reqwest::Client::new()
        .post(format!("http://{addr}/mcp"))
        .header("Accept", "application/json, text/event-stream");
    if let Some(version) = version {
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": version,
            "io.modelcontextprotocol/clientCapabilities": {},
        });
        request = request
            .header("MCP-Protocol-Version", version)
            .header("Mcp-Method", "tools/call")
            .header("Mcp-Name", "find_rooms");
    }
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let body = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params});
    let response = request.json(&body).send().await.expect("an answer");
    let status = response.status().as_u16();
    let text = response.text().await.expect("a body");
    // A JSON body, or an SSE stream whose last event is the answer.
    let json = serde_json::from_str(&text).unwrap_or_else(|_| {
        text.lines()
            .rev()
            .filter_map(|l| l.strip_prefix("data:"))
            .find_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
            .unwrap_or(Value::Null)
    });
    (status, json)
}

fn assert_mismatch(status: u16, body: &Value, says: &str) {
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["error"]["code"], -32020, "{body}");
    assert_eq!(body["id"], 7, "the error carries the request id: {body}");
    let message = body["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains(says), "{message}");
}

#[tokio::test]
async fn matching_headers_are_served() {
    let (addr, _stop) = serve().await;
    let (status, body) = post(
        addr,
        Some(VERSION),
        json!({"region": "Hello, 世界", "limit": 3, "text": "x"}),
        &[
            ("Mcp-Param-Region", "=?base64?SGVsbG8sIOS4lueVjA==?="),
            ("mcp-param-limit", " 3 "),
        ],
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["result"]["isError"], false, "{body}");
    assert_eq!(body["result"]["content"][0]["text"], "Hello, 世界 3 x");

    // An absent optional argument has no header.
    let (status, body) = post(
        addr,
        Some(VERSION),
        json!({"region": "eu"}),
        &[("Mcp-Param-Region", "eu")],
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["result"]["isError"], false, "{body}");
}

#[tokio::test]
async fn contradicting_missing_extra_and_badly_encoded_headers_are_refused() {
    let (addr, _stop) = serve().await;
    let (status, body) = post(
        addr,
        Some(VERSION),
        json!({"region": "eu"}),
        &[("Mcp-Param-Region", "us")],
    )
    .await;
    assert_mismatch(status, &body, "Mcp-Param-Region");

    let (status, body) = post(addr, Some(VERSION), json!({"region": "eu"}), &[]).await;
    assert_mismatch(status, &body, "missing");

    let (status, body) = post(
        addr,
        Some(VERSION),
        json!({"region": "eu"}),
        &[("Mcp-Param-Region", "eu"), ("Mcp-Param-Limit", "5")],
    )
    .await;
    assert_mismatch(status, &body, "Mcp-Param-Limit");

    let (status, body) = post(
        addr,
        Some(VERSION),
        json!({"region": "Hello"}),
        &[("Mcp-Param-Region", "=?base64?SGVsbG8?=")],
    )
    .await;
    assert_mismatch(status, &body, "Base64");

    let (status, body) = post(
        addr,
        Some(VERSION),
        json!({"region": "eu", "limit": 3}),
        &[("Mcp-Param-Region", "eu"), ("Mcp-Param-Limit", "4")],
    )
    .await;
    assert_mismatch(status, &body, "limit");
}

#[tokio::test]
async fn requests_of_earlier_revisions_are_not_checked() {
    let (addr, _stop) = serve().await;
    // No session either: rmcp answers, but not with a header mismatch.
    let (status, body) = post(addr, None, json!({"region": "eu"}), &[]).await;
    assert_ne!(body["error"]["code"], -32020, "{status} {body}");
}

#[test]
fn an_annotation_clients_cannot_honour_stops_the_build() {
    let set: AppToolSet<()> = tool_set![bad_header];
    let error = Server::builder("headers", "0.1.0")
        .no_auth()
        .shared_tool_set(Arc::new(set))
        .build()
        .expect_err("a header on an array is refused")
        .to_string();
    assert!(
        error.contains("bad_header") && error.contains("tags") && error.contains("x-mcp-header"),
        "{error}"
    );
}
