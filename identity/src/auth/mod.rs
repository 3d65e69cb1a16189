//! Authentication: API keys from a keys file, HMAC-signed expiring tokens, and the credential
//! carried by an HTTP request (`X-API-Key` or `Authorization: Bearer`, scheme case-insensitive).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use crate::principal::Principal;

#[cfg(feature = "key-check")]
mod key_check;
mod keys;
#[cfg(feature = "oauth")]
pub mod oauth;
mod reload;
mod token;

#[cfg(feature = "key-check")]
pub use key_check::{
    DEFAULT_KEY_CHECK_CACHE, DEFAULT_KEY_CHECK_TTL, KeyCheck, KeyCheckConfig, KeyPlacement,
};
pub use keys::{KeyFileError, KeyProblem, KeyStore, hash_key};
pub use reload::{DEFAULT_RELOAD_INTERVAL, WatchedKeys};
pub use token::{MIN_SECRET_LEN, TOKEN_PREFIX, TokenAuthority, TokenClaims, TokenConfigError};

/// Why a credential was refused. Every variant answers HTTP 401 with `WWW-Authenticate`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AuthError {
    /// No credential was presented.
    #[error(
        "missing credential: send `X-API-Key: <key>` or `Authorization: Bearer <key or token>`"
    )]
    Missing,
    /// The credential is not a known key or a valid token.
    #[error("invalid credential")]
    Invalid,
    /// The token has expired.
    #[error("token expired")]
    Expired,
    /// The token was issued for another audience.
    #[error("token issued for another audience")]
    WrongAudience,
    /// The token was issued by another authorization server than the one configured.
    #[error("token issued by another issuer")]
    WrongIssuer,
    /// The credential could not be checked because a service it depends on (an identity
    /// provider's keys, the API's key check) cannot be reached; answered with HTTP 503 and
    /// `Retry-After`, never 401.
    #[error("cannot check the credential now: {0}")]
    Unavailable(String),
}

impl AuthError {
    /// The `WWW-Authenticate` header value for this refusal.
    pub fn www_authenticate(&self) -> String {
        match self {
            Self::Missing => "Bearer realm=\"mcp\"".to_owned(),
            other => format!(
                "Bearer realm=\"mcp\", error=\"invalid_token\", error_description=\"{}\"",
                quoted_text(&other.to_string())
            ),
        }
    }
}

/// `text` as the content of an HTTP quoted string: printable ASCII, without `"` and `\\`.
/// The runtime writes its OAuth challenges' `error_description` with it.
pub fn quoted_text(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '"' | '\\' => '\'',
            c if c.is_ascii_graphic() || c == ' ' => c,
            _ => '?',
        })
        .collect()
}

/// Turns a presented credential into a principal.
///
/// The check is async, so it may look the credential up in a database or ask another service.
/// Implement it with an `async fn`:
///
/// ```
/// use mcpgen_identity::Principal;
/// use mcpgen_identity::auth::{AuthError, Authenticator};
///
/// /// Keys kept in the product's own store (here a map; a database query fits the same way).
/// struct ProductKeys(std::collections::HashMap<String, String>);
///
/// impl Authenticator for ProductKeys {
///     async fn authenticate(&self, credential: Option<&str>) -> Result<Principal, AuthError> {
///         let key = credential.ok_or(AuthError::Missing)?;
///         let user = self.0.get(key).ok_or(AuthError::Invalid)?;
///         Ok(Principal {
///             id: user.clone(),
///             key_id: Some(format!("product:{user}")),
///             scopes: vec!["mcp:read".to_owned()],
///             plugins: Vec::new(),
///             rate_limit: None,
///         })
///     }
/// }
/// ```
pub trait Authenticator: Send + Sync + 'static {
    /// Checks `credential` (the raw key or token; `None` when nothing was presented).
    fn authenticate(
        &self,
        credential: Option<&str>,
    ) -> impl Future<Output = Result<Principal, AuthError>> + Send;

    /// Checks `credential` presented to the protected resource whose canonical URL is
    /// `resource` (e.g. `https://mcp.example.com/mcp`, or a mounted catalog's URL). Tokens
    /// bound to an audience use it; the default ignores it and calls
    /// [`authenticate`](Self::authenticate).
    fn authenticate_for(
        &self,
        credential: Option<&str>,
        resource: &str,
    ) -> impl Future<Output = Result<Principal, AuthError>> + Send {
        let _ = resource;
        self.authenticate(credential)
    }
}

