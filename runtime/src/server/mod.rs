//! Serving tools over MCP: stdio and Streamable HTTP, with authentication, per-principal tool
//! visibility, rate limits, argument validation and audit records.
//!
//! Build a [`Server`] from one or more [`ToolSet`]s with [`Server::builder`], then serve it:
//!
//! ```no_run
//! # use mcpgen_runtime::{Principal, ToolSet};
//! # async fn run(tools: impl ToolSet) -> Result<(), mcpgen_runtime::server::ServerError> {
//! use mcpgen_runtime::server::{Server, shutdown_signal};
//!
//! let server = Server::builder("synaplan", "1.0.0")
//!     .description("Synaplan chat, RAG search and file tools")
//!     .tool_set(tools)
//!     .no_auth()
//!     .rate_limit(Some(20.0))
//!     .build()?;
//! server
//!     .serve_http("127.0.0.1:8080".parse().expect("an address"), shutdown_signal())
//!     .await?;
//! # Ok(()) }
//! ```
//!
//! Every `tools/call` goes through the same steps whatever the transport: the tool must be
//! visible to the caller ([`Principal::may_call`]; a hidden tool is answered exactly like an
//! unknown one), the caller's rate limit must allow it, the arguments must match the tool's
//! input schema (otherwise an `isError` result names the field and the tool is not called),
//! then the owning tool set runs it, and one audit event records the outcome before the
//! client gets the answer.
//!
//! HTTP routes ([`Server::router`]): `/mcp` (Streamable HTTP; sessions for clients that
//! `initialize`, stateless JSON responses for the 2026-07-28 protocol), `GET /sse` with
//! `POST /message?sessionId=` (legacy HTTP+SSE, 2024-11-05), `GET /healthz`,
//! `GET /.well-known/mcp.json` and `GET /mcp/server-card`.
//!
//! Several catalogs can share one server: each [`Mount`] is served at `/mcp/<name>` (and
//! `/mcp/<name>/sse`, `/mcp/<name>/message`) with its own tool sets and authenticators, e.g.
//! a signed-token audience per catalog. The server's own tool sets stay at `/mcp`; a server
//! with mounts and no tool sets of its own serves only the mounts.
//!
//! Prompts ([`ServerBuilder::prompts`]) and resources ([`ServerBuilder::resources`]) are served
//! at `/mcp`, next to the server's own tools.

mod card;
mod catalog;
mod confirm;
mod handler;
mod http;
mod mount;
mod param_headers;
mod pipeline;
mod prompts;
mod rate;
mod rebinding;
mod reply;
mod resources;
mod search;
mod sse;
mod stdio;
mod validate;

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use ::http::HeaderName;

use crate::audit::{AuditSink, MultiSink};
use crate::auth::{AuthChain, Authenticator};
use crate::input::RequestStates;
use crate::{Principal, PromptSet, ResourceSet, ToolDef, ToolSet};

pub use mount::{MAX_CATALOG_NAME_LEN, Mount};
pub use reply::AUTH_ERROR_CODE;
pub use search::{CALL_TOOL, DESCRIBE_TOOL, SEARCH_TOOL};

use catalog::{Catalog, CatalogProblem};
use pipeline::InFlight;
use prompts::Prompts;
use rate::RateLimiter;
use rebinding::RebindingConfig;
use resources::Resources;
use search::SearchMode;

/// Default limit on a request body: 4 MiB.
pub const DEFAULT_MAX_BODY_BYTES: usize = 4 * 1024 * 1024;

/// Default time shutdown waits for calls in progress.
pub const DEFAULT_SHUTDOWN_TIMEOUT: Duration = Duration::from_secs(30);

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

