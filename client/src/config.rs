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

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Map, Value};

use mcpgen_runtime::json_kind;

/// Environment variable naming the configuration file [`McpConfig::discover`] reads.
pub const CONFIG_ENV: &str = "MCPGEN_MCP_CONFIG";

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
        }
    }

    /// Whether the allowlist (if any) admits tool `name`.
    pub fn allows_tool(&self, name: &str) -> bool {
        self.tools
            .as_ref()
            .is_none_or(|tools| tools.iter().any(|t| t == name))
    }
}

/// Why a configuration could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("cannot read MCP server configuration {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The text is not JSON.
    #[error("MCP server configuration {origin} is not valid JSON: {message}")]
    Json {
        /// File path, or `<string>`.
        origin: String,
        /// The parser's message (with line and column).
        message: String,
    },
    /// The JSON does not describe valid servers; every problem found is listed.
    #[error(
        "MCP server configuration {origin} is invalid:{}",
        ProblemList(problems)
    )]
    Invalid {
        /// File path, or `<string>`.
        origin: String,
        /// Each problem, naming the server and field.
        problems: Vec<ConfigProblem>,
    },
}

/// One problem in a configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigProblem {
    /// The server's name (empty for the top level).
    pub server: String,
    /// The field, e.g. `url` or `env.API_KEY`.
    pub field: String,
    /// What is wrong and how to fix it.
    pub message: String,
}

impl fmt::Display for ConfigProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.server.is_empty() {
            write!(f, "field `{}`: {}", self.field, self.message)
        } else {
            write!(
                f,
                "server `{}`, field `{}`: {}",
                self.server, self.field, self.message
            )
        }
    }
}

struct ProblemList<'a>(&'a [ConfigProblem]);

impl fmt::Display for ProblemList<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for p in self.0 {
            write!(f, "\n  - {p}")?;
        }
        Ok(())
    }
}

impl McpConfig {
    /// Reads the file named by `MCPGEN_MCP_CONFIG`, else `~/.config/mcpgen/mcp_servers.json`.
    /// A missing default file is an empty configuration; a missing file named by the
    /// variable is an error.
    pub fn discover() -> Result<McpConfig, ConfigError> {
        let (path, required) = Self::discovered_path(&|name| std::env::var_os(name));
        match path {
            Some(path) if required || path.is_file() => Self::load(&path),
            _ => Ok(McpConfig::default()),
        }
    }

    /// `~/.config/mcpgen/mcp_servers.json`, if the home directory is known.
    pub fn default_path() -> Option<PathBuf> {
        Self::discovered_path(&|name| (name == "HOME").then(|| std::env::var_os("HOME"))?).0
    }

    /// The file [`Self::discover`] reads, and whether it must exist (it must when named by
    /// `MCPGEN_MCP_CONFIG`).
    fn discovered_path(
        var: &dyn Fn(&str) -> Option<std::ffi::OsString>,
    ) -> (Option<PathBuf>, bool) {
        if let Some(path) = var(CONFIG_ENV).filter(|p| !p.is_empty()) {
            return (Some(PathBuf::from(path)), true);
        }
        let home = var("HOME").filter(|h| !h.is_empty());
        (
            home.map(|h| PathBuf::from(h).join(".config/mcpgen/mcp_servers.json")),
            false,
        )
    }

    /// Reads and validates the configuration file at `path`.
    pub fn load(path: &Path) -> Result<McpConfig, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Io {
            path: path.to_owned(),
            source,
        })?;
        parse(&text, &path.display().to_string(), &|name| {
            std::env::var(name).ok()
        })
    }

    /// Parses and validates a configuration held in a string.
    pub fn from_json_str(text: &str) -> Result<McpConfig, ConfigError> {
        parse(text, "<string>", &|name| std::env::var(name).ok())
    }

    /// The servers that are not disabled.
    pub fn enabled(&self) -> impl Iterator<Item = (&str, &ServerConfig)> {
        self.servers
            .iter()
            .filter(|(_, s)| !s.disabled)
            .map(|(n, s)| (n.as_str(), s))
    }
}

type Lookup<'a> = &'a dyn Fn(&str) -> Option<String>;

