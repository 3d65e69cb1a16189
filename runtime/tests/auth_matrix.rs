//! The auth test matrix: every case runs over Streamable HTTP (`/mcp`, rmcp's client) and over
//! the legacy SSE transport (`GET /sse`, then `POST /message?sessionId=`, parsed by hand),
//! against a real server on loopback whose authenticator is the real one: a [`KeyStore`] loaded
//! from keys-file YAML chained with a [`TokenAuthority`].

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::support::{Client, Notes, Running, http_transport};
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use mcpgen_runtime::auth::{AuthChain, KeyStore, TokenAuthority, TokenClaims, hash_key};
use mcpgen_runtime::server::Server;
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::service::ServiceError;
use serde_json::{Value, json};

/// Bound on every network wait, so a bug cannot hang the suite.
const WAIT: Duration = Duration::from_secs(5);

const SECRET: &[u8] = b"auth-matrix-secret-of-at-least-32-bytes!";
const AUDIENCE: &str = "audience-a";

/// Keys of the keys file (the plain texts the clients present).
const READER_KEY: &str = "reader-secret-key";
const WRITER_KEY: &str = "writer-secret-key";
const NOTES_KEY: &str = "notes-secret-key";

/// Every tool of the support tool set.
const ALL_TOOLS: [&str; 5] = [
    "add_note",
    "list_notes",
    "plugin_echo",
    "remote_status",
    "slow",
];
/// The read-only tools outside any plugin.
const READ_TOOLS: [&str; 3] = ["list_notes", "remote_status", "slow"];

