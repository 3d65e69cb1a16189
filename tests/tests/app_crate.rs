//! The book's application crate (`examples/app-tools/src/main.rs`), built outside the
//! workspace: it depends on `mcpgen` alone (plus serde), defines `#[mcp_tool]` functions and an
//! `#[mcp_tools]` impl, derives `JsonSchema` through every import path the book shows, and
//! serves them over stdio. With the default
//! features its dependency tree has no HTTP client or server and no command-line parser.
//! The example's HTTP binary (`app-tools-http`) is started and called with the official
//! Python client over Streamable HTTP.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use mcpgen_tests::python_bin;
use serde_json::{Value, json};

const CARGO_TOML: &str = r#"[package]
name = "rooms-app"
version = "0.1.0"
edition = "2024"
publish = false

[dependencies]
mcpgen = { path = "MCPGEN" }
serde = { version = "1", features = ["derive"] }

[workspace]
"#;

/// The book's example (`examples/app-tools`), which names `JsonSchema` through the prelude,
/// by its path `mcpgen::schemars::JsonSchema` and imported as `mcpgen::schemars::JsonSchema`
/// alone, with no `schemars` in scope.
const MAIN_RS: &str = include_str!("../../examples/app-tools/src/main.rs");

fn repo_root() -> PathBuf {
    mcpgen_tests::repo_root()
        .canonicalize()
        .expect("repository root")
}

/// Writes the application crate into `dir`, with the workspace's lock file so no new versions
/// are resolved.
fn write_app(dir: &Path) {
    let mcpgen = repo_root().join("mcpgen");
    let manifest = CARGO_TOML.replace("MCPGEN", &mcpgen.to_string_lossy());
    std::fs::create_dir_all(dir.join("src")).expect("src/");
    std::fs::write(dir.join("Cargo.toml"), manifest).expect("Cargo.toml");
    std::fs::write(dir.join("src/main.rs"), MAIN_RS).expect("main.rs");
}

fn cargo(dir: &Path, args: &[&str]) -> String {
    let output = mcpgen_tests::standalone_cargo(dir, args)
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "cargo {args:?} in {} failed:\n{}",
        dir.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn send(stdin: &mut impl Write, message: Value) {
    writeln!(stdin, "{message}").expect("write to the server");
    stdin.flush().expect("flush");
}

fn answer(lines: &mut impl Iterator<Item = std::io::Result<String>>, id: u64) -> Value {
    for line in lines {
        let line = line.expect("read from the server");
        let message: Value = serde_json::from_str(&line).expect("a JSON-RPC line");
        if message["id"] == id {
            return message;
        }
    }
    panic!("the server closed stdout before answering request {id}");
}

#[test]
fn an_application_on_mcpgen_alone_serves_its_tools_over_stdio() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    write_app(dir.path());

    let tree = cargo(dir.path(), &["tree", "-e", "normal", "--prefix", "none"]);
    for heavy in ["reqwest ", "axum ", "hyper ", "clap "] {
        assert!(
            !tree.lines().any(|line| line.starts_with(heavy)),
            "`{}` is in the default dependency tree:\n{tree}",
            heavy.trim()
        );
    }

    cargo(dir.path(), &["build", "--quiet"]);
    let exe = mcpgen_tests::standalone_bins().join("rooms-app");
    let mut child = Command::new(&exe)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the application starts");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();

    send(
        &mut stdin,
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "test", "version": "1"}}}),
    );
    assert_eq!(
        answer(&mut lines, 1)["result"]["serverInfo"]["name"],
        "rooms"
    );
    send(
        &mut stdin,
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    );

    send(
        &mut stdin,
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
    );
    let listed = answer(&mut lines, 2);
    let names: Vec<&str> = listed["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(names, ["list_rooms", "book_room", "add"], "{listed}");
    let schema = &listed["result"]["tools"][0]["inputSchema"];
    assert_eq!(
        schema["properties"]["filter"]["description"], "Part of the room name to look for.",
        "{schema}"
    );

    send(
        &mut stdin,
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
               "params": {"name": "list_rooms", "arguments": {"filter": "lob"}}}),
    );
    let called = answer(&mut lines, 3);
    assert_eq!(
        called["result"]["structuredContent"],
        json!({"result": [{"name": "lobby", "people": 3}]}),
        "{called}"
    );

    send(
        &mut stdin,
        json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
               "params": {"name": "add", "arguments": {"n": 2}}}),
    );
    let added = answer(&mut lines, 4);
    assert_eq!(
        added["result"]["structuredContent"],
        json!({"result": 42}),
        "{added}"
    );

    drop(stdin);
    let status = child.wait().expect("the application exits");
    assert!(status.success(), "exit status {status}");
}