fn parse(text: &str, origin: &str, env: Lookup<'_>) -> Result<McpConfig, ConfigError> {
    let root: Value = serde_json::from_str(text).map_err(|e| ConfigError::Json {
        origin: origin.to_owned(),
        message: e.to_string(),
    })?;
    let mut problems = Vec::new();
    let mut config = McpConfig::default();
    let top = |field: &str, message: String| ConfigProblem {
        server: String::new(),
        field: field.to_owned(),
        message,
    };
    match &root {
        Value::Object(map) => {
            for key in map.keys().filter(|k| *k != "mcpServers") {
                problems.push(top(
                    key,
                    "unknown top-level field; expected only `mcpServers`".into(),
                ));
            }
            match map.get("mcpServers") {
                Some(Value::Object(servers)) => {
                    for (name, entry) in servers {
                        if let Some(server) = parse_server(name, entry, env, &mut problems) {
                            config.servers.insert(name.clone(), server);
                        }
                    }
                }
                Some(other) => problems.push(top(
                    "mcpServers",
                    format!(
                        "must be an object of servers by name, found {}",
                        json_kind(other)
                    ),
                )),
                None => problems.push(top(
                    "mcpServers",
                    "missing; write `{\"mcpServers\": {\"name\": {...}}}`".into(),
                )),
            }
        }
        other => problems.push(top(
            "",
            format!(
                "the configuration must be an object with `mcpServers`, found {}",
                json_kind(other)
            ),
        )),
    }
    if problems.is_empty() {
        Ok(config)
    } else {
        Err(ConfigError::Invalid {
            origin: origin.to_owned(),
            problems,
        })
    }
}

const FIELDS: &[&str] = &[
    "command",
    "args",
    "env",
    "url",
    "headers",
    "transport",
    "type",
    "disabled",
    "tools",
    "timeout_ms",
    "allow_private",
    "max_response_bytes",
];

/// Collects problems for one entry; returns the entry only if it had none.
fn parse_server(
    name: &str,
    entry: &Value,
    env: Lookup<'_>,
    problems: &mut Vec<ConfigProblem>,
) -> Option<ServerConfig> {
    let before = problems.len();
    let mut problem = |field: &str, message: String| {
        problems.push(ConfigProblem {
            server: name.to_owned(),
            field: field.to_owned(),
            message,
        })
    };
    if name.is_empty() {
        problem("", "a server name must not be empty".into());
    }
    let Value::Object(map) = entry else {
        problem(
            "",
            format!(
                "each server must be an object with `command` or `url`, found {}",
                json_kind(entry)
            ),
        );
        return None;
    };
    for key in map.keys().filter(|k| !FIELDS.contains(&k.as_str())) {
        problem(
            key,
            format!("unknown field; expected one of {}", FIELDS.join(", ")),
        );
    }

    let command = string_field(map, "command", &mut problem);
    let url = string_field(map, "url", &mut problem);
    let transport_kind = match (map.get("transport"), map.get("type")) {
        (Some(_), Some(_)) => {
            problem(
                "type",
                "`type` and `transport` mean the same; give only one".into(),
            );
            None
        }
        (Some(_), None) => string_field(map, "transport", &mut problem).map(|t| ("transport", t)),
        (None, Some(_)) => string_field(map, "type", &mut problem).map(|t| ("type", t)),
        (None, None) => None,
    };
    let args = string_list(map, "args", &mut problem);
    let env_map = string_map(map, "env", &mut problem);
    let headers = string_map(map, "headers", &mut problem);
    let disabled = bool_field(map, "disabled", &mut problem).unwrap_or(false);
    let allow_private = bool_field(map, "allow_private", &mut problem).unwrap_or(false);
    let tools = string_list(map, "tools", &mut problem);
    let timeout_ms = uint_field(map, "timeout_ms", &mut problem).unwrap_or(DEFAULT_TIMEOUT_MS);
    if timeout_ms == 0 {
        problem("timeout_ms", "must be at least 1".into());
    }
    let max_response_bytes = uint_field(map, "max_response_bytes", &mut problem)
        .map(|n| usize::try_from(n).unwrap_or(usize::MAX))
        .unwrap_or(DEFAULT_MAX_RESPONSE_BYTES);
    if max_response_bytes == 0 {
        problem("max_response_bytes", "must be at least 1".into());
    }

    let transport = match (command, url) {
        (Some(_), Some(_)) => {
            problem(
                "url",
                "give either `command` (a stdio server) or `url` (an HTTP server), not both".into(),
            );
            None
        }
        (None, None) => {
            if !map.contains_key("command") && !map.contains_key("url") {
                problem(
                    "command",
                    "missing; give `command` (a stdio server) or `url` (an HTTP server)".into(),
                );
            }
            None
        }
        (Some(command), None) => {
            for field in ["url", "headers"] {
                if map.contains_key(field) {
                    problem(
                        field,
                        "only HTTP servers (with `url`) take this field".into(),
                    );
                }
            }
            if let Some((field, kind)) = &transport_kind
                && kind != "stdio"
            {
                problem(
                    field,
                    format!("`{kind}` needs a `url`; a server with `command` uses `stdio`"),
                );
            }
            if command.trim().is_empty() {
                problem("command", "must not be empty".into());
            }
            let env_map = expand_map(&env_map.unwrap_or_default(), "env", env, &mut problem);
            Some(TransportConfig::Stdio {
                command,
                args: args.unwrap_or_default(),
                env: env_map,
            })
        }
        (None, Some(url)) => {
            for field in ["args", "env"] {
                if map.contains_key(field) {
                    problem(
                        field,
                        "only stdio servers (with `command`) take this field".into(),
                    );
                }
            }
            check_url(&url, &mut problem);
            let headers = expand_map(&headers.unwrap_or_default(), "headers", env, &mut problem);
            for key in headers.keys() {
                if http::HeaderName::from_bytes(key.as_bytes()).is_err() {
                    problem(
                        &format!("headers.{key}"),
                        "not a valid HTTP header name".into(),
                    );
                }
            }
            for (key, value) in &headers {
                if http::HeaderValue::from_str(value).is_err() {
                    problem(
                        &format!("headers.{key}"),
                        "the value is not a valid HTTP header value (control characters?)".into(),
                    );
                }
            }
            match transport_kind.as_ref().map(|(f, k)| (*f, k.as_str())) {
                None | Some((_, "streamable-http" | "http" | "streamable_http")) => {
                    Some(TransportConfig::StreamableHttp { url, headers })
                }
                Some((_, "sse")) => Some(TransportConfig::Sse { url, headers }),
                Some((field, other)) => {
                    problem(
                        field,
                        format!(
                            "unknown transport `{other}`; use `streamable-http` (or `http`) or `sse`"
                        ),
                    );
                    None
                }
            }
        }
    };
    let transport = transport?;
    if problems.len() != before {
        return None;
    }
    Some(ServerConfig {
        transport,
        disabled,
        tools,
        timeout: Duration::from_millis(timeout_ms),
        allow_private,
        max_response_bytes,
    })
}

