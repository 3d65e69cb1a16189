//! The generated Synaplan server as an OAuth 2.1 resource server, against a real authorization
//! server from npm (`oauth2-mock-server`, started by `tests/node/oauth-server.mjs`): tokens for
//! its resource URL call tools over Streamable HTTP and legacy SSE; refused tokens get a 401
//! pointing at the protected-resource metadata; too little scope is a 403 naming the scope; a
//! key rotated in at the authorization server is accepted once the JWKS is refetched; keys keep
//! working beside OAuth; and the official TypeScript SDK client completes the whole flow.

use std::process::Stdio;
use std::time::Duration;

use mcpgen_client::{McpConfig, ServerConfig, Session};
use mcpgen_tests::{
    AuthServer, KillOnDrop, admin_keys_file, node_bin, node_file, synaplan_stand_in, wait_ready,
    workspace_binary,
};
use serde_json::{Value, json};

/// Seconds since the Unix epoch.
fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

struct Fixture {
    auth: AuthServer,
    _server: KillOnDrop,
    url: String,
    upstream: mcpgen_tests::StandIn,
    _dir: tempfile::TempDir,
}

impl Fixture {
    /// The canonical resource URL of `/mcp`.
    fn resource(&self) -> String {
        format!("{}/mcp", self.url)
    }
}

/// Synaplan behind `--oauth-issuer` (and the admin key), with `--public-url` its own address.
async fn start(extra: &[&str]) -> Fixture {
    let extra: Vec<String> = extra.iter().map(|s| (*s).to_owned()).collect();
    start_with(move |_| extra).await
}

/// Like [`start`], with flags made from the authorization server's issuer URL.
async fn start_with(extra: impl FnOnce(&str) -> Vec<String>) -> Fixture {
    let auth = AuthServer::start().await;
    let extra = extra(&auth.issuer);
    let extra: Vec<&str> = extra.iter().map(String::as_str).collect();
    let upstream = synaplan_stand_in().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let keys = admin_keys_file(dir.path()).display().to_string();
    let port = mcpgen_tests::free_port();
    let url = format!("http://127.0.0.1:{port}");
    let mut args = vec![
        "--keys",
        &keys,
        "--oauth-issuer",
        &auth.issuer,
        "--public-url",
        &url,
    ];
    args.extend_from_slice(&extra);
    let (server, started) = start_synaplan_http_on(&upstream.url, port, &args).await;
    assert_eq!(started, url);
    Fixture {
        auth,
        _server: server,
        url,
        upstream,
        _dir: dir,
    }
}

/// Like `start_synaplan_http`, on a port chosen beforehand (the public URL names it).
async fn start_synaplan_http_on(upstream: &str, port: u16, args: &[&str]) -> (KillOnDrop, String) {
    let child = tokio::process::Command::new(workspace_binary("synaplan-mcp"))
        .args(["--transport", "http", "--upstream-url", upstream])
        .args(["--listen", &format!("127.0.0.1:{port}")])
        .args(args)
        .env("RUST_LOG", "error")
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .expect("synaplan-mcp starts");
    let url = format!("http://127.0.0.1:{port}");
    assert!(
        wait_ready(&format!("{url}/healthz")).await,
        "synaplan-mcp did not come up"
    );
    (KillOnDrop(child), url)
}

/// A `tools/call` posted straight to `/mcp` (the 2026-07-28 stateless protocol) with `token`.
async fn post_call(url: &str, token: Option<&str>, tool: &str) -> reqwest::Response {
    post_to(&format!("{url}/mcp"), token, tool).await
}

/// A stateless (2026-07-28) `tools/call` of `tool` without arguments.
fn stateless_call(tool: &str) -> Value {
    json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": tool, "arguments": {}, "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": {}
        }}
    })
}

fn challenge(response: &reqwest::Response) -> String {
    response
        .headers()
        .get("www-authenticate")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned()
}

/// A 401 whose challenge points at the metadata of `/mcp`, with `error="invalid_token"` when a
/// token was presented.
fn assert_refused(response: &reqwest::Response, fixture: &Fixture, presented: bool, case: &str) {
    assert_eq!(response.status(), 401, "{case}");
    let challenge = challenge(response);
    let pointer = format!(
        "resource_metadata=\"{}/.well-known/oauth-protected-resource/mcp\"",
        fixture.url
    );
    assert!(challenge.starts_with("Bearer "), "{case}: {challenge}");
    assert!(challenge.contains(&pointer), "{case}: {challenge}");
    assert!(
        challenge.contains("scope=\"mcp:read mcp:write\""),
        "{case}: {challenge}"
    );
    assert_eq!(
        challenge.contains("error=\"invalid_token\""),
        presented,
        "{case}: {challenge}"
    );
}

