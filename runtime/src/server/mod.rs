//! Serving tools over MCP: stdio and Streamable HTTP, with authentication, per-principal tool
//! visibility, rate limits, argument validation and audit records.
//!
//! Build a [`Server`] from one or more [`ToolSet`](crate::ToolSet)s with [`Server::builder`],
//! then serve it:
//!
//! ```no_run
//! # use mcpgen_runtime::{Principal, ToolSet};
//! # async fn run(tools: impl ToolSet) -> Result<(), mcpgen_runtime::server::ServerError> {
//! use mcpgen_runtime::server::{Server, shutdown_signal};
//!
//! let server = Server::builder("synaplan", "1.0.0")
//!     .description("Synaplan chat, RAG search and file tools")
//!     .tool_set(tools)
//!     .no_auth()
//!     .rate_limit(Some(20.0))
//!     .build()?;
//! server
//!     .serve_http("127.0.0.1:8080".parse().expect("an address"), shutdown_signal())
//!     .await?;
//! # Ok(()) }
//! ```
//!
//! Every `tools/call` goes through the same steps whatever the transport: the tool must be
//! visible to the caller ([`Principal::may_call`](crate::principal::Principal::may_call); a
//! hidden tool is answered exactly like an unknown one), the caller's rate limit must allow
//! it, the arguments must match the tool's input schema (otherwise an `isError` result names
//! the field and the tool is not called), then the owning tool set runs it, and one audit
//! event records the outcome before the client gets the answer.
//!
//! HTTP routes ([`Server::router`]): `/mcp` (Streamable HTTP; sessions for clients that
//! `initialize`, stateless JSON responses for the 2026-07-28 protocol), `GET /sse` with
//! `POST /message?sessionId=` (legacy HTTP+SSE, 2024-11-05), `GET /healthz`,
//! `GET /.well-known/mcp.json` and `GET /mcp/server-card`; with a base path
//! ([`ServerBuilder::base_path`]) all of them move under it (see [`Placement`]).
//!
//! Several catalogs can share one server: each [`Mount`] is served at `/mcp/<name>` (and
//! `/mcp/<name>/sse`, `/mcp/<name>/message`) with its own tool sets and authenticators, e.g.
//! a signed-token audience per catalog. The server's own tool sets stay at `/mcp`; a server
//! with mounts and no tool sets of its own serves only the mounts. [`Server::mount`] and
//! [`Server::unmount`] add and remove catalogs while the server runs.
//!
//! Prompts ([`ServerBuilder::prompts`]) and resources ([`ServerBuilder::resources`]) are served
//! at `/mcp`, next to the server's own tools.

#[cfg(feature = "http")]
mod authn;
mod builder;
#[cfg(feature = "http")]
mod call_request;
#[cfg(feature = "http")]
mod card;
mod catalog;
mod catalog_config;
#[cfg(feature = "http")]
mod catalog_routes;
mod config;
mod confirm;
#[cfg(feature = "http")]
pub(crate) mod connections;
mod describe;
mod error;
mod full_schema;
mod handler;
#[cfg(feature = "http")]
mod http;
#[cfg(all(feature = "http", feature = "otel"))]
mod http_trace;
#[cfg(feature = "http")]
mod malformed;
mod mount;
mod mounting;
#[cfg(feature = "oauth")]
mod oauth;
#[cfg(feature = "http")]
mod param_headers;
mod pipeline;
#[cfg(feature = "http")]
mod placement;
mod prompts;
mod rate;
#[cfg(feature = "http")]
mod ready;
#[cfg(feature = "http")]
mod rebinding;
#[cfg(feature = "http")]
mod refused;
#[cfg(feature = "http")]
mod replica;
#[cfg(feature = "http")]
mod reply;
#[cfg(feature = "http")]
mod resource_site;
mod resources;
#[cfg(feature = "search")]
mod search;
#[cfg(feature = "search")]
mod search_call;
#[cfg(feature = "redis")]
mod shared_rate;
#[cfg(feature = "http")]
mod shared_service;
mod shutdown;
#[cfg(feature = "legacy-sse")]
mod sse;
mod state;
#[cfg(feature = "http")]
mod stateless;
#[cfg(feature = "http")]
mod stateless_reads;
#[cfg(feature = "stdio")]
mod stdio;
#[cfg(feature = "http")]
mod tools_list;
mod validate;

pub use builder::ServerBuilder;
#[cfg(feature = "search")]
pub use config::ToolMode;
#[cfg(feature = "http")]
pub use config::{DEFAULT_BODY_READ_TIMEOUT, DEFAULT_HEADER_READ_TIMEOUT, DEFAULT_MAX_BODY_BYTES};
pub use config::{DEFAULT_SHUTDOWN_TIMEOUT, OutputCheck, Unconfirmable};
pub use describe::DESCRIBE_TOOL;
pub use error::{ConfigProblem, ServerError};
pub use mount::{MAX_CATALOG_NAME_LEN, Mount};
#[cfg(feature = "http")]
pub use placement::Placement;
#[cfg(feature = "http")]
pub use reply::AUTH_ERROR_CODE;
#[cfg(feature = "search")]
pub use search::{CALL_TOOL, SEARCH_TOOL};
#[cfg(feature = "redis")]
pub use shared_rate::{RedisLimiter, RedisUnavailable, RedisUrlError};
pub use shutdown::shutdown_signal;
pub use state::Server;

// `pipeline` reads the shared state through this module.
use state::Inner;

/// What code mode (`crate::code`) runs its `execute` and inner calls through.
#[cfg(feature = "code-mode")]
pub(crate) mod for_code {
    pub(crate) use super::catalog::Catalog;
    pub(crate) use super::describe::{
        DESCRIBE_TOOL, MetaTool, definition, describe_tool, meta_tool, structured,
    };
    pub(crate) use super::pipeline::{Answer, call_inner, echoed, unknown_tool_message};
    pub(crate) use super::search::{Meta, SEARCH_TOOL};
    pub(crate) use super::state::Inner;
}
