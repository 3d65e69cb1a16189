//! Calling an in-process tool set through the [`McpConnection`](mcpgen_core::McpConnection) interface typed client stubs
//! use.

use mcpgen_core::{BoxFuture, CallError, McpConnection, ToolResult};
use serde_json::{Map, Value};

use crate::toolset::{CallContext, ToolError, ToolSet};

/// An in-process connection to a [`ToolSet`], for tests and embedding.
///
/// A [`ToolError`](crate::ToolError) (unknown tool, invalid arguments) comes back as
/// [`CallError::Connection`], with its own message; `downcast_ref::<ToolError>()` gets it.
pub struct LocalConnection<T>(pub T);

impl<T: ToolSet> McpConnection for LocalConnection<T> {
    fn call_tool<'a>(
        &'a self,
        name: &'a str,
        args: Map<String, Value>,
    ) -> BoxFuture<'a, Result<ToolResult, CallError>> {
        Box::pin(async move {
            let Some(tool) = self.0.tool(name) else {
                return Err(CallError::connection(ToolError::UnknownTool(
                    name.to_owned(),
                )));
            };
            let ctx = CallContext::default();
            self.0
                .call(tool, args, &ctx)
                .await
                .map_err(CallError::connection)
        })
    }
}

#[cfg(test)]
mod tests {
    use mcpgen_core::ToolDef;

    use super::*;
    use crate::toolset::ToolError;

    /// A tool set with no tools: every call is an unknown tool.
    struct Empty;

    impl ToolSet for Empty {
        fn tools(&self) -> &'static [ToolDef] {
            &[]
        }

        fn call<'a>(
            &'a self,
            tool: &'static ToolDef,
            _args: Map<String, Value>,
            _ctx: &'a CallContext,
        ) -> BoxFuture<'a, Result<ToolResult, ToolError>> {
            Box::pin(async move { Err(ToolError::UnknownTool(tool.name.to_owned())) })
        }
    }

    #[tokio::test]
    async fn a_tool_error_comes_back_whole() {
        let err = LocalConnection(Empty)
            .call_tool("nope", Map::new())
            .await
            .unwrap_err();
        assert_eq!(err.to_string(), "unknown tool `nope`");
        assert!(matches!(
            err.downcast_ref::<ToolError>(),
            Some(ToolError::UnknownTool(name)) if name == "nope"
        ));
    }
}
