//! `--upstream-token-exchange`: the generated Events server (an API with an HTTP bearer
//! scheme) accepts OAuth access tokens from `oauth2-mock-server` and exchanges each caller's
//! token (RFC 8693) at a real token exchange server, ts-oauth2-server (`@jmondi/oauth2-server`
//! from npm, configured by `tests/node/token-exchange-server.mjs`), for a token whose audience
//! is the API. A stand-in API on loopback records the `Authorization` it receives.

use std::process::Stdio;
use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use mcpgen_tests::{
    AuthServer, KillOnDrop, Recorded, StandIn, admin_keys_file, free_port, node_bin, node_file,
    wait_ready, workspace_binary,
};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};

/// The bearer token the server is configured with for the API (`--upstream-bearer`).
const STATIC_TOKEN: &str = "static-service-token";

/// The tool called: `GET /events`, secured by the API's bearer scheme.
const TOOL: &str = "events31_list_events";

/// Seconds the exchange server's tokens live.
const EXCHANGED_TTL: u64 = 4;

/// The exchange server (ts-oauth2-server), with its client `mcp-server`, refusing `mallory`.
struct ExchangeServer {
    child: KillOnDrop,
    token_endpoint: String,
}

impl ExchangeServer {
    async fn start(issuer: &str) -> ExchangeServer {
        let ttl = EXCHANGED_TTL.to_string();
        let mut child = tokio::process::Command::new(node_bin("node"))
            .arg(node_file("token-exchange-server.mjs"))
            .args([issuer, "--ttl", &ttl, "--refuse", "mallory"])
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .expect("the token exchange server starts");
        let stdout = child.stdout.take().expect("stdout");
        let first = BufReader::new(stdout)
            .lines()
            .next_line()
            .await
            .expect("reads")
            .expect("a first line");
        let ready: Value = serde_json::from_str(&first).expect("JSON");
        let token_endpoint = ready["token_endpoint"].as_str().expect("URL").to_owned();
        ExchangeServer {
            child: KillOnDrop(child),
            token_endpoint,
        }
    }

    /// Its base URL, the `iss` of the tokens it issues.
    fn base(&self) -> &str {
        self.token_endpoint.trim_end_matches("/token")
    }

    /// What its token endpoint was asked so far: `requests`, and per subject `exchanged` and
    /// `refused`.
    async fn counts(&self) -> Value {
        reqwest::get(format!("{}/exchanges", self.base()))
            .await
            .expect("the exchange server answers")
            .json()
            .await
            .expect("JSON")
    }
}

struct Fixture {
    auth: AuthServer,
    exchange: Option<ExchangeServer>,
    _server: KillOnDrop,
    url: String,
    upstream: StandIn,
    audit: std::path::PathBuf,
    _dir: tempfile::TempDir,
}

impl Fixture {
    /// An access token of the issuer for the MCP endpoint, for `sub`.
    async fn token_for(&mut self, sub: &str) -> String {
        let resource = format!("{}/mcp", self.url);
        self.auth
            .token(json!({"sub": sub, "aud": resource, "scope": "mcp:read"}))
            .await
    }

    fn exchange(&self) -> &ExchangeServer {
        self.exchange.as_ref().expect("an exchange server")
    }

    /// The audit records written so far.
    fn audit_records(&self) -> Vec<Value> {
        std::fs::read_to_string(&self.audit)
            .unwrap_or_default()
            .lines()
            .map(|line| serde_json::from_str(line).expect("a JSON audit line"))
            .collect()
    }
}

