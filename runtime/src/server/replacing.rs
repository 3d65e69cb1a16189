//! [`Server::replace_tools`]: the tools of the server's own catalog swapped while it serves
//! (`mcpgen serve --watch`), and the sessions told.

use std::sync::Arc;

use super::error::ServerError;
use super::state::server::Server;
use mcpgen_contract::toolset::ToolSet;

impl Server {
    /// Replaces the tool sets of the server's own catalog (at `/mcp`, and over stdio) while
    /// it serves: the table, its validators, search mode's index, the `Mcp-Param-*` headers
    /// and the views are built from `sets` with the catalog's settings, then swapped in at
    /// once. Requests in progress finish on the tools they started with; later ones, stateless
    /// ones included, see only the new tools. The sessions open get
    /// `notifications/tools/list_changed` when the server was built with
    /// [`ServerBuilder::tools_list_changed`](super::ServerBuilder::tools_list_changed).
    ///
    /// Tool sets that do not build (a duplicate name, a schema that does not compile) are
    /// refused with every problem listed, and the tools served stay as they were. What the
    /// server fixed when it was built stays fixed: per-tool rate limits, the tasks declared,
    /// the scopes in the OAuth metadata, and whether `initialize` offers views.
    ///
    /// Answers how many sessions were told.
    pub async fn replace_tools(&self, sets: Vec<Arc<dyn ToolSet>>) -> Result<usize, ServerError> {
        let inner = &self.inner;
        inner
            .tools
            .swap(&inner.name, inner.output_check, sets)
            .map_err(ServerError::Config)?;
        let told = inner.tools.announce().await;
        tracing::debug!(
            tools = inner.tools.load().catalog.entries().len(),
            told,
            "tools replaced"
        );
        Ok(told)
    }
}
