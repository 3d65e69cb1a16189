//! The command line of a generated server binary (`<name>-mcp`): flags with `MCPGEN_*`
//! environment fallbacks, logging to stderr, auth, audit and transport set-up. Generated
//! `main.rs` files are one call to [`main`].

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{CommandFactory, FromArgMatches, Parser, ValueEnum};

mod async_runtime;
mod key_check_args;
mod logging;
mod missing;
mod oauth_args;
mod placement;
mod schemes;
mod token_exchange_args;
mod upstream_guard;
mod values;
pub use async_runtime::block_on_main;
pub use key_check_args::KeyCheckArgs;
use logging::log_sink;
pub use missing::MissingFeatureArgs;
pub use oauth_args::OAuthArgs;
pub use placement::PlacementArgs;
use schemes::scheme_hint;
pub use token_exchange_args::TokenExchangeArgs;
pub use upstream_guard::UpstreamGuardArgs;
pub use values::{RateSpec, parse_rate};
use values::{parse_positive_bytes, request_state_keys};
#[cfg(feature = "code-mode")]
mod code_args;
mod connection_args;
mod task_args;
#[cfg(feature = "code-mode")]
pub use code_args::CodeArgs;
pub use connection_args::ConnectionArgs;
pub use task_args::TaskArgs;
#[cfg(any(feature = "postgres", feature = "sqlite"))]
mod audit_db;
#[cfg(feature = "metrics")]
mod metrics;
#[cfg(feature = "otel")]
mod otel;
#[cfg(any(feature = "postgres", feature = "sqlite"))]
pub use audit_db::AuditDbArgs;
#[cfg(feature = "metrics")]
pub use metrics::MetricsArgs;

use mcpgen_audit::{Fsync, JsonlSink};
use mcpgen_core::tool::{SecurityScheme, SecuritySchemeKind};
use mcpgen_identity::auth::{AuthChain, Authenticator, DEFAULT_RELOAD_INTERVAL as RELOAD};
use mcpgen_identity::auth::{TokenAuthority, WatchedKeys};
use mcpgen_identity::principal::Principal;

use crate::server::builder::ServerBuilder;
use crate::server::config::{OutputCheck, ToolMode, Unconfirmable};
use crate::server::state::server::Server;
use crate::server::transport::shutdown::shutdown_signal;
use mcpgen_contract::toolset::{CallerCredential, ToolSet};
use mcpgen_upstream::{Credential, DEFAULT_MAX_RESPONSE_BYTES, Upstream, UpstreamConfig};

/// What a generated binary tells [`main`] about itself.
#[derive(Debug, Clone, Copy)]
pub struct App {
    /// Server name.
    pub name: &'static str,
    /// Server version.
    pub version: &'static str,
    /// Server description.
    pub description: &'static str,
    /// Title of the API.
    pub title: &'static str,
    /// Default upstream base URL from the spec or allowlist.
    pub default_upstream_url: Option<&'static str>,
    /// Security schemes the API accepts, for attaching upstream credentials.
    pub security_schemes: &'static [SecurityScheme],
}

/// How log lines are written to stderr (`--log-format`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines.
    #[default]
    Text,
    /// One JSON object per line, with the fields of the spans it happened in (a call that
    /// continues a trace logs inside a `tool_call` span carrying its `trace_id`).
    Json,
}

/// The log format [`main`] read from the flags, for [`block_on_main`].
static LOG_FORMAT: std::sync::OnceLock<LogFormat> = std::sync::OnceLock::new();

/// The server name [`main`] was given, as the traces' default service name.
#[cfg(feature = "otel")]
static SERVICE: std::sync::OnceLock<&'static str> = std::sync::OnceLock::new();

/// Which transport to serve.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Transport {
    /// JSON-RPC over stdin/stdout (desktop clients launch the binary).
    Stdio,
    /// Streamable HTTP at `/mcp` (and the legacy SSE transport where available).
    Http,
}

