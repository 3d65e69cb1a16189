//! Where a catalog lives for the outside world: its canonical resource URL (`--public-url`, else
//! the `Host` the client reached, as the server card does) and, with OAuth, what its challenges
//! and RFC 9728 metadata say.

#[cfg(feature = "oauth")]
use std::sync::Arc;

use axum::http::HeaderMap;

#[cfg(feature = "oauth")]
use crate::auth::oauth::ScopeMap;

/// The well-known path of RFC 9728 protected-resource metadata.
#[cfg(feature = "oauth")]
pub(crate) const METADATA_PATH: &str = "/.well-known/oauth-protected-resource";

/// What the builder knows of every catalog's place: the public URL and the OAuth resource
/// server, if any.
#[derive(Clone, Default)]
pub(crate) struct SiteConfig {
    /// As given to `ServerBuilder::public_url`.
    pub(crate) public_url: Option<String>,
    /// As given to `ServerBuilder::oauth`.
    #[cfg(feature = "oauth")]
    pub(crate) oauth: Option<Arc<crate::auth::oauth::OAuthResourceServer>>,
}

impl SiteConfig {
    /// The site of the catalog at `path` serving `catalog`.
    pub(crate) fn site(&self, path: String, catalog: &super::catalog::Catalog) -> ResourceSite {
        let site = ResourceSite::new(path, self.public_url.as_deref());
        #[cfg(feature = "oauth")]
        let site = ResourceSite {
            oauth: self
                .oauth
                .as_ref()
                .map(|server| oauth_site(server, catalog)),
            ..site
        };
        #[cfg(not(feature = "oauth"))]
        let _ = catalog;
        site
    }
}

/// What `server`'s challenges and metadata say for `catalog`: `mcp:read`, `mcp:write`, `mcp:*`
/// and each tool's own scope, in the provider's names.
#[cfg(feature = "oauth")]
fn oauth_site(
    server: &crate::auth::oauth::OAuthResourceServer,
    catalog: &super::catalog::Catalog,
) -> Arc<OAuthSite> {
    let map = server.scope_map().clone();
    let mut ours: Vec<&str> = vec!["mcp:read", "mcp:write", "mcp:*"];
    for entry in catalog.entries() {
        if let Some(scope) = entry.def.required_scope
            && !ours.contains(&scope)
        {
            ours.push(scope);
        }
    }
    let mut supported: Vec<String> = Vec::new();
    for scope in ours {
        for name in map.provider_names(scope) {
            if !supported.contains(&name) {
                supported.push(name);
            }
        }
    }
    Arc::new(OAuthSite {
        issuer: server.issuer().to_owned(),
        scope_map: map,
        scopes_supported: supported,
    })
}

/// One catalog's place: its path and the public URL of the server.
#[derive(Clone, Default)]
pub(crate) struct ResourceSite {
    /// `/mcp`, or `/mcp/<name>` for a mount.
    pub(crate) path: String,
    /// The server's public base URL, without a trailing `/`.
    pub(crate) public_url: Option<String>,
    /// Set when OAuth access tokens are accepted.
    #[cfg(feature = "oauth")]
    pub(crate) oauth: Option<Arc<OAuthSite>>,
}

/// What a catalog's OAuth challenges and metadata name.
#[cfg(feature = "oauth")]
pub(crate) struct OAuthSite {
    /// The authorization server.
    pub(crate) issuer: String,
    /// Provider scope names for each mcpgen scope.
    pub(crate) scope_map: ScopeMap,
    /// Every scope the catalog's tools need, in provider names.
    pub(crate) scopes_supported: Vec<String>,
}

#[cfg(feature = "oauth")]
impl OAuthSite {
    /// The provider scope names for `scopes`, space-separated.
    pub(crate) fn scope_param(&self, scopes: &[&str]) -> String {
        let mut names: Vec<String> = Vec::new();
        for scope in scopes {
            for name in self.scope_map.provider_names(scope) {
                if !names.contains(&name) {
                    names.push(name);
                }
            }
        }
        names.join(" ")
    }
}

impl ResourceSite {
    /// A site at `path` for a server whose public URL is `public_url`.
    pub(crate) fn new(path: impl Into<String>, public_url: Option<&str>) -> Self {
        Self {
            path: path.into(),
            public_url: public_url
                .map(|u| u.trim().trim_end_matches('/').to_owned())
                .filter(|u| !u.is_empty()),
            #[cfg(feature = "oauth")]
            oauth: None,
        }
    }

    /// The server's base URL: the public URL, else what the client reached.
    pub(crate) fn base(&self, headers: &HeaderMap) -> String {
        self.public_url
            .clone()
            .unwrap_or_else(|| super::card::base_url(headers))
    }

    /// The catalog's canonical resource URL (what tokens' `aud` must contain).
    pub(crate) fn resource_url(&self, headers: &HeaderMap) -> String {
        format!("{}{}", self.base(headers), self.path)
    }

    /// The URL of the catalog's protected-resource metadata: the well-known path inserted
    /// between the host and the resource's path (RFC 9728 section 3.1).
    #[cfg(feature = "oauth")]
    pub(crate) fn metadata_url(&self, headers: &HeaderMap) -> String {
        let resource = self.resource_url(headers);
        let (origin, path) = split_origin(&resource);
        format!("{origin}{METADATA_PATH}{path}")
    }
}

/// `https://host:port` and the path after it.
#[cfg(feature = "oauth")]
fn split_origin(url: &str) -> (&str, &str) {
    let after_scheme = url.find("://").map_or(0, |i| i + 3);
    match url[after_scheme..].find('/') {
        Some(i) => url.split_at(after_scheme + i),
        None => (url, ""),
    }
}

#[cfg(all(test, feature = "oauth"))]
mod tests {
    use super::*;

    #[test]
    fn metadata_url_inserts_the_well_known_path_before_the_resource_path() {
        let site = ResourceSite::new("/mcp/alpha", Some("https://h.example/base/"));
        let headers = HeaderMap::new();
        assert_eq!(
            site.resource_url(&headers),
            "https://h.example/base/mcp/alpha"
        );
        assert_eq!(
            site.metadata_url(&headers),
            "https://h.example/.well-known/oauth-protected-resource/base/mcp/alpha"
        );
    }
}
