//! RFC 8693 token exchange for OAuth callers: the caller's access token (issued for this
//! server) is traded at the authorization server for a token whose audience is the upstream
//! API, which then goes upstream in the operation's bearer scheme, so the API sees the caller
//! rather than the server's own credential.
//!
//! - The token endpoint is configured, or found in the issuer's metadata (RFC 8414, then
//!   OpenID Connect discovery) at the first exchange; https only, except on loopback.
//! - One exchange per subject token: the issued token is cached, keyed by the principal and a
//!   SHA-256 of the caller's token, until `expires_in` (minus a tenth of it, at most 30 s;
//!   at most an hour). Concurrent calls with one token wait for one exchange.
//! - A refusal, an unreachable server or an unusable answer fails the call with a message
//!   saying so; nothing is sent upstream. No token is ever logged or shown.

mod request;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use mcpgen_core::tool::{SecurityScheme, SecuritySchemeKind, ToolDef};
use mcpgen_identity::auth::oauth::{Fetcher, check_secure};
use reqwest::header::HeaderValue;
use sha2::{Digest, Sha256};
use tokio::sync::OnceCell;
use url::Url;

use crate::UpstreamConfig;
use crate::error::UpstreamError;
use mcpgen_contract::toolset::CallContext;

/// Timeout of one request to the token endpoint.
const TIMEOUT: Duration = Duration::from_secs(10);

/// Longest time an issued token is kept.
const MAX_LIFETIME: Duration = Duration::from_secs(3600);

/// Most skew taken off an issued token's lifetime.
const MAX_SKEW: Duration = Duration::from_secs(30);

/// Most cached tokens.
const MAX_ENTRIES: usize = 10_000;

/// How an upstream exchanges OAuth callers' access tokens (RFC 8693) for tokens of its own
/// API; see [`UpstreamConfig::with_token_exchange`](crate::UpstreamConfig::with_token_exchange).
///
/// Its `Debug` output does not show the client secret.
#[derive(Clone)]
pub struct TokenExchange {
    issuer: String,
    token_endpoint: Option<String>,
    audience: Option<String>,
    client_id: String,
    client_secret: Option<String>,
    schemes: Vec<SecurityScheme>,
}

impl std::fmt::Debug for TokenExchange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokenExchange")
            .field("issuer", &self.issuer)
            .field("token_endpoint", &self.token_endpoint)
            .field("audience", &self.audience)
            .field("client_id", &self.client_id)
            .finish_non_exhaustive()
    }
}

impl TokenExchange {
    /// Exchanges at the authorization server `issuer` (the one whose tokens callers present),
    /// authenticating as `client_id`. The exchanged token is sent in `schemes`' HTTP bearer
    /// and OAuth 2 schemes: an operation secured by one of them gets it, others keep the
    /// configured credentials.
    pub fn new(
        issuer: impl Into<String>,
        client_id: impl Into<String>,
        schemes: impl IntoIterator<Item = SecurityScheme>,
    ) -> Self {
        Self {
            issuer: issuer.into(),
            token_endpoint: None,
            audience: None,
            client_id: client_id.into(),
            client_secret: None,
            schemes: schemes.into_iter().collect(),
        }
    }

    /// Exchanges at `url` instead of the `token_endpoint` of the issuer's metadata.
    pub fn token_endpoint(mut self, url: impl Into<String>) -> Self {
        self.token_endpoint = Some(url.into());
        self
    }

    /// Asks for tokens with this `audience` (default: the upstream's base URL, which is
    /// always sent as `resource`).
    pub fn audience(mut self, audience: impl Into<String>) -> Self {
        self.audience = Some(audience.into());
        self
    }

    /// Authenticates with this secret (HTTP basic); without one the client id is sent in the
    /// form, as a public client.
    pub fn client_secret(mut self, secret: impl Into<String>) -> Self {
        self.client_secret = Some(secret.into());
        self
    }
}

/// What an exchange is cached by: the principal and a SHA-256 of the caller's token.
type Key = (String, [u8; 32]);

/// A cached exchange: the token, once there is one, behind a lock that concurrent calls with
/// the same subject token wait on.
#[derive(Default)]
struct Slot {
    issued: tokio::sync::Mutex<Option<Cached>>,
}

struct Cached {
    authorization: HeaderValue,
    usable_until: Instant,
}

impl Cached {
    fn fresh(&self) -> bool {
        Instant::now() < self.usable_until
    }
}

/// The token endpoint: configured, or discovered once from the issuer's metadata.
enum Endpoint {
    Configured(Url),
    Discovered {
        issuer: Url,
        fetcher: Fetcher,
        found: OnceCell<Url>,
    },
}

/// Exchanges tokens for one upstream and keeps what it got.
pub(super) struct Exchanger {
    endpoint: Endpoint,
    client: reqwest::Client,
    client_id: String,
    client_secret: Option<String>,
    audience: String,
    resource: String,
    /// The security schemes the exchanged token goes in.
    bearer_schemes: Vec<&'static str>,
    cache: Mutex<HashMap<Key, Arc<Slot>>>,
}

