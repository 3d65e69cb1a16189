//! The authorization server's signing keys: discovery of its metadata (RFC 8414, then OpenID
//! Connect), the JWKS document, a cache refetched on an unknown `kid` at most once per interval,
//! and the limits that keep a hostile answer harmless (https only except on loopback, no
//! redirects, a size cap, keys of unusable types skipped).

use std::net::IpAddr;
use std::time::{Duration, Instant};

use jsonwebtoken::jwk::{AlgorithmParameters, EllipticCurve, Jwk};
use jsonwebtoken::{Algorithm, DecodingKey};
use serde_json::Value;
use url::Url;

/// Largest metadata or JWKS document read, in bytes.
pub(super) const MAX_DOCUMENT_BYTES: usize = 256 * 1024;

/// Most keys kept from one JWKS document.
const MAX_KEYS: usize = 64;

/// Timeout of one metadata or JWKS request.
const FETCH_TIMEOUT: Duration = Duration::from_secs(10);

/// Why the keys (or the metadata) could not be fetched.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FetchError {
    /// The authorization server or its JWKS could not be reached or answered with an error.
    #[error("{0}")]
    Unreachable(String),
    /// It answered, but with something unusable (wrong issuer, bad JSON, too big, a redirect).
    #[error("{0}")]
    Unusable(String),
}

/// Whether `url` may be fetched: https, or http to a loopback address (tests, development).
pub fn check_secure(url: &Url, what: &str) -> Result<(), String> {
    match url.scheme() {
        "https" => Ok(()),
        "http" if is_loopback(url) => Ok(()),
        other => Err(format!(
            "{what} `{url}` uses {other}; it must be https (http only on a loopback address)"
        )),
    }
}

fn is_loopback(url: &Url) -> bool {
    match url.host() {
        Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => IpAddr::V4(ip).is_loopback(),
        Some(url::Host::Ipv6(ip)) => IpAddr::V6(ip).is_loopback(),
        None => false,
    }
}

/// One usable key of the JWKS.
pub(super) struct Key {
    pub(super) kid: Option<String>,
    pub(super) algorithm: Algorithm,
    pub(super) key: DecodingKey,
}

/// The keys and where they come from.
pub(super) struct KeyCache {
    pub(super) jwks_url: Option<Url>,
    pub(super) keys: Vec<Key>,
    pub(super) fetched_at: Option<Instant>,
    /// Why the last fetch failed, while no key has been fetched.
    pub(super) last_error: Option<String>,
}

/// Fetches an authorization server's metadata and keys with the limits above (https or
/// loopback only, no redirects, a size cap, a timeout). The runtime's token exchange discovers
/// the token endpoint with it ([`Fetcher::endpoint`]).
pub struct Fetcher {
    client: reqwest::Client,
}

impl Fetcher {
    /// A fetcher with its own HTTP client; fails when the client cannot be built.
    pub fn new() -> Result<Self, String> {
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(FETCH_TIMEOUT)
            .build()
            .map_err(|e| {
                format!("cannot build the HTTP client for the authorization server: {e}")
            })?;
        Ok(Self { client })
    }

