//! The commands that serve something until stopped: `mcpgen mock` (a stand-in of the API a
//! spec describes) and `mcpgen serve` (the MCP server of a spec and its allowlist, made at
//! start-up, and made again on each edit with `--watch`).

pub(crate) mod mock;
pub(crate) mod serve;
mod watch;
