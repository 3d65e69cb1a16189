//! `tools.json` is what clients see: every generated crate's server, started as a real child
//! process over stdio, answers `tools/list` with exactly the JSON of its checked-in
//! `tools.json` (compared as JSON values, following `nextCursor` pages) to a client that
//! declared the views extension, and with the same entries less their `_meta` to one that did
//! not.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use mcpgen_tests::{repo_root, workspace_binary};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

/// The generated crates: (folder, server binary name).
fn generated_crates() -> Vec<(PathBuf, String)> {
    let dir = repo_root().join("generated");
    let mut crates: Vec<(PathBuf, String)> = std::fs::read_dir(&dir)
        .expect("read generated/")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("tools.json").is_file())
        .map(|p| {
            let manifest = std::fs::read_to_string(p.join("Cargo.toml")).expect("Cargo.toml");
            let package = manifest
                .lines()
                .find_map(|l| l.strip_prefix("name = \""))
                .and_then(|rest| rest.strip_suffix('"'))
                .expect("package name")
                .to_owned();
            (p, package)
        })
        .collect();
    crates.sort();
    crates
}

/// A server over stdio, spoken to in raw JSON-RPC lines so nothing re-serializes its answer.
struct StdioServer {
    child: Child,
    stdin: ChildStdin,
    lines: tokio::io::Lines<BufReader<ChildStdout>>,
    next_id: u64,
}

impl StdioServer {
    fn start(binary: &Path) -> Self {
        let mut child = Command::new(binary)
            .args(["--no-auth", "--upstream-url", "http://127.0.0.1:9"])
            .env("RUST_LOG", "warn")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .expect("spawn server");
        let stdin = child.stdin.take().expect("stdin");
        let lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
        Self {
            child,
            stdin,
            lines,
            next_id: 1,
        }
    }

    async fn send(&mut self, message: Value) {
        let mut line = message.to_string();
        line.push('\n');
        self.stdin.write_all(line.as_bytes()).await.expect("write");
        self.stdin.flush().await.expect("flush");
    }

    /// Sends a request and returns its `result`, skipping notifications.
    async fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        loop {
            let line = tokio::time::timeout(Duration::from_secs(20), self.lines.next_line())
                .await
                .expect("answer within 20 s")
                .expect("read")
                .expect("server closed stdout");
            let message: Value = serde_json::from_str(&line).expect("JSON-RPC line");
            if message.get("id") == Some(&json!(id)) {
                assert!(message.get("error").is_none(), "{method} failed: {message}");
                return message["result"].clone();
            }
        }
    }
}

#[tokio::test]
async fn every_generated_server_lists_exactly_its_tools_json() {
    let crates = generated_crates();
    assert!(
        crates.len() >= 4,
        "expected the generated crates of specs/*, found {crates:?}"
    );
    let views = json!({"extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}}});
    for ((folder, binary), capabilities) in crates
        .iter()
        .flat_map(|c| [(c.clone(), views.clone()), (c.clone(), json!({}))])
    {
        let text = std::fs::read_to_string(folder.join("tools.json")).expect("tools.json");
        let mut expected: Value = serde_json::from_str(&text).expect("tools.json is JSON");
        if capabilities == json!({}) {
            for tool in expected["tools"].as_array_mut().into_iter().flatten() {
                tool.as_object_mut().map(|t| t.remove("_meta"));
            }
        }

        let mut server = StdioServer::start(&workspace_binary(&binary));
        server
            .request(
                "initialize",
                json!({
                    "protocolVersion": "2025-06-18",
                    "capabilities": capabilities,
                    "clientInfo": {"name": "tools-json-test", "version": "0"}
                }),
            )
            .await;
        server
            .send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        let mut tools = Vec::new();
        let mut cursor: Option<Value> = None;
        loop {
            let params = match &cursor {
                Some(c) => json!({"cursor": c}),
                None => json!({}),
            };
            let page = server.request("tools/list", params).await;
            tools.extend(
                page["tools"]
                    .as_array()
                    .expect("tools array")
                    .iter()
                    .cloned(),
            );
            match page.get("nextCursor") {
                Some(c) if !c.is_null() => cursor = Some(c.clone()),
                _ => break,
            }
        }
        let served = json!({ "tools": tools });
        assert!(
            served == expected,
            "{}: the served tools/list differs from tools.json\nserved:   {}\nexpected: {}",
            folder.display(),
            served,
            expected
        );
        let _ = server.child.kill().await;
    }
}
