//! A crate generated under a non-default profile builds on its own, and its server starts (it
//! compiles every advertised schema into a validator at start-up) and lists exactly the tools
//! of its `tools.json`: `events31` under `draft-07`, whose tuple schemas become the array form
//! of `items`, which only a draft-07 validator accepts.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use crate::support::standalone::root;
use mcpgen_tests::standalone_build as cargo_build;

#[test]
fn a_draft_07_crate_builds_starts_and_lists_its_tools_json() {
    let root = root();
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = tmp.path().join("events31");
    // Whole schemas (no budget, full outputs), so the tuple schemas reach the profile.
    let allowlist = std::fs::read_to_string(root.join("specs/events31/mcp_tools.yaml"))
        .expect("allowlist")
        .replacen(
            "server:\n",
            "server:\n  schema_budget: 0\n  output_schema: full\n",
            1,
        );
    let tools = tmp.path().join("mcp_tools.yaml");
    std::fs::write(&tools, allowlist).expect("write allowlist");
    let o = Command::new(env!("CARGO_BIN_EXE_mcpgen"))
        .args(["generate", "--spec"])
        .arg(root.join("specs/events31/openapi.yaml"))
        .arg("--tools")
        .arg(&tools)
        .arg("--out")
        .arg(&out)
        .arg("--mcpgen-path")
        .arg(root.join("mcpgen"))
        .args(["--profile", "draft-07"])
        .output()
        .expect("mcpgen runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let tools_json = std::fs::read_to_string(out.join("tools.json")).expect("tools.json");
    assert!(
        tools_json.contains("\"additionalItems\""),
        "events31 has a tuple schema"
    );
    let bins = cargo_build(&out);

    let bin = bins.join("events31-mcp");
    let mut child = Command::new(&bin)
        .args(["--no-auth"])
        .env_remove("MCPGEN_API_KEY")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{}: {e}", bin.display()));
    let mut stdin = child.stdin.take().expect("stdin");
    let requests = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "profile-test", "version": "0"}
        }}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
    ];
    for request in &requests {
        writeln!(stdin, "{request}").expect("write request");
    }
    stdin.flush().expect("flush");
    let mut listed = None;
    for line in BufReader::new(child.stdout.take().expect("stdout")).lines() {
        let line = line.expect("read");
        let message: Value = serde_json::from_str(&line).expect("JSON-RPC line");
        if message["id"] == json!(2) {
            listed = Some(message);
            break;
        }
    }
    drop(stdin);
    let status = child.wait().expect("server exits when stdin closes");
    let listed = listed.unwrap_or_else(|| {
        let mut err = String::new();
        if let Some(mut e) = child.stderr.take() {
            std::io::Read::read_to_string(&mut e, &mut err).ok();
        }
        panic!("no tools/list answer (exit {status}): {err}")
    });
    // tools.json shows the list as a client with the views extension sees it; this client did
    // not declare it, so it gets the same entries less their `_meta`.
    let mut expected: Value = serde_json::from_str(&tools_json).expect("tools.json parses");
    for tool in expected["tools"].as_array_mut().into_iter().flatten() {
        tool.as_object_mut().map(|t| t.remove("_meta"));
    }
    assert_eq!(listed["result"]["tools"], expected["tools"], "{listed}");
}
