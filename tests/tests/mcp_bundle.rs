//! The Synaplan crate as an MCP Bundle: `mcpgen bundle --binary` packs the built server (the
//! release build `mcpgen bundle` makes without `--binary` is slow, and is exercised by hand);
//! the official `mcpb` tool unpacks the `.mcpb` and validates its manifest; and the unpacked
//! binary, started as the manifest says with the configured values as its `user_config`
//! environment, serves the official Python client over stdio, calling the upstream it was
//! configured with and sending it the configured API key.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use mcpgen_tests::{node_bin, repo_root, synaplan_stand_in, workspace_binary};
use serde_json::{Value, json};

/// The API key the person installing the bundle configures.
const API_KEY: &str = "desktop-key-0123456789";

fn run(command: &mut Command, what: &str) -> Output {
    let out = command
        .output()
        .unwrap_or_else(|e| panic!("{what}: cannot start: {e}"));
    assert!(
        out.status.success(),
        "{what} failed ({}):\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// `mcpgen bundle` of the Synaplan crate with the built binary; returns the `.mcpb`'s path.
fn bundle(dir: &Path) -> PathBuf {
    let out = dir.join("synaplan.mcpb");
    let printed = run(
        Command::new(workspace_binary("mcpgen"))
            .args(["bundle", "--crate"])
            .arg(repo_root().join("generated/synaplan"))
            .arg("--binary")
            .arg(workspace_binary("synaplan-mcp"))
            .arg("--out")
            .arg(&out),
        "mcpgen bundle",
    );
    let text = String::from_utf8_lossy(&printed.stdout);
    assert!(text.contains("synaplan.mcpb"), "{text}");
    out
}

/// `text` with `${user_config.KEY}` replaced by the configured values and `${__dirname}` by
/// the bundle's folder, as a desktop host does.
fn substitute(text: &str, folder: &Path, config: &Value) -> String {
    let mut text = text.replace("${__dirname}", &folder.display().to_string());
    if let Some(config) = config.as_object() {
        for (key, value) in config {
            let value = value.as_str().unwrap_or_default();
            text = text.replace(&format!("${{user_config.{key}}}"), value);
        }
    }
    text
}

#[tokio::test]
async fn the_synaplan_bundle_validates_and_serves_the_python_client_over_stdio() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mcpb = bundle(dir.path());

    let unpacked = dir.path().join("unpacked");
    run(
        Command::new(node_bin("mcpb"))
            .arg("unpack")
            .arg(&mcpb)
            .arg(&unpacked),
        "mcpb unpack",
    );
    let validated = run(
        Command::new(node_bin("mcpb"))
            .arg("validate")
            .arg(unpacked.join("manifest.json")),
        "mcpb validate",
    );
    assert!(
        String::from_utf8_lossy(&validated.stdout).contains("validation passes"),
        "{}",
        String::from_utf8_lossy(&validated.stdout)
    );

    let manifest: Value = serde_json::from_str(
        &std::fs::read_to_string(unpacked.join("manifest.json")).expect("manifest.json"),
    )
    .expect("the manifest is JSON");
    assert_eq!(manifest["server"]["type"], "binary");
    assert_eq!(manifest["server"]["entry_point"], "server/synaplan-mcp");
    assert_eq!(manifest["compatibility"]["platforms"], json!(["linux"]));
    assert_eq!(
        manifest["user_config"]["upstream_api_key"]["sensitive"],
        true
    );
    assert!(
        manifest["tools"]
            .as_array()
            .expect("tools")
            .iter()
            .any(|t| t["name"] == "synaplan_list_prompts"),
        "{manifest}"
    );

    let upstream = synaplan_stand_in().await;
    let config = json!({"upstream_url": upstream.url, "upstream_api_key": API_KEY});
    let server = &manifest["server"]["mcp_config"];
    let mut client =
        tokio::process::Command::new(repo_root().join("tests/python/.venv/bin/python"));
    client
        .arg(repo_root().join("tests/python/call_tool.py"))
        .args([
            "stdio",
            "synaplan_list_prompts",
            &json!({"language": "en"}).to_string(),
        ]);
    for (name, value) in server["env"].as_object().expect("env") {
        let value = substitute(value.as_str().expect("a string"), &unpacked, &config);
        client.arg(format!("{name}={value}"));
    }
    client.arg("--").arg(substitute(
        server["command"].as_str().expect("command"),
        &unpacked,
        &config,
    ));
    for arg in server["args"].as_array().expect("args") {
        client.arg(substitute(
            arg.as_str().expect("a string"),
            &unpacked,
            &config,
        ));
    }
    client.env("RUST_LOG", "error").kill_on_drop(true);
    let out = tokio::time::timeout(std::time::Duration::from_secs(60), client.output())
        .await
        .expect("the client finishes within 60 s")
        .expect("the client runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let printed: Value = serde_json::from_str(stdout.lines().last().unwrap_or_default())
        .unwrap_or_else(|_| {
            panic!(
                "the client printed no JSON line ({}):\n{stdout}\n{}",
                out.status,
                String::from_utf8_lossy(&out.stderr)
            )
        });
    assert_eq!(printed["ok"], true, "{printed}");
    assert_eq!(printed["isError"], false, "{printed}");
    assert_eq!(
        printed["structuredContent"]["prompts"][0]["id"], 7,
        "{printed}"
    );
    let received = upstream.received();
    let call = received
        .iter()
        .find(|r| r.uri.starts_with("/api/v1/prompts"))
        .unwrap_or_else(|| panic!("the upstream was not called: {received:?}"));
    assert_eq!(call.header("x-api-key"), Some(API_KEY));
}

/// The bundle's server, started as its manifest says with the API key setting left blank
/// (empty, or the placeholder a host did not fill in), stops at start naming the setting; the
/// upstream is never called.
#[tokio::test]
async fn a_bundle_whose_api_key_was_left_blank_stops_at_start_naming_the_setting() {
    let manifest: Value = serde_json::from_str(
        &std::fs::read_to_string(repo_root().join("generated/synaplan/mcpb/manifest.json"))
            .expect("manifest.json"),
    )
    .expect("the manifest is JSON");
    // The only credential: the host asks for it.
    assert_eq!(
        manifest["user_config"]["upstream_api_key"]["required"],
        true
    );
    // The error names the setting as the host shows it.
    let title = manifest["user_config"]["upstream_api_key"]["title"]
        .as_str()
        .expect("a title");
    let setting = format!("\"{title}\" (`upstream_api_key`)");
    let upstream = synaplan_stand_in().await;
    let server = &manifest["server"]["mcp_config"];
    let folder = repo_root();
    for blank in ["", "${user_config.upstream_api_key}"] {
        let config = json!({"upstream_url": upstream.url, "upstream_api_key": blank});
        let mut command = tokio::process::Command::new(workspace_binary("synaplan-mcp"));
        for arg in server["args"].as_array().expect("args") {
            command.arg(substitute(
                arg.as_str().expect("a string"),
                &folder,
                &config,
            ));
        }
        for (name, value) in server["env"].as_object().expect("env") {
            let value = substitute(value.as_str().expect("a string"), &folder, &config);
            command.env(name, value);
        }
        command
            .env("RUST_LOG", "error")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .kill_on_drop(true);
        // stdin stays open: a server that started would keep serving until the timeout.
        let child = command.spawn().expect("the server starts");
        let out =
            tokio::time::timeout(std::time::Duration::from_secs(30), child.wait_with_output())
                .await
                .unwrap_or_else(|_| panic!("with the key {blank:?}, the server kept running"))
                .expect("the server runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{blank:?}: {stderr}");
        assert!(
            stderr.contains("MCPGEN_UPSTREAM_API_KEY") && stderr.contains(&setting),
            "{blank:?}: {stderr}"
        );
    }
    assert!(upstream.received().is_empty(), "{:?}", upstream.received());
}