/// One configuration problem found by [`ServerBuilder::build`].
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
    /// A prompt cannot be served (see [`ServerBuilder::prompts`]).
    #[error("prompt `{prompt}`: {reason}")]
    InvalidPrompt {
        /// The prompt's name.
        prompt: String,
        /// What is wrong.
        reason: String,
    },
    /// A resource or resource template cannot be served (see [`ServerBuilder::resources`]).
    #[error("resource `{uri}`: {reason}")]
    InvalidResource {
        /// The resource's URI, or the template.
        uri: String,
        /// What is wrong.
        reason: String,
    },
}

/// How tool results are checked against the tool's output schema.
///
/// Only successful results with structured content are checked; a tool without an output
/// schema is never checked. Official MCP clients reject structured content that does not match
/// the advertised `outputSchema`, so apart from `off` the server never sends such content.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputCheck {
    /// Results are checked against the schema the API's document states (the tool's
    /// `documented_output_schema`, else its `outputSchema`); any mismatch, a left-out required
    /// field included, is an error result (`isError: true`) naming the failing location.
    Strict,
    /// Results are checked against the advertised `outputSchema`, which generated tools relax
    /// to tolerate fields left out, added or `null`: such results reach the client as they
    /// are. A result that still does not fit is logged and becomes an error result whose text
    /// names the mismatch and carries the data as received, so the model still sees it.
    #[default]
    #[value(alias = "warn")]
    Tolerant,
    /// Results are not checked (for upstreams known to match their document): a mismatching
    /// result reaches the client, which may reject it.
    Off,
}

/// What happens to a call of a tool that needs the person's confirmation
/// ([`ToolDef::confirm`](crate::ToolDef::confirm)) when its client cannot ask: it declared no
/// elicitation capability, or the call did not come from an MCP client.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Unconfirmable {
    /// The call is not made: an error result (`isError`) says it needs a client that can ask
    /// for confirmation, and the audit status is `not_confirmed`.
    #[default]
    Refuse,
    /// The call proceeds without confirmation (a warning is logged).
    Proceed,
}

/// What `tools/list` shows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum ToolMode {
    /// Every tool the caller may call.
    #[default]
    All,
    /// The meta-tools `search_tools`, `describe_tools` and `call_tool`, plus the pinned tools
    /// the caller may call; every other tool is found with `search_tools` and run with
    /// `call_tool` (or called by name).
    Search,
}

/// Headers that describe one connection or the framing of one message, which must never be
/// copied from the caller's request to an upstream request.
const UNFORWARDABLE_HEADERS: &[&str] = &[
    "host",
    "content-length",
    "content-type",
    "content-encoding",
    "transfer-encoding",
    "connection",
    "keep-alive",
    "proxy-connection",
    "proxy-authenticate",
    "proxy-authorization",
    "te",
    "trailer",
    "upgrade",
    "expect",
];

/// Headers the caller authenticates to this server with; never forwarded as they are.
const CREDENTIAL_HEADERS: &[&str] = &["authorization", "x-api-key"];

/// Parses the forwarding allowlist, refusing hop-by-hop and framing headers.
fn forward_header_names(names: &[String], problems: &mut Vec<ConfigProblem>) -> Vec<HeaderName> {
    let mut parsed: Vec<HeaderName> = Vec::new();
    for name in names {
        let trimmed = name.trim();
        let reject = |reason: &str| ConfigProblem::InvalidForwardHeader {
            name: name.clone(),
            reason: reason.to_owned(),
        };
        match HeaderName::from_bytes(trimmed.as_bytes()) {
            Err(_) => problems.push(reject("not a valid HTTP header name")),
            Ok(header) if UNFORWARDABLE_HEADERS.contains(&header.as_str()) => {
                problems.push(reject(
                    "it describes the caller's connection or message framing, not the call, \
                     so it is never forwarded",
                ))
            }
            Ok(header) if CREDENTIAL_HEADERS.contains(&header.as_str()) => problems.push(reject(
                "it carries the caller's credential for this server; to send that credential \
                 upstream, use pass-through (--upstream-pass-through), which places it as the \
                 API's security scheme says",
            )),
            Ok(header) if header.as_str().starts_with(':') => {
                problems.push(reject("pseudo-headers are never forwarded"));
            }
            Ok(header) => {
                if !parsed.contains(&header) {
                    parsed.push(header);
                }
            }
        }
    }
    parsed
}

