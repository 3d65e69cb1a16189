//! OAuth 2.1 resource server: access tokens (JWTs) issued by an authorization server, checked
//! against its published keys, for the canonical URL of the resource they were presented to.
//!
//! - The keys come from the JWKS the issuer's metadata names (RFC 8414
//!   `/.well-known/oauth-authorization-server`, then `/.well-known/openid-configuration`), or
//!   from a configured JWKS URL. They are cached and refetched when a token names an unknown
//!   `kid`, at most once per [refetch interval](OAuthConfig::refetch_interval).
//! - Accepted signatures: RS256, ES256 and EdDSA (Ed25519).
//! - `iss` must be the issuer exactly; `aud` must contain the resource URL; `exp` and `nbf`
//!   are checked with 60 s of leeway.
//! - The issuer, its metadata and the JWKS must be https, except on loopback addresses.
//! - Scopes come from `scope` (space-separated) or `scp` (an array), through a [`ScopeMap`];
//!   the principal from `sub` (or another claim); plugins from a configurable claim.

use std::time::{Duration, Instant};

use jsonwebtoken::{Algorithm, Validation};
use serde_json::Value;
use tokio::sync::{Mutex, RwLock};
use url::Url;

use super::{AuthError, Authenticator};
use crate::principal::Principal;

mod introspect;
mod keys;
mod scope_map;

pub use scope_map::ScopeMap;

use introspect::{IntrospectionConfig, Introspector, check_claims};
use keys::KeyCache;
pub use keys::{FetchError, Fetcher, check_secure};

/// How the key id of an OAuth principal starts (`oauth:<jti or sub>`). Requests of such
/// principals never carry the access token upstream: OAuth callers reach the API with the
/// configured upstream credentials, or with a token the access token was exchanged for
/// (`UpstreamConfig::with_token_exchange`).
pub const OAUTH_KEY_ID_PREFIX: &str = "oauth:";

/// Longest access token looked at; anything longer is refused unread.
pub const MAX_TOKEN_BYTES: usize = 16 * 1024;

/// Default shortest time between two JWKS fetches caused by unknown `kid`s.
pub const DEFAULT_REFETCH_INTERVAL: Duration = Duration::from_secs(60);

/// Clock leeway for `exp` and `nbf`, in seconds.
const LEEWAY_SECONDS: u64 = 60;

/// How an [`OAuthResourceServer`] is set up.
#[derive(Debug, Clone)]
pub struct OAuthConfig {
    issuer: String,
    jwks_url: Option<String>,
    scope_map: ScopeMap,
    principal_claim: String,
    plugins_claim: Option<String>,
    refetch_interval: Duration,
    introspection: Option<IntrospectionConfig>,
}

impl OAuthConfig {
    /// Accepts tokens of the authorization server `issuer` (its `iss`, exactly).
    pub fn new(issuer: impl Into<String>) -> Self {
        Self {
            issuer: issuer.into(),
            jwks_url: None,
            scope_map: ScopeMap::default(),
            principal_claim: "sub".to_owned(),
            plugins_claim: None,
            refetch_interval: DEFAULT_REFETCH_INTERVAL,
            introspection: None,
        }
    }

    /// Checks opaque (non-JWT) tokens with RFC 7662 introspection at `url`, authenticating as
    /// `client_id` / `client_secret` (HTTP basic). Active answers are cached until the token's
    /// `exp` (at most five minutes), inactive ones for ten seconds; `iss`, `aud`, `exp` and
    /// `nbf` are checked where the answer has them.
    pub fn introspection(
        mut self,
        url: impl Into<String>,
        client_id: impl Into<String>,
        client_secret: impl Into<String>,
    ) -> Self {
        self.introspection = Some(IntrospectionConfig {
            url: url.into(),
            client_id: client_id.into(),
            client_secret: client_secret.into(),
        });
        self
    }

    /// Takes the keys from `url` instead of discovering the JWKS from the issuer's metadata.
    pub fn jwks_url(mut self, url: impl Into<String>) -> Self {
        self.jwks_url = Some(url.into());
        self
    }

    /// Maps the provider's scope names onto mcpgen scopes.
    pub fn scope_map(mut self, map: ScopeMap) -> Self {
        self.scope_map = map;
        self
    }

    /// The claim naming the principal (default `sub`).
    pub fn principal_claim(mut self, claim: impl Into<String>) -> Self {
        self.principal_claim = claim.into();
        self
    }

    /// The claim listing the plugins whose tools the caller may see (an array, or a
    /// space-separated string; default: none, so plugin tools stay hidden).
    pub fn plugins_claim(mut self, claim: impl Into<String>) -> Self {
        self.plugins_claim = Some(claim.into());
        self
    }

    /// The shortest time between two JWKS fetches caused by tokens naming an unknown `kid`
    /// (default [`DEFAULT_REFETCH_INTERVAL`]).
    pub fn refetch_interval(mut self, interval: Duration) -> Self {
        self.refetch_interval = interval;
        self
    }
}

