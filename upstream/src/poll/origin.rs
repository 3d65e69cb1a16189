//! Where polling may go: the upstream's own origin (with its credentials), origins the
//! operator allowed (`--task-follow-origin`, without credentials), nowhere else.

/// Where a status or result URL is, as far as polling is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Place {
    /// The origin the operation's request went to: polled with the upstream's credentials.
    Own,
    /// Another origin the operator allowed: polled with no credential at all.
    Allowed,
    /// Another origin, not allowed: not polled.
    Elsewhere,
}

/// Where `target` is, for a call whose request went to the origin `own`, with `allowed` the
/// other origins polling may follow.
pub(super) fn place(target: &url::Url, own: &url::Origin, allowed: &[url::Origin]) -> Place {
    let origin = target.origin();
    if &origin == own {
        Place::Own
    } else if allowed.contains(&origin) {
        Place::Allowed
    } else {
        Place::Elsewhere
    }
}

/// An origin polling may follow, as the operator wrote it: `scheme://host[:port]`, `http` or
/// `https`, without user info, path (other than `/`), query or fragment.
pub(super) fn parse(text: &str) -> Result<url::Origin, String> {
    let url = url::Url::parse(text.trim()).map_err(|e| e.to_string())?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err("only http and https origins can be followed".to_owned());
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err("an origin carries no user info".to_owned());
    }
    if url.path() != "/" || url.query().is_some() || url.fragment().is_some() {
        return Err(
            "an origin is `scheme://host[:port]`, without path, query or fragment".to_owned(),
        );
    }
    Ok(url.origin())
}

/// `url` as shown in messages: its origin and path, never its query (which may hold a
/// credential) nor user info.
pub(super) fn shown(url: &url::Url) -> String {
    format!("{}{}", url.origin().ascii_serialization(), url.path())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins_are_written_as_scheme_host_and_port() {
        let origin = parse("https://files.example.com").unwrap();
        assert_eq!(origin.ascii_serialization(), "https://files.example.com");
        assert!(parse("http://127.0.0.1:8080/").is_ok());
        for bad in [
            "files.example.com",
            "ftp://files.example.com",
            "https://files.example.com/jobs",
            "https://user:pw@files.example.com",
            "https://files.example.com/?a=1",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_target_is_on_the_own_origin_an_allowed_one_or_elsewhere() {
        let own = url::Url::parse("https://api.example.com/v1")
            .unwrap()
            .origin();
        let allowed = [parse("https://files.example.com").unwrap()];
        let at = |text: &str| place(&url::Url::parse(text).unwrap(), &own, &allowed);
        assert_eq!(at("https://api.example.com/jobs/1"), Place::Own);
        assert_eq!(at("https://files.example.com/r/1"), Place::Allowed);
        assert_eq!(at("http://api.example.com/jobs/1"), Place::Elsewhere);
        assert_eq!(at("https://api.example.com:8443/jobs/1"), Place::Elsewhere);
    }
}
