//! [`Inner`]: what every connection, transport and call of one catalog reads, built once
//! when the server is built (or the catalog mounted); its tools are swapped whole.

use std::sync::Arc;
use std::time::Duration;

#[cfg(feature = "http")]
use ::http::HeaderName;
use mcpgen_audit::{AuditSink, MultiSink};

use super::inflight::InFlight;
#[cfg(feature = "http")]
use super::placement::Placement;
#[cfg(feature = "http")]
use super::resource_site::ResourceSite;
use crate::server::catalog::live::LiveTools;
use crate::server::catalog::prompts::Prompts;
use crate::server::catalog::resources::Resources;
use crate::server::config::{OutputCheck, Unconfirmable};
use mcpgen_contract::input::RequestStates;
use mcpgen_contract::tasks::Tasks;
use mcpgen_identity::auth::AuthChain;
use mcpgen_policy::rate::RateLimiter;
#[cfg(feature = "http")]
use mcpgen_policy::rebinding::RebindingConfig;

/// Everything a running server shares between connections.
pub(crate) struct Inner {
    pub(crate) name: String,
    pub(crate) version: String,
    pub(crate) title: Option<String>,
    pub(crate) description: Option<String>,
    #[cfg(feature = "http")]
    pub(crate) card_name: Option<String>,
    /// The base path and public URL; shared by every catalog of the server.
    #[cfg(feature = "http")]
    pub(crate) placement: Arc<Placement>,
    /// The name session ids start with (`--replica-name`); shared by every catalog.
    #[cfg(feature = "http")]
    pub(crate) replica: Option<Arc<str>>,
    /// What the replicas share (`--state-redis`); shared by every catalog.
    #[cfg(all(feature = "http", feature = "redis"))]
    pub(crate) shared: Option<Arc<mcpgen_state::SharedState>>,
    /// The store the tasks are shared through, when they are.
    #[cfg(all(feature = "http", feature = "redis"))]
    pub(crate) task_store: Option<mcpgen_state::TaskStore>,
    /// The tool sets and what is built from them (table, search index, views); load once
    /// per request.
    pub(crate) tools: LiveTools,
    pub(crate) auth: Option<AuthChain>,
    /// The catalog's path, public URL and OAuth metadata.
    #[cfg(feature = "http")]
    pub(crate) resource: ResourceSite,
    #[cfg(feature = "http")]
    pub(crate) insecure_no_auth: bool,
    pub(crate) audit: MultiSink,
    pub(crate) audit_args: bool,
    /// Shared by every catalog of the server.
    pub(crate) rate: Arc<RateLimiter>,
    #[cfg(feature = "http")]
    pub(crate) rebinding: RebindingConfig,
    #[cfg(feature = "http")]
    pub(crate) max_body_bytes: usize,
    #[cfg(feature = "http")]
    pub(crate) body_read_timeout: Duration,
    /// The caps on this catalog's Streamable HTTP sessions.
    #[cfg(feature = "http")]
    pub(crate) sessions: crate::server::config::SessionLimits,
    pub(crate) shutdown_timeout: Duration,
    pub(crate) output_check: OutputCheck,
    pub(crate) unconfirmable: Unconfirmable,
    #[cfg(feature = "http")]
    pub(crate) forward_headers: Vec<HeaderName>,
    /// Shared by every catalog of the server.
    pub(crate) inflight: Arc<InFlight>,
    /// Seals the `requestState` of stateless calls; shared by every catalog of the server.
    pub(crate) request_states: Arc<RequestStates>,
    /// The tasks of every catalog of the server.
    pub(crate) tasks: Arc<Tasks>,
    /// Served at `/mcp` only; empty for mounts.
    pub(crate) prompts: Prompts,
    /// Served at `/mcp` only; empty for mounts.
    pub(crate) resources: Resources,
    pub(crate) server_config: rmcp::model::ServerConfig,
    /// Shared by every catalog of the server.
    #[cfg(feature = "metrics")]
    pub(crate) metrics: Option<Arc<mcpgen_metrics::Metrics>>,
}

impl Inner {
    /// Waits (bounded by the shutdown timeout) for calls in progress, then flushes the audit
    /// sinks.
    pub(crate) async fn drain(&self) {
        if tokio::time::timeout(self.shutdown_timeout, self.inflight.wait_idle())
            .await
            .is_err()
        {
            tracing::warn!(
                timeout_s = self.shutdown_timeout.as_secs_f64(),
                "shutdown: calls still in progress after the timeout"
            );
        }
        self.audit.flush().await;
    }
}
