//! mcpgen's generator: an OpenAPI document (Swagger 2.0, OpenAPI 3.0 or 3.1) plus a reviewed
//! allowlist (`mcp_tools.yaml`) becomes a typed MCP tool crate.
//!
//! The pipeline is parse → IR → emit:
//!
//! - [`spec`]: load JSON/YAML, bundle relative-file `$ref`s, upgrade Swagger 2.0, index operations;
//! - [`allowlist`]: read `mcp_tools.yaml`;
//! - [`select`]: turn the allowlisted operations into [`ir::Tool`]s, using [`schema`] for
//!   JSON Schema 2020-12 and [`naming`] for names;
//! - [`emit`]: turn the IR into a formatted crate.
#![deny(missing_docs)]

pub mod allowlist;
pub mod emit;
pub mod error;
pub mod ir;
pub mod naming;
pub mod schema;
pub mod select;
pub mod spec;

pub use error::{Error, Errors, Warning};
