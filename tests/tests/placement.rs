//! A server behind a proxy: `--base-path` moves every route under a prefix and `--public-url`
//! is what every announced URL is built from. The rooms example (`rooms-mcp`, a catalog per
//! room) is driven by the official Python SDK client over legacy SSE and Streamable HTTP at
//! the prefix and at a room's catalog under it; the SSE `endpoint` event, the server cards and
//! `/healthz` are read raw.

use std::path::Path;
use std::time::Duration;

use futures::StreamExt;
use mcpgen_tests::{KillOnDrop, free_port, python_bin, repo_root, wait_ready, workspace_binary};
use serde_json::{Value, json};

const BASE: &str = "/api/v1/mcp";
const PUBLIC: &str = "https://mcp.example.com/api/v1/mcp";

fn write_rooms(dir: &Path) {
    std::fs::write(
        dir.join("alpha.yaml"),
        "name: alpha\ndescription: The first room\n",
    )
    .expect("alpha.yaml is written");
    std::fs::write(
        dir.join("beta.yaml"),
        "name: beta\ndescription: The second room\n",
    )
    .expect("beta.yaml is written");
}

/// Starts `rooms-mcp --no-auth` with `extra` flags; returns it and its origin once
/// `<BASE>/healthz` answers.
async fn start(dir: &Path, extra: &[&str]) -> (KillOnDrop, String) {
    let port = free_port();
    let child = tokio::process::Command::new(workspace_binary("rooms-mcp"))
        .arg("--rooms-dir")
        .arg(dir)
        .args(["--listen", &format!("127.0.0.1:{port}"), "--no-auth"])
        .args(extra)
        .env("RUST_LOG", "error")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .expect("rooms-mcp starts");
    let origin = format!("http://127.0.0.1:{port}");
    assert!(
        wait_ready(&format!("{origin}{BASE}/healthz")).await,
        "rooms-mcp answers {BASE}/healthz"
    );
    (KillOnDrop(child), origin)
}

/// Lists the tools at `url` with the official Python client over `transport` (`sse` or
/// `http`) and calls `list_rooms`; returns its structured content.
async fn python_list_rooms(transport: &str, url: &str) -> Value {
    let out = tokio::time::timeout(
        Duration::from_secs(60),
        tokio::process::Command::new(python_bin("python"))
            .arg(repo_root().join("tests/python/call_tool.py"))
            .args([transport, "list_rooms", "{}", url])
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
                "the Python client printed no JSON line ({transport} {url}, status {}):\n{stdout}\n{}",
                out.status,
                String::from_utf8_lossy(&out.stderr)
            )
        });
    assert_eq!(printed["ok"], json!(true), "{transport} {url}: {printed}");
    assert_eq!(
        printed["isError"],
        json!(false),
        "{transport} {url}: {printed}"
    );
    printed["structuredContent"].clone()
}

async fn status(url: &str) -> u16 {
    reqwest::get(url)
        .await
        .expect("the request is answered")
        .status()
        .as_u16()
}

async fn get_json(url: &str) -> Value {
    let response = reqwest::get(url).await.expect("the request is answered");
    assert_eq!(response.status().as_u16(), 200, "{url}");
    response.json().await.expect("a JSON body")
}

/// Opens the legacy SSE stream at `url` and returns the data of its `endpoint` event.
async fn endpoint_event(url: &str) -> String {
    let response = reqwest::get(url).await.expect("the stream opens");
    assert_eq!(response.status().as_u16(), 200, "{url}");
    let mut body = response.bytes_stream();
    let mut seen = String::new();
    let read = async {
        while let Some(chunk) = body.next().await {
            seen.push_str(&String::from_utf8_lossy(&chunk.expect("the stream reads")));
            if let Some(rest) = seen.split("event: endpoint\n").nth(1)
                && let Some(line) = rest.lines().find_map(|l| l.strip_prefix("data: "))
                && rest.contains('\n')
            {
                return line.to_owned();
            }
        }
        panic!("the stream ended before an endpoint event: {seen}");
    };
    tokio::time::timeout(Duration::from_secs(10), read)
        .await
        .expect("the endpoint event arrives")
}

