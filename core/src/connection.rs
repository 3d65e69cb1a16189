//! Calling tools over a connection: what generated typed client stubs need.
//!
//! [`McpConnection`] is anything that can call an MCP tool; [`call_typed`] encodes typed
//! arguments and decodes a typed output through one. The server runtime's `LocalConnection`
//! calls an in-process tool set; remote sessions (stdio, Streamable HTTP, legacy SSE) live in
//! `mcpgen-client`.

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::BoxFuture;
use crate::result::ToolResult;

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
    /// The session could not be established (process start, HTTP, handshake).
    #[error("server `{server}`: cannot connect: {message}")]
    Connect {
        /// Server name.
        server: String,
        /// What failed.
        message: String,
    },
    /// The SSRF guard refused the server's address.
    #[error(
        "server `{server}`: refused to connect to `{host}` at {address} ({reason}); set `allow_private: true` for this server to allow it"
    )]
    Blocked {
        /// Server name.
        server: String,
        /// Host as written in the URL.
        host: String,
        /// The refused address.
        address: String,
        /// Which range it is in.
        reason: String,
    },
    /// The server did not answer within `timeout_ms`; the request was cancelled.
    #[error("server `{server}`: {operation} timed out after {timeout_ms} ms (request cancelled)")]
    Timeout {
        /// Server name.
        server: String,
        /// What timed out, e.g. ``tools/call `echo` ``.
        operation: String,
        /// The configured timeout.
        timeout_ms: u64,
    },
    /// The response was larger than `max_response_bytes`; it was discarded, not truncated.
    #[error(
        "server `{server}`: {operation}: response{} exceeds max_response_bytes ({limit} bytes); nothing was kept",
        size.map(|s| format!(" of {s} bytes")).unwrap_or_default()
    )]
    ResponseTooLarge {
        /// Server name.
        server: String,
        /// The request whose response was too large.
        operation: String,
        /// The response's size, when known.
        size: Option<u64>,
        /// The configured cap.
        limit: usize,
    },
    /// The server answered with a JSON-RPC error (e.g. unknown tool, invalid arguments).
    #[error("server `{server}`: {operation} failed: {message} (JSON-RPC error {code})")]
    Rpc {
        /// Server name.
        server: String,
        /// The request.
        operation: String,
        /// JSON-RPC error code.
        code: i32,
        /// The server's message.
        message: String,
    },
    /// The server's circuit breaker is open after repeated failures; nothing was sent.
    #[error(transparent)]
    Unavailable(#[from] BreakerOpen),
    /// No tool of that name in a registry; nothing was sent.
    #[error("no tool `{name}` in the registry (tools: {known})")]
    UnknownTool {
        /// The name asked for.
        name: String,
        /// Some of the names that exist, for the message.
        known: String,
    },
    /// The tool is not in the server's `tools` allowlist; nothing was sent.
    #[error("server `{server}`: tool `{tool}` is not in the server's `tools` allowlist")]
    NotAllowed {
        /// Server name.
        server: String,
        /// Tool name.
        tool: String,
    },
}

/// A call refused because a circuit breaker (in `mcpgen-client`) is open (or its one probe is already in flight).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "server `{server}` is unavailable: circuit breaker open after {failures} consecutive failures; {}",
    retry_text(*.retry_in)
)]
pub struct BreakerOpen {
    /// The server the breaker guards.
    pub server: String,
    /// The failure threshold that opened it.
    pub failures: u32,
    /// How long until a probe call is allowed; zero when a probe is in flight right now.
    pub retry_in: std::time::Duration,
}

fn retry_text(retry_in: std::time::Duration) -> String {
    if retry_in.is_zero() {
        "a probe call is in flight, retry when it completes".to_owned()
    } else {
        // Whole seconds, rounded up, so "retrying in 0 s" is never printed while still open.
        let ms = retry_in.as_millis();
        let secs = ms.div_ceil(1000);
        format!("next attempt allowed in {secs} s")
    }
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

impl<T: McpConnection + ?Sized> McpConnection for &T {
    fn call_tool<'a>(
        &'a self,
        name: &'a str,
        args: Map<String, Value>,
    ) -> BoxFuture<'a, Result<ToolResult, ClientError>> {
        (**self).call_tool(name, args)
    }
}

impl<T: McpConnection + ?Sized> McpConnection for std::sync::Arc<T> {
    fn call_tool<'a>(
        &'a self,
        name: &'a str,
        args: Map<String, Value>,
    ) -> BoxFuture<'a, Result<ToolResult, ClientError>> {
        (**self).call_tool(name, args)
    }
}

impl<T: McpConnection + ?Sized> McpConnection for Box<T> {
    fn call_tool<'a>(
        &'a self,
        name: &'a str,
        args: Map<String, Value>,
    ) -> BoxFuture<'a, Result<ToolResult, ClientError>> {
        (**self).call_tool(name, args)
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
        None => {
            let text = result.joined_text();
            match serde_json::from_str(&text) {
                Ok(value) => value,
                // No JSON at all (e.g. "204 No Content"): fits an output type that allows null.
                Err(_) => {
                    return serde_json::from_value(Value::Null).map_err(|_| {
                        let shown: String = text.chars().take(200).collect();
                        decode(format!(
                            "the result has no structured content and its text is not JSON: {shown:?}"
                        ))
                    });
                }
            }
        }
    };
    serde_json::from_value(value).map_err(|e| decode(format!("decoding output: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Answers every call with the same result.
    struct Canned(ToolResult);

    impl McpConnection for Canned {
        fn call_tool<'a>(
            &'a self,
            _name: &'a str,
            _args: Map<String, Value>,
        ) -> BoxFuture<'a, Result<ToolResult, ClientError>> {
            let result = self.0.clone();
            Box::pin(async move { Ok(result) })
        }
    }

    #[derive(Debug, serde::Deserialize, PartialEq)]
    struct Item {
        id: u32,
    }

    async fn typed<O: DeserializeOwned>(
        result: ToolResult,
        wrapped: bool,
    ) -> Result<O, ClientError> {
        call_typed(&Canned(result), "t", &serde_json::json!({}), wrapped).await
    }

    #[tokio::test]
    async fn structured_wrapped_and_textual_json_outputs_decode() {
        let item: Item = typed(ToolResult::json(serde_json::json!({"id": 1}), false), false)
            .await
            .expect("object");
        assert_eq!(item, Item { id: 1 });
        let items: Vec<Item> = typed(ToolResult::json(serde_json::json!([{"id": 2}]), true), true)
            .await
            .expect("wrapped array");
        assert_eq!(items, [Item { id: 2 }]);
        let item: Item = typed(ToolResult::text(r#"{"id": 3}"#), false)
            .await
            .expect("JSON text");
        assert_eq!(item, Item { id: 3 });
    }

    #[tokio::test]
    async fn text_that_is_not_json_fits_only_an_output_that_allows_null() {
        let none: Option<Item> = typed(ToolResult::text("204 No Content"), false)
            .await
            .expect("null fits an Option");
        assert_eq!(none, None);
        let err = typed::<Item>(ToolResult::text("204 No Content"), false)
            .await
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "tool `t`: the result has no structured content and its text is not JSON: \"204 No Content\""
        );
    }

    #[tokio::test]
    async fn an_error_result_is_a_tool_error_with_its_text() {
        let err = typed::<Item>(ToolResult::error("upstream said 500"), false)
            .await
            .unwrap_err();
        assert!(matches!(err, ClientError::Tool { .. }));
        assert_eq!(err.to_string(), "tool `t` failed: upstream said 500");
    }
}
