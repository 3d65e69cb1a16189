//! The Synaplan tools, included at compile time from `specs/synaplan` by
//! `mcpgen::generate!` instead of being generated into files.
#![deny(missing_docs)]

// ANCHOR: generate
// `pub mod tools`, `pub mod types`, `pub mod client` and `pub mod search`: exactly what
// `mcpgen generate` writes for the same files, without main.rs.
mcpgen::generate!(
    spec = "../../specs/synaplan/openapi.yaml", // relative to this crate's Cargo.toml
    tools = "../../specs/synaplan/mcp_tools.yaml",
    plugins = "../../specs/synaplan/plugins", // optional: plugin manifests, */manifest.json
);
// ANCHOR_END: generate
