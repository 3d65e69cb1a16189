//! `mcpgen serve` as a real child process over stdio, spoken to in raw JSON-RPC lines so nothing
//! re-serializes its answers: for every spec in `specs/` it lists exactly the `tools.json` that
//! `generate` wrote into `generated/<name>/`, and against the stand-in of the API (`mcpgen
//! mock`) it answers the same calls with the same results as the generated server binary.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use serde_json::{Map, Value, json};

use super::root;

/// A server over stdio, killed when dropped.
struct StdioServer {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    next_id: u64,
    what: String,
}

impl Drop for StdioServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl StdioServer {
    /// Starts `command` and initializes a session that declared `capabilities`.
    fn start(mut command: Command, what: String, capabilities: Value) -> Self {
        let mut child = command
            .env("RUST_LOG", "warn")
            .current_dir(root())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("{what}: cannot start: {e}"));
        let stdin = child.stdin.take().expect("stdin");
        let stdout = child.stdout.take().expect("stdout");
        let (send, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        let mut server = Self {
            child,
            stdin,
            lines,
            next_id: 1,
            what,
        };
        server.request(
            "initialize",
            json!({
                "protocolVersion": "2025-06-18",
                "capabilities": capabilities,
                "clientInfo": {"name": "serve-test", "version": "0"}
            }),
        );
        server.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        server
    }

    fn send(&mut self, message: &Value) {
        writeln!(self.stdin, "{message}").expect("write");
        self.stdin.flush().expect("flush");
    }

    /// Sends a request and returns its answer (`result` or `error`), skipping notifications.
    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let line = self
                .lines
                .recv_timeout(Duration::from_secs(60))
                .unwrap_or_else(|e| panic!("{}: no answer to {method}: {e}", self.what));
            let message: Value = serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("{}: not JSON-RPC ({e}): {line}", self.what));
            if message.get("id") == Some(&json!(id)) {
                return message;
            }
        }
    }

    /// Every page of `tools/list`, as `{"tools": [...]}`.
    fn list(&mut self) -> Value {
        let mut tools = Vec::new();
        let mut cursor: Option<Value> = None;
        loop {
            let params = cursor.map_or_else(|| json!({}), |c| json!({"cursor": c}));
            let page = self.request("tools/list", params);
            let result = &page["result"];
            assert!(result.is_object(), "{}: tools/list: {page}", self.what);
            tools.extend(result["tools"].as_array().into_iter().flatten().cloned());
            cursor = result.get("nextCursor").filter(|c| !c.is_null()).cloned();
            if cursor.is_none() {
                return json!({ "tools": tools });
            }
        }
    }
}

/// `mcpgen serve` of the spec folder `dir` (with its plugins), over stdio without
/// authentication, calling `upstream`.
fn serve(dir: &Path, upstream: &str) -> Command {
    let folder = mcpgen_codegen::spec_folder(dir).expect("a spec folder");
    let mut command = Command::new(env!("CARGO_BIN_EXE_mcpgen"));
    command
        .arg("serve")
        .arg("--spec")
        .arg(&folder.spec)
        .arg("--tools")
        .arg(&folder.tools)
        .args(["--no-auth", "--upstream-url", upstream]);
    if let Some(plugins) = &folder.plugins {
        command.arg("--plugins").arg(plugins);
    }
    command
}

