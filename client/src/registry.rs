//! A registry over every configured server: one tool namespace, graceful degradation, a
//! cached tool list, and a circuit breaker per server.
//!
//! [`Registry::connect`] connects to every enabled server of an [`McpConfig`] concurrently
//! and lists their tools. A server that cannot be connected to or listed is reported by
//! [`Registry::failures`] and left out; the others work as usual. Disabled servers are not
//! connected to, and a server's `tools` allowlist limits which of its tools appear.
//!
//! # Tool names
//!
//! A tool keeps its own name when no other server offers a tool of the same name. When two
//! or more servers offer tool `t`, *every* one of them is named `server__t` (server name,
//! two underscores, tool name) and plain `t` is not offered, so a name never silently means
//! a different server after another server appears. Should a qualified name equal another
//! tool's plain name, that tool is qualified too. The result does not depend on the order in
//! which servers answer. [`RegisteredTool`] keeps the server and the server's own tool name.
//!
//! # Caching
//!
//! The tool list is kept for a time to live (default five minutes). [`Registry::tools`] and
//! [`Registry::call`] refresh it when it is older; [`Registry::refresh`] does so at once.
//! A refresh lists every connected server again (connecting afresh to one whose session
//! broke, unless its breaker is open) and retries servers that failed before.
//!
//! # Circuit breaker
//!
//! Every call (and every listing) of a server goes through that server's
//! [`CircuitBreaker`]. Transport errors, connection failures and timeouts count as failures;
//! a result with `isError: true`, a JSON-RPC error (such as invalid arguments) and an
//! over-large response do not: the server answered. While a breaker is open, calls of that
//! server fail at once with an error saying when the next attempt is allowed.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use serde_json::{Map, Value};

use crate::breaker::CircuitBreaker;
use crate::config::{McpConfig, ServerConfig};
use crate::error::ClientError;
use crate::formats::ToolDefinition;
use crate::session::Session;
use crate::tool::{ListedTool, ToolOrigin};
use mcpgen_core::{BoxFuture, CallError, McpConnection, ToolResult};

/// The separator between server and tool in a qualified name: `server__tool`.
pub const QUALIFIER: &str = "__";

/// Default time to live of the cached tool list.
pub const DEFAULT_TOOLS_TTL: Duration = Duration::from_secs(300);

pub(crate) mod options;

pub use options::RegistryOptions;

/// One tool the registry offers.
#[derive(Debug, Clone, PartialEq)]
pub struct RegisteredTool {
    /// The name to call it by (`tool`, or `server__tool` when names collide).
    pub name: String,
    /// The server offering it.
    pub server: String,
    /// The tool's name on its server.
    pub tool: String,
    /// Human-readable title, if the server gave one.
    pub title: Option<String>,
    /// Description (empty when the server gave none).
    pub description: String,
    /// JSON Schema of the arguments.
    pub input_schema: Map<String, Value>,
}

impl RegisteredTool {
    /// The definition to hand to a model, under the registry's name.
    pub fn definition(&self) -> ToolDefinition {
        ToolDefinition {
            name: self.name.clone(),
            description: self.description.clone(),
            input_schema: self.input_schema.clone(),
        }
    }
}

/// A server that could not be used: connecting or listing failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerFailure {
    /// The server's name in the configuration.
    pub server: String,
    /// What went wrong.
    pub error: String,
}

impl std::fmt::Display for ServerFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.server, self.error)
    }
}

struct Connected {
    session: Session,
    breaker: CircuitBreaker,
}

#[derive(Default)]
struct Listing {
    tools: BTreeMap<String, RegisteredTool>,
    failures: Vec<ServerFailure>,
    listed_at: Option<Instant>,
}

/// Connected servers and their tools under one namespace. See the [module
/// documentation](self).
pub struct Registry {
    configs: BTreeMap<String, ServerConfig>,
    servers: RwLock<BTreeMap<String, Arc<Connected>>>,
    listing: RwLock<Listing>,
    refreshing: tokio::sync::Mutex<()>,
    options: RegistryOptions,
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registry")
            .field("servers", &self.connected_servers())
            .field("failures", &self.failures())
            .finish_non_exhaustive()
    }
}

