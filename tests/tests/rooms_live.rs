//! Rooms created and deleted while `rooms-mcp` runs: a room created through `create_room` is
//! served at `/mcp/<room>` at once, to tokens for its own audience only, and a room deleted
//! through `delete_room` answers 404 at once; both without a restart. Driven by rmcp's
//! client over Streamable HTTP against the example as a child process.

use std::collections::HashMap;
use std::path::Path;
use std::time::Duration;

use http::{HeaderName, HeaderValue};
use mcpgen_runtime::auth::TokenAuthority;
use mcpgen_tests::{KillOnDrop, free_port, text, wait_ready, workspace_binary};
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::{Value, json};

const SECRET_VAR: &str = "ROOMS_LIVE_TOKEN_SECRET";
const SECRET: &str = "rooms-live-secret-of-at-least-32-bytes-long!";

type Client = RunningService<RoleClient, ()>;

async fn start(dir: &Path) -> (KillOnDrop, String) {
    let port = free_port();
    let child = tokio::process::Command::new(workspace_binary("rooms-mcp"))
        .arg("--rooms-dir")
        .arg(dir)
        .args(["--listen", &format!("127.0.0.1:{port}")])
        .args(["--token-secret-env", SECRET_VAR])
        .env(SECRET_VAR, SECRET)
        .env("RUST_LOG", "error")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .expect("rooms-mcp starts");
    let url = format!("http://127.0.0.1:{port}");
    assert!(
        wait_ready(&format!("{url}/healthz")).await,
        "rooms-mcp answers /healthz"
    );
    (KillOnDrop(child), url)
}

fn token(audience: &str) -> String {
    TokenAuthority::new(SECRET.as_bytes(), audience)
        .expect("an authority")
        .issue("e2e", &["mcp:*".to_owned()], Duration::from_secs(600))
}

async fn connect(url: &str, token: &str) -> Client {
    let mut headers = HashMap::new();
    headers.insert(
        HeaderName::from_static("authorization"),
        HeaderValue::from_str(&format!("Bearer {token}")).expect("a header value"),
    );
    let config =
        StreamableHttpClientTransportConfig::with_uri(url.to_owned()).custom_headers(headers);
    let transport = StreamableHttpClientTransport::with_client(reqwest::Client::new(), config);
    tokio::time::timeout(Duration::from_secs(10), ().serve(transport))
        .await
        .expect("the client connects in time")
        .expect("the client connects")
}

async fn call(client: &Client, name: &'static str, args: Value) -> CallToolResult {
    let Value::Object(args) = args else {
        panic!("arguments are an object");
    };
    client
        .call_tool(CallToolRequestParams::new(name).with_arguments(args))
        .await
        .expect("the call gets an answer")
}

/// A raw `initialize` POST; returns the status.
async fn initialize_status(url: &str, token: &str) -> u16 {
    reqwest::Client::new()
        .post(url)
        .bearer_auth(token)
        .header("accept", "application/json, text/event-stream")
        .json(&json!({
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "raw", "version": "1"},
            },
        }))
        .send()
        .await
        .expect("the request is sent")
        .status()
        .as_u16()
}

#[tokio::test]
async fn rooms_are_served_and_unserved_as_they_are_created_and_deleted() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    std::fs::write(dir.path().join("alpha.yaml"), "name: alpha\n").expect("alpha.yaml");
    let (_server, url) = start(dir.path()).await;
    let gamma_url = format!("{url}/mcp/gamma");
    assert_eq!(initialize_status(&gamma_url, &token("gamma")).await, 404);

    let admin = connect(&format!("{url}/mcp"), &token("rooms")).await;
    let created = call(
        &admin,
        "create_room",
        json!({"name": "gamma", "description": "Made while serving"}),
    )
    .await;
    assert_eq!(created.is_error, Some(false), "{}", text(&created));
    assert!(
        text(&created).contains("served at /mcp/gamma"),
        "{}",
        text(&created)
    );

    // Served at once, with its own audience: a token for another room is refused there.
    assert_eq!(initialize_status(&gamma_url, &token("alpha")).await, 401);
    let gamma = connect(&gamma_url, &token("gamma")).await;
    let listed = call(&gamma, "list_rooms", json!({})).await;
    assert_eq!(listed.is_error, Some(false), "{}", text(&listed));
    assert_eq!(
        listed
            .structured_content
            .as_ref()
            .map(|c| c["rooms"][0]["name"].clone()),
        Some(json!("gamma"))
    );
    // A gamma token opens neither /mcp nor alpha.
    assert_eq!(
        initialize_status(&format!("{url}/mcp"), &token("gamma")).await,
        401
    );
    assert_eq!(
        initialize_status(&format!("{url}/mcp/alpha"), &token("gamma")).await,
        401
    );
    let card: Value = reqwest::get(format!("{url}/.well-known/mcp.json"))
        .await
        .expect("the card is served")
        .json()
        .await
        .expect("a JSON card");
    let catalogs: Vec<&str> = card["catalogs"]
        .as_array()
        .expect("catalogs")
        .iter()
        .filter_map(|c| c["name"].as_str())
        .collect();
    assert_eq!(catalogs, ["alpha", "gamma"]);

    // A room's name may not be the server's audience.
    let refused = call(&admin, "create_room", json!({"name": "rooms"})).await;
    assert_eq!(refused.is_error, Some(true), "{}", text(&refused));
    assert!(!dir.path().join("rooms.yaml").exists());

    // Deleted: 404 at once, and its file is gone.
    let deleted = call(&admin, "delete_room", json!({"name": "gamma"})).await;
    assert_eq!(deleted.is_error, Some(false), "{}", text(&deleted));
    assert_eq!(initialize_status(&gamma_url, &token("gamma")).await, 404);
    assert!(!dir.path().join("gamma.yaml").exists());
    // Rooms are created and deleted only at /mcp.
    let alpha = connect(&format!("{url}/mcp/alpha"), &token("alpha")).await;
    let inside = call(&alpha, "delete_room", json!({"name": "alpha"})).await;
    assert_eq!(inside.is_error, Some(true), "{}", text(&inside));
    assert!(dir.path().join("alpha.yaml").exists());
    gamma.cancel().await.ok();
    alpha.cancel().await.ok();
    admin.cancel().await.ok();
}
