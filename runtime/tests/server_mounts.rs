//! Several catalogs on one HTTP server (`/mcp/<name>`), each with its own tool sets and its own
//! signed-token audience, driven by rmcp's client and by raw HTTP on a real loopback server.

use crate::support;

use std::collections::HashMap;
use std::time::Duration;

use http::{HeaderName, HeaderValue};
use mcpgen_runtime::ToolDef;
use mcpgen_runtime::auth::TokenAuthority;
use mcpgen_runtime::server::{ConfigProblem, Mount, Server, ServerError};
use rmcp::ServiceExt;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::json;
use support::{
    ADD_NOTE, Client, FixedKeys, LIST_NOTES, Notes, PLUGIN_ECHO, Recorder, Running, SLOW, call,
    names, text,
};

/// Bound on every network wait, so a bug cannot hang the suite.
const WAIT: Duration = Duration::from_secs(10);

const SECRET: &[u8] = b"mounts-test-secret-of-at-least-32-bytes!";

static ALPHA_TOOLS: &[ToolDef] = &[LIST_NOTES];
static BETA_TOOLS: &[ToolDef] = &[LIST_NOTES, ADD_NOTE];
static GAMMA_TOOLS: &[ToolDef] = &[LIST_NOTES, SLOW];

fn every_scope() -> Vec<String> {
    vec!["mcp:*".to_owned(), "notes:write".to_owned()]
}

fn notes(tools: &'static [ToolDef]) -> Notes {
    Notes {
        tools: Some(tools),
        ..Notes::default()
    }
}

/// rmcp's Streamable HTTP client at `url` (the full endpoint), as the holder of `token`.
async fn connect(url: &str, token: &str) -> Client {
    let mut headers = HashMap::new();
    headers.insert(
        HeaderName::from_static("authorization"),
        HeaderValue::from_str(&format!("Bearer {token}")).expect("a header value"),
    );
    let config =
        StreamableHttpClientTransportConfig::with_uri(url.to_owned()).custom_headers(headers);
    let transport = StreamableHttpClientTransport::with_client(reqwest::Client::new(), config);
    tokio::time::timeout(WAIT, ().serve(transport))
        .await
        .expect("the client connects in time")
        .expect("the client connects")
}

/// A raw `initialize` POST to `url` with `token`; returns the status and `WWW-Authenticate`.
async fn raw_initialize(url: &str, token: &str) -> (u16, Option<String>) {
    let response = reqwest::Client::new()
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
        .expect("the request is sent");
    let challenge = response
        .headers()
        .get("www-authenticate")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    (response.status().as_u16(), challenge)
}

/// Two catalogs, `alpha` and `beta`, each accepting only tokens for its own name.
fn two_rooms(recorder: &Recorder) -> (Server, TokenAuthority) {
    let tokens = TokenAuthority::new(SECRET, "rooms").expect("an authority");
    let server = Server::builder("rooms", "0.1.0")
        .audit(recorder.clone())
        .mount(
            Mount::new("alpha")
                .tool_set(notes(ALPHA_TOOLS))
                .authenticator(tokens.with_audience("alpha").expect("an audience")),
        )
        .mount(
            Mount::new("beta")
                .description("The beta room")
                .tool_set(notes(BETA_TOOLS))
                .authenticator(tokens.with_audience("beta").expect("an audience")),
        )
        .build()
        .expect("the server builds");
    (server, tokens)
}

