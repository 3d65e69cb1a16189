//! Every generated crate's `server.json` follows the MCP registry's schema (2025-12-11, the
//! rules of `server.schema.json` written out here) and agrees with the server card its
//! binary serves: name, version, description, title, and each remote's transport, URL and
//! headers.

use std::path::PathBuf;

use mcpgen_tests::{admin_keys_file, repo_root, start_synaplan_http};
use serde_json::{Value, json};

const SCHEMA: &str = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json";

/// The `server.json` of every generated crate.
fn entries() -> Vec<(PathBuf, Value)> {
    let mut found = Vec::new();
    for dir in std::fs::read_dir(repo_root().join("generated")).expect("generated/ is readable") {
        let path = dir.expect("an entry").path().join("server.json");
        if path
            .parent()
            .is_some_and(|p| p.join("Cargo.toml").is_file())
        {
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("{} is missing: {e}", path.display()));
            let value = serde_json::from_str(&text)
                .unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()));
            found.push((path, value));
        }
    }
    assert!(!found.is_empty(), "generated/ holds crates");
    found
}

fn is_http_url(text: &str) -> bool {
    (text.starts_with("http://") || text.starts_with("https://"))
        && text.len() > "https://".len()
        && !text.chars().any(char::is_whitespace)
}

fn is_version_range(version: &str) -> bool {
    version == "latest"
        || version.starts_with(['^', '~', '>', '<', '='])
        || version
            .split('.')
            .any(|part| matches!(part, "x" | "X" | "*"))
}

/// Where a string field breaks a length rule, if it does.
fn check_len(problems: &mut Vec<String>, at: &str, value: &Value, min: usize, max: usize) {
    match value.as_str() {
        Some(text) if (min..=max).contains(&text.chars().count()) => {}
        Some(text) => problems.push(format!(
            "{at}: {} characters, the schema allows {min} to {max}",
            text.chars().count()
        )),
        None => problems.push(format!("{at}: not a string")),
    }
}

/// `Input` (and `KeyValueInput` when `named`): the typed optional fields.
fn check_input(problems: &mut Vec<String>, at: &str, input: &Value, named: bool) {
    let Some(obj) = input.as_object() else {
        problems.push(format!("{at}: not an object"));
        return;
    };
    if named && !obj.get("name").is_some_and(Value::is_string) {
        problems.push(format!("{at}: `name` is required and a string"));
    }
    for flag in ["isRequired", "isSecret"] {
        if obj.get(flag).is_some_and(|v| !v.is_boolean()) {
            problems.push(format!("{at}.{flag}: not a boolean"));
        }
    }
    for text in ["description", "default", "placeholder", "value"] {
        if obj.get(text).is_some_and(|v| !v.is_string()) {
            problems.push(format!("{at}.{text}: not a string"));
        }
    }
    if let Some(format) = obj.get("format")
        && !matches!(
            format.as_str(),
            Some("string" | "number" | "boolean" | "filepath")
        )
    {
        problems.push(format!("{at}.format: {format} is not a known format"));
    }
    if let Some(choices) = obj.get("choices")
        && !choices
            .as_array()
            .is_some_and(|c| c.iter().all(Value::is_string))
    {
        problems.push(format!("{at}.choices: not a list of strings"));
    }
}

/// A transport: `type` one of `allowed`, and for HTTP ones a URL template and headers.
fn check_transport(problems: &mut Vec<String>, at: &str, transport: &Value, allowed: &[&str]) {
    let kind = transport["type"].as_str().unwrap_or_default();
    if !allowed.contains(&kind) {
        problems.push(format!("{at}.type: `{kind}` is not one of {allowed:?}"));
        return;
    }
    if kind == "stdio" {
        return;
    }
    match transport["url"].as_str() {
        Some(url) if is_http_url(url) => {}
        other => problems.push(format!(
            "{at}.url: {other:?} does not match ^https?://[^\\s]+$"
        )),
    }
    if let Some(headers) = transport.get("headers") {
        match headers.as_array() {
            Some(headers) => {
                for (i, header) in headers.iter().enumerate() {
                    check_input(problems, &format!("{at}.headers[{i}]"), header, true);
                }
            }
            None => problems.push(format!("{at}.headers: not a list")),
        }
    }
}

