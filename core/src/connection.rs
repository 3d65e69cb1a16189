//! Calling tools over a connection: what generated typed client stubs need.
//!
//! [`McpConnection`] is anything that can call an MCP tool; [`call_typed`] encodes typed
//! arguments and decodes a typed output through one; both fail with a [`CallError`]. The
//! server runtime's `LocalConnection` calls an in-process tool set; remote sessions (stdio,
//! Streamable HTTP, legacy SSE) live in `mcpgen-client`.

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::BoxFuture;
use crate::error::CallError;
use crate::result::ToolResult;

/// Anything that can call an MCP tool: a remote client session, or a local tool set.
pub trait McpConnection: Send + Sync {
    /// Calls tool `name` with `args` and returns its result. A tool that fails answers with a
    /// result whose `is_error` is set; `Err` means the call itself did not complete.
    fn call_tool<'a>(
        &'a self,
        name: &'a str,
        args: Map<String, Value>,
    ) -> BoxFuture<'a, Result<ToolResult, CallError>>;
}

impl<T: McpConnection + ?Sized> McpConnection for &T {
    fn call_tool<'a>(
        &'a self,
        name: &'a str,
        args: Map<String, Value>,
    ) -> BoxFuture<'a, Result<ToolResult, CallError>> {
        (**self).call_tool(name, args)
    }
}

impl<T: McpConnection + ?Sized> McpConnection for std::sync::Arc<T> {
    fn call_tool<'a>(
        &'a self,
        name: &'a str,
        args: Map<String, Value>,
    ) -> BoxFuture<'a, Result<ToolResult, CallError>> {
        (**self).call_tool(name, args)
    }
}

impl<T: McpConnection + ?Sized> McpConnection for Box<T> {
    fn call_tool<'a>(
        &'a self,
        name: &'a str,
        args: Map<String, Value>,
    ) -> BoxFuture<'a, Result<ToolResult, CallError>> {
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
) -> Result<O, CallError>
where
    C: McpConnection + ?Sized,
    A: Serialize,
    O: DeserializeOwned,
{
    let decode = |message: String| CallError::Decode {
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
        return Err(CallError::Tool {
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
        ) -> BoxFuture<'a, Result<ToolResult, CallError>> {
            let result = self.0.clone();
            Box::pin(async move { Ok(result) })
        }
    }

    #[derive(Debug, serde::Deserialize, PartialEq)]
    struct Item {
        id: u32,
    }

    async fn typed<O: DeserializeOwned>(result: ToolResult, wrapped: bool) -> Result<O, CallError> {
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
        assert!(matches!(err, CallError::Tool { .. }));
        assert_eq!(err.to_string(), "tool `t` failed: upstream said 500");
    }
}
