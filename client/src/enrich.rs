//! Prompt enrichment: before asking a model, call a few chosen tools for a user message and
//! put their results, each labelled with where it came from, into a block of text for the
//! prompt.
//!
//! The caller decides which tools to call and with what arguments (for example from keywords
//! in the message); the calls run concurrently. A failed call is left out of the context and
//! named in a note at the end of the block instead, so a model is never handed an error as
//! if it were data.
//!
//! The block looks like this:
//!
//! ```text
//! [weather/forecast] Paris: 18°C, sunny
//! [docs/search] 3 documents match "refund policy"
//! (not available: [crm/lookup_customer]: transport error: connection refused)
//! ```

use serde_json::{Map, Value};

use std::time::Instant;

use crate::formats::result_text;
use crate::observe::{Silent, ToolEvent, ToolObserver};
pub use crate::tool::ToolOrigin;
use mcpgen_core::McpConnection;

/// One tool call to make for a message.
#[derive(Debug, Clone, PartialEq)]
pub struct EnrichCall {
    /// The tool, as the connection names it.
    pub tool: String,
    /// Its arguments.
    pub args: Map<String, Value>,
}

impl EnrichCall {
    /// A call of `tool` with `args`.
    pub fn new(tool: impl Into<String>, args: Map<String, Value>) -> Self {
        Self {
            tool: tool.into(),
            args,
        }
    }
}

/// The outcome of one enrichment call.
#[derive(Debug, Clone, PartialEq)]
pub struct EnrichEntry {
    /// `server/tool` (the tool's name alone when the connection does not know its origin).
    pub source: String,
    /// The result as text, or why the call failed.
    pub text: String,
    /// Whether the call succeeded.
    pub ok: bool,
}

/// The results of enrichment: the block for the prompt and each call's outcome.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Enrichment {
    /// Text for the prompt; empty when no call was made.
    pub block: String,
    /// One entry per call, in the order the calls were given.
    pub entries: Vec<EnrichEntry>,
}

/// Calls the tools `select` picks for `message` through `conn`, concurrently, and formats the
/// results as described in the [module documentation](self).
pub async fn enrich<C, F>(conn: &C, message: &str, select: F) -> Enrichment
where
    C: McpConnection + ToolOrigin + ?Sized,
    F: FnOnce(&str) -> Vec<EnrichCall>,
{
    enrich_observed(conn, message, select, &Silent).await
}

