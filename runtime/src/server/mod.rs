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
//! visible to the caller ([`Principal::may_call`](mcpgen_identity::Principal::may_call); a
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
//! [`Server::replace_tools`] swaps the tools of the server's own catalog while it serves
//! (`mcpgen serve --watch`), telling open sessions when built with
//! [`ServerBuilder::tools_list_changed`].
//!
//! Prompts ([`ServerBuilder::prompts`]) and resources ([`ServerBuilder::resources`]) are served
//! at `/mcp`, next to the server's own tools.

#[cfg(feature = "http")]
pub(crate) mod access;
pub(crate) mod builder;
pub(crate) mod call;
pub(crate) mod catalog;
pub(crate) mod config;
#[cfg(feature = "http")]
pub(crate) mod edge_limits;
pub(crate) mod error;
mod mounting;
mod replacing;
pub(crate) mod state;
mod task_limits;
#[cfg(all(feature = "http", feature = "redis"))]
pub(crate) mod tasks_shared;
pub(crate) mod transport;

#[cfg(feature = "search")]
pub use crate::search::SEARCH_TOOL;
#[cfg(feature = "http")]
pub use access::reply::AUTH_ERROR_CODE;
pub use builder::ServerBuilder;
pub use catalog::meta_tool::DESCRIBE_TOOL;
pub use catalog::mount::{MAX_CATALOG_NAME_LEN, Mount};
#[cfg(feature = "search")]
pub use catalog::search::CALL_TOOL;
#[cfg(feature = "search")]
pub use config::ToolMode;
#[cfg(feature = "http")]
pub use config::{DEFAULT_BODY_READ_TIMEOUT, DEFAULT_HEADER_READ_TIMEOUT, DEFAULT_MAX_BODY_BYTES};
#[cfg(feature = "http")]
pub use config::{
    DEFAULT_MAX_CONNECTIONS, DEFAULT_SESSIONS_MAX, DEFAULT_SESSIONS_MAX_PER_PRINCIPAL,
};
pub use config::{DEFAULT_SHUTDOWN_TIMEOUT, OutputCheck, Unconfirmable};
pub use error::{ConfigProblem, ServerError};
#[cfg(feature = "redis")]
pub use mcpgen_policy::shared_rate::{RedisLimiter, RedisUnavailable, RedisUrlError};
#[cfg(all(feature = "http", feature = "redis"))]
pub use mcpgen_state::{SharedState, StateUrlError};
#[cfg(feature = "http")]
pub use state::placement::Placement;
pub use state::server::Server;
#[cfg(not(feature = "http"))]
pub use transport::no_http::HttpFeature;
pub use transport::shutdown::shutdown_signal;