    /// GETs `url` as JSON: `Ok(None)` on 404 (for discovery's fallbacks).
    async fn get_json(&self, url: &Url, what: &str) -> Result<Option<Value>, FetchError> {
        check_secure(url, what).map_err(FetchError::Unusable)?;
        let mut response = self
            .client
            .get(url.clone())
            .header("accept", "application/json")
            .send()
            .await
            .map_err(|e| FetchError::Unreachable(format!("{what} `{url}`: {e}")))?;
        let status = response.status();
        if status.is_redirection() {
            return Err(FetchError::Unusable(format!(
                "{what} `{url}` answered with a redirect ({status}); redirects are not followed, \
                 configure the final URL"
            )));
        }
        if status == reqwest::StatusCode::NOT_FOUND {
            return Ok(None);
        }
        if !status.is_success() {
            return Err(FetchError::Unreachable(format!(
                "{what} `{url}` answered {status}"
            )));
        }
        if response
            .content_length()
            .is_some_and(|len| len > MAX_DOCUMENT_BYTES as u64)
        {
            return Err(too_big(what, url));
        }
        let mut body = Vec::new();
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|e| FetchError::Unreachable(format!("{what} `{url}`: {e}")))?
        {
            if body.len() + chunk.len() > MAX_DOCUMENT_BYTES {
                return Err(too_big(what, url));
            }
            body.extend_from_slice(&chunk);
        }
        serde_json::from_slice(&body)
            .map(Some)
            .map_err(|e| FetchError::Unusable(format!("{what} `{url}` is not JSON: {e}")))
    }

    /// Finds the JWKS URL in the authorization server's metadata (see [`endpoint`]).
    ///
    /// [`endpoint`]: Self::endpoint
    pub(super) async fn discover(&self, issuer: &Url) -> Result<Url, FetchError> {
        self.endpoint(issuer, "jwks_uri", "JWKS", "--oauth-jwks-url")
            .await
    }

    /// The URL the authorization server's metadata gives as `field` (`jwks_uri`,
    /// `token_endpoint`): RFC 8414 (`/.well-known/oauth-authorization-server`, inserted
    /// before the issuer's path), then OpenID Connect (`/.well-known/openid-configuration`,
    /// appended to the issuer). The metadata's `issuer` must be exactly `issuer`, and the URL
    /// https or loopback; `what` names the URL and `flag` the flag that configures it instead,
    /// in errors.
    pub async fn endpoint(
        &self,
        issuer: &Url,
        field: &str,
        what: &str,
        flag: &str,
    ) -> Result<Url, FetchError> {
        let mut tried = Vec::new();
        for candidate in metadata_urls(issuer) {
            tried.push(candidate.to_string());
            let Some(doc) = self
                .get_json(&candidate, "authorization server metadata")
                .await?
            else {
                continue;
            };
            let stated = doc.get("issuer").and_then(Value::as_str).unwrap_or("");
            if stated != issuer.as_str() && stated != issuer.as_str().trim_end_matches('/') {
                return Err(FetchError::Unusable(format!(
                    "the metadata at `{candidate}` names the issuer `{stated}`, not `{issuer}`"
                )));
            }
            let url = doc.get(field).and_then(Value::as_str).ok_or_else(|| {
                FetchError::Unusable(format!(
                    "the metadata at `{candidate}` has no `{field}`; pass {flag}"
                ))
            })?;
            let url = Url::parse(url).map_err(|e| {
                FetchError::Unusable(format!(
                    "the metadata at `{candidate}` has an invalid `{field}` `{url}`: {e}"
                ))
            })?;
            check_secure(&url, what).map_err(FetchError::Unusable)?;
            return Ok(url);
        }
        Err(FetchError::Unusable(format!(
            "no authorization server metadata found at {}; pass {flag}",
            tried.join(" or ")
        )))
    }

    /// Fetches and parses the JWKS at `url`. Keys that cannot verify RS256, ES256 or EdDSA
    /// tokens are skipped with a warning; a document with none left is an error.
    pub(super) async fn jwks(&self, url: &Url) -> Result<Vec<Key>, FetchError> {
        let doc = self
            .get_json(url, "JWKS")
            .await?
            .ok_or_else(|| FetchError::Unreachable(format!("JWKS `{url}` answered 404")))?;
        let listed = doc
            .get("keys")
            .and_then(Value::as_array)
            .ok_or_else(|| FetchError::Unusable(format!("JWKS `{url}` has no `keys` array")))?;
        let mut keys = Vec::new();
        for (i, raw) in listed.iter().enumerate() {
            if keys.len() == MAX_KEYS {
                tracing::warn!(%url, "JWKS lists more than {MAX_KEYS} keys; the rest are ignored");
                break;
            }
            match usable_key(raw) {
                Ok(key) => keys.push(key),
                Err(why) => tracing::warn!(%url, index = i, "JWKS key skipped: {why}"),
            }
        }
        if keys.is_empty() {
            return Err(FetchError::Unusable(format!(
                "JWKS `{url}` has no usable RS256, ES256 or EdDSA signing key"
            )));
        }
        Ok(keys)
    }
}

fn too_big(what: &str, url: &Url) -> FetchError {
    FetchError::Unusable(format!(
        "{what} `{url}` is larger than {MAX_DOCUMENT_BYTES} bytes"
    ))
}

