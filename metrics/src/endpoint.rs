//! Serving `/metrics`: on the main listener behind a bearer token (`--metrics` with
//! `--metrics-token-env VAR`), or on a listener of its own (`--metrics-listen ADDR`, where the
//! token is optional). It is never public by default.

use std::future::Future;
use std::sync::Arc;

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use subtle::ConstantTimeEq;

use super::Metrics;

/// The path metrics are served at.
pub const METRICS_PATH: &str = "/metrics";

/// Shortest accepted metrics token, in bytes.
pub const MIN_TOKEN_LEN: usize = 16;

/// Connections a `/metrics` listener of its own serves at once (scrapers are few).
const METRICS_MAX_CONNECTIONS: usize = 64;

/// `/metrics` for one server's [`Metrics`], with the bearer token scrapers must send (if any).
#[derive(Clone)]
pub struct MetricsEndpoint {
    metrics: Arc<Metrics>,
    token: Option<Arc<[u8]>>,
}

impl std::fmt::Debug for MetricsEndpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MetricsEndpoint")
            .field("token", &self.token.is_some())
            .finish_non_exhaustive()
    }
}

/// The metrics token could not be read (`--metrics-token-env VAR`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MetricsTokenError {
    /// The variable is not set, or not valid UTF-8.
    #[error(
        "--metrics-token-env: the environment variable `{0}` is not set; set it to a random \
         string of at least {MIN_TOKEN_LEN} characters (e.g. `openssl rand -hex 32`) that \
         scrapers send as `Authorization: Bearer <token>`"
    )]
    Unset(String),
    /// The token is shorter than [`MIN_TOKEN_LEN`].
    #[error(
        "--metrics-token-env: the token in `{0}` is shorter than {MIN_TOKEN_LEN} bytes; use a \
         random string (e.g. `openssl rand -hex 32`)"
    )]
    TooShort(String),
}

impl MetricsEndpoint {
    /// `/metrics` for `metrics`, open to anyone who reaches the listener (use it on a listener
    /// of its own, bound where only the monitoring can reach it).
    pub fn open(metrics: Arc<Metrics>) -> Self {
        Self {
            metrics,
            token: None,
        }
    }

    /// The same endpoint, answering only requests with `Authorization: Bearer <token>`.
    pub fn with_token(mut self, token: impl AsRef<[u8]>) -> Self {
        self.token = Some(Arc::from(token.as_ref()));
        self
    }

    /// The same endpoint, with the token in the environment variable `var`.
    pub fn with_token_from_env(self, var: &str) -> Result<Self, MetricsTokenError> {
        let token = std::env::var(var).map_err(|_| MetricsTokenError::Unset(var.to_owned()))?;
        let token = token.trim();
        if token.len() < MIN_TOKEN_LEN {
            return Err(MetricsTokenError::TooShort(var.to_owned()));
        }
        Ok(self.with_token(token))
    }

    /// Whether scrapers must send a bearer token.
    pub fn has_token(&self) -> bool {
        self.token.is_some()
    }

    /// The metrics being served.
    pub fn metrics(&self) -> &Arc<Metrics> {
        &self.metrics
    }

    /// `GET /metrics` as a router of its own.
    pub fn router(&self) -> Router {
        Router::new()
            .route(METRICS_PATH, get(scrape))
            .with_state(self.clone())
    }

    /// Serves `/metrics` (and nothing else) on `listener` until `shutdown` resolves. As on
    /// the MCP listener, a client that has not sent a request's whole head within
    /// `header_read_timeout` has its connection closed.
    pub async fn serve(
        &self,
        listener: tokio::net::TcpListener,
        header_read_timeout: std::time::Duration,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> std::io::Result<()> {
        let stop = tokio_util::sync::CancellationToken::new();
        let cancel = stop.clone().drop_guard();
        tokio::spawn(async move {
            shutdown.await;
            drop(cancel);
        });
        let serving = mcpgen_listener::Serving {
            header_read_timeout,
            max_connections: METRICS_MAX_CONNECTIONS,
            watch: None,
        };
        mcpgen_listener::serve(listener, self.router(), serving, stop).await
    }

    fn admits(&self, request: &Request) -> bool {
        let Some(token) = &self.token else {
            return true;
        };
        let presented = request
            .headers()
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().split_once(' '))
            .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
            .map(|(_, value)| value.trim().as_bytes());
        presented.is_some_and(|p| bool::from(p.ct_eq(token)))
    }
}

async fn scrape(State(endpoint): State<MetricsEndpoint>, request: Request) -> Response {
    if !endpoint.admits(&request) {
        return (
            StatusCode::UNAUTHORIZED,
            [(header::WWW_AUTHENTICATE, "Bearer realm=\"metrics\"")],
            "a bearer token is needed for /metrics\n",
        )
            .into_response();
    }
    (
        [(
            header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        endpoint.metrics.render(),
    )
        .into_response()
}
