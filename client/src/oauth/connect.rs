//! A Streamable HTTP session with OAuth: tokens from the store, or a sign-in when the server
//! asks; a second sign-in when the server refuses the token it was given (revoked, or too
//! little scope: step-up).

use std::sync::Arc;

use rmcp::service::RunningService;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::auth::{AuthClient, AuthorizationManager};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{RoleClient, ServiceExt};

use super::step_up::StepUp;
use super::{OAuthOptions, TokenFile, authorize, probe};
use crate::answer::Answerer;
use crate::config::ServerConfig;

/// A new manager for the server at `url`, with its token store.
pub(crate) async fn manager(
    url: &url::Url,
    options: &OAuthOptions,
    allow_private: bool,
) -> Result<AuthorizationManager, String> {
    let made = if allow_private {
        AuthorizationManager::new_allowing_private_addresses(url.as_str()).await
    } else {
        AuthorizationManager::new(url.as_str()).await
    };
    let mut manager = made.map_err(|e| format!("OAuth: {e}"))?;
    if let Some(dir) = &options.token_dir {
        manager.set_credential_store(TokenFile::new(dir, url.as_str()));
    }
    Ok(manager)
}

/// Connects `handler` to `url` with a token as `options` say, signing in when needed; the
/// server entry's `allow_private` and `timeout` apply.
pub(crate) async fn serve_with_oauth(
    url: &url::Url,
    client: reqwest::Client,
    config: StreamableHttpClientTransportConfig,
    handler: Answerer,
    headers: &http::HeaderMap,
    options: &OAuthOptions,
    server: &ServerConfig,
) -> Result<RunningService<RoleClient, Answerer>, String> {
    let (allow_private, timeout) = (server.allow_private, server.timeout);
    let mut current = manager(url, options, allow_private).await?;
    let restored = current.initialize_from_store().await.unwrap_or(false);
    if !restored {
        match probe(&client, url.as_str(), headers, None).await? {
            Some(challenge) => {
                current = authorize(current, Some(&challenge), options, url.as_str()).await?;
            }
            // The server does not ask for a token: a plain session, without OAuth on its
            // requests.
            None => {
                let transport = StreamableHttpClientTransport::with_client(client, config);
                return match tokio::time::timeout(timeout, handler.serve(transport)).await {
                    Ok(Ok(service)) => Ok(service),
                    Ok(Err(e)) => Err(format!(
                        "the MCP handshake with {url} failed: {}",
                        crate::error_chain(&e)
                    )),
                    Err(_) => Err(format!(
                        "the MCP handshake took longer than {} ms",
                        timeout.as_millis()
                    )),
                };
            }
        }
    }
    let mut last_error = String::new();
    let shared = Arc::new(options.clone());
    let url_shared = Arc::new(url.clone());
    for attempt in 0..2 {
        let auth = AuthClient::new(client.clone(), current);
        let token = auth.get_access_token().await.ok();
        let step_up = StepUp {
            inner: auth,
            options: shared.clone(),
            url: url_shared.clone(),
            allow_private,
            step_ups: Arc::default(),
        };
        let transport = StreamableHttpClientTransport::with_client(step_up, config.clone());
        match tokio::time::timeout(timeout, handler.clone().serve(transport)).await {
            Ok(Ok(service)) => return Ok(service),
            Ok(Err(e)) => last_error = crate::error_chain(&e),
            Err(_) => {
                return Err(format!(
                    "the MCP handshake took longer than {} ms",
                    timeout.as_millis()
                ));
            }
        }
        if attempt == 1 {
            break;
        }
        // Refused with the token we had (revoked, or too little scope): sign in again with
        // what the server's challenge now asks for.
        let challenge = probe(&client, url.as_str(), headers, token.as_deref()).await?;
        let Some(challenge) = challenge else {
            break;
        };
        let fresh = manager(url, options, allow_private).await?;
        current = authorize(fresh, Some(&challenge), options, url.as_str()).await?;
    }
    Err(format!("the MCP handshake with {url} failed: {last_error}"))
}
