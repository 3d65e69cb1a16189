//! Shutting down: the generated Synaplan server, a real child process, gets SIGTERM while 50
//! calls to a slow loopback upstream are under way. Every call either completes or is
//! refused before it starts, every completed call has its audit record, and no refused call
//! has one. The worker thread count a server runs with comes from `TOKIO_WORKER_THREADS`.

use std::collections::BTreeSet;
use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::Router;
use axum::routing::get;
use mcpgen_tests::{free_port, listening_command, wait_ready, workspace_binary};
use serde_json::{Value, json};

/// A loopback upstream whose prompt list takes `delay` to answer; counts requests received.
async fn slow_upstream(delay: Duration) -> (String, Arc<AtomicUsize>) {
    let received = Arc::new(AtomicUsize::new(0));
    let counter = received.clone();
    let app = Router::new().route(
        "/api/v1/prompts",
        get(move || {
            let counter = counter.clone();
            async move {
                counter.fetch_add(1, Ordering::SeqCst);
                tokio::time::sleep(delay).await;
                (
                    [("content-type", "application/json")],
                    mcpgen_tests::SYNAPLAN_PROMPTS,
                )
            }
        }),
    );
    let url = mcpgen_tests::serve_on_loopback(app).await.expect("bind");
    (url, received)
}

/// How one call ended.
#[derive(Debug, PartialEq)]
enum Outcome {
    Completed,
    /// No answer: the connection was refused or closed before the call started.
    Refused,
}

