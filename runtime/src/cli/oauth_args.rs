//! The OAuth resource server flags of a generated server binary.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
use mcpgen_identity::auth::oauth::{OAuthConfig, OAuthResourceServer, ScopeMap};

/// Accepting OAuth 2.1 access tokens (JWTs) from an authorization server, next to keys and
/// signed tokens.
#[derive(Debug, Clone, Args)]
pub struct OAuthArgs {
    /// Accept OAuth access tokens issued by this authorization server (its `iss`, exactly).
    /// Its keys are found through its metadata (RFC 8414, then OpenID Connect discovery); tokens
    /// must name this server's resource URL (see --public-url) in `aud`. https only, except on
    /// loopback addresses.
    #[arg(long, env = "MCPGEN_OAUTH_ISSUER", value_name = "URL")]
    pub oauth_issuer: Option<String>,
    /// Take the authorization server's keys from this JWKS URL instead of its metadata.
    #[arg(
        long,
        env = "MCPGEN_OAUTH_JWKS_URL",
        value_name = "URL",
        requires = "oauth_issuer"
    )]
    pub oauth_jwks_url: Option<String>,
    /// YAML file mapping the provider's scope names onto mcpgen scopes
    /// (`files.read: mcp:read`, `files.all: [mcp:read, mcp:write]`); unmapped scopes are kept.
    #[arg(
        long,
        env = "MCPGEN_OAUTH_SCOPE_MAP",
        value_name = "FILE",
        requires = "oauth_issuer"
    )]
    pub oauth_scope_map: Option<PathBuf>,
    /// Token claim naming the principal.
    #[arg(
        long,
        env = "MCPGEN_OAUTH_PRINCIPAL_CLAIM",
        value_name = "CLAIM",
        default_value = "sub"
    )]
    pub oauth_principal_claim: String,
    /// Token claim listing the plugins whose tools the caller may see (an array or a
    /// space-separated string; without it OAuth callers see no plugin tools).
    #[arg(
        long,
        env = "MCPGEN_OAUTH_PLUGINS_CLAIM",
        value_name = "CLAIM",
        requires = "oauth_issuer"
    )]
    pub oauth_plugins_claim: Option<String>,
    /// Shortest time, in seconds, between two fetches of the authorization server's keys
    /// caused by tokens signed with a key not seen yet (after the server rotates its keys).
    #[arg(
        long,
        env = "MCPGEN_OAUTH_JWKS_REFETCH_INTERVAL",
        value_name = "SECONDS",
        default_value_t = 60,
        value_parser = clap::value_parser!(u64).range(1..)
    )]
    pub oauth_jwks_refetch_interval: u64,
    /// Check opaque (non-JWT) access tokens with RFC 7662 introspection at this URL, as
    /// --oauth-client-id; active answers are cached until the token expires.
    #[arg(
        long,
        env = "MCPGEN_OAUTH_INTROSPECTION_URL",
        value_name = "URL",
        requires_all = ["oauth_issuer", "oauth_client_id"]
    )]
    pub oauth_introspection_url: Option<String>,
    /// Client id this server authenticates with at the authorization server (introspection).
    #[arg(long, env = "MCPGEN_OAUTH_CLIENT_ID", value_name = "ID")]
    pub oauth_client_id: Option<String>,
    /// Client secret that goes with --oauth-client-id.
    #[arg(
        long,
        env = "MCPGEN_OAUTH_CLIENT_SECRET",
        value_name = "SECRET",
        hide_env_values = true
    )]
    pub oauth_client_secret: Option<String>,
}

impl OAuthArgs {
    /// The resource server the flags describe, if `--oauth-issuer` is given.
    pub fn resource_server(&self) -> Result<Option<OAuthResourceServer>, String> {
        let Some(issuer) = &self.oauth_issuer else {
            return Ok(None);
        };
        let mut config = OAuthConfig::new(issuer.clone())
            .principal_claim(self.oauth_principal_claim.clone())
            .refetch_interval(Duration::from_secs(self.oauth_jwks_refetch_interval));
        if let Some(url) = &self.oauth_jwks_url {
            config = config.jwks_url(url.clone());
        }
        if let Some(path) = &self.oauth_scope_map {
            config = config.scope_map(ScopeMap::load(path)?);
        }
        if let (Some(url), Some(id)) = (&self.oauth_introspection_url, &self.oauth_client_id) {
            let secret = self.oauth_client_secret.clone().unwrap_or_default();
            config = config.introspection(url.clone(), id.clone(), secret);
        }
        if let Some(claim) = &self.oauth_plugins_claim {
            config = config.plugins_claim(claim.clone());
        }
        OAuthResourceServer::new(config).map(Some)
    }
}
