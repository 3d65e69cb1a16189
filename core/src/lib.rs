//! The model mcpgen's servers and clients share, free of any transport:
//!
//! - [`tool`]: the static tool table ([`ToolDef`], its [`Access`], HTTP binding and annotations);
//! - [`result`]: [`ToolResult`] and its [`Content`] blocks, what a tool call returns;
//! - [`connection`]: [`McpConnection`], anything that calls tools, and [`call_typed`], what
//!   generated typed client stubs call through;
//! - [`error`]: [`CallError`], why a call through a connection failed;
//! - [`typescript`]: TypeScript declarations of tools, from their schemas, for programs that
//!   call them.
//! - [`view`]: views (MCP Apps) derived from output schemas, and their HTML.
//! - [`json_pointer`]: JSON Pointer tokens escaped and joined, for every place a message names.
//! - [`breaker`]: the circuit breaker's state machine, for the server's upstreams and the
//!   client's servers.
#![deny(missing_docs)]

pub mod breaker;
pub mod connection;
pub mod error;
pub mod json_pointer;
pub mod result;
pub mod tool;
pub mod typescript;
pub mod view;

pub use connection::{McpConnection, call_typed};
pub use error::CallError;
pub use result::{Content, ToolResult};
pub use tool::{
    Access, ArgBinding, BodyBinding, DESCRIBE_TOOLS, Declaration, FullDefs, HttpBinding, Location,
    PropertyEncoding, SUMMARISED_NOTE, SecurityScheme, SecuritySchemeKind, ToolAnnotations,
    ToolDef, def_refs, with_summarised_note,
};
pub use view::ViewDef;

use std::future::Future;
use std::pin::Pin;

/// A boxed, sendable future, so the traits that return one stay object-safe.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// "an object", "a string", ... : what kind of JSON value this is, for messages.
pub fn json_kind(value: &serde_json::Value) -> &'static str {
    use serde_json::Value;
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The MCP registry name of a server named `server` when none is configured:
/// `mcpgen.local/<server>`, characters outside `[A-Za-z0-9._-]` replaced by `-`. The server
/// card and the generated `server.json` both use it, so they agree.
pub fn registry_name(server: &str) -> String {
    let name: String = server
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '-'
            }
        })
        .collect();
    let name = if name.is_empty() { "server" } else { &name };
    format!("mcpgen.local/{name}")
}