/// An [`Authenticator`] for access tokens of one authorization server; see the
/// [module documentation](self).
///
/// Its tokens are checked against the resource URL the request was made to
/// ([`Authenticator::authenticate_for`]); without one, every token is refused.
pub struct OAuthResourceServer {
    issuer: Url,
    issuer_text: String,
    config: OAuthConfig,
    fetcher: Fetcher,
    cache: RwLock<KeyCache>,
    /// Held while fetching, so that concurrent unknown `kid`s cause one fetch.
    fetching: Mutex<()>,
    introspector: Option<Introspector>,
}

impl std::fmt::Debug for OAuthResourceServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuthResourceServer")
            .field("issuer", &self.issuer_text)
            .finish_non_exhaustive()
    }
}

impl OAuthResourceServer {
    /// Checks the configuration (URLs parse, https or loopback). Nothing is fetched until the
    /// first token arrives.
    pub fn new(config: OAuthConfig) -> Result<Self, String> {
        let issuer_text = config.issuer.trim().to_owned();
        let issuer = Url::parse(&issuer_text)
            .map_err(|e| format!("--oauth-issuer `{issuer_text}` is not a URL: {e}"))?;
        check_secure(&issuer, "--oauth-issuer")?;
        let jwks_url = match &config.jwks_url {
            None => None,
            Some(text) => {
                let url = Url::parse(text.trim())
                    .map_err(|e| format!("--oauth-jwks-url `{text}` is not a URL: {e}"))?;
                check_secure(&url, "--oauth-jwks-url")?;
                Some(url)
            }
        };
        if config.principal_claim.trim().is_empty() {
            return Err("the principal claim is empty; name a claim such as `sub`".into());
        }
        let introspector = config
            .introspection
            .clone()
            .map(Introspector::new)
            .transpose()?;
        Ok(Self {
            issuer,
            issuer_text,
            fetcher: Fetcher::new()?,
            cache: RwLock::new(KeyCache {
                jwks_url,
                keys: Vec::new(),
                fetched_at: None,
                last_error: None,
            }),
            fetching: Mutex::new(()),
            introspector,
            config,
        })
    }

    /// The issuer, as configured (what `authorization_servers` in the metadata lists).
    pub fn issuer(&self) -> &str {
        &self.issuer_text
    }

    /// The scope map.
    pub fn scope_map(&self) -> &ScopeMap {
        &self.config.scope_map
    }

    /// Checks `token` for the resource `resource` and returns its principal.
    pub async fn verify(&self, token: &str, resource: &str) -> Result<Principal, AuthError> {
        if token.len() > MAX_TOKEN_BYTES {
            return Err(AuthError::Invalid);
        }
        if token.split('.').count() != 3 {
            return self.introspect(token, resource).await;
        }
        let header = jsonwebtoken::decode_header(token).map_err(|_| AuthError::Invalid)?;
        if !matches!(
            header.alg,
            Algorithm::RS256 | Algorithm::ES256 | Algorithm::EdDSA
        ) {
            return Err(AuthError::Invalid);
        }
        if resource.is_empty() {
            tracing::warn!("an OAuth access token was presented where no resource URL is known");
            return Err(AuthError::Invalid);
        }
        let key = self.key_for(header.kid.as_deref(), header.alg).await?;
        let mut validation = Validation::new(header.alg);
        validation.set_issuer(&[self.issuer_text.as_str()]);
        validation.set_audience(&[resource]);
        validation.set_required_spec_claims(&["exp", "iss", "aud"]);
        validation.leeway = LEEWAY_SECONDS;
        validation.validate_nbf = true;
        let data = jsonwebtoken::decode::<Value>(token, &key, &validation).map_err(|e| {
            use jsonwebtoken::errors::ErrorKind;
            match e.kind() {
                ErrorKind::ExpiredSignature => AuthError::Expired,
                ErrorKind::InvalidAudience => AuthError::WrongAudience,
                ErrorKind::InvalidIssuer => AuthError::WrongIssuer,
                _ => AuthError::Invalid,
            }
        })?;
        self.principal(&data.claims)
    }

    /// Checks an opaque token through introspection, when configured.
    async fn introspect(&self, token: &str, resource: &str) -> Result<Principal, AuthError> {
        let Some(introspector) = &self.introspector else {
            return Err(AuthError::Invalid);
        };
        if token.is_empty() || resource.is_empty() || token.starts_with(super::TOKEN_PREFIX) {
            return Err(AuthError::Invalid);
        }
        let claims = introspector
            .claims(token)
            .await?
            .ok_or(AuthError::Invalid)?;
        check_claims(&claims, &self.issuer_text, resource)?;
        self.principal(&claims)
    }

