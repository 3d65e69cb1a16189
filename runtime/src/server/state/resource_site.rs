//! Where a catalog lives for the outside world: its canonical resource URL (from the server's
//! [`Placement`]: `--public-url`, else the `Host` the client reached, as the server card does)
//! and, with OAuth, what its challenges and RFC 9728 metadata say.

use std::sync::Arc;

use axum::http::HeaderMap;
#[cfg(feature = "oauth")]
use mcpgen_identity::auth::oauth::ScopeMap;

use super::placement::Placement;

use crate::server::catalog::table::Catalog;

/// The well-known path of RFC 9728 protected-resource metadata.
#[cfg(feature = "oauth")]
pub(crate) const METADATA_PATH: &str = "/.well-known/oauth-protected-resource";

/// What the builder knows of every catalog's place beyond the [`Placement`]: the OAuth
/// resource server, if any.
#[derive(Clone, Default)]
pub(crate) struct SiteConfig {
    /// As given to `ServerBuilder::oauth`.
    #[cfg(feature = "oauth")]
    pub(crate) oauth: Option<Arc<mcpgen_identity::auth::oauth::OAuthResourceServer>>,
}

impl SiteConfig {
    /// The site of the catalog at `path` (a route path, base path included) serving `catalog`.
    pub(crate) fn site(
        &self,
        placement: &Arc<Placement>,
        path: String,
        catalog: &Catalog,
    ) -> ResourceSite {
        let site = ResourceSite::new(placement.clone(), path, self.clone());
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
    server: &mcpgen_identity::auth::oauth::OAuthResourceServer,
    catalog: &Catalog,
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

/// One catalog's place: its path and the server's placement.
#[derive(Clone, Default)]
pub(crate) struct ResourceSite {
    /// The route path: `/mcp` (or the base path), or `/mcp/<name>` for a mount.
    pub(crate) path: String,
    placement: Arc<Placement>,
    /// What made this site, for the sites of catalogs mounted later.
    config: SiteConfig,
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
    /// A site at the route path `path` of a server placed at `placement`.
    fn new(placement: Arc<Placement>, path: String, config: SiteConfig) -> Self {
        Self {
            path,
            placement,
            config,
            #[cfg(feature = "oauth")]
            oauth: None,
        }
    }

    /// The site of the catalog mounted as `name` (now or while serving) on the server this is
    /// the site of.
    pub(crate) fn for_mount(&self, name: &str, catalog: &Catalog) -> Self {
        self.config
            .site(&self.placement, self.placement.mount_path(name), catalog)
    }

    /// The catalog's canonical resource URL (what tokens' `aud` must contain).
    pub(crate) fn resource_url(&self, headers: &HeaderMap) -> String {
        self.placement.absolute(&self.path, headers)
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
        let placement =
            Arc::new(Placement::new(Some("/base"), Some("https://h.example/base/")).unwrap());
        let site = ResourceSite::new(
            placement.clone(),
            placement.mount_path("alpha"),
            SiteConfig::default(),
        );
        let headers = HeaderMap::new();
        assert_eq!(site.resource_url(&headers), "https://h.example/base/alpha");
        assert_eq!(
            site.metadata_url(&headers),
            "https://h.example/.well-known/oauth-protected-resource/base/alpha"
        );
    }
}
