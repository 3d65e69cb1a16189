//! Credentials on upstream requests, all in one place: the credentials configured per
//! upstream ([`Credential`], parsed once into `Auth`), pass-through of the caller's own
//! credential into the operation's security scheme (`PassThrough`, never by default), and how
//! both are applied to a built request's headers and URL.
//!
//! Configured credentials replace an argument's header of the same name, except `Cookie`,
//! whose credential cookies follow the argument cookies in the one `Cookie` header; query
//! credentials follow the query arguments. Every credential value is marked sensitive, and no
//! `Debug` output shows one.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use mcpgen_core::tool::{HttpBinding, SecurityScheme, SecuritySchemeKind};
use reqwest::header::{AUTHORIZATION, COOKIE, HeaderMap, HeaderName, HeaderValue};

use crate::error::UpstreamError;
use crate::style;
use mcpgen_contract::toolset::CallContext;

/// A credential attached to every upstream request.
#[derive(Clone)]
pub enum Credential {
    /// A header, e.g. `X-API-Key: secret`.
    Header {
        /// Header name.
        name: String,
        /// Header value.
        value: String,
    },
    /// A query parameter, e.g. `?api_key=secret`.
    Query {
        /// Parameter name.
        name: String,
        /// Parameter value.
        value: String,
    },
    /// `Authorization: Bearer <token>`.
    Bearer(String),
    /// A cookie, e.g. `Cookie: session=secret`; sent in the one `Cookie` header after any
    /// cookie arguments. The value is sent as given, so it must be a valid cookie value.
    Cookie {
        /// Cookie name.
        name: String,
        /// Cookie value.
        value: String,
    },
    /// HTTP basic authentication: `Authorization: Basic base64(username:password)`.
    Basic {
        /// User name (must not contain `:`).
        username: String,
        /// Password.
        password: String,
    },
}

impl std::fmt::Debug for Credential {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Header { name, .. } => write!(f, "Header({name}: ***)"),
            Self::Query { name, .. } => write!(f, "Query({name}=***)"),
            Self::Bearer(_) => f.write_str("Bearer(***)"),
            Self::Cookie { name, .. } => write!(f, "Cookie({name}=***)"),
            Self::Basic { .. } => f.write_str("Basic(***)"),
        }
    }
}

/// The configured credentials, parsed once: headers to set, cookies to add and encoded query
/// pairs to append.
///
/// Deliberately not `Debug`: it holds secrets.
#[derive(Clone)]
pub(super) struct Auth {
    headers: Vec<(HeaderName, HeaderValue)>,
    /// `name=value` pairs, joined into one `Cookie` header.
    cookies: Option<HeaderValue>,
    query: Vec<String>,
}

impl Auth {
    /// Parses `credentials`, rejecting any that cannot be sent.
    pub(super) fn new(credentials: &[Credential]) -> Result<Self, UpstreamError> {
        let mut auth = Self {
            headers: Vec::new(),
            cookies: None,
            query: Vec::new(),
        };
        let mut cookies = Vec::new();
        let mut authorization: Option<&Credential> = None;
        for credential in credentials {
            match credential {
                Credential::Header { name, value } => {
                    auth.headers
                        .push(credential_header(credential, name, value)?);
                }
                Credential::Bearer(token) => {
                    let (_, value) =
                        credential_header(credential, "authorization", &format!("Bearer {token}"))?;
                    auth.headers.push((AUTHORIZATION, value));
                }
                Credential::Basic { username, password } => {
                    if username.contains(':') {
                        return Err(UpstreamError::Credential {
                            credential: format!("{credential:?}"),
                            reason: "the user name contains `:`, which basic authentication \
                                     cannot carry"
                                .to_owned(),
                        });
                    }
                    let encoded = BASE64.encode(format!("{username}:{password}"));
                    let (_, value) = credential_header(
                        credential,
                        "authorization",
                        &format!("Basic {encoded}"),
                    )?;
                    auth.headers.push((AUTHORIZATION, value));
                }
                Credential::Cookie { name, value } => {
                    check_cookie(credential, name, value)?;
                    cookies.push(format!("{name}={value}"));
                }
                Credential::Query { name, value } => {
                    auth.query
                        .push(format!("{}={}", style::encode(name), style::encode(value)));
                }
            }
            let sets_authorization = match credential {
                Credential::Bearer(_) | Credential::Basic { .. } => true,
                Credential::Header { name, .. } => name.eq_ignore_ascii_case("authorization"),
                Credential::Query { .. } | Credential::Cookie { .. } => false,
            };
            if sets_authorization {
                if let Some(first) = authorization {
                    return Err(UpstreamError::Credential {
                        credential: format!("{credential:?}"),
                        reason: format!(
                            "{first:?} already sets the `Authorization` header; configure one \
                             of them"
                        ),
                    });
                }
                authorization = Some(credential);
            }
        }
        if !cookies.is_empty() {
            // Every name and value was checked to be plain cookie text.
            let mut value = HeaderValue::from_str(&cookies.join("; ")).map_err(|_| {
                UpstreamError::Credential {
                    credential: "cookies".to_owned(),
                    reason: "the cookies do not make a valid header".to_owned(),
                }
            })?;
            value.set_sensitive(true);
            auth.cookies = Some(value);
        }
        Ok(auth)
    }

