//! Rate limits shared by two replicas of the generated Synaplan server through a real Redis
//! (from the system's packages, started here on loopback): a principal limited to N calls a
//! minute gets N across both replicas; with `--rate-limit-redis-unavailable closed`, `/readyz`
//! turns not ready while Redis is down and ready again when it returns; bad URLs and rate
//! specs stop the start naming the flag and the fix.

use std::process::Stdio;
use std::time::Duration;

use mcpgen_tests::{
    free_port, start_redis, start_synaplan_http, synaplan_stand_in, workspace_binary,
};
use serde_json::{Value, json};

async fn wait_port(port: u16) {
    assert!(mcpgen_tests::wait_port(port).await, "port {port} opens");
}

/// A stateless (2026-07-28) call of `synaplan_list_prompts`; whether the rate limit refused it.
async fn call_is_limited(http: &reqwest::Client, url: &str, id: u32) -> bool {
    let answer = call(http, url, id, "synaplan_list_prompts").await;
    let result = &answer["result"];
    if result["isError"] == true {
        assert!(result.to_string().contains("rate limit"), "{answer}");
    }
    result["isError"] == true
}

/// A stateless (2026-07-28) call of `tool` without arguments; the JSON-RPC answer.
async fn call(http: &reqwest::Client, url: &str, id: u32, tool: &str) -> Value {
    let body = json!({
        "jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": tool, "arguments": {}, "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": {}
        }}
    });
    let answer: Value = http
        .post(format!("{url}/mcp"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", tool)
        .body(body.to_string())
        .send()
        .await
        .expect("request")
        .json()
        .await
        .expect("json");
    assert!(answer["result"].is_object(), "{answer}");
    answer
}

#[tokio::test(flavor = "multi_thread")]
async fn a_principal_limited_to_n_a_minute_gets_n_across_two_replicas() {
    let port = free_port();
    let _redis = start_redis(port);
    wait_port(port).await;
    let upstream = synaplan_stand_in().await;
    let redis_url = format!("redis://127.0.0.1:{port}");
    let flags = [
        "--no-auth",
        "--rate-limit",
        "10/min",
        "--rate-limit-redis",
        redis_url.as_str(),
    ];
    let (_a, a) = start_synaplan_http(&upstream.url, &flags).await;
    let (_b, b) = start_synaplan_http(&upstream.url, &flags).await;
    let http = reqwest::Client::new();
    let mut allowed = [0u32; 2];
    for id in 0..40 {
        let replica = (id % 2) as usize;
        let url = if replica == 0 { &a } else { &b };
        if !call_is_limited(&http, url, id).await {
            allowed[replica] += 1;
        }
    }
    let total = allowed[0] + allowed[1];
    assert!(
        (9..=11).contains(&total),
        "10 a minute across both replicas, got {total} ({allowed:?})"
    );
    assert!(
        allowed[0] > 0 && allowed[1] > 0,
        "both replicas served: {allowed:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_per_tool_limit_from_the_allowlist_holds_across_replicas() {
    // specs/synaplan/mcp_tools.yaml: `synaplan_list_chats` has `rate_limit: 5/min`.
    let port = free_port();
    let _redis = start_redis(port);
    wait_port(port).await;
    let upstream = synaplan_stand_in().await;
    let redis_url = format!("redis://127.0.0.1:{port}");
    let flags = ["--no-auth", "--rate-limit-redis", redis_url.as_str()];
    let (_a, a) = start_synaplan_http(&upstream.url, &flags).await;
    let (_b, b) = start_synaplan_http(&upstream.url, &flags).await;
    let http = reqwest::Client::new();
    let mut allowed = 0;
    for id in 0..20 {
        let url = if id % 2 == 0 { &a } else { &b };
        let answer = call(&http, url, id, "synaplan_list_chats").await;
        if !answer.to_string().contains("rate limit exceeded") {
            allowed += 1;
        }
        // Other tools are not held by it.
        assert!(!call_is_limited(&http, url, 1000 + id).await);
    }
    assert!(
        (4..=6).contains(&allowed),
        "5 a minute across both replicas, got {allowed}"
    );
    // Calls that reached the tool went upstream; refused ones did not.
    let reached = upstream
        .received()
        .iter()
        .filter(|r| r.uri.starts_with("/api/v1/chats"))
        .count();
    assert_eq!(reached, allowed);
}

#[tokio::test(flavor = "multi_thread")]
async fn readyz_follows_redis_when_failing_closed() {
    let port = free_port();
    let redis = start_redis(port);
    wait_port(port).await;
    let upstream = synaplan_stand_in().await;
    let redis_url = format!("redis://127.0.0.1:{port}");
    let (_server, url) = start_synaplan_http(
        &upstream.url,
        &[
            "--no-auth",
            "--rate-limit",
            "100/s",
            "--rate-limit-redis",
            &redis_url,
            "--rate-limit-redis-unavailable",
            "closed",
        ],
    )
    .await;
    let http = reqwest::Client::new();
    let readyz = |http: reqwest::Client, url: String| async move {
        http.get(format!("{url}/readyz"))
            .send()
            .await
            .expect("readyz")
            .status()
            .as_u16()
    };
    let wait_status = |want: u16| {
        let http = http.clone();
        let url = url.clone();
        async move {
            for _ in 0..100 {
                if readyz(http.clone(), url.clone()).await == want {
                    return;
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            panic!("/readyz never answered {want}");
        }
    };
    wait_status(200).await;
    assert!(!call_is_limited(&http, &url, 1).await);

    drop(redis);
    wait_status(503).await;
    assert_eq!(readyz(http.clone(), url.clone()).await, 503);
    // Calls are refused while Redis is away (fail closed).
    let refused: Value = http
        .post(format!("{url}/mcp"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", "synaplan_list_prompts")
        .body(
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                "params": {"name": "synaplan_list_prompts", "arguments": {}, "_meta": {
                    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                    "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
                    "io.modelcontextprotocol/clientCapabilities": {}}}})
            .to_string(),
        )
        .send()
        .await
        .expect("request")
        .json()
        .await
        .expect("json");
    assert_eq!(refused["result"]["isError"], true, "{refused}");
    assert!(
        refused.to_string().contains("rate limit store"),
        "{refused}"
    );
    // /healthz stays liveness only.
    assert_eq!(
        http.get(format!("{url}/healthz"))
            .send()
            .await
            .expect("healthz")
            .status(),
        200
    );

    let _redis = start_redis(port);
    wait_status(200).await;
    assert!(!call_is_limited(&http, &url, 3).await);
}

#[tokio::test]
async fn bad_redis_urls_and_rate_specs_stop_the_start() {
    let upstream = synaplan_stand_in().await;
    for (flags, expected) in [
        (
            vec!["--rate-limit-redis", "http://cache:6379"],
            "redis://[:PASSWORD@]HOST",
        ),
        (vec!["--rate-limit", "10/fortnight"], "10/min"),
        (vec!["--rate-limit", "0/s"], "--rate-limit"),
    ] {
        let out = tokio::process::Command::new(workspace_binary("synaplan-mcp"))
            .args(["--transport", "http", "--no-auth", "--upstream-url"])
            .arg(&upstream.url)
            .args(["--listen", &format!("127.0.0.1:{}", free_port())])
            .args(&flags)
            .stdin(Stdio::null())
            .output()
            .await
            .expect("runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{flags:?} started");
        assert!(stderr.contains(expected), "{flags:?}: {stderr}");
        assert!(
            stderr.contains(flags[0]),
            "{flags:?}: the message names the flag: {stderr}"
        );
    }
}
