//! Bad input to the OAuth resource server: malformed and oversized tokens are refused without
//! asking the authorization server anything; hostile JWKS answers (keys of the wrong type, huge
//! documents, redirects, not JSON) are clear errors, never a panic and never an accepted token.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use axum::Router;
use axum::http::{StatusCode, header};
use axum::response::IntoResponse;
use axum::routing::get;
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use mcpgen_runtime::auth::AuthError;
use mcpgen_runtime::auth::oauth::{MAX_TOKEN_BYTES, OAuthConfig, OAuthResourceServer};
use serde_json::json;

const RESOURCE: &str = "http://127.0.0.1:9/mcp";

/// A loopback "authorization server" answering badly, counting the requests it gets.
async fn hostile() -> (String, Arc<AtomicUsize>) {
    let hits = Arc::new(AtomicUsize::new(0));
    let count = hits.clone();
    let counted = move |answer: axum::response::Response| {
        count.fetch_add(1, Ordering::SeqCst);
        answer
    };
    let oct = json!({"keys": [{"kty": "oct", "kid": "k1", "k": "c2VjcmV0LXNlY3JldA"}]});
    let rsa_enc =
        json!({"keys": [{"kty": "RSA", "kid": "k1", "use": "enc", "n": "AQAB", "e": "AQAB"}]});
    let garbage_keys =
        json!({"keys": [5, "x", {"kty": "EC", "crv": "P-999"}, {"kty": "RSA", "n": 1}]});
    let huge = json!({"keys": [], "padding": "x".repeat(2 * 1024 * 1024)}).to_string();
    let c = counted.clone();
    let app = Router::new()
        .route(
            "/oct",
            get({
                let c = c.clone();
                move || async move { c(axum::Json(oct).into_response()) }
            }),
        )
        .route(
            "/enc",
            get({
                let c = c.clone();
                move || async move { c(axum::Json(rsa_enc).into_response()) }
            }),
        )
        .route(
            "/garbage",
            get({
                let c = c.clone();
                move || async move { c(axum::Json(garbage_keys).into_response()) }
            }),
        )
        .route(
            "/huge",
            get({
                let c = c.clone();
                move || async move {
                    c(([(header::CONTENT_TYPE, "application/json")], huge).into_response())
                }
            }),
        )
        .route(
            "/redirect",
            get({
                let c = c.clone();
                move || async move {
                    c((StatusCode::FOUND, [(header::LOCATION, "/oct")]).into_response())
                }
            }),
        )
        .route(
            "/not-json",
            get({
                let c = c.clone();
                move || async move { c("<html>hello</html>".into_response()) }
            }),
        )
        .route(
            "/no-keys",
            get({
                let c = c.clone();
                move || async move { c(axum::Json(json!({"keys": "none"})).into_response()) }
            }),
        )
        .route(
            "/down",
            get({
                let c = c.clone();
                move || async move { c(StatusCode::INTERNAL_SERVER_ERROR.into_response()) }
            }),
        );
    let listener = tokio::net::TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], 0)))
        .await
        .expect("binds");
    let addr = listener.local_addr().expect("address");
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    (format!("http://{addr}"), hits)
}

fn resource_server(base: &str, jwks_path: &str) -> OAuthResourceServer {
    OAuthResourceServer::new(OAuthConfig::new(base).jwks_url(format!("{base}{jwks_path}")))
        .expect("a valid configuration")
}

fn b64(value: &serde_json::Value) -> String {
    URL_SAFE_NO_PAD.encode(value.to_string())
}

/// A JWT-shaped token with `header`, plausible claims and a signature of junk.
fn token_with_header(header: serde_json::Value) -> String {
    let claims = json!({"iss": "x", "aud": RESOURCE, "sub": "alice", "exp": 4_000_000_000u64});
    format!(
        "{}.{}.{}",
        b64(&header),
        b64(&claims),
        URL_SAFE_NO_PAD.encode([7u8; 64])
    )
}

