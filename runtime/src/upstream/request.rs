//! Building the HTTP request for one tool call: method, path, query, headers and credentials.
//!
//! Nothing here touches the network: [`build`] either returns a [`Prepared`] request or says
//! everything that is wrong with the arguments at once.

use reqwest::Method;
use reqwest::header::{AUTHORIZATION, COOKIE, HeaderMap, HeaderName, HeaderValue};
use serde_json::{Map, Value};

use super::body::{self, RequestBody};
use super::style::{self, Style};
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;

use super::{Credential, UpstreamError, credential_header};
use crate::{ArgBinding, CallContext, HttpBinding, Location, SecurityScheme, SecuritySchemeKind};

/// A request ready to send.
pub(super) struct Prepared {
    /// The HTTP method.
    pub method: Method,
    /// The rendered path (no base URL, no query), for messages: it never holds a credential.
    pub path: String,
    /// The full URL, query included.
    pub url: url::Url,
    /// Headers from arguments and credentials (not `Content-Type`, which comes with the body).
    pub headers: HeaderMap,
    /// The body, if one is sent.
    pub body: Option<RequestBody>,
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
    /// cookies in the one `Cookie` header.
    fn apply(&self, headers: &mut HeaderMap, query: &mut Vec<String>) {
        for (name, value) in &self.headers {
            add_header(headers, name, value);
        }
        if let Some(cookies) = &self.cookies {
            add_header(headers, &COOKIE, cookies);
        }
        query.extend(self.query.iter().cloned());
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
                SecuritySchemeKind::Basic | SecuritySchemeKind::Other => continue,
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

    /// Adds the forwarded headers and, when configured, the caller's credential to `prepared`.
    pub(super) fn apply(
        &self,
        mut prepared: Prepared,
        binding: &HttpBinding,
        ctx: &CallContext,
    ) -> Result<Prepared, String> {
        for name in ctx.forwarded_headers.headers().keys() {
            if prepared.headers.contains_key(name) {
                continue;
            }
            for value in ctx.forwarded_headers.headers().get_all(name) {
                let mut value = value.clone();
                value.set_sensitive(true);
                prepared.headers.append(name.clone(), value);
            }
        }
        let Some(credential) = &ctx.caller_credential else {
            return Ok(prepared);
        };
        let Some((scheme, placement)) = binding
            .security
            .iter()
            .filter_map(|wanted| self.by_scheme.iter().find(|(name, _)| name == wanted))
            .min_by_key(|(_, placement)| placement.rank())
        else {
            return Ok(prepared);
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
                prepared.headers.insert(name.clone(), value);
            }
            Placement::Bearer => {
                let mut value = HeaderValue::from_str(&format!("Bearer {secret}"))
                    .map_err(|_| unsendable("the `Authorization` header"))?;
                value.set_sensitive(true);
                prepared.headers.insert(AUTHORIZATION, value);
            }
            Placement::Cookie(name) => {
                if !is_cookie_value(secret) {
                    return Err(unsendable(&format!("cookie `{name}`")));
                }
                let mut value = HeaderValue::from_str(&format!("{name}={secret}"))
                    .map_err(|_| unsendable(&format!("cookie `{name}`")))?;
                value.set_sensitive(true);
                add_header(&mut prepared.headers, &COOKIE, &value);
            }
            Placement::Query(name) => {
                let pair = format!("{name}={}", style::encode(secret));
                let query = match prepared.url.query() {
                    Some(query) if !query.is_empty() => format!("{query}&{pair}"),
                    _ => pair,
                };
                prepared.url.set_query(Some(&query));
            }
        }
        Ok(prepared)
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

/// What is wrong with a call's arguments, collected so they are reported together.
#[derive(Default)]
pub(super) struct Problems {
    missing: Vec<String>,
    other: Vec<String>,
}

impl Problems {
    /// Records a required argument that was not given.
    pub(super) fn missing(&mut self, arg: &ArgBinding) {
        let place = match arg.location {
            Location::Body => "request body".to_owned(),
            location => format!(
                "{} parameter `{}`",
                style::location_name(location),
                arg.wire
            ),
        };
        self.missing.push(format!("`{}` ({place})", arg.arg));
    }

    /// Records any other problem.
    pub(super) fn push(&mut self, problem: String) {
        self.other.push(problem);
    }

    fn into_result<T>(self, ok: T) -> Result<T, String> {
        let mut parts = Vec::new();
        match self.missing.len() {
            0 => {}
            1 => parts.push(format!(
                "missing required argument {}",
                self.missing.join("")
            )),
            _ => parts.push(format!(
                "missing required arguments {}",
                self.missing.join(", ")
            )),
        }
        parts.extend(self.other);
        if parts.is_empty() {
            Ok(ok)
        } else {
            Err(parts.join("; "))
        }
    }
}

/// The value given for `arg`, if any; `null` counts as not given.
pub(super) fn provided<'a>(args: &'a Map<String, Value>, arg: &ArgBinding) -> Option<&'a Value> {
    args.get(arg.arg).filter(|v| !v.is_null())
}

/// Whether a call cannot be made without `arg`.
fn is_required(binding: &HttpBinding, arg: &ArgBinding) -> bool {
    match arg.location {
        Location::Path => true,
        Location::Body => arg.required || binding.body.is_some_and(|b| b.required),
        _ => arg.required,
    }
}