/// `Bearer <token>` for a call of `tool` on behalf of `ctx` through `exchanger`, if any (see
/// [`Exchanger::for_call`]).
pub(super) async fn bearer(
    exchanger: Option<&Exchanger>,
    tool: &ToolDef,
    ctx: &CallContext,
) -> Result<Option<HeaderValue>, String> {
    match exchanger {
        Some(exchanger) => exchanger.for_call(tool, ctx).await,
        None => Ok(None),
    }
}

impl Exchanger {
    /// The exchanger of an upstream configured by `config`, if it exchanges tokens.
    pub(super) fn for_upstream(
        config: &UpstreamConfig,
    ) -> Result<Option<Arc<Self>>, UpstreamError> {
        config
            .token_exchange
            .as_ref()
            .map(|exchange| Self::new(exchange, &config.base_url).map(Arc::new))
            .transpose()
    }

    /// Checks `config` (URLs parse, https or loopback, a scheme to send the token in) for an
    /// upstream at `base_url`.
    pub(super) fn new(config: &TokenExchange, base_url: &str) -> Result<Self, UpstreamError> {
        let fail = UpstreamError::TokenExchange;
        let bearer_schemes: Vec<&'static str> = config
            .schemes
            .iter()
            .filter(|s| {
                matches!(
                    s.kind,
                    SecuritySchemeKind::Bearer | SecuritySchemeKind::OAuth2
                )
            })
            .map(|s| s.name)
            .collect();
        if bearer_schemes.is_empty() {
            return Err(fail(
                "the API has no HTTP bearer or OAuth 2 security scheme to send the exchanged \
                 token in"
                    .to_owned(),
            ));
        }
        if config.client_id.trim().is_empty() {
            return Err(fail(
                "it needs the client id this server has at the authorization server".to_owned(),
            ));
        }
        let parse = |text: &str, what: &str| {
            let url = Url::parse(text.trim())
                .map_err(|e| fail(format!("{what} `{text}` is not a URL: {e}")))?;
            check_secure(&url, what).map_err(fail)?;
            Ok::<_, UpstreamError>(url)
        };
        let endpoint = match &config.token_endpoint {
            Some(url) => Endpoint::Configured(parse(url, "the token exchange endpoint")?),
            None => Endpoint::Discovered {
                issuer: parse(&config.issuer, "the OAuth issuer")?,
                fetcher: Fetcher::new().map_err(fail)?,
                found: OnceCell::new(),
            },
        };
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(TIMEOUT)
            .build()
            .map_err(|e| fail(format!("cannot build its HTTP client: {e}")))?;
        let resource = base_url.trim_end_matches('/').to_owned();
        Ok(Self {
            endpoint,
            client,
            client_id: config.client_id.clone(),
            client_secret: config.client_secret.clone(),
            audience: config.audience.clone().unwrap_or_else(|| resource.clone()),
            resource,
            bearer_schemes,
            cache: Mutex::default(),
        })
    }

    /// `Bearer <token>` for a call of `tool` by the OAuth caller of `ctx`, when the tool's
    /// operation is secured by a bearer scheme; `None` for other callers and operations, which
    /// keep the configured credentials. Fails with the call's error message.
    pub(super) async fn for_call(
        &self,
        tool: &ToolDef,
        ctx: &CallContext,
    ) -> Result<Option<HeaderValue>, String> {
        let (Some(binding), Some(token)) = (&tool.http, &ctx.oauth_token) else {
            return Ok(None);
        };
        if !binding
            .security
            .iter()
            .any(|s| self.bearer_schemes.contains(s))
        {
            return Ok(None);
        }
        let principal = ctx.principal.as_ref().map_or("", |p| p.id.as_str());
        self.authorization(principal, token.expose())
            .await
            .map(Some)
            .map_err(|why| {
                format!(
                    "cannot call {} {}: the caller's OAuth token could not be exchanged for a \
                     token of the API, so nothing was sent: {why}",
                    binding.method, binding.path
                )
            })
    }

    /// `Bearer <token>` for the caller `principal` who presented `subject_token`: cached, or
    /// exchanged now. Fails with a message for the caller.
    async fn authorization(
        &self,
        principal: &str,
        subject_token: &str,
    ) -> Result<HeaderValue, String> {
        let digest: [u8; 32] = Sha256::digest(subject_token.as_bytes()).into();
        let slot = self.slot((principal.to_owned(), digest));
        let mut issued = slot.issued.lock().await;
        if let Some(cached) = issued.as_ref().filter(|c| c.fresh()) {
            return Ok(cached.authorization.clone());
        }
        *issued = None;
        let endpoint = self.endpoint().await?;
        let ask = request::Ask {
            endpoint,
            client_id: &self.client_id,
            client_secret: self.client_secret.as_deref(),
            audience: &self.audience,
            resource: &self.resource,
        };
        let received = Instant::now();
        let got = request::exchange(&self.client, &ask, subject_token)
            .await
            .inspect_err(|why| {
                tracing::warn!(principal, "token exchange failed: {why}");
            })?;
        let lifetime = got.lifetime.min(MAX_LIFETIME);
        tracing::debug!(
            principal,
            lifetime_s = lifetime.as_secs(),
            "exchanged the caller's token"
        );
        let skew = (lifetime / 10).min(MAX_SKEW);
        *issued = Some(Cached {
            authorization: got.authorization.clone(),
            usable_until: received + lifetime - skew,
        });
        Ok(got.authorization)
    }