#[tokio::test]
async fn each_catalog_serves_its_tools_to_its_own_tokens_only() {
    let recorder = Recorder::default();
    let (server, tokens) = two_rooms(&recorder);
    assert_eq!(server.catalogs(), ["alpha", "beta"]);
    let running = Running::start(server).await;
    let alpha_url = format!("{}/mcp/alpha", running.url);
    let beta_url = format!("{}/mcp/beta", running.url);
    let hour = Duration::from_secs(3600);
    let alpha_token =
        tokens
            .with_audience("alpha")
            .expect("an audience")
            .issue("ann", &every_scope(), hour);
    let beta_token =
        tokens
            .with_audience("beta")
            .expect("an audience")
            .issue("bob", &every_scope(), hour);

    let alpha = connect(&alpha_url, &alpha_token).await;
    let listed = alpha.list_all_tools().await.expect("tools/list");
    assert_eq!(names(&listed), ["list_notes"]);
    let result = alpha
        .call_tool(call("list_notes", json!({"limit": 1})))
        .await
        .expect("tools/call");
    assert_eq!(result.is_error, Some(false));
    assert_eq!(
        result.structured_content,
        Some(json!({"notes": ["note 1"]}))
    );
    // The calls of a mount reach the server's audit sinks.
    let events = recorder.events();
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(events[0].tool, "list_notes");
    assert_eq!(events[0].principal.as_deref(), Some("ann"));

    let beta = connect(&beta_url, &beta_token).await;
    let listed = beta.list_all_tools().await.expect("tools/list");
    assert_eq!(names(&listed), ["add_note", "list_notes"]);
    let info = beta
        .peer_info()
        .and_then(|info| info.server_info.clone())
        .expect("the server's initialize answer");
    assert_eq!(info.name, "rooms/beta");
    assert_eq!(info.description.as_deref(), Some("The beta room"));

    // A token for alpha is refused at beta, and the other way round, with 401 and a challenge.
    for (url, token) in [(&beta_url, &alpha_token), (&alpha_url, &beta_token)] {
        let (status, challenge) = raw_initialize(url, token).await;
        assert_eq!(status, 401, "{url}");
        let challenge = challenge.expect("a WWW-Authenticate header");
        assert!(challenge.contains("invalid_token"), "{challenge}");
        assert!(challenge.contains("another audience"), "{challenge}");
    }
    // A token for the server's name is no catalog's.
    let server_token = tokens.issue("eve", &every_scope(), hour);
    assert_eq!(raw_initialize(&alpha_url, &server_token).await.0, 401);
    // Without tool sets of its own, the server serves no `/mcp`; unknown catalogs are 404.
    assert_eq!(
        raw_initialize(&format!("{}/mcp", running.url), &alpha_token)
            .await
            .0,
        404
    );
    assert_eq!(
        raw_initialize(&format!("{}/mcp/gamma", running.url), &alpha_token)
            .await
            .0,
        404
    );
    alpha.cancel().await.expect("the client closes");
    beta.cancel().await.expect("the client closes");
    running.stop().await.expect("the server stops cleanly");
}

#[tokio::test]
async fn the_own_catalog_stays_at_mcp_and_server_keys_reach_mounts() {
    let recorder = Recorder::default();
    let tokens = TokenAuthority::new(SECRET, "notes").expect("an authority");
    let server = Server::builder("notes", "0.1.0")
        .tool_set(notes(BETA_TOOLS))
        .authenticator(FixedKeys::new())
        .audit(recorder.clone())
        .mount(
            Mount::new("echo_room")
                .tool_set(notes(&[PLUGIN_ECHO]))
                .authenticator(tokens.with_audience("echo_room").expect("an audience")),
        )
        .build()
        .expect("the server builds");
    let running = Running::start(server).await;

    let own = support::connect(&running.url, "admin-key").await;
    assert_eq!(
        names(&own.list_all_tools().await.expect("tools/list")),
        ["add_note", "list_notes"]
    );
    // A server-wide key is accepted by the mount too (its own authenticators come first).
    let mounted = connect(&format!("{}/mcp/echo_room", running.url), "admin-key").await;
    assert_eq!(
        names(&mounted.list_all_tools().await.expect("tools/list")),
        ["plugin_echo"]
    );
    // The mount's token is not accepted at `/mcp`.
    let token = tokens
        .with_audience("echo_room")
        .expect("an audience")
        .issue("ann", &every_scope(), Duration::from_secs(60));
    assert_eq!(
        raw_initialize(&format!("{}/mcp", running.url), &token)
            .await
            .0,
        401
    );
    own.cancel().await.expect("the client closes");
    mounted.cancel().await.expect("the client closes");
    running.stop().await.expect("the server stops cleanly");
}