/// The keys file: a reader (`mcp:read`), a writer without the `notes:write` scope `add_note`
/// needs, and a key with `notes:write` and the `echo` plugin (given in plain text, as
/// development keys are).
fn keys_yaml() -> String {
    format!(
        "keys:
  - id: reader-id
    key_sha256: {reader}
    principal: reader
    scopes: [\"mcp:read\"]
  - id: writer-id
    key_sha256: {writer}
    principal: writer
    scopes: [\"mcp:read\", \"mcp:write\"]
  - id: notes-id
    key: {NOTES_KEY}
    principal: notes
    scopes: [\"mcp:read\", \"notes:write\"]
    plugins: [echo]
",
        reader = hash_key(READER_KEY),
        writer = hash_key(WRITER_KEY),
    )
}

fn authority() -> TokenAuthority {
    TokenAuthority::new(SECRET, AUDIENCE).expect("a token authority")
}

/// A server with the support tool set and the real authenticators.
struct Fixture {
    server: Running,
    notes: Notes,
    tokens: TokenAuthority,
}

impl Fixture {
    async fn start() -> Self {
        let notes = Notes::default();
        let keys = KeyStore::from_yaml(&keys_yaml(), "keys.yaml").expect("a valid keys file");
        let server = Server::builder("notes", "0.1.0")
            .tool_set(notes.clone())
            .authenticator(AuthChain::new().with(keys).with(authority()))
            .build()
            .expect("the server builds");
        Self {
            server: Running::start(server).await,
            notes,
            tokens: authority(),
        }
    }

    fn url(&self) -> &str {
        &self.server.url
    }

    /// A token for `sub` with `scopes` (and no plugins), valid for ten minutes.
    fn token(&self, sub: &str, scopes: &[&str]) -> String {
        let scopes: Vec<String> = scopes.iter().map(|s| (*s).to_owned()).collect();
        self.tokens.issue(sub, &scopes, Duration::from_secs(600))
    }

    /// Signs claims for `sub` as given; `adjust` changes them first.
    fn signed(&self, adjust: impl FnOnce(&mut TokenClaims)) -> String {
        let now = unix_now();
        let mut claims = TokenClaims {
            sub: "crafted".to_owned(),
            scopes: vec!["mcp:*".to_owned()],
            plugins: Vec::new(),
            aud: AUDIENCE.to_owned(),
            iat: now,
            exp: now + 600,
            jti: None,
        };
        adjust(&mut claims);
        self.tokens.sign(&claims)
    }

    async fn stop(self) {
        self.server.stop().await.expect("the server stops cleanly");
    }
}

fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("after 1970")
        .as_secs()
}

// ---------------------------------------------------------------------------------------------
// Credentials.

/// The credential headers of every request of a client.
#[derive(Debug, Clone)]
struct Creds(Vec<(&'static str, String)>);

impl Creds {
    fn none() -> Self {
        Self(Vec::new())
    }

    fn api_key(key: &str) -> Self {
        Self(vec![("x-api-key", key.to_owned())])
    }

    /// `Authorization: <scheme> <credential>`.
    fn authorization(scheme: &str, credential: &str) -> Self {
        Self(vec![("authorization", format!("{scheme} {credential}"))])
    }

    fn bearer(credential: &str) -> Self {
        Self::authorization("Bearer", credential)
    }

    fn apply(&self, mut request: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        for (name, value) in &self.0 {
            request = request.header(*name, value);
        }
        request
    }
}

// ---------------------------------------------------------------------------------------------
// Talking to the server over either transport.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Transport {
    Http,
    Sse,
}

/// A refused credential: what the client saw instead of a session.
#[derive(Debug)]
struct Refusal {
    status: u16,
    www_authenticate: Option<String>,
    body: Value,
}

impl Refusal {
    /// Asserts the shape every refusal must have (401, a challenge, a JSON-RPC error -32001)
    /// and that the challenge and the body both mention `reason`.
    fn assert_unauthorized(&self, reason: &str) {
        assert_eq!(self.status, 401, "{self:?}");
        let challenge = self
            .www_authenticate
            .as_deref()
            .unwrap_or_else(|| panic!("no WWW-Authenticate header: {self:?}"));
        assert!(challenge.starts_with("Bearer realm=\"mcp\""), "{self:?}");
        assert_eq!(self.body["jsonrpc"], "2.0", "{self:?}");
        assert_eq!(self.body["id"], Value::Null, "{self:?}");
        assert_eq!(self.body["error"]["code"], -32001, "{self:?}");
        let message = self.body["error"]["message"].as_str().unwrap_or_default();
        assert!(
            message.contains(reason),
            "body should say {reason:?}: {self:?}"
        );
        if reason != "missing credential" {
            assert!(
                challenge.contains(&format!("error_description=\"{reason}")),
                "challenge should say {reason:?}: {self:?}"
            );
        }
    }
}

/// A JSON-RPC error answer.
#[derive(Debug, Clone, PartialEq)]
struct RpcError {
    code: i64,
    message: String,
    data: Option<Value>,
}

/// The answer to a `tools/call`: the result (as JSON), or a JSON-RPC error.
type Reply = Result<Value, RpcError>;

/// Reads a refusal from an HTTP response that was not accepted.
async fn refusal(response: reqwest::Response) -> Refusal {
    let status = response.status().as_u16();
    let www_authenticate = response
        .headers()
        .get("www-authenticate")
        .map(|v| v.to_str().expect("an ASCII challenge").to_owned());
    let text = tokio::time::timeout(WAIT, response.text())
        .await
        .expect("the body arrives in time")
        .expect("the body is readable");
    let body = serde_json::from_str(&text).unwrap_or(Value::String(text));
    Refusal {
        status,
        www_authenticate,
        body,
    }
}

const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#;

/// An initialized session over one transport.
enum Session {
    Http(Client),
    Sse(SseSession),
}

impl Session {
    /// Connects and initializes, or returns how the server refused the credential.
    async fn open(transport: Transport, url: &str, creds: &Creds) -> Result<Self, Refusal> {
        match transport {
            Transport::Http => {
                let headers: Vec<(&'static str, &str)> =
                    creds.0.iter().map(|(n, v)| (*n, v.as_str())).collect();
                let connected = tokio::time::timeout(WAIT, ().serve(http_transport(url, &headers)))
                    .await
                    .expect("the client connects or fails in time");
                match connected {
                    Ok(client) => Ok(Self::Http(client)),
                    Err(error) => {
                        // rmcp hides the HTTP answer; repeat its `initialize` by hand to see it.
                        let request = creds.apply(
                            reqwest::Client::new()
                                .post(format!("{url}/mcp"))
                                .header("content-type", "application/json")
                                .header("accept", "application/json, text/event-stream")
                                .body(INIT),
                        );
                        let response = tokio::time::timeout(WAIT, request.send())
                            .await
                            .expect("the POST is answered in time")
                            .expect("the POST is sent");
                        let refused = refusal(response).await;
                        assert_ne!(
                            refused.status, 200,
                            "rmcp failed ({error}) but the server accepted the credential"
                        );
                        Err(refused)
                    }
                }
            }
            Transport::Sse => SseSession::open(url, creds).await.map(Self::Sse),
        }
    }

    /// `tools/list`: the names, sorted.
    async fn list(&mut self) -> Vec<String> {
        let mut names: Vec<String> = match self {
            Self::Http(client) => tokio::time::timeout(WAIT, client.list_all_tools())
                .await
                .expect("tools/list is answered in time")
                .expect("tools/list succeeds")
                .iter()
                .map(|t| t.name.to_string())
                .collect(),
            Self::Sse(session) => {
                let answer = session.request("tools/list", json!({})).await;
                answer["result"]["tools"]
                    .as_array()
                    .unwrap_or_else(|| panic!("a tool list: {answer}"))
                    .iter()
                    .map(|t| t["name"].as_str().expect("a tool name").to_owned())
                    .collect()
            }
        };
        names.sort();
        names
    }

    /// `tools/call` of `name` with `arguments`.
    async fn call(&mut self, name: &str, arguments: Value) -> Reply {
        let Value::Object(arguments) = arguments else {
            panic!("arguments must be an object");
        };
        match self {
            Self::Http(client) => {
                let params = CallToolRequestParams::new(name.to_owned()).with_arguments(arguments);
                let answer = tokio::time::timeout(WAIT, client.call_tool(params))
                    .await
                    .expect("tools/call is answered in time");
                match answer {
                    Ok(result) => Ok(serde_json::to_value(&result).expect("a JSON result")),
                    Err(ServiceError::McpError(error)) => Err(RpcError {
                        code: i64::from(error.code.0),
                        message: error.message.to_string(),
                        data: error.data,
                    }),
                    Err(other) => panic!("tools/call failed outside JSON-RPC: {other}"),
                }
            }
            Self::Sse(session) => {
                let answer = session
                    .request("tools/call", json!({"name": name, "arguments": arguments}))
                    .await;
                match answer.get("error") {
                    Some(error) => Err(RpcError {
                        code: error["code"].as_i64().expect("an error code"),
                        message: error["message"].as_str().expect("a message").to_owned(),
                        data: error.get("data").cloned(),
                    }),
                    None => Ok(answer["result"].clone()),
                }
            }
        }
    }

    async fn close(self) {
        match self {
            Self::Http(client) => {
                let _ = tokio::time::timeout(WAIT, client.cancel())
                    .await
                    .expect("the client closes in time");
            }
            Self::Sse(session) => drop(session),
        }
    }
}

/// Connects as `creds` and lists the tools (sorted), or returns the refusal.
async fn list(transport: Transport, url: &str, creds: &Creds) -> Result<Vec<String>, Refusal> {
    let mut session = Session::open(transport, url, creds).await?;
    let names = session.list().await;
    session.close().await;
    Ok(names)
}

/// Connects as `creds` and calls `name` with `arguments`, or returns the refusal.
async fn call(
    transport: Transport,
    url: &str,
    creds: &Creds,
    name: &str,
    arguments: Value,
) -> Result<Reply, Refusal> {
    let mut session = Session::open(transport, url, creds).await?;
    let reply = session.call(name, arguments).await;
    session.close().await;
    Ok(reply)
}

/// Expects the credential to be accepted.
fn accepted<T>(outcome: Result<T, Refusal>, transport: Transport, what: &str) -> T {
    outcome.unwrap_or_else(|refusal| panic!("{what} refused over {transport:?}: {refusal:?}"))
}

/// Expects the credential to be refused.
fn refused<T: std::fmt::Debug>(outcome: Result<T, Refusal>, transport: Transport) -> Refusal {
    match outcome {
        Ok(value) => panic!("accepted over {transport:?}: {value:?}"),
        Err(refusal) => refusal,
    }
}

/// The text blocks of a tool result, joined.
fn text(result: &Value) -> String {
    result["content"]
        .as_array()
        .unwrap_or_else(|| panic!("a content list: {result}"))
        .iter()
        .filter_map(|block| block["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Asserts that `hidden` (a call of `hidden_name`) got exactly the answer of a call of a tool
/// that does not exist, `unknown_name`: same code, same data, same message with the name
/// substituted.
fn assert_answered_as_unknown(
    hidden: Reply,
    hidden_name: &str,
    unknown: Reply,
    unknown_name: &str,
) {
    let hidden = hidden.expect_err("a hidden tool is a JSON-RPC error");
    let unknown = unknown.expect_err("an unknown tool is a JSON-RPC error");
    assert_eq!(hidden.code, -32602, "{hidden:?}");
    assert_eq!(hidden.code, unknown.code);
    assert_eq!(hidden.data, unknown.data);
    assert_eq!(
        hidden.message.replace(hidden_name, "<tool>"),
        unknown.message.replace(unknown_name, "<tool>"),
    );
    assert_eq!(hidden.message, format!("Unknown tool: {hidden_name}"));
}

// ---------------------------------------------------------------------------------------------
// The legacy SSE transport, by hand.

/// An initialized legacy SSE session: the open stream and the announced message URL.
struct SseSession {
    response: reqwest::Response,
    buffer: String,
    endpoint: String,
    creds: Creds,
    next_id: u64,
}

impl SseSession {
    /// `GET /sse` as `creds`, then the `initialize` handshake.
    async fn open(url: &str, creds: &Creds) -> Result<Self, Refusal> {
        let request = creds.apply(
            reqwest::Client::new()
                .get(format!("{url}/sse"))
                .header("accept", "text/event-stream"),
        );
        let response = tokio::time::timeout(WAIT, request.send())
            .await
            .expect("the stream opens in time")
            .expect("the request is sent");
        if response.status() != 200 {
            return Err(refusal(response).await);
        }
        let mut session = Self {
            response,
            buffer: String::new(),
            endpoint: String::new(),
            creds: creds.clone(),
            next_id: 1,
        };
        let (event, data) = session.next_event().await;
        assert_eq!(event, "endpoint", "{data}");
        assert!(data.starts_with("/message?sessionId="), "{data}");
        session.endpoint = format!("{url}{data}");
        let answer = session
            .request(
                "initialize",
                json!({
                    "protocolVersion": "2024-11-05",
                    "capabilities": {},
                    "clientInfo": {"name": "legacy", "version": "1"},
                }),
            )
            .await;
        assert_eq!(answer["result"]["serverInfo"]["name"], "notes", "{answer}");
        session
            .post(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        Ok(session)
    }

    /// The next event (comments skipped): its name and data.
    async fn next_event(&mut self) -> (String, String) {
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let block: String = self.buffer.drain(..end + 2).collect();
                let mut event = None;
                let mut data = Vec::new();
                for line in block.lines() {
                    if let Some(value) = line.strip_prefix("event:") {
                        event = Some(value.trim_start().to_owned());
                    } else if let Some(value) = line.strip_prefix("data:") {
                        data.push(value.strip_prefix(' ').unwrap_or(value).to_owned());
                    }
                }
                if event.is_none() && data.is_empty() {
                    continue; // a keep-alive comment
                }
                return (
                    event.unwrap_or_else(|| "message".to_owned()),
                    data.join("\n"),
                );
            }
            let chunk = tokio::time::timeout(WAIT, self.response.chunk())
                .await
                .expect("an event arrives in time")
                .expect("the stream is readable")
                .expect("the stream is still open");
            self.buffer
                .push_str(std::str::from_utf8(&chunk).expect("UTF-8 events"));
        }
    }

    /// POSTs one message as the session's caller; expects `202 Accepted`.
    async fn post(&self, message: Value) {
        let request = self.creds.apply(
            reqwest::Client::new()
                .post(&self.endpoint)
                .header("content-type", "application/json")
                .body(message.to_string()),
        );
        let response = tokio::time::timeout(WAIT, request.send())
            .await
            .expect("the POST is answered in time")
            .expect("the POST is sent");
        assert_eq!(response.status(), 202, "for {message}");
    }

    /// Sends a request and waits for the message on the stream that answers it.
    async fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.post(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        // Nothing else is in flight, so the next message must be the answer.
        let (event, data) = self.next_event().await;
        assert_eq!(event, "message", "{data}");
        let message: Value = serde_json::from_str(&data).expect("a JSON-RPC message");
        assert_eq!(message["id"], id, "{message}");
        message
    }
}

// ---------------------------------------------------------------------------------------------
// The cases. Each is an `async fn(Transport)`; `matrix!` runs it once per transport, as the
// tests `<case>::http` and `<case>::sse`.

macro_rules! matrix {
    ($($case:ident),* $(,)?) => {$(
        mod $case {
            #[tokio::test]
            async fn http() {
                super::$case(super::Transport::Http).await;
            }
            #[tokio::test]
            async fn sse() {
                super::$case(super::Transport::Sse).await;
            }
        }
    )*};
}

matrix!(
    no_credential,
    wrong_key,
    api_key_header,
    bearer_scheme_in_any_case,
    unknown_authorization_scheme,
    expired_token,
    tampered_token,
    wrong_audience_token,
    valid_token_has_its_scopes,
    key_without_the_tools_scope,
    plugin_tool_with_and_without_the_plugin,
    token_plugins_are_honoured,
    every_request_is_authenticated,
);

async fn no_credential(t: Transport) {
    let f = Fixture::start().await;
    refused(list(t, f.url(), &Creds::none()).await, t).assert_unauthorized("missing credential");
    // An empty bearer presents nothing; an empty key is not a valid one.
    refused(list(t, f.url(), &Creds::bearer("")).await, t)
        .assert_unauthorized("missing credential");
    refused(list(t, f.url(), &Creds::api_key("")).await, t)
        .assert_unauthorized("invalid credential");
    assert!(f.notes.calls().is_empty());
    f.stop().await;
}

async fn wrong_key(t: Transport) {
    let f = Fixture::start().await;
    for creds in [
        Creds::api_key("wrong-key"),
        Creds::bearer("wrong-key"),
        // A key's hash is what the file stores, not a credential.
        Creds::api_key(&hash_key(READER_KEY)),
        // Case matters in keys.
        Creds::api_key(&READER_KEY.to_uppercase()),
    ] {
        refused(list(t, f.url(), &creds).await, t).assert_unauthorized("invalid credential");
    }
    f.stop().await;
}

async fn api_key_header(t: Transport) {
    let f = Fixture::start().await;
    let tools = accepted(
        list(t, f.url(), &Creds::api_key(READER_KEY)).await,
        t,
        "X-API-Key",
    );
    assert_eq!(tools, READ_TOOLS);
    // A plain (`key:`) entry works the same as a hashed one.
    let tools = accepted(
        list(t, f.url(), &Creds::api_key(NOTES_KEY)).await,
        t,
        "plain key",
    );
    assert_eq!(tools, ALL_TOOLS);
    f.stop().await;
}

async fn bearer_scheme_in_any_case(t: Transport) {
    let f = Fixture::start().await;
    let token = f.token("ci", &["mcp:read"]);
    for scheme in ["Bearer", "bearer", "BEARER", "bEaReR"] {
        for credential in [READER_KEY, token.as_str()] {
            let creds = Creds::authorization(scheme, credential);
            let what = format!("{scheme} {credential}");
            let tools = accepted(list(t, f.url(), &creds).await, t, &what);
            assert_eq!(tools, READ_TOOLS, "{what}");
        }
    }
    f.stop().await;
}

async fn unknown_authorization_scheme(t: Transport) {
    let f = Fixture::start().await;
    for creds in [
        Creds::authorization("Basic", READER_KEY),
        Creds::authorization("Token", READER_KEY),
        Creds(vec![("authorization", READER_KEY.to_owned())]),
    ] {
        // No usable credential was presented.
        refused(list(t, f.url(), &creds).await, t).assert_unauthorized("missing credential");
    }
    f.stop().await;
}

async fn expired_token(t: Transport) {
    let f = Fixture::start().await;
    let now = unix_now();
    let expired = f.signed(|c| {
        c.iat = now - 120;
        c.exp = now - 60;
    });
    for creds in [Creds::bearer(&expired), Creds::api_key(&expired)] {
        refused(list(t, f.url(), &creds).await, t).assert_unauthorized("token expired");
    }
    // `exp` is the first second the token is refused.
    let ending = f.signed(|c| {
        c.iat = now - 60;
        c.exp = now;
    });
    refused(list(t, f.url(), &Creds::bearer(&ending)).await, t)
        .assert_unauthorized("token expired");
    f.stop().await;
}

/// `token` with the character at `index` replaced by another base64url character.
fn flip(token: &str, index: usize) -> String {
    let mut chars: Vec<char> = token.chars().collect();
    chars[index] = if chars[index] == 'A' { 'B' } else { 'A' };
    chars.into_iter().collect()
}

async fn tampered_token(t: Transport) {
    let f = Fixture::start().await;
    let token = f.token("ci", &["mcp:read"]);
    let rest = token.strip_prefix("mcpgen1.").expect("the token prefix");
    let (payload, signature) = rest.split_once('.').expect("payload.signature");
    let payload_at = "mcpgen1.".len();
    let signature_at = payload_at + payload.len() + 1;

    // A flipped character in the payload, and separately in the signature.
    let flipped_payload = flip(&token, payload_at + payload.len() / 2);
    let flipped_signature = flip(&token, signature_at + signature.len() / 2);
    // Claims rewritten to grant everything, the original signature kept.
    let mut claims: Value =
        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(payload).expect("base64url payload"))
            .expect("JSON claims");
    claims["scopes"] = json!(["mcp:*"]);
    claims["plugins"] = json!(["*"]);
    let escalated = format!(
        "mcpgen1.{}.{signature}",
        URL_SAFE_NO_PAD.encode(claims.to_string())
    );
    // Signed with another secret.
    let forged = TokenAuthority::new(b"some-other-secret-of-32-bytes-or-more", AUDIENCE)
        .expect("an authority")
        .issue("ci", &["mcp:*".to_owned()], Duration::from_secs(600));

    for bad in [flipped_payload, flipped_signature, escalated, forged] {
        assert_ne!(bad, token);
        refused(list(t, f.url(), &Creds::bearer(&bad)).await, t)
            .assert_unauthorized("invalid credential");
    }
    // The untouched token still works.
    let tools = accepted(list(t, f.url(), &Creds::bearer(&token)).await, t, "token");
    assert_eq!(tools, READ_TOOLS);
    f.stop().await;
}

async fn wrong_audience_token(t: Transport) {
    let f = Fixture::start().await;
    let crafted = f.signed(|c| c.aud = "audience-b".to_owned());
    let issued = TokenAuthority::new(SECRET, "audience-b")
        .expect("an authority")
        .issue("ci", &["mcp:*".to_owned()], Duration::from_secs(600));
    for token in [crafted, issued] {
        refused(list(t, f.url(), &Creds::bearer(&token)).await, t)
            .assert_unauthorized("token issued for another audience");
    }
    f.stop().await;
}

async fn valid_token_has_its_scopes(t: Transport) {
    let f = Fixture::start().await;
    let reader = Creds::bearer(&f.token("ci-reader", &["mcp:read"]));
    assert_eq!(
        accepted(list(t, f.url(), &reader).await, t, "reader"),
        READ_TOOLS
    );
    let reply = accepted(
        call(t, f.url(), &reader, "list_notes", json!({"limit": 1})).await,
        t,
        "reader",
    );
    let result = reply.expect("list_notes answers");
    assert_eq!(
        result["structuredContent"],
        json!({"notes": ["note 1"]}),
        "{result}"
    );

    let writer = Creds::bearer(&f.token("ci-writer", &["mcp:read", "notes:write"]));
    assert_eq!(
        accepted(list(t, f.url(), &writer).await, t, "writer"),
        ["add_note", "list_notes", "remote_status", "slow"]
    );
    let reply = accepted(
        call(t, f.url(), &writer, "add_note", json!({"text": "hi"})).await,
        t,
        "writer",
    );
    assert_eq!(text(&reply.expect("add_note answers")), "added: hi");

    // A single tool granted by name.
    let named = Creds::bearer(&f.token("ci-named", &["mcp:tool:slow"]));
    assert_eq!(
        accepted(list(t, f.url(), &named).await, t, "named"),
        ["slow"]
    );

    assert_eq!(f.notes.calls(), ["list_notes", "add_note"]);
    f.stop().await;
}

async fn key_without_the_tools_scope(t: Transport) {
    let f = Fixture::start().await;
    // `mcp:write` alone does not grant a tool with its own required scope (`notes:write`).
    for key in [READER_KEY, WRITER_KEY] {
        let creds = Creds::api_key(key);
        let tools = accepted(list(t, f.url(), &creds).await, t, key);
        assert!(!tools.iter().any(|n| n == "add_note"), "{key}: {tools:?}");
        let mut session = accepted(Session::open(t, f.url(), &creds).await, t, key);
        let hidden = session.call("add_note", json!({"text": "hi"})).await;
        let unknown = session.call("no_such_tool", json!({"text": "hi"})).await;
        session.close().await;
        assert_answered_as_unknown(hidden, "add_note", unknown, "no_such_tool");
    }
    assert!(f.notes.calls().is_empty(), "the hidden tool never ran");
    // The same call succeeds for a key with the scope.
    let reply = accepted(
        call(
            t,
            f.url(),
            &Creds::api_key(NOTES_KEY),
            "add_note",
            json!({"text": "hi"}),
        )
        .await,
        t,
        "notes key",
    );
    assert_eq!(text(&reply.expect("add_note answers")), "added: hi");
    f.stop().await;
}

async fn plugin_tool_with_and_without_the_plugin(t: Transport) {
    let f = Fixture::start().await;
    let with = Creds::api_key(NOTES_KEY);
    let tools = accepted(list(t, f.url(), &with).await, t, "with the plugin");
    assert!(tools.iter().any(|n| n == "plugin_echo"), "{tools:?}");
    let reply = accepted(
        call(
            t,
            f.url(),
            &with,
            "plugin_echo",
            json!({"message": "hello"}),
        )
        .await,
        t,
        "with the plugin",
    );
    assert_eq!(text(&reply.expect("plugin_echo answers")), "hello");

    // The writer has `mcp:read` (plugin_echo is read-only) but not the `echo` plugin.
    for key in [READER_KEY, WRITER_KEY] {
        let creds = Creds::api_key(key);
        let tools = accepted(list(t, f.url(), &creds).await, t, key);
        assert!(
            !tools.iter().any(|n| n == "plugin_echo"),
            "{key}: {tools:?}"
        );
        let mut session = accepted(Session::open(t, f.url(), &creds).await, t, key);
        let hidden = session
            .call("plugin_echo", json!({"message": "hello"}))
            .await;
        let unknown = session
            .call("no_such_echo", json!({"message": "hello"}))
            .await;
        session.close().await;
        assert_answered_as_unknown(hidden, "plugin_echo", unknown, "no_such_echo");
    }
    assert_eq!(f.notes.calls(), ["plugin_echo"]);
    f.stop().await;
}

async fn token_plugins_are_honoured(t: Transport) {
    let f = Fixture::start().await;
    let with = Creds::bearer(&f.signed(|c| {
        c.scopes = vec!["mcp:read".to_owned()];
        c.plugins = vec!["echo".to_owned()];
    }));
    let tools = accepted(list(t, f.url(), &with).await, t, "token with the plugin");
    assert_eq!(
        tools,
        ["list_notes", "plugin_echo", "remote_status", "slow"]
    );
    // `issue` grants no plugins.
    let without = Creds::bearer(&f.token("ci", &["mcp:*"]));
    let mut session = accepted(Session::open(t, f.url(), &without).await, t, "token");
    assert_eq!(
        session.list().await,
        ["add_note", "list_notes", "remote_status", "slow"]
    );
    let hidden = session.call("plugin_echo", json!({"message": "x"})).await;
    let unknown = session.call("no_such_echo", json!({"message": "x"})).await;
    session.close().await;
    assert_answered_as_unknown(hidden, "plugin_echo", unknown, "no_such_echo");
    f.stop().await;
}

/// POSTs `message` to `url` (an `/mcp` or `/message?sessionId=` URL) with `headers` and `creds`.
async fn raw_post(
    url: &str,
    headers: &[(&str, &str)],
    creds: &Creds,
    message: &Value,
) -> reqwest::Response {
    let mut request = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(message.to_string());
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    tokio::time::timeout(WAIT, creds.apply(request).send())
        .await
        .expect("the POST is answered in time")
        .expect("the POST is sent")
}

/// A session opened with a good credential does not let later requests skip authentication.
async fn every_request_is_authenticated(t: Transport) {
    let f = Fixture::start().await;
    let reader = Creds::api_key(READER_KEY);
    let now = unix_now();
    let expired = Creds::bearer(&f.signed(|c| {
        c.iat = now - 120;
        c.exp = now - 60;
    }));
    let list_request = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/list", "params": {}});
    match t {
        Transport::Http => {
            let init: Value = serde_json::from_str(INIT).expect("JSON");
            let response = raw_post(&format!("{}/mcp", f.url()), &[], &reader, &init).await;
            assert_eq!(response.status(), 200);
            let session_id = response.headers()["mcp-session-id"]
                .to_str()
                .expect("an ASCII session id")
                .to_owned();
            drop(response);
            let url = format!("{}/mcp", f.url());
            let headers = [
                ("mcp-session-id", session_id.as_str()),
                ("mcp-protocol-version", "2025-06-18"),
            ];
            let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
            let response = raw_post(&url, &headers, &reader, &initialized).await;
            assert_eq!(response.status(), 202);
            for (creds, reason) in [
                (Creds::none(), "missing credential"),
                (Creds::api_key("wrong-key"), "invalid credential"),
                (expired.clone(), "token expired"),
            ] {
                let response = raw_post(&url, &headers, &creds, &list_request).await;
                refusal(response).await.assert_unauthorized(reason);
            }
            let response = raw_post(&url, &headers, &reader, &list_request).await;
            assert_eq!(response.status(), 200, "the session itself is fine");
        }
        Transport::Sse => {
            let mut session = accepted(SseSession::open(f.url(), &reader).await, t, "reader");
            let endpoint = session.endpoint.clone();
            for (creds, reason) in [
                (Creds::none(), "missing credential"),
                (Creds::api_key("wrong-key"), "invalid credential"),
                (expired.clone(), "token expired"),
            ] {
                let response = raw_post(&endpoint, &[], &creds, &list_request).await;
                refusal(response).await.assert_unauthorized(reason);
            }
            // A valid credential of another principal may not use the session.
            let response =
                raw_post(&endpoint, &[], &Creds::api_key(WRITER_KEY), &list_request).await;
            let forbidden = refusal(response).await;
            assert_eq!(forbidden.status, 403, "{forbidden:?}");
            // The owner still can, and nothing refused reached the stream.
            let answer = session.request("tools/list", json!({})).await;
            assert_eq!(answer["result"]["tools"].as_array().map(Vec::len), Some(3));
        }
    }
    f.stop().await;
}
