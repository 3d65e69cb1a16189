//! The connection typed client stubs call through.

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::{BoxFuture, CallContext, ToolResult, ToolSet};

pub mod breaker;
pub mod enrich;
pub mod formats;
pub mod llm;

pub use breaker::{BreakerConfig, BreakerOpen, CircuitBreaker};
pub use enrich::{EnrichCall, Enrichment, ToolOrigin, enrich};
pub use formats::{ToolCall, ToolDefinition, ToolNames};
pub use llm::{
    Llm, LlmError, LlmTurn, LoopError, LoopOptions, LoopOutcome, Message, run_tool_loop,
};

/// Why a client-side tool call failed.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// The connection or protocol failed.
    #[error("transport error: {0}")]
    Transport(String),
    /// The server answered with `isError: true`; the message is the result's text.
    #[error("tool `{tool}` failed: {message}")]
    Tool {
        /// Tool name.
        tool: String,
        /// The result's text.
        message: String,
    },
    /// The arguments could not be encoded or the output could not be decoded.
    #[error("tool `{tool}`: {message}")]
    Decode {
        /// Tool name.
        tool: String,
        /// What failed.
        message: String,
    },
}

/// Anything that can call an MCP tool: a remote client session, or a local tool set.
pub trait McpConnection: Send + Sync {
    /// Calls tool `name` with `args` and returns its result.
    fn call_tool<'a>(
        &'a self,
        name: &'a str,
        args: Map<String, Value>,
    ) -> BoxFuture<'a, Result<ToolResult, ClientError>>;
}

/// An in-process connection to a [`ToolSet`], for tests and embedding.
pub struct LocalConnection<T>(pub T);

impl<T: ToolSet> McpConnection for LocalConnection<T> {
    fn call_tool<'a>(
        &'a self,
        name: &'a str,
        args: Map<String, Value>,
    ) -> BoxFuture<'a, Result<ToolResult, ClientError>> {
        Box::pin(async move {
            let ctx = CallContext::default();
            self.0
                .call(name, args, &ctx)
                .await
                .map_err(|e| ClientError::Transport(e.to_string()))
        })
    }
}

/// Calls `tool` with typed arguments and decodes its structured output (unwrapping
/// `{"result": ...}` when `wrapped`). Used by generated client stubs.
pub async fn call_typed<C, A, O>(
    conn: &C,
    tool: &str,
    args: &A,
    wrapped: bool,
) -> Result<O, ClientError>
where
    C: McpConnection + ?Sized,
    A: Serialize,
    O: DeserializeOwned,
{
    let decode = |message: String| ClientError::Decode {
        tool: tool.to_owned(),
        message,
    };
    let args = match serde_json::to_value(args).map_err(|e| decode(e.to_string()))? {
        Value::Object(map) => map,
        other => {
            return Err(decode(format!(
                "arguments encode to {other}, not an object"
            )));
        }
    };
    let result = conn.call_tool(tool, args).await?;
    if result.is_error {
        return Err(ClientError::Tool {
            tool: tool.to_owned(),
            message: result.joined_text(),
        });
    }
    let value = match result.structured_content {
        Some(Value::Object(mut map)) if wrapped => map.remove("result").unwrap_or(Value::Null),
        Some(v) => v,
        None => serde_json::from_str(&result.joined_text()).unwrap_or(Value::Null),
    };
    serde_json::from_value(value).map_err(|e| decode(format!("decoding output: {e}")))
}