fn string_field(
    map: &Map<String, Value>,
    field: &str,
    problem: &mut impl FnMut(&str, String),
) -> Option<String> {
    match map.get(field)? {
        Value::String(s) => Some(s.clone()),
        other => {
            problem(
                field,
                format!("must be a string, found {}", json_kind(other)),
            );
            None
        }
    }
}

fn bool_field(
    map: &Map<String, Value>,
    field: &str,
    problem: &mut impl FnMut(&str, String),
) -> Option<bool> {
    match map.get(field)? {
        Value::Bool(b) => Some(*b),
        other => {
            problem(
                field,
                format!("must be true or false, found {}", json_kind(other)),
            );
            None
        }
    }
}

fn uint_field(
    map: &Map<String, Value>,
    field: &str,
    problem: &mut impl FnMut(&str, String),
) -> Option<u64> {
    let value = map.get(field)?;
    match value.as_u64() {
        Some(n) => Some(n),
        None => {
            problem(field, format!("must be a whole number ≥ 0, found {value}"));
            None
        }
    }
}

fn string_list(
    map: &Map<String, Value>,
    field: &str,
    problem: &mut impl FnMut(&str, String),
) -> Option<Vec<String>> {
    match map.get(field)? {
        Value::Array(items) => {
            let mut out = Vec::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                match item {
                    Value::String(s) => out.push(s.clone()),
                    other => problem(
                        &format!("{field}[{i}]"),
                        format!("must be a string, found {}", json_kind(other)),
                    ),
                }
            }
            Some(out)
        }
        other => {
            problem(
                field,
                format!("must be an array of strings, found {}", json_kind(other)),
            );
            None
        }
    }
}