/// `events31-mcp` over HTTP with `--oauth-issuer` (and the admin key) against a stand-in API,
/// with the flags `flags` makes from the token endpoint of the exchange server (when one is
/// started). The client secret comes from `MCPGEN_OAUTH_CLIENT_SECRET`.
async fn start(with_exchange: bool, flags: impl FnOnce(&str) -> Vec<String>) -> Fixture {
    let auth = AuthServer::start().await;
    let exchange = match with_exchange {
        true => Some(ExchangeServer::start(&auth.issuer).await),
        false => None,
    };
    let endpoint = exchange.as_ref().map_or("", |e| e.token_endpoint.as_str());
    let flags = flags(endpoint);
    let upstream = StandIn::start(vec![(
        "GET /events",
        (200, "application/json", r#"{"events":[]}"#.to_owned()),
    )])
    .await
    .expect("the stand-in API starts");
    let dir = tempfile::tempdir().expect("tempdir");
    let keys = admin_keys_file(dir.path());
    let audit = dir.path().join("audit.jsonl");
    let port = free_port();
    let url = format!("http://127.0.0.1:{port}");
    let child = tokio::process::Command::new(workspace_binary("events31-mcp"))
        .args(["--transport", "http", "--upstream-url", &upstream.url])
        .args([
            "--listen",
            &format!("127.0.0.1:{port}"),
            "--public-url",
            &url,
        ])
        .args(["--oauth-issuer", &auth.issuer])
        .arg("--keys")
        .arg(&keys)
        .arg("--audit-log")
        .arg(&audit)
        .args(["--audit-fsync", "always"])
        .args(&flags)
        .env("MCPGEN_OAUTH_CLIENT_SECRET", "exchange-secret")
        .env("RUST_LOG", "error")
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .expect("events31-mcp starts");
    assert!(
        wait_ready(&format!("{url}/healthz")).await,
        "events31-mcp did not come up"
    );
    Fixture {
        auth,
        exchange,
        _server: KillOnDrop(child),
        url,
        upstream,
        audit,
        _dir: dir,
    }
}

/// The flags of a server that exchanges at `endpoint`, with a configured bearer token too.
fn exchanging(endpoint: &str) -> Vec<String> {
    [
        "--upstream-bearer",
        STATIC_TOKEN,
        "--upstream-token-exchange",
        "--token-exchange-endpoint",
        endpoint,
        "--oauth-client-id",
        "mcp-server",
    ]
    .map(str::to_owned)
    .to_vec()
}

/// Who calls: an OAuth access token, or an API key from the keys file.
#[derive(Clone, Copy)]
enum Caller<'a> {
    Token(&'a str),
    Key(&'a str),
}

/// The result of a stateless (2026-07-28) `tools/call` of [`TOOL`] by `caller`.
async fn call(url: &str, caller: Caller<'_>) -> Value {
    let message = json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": TOOL, "arguments": {}, "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": {}
        }}
    });
    let request = reqwest::Client::new()
        .post(format!("{url}/mcp"))
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", TOOL)
        .json(&message);
    let request = match caller {
        Caller::Token(token) => request.bearer_auth(token),
        Caller::Key(key) => request.header("x-api-key", key),
    };
    let response = request.send().await.expect("the server answers");
    assert_eq!(response.status(), 200);
    let body = response.text().await.expect("a body");
    // A JSON body, or an event stream whose last `data:` line is the answer.
    let answer = body
        .lines()
        .rev()
        .find_map(|line| line.strip_prefix("data:"))
        .unwrap_or(&body);
    let answer: Value = serde_json::from_str(answer.trim()).unwrap_or_else(|_| panic!("{body}"));
    answer["result"].clone()
}

fn is_error(result: &Value) -> bool {
    result["isError"] == json!(true)
}

