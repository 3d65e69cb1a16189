//! Building the HTTP request for one tool call: method, path, query and headers from the
//! arguments, and the body.
//!
//! Nothing here touches the network: [`build`] either returns a [`Prepared`] request or says
//! everything that is wrong with the arguments at once.

use mcpgen_core::tool::{ArgBinding, HttpBinding, Location};
use reqwest::Method;
use reqwest::header::{COOKIE, HeaderMap, HeaderName, HeaderValue};
use serde_json::{Map, Value};

use crate::args::{Problems, provided};
use crate::body::{self, RequestBody};
use crate::style::{self, Style};

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

/// Whether a call cannot be made without `arg`.
fn is_required(binding: &HttpBinding, arg: &ArgBinding) -> bool {
    match arg.location {
        Location::Path => true,
        Location::Body => arg.required || binding.body.is_some_and(|b| b.required),
        _ => arg.required,
    }
}

/// Builds the request for `binding` from `args`, appending the path to `base` (which has no
/// trailing slash; `parsed` is `base` already parsed, when it is at hand). Credentials are not
/// added here (see `credentials`).
pub(super) fn build(
    base: &str,
    parsed: Option<&url::Url>,
    binding: &HttpBinding,
    args: &Map<String, Value>,
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

    let url = join(base, parsed, &path, &query.join("&"))?;
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

/// `base`, `path` and `?query` (when not empty) as one URL: what `Url::parse` makes of the three
/// put together. With the base parsed once (`parsed`), only the path and query are read again,
/// when they hold nothing but characters that read the same on their own as after the base
/// (letters, digits, `%` and the punctuation URLs leave as it is; not `?`, `#` or `\`).
fn join(
    base: &str,
    parsed: Option<&url::Url>,
    path: &str,
    query: &str,
) -> Result<url::Url, String> {
    let plain = |text: &str| {
        text.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=:@/%".contains(&b))
    };
    if let Some(parsed) = parsed
        && plain(path)
        && plain(query)
    {
        let mut url = parsed.clone();
        match url.path() {
            "/" => url.set_path(path),
            prefix => url.set_path(&format!("{prefix}{path}")),
        }
        if !query.is_empty() {
            url.set_query(Some(query));
        }
        return Ok(url);
    }
    let mut url = format!("{base}{path}");
    if !query.is_empty() {
        url.push('?');
        url.push_str(query);
    }
    // The parse error never quotes the URL, which may hold a query credential.
    url::Url::parse(&url).map_err(|e| format!("the request URL is invalid: {e}"))
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A base parsed once and extended gives the URL a parse of the whole text gives, or
    /// the same error.
    #[test]
    fn join_matches_parsing_the_whole_url() {
        let bases = [
            "http://127.0.0.1:8080",
            "https://api.example.com/v1",
            "http://[::1]:9000/a%20b",
            "https://user:pw@h.example/x/y",
            "http://h",
            "https://h.example:443/api/v2",
        ];
        let paths = [
            "/",
            "/pets/42",
            "/a/./b/../c",
            "/a/%2e%2e/c",
            "/%7Bx%7D",
            "/é",
            "/a b",
            "/a?b",
            "/a#b",
            "/x\\y",
            "/p;q=1",
            "/ok:@!$&'()*+,;=~",
            "/..",
            "/a//b",
            "/%",
            "/%zz",
        ];
        let queries = [
            "",
            "a=1",
            "a=1&b=%20x",
            "a='q'",
            "a=#x",
            "q=é",
            "a=[1]",
            "a=1?b",
            "a=%",
            "x=a b",
        ];
        for base in bases {
            let parsed = url::Url::parse(base).unwrap();
            for path in paths {
                for query in queries {
                    let whole = join(base, None, path, query);
                    let joined = join(base, Some(&parsed), path, query);
                    assert_eq!(
                        joined.as_ref().map(url::Url::as_str),
                        whole.as_ref().map(url::Url::as_str),
                        "base {base:?}, path {path:?}, query {query:?}"
                    );
                }
            }
        }
    }
}