#[tokio::test]
async fn python_client_connects_under_the_base_path() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    write_rooms(dir.path());
    let (_server, origin) = start(dir.path(), &["--base-path", BASE]).await;

    // The endpoint event points under the prefix.
    let endpoint = endpoint_event(&format!("{origin}{BASE}/sse")).await;
    assert!(
        endpoint.starts_with(&format!("{BASE}/message?sessionId=")),
        "{endpoint}"
    );

    let every = python_list_rooms("sse", &format!("{origin}{BASE}/sse")).await;
    assert_eq!(every["count"], json!(2), "{every}");
    let every = python_list_rooms("http", &format!("{origin}{BASE}")).await;
    assert_eq!(every["count"], json!(2), "{every}");
    let alpha = python_list_rooms("http", &format!("{origin}{BASE}/alpha")).await;
    assert_eq!(alpha["count"], json!(1), "{alpha}");
    assert_eq!(alpha["rooms"][0]["name"], json!("alpha"), "{alpha}");
    let beta = python_list_rooms("sse", &format!("{origin}{BASE}/beta/sse")).await;
    assert_eq!(beta["rooms"][0]["name"], json!("beta"), "{beta}");

    // Nothing is left at the old places.
    for old in [
        "/healthz",
        "/mcp",
        "/sse",
        "/mcp/alpha",
        "/.well-known/mcp.json",
    ] {
        assert_eq!(status(&format!("{origin}{old}")).await, 404, "{old}");
    }
    // The cards sit under the prefix and point there.
    let card = get_json(&format!("{origin}{BASE}/server-card")).await;
    let urls: Vec<&str> = card["remotes"]
        .as_array()
        .expect("remotes")
        .iter()
        .filter_map(|r| r["url"].as_str())
        .collect();
    assert_eq!(
        urls,
        [
            format!("{origin}{BASE}"),
            format!("{origin}{BASE}/sse"),
            format!("{origin}{BASE}/alpha"),
            format!("{origin}{BASE}/alpha/sse"),
            format!("{origin}{BASE}/beta"),
            format!("{origin}{BASE}/beta/sse"),
        ]
    );
    let well_known = get_json(&format!("{origin}{BASE}/.well-known/mcp.json")).await;
    assert_eq!(well_known["endpoint"], json!(BASE), "{well_known}");
    assert_eq!(
        well_known["catalogs"][0],
        json!({"name": "alpha", "endpoint": format!("{BASE}/alpha"), "transports": ["streamable-http", "sse"]})
    );
}

#[tokio::test]
async fn every_announced_url_uses_the_public_url() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    write_rooms(dir.path());
    let (_server, origin) = start(dir.path(), &["--base-path", BASE, "--public-url", PUBLIC]).await;

    let endpoint = endpoint_event(&format!("{origin}{BASE}/sse")).await;
    assert!(
        endpoint.starts_with(&format!("{PUBLIC}/message?sessionId=")),
        "{endpoint}"
    );
    let endpoint = endpoint_event(&format!("{origin}{BASE}/alpha/sse")).await;
    assert!(
        endpoint.starts_with(&format!("{PUBLIC}/alpha/message?sessionId=")),
        "{endpoint}"
    );
    let card = get_json(&format!("{origin}{BASE}/server-card")).await;
    let remotes = card["remotes"].as_array().expect("remotes");
    assert_eq!(remotes.len(), 6, "{card}");
    assert_eq!(remotes[0]["url"], json!(PUBLIC));
    for remote in remotes {
        let url = remote["url"].as_str().expect("a URL");
        assert!(url.starts_with(PUBLIC), "{url}");
    }
    let well_known = get_json(&format!("{origin}{BASE}/.well-known/mcp.json")).await;
    assert_eq!(well_known["endpoint"], json!(PUBLIC));
    for catalog in well_known["catalogs"].as_array().expect("catalogs") {
        let url = catalog["endpoint"].as_str().expect("an endpoint");
        assert!(url.starts_with(&format!("{PUBLIC}/")), "{url}");
    }
}

#[tokio::test]
async fn a_base_path_that_is_not_clean_stops_the_start_naming_the_flag() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    write_rooms(dir.path());
    for bad in ["api/v1", "/api/v1/", "/api//v1", "/api/../v1"] {
        let out = tokio::process::Command::new(workspace_binary("rooms-mcp"))
            .arg("--rooms-dir")
            .arg(dir.path())
            .args(["--listen", "127.0.0.1:0", "--no-auth", "--base-path", bad])
            .output()
            .await
            .expect("rooms-mcp runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{bad} was accepted");
        assert!(stderr.contains("--base-path"), "{bad}: {stderr}");
        assert!(stderr.contains(bad), "{bad}: {stderr}");
    }
    // A room named like a route under the prefix is refused too.
    std::fs::write(dir.path().join("sse.yaml"), "name: sse\n").expect("sse.yaml is written");
    let out = tokio::process::Command::new(workspace_binary("rooms-mcp"))
        .arg("--rooms-dir")
        .arg(dir.path())
        .args(["--listen", "127.0.0.1:0", "--no-auth", "--base-path", BASE])
        .output()
        .await
        .expect("rooms-mcp runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "a room `sse` was accepted");
    assert!(stderr.contains("`sse`"), "{stderr}");
}
