//! The tool set of a generated crate: its static tool table, driven through one [`Upstream`].
//!
//! A generated `tools.rs` holds data only (the table of [`ToolDef`]s with their HTTP bindings
//! and the search index); [`OpenApiTools`] is what calls them. The server has already found the
//! tool and validated the arguments against its input schema when [`ToolSet::call`] runs, so a
//! call goes straight to the upstream.

use mcpgen_core::BoxFuture;
use mcpgen_core::result::ToolResult;
use mcpgen_core::tool::ToolDef;
use serde_json::{Map, Value};

use crate::Upstream;
use mcpgen_contract::tasks::TaskSupport;
use mcpgen_contract::toolset::{CallContext, ToolError, ToolSet};

/// The tools of an OpenAPI-derived tool table, each calling its operation through `upstream`.
#[derive(Debug)]
pub struct OpenApiTools {
    tools: &'static [ToolDef],
    upstream: Upstream,
    search_index: Option<&'static str>,
    rate_limits: &'static [mcpgen_contract::toolset::ToolRate],
}

impl OpenApiTools {
    /// The tools of `tools` (a generated crate's `TOOLS`), calling the API through `upstream`.
    pub fn new(tools: &'static [ToolDef], upstream: Upstream) -> Self {
        Self {
            tools,
            upstream,
            search_index: None,
            rate_limits: &[],
        }
    }

    /// Attaches the search index compiled into the crate (its `SEARCH_INDEX`), which servers in
    /// search mode load instead of indexing the table at start-up.
    pub fn with_search_index(mut self, index: &'static str) -> Self {
        self.search_index = Some(index);
        self
    }

    /// Attaches the per-tool rate limits compiled into the crate (its `RATE_LIMITS`).
    pub fn with_rate_limits(
        mut self,
        limits: &'static [mcpgen_contract::toolset::ToolRate],
    ) -> Self {
        self.rate_limits = limits;
        self
    }

    /// The upstream client.
    pub fn upstream(&self) -> &Upstream {
        &self.upstream
    }
}

impl ToolSet for OpenApiTools {
    fn tools(&self) -> &'static [ToolDef] {
        self.tools
    }

    fn call<'a>(
        &'a self,
        tool: &'static ToolDef,
        args: Map<String, Value>,
        ctx: &'a CallContext,
    ) -> BoxFuture<'a, Result<ToolResult, ToolError>> {
        Box::pin(async move {
            let started = std::time::Instant::now();
            let invoked = self.upstream.invoke_with(tool, args, ctx).await;
            ctx.report_upstream(invoked.status, invoked.timed_out);
            ctx.report_upstream_guard(invoked.guard);
            // A call the guard refused sent no request, so there is no latency to count.
            if invoked.guard.refused.is_none() {
                ctx.report_upstream_latency(started.elapsed());
            }
            Ok(invoked.result)
        })
    }

    fn search_index(&self) -> Option<&'static str> {
        self.search_index
    }

    fn rate_limits(&self) -> &'static [mcpgen_contract::toolset::ToolRate] {
        self.rate_limits
    }

    /// An operation that runs long ([`HttpBinding::task`](mcpgen_core::tool::HttpBinding::task))
    /// runs as a task for clients that declared tasks, and as any call for the others.
    fn task_support(&self, name: &str) -> Option<TaskSupport> {
        self.tools
            .iter()
            .find(|tool| tool.name == name)
            .and_then(|tool| tool.http.as_ref())
            .is_some_and(|http| http.task)
            .then_some(TaskSupport::Optional)
    }
}
