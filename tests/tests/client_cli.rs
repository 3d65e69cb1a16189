//! `mcpgen tools` and `mcpgen call` as a user runs them: the built `mcpgen` binary with a
//! configuration listing the reference `server-everything` over stdio, our generated
//! `synaplan-mcp` over Streamable HTTP (against a loopback stand-in for the Synaplan API),
//! and a server whose command does not exist.

use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

use mcpgen_tests::{
    KillOnDrop, SYNAPLAN_PROMPTS, admin_keys_file, node_bin, node_file, start_synaplan_http,
    synaplan_stand_in, workspace_binary,
};
use serde_json::{Value, json};

/// A running `synaplan-mcp --transport http` with one admin key, killed on drop.
struct Synaplan {
    _child: KillOnDrop,
    url: String,
    _dir: tempfile::TempDir,
}

async fn synaplan_http(upstream: &str) -> Synaplan {
    let dir = tempfile::tempdir().expect("tempdir");
    let keys = admin_keys_file(dir.path());
    let (child, url) =
        start_synaplan_http(upstream, &["--keys", &keys.display().to_string()]).await;
    Synaplan {
        _child: child,
        url,
        _dir: dir,
    }
}

/// Writes the configuration: `everything` (stdio), `synaplan` (HTTP), `broken` (a command
/// that does not exist), `off` (disabled).
fn write_config(dir: &Path, synaplan_url: &str) -> PathBuf {
    let config = json!({"mcpServers": {
        "everything": {
            "command": node_bin("node").display().to_string(),
            "args": [
                node_file("node_modules/@modelcontextprotocol/server-everything/dist/index.js")
                    .display()
                    .to_string(),
                "stdio"
            ]
        },
        "synaplan": {
            "url": format!("{synaplan_url}/mcp"),
            "headers": {"X-API-Key": "admin-key-0123456789"},
            "allow_private": true
        },
        "broken": {"command": "/nonexistent/mcpgen-test-server"},
        "off": {"command": "/nonexistent/never-started", "disabled": true}
    }});
    let path = dir.join("mcp_servers.json");
    std::fs::write(&path, config.to_string()).expect("write config");
    path
}