    /// Adds the credentials to a request; a credential header replaces an argument's header of
    /// the same name, except `Cookie`, whose credential cookies are added after the argument
    /// cookies in the one `Cookie` header. Query credentials are appended to `url`'s query.
    pub(super) fn apply(&self, headers: &mut HeaderMap, url: &mut url::Url) {
        for (name, value) in &self.headers {
            add_header(headers, name, value);
        }
        if let Some(cookies) = &self.cookies {
            add_header(headers, &COOKIE, cookies);
        }
        for pair in &self.query {
            append_query(url, pair);
        }
    }
}

/// Sets `name: value`, replacing an earlier value, except for `Cookie`, where the cookies of
/// `value` are added after those already there.
fn add_header(headers: &mut HeaderMap, name: &HeaderName, value: &HeaderValue) {
    if *name == COOKIE
        && let Some(merged) = headers
            .get(COOKIE)
            .and_then(|earlier| merge_cookies(earlier, value))
    {
        headers.insert(COOKIE, merged);
    } else {
        headers.insert(name.clone(), value.clone());
    }
}

/// Whether `text` may be a cookie name (an HTTP token).
fn is_cookie_name(text: &str) -> bool {
    !text.is_empty()
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// Whether `text` may be a cookie value as sent (RFC 6265 `cookie-octet`s).
fn is_cookie_value(text: &str) -> bool {
    text.bytes()
        .all(|b| matches!(b, 0x21 | 0x23..=0x2b | 0x2d..=0x3a | 0x3c..=0x5b | 0x5d..=0x7e))
}

/// Rejects a cookie credential whose name or value cannot be sent as given.
fn check_cookie(credential: &Credential, name: &str, value: &str) -> Result<(), UpstreamError> {
    let reject = |reason: &str| UpstreamError::Credential {
        credential: format!("{credential:?}"),
        reason: reason.to_owned(),
    };
    if !is_cookie_name(name) {
        return Err(reject("the cookie name is not a valid HTTP token"));
    }
    if !is_cookie_value(value) {
        return Err(reject(
            "the cookie value has characters a cookie cannot carry (spaces, `;`, `,`, `\\`, \
             quotes, control characters or non-ASCII)",
        ));
    }
    Ok(())
}

/// Where the caller's credential goes for one security scheme.
#[derive(Clone, Debug)]
enum Placement {
    /// An apiKey header.
    Header(HeaderName),
    /// `Authorization: Bearer`.
    Bearer,
    /// An apiKey cookie of this name.
    Cookie(String),
    /// An apiKey query parameter; the name is already percent-encoded.
    Query(String),
}

impl Placement {
    /// Lower is preferred: a header leaks less than a URL.
    fn rank(&self) -> u8 {
        match self {
            Self::Header(_) | Self::Bearer => 0,
            Self::Cookie(_) => 1,
            Self::Query(_) => 2,
        }
    }
}

/// Pass-through of the caller's credential: where it goes for each security scheme that can
/// carry it.
#[derive(Clone, Debug, Default)]
pub(super) struct PassThrough {
    by_scheme: Vec<(&'static str, Placement)>,
}

impl PassThrough {
    /// The placements for `schemes`; fails when schemes were given but none can carry a key or
    /// token, or when a placement would clash with a configured credential.
    pub(super) fn new(
        schemes: &[SecurityScheme],
        credentials: &[Credential],
    ) -> Result<Self, UpstreamError> {
        let mut by_scheme = Vec::new();
        let mut problems = Vec::new();
        for scheme in schemes {
            let placement = match scheme.kind {
                SecuritySchemeKind::ApiKeyHeader(name) => {
                    match HeaderName::from_bytes(name.as_bytes()) {
                        Ok(header) => Placement::Header(header),
                        Err(_) => {
                            problems.push(format!(
                                "security scheme `{}` names header `{name}`, which is not a valid \
                             header name",
                                scheme.name
                            ));
                            continue;
                        }
                    }
                }
                SecuritySchemeKind::Bearer => Placement::Bearer,
                SecuritySchemeKind::ApiKeyCookie(name) => {
                    if !is_cookie_name(name) {
                        problems.push(format!(
                            "security scheme `{}` names cookie `{name}`, which is not a valid \
                             cookie name",
                            scheme.name
                        ));
                        continue;
                    }
                    Placement::Cookie(name.to_owned())
                }
                SecuritySchemeKind::ApiKeyQuery(name) => Placement::Query(style::encode(name)),
                SecuritySchemeKind::Basic
                | SecuritySchemeKind::OAuth2
                | SecuritySchemeKind::Other => {
                    continue;
                }
            };
            if let Some(clash) = credentials.iter().find(|c| clashes(c, &placement)) {
                problems.push(format!(
                    "security scheme `{}` would send the caller's credential where the \
                     configured credential {clash:?} goes; configure one of them",
                    scheme.name
                ));
                continue;
            }
            by_scheme.push((scheme.name, placement));
        }
        if !schemes.is_empty() && by_scheme.is_empty() && problems.is_empty() {
            problems.push(
                "the API has no apiKey (header, query or cookie) or HTTP bearer security scheme \
                 to send it in"
                    .to_owned(),
            );
        }
        if problems.is_empty() {
            Ok(Self { by_scheme })
        } else {
            Err(UpstreamError::PassThrough(problems.join("; ")))
        }
    }

    /// Adds the forwarded headers and, when configured, the caller's credential to a request
    /// for `binding` (its `headers` and `url`).
    pub(super) fn apply(
        &self,
        headers: &mut HeaderMap,
        url: &mut url::Url,
        binding: &HttpBinding,
        ctx: &CallContext,
    ) -> Result<(), String> {
        for name in ctx.forwarded_headers.headers().keys() {
            if headers.contains_key(name) {
                continue;
            }
            for value in ctx.forwarded_headers.headers().get_all(name) {
                let mut value = value.clone();
                value.set_sensitive(true);
                headers.append(name.clone(), value);
            }
        }
        let Some(credential) = &ctx.caller_credential else {
            return Ok(());
        };
        let Some((scheme, placement)) = binding
            .security
            .iter()
            .filter_map(|wanted| self.by_scheme.iter().find(|(name, _)| name == wanted))
            .min_by_key(|(_, placement)| placement.rank())
        else {
            return Ok(());
        };
        let secret = credential.expose();
        let unsendable = |place: &str| {
            format!(
                "the caller's credential cannot be sent in {place} (security scheme `{scheme}`): \
                 it has characters that cannot go there"
            )
        };
        match placement {
            Placement::Header(name) => {
                let mut value = HeaderValue::from_str(secret)
                    .map_err(|_| unsendable(&format!("header `{name}`")))?;
                value.set_sensitive(true);
                headers.insert(name.clone(), value);
            }
            Placement::Bearer => {
                let mut value = HeaderValue::from_str(&format!("Bearer {secret}"))
                    .map_err(|_| unsendable("the `Authorization` header"))?;
                value.set_sensitive(true);
                headers.insert(AUTHORIZATION, value);
            }
            Placement::Cookie(name) => {
                if !is_cookie_value(secret) {
                    return Err(unsendable(&format!("cookie `{name}`")));
                }
                let mut value = HeaderValue::from_str(&format!("{name}={secret}"))
                    .map_err(|_| unsendable(&format!("cookie `{name}`")))?;
                value.set_sensitive(true);
                add_header(headers, &COOKIE, &value);
            }
            Placement::Query(name) => {
                append_query(url, &format!("{name}={}", style::encode(secret)));
            }
        }
        Ok(())
    }
}

/// Whether a configured credential goes where `placement` would put the caller's credential.
fn clashes(credential: &Credential, placement: &Placement) -> bool {
    match (credential, placement) {
        (Credential::Header { name, .. }, Placement::Header(header)) => {
            name.eq_ignore_ascii_case(header.as_str())
        }
        (Credential::Header { name, .. }, Placement::Bearer) => {
            name.eq_ignore_ascii_case("authorization")
        }
        (Credential::Bearer(_) | Credential::Basic { .. }, Placement::Bearer) => true,
        (Credential::Bearer(_) | Credential::Basic { .. }, Placement::Header(header)) => {
            *header == AUTHORIZATION
        }
        (Credential::Cookie { name, .. }, Placement::Cookie(cookie)) => name == cookie,
        (Credential::Query { name, .. }, Placement::Query(query)) => style::encode(name) == *query,
        _ => false,
    }
}

/// The `Cookie` header holding the argument cookies `args` followed by the credential cookies
/// `credential`, marked sensitive.
fn merge_cookies(args: &HeaderValue, credential: &HeaderValue) -> Option<HeaderValue> {
    let mut bytes = args.as_bytes().to_vec();
    bytes.extend_from_slice(b"; ");
    bytes.extend_from_slice(credential.as_bytes());
    let mut merged = HeaderValue::from_bytes(&bytes).ok()?;
    merged.set_sensitive(true);
    Some(merged)
}

/// Appends the encoded `pair` to `url`'s query.
fn append_query(url: &mut url::Url, pair: &str) {
    let query = match url.query() {
        Some(query) if !query.is_empty() => format!("{query}&{pair}"),
        _ => pair.to_owned(),
    };
    url.set_query(Some(&query));
}

/// Parses a header name and value for a credential, marking the value sensitive.
fn credential_header(
    credential: &Credential,
    name: &str,
    value: &str,
) -> Result<(HeaderName, HeaderValue), UpstreamError> {
    let reject = |reason: &str| UpstreamError::Credential {
        credential: format!("{credential:?}"),
        reason: reason.to_owned(),
    };
    let name = HeaderName::from_bytes(name.as_bytes())
        .map_err(|_| reject("the header name is not a valid HTTP header name"))?;
    let mut value = HeaderValue::from_str(value).map_err(|_| {
        reject("the value has characters a header cannot carry (line breaks, non-ASCII)")
    })?;
    value.set_sensitive(true);
    Ok((name, value))
}
