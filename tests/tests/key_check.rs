//! `--key-check-url`: the generated server asks the product's own API (a loopback stand-in
//! that knows three keys) whether a key is valid. 1,000 calls cost at most one check per key
//! per TTL; an unknown key is a 401; a revoked key stops working within the TTL; with the API
//! down the answer is a 503 with `Retry-After`; tool calls carry the caller's key upstream.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::http::{HeaderMap, StatusCode};
use axum::response::IntoResponse;
use axum::routing::get;
use mcpgen_tests::{KillOnDrop, start_synaplan_http};
use serde_json::json;

/// The product's API: `GET /api/v1/me` answers for the keys it knows; `GET /api/v1/prompts`
/// records the key it was called with.
#[derive(Clone, Default)]
struct Api {
    state: Arc<Mutex<ApiState>>,
}

#[derive(Default)]
struct ApiState {
    keys: BTreeSet<String>,
    down: bool,
    checks: BTreeMap<String, usize>,
    prompts_keys: Vec<String>,
}

impl Api {
    async fn start(keys: &[&str]) -> (Api, String) {
        let api = Api::default();
        api.lock().keys = keys.iter().map(|k| (*k).to_owned()).collect();
        let me = api.clone();
        let prompts = api.clone();
        let app = Router::new()
            .route(
                "/api/v1/me",
                get(move |headers: HeaderMap| {
                    let api = me.clone();
                    async move { api.me(&headers) }
                }),
            )
            .route(
                "/api/v1/prompts",
                get(move |headers: HeaderMap| {
                    let api = prompts.clone();
                    async move {
                        let key = key_of(&headers);
                        api.lock().prompts_keys.push(key);
                        axum::Json(json!({"prompts": []}))
                    }
                }),
            );
        let url = mcpgen_tests::serve_on_loopback(app).await.expect("binds");
        (api, url)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, ApiState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn me(&self, headers: &HeaderMap) -> axum::response::Response {
        let key = key_of(headers);
        let mut state = self.lock();
        *state.checks.entry(key.clone()).or_default() += 1;
        if state.down {
            return StatusCode::BAD_GATEWAY.into_response();
        }
        if state.keys.contains(&key) {
            let id = key.trim_end_matches("-key");
            axum::Json(json!({"id": id, "scopes": ["mcp:read"]})).into_response()
        } else {
            (StatusCode::UNAUTHORIZED, "unknown key").into_response()
        }
    }

    fn checks(&self, key: &str) -> usize {
        self.lock().checks.get(key).copied().unwrap_or(0)
    }
}

fn key_of(headers: &HeaderMap) -> String {
    headers
        .get("x-api-key")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned()
}

/// A stateless `method` call with `key`: the HTTP status and the response.
async fn call(url: &str, key: &str, method: &str, tool: Option<&str>) -> reqwest::Response {
    let mut params = json!({"_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {}
    }});
    let mut request = reqwest::Client::new()
        .post(format!("{url}/mcp"))
        .header("x-api-key", key)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", method);
    if let Some(tool) = tool {
        params["name"] = json!(tool);
        params["arguments"] = json!({});
        request = request.header("mcp-name", tool);
    }
    request
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}))
        .send()
        .await
        .expect("answers")
}

async fn list_status(url: &str, key: &str) -> u16 {
    call(url, key, "tools/list", None).await.status().as_u16()
}

const KEYS: [&str; 3] = ["ada-key", "bob-key", "cy-key"];

async fn start(api_url: &str, ttl: &str) -> (KillOnDrop, String) {
    start_synaplan_http(
        api_url,
        &[
            "--key-check-url",
            "/api/v1/me",
            "--key-check-principal",
            "/id",
            "--key-check-scopes",
            "/scopes",
            "--key-check-ttl",
            ttl,
        ],
    )
    .await
}

#[tokio::test]
async fn a_thousand_calls_cost_one_check_per_key_and_carry_the_key_upstream() {
    let (api, api_url) = Api::start(&KEYS).await;
    let (_server, url) = start(&api_url, "600").await;
    let mut tasks = Vec::new();
    for worker in 0..10 {
        let url = url.clone();
        tasks.push(tokio::spawn(async move {
            let mut statuses = Vec::new();
            for i in 0..100 {
                let key = KEYS[(worker + i) % KEYS.len()];
                statuses.push(list_status(&url, key).await);
            }
            statuses
        }));
    }
    for task in tasks {
        assert!(task.await.expect("joins").iter().all(|s| *s == 200));
    }
    for key in KEYS {
        assert_eq!(api.checks(key), 1, "{key}");
    }

    // An unknown key is a 401, and is asked about once however often it is tried.
    for _ in 0..5 {
        assert_eq!(list_status(&url, "eve-key").await, 401);
    }
    assert_eq!(api.checks("eve-key"), 1);

    // The tool call reaches the API with the caller's own key (pass-through is implied).
    let response = call(&url, "bob-key", "tools/call", Some("synaplan_list_prompts")).await;
    assert_eq!(response.status(), 200);
    assert_eq!(api.lock().prompts_keys, ["bob-key"]);
}

#[tokio::test]
async fn a_revoked_key_stops_within_the_ttl_and_a_down_api_is_a_503() {
    let (api, api_url) = Api::start(&KEYS).await;
    let (_server, url) = start(&api_url, "1").await;
    assert_eq!(list_status(&url, "ada-key").await, 200);
    api.lock().keys.remove("ada-key");
    let mut stopped = false;
    for _ in 0..50 {
        if list_status(&url, "ada-key").await == 401 {
            stopped = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert!(stopped, "the revoked key kept working");

    assert_eq!(list_status(&url, "bob-key").await, 200);
    api.lock().down = true;
    let mut unavailable = None;
    for _ in 0..50 {
        let response = call(&url, "bob-key", "tools/list", None).await;
        if response.status() != 200 {
            unavailable = Some(response);
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let response = unavailable.expect("the cached answer expired");
    assert_eq!(response.status(), 503);
    assert!(response.headers().contains_key("retry-after"));
    // A key never seen is a 503 too while the API is down, never a 401.
    assert_eq!(list_status(&url, "cy-key").await, 503);
}