#[tokio::test]
async fn legacy_sse_is_served_under_each_catalog() {
    let recorder = Recorder::default();
    let (server, tokens) = two_rooms(&recorder);
    let running = Running::start(server).await;
    let token = tokens.with_audience("alpha").expect("an audience").issue(
        "ann",
        &every_scope(),
        Duration::from_secs(60),
    );

    let refused = reqwest::Client::new()
        .get(format!("{}/mcp/beta/sse", running.url))
        .bearer_auth(&token)
        .header("accept", "text/event-stream")
        .send()
        .await
        .expect("the request is sent");
    assert_eq!(refused.status(), 401);

    let mut stream = reqwest::Client::new()
        .get(format!("{}/mcp/alpha/sse", running.url))
        .bearer_auth(&token)
        .header("accept", "text/event-stream")
        .send()
        .await
        .expect("the request is sent");
    assert_eq!(stream.status(), 200);
    let mut text = String::new();
    while !text.contains("\n\n") {
        let chunk = tokio::time::timeout(WAIT, stream.chunk())
            .await
            .expect("the endpoint event arrives in time")
            .expect("the stream reads")
            .expect("the stream stays open");
        text.push_str(&String::from_utf8_lossy(&chunk));
    }
    assert!(text.contains("event: endpoint"), "{text}");
    let endpoint = text
        .lines()
        .find_map(|line| line.strip_prefix("data: "))
        .expect("the endpoint's data")
        .trim()
        .to_owned();
    assert!(
        endpoint.starts_with("/mcp/alpha/message?sessionId="),
        "{endpoint}"
    );
    let posted = reqwest::Client::new()
        .post(format!("{}{endpoint}", running.url))
        .bearer_auth(&token)
        .json(&json!({
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2024-11-05",
                "capabilities": {},
                "clientInfo": {"name": "legacy", "version": "1"},
            },
        }))
        .send()
        .await
        .expect("the request is sent");
    assert_eq!(posted.status(), 202);
    drop(stream);
    running.stop().await.expect("the server stops cleanly");
}

static TWICE: &[ToolDef] = &[LIST_NOTES];