/// Builds a [`Server`]; see [`Server::builder`].
#[must_use = "a builder does nothing until `build` is called"]
pub struct ServerBuilder {
    name: String,
    version: String,
    title: Option<String>,
    description: Option<String>,
    card_name: Option<String>,
    sets: Vec<Arc<dyn ToolSet>>,
    auth: Option<AuthChain>,
    insecure_no_auth: bool,
    audit: MultiSink,
    audit_args: bool,
    rate_limit: Option<f64>,
    allowed_origins: Vec<String>,
    allowed_hosts: Vec<String>,
    max_body_bytes: usize,
    shutdown_timeout: Duration,
    output_check: OutputCheck,
    unconfirmable: Unconfirmable,
    forward_headers: Vec<String>,
    tool_mode: ToolMode,
    pinned: Vec<String>,
    mounts: Vec<Mount>,
    prompts: PromptSet,
    resources: ResourceSet,
    request_state_key: Option<Vec<u8>>,
}

impl std::fmt::Debug for ServerBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerBuilder")
            .field("name", &self.name)
            .field("version", &self.version)
            .field("tool_sets", &self.sets.len())
            .field("auth", &self.auth.is_some())
            .field("mounts", &self.mounts)
            .finish_non_exhaustive()
    }
}

impl ServerBuilder {
    /// Sets the description shown in `initialize` and the server cards.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Sets a human-readable title shown in `initialize` and the server cards.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Sets the reverse-DNS name used by the draft server card (`/mcp/server-card`), e.g.
    /// `com.example/synaplan`. Default: `mcpgen.local/<name>`.
    pub fn card_name(mut self, card_name: impl Into<String>) -> Self {
        self.card_name = Some(card_name.into());
        self
    }

    /// Adds a tool set. Several compose; tool names must be unique across all of them.
    pub fn tool_set(mut self, tools: impl ToolSet) -> Self {
        self.sets.push(Arc::new(tools));
        self
    }

    /// Adds a shared tool set.
    pub fn shared_tool_set(mut self, tools: Arc<dyn ToolSet>) -> Self {
        self.sets.push(tools);
        self
    }

    /// Serves `prompts` (`prompts/list`, `prompts/get`, and `completion/complete` for their
    /// arguments) at `/mcp`; mounted catalogs serve none. Every caller the transport admits
    /// sees them all (they are not filtered per principal). Replaces a set given before. A
    /// repeated prompt or argument name is refused by [`build`](Self::build).
    pub fn prompts(mut self, prompts: PromptSet) -> Self {
        self.prompts = prompts;
        self
    }

    /// Serves `resources` (`resources/list`, `resources/templates/list`, `resources/read`,
    /// `completion/complete` for template variables and, when the set accepts them,
    /// subscriptions) at `/mcp`; mounted catalogs serve none. Every caller the transport
    /// admits may read them all (they are not filtered per principal). Replaces a set given
    /// before. A repeated URI or an unusable template is refused by [`build`](Self::build).
    pub fn resources(mut self, resources: ResourceSet) -> Self {
        self.resources = resources;
        self
    }

    /// Adds a catalog served at `/mcp/<name>` with its own tool sets and authenticators (see
    /// [`Mount`]). A bad or repeated name is refused by [`build`](Self::build).
    pub fn mount(mut self, mount: Mount) -> Self {
        self.mounts.push(mount);
        self
    }

    /// Authenticates HTTP requests with `authenticator`. Called again, adds another one; the
    /// first that accepts a credential wins (see [`AuthChain`]). Mounts try their own
    /// authenticators first, then these.
    pub fn authenticator(mut self, authenticator: impl Authenticator) -> Self {
        let chain = self.auth.take().unwrap_or_default();
        self.auth = Some(chain.with(authenticator));
        self
    }