/// Flags of a generated server binary. Every flag also reads an `MCPGEN_*` environment variable.
#[derive(Debug, Parser)]
#[command(version, about, long_about = None)]
pub struct ServeArgs {
    /// Transport to serve.
    #[arg(long, env = "MCPGEN_TRANSPORT", value_enum, default_value = "stdio")]
    pub transport: Transport,
    /// Address to listen on with `--transport http`.
    #[arg(long, env = "MCPGEN_LISTEN", default_value = "127.0.0.1:8080")]
    pub listen: SocketAddr,
    /// `--base-path` and `--public-url`: where the HTTP routes sit behind a proxy.
    #[command(flatten)]
    pub placement: PlacementArgs,
    /// Base URL of the REST API the tools call (default: from the spec or allowlist).
    #[arg(long, env = "MCPGEN_UPSTREAM_URL")]
    pub upstream_url: Option<String>,
    /// API key sent to the upstream for each of its apiKey security schemes (header, query or
    /// cookie).
    #[arg(long, env = "MCPGEN_UPSTREAM_API_KEY", hide_env_values = true)]
    pub upstream_api_key: Option<String>,
    /// Bearer token sent to the upstream as `Authorization: Bearer …`.
    #[arg(long, env = "MCPGEN_UPSTREAM_BEARER", hide_env_values = true)]
    pub upstream_bearer: Option<String>,
    /// `USER:PASSWORD` sent to the upstream with HTTP basic authentication (the API must have
    /// an HTTP basic security scheme).
    #[arg(
        long,
        env = "MCPGEN_UPSTREAM_BASIC",
        hide_env_values = true,
        value_name = "USER:PASSWORD"
    )]
    pub upstream_basic: Option<String>,
    /// Send each caller's own credential (the API key or bearer token it presented to this
    /// server; `MCPGEN_API_KEY` on stdio) to the upstream, in the operation's apiKey or bearer
    /// security scheme.
    #[arg(long, env = "MCPGEN_UPSTREAM_PASS_THROUGH")]
    pub upstream_pass_through: bool,
    /// Header of the caller's HTTP request copied onto upstream requests (repeatable; none by
    /// default; hop-by-hop and framing headers are refused).
    #[arg(
        long = "forward-header",
        env = "MCPGEN_FORWARD_HEADERS",
        value_delimiter = ',',
        value_name = "NAME"
    )]
    pub forward_headers: Vec<String>,
    /// Upstream request timeout in seconds.
    #[arg(
        long,
        env = "MCPGEN_UPSTREAM_TIMEOUT",
        default_value_t = 30,
        value_parser = clap::value_parser!(u64).range(1..)
    )]
    pub upstream_timeout: u64,
    /// Largest upstream response body read, in bytes; longer bodies are cut and the cut is
    /// marked (a cut JSON or binary body is an error).
    #[arg(
        long,
        env = "MCPGEN_UPSTREAM_MAX_RESPONSE_BYTES",
        default_value_t = DEFAULT_MAX_RESPONSE_BYTES,
        value_parser = parse_positive_bytes
    )]
    pub upstream_max_response_bytes: usize,
    /// The upstream's concurrency cap, circuit breaker and retry (`--upstream-max-concurrency`,
    /// `--upstream-queue-timeout`, `--upstream-breaker-*`, `--upstream-no-retry`).
    #[command(flatten)]
    pub upstream_guard: UpstreamGuardArgs,
    /// Check tool results against their output schema: `tolerant` (the advertised schema,
    /// which tolerates fields left out, added or null; data that still does not fit becomes an
    /// error result carrying it as text), `strict` (the documented schema; any mismatch is an
    /// error result naming the field) or `off` (`warn` is an old name for `tolerant`).
    #[arg(
        long,
        env = "MCPGEN_OUTPUT_CHECK",
        value_enum,
        default_value = "tolerant"
    )]
    pub output_check: OutputCheck,
    /// What happens to a call of a tool that needs the person's confirmation (allowlist
    /// `confirm: true`) when the client cannot ask for it (no elicitation capability):
    /// `refuse` (an error result; nothing is sent upstream) or `proceed` (called without
    /// confirmation, with a warning in the log).
    #[arg(
        long,
        env = "MCPGEN_UNCONFIRMABLE_CALLS",
        value_enum,
        default_value = "refuse"
    )]
    pub unconfirmable_calls: Unconfirmable,
    /// Keys file (YAML: `keys: [{id, key_sha256 | key, principal, scopes, plugins, rate_limit}]`).
    /// Reloaded when it changes, without a restart; a file that no longer parses keeps the keys
    /// loaded before and logs an error naming the line.
    #[arg(long, env = "MCPGEN_KEYS")]
    pub keys: Option<PathBuf>,
    /// Name of the environment variable holding the secret that signs accepted tokens
    /// (tokens come from `mcpgen token issue`). Repeat it to rotate secrets without downtime:
    /// the first is the newest and signs, tokens signed with any of them verify
    /// (`MCPGEN_TOKEN_SECRET_ENV=NEW,OLD`).
    #[arg(
        long,
        env = "MCPGEN_TOKEN_SECRET_ENV",
        value_delimiter = ',',
        value_name = "VAR"
    )]
    pub token_secret_env: Vec<String>,
    /// Audience accepted tokens must carry (default: the server name).
    #[arg(long, env = "MCPGEN_TOKEN_AUDIENCE")]
    pub token_audience: Option<String>,
    /// OAuth access tokens (`--oauth-*`).
    #[command(flatten)]
    pub oauth: OAuthArgs,
    /// OAuth callers' tokens exchanged for the API's (`--upstream-token-exchange`).
    #[command(flatten)]
    pub token_exchange: TokenExchangeArgs,
    /// Keys checked against the API (`--key-check-*`).
    #[command(flatten)]
    pub key_check: KeyCheckArgs,
    /// Serve without authentication (every caller may call every tool).
    #[arg(long, env = "MCPGEN_NO_AUTH")]
    pub no_auth: bool,
    /// Allow `--no-auth` on a non-loopback address.
    #[arg(long, env = "MCPGEN_INSECURE_NO_AUTH")]
    pub insecure_no_auth: bool,
    /// Append one JSON line per tool call to this file.
    #[arg(long, env = "MCPGEN_AUDIT_LOG")]
    pub audit_log: Option<PathBuf>,
    /// When audit lines reach the disk: always (before the client gets its result), batch, never.
    #[arg(long, env = "MCPGEN_AUDIT_FSYNC", default_value = "batch")]
    pub audit_fsync: Fsync,
    /// Record the raw arguments in audit records (by default only their SHA-256).
    #[arg(long, env = "MCPGEN_AUDIT_ARGS")]
    pub audit_args: bool,
    /// Calls per principal: `10/s`, `10/min` or `100/h` (bursts of one second's, minute's or
    /// hour's worth; a key's own limit in the keys file wins).
    #[arg(long, env = "MCPGEN_RATE_LIMIT", value_parser = parse_rate, value_name = "N/s|N/min|N/h")]
    pub rate_limit: Option<RateSpec>,
    /// Origin allowed to call the HTTP endpoints (repeatable).
    #[arg(
        long = "allowed-origin",
        env = "MCPGEN_ALLOWED_ORIGINS",
        value_delimiter = ','
    )]
    pub allowed_origins: Vec<String>,
    /// Host header value accepted (repeatable; default: loopback names when bound to loopback).
    #[arg(
        long = "allowed-host",
        env = "MCPGEN_ALLOWED_HOSTS",
        value_delimiter = ','
    )]
    pub allowed_hosts: Vec<String>,
    /// Largest request body accepted, in bytes.
    #[arg(long, env = "MCPGEN_MAX_BODY_BYTES", default_value_t = 4 * 1024 * 1024)]
    pub max_body_bytes: usize,
    /// Seconds a client may take to send a request body after its headers; a client that
    /// stalls longer gets HTTP 408 and its connection is closed.
    #[arg(long, env = "MCPGEN_BODY_READ_TIMEOUT", default_value_t = 30)]
    pub body_read_timeout: u64,
    /// Seconds a client may take to send a request's headers; a slower client (e.g. one that
    /// trickles them byte by byte) has its connection closed. Also on `--metrics-listen`.
    #[arg(
        long,
        env = "MCPGEN_HEADER_READ_TIMEOUT",
        default_value_t = 30,
        value_parser = clap::value_parser!(u64).range(1..),
        value_name = "SECONDS"
    )]
    pub header_read_timeout: u64,
    /// Connections and sessions held at once (`--max-connections`, `--sessions-max*`).
    #[command(flatten)]
    pub connections: ConnectionArgs,
    /// What `tools/list` shows: `all` tools; `search`: meta-tools and `--pin` tools; `code`
    /// (`code-mode` feature): `execute` runs sandboxed JavaScript calling the tools.
    ///
    /// Code mode lists `search_tools`, `describe_tools` (which adds each tool's TypeScript
    /// declaration) and `execute`, plus the `--pin` tools, however many tools the API has;
    /// a small API's declarations ride in `execute`'s description
    /// (`--code-inline-declarations`).
    /// `execute` takes `{"code": "..."}`: the body of an async function in plain JavaScript
    /// with `tools` and `console` in scope. `await tools.NAME(args)` calls a tool and returns
    /// the API's response as parsed JSON; a failed call throws an Error the program may catch;
    /// the return value comes back as `{"result", "logs"}`. Every inner call is a call of the
    /// `execute`'s caller through the same checks as a direct call: visibility, scopes,
    /// validation, rate limits, the upstream guard, metrics, traces and audit (each inner
    /// record linked to the `execute`'s). A tool that needs a person's confirmation is refused
    /// inside a program.
    ///
    /// Threat model: the program is hostile input. Each runs in a fresh QuickJS engine holding
    /// only `tools` and `console` (no file system, network, environment, timers, modules,
    /// `require` or `process`), in a worker process (this binary started again, confined by
    /// seccomp and an address-space limit on Linux, killed half a second past its deadline),
    /// under limits on time, memory, stack, inner calls, output and concurrency (`--code-*`).
    /// It relies on the engine's memory safety within the worker's confinement; it does not
    /// keep the API from what the caller's own credential allows. More: the book's "Code mode" page
    /// (docs/src/api-owner/code-mode.md).
    #[arg(
        long,
        env = "MCPGEN_TOOL_MODE",
        value_parser = missing::ToolModeParser,
        default_value = "all"
    )]
    pub tool_mode: ToolMode,
    /// Limits of code-mode programs (`--code-*`).
    #[cfg(feature = "code-mode")]
    #[command(flatten)]
    pub code: CodeArgs,
    /// How many tasks the server holds (`--tasks-max`) and how operations that run long are
    /// polled (`--task-poll-*`, `--task-follow-origin`).
    #[command(flatten)]
    pub tasks: TaskArgs,
    /// In `all` mode, do not list `describe_tools` (nor say in descriptions) when tools have
    /// summarised schemas: by default a tool whose listed schemas had nested fields summarised
    /// to fit a budget says so, and `describe_tools` returns its full schemas.
    #[arg(long, env = "MCPGEN_NO_DESCRIBE_TOOLS")]
    pub no_describe_tools: bool,
    /// Serve no views (MCP Apps): no tool names a `ui://` view, whatever the client declared,
    /// and the `io.modelcontextprotocol/ui` extension is not advertised.
    #[arg(long, env = "MCPGEN_NO_UI")]
    pub no_ui: bool,
    /// Tool listed directly in search mode, next to the meta-tools (repeatable; an unknown
    /// name is an error).
    #[arg(
        long = "pin",
        env = "MCPGEN_PIN",
        value_delimiter = ',',
        value_name = "TOOL"
    )]
    pub pin: Vec<String>,
    /// File holding the key (at least 32 bytes; surrounding whitespace is ignored) that seals
    /// the `requestState` of stateless calls whose tools ask the client for input. Give every
    /// replica the same file; without it each process makes a random key at start. To rotate
    /// keys, put one key per line: the first seals, states sealed with any of them open.
    #[arg(long, env = "MCPGEN_REQUEST_STATE_KEY_FILE", value_name = "FILE")]
    pub request_state_key_file: Option<PathBuf>,
    /// Log lines on stderr: `text` or `json` (structured, with the trace id of calls that
    /// continue a trace). The level comes from `RUST_LOG` (default `info`).
    #[arg(long, env = "MCPGEN_LOG_FORMAT", value_enum, default_value = "text")]
    pub log_format: LogFormat,
    /// Seconds a shutdown (SIGTERM, Ctrl-C) waits for the calls in progress to finish; new
    /// calls are refused from the signal on, and the audit is flushed before exit.
    #[arg(
        long,
        env = "MCPGEN_SHUTDOWN_TIMEOUT",
        default_value_t = 30,
        value_name = "SECONDS"
    )]
    pub shutdown_timeout: u64,
    /// Keep the rate limits in Redis or Valkey, shared by every replica:
    /// `redis://[:PASSWORD@]HOST[:PORT][/DB]` (`rediss://` for TLS).
    #[cfg(feature = "redis")]
    #[arg(
        long,
        env = "MCPGEN_RATE_LIMIT_REDIS",
        hide_env_values = true,
        value_name = "URL"
    )]
    pub rate_limit_redis: Option<String>,
    /// While Redis is unreachable: `open` (calls go ahead unlimited, with a warning and a
    /// metric) or `closed` (calls are refused and `/readyz` reports not ready).
    #[cfg(feature = "redis")]
    #[arg(
        long,
        env = "MCPGEN_RATE_LIMIT_REDIS_UNAVAILABLE",
        value_enum,
        default_value = "open"
    )]
    pub rate_limit_redis_unavailable: crate::server::RedisUnavailable,
    /// Prometheus metrics (`--metrics`, `--metrics-listen`, `--metrics-token-env`).
    #[cfg(feature = "metrics")]
    #[command(flatten)]
    pub metrics: MetricsArgs,
    /// Audit records in PostgreSQL or SQLite (`--audit-db`, `--audit-db-spool`,
    /// `--audit-db-unavailable`).
    #[cfg(any(feature = "postgres", feature = "sqlite"))]
    #[command(flatten)]
    pub audit_db: AuditDbArgs,
    /// Hidden flags of the backends this binary was built without: given, they stop the start.
    #[command(flatten)]
    pub missing_features: MissingFeatureArgs,
}

