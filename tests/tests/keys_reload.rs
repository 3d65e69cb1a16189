//! `keys.yaml` changed while the generated server serves: the new key works and the removed
//! one fails soon after, an open session carries on, and a broken file keeps the old keys and
//! logs an error naming the line.

use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcpgen_tests::{
    KillOnDrop, free_port, http_client, synaplan_stand_in, wait_ready, workspace_binary,
};
use rmcp::model::CallToolRequestParams;
use tokio::io::{AsyncBufReadExt, BufReader};

fn keys(entries: &[(&str, &str)]) -> String {
    let mut text = "keys:\n".to_owned();
    for (id, key) in entries {
        text.push_str(&format!(
            "  - id: {id}\n    key: {key}\n    principal: {id}\n    scopes: ['mcp:read']\n"
        ));
    }
    text
}

/// Writes `text` to `path` in one step (a rename), as editors and deploy tools do.
fn replace(path: &std::path::Path, text: &str) {
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, text).expect("writes");
    std::fs::rename(&tmp, path).expect("renames");
}

async fn status(url: &str, key: &str) -> u16 {
    reqwest::Client::new()
        .post(format!("{url}/mcp"))
        .header("x-api-key", key)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/list")
        .json(&serde_json::json!({
            "jsonrpc": "2.0", "id": 1, "method": "tools/list",
            "params": {"_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
                "io.modelcontextprotocol/clientCapabilities": {}
            }}
        }))
        .send()
        .await
        .expect("answers")
        .status()
        .as_u16()
}

/// Polls until `key` gets `expected`, for at most ten seconds (the server checks the file
/// twice a second).
async fn eventually(url: &str, key: &str, expected: u16) -> bool {
    for _ in 0..100 {
        if status(url, key).await == expected {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    false
}

#[tokio::test]
async fn a_changed_keys_file_is_reloaded_without_dropping_connections() {
    let upstream = synaplan_stand_in().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("keys.yaml");
    let stay = ("steady", "steady-key-0123456789");
    let old = ("leaving", "leaving-key-0123456789");
    let new = ("joining", "joining-key-0123456789");
    std::fs::write(&path, keys(&[stay, old])).expect("writes");

    let port = free_port();
    let mut child = tokio::process::Command::new(workspace_binary("synaplan-mcp"))
        .args(["--transport", "http", "--upstream-url", &upstream.url])
        .args(["--listen", &format!("127.0.0.1:{port}")])
        .args(["--keys", &path.display().to_string()])
        .env("RUST_LOG", "info")
        .env("NO_COLOR", "1")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("synaplan-mcp starts");
    let log = Arc::new(Mutex::new(String::new()));
    let mut lines = BufReader::new(child.stderr.take().expect("stderr")).lines();
    let sink = log.clone();
    tokio::spawn(async move {
        while let Ok(Some(line)) = lines.next_line().await {
            if let Ok(mut log) = sink.lock() {
                log.push_str(&line);
                log.push('\n');
            }
        }
    });
    let _child = KillOnDrop(child);
    let url = format!("http://127.0.0.1:{port}");
    assert!(wait_ready(&format!("{url}/healthz")).await);

    // A session opened before the change.
    let session = http_client(&url, stay.1).await;
    let call = || CallToolRequestParams::new("synaplan_list_prompts");
    assert_ne!(
        session.call_tool(call()).await.expect("call").is_error,
        Some(true)
    );
    assert_eq!(status(&url, new.1).await, 401);
    assert_eq!(status(&url, old.1).await, 200);

    replace(&path, &keys(&[stay, new]));
    assert!(
        eventually(&url, new.1, 200).await,
        "the new key never worked"
    );
    assert_eq!(
        status(&url, old.1).await,
        401,
        "the removed key still works"
    );
    // The session opened before the reload carries on.
    assert_ne!(
        session.call_tool(call()).await.expect("call").is_error,
        Some(true)
    );

    // A broken file keeps the keys loaded before and names the line.
    replace(&path, "keys:\n  - id: joining\n    principal: [oops\n");
    let mut logged = false;
    for _ in 0..100 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        let text = log.lock().map(|l| l.clone()).unwrap_or_default();
        if text.contains("keys file not reloaded") {
            let line = text
                .lines()
                .find(|l| l.contains("keys file not reloaded"))
                .unwrap_or_default()
                .to_owned();
            assert!(line.contains(&format!("{}:3", path.display())), "{line}");
            logged = true;
            break;
        }
    }
    assert!(logged, "no error was logged for the broken file");
    assert_eq!(status(&url, new.1).await, 200);
    assert_eq!(status(&url, stay.1).await, 200);
    assert_ne!(
        session.call_tool(call()).await.expect("call").is_error,
        Some(true)
    );
    session.cancel().await.ok();
}
