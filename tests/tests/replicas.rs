//! Two replicas of the generated Synaplan server behind a real nginx (from the system's
//! packages, started here as a child process on loopback), driven by the official Python SDK
//! client: 1,000 calls in the stateless 2026-07-28 era, balanced round robin over both
//! replicas, and 1,000 calls in the session era, where each replica names its session ids
//! (`--replica-name`) and nginx routes a session's requests on that prefix. Each replica
//! writes its own audit file, so the audit records say which replica served each call.

use std::path::Path;
use std::time::Duration;

use mcpgen_tests::{
    admin_keys_file, python_bin, repo_root, start_nginx, start_synaplan_http, synaplan_stand_in,
};
use serde_json::Value;

pub(crate) const TOOL: &str = "synaplan_list_prompts";
pub(crate) const KEY: &str = "admin-key-0123456789";

/// `clients` official Python clients, side by side, each making `calls` calls of [`TOOL`]
/// through `url` in `era` (`stateless` or `session`); what `replica_calls.py` printed.
pub(crate) async fn python_calls(url: &str, era: &str, clients: u32, calls: u32) -> Value {
    let out = tokio::time::timeout(
        Duration::from_secs(120),
        tokio::process::Command::new(python_bin("python"))
            .arg(repo_root().join("tests/python/replica_calls.py"))
            .args([url, era, &clients.to_string(), &calls.to_string(), TOOL])
            .arg(format!("X-API-Key={KEY}"))
            .kill_on_drop(true)
            .output(),
    )
    .await
    .expect("the Python clients finish within 120 s")
    .expect("the Python client runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(stdout.lines().last().unwrap_or_default()).unwrap_or_else(|_| {
        panic!(
            "the Python client printed no JSON line ({era}, status {}):\n{stdout}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// One call of [`TOOL`] by the official Python client over legacy HTTP+SSE through nginx on
/// `port`, which must be answered within 30 s (a message that reaches no replica holding its
/// stream is never answered on the stream).
pub(crate) async fn legacy_sse_call(port: u16) {
    let run = tokio::process::Command::new(python_bin("python"))
        .arg(repo_root().join("tests/python/call_tool.py"))
        .args(["sse", TOOL, "{}", &format!("http://127.0.0.1:{port}/sse")])
        .arg(format!("X-API-Key={KEY}"))
        .kill_on_drop(true)
        .output();
    let out = tokio::time::timeout(Duration::from_secs(30), run)
        .await
        .expect("the legacy SSE call is answered within 30 s")
        .expect("the Python client runs");
    let printed = String::from_utf8_lossy(&out.stdout);
    assert!(
        printed.contains(r#""ok": true"#) && printed.contains(r#""isError": false"#),
        "a legacy SSE call through nginx: {printed}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Successful calls of [`TOOL`] in the audit file at `path`.
pub(crate) fn audited_ok(path: &Path) -> usize {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|record| record["tool"] == TOOL && record["status"] == "ok")
        .count()
}

/// The successful calls audited by replicas `a` and `b`, once they add up to `total` (the
/// audit is written in batches); at most ten seconds.
async fn audited(a: &Path, b: &Path, total: usize) -> (usize, usize) {
    let mut counts = (0, 0);
    for _ in 0..100 {
        counts = (audited_ok(a), audited_ok(b));
        if counts.0 + counts.1 >= total {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    counts
}

#[tokio::test(flavor = "multi_thread")]
async fn two_replicas_behind_nginx_serve_both_eras_without_a_failure() {
    let upstream = synaplan_stand_in().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let keys = admin_keys_file(dir.path());
    let keys = keys.to_str().expect("utf8");
    let audit_a = dir.path().join("a.jsonl");
    let audit_b = dir.path().join("b.jsonl");
    let replica = |name: &'static str, audit: &Path| {
        let audit = audit.to_str().expect("utf8").to_owned();
        let url = upstream.url.clone();
        async move {
            start_synaplan_http(
                &url,
                &[
                    "--keys",
                    keys,
                    "--replica-name",
                    name,
                    "--audit-log",
                    &audit,
                ],
            )
            .await
        }
    };
    let (_a, url_a) = replica("a", &audit_a).await;
    let (_b, url_b) = replica("b", &audit_b).await;
    let nginx_dir = dir.path().join("nginx");
    std::fs::create_dir(&nginx_dir).expect("nginx folder");
    let (_nginx, port) = start_nginx(
        &nginx_dir,
        url_a.trim_start_matches("http://"),
        url_b.trim_start_matches("http://"),
    )
    .await;
    let url = format!("http://127.0.0.1:{port}/mcp");

    // Stateless: no session, every request on whichever replica nginx picks.
    let stateless = python_calls(&url, "stateless", 10, 100).await;
    assert_eq!(stateless["failed"], 0, "{stateless}");
    assert_eq!(stateless["ok"], 1000, "{stateless}");
    assert_eq!(stateless["versions"], serde_json::json!(["2026-07-28"]));
    assert_eq!(stateless["sessions"], serde_json::json!([]), "{stateless}");
    let (a, b) = audited(&audit_a, &audit_b, 1000).await;
    assert_eq!(a + b, 1000, "one audit record per stateless call");
    assert!(
        a >= 300 && b >= 300,
        "each replica serves at least 30% of the stateless calls: a {a}, b {b}"
    );

    // Sessions: opened round robin on either replica, then routed on their id's prefix.
    let session = python_calls(&url, "session", 10, 100).await;
    assert_eq!(session["failed"], 0, "{session}");
    assert_eq!(session["ok"], 1000, "{session}");
    let ids: Vec<&str> = session["sessions"]
        .as_array()
        .expect("session ids")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(ids.len(), 10, "one session per client: {ids:?}");
    assert!(
        !session["versions"].to_string().contains("2026-07-28"),
        "the session era: {session}"
    );
    assert!(
        ids.iter().any(|id| id.starts_with("a.")) && ids.iter().any(|id| id.starts_with("b.")),
        "sessions on both replicas, named by them: {ids:?}"
    );
    let (a_total, b_total) = audited(&audit_a, &audit_b, 2000).await;
    assert_eq!(a_total + b_total, 2000, "one audit record per call");
    let per_session = 100;
    let on_a = ids.iter().filter(|id| id.starts_with("a.")).count();
    assert_eq!(
        (a_total - a, b_total - b),
        (on_a * per_session, (ids.len() - on_a) * per_session),
        "every call of a session is served by the replica its id names"
    );

    // Legacy HTTP+SSE: the `sessionId` of the message URL names the replica too. Two
    // streams, opened round robin, one on each replica.
    for _ in 0..2 {
        legacy_sse_call(port).await;
    }
    let (a_sse, b_sse) = audited(&audit_a, &audit_b, 2002).await;
    assert_eq!(
        (a_sse - a_total, b_sse - b_total),
        (1, 1),
        "one legacy SSE session on each replica"
    );
}

#[tokio::test]
async fn a_replica_name_that_cannot_start_a_session_id_stops_the_start() {
    let out = tokio::process::Command::new(mcpgen_tests::workspace_binary("synaplan-mcp"))
        .args([
            "--transport",
            "http",
            "--no-auth",
            "--listen",
            "127.0.0.1:0",
        ])
        .args([
            "--upstream-url",
            "http://127.0.0.1:9",
            "--replica-name",
            "a.b",
        ])
        .kill_on_drop(true)
        .output()
        .await
        .expect("runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "started with a bad replica name");
    assert!(
        stderr.contains("--replica-name") && stderr.contains("letters, digits"),
        "the message names the flag and the fix: {stderr}"
    );
}