/// Runs a generated server: parses flags, sets up logging, and serves until stopped.
pub fn main<T: ToolSet>(app: App, make_tools: impl FnOnce(Upstream) -> T) -> ExitCode {
    // Code mode's workers are this binary started again: they serve before anything else.
    #[cfg(feature = "code-mode")]
    mcpgen_code::run_worker_if_asked();
    let command = ServeArgs::command()
        .name(app.name)
        .version(app.version)
        .about(format!("MCP server for {}: {}", app.title, app.description));
    match ServeArgs::from_arg_matches(&command.get_matches()) {
        Ok(args) => serve(app, args, make_tools),
        Err(e) => e.exit(),
    }
}

/// [`main`] with flags parsed by a command that flattens [`ServeArgs`] into its own.
pub fn serve<T: ToolSet>(app: App, args: ServeArgs, tools: impl FnOnce(Upstream) -> T) -> ExitCode {
    serve_with(app, args, tools, None)
}

/// [`serve`] whose tools may be replaced while it serves (`mcpgen serve --watch`): the server
/// declares `tools.listChanged`, and once it is built `live` gets it and the upstream client
/// (to make the next tools with), to call [`Server::replace_tools`] on. `live` is called on
/// the async runtime and must return at once (start a thread or a task).
pub fn serve_live<T: ToolSet>(
    app: App,
    args: ServeArgs,
    tools: impl FnOnce(Upstream) -> T,
    live: impl FnOnce(Server, Upstream) + Send + 'static,
) -> ExitCode {
    serve_with(app, args, tools, Some(Box::new(live)))
}