fn string_map(
    map: &Map<String, Value>,
    field: &str,
    problem: &mut impl FnMut(&str, String),
) -> Option<BTreeMap<String, String>> {
    match map.get(field)? {
        Value::Object(entries) => {
            let mut out = BTreeMap::new();
            for (k, v) in entries {
                match v {
                    Value::String(s) => {
                        out.insert(k.clone(), s.clone());
                    }
                    other => problem(
                        &format!("{field}.{k}"),
                        format!("must be a string, found {}", json_kind(other)),
                    ),
                }
            }
            Some(out)
        }
        other => {
            problem(
                field,
                format!(
                    "must be an object of string values, found {}",
                    json_kind(other)
                ),
            );
            None
        }
    }
}

fn check_url(url: &str, problem: &mut impl FnMut(&str, String)) {
    match url::Url::parse(url) {
        Ok(parsed) => {
            if !matches!(parsed.scheme(), "http" | "https") {
                problem(
                    "url",
                    format!(
                        "scheme `{}` is not supported; use http or https",
                        parsed.scheme()
                    ),
                );
            } else if parsed.host().is_none() {
                problem("url", "has no host".into());
            }
            if !parsed.username().is_empty() || parsed.password().is_some() {
                problem(
                    "url",
                    "must not carry credentials; put them in `headers`".into(),
                );
            }
        }
        Err(e) => problem("url", format!("`{url}` is not a valid URL: {e}")),
    }
}

fn expand_map(
    values: &BTreeMap<String, String>,
    field: &str,
    env: Lookup<'_>,
    problem: &mut impl FnMut(&str, String),
) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for (key, value) in values {
        match expand(value, env) {
            Ok(v) => {
                out.insert(key.clone(), v);
            }
            Err(message) => problem(&format!("{field}.{key}"), message),
        }
    }
    out
}