/// Where the authorization server's metadata may be, in order.
fn metadata_urls(issuer: &Url) -> Vec<Url> {
    let path = issuer.path().trim_end_matches('/');
    let mut urls = Vec::new();
    let mut push = |path: String| {
        let mut url = issuer.clone();
        url.set_path(&path);
        url.set_query(None);
        url.set_fragment(None);
        if !urls.contains(&url) {
            urls.push(url);
        }
    };
    push(format!("/.well-known/oauth-authorization-server{path}"));
    push(format!("{path}/.well-known/openid-configuration"));
    push(format!("/.well-known/openid-configuration{path}"));
    urls
}

/// A JWKS entry as a verification key, if it is one we accept.
fn usable_key(raw: &Value) -> Result<Key, String> {
    let jwk: Jwk = serde_json::from_value(raw.clone())
        .map_err(|e| format!("not a JSON Web Key we understand: {e}"))?;
    if let Some(usage) = raw.get("use").and_then(Value::as_str)
        && usage != "sig"
    {
        return Err(format!("`use` is `{usage}`, not `sig`"));
    }
    let algorithm = match &jwk.algorithm {
        AlgorithmParameters::RSA(_) => Algorithm::RS256,
        AlgorithmParameters::EllipticCurve(ec) if ec.curve == EllipticCurve::P256 => {
            Algorithm::ES256
        }
        AlgorithmParameters::OctetKeyPair(okp) if okp.curve == EllipticCurve::Ed25519 => {
            Algorithm::EdDSA
        }
        AlgorithmParameters::OctetKey(_) => {
            return Err("a symmetric (`oct`) key cannot verify tokens of another party".into());
        }
        _ => return Err("only RSA, P-256 and Ed25519 keys are accepted".into()),
    };
    if let Some(stated) = raw.get("alg").and_then(Value::as_str) {
        let expected = match algorithm {
            Algorithm::RS256 => "RS256",
            Algorithm::ES256 => "ES256",
            _ => "EdDSA",
        };
        if stated != expected && !(algorithm == Algorithm::EdDSA && stated == "Ed25519") {
            return Err(format!(
                "`alg` is `{stated}`; accepted are RS256, ES256 and EdDSA"
            ));
        }
    }
    let key = DecodingKey::from_jwk(&jwk).map_err(|e| format!("unusable key material: {e}"))?;
    Ok(Key {
        kid: jwk.common.key_id.clone(),
        algorithm,
        key,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_is_looked_up_as_rfc_8414_then_oidc() {
        let issuer = Url::parse("https://as.example/tenant").unwrap_or_else(|_| unreachable!());
        let urls: Vec<String> = metadata_urls(&issuer).iter().map(Url::to_string).collect();
        assert_eq!(
            urls,
            [
                "https://as.example/.well-known/oauth-authorization-server/tenant",
                "https://as.example/tenant/.well-known/openid-configuration",
                "https://as.example/.well-known/openid-configuration/tenant",
            ]
        );
    }

    #[test]
    fn only_https_or_loopback_http() {
        let ok = |u: &str| check_secure(&Url::parse(u).unwrap_or_else(|_| unreachable!()), "x");
        assert!(ok("https://as.example/").is_ok());
        assert!(ok("http://127.0.0.1:9000/").is_ok());
        assert!(ok("http://[::1]:9000/").is_ok());
        assert!(ok("http://localhost/").is_ok());
        assert!(ok("http://as.example/").is_err());
        assert!(ok("ftp://127.0.0.1/").is_err());
    }

    #[test]
    fn keys_of_other_types_are_refused() {
        let oct = serde_json::json!({"kty": "oct", "k": "c2VjcmV0", "kid": "a"});
        assert!(usable_key(&oct).is_err());
        let junk = serde_json::json!({"kty": "RSA", "n": 5});
        assert!(usable_key(&junk).is_err());
        let enc = serde_json::json!({"kty": "OKP", "crv": "Ed25519", "use": "enc",
            "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"});
        assert!(usable_key(&enc).is_err());
        let ed = serde_json::json!({"kty": "OKP", "crv": "Ed25519",
            "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"});
        assert!(usable_key(&ed).is_ok());
    }
}
