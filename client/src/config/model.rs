//! What a configuration holds: the servers, their transports, and the guards each runs under.

use std::collections::BTreeMap;
use std::fmt;
use std::time::Duration;

/// Default per-call timeout, in milliseconds.
pub const DEFAULT_TIMEOUT_MS: u64 = 10_000;

/// Default cap on the size of one response, in bytes (1 MiB).
pub const DEFAULT_MAX_RESPONSE_BYTES: usize = 1024 * 1024;

/// All configured servers, by name.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct McpConfig {
    /// Servers by name, in name order.
    pub servers: BTreeMap<String, ServerConfig>,
}

/// How to reach one server, and the guards its session runs under.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerConfig {
    /// The transport and its endpoint.
    pub transport: TransportConfig,
    /// A disabled server is kept in the configuration but not connected to.
    pub disabled: bool,
    /// If set, only these tools are listed and callable.
    pub tools: Option<Vec<String>>,
    /// Per-call timeout.
    pub timeout: Duration,
    /// Whether HTTP/SSE URLs may point at loopback, private, link-local and similar addresses.
    pub allow_private: bool,
    /// Largest response accepted, in bytes; a larger one is an error, never truncated.
    pub max_response_bytes: usize,
    /// How a Streamable HTTP session starts (stdio and legacy SSE always initialize).
    pub lifecycle: Lifecycle,
}

/// How a Streamable HTTP session starts: the server entry's `lifecycle` field.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Lifecycle {
    /// The `initialize` handshake (MCP 2025-11-25 and earlier): `"initialize"`, the default.
    #[default]
    Initialize,
    /// `server/discover` and self-contained requests (MCP 2026-07-28): `"discover"`.
    Discover,
    /// `server/discover`, falling back to `initialize` for a server that does not know it:
    /// `"auto"`.
    Auto,
}

impl Lifecycle {
    /// The lifecycle named `name` in a server entry.
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "initialize" => Some(Self::Initialize),
            "discover" => Some(Self::Discover),
            "auto" => Some(Self::Auto),
            _ => None,
        }
    }
}

/// The transport of one server. Its `Debug` output shows the names of `env` variables and
/// headers but not their values, which often are credentials.
#[derive(Clone, PartialEq)]
pub enum TransportConfig {
    /// A child process speaking MCP over its stdin and stdout.
    Stdio {
        /// Program to run (looked up on `PATH`).
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Extra environment variables, added to the inherited environment.
        env: BTreeMap<String, String>,
    },
    /// Streamable HTTP (MCP 2025-03-26 and later).
    StreamableHttp {
        /// The MCP endpoint, e.g. `https://host/mcp`.
        url: String,
        /// Headers sent with every request.
        headers: BTreeMap<String, String>,
    },
    /// The legacy HTTP+SSE transport (MCP 2024-11-05).
    Sse {
        /// The SSE endpoint, e.g. `https://host/sse`.
        url: String,
        /// Headers sent with every request.
        headers: BTreeMap<String, String>,
    },
}

/// The keys of a map whose values are secret.
struct Redacted<'a>(&'a BTreeMap<String, String>);

impl fmt::Debug for Redacted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map()
            .entries(self.0.keys().map(|k| (k, "<redacted>")))
            .finish()
    }
}

impl fmt::Debug for TransportConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Stdio { command, args, env } => f
                .debug_struct("Stdio")
                .field("command", command)
                .field("args", args)
                .field("env", &Redacted(env))
                .finish(),
            Self::StreamableHttp { url, headers } => f
                .debug_struct("StreamableHttp")
                .field("url", url)
                .field("headers", &Redacted(headers))
                .finish(),
            Self::Sse { url, headers } => f
                .debug_struct("Sse")
                .field("url", url)
                .field("headers", &Redacted(headers))
                .finish(),
        }
    }
}

impl ServerConfig {
    /// A configuration with the default guards for `transport`.
    pub fn new(transport: TransportConfig) -> Self {
        Self {
            transport,
            disabled: false,
            tools: None,
            timeout: Duration::from_millis(DEFAULT_TIMEOUT_MS),
            allow_private: false,
            max_response_bytes: DEFAULT_MAX_RESPONSE_BYTES,
            lifecycle: Lifecycle::Initialize,
        }
    }

    /// Whether the allowlist (if any) admits tool `name`.
    pub fn allows_tool(&self, name: &str) -> bool {
        self.tools
            .as_ref()
            .is_none_or(|tools| tools.iter().any(|t| t == name))
    }
}

impl McpConfig {
    /// The servers that are not disabled.
    pub fn enabled(&self) -> impl Iterator<Item = (&str, &ServerConfig)> {
        self.servers
            .iter()
            .filter(|(_, s)| !s.disabled)
            .map(|(n, s)| (n.as_str(), s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_output_hides_secret_values() {
        let secret = || BTreeMap::from([("X-Key".to_owned(), "s3cret".to_owned())]);
        let config = McpConfig {
            servers: BTreeMap::from([
                (
                    "r".to_owned(),
                    ServerConfig::new(TransportConfig::StreamableHttp {
                        url: "http://h/mcp".into(),
                        headers: secret(),
                    }),
                ),
                (
                    "s".to_owned(),
                    ServerConfig::new(TransportConfig::Stdio {
                        command: "x".into(),
                        args: Vec::new(),
                        env: BTreeMap::from([("KEY".to_owned(), "s3cret".to_owned())]),
                    }),
                ),
                (
                    "t".to_owned(),
                    ServerConfig::new(TransportConfig::Sse {
                        url: "http://h/sse".into(),
                        headers: secret(),
                    }),
                ),
            ]),
        };
        let shown = format!("{config:?}");
        assert!(!shown.contains("s3cret"), "{shown}");
        assert!(shown.contains("X-Key") && shown.contains("KEY"), "{shown}");
    }
}