#[tokio::test]
async fn malformed_and_oversized_tokens_are_refused_without_asking_the_authorization_server() {
    let (base, hits) = hostile().await;
    let server = resource_server(&base, "/oct");
    let oversized = format!(
        "{}.{}.sig",
        b64(&json!({"alg": "RS256", "kid": "k1"})),
        "a".repeat(MAX_TOKEN_BYTES)
    );
    let cases = [
        ("empty", String::new()),
        ("not a JWT", "not-a-jwt".to_owned()),
        ("two parts", "abc.def".to_owned()),
        ("four parts", "a.b.c.d".to_owned()),
        ("header not base64", "!!!.e30.sig".to_owned()),
        (
            "header not JSON",
            format!("{}.e30.sig", URL_SAFE_NO_PAD.encode("nope")),
        ),
        (
            "alg none",
            token_with_header(json!({"alg": "none", "kid": "k1"})),
        ),
        (
            "alg HS256",
            token_with_header(json!({"alg": "HS256", "kid": "k1"})),
        ),
        (
            "alg PS256",
            token_with_header(json!({"alg": "PS256", "kid": "k1"})),
        ),
        ("oversized", oversized),
        ("control characters", "\u{0}\u{1}.\u{2}.\u{3}".to_owned()),
    ];
    for (case, token) in cases {
        let refused = server.verify(&token, RESOURCE).await;
        assert_eq!(refused, Err(AuthError::Invalid), "{case}");
    }
    assert_eq!(
        hits.load(Ordering::SeqCst),
        0,
        "a malformed token caused a fetch"
    );
}

#[tokio::test]
async fn hostile_jwks_answers_are_clear_errors() {
    let (base, hits) = hostile().await;
    let token = token_with_header(json!({"alg": "RS256", "kid": "k1"}));
    let cases = [
        ("/oct", "no usable RS256, ES256 or EdDSA signing key"),
        ("/enc", "no usable RS256, ES256 or EdDSA signing key"),
        ("/garbage", "no usable RS256, ES256 or EdDSA signing key"),
        ("/huge", "is larger than"),
        ("/redirect", "redirects are not followed"),
        ("/not-json", "is not JSON"),
        ("/no-keys", "has no `keys` array"),
        ("/down", "answered 500"),
    ];
    for (path, expected) in cases {
        let server = resource_server(&base, path);
        match server.verify(&token, RESOURCE).await {
            Err(AuthError::Unavailable(message)) => {
                assert!(message.contains(expected), "{path}: {message}");
                assert!(message.contains(path), "{path}: {message}");
            }
            other => panic!("{path}: expected an unavailable key source, got {other:?}"),
        }
    }
    // Each answer was fetched once, and the redirect was not followed.
    assert_eq!(hits.load(Ordering::SeqCst), cases.len());
}

#[tokio::test]
async fn a_failing_key_source_is_asked_at_most_once_per_interval() {
    let (base, hits) = hostile().await;
    let server = resource_server(&base, "/down");
    let token = token_with_header(json!({"alg": "ES256", "kid": "k9"}));
    for _ in 0..20 {
        let refused = server.verify(&token, RESOURCE).await;
        assert!(
            matches!(refused, Err(AuthError::Unavailable(_))),
            "{refused:?}"
        );
    }
    assert_eq!(hits.load(Ordering::SeqCst), 1);
}

#[test]
fn issuers_and_key_urls_must_be_https_except_on_loopback() {
    for (issuer, jwks) in [
        ("http://as.example", None),
        ("https://as.example", Some("http://keys.example/jwks")),
        ("ftp://127.0.0.1", None),
        ("not a url", None),
    ] {
        let mut config = OAuthConfig::new(issuer);
        if let Some(jwks) = jwks {
            config = config.jwks_url(jwks);
        }
        let error = OAuthResourceServer::new(config).expect_err(issuer);
        assert!(
            error.contains("https") || error.contains("not a URL"),
            "{issuer}: {error}"
        );
    }
    for issuer in [
        "https://as.example",
        "http://127.0.0.1:8080",
        "http://[::1]:1",
    ] {
        assert!(
            OAuthResourceServer::new(OAuthConfig::new(issuer)).is_ok(),
            "{issuer}"
        );
    }
}
