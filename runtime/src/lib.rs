//! Runtime for mcpgen: what generated tool crates and hand-written tools link against.
//!
//! Generated crates name only `::mcpgen_runtime` paths; this crate is the facade over the
//! protocol and HTTP libraries underneath, so their churn stays here.
//!
//! - [`app`]: tools written in application code with `#[mcp_tool]` ([`AppToolSet`],
//!   [`ToolContext`]).
//! - [`tool`]: the static tool table ([`ToolDef`], its [`Access`], HTTP binding and annotations),
//!   from `mcpgen-core`.
//! - [`toolset`]: the [`ToolSet`] trait a server dispatches through, and the [`CallContext`]
//!   of one call.
//! - [`notify`]: progress and log notifications to the caller ([`Notifier`]) and the call's
//!   [`Cancellation`].
//! - [`result`]: [`ToolResult`], what a tool call returns (from `mcpgen-core`).
//! - [`input`]: what a tool may ask the client while it runs (elicitation, sampling, roots).
//! - [`prompt`]: prompts a server offers ([`PromptSet`], [`Prompt`]).
//! - [`resource`]: resources and resource templates a server offers ([`ResourceSet`]), and
//!   [`ResourceUpdates`] for subscribers.
//! - [`completion`]: suggestions for prompt arguments and template variables ([`Completer`]).
//! - [`upstream`]: the HTTP call an OpenAPI-derived tool makes to its REST API, and
//!   [`openapi`]: [`OpenApiTools`], a generated crate's tool table driven through one upstream.
//! - [`connection`]: [`McpConnection`] and [`call_typed`], what typed client stubs call
//!   through, failing with a [`CallError`] (from `mcpgen-core`; sessions to remote servers live
//!   in `mcpgen-client`), and [`LocalConnection`] to an in-process tool set.
//! - [`auth`]: API keys, signed tokens, and the [`Principal`] they yield (from
//!   `mcpgen-identity`).
//! - [`audit`]: one audit event per tool call, delivered to pluggable sinks.
//! - `metrics` (feature `metrics`): Prometheus metrics and `/metrics` (from `mcpgen-metrics`).
//! - [`search`]: the tool search index of search mode (`--tool-mode search`).
//! - `code` (feature `code-mode`): code mode (`--tool-mode code`), whose `execute` runs a
//!   JavaScript program against the tools in a sandbox, every inner call a real call.
//! - [`server`]: serving tool sets over stdio and Streamable HTTP, with auth, limits and audit.
#![deny(missing_docs)]
// Without a transport a server can be built but not served: what only serving reaches is unused.
#![cfg_attr(not(any(feature = "stdio", feature = "http")), allow(dead_code))]

/// One audit event per tool call, delivered to pluggable sinks (the `mcpgen-audit` crate).
pub use mcpgen_audit as audit;
pub use mcpgen_contract::app;
/// Authentication: credentials → [`Principal`] (API keys, signed tokens, the product's key
/// check, OAuth access tokens), from `mcpgen-identity`.
pub use mcpgen_identity::auth;
#[cfg(feature = "cli")]
pub mod cli;
/// Code mode (`--tool-mode code`), from `mcpgen-code`: the engine with the `code-mode`
/// feature, the listing and limits alone with `search`.
#[cfg(feature = "search")]
pub use mcpgen_code as code;
pub use mcpgen_contract::completion;
pub use mcpgen_contract::input;
pub use mcpgen_contract::notify;
pub use mcpgen_contract::prompt;
pub use mcpgen_contract::resource;
/// Who is calling, and what they may call ([`Principal::may_call`]), from `mcpgen-identity`.
pub use mcpgen_identity::principal;
/// Prometheus metrics of a server and their `/metrics` endpoint (the `mcpgen-metrics` crate).
#[cfg(feature = "metrics")]
pub use mcpgen_metrics as metrics;
#[cfg(feature = "openapi")]
pub use mcpgen_upstream::openapi;
#[cfg(feature = "search")]
pub mod search;
pub mod server;
pub use mcpgen_contract::tasks;
pub use mcpgen_contract::toolset;
pub use mcpgen_contract::trace;
/// The HTTP call an OpenAPI-derived tool makes to its REST API (the `mcpgen-upstream` crate).
#[cfg(feature = "openapi")]
pub use mcpgen_upstream as upstream;
mod views;

pub use mcpgen_core::{BoxFuture, connection, json_kind, result, tool, typescript, view};

pub use mcpgen_contract::app::args::Args;
pub use mcpgen_contract::app::{AppTool, AppToolSet, ToolContext};
pub use mcpgen_contract::completion::{Completer, Completion, CompletionRequest};
pub use mcpgen_contract::guard_report::{GuardRefusal, GuardReport};
pub use mcpgen_contract::local::LocalConnection;
pub use mcpgen_contract::notify::{Cancellation, LogLevel, Notifier, NotifyError};
pub use mcpgen_contract::prompt::{
    Prompt, PromptArgs, PromptArgument, PromptError, PromptMessage, PromptSet,
};
pub use mcpgen_contract::resource::{
    Resource, ResourceBody, ResourceContents, ResourceError, ResourceSet, ResourceTemplate,
    ResourceUpdates, TemplateRead,
};
pub use mcpgen_contract::toolset::{
    CallContext, CallerCredential, ForwardedHeaders, ToolError, ToolRate, ToolSet,
};
pub use mcpgen_core::{
    Access, ArgBinding, BodyBinding, DESCRIBE_TOOLS, Declaration, FullDefs, HttpBinding, Location,
    PropertyEncoding, SUMMARISED_NOTE, SecurityScheme, SecuritySchemeKind, ToolAnnotations,
    ToolDef, ViewDef, def_refs, with_summarised_note,
};
pub use mcpgen_core::{CallError, McpConnection, call_typed};
pub use mcpgen_core::{Content, ToolResult};
pub use mcpgen_identity::Principal;
#[cfg(feature = "openapi")]
pub use mcpgen_upstream::OpenApiTools;
#[cfg(all(feature = "openapi", feature = "oauth"))]
pub use mcpgen_upstream::TokenExchange;
#[cfg(feature = "openapi")]
pub use mcpgen_upstream::{
    Credential, GuardConfig, Invoked, PreparedRequest, TaskPolling, Upstream, UpstreamConfig,
    UpstreamError,
};

/// JSON Schema for application tools' types (schemars 1.x): derive
/// [`JsonSchema`](schemars::JsonSchema) on what `#[mcp_tool]` functions take and return.
pub use schemars1 as schemars;

/// Items generated code needs but applications should not call directly.
#[doc(hidden)]
pub mod __private {
    pub use mcpgen_contract::app::output::{
        OutputTag, RawOutput, ResultFallback, ResultOutput, ToolErrorText, ToolOutput,
        ValueFallback, ValueOutput,
    };
    pub use mcpgen_contract::app::{OutputShape, ToolMeta, name_taken, tool_def};
    pub use schemars1 as schemars;
    pub use serde;
    pub use serde_json;

    /// Decodes tool arguments into the tool's typed argument struct, turning a failure into
    /// [`crate::ToolError::InvalidArguments`] that names the tool and the serde message.
    pub fn decode_args<T: serde::de::DeserializeOwned>(
        tool: &str,
        args: &serde_json::Map<String, serde_json::Value>,
    ) -> Result<T, crate::ToolError> {
        // Deserialises straight from the borrowed map: no copy of the arguments per call.
        T::deserialize(args).map_err(|e| crate::ToolError::InvalidArguments {
            tool: tool.to_owned(),
            message: e.to_string(),
        })
    }
}
