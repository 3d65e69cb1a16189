//! What tool sets and the server that calls them share: the contract between a tool and the
//! call pipeline.
//!
//! - [`toolset`]: the [`ToolSet`] trait a server dispatches through, and the [`CallContext`]
//!   of one call.
//! - [`app`]: tools written in application code with `#[mcp_tool]` ([`AppToolSet`],
//!   [`ToolContext`]).
//! - [`notify`]: progress and log notifications to the caller ([`Notifier`]) and the call's
//!   [`Cancellation`].
//! - [`input`]: what a tool may ask the client while it runs (elicitation, sampling, roots).
//! - [`tasks`]: MCP tasks, the table of calls that run on after their request was answered.
//! - [`prompt`]: prompts a server offers ([`PromptSet`], [`Prompt`]).
//! - [`resource`]: resources and resource templates a server offers ([`ResourceSet`]), and
//!   [`ResourceUpdates`] for subscribers.
//! - [`completion`]: suggestions for prompt arguments and template variables ([`Completer`]).
//! - [`trace`]: the W3C trace context of a call.
//!
//! The server runtime (`mcpgen-runtime`) re-exports these modules under the same names
//! (`mcpgen_runtime::toolset`, `mcpgen_runtime::ToolSet`, …); this crate knows nothing of
//! transports, upstream APIs or code mode.
#![deny(missing_docs)]

pub mod app;
pub mod completion;
/// What an upstream's guard did with a call ([`GuardReport`]), told to the tool set's caller.
#[doc(hidden)]
pub mod guard_report;
pub mod input;
/// [`LocalConnection`]: an in-process connection to a tool set.
#[doc(hidden)]
pub mod local;
pub mod notify;
pub mod prompt;
pub mod resource;
pub mod tasks;
pub mod toolset;
pub mod trace;
/// Our content and listings in rmcp's model, for the server and code mode.
#[doc(hidden)]
pub mod wire;

pub use app::args::Args;
pub use app::{AppTool, AppToolSet, ToolContext};
pub use completion::{Completer, Completion, CompletionRequest};
pub use guard_report::{GuardRefusal, GuardReport};
pub use local::LocalConnection;
pub use notify::{Cancellation, LogLevel, Notifier, NotifyError};
pub use prompt::{Prompt, PromptArgs, PromptArgument, PromptError, PromptMessage, PromptSet};
pub use resource::{
    Resource, ResourceBody, ResourceContents, ResourceError, ResourceSet, ResourceTemplate,
    ResourceUpdates, TemplateRead,
};
pub use toolset::{CallContext, CallerCredential, ForwardedHeaders, ToolError, ToolRate, ToolSet};
