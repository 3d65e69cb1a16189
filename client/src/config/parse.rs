//! The `mcpServers` document: its top-level shape and each server entry, checked field by
//! field with every problem collected.

use std::time::Duration;

use serde_json::Value;

use super::check::{check_headers, check_url};
use super::error::{ConfigError, ConfigProblem};
use super::expand::{Lookup, expand_map};
use super::fields::{bool_field, string_field, string_list, string_map, uint_field};
use super::model::{
    DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_TIMEOUT_MS, Lifecycle, McpConfig, ServerConfig,
    TransportConfig,
};
use mcpgen_core::json_kind;

/// Parses and validates the document `text`; `origin` names it in errors.
pub(super) fn parse(text: &str, origin: &str, env: Lookup<'_>) -> Result<McpConfig, ConfigError> {
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
    "lifecycle",
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

    let lifecycle = match string_field(map, "lifecycle", &mut problem) {
        None => Lifecycle::Initialize,
        Some(name) => Lifecycle::from_name(&name).unwrap_or_else(|| {
            problem(
                "lifecycle",
                format!("`{name}` is not one of initialize, discover, auto"),
            );
            Lifecycle::Initialize
        }),
    };

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
            check_headers(&headers, &mut problem);
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
        lifecycle,
    })
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

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
                "modern": {"url": "https://mcp.example.com/mcp", "lifecycle": "discover"},
                "legacy": {"url": "http://old.example.com/sse", "transport": "sse", "timeout_ms": 500,
                           "allow_private": true, "max_response_bytes": 2048, "tools": ["a", "b"], "disabled": true}
            }}"#,
        );
        assert_eq!(config.servers.len(), 4);
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
        assert_eq!(legacy.lifecycle, Lifecycle::Initialize);
        assert_eq!(
            config.servers["modern"].lifecycle,
            Lifecycle::Discover,
            "the entry's lifecycle"
        );
        assert!(legacy.allow_private && legacy.disabled);
        assert!(legacy.allows_tool("a") && !legacy.allows_tool("c"));
        assert_eq!(
            config.enabled().map(|(n, _)| n).collect::<Vec<_>>(),
            ["files", "modern", "remote"]
        );
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
                "era": {"url": "http://h/x", "lifecycle": "stateless"},
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
        assert!(has(&p, "era", "lifecycle", "not one of"), "{p:?}");
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
}