impl<A: Authenticator> Authenticator for Arc<A> {
    fn authenticate(
        &self,
        credential: Option<&str>,
    ) -> impl Future<Output = Result<Principal, AuthError>> + Send {
        A::authenticate(self, credential)
    }

    fn authenticate_for(
        &self,
        credential: Option<&str>,
        resource: &str,
    ) -> impl Future<Output = Result<Principal, AuthError>> + Send {
        A::authenticate_for(self, credential, resource)
    }
}

/// The future an [`AuthChain`] member returns, boxed so that members of different types fit
/// one list.
type AuthFuture<'a> = Pin<Box<dyn Future<Output = Result<Principal, AuthError>> + Send + 'a>>;

/// [`Authenticator`] in a form that can be a trait object.
trait DynAuthenticator: Send + Sync + 'static {
    fn authenticate_boxed<'a>(
        &'a self,
        credential: Option<&'a str>,
        resource: &'a str,
    ) -> AuthFuture<'a>;
}

impl<A: Authenticator> DynAuthenticator for A {
    fn authenticate_boxed<'a>(
        &'a self,
        credential: Option<&'a str>,
        resource: &'a str,
    ) -> AuthFuture<'a> {
        Box::pin(self.authenticate_for(credential, resource))
    }
}

/// The credential of an HTTP request: `X-API-Key`, else `Authorization: Bearer …` (the scheme
/// compared case-insensitively).
pub fn credential_from_headers(headers: &http::HeaderMap) -> Option<String> {
    if let Some(key) = headers.get("x-api-key").and_then(|v| v.to_str().ok()) {
        return Some(key.trim().to_owned());
    }
    let auth = headers.get(http::header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, rest) = auth.trim().split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| rest.trim().to_owned())
}

/// Tries several authenticators in order; the first that accepts wins. When all refuse, the
/// most specific reason is returned (expired or wrong audience over invalid).
#[derive(Clone, Default)]
pub struct AuthChain {
    authenticators: Vec<Arc<dyn DynAuthenticator>>,
}

impl AuthChain {
    /// An empty chain (refuses everything).
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds an authenticator.
    pub fn with(mut self, a: impl Authenticator) -> Self {
        self.authenticators.push(Arc::new(a));
        self
    }

    /// Whether the chain has no authenticators.
    pub fn is_empty(&self) -> bool {
        self.authenticators.is_empty()
    }
}

impl Authenticator for AuthChain {
    async fn authenticate(&self, credential: Option<&str>) -> Result<Principal, AuthError> {
        self.authenticate_for(credential, "").await
    }

    /// Tries each member in order. When all refuse, an unreachable service wins over a
    /// specific refusal (expired, wrong audience or issuer), which wins over "invalid".
    async fn authenticate_for(
        &self,
        credential: Option<&str>,
        resource: &str,
    ) -> Result<Principal, AuthError> {
        let Some(credential) = credential else {
            return Err(AuthError::Missing);
        };
        let mut best = AuthError::Invalid;
        for a in &self.authenticators {
            match a.authenticate_boxed(Some(credential), resource).await {
                Ok(p) => return Ok(p),
                Err(e @ AuthError::Unavailable(_)) => best = e,
                Err(
                    e @ (AuthError::Expired | AuthError::WrongAudience | AuthError::WrongIssuer),
                ) if !matches!(best, AuthError::Unavailable(_)) => best = e,
                Err(_) => {}
            }
        }
        Err(best)
    }
}
