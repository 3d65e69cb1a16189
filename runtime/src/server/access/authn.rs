//! Authenticating an HTTP request: the catalog's authenticators decide who calls, a refusal
//! is audited and answered (401, or 503 when a key source is unreachable) with the OAuth
//! challenge when OAuth is on, and the caller's credential is kept for pass-through, or, when
//! it is an OAuth access token, for token exchange only.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::Response;
use mcpgen_audit::AuditStatus;

use super::refused::{audit_refused, auth_reason};
use super::reply::{closing, refused};
use crate::server::state::inner::Inner;
use mcpgen_contract::toolset::CallerCredential;
use mcpgen_identity::auth::{AuthError, Authenticator, credential_from_headers};
use mcpgen_identity::principal::Principal;

/// Authenticates the request and puts the [`Principal`] into its extensions, together with the
/// credential presented (as a [`CallerCredential`], for pass-through to upstreams).
pub(crate) async fn authenticate(
    State(inner): State<Arc<Inner>>,
    mut request: Request,
    next: Next,
) -> Response {
    let credential = credential_from_headers(request.headers());
    let principal = match &inner.auth {
        None => Principal::unrestricted("anonymous"),
        Some(chain) => {
            let resource = inner.resource.resource_url(request.headers());
            match chain
                .authenticate_for(credential.as_deref(), &resource)
                .await
            {
                Ok(principal) => principal,
                Err(error) => {
                    tracing::debug!(%error, path = request.uri().path(), "request refused");
                    let challenge = challenge(&inner, &request, &error);
                    let status = match error {
                        AuthError::Unavailable(_) => AuditStatus::Unavailable,
                        _ => AuditStatus::Unauthenticated,
                    };
                    let kind = (status, auth_reason(&error));
                    let text = error.to_string();
                    let reusable = audit_refused(&inner, request, None, kind, &text).await;
                    return closing(refused(&error, challenge), reusable);
                }
            }
        }
    };
    // An OAuth access token is never sent upstream (it was issued for this server); it is
    // kept apart, for token exchange.
    let oauth = is_oauth(&principal);
    request.extensions_mut().insert(principal);
    match credential
        .filter(|c| !c.is_empty())
        .map(CallerCredential::new)
    {
        Some(credential) if !oauth => {
            request.extensions_mut().insert(credential);
        }
        #[cfg(feature = "oauth")]
        Some(credential) => {
            request
                .extensions_mut()
                .insert(mcpgen_contract::toolset::OAuthAccessToken(credential));
        }
        _ => {}
    }
    next.run(request).await
}

/// Whether `principal` authenticated with an OAuth access token.
fn is_oauth(principal: &Principal) -> bool {
    #[cfg(feature = "oauth")]
    return principal
        .key_id
        .as_deref()
        .is_some_and(|id| id.starts_with(mcpgen_identity::auth::oauth::OAUTH_KEY_ID_PREFIX));
    #[cfg(not(feature = "oauth"))]
    {
        let _ = principal;
        false
    }
}

/// The `WWW-Authenticate` of a 401 on `inner`'s catalog, when OAuth configures one.
#[cfg(feature = "oauth")]
fn challenge(inner: &Inner, request: &Request, error: &AuthError) -> Option<String> {
    let presented = (*error != AuthError::Missing).then(|| error.to_string());
    super::oauth::challenge(&inner.resource, request.headers(), presented.as_deref())
}

/// Without OAuth, every 401 carries the default challenge.
#[cfg(not(feature = "oauth"))]
fn challenge(_: &Inner, _: &Request, _: &AuthError) -> Option<String> {
    None
}
