//! `--key-check-url`: the product's own API decides whether a key presented to the server is
//! valid, and the answers are cached.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use serde_json::Value;
use sha2::{Digest, Sha256};

use super::token::TOKEN_PREFIX;
use super::{AuthError, Authenticator};
use crate::principal::Principal;

/// Default time a positive answer is cached.
pub const DEFAULT_KEY_CHECK_TTL: Duration = Duration::from_secs(60);

/// Default largest number of cached answers.
pub const DEFAULT_KEY_CHECK_CACHE: usize = 10_000;

/// Timeout of one check.
const CHECK_TIMEOUT: Duration = Duration::from_secs(10);

/// Longest key sent to the API; longer credentials are refused without a check.
const MAX_KEY_BYTES: usize = 4096;

/// Where the key goes in the check request: the API's own security scheme.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyPlacement {
    /// A header, e.g. `X-API-Key`.
    Header(String),
    /// A query parameter.
    Query(String),
    /// A cookie.
    Cookie(String),
    /// `Authorization: Bearer <key>`.
    Bearer,
}

/// How a [`KeyCheck`] asks the API.
#[derive(Debug, Clone)]
pub struct KeyCheckConfig {
    url: String,
    placement: KeyPlacement,
    principal_pointer: Option<String>,
    scopes_pointer: Option<String>,
    default_scopes: Vec<String>,
    ttl: Duration,
    max_entries: usize,
}

impl KeyCheckConfig {
    /// Checks keys with a GET of `url` (absolute), the key placed as `placement` says.
    pub fn new(url: impl Into<String>, placement: KeyPlacement) -> Self {
        Self {
            url: url.into(),
            placement,
            principal_pointer: None,
            scopes_pointer: None,
            default_scopes: vec!["mcp:*".to_owned()],
            ttl: DEFAULT_KEY_CHECK_TTL,
            max_entries: DEFAULT_KEY_CHECK_CACHE,
        }
    }

    /// JSON pointer of the principal id in the answer (a string or a number). Without it (or
    /// when the answer has none there) the principal is named after a digest of the key.
    pub fn principal_pointer(mut self, pointer: impl Into<String>) -> Self {
        self.principal_pointer = Some(pointer.into());
        self
    }

    /// JSON pointer of the scopes in the answer (an array of strings or a space-separated
    /// string). Without it, or when the answer has none there, the default scopes apply.
    pub fn scopes_pointer(mut self, pointer: impl Into<String>) -> Self {
        self.scopes_pointer = Some(pointer.into());
        self
    }

    /// The scopes of a valid key whose answer names none (default `mcp:*`: the API itself
    /// decides what the key may do).
    pub fn default_scopes(mut self, scopes: Vec<String>) -> Self {
        self.default_scopes = scopes;
        self
    }

    /// How long a positive answer is cached (default [`DEFAULT_KEY_CHECK_TTL`]); a negative
    /// answer is cached for a quarter of it, between 1 and 15 seconds.
    pub fn ttl(mut self, ttl: Duration) -> Self {
        self.ttl = ttl;
        self
    }

    /// The largest number of cached answers (default [`DEFAULT_KEY_CHECK_CACHE`]).
    pub fn max_entries(mut self, max: usize) -> Self {
        self.max_entries = max.max(1);
        self
    }

    fn negative_ttl(&self) -> Duration {
        (self.ttl / 4).clamp(Duration::from_secs(1), Duration::from_secs(15))
    }
}

type Digest32 = [u8; 32];

struct Cached {
    answer: Result<Principal, ()>,
    until: Instant,
}

/// An [`Authenticator`] asking the product's API whether a key is valid: 2xx means valid
/// (principal and scopes from the answer), 401/403/404 and other 4xx mean not; answers are
/// cached by a SHA-256 of the key, never the key itself, and the key is never logged. When
/// the API cannot be reached (or answers 5xx) the caller gets 503 with `Retry-After`, never
/// 401. Signed tokens (`mcpgen1.…`) and JWTs are not sent to the API.
pub struct KeyCheck {
    config: KeyCheckConfig,
    url: url::Url,
    client: reqwest::Client,
    cache: Mutex<HashMap<Digest32, Cached>>,
    /// One check at a time per key, so that concurrent callers with the same key cost one.
    inflight: Mutex<HashMap<Digest32, Arc<tokio::sync::Mutex<()>>>>,
}

impl std::fmt::Debug for KeyCheck {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KeyCheck")
            .field("url", &self.config.url)
            .field("placement", &self.config.placement)
            .finish_non_exhaustive()
    }
}