fn session_config(json: Value) -> ServerConfig {
    let text = json!({ "mcpServers": { "synaplan": json } }).to_string();
    let mut config = McpConfig::from_json_str(&text).expect("valid configuration");
    config.servers.remove("synaplan").expect("the server")
}

async fn call_prompts(url: &str, transport: &str, token: &str) -> (Vec<String>, bool) {
    let endpoint = if transport == "sse" { "sse" } else { "mcp" };
    let config = session_config(json!({
        "url": format!("{url}/{endpoint}"),
        "transport": transport,
        "headers": {"Authorization": format!("Bearer {token}")},
        "allow_private": true
    }));
    let session = Session::connect("synaplan", &config)
        .await
        .unwrap_or_else(|e| panic!("{transport}: connects: {e}"));
    let mut tools: Vec<String> = session
        .list_tools()
        .await
        .expect("tools/list")
        .into_iter()
        .map(|t| t.name)
        .collect();
    tools.sort();
    let result = session
        .call_tool("synaplan_list_prompts", serde_json::Map::new())
        .await
        .expect("tools/call");
    (tools, result.is_error)
}

#[tokio::test]
async fn a_token_for_this_resource_calls_tools_over_streamable_http_and_legacy_sse() {
    // Pass-through is on, for keys: an OAuth token still never reaches the API.
    let mut f = start(&["--upstream-pass-through"]).await;
    let token = f
        .auth
        .token(json!({"aud": f.resource(), "scope": "mcp:read"}))
        .await;
    for transport in ["streamable-http", "sse"] {
        let (tools, is_error) = call_prompts(&f.url, transport, &token).await;
        assert!(!is_error, "{transport}");
        // tools/list shows a read-only token the read tools only.
        assert!(
            tools.contains(&"synaplan_list_prompts".to_owned()),
            "{tools:?}"
        );
        assert!(
            !tools.contains(&"synaplan_send_message".to_owned()),
            "{tools:?}"
        );
    }
    // An audience list that contains the resource is accepted as well.
    let listed = f
        .auth
        .token(json!({"aud": ["https://other.example/api", f.resource()], "scope": "mcp:read"}))
        .await;
    assert_eq!(
        post_call(&f.url, Some(&listed), "synaplan_list_prompts")
            .await
            .status(),
        200
    );

    // Keys keep working beside OAuth.
    let response = reqwest::Client::new()
        .post(format!("{}/mcp", f.url))
        .header("x-api-key", "admin-key-0123456789")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", "synaplan_list_prompts")
        .json(&stateless_call("synaplan_list_prompts"))
        .send()
        .await
        .expect("answers");
    assert_eq!(response.status(), 200);

    let sent = f.upstream.received();
    let keys: Vec<Option<&str>> = sent.iter().map(|r| r.header("x-api-key")).collect();
    assert_eq!(sent.len(), 4, "{keys:?}");
    // Only the key holder's call carried a credential: its own key.
    assert_eq!(
        keys.iter().flatten().collect::<Vec<_>>(),
        [&"admin-key-0123456789"]
    );
    assert!(sent.iter().all(|r| r.header("authorization").is_none()));
}