/// The text of a tool result.
fn text(result: &Value) -> String {
    result["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The bearer token of a request the API received.
fn bearer(request: &Recorded) -> String {
    request
        .header("authorization")
        .and_then(|v| v.strip_prefix("Bearer "))
        .unwrap_or_else(|| panic!("no bearer token: {:?}", request.header("authorization")))
        .to_owned()
}

/// The (unverified) claims of a JWT.
fn claims(jwt: &str) -> Value {
    let payload = jwt.split('.').nth(1).expect("a JWT");
    serde_json::from_slice(&URL_SAFE_NO_PAD.decode(payload).expect("base64url")).expect("JSON")
}

#[tokio::test]
async fn the_api_receives_a_token_exchanged_once_per_subject_and_lifetime() {
    let mut f = start(true, exchanging).await;
    let alice = f.token_for("alice").await;

    // Four calls at once, then three more: one exchange.
    let together =
        futures::future::join_all((0..4).map(|_| call(&f.url, Caller::Token(&alice)))).await;
    for result in together {
        assert!(!is_error(&result), "{result}");
    }
    for _ in 0..3 {
        let result = call(&f.url, Caller::Token(&alice)).await;
        assert!(!is_error(&result), "{result}");
        assert!(text(&result).contains("events"), "{result}");
    }
    let counts = f.exchange().counts().await;
    assert_eq!(counts["requests"], json!(1), "{counts}");
    assert_eq!(counts["exchanged"], json!({"alice": 1}), "{counts}");

    // The API got the exchanged token every time: not alice's own, not the configured one.
    let sent = f.upstream.received();
    assert_eq!(sent.len(), 7);
    let exchanged = bearer(&sent[0]);
    assert!(sent.iter().all(|r| bearer(r) == exchanged));
    assert_ne!(exchanged, alice);
    assert_ne!(exchanged, STATIC_TOKEN);
    let issued = claims(&exchanged);
    assert_eq!(issued["sub"], json!("alice"), "{issued}");
    assert_eq!(issued["aud"], json!(f.upstream.url), "{issued}");
    assert_eq!(issued["iss"], json!(f.exchange().base()), "{issued}");
    assert_eq!(issued["cid"], json!("mcp-server"), "{issued}");

    // Another subject has an exchange of its own.
    let bob = f.token_for("bob").await;
    let result = call(&f.url, Caller::Token(&bob)).await;
    assert!(!is_error(&result), "{result}");
    let counts = f.exchange().counts().await;
    assert_eq!(
        counts["exchanged"],
        json!({"alice": 1, "bob": 1}),
        "{counts}"
    );
    let for_bob = bearer(f.upstream.received().last().expect("a request"));
    assert_eq!(claims(&for_bob)["sub"], json!("bob"));

    // A key holder uses the configured credential, and exchanges nothing.
    let result = call(&f.url, Caller::Key("admin-key-0123456789")).await;
    assert!(!is_error(&result), "{result}");
    let last = f.upstream.received().pop().expect("a request");
    assert_eq!(bearer(&last), STATIC_TOKEN);
    assert_eq!(f.exchange().counts().await["requests"], json!(2));

    // Once alice's exchanged token has expired, her next call exchanges again.
    let exp = issued["exp"].as_u64().expect("exp");
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    tokio::time::sleep(Duration::from_secs(exp.saturating_sub(now) + 1)).await;
    let result = call(&f.url, Caller::Token(&alice)).await;
    assert!(!is_error(&result), "{result}");
    let counts = f.exchange().counts().await;
    assert_eq!(
        counts["exchanged"],
        json!({"alice": 2, "bob": 1}),
        "{counts}"
    );
    let renewed = bearer(f.upstream.received().last().expect("a request"));
    assert_ne!(renewed, exchanged);
    assert_eq!(claims(&renewed)["sub"], json!("alice"));
}

#[tokio::test]
async fn a_refused_or_failed_exchange_is_a_tool_error_and_nothing_goes_upstream() {
    let mut f = start(true, exchanging).await;
    let mallory = f.token_for("mallory").await;
    let result = call(&f.url, Caller::Token(&mallory)).await;
    assert!(is_error(&result), "{result}");
    let message = text(&result);
    assert!(
        message.contains("the caller's OAuth token could not be exchanged"),
        "{message}"
    );
    assert!(message.contains("access_denied"), "{message}");
    assert!(
        message.contains("mallory may not reach the API"),
        "{message}"
    );
    assert!(
        !message.contains(&mallory),
        "the token is not shown: {message}"
    );
    let counts = f.exchange().counts().await;
    assert_eq!(counts["refused"], json!({"mallory": 1}), "{counts}");
    assert_eq!(f.upstream.received().len(), 0);
    let records = f.audit_records();
    let record = records.last().expect("an audit record");
    assert_eq!(record["status"], json!("upstream_error"), "{record}");
    assert_eq!(record["principal"], json!("mallory"), "{record}");
    assert!(
        record["error"]
            .as_str()
            .is_some_and(|e| e.contains("could not be exchanged")),
        "{record}"
    );

    // With the exchange server gone, a caller without a cached token gets an error too.
    let mut gone = f.exchange.take().expect("an exchange server");
    gone.child.0.kill().await.expect("stops");
    let alice = f.token_for("alice").await;
    let result = call(&f.url, Caller::Token(&alice)).await;
    assert!(is_error(&result), "{result}");
    assert!(text(&result).contains("cannot be reached"), "{result}");
    assert_eq!(f.upstream.received().len(), 0);
}

#[tokio::test]
async fn without_an_endpoint_the_exchange_goes_to_the_issuer_metadata_token_endpoint() {
    // oauth2-mock-server's token endpoint, found in its metadata, has no token exchange.
    let mut f = start(false, |_| {
        [
            "--upstream-token-exchange",
            "--oauth-client-id",
            "mcp-server",
        ]
        .map(str::to_owned)
        .to_vec()
    })
    .await;
    let alice = f.token_for("alice").await;
    let result = call(&f.url, Caller::Token(&alice)).await;
    assert!(is_error(&result), "{result}");
    let message = text(&result);
    assert!(
        message.contains("refused the exchange (400 Bad Request: Invalid grant type)"),
        "{message}"
    );
    assert_eq!(f.upstream.received().len(), 0);
}

#[tokio::test]
async fn without_the_flag_oauth_callers_use_the_configured_credential() {
    let mut f = start(false, |_| {
        [
            "--upstream-bearer",
            STATIC_TOKEN,
            "--oauth-client-id",
            "mcp-server",
        ]
        .map(str::to_owned)
        .to_vec()
    })
    .await;
    let alice = f.token_for("alice").await;
    let result = call(&f.url, Caller::Token(&alice)).await;
    assert!(!is_error(&result), "{result}");
    let sent = f.upstream.received();
    assert_eq!(sent.len(), 1);
    assert_eq!(bearer(&sent[0]), STATIC_TOKEN);
}