/// What [`serve_live`] calls once the server is built.
type Live = Box<dyn FnOnce(Server, Upstream) + Send>;

fn serve_with<T: ToolSet>(
    app: App,
    args: ServeArgs,
    tools: impl FnOnce(Upstream) -> T,
    live: Option<Live>,
) -> ExitCode {
    let _ = LOG_FORMAT.set(args.log_format);
    #[cfg(feature = "otel")]
    let _ = SERVICE.set(app.name);
    block_on_main(run(app, args, tools, live))
}

/// The upstream client from flags: base URL and credentials for the spec's schemes.
pub fn upstream(app: &App, args: &ServeArgs) -> Result<Upstream, String> {
    let url = args
        .upstream_url
        .clone()
        .or_else(|| app.default_upstream_url.map(str::to_owned))
        .ok_or("no upstream URL: pass --upstream-url (or set MCPGEN_UPSTREAM_URL)")?;
    let mut config = UpstreamConfig::new(url)
        .with_timeout(Duration::from_secs(args.upstream_timeout))
        .with_max_response_bytes(args.upstream_max_response_bytes)
        .with_guard(args.upstream_guard.config());
    // A bundle whose credential was left blank stops here, naming the setting.
    let given = schemes::given_by(args)?;
    if let Some(key) = given.api_key {
        let mut attached = false;
        for scheme in app.security_schemes {
            let credential = match scheme.kind {
                SecuritySchemeKind::ApiKeyHeader(name) => Credential::Header {
                    name: name.to_owned(),
                    value: key.to_owned(),
                },
                SecuritySchemeKind::ApiKeyQuery(name) => Credential::Query {
                    name: name.to_owned(),
                    value: key.to_owned(),
                },
                SecuritySchemeKind::ApiKeyCookie(name) => Credential::Cookie {
                    name: name.to_owned(),
                    value: key.to_owned(),
                },
                _ => continue,
            };
            config = config.with_credential(credential);
            attached = true;
        }
        if !attached {
            return Err(format!(
                "--upstream-api-key is set but the API has no apiKey security scheme (header, \
                 query or cookie){}",
                scheme_hint(app)
            ));
        }
    }
    if let Some(token) = given.bearer {
        config = config.with_credential(Credential::Bearer(token.to_owned()));
    }
    if let Some(basic) = given.basic {
        if !app
            .security_schemes
            .iter()
            .any(|s| s.kind == SecuritySchemeKind::Basic)
        {
            return Err(format!(
                "--upstream-basic is set but the API has no HTTP basic security scheme{}",
                scheme_hint(app)
            ));
        }
        let Some((username, password)) = basic.split_once(':') else {
            return Err(
                "--upstream-basic must be USER:PASSWORD (a user name, a colon, the password)"
                    .into(),
            );
        };
        config = config.with_credential(Credential::Basic {
            username: username.to_owned(),
            password: password.to_owned(),
        });
    }
    // The product's own key is the credential its API expects.
    if args.upstream_pass_through || args.key_check.key_check_url.is_some() {
        config = config.with_pass_through(app.security_schemes.iter().copied());
        if app.security_schemes.is_empty() {
            return Err(
                "--upstream-pass-through is set but the API declares no security scheme to send \
                 the caller's credential in"
                    .into(),
            );
        }
    }
    config = args.token_exchange.apply(app, &args.oauth, config)?;
    config = args.tasks.polling(config);
    Upstream::new(config).map_err(|e| e.to_string())
}