#[tokio::test]
async fn refused_tokens_get_401_pointing_at_the_metadata() {
    let mut f = start(&[]).await;
    let resource = f.resource();
    let cases = [
        ("no token", None),
        (
            "wrong audience",
            Some(json!({"aud": "http://127.0.0.1:1/mcp", "scope": "mcp:read"})),
        ),
        (
            "wrong issuer",
            Some(json!({"aud": resource, "scope": "mcp:read", "iss": "http://127.0.0.1:1"})),
        ),
        (
            "expired beyond the leeway",
            Some(json!({"aud": resource, "scope": "mcp:read", "exp": now() - 120})),
        ),
        (
            "not valid yet beyond the leeway",
            Some(json!({"aud": resource, "scope": "mcp:read", "nbf": now() + 300})),
        ),
    ];
    for (case, claims) in cases {
        let token = match claims {
            Some(claims) => Some(f.auth.token(claims).await),
            None => None,
        };
        let response = post_call(&f.url, token.as_deref(), "synaplan_list_prompts").await;
        assert_refused(&response, &f, token.is_some(), case);
    }

    // A bad signature: the signature of another token on these claims.
    let good = f
        .auth
        .token(json!({"aud": resource, "scope": "mcp:read"}))
        .await;
    let other = f
        .auth
        .token(json!({"aud": resource, "scope": "mcp:*", "sub": "mallory"}))
        .await;
    let (head, _) = other.rsplit_once('.').expect("a JWT");
    let (_, signature) = good.rsplit_once('.').expect("a JWT");
    let forged = format!("{head}.{signature}");
    let response = post_call(&f.url, Some(&forged), "synaplan_list_prompts").await;
    assert_refused(&response, &f, true, "bad signature");

    // Within the leeway an expired token still passes.
    let late = f
        .auth
        .token(json!({"aud": resource, "scope": "mcp:read", "exp": now() - 5}))
        .await;
    assert_eq!(
        post_call(&f.url, Some(&late), "synaplan_list_prompts")
            .await
            .status(),
        200
    );
}

#[tokio::test]
async fn too_little_scope_is_a_403_naming_the_scope() {
    let mut f = start(&[]).await;
    let token = f
        .auth
        .token(json!({"aud": f.resource(), "scope": "mcp:read"}))
        .await;
    let response = post_call(&f.url, Some(&token), "synaplan_send_message").await;
    assert_eq!(response.status(), 403);
    let challenge = challenge(&response);
    assert!(
        challenge.contains("error=\"insufficient_scope\""),
        "{challenge}"
    );
    assert!(challenge.contains("scope=\"mcp:write\""), "{challenge}");
    assert!(challenge.contains("resource_metadata=\""), "{challenge}");
    let body: Value = response.json().await.expect("JSON body");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("mcp:write"),
        "{body}"
    );

    // `scp` as an array grants as `scope` does.
    let token = f
        .auth
        .token(json!({"aud": f.resource(), "scp": ["mcp:read", "mcp:write"]}))
        .await;
    let response = post_call(&f.url, Some(&token), "synaplan_send_message").await;
    assert_ne!(response.status(), 403);
    assert_ne!(response.status(), 401);
}

#[tokio::test]
async fn protected_resource_metadata_is_served_at_both_paths() {
    let f = start(&[]).await;
    for path in [
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-protected-resource/mcp",
    ] {
        let metadata: Value = reqwest::get(format!("{}{path}", f.url))
            .await
            .expect("answers")
            .error_for_status()
            .expect("200")
            .json()
            .await
            .expect("JSON");
        assert_eq!(metadata["resource"], json!(f.resource()), "{path}");
        assert_eq!(
            metadata["authorization_servers"],
            json!([f.auth.issuer]),
            "{path}"
        );
        assert_eq!(
            metadata["bearer_methods_supported"],
            json!(["header"]),
            "{path}"
        );
        let scopes = metadata["scopes_supported"].as_array().expect("scopes");
        for scope in ["mcp:read", "mcp:write", "mcp:*"] {
            assert!(scopes.contains(&json!(scope)), "{path}: {metadata}");
        }
    }
    // The server card says which authentication the server expects.
    let card: Value = reqwest::get(format!("{}/.well-known/mcp.json", f.url))
        .await
        .expect("answers")
        .json()
        .await
        .expect("JSON");
    assert_eq!(card["auth"], json!("oauth2"), "{card}");
}

#[tokio::test]
async fn a_rotated_key_is_accepted_once_the_jwks_is_refetched() {
    let mut f = start(&["--oauth-jwks-refetch-interval", "5"]).await;
    let resource = f.resource();
    // The first token makes the server fetch the JWKS.
    let before = f
        .auth
        .token(json!({"aud": resource, "scope": "mcp:read"}))
        .await;
    assert_eq!(
        post_call(&f.url, Some(&before), "synaplan_list_prompts")
            .await
            .status(),
        200
    );

    // The authorization server rotates to a new key right after.
    let kid = f.auth.ask(json!({"op": "rotate", "alg": "ES256"})).await["kid"]
        .as_str()
        .expect("kid")
        .to_owned();
    let rotated = f
        .auth
        .token_with(
            json!({"aud": resource, "scope": "mcp:read"}),
            json!({"kid": kid}),
        )
        .await;
    // Unknown at first: the JWKS was fetched less than the interval ago.
    let response = post_call(&f.url, Some(&rotated), "synaplan_list_prompts").await;
    assert_refused(&response, &f, true, "unknown key");

    // Accepted once the interval has passed and the unknown kid caused a refetch.
    let mut accepted = false;
    for _ in 0..60 {
        tokio::time::sleep(Duration::from_millis(500)).await;
        if post_call(&f.url, Some(&rotated), "synaplan_list_prompts")
            .await
            .status()
            == 200
        {
            accepted = true;
            break;
        }
    }
    assert!(accepted, "the rotated key was never accepted");
    // The old key still verifies.
    assert_eq!(
        post_call(&f.url, Some(&before), "synaplan_list_prompts")
            .await
            .status(),
        200
    );
}

