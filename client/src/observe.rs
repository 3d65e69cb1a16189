//! Status events while tools run, for showing the person what is happening ("calling
//! weather/forecast", "done in 120 ms"): [`ToolObserver`] hears a [`ToolEvent`] when each call
//! of [`enrich_observed`](crate::enrich::enrich_observed) or
//! [`run_tool_loop_observed`](crate::llm::run_tool_loop_observed) starts and ends.

use std::time::{Duration, Instant};

use serde_json::Value;

use crate::tool::ToolOrigin;
use mcpgen_core::{McpConnection, ToolResult};

/// One status event of a tool call. `source` is `server/tool` when the connection knows the
/// tool's origin, else the tool's name.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ToolEvent {
    /// The call is being made.
    Calling {
        /// `server/tool`.
        source: String,
    },
    /// The server answered (`is_error` when the result is a tool error).
    Done {
        /// `server/tool`.
        source: String,
        /// How long the call took.
        duration: Duration,
        /// Whether the result has `isError: true`.
        is_error: bool,
    },
    /// The call got no result (transport error, timeout, unknown tool, open breaker, bad
    /// arguments).
    Failed {
        /// `server/tool`.
        source: String,
        /// Why.
        error: String,
        /// How long it took to fail.
        duration: Duration,
    },
}

impl std::fmt::Display for ToolEvent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ToolEvent::Calling { source } => write!(f, "calling {source}"),
            ToolEvent::Done {
                source,
                duration,
                is_error,
            } => write!(
                f,
                "done {source} in {} ms{}",
                duration.as_millis(),
                if *is_error { " (isError)" } else { "" }
            ),
            ToolEvent::Failed { source, error, .. } => write!(f, "failed {source}: {error}"),
        }
    }
}

/// Hears the [`ToolEvent`]s of tool calls. Any `Fn(&ToolEvent) + Send + Sync` closure is one.
pub trait ToolObserver: Send + Sync {
    /// Called as each event happens (keep it quick: calls wait for it).
    fn event(&self, event: &ToolEvent);
}

impl<F: Fn(&ToolEvent) + Send + Sync> ToolObserver for F {
    fn event(&self, event: &ToolEvent) {
        self(event)
    }
}

/// An observer that hears nothing.
pub(crate) struct Silent;

impl ToolObserver for Silent {
    fn event(&self, _event: &ToolEvent) {}
}

/// No origins known: every source is the tool's name.
pub(crate) struct NoOrigin;

impl ToolOrigin for NoOrigin {
    fn origin(&self, _name: &str) -> Option<String> {
        None
    }
}

/// Calls `name` through `conn`, telling `observer`; every failure becomes a failed result the
/// model can read. `arguments` that are not an object fail without a call.
pub(crate) async fn observed_call<C: McpConnection + ?Sized, O: ToolOrigin + ?Sized>(
    conn: &C,
    origin: &O,
    observer: &dyn ToolObserver,
    name: &str,
    arguments: &Value,
) -> ToolResult {
    let source = origin.origin(name).unwrap_or_else(|| name.to_owned());
    let started = Instant::now();
    let args = match arguments {
        Value::Object(map) => map.clone(),
        other => {
            let message = match other {
                Value::String(raw) => {
                    format!("the arguments for `{name}` are not valid JSON: {raw}")
                }
                _ => format!(
                    "the arguments for `{name}` must be a JSON object, got {}",
                    mcpgen_core::json_kind(other)
                ),
            };
            observer.event(&ToolEvent::Failed {
                source,
                error: message.clone(),
                duration: started.elapsed(),
            });
            return ToolResult::error(message);
        }
    };
    observer.event(&ToolEvent::Calling {
        source: source.clone(),
    });
    match conn.call_tool(name, args).await {
        Ok(result) => {
            observer.event(&ToolEvent::Done {
                source,
                duration: started.elapsed(),
                is_error: result.is_error,
            });
            result
        }
        Err(e) => {
            let error = e.to_string();
            observer.event(&ToolEvent::Failed {
                source,
                error: error.clone(),
                duration: started.elapsed(),
            });
            ToolResult::error(error)
        }
    }
}