async fn slow_call(url: String, id: u32) -> (u32, Outcome) {
    let body = json!({
        "jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "synaplan_list_prompts", "arguments": {}, "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": {}
        }}
    });
    // A client per call: each call has a connection of its own, as separate clients would.
    let sent = reqwest::Client::new()
        .post(format!("{url}/mcp"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", "synaplan_list_prompts")
        .body(body.to_string())
        .send()
        .await;
    let Ok(response) = sent else {
        return (id, Outcome::Refused);
    };
    let answer: Value = match response.json().await {
        Ok(answer) => answer,
        Err(error) => panic!("call {id} was cut off mid-answer: {error}"),
    };
    assert_ne!(answer["result"]["isError"], true, "call {id}: {answer}");
    assert!(answer["result"].is_object(), "call {id}: {answer}");
    (id, Outcome::Completed)
}

#[tokio::test(flavor = "multi_thread")]
async fn sigterm_during_50_slow_calls_completes_or_refuses_each_and_audits_every_completed_one() {
    let (upstream, received) = slow_upstream(Duration::from_millis(1500)).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let audit = dir.path().join("audit.jsonl");
    let port = free_port();
    let mut server = tokio::process::Command::new(workspace_binary("synaplan-mcp"))
        .args([
            "--transport",
            "http",
            "--no-auth",
            "--upstream-url",
            &upstream,
        ])
        .args(["--listen", &format!("127.0.0.1:{port}")])
        .args(["--audit-log", audit.to_str().expect("utf8")])
        .args(["--audit-fsync", "always", "--shutdown-timeout", "20"])
        .env("RUST_LOG", "error")
        .stdout(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("server starts");
    let url = format!("http://127.0.0.1:{port}");
    assert!(wait_ready(&format!("{url}/healthz")).await, "server is up");

    let mut calls = Vec::new();
    for id in 0..30 {
        calls.push(tokio::spawn(slow_call(url.clone(), id)));
    }
    // Once the first calls are waiting on the upstream, ask the server to stop.
    for _ in 0..500 {
        if received.load(Ordering::SeqCst) >= 20 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(
        received.load(Ordering::SeqCst) >= 20,
        "calls reached the upstream"
    );
    let pid = server.id().expect("pid").to_string();
    let status = std::process::Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .expect("kill -TERM");
    assert!(status.success());
    tokio::time::sleep(Duration::from_millis(100)).await;
    for id in 30..50 {
        calls.push(tokio::spawn(slow_call(url.clone(), id)));
    }

    let mut completed = BTreeSet::new();
    let mut refused = BTreeSet::new();
    for call in calls {
        match call.await.expect("call task") {
            (id, Outcome::Completed) => completed.insert(id),
            (id, Outcome::Refused) => refused.insert(id),
        };
    }
    let exit = tokio::time::timeout(Duration::from_secs(30), server.wait())
        .await
        .expect("the server exits")
        .expect("wait");
    assert!(exit.success(), "{exit:?}");
    assert_eq!(completed.len() + refused.len(), 50);
    assert!(
        completed.len() >= 20,
        "the calls under way completed: {completed:?}"
    );
    assert!(
        (30..50).all(|id| refused.contains(&id)),
        "calls after the signal are refused: {refused:?}"
    );

    let audited: BTreeSet<u32> = std::fs::read_to_string(&audit)
        .expect("audit log")
        .lines()
        .map(|line| {
            let record: Value = serde_json::from_str(line).expect("json");
            assert_eq!(record["status"], "ok", "{record}");
            record["request_id"]
                .as_str()
                .and_then(|id| id.parse().ok())
                .expect("a numeric request id")
        })
        .collect();
    assert_eq!(
        audited, completed,
        "every completed call, and only those, is audited"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn json_logs_carry_the_trace_id_of_a_call() {
    let upstream = mcpgen_tests::synaplan_stand_in().await;
    let port = free_port();
    let server = tokio::process::Command::new(workspace_binary("synaplan-mcp"))
        .args([
            "--transport",
            "http",
            "--no-auth",
            "--upstream-url",
            &upstream.url,
        ])
        .args([
            "--listen",
            &format!("127.0.0.1:{port}"),
            "--log-format",
            "json",
        ])
        .env("RUST_LOG", "info")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("server starts");
    let url = format!("http://127.0.0.1:{port}");
    assert!(wait_ready(&format!("{url}/healthz")).await, "server is up");
    let trace_id = "0af7651916cd43dd8448eb211c80319c";
    let body = json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "synaplan_list_prompts", "arguments": {}, "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": {},
            "traceparent": format!("00-{trace_id}-b7ad6b7169203331-01")
        }}
    });
    let answer: Value = reqwest::Client::new()
        .post(format!("{url}/mcp"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", "synaplan_list_prompts")
        .body(body.to_string())
        .send()
        .await
        .expect("request")
        .json()
        .await
        .expect("json");
    assert_ne!(answer["result"]["isError"], true, "{answer}");
    // The trace in `_meta` reached the upstream too.
    let carried = upstream.received()[0]
        .header("traceparent")
        .unwrap_or_default()
        .to_owned();
    assert!(carried.starts_with(&format!("00-{trace_id}-")), "{carried}");

    let pid = server.id().expect("pid").to_string();
    std::process::Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .expect("kill -TERM");
    let out = tokio::time::timeout(Duration::from_secs(30), server.wait_with_output())
        .await
        .expect("the server exits")
        .expect("output");
    let logs = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<Value> = logs
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}")))
        .collect();
    let audit = lines
        .iter()
        .find(|l| l["target"] == "mcpgen::audit")
        .unwrap_or_else(|| panic!("no audit line in {logs}"));
    assert_eq!(audit["span"]["name"], "tool_call", "{audit}");
    assert_eq!(audit["span"]["trace_id"], trace_id, "{audit}");
    assert_eq!(audit["fields"]["trace_id"], trace_id, "{audit}");
}

/// The server's worker threads, by the names the runtime gives them (Linux's `/proc`).
fn worker_threads(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/task"))
        .expect("the server's threads")
        .filter_map(|task| std::fs::read_to_string(task.ok()?.path().join("comm")).ok())
        .filter(|name| name.trim() == "tokio-rt-worker")
        .count()
}

#[tokio::test(flavor = "multi_thread")]
async fn tokio_worker_threads_sets_the_worker_count_and_a_bad_value_stops_the_start() {
    let upstream = mcpgen_tests::synaplan_stand_in().await;
    let args = [
        "--transport",
        "http",
        "--no-auth",
        "--upstream-url",
        &upstream.url,
    ];
    let start = |threads: &str| {
        let port = free_port();
        let server = listening_command("synaplan-mcp", port, &args)
            .env("TOKIO_WORKER_THREADS", threads)
            .stderr(Stdio::piped())
            .spawn()
            .expect("server starts");
        (server, format!("http://127.0.0.1:{port}/healthz"))
    };
    for threads in [1, 3] {
        let (server, healthz) = start(&threads.to_string());
        assert!(wait_ready(&healthz).await, "server with {threads} is up");
        let pid = server.id().expect("pid");
        assert_eq!(
            worker_threads(pid),
            threads,
            "TOKIO_WORKER_THREADS={threads}"
        );
    }
    for bad in ["0", "many"] {
        let (server, _) = start(bad);
        let out = tokio::time::timeout(Duration::from_secs(30), server.wait_with_output())
            .await
            .expect("the server stops")
            .expect("output");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{bad}: {stderr}");
        assert!(
            stderr.contains(&format!(
                "error: TOKIO_WORKER_THREADS must be a number of worker threads from 1 to 1024, \
                 not \"{bad}\""
            )),
            "{bad}: {stderr}"
        );
        assert!(!stderr.contains("panicked"), "{bad}: {stderr}");
    }
}