/// Whether an error says the server (or the way to it) is unhealthy.
pub fn counts_against_server(error: &ClientError) -> bool {
    matches!(
        error,
        ClientError::Transport(_) | ClientError::Connect { .. } | ClientError::Timeout { .. }
    )
}

fn read<T>(lock: &RwLock<T>) -> std::sync::RwLockReadGuard<'_, T> {
    // The guarded values are replaced whole, never left half-written; a poisoned lock is
    // still consistent.
    lock.read().unwrap_or_else(|p| p.into_inner())
}

fn write<T>(lock: &RwLock<T>) -> std::sync::RwLockWriteGuard<'_, T> {
    lock.write().unwrap_or_else(|p| p.into_inner())
}

impl Registry {
    /// Connects to every enabled server of `config` with the default options. Never fails:
    /// servers that cannot be used are in [`Registry::failures`].
    pub async fn connect(config: &McpConfig) -> Registry {
        Self::connect_with(config, RegistryOptions::default()).await
    }

    /// Connects to every enabled server of `config`.
    pub async fn connect_with(config: &McpConfig, options: RegistryOptions) -> Registry {
        let configs: BTreeMap<String, ServerConfig> = config
            .enabled()
            .map(|(name, c)| (name.to_owned(), c.clone()))
            .collect();
        let registry = Registry {
            configs,
            servers: RwLock::new(BTreeMap::new()),
            listing: RwLock::new(Listing::default()),
            refreshing: tokio::sync::Mutex::new(()),
            options,
        };
        registry.refresh().await;
        registry
    }

    /// The names of the servers connected now.
    pub fn connected_servers(&self) -> Vec<String> {
        read(&self.servers).keys().cloned().collect()
    }

    /// The servers that failed at the last (re)listing, in name order.
    pub fn failures(&self) -> Vec<ServerFailure> {
        read(&self.listing).failures.clone()
    }

    /// The circuit breaker state of a connected server.
    pub fn breaker_state(&self, server: &str) -> Option<crate::breaker::BreakerState> {
        read(&self.servers).get(server).map(|c| c.breaker.state())
    }

    /// All tools, in name order; lists the servers again first if the list is older than its
    /// time to live.
    pub async fn tools(&self) -> Vec<RegisteredTool> {
        self.refresh_if_stale().await;
        read(&self.listing).tools.values().cloned().collect()
    }

    /// The definitions of all tools, for a model.
    pub async fn definitions(&self) -> Vec<ToolDefinition> {
        self.tools()
            .await
            .iter()
            .map(RegisteredTool::definition)
            .collect()
    }

    /// One tool by its registry name (from the cached list, however old).
    pub fn tool(&self, name: &str) -> Option<RegisteredTool> {
        read(&self.listing).tools.get(name).cloned()
    }

    /// The first `max` tool names, for messages.
    fn known_tools(&self, max: usize) -> String {
        let listing = read(&self.listing);
        let total = listing.tools.len();
        if total == 0 {
            return "none".to_owned();
        }
        let names: Vec<&str> = listing.tools.keys().take(max).map(String::as_str).collect();
        let mut out = names.join(", ");
        if total > max {
            out.push_str(&format!(" and {} more", total - max));
        }
        out
    }

    async fn refresh_if_stale(&self) {
        let stale = read(&self.listing).listed_at.is_none_or(|at| {
            self.options.clock.now().saturating_duration_since(at) >= self.options.tools_ttl
        });
        if stale {
            self.refresh().await;
        }
    }