    /// Switches HTTP authentication off: every request acts as an unrestricted principal
    /// named `anonymous`. [`Server::serve_http`] still refuses non-loopback addresses unless
    /// [`insecure_no_auth`](Self::insecure_no_auth) is set. This is also the default when no
    /// authenticator is added.
    pub fn no_auth(mut self) -> Self {
        self.auth = None;
        self
    }

    /// Allows serving without authentication on a non-loopback address.
    pub fn insecure_no_auth(mut self, insecure: bool) -> Self {
        self.insecure_no_auth = insecure;
        self
    }

    /// Adds an audit sink; every `tools/call` is recorded in each.
    pub fn audit(mut self, sink: impl AuditSink) -> Self {
        self.audit.push(Arc::new(sink));
        self
    }

    /// Whether audit records carry the raw arguments (default: only their digest).
    pub fn audit_args(mut self, audit_args: bool) -> Self {
        self.audit_args = audit_args;
        self
    }

    /// Sets the default per-principal rate limit in calls per second (`None`: unlimited). A
    /// principal's own limit overrides it.
    pub fn rate_limit(mut self, per_second: Option<f64>) -> Self {
        self.rate_limit = per_second;
        self
    }

    /// Sets the browser origins allowed to call the HTTP endpoints (`scheme://host`,
    /// `scheme://host:port`, `scheme://host:*`, `null`, or `*`). Empty: loopback origins when
    /// bound to loopback, none otherwise.
    pub fn allowed_origins(mut self, origins: Vec<String>) -> Self {
        self.allowed_origins = origins;
        self
    }

    /// Sets the `Host` values accepted (`host` or `host:port`, or `*`). Empty: `localhost`,
    /// `127.0.0.1` and `[::1]` when bound to loopback, any host otherwise.
    pub fn allowed_hosts(mut self, hosts: Vec<String>) -> Self {
        self.allowed_hosts = hosts;
        self
    }

    /// Sets the largest request body accepted (default [`DEFAULT_MAX_BODY_BYTES`]); larger
    /// requests get HTTP 413.
    pub fn max_body_bytes(mut self, bytes: usize) -> Self {
        self.max_body_bytes = bytes;
        self
    }

    /// Sets how results are checked against each tool's output schema (default
    /// [`OutputCheck::Tolerant`]). The output validators are compiled by
    /// [`build`](Self::build) unless the check is off.
    pub fn output_check(mut self, mode: OutputCheck) -> Self {
        self.output_check = mode;
        self
    }

    /// Sets what happens to a call that needs the person's confirmation when the client
    /// cannot ask for it (default [`Unconfirmable::Refuse`]).
    pub fn unconfirmable(mut self, mode: Unconfirmable) -> Self {
        self.unconfirmable = mode;
        self
    }

    /// Names headers of the caller's HTTP request (Streamable HTTP and legacy SSE) that are
    /// copied into each call's [`CallContext::forwarded_headers`](crate::CallContext), from
    /// where an [`Upstream`](crate::Upstream) sends them on. None by default. Hop-by-hop and
    /// framing headers (`Host`, `Content-Length`, `Connection`, `Transfer-Encoding`, …) and the
    /// headers carrying the caller's credential for this server (`Authorization`,
    /// `X-API-Key`: see pass-through instead) are refused by [`build`](Self::build).
    pub fn forward_headers(mut self, names: Vec<String>) -> Self {
        self.forward_headers = names;
        self
    }

    /// Sets what `tools/list` shows (default [`ToolMode::All`]). In [`ToolMode::Search`],
    /// [`build`](Self::build) refuses a tool named like one of the meta-tools
    /// ([`SEARCH_TOOL`], [`DESCRIBE_TOOL`], [`CALL_TOOL`]).
    pub fn tool_mode(mut self, mode: ToolMode) -> Self {
        self.tool_mode = mode;
        self
    }

