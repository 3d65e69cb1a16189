//! The tools a catalog serves now, replaceable while serving
//! ([`Server::replace_tools`](crate::server::Server::replace_tools)).
//!
//! Everything built from a catalog's tool sets (the table and its validators, search mode's
//! index, the views) sits in one [`Served`]; a request loads it once and reads only that, so
//! a request that began before a swap finishes on the tools it started with, and one that
//! begins after sees only the new ones. The sessions that said `notifications/initialized`
//! are remembered when the catalog declares `tools.listChanged`, and each swap sends them
//! `notifications/tools/list_changed`.

use std::sync::{Arc, Mutex, PoisonError, RwLock};

use rmcp::RoleServer;
use rmcp::service::Peer;

use super::catalog_config::{BuiltTools, CatalogConfig};
#[cfg(feature = "http")]
use super::param_headers::ParamHeaders;
#[cfg(feature = "search")]
use super::search::SearchMode;
use super::table::Catalog;
use crate::server::config::OutputCheck;
use crate::server::error::ConfigProblem;
use crate::views::Views;
use mcpgen_contract::toolset::ToolSet;

/// What one set of tool sets serves: the sets and everything built from them.
pub(crate) struct Served {
    /// Counts the swaps: 0 for the tools the server was built with.
    pub(crate) generation: u64,
    pub(crate) sets: Vec<Arc<dyn ToolSet>>,
    pub(crate) catalog: Catalog,
    /// The tools' `Mcp-Param-*` headers, checked against each call's arguments.
    #[cfg(feature = "http")]
    pub(crate) param_headers: ParamHeaders,
    /// Set in search mode.
    #[cfg(feature = "search")]
    pub(crate) search: Option<SearchMode>,
    /// The tools' views (MCP Apps); empty with `--no-ui`.
    pub(crate) views: Views,
}

impl Served {
    /// Generation `generation` of the tools: `sets` built as `built`, with `views`.
    fn of(generation: u64, sets: Vec<Arc<dyn ToolSet>>, built: BuiltTools, views: Views) -> Self {
        Self {
            generation,
            sets,
            catalog: built.catalog,
            #[cfg(feature = "http")]
            param_headers: built.param_headers,
            #[cfg(feature = "search")]
            search: built.search,
            views,
        }
    }
}

/// The tools of one catalog, swapped whole by [`LiveTools::swap`].
pub(crate) struct LiveTools {
    current: RwLock<Arc<Served>>,
    /// The catalog's settings (tool mode, pins, `describe_tools`, code limits) without its
    /// tool sets and authenticators, to build the next tools with.
    settings: CatalogConfig,
    /// Whether `initialize` declares `tools.listChanged` and sessions are told of swaps.
    announced: bool,
    /// The sessions told of swaps; forgotten once their transport has closed.
    sessions: Mutex<Vec<Peer<RoleServer>>>,
}

impl LiveTools {
    /// The first tools of the catalog `config` describes, built as `built`, with `views`;
    /// later tools are built with the same settings.
    pub(crate) fn first(config: CatalogConfig, built: BuiltTools, views: Views) -> Self {
        let settings = config.settings_only();
        let served = Served::of(0, config.sets, built, views);
        Self {
            current: RwLock::new(Arc::new(served)),
            announced: settings.list_changed,
            settings,
            sessions: Mutex::default(),
        }
    }

    /// The tools served now; load once per request.
    pub(crate) fn load(&self) -> Arc<Served> {
        self.current
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Whether `initialize` declares `tools.listChanged`.
    pub(crate) fn announced(&self) -> bool {
        self.announced
    }

    /// Remembers a session that finished initializing, to tell it of later swaps (only
    /// when the catalog declares `tools.listChanged`).
    pub(crate) fn remember(&self, peer: Peer<RoleServer>) {
        if !self.announced {
            return;
        }
        let mut sessions = self.sessions.lock().unwrap_or_else(PoisonError::into_inner);
        sessions.retain(|peer| !peer.is_transport_closed());
        sessions.push(peer);
    }

    /// Builds the tools of `sets` with the catalog's settings (the server's name for the
    /// views, its output check) and swaps them in at once; tool sets that do not build are
    /// refused with every problem, and the tools served stay.
    pub(crate) fn swap(
        &self,
        name: &str,
        output_check: OutputCheck,
        sets: Vec<Arc<dyn ToolSet>>,
    ) -> Result<(), Vec<ConfigProblem>> {
        let mut config = self.settings.settings_only();
        for set in sets {
            config.add_tool_set(set);
        }
        let mut problems = Vec::new();
        let Some(built) = config.build_tools(output_check, &mut problems) else {
            return Err(problems);
        };
        let mut current = self.current.write().unwrap_or_else(PoisonError::into_inner);
        let views = Views::build(
            name,
            built.catalog.entries().iter().map(|e| &e.def),
            current.views.enabled(),
        );
        let served = Served::of(current.generation + 1, config.sets, built, views);
        // The old tools go when the last request holding them ends.
        *current = Arc::new(served);
        Ok(())
    }

    /// Sends `notifications/tools/list_changed` to every open session remembered, answering
    /// how many it reached.
    pub(crate) async fn announce(&self) -> usize {
        let sessions: Vec<Peer<RoleServer>> = {
            let mut sessions = self.sessions.lock().unwrap_or_else(PoisonError::into_inner);
            sessions.retain(|peer| !peer.is_transport_closed());
            sessions.clone()
        };
        let mut reached = 0;
        for peer in sessions {
            match peer.notify_tool_list_changed().await {
                Ok(()) => reached += 1,
                Err(error) => tracing::debug!(%error, "tools/list_changed not delivered"),
            }
        }
        reached
    }
}
