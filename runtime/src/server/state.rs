//! The state a built server shares: [`Server`], the handle users hold, and [`Inner`], what
//! every connection, transport and call of one catalog reads.

#[cfg(feature = "http")]
use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

#[cfg(feature = "http")]
use ::http::HeaderName;

use super::catalog::Catalog;
use super::config::{OutputCheck, Unconfirmable};
#[cfg(feature = "http")]
use super::error::ServerError;
use super::mounting::MountTable;
use super::pipeline::InFlight;
#[cfg(feature = "http")]
use super::placement::Placement;
use super::prompts::Prompts;
use super::rate::RateLimiter;
#[cfg(feature = "http")]
use super::rebinding::RebindingConfig;
use super::resources::Resources;
#[cfg(feature = "search")]
use super::search::SearchMode;
use crate::audit::{AuditSink, MultiSink};
use crate::auth::AuthChain;
use crate::input::RequestStates;
use crate::principal::Principal;
use crate::{ToolDef, ToolSet};

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
    pub(crate) sets: Vec<Arc<dyn ToolSet>>,
    pub(crate) catalog: Catalog,
    /// Set in search mode.
    #[cfg(feature = "search")]
    pub(crate) search: Option<SearchMode>,
    pub(crate) auth: Option<AuthChain>,
    /// The catalog's path, public URL and OAuth metadata.
    #[cfg(feature = "http")]
    pub(crate) resource: super::resource_site::ResourceSite,
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
    pub(crate) shutdown_timeout: Duration,
    pub(crate) output_check: OutputCheck,
    pub(crate) unconfirmable: Unconfirmable,
    #[cfg(feature = "http")]
    pub(crate) forward_headers: Vec<HeaderName>,
    /// Shared by every catalog of the server.
    pub(crate) inflight: Arc<InFlight>,
    /// Seals the `requestState` of stateless calls; shared by every catalog of the server.
    pub(crate) request_states: Arc<RequestStates>,
    /// Served at `/mcp` only; empty for mounts.
    pub(crate) prompts: Prompts,
    /// Served at `/mcp` only; empty for mounts.
    pub(crate) resources: Resources,
    /// The tools' views (MCP Apps); empty with `--no-ui`.
    pub(crate) views: crate::views::Views,
    pub(crate) server_config: rmcp::model::ServerConfig,
    /// Shared by every catalog of the server.
    #[cfg(feature = "metrics")]
    pub(crate) metrics: Option<Arc<crate::metrics::Metrics>>,
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

/// An MCP server over a fixed set of tools. Cheap to clone; clones share everything.
#[derive(Clone)]
pub struct Server {
    pub(super) inner: Arc<Inner>,
    /// The catalogs at `/mcp/<name>`, in the order they were mounted; changed while serving
    /// by [`Server::mount`] and [`Server::unmount`].
    pub(super) mounts: Arc<MountTable>,
    /// Whether the server serves (or served) a non-loopback address.
    #[cfg(feature = "http")]
    pub(super) exposed: Arc<std::sync::atomic::AtomicBool>,
    /// Whether `/mcp` (and `/sse`) serve the server's own catalog: when it has tool sets, or
    /// when there are no mounts.
    #[cfg(feature = "http")]
    pub(super) serve_root: bool,
    /// How long a client may take to send a request's headers.
    #[cfg(feature = "http")]
    pub(super) header_read_timeout: std::time::Duration,
    /// `/metrics` on the server's own listener.
    #[cfg(feature = "metrics")]
    pub(super) metrics_endpoint: Option<crate::metrics::MetricsEndpoint>,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("name", &self.inner.name)
            .field("version", &self.inner.version)
            .field("tools", &self.inner.catalog.entries().len())
            .field(
                "catalogs",
                &self
                    .mounts
                    .snapshot()
                    .into_iter()
                    .map(|m| m.name)
                    .collect::<Vec<_>>(),
            )
            .finish_non_exhaustive()
    }
}

impl Server {
    /// The server name.
    pub fn name(&self) -> &str {
        &self.inner.name
    }

    /// The server version.
    pub fn version(&self) -> &str {
        &self.inner.version
    }

    /// The server description, if set.
    pub fn description(&self) -> Option<&str> {
        self.inner.description.as_deref()
    }

    #[cfg(feature = "http")]
    /// Where the server sits behind a proxy: its base path and public URL, and the canonical
    /// URLs of `/mcp` and of each catalog built from them.
    pub fn placement(&self) -> &Placement {
        &self.inner.placement
    }

    /// Whether HTTP requests are authenticated.
    pub fn requires_auth(&self) -> bool {
        self.inner.auth.is_some()
    }

    /// Every tool served at `/mcp`, in the order the tool sets list them.
    pub fn tools(&self) -> Vec<&'static ToolDef> {
        self.inner.catalog.entries().iter().map(|e| e.def).collect()
    }

    /// The names of the catalogs mounted at `/mcp/<name>` now, in the order they were mounted.
    pub fn catalogs(&self) -> Vec<String> {
        self.mounts.snapshot().into_iter().map(|m| m.name).collect()
    }

    /// Every tool the catalog mounted as `name` serves (`None`: no such catalog).
    pub fn catalog_tools(&self, name: &str) -> Option<Vec<&'static ToolDef>> {
        let mount = self.mounts.get(name)?;
        Some(mount.catalog.entries().iter().map(|e| e.def).collect())
    }

    /// The tools `principal` may see and call.
    pub fn tools_for(&self, principal: &Principal) -> Vec<&'static ToolDef> {
        self.inner
            .catalog
            .visible(Some(principal))
            .into_iter()
            .map(|e| e.def)
            .collect()
    }

    /// Waits for calls in progress (bounded by the shutdown timeout) and flushes the audit
    /// sinks. The `serve_*` methods do this themselves when they return; call it when serving
    /// through [`Server::router`] in an HTTP server of your own.
    pub async fn drain(&self) {
        self.inner.drain().await;
    }

    #[cfg(feature = "http")]
    /// Refuses a non-loopback address when a catalog it serves has no authentication, unless
    /// allowed.
    pub(super) fn check_exposure(&self, addr: std::net::SocketAddr) -> Result<(), ServerError> {
        let exposed = !is_loopback(addr.ip());
        let open_root = self.serve_root && self.inner.auth.is_none();
        let open_mount = self
            .mounts
            .snapshot()
            .iter()
            .any(|m| m.inner.auth.is_none());
        if exposed && (open_root || open_mount) && !self.inner.insecure_no_auth {
            return Err(ServerError::InsecureNoAuth { addr });
        }
        if exposed {
            self.exposed
                .store(true, std::sync::atomic::Ordering::Relaxed);
        }
        Ok(())
    }
}

#[cfg(feature = "http")]
fn is_loopback(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => v4.is_loopback(),
        IpAddr::V6(v6) => {
            v6.is_loopback() || v6.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback())
        }
    }
}
