//! A generated crate large enough that a dispatcher with one `match` over every tool, in one
//! async function, overflows the stack of its debug build on every `tools/call` (as GitHub's
//! and Stripe's crates did): 400 tools whose arguments have 60 fields each, generated with
//! `mcpgen generate`, built unoptimised as `cargo build` builds it for a new user (here in the
//! release profile made the dev profile's equal, `mcpgen_tests::STANDALONE_ENV`, which every
//! build outside the workspace shares), and called over stdio.

use crate::support;

use std::process::Command;

use mcpgen_tests::standalone_build as cargo_build;
use serde_json::{Map, Value, json};
use support::standalone::root;

const TOOLS: usize = 400;
const FIELDS: usize = 60;

/// An OpenAPI document of `TOOLS` POST operations, each with a JSON body of `FIELDS` optional
/// string properties.
fn spec() -> Value {
    let mut paths = Map::new();
    for i in 0..TOOLS {
        let properties: Map<String, Value> = (0..FIELDS)
            .map(|j| {
                let field = json!({"type": "string", "description": format!("Field {j}")});
                (format!("field_{j}"), field)
            })
            .collect();
        paths.insert(
            format!("/things{i}"),
            json!({"post": {
                "operationId": format!("createThing{i}"),
                "summary": format!("Create thing {i}"),
                "requestBody": {"required": true, "content": {"application/json": {
                    "schema": {"type": "object", "properties": properties}}}},
                "responses": {"200": {"description": "ok", "content": {"application/json": {
                    "schema": {"type": "object", "properties": {"id": {"type": "string"}}}}}}}
            }}),
        );
    }
    json!({
        "openapi": "3.0.3",
        "info": {"title": "Many things", "version": "1.0.0"},
        "servers": [{"url": "http://127.0.0.1:9"}],
        "paths": paths,
    })
}

#[test]
fn a_large_crate_built_in_debug_answers_tools_call() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let spec_path = tmp.path().join("openapi.json");
    std::fs::write(&spec_path, spec().to_string()).expect("write the spec");
    let mcpgen = env!("CARGO_BIN_EXE_mcpgen");
    let init = support::corpus::run(
        Command::new(mcpgen)
            .args(["init", "--all", "--name", "many", "--spec"])
            .arg(&spec_path),
        "mcpgen init --all",
    );
    let tools_path = tmp.path().join("mcp_tools.yaml");
    std::fs::write(&tools_path, &init.stdout).expect("write the allowlist");
    let out = tmp.path().join("many-mcp");
    support::corpus::run(
        Command::new(mcpgen)
            .args(["generate", "--spec"])
            .arg(&spec_path)
            .arg("--tools")
            .arg(&tools_path)
            .arg("--out")
            .arg(&out)
            .arg("--mcpgen-path")
            .arg(root().join("mcpgen")),
        "mcpgen generate",
    );
    let bins = cargo_build(&out);

    let list: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("tools.json")).expect("tools.json"))
            .expect("tools.json is JSON");
    assert_eq!(list["tools"].as_array().map(Vec::len), Some(TOOLS));
    let exe = bins.join("many-mcp");
    let answered =
        support::stdio_server::call_spread_tools(&exe, &list["tools"], 20, |_| Map::new());
    assert_eq!(answered, 20);
}
