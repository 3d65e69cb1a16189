//! RFC 7662 token introspection for opaque access tokens: the authorization server says
//! whether a token is active, and for whom; answers are cached until the token expires.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::Value;
use sha2::{Digest, Sha256};
use url::Url;

use super::keys::{MAX_DOCUMENT_BYTES, check_secure};
use crate::auth::AuthError;

/// Longest time an active answer without `exp` is trusted.
const MAX_CACHE: Duration = Duration::from_secs(300);

/// How long an inactive answer is remembered.
const NEGATIVE_CACHE: Duration = Duration::from_secs(10);

/// Most answers kept.
const MAX_ENTRIES: usize = 10_000;

/// Clock leeway for `exp` and `nbf`, in seconds.
const LEEWAY: u64 = 60;

/// Where and as whom to introspect.
#[derive(Debug, Clone)]
pub(super) struct IntrospectionConfig {
    pub(super) url: String,
    pub(super) client_id: String,
    pub(super) client_secret: String,
}

struct Cached {
    claims: Option<Value>,
    until: Instant,
}

/// Asks the introspection endpoint, with a cache keyed by a SHA-256 of the token.
pub(super) struct Introspector {
    url: Url,
    config: IntrospectionConfig,
    client: reqwest::Client,
    cache: Mutex<HashMap<[u8; 32], Cached>>,
}

impl Introspector {
    pub(super) fn new(config: IntrospectionConfig) -> Result<Self, String> {
        let url = Url::parse(config.url.trim()).map_err(|e| {
            format!(
                "--oauth-introspection-url `{}` is not a URL: {e}",
                config.url
            )
        })?;
        check_secure(&url, "--oauth-introspection-url")?;
        if config.client_id.is_empty() {
            return Err(
                "--oauth-introspection-url needs the client id this server introspects as \
                 (--oauth-client-id)"
                    .into(),
            );
        }
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(Duration::from_secs(10))
            .build()
            .map_err(|e| format!("cannot build the HTTP client for introspection: {e}"))?;
        Ok(Self {
            url,
            config,
            client,
            cache: Mutex::default(),
        })
    }

    /// The claims of an active token (`None`: inactive), from the cache or the server.
    pub(super) async fn claims(&self, token: &str) -> Result<Option<Value>, AuthError> {
        let digest: [u8; 32] = Sha256::digest(token.as_bytes()).into();
        {
            let cache = self.cache.lock().unwrap_or_else(PoisonError::into_inner);
            if let Some(entry) = cache.get(&digest)
                && entry.until > Instant::now()
            {
                return Ok(entry.claims.clone());
            }
        }
        let claims = self.ask(token).await?;
        let until = match &claims {
            None => Instant::now() + NEGATIVE_CACHE,
            Some(claims) => {
                let left = claims
                    .get("exp")
                    .and_then(Value::as_u64)
                    .map_or(MAX_CACHE, |exp| {
                        Duration::from_secs(exp.saturating_sub(now_seconds()))
                    });
                Instant::now() + left.min(MAX_CACHE)
            }
        };
        let mut cache = self.cache.lock().unwrap_or_else(PoisonError::into_inner);
        if cache.len() >= MAX_ENTRIES {
            let now = Instant::now();
            cache.retain(|_, entry| entry.until > now);
            if cache.len() >= MAX_ENTRIES {
                cache.clear();
            }
        }
        cache.insert(
            digest,
            Cached {
                claims: claims.clone(),
                until,
            },
        );
        Ok(claims)
    }

    async fn ask(&self, token: &str) -> Result<Option<Value>, AuthError> {
        let unavailable = |why: String| {
            tracing::warn!("token introspection failed: {why}");
            AuthError::Unavailable(format!("the authorization server cannot be asked: {why}"))
        };
        let form = url::form_urlencoded::Serializer::new(String::new())
            .append_pair("token", token)
            .append_pair("token_type_hint", "access_token")
            .finish();
        let mut response = self
            .client
            .post(self.url.clone())
            .basic_auth(&self.config.client_id, Some(&self.config.client_secret))
            .header("content-type", "application/x-www-form-urlencoded")
            .header("accept", "application/json")
            .body(form)
            .send()
            .await
            .map_err(|e| unavailable(format!("{}: {e}", self.url)))?;
        let status = response.status();
        if !status.is_success() {
            return Err(unavailable(format!("{} answered {status}", self.url)));
        }
        let mut body = Vec::new();
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|e| unavailable(format!("{}: {e}", self.url)))?
        {
            if body.len() + chunk.len() > MAX_DOCUMENT_BYTES {
                return Err(unavailable(format!("{} answered too much", self.url)));
            }
            body.extend_from_slice(&chunk);
        }
        let answer: Value = serde_json::from_slice(&body)
            .map_err(|e| unavailable(format!("{} answered something not JSON: {e}", self.url)))?;
        Ok((answer.get("active") == Some(&Value::Bool(true))).then_some(answer))
    }
}

/// Checks an active token's `iss`, `aud`, `exp` and `nbf` where present.
pub(super) fn check_claims(claims: &Value, issuer: &str, resource: &str) -> Result<(), AuthError> {
    if let Some(iss) = claims.get("iss").and_then(Value::as_str)
        && iss != issuer
    {
        return Err(AuthError::WrongIssuer);
    }
    match claims.get("aud") {
        None => {}
        Some(Value::String(aud)) if aud == resource => {}
        Some(Value::Array(auds)) if auds.iter().any(|a| a.as_str() == Some(resource)) => {}
        Some(_) => return Err(AuthError::WrongAudience),
    }
    let now = now_seconds();
    if let Some(exp) = claims.get("exp").and_then(Value::as_u64)
        && now > exp.saturating_add(LEEWAY)
    {
        return Err(AuthError::Expired);
    }
    if let Some(nbf) = claims.get("nbf").and_then(Value::as_u64)
        && nbf > now.saturating_add(LEEWAY)
    {
        return Err(AuthError::Invalid);
    }
    Ok(())
}

fn now_seconds() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}
