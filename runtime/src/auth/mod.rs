//! Authentication: API keys from a keys file, HMAC-signed expiring tokens, and the credential
//! carried by an HTTP request (`X-API-Key` or `Authorization: Bearer`, scheme case-insensitive).

use std::sync::Arc;

use crate::Principal;

mod keys;
mod token;

pub use keys::{KeyFileError, KeyProblem, KeyStore, hash_key};
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
}

impl AuthError {
    /// The `WWW-Authenticate` header value for this refusal.
    pub fn www_authenticate(&self) -> String {
        match self {
            Self::Missing => "Bearer realm=\"mcp\"".to_owned(),
            other => format!(
                "Bearer realm=\"mcp\", error=\"invalid_token\", error_description=\"{other}\""
            ),
        }
    }
}

/// Turns a presented credential into a principal.
pub trait Authenticator: Send + Sync + 'static {
    /// Checks `credential` (the raw key or token; `None` when nothing was presented).
    fn authenticate(&self, credential: Option<&str>) -> Result<Principal, AuthError>;
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
    authenticators: Vec<Arc<dyn Authenticator>>,
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
    fn authenticate(&self, credential: Option<&str>) -> Result<Principal, AuthError> {
        let Some(credential) = credential else {
            return Err(AuthError::Missing);
        };
        let mut best = AuthError::Invalid;
        for a in &self.authenticators {
            match a.authenticate(Some(credential)) {
                Ok(p) => return Ok(p),
                Err(e @ (AuthError::Expired | AuthError::WrongAudience)) => best = e,
                Err(_) => {}
            }
        }
        Err(best)
    }
}
