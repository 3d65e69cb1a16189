//! The Synaplan tools, included at compile time from `specs/synaplan` by
//! `mcpgen::generate!` instead of being generated into files.
#![deny(missing_docs)]

mcpgen::generate!(
    spec = "../../specs/synaplan/openapi.yaml",
    tools = "../../specs/synaplan/mcp_tools.yaml",
    plugins = "../../specs/synaplan/plugins",
);