    /// Names tools listed directly in search mode, next to the meta-tools (each still only
    /// for callers that may call it). A name that is not served is refused by
    /// [`build`](Self::build).
    pub fn pinned(mut self, names: Vec<String>) -> Self {
        self.pinned = names;
        self
    }

    /// Sets how long shutdown waits for calls in progress (default
    /// [`DEFAULT_SHUTDOWN_TIMEOUT`]).
    pub fn shutdown_timeout(mut self, timeout: Duration) -> Self {
        self.shutdown_timeout = timeout;
        self
    }

    /// Sets the key (at least 32 bytes of secret, random data) that seals the `requestState`
    /// a stateless call's `input_required` answer carries (see [`crate::input`]). Without
    /// one, a random key is made at start: states then only open in this process, so give
    /// every replica of a server the same key.
    pub fn request_state_key(mut self, key: impl Into<Vec<u8>>) -> Self {
        self.request_state_key = Some(key.into());
        self
    }

    /// Checks the configuration, parses and compiles every tool's schemas, and builds the
    /// server. All problems are reported together.
    pub fn build(self) -> Result<Server, ServerError> {
        let mut problems = Vec::new();
        let request_states = match RequestStates::new(self.request_state_key.as_deref()) {
            Ok(states) => Some(Arc::new(states)),
            Err(reason) => {
                problems.push(ConfigProblem::InvalidRequestStateKey { reason });
                None
            }
        };
        let tools = build_tools(
            &self.sets,
            self.output_check,
            self.tool_mode,
            &self.pinned,
            &mut problems,
        );
        let mut names: Vec<&str> = Vec::new();
        let mut mounted_tools = Vec::new();
        for mount in &self.mounts {
            if let Some(reason) = mount::name_problem(&mount.name) {
                problems.push(ConfigProblem::InvalidCatalogName {
                    name: mount.name.clone(),
                    reason: reason.to_owned(),
                });
            } else if names.contains(&mount.name.as_str()) {
                problems.push(ConfigProblem::DuplicateCatalog {
                    name: mount.name.clone(),
                });
            }
            names.push(&mount.name);
            let mut found = Vec::new();
            mounted_tools.push(build_tools(
                &mount.sets,
                self.output_check,
                mount.tool_mode,
                &mount.pinned,
                &mut found,
            ));
            problems.extend(found.into_iter().map(|problem| ConfigProblem::InCatalog {
                catalog: mount.name.clone(),
                problem: Box::new(problem),
            }));
        }
        if let Some(value) = self.rate_limit
            && !rate::is_valid_rate(value)
        {
            problems.push(ConfigProblem::InvalidRateLimit { value });
        }
        if self.max_body_bytes == 0 {
            problems.push(ConfigProblem::InvalidMaxBodyBytes);
        }
        let forward_headers = forward_header_names(&self.forward_headers, &mut problems);
        let prompts = Prompts::build(self.prompts, &mut problems);
        let resources = Resources::build(self.resources, &mut problems);
        let rebinding = match RebindingConfig::new(&self.allowed_hosts, &self.allowed_origins) {
            Ok(config) => Some(config),
            Err(bad) => {
                for entry in bad {
                    let is_host = self.allowed_hosts.contains(&entry.entry);
                    problems.push(if is_host {
                        ConfigProblem::InvalidAllowedHost {
                            entry: entry.entry,
                            reason: entry.reason,
                        }
                    } else {
                        ConfigProblem::InvalidAllowedOrigin {
                            entry: entry.entry,
                            reason: entry.reason,
                        }
                    });
                }
                None
            }
        };
        let (Some((catalog, search)), Some(rebinding), Some(request_states), true) =
            (tools, rebinding, request_states, problems.is_empty())
        else {
            return Err(ServerError::Config(problems));
        };
        let serve_root = !self.sets.is_empty() || self.mounts.is_empty();
        let rate = Arc::new(RateLimiter::new(self.rate_limit));
        let inflight = Arc::new(InFlight::default());
        let mut mounts = Vec::with_capacity(self.mounts.len());
        for (mount, tools) in self.mounts.into_iter().zip(mounted_tools) {
            let Some((catalog, search)) = tools else {
                // Unreachable: a mount whose tools did not build left a problem above.
                continue;
            };
            let inner = Inner {
                name: format!("{}/{}", self.name, mount.name),
                version: self.version.clone(),
                title: mount.title.or_else(|| self.title.clone()),
                description: mount.description.or_else(|| self.description.clone()),
                card_name: None,
                sets: mount.sets,
                catalog,
                search,
                auth: mount::mount_auth(mount.auth, self.auth.as_ref()),
                insecure_no_auth: self.insecure_no_auth,
                audit: self.audit.clone(),
                audit_args: self.audit_args,
                rate: rate.clone(),
                rebinding: rebinding.clone(),
                max_body_bytes: self.max_body_bytes,
                shutdown_timeout: self.shutdown_timeout,
                output_check: self.output_check,
                unconfirmable: self.unconfirmable,
                forward_headers: forward_headers.clone(),
                inflight: inflight.clone(),
                request_states: request_states.clone(),
                prompts: Prompts::default(),
                resources: Resources::default(),
                server_config: rmcp::model::ServerConfig::default(),
            }
            .configured();
            mounts.push(Mounted {
                name: mount.name,
                inner: Arc::new(inner),
            });
        }
        let inner = Inner {
            name: self.name,
            version: self.version,
            title: self.title,
            description: self.description,
            card_name: self.card_name,
            sets: self.sets,
            catalog,
            search,
            auth: self.auth,
            insecure_no_auth: self.insecure_no_auth,
            audit: self.audit,
            audit_args: self.audit_args,
            rate,
            rebinding,
            max_body_bytes: self.max_body_bytes,
            shutdown_timeout: self.shutdown_timeout,
            output_check: self.output_check,
            unconfirmable: self.unconfirmable,
            forward_headers,
            inflight,
            request_states,
            prompts,
            resources,
            server_config: rmcp::model::ServerConfig::default(),
        }
        .configured();
        Ok(Server {
            inner: Arc::new(inner),
            mounts: mounts.into(),
            serve_root,
        })
    }
}

