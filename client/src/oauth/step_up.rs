//! Step-up: a request refused with 403 `insufficient_scope` signs in again for the scopes
//! already granted and those the server's challenge names (SEP-2350), then is sent once more
//! with the new token. A request refused with 401 in the middle of a session (the token was
//! revoked, or the resource moved to another authorization server) signs in afresh from the
//! challenge: discovery, and registration at that server (SEP-2352). A session signs in again
//! at most [`MAX_STEP_UPS`] times, so a server that keeps refusing cannot keep the person
//! signing in.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use futures::stream::BoxStream;
use http::{HeaderName, HeaderValue};
use rmcp::model::ClientJsonRpcMessage;
use rmcp::transport::auth::{AuthClient, AuthError};
use rmcp::transport::streamable_http_client::{
    SseError, StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
};

use super::OAuthOptions;

/// Most sign-ins for more scope in one session.
pub(crate) const MAX_STEP_UPS: u32 = 2;

/// rmcp's authorizing HTTP client, stepping up on `insufficient_scope`.
#[derive(Clone)]
pub(crate) struct StepUp {
    pub(crate) inner: AuthClient<reqwest::Client>,
    pub(crate) options: Arc<OAuthOptions>,
    pub(crate) url: Arc<url::Url>,
    pub(crate) allow_private: bool,
    pub(crate) step_ups: Arc<AtomicU32>,
}

type Error = StreamableHttpError<reqwest::Error>;

/// The `scope` parameter of a `WWW-Authenticate` challenge, split at spaces.
fn challenge_scopes(challenge: &str) -> Vec<String> {
    let Some(start) = challenge.find("scope=\"") else {
        return Vec::new();
    };
    let rest = &challenge[start + "scope=\"".len()..];
    rest.split('"')
        .next()
        .unwrap_or_default()
        .split_whitespace()
        .map(str::to_owned)
        .collect()
}

impl StepUp {
    /// Signs in again for what `challenge` asks; with `keep_scopes`, the scopes granted so
    /// far are asked for too. False when no more sign-ins are allowed.
    async fn step_up(&self, challenge: &str, keep_scopes: bool) -> Result<bool, Error> {
        if self.step_ups.fetch_add(1, Ordering::SeqCst) >= MAX_STEP_UPS {
            return Ok(false);
        }
        let mut current = self.inner.auth_manager.lock().await;
        let mut options = (*self.options).clone();
        if keep_scopes {
            let granted: Vec<String> = match current.get_credentials().await {
                // The token answer's `scope` (RFC 6749 section 5.1).
                Ok((_, Some(token))) => serde_json::to_value(&token)
                    .ok()
                    .and_then(|t| t.get("scope")?.as_str().map(str::to_owned))
                    .map(|s| s.split_whitespace().map(str::to_owned).collect())
                    .unwrap_or_default(),
                _ => Vec::new(),
            };
            let wanted = challenge_scopes(challenge);
            if !granted.is_empty() && !wanted.is_empty() {
                for scope in granted.into_iter().chain(wanted) {
                    if !options.scopes.contains(&scope) {
                        options.scopes.push(scope);
                    }
                }
            }
        }
        let fresh = super::store::manager(&self.url, &options, self.allow_private)
            .await
            .map_err(|e| Error::from(AuthError::AuthorizationFailed(e)))?;
        let signed_in = super::authorize(fresh, Some(challenge), &options, self.url.as_str())
            .await
            .map_err(|e| Error::from(AuthError::AuthorizationFailed(e)))?;
        *current = signed_in;
        Ok(true)
    }
}

impl StreamableHttpClient for StepUp {
    type Error = reqwest::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<StreamableHttpPostResponse, Error> {
        let first = self
            .inner
            .post_message(
                uri.clone(),
                message.clone(),
                session_id.clone(),
                auth_header,
                custom_headers.clone(),
            )
            .await;
        match first {
            Err(StreamableHttpError::InsufficientScope(refused)) => {
                if !self.step_up(&refused.www_authenticate_header, true).await? {
                    return Err(StreamableHttpError::InsufficientScope(refused));
                }
                self.inner
                    .post_message(uri, message, session_id, None, custom_headers)
                    .await
            }
            Err(StreamableHttpError::AuthRequired(refused)) => {
                if !self
                    .step_up(&refused.www_authenticate_header, false)
                    .await?
                {
                    return Err(StreamableHttpError::AuthRequired(refused));
                }
                self.inner
                    .post_message(uri, message, session_id, None, custom_headers)
                    .await
            }
            other => other,
        }
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), Error> {
        self.inner
            .delete_session(uri, session_id, auth_header, custom_headers)
            .await
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<BoxStream<'static, Result<sse_stream::Sse, SseError>>, Error> {
        self.inner
            .get_stream(uri, session_id, last_event_id, auth_header, custom_headers)
            .await
    }
}

#[cfg(test)]
mod tests {
    use super::challenge_scopes;

    #[test]
    fn the_scope_of_a_challenge() {
        assert_eq!(
            challenge_scopes(
                r#"Bearer error="insufficient_scope", scope="mcp:read mcp:write", resource_metadata="x""#
            ),
            ["mcp:read", "mcp:write"]
        );
        assert!(challenge_scopes(r#"Bearer resource_metadata="x""#).is_empty());
    }
}
