//! Which redirects a request follows: only those of safe methods, on the same origin, at most
//! [`MAX_REDIRECTS`]; and why one was not followed.

/// How many redirects a safe request follows.
pub(super) const MAX_REDIRECTS: usize = 5;

/// Whether redirects are followed for `method`: only for GET, HEAD and OPTIONS, which neither
/// change anything nor carry a body that a redirect could replay elsewhere.
pub(super) fn is_safe_method(method: &reqwest::Method) -> bool {
    matches!(
        *method,
        reqwest::Method::GET | reqwest::Method::HEAD | reqwest::Method::OPTIONS
    )
}

/// Why a 3xx response with `location` came back instead of being followed.
pub(super) fn redirect_stop_reason(
    safe: bool,
    status: reqwest::StatusCode,
    url: &url::Url,
    location: &str,
) -> &'static str {
    if !safe {
        return "redirects are followed only for GET, HEAD and OPTIONS requests";
    }
    if !matches!(status.as_u16(), 301 | 302 | 303 | 307 | 308) {
        return "this status is not a redirect that is followed";
    }
    match url.join(location) {
        Ok(target) if target.origin() != url.origin() => {
            "it leads to another origin, where the upstream's credentials must not be sent"
        }
        Ok(_) => "the limit of 5 redirects was reached",
        Err(_) => "the `Location` is not a valid URL",
    }
}

/// Follows up to [`MAX_REDIRECTS`] redirects that stay on the same origin, so configured
/// credentials are never sent to another host; a redirect elsewhere comes back as the 3xx
/// response.
pub(super) fn same_origin_redirects() -> reqwest::redirect::Policy {
    reqwest::redirect::Policy::custom(|attempt| {
        let same_origin = attempt
            .previous()
            .first()
            .is_some_and(|first| first.origin() == attempt.url().origin());
        // `previous` holds the original URL and every one already followed.
        if attempt.previous().len() > MAX_REDIRECTS || !same_origin {
            attempt.stop()
        } else {
            attempt.follow()
        }
    })
}