impl KeyCheck {
    /// Checks the configuration (the URL must be absolute http or https).
    pub fn new(config: KeyCheckConfig) -> Result<Self, String> {
        let parsed = url::Url::parse(&config.url)
            .map_err(|e| format!("--key-check-url `{}` is not a URL: {e}", config.url))?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(format!(
                "--key-check-url `{}` must be an http or https URL",
                config.url
            ));
        }
        let client = reqwest::Client::builder()
            .timeout(CHECK_TIMEOUT)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| format!("cannot build the HTTP client for --key-check-url: {e}"))?;
        Ok(Self {
            config,
            url: parsed,
            client,
            cache: Mutex::default(),
            inflight: Mutex::default(),
        })
    }

    /// The answer for `key`: cached, or from the API.
    pub async fn check(&self, key: &str) -> Result<Principal, AuthError> {
        if key.is_empty() || key.len() > MAX_KEY_BYTES || looks_like_token(key) {
            return Err(AuthError::Invalid);
        }
        let digest: Digest32 = Sha256::digest(key.as_bytes()).into();
        if let Some(answer) = self.cached(&digest) {
            return answer;
        }
        let gate = self
            .inflight
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .entry(digest)
            .or_default()
            .clone();
        let _turn = gate.lock().await;
        if let Some(answer) = self.cached(&digest) {
            return answer;
        }
        let answer = self.ask(key, &digest).await;
        if let Some(answer) = &answer.cacheable {
            self.store(digest, answer.clone());
        }
        self.inflight
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&digest);
        answer.result
    }

    fn cached(&self, digest: &Digest32) -> Option<Result<Principal, AuthError>> {
        let cache = self.cache.lock().unwrap_or_else(PoisonError::into_inner);
        let entry = cache.get(digest)?;
        (entry.until > Instant::now())
            .then(|| entry.answer.clone().map_err(|()| AuthError::Invalid))
    }

    fn store(&self, digest: Digest32, answer: Result<Principal, ()>) {
        let ttl = match answer {
            Ok(_) => self.config.ttl,
            Err(()) => self.config.negative_ttl(),
        };
        let mut cache = self.cache.lock().unwrap_or_else(PoisonError::into_inner);
        if cache.len() >= self.config.max_entries && !cache.contains_key(&digest) {
            let now = Instant::now();
            cache.retain(|_, entry| entry.until > now);
            if cache.len() >= self.config.max_entries
                && let Some(oldest) = cache
                    .iter()
                    .min_by_key(|(_, entry)| entry.until)
                    .map(|(k, _)| *k)
            {
                cache.remove(&oldest);
            }
        }
        cache.insert(
            digest,
            Cached {
                answer,
                until: Instant::now() + ttl,
            },
        );
    }

    async fn ask(&self, key: &str, digest: &Digest32) -> Answer {
        let short = short_id(digest);
        let mut url = self.url.clone();
        if let KeyPlacement::Query(name) = &self.config.placement {
            url.query_pairs_mut().append_pair(name, key);
        }
        let mut request = self.client.get(url);
        request = match &self.config.placement {
            KeyPlacement::Header(name) => request.header(name.as_str(), key),
            KeyPlacement::Query(_) => request,
            KeyPlacement::Cookie(name) => request.header("cookie", format!("{name}={key}")),
            KeyPlacement::Bearer => request.bearer_auth(key),
        };
        let response = match request.header("accept", "application/json").send().await {
            Ok(response) => response,
            Err(error) => {
                // reqwest errors name the URL, which never holds the key unless it goes in the
                // query; leave the URL out then.
                let error = error.without_url();
                tracing::warn!(key = %short, %error, "the key check API cannot be reached");
                return Answer::unavailable("the API that checks keys cannot be reached");
            }
        };
        let status = response.status();
        if status.is_server_error() {
            tracing::warn!(key = %short, %status, "the key check API failed");
            return Answer::unavailable("the API that checks keys is failing");
        }
        if !status.is_success() {
            tracing::debug!(key = %short, %status, "the key check API refused a key");
            return Answer::cached(Err(()));
        }
        let body: Value = response.json().await.unwrap_or(Value::Null);
        let id = self
            .config
            .principal_pointer
            .as_deref()
            .and_then(|p| body.pointer(p))
            .and_then(|v| match v {
                Value::String(s) if !s.is_empty() => Some(s.clone()),
                Value::Number(n) => Some(n.to_string()),
                _ => None,
            })
            .unwrap_or_else(|| format!("key:{short}"));
        let scopes = self
            .config
            .scopes_pointer
            .as_deref()
            .and_then(|p| body.pointer(p))
            .map(|v| match v {
                Value::String(s) => s.split_whitespace().map(str::to_owned).collect(),
                Value::Array(items) => items
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect(),
                _ => Vec::new(),
            })
            .filter(|scopes: &Vec<String>| !scopes.is_empty())
            .unwrap_or_else(|| self.config.default_scopes.clone());
        tracing::debug!(key = %short, principal = %id, "the key check API accepted a key");
        Answer::cached(Ok(Principal {
            id,
            key_id: Some(format!("key-check:{short}")),
            scopes,
            plugins: vec!["*".to_owned()],
            rate_limit: None,
        }))
    }
}

struct Answer {
    result: Result<Principal, AuthError>,
    cacheable: Option<Result<Principal, ()>>,
}

impl Answer {
    fn cached(answer: Result<Principal, ()>) -> Self {
        Self {
            result: answer.clone().map_err(|()| AuthError::Invalid),
            cacheable: Some(answer),
        }
    }

    fn unavailable(why: &str) -> Self {
        Self {
            result: Err(AuthError::Unavailable(why.to_owned())),
            cacheable: None,
        }
    }
}

/// The first 12 hex digits of the key's SHA-256: names a key in logs and audit records.
fn short_id(digest: &Digest32) -> String {
    hex::encode(&digest[..6])
}

/// Signed tokens and JWTs belong to other authenticators and never go to the API.
fn looks_like_token(credential: &str) -> bool {
    credential.starts_with(TOKEN_PREFIX)
        || (credential.starts_with("eyJ") && credential.matches('.').count() == 2)
}

impl Authenticator for KeyCheck {
    async fn authenticate(&self, credential: Option<&str>) -> Result<Principal, AuthError> {
        match credential {
            None => Err(AuthError::Missing),
            Some(key) => self.check(key).await,
        }
    }
}
