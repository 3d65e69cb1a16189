//! The `--key-check-*` flags of a generated server binary.

use std::time::Duration;

use clap::Args;
use mcpgen_core::tool::SecuritySchemeKind;
use mcpgen_identity::auth::{KeyCheck, KeyCheckConfig, KeyPlacement};

use super::App;

/// Keys checked against the product's own API.
#[derive(Debug, Clone, Args)]
pub struct KeyCheckArgs {
    /// Ask the API whether a key presented to this server is valid: a GET of this URL
    /// (absolute, or a path on the upstream such as `/api/v1/me`) with the key in the API's
    /// own security scheme; 2xx means valid. Answers are cached by a hash of the key, never
    /// logged. Implies --upstream-pass-through: calls to the API carry the caller's key, the
    /// credential the API expects. When the API cannot be reached, callers get 503.
    #[arg(long, env = "MCPGEN_KEY_CHECK_URL", value_name = "URL")]
    pub key_check_url: Option<String>,
    /// JSON pointer of the principal id in the key check's answer (e.g. `/id`).
    #[arg(
        long,
        env = "MCPGEN_KEY_CHECK_PRINCIPAL",
        value_name = "POINTER",
        requires = "key_check_url"
    )]
    pub key_check_principal: Option<String>,
    /// JSON pointer of the key's scopes in the answer (e.g. `/scopes`: an array, or a
    /// space-separated string).
    #[arg(
        long,
        env = "MCPGEN_KEY_CHECK_SCOPES",
        value_name = "POINTER",
        requires = "key_check_url"
    )]
    pub key_check_scopes: Option<String>,
    /// Scopes of a valid key whose answer names none (repeatable; default `mcp:*`, the API
    /// deciding what the key may do).
    #[arg(
        long = "key-check-default-scope",
        env = "MCPGEN_KEY_CHECK_DEFAULT_SCOPES",
        value_delimiter = ',',
        value_name = "SCOPE"
    )]
    pub key_check_default_scopes: Vec<String>,
    /// Seconds a valid key is remembered (an invalid one for a quarter of it, 1 to 15 s).
    #[arg(
        long,
        env = "MCPGEN_KEY_CHECK_TTL",
        value_name = "SECONDS",
        default_value_t = 60,
        value_parser = clap::value_parser!(u64).range(1..)
    )]
    pub key_check_ttl: u64,
}

impl KeyCheckArgs {
    /// The key check the flags describe, if `--key-check-url` is given; `upstream` resolves a
    /// path.
    pub fn key_check(&self, app: &App, upstream: Option<&str>) -> Result<Option<KeyCheck>, String> {
        let Some(url) = &self.key_check_url else {
            return Ok(None);
        };
        let url = if url.starts_with('/') {
            let base = upstream.ok_or(
                "--key-check-url is a path but there is no upstream URL; pass --upstream-url or an absolute URL",
            )?;
            format!("{}{url}", base.trim_end_matches('/'))
        } else {
            url.clone()
        };
        let placement = placement(app).ok_or_else(|| {
            "--key-check-url needs the API's own security scheme to send the key in, but the API \
             declares no apiKey or HTTP bearer scheme"
                .to_owned()
        })?;
        let mut config =
            KeyCheckConfig::new(url, placement).ttl(Duration::from_secs(self.key_check_ttl));
        if let Some(pointer) = &self.key_check_principal {
            config = config.principal_pointer(pointer.clone());
        }
        if let Some(pointer) = &self.key_check_scopes {
            config = config.scopes_pointer(pointer.clone());
        }
        if !self.key_check_default_scopes.is_empty() {
            config = config.default_scopes(self.key_check_default_scopes.clone());
        }
        KeyCheck::new(config).map(Some)
    }
}

/// The API's scheme for keys: an apiKey header first, then bearer, then query, then cookie.
fn placement(app: &App) -> Option<KeyPlacement> {
    let kinds = || app.security_schemes.iter().map(|s| s.kind);
    kinds()
        .find_map(|k| match k {
            SecuritySchemeKind::ApiKeyHeader(name) => Some(KeyPlacement::Header(name.to_owned())),
            _ => None,
        })
        .or_else(|| {
            kinds()
                .any(|k| k == SecuritySchemeKind::Bearer)
                .then_some(KeyPlacement::Bearer)
        })
        .or_else(|| {
            kinds().find_map(|k| match k {
                SecuritySchemeKind::ApiKeyQuery(name) => Some(KeyPlacement::Query(name.to_owned())),
                SecuritySchemeKind::ApiKeyCookie(name) => {
                    Some(KeyPlacement::Cookie(name.to_owned()))
                }
                _ => None,
            })
        })
}