    /// The decoding key for `kid`, refetching the JWKS when it is unknown and the last fetch
    /// is older than the refetch interval.
    async fn key_for(
        &self,
        kid: Option<&str>,
        alg: Algorithm,
    ) -> Result<jsonwebtoken::DecodingKey, AuthError> {
        if let Some(key) = self.cached(kid, alg).await {
            return Ok(key);
        }
        let _fetching = self.fetching.lock().await;
        // Another request may have fetched while this one waited.
        let due = {
            let cache = self.cache.read().await;
            if let Some(key) = find(&cache, kid, alg) {
                return Ok(key);
            }
            let recent = cache
                .fetched_at
                .is_some_and(|at| at.elapsed() < self.config.refetch_interval);
            // No key yet and the last attempt failed recently: still unavailable.
            if let (true, true, Some(why)) = (cache.keys.is_empty(), recent, &cache.last_error) {
                return Err(AuthError::Unavailable(why.clone()));
            }
            !recent
        };
        if !due {
            tracing::debug!(
                ?kid,
                "token signed with an unknown key; the JWKS was fetched recently"
            );
            return Err(AuthError::Invalid);
        }
        match self.fetch().await {
            Ok(()) => {}
            Err(FetchError::Unreachable(why)) => {
                tracing::warn!("cannot fetch the authorization server's keys: {why}");
                if self.cache.read().await.keys.is_empty() {
                    return Err(AuthError::Unavailable(format!(
                        "the authorization server's keys cannot be fetched: {why}"
                    )));
                }
            }
            Err(FetchError::Unusable(why)) => {
                tracing::error!("the authorization server's keys are unusable: {why}");
                if self.cache.read().await.keys.is_empty() {
                    return Err(AuthError::Unavailable(format!(
                        "the authorization server's keys are unusable: {why}"
                    )));
                }
            }
        }
        let cache = self.cache.read().await;
        find(&cache, kid, alg).ok_or(AuthError::Invalid)
    }

    async fn cached(&self, kid: Option<&str>, alg: Algorithm) -> Option<jsonwebtoken::DecodingKey> {
        find(&*self.cache.read().await, kid, alg)
    }

    /// Fetches the JWKS (discovering its URL first when needed) into the cache. The fetch time
    /// is recorded even when it fails, so a failing server is asked at most once per interval.
    async fn fetch(&self) -> Result<(), FetchError> {
        let known = self.cache.read().await.jwks_url.clone();
        let result = async {
            let url = match known {
                Some(url) => url,
                None => {
                    let url = self.fetcher.discover(&self.issuer).await?;
                    self.cache.write().await.jwks_url = Some(url.clone());
                    url
                }
            };
            self.fetcher.jwks(&url).await
        }
        .await;
        let mut cache = self.cache.write().await;
        cache.fetched_at = Some(Instant::now());
        let keys = match result {
            Ok(keys) => keys,
            Err(error) => {
                let why = match &error {
                    FetchError::Unreachable(why) => {
                        format!("the authorization server's keys cannot be fetched: {why}")
                    }
                    FetchError::Unusable(why) => {
                        format!("the authorization server's keys are unusable: {why}")
                    }
                };
                cache.last_error = Some(why);
                return Err(error);
            }
        };
        cache.last_error = None;
        tracing::info!(keys = keys.len(), "fetched the authorization server's keys");
        cache.keys = keys;
        Ok(())
    }

    fn principal(&self, claims: &Value) -> Result<Principal, AuthError> {
        let id = claims
            .get(&self.config.principal_claim)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .ok_or(AuthError::Invalid)?
            .to_owned();
        let granted = strings(claims.get("scope"))
            .into_iter()
            .chain(strings(claims.get("scp")))
            .collect::<Vec<_>>();
        let scopes = self
            .config
            .scope_map
            .apply(granted.iter().map(String::as_str));
        let plugins = self
            .config
            .plugins_claim
            .as_deref()
            .map(|claim| strings(claims.get(claim)))
            .unwrap_or_default();
        let key_id = claims
            .get("jti")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map_or_else(
                || format!("{OAUTH_KEY_ID_PREFIX}{id}"),
                |jti| format!("{OAUTH_KEY_ID_PREFIX}{jti}"),
            );
        Ok(Principal {
            id,
            key_id: Some(key_id),
            scopes,
            plugins,
            rate_limit: None,
        })
    }
}

/// A claim as a list of strings: an array of strings, or one space-separated string.
fn strings(value: Option<&Value>) -> Vec<String> {
    match value {
        Some(Value::String(s)) => s.split_whitespace().map(str::to_owned).collect(),
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        _ => Vec::new(),
    }
}

/// The key for `kid` (any key of the algorithm when the token names none).
fn find(cache: &KeyCache, kid: Option<&str>, alg: Algorithm) -> Option<jsonwebtoken::DecodingKey> {
    cache
        .keys
        .iter()
        .find(|k| k.algorithm == alg && (kid.is_none() || k.kid.as_deref() == kid))
        .map(|k| k.key.clone())
}

impl Authenticator for OAuthResourceServer {
    async fn authenticate(&self, credential: Option<&str>) -> Result<Principal, AuthError> {
        self.authenticate_for(credential, "").await
    }

    async fn authenticate_for(
        &self,
        credential: Option<&str>,
        resource: &str,
    ) -> Result<Principal, AuthError> {
        match credential {
            None => Err(AuthError::Missing),
            Some(token) => self.verify(token, resource).await,
        }
    }
}