    /// Lists every connected server again, retries servers that failed before, and rebuilds
    /// the tool list.
    pub async fn refresh(&self) {
        let _one_at_a_time = self.refreshing.lock().await;
        let connected: BTreeMap<String, Arc<Connected>> = read(&self.servers).clone();

        let jobs = self.configs.iter().map(|(name, config)| {
            let existing = connected.get(name).cloned();
            async move {
                if let Some(c) = existing {
                    match list_through_breaker(&c).await {
                        Ok(tools) => return (name.clone(), Some(c), Ok(tools)),
                        // The session broke (e.g. the server restarted): connect afresh below.
                        Err(Listed::Unhealthy(_)) => {}
                        // The server answered with an error, or its breaker is open.
                        Err(Listed::Refused(e)) => return (name.clone(), Some(c), Err(e)),
                    }
                }
                let c = match Session::connect_for_registry(
                    name,
                    config,
                    &self.options.answers,
                    self.options.oauth_ref(),
                )
                .await
                {
                    Ok(session) => Arc::new(Connected {
                        session,
                        breaker: CircuitBreaker::with_clock(
                            name.clone(),
                            self.options.breaker,
                            self.options.clock.clone(),
                        ),
                    }),
                    Err(e) => return (name.clone(), None, Err(e.to_string())),
                };
                let listed = list_through_breaker(&c).await.map_err(Listed::into_message);
                (name.clone(), Some(c), listed)
            }
        });
        let outcomes = futures::future::join_all(jobs).await;

        let mut servers = BTreeMap::new();
        let mut listed: Vec<(String, Vec<ListedTool>)> = Vec::new();
        let mut failures = Vec::new();
        for (name, connected, result) in outcomes {
            if let Some(c) = connected {
                servers.insert(name.clone(), c);
            }
            match result {
                Ok(tools) => listed.push((name, tools)),
                Err(error) => failures.push(ServerFailure {
                    server: name,
                    error,
                }),
            }
        }
        let tools = assign_names(listed, &mut failures);
        failures.sort_by(|a, b| a.server.cmp(&b.server));
        *write(&self.servers) = servers;
        *write(&self.listing) = Listing {
            tools,
            failures,
            listed_at: Some(self.options.clock.now()),
        };
    }

    /// Calls tool `name` (a registry name) through its server's circuit breaker.
    pub async fn call(
        &self,
        name: &str,
        args: Map<String, Value>,
    ) -> Result<ToolResult, ClientError> {
        self.refresh_if_stale().await;
        let Some(tool) = self.tool(name) else {
            return Err(ClientError::UnknownTool {
                name: name.to_owned(),
                known: self.known_tools(20),
            });
        };
        let Some(server) = read(&self.servers).get(&tool.server).cloned() else {
            return Err(ClientError::Transport(format!(
                "server `{}` of tool `{name}` is not connected",
                tool.server
            )));
        };
        let permit = server.breaker.acquire()?;
        let result = server.session.call_tool(&tool.tool, args).await;
        match &result {
            Err(e) if counts_against_server(e) => permit.failure(),
            _ => permit.success(),
        }
        result
    }

    /// Closes every session (stdio children exit or are killed). Returns the servers whose
    /// shutdown reported a problem.
    pub async fn shutdown(self) -> Result<(), Vec<ServerFailure>> {
        let servers = std::mem::take(&mut *write(&self.servers));
        let jobs = servers.into_iter().map(|(name, connected)| async move {
            match Arc::try_unwrap(connected) {
                Ok(c) => c.session.shutdown().await.map_err(|e| ServerFailure {
                    server: name,
                    error: e.to_string(),
                }),
                // Only the registry holds sessions between calls, and no call can be in
                // flight while the registry is moved here.
                Err(_) => Err(ServerFailure {
                    server: name,
                    error: "session still in use; it closes when the last user drops it".to_owned(),
                }),
            }
        });
        let failures: Vec<ServerFailure> = futures::future::join_all(jobs)
            .await
            .into_iter()
            .filter_map(Result::err)
            .collect();
        if failures.is_empty() {
            Ok(())
        } else {
            Err(failures)
        }
    }
}

/// Why listing a server failed.
enum Listed {
    /// A transport error or timeout: the session is probably broken.
    Unhealthy(String),
    /// The breaker is open, or the server answered with an error.
    Refused(String),
}