/// Runs the official TypeScript SDK client (tests/node/oauth-client.mjs) against the server
/// of `f` with `grant`; checks it listed the tools and called one, and returns its report.
async fn official_client_calls_a_tool(f: &Fixture, grant: &str) -> Value {
    let output = tokio::process::Command::new(node_bin("node"))
        .arg(node_file("oauth-client.mjs"))
        .args([
            &f.resource(),
            "synaplan_list_prompts",
            "{}",
            &f.auth.issuer,
            "mcp:read",
            grant,
        ])
        .stderr(Stdio::inherit())
        .output()
        .await
        .expect("node runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let out: Value = serde_json::from_str(stdout.trim()).unwrap_or_else(|_| panic!("{stdout}"));
    assert_eq!(out["ok"], json!(true), "{out}");
    assert_eq!(out["result"]["isError"], json!(false), "{out}");
    assert!(
        out["result"]["text"][0]
            .as_str()
            .unwrap_or_default()
            .contains("Default assistant"),
        "{out}"
    );
    let tools = out["tools"].as_array().expect("tools");
    assert!(tools.contains(&json!("synaplan_list_prompts")), "{out}");
    out
}

/// Whether the official client's report lists `synaplan_send_message` (a write).
fn lists_a_write(out: &Value) -> bool {
    out["tools"]
        .as_array()
        .is_some_and(|t| t.contains(&json!("synaplan_send_message")))
}

#[tokio::test]
async fn the_official_typescript_client_completes_the_flow_and_calls_a_tool() {
    let f = start(&[]).await;
    let out = official_client_calls_a_tool(&f, "client_credentials").await;
    assert!(!lists_a_write(&out), "mcp:read lists no write: {out}");
}

/// The official client signs a person in: authorization code with PKCE (S256) at the
/// authorization server it discovered from the 401, for this server's resource, with the
/// scopes the metadata offers; the code comes back on its redirect URI (oauth2-mock-server
/// has no login page: its /authorize redirects straight back, as a browser would be).
#[tokio::test]
async fn the_official_typescript_client_signs_in_with_authorization_code_and_pkce() {
    let f = start(&[]).await;
    let out = official_client_calls_a_tool(&f, "authorization_code").await;
    let flow = &out["flow"];
    assert_eq!(flow["grant"], json!("authorization_code"), "{out}");
    assert_eq!(flow["pkce"], json!("S256"), "{out}");
    assert_eq!(flow["resource"], json!(f.resource()), "{out}");
    assert_eq!(
        flow["redirect"],
        json!("http://127.0.0.1:1/callback"),
        "{out}"
    );
    assert!(
        flow["authorize"]
            .as_str()
            .unwrap_or_default()
            .starts_with(f.auth.issuer.trim_end_matches('/')),
        "{out}"
    );
    // The scope asked for at the authorization server is what the token carries, and
    // what the tool list shows.
    let scopes: Vec<&str> = flow["scope"]
        .as_str()
        .unwrap_or_default()
        .split(' ')
        .collect();
    assert!(scopes.contains(&"mcp:read"), "{out}");
    assert_eq!(lists_a_write(&out), scopes.contains(&"mcp:write"), "{out}");
}

#[tokio::test]
async fn an_unreachable_key_source_is_a_503_with_retry_after_not_a_401() {
    let closed = format!("http://127.0.0.1:{}/jwks", mcpgen_tests::free_port());
    let mut f = start(&["--oauth-jwks-url", &closed]).await;
    let token = f
        .auth
        .token(json!({"aud": f.resource(), "scope": "mcp:read"}))
        .await;
    for _ in 0..2 {
        let response = post_call(&f.url, Some(&token), "synaplan_list_prompts").await;
        assert_eq!(response.status(), 503);
        assert!(response.headers().contains_key("retry-after"));
    }
    // Keys do not depend on the authorization server.
    let response = reqwest::Client::new()
        .post(format!("{}/mcp", f.url))
        .header("x-api-key", "admin-key-0123456789")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", "synaplan_list_prompts")
        .json(&stateless_call("synaplan_list_prompts"))
        .send()
        .await
        .expect("answers");
    assert_eq!(response.status(), 200);
}

#[tokio::test]
async fn each_mounted_catalog_has_its_own_resource_url_and_audience() {
    use mcpgen_runtime::auth::oauth::{OAuthConfig, OAuthResourceServer};
    use mcpgen_runtime::server::{Mount, Server};
    use mcpgen_runtime::{Upstream, UpstreamConfig};

    let mut auth = AuthServer::start().await;
    let upstream = synaplan_stand_in().await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("binds");
    let url = format!("http://{}", listener.local_addr().expect("address"));
    let tools = || {
        synaplan_mcp::tool_set(
            Upstream::new(UpstreamConfig::new(upstream.url.clone())).expect("upstream"),
        )
    };
    let server = Server::builder("rooms", "0.1.0")
        .public_url(url.clone())
        .oauth(OAuthResourceServer::new(OAuthConfig::new(auth.issuer.clone())).expect("config"))
        .mount(Mount::new("alpha").tool_set(tools()))
        .mount(Mount::new("beta").tool_set(tools()))
        .build()
        .expect("builds");
    tokio::spawn(async move {
        server
            .serve_listener(listener, std::future::pending())
            .await
    });
    assert!(wait_ready(&format!("{url}/healthz")).await);

    for name in ["alpha", "beta"] {
        let metadata: Value = reqwest::get(format!(
            "{url}/.well-known/oauth-protected-resource/mcp/{name}"
        ))
        .await
        .expect("answers")
        .json()
        .await
        .expect("JSON");
        assert_eq!(metadata["resource"], json!(format!("{url}/mcp/{name}")));
    }
    // Only the mounts are served, so there is no metadata for `/mcp`.
    let root = reqwest::get(format!("{url}/.well-known/oauth-protected-resource"))
        .await
        .expect("answers");
    assert_eq!(root.status(), 404);

    let alpha = auth
        .token(json!({"aud": format!("{url}/mcp/alpha"), "scope": "mcp:read"}))
        .await;
    let response = post_to(
        &format!("{url}/mcp/alpha"),
        Some(&alpha),
        "synaplan_list_prompts",
    )
    .await;
    assert_eq!(response.status(), 200);
    let response = post_to(
        &format!("{url}/mcp/beta"),
        Some(&alpha),
        "synaplan_list_prompts",
    )
    .await;
    assert_eq!(response.status(), 401);
    let challenge = challenge(&response);
    assert!(
        challenge.contains(&format!(
            "resource_metadata=\"{url}/.well-known/oauth-protected-resource/mcp/beta\""
        )),
        "{challenge}"
    );
}

/// A stateless `tools/call` of `tool` posted to `endpoint`, with `token` if any.
async fn post_to(endpoint: &str, token: Option<&str>, tool: &str) -> reqwest::Response {
    let mut request = reqwest::Client::new()
        .post(endpoint)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", tool)
        .json(&stateless_call(tool));
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    request.send().await.expect("the server answers")
}

#[tokio::test]
async fn opaque_tokens_are_introspected_and_the_answer_cached() {
    let mut f = start_with(|issuer| {
        vec![
            "--oauth-introspection-url".to_owned(),
            format!("{issuer}/introspect"),
            "--oauth-client-id".to_owned(),
            "mcp-server".to_owned(),
            "--oauth-client-secret".to_owned(),
            "mcp-secret".to_owned(),
        ]
    })
    .await;
    let resource = f.resource();
    let issuer = f.auth.issuer.clone();
    let exp = now() + 600;
    f.auth
        .ask(json!({"op": "opaque", "token": "opaque-reader",
            "claims": {"sub": "olga", "scope": "mcp:read", "aud": resource, "iss": issuer, "exp": exp}}))
        .await;
    f.auth
        .ask(json!({"op": "opaque", "token": "opaque-elsewhere",
            "claims": {"sub": "olga", "scope": "mcp:read", "aud": "https://other.example/mcp", "exp": exp}}))
        .await;
    for _ in 0..5 {
        let response = post_call(&f.url, Some("opaque-reader"), "synaplan_list_prompts").await;
        assert_eq!(response.status(), 200);
    }
    let asked = f.auth.ask(json!({"op": "introspections"})).await;
    assert_eq!(asked["count"], json!(1), "{asked}");
    assert_eq!(asked["authenticated"], json!(true), "{asked}");
    // Scopes apply as for JWTs.
    let response = post_call(&f.url, Some("opaque-reader"), "synaplan_send_message").await;
    assert_eq!(response.status(), 403);
    // Inactive and foreign-audience tokens are 401s pointing at the metadata.
    for token in ["opaque-unknown", "opaque-elsewhere"] {
        let response = post_call(&f.url, Some(token), "synaplan_list_prompts").await;
        assert_refused(&response, &f, true, token);
    }
}

#[tokio::test]
async fn tokens_signed_with_rs256_es256_and_eddsa_are_accepted() {
    let mut f = start(&[]).await;
    let resource = f.resource();
    // Keys added before the first token are in the JWKS the server fetches.
    let mut kids = vec![None];
    for alg in ["ES256", "EdDSA"] {
        let kid = f.auth.ask(json!({"op": "rotate", "alg": alg})).await["kid"]
            .as_str()
            .expect("kid")
            .to_owned();
        kids.push(Some(kid));
    }
    for kid in kids {
        let options = kid.as_ref().map_or(json!({}), |kid| json!({"kid": kid}));
        let token = f
            .auth
            .token_with(json!({"aud": resource, "scope": "mcp:read"}), options)
            .await;
        let header = token.split('.').next().unwrap_or_default().to_owned();
        let response = post_call(&f.url, Some(&token), "synaplan_list_prompts").await;
        assert_eq!(response.status(), 200, "{kid:?} {header}");
    }
}

#[tokio::test]
async fn under_a_base_path_the_metadata_and_the_audience_follow_the_public_url() {
    let mut auth = AuthServer::start().await;
    let upstream = synaplan_stand_in().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let keys = admin_keys_file(dir.path()).display().to_string();
    let port = mcpgen_tests::free_port();
    let origin = format!("http://127.0.0.1:{port}");
    let public = format!("{origin}/api/v1/mcp");
    let child = tokio::process::Command::new(workspace_binary("synaplan-mcp"))
        .args(["--transport", "http", "--upstream-url", &upstream.url])
        .args(["--listen", &format!("127.0.0.1:{port}")])
        .args(["--keys", &keys, "--oauth-issuer", &auth.issuer])
        .args(["--base-path", "/api/v1/mcp", "--public-url", &public])
        .env("RUST_LOG", "error")
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .expect("synaplan-mcp starts");
    let _server = KillOnDrop(child);
    assert!(wait_ready(&format!("{public}/healthz")).await, "not up");

    // RFC 9728's path-suffixed form, and the same under the prefix for a proxy that forwards
    // only the prefix: both name the public URL as the resource.
    for path in [
        "/.well-known/oauth-protected-resource/api/v1/mcp",
        "/api/v1/mcp/.well-known/oauth-protected-resource",
    ] {
        let metadata: Value = reqwest::get(format!("{origin}{path}"))
            .await
            .expect("answers")
            .error_for_status()
            .unwrap_or_else(|e| panic!("{path}: {e}"))
            .json()
            .await
            .expect("JSON");
        assert_eq!(metadata["resource"], json!(public), "{path}");
    }

    // A 401 points at the metadata of the resource under the prefix.
    let refused = post_to(&public, None, "synaplan_list_prompts").await;
    assert_eq!(refused.status(), 401);
    let expected =
        format!("resource_metadata=\"{origin}/.well-known/oauth-protected-resource/api/v1/mcp\"");
    assert!(
        challenge(&refused).contains(&expected),
        "{}",
        challenge(&refused)
    );

    // The audience is the public URL: a token for it calls a tool, one for `/mcp` does not.
    let token = auth
        .token(json!({"aud": public, "scope": "mcp:read"}))
        .await;
    let called = post_to(&public, Some(&token), "synaplan_list_prompts").await;
    assert_eq!(called.status(), 200);
    let elsewhere = auth
        .token(json!({"aud": format!("{origin}/mcp"), "scope": "mcp:read"}))
        .await;
    let refused = post_to(&public, Some(&elsewhere), "synaplan_list_prompts").await;
    assert_eq!(refused.status(), 401);
}
