#![doc = include_str!("../README.md")]
#![deny(missing_docs)]

pub use mcpgen_macros::{generate, mcp_tool, mcp_tools, tool_set};
pub use mcpgen_runtime::*;

#[cfg(feature = "mimalloc")]
mod allocator;
pub mod schemars;

/// The global allocator of a binary linking this crate with the `mimalloc` feature.
#[cfg(feature = "mimalloc")]
#[global_allocator]
static GLOBAL: allocator::MiMalloc = allocator::MiMalloc;

/// Calling MCP servers from Rust: sessions over stdio, Streamable HTTP and legacy SSE, guards,
/// a registry, LLM tool formats and a tool-call loop (the `client` feature).
#[cfg(feature = "client")]
pub use mcpgen_client as client;

/// The async runtime servers run on, so an application needs no `tokio` dependency of its
/// own: `#[mcpgen::tokio::main(crate = "mcpgen::tokio")]`.
pub use tokio;

/// What an application module needs to write tools: `use mcpgen::prelude::*;` brings the
/// attribute macros, the tool context, arguments and result types, and `schemars` with the
/// `JsonSchema` trait and derive, which works without a `schemars` dependency of your own.
pub mod prelude {
    pub use crate::schemars::{self, JsonSchema};
    pub use mcpgen_macros::{mcp_tool, mcp_tools, tool_set};
    pub use mcpgen_runtime::{Args, Content, ToolContext, ToolResult};
}