/// Builds the request for `binding` from `args`, appending the path to `base` (which has no
/// trailing slash).
pub(super) fn build(
    base: &str,
    binding: &HttpBinding,
    args: &Map<String, Value>,
    auth: &Auth,
) -> Result<Prepared, String> {
    let mut problems = Problems::default();
    let method = Method::from_bytes(binding.method.as_bytes()).map_err(|_| {
        format!(
            "`{}` is not a valid HTTP method (the tool table is broken)",
            binding.method
        )
    })?;
    for arg in binding.args {
        if is_required(binding, arg) && provided(args, arg).is_none() {
            problems.missing(arg);
        }
    }
    let path = render_path(binding, args, &mut problems);
    let mut query = Vec::new();
    let mut headers = HeaderMap::new();
    let mut cookies = Vec::new();
    for arg in binding.args {
        let Some(value) = provided(args, arg) else {
            continue;
        };
        match arg.location {
            Location::Query => match Style::of(arg) {
                Ok(style) => query.extend(style::query(
                    arg.wire,
                    value,
                    style,
                    style.explode(arg),
                    style::Escape::new(style::Target::Query, arg.allow_reserved),
                )),
                Err(problem) => problems.push(problem),
            },
            Location::Header => match header(arg, value) {
                Ok(Some((name, value))) => {
                    headers.append(name, value);
                }
                Ok(None) => {}
                Err(problem) => problems.push(problem),
            },
            Location::Cookie => match Style::of(arg) {
                Ok(style) => cookies.extend(style::cookie(arg.wire, value, style.explode(arg))),
                Err(problem) => problems.push(problem),
            },
            Location::Path | Location::BodyField | Location::Body => {}
        }
    }
    if !cookies.is_empty() {
        // Names and values are percent-encoded, so the header is plain ASCII.
        match HeaderValue::from_str(&cookies.join("; ")) {
            Ok(value) => {
                headers.insert(COOKIE, value);
            }
            Err(_) => problems.push("the cookie arguments do not make a valid header".to_owned()),
        }
    }
    let body = body::build(binding, args, &mut problems);
    let (path, body) = problems.into_result((path, body))?;

    auth.apply(&mut headers, &mut query);
    let mut url = format!("{base}{path}");
    if !query.is_empty() {
        url.push('?');
        url.push_str(&query.join("&"));
    }
    // The parse error never quotes the URL, which may hold a query credential.
    let url = url::Url::parse(&url).map_err(|e| format!("the request URL is invalid: {e}"))?;
    Ok(Prepared {
        method,
        path,
        url,
        headers,
        body,
    })
}

/// Renders the path template, replacing each `{name}` with its path argument in its style
/// (`simple`, `label` or `matrix`), values percent-encoded.
fn render_path(
    binding: &HttpBinding,
    args: &Map<String, Value>,
    problems: &mut Problems,
) -> String {
    let template = binding.path;
    let mut out = String::with_capacity(template.len() + 16);
    if !template.starts_with('/') {
        out.push('/');
    }
    for (i, segment) in template.split('/').enumerate() {
        if i > 0 {
            out.push('/');
        }
        let start = out.len();
        let mut substituted = Vec::new();
        let mut rest = segment;
        while let Some(open) = rest.find('{') {
            let Some(close) = rest[open..].find('}').map(|c| open + c) else {
                break;
            };
            out.push_str(&rest[..open]);
            let name = &rest[open + 1..close];
            rest = &rest[close + 1..];
            let Some(arg) = binding
                .args
                .iter()
                .find(|a| a.location == Location::Path && a.wire == name)
            else {
                problems.push(format!(
                    "path template `{template}` has `{{{name}}}` but no argument is bound to it \
                     (the tool table is broken)"
                ));
                continue;
            };
            // A missing value was reported by the required-argument check.
            let Some(value) = provided(args, arg) else {
                continue;
            };
            match Style::of(arg) {
                Ok(style) => {
                    out.push_str(&style::path(arg.wire, value, style, style.explode(arg)));
                }
                Err(problem) => problems.push(problem),
            }
            substituted.push(arg.arg);
        }
        out.push_str(rest);
        // URL normalization would drop `.` and `..` segments (even percent-encoded), sending
        // the request somewhere else: refuse rather than let an argument walk the path.
        if !substituted.is_empty() && is_dot_segment(&out[start..]) {
            problems.push(format!(
                "argument {} would make the path segment `{}`, which URL normalization removes",
                substituted
                    .iter()
                    .map(|a| format!("`{a}`"))
                    .collect::<Vec<_>>()
                    .join(", "),
                &out[start..]
            ));
        }
    }
    out
}

/// Whether a path segment is `.` or `..`, counting `%2e` as a dot.
fn is_dot_segment(segment: &str) -> bool {
    let lower = segment.to_ascii_lowercase();
    let dots = lower.replace("%2e", ".");
    dots == "." || dots == ".."
}

/// An argument as a header, in `simple` style (header values are not percent-encoded); `None`
/// for an empty array or object, which sends no header.
fn header(arg: &ArgBinding, value: &Value) -> Result<Option<(HeaderName, HeaderValue)>, String> {
    let style = Style::of(arg)?;
    let name = HeaderName::from_bytes(arg.wire.as_bytes()).map_err(|_| {
        format!(
            "argument `{}` is bound to header `{}`, which is not a valid header name",
            arg.arg, arg.wire
        )
    })?;
    let Some(text) = style::header(value, style.explode(arg)) else {
        return Ok(None);
    };
    // `HeaderValue` takes bytes above 0x7f as obsolete `obs-text`; servers read them in
    // differing charsets, so non-ASCII text is refused rather than sent ambiguously.
    let value = Some(text)
        .filter(|text| text.is_ascii())
        .and_then(|text| HeaderValue::from_str(&text).ok())
        .ok_or_else(|| {
            format!(
                "argument `{}` cannot be sent in header `{}`: header values cannot hold line \
                 breaks, other control characters or non-ASCII text",
                arg.arg, arg.wire
            )
        })?;
    Ok(Some((name, value)))
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
