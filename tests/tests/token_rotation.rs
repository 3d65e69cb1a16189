//! Token secrets rotate without downtime: the generated server given two secrets
//! (`--token-secret-env NEW --token-secret-env OLD`) accepts tokens signed with either.

use std::time::Duration;

use mcpgen_runtime::auth::TokenAuthority;
use mcpgen_tests::{KillOnDrop, free_port, listening_command, synaplan_stand_in, wait_ready};
use serde_json::json;

const NEW_VAR: &str = "MCPGEN_E2E_NEW_TOKEN_SECRET";
const OLD_VAR: &str = "MCPGEN_E2E_OLD_TOKEN_SECRET";
const NEW: &str = "the new token secret, at least thirty-two bytes";
const OLD: &str = "the old token secret, at least thirty-two bytes";

async fn list_prompts(url: &str, token: &str) -> u16 {
    reqwest::Client::new()
        .post(format!("{url}/mcp"))
        .bearer_auth(token)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", "synaplan_list_prompts")
        .json(&json!({
            "jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "synaplan_list_prompts", "arguments": {}, "_meta": {
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

#[tokio::test]
async fn tokens_signed_with_either_of_two_secrets_verify() {
    let upstream = synaplan_stand_in().await;
    let port = free_port();
    let args = [
        "--transport",
        "http",
        "--upstream-url",
        upstream.url.as_str(),
        "--token-secret-env",
        NEW_VAR,
        "--token-secret-env",
        OLD_VAR,
        "--token-audience",
        "synaplan",
    ];
    // The secrets go to the server's environment only: this process's is shared by the tests
    // running beside this one.
    let _server = KillOnDrop(
        listening_command("synaplan-mcp", port, &args)
            .env(NEW_VAR, NEW)
            .env(OLD_VAR, OLD)
            .spawn()
            .expect("synaplan-mcp starts"),
    );
    let url = format!("http://127.0.0.1:{port}");
    assert!(
        wait_ready(&format!("{url}/healthz")).await,
        "synaplan-mcp did not come up"
    );
    let scopes = ["mcp:read".to_owned()];
    for secret in [NEW, OLD] {
        let token = TokenAuthority::new(secret.as_bytes(), "synaplan")
            .expect("authority")
            .issue("ci", &scopes, Duration::from_secs(600));
        assert_eq!(list_prompts(&url, &token).await, 200, "{secret}");
    }
    let stranger = TokenAuthority::new(&[3u8; 32], "synaplan")
        .expect("authority")
        .issue("ci", &scopes, Duration::from_secs(600));
    assert_eq!(list_prompts(&url, &stranger).await, 401);
}
