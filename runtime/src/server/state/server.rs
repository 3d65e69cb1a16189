//! [`Server`], the handle users hold: the server's own catalog and the catalogs mounted
//! beside it.

#[cfg(feature = "http")]
use std::net::IpAddr;
use std::sync::Arc;

use mcpgen_identity::Principal;

use super::inner::Inner;
use super::mounts::MountTable;
#[cfg(feature = "http")]
use super::placement::Placement;
#[cfg(feature = "http")]
use crate::server::error::ServerError;
use mcpgen_core::tool::ToolDef;

/// An MCP server over a fixed set of tools. Cheap to clone; clones share everything.
#[derive(Clone)]
pub struct Server {
    pub(crate) inner: Arc<Inner>,
    /// The catalogs at `/mcp/<name>`, in the order they were mounted; changed while serving
    /// by [`Server::mount`] and [`Server::unmount`].
    pub(crate) mounts: Arc<MountTable>,
    /// Whether the server serves (or served) a non-loopback address.
    #[cfg(feature = "http")]
    pub(crate) exposed: Arc<std::sync::atomic::AtomicBool>,
    /// Whether `/mcp` (and `/sse`) serve the server's own catalog: when it has tool sets, or
    /// when there are no mounts.
    #[cfg(feature = "http")]
    pub(crate) serve_root: bool,
    /// The header read timeout and the connection cap of its listener.
    #[cfg(feature = "http")]
    pub(crate) edge: crate::server::config::EdgeLimits,
    /// `/metrics` on the server's own listener.
    #[cfg(feature = "metrics")]
    pub(crate) metrics_endpoint: Option<mcpgen_metrics::MetricsEndpoint>,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("name", &self.inner.name)
            .field("version", &self.inner.version)
            .field("tools", &self.inner.tools.load().catalog.entries().len())
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
        self.inner
            .tools
            .load()
            .catalog
            .entries()
            .iter()
            .map(|e| e.def)
            .collect()
    }

    /// The names of the catalogs mounted at `/mcp/<name>` now, in the order they were mounted.
    pub fn catalogs(&self) -> Vec<String> {
        self.mounts.snapshot().into_iter().map(|m| m.name).collect()
    }

    /// Every tool the catalog mounted as `name` serves (`None`: no such catalog).
    pub fn catalog_tools(&self, name: &str) -> Option<Vec<&'static ToolDef>> {
        let mount = self.mounts.get(name)?;
        Some(
            mount
                .tools
                .load()
                .catalog
                .entries()
                .iter()
                .map(|e| e.def)
                .collect(),
        )
    }

    /// The tools `principal` may see and call.
    pub fn tools_for(&self, principal: &Principal) -> Vec<&'static ToolDef> {
        self.inner
            .tools
            .load()
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
    pub(crate) fn check_exposure(&self, addr: std::net::SocketAddr) -> Result<(), ServerError> {
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
