//! HMAC-signed expiring tokens scoped to an audience.

use std::fmt;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, Mac};
use sha2::Sha256;
use subtle::ConstantTimeEq;

use super::{AuthError, Authenticator};
use crate::principal::Principal;

/// The prefix every token starts with; it names the format version.
pub const TOKEN_PREFIX: &str = "mcpgen1.";

/// The shortest secret [`TokenAuthority::from_env`] accepts, in bytes.
pub const MIN_SECRET_LEN: usize = 32;

/// Longest token [`TokenAuthority::verify`] looks at; anything longer is refused unread.
const MAX_TOKEN_LEN: usize = 16 * 1024;

/// What a token says, signed by the issuer.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TokenClaims {
    /// Subject: the principal id.
    pub sub: String,
    /// Scopes granted (`mcp:*`, `mcp:read`, `mcp:write`, `mcp:tool:<name>`, per-tool scopes).
    pub scopes: Vec<String>,
    /// Plugins whose tools the subject may see (`*` for all).
    #[serde(default)]
    pub plugins: Vec<String>,
    /// Audience: the server the token is for.
    pub aud: String,
    /// Issued at, in seconds since the Unix epoch.
    pub iat: u64,
    /// Expires at, in seconds since the Unix epoch; the token is refused from this second on.
    pub exp: u64,
    /// Optional token id; when present it is the principal's key id in audit records.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jti: Option<String>,
}

/// Why a [`TokenAuthority`] could not be set up.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TokenConfigError {
    /// The secret is empty.
    #[error(
        "the token secret is empty; use a random secret of at least {MIN_SECRET_LEN} bytes \
         (e.g. `openssl rand -base64 48`)"
    )]
    EmptySecret,
    /// The audience is empty.
    #[error(
        "the token audience is empty; name the server the tokens are for \
         (e.g. `--token-audience my-server`)"
    )]
    EmptyAudience,
    /// The environment variable holding the secret is not set.
    #[error(
        "environment variable `{var}` is not set; set it to a random secret of at least \
         {MIN_SECRET_LEN} bytes (e.g. `export {var}=$(openssl rand -base64 48)`)"
    )]
    EnvMissing {
        /// The variable's name.
        var: String,
    },
    /// The secret in the environment variable is too short.
    #[error(
        "environment variable `{var}` holds a {len}-byte secret; a token secret needs at least \
         {MIN_SECRET_LEN} bytes (e.g. `export {var}=$(openssl rand -base64 48)`)"
    )]
    EnvTooShort {
        /// The variable's name.
        var: String,
        /// Length of its value in bytes.
        len: usize,
    },
}

/// Issues and verifies tokens for one audience with one secret; an [`Authenticator`] for
/// `Bearer` tokens.
///
/// A token reads `mcpgen1.<payload>.<signature>`, where `<payload>` is the base64url (no padding)
/// of the JSON [`TokenClaims`] and `<signature>` the base64url of
/// HMAC-SHA256(secret, `"mcpgen1." + <payload>`). The secret comes from an environment variable
/// the operator names (`--secret-env VAR` when issuing, `--token-secret-env VAR` when serving).
///
/// ```
/// use std::time::{Duration, SystemTime};
/// use mcpgen_identity::auth::{AuthError, TokenAuthority};
///
/// let authority = TokenAuthority::new(&[7u8; 32], "billing-mcp")?;
/// let token = authority.issue("ci", &["mcp:read".to_owned()], Duration::from_secs(600));
/// let principal = authority.verify(&token, SystemTime::now())?;
/// assert_eq!(principal.id, "ci");
/// assert_eq!(principal.key_id.as_deref(), Some("token:ci"));
///
/// let later = SystemTime::now() + Duration::from_secs(601);
/// assert_eq!(authority.verify(&token, later), Err(AuthError::Expired));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct TokenAuthority {
    /// The signing secret's MAC first, then those of older secrets that still verify.
    macs: Vec<Hmac<Sha256>>,
    audience: String,
}

impl fmt::Debug for TokenAuthority {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TokenAuthority")
            .field("audience", &self.audience)
            .field("secrets", &self.macs.len())
            .finish_non_exhaustive()
    }
}