fn authenticator(app: &App, args: &ServeArgs) -> Result<Option<AuthChain>, String> {
    let mut chain = AuthChain::new();
    if let Some(path) = &args.keys {
        let keys = WatchedKeys::load(path, RELOAD).map_err(|e| e.to_string())?;
        for id in keys.current().plain_key_ids() {
            tracing::warn!(
                key = id,
                "key `{id}` is stored in plain text; use key_sha256 outside development"
            );
        }
        chain = chain.with(keys);
    }
    if !args.token_secret_env.is_empty() {
        let audience = args
            .token_audience
            .clone()
            .unwrap_or_else(|| app.name.to_owned());
        chain = chain.with(
            TokenAuthority::from_env_all(&args.token_secret_env, audience)
                .map_err(|e| e.to_string())?,
        );
    }
    let upstream = args.upstream_url.as_deref().or(app.default_upstream_url);
    if let Some(check) = args.key_check.key_check(app, upstream)? {
        chain = chain.with(check);
    }
    Ok((!chain.is_empty()).then_some(chain))
}

/// The server as the flags configure it (authentication, audit, limits, output check, header
/// forwarding, metrics) around `tools`, not yet built. [`main`] serves what this builds.
/// With `--metrics-listen`, the metrics listener is bound and served from here (on the
/// current Tokio runtime).
pub fn server_builder(
    app: &App,
    args: &ServeArgs,
    tools: impl ToolSet,
) -> Result<ServerBuilder, String> {
    let auth = authenticator(app, args)?;
    builder_with_auth(app, args, tools, auth)
}