impl Listed {
    fn into_message(self) -> String {
        match self {
            Listed::Unhealthy(m) | Listed::Refused(m) => m,
        }
    }
}

async fn list_through_breaker(c: &Connected) -> Result<Vec<ListedTool>, Listed> {
    let permit = c
        .breaker
        .acquire()
        .map_err(|open| Listed::Refused(open.to_string()))?;
    match c.session.list_tools().await {
        Ok(tools) => {
            permit.success();
            Ok(tools)
        }
        Err(e) if counts_against_server(&e) => {
            permit.failure();
            Err(Listed::Unhealthy(e.to_string()))
        }
        Err(e) => {
            permit.success();
            Err(Listed::Refused(e.to_string()))
        }
    }
}

/// Names every listed tool as the module documentation describes. `listed` may come in any
/// order; duplicate names within one server keep the first and are reported.
fn assign_names(
    mut listed: Vec<(String, Vec<ListedTool>)>,
    failures: &mut Vec<ServerFailure>,
) -> BTreeMap<String, RegisteredTool> {
    listed.sort_by(|a, b| a.0.cmp(&b.0));
    let mut entries: Vec<RegisteredTool> = Vec::new();
    for (server, mut tools) in listed {
        tools.sort_by(|a, b| a.name.cmp(&b.name));
        let mut seen = BTreeSet::new();
        for tool in tools {
            if !seen.insert(tool.name.clone()) {
                failures.push(ServerFailure {
                    server: server.clone(),
                    error: format!(
                        "lists tool `{}` more than once; the first is used",
                        tool.name
                    ),
                });
                continue;
            }
            let def = ToolDefinition::from_mcp(tool.name.clone(), &tool);
            entries.push(RegisteredTool {
                name: def.name.clone(),
                server: server.clone(),
                tool: def.name,
                title: tool.title.clone(),
                description: def.description,
                input_schema: def.input_schema,
            });
        }
    }
    // Qualify every tool whose name is offered more than once, until names are unique. Each
    // round qualifies at least one more plain name, so this ends; the bound is a safeguard.
    let mut qualify: BTreeSet<String> = BTreeSet::new();
    for _ in 0..=entries.len() {
        let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
        for e in &entries {
            *counts.entry(e.name.as_str()).or_default() += 1;
        }
        let clashing: BTreeSet<String> = entries
            .iter()
            .filter(|e| counts[e.name.as_str()] > 1 && e.name == e.tool)
            .map(|e| e.tool.clone())
            .collect();
        if clashing.is_empty() {
            break;
        }
        qualify.extend(clashing);
        for e in &mut entries {
            if qualify.contains(&e.tool) {
                e.name = format!("{}{QUALIFIER}{}", e.server, e.tool);
            }
        }
    }
    let mut tools = BTreeMap::new();
    for e in entries {
        if let Some(first) = tools.get(&e.name) {
            let first: &RegisteredTool = first;
            failures.push(ServerFailure {
                server: e.server.clone(),
                error: format!(
                    "tool `{}` is left out: its qualified name `{}` is also the name of `{}` on server `{}`",
                    e.tool, e.name, first.tool, first.server
                ),
            });
            continue;
        }
        tools.insert(e.name.clone(), e);
    }
    tools
}

impl McpConnection for Registry {
    fn call_tool<'a>(
        &'a self,
        name: &'a str,
        args: Map<String, Value>,
    ) -> BoxFuture<'a, Result<ToolResult, CallError>> {
        Box::pin(async move { self.call(name, args).await.map_err(CallError::from) })
    }
}