/// Builds the catalog (and, in search mode, the search index) of one set of tool sets,
/// adding what is wrong to `problems`.
fn build_tools(
    sets: &[Arc<dyn ToolSet>],
    output_check: OutputCheck,
    tool_mode: ToolMode,
    pinned: &[String],
    problems: &mut Vec<ConfigProblem>,
) -> Option<(Catalog, Option<SearchMode>)> {
    let catalog = match Catalog::build(sets, output_check) {
        Ok(catalog) => catalog,
        Err(found) => {
            problems.extend(found.into_iter().map(|p| match p {
                CatalogProblem::Duplicate {
                    tool,
                    first_set,
                    second_set,
                } => ConfigProblem::DuplicateTool {
                    tool,
                    first_set: first_set + 1,
                    second_set: second_set + 1,
                },
                CatalogProblem::Schema {
                    tool,
                    which,
                    message,
                } => ConfigProblem::InvalidSchema {
                    tool,
                    which,
                    message,
                },
            }));
            return None;
        }
    };
    if let Err(found) = param_headers::ParamHeaders::build(&catalog) {
        problems.extend(
            found
                .into_iter()
                .map(|(tool, message)| ConfigProblem::InvalidSchema {
                    tool,
                    which: "input",
                    message,
                }),
        );
        return None;
    }
    let search = match tool_mode {
        ToolMode::All => None,
        ToolMode::Search => match SearchMode::build(sets, &catalog, pinned) {
            Ok(mode) => Some(mode),
            Err(found) => {
                problems.extend(found);
                return None;
            }
        },
    };
    Some((catalog, search))
}