fn builder_with_auth(
    app: &App,
    args: &ServeArgs,
    tools: impl ToolSet,
    auth: Option<AuthChain>,
) -> Result<ServerBuilder, String> {
    args.missing_features.check()?;
    let oauth = args.oauth.resource_server()?;
    if auth.is_none() && oauth.is_none() && !args.no_auth {
        return Err("no authentication configured: pass --keys FILE, --token-secret-env VAR, --key-check-url URL and/or --oauth-issuer URL, or --no-auth to serve without it".into());
    }
    if (auth.is_some() || oauth.is_some()) && args.no_auth {
        return Err("--no-auth conflicts with --keys/--token-secret-env/--oauth-issuer".into());
    }
    let mut builder = Server::builder(app.name, app.version)
        .description(app.description)
        .title(app.title)
        .tool_set(tools)
        .audit(log_sink(args))
        .audit_args(args.audit_args)
        .shutdown_timeout(Duration::from_secs(args.shutdown_timeout))
        .rate_limit(args.rate_limit.map(|r| r.per_second))
        .rate_limit_burst(args.rate_limit.map(|r| r.burst))
        .allowed_origins(args.allowed_origins.clone())
        .allowed_hosts(args.allowed_hosts.clone())
        .max_body_bytes(args.max_body_bytes)
        .body_read_timeout(Duration::from_secs(args.body_read_timeout))
        .header_read_timeout(Duration::from_secs(args.header_read_timeout))
        .output_check(args.output_check)
        .unconfirmable(args.unconfirmable_calls)
        .forward_headers(args.forward_headers.clone())
        .tool_mode(args.tool_mode)
        .pinned(args.pin.clone())
        .describe_tools(!args.no_describe_tools)
        .views(!args.no_ui)
        .tasks_max(args.tasks.tasks_max)
        .tasks_max_per_principal(args.tasks.tasks_max_per_principal)
        .tasks_results_max_bytes(args.tasks.tasks_results_max_bytes)
        .insecure_no_auth(args.insecure_no_auth);
    builder = args.connections.apply(builder);
    builder = args.placement.apply(builder)?;
    #[cfg(feature = "code-mode")]
    let mut builder = builder.code_limits(args.code.limits());
    if let Some(path) = &args.request_state_key_file {
        let mut keys = request_state_keys(path)?.into_iter();
        if let Some(key) = keys.next() {
            builder = builder.request_state_key(key);
        }
        for key in keys {
            builder = builder.previous_request_state_key(key);
        }
    }
    if let Some(path) = &args.audit_log {
        let sink = JsonlSink::open(path, args.audit_fsync)
            .map_err(|e| format!("audit log {}: {e}", path.display()))?;
        builder = builder.audit(sink);
    }
    #[cfg(feature = "redis")]
    if let Some(url) = &args.rate_limit_redis {
        let limiter = crate::server::RedisLimiter::new(url, args.rate_limit_redis_unavailable)
            .map_err(|e| e.to_string())?;
        builder = builder.shared_rate_limits(limiter);
    }
    #[cfg(any(feature = "postgres", feature = "sqlite"))]
    if let Some(sink) = args
        .audit_db
        .sink(args.audit_fsync, args.placement.replica_name.as_deref())?
    {
        builder = builder.audit(sink);
    }
    #[cfg(feature = "metrics")]
    {
        let (configured, separate) = args.metrics.configure(builder)?;
        builder = configured;
        if let Some(separate) = separate {
            metrics::serve_separate(separate, Duration::from_secs(args.header_read_timeout))?;
        }
    }
    Ok(match (auth, oauth) {
        (Some(chain), Some(oauth)) => builder.authenticator(chain).oauth(oauth),
        (Some(chain), None) => builder.authenticator(chain),
        (None, Some(oauth)) => builder.oauth(oauth),
        (None, None) => builder.no_auth(),
    })
}