async fn mcpgen(args: &[&str]) -> Output {
    tokio::process::Command::new(workspace_binary("mcpgen"))
        .args(args)
        .env_remove("MCPGEN_MCP_CONFIG")
        .stdin(Stdio::null())
        .output()
        .await
        .expect("mcpgen runs")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The rows of the `tools` table, split on runs of two or more spaces.
fn rows(table: &str) -> Vec<Vec<String>> {
    table
        .lines()
        .map(|line| {
            line.split("  ")
                .map(str::trim)
                .filter(|c| !c.is_empty())
                .map(str::to_owned)
                .collect()
        })
        .collect()
}

#[tokio::test]
async fn tools_lists_every_server_and_reports_the_one_that_failed() {
    let upstream = synaplan_stand_in().await;
    let synaplan = synaplan_http(&upstream.url).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let config = write_config(dir.path(), &synaplan.url);
    let config = config.to_str().expect("utf-8 path");

    let out = mcpgen(&["tools", "--config", config]).await;
    assert_eq!(out.status.code(), Some(1), "a server failed: {out:?}");
    let table = rows(&stdout(&out));
    assert_eq!(table[0], ["SERVER", "TOOL", "DESCRIPTION"]);
    let has = |server: &str, tool: &str| {
        table.iter().any(|r| {
            r.first().map(String::as_str) == Some(server)
                && r.get(1).map(String::as_str) == Some(tool)
        })
    };
    assert!(has("everything", "echo"), "{table:?}");
    assert!(has("everything", "get-sum"), "{table:?}");
    assert!(has("synaplan", "synaplan_list_prompts"), "{table:?}");
    assert!(!table.iter().any(|r| r[0] == "broken" || r[0] == "off"));
    // Grouped by server.
    let servers: Vec<&str> = table[1..].iter().map(|r| r[0].as_str()).collect();
    let mut grouped = servers.clone();
    grouped.sort();
    assert_eq!(servers, grouped);
    let err = stderr(&out);
    assert!(
        err.contains("error: server `broken` failed:")
            && err.contains("/nonexistent/mcpgen-test-server"),
        "{err}"
    );
    assert!(
        !err.contains("`off`"),
        "a disabled server is not connected: {err}"
    );

    // Only the working servers: success.
    let out = mcpgen(&[
        "tools",
        "--config",
        config,
        "--server",
        "synaplan",
        "--server",
        "everything",
    ])
    .await;
    assert!(out.status.success(), "{}", stderr(&out));

    // JSON: every tool with its server, and the failures.
    let out = mcpgen(&["tools", "--config", config, "--json"]).await;
    assert_eq!(out.status.code(), Some(1));
    let listed: Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
    let prompts = listed["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .find(|t| t["name"] == "synaplan_list_prompts")
        .expect("synaplan_list_prompts listed");
    assert_eq!(prompts["server"], "synaplan");
    assert_eq!(prompts["input_schema"]["type"], "object");
    assert_eq!(listed["failures"].as_array().map(Vec::len), Some(1));
    assert_eq!(listed["failures"][0]["server"], "broken");

    // A server name that is not configured.
    let out = mcpgen(&["tools", "--config", config, "--server", "nope"]).await;
    assert!(!out.status.success());
    assert!(stderr(&out).contains("no server `nope` in the configuration"));
}

#[tokio::test]
async fn call_prints_results_and_fails_on_tool_errors_and_dead_servers() {
    let upstream = synaplan_stand_in().await;
    let synaplan = synaplan_http(&upstream.url).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let config = write_config(dir.path(), &synaplan.url);
    let config = config.to_str().expect("utf-8 path");

    // stdio: the text of the result.
    let out = mcpgen(&[
        "call",
        "--config",
        config,
        "--server",
        "everything",
        "--tool",
        "echo",
        "--args",
        r#"{"message":"hi"}"#,
    ])
    .await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), "Echo: hi\n");

    // Streamable HTTP, --json: the raw result.
    let out = mcpgen(&[
        "call",
        "--config",
        config,
        "--server",
        "synaplan",
        "--tool",
        "synaplan_list_prompts",
        "--json",
    ])
    .await;
    assert!(out.status.success(), "{}", stderr(&out));
    let result: Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
    assert_eq!(result["isError"], false);
    let expected: Value = serde_json::from_str(SYNAPLAN_PROMPTS).expect("json");
    assert_eq!(result["structuredContent"], expected);
    assert!(
        upstream
            .received()
            .iter()
            .any(|r| r.uri.starts_with("/api/v1/prompts"))
    );

    // isError (the upstream answered 500): non-zero exit, the error on stderr.
    let out = mcpgen(&[
        "call",
        "--config",
        config,
        "--server",
        "synaplan",
        "--tool",
        "synaplan_list_files",
    ])
    .await;
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stdout(&out), "");
    let err = stderr(&out);
    assert!(
        err.starts_with("error: tool `synaplan_list_files` on server `synaplan` failed:")
            && err.contains("500"),
        "{err}"
    );

    // --json still prints the failed result, and still exits non-zero.
    let out = mcpgen(&[
        "call",
        "--config",
        config,
        "--server",
        "synaplan",
        "--tool",
        "synaplan_list_files",
        "--json",
    ])
    .await;
    assert_eq!(out.status.code(), Some(1));
    let result: Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
    assert_eq!(result["isError"], true);

    // A server that cannot be started.
    let out = mcpgen(&[
        "call", "--config", config, "--server", "broken", "--tool", "anything",
    ])
    .await;
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("cannot connect"), "{}", stderr(&out));

    // Bad input is refused before connecting.
    let out = mcpgen(&[
        "call",
        "--config",
        config,
        "--server",
        "everything",
        "--tool",
        "echo",
        "--args",
        "[1]",
    ])
    .await;
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        "error: --args must be a JSON object, got an array\n"
    );
    let out = mcpgen(&["call", "--config", config, "--server", "off", "--tool", "x"]).await;
    assert!(
        stderr(&out).contains("server `off` is disabled"),
        "{}",
        stderr(&out)
    );
}

#[tokio::test]
async fn tools_and_call_document_every_flag() {
    for cmd in ["tools", "call"] {
        let out = mcpgen(&[cmd, "--help"]).await;
        let text = stdout(&out);
        assert!(out.status.success(), "{}", stderr(&out));
        let flags: Vec<&str> = text
            .lines()
            .filter(|l| l.trim_start().starts_with("--"))
            .collect();
        assert!(flags.len() >= 3, "{cmd}: {text}");
        for line in flags {
            let described = line.trim_start().split_once("  ").map(|(_, d)| d.trim());
            assert!(
                described.is_some_and(|d| !d.is_empty()),
                "{cmd}: undocumented flag line {line:?}"
            );
        }
    }
    let out = mcpgen(&["--help"]).await;
    let text = stdout(&out);
    assert!(text.contains("tools ") && text.contains("call "), "{text}");
}
