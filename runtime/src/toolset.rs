//! The trait servers dispatch tool calls through.

use std::future::Future;
use std::pin::Pin;

use serde_json::{Map, Value};

use crate::{ToolDef, ToolResult};

/// A boxed, sendable future, so [`ToolSet`] stays object-safe.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Per-call context handed to a tool set.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct CallContext {
    /// The JSON-RPC request id, if known.
    pub request_id: Option<String>,
}

/// Why a call could not be dispatched at all (as opposed to a tool that ran and failed,
/// which is a [`ToolResult`] with `is_error`).
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    /// No tool of that name in this set.
    #[error("unknown tool `{0}`")]
    UnknownTool(String),
    /// The arguments do not fit the tool's input schema.
    #[error("invalid arguments for tool `{tool}`: {message}")]
    InvalidArguments {
        /// Tool name.
        tool: String,
        /// What is wrong, naming the offending field where possible.
        message: String,
    },
}

/// A set of tools: a generated crate's dispatcher, or hand-written tools.
pub trait ToolSet: Send + Sync + 'static {
    /// The static tool table.
    fn tools(&self) -> &'static [ToolDef];

    /// Calls the tool `name` with `args`.
    fn call<'a>(
        &'a self,
        name: &'a str,
        args: Map<String, Value>,
        ctx: &'a CallContext,
    ) -> BoxFuture<'a, Result<ToolResult, ToolError>>;

    /// Looks a tool up by name.
    fn tool(&self, name: &str) -> Option<&'static ToolDef> {
        self.tools().iter().find(|t| t.name == name)
    }
}
