//! [`ServerBuilder`]: collects the settings of a server and its catalogs, checks them all,
//! and builds the [`Server`].

use std::sync::Arc;
use std::time::Duration;

use mcpgen_audit::{AuditSink, MultiSink};

#[cfg(feature = "search")]
use super::config::ToolMode;
#[cfg(feature = "http")]
use super::config::{DEFAULT_MAX_BODY_BYTES, forward_header_names};
use super::config::{DEFAULT_SHUTDOWN_TIMEOUT, OutputCheck, Unconfirmable};
use super::error::{ConfigProblem, ServerError};
use super::mounting::{configured, mounted_inner, name_check, tasks_of};
use crate::server::catalog::catalog_config::CatalogConfig;
#[cfg(feature = "code-mode")]
use crate::server::catalog::catalog_config::CodeLimits;
use crate::server::catalog::live::LiveTools;
use crate::server::catalog::mount::Mount;
use crate::server::catalog::prompts::Prompts;
use crate::server::catalog::resources::Resources;
use crate::server::state::inflight::InFlight;
use crate::server::state::inner::Inner;
use crate::server::state::mounts::{MountTable, Mounted};
#[cfg(feature = "http")]
use crate::server::state::placement::Placement;
#[cfg(feature = "http")]
use crate::server::state::resource_site::SiteConfig;
use crate::server::state::server::Server;
#[cfg(feature = "http")]
use crate::server::transport::replica;
use mcpgen_contract::input::RequestStates;
use mcpgen_contract::prompt::PromptSet;
use mcpgen_contract::resource::ResourceSet;
use mcpgen_contract::tasks::TaskSettings;
use mcpgen_contract::toolset::ToolSet;
use mcpgen_identity::auth::Authenticator;
#[cfg(feature = "metrics")]
use mcpgen_metrics::{Metrics, MetricsEndpoint};
use mcpgen_policy::rate::{self, RateLimiter};
#[cfg(feature = "http")]
use mcpgen_policy::rebinding::RebindingConfig;
#[cfg(feature = "redis")]
use mcpgen_policy::shared_rate::RedisLimiter;

/// Builds a [`Server`]; see [`Server::builder`].
#[must_use = "a builder does nothing until `build` is called"]
pub struct ServerBuilder {
    name: String,
    version: String,
    /// The server's own catalog, served at `/mcp`.
    root: CatalogConfig,
    #[cfg(feature = "http")]
    card_name: Option<String>,
    #[cfg(feature = "http")]
    base_path: Option<String>,
    #[cfg(feature = "http")]
    public_url: Option<String>,
    #[cfg(feature = "http")]
    replica_name: Option<String>,
    #[cfg(feature = "http")]
    insecure_no_auth: bool,
    audit: MultiSink,
    audit_args: bool,
    rate_limit: Option<f64>,
    rate_burst: Option<f64>,
    #[cfg(feature = "redis")]
    shared_rate: Option<Arc<RedisLimiter>>,
    #[cfg(all(feature = "http", feature = "redis"))]
    shared_state: Option<Arc<mcpgen_state::SharedState>>,
    #[cfg(feature = "http")]
    allowed_origins: Vec<String>,
    #[cfg(feature = "http")]
    allowed_hosts: Vec<String>,
    #[cfg(feature = "http")]
    max_body_bytes: usize,
    #[cfg(feature = "http")]
    body_read_timeout: Duration,
    /// Timeouts, connection and session caps (set in `edge_limits.rs`).
    #[cfg(feature = "http")]
    pub(super) edge: super::config::EdgeLimits,
    shutdown_timeout: Duration,
    /// Task limits and task tools (set in `task_limits.rs`).
    pub(super) tasks: TaskSettings,
    output_check: OutputCheck,
    unconfirmable: Unconfirmable,
    #[cfg(feature = "http")]
    forward_headers: Vec<String>,
    mounts: Vec<Mount>,
    /// Whether tools with a view offer it (`--no-ui` turns it off).
    views: bool,
    prompts: PromptSet,
    resources: ResourceSet,
    request_state_key: Option<Vec<u8>>,
    /// Older request-state keys that still open states (rotation).
    previous_request_state_keys: Vec<Vec<u8>>,
    /// The OAuth resource server, if any.
    #[cfg(feature = "http")]
    site: SiteConfig,
    #[cfg(feature = "metrics")]
    metrics: Option<Arc<Metrics>>,
    #[cfg(feature = "metrics")]
    metrics_endpoint: Option<MetricsEndpoint>,
}

