//! The `mcpServers` configuration: which MCP servers a client connects to, and how.
//!
//! The format is the one Claude Desktop and most agents read:
//!
//! ```json
//! {
//!   "mcpServers": {
//!     "files": { "command": "npx", "args": ["-y", "server-filesystem", "/tmp"], "env": {"DEBUG": "${DEBUG}"} },
//!     "remote": { "url": "https://mcp.example.com/mcp", "headers": {"X-API-Key": "${REMOTE_KEY}"} },
//!     "legacy": { "url": "https://old.example.com/sse", "transport": "sse" }
//!   }
//! }
//! ```
//!
//! Every entry may also carry `disabled`, `tools` (an allowlist of tool names),
//! `timeout_ms` (default 10 000), `allow_private` (default `false`) and
//! `max_response_bytes` (default 1 MiB). `${VAR}` in `env` and `headers` values is replaced
//! by the environment variable `VAR`; an unset variable is an error. Unknown fields are errors.
//!
//! Reading a configuration runs in steps, one module each: `load` finds and reads the file,
//! `parse` walks the document and its entries (reading typed fields through `fields`),
//! `expand` replaces `${VAR}` references, and `check` validates URLs and headers. `model`
//! holds what comes out, `error` what goes wrong.

mod check;
mod error;
mod expand;
mod fields;
mod load;
mod model;
mod parse;

pub use error::{ConfigError, ConfigProblem};
pub use load::CONFIG_ENV;
pub use model::{
    DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_TIMEOUT_MS, Lifecycle, McpConfig, ServerConfig,
    TransportConfig,
};
