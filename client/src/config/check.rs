//! Validation of an HTTP entry's URL and headers.

use std::collections::BTreeMap;

/// Checks that `url` is an http or https URL with a host and without credentials.
pub(super) fn check_url(url: &str, problem: &mut impl FnMut(&str, String)) {
    match url::Url::parse(url) {
        Ok(parsed) => {
            if !matches!(parsed.scheme(), "http" | "https") {
                problem(
                    "url",
                    format!(
                        "scheme `{}` is not supported; use http or https",
                        parsed.scheme()
                    ),
                );
            } else if parsed.host().is_none() {
                problem("url", "has no host".into());
            }
            if !parsed.username().is_empty() || parsed.password().is_some() {
                problem(
                    "url",
                    "must not carry credentials; put them in `headers`".into(),
                );
            }
        }
        Err(e) => problem("url", format!("`{url}` is not a valid URL: {e}")),
    }
}

/// Checks that every header (after expansion) has a valid HTTP name and value.
pub(super) fn check_headers(
    headers: &BTreeMap<String, String>,
    problem: &mut impl FnMut(&str, String),
) {
    for key in headers.keys() {
        if http::HeaderName::from_bytes(key.as_bytes()).is_err() {
            problem(
                &format!("headers.{key}"),
                "not a valid HTTP header name".into(),
            );
        }
    }
    for (key, value) in headers {
        if http::HeaderValue::from_str(value).is_err() {
            problem(
                &format!("headers.{key}"),
                "the value is not a valid HTTP header value (control characters?)".into(),
            );
        }
    }
}