#[test]
fn bad_and_duplicate_catalog_names_are_start_up_errors() {
    static ONE: &[ToolDef] = &[LIST_NOTES];
    let built = Server::builder("rooms", "0.1.0")
        .mount(Mount::new("a/b").tool_set(notes(ONE)))
        .mount(Mount::new("").tool_set(notes(ONE)))
        .mount(Mount::new("server-card").tool_set(notes(ONE)))
        .mount(Mount::new("x".repeat(65)).tool_set(notes(ONE)))
        .mount(Mount::new("ok").tool_set(notes(ONE)))
        .mount(Mount::new("ok").tool_set(notes(ONE)))
        .mount(
            Mount::new("twice")
                .tool_set(notes(ONE))
                .tool_set(notes(TWICE)),
        )
        .build();
    let Err(ServerError::Config(problems)) = built else {
        panic!("the server must not build");
    };
    let bad_names: Vec<&str> = problems
        .iter()
        .filter_map(|p| match p {
            ConfigProblem::InvalidCatalogName { name, .. } => Some(name.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(bad_names, ["a/b", "", "server-card", &"x".repeat(65)]);
    assert!(
        problems.contains(&ConfigProblem::DuplicateCatalog { name: "ok".into() }),
        "{problems:?}"
    );
    assert!(
        problems.contains(&ConfigProblem::InCatalog {
            catalog: "twice".into(),
            problem: Box::new(ConfigProblem::DuplicateTool {
                tool: "list_notes".into(),
                first_set: 1,
                second_set: 2,
            }),
        }),
        "{problems:?}"
    );
    assert_eq!(problems.len(), 6, "{problems:?}");
    let message = ServerError::Config(problems).to_string();
    assert!(
        message.contains("catalog `twice` (/mcp/twice): tool `list_notes` is defined twice"),
        "{message}"
    );
    assert!(message.contains("^[A-Za-z0-9_-]{1,64}$"), "{message}");

    // The same tool name in two catalogs is fine.
    let server = Server::builder("rooms", "0.1.0")
        .mount(Mount::new("one").tool_set(notes(ONE)))
        .mount(
            Mount::new("two")
                .tool_set(notes(TWICE))
                .tool_set(notes(&[ADD_NOTE])),
        )
        .build()
        .expect("the server builds");
    let two: Vec<&str> = server
        .catalog_tools("two")
        .expect("a catalog")
        .iter()
        .map(|t| t.name)
        .collect();
    assert_eq!(two, ["list_notes", "add_note"]);
}

#[tokio::test]
async fn an_open_catalog_is_refused_on_a_public_address() {
    let tokens = TokenAuthority::new(SECRET, "rooms").expect("an authority");
    let server = Server::builder("rooms", "0.1.0")
        .mount(
            Mount::new("closed")
                .tool_set(notes(ALPHA_TOOLS))
                .authenticator(tokens.with_audience("closed").expect("an audience")),
        )
        .mount(Mount::new("open").tool_set(notes(BETA_TOOLS)))
        .build()
        .expect("the server builds");
    let refused = server
        .serve_http("0.0.0.0:0".parse().expect("an address"), async {})
        .await;
    assert!(
        matches!(refused, Err(ServerError::InsecureNoAuth { .. })),
        "{refused:?}"
    );
}

#[tokio::test]
async fn the_cards_of_a_server_with_only_mounts_list_the_mounts_and_nothing_else() {
    let recorder = Recorder::default();
    let (server, _tokens) = two_rooms(&recorder);
    let running = Running::start(server).await;
    let draft: serde_json::Value = reqwest::get(format!("{}/mcp/server-card", running.url))
        .await
        .expect("the card is served")
        .json()
        .await
        .expect("a JSON card");
    let remotes: Vec<(String, String)> = draft["remotes"]
        .as_array()
        .expect("remotes")
        .iter()
        .map(|r| {
            assert_eq!(r["headers"][0]["name"], "Authorization", "{r}");
            (
                r["type"].as_str().unwrap_or_default().to_owned(),
                r["url"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    let url = &running.url;
    assert_eq!(
        remotes,
        [
            ("streamable-http".to_owned(), format!("{url}/mcp/alpha")),
            ("sse".to_owned(), format!("{url}/mcp/alpha/sse")),
            ("streamable-http".to_owned(), format!("{url}/mcp/beta")),
            ("sse".to_owned(), format!("{url}/mcp/beta/sse")),
        ]
    );
    let card: serde_json::Value = reqwest::get(format!("{url}/.well-known/mcp.json"))
        .await
        .expect("the card is served")
        .json()
        .await
        .expect("a JSON card");
    assert_eq!(card.get("endpoint"), None, "{card}");
    assert_eq!(card["transports"], json!([]));
    assert_eq!(
        card["catalogs"],
        json!([
            {"name": "alpha", "endpoint": "/mcp/alpha", "transports": ["streamable-http", "sse"]},
            {"name": "beta", "endpoint": "/mcp/beta", "transports": ["streamable-http", "sse"]},
        ])
    );
    running.stop().await.expect("the server stops");
}

#[tokio::test]
async fn catalogs_mount_and_unmount_while_serving() {
    let recorder = Recorder::default();
    let (server, tokens) = two_rooms(&recorder);
    let handle = server.clone();
    let running = Running::start(server).await;
    let gamma_url = format!("{}/mcp/gamma", running.url);
    let hour = Duration::from_secs(3600);
    let gamma_token =
        tokens
            .with_audience("gamma")
            .expect("an audience")
            .issue("cy", &every_scope(), hour);
    let alpha_token =
        tokens
            .with_audience("alpha")
            .expect("an audience")
            .issue("ann", &every_scope(), hour);
    assert_eq!(raw_initialize(&gamma_url, &gamma_token).await.0, 404);

    let gamma_tools = notes(GAMMA_TOOLS);
    handle
        .mount(
            Mount::new("gamma")
                .tool_set(gamma_tools.clone())
                .authenticator(tokens.with_audience("gamma").expect("an audience")),
        )
        .expect("gamma mounts while serving");
    assert_eq!(handle.catalogs(), ["alpha", "beta", "gamma"]);
    // Served at once, to its own audience only.
    assert_eq!(raw_initialize(&gamma_url, &alpha_token).await.0, 401);
    let gamma = connect(&gamma_url, &gamma_token).await;
    let listed = gamma.list_all_tools().await.expect("tools/list");
    assert_eq!(names(&listed), ["list_notes", "slow"]);
    let card: serde_json::Value = reqwest::get(format!("{}/.well-known/mcp.json", running.url))
        .await
        .expect("the card is served")
        .json()
        .await
        .expect("a JSON card");
    assert_eq!(card["catalogs"][2]["name"], "gamma", "{card}");

    // A raw session, opened before the unmount.
    let opened = reqwest::Client::new()
        .post(&gamma_url)
        .bearer_auth(&gamma_token)
        .header("accept", "application/json, text/event-stream")
        .json(&json!({
            "jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "raw", "version": "1"}},
        }))
        .send()
        .await
        .expect("the request is sent");
    let session = opened
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .expect("a session id")
        .to_owned();
    let list_in_session = || {
        reqwest::Client::new()
            .post(&gamma_url)
            .bearer_auth(&gamma_token)
            .header("accept", "application/json, text/event-stream")
            .header("mcp-session-id", &session)
            .header("mcp-protocol-version", "2025-06-18")
            .json(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}))
            .send()
    };

    // A call in progress when the catalog is unmounted finishes; new requests get 404.
    let in_flight = tokio::spawn(async move {
        let result = gamma.call_tool(call("slow", json!({"ms": 1000}))).await;
        (result, gamma)
    });
    let started = async {
        while !gamma_tools.calls().contains(&"slow".to_owned()) {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    };
    tokio::time::timeout(WAIT, started)
        .await
        .expect("the slow call starts");
    assert!(handle.unmount("gamma"));
    assert!(!handle.unmount("gamma"), "already unmounted");
    assert_eq!(raw_initialize(&gamma_url, &gamma_token).await.0, 404);
    let in_session = list_in_session().await.expect("the request is sent");
    assert_eq!(
        in_session.status().as_u16(),
        404,
        "a session of the unmounted catalog"
    );
    let (result, _gamma) = tokio::time::timeout(WAIT, in_flight)
        .await
        .expect("the call in flight finishes")
        .expect("the task runs");
    let result = result.expect("the call in flight is answered");
    assert_eq!(result.is_error, Some(false), "{}", text(&result));
    assert_eq!(text(&result), "waited 1000 ms");
    assert_eq!(handle.catalogs(), ["alpha", "beta"]);

    // Mounted again, it is served again; a name in use or a bad one is refused.
    handle
        .mount(
            Mount::new("gamma")
                .tool_set(notes(GAMMA_TOOLS))
                .authenticator(tokens.with_audience("gamma").expect("an audience")),
        )
        .expect("gamma mounts again");
    assert_eq!(raw_initialize(&gamma_url, &gamma_token).await.0, 200);
    assert_eq!(raw_initialize(&gamma_url, &alpha_token).await.0, 401);
    let refused = handle.mount(Mount::new("alpha").tool_set(notes(ALPHA_TOOLS)));
    assert!(
        matches!(&refused, Err(ServerError::Config(p)) if p == &[ConfigProblem::DuplicateCatalog { name: "alpha".to_owned() }]),
        "{refused:?}"
    );
    let refused = handle.mount(Mount::new("a/b").tool_set(notes(ALPHA_TOOLS)));
    assert!(
        matches!(&refused, Err(ServerError::Config(p)) if matches!(p[..], [ConfigProblem::InvalidCatalogName { .. }])),
        "{refused:?}"
    );
    running.stop().await.expect("the server stops");
}