/// Replaces every `${NAME}` in `value` by the variable's value. `$` not followed by `{` is
/// kept as it is.
fn expand(value: &str, env: Lookup<'_>) -> Result<String, String> {
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            return Err(format!(
                "`${{` without a closing `}}` in `{value}`; write `${{NAME}}`"
            ));
        };
        let name = &after[..end];
        let valid = !name.is_empty()
            && !name.starts_with(|c: char| c.is_ascii_digit())
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !valid {
            return Err(format!(
                "`${{{name}}}` is not a variable reference; names are letters, digits and `_`"
            ));
        }
        match env(name) {
            Some(v) => out.push_str(&v),
            None => {
                return Err(format!(
                    "environment variable `{name}` is not set (referenced as `${{{name}}}`)"
                ));
            }
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(name: &str) -> Option<String> {
        match name {
            "TOKEN" => Some("s3cret".into()),
            "DIR" => Some("/data".into()),
            _ => None,
        }
    }

    fn parse_ok(text: &str) -> McpConfig {
        match parse(text, "<test>", &env) {
            Ok(c) => c,
            Err(e) => panic!("expected a valid configuration: {e}"),
        }
    }

    fn problems(text: &str) -> Vec<ConfigProblem> {
        match parse(text, "<test>", &env) {
            Err(ConfigError::Invalid { problems, .. }) => problems,
            other => panic!("expected an invalid configuration, got {other:?}"),
        }
    }

    fn has(problems: &[ConfigProblem], server: &str, field: &str, needle: &str) -> bool {
        problems
            .iter()
            .any(|p| p.server == server && p.field == field && p.message.contains(needle))
    }

    #[test]
    fn reads_all_three_entry_kinds_with_defaults() {
        let config = parse_ok(
            r#"{"mcpServers": {
                "files": {"command": "npx", "args": ["-y", "fs", "${DIR}"], "env": {"T": "Bearer ${TOKEN}!"}},
                "remote": {"url": "https://mcp.example.com/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}},
                "legacy": {"url": "http://old.example.com/sse", "transport": "sse", "timeout_ms": 500,
                           "allow_private": true, "max_response_bytes": 2048, "tools": ["a", "b"], "disabled": true}
            }}"#,
        );
        assert_eq!(config.servers.len(), 3);
        let files = &config.servers["files"];
        assert_eq!(
            files.transport,
            TransportConfig::Stdio {
                command: "npx".into(),
                // args are passed verbatim: only env and headers are expanded
                args: vec!["-y".into(), "fs".into(), "${DIR}".into()],
                env: BTreeMap::from([("T".into(), "Bearer s3cret!".into())]),
            }
        );
        assert_eq!(files.timeout, Duration::from_millis(DEFAULT_TIMEOUT_MS));
        assert_eq!(files.max_response_bytes, 1024 * 1024);
        assert!(!files.allow_private && !files.disabled && files.tools.is_none());
        assert_eq!(
            config.servers["remote"].transport,
            TransportConfig::StreamableHttp {
                url: "https://mcp.example.com/mcp".into(),
                headers: BTreeMap::from([("Authorization".into(), "Bearer s3cret".into())]),
            }
        );
        let legacy = &config.servers["legacy"];
        assert!(matches!(legacy.transport, TransportConfig::Sse { .. }));
        assert_eq!(legacy.timeout, Duration::from_millis(500));
        assert_eq!(legacy.max_response_bytes, 2048);
        assert!(legacy.allow_private && legacy.disabled);
        assert!(legacy.allows_tool("a") && !legacy.allows_tool("c"));
        assert_eq!(
            config.enabled().map(|(n, _)| n).collect::<Vec<_>>(),
            ["files", "remote"]
        );
    }

    #[test]
    fn debug_output_hides_secret_values() {
        let config = parse_ok(
            r#"{"mcpServers": {"r": {"url": "http://h/mcp", "headers": {"X-Key": "${TOKEN}"}},
                               "s": {"command": "x", "env": {"KEY": "${TOKEN}"}}}}"#,
        );
        let shown = format!("{config:?}");
        assert!(!shown.contains("s3cret"), "{shown}");
        assert!(shown.contains("X-Key") && shown.contains("KEY"), "{shown}");
    }

    #[test]
    fn transport_names_and_the_type_alias() {
        for (kind, sse) in [("streamable-http", false), ("http", false), ("sse", true)] {
            let text = format!(
                r#"{{"mcpServers": {{"a": {{"url": "http://h/x", "transport": "{kind}"}}, "b": {{"url": "http://h/x", "type": "{kind}"}}}}}}"#
            );
            let config = parse_ok(&text);
            for name in ["a", "b"] {
                assert_eq!(
                    matches!(config.servers[name].transport, TransportConfig::Sse { .. }),
                    sse,
                    "{kind}"
                );
            }
        }
        let config = parse_ok(r#"{"mcpServers": {"a": {"command": "x", "type": "stdio"}}}"#);
        assert!(matches!(
            config.servers["a"].transport,
            TransportConfig::Stdio { .. }
        ));
    }

    #[test]
    fn unset_variable_names_server_field_and_variable() {
        let p = problems(
            r#"{"mcpServers": {"remote": {"url": "http://h/mcp", "headers": {"X-Key": "${NOPE}"}},
                               "local": {"command": "x", "env": {"K": "a${ALSO_NOPE}b"}}}}"#,
        );
        assert!(
            has(&p, "remote", "headers.X-Key", "`NOPE` is not set"),
            "{p:?}"
        );
        assert!(has(&p, "local", "env.K", "`ALSO_NOPE` is not set"), "{p:?}");
        let shown = parse(
            r#"{"mcpServers": {"remote": {"url": "http://h/mcp", "headers": {"X-Key": "${NOPE}"}}}}"#,
            "f.json",
            &env,
        )
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
        assert!(
            shown.contains("f.json")
                && shown.contains("server `remote`, field `headers.X-Key`")
                && shown.contains("NOPE"),
            "{shown}"
        );
    }

    #[test]
    fn malformed_references_are_errors() {
        let p = problems(
            r#"{"mcpServers": {"a": {"command": "x", "env": {"A": "${OPEN", "B": "${}", "C": "${1X}", "D": "$PLAIN ok"}}}}"#,
        );
        assert!(has(&p, "a", "env.A", "without a closing"), "{p:?}");
        assert!(has(&p, "a", "env.B", "not a variable reference"), "{p:?}");
        assert!(has(&p, "a", "env.C", "not a variable reference"), "{p:?}");
        assert!(!p.iter().any(|p| p.field == "env.D"), "{p:?}");
    }

    #[test]
    fn invalid_entries_name_server_and_field() {
        let p = problems(
            r#"{"mcpServers": {
                "both": {"command": "x", "url": "http://h/"},
                "neither": {"args": []},
                "unknown": {"command": "x", "cwd": "/tmp"},
                "types": {"command": "x", "args": "a b", "timeout_ms": -1, "disabled": "yes",
                          "tools": ["ok", 3], "env": {"N": 1}},
                "badurl": {"url": "ftp://h/x"},
                "nourl": {"url": "not a url"},
                "creds": {"url": "http://u:p@h/x"},
                "kind": {"url": "http://h/x", "transport": "websocket"},
                "stdiohttp": {"command": "x", "transport": "sse", "headers": {}},
                "httpargs": {"url": "http://h/x", "args": ["a"]},
                "zero": {"command": "x", "timeout_ms": 0, "max_response_bytes": 0},
                "header": {"url": "http://h/x", "headers": {"bad name": "v"}},
                "scalar": 3
            }}"#,
        );
        assert!(has(&p, "both", "url", "not both"), "{p:?}");
        assert!(has(&p, "neither", "command", "missing"), "{p:?}");
        assert!(has(&p, "unknown", "cwd", "unknown field"), "{p:?}");
        assert!(has(&p, "types", "args", "array of strings"), "{p:?}");
        assert!(has(&p, "types", "timeout_ms", "whole number"), "{p:?}");
        assert!(has(&p, "types", "disabled", "true or false"), "{p:?}");
        assert!(has(&p, "types", "tools[1]", "a string"), "{p:?}");
        assert!(has(&p, "types", "env.N", "a string"), "{p:?}");
        assert!(has(&p, "badurl", "url", "scheme `ftp`"), "{p:?}");
        assert!(has(&p, "nourl", "url", "not a valid URL"), "{p:?}");
        assert!(has(&p, "creds", "url", "credentials"), "{p:?}");
        assert!(
            has(&p, "kind", "transport", "unknown transport `websocket`"),
            "{p:?}"
        );
        assert!(has(&p, "stdiohttp", "transport", "needs a `url`"), "{p:?}");
        assert!(
            has(&p, "stdiohttp", "headers", "only HTTP servers"),
            "{p:?}"
        );
        assert!(has(&p, "httpargs", "args", "only stdio servers"), "{p:?}");
        assert!(has(&p, "zero", "timeout_ms", "at least 1"), "{p:?}");
        assert!(has(&p, "zero", "max_response_bytes", "at least 1"), "{p:?}");
        assert!(
            has(&p, "header", "headers.bad name", "header name"),
            "{p:?}"
        );
        assert!(has(&p, "scalar", "", "must be an object"), "{p:?}");
    }

    #[test]
    fn top_level_shape_errors() {
        assert!(has(&problems("[]"), "", "", "must be an object"));
        assert!(has(&problems("{}"), "", "mcpServers", "missing"));
        assert!(has(
            &problems(r#"{"mcpServers": {}, "servers": {}}"#),
            "",
            "servers",
            "unknown top-level"
        ));
        assert!(has(
            &problems(r#"{"mcpServers": []}"#),
            "",
            "mcpServers",
            "an array"
        ));
        assert!(matches!(
            parse("{", "<t>", &env),
            Err(ConfigError::Json { .. })
        ));
        assert!(parse_ok(r#"{"mcpServers": {}}"#).servers.is_empty());
    }

    #[test]
    fn discovery_prefers_the_variable_then_the_home_file() {
        let vars = |config: Option<&str>, home: Option<&str>| {
            let config = config.map(std::ffi::OsString::from);
            let home = home.map(std::ffi::OsString::from);
            move |name: &str| match name {
                CONFIG_ENV => config.clone(),
                "HOME" => home.clone(),
                _ => None,
            }
        };
        assert_eq!(
            McpConfig::discovered_path(&vars(Some("/etc/x.json"), Some("/home/u"))),
            (Some(PathBuf::from("/etc/x.json")), true)
        );
        assert_eq!(
            McpConfig::discovered_path(&vars(Some(""), Some("/home/u"))),
            (
                Some(PathBuf::from("/home/u/.config/mcpgen/mcp_servers.json")),
                false
            )
        );
        assert_eq!(McpConfig::discovered_path(&vars(None, None)), (None, false));
    }

    #[test]
    fn load_reads_a_file_and_names_a_missing_one() {
        let dir = std::env::temp_dir().join(format!("mcpgen-config-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).ok();
        let path = dir.join("servers.json");
        std::fs::write(&path, r#"{"mcpServers": {"a": {"command": "echo"}}}"#).ok();
        let config = McpConfig::load(&path).map_err(|e| e.to_string());
        assert_eq!(config.map(|c| c.servers.len()), Ok(1));
        let missing = McpConfig::load(&dir.join("nope.json"))
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(missing.contains("nope.json"), "{missing}");
        std::fs::remove_dir_all(&dir).ok();
    }
}
