//! Why a server could not be built or served: [`ServerError`], and the [`ConfigProblem`]s
//! [`ServerBuilder::build`](super::ServerBuilder::build) collects.

/// Why a server could not be built or served.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServerError {
    /// The configuration has problems; all of them are listed.
    #[error("the server cannot be built:\n{}", list(.0))]
    Config(Vec<ConfigProblem>),
    /// `serve_http` was asked to listen on a non-loopback address without authentication.
    #[error(
        "refusing to serve on {addr} without authentication: the address is reachable from \
         other machines. Configure API keys (--keys FILE) or signed tokens \
         (--token-secret-env VAR), or, if every client is trusted, pass --insecure-no-auth \
         (ServerBuilder::insecure_no_auth(true))"
    )]
    InsecureNoAuth {
        /// The address that was refused.
        addr: std::net::SocketAddr,
    },
    /// The listening socket could not be opened.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address.
        addr: std::net::SocketAddr,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// The HTTP server failed while running.
    #[error("the HTTP server failed: {0}")]
    Http(#[source] std::io::Error),
    /// The stdio (or in-memory) connection failed.
    #[error("the MCP connection failed: {0}")]
    Connection(String),
}

fn list(problems: &[ConfigProblem]) -> String {
    problems
        .iter()
        .map(|p| format!("  - {p}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// One configuration problem found by [`ServerBuilder::build`](super::ServerBuilder::build).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigProblem {
    /// Two tools have the same name.
    #[error(
        "tool `{tool}` is defined twice (tool sets #{first_set} and #{second_set}, counted \
         from 1 in the order they were added); tool names must be unique across all tool sets"
    )]
    DuplicateTool {
        /// The tool name.
        tool: String,
        /// The tool set that defined it first (1-based).
        first_set: usize,
        /// The tool set that defined it again (1-based).
        second_set: usize,
    },
    /// A tool's input or output schema does not parse or compile.
    #[error("tool `{tool}`: the {which} schema is unusable: {message}")]
    InvalidSchema {
        /// The tool name.
        tool: String,
        /// `input` or `output`.
        which: &'static str,
        /// What is wrong.
        message: String,
    },
    /// The default rate limit is not a positive number.
    #[error("rate limit {value} is invalid: give a positive number of calls per second")]
    InvalidRateLimit {
        /// The configured value.
        value: f64,
    },
    /// An allowed-host entry cannot be used.
    #[error("allowed host `{entry}`: {reason}")]
    InvalidAllowedHost {
        /// The entry as configured.
        entry: String,
        /// What is wrong.
        reason: String,
    },
    /// An allowed-origin entry cannot be used.
    #[error("allowed origin `{entry}`: {reason}")]
    InvalidAllowedOrigin {
        /// The entry as configured.
        entry: String,
        /// What is wrong.
        reason: String,
    },
    /// The body size limit is zero.
    #[error("the request body limit must be at least 1 byte")]
    InvalidMaxBodyBytes,
    /// The key that seals the `requestState` of stateless calls cannot be used.
    #[error("the request state key cannot be used: {reason}")]
    InvalidRequestStateKey {
        /// What is wrong with it.
        reason: String,
    },
    /// In search mode, a served tool has the name of a meta-tool.
    #[error(
        "tool `{tool}` (tool set #{set}{}) has the name of the search-mode meta-tool `{tool}`; \
         rename the tool (the allowlist entry's `name:`) or serve with --tool-mode all",
        operation.as_ref().map(|o| format!(", {o}")).unwrap_or_default()
    )]
    MetaToolCollision {
        /// The tool name, which is also the meta-tool's.
        tool: String,
        /// The tool set that defines it (1-based).
        set: usize,
        /// The operation behind it, for OpenAPI tools.
        operation: Option<String>,
    },
    /// A tool set's compiled search index cannot be used.
    #[error("tool set #{set}: {message}")]
    InvalidSearchIndex {
        /// The tool set (1-based).
        set: usize,
        /// What is wrong.
        message: String,
    },
    /// A pinned tool is not served.
    #[error(
        "pinned tool `{tool}` is not served by this server{}",
        if closest.is_empty() { String::new() } else { format!("; closest: {}", closest.join(", ")) }
    )]
    UnknownPinnedTool {
        /// The name as configured.
        tool: String,
        /// Served tools that match the name best.
        closest: Vec<String>,
    },
    /// A header named for forwarding cannot be forwarded.
    #[error("forwarded header `{name}`: {reason}")]
    InvalidForwardHeader {
        /// The name as configured.
        name: String,
        /// What is wrong.
        reason: String,
    },
    /// A mount's name cannot be a path segment of `/mcp/<name>`.
    #[error(
        "catalog name `{name}` is invalid: {reason}; a catalog name must match \
         ^[A-Za-z0-9_-]{{1,64}}$"
    )]
    InvalidCatalogName {
        /// The name as configured.
        name: String,
        /// What is wrong.
        reason: String,
    },
    /// Two mounts have the same name.
    #[error("catalog `{name}` is mounted twice; every catalog at /mcp/<name> needs its own name")]
    DuplicateCatalog {
        /// The name.
        name: String,
    },
    /// A problem with the tool sets of one mount.
    #[error("catalog `{catalog}` (/mcp/{catalog}): {problem}")]
    InCatalog {
        /// The mount's name.
        catalog: String,
        /// What is wrong, counting the mount's tool sets from 1.
        problem: Box<ConfigProblem>,
    },
    /// The base path or public URL cannot be used (see
    /// [`ServerBuilder::base_path`](super::ServerBuilder::base_path)); the message names the
    /// flag.
    #[error("{reason}")]
    InvalidPlacement {
        /// What is wrong, naming the flag.
        reason: String,
    },
    /// A catalog mounted while serving a non-loopback address has no authenticator, its own
    /// or the server's.
    #[error(
        "the catalog has no authenticator, its own or the server's, and the server serves a \
         non-loopback address; give it one (Mount::authenticator), or allow this with \
         ServerBuilder::insecure_no_auth(true)"
    )]
    UnauthenticatedMount,
    /// A prompt cannot be served (see [`ServerBuilder::prompts`](super::ServerBuilder::prompts)).
    #[error("prompt `{prompt}`: {reason}")]
    InvalidPrompt {
        /// The prompt's name.
        prompt: String,
        /// What is wrong.
        reason: String,
    },
    /// Code mode (`ToolMode::Code`, `--tool-mode code`) was asked of a build without the
    /// `code-mode` feature, which carries the JavaScript engine.
    #[error(
        "--tool-mode code needs the `code-mode` feature, which this build lacks; rebuild with \
         `--features code-mode` (a generated crate's or mcpgen's feature), or serve with \
         --tool-mode search"
    )]
    CodeModeNotBuilt,
    /// Code mode's first worker process did not start or did not answer as one (see
    /// [`run_worker_if_asked`](mcpgen_code::run_worker_if_asked)).
    #[cfg(feature = "code-mode")]
    #[error("code mode cannot run programs: {reason}")]
    CodeWorker {
        /// What went wrong, and what to do about it.
        reason: String,
    },
    /// A resource or resource template cannot be served (see
    /// [`ServerBuilder::resources`](super::ServerBuilder::resources)).
    #[error("resource `{uri}`: {reason}")]
    InvalidResource {
        /// The resource's URI, or the template.
        uri: String,
        /// What is wrong.
        reason: String,
    },
}
