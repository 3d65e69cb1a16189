//! An application that manages rooms: configuration units with tools, prompts, secrets and
//! MCP servers, kept as one YAML file per room in a directory, and served as MCP tools written
//! with `#[mcp_tool]`.
//!
//! The server (`rooms-mcp`) serves every room at `/mcp`, for tokens issued for the server's
//! audience (`rooms` by default), and each room at `/mcp/<room>`, for tokens issued for that
//! room (`mcpgen token issue --audience <room>`): a token for one room is refused by every
//! other room's catalog.
//!
//! - [`model`]: what a room file holds.
//! - [`store`]: reading and atomically writing the files.
//! - [`tools`]: the tools (`list_rooms`, `inspect_room`, `create_room`, …).
//! - [`results`]: their typed results, which are the tools' output schemas.
//! - [`generate`]: drafting a tool with a language model; a plain function, not a tool.
#![deny(missing_docs)]

pub mod generate;
pub mod model;
pub mod results;
pub mod store;
pub mod tools;