async fn run<T: ToolSet>(
    app: App,
    args: ServeArgs,
    make_tools: impl FnOnce(Upstream) -> T,
    live: Option<Live>,
) -> Result<(), String> {
    let upstream = upstream(&app, &args)?;
    let auth = authenticator(&app, &args)?;
    let builder = builder_with_auth(&app, &args, make_tools(upstream.clone()), auth.clone())?;
    let stdio_credential = (args.transport == Transport::Stdio)
        .then(|| std::env::var("MCPGEN_API_KEY").ok())
        .flatten()
        .map(|key| key.trim().to_owned())
        .filter(|key| !key.is_empty());
    let principal_for_stdio = match (&auth, args.transport) {
        (Some(chain), Transport::Stdio) => {
            Some(chain.authenticate(stdio_credential.as_deref()).await.map_err(|e| {
                format!("stdio authentication: {e} (set MCPGEN_API_KEY to a key from the keys file or a token)")
            })?)
        }
        _ => None,
    };
    if args.oauth.oauth_issuer.is_some()
        && args.placement.public_url.is_none()
        && args.transport == Transport::Http
        && !args.listen.ip().is_loopback()
    {
        tracing::warn!(
            "--oauth-issuer without --public-url: token audiences are checked against the Host \
             each client sends; set --public-url to the address clients use"
        );
    }
    let builder = builder.tools_list_changed(live.is_some());
    let server = builder.build().map_err(|e| e.to_string())?;
    if let Some(live) = live {
        live(server.clone(), upstream);
    }
    match args.transport {
        Transport::Stdio => {
            let principal = principal_for_stdio.unwrap_or_else(|| Principal::unrestricted("local"));
            server
                .serve_stdio_with(principal, stdio_credential.map(CallerCredential::new))
                .await
                .map_err(|e| e.to_string())
        }
        Transport::Http => server
            .serve_http(args.listen, shutdown_signal())
            .await
            .map_err(|e| e.to_string()),
    }
}
