//! Base URLs: checking one before any request is sent to it, and showing one in messages
//! without its user info.

/// Checks that `base_url` is an absolute `http`/`https` URL with a host and no query or
/// fragment; returns it as shown in messages (no user info, no trailing slash), or why not.
pub(super) fn check_url(base_url: &str) -> Result<String, String> {
    let mut url = url::Url::parse(base_url).map_err(|e| e.to_string())?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err("the scheme must be http or https".to_owned());
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err("the URL has no host".to_owned());
    }
    if url.query().is_some() {
        return Err(
            "the URL must not have a query string; pass query credentials as `Credential::Query`"
                .to_owned(),
        );
    }
    if url.fragment().is_some() {
        return Err("the URL must not have a fragment".to_owned());
    }
    // Setting these cannot fail for an http(s) URL with a host, which was checked above.
    let _ = url.set_username("");
    let _ = url.set_password(None);
    Ok(url.as_str().trim_end_matches('/').to_owned())
}

/// A base URL for an error message: anything between `://` and `@` is hidden.
pub(super) fn redact_url_text(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    match rest[..authority_end].rfind('@') {
        Some(at) => format!("{scheme}://***@{}", &rest[at + 1..]),
        None => url.to_owned(),
    }
}