/// The rules of the registry's `server.schema.json` (2025-12-11) that an entry can break.
fn schema_problems(entry: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    let Some(obj) = entry.as_object() else {
        return vec!["the entry is not an object".to_owned()];
    };
    if obj.get("$schema") != Some(&json!(SCHEMA)) {
        problems.push(format!("$schema: not {SCHEMA}"));
    }
    for required in ["name", "description", "version"] {
        if !obj.contains_key(required) {
            problems.push(format!("`{required}` is required"));
        }
    }
    check_len(&mut problems, "name", &entry["name"], 3, 200);
    let name = entry["name"].as_str().unwrap_or_default();
    let parts: Vec<&str> = name.split('/').collect();
    let namespace_ok = |s: &str| {
        !s.is_empty()
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-')
    };
    let server_ok = |s: &str| {
        !s.is_empty()
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
    };
    if !(parts.len() == 2 && namespace_ok(parts[0]) && server_ok(parts[1])) {
        problems.push(format!(
            "name: `{name}` does not match ^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$"
        ));
    }
    check_len(&mut problems, "description", &entry["description"], 1, 100);
    if obj.contains_key("title") {
        check_len(&mut problems, "title", &entry["title"], 1, 100);
    }
    check_len(&mut problems, "version", &entry["version"], 1, 255);
    if is_version_range(entry["version"].as_str().unwrap_or_default()) {
        problems.push("version: a range or `latest`, not a version".to_owned());
    }
    for (i, package) in entry["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        let at = format!("packages[{i}]");
        for required in ["registryType", "identifier", "transport"] {
            if package.get(required).is_none() {
                problems.push(format!("{at}: `{required}` is required"));
            }
        }
        for text in ["registryType", "identifier", "runtimeHint"] {
            if package.get(text).is_some_and(|v| !v.is_string()) {
                problems.push(format!("{at}.{text}: not a string"));
            }
        }
        if let Some(version) = package.get("version") {
            let version = version.as_str().unwrap_or_default();
            if version.is_empty() || is_version_range(version) {
                problems.push(format!("{at}.version: `{version}` is not one version"));
            }
        }
        check_transport(
            &mut problems,
            &format!("{at}.transport"),
            &package["transport"],
            &["stdio", "streamable-http", "sse"],
        );
        for (j, var) in package["environmentVariables"]
            .as_array()
            .into_iter()
            .flatten()
            .enumerate()
        {
            check_input(
                &mut problems,
                &format!("{at}.environmentVariables[{j}]"),
                var,
                true,
            );
        }
    }
    for (i, remote) in entry["remotes"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        let at = format!("remotes[{i}]");
        check_transport(&mut problems, &at, remote, &["streamable-http", "sse"]);
        let variables = remote["variables"].as_object();
        for (name, variable) in variables.into_iter().flatten() {
            check_input(
                &mut problems,
                &format!("{at}.variables.{name}"),
                variable,
                false,
            );
        }
        // Every `{name}` of the URL template is a declared variable.
        let url = remote["url"].as_str().unwrap_or_default();
        for piece in url.split('{').skip(1) {
            let name = piece.split('}').next().unwrap_or_default();
            if !variables.is_some_and(|v| v.contains_key(name)) {
                problems.push(format!("{at}.url: `{{{name}}}` is not in `variables`"));
            }
        }
    }
    problems
}

#[test]
fn every_generated_server_json_follows_the_registry_schema() {
    for (path, entry) in entries() {
        let problems = schema_problems(&entry);
        assert!(problems.is_empty(), "{}: {problems:#?}", path.display());
        assert!(
            path.with_file_name("Dockerfile").is_file(),
            "{} has no Dockerfile next to it",
            path.display()
        );
    }
}

#[test]
fn the_schema_rules_catch_broken_entries() {
    let (_, good) = entries().remove(0);
    let breakages: [(&str, Value); 6] = [
        ("/name", json!("no-slash")),
        ("/description", json!("x".repeat(101))),
        ("/version", json!("^1.0.0")),
        ("/remotes/0/url", json!("{host}/mcp")),
        ("/remotes/0/type", json!("websocket")),
        ("/remotes/0/variables", json!({})),
    ];
    for (pointer, value) in breakages {
        let mut broken = good.clone();
        *broken.pointer_mut(pointer).expect("the field exists") = value;
        assert!(
            !schema_problems(&broken).is_empty(),
            "breaking {pointer} went unnoticed"
        );
    }
}

#[tokio::test]
async fn server_json_agrees_with_the_served_card() {
    let entry = entries()
        .into_iter()
        .find(|(path, _)| path.parent().is_some_and(|p| p.ends_with("synaplan")))
        .map(|(_, entry)| entry)
        .expect("generated/synaplan/server.json");
    let dir = tempfile::tempdir().expect("a temporary folder");
    let keys = admin_keys_file(dir.path());
    let keys = keys.to_str().expect("a UTF-8 path");
    // No call reaches the upstream here.
    let (_server, url) = start_synaplan_http(
        "http://127.0.0.1:9",
        &["--keys", keys, "--public-url", "https://mcp.example.com"],
    )
    .await;
    let card: Value = reqwest::get(format!("{url}/mcp/server-card"))
        .await
        .expect("the card is served")
        .json()
        .await
        .expect("a JSON card");
    for field in ["name", "version", "description", "title"] {
        assert_eq!(entry[field], card[field], "{field}");
    }
    let remotes: Vec<Value> = entry["remotes"]
        .as_array()
        .expect("remotes")
        .iter()
        .map(|remote| {
            json!({
                "type": remote["type"],
                "url": remote["url"].as_str().unwrap_or_default().replace("{host}", "mcp.example.com"),
                "headers": remote["headers"],
            })
        })
        .collect();
    let served: Vec<Value> = card["remotes"]
        .as_array()
        .expect("remotes")
        .iter()
        .map(|remote| json!({"type": remote["type"], "url": remote["url"], "headers": remote["headers"]}))
        .collect();
    assert_eq!(remotes, served);
}