    /// The token endpoint, discovering it at the first exchange.
    async fn endpoint(&self) -> Result<&Url, String> {
        match &self.endpoint {
            Endpoint::Configured(url) => Ok(url),
            Endpoint::Discovered {
                issuer,
                fetcher,
                found,
            } => {
                found
                    .get_or_try_init(|| async {
                        fetcher
                            .endpoint(
                                issuer,
                                "token_endpoint",
                                "the token endpoint",
                                "--token-exchange-endpoint",
                            )
                            .await
                            .map_err(|e| {
                                tracing::warn!("cannot find the token exchange endpoint: {e}");
                                format!("the authorization server's token endpoint is unknown: {e}")
                            })
                    })
                    .await
            }
        }
    }

    /// The cache slot of `key`, made when missing; at the cap, slots nobody waits on whose
    /// token is stale (or all slots nobody waits on) are dropped first.
    fn slot(&self, key: Key) -> Arc<Slot> {
        let mut cache = self.cache.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(slot) = cache.get(&key) {
            return slot.clone();
        }
        if cache.len() >= MAX_ENTRIES {
            let idle = |slot: &Arc<Slot>| Arc::strong_count(slot) == 1;
            cache.retain(|_, slot| {
                !idle(slot)
                    || slot
                        .issued
                        .try_lock()
                        .is_ok_and(|c| c.as_ref().is_some_and(Cached::fresh))
            });
            if cache.len() >= MAX_ENTRIES {
                cache.retain(|_, slot| !idle(slot));
            }
        }
        cache.entry(key).or_default().clone()
    }
}

#[cfg(test)]
mod tests {
    use mcpgen_core::tool::HttpBinding;

    use super::*;
    use mcpgen_contract::toolset::CallerCredential;
    use mcpgen_identity::Principal;

    const BEARER: SecurityScheme = SecurityScheme {
        name: "bearerAuth",
        kind: SecuritySchemeKind::Bearer,
    };
    const KEY: SecurityScheme = SecurityScheme {
        name: "apiKey",
        kind: SecuritySchemeKind::ApiKeyHeader("X-Key"),
    };

    fn exchanger(endpoint: &str, schemes: &[SecurityScheme]) -> Result<Exchanger, String> {
        let config = TokenExchange::new("https://as.example", "mcp", schemes.iter().copied())
            .token_endpoint(endpoint);
        Exchanger::new(&config, "https://api.example/v1/").map_err(|e| e.to_string())
    }

    #[test]
    fn it_needs_a_bearer_scheme_and_a_secure_endpoint() {
        let no_scheme = exchanger("https://as.example/token", &[KEY]).err();
        assert!(no_scheme.is_some_and(|e| e.contains("no HTTP bearer or OAuth 2")));
        let plain = exchanger("http://as.example/token", &[BEARER]).err();
        assert!(plain.is_some_and(|e| e.contains("must be https")));
        let oauth2 = SecurityScheme {
            name: "oauth",
            kind: SecuritySchemeKind::OAuth2,
        };
        let ok = exchanger("http://127.0.0.1:9/token", &[oauth2]);
        let ok = ok.unwrap_or_else(|e| unreachable!("{e}"));
        assert_eq!(ok.audience, "https://api.example/v1");
        assert_eq!(ok.resource, "https://api.example/v1");
    }

    #[tokio::test]
    async fn only_oauth_callers_of_bearer_operations_exchange() {
        // Nothing listens on port 9: an attempted exchange would fail.
        let exchanger = exchanger("http://127.0.0.1:9/token", &[BEARER, KEY])
            .unwrap_or_else(|e| unreachable!("{e}"));
        let bearer_op = ToolDef::new("a", "", "{}")
            .http(HttpBinding::new("GET", "/a", "a").security(&["bearerAuth"]));
        let key_op = ToolDef::new("b", "", "{}")
            .http(HttpBinding::new("GET", "/b", "b").security(&["apiKey"]));
        let mut oauth = CallContext::new().with_principal(Principal::unrestricted("alice"));
        oauth.oauth_token = Some(CallerCredential::new("caller-token"));
        let key_caller = CallContext::new()
            .with_principal(Principal::unrestricted("bob"))
            .with_caller_credential(CallerCredential::new("key"));
        assert_eq!(exchanger.for_call(&key_op, &oauth).await, Ok(None));
        assert_eq!(exchanger.for_call(&bearer_op, &key_caller).await, Ok(None));
        let failed = exchanger.for_call(&bearer_op, &oauth).await;
        let failed = failed.err().unwrap_or_default();
        assert!(
            failed
                .starts_with("cannot call GET /a: the caller's OAuth token could not be exchanged"),
            "{failed}"
        );
        assert!(!failed.contains("caller-token"), "{failed}");
    }
}