fn views() -> Value {
    json!({"extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}}})
}

/// Every spec folder that has a generated crate.
fn generated_specs() -> Vec<(PathBuf, PathBuf)> {
    let folders = mcpgen_codegen::spec_folders(&root()).expect("specs/");
    let pairs: Vec<(PathBuf, PathBuf)> = folders
        .iter()
        .map(|f| {
            let dir = f.spec.parent().expect("folder").to_path_buf();
            (dir, root().join("generated").join(&f.folder))
        })
        .filter(|(_, generated)| generated.join("tools.json").is_file())
        .collect();
    assert!(
        pairs.len() >= 4 && pairs.len() == folders.len(),
        "expected a generated crate for each of specs/*, found {pairs:?}"
    );
    pairs
}

#[test]
fn serve_lists_exactly_the_tools_json_generate_writes_for_every_spec() {
    for (spec_dir, generated) in generated_specs() {
        let text = std::fs::read_to_string(generated.join("tools.json")).expect("tools.json");
        let mut expected: Value = serde_json::from_str(&text).expect("tools.json is JSON");
        let what = format!("mcpgen serve of {}", spec_dir.display());
        let mut server = StdioServer::start(
            serve(&spec_dir, "http://127.0.0.1:9"),
            what.clone(),
            views(),
        );
        let served = server.list();
        assert!(
            served == expected,
            "{what}: tools/list differs from {}\nserved:   {served}\nexpected: {expected}",
            generated.join("tools.json").display()
        );
        // A client without the views extension gets the same tools less their `_meta`.
        let mut server = StdioServer::start(
            serve(&spec_dir, "http://127.0.0.1:9"),
            what.clone(),
            json!({}),
        );
        for tool in expected["tools"].as_array_mut().into_iter().flatten() {
            tool.as_object_mut().map(|t| t.remove("_meta"));
        }
        assert_eq!(
            server.list(),
            expected,
            "{what}, without the views extension"
        );
    }
}

/// Arguments `schema` accepts: each required property with its default, its first enum
/// value or a plain value of its type (a `$ref` read from the schema's `$defs`).
fn arguments(schema: &Value) -> Map<String, Value> {
    let resolve = |node: &Value| -> Value {
        let target = node["$ref"]
            .as_str()
            .and_then(|r| r.strip_prefix("#/$defs/"));
        match target {
            Some(name) => schema["$defs"][name].clone(),
            None => node.clone(),
        }
    };
    let mut args = Map::new();
    for name in schema["required"].as_array().into_iter().flatten() {
        let Some(name) = name.as_str() else { continue };
        let property = resolve(&schema["properties"][name]);
        let value = if let Some(default) = property.get("default") {
            default.clone()
        } else if let Some(first) = property["enum"].get(0) {
            first.clone()
        } else {
            let kind = match &property["type"] {
                Value::Array(kinds) => kinds.first().cloned().unwrap_or(Value::Null),
                kind => kind.clone(),
            };
            match kind.as_str() {
                Some("integer" | "number") => json!(1),
                Some("boolean") => json!(true),
                Some("array") => json!([]),
                Some("object") => json!({}),
                _ => json!("CORE-1"),
            }
        };
        args.insert(name.to_owned(), value);
    }
    args
}

#[test]
fn serve_answers_calls_as_the_generated_server_does_against_the_stand_in() {
    for name in ["helpdesk", "library2"] {
        let spec_dir = root().join("specs").join(name);
        let folder = mcpgen_codegen::spec_folder(&spec_dir).expect("spec folder");
        let mock = super::mock::start(&folder.spec);
        let upstream = format!("http://{}", mock.address);
        let mut made = StdioServer::start(
            serve(&spec_dir, &upstream),
            format!("mcpgen serve of {name}"),
            views(),
        );
        let binary = mcpgen_tests::workspace_binary(&format!("{name}-mcp"));
        let mut generated = Command::new(&binary);
        generated.args(["--no-auth", "--upstream-url", &upstream]);
        let mut generated = StdioServer::start(generated, binary.display().to_string(), views());
        let tools = generated.list();
        let mut answered = 0;
        for tool in tools["tools"].as_array().expect("tools") {
            let name = tool["name"].as_str().expect("name");
            let params = json!({"name": name, "arguments": arguments(&tool["inputSchema"])});
            let expected = generated.request("tools/call", params.clone());
            let got = made.request("tools/call", params);
            assert_eq!(
                got["result"], expected["result"],
                "{name}: mcpgen serve answered {got}\nthe generated server {expected}"
            );
            assert_eq!(got["error"], expected["error"], "{name}");
            if expected["result"]["isError"] != json!(true) {
                answered += 1;
            }
        }
        // The calls reached the stand-in and most of them fit its operations.
        assert!(
            answered * 2 >= tools["tools"].as_array().map_or(0, Vec::len),
            "{name}: only {answered} calls succeeded; stand-in log:\n{}",
            mock.log()
        );
    }
}

/// The table `mcpgen serve` builds for the spec folder `name`, as `generate` selects it.
fn table(name: &str) -> mcpgen_codegen::emit::table::Table {
    let folder = mcpgen_codegen::spec_folder(&root().join("specs").join(name)).expect("folder");
    let mut settings = mcpgen_codegen::Settings::new().with_default_name(folder.folder.clone());
    if let Some(dir) = &folder.plugins {
        settings = settings.with_plugins(dir.clone());
    }
    mcpgen_codegen::table(&folder.spec, &folder.tools, &settings)
        .unwrap_or_else(|e| panic!("{name}: {e}"))
        .0
}

#[test]
fn the_table_serve_builds_holds_what_the_generated_crates_table_holds() {
    // Every field of every tool, the bindings, declarations and views included, as the
    // compiled `src/tools.rs` and `src/search.rs` of two generated crates hold them.
    let helpdesk = table("helpdesk");
    assert_eq!(
        format!("{:#?}", helpdesk.tools),
        format!("{:#?}", helpdesk_mcp::TOOLS.as_slice())
    );
    assert_eq!(
        format!("{:?}", helpdesk.security_schemes),
        format!("{:?}", helpdesk_mcp::tools::SECURITY_SCHEMES)
    );
    assert_eq!(helpdesk.search_index, helpdesk_mcp::SEARCH_INDEX);
    assert_eq!(
        (
            helpdesk.name,
            helpdesk.version,
            helpdesk.title,
            helpdesk.description
        ),
        (
            helpdesk_mcp::tools::SERVER_NAME,
            helpdesk_mcp::tools::SERVER_VERSION,
            helpdesk_mcp::tools::API_TITLE,
            helpdesk_mcp::tools::SERVER_DESCRIPTION
        )
    );
    assert_eq!(
        helpdesk.default_upstream_url,
        helpdesk_mcp::tools::DEFAULT_UPSTREAM_URL
    );
    let synaplan = table("synaplan");
    assert!(synaplan.tools.iter().any(|t| t.plugin.is_some()), "plugins");
    assert_eq!(
        format!("{:#?}", synaplan.tools),
        format!("{:#?}", synaplan_mcp::TOOLS.as_slice())
    );
    assert_eq!(
        format!("{:?}", synaplan.security_schemes),
        format!("{:?}", synaplan_mcp::tools::SECURITY_SCHEMES)
    );
    assert_eq!(synaplan.search_index, synaplan_mcp::SEARCH_INDEX);
    let limits: Vec<(&str, f64, f64)> = synaplan_mcp::tools::RATE_LIMITS
        .iter()
        .map(|r| (r.tool, r.per_second, r.burst))
        .collect();
    assert!(!limits.is_empty());
    assert_eq!(synaplan.rate_limits, limits.as_slice());
}
