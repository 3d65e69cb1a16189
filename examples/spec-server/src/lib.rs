//! The tools of the library API (`specs/library2`), included at compile time: the modules
//! `tools`, `types`, `client` and `search` that `mcpgen generate` would write for the same files.
#![allow(missing_docs)]

// ANCHOR: generate
mcpgen::generate!(
    spec = "../../specs/library2/openapi.json", // relative to this crate's Cargo.toml
    tools = "../../specs/library2/mcp_tools.yaml",
);
// ANCHOR_END: generate
