//! `mcpgen call` answers what a server asks: the generated `library2-mcp` (its allowlist marks
//! `library2_remove_book`, a DELETE, `confirm: true`) over Streamable HTTP against a loopback
//! stand-in for the library API, called by the built `mcpgen` binary as a child process
//! whose terminal input the test types. Yes sends exactly one DELETE; no, or no input at
//! all, sends none.

use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

use mcpgen_tests::{StandIn, start_listening, workspace_binary};
use serde_json::json;
use tokio::io::AsyncWriteExt;

fn write_config(dir: &Path, url: &str) -> PathBuf {
    let config = json!({"mcpServers": {
        "library": {"url": format!("{url}/mcp"), "allow_private": true}
    }});
    let path = dir.join("mcp_servers.json");
    std::fs::write(&path, config.to_string()).expect("write config");
    path
}

/// Runs `mcpgen call` of `library2_remove_book` for book `id`, typing `typed` on its stdin
/// (`None`: no input at all).
async fn remove_book(config: &Path, id: u64, typed: Option<&str>) -> Output {
    let mut child = tokio::process::Command::new(workspace_binary("mcpgen"))
        .args(["call", "--config"])
        .arg(config)
        .args(["--server", "library", "--tool", "library2_remove_book"])
        .args(["--args", &json!({"bookId": id}).to_string()])
        .env_remove("MCPGEN_MCP_CONFIG")
        .env_remove("MCPGEN_ROOTS")
        .stdin(if typed.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("mcpgen starts");
    if let (Some(text), Some(mut stdin)) = (typed, child.stdin.take()) {
        stdin.write_all(text.as_bytes()).await.expect("type");
        // Dropping stdin closes it: the end of input.
    }
    tokio::time::timeout(std::time::Duration::from_secs(60), child.wait_with_output())
        .await
        .expect("mcpgen ends in time")
        .expect("mcpgen runs")
}

fn deletes(upstream: &StandIn) -> Vec<String> {
    upstream
        .received()
        .into_iter()
        .filter(|r| r.method == "DELETE")
        .map(|r| r.uri)
        .collect()
}

#[tokio::test]
async fn call_asks_on_the_terminal_before_a_confirmed_tool_runs() {
    let upstream = StandIn::start(vec![
        ("DELETE /books/41", (204, "application/json", String::new())),
        ("DELETE /books/42", (204, "application/json", String::new())),
        ("DELETE /books/43", (204, "application/json", String::new())),
    ])
    .await
    .expect("stand-in starts");
    let (_server, url) = start_listening(
        "library2-mcp",
        &[
            "--transport",
            "http",
            "--no-auth",
            "--upstream-url",
            &upstream.url,
        ],
    )
    .await;
    let dir = tempfile::tempdir().expect("tempdir");
    let config = write_config(dir.path(), &url);

    // Yes: exactly one DELETE, after the question showed the tool and its arguments.
    let yes = remove_book(&config, 42, Some("y\n")).await;
    let asked = String::from_utf8_lossy(&yes.stderr).into_owned();
    assert!(yes.status.success(), "yes succeeds: {yes:?}");
    for shown in [
        "Server `library` asks",
        "library2_remove_book",
        "DELETE",
        "42",
        "[y/n]",
    ] {
        assert!(
            asked.contains(shown),
            "the question shows `{shown}`: {asked}"
        );
    }
    assert_eq!(deletes(&upstream), ["/books/42"]);

    // No: nothing is sent, and the command fails saying why.
    let no = remove_book(&config, 41, Some("n\n")).await;
    assert_eq!(no.status.code(), Some(1), "no fails: {no:?}");
    let why = String::from_utf8_lossy(&no.stderr);
    assert!(why.contains("not confirmed"), "{why}");
    assert_eq!(deletes(&upstream), ["/books/42"], "no sends nothing");

    // No terminal input at all: the question is cancelled and nothing is sent.
    let silent = remove_book(&config, 43, None).await;
    assert_eq!(silent.status.code(), Some(1), "{silent:?}");
    assert!(String::from_utf8_lossy(&silent.stderr).contains("not confirmed"));
    assert_eq!(deletes(&upstream), ["/books/42"], "no input sends nothing");
}
