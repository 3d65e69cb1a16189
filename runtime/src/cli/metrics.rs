//! The metrics flags of a generated server: `--metrics`, `--metrics-listen`,
//! `--metrics-token-env`. `/metrics` is never public by default: on the MCP listener it needs
//! a bearer token; on a listener of its own the token is optional.

use std::net::SocketAddr;
use std::sync::Arc;

use crate::server::builder::ServerBuilder;
use mcpgen_metrics::{Metrics, MetricsEndpoint};

/// Where and how `/metrics` is served.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct MetricsArgs {
    /// Serve Prometheus metrics at `/metrics` on the MCP listener; needs
    /// `--metrics-token-env` (scrapers send `Authorization: Bearer <token>`).
    #[arg(long, env = "MCPGEN_METRICS")]
    pub metrics: bool,
    /// Serve Prometheus metrics at `/metrics` on a listener of its own, e.g. `127.0.0.1:9090`
    /// (a token is optional there).
    #[arg(long, env = "MCPGEN_METRICS_LISTEN", value_name = "ADDR")]
    pub metrics_listen: Option<SocketAddr>,
    /// Name of the environment variable holding the bearer token `/metrics` asks for (at
    /// least 16 characters).
    #[arg(long, env = "MCPGEN_METRICS_TOKEN_ENV", value_name = "VAR")]
    pub metrics_token_env: Option<String>,
}

/// `/metrics` on a listener of its own: the address and the endpoint to serve there.
pub(super) type SeparateMetrics = (SocketAddr, MetricsEndpoint);

impl MetricsArgs {
    /// Adds the metrics the flags ask for to `builder`; returns the endpoint to serve on a
    /// listener of its own, if any. Errors name the flag and the fix.
    pub(super) fn configure(
        &self,
        builder: ServerBuilder,
    ) -> Result<(ServerBuilder, Option<SeparateMetrics>), String> {
        if self.metrics && self.metrics_listen.is_some() {
            return Err(
                "--metrics and --metrics-listen both set: serve /metrics either on the MCP \
                 listener (--metrics with --metrics-token-env) or on a listener of its own \
                 (--metrics-listen ADDR), not both"
                    .into(),
            );
        }
        if !self.metrics && self.metrics_listen.is_none() {
            if self.metrics_token_env.is_some() {
                return Err(
                    "--metrics-token-env is set but metrics are not served: add \
                            --metrics (on the MCP listener) or --metrics-listen ADDR"
                        .into(),
                );
            }
            return Ok((builder, None));
        }
        if self.metrics && self.metrics_token_env.is_none() {
            return Err(
                "--metrics serves /metrics on the MCP listener, where it needs a bearer token: \
                 add --metrics-token-env VAR (VAR holding a random string of at least 16 \
                 characters), or serve it on a listener of its own with --metrics-listen ADDR"
                    .into(),
            );
        }
        let metrics = Arc::new(Metrics::new().map_err(|e| e.to_string())?);
        let mut endpoint = MetricsEndpoint::open(metrics);
        if let Some(var) = &self.metrics_token_env {
            endpoint = endpoint
                .with_token_from_env(var)
                .map_err(|e| e.to_string())?;
        }
        Ok(match self.metrics_listen {
            Some(addr) => (
                builder.metrics(endpoint.metrics().clone()),
                Some((addr, endpoint)),
            ),
            None => (builder.metrics_endpoint(endpoint), None),
        })
    }
}

/// Binds the metrics listener now (so a bad address stops the start) and serves `/metrics`
/// there on the current Tokio runtime until the process is told to stop, closing connections
/// that take longer than `header_read_timeout` to send a request's head.
pub(super) fn serve_separate(
    (addr, endpoint): SeparateMetrics,
    header_read_timeout: std::time::Duration,
) -> Result<(), String> {
    let runtime = tokio::runtime::Handle::try_current()
        .map_err(|_| "--metrics-listen: the server must be set up inside a Tokio runtime")?;
    let listener = std::net::TcpListener::bind(addr)
        .and_then(|l| l.set_nonblocking(true).map(|()| l))
        .map_err(|e| format!("--metrics-listen {addr}: cannot listen: {e}"))?;
    tracing::info!(%addr, token = endpoint.has_token(), "serving metrics at /metrics");
    runtime.spawn(async move {
        let served = match tokio::net::TcpListener::from_std(listener) {
            Ok(listener) => {
                endpoint
                    .serve(
                        listener,
                        header_read_timeout,
                        crate::server::shutdown_signal(),
                    )
                    .await
            }
            Err(error) => Err(error),
        };
        if let Err(error) = served {
            tracing::error!(%error, "the metrics listener stopped");
        }
    });
    Ok(())
}