impl std::fmt::Debug for ServerBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerBuilder")
            .field("name", &self.name)
            .field("version", &self.version)
            .field("tool_sets", &self.root.sets.len())
            .field("auth", &self.root.auth.is_some())
            .field("mounts", &self.mounts)
            .finish_non_exhaustive()
    }
}

impl ServerBuilder {
    /// Sets the description shown in `initialize` and the server cards.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.root.set_description(description.into());
        self
    }

    /// Sets a human-readable title shown in `initialize` and the server cards.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.root.set_title(title.into());
        self
    }

    #[cfg(feature = "http")]
    /// Sets the reverse-DNS name used by the draft server card (`/mcp/server-card`), e.g.
    /// `com.example/synaplan`. Default: `mcpgen.local/<name>`.
    pub fn card_name(mut self, card_name: impl Into<String>) -> Self {
        self.card_name = Some(card_name.into());
        self
    }

    #[cfg(feature = "http")]
    /// Moves every HTTP route under `path` (`--base-path`), e.g. `/api/v1/mcp`: the MCP
    /// endpoint is then `path` itself, and catalogs, server cards, legacy SSE and `/healthz`
    /// sit below it (see [`Placement`](super::Placement)). A path that is not clean and
    /// absolute is refused by [`build`](Self::build).
    pub fn base_path(mut self, path: impl Into<String>) -> Self {
        self.base_path = Some(path.into());
        self
    }

    #[cfg(feature = "http")]
    /// Sets the URL clients reach the base path at (`--public-url`), e.g.
    /// `https://mcp.example.com/api/v1/mcp` when TLS ends at a proxy; every announced URL
    /// is built from it. Anything but an `http`/`https` URL without query, fragment or
    /// credentials is refused by [`build`](Self::build).
    pub fn public_url(mut self, url: impl Into<String>) -> Self {
        self.public_url = Some(url.into());
        self
    }

    #[cfg(feature = "http")]
    /// Names this replica (`--replica-name`): every session id it issues starts with
    /// `name.`, so that a load balancer can send the requests of a session to the replica
    /// holding it (stateless requests go anywhere). 1 to 32 ASCII letters, digits, `-` or
    /// `_`; anything else is refused by [`build`](Self::build).
    pub fn replica_name(mut self, name: impl Into<String>) -> Self {
        self.replica_name = Some(name.into());
        self
    }

    /// Adds a tool set. Several compose; tool names must be unique across all of them.
    pub fn tool_set(mut self, tools: impl ToolSet) -> Self {
        self.root.add_tool_set(Arc::new(tools));
        self
    }

    /// Adds a shared tool set.
    pub fn shared_tool_set(mut self, tools: Arc<dyn ToolSet>) -> Self {
        self.root.add_tool_set(tools);
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
    /// first that accepts a credential wins (see [`AuthChain`](mcpgen_identity::auth::AuthChain)). Mounts
    /// try their own authenticators first, then these.
    pub fn authenticator(mut self, authenticator: impl Authenticator) -> Self {
        self.root.add_authenticator(authenticator);
        self
    }

    /// Switches HTTP authentication off: every request acts as an unrestricted principal
    /// named `anonymous`. [`Server::serve_http`] still refuses non-loopback addresses unless
    /// [`insecure_no_auth`](Self::insecure_no_auth) is set. This is also the default when no
    /// authenticator is added.
    pub fn no_auth(mut self) -> Self {
        self.root.clear_auth();
        self
    }

    #[cfg(feature = "http")]
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

    /// Sets how many calls the default rate limit lets through at once (default: one
    /// second's worth, at least one); e.g. 10 for a limit of ten a minute.
    pub fn rate_limit_burst(mut self, burst: Option<f64>) -> Self {
        self.rate_burst = burst;
        self
    }

    #[cfg(feature = "redis")]
    /// Keeps the rate limits in Redis, shared by every replica (see [`RedisLimiter`](super::RedisLimiter)).
    pub fn shared_rate_limits(mut self, limiter: Arc<RedisLimiter>) -> Self {
        self.shared_rate = Some(limiter);
        self
    }

    #[cfg(all(feature = "http", feature = "redis"))]
    /// Keeps what sessions and tasks need in Redis, so that every replica sharing it serves
    /// any session and answers for any task (see [`mcpgen_state`]).
    pub fn shared_state(mut self, state: Arc<mcpgen_state::SharedState>) -> Self {
        self.shared_state = Some(state);
        self
    }

    #[cfg(feature = "http")]
    /// Sets the browser origins allowed to call the HTTP endpoints (`scheme://host`,
    /// `scheme://host:port`, `scheme://host:*`, `null`, or `*`). Empty: loopback origins when
    /// bound to loopback, none otherwise.
    pub fn allowed_origins(mut self, origins: Vec<String>) -> Self {
        self.allowed_origins = origins;
        self
    }

    #[cfg(feature = "http")]
    /// Sets the `Host` values accepted (`host` or `host:port`, or `*`). Empty: `localhost`,
    /// `127.0.0.1` and `[::1]` when bound to loopback, any host otherwise.
    pub fn allowed_hosts(mut self, hosts: Vec<String>) -> Self {
        self.allowed_hosts = hosts;
        self
    }

    #[cfg(feature = "http")]
    /// Sets the largest request body accepted (default [`DEFAULT_MAX_BODY_BYTES`]); larger
    /// requests get HTTP 413.
    pub fn max_body_bytes(mut self, bytes: usize) -> Self {
        self.max_body_bytes = bytes;
        self
    }

    #[cfg(feature = "http")]
    /// Sets how long a client may take to send a request body once its headers have arrived
    /// (default [`DEFAULT_BODY_READ_TIMEOUT`](super::DEFAULT_BODY_READ_TIMEOUT)); a client that
    /// stalls longer gets HTTP 408 and its connection is closed.
    pub fn body_read_timeout(mut self, timeout: Duration) -> Self {
        self.body_read_timeout = timeout;
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

    #[cfg(feature = "http")]
    /// Names headers of the caller's HTTP request (Streamable HTTP and legacy SSE) that are
    /// copied into each call's [`CallContext::forwarded_headers`](crate::CallContext), from
    /// where an [`Upstream`](mcpgen_upstream::Upstream) sends them on. None by default.
    /// Hop-by-hop and framing headers (`Host`, `Content-Length`, `Connection`,
    /// `Transfer-Encoding`, …) and the headers carrying the caller's credential for this server
    /// (`Authorization`, `X-API-Key`: see pass-through instead) are refused by
    /// [`build`](Self::build).
    pub fn forward_headers(mut self, names: Vec<String>) -> Self {
        self.forward_headers = names;
        self
    }

    #[cfg(feature = "search")]
    /// Sets what `tools/list` shows (default [`ToolMode::All`]). In [`ToolMode::Search`],
    /// [`build`](Self::build) refuses a tool named like one of the meta-tools
    /// ([`SEARCH_TOOL`](super::SEARCH_TOOL), [`DESCRIBE_TOOL`](super::DESCRIBE_TOOL),
    /// [`CALL_TOOL`](super::CALL_TOOL)).
    pub fn tool_mode(mut self, mode: ToolMode) -> Self {
        self.root.set_tool_mode(mode);
        self
    }

    #[cfg(feature = "code-mode")]
    /// Sets the limits of the programs `execute` runs in [`ToolMode::Code`] (default
    /// [`CodeLimits::default`]).
    pub fn code_limits(mut self, limits: CodeLimits) -> Self {
        self.root.set_code_limits(limits);
        self
    }

    /// Whether, in `all` mode, `describe_tools` is listed next to the tools when some tool's
    /// listed schemas are summaries, and their descriptions say so (default on). Search mode
    /// always has it.
    pub fn describe_tools(mut self, on: bool) -> Self {
        self.root.set_describe_tools(on);
        self
    }

    #[cfg(feature = "search")]
    /// Names tools listed directly in search mode, next to the meta-tools (each still only
    /// for callers that may call it). A name that is not served is refused by
    /// [`build`](Self::build).
    pub fn pinned(mut self, names: Vec<String>) -> Self {
        self.root.set_pinned(names);
        self
    }

    /// Declares `tools.listChanged` in `initialize`, and sends the sessions open
    /// `notifications/tools/list_changed` each time [`Server::replace_tools`] swaps the tools.
    pub fn tools_list_changed(mut self, on: bool) -> Self {
        self.root.set_list_changed(on);
        self
    }

    /// Whether tools with a view (MCP Apps) offer it to clients that declared the
    /// `io.modelcontextprotocol/ui` extension (default on; `--no-ui` turns it off).
    pub fn views(mut self, on: bool) -> Self {
        self.views = on;
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

    /// Also opens `requestState`s sealed with `key`, an older key being rotated out: the key
    /// set with [`request_state_key`](Self::request_state_key) seals, and states sealed with
    /// either open. Give every replica the same keys.
    pub fn previous_request_state_key(mut self, key: impl Into<Vec<u8>>) -> Self {
        self.previous_request_state_keys.push(key.into());
        self
    }

    #[cfg(feature = "oauth")]
    /// Accepts OAuth access tokens checked by `server`, next to the authenticators added
    /// before and after (keys and signed tokens keep working), on `/mcp` and on every mount,
    /// each with its own resource URL as audience. Serves RFC 9728 metadata at
    /// `/.well-known/oauth-protected-resource` (and its path-suffixed forms), points 401
    /// answers at it, and answers a `tools/call` beyond the token's scopes with 403
    /// `insufficient_scope`.
    pub fn oauth(mut self, server: mcpgen_identity::auth::oauth::OAuthResourceServer) -> Self {
        let server = Arc::new(server);
        self.root.add_authenticator(server.clone());
        self.site.oauth = Some(server);
        self
    }

    #[cfg(feature = "metrics")]
    /// Counts calls, durations, upstream requests, refusals and audit health in `metrics`
    /// (see [`crate::metrics`]); serve them with a [`MetricsEndpoint`] on a listener of their
    /// own, or on the server's with [`metrics_endpoint`](Self::metrics_endpoint).
    pub fn metrics(mut self, metrics: Arc<Metrics>) -> Self {
        self.metrics = Some(metrics);
        self
    }

    #[cfg(feature = "metrics")]
    /// Serves `endpoint` at `/metrics` on the server's own HTTP listener and counts in its
    /// metrics. Give it a token ([`MetricsEndpoint::with_token`]) unless only the monitoring
    /// can reach the listener.
    pub fn metrics_endpoint(mut self, endpoint: MetricsEndpoint) -> Self {
        self.metrics = Some(endpoint.metrics().clone());
        self.metrics_endpoint = Some(endpoint);
        self
    }

    /// Checks the configuration, parses and compiles every tool's schemas, and builds the
    /// server. All problems are reported together.
    pub fn build(self) -> Result<Server, ServerError> {
        let mut problems = Vec::new();
        #[cfg(feature = "http")]
        let placement = match Placement::new(self.base_path.as_deref(), self.public_url.as_deref())
        {
            Ok(placement) => Arc::new(placement),
            Err(reasons) => {
                problems.extend(
                    reasons
                        .into_iter()
                        .map(|reason| ConfigProblem::InvalidPlacement { reason }),
                );
                Arc::new(Placement::default())
            }
        };
        #[cfg(not(feature = "http"))]
        let placement = ();
        #[cfg(feature = "http")]
        if let Some(reason) = self.replica_name.as_deref().and_then(replica::name_problem) {
            problems.push(ConfigProblem::InvalidPlacement { reason });
        }
        let request_states = match RequestStates::new(
            self.request_state_key.as_deref(),
            &self.previous_request_state_keys,
        ) {
            Ok(states) => Some(Arc::new(states)),
            Err(reason) => {
                problems.push(ConfigProblem::InvalidRequestStateKey { reason });
                None
            }
        };
        let tools = self.root.build_tools(self.output_check, &mut problems);
        let mut names: Vec<&str> = Vec::new();
        let mut mounted_tools = Vec::new();
        for mount in &self.mounts {
            if let Some(problem) = name_check(&placement, &names, &mount.name) {
                problems.push(problem);
            }
            names.push(&mount.name);
            let mut found = Vec::new();
            mounted_tools.push(mount.catalog.build_tools(self.output_check, &mut found));
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
        #[cfg(feature = "http")]
        if self.max_body_bytes == 0 {
            problems.push(ConfigProblem::InvalidMaxBodyBytes);
        }
        #[cfg(feature = "http")]
        let forward_headers = forward_header_names(&self.forward_headers, &mut problems);
        let prompts = Prompts::build(self.prompts, &mut problems);
        let resources = Resources::build(self.resources, &mut problems);
        #[cfg(feature = "http")]
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
        #[cfg(feature = "http")]
        let Some(rebinding) = rebinding else {
            return Err(ServerError::Config(problems));
        };
        let (Some(tools), Some(request_states), true) =
            (tools, request_states, problems.is_empty())
        else {
            return Err(ServerError::Config(problems));
        };
        #[cfg(feature = "http")]
        let serve_root = !self.root.sets.is_empty() || self.mounts.is_empty();
        let tool_limits: Vec<mcpgen_contract::toolset::ToolRate> = self
            .root
            .sets
            .iter()
            .chain(self.mounts.iter().flat_map(|m| m.catalog.sets.iter()))
            .flat_map(|set| set.rate_limits().iter().copied())
            .collect();
        let rate = RateLimiter::new(self.rate_limit)
            .with_default_burst(self.rate_burst)
            .with_tool_limits(&tool_limits);
        #[cfg(feature = "redis")]
        let rate = rate.with_shared(self.shared_rate);
        let rate = Arc::new(rate);
        let inflight = Arc::new(InFlight::default());
        #[cfg(feature = "metrics")]
        if let Some(metrics) = &self.metrics {
            let counted = inflight.clone();
            metrics.attach(
                Arc::new(move || counted.count()),
                Arc::new(self.audit.clone()),
            );
        }
        #[cfg(feature = "http")]
        let resource = self
            .site
            .site(&placement, placement.mcp_path(), &tools.catalog);
        let views = crate::views::Views::build(
            &self.name,
            tools.catalog.entries().iter().map(|e| &e.def),
            self.views,
        );
        #[cfg(feature = "http")]
        let replica = self.replica_name;
        #[cfg(not(feature = "http"))]
        let replica: Option<String> = None;
        let tasks = tasks_of(self.tasks, &self.root, &self.mounts, replica.as_deref());
        #[cfg(all(feature = "http", feature = "redis"))]
        let (tasks, task_store) = super::tasks_shared::share(tasks, &self.shared_state, &self.name);
        let inner = configured(Inner {
            name: self.name,
            version: self.version,
            title: self.root.title.clone(),
            description: self.root.description.clone(),
            #[cfg(feature = "http")]
            card_name: self.card_name,
            #[cfg(feature = "http")]
            placement,
            #[cfg(feature = "http")]
            replica: replica.map(Arc::from),
            #[cfg(all(feature = "http", feature = "redis"))]
            shared: self.shared_state,
            #[cfg(all(feature = "http", feature = "redis"))]
            task_store,
            auth: self.root.auth.clone(),
            tools: LiveTools::first(self.root, tools, views),
            #[cfg(feature = "http")]
            resource,
            #[cfg(feature = "http")]
            insecure_no_auth: self.insecure_no_auth,
            audit: self.audit,
            audit_args: self.audit_args,
            rate,
            #[cfg(feature = "http")]
            rebinding,
            #[cfg(feature = "http")]
            max_body_bytes: self.max_body_bytes,
            #[cfg(feature = "http")]
            body_read_timeout: self.body_read_timeout,
            #[cfg(feature = "http")]
            sessions: self.edge.sessions,
            shutdown_timeout: self.shutdown_timeout,
            output_check: self.output_check,
            unconfirmable: self.unconfirmable,
            #[cfg(feature = "http")]
            forward_headers,
            inflight,
            request_states,
            tasks: Arc::new(tasks),
            prompts,
            resources,
            server_config: rmcp::model::ServerConfig::default(),
            #[cfg(feature = "metrics")]
            metrics: self.metrics,
        });
        let mut mounts = Vec::with_capacity(self.mounts.len());
        for (mount, tools) in self.mounts.into_iter().zip(mounted_tools) {
            let Some(tools) = tools else {
                // Unreachable: a mount whose tools did not build left a problem above.
                continue;
            };
            let mounted = mounted_inner(&inner, &mount.name, mount.catalog, tools);
            mounts.push(Mounted {
                name: mount.name,
                inner: Arc::new(mounted),
            });
        }
        Ok(Server {
            inner: Arc::new(inner),
            mounts: Arc::new(MountTable::new(mounts)),
            #[cfg(feature = "http")]
            exposed: Arc::default(),
            #[cfg(feature = "http")]
            serve_root,
            #[cfg(feature = "http")]
            edge: self.edge,
            #[cfg(feature = "metrics")]
            metrics_endpoint: self.metrics_endpoint,
        })
    }
}

impl Server {
    /// Starts building a server named `name` at `version`.
    pub fn builder(name: impl Into<String>, version: impl Into<String>) -> ServerBuilder {
        ServerBuilder {
            name: name.into(),
            version: version.into(),
            root: CatalogConfig::default(),
            #[cfg(feature = "http")]
            card_name: None,
            #[cfg(feature = "http")]
            base_path: None,
            #[cfg(feature = "http")]
            public_url: None,
            #[cfg(feature = "http")]
            replica_name: None,
            #[cfg(feature = "http")]
            insecure_no_auth: false,
            audit: MultiSink::new(),
            audit_args: false,
            rate_limit: None,
            rate_burst: None,
            #[cfg(feature = "redis")]
            shared_rate: None,
            #[cfg(all(feature = "http", feature = "redis"))]
            shared_state: None,
            #[cfg(feature = "http")]
            allowed_origins: Vec::new(),
            #[cfg(feature = "http")]
            allowed_hosts: Vec::new(),
            #[cfg(feature = "http")]
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            #[cfg(feature = "http")]
            body_read_timeout: super::config::DEFAULT_BODY_READ_TIMEOUT,
            #[cfg(feature = "http")]
            edge: Default::default(),
            shutdown_timeout: DEFAULT_SHUTDOWN_TIMEOUT,
            tasks: TaskSettings::default(),
            output_check: OutputCheck::default(),
            unconfirmable: Unconfirmable::default(),
            #[cfg(feature = "http")]
            forward_headers: Vec::new(),
            mounts: Vec::new(),
            views: true,
            prompts: PromptSet::new(),
            resources: ResourceSet::new(),
            request_state_key: None,
            previous_request_state_keys: Vec::new(),
            #[cfg(feature = "http")]
            site: Default::default(),
            #[cfg(feature = "metrics")]
            metrics: None,
            #[cfg(feature = "metrics")]
            metrics_endpoint: None,
        }
    }
}
