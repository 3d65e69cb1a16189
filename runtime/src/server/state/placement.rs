//! Where a server sits behind a proxy: the base path its routes move under
//! ([`ServerBuilder::base_path`](crate::server::ServerBuilder::base_path), `--base-path`) and the
//! public URL clients reach that base at
//! ([`ServerBuilder::public_url`](crate::server::ServerBuilder::public_url), `--public-url`).
//!
//! Without a base path the routes are `/mcp`, `/mcp/<catalog>`, `/mcp/server-card`, `/sse`,
//! `/message`, `/healthz` and `/.well-known/mcp.json`. With a base path `B` the MCP endpoint
//! is `B` itself and everything else hangs below it: `B/<catalog>`, `B/server-card`, `B/sse`,
//! `B/message`, `B/healthz` and `B/.well-known/mcp.json` (so `sse`, `message` and `healthz`
//! cannot name a catalog there).
//!
//! The public URL is the address at which clients reach the base path (the server's root
//! without one), e.g. `https://mcp.example.com/api/v1/mcp` for `--base-path /api/v1/mcp`
//! behind a proxy that ends TLS. Every URL the server announces (the legacy SSE `endpoint`
//! event, the server cards, and other code through [`Placement::public`]) is built from it;
//! without it, announced URLs are built from the request's `Host` and `X-Forwarded-Proto`.

use http::HeaderMap;
use url::Url;

/// The base path and public URL of a server; read it with
/// [`Server::placement`](crate::server::Server::placement).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Placement {
    /// The prefix every route moves under, e.g. `/api/v1/mcp`; empty for none. Always a clean
    /// absolute path without a trailing `/`.
    pub base_path: String,
    /// The URL clients reach the base path at (the server's root without a base path), without
    /// a trailing `/`, query or fragment; `None` when not configured.
    pub public_url: Option<Url>,
}

/// Catalog names that collide with a fixed route directly under a base path.
pub(crate) const RESERVED_UNDER_BASE: &[&str] = &["sse", "message", "healthz"];

impl Placement {
    /// Checks a base path (`--base-path`) and public URL (`--public-url`) and builds the
    /// placement; the error names the flag and says what is wrong.
    pub fn new(base_path: Option<&str>, public_url: Option<&str>) -> Result<Self, Vec<String>> {
        let mut problems = Vec::new();
        let base_path = match base_path.map(str::trim) {
            None | Some("") | Some("/") => String::new(),
            Some(path) => match base_path_problem(path) {
                None => path.to_owned(),
                Some(reason) => {
                    problems.push(format!(
                        "--base-path (MCPGEN_BASE_PATH) `{path}` is not a clean absolute path: \
                         {reason}; write it like `/api/v1/mcp`"
                    ));
                    String::new()
                }
            },
        };
        let public_url = match public_url.map(str::trim).filter(|u| !u.is_empty()) {
            None => None,
            Some(text) => match parse_public_url(text) {
                Ok(url) => Some(url),
                Err(reason) => {
                    problems.push(format!(
                        "--public-url (MCPGEN_PUBLIC_URL) `{text}` cannot be used: {reason}; \
                         write the URL clients reach the base path at, like \
                         `https://mcp.example.com/api/v1/mcp`"
                    ));
                    None
                }
            },
        };
        if problems.is_empty() {
            Ok(Self {
                base_path,
                public_url,
            })
        } else {
            Err(problems)
        }
    }

    /// The local path of the MCP endpoint: the base path, or `/mcp` without one.
    pub fn mcp_path(&self) -> String {
        if self.base_path.is_empty() {
            "/mcp".to_owned()
        } else {
            self.base_path.clone()
        }
    }

    /// The local path of the catalog mounted as `name`: `<mcp path>/<name>`.
    pub fn mount_path(&self, name: &str) -> String {
        format!("{}/{name}", self.mcp_path())
    }

    /// The local path of a route that sits at the server's root without a base path
    /// (`/sse`, `/message`, `/healthz`, `/.well-known/mcp.json`): `suffix` under the base.
    pub fn root_path(&self, suffix: &str) -> String {
        format!("{}{suffix}", self.base_path)
    }

    /// The public URL of a local `path` (one of the paths above), when a public URL is
    /// configured: the public URL followed by what `path` adds to the base path.
    pub fn public(&self, path: &str) -> Option<String> {
        let public = self.public_url.as_ref()?;
        let rest = path.strip_prefix(&self.base_path).unwrap_or(path);
        Some(format!("{}{rest}", public.as_str().trim_end_matches('/')))
    }

