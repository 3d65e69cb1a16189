//! `--upstream-token-exchange` and its `--token-exchange-*` flags: OAuth callers reach the API
//! as themselves (see [`TokenExchange`]).

use clap::Args;

use super::App;
use super::oauth_args::OAuthArgs;
use mcpgen_upstream::{TokenExchange, UpstreamConfig};

/// Exchanging OAuth callers' access tokens for tokens of the API (RFC 8693).
#[derive(Debug, Clone, Args)]
pub struct TokenExchangeArgs {
    /// OAuth callers reach the API as themselves: the access token a caller presents is
    /// exchanged (RFC 8693) at the authorization server of --oauth-issuer, as
    /// --oauth-client-id / --oauth-client-secret, for a token whose audience is the API; it
    /// is cached per caller until it expires and sent as `Authorization: Bearer` to
    /// operations secured by an HTTP bearer or OAuth 2 scheme. Without it, OAuth callers use
    /// the configured upstream credentials.
    #[arg(
        long,
        env = "MCPGEN_UPSTREAM_TOKEN_EXCHANGE",
        requires_all = ["oauth_issuer", "oauth_client_id"]
    )]
    pub upstream_token_exchange: bool,
    /// Token endpoint the exchange is made at (default: the `token_endpoint` of the issuer's
    /// metadata). https only, except on loopback addresses.
    #[arg(
        long,
        env = "MCPGEN_TOKEN_EXCHANGE_ENDPOINT",
        value_name = "URL",
        requires = "upstream_token_exchange"
    )]
    pub token_exchange_endpoint: Option<String>,
    /// `audience` of the exchanged tokens (default: the upstream URL, which is sent as
    /// `resource` in any case).
    #[arg(
        long,
        env = "MCPGEN_TOKEN_EXCHANGE_AUDIENCE",
        value_name = "AUDIENCE",
        requires = "upstream_token_exchange"
    )]
    pub token_exchange_audience: Option<String>,
}

impl TokenExchangeArgs {
    /// `config` with token exchange, when `--upstream-token-exchange` is given, at the
    /// authorization server and as the client `oauth` names, sending the token in `app`'s
    /// bearer and OAuth 2 schemes.
    pub fn apply(
        &self,
        app: &App,
        oauth: &OAuthArgs,
        config: UpstreamConfig,
    ) -> Result<UpstreamConfig, String> {
        if !self.upstream_token_exchange {
            return Ok(config);
        }
        let (Some(issuer), Some(client_id)) = (&oauth.oauth_issuer, &oauth.oauth_client_id) else {
            return Err(
                "--upstream-token-exchange needs --oauth-issuer (whose callers' tokens \
                        are exchanged) and --oauth-client-id (who asks)"
                    .into(),
            );
        };
        let mut exchange =
            TokenExchange::new(issuer, client_id, app.security_schemes.iter().copied());
        if let Some(url) = &self.token_exchange_endpoint {
            exchange = exchange.token_endpoint(url);
        }
        if let Some(audience) = &self.token_exchange_audience {
            exchange = exchange.audience(audience);
        }
        if let Some(secret) = &oauth.oauth_client_secret {
            exchange = exchange.client_secret(secret);
        }
        Ok(config.with_token_exchange(exchange))
    }
}