impl ToolOrigin for Registry {
    fn origin(&self, name: &str) -> Option<String> {
        self.tool(name).map(|t| format!("{}/{}", t.server, t.tool))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn tool(name: &str) -> ListedTool {
        let schema: Map<String, Value> = json!({"type": "object"})
            .as_object()
            .cloned()
            .unwrap_or_default();
        ListedTool {
            name: name.to_owned(),
            description: Some(format!("{name} tool")),
            input_schema: schema,
            ..ListedTool::default()
        }
    }

    fn names(listed: Vec<(&str, &[&str])>) -> (Vec<(String, String, String)>, Vec<ServerFailure>) {
        let listed = listed
            .into_iter()
            .map(|(s, tools)| (s.to_owned(), tools.iter().map(|t| tool(t)).collect()))
            .collect();
        let mut failures = Vec::new();
        let tools = assign_names(listed, &mut failures);
        (
            tools
                .into_values()
                .map(|t| (t.name, t.server, t.tool))
                .collect(),
            failures,
        )
    }

    fn row(name: &str, server: &str, tool: &str) -> (String, String, String) {
        (name.into(), server.into(), tool.into())
    }

    #[test]
    fn colliding_names_are_all_qualified_and_others_kept() {
        let (tools, failures) = names(vec![
            ("web", &["search", "fetch"]),
            ("docs", &["search", "read"]),
        ]);
        assert_eq!(
            tools,
            [
                row("docs__search", "docs", "search"),
                row("fetch", "web", "fetch"),
                row("read", "docs", "read"),
                row("web__search", "web", "search"),
            ]
        );
        assert!(failures.is_empty());
    }

    #[test]
    fn the_order_servers_answer_in_does_not_matter() {
        let a = names(vec![("b", &["x", "y"]), ("a", &["x"])]);
        let b = names(vec![("a", &["x"]), ("b", &["y", "x"])]);
        assert_eq!(a, b);
    }

    #[test]
    fn a_qualified_name_that_equals_a_plain_name_qualifies_that_one_too() {
        let (tools, _) = names(vec![("a", &["x"]), ("b", &["x"]), ("c", &["a__x"])]);
        assert_eq!(
            tools,
            [
                row("a__x", "a", "x"),
                row("b__x", "b", "x"),
                row("c__a__x", "c", "a__x"),
            ]
        );
    }

    #[test]
    fn qualified_names_that_still_clash_are_reported() {
        // `a__b` + `c` and `a` + `b__c` both qualify to `a__b__c`.
        let (tools, failures) = names(vec![
            ("a__b", &["c"]),
            ("a", &["b__c"]),
            ("x", &["c", "b__c"]),
        ]);
        let names: Vec<&str> = tools.iter().map(|t| t.0.as_str()).collect();
        assert_eq!(names, ["a__b__c", "x__b__c", "x__c"]);
        assert_eq!(failures.len(), 1);
        assert_eq!(failures[0].server, "a__b");
        assert!(
            failures[0]
                .error
                .contains("also the name of `b__c` on server `a`")
        );
    }

    #[test]
    fn a_tool_listed_twice_by_one_server_is_kept_once_and_reported() {
        let (tools, failures) = names(vec![("a", &["x", "x"])]);
        assert_eq!(tools, [row("x", "a", "x")]);
        assert_eq!(
            failures,
            [ServerFailure {
                server: "a".into(),
                error: "lists tool `x` more than once; the first is used".into()
            }]
        );
    }

    #[test]
    fn transport_errors_and_timeouts_count_against_a_server_answers_do_not() {
        let server = || "s".to_owned();
        let counted = [
            ClientError::Transport("connection refused".into()),
            ClientError::Timeout {
                server: server(),
                operation: "tools/call `x`".into(),
                timeout_ms: 10,
            },
            ClientError::Connect {
                server: server(),
                message: "cannot start".into(),
            },
        ];
        for e in &counted {
            assert!(counts_against_server(e), "{e}");
        }
        let answered = [
            ClientError::Rpc {
                server: server(),
                operation: "tools/call `x`".into(),
                code: -32602,
                message: "invalid params".into(),
            },
            ClientError::ResponseTooLarge {
                server: server(),
                operation: "tools/call `x`".into(),
                size: Some(10),
                limit: 1,
            },
            ClientError::NotAllowed {
                server: server(),
                tool: "x".into(),
            },
            ClientError::Tool {
                tool: "x".into(),
                message: "failed".into(),
            },
        ];
        for e in &answered {
            assert!(!counts_against_server(e), "{e}");
        }
    }
}
