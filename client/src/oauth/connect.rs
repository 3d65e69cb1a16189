//! A Streamable HTTP session with OAuth: tokens from the store, or a sign-in when the server
//! asks; a second sign-in when the server refuses the token it was given (revoked, or too
//! little scope: step-up).

use std::sync::Arc;

use rmcp::RoleClient;
use rmcp::service::RunningService;
use rmcp::transport::auth::AuthClient;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;

use super::step_up::StepUp;
use super::store::manager;
use super::{OAuthOptions, ProbeRequest, authorize, probe};
use crate::answer::Answerer;
use crate::config::ServerConfig;
use crate::transport::listen::ServeError;

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
    let first = ProbeRequest::new(server.lifecycle, &handler);
    if !restored {
        match probe(&client, url.as_str(), headers, None, &first).await? {
            Some(challenge) => {
                current = authorize(current, Some(&challenge), options, url.as_str()).await?;
            }
            // The server does not ask for a token: a plain session, without OAuth on its
            // requests.
            None => {
                return crate::transport::listen::serve_http(
                    handler,
                    client,
                    config,
                    server.lifecycle,
                    timeout,
                )
                .await
                .map_err(|e| handshake_error(e, url, timeout));
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
        let served = crate::transport::listen::serve_http(
            handler.clone(),
            step_up,
            config.clone(),
            server.lifecycle,
            timeout,
        )
        .await;
        match served {
            Ok(service) => return Ok(service),
            Err(ServeError::Handshake(e)) => last_error = e,
            Err(e) => return Err(handshake_error(e, url, timeout)),
        }
        if attempt == 1 {
            break;
        }
        // Refused with the token we had (revoked, or too little scope): sign in again with
        // what the server's challenge now asks for.
        let challenge = probe(&client, url.as_str(), headers, token.as_deref(), &first).await?;
        let Some(challenge) = challenge else {
            break;
        };
        let fresh = manager(url, options, allow_private).await?;
        current = authorize(fresh, Some(&challenge), options, url.as_str()).await?;
    }
    Err(format!("the MCP handshake with {url} failed: {last_error}"))
}

/// The message for a session that did not start.
fn handshake_error(error: ServeError, url: &url::Url, timeout: std::time::Duration) -> String {
    match error {
        ServeError::Handshake(e) => format!("the MCP handshake with {url} failed: {e}"),
        ServeError::TimedOut => format!(
            "the MCP handshake took longer than {} ms",
            timeout.as_millis()
        ),
    }
}
