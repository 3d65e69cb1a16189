//! Getting a token: the probe that finds the server's challenge, and the grants.

use rmcp::transport::auth::{
    AuthError, AuthorizationManager, AuthorizationMetadata, AuthorizationRequest,
    AuthorizationSession, ClientCredentialsConfig, JwtSigningAlgorithm,
};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::{Grant, OAuthOptions};
use crate::answer::Answerer;
use crate::config::Lifecycle;

/// The request a probe sends: a `ping` before an `initialize` handshake, the session's own
/// `server/discover` (with its request metadata and headers) before a 2026-07-28 session.
pub(crate) struct ProbeRequest {
    body: String,
    headers: Vec<(&'static str, &'static str)>,
}

impl ProbeRequest {
    /// The probe for a session started with `lifecycle` by `handler`.
    pub(crate) fn new(lifecycle: Lifecycle, handler: &Answerer) -> Self {
        use rmcp::ClientHandler;
        use rmcp::model::{
            ClientJsonRpcMessage, ClientRequest, DiscoverRequest, DiscoverRequestParams,
            ProtocolVersion, RequestId, RequestMetaObject,
        };
        let ping = || Self {
            body: r#"{"jsonrpc":"2.0","id":0,"method":"ping"}"#.to_owned(),
            headers: Vec::new(),
        };
        if lifecycle == Lifecycle::Initialize {
            return ping();
        }
        let info = handler.get_info();
        let mut discover = DiscoverRequest::new(DiscoverRequestParams {});
        discover
            .extensions
            .insert(RequestMetaObject::with_client_context(
                ProtocolVersion::V_2026_07_28,
                info.client_info,
                info.capabilities,
            ));
        let message = ClientJsonRpcMessage::request(
            ClientRequest::DiscoverRequest(discover),
            RequestId::Number(0),
        );
        match serde_json::to_string(&message) {
            Ok(body) => Self {
                body,
                headers: vec![
                    ("mcp-protocol-version", "2026-07-28"),
                    ("mcp-method", "server/discover"),
                ],
            },
            Err(_) => ping(),
        }
    }
}

/// Asks `url`, with the configured `headers` and `token` (if any), whether it needs a
/// (better) token: the `WWW-Authenticate` challenge of a 401 or 403 answer (`Bearer` when the
/// header is missing), or `None` when the server accepts the request as it is.
pub(crate) async fn probe(
    client: &reqwest::Client,
    url: &str,
    headers: &http::HeaderMap,
    token: Option<&str>,
    probe: &ProbeRequest,
) -> Result<Option<String>, String> {
    let mut request = client
        .post(url)
        .headers(headers.clone())
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(probe.body.clone());
    for (name, value) in &probe.headers {
        request = request.header(*name, *value);
    }
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let answer = request
        .send()
        .await
        .map_err(|e| format!("cannot reach {url}: {}", crate::error_chain(&e)))?;
    let status = answer.status().as_u16();
    if status != 401 && status != 403 {
        return Ok(None);
    }
    Ok(Some(
        answer
            .headers()
            .get("www-authenticate")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("Bearer")
            .to_owned(),
    ))
}