/// A catalog served at `/mcp/<name>`.
pub(crate) struct Mounted {
    pub(crate) name: String,
    pub(crate) inner: Arc<Inner>,
}

/// Everything a running server shares between connections.
pub(crate) struct Inner {
    pub(crate) name: String,
    pub(crate) version: String,
    pub(crate) title: Option<String>,
    pub(crate) description: Option<String>,
    pub(crate) card_name: Option<String>,
    pub(crate) sets: Vec<Arc<dyn ToolSet>>,
    pub(crate) catalog: Catalog,
    /// Set in search mode.
    pub(crate) search: Option<SearchMode>,
    pub(crate) auth: Option<AuthChain>,
    pub(crate) insecure_no_auth: bool,
    pub(crate) audit: MultiSink,
    pub(crate) audit_args: bool,
    /// Shared by every catalog of the server.
    pub(crate) rate: Arc<RateLimiter>,
    pub(crate) rebinding: RebindingConfig,
    pub(crate) max_body_bytes: usize,
    pub(crate) shutdown_timeout: Duration,
    pub(crate) output_check: OutputCheck,
    pub(crate) unconfirmable: Unconfirmable,
    pub(crate) forward_headers: Vec<HeaderName>,
    /// Shared by every catalog of the server.
    pub(crate) inflight: Arc<InFlight>,
    /// Seals the `requestState` of stateless calls; shared by every catalog of the server.
    pub(crate) request_states: Arc<RequestStates>,
    /// Served at `/mcp` only; empty for mounts.
    pub(crate) prompts: Prompts,
    /// Served at `/mcp` only; empty for mounts.
    pub(crate) resources: Resources,
    pub(crate) server_config: rmcp::model::ServerConfig,
}

impl Inner {
    /// Fills in what `initialize` answers, from the rest.
    fn configured(mut self) -> Self {
        self.server_config = handler::server_config(&self);
        self
    }

    /// Waits (bounded by the shutdown timeout) for calls in progress, then flushes the audit
    /// sinks.
    pub(crate) async fn drain(&self) {
        if tokio::time::timeout(self.shutdown_timeout, self.inflight.wait_idle())
            .await
            .is_err()
        {
            tracing::warn!(
                timeout_s = self.shutdown_timeout.as_secs_f64(),
                "shutdown: calls still in progress after the timeout"
            );
        }
        self.audit.flush().await;
    }
}

/// An MCP server over a fixed set of tools. Cheap to clone; clones share everything.
#[derive(Clone)]
pub struct Server {
    inner: Arc<Inner>,
    /// The catalogs at `/mcp/<name>`, in the order they were mounted.
    mounts: Arc<[Mounted]>,
    /// Whether `/mcp` (and `/sse`) serve the server's own catalog: when it has tool sets, or
    /// when there are no mounts.
    serve_root: bool,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("name", &self.inner.name)
            .field("version", &self.inner.version)
            .field("tools", &self.inner.catalog.entries().len())
            .field(
                "catalogs",
                &self.mounts.iter().map(|m| &m.name).collect::<Vec<_>>(),
            )
            .finish_non_exhaustive()
    }
}

impl Server {
    /// Starts building a server named `name` at `version`.
    pub fn builder(name: impl Into<String>, version: impl Into<String>) -> ServerBuilder {
        ServerBuilder {
            name: name.into(),
            version: version.into(),
            title: None,
            description: None,
            card_name: None,
            sets: Vec::new(),
            auth: None,
            insecure_no_auth: false,
            audit: MultiSink::new(),
            audit_args: false,
            rate_limit: None,
            allowed_origins: Vec::new(),
            allowed_hosts: Vec::new(),
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            shutdown_timeout: DEFAULT_SHUTDOWN_TIMEOUT,
            output_check: OutputCheck::default(),
            unconfirmable: Unconfirmable::default(),
            forward_headers: Vec::new(),
            tool_mode: ToolMode::All,
            pinned: Vec::new(),
            mounts: Vec::new(),
            prompts: PromptSet::new(),
            resources: ResourceSet::new(),
            request_state_key: None,
        }
    }

