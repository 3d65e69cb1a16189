//! The compile failures of `#[mcp_tool]`, `mcp_tools!`, `tool_set!` and `generate!`: one case
//! per mistake in `tests/ui/`, each with the message it must give (`tests/ui.rs`). The library
//! is empty; the package exists for its test's dependencies.