/// Enriches like [`enrich`], telling `observer` as each call starts (`calling server/tool`)
/// and ends (`done` with its duration and `isError`, or `failed`).
pub async fn enrich_observed<C, F>(
    conn: &C,
    message: &str,
    select: F,
    observer: &dyn ToolObserver,
) -> Enrichment
where
    C: McpConnection + ToolOrigin + ?Sized,
    F: FnOnce(&str) -> Vec<EnrichCall>,
{
    let calls = select(message);
    let results = futures::future::join_all(calls.into_iter().map(|call| async move {
        let source = conn.origin(&call.tool).unwrap_or_else(|| call.tool.clone());
        observer.event(&ToolEvent::Calling {
            source: source.clone(),
        });
        let started = Instant::now();
        let outcome = conn.call_tool(&call.tool, call.args).await;
        let duration = started.elapsed();
        match outcome {
            Ok(result) => {
                observer.event(&ToolEvent::Done {
                    source: source.clone(),
                    duration,
                    is_error: result.is_error,
                });
                if result.is_error {
                    EnrichEntry {
                        source,
                        text: result.joined_text(),
                        ok: false,
                    }
                } else {
                    EnrichEntry {
                        source,
                        text: result_text(&result),
                        ok: true,
                    }
                }
            }
            Err(e) => {
                let text = e.to_string();
                observer.event(&ToolEvent::Failed {
                    source: source.clone(),
                    error: text.clone(),
                    duration,
                });
                EnrichEntry {
                    source,
                    text,
                    ok: false,
                }
            }
        }
    }))
    .await;
    let mut lines = Vec::new();
    for entry in results.iter().filter(|e| e.ok) {
        lines.push(format!("[{}] {}", entry.source, entry.text));
    }
    for entry in results.iter().filter(|e| !e.ok) {
        let why = entry.text.lines().next().unwrap_or("failed");
        lines.push(format!("(not available: [{}]: {why})", entry.source));
    }
    Enrichment {
        block: lines.join("\n"),
        entries: results,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use mcpgen_core::{BoxFuture, CallError, ToolResult};

    /// Two "servers" in one connection: `weather/forecast` answers, `crm/lookup` is down,
    /// `docs/search` returns a tool error.
    struct Fake;

    impl McpConnection for Fake {
        fn call_tool<'a>(
            &'a self,
            name: &'a str,
            args: Map<String, Value>,
        ) -> BoxFuture<'a, Result<ToolResult, CallError>> {
            Box::pin(async move {
                match name {
                    "forecast" => Ok(ToolResult::text(format!(
                        "{}: 18°C, sunny",
                        args.get("city").and_then(Value::as_str).unwrap_or("?")
                    ))),
                    "lookup" => Err(CallError::Transport("connection refused".into())),
                    "search" => Ok(ToolResult::error("index is rebuilding\nretry later")),
                    other => Err(CallError::Transport(format!("unknown tool `{other}`"))),
                }
            })
        }
    }

    impl ToolOrigin for Fake {
        fn origin(&self, name: &str) -> Option<String> {
            match name {
                "forecast" => Some("weather/forecast".into()),
                "lookup" => Some("crm/lookup".into()),
                "search" => Some("docs/search".into()),
                _ => None,
            }
        }
    }

    fn args(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap_or_default()
    }

    #[tokio::test]
    async fn results_are_labelled_and_failures_noted() {
        let out = enrich(&Fake, "What about Paris?", |msg| {
            let mut calls = vec![EnrichCall::new("lookup", Map::new())];
            if msg.contains("Paris") {
                calls.push(EnrichCall::new("forecast", args(json!({"city": "Paris"}))));
            }
            calls.push(EnrichCall::new("search", Map::new()));
            calls.push(EnrichCall::new("nope", Map::new()));
            calls
        })
        .await;
        assert_eq!(
            out.block,
            "[weather/forecast] Paris: 18°C, sunny\n\
             (not available: [crm/lookup]: transport error: connection refused)\n\
             (not available: [docs/search]: index is rebuilding)\n\
             (not available: [nope]: transport error: unknown tool `nope`)"
        );
        let oks: Vec<(&str, bool)> = out
            .entries
            .iter()
            .map(|e| (e.source.as_str(), e.ok))
            .collect();
        assert_eq!(
            oks,
            [
                ("crm/lookup", false),
                ("weather/forecast", true),
                ("docs/search", false),
                ("nope", false)
            ]
        );
    }

    #[tokio::test]
    async fn the_observer_hears_each_call_start_and_end() {
        let heard = std::sync::Mutex::new(Vec::new());
        let observer = |e: &ToolEvent| {
            let line = match e {
                ToolEvent::Calling { source } => format!("calling {source}"),
                ToolEvent::Done {
                    source, is_error, ..
                } => format!("done {source} isError={is_error}"),
                ToolEvent::Failed { source, error, .. } => format!("failed {source}: {error}"),
            };
            heard.lock().unwrap().push(line);
        };
        enrich_observed(
            &Fake,
            "Paris",
            |_| {
                vec![
                    EnrichCall::new("forecast", args(json!({"city": "Paris"}))),
                    EnrichCall::new("search", Map::new()),
                    EnrichCall::new("lookup", Map::new()),
                ]
            },
            &observer,
        )
        .await;
        let mut heard = heard.into_inner().unwrap();
        heard.sort();
        assert_eq!(
            heard,
            [
                "calling crm/lookup",
                "calling docs/search",
                "calling weather/forecast",
                "done docs/search isError=true",
                "done weather/forecast isError=false",
                "failed crm/lookup: transport error: connection refused",
            ]
        );
    }

    #[tokio::test]
    async fn no_calls_give_an_empty_block() {
        let out = enrich(&Fake, "hello", |_| Vec::new()).await;
        assert_eq!(out, Enrichment::default());
    }
}
