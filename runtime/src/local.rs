//! Calling an in-process tool set through the [`McpConnection`] interface typed client stubs
//! use.

use mcpgen_core::{BoxFuture, ClientError, McpConnection, ToolResult};
use serde_json::{Map, Value};

use crate::toolset::{CallContext, ToolError, ToolSet};

/// An in-process connection to a [`ToolSet`], for tests and embedding.
pub struct LocalConnection<T>(pub T);

impl<T: ToolSet> McpConnection for LocalConnection<T> {
    fn call_tool<'a>(
        &'a self,
        name: &'a str,
        args: Map<String, Value>,
    ) -> BoxFuture<'a, Result<ToolResult, ClientError>> {
        Box::pin(async move {
            let Some(tool) = self.0.tool(name) else {
                return Err(ClientError::Transport(
                    ToolError::UnknownTool(name.to_owned()).to_string(),
                ));
            };
            let ctx = CallContext::default();
            self.0
                .call(tool, args, &ctx)
                .await
                .map_err(|e| ClientError::Transport(e.to_string()))
        })
    }
}