#[tokio::test]
async fn the_http_example_serves_a_tool_taking_args_to_the_official_python_client() {
    let port = mcpgen_tests::free_port();
    let child = tokio::process::Command::new(mcpgen_tests::workspace_binary("app-tools-http"))
        .arg(format!("127.0.0.1:{port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .expect("app-tools-http starts");
    let _child = mcpgen_tests::KillOnDrop(child);
    assert!(
        mcpgen_tests::wait_port(port).await,
        "app-tools-http listens on {port}"
    );
    let url = format!("http://127.0.0.1:{port}/mcp");
    let out = tokio::time::timeout(
        std::time::Duration::from_secs(60),
        tokio::process::Command::new(python_bin("python"))
            .arg(repo_root().join("tests/python/call_tool.py"))
            .args(["http", "add", r#"{"a": 2, "b": 40}"#, &url])
            .kill_on_drop(true)
            .output(),
    )
    .await
    .expect("the Python client finishes within 60 s")
    .expect("the Python client runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let printed: Value = serde_json::from_str(stdout.lines().last().unwrap_or_default())
        .unwrap_or_else(|_| {
            panic!(
                "the Python client printed no JSON line (status {}):\n{stdout}\n{}",
                out.status,
                String::from_utf8_lossy(&out.stderr)
            )
        });
    // The struct's fields are the tool's arguments: `{"a": 2, "b": 40}`, not `{"args": …}`.
    assert_eq!(printed["ok"], json!(true), "{printed}");
    assert_eq!(printed["isError"], json!(false), "{printed}");
    assert_eq!(
        printed["structuredContent"],
        json!({"result": 42}),
        "{printed}"
    );
}

/// `Server::serve_http` in an application without mcpgen's `http` feature.
const NO_HTTP_MAIN_RS: &str = r#"
use mcpgen::prelude::*;
use mcpgen::server::Server;

/// Adds one.
#[mcp_tool]
fn inc(n: i64) -> i64 {
    n + 1
}

#[mcpgen::tokio::main(crate = "mcpgen::tokio")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = Server::builder("x", "1").tool_set(tool_set![inc]).no_auth().build()?;
    let addr: std::net::SocketAddr = "127.0.0.1:8080".parse()?;
    server.serve_http(addr, std::future::pending()).await?;
    Ok(())
}
"#;

#[test]
fn without_the_http_feature_serve_http_names_the_feature_to_enable() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    write_app(dir.path());
    // A package of its own name: the tests share one target folder, and a second
    // `rooms-app` there could be taken as already built from the other test's sources.
    let manifest = std::fs::read_to_string(dir.path().join("Cargo.toml")).expect("Cargo.toml");
    std::fs::write(
        dir.path().join("Cargo.toml"),
        manifest.replace("name = \"rooms-app\"", "name = \"no-http-app\""),
    )
    .expect("Cargo.toml");
    std::fs::write(dir.path().join("src/main.rs"), NO_HTTP_MAIN_RS).expect("main.rs");
    let output = mcpgen_tests::standalone_cargo(dir.path(), &["build", "--quiet"])
        .output()
        .expect("cargo runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "the build succeeded:\n{stderr}");
    assert!(
        stderr.contains("`Server::serve_http` needs mcpgen's `http` feature")
            && stderr.contains(r#"features = ["http"]"#),
        "{stderr}"
    );
    assert_eq!(stderr.matches("error[E0277]").count(), 1, "{stderr}");
    assert!(!stderr.contains("serve_io"), "{stderr}");
}