impl TokenAuthority {
    /// An authority signing with `secret` for `audience`. Refuses an empty secret or audience;
    /// prefer [`TokenAuthority::from_env`], which also enforces [`MIN_SECRET_LEN`].
    pub fn new(secret: &[u8], audience: impl Into<String>) -> Result<Self, TokenConfigError> {
        if secret.is_empty() {
            return Err(TokenConfigError::EmptySecret);
        }
        let audience = audience.into();
        if audience.trim().is_empty() {
            return Err(TokenConfigError::EmptyAudience);
        }
        // HMAC takes keys of any length; the only unusable secret is the empty one.
        let mac =
            Hmac::<Sha256>::new_from_slice(secret).map_err(|_| TokenConfigError::EmptySecret)?;
        Ok(Self {
            macs: vec![mac],
            audience,
        })
    }

    /// Also accepts tokens signed with `secret`, an older secret being rotated out: the
    /// secret given first keeps signing, and tokens signed with any of them verify.
    ///
    /// ```
    /// use std::time::{Duration, SystemTime};
    /// use mcpgen_identity::auth::TokenAuthority;
    ///
    /// let old = TokenAuthority::new(&[1u8; 32], "billing-mcp")?;
    /// let token = old.issue("ci", &["mcp:read".to_owned()], Duration::from_secs(600));
    /// let rotated = TokenAuthority::new(&[2u8; 32], "billing-mcp")?.with_previous_secret(&[1u8; 32])?;
    /// assert!(rotated.verify(&token, SystemTime::now()).is_ok());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_previous_secret(mut self, secret: &[u8]) -> Result<Self, TokenConfigError> {
        if secret.is_empty() {
            return Err(TokenConfigError::EmptySecret);
        }
        let mac =
            Hmac::<Sha256>::new_from_slice(secret).map_err(|_| TokenConfigError::EmptySecret)?;
        self.macs.push(mac);
        Ok(self)
    }

    /// An authority whose secrets are the values of the environment variables `vars`: the
    /// first signs, all verify (for rotating secrets without downtime). Each must hold at least
    /// [`MIN_SECRET_LEN`] bytes.
    pub fn from_env_all(
        vars: &[String],
        audience: impl Into<String>,
    ) -> Result<Self, TokenConfigError> {
        let audience = audience.into();
        let mut vars = vars.iter();
        let Some(first) = vars.next() else {
            return Err(TokenConfigError::EmptySecret);
        };
        let mut authority = Self::from_env(first, audience)?;
        for var in vars {
            authority = authority.with_previous_secret(&secret_from_env(var)?)?;
        }
        Ok(authority)
    }

    /// An authority whose secret is the value of the environment variable `var` (at least
    /// [`MIN_SECRET_LEN`] bytes). Errors name the variable, never its value.
    pub fn from_env(var: &str, audience: impl Into<String>) -> Result<Self, TokenConfigError> {
        Self::new(&secret_from_env(var)?, audience)
    }

    /// An authority with the same secret for another `audience`: one per catalog of a server
    /// (`/mcp/<catalog>`), so that a token issued for one catalog is refused by the others.
    /// Refuses an empty audience.
    pub fn with_audience(&self, audience: impl Into<String>) -> Result<Self, TokenConfigError> {
        let audience = audience.into();
        if audience.trim().is_empty() {
            return Err(TokenConfigError::EmptyAudience);
        }
        Ok(Self {
            macs: self.macs.clone(),
            audience,
        })
    }

    /// The audience tokens are issued for and checked against.
    pub fn audience(&self) -> &str {
        &self.audience
    }

    /// Issues a token for `sub` with `scopes` and no plugins, valid from now for `max_age`
    /// (rounded up to whole seconds).
    pub fn issue(&self, sub: &str, scopes: &[String], max_age: Duration) -> String {
        let iat = unix_seconds(SystemTime::now());
        let age = max_age.as_secs() + u64::from(max_age.subsec_nanos() > 0);
        self.sign(&TokenClaims {
            sub: sub.to_owned(),
            scopes: scopes.to_vec(),
            plugins: Vec::new(),
            aud: self.audience.clone(),
            iat,
            exp: iat.saturating_add(age),
            jti: None,
        })
    }

    /// Signs `claims` as they are (any audience, times, plugins and token id).
    pub fn sign(&self, claims: &TokenClaims) -> String {
        use serde_json::Value;
        let strings =
            |items: &[String]| Value::Array(items.iter().cloned().map(Value::String).collect());
        let mut json = serde_json::Map::new();
        json.insert("sub".to_owned(), Value::String(claims.sub.clone()));
        json.insert("scopes".to_owned(), strings(&claims.scopes));
        json.insert("plugins".to_owned(), strings(&claims.plugins));
        json.insert("aud".to_owned(), Value::String(claims.aud.clone()));
        json.insert("iat".to_owned(), Value::from(claims.iat));
        json.insert("exp".to_owned(), Value::from(claims.exp));
        if let Some(jti) = &claims.jti {
            json.insert("jti".to_owned(), Value::String(jti.clone()));
        }
        let json = Value::Object(json);
        let payload = URL_SAFE_NO_PAD.encode(json.to_string());
        let signature = URL_SAFE_NO_PAD.encode(self.signature(&payload));
        format!("{TOKEN_PREFIX}{payload}.{signature}")
    }

    /// Checks `token` at time `now`: signature (compared in constant time), then audience,
    /// then expiry (`now >= exp` is expired; no clock skew allowance).
    pub fn verify(&self, token: &str, now: SystemTime) -> Result<Principal, AuthError> {
        let claims = self.decode(token)?;
        if claims.aud != self.audience {
            return Err(AuthError::WrongAudience);
        }
        if unix_seconds(now) >= claims.exp {
            return Err(AuthError::Expired);
        }
        let key_id = claims
            .jti
            .filter(|jti| !jti.is_empty())
            .unwrap_or_else(|| format!("token:{}", claims.sub));
        Ok(Principal {
            id: claims.sub,
            key_id: Some(key_id),
            scopes: claims.scopes,
            plugins: claims.plugins,
            rate_limit: None,
        })
    }

    /// The claims of a token whose signature is valid, without checking audience or expiry.
    pub fn decode(&self, token: &str) -> Result<TokenClaims, AuthError> {
        if token.len() > MAX_TOKEN_LEN {
            return Err(AuthError::Invalid);
        }
        let (payload, signature) = token
            .strip_prefix(TOKEN_PREFIX)
            .and_then(|rest| rest.split_once('.'))
            .ok_or(AuthError::Invalid)?;
        let presented = URL_SAFE_NO_PAD
            .decode(signature)
            .map_err(|_| AuthError::Invalid)?;
        // Compared with every secret's signature, without stopping at a match.
        let mut valid = subtle::Choice::from(0);
        for mac in &self.macs {
            valid |= signature_with(mac, payload).as_slice().ct_eq(&presented);
        }
        if !bool::from(valid) {
            return Err(AuthError::Invalid);
        }
        let json = URL_SAFE_NO_PAD
            .decode(payload)
            .map_err(|_| AuthError::Invalid)?;
        serde_json::from_slice(&json).map_err(|_| AuthError::Invalid)
    }

    /// The signature of `payload` with the signing (newest) secret.
    fn signature(&self, payload: &str) -> [u8; 32] {
        match self.macs.first() {
            Some(mac) => signature_with(mac, payload),
            None => [0; 32],
        }
    }
}

fn signature_with(mac: &Hmac<Sha256>, payload: &str) -> [u8; 32] {
    let mut mac = mac.clone();
    mac.update(TOKEN_PREFIX.as_bytes());
    mac.update(payload.as_bytes());
    mac.finalize().into_bytes().into()
}

/// The secret in the environment variable `var` (at least [`MIN_SECRET_LEN`] bytes).
fn secret_from_env(var: &str) -> Result<Vec<u8>, TokenConfigError> {
    let Some(secret) = std::env::var_os(var) else {
        return Err(TokenConfigError::EnvMissing {
            var: var.to_owned(),
        });
    };
    let secret = secret.into_encoded_bytes();
    if secret.len() < MIN_SECRET_LEN {
        return Err(TokenConfigError::EnvTooShort {
            var: var.to_owned(),
            len: secret.len(),
        });
    }
    Ok(secret)
}

impl Authenticator for TokenAuthority {
    async fn authenticate(&self, credential: Option<&str>) -> Result<Principal, AuthError> {
        match credential {
            None => Err(AuthError::Missing),
            Some(token) => self.verify(token, SystemTime::now()),
        }
    }
}

fn unix_seconds(time: SystemTime) -> u64 {
    time.duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_secs())
}