    /// The URL to announce for a local `path`: the public one when configured, else the
    /// request's origin (`Host`, and `https` when `X-Forwarded-Proto` says so) and `path`.
    pub fn absolute(&self, path: &str, headers: &HeaderMap) -> String {
        self.public(path)
            .unwrap_or_else(|| format!("{}{path}", request_origin(headers)))
    }

    /// The canonical URL of the MCP endpoint (`/mcp`, or the base path) for a request.
    pub fn mcp_url(&self, headers: &HeaderMap) -> String {
        self.absolute(&self.mcp_path(), headers)
    }

    /// The canonical URL of the catalog mounted as `name` for a request.
    pub fn mount_url(&self, name: &str, headers: &HeaderMap) -> String {
        self.absolute(&self.mount_path(name), headers)
    }
}

/// The origin the client reached: the `Host` header, and `https` when a proxy says so.
pub(crate) fn request_origin(headers: &HeaderMap) -> String {
    let host = headers
        .get(http::header::HOST)
        .and_then(|v| v.to_str().ok())
        .filter(|h| http::uri::Authority::try_from(*h).is_ok())
        .unwrap_or("localhost");
    let scheme = match headers
        .get("x-forwarded-proto")
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
    {
        Some(p) if p.eq_ignore_ascii_case("https") => "https",
        _ => "http",
    };
    format!("{scheme}://{host}")
}

/// Why `path` is not a clean absolute base path, if it is not.
fn base_path_problem(path: &str) -> Option<&'static str> {
    if !path.starts_with('/') {
        return Some("it must start with `/`");
    }
    if path.ends_with('/') {
        return Some("it must not end with `/`");
    }
    for segment in path[1..].split('/') {
        if segment.is_empty() {
            return Some("it has an empty segment (`//`)");
        }
        if segment == "." || segment == ".." {
            return Some("it has a `.` or `..` segment");
        }
        if !segment
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~'))
        {
            return Some(
                "a segment may hold only ASCII letters, digits, `-`, `_`, `.` and `~` \
                 (no query, fragment, spaces or percent-encoding)",
            );
        }
    }
    None
}

/// Parses a public URL: absolute `http` or `https`, with a host, no credentials, query or
/// fragment; a trailing `/` is dropped.
fn parse_public_url(text: &str) -> Result<Url, &'static str> {
    let mut url = Url::parse(text).map_err(|_| "it is not an absolute URL")?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err("its scheme must be `https` (or `http`)");
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err("it has no host");
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err("it must not carry credentials");
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err("it must not have a query or fragment");
    }
    let path = url.path().trim_end_matches('/').to_owned();
    url.set_path(&path);
    Ok(url)
}

#[cfg(test)]
mod tests {
    use super::Placement;

    #[test]
    fn clean_base_paths_are_accepted_and_others_refused_naming_the_flag() {
        for good in ["/api/v1/mcp", "/x", "/a.b/c~d_e-f"] {
            let placement = Placement::new(Some(good), None).expect(good);
            assert_eq!(placement.base_path, good);
        }
        for none in ["", "/"] {
            assert_eq!(Placement::new(Some(none), None).expect(none).base_path, "");
        }
        for bad in [
            "api", "/api/", "/a//b", "/a/../b", "/a b", "/a?x=1", "/a#f", "/%2e",
        ] {
            let problems = Placement::new(Some(bad), None).expect_err(bad);
            assert!(problems[0].contains("--base-path"), "{problems:?}");
        }
    }

    #[test]
    fn public_urls_must_be_plain_http_urls() {
        let placement = Placement::new(
            Some("/api/v1/mcp"),
            Some("https://mcp.example.com/api/v1/mcp/"),
        )
        .expect("valid");
        assert_eq!(
            placement.public("/api/v1/mcp/sse").as_deref(),
            Some("https://mcp.example.com/api/v1/mcp/sse")
        );
        assert_eq!(
            placement.public(&placement.mcp_path()).as_deref(),
            Some("https://mcp.example.com/api/v1/mcp")
        );
        for bad in [
            "mcp.example.com",
            "ftp://x/",
            "https://u:p@x/",
            "https://x/?a=1",
            "https://x/#f",
        ] {
            let problems = Placement::new(None, Some(bad)).expect_err(bad);
            assert!(problems[0].contains("--public-url"), "{problems:?}");
        }
    }

    #[test]
    fn without_a_base_path_the_routes_stay_where_they_were() {
        let placement = Placement::new(None, Some("https://x.example")).expect("valid");
        assert_eq!(placement.mcp_path(), "/mcp");
        assert_eq!(placement.mount_path("a"), "/mcp/a");
        assert_eq!(placement.root_path("/sse"), "/sse");
        assert_eq!(
            placement.public("/mcp/a").as_deref(),
            Some("https://x.example/mcp/a")
        );
    }
}