/// Gets a token for the server at `resource` that sent `challenge`, as `options` say; returns
/// the manager holding it (and saving it to its credential store).
pub(crate) async fn authorize(
    mut manager: AuthorizationManager,
    challenge: Option<&str>,
    options: &OAuthOptions,
    resource: &str,
) -> Result<AuthorizationManager, String> {
    let metadata = match manager.resolve_metadata_from_challenge(challenge).await {
        Ok(resolution) => resolution.metadata,
        Err(AuthError::AuthorizationServerMismatch { .. })
            if let Some(metadata) = legacy_metadata(resource, challenge).await =>
        {
            metadata
        }
        Err(e) => return Err(format!("authorization server discovery failed: {e}")),
    };
    manager.set_metadata(metadata.clone());
    match options.grant {
        Grant::EnterpriseManaged => {
            let Some(idp) = &options.identity_provider else {
                return Err("enterprise-managed authorization needs an identity provider".into());
            };
            super::enterprise::authorize(manager, &metadata, idp, options, resource).await
        }
        Grant::ClientCredentials => {
            let scopes = if options.scopes.is_empty() {
                manager.select_initial_scopes(&[]).await
            } else {
                options.scopes.clone()
            };
            let resource = Some(resource.to_owned());
            let config = match (
                &options.client_id,
                &options.client_key,
                &options.client_secret,
            ) {
                (Some(id), Some(key), _) => ClientCredentialsConfig::PrivateKeyJwt {
                    client_id: id.clone(),
                    signing_key: key.pem.clone(),
                    signing_algorithm: signing_algorithm(&key.algorithm)?,
                    token_endpoint_audience: None,
                    scopes,
                    resource,
                },
                (Some(id), None, Some(secret)) => ClientCredentialsConfig::ClientSecret {
                    client_id: id.clone(),
                    client_secret: secret.clone(),
                    scopes,
                    resource,
                },
                _ => {
                    return Err(
                        "client credentials need a client id, and a client secret or key"
                            .to_owned(),
                    );
                }
            };
            manager
                .configure_client_credentials(&config)
                .map_err(|e| format!("client credentials: {e}"))?;
            exchange_on_own_thread(manager, config).await
        }
        Grant::AuthorizationCode => code_flow(manager, challenge, options).await,
    }
}

/// The authorization server metadata of a 2025-03-26 server, which publishes no protected
/// resource metadata and is its own authorization server: the document at its origin's
/// `/.well-known/oauth-authorization-server`, whose `issuer` that revision does not tie to
/// the URL it is published at. `None` for a server that names its protected resource
/// metadata (in its challenge, or at the well-known URLs), where the issuer must match.
async fn legacy_metadata(resource: &str, challenge: Option<&str>) -> Option<AuthorizationMetadata> {
    if challenge.is_some_and(|c| c.contains("resource_metadata")) {
        return None;
    }
    let url = url::Url::parse(resource).ok()?;
    let origin = url.origin().ascii_serialization();
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(std::time::Duration::from_secs(10))
        .build()
        .ok()?;
    let path = url.path().trim_end_matches('/');
    for candidate in [
        format!("{origin}/.well-known/oauth-protected-resource{path}"),
        format!("{origin}/.well-known/oauth-protected-resource"),
    ] {
        let answer = client.get(&candidate).send().await.ok()?;
        if answer.status().is_success() {
            return None;
        }
    }
    let answer = client
        .get(format!("{origin}/.well-known/oauth-authorization-server"))
        .send()
        .await
        .ok()?;
    if !answer.status().is_success() {
        return None;
    }
    let body = answer.bytes().await.ok()?;
    if body.len() > 1024 * 1024 {
        return None;
    }
    serde_json::from_slice(&body).ok()
}

/// Runs rmcp's client-credentials token request on a thread of its own: its future is not
/// `Send` (it keeps a form encoder across an await), so it cannot run inside a session's
/// tasks.
async fn exchange_on_own_thread(
    manager: AuthorizationManager,
    config: ClientCredentialsConfig,
) -> Result<AuthorizationManager, String> {
    let (done, result) = tokio::sync::oneshot::channel();
    std::thread::spawn(move || {
        let outcome = match tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        {
            Ok(runtime) => runtime.block_on(async move {
                manager
                    .exchange_client_credentials(&config)
                    .await
                    .map(|_| manager)
                    .map_err(|e| format!("client credentials: {e}"))
            }),
            Err(e) => Err(format!("client credentials: {e}")),
        };
        let _ = done.send(outcome);
    });
    result
        .await
        .map_err(|_| "client credentials: the token request stopped".to_owned())?
}

/// The `private_key_jwt` signing algorithm named `name`.
fn signing_algorithm(name: &str) -> Result<JwtSigningAlgorithm, String> {
    Ok(match name {
        "RS256" => JwtSigningAlgorithm::RS256,
        "RS384" => JwtSigningAlgorithm::RS384,
        "RS512" => JwtSigningAlgorithm::RS512,
        "ES256" => JwtSigningAlgorithm::ES256,
        "ES384" => JwtSigningAlgorithm::ES384,
        other => {
            return Err(format!(
                "client key algorithm `{other}` is not one of RS256, RS384, RS512, ES256, ES384"
            ));
        }
    })
}

