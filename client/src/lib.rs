//! The client side of mcpgen: connecting to MCP servers and calling their tools.
//!
//! - [`config`]: the `mcpServers` configuration ([`McpConfig`], [`ServerConfig`]).
//! - [`Session`]: one connected server (its tools listed as [`ListedTool`]s) (stdio, Streamable HTTP or legacy SSE) with its
//!   guards: per-call timeout with cancellation, response size cap, tool allowlist, and the
//!   SSRF guard ([`ssrf`]) for HTTP and SSE URLs.
//! - [`registry`]: several servers behind one tool namespace, with a [`CircuitBreaker`] each.
//! - [`formats`] and [`llm`]: tool definitions in OpenAI and Anthropic formats, and a
//!   provider-agnostic tool-call loop.
//! - [`answer`]: what the client answers when a server asks (elicitation, sampling, roots),
//!   given to [`Session::connect_with`] or [`RegistryOptions::with_answers`].
//! - [`ClientError`]: why connecting or calling failed. [`McpConnection`], [`call_typed`] and
//!   their transport-neutral [`CallError`] come from `mcpgen-core`, where generated typed
//!   client stubs find them; a [`Session`] and a [`Registry`] are [`McpConnection`]s, and a
//!   [`ClientError`] converts to and from a [`CallError`].
#![deny(missing_docs)]

pub mod config;
/// Entry points for the fuzz targets (feature `fuzzing`); not part of the API.
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod fuzzing;
mod session;
pub mod ssrf;
mod task_call;
mod tool;
mod transport;

pub mod answer;
pub mod breaker;
pub mod enrich;
mod error;
pub mod formats;
pub mod llm;
mod message;
#[cfg(feature = "oauth")]
pub mod oauth;
pub mod observe;
pub mod registry;

pub use answer::{ClientAnswers, ElicitAnswer, ElicitRequest, Elicitor, Root};
pub use breaker::{BreakerConfig, BreakerOpen, CircuitBreaker};
pub use config::{ConfigError, ConfigProblem, Lifecycle, McpConfig, ServerConfig, TransportConfig};
pub use enrich::{EnrichCall, Enrichment, enrich, enrich_observed};
pub use error::ClientError;
pub use formats::{ToolCall, ToolDefinition, ToolNames};
pub use llm::{
    Llm, LlmError, LlmTurn, LoopError, LoopOptions, LoopOutcome, Message, run_tool_loop,
    run_tool_loop_observed,
};
pub use mcpgen_core::{CallError, McpConnection, ToolAnnotations, call_typed};
pub use observe::{ToolEvent, ToolObserver};
pub use registry::{RegisteredTool, Registry, RegistryOptions, ServerFailure};
pub use session::Session;
pub use tool::{ListedTool, ToolOrigin};

/// An error with its sources, for messages.
pub(crate) fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(e) = source {
        let next = e.to_string();
        if !text.contains(&next) {
            text.push_str(": ");
            text.push_str(&next);
        }
        source = e.source();
    }
    text
}
