//! The flags that place a server behind a proxy and among its replicas: `--base-path`,
//! `--public-url`, `--replica-name` and `--state-redis`.

use crate::server::builder::ServerBuilder;

/// Where the HTTP routes sit: flags shared by generated servers and applications
/// (`#[command(flatten)]`), each with an `MCPGEN_*` environment fallback.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct PlacementArgs {
    /// Prefix every HTTP route moves under, e.g. `/api/v1/mcp`: Streamable HTTP is then served
    /// at the prefix itself, catalogs at `<prefix>/<name>`, legacy SSE at `<prefix>/sse` and
    /// `<prefix>/message`, and `<prefix>/healthz`, `<prefix>/server-card`,
    /// `<prefix>/.well-known/mcp.json`.
    #[arg(long, env = "MCPGEN_BASE_PATH", value_name = "PATH")]
    pub base_path: Option<String>,
    /// URL clients reach the base path at (the server's root without one), e.g.
    /// `https://mcp.example.com/api/v1/mcp` when TLS ends at a proxy; every announced URL (the
    /// SSE `endpoint` event, the server cards) is built from it.
    #[arg(long, env = "MCPGEN_PUBLIC_URL", value_name = "URL")]
    pub public_url: Option<String>,
    /// This replica's name among several behind one load balancer (1 to 32 ASCII letters,
    /// digits, `-` or `_`). Session ids it issues then start with `NAME.`, so the balancer can
    /// send each session's requests to the replica holding it: route on the prefix of the
    /// `Mcp-Session-Id` header (and of the legacy SSE `sessionId` query parameter), and
    /// balance requests without one (stateless calls, new sessions) freely.
    #[arg(long, env = "MCPGEN_REPLICA_NAME", value_name = "NAME")]
    pub replica_name: Option<String>,
    /// Keep what sessions need in Redis or Valkey, so that replicas sharing it serve any
    /// session without sticky routing: `redis://[:PASSWORD@]HOST[:PORT][/DB]` (`rediss://`
    /// for TLS). May be the same Redis as `--rate-limit-redis`.
    #[cfg(feature = "redis")]
    #[arg(
        long,
        env = "MCPGEN_STATE_REDIS",
        hide_env_values = true,
        value_name = "URL"
    )]
    pub state_redis: Option<String>,
}

impl PlacementArgs {
    /// Gives the flags to `builder`; [`ServerBuilder::build`] checks them. Refused: a
    /// `--state-redis` URL that cannot be used.
    pub fn apply(&self, mut builder: ServerBuilder) -> Result<ServerBuilder, String> {
        if let Some(path) = &self.base_path {
            builder = builder.base_path(path.clone());
        }
        if let Some(url) = &self.public_url {
            builder = builder.public_url(url.clone());
        }
        if let Some(name) = &self.replica_name {
            builder = builder.replica_name(name.clone());
        }
        #[cfg(feature = "redis")]
        if let Some(url) = &self.state_redis {
            let state = mcpgen_state::SharedState::new(url).map_err(|e| e.to_string())?;
            builder = builder.shared_state(state);
        }
        Ok(builder)
    }
}