/// Authorization code with PKCE and a loopback redirect.
async fn code_flow(
    manager: AuthorizationManager,
    challenge: Option<&str>,
    options: &OAuthOptions,
) -> Result<AuthorizationManager, String> {
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", options.redirect_port))
        .await
        .map_err(|e| format!("cannot listen for the sign-in redirect: {e}"))?;
    let port = listener
        .local_addr()
        .map_err(|e| format!("cannot listen for the sign-in redirect: {e}"))?
        .port();
    let redirect = format!("http://127.0.0.1:{port}/callback");
    let mut request = AuthorizationRequest::new(redirect.clone())
        .with_client_name(options.client_name.clone())
        .with_initial_scope_selection();
    if !options.scopes.is_empty() {
        request = request.with_scopes(options.scopes.iter().cloned());
    }
    if let Some(url) = &options.client_metadata_url {
        request = request.with_client_metadata_url(url.clone());
    }
    if let Some(id) = &options.client_id {
        request = request.with_preregistered_client(id.clone());
        if let Some(secret) = &options.client_secret {
            request = request.with_client_secret(secret.clone());
        }
    }
    if let Some(challenge) = challenge {
        request = request.with_challenge(challenge.to_owned());
    }
    let session = AuthorizationSession::new(manager, request)
        .await
        .map_err(|(_, e)| format!("cannot start the sign-in: {e}"))?;
    // The browser may only finish once the redirect has been answered, so both run at once.
    let waiting = tokio::time::timeout(options.sign_in_timeout, wait_for_callback(&listener, port));
    let (opened, waited) = tokio::join!(
        options.browser.open(session.get_authorization_url()),
        waiting
    );
    let callback = match waited {
        Ok(Ok(url)) => url,
        Ok(Err(e)) => return Err(e),
        Err(_) => {
            return Err(match opened {
                Err(e) => format!("cannot open the sign-in page: {e}"),
                Ok(()) => format!(
                    "no sign-in within {} s (the redirect to {redirect} never came)",
                    options.sign_in_timeout.as_secs()
                ),
            });
        }
    };
    session
        .handle_callback_url(&callback)
        .await
        .map_err(|e| format!("the sign-in failed: {e}"))?;
    Ok(session.auth_manager)
}

/// Waits for the browser's redirect to `/callback` and answers it; returns the full URL.
async fn wait_for_callback(
    listener: &tokio::net::TcpListener,
    port: u16,
) -> Result<String, String> {
    loop {
        let (mut stream, _) = listener
            .accept()
            .await
            .map_err(|e| format!("the sign-in redirect: {e}"))?;
        let mut buf = vec![0u8; 16 * 1024];
        let mut len = 0;
        // The request line and headers; the redirect is a GET without a body.
        while len < buf.len() {
            match stream.read(&mut buf[len..]).await {
                Ok(0) | Err(_) => break,
                Ok(n) => len += n,
            }
            if buf[..len].windows(4).any(|w| w == b"\r\n\r\n") {
                break;
            }
        }
        let head = String::from_utf8_lossy(&buf[..len]);
        let target = head
            .lines()
            .next()
            .and_then(|line| line.split_whitespace().nth(1))
            .unwrap_or("/")
            .to_owned();
        let is_callback = target.starts_with("/callback");
        let body = if is_callback {
            "Signed in. You can close this window."
        } else {
            "Not found"
        };
        let status = if is_callback {
            "200 OK"
        } else {
            "404 Not Found"
        };
        let reply = format!(
            "HTTP/1.1 {status}\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        );
        let _ = stream.write_all(reply.as_bytes()).await;
        let _ = stream.shutdown().await;
        if is_callback {
            return Ok(format!("http://127.0.0.1:{port}{target}"));
        }
    }
}