    /// The server name.
    pub fn name(&self) -> &str {
        &self.inner.name
    }

    /// The server version.
    pub fn version(&self) -> &str {
        &self.inner.version
    }

    /// The server description, if set.
    pub fn description(&self) -> Option<&str> {
        self.inner.description.as_deref()
    }

    /// Whether HTTP requests are authenticated.
    pub fn requires_auth(&self) -> bool {
        self.inner.auth.is_some()
    }

    /// Every tool served at `/mcp`, in the order the tool sets list them.
    pub fn tools(&self) -> Vec<&'static ToolDef> {
        self.inner.catalog.entries().iter().map(|e| e.def).collect()
    }

    /// The names of the catalogs mounted at `/mcp/<name>`, in the order they were mounted.
    pub fn catalogs(&self) -> Vec<&str> {
        self.mounts.iter().map(|m| m.name.as_str()).collect()
    }

    /// Every tool the catalog mounted as `name` serves (`None`: no such catalog).
    pub fn catalog_tools(&self, name: &str) -> Option<Vec<&'static ToolDef>> {
        let mount = self.mounts.iter().find(|m| m.name == name)?;
        Some(
            mount
                .inner
                .catalog
                .entries()
                .iter()
                .map(|e| e.def)
                .collect(),
        )
    }

    /// The tools `principal` may see and call.
    pub fn tools_for(&self, principal: &Principal) -> Vec<&'static ToolDef> {
        self.inner
            .catalog
            .visible(Some(principal))
            .into_iter()
            .map(|e| e.def)
            .collect()
    }

    /// Waits for calls in progress (bounded by the shutdown timeout) and flushes the audit
    /// sinks. The `serve_*` methods do this themselves when they return; call it when serving
    /// through [`Server::router`] in an HTTP server of your own.
    pub async fn drain(&self) {
        self.inner.drain().await;
    }

    /// A handler for one connection whose caller is `principal` (`None`: read from each
    /// request's extensions). Used by stdio, and by transports that serve one connection at a
    /// time, e.g. legacy SSE.
    pub(crate) fn handler(&self, principal: Option<Principal>) -> handler::McpHandler {
        handler::McpHandler::new(self.inner.clone(), principal)
    }

    /// Refuses a non-loopback address when a catalog it serves has no authentication, unless
    /// allowed.
    fn check_exposure(&self, addr: std::net::SocketAddr) -> Result<(), ServerError> {
        let exposed = !is_loopback(addr.ip());
        let open_root = self.serve_root && self.inner.auth.is_none();
        let open_mount = self.mounts.iter().any(|m| m.inner.auth.is_none());
        if exposed && (open_root || open_mount) && !self.inner.insecure_no_auth {
            return Err(ServerError::InsecureNoAuth { addr });
        }
        Ok(())
    }
}

fn is_loopback(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => v4.is_loopback(),
        IpAddr::V6(v6) => {
            v6.is_loopback() || v6.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback())
        }
    }
}

/// Resolves on SIGINT (Ctrl-C) or, on Unix, SIGTERM: pass it to [`Server::serve_http`].
pub async fn shutdown_signal() {
    let ctrl_c = async {
        if let Err(e) = tokio::signal::ctrl_c().await {
            tracing::warn!(error = %e, "cannot listen for Ctrl-C");
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(e) => {
                tracing::warn!(error = %e, "cannot listen for SIGTERM");
                std::future::pending::<()>().await;
            }
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => tracing::info!("received Ctrl-C, shutting down"),
        () = terminate => tracing::info!("received SIGTERM, shutting down"),
    }
}
