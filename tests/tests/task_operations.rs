//! A generated operation that runs long, through the official Python SDK client: the helpdesk
//! server's `helpdesk_build_report` (`POST /projects/{project}/reports`, documented `202` with a
//! `Location`) is a task tool. Against a loopback stand-in whose report answers `202` twice
//! (`Retry-After: 1`) and then `303` to the result, a client that declares the tasks extension
//! (protocol 2026-07-28) gets a task at once, sees it `working` then `completed` with the report
//! checked against its documented schema, and another principal cannot see it. The SDK's claim
//! resolver follows a task to its tool result; cancelling a task that never ends stops the
//! polling and cancels the report at the API (`DELETE` on its status URL, which the spec
//! documents). The official TypeScript SDK client runs the same tool as a task in the
//! 2025-11-25 form (`tasks/get`, `tasks/result`, `tasks/list`, `tasks/cancel`). Then the same client through nginx in front of two replicas (`--replica-name a`
//! and `b`, the book's map): every `tasks/*` request reaches the replica holding its task.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::extract::{Path, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, post};
use mcpgen_tests::{
    KillOnDrop, node_bin, node_file, repo_root, serve_on_loopback, start_listening, start_nginx,
};
use serde_json::{Value, json};

const KEY: &str = "reader-key-0123456789";
const OTHER_KEY: &str = "other-key-0123456789";

/// What the stand-in saw: the paths it was asked for, in order.
#[derive(Clone, Default)]
struct Seen(Arc<Mutex<Vec<String>>>);

impl Seen {
    fn push(&self, path: String) -> usize {
        let mut seen = self.0.lock().unwrap();
        seen.push(path.clone());
        seen.iter().filter(|p| **p == path).count()
    }

    fn count(&self, prefix: &str) -> usize {
        self.0
            .lock()
            .unwrap()
            .iter()
            .filter(|p| p.starts_with(prefix))
            .count()
    }
}

/// `POST /projects/{project}/reports`: accepted, the report's status at `/reports/{project}`.
async fn build(State(seen): State<Seen>, Path(project): Path<String>) -> Response {
    seen.push(format!("POST /projects/{project}/reports"));
    (
        StatusCode::ACCEPTED,
        [(header::LOCATION, format!("../../reports/{project}"))],
    )
        .into_response()
}

/// `GET /reports/{project}`: still working twice, then `303` to the result; `SLOW` never ends.
async fn status(State(seen): State<Seen>, Path(project): Path<String>) -> Response {
    let polls = seen.push(format!("GET /reports/{project}"));
    if project == "SLOW" || polls <= 2 {
        return (StatusCode::ACCEPTED, [(header::RETRY_AFTER, "1")]).into_response();
    }
    (
        StatusCode::SEE_OTHER,
        [(header::LOCATION, format!("/api/reports/{project}/result"))],
    )
        .into_response()
}

/// `DELETE /reports/{project}`: stops building the report.
async fn cancel(State(seen): State<Seen>, Path(project): Path<String>) -> StatusCode {
    seen.push(format!("DELETE /reports/{project}"));
    StatusCode::NO_CONTENT
}

/// `GET /reports/{project}/result`: the report.
async fn result(State(seen): State<Seen>, Path(project): Path<String>) -> Response {
    seen.push(format!("GET /reports/{project}/result"));
    axum::Json(json!({
        "project": project,
        "total": 12,
        "by_status": {"open": 7, "closed": 5},
        "by_priority": {"urgent": 2, "normal": 10}
    }))
    .into_response()
}

async fn stand_in(seen: Seen) -> String {
    let api = Router::new()
        .route("/projects/{project}/reports", post(build))
        .route("/reports/{project}", get(status).merge(delete(cancel)))
        .route("/reports/{project}/result", get(result))
        .with_state(seen);
    let base = serve_on_loopback(Router::new().nest("/api", api))
        .await
        .expect("stand-in serves");
    format!("{base}/api")
}

/// Writes `keys.yaml` into `dir` with two principals, `alice` ([`KEY`]) and `bob`
/// ([`OTHER_KEY`]).
fn keys_file(dir: &std::path::Path) -> String {
    let keys = dir.join("keys.yaml");
    std::fs::write(
        &keys,
        format!(
            "keys:\n  - id: reader\n    key: {KEY}\n    principal: alice\n    scopes: ['mcp:*']\n  \
             - id: other\n    key: {OTHER_KEY}\n    principal: bob\n    scopes: ['mcp:*']\n"
        ),
    )
    .expect("write keys");
    keys.to_str().expect("utf8").to_owned()
}

/// A stand-in API and what it sees, and the keys file of [`keys_file`] in a folder kept for
/// the test (nginx's files go there too).
async fn stand_in_and_keys() -> (Seen, String, tempfile::TempDir, String) {
    let seen = Seen::default();
    let upstream = stand_in(seen.clone()).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let keys = keys_file(dir.path());
    (seen, upstream, dir, keys)
}

/// Starts `helpdesk-mcp` over Streamable HTTP against `upstream` with the keys of
/// [`keys_file`] and `extra` flags.
async fn start_helpdesk(upstream: &str, keys: &str, extra: &[&str]) -> (KillOnDrop, String) {
    let mut args = vec![
        "--transport",
        "http",
        "--upstream-url",
        upstream,
        "--keys",
        keys,
        "--task-poll-max-interval",
        "1",
    ];
    args.extend_from_slice(extra);
    start_listening("helpdesk-mcp", &args).await
}

/// What the client `script` (run by `interpreter`, an official SDK's client named `who`)
/// printed last, run against `{url}/mcp` with both keys, the report tool and its arguments.
async fn client_report(interpreter: PathBuf, script: PathBuf, who: &str, url: &str) -> Value {
    let out = tokio::time::timeout(
        Duration::from_secs(120),
        tokio::process::Command::new(interpreter)
            .arg(script)
            .args([
                &format!("{url}/mcp"),
                KEY,
                OTHER_KEY,
                "helpdesk_build_report",
                r#"{"project": "CORE"}"#,
                r#"{"project": "SLOW"}"#,
            ])
            .kill_on_drop(true)
            .output(),
    )
    .await
    .unwrap_or_else(|_| panic!("the {who} client finishes within 120 s"))
    .unwrap_or_else(|e| panic!("the {who} client runs: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(stdout.lines().last().unwrap_or_default()).unwrap_or_else(|_| {
        panic!(
            "the {who} client printed no JSON line (status {}):\n{stdout}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// What `task_calls.py` (the official Python client) printed, run against `{url}/mcp`.
async fn python_task_calls(url: &str) -> Value {
    let python = repo_root().join("tests/python/.venv/bin/python");
    let script = repo_root().join("tests/python/task_calls.py");
    client_report(python, script, "Python", url).await
}

/// The report the stand-in gives for `project`.
fn report_of(project: &str) -> Value {
    json!({
        "project": project,
        "total": 12,
        "by_status": {"open": 7, "closed": 5},
        "by_priority": {"urgent": 2, "normal": 10}
    })
}

/// Checks what `task_calls.py` printed: a task at once, working then completed with the
/// report, hidden from the other principal, followed by the claim's resolver, cancelled.
fn check_report(report: &Value) {
    assert_eq!(report["created"]["resultType"], "task", "{report}");
    assert_eq!(report["created"]["status"], "working", "{report}");
    let statuses: Vec<&str> = report["statuses"]
        .as_array()
        .expect("statuses")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(statuses.first(), Some(&"working"), "{report}");
    assert_eq!(statuses.last(), Some(&"completed"), "{report}");
    let final_result = &report["final"]["result"];
    assert_eq!(
        final_result["structuredContent"],
        report_of("CORE"),
        "{report}"
    );
    assert_ne!(final_result["isError"], true, "{report}");
    // The claim's resolver gives the same report, as a tool result.
    assert_eq!(
        report["followed"]["structuredContent"],
        report_of("CORE"),
        "{report}"
    );
    // Another principal does not see the task.
    let other = report["other"].as_str().expect("other");
    assert!(!other.starts_with("answered"), "{report}");
    // Cancelled: acknowledged, and the task says so.
    assert!(report["cancel"].is_object(), "{report}");
    assert_eq!(report["after_cancel"]["status"], "cancelled", "{report}");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_official_python_client_follows_a_generated_operation_that_runs_long() {
    let (seen, upstream, _dir, keys) = stand_in_and_keys().await;
    let (_server, url) = start_helpdesk(&upstream, &keys, &[]).await;
    let report = python_task_calls(&url).await;
    check_report(&report);
    // The status URL was polled until it led to the result, which was fetched once per task.
    assert_eq!(seen.count("POST /projects/CORE/reports"), 2);
    assert_eq!(seen.count("GET /reports/CORE/result"), 2);
    assert!(seen.count("GET /reports/CORE") >= 4, "{:?}", seen.0);
    // The cancel reached the API; no poll of the cancelled report after it.
    assert_eq!(seen.count("DELETE /reports/SLOW"), 1, "{:?}", seen.0);
    assert_eq!(seen.count("DELETE /reports/CORE"), 0, "{:?}", seen.0);
    let polls = seen.count("GET /reports/SLOW");
    tokio::time::sleep(Duration::from_millis(2500)).await;
    assert_eq!(
        seen.count("GET /reports/SLOW"),
        polls,
        "no poll after the cancel"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn behind_nginx_each_task_request_reaches_the_replica_that_holds_the_task() {
    let (_seen, upstream, dir, keys) = stand_in_and_keys().await;
    let (_a, a) = start_helpdesk(&upstream, &keys, &["--replica-name", "a"]).await;
    let (_b, b) = start_helpdesk(&upstream, &keys, &["--replica-name", "b"]).await;
    let (_nginx, port) = start_nginx(
        dir.path(),
        a.trim_start_matches("http://"),
        b.trim_start_matches("http://"),
    )
    .await;
    // Every request without a task id goes round robin, so the calls that start the tasks
    // land on either replica; every tasks/* request must still find its task.
    let report = python_task_calls(&format!("http://127.0.0.1:{port}")).await;
    check_report(&report);
    let id = report["created"]["taskId"].as_str().expect("a task id");
    assert!(id.starts_with("a.") || id.starts_with("b."), "{id}");
}

/// The same operation through the official TypeScript SDK client, which speaks the tasks of the
/// 2025-11-25 revision over a session (`tests/node/tasks-2025.mjs`): the server declares the
/// `tasks` capability and the tool's `execution.taskSupport`, a `tools/call` with `task` is
/// answered with a task at once, `tasks/get` shows it `working` then `completed`, `tasks/result`
/// gives the report, `tasks/list` lists it to its owner only, another principal's `tasks/get`
/// is refused, and `tasks/cancel` stops the polling and cancels the report at the API (a second
/// cancel is refused).
#[tokio::test(flavor = "multi_thread")]
async fn the_official_typescript_client_runs_a_generated_operation_as_a_2025_11_25_task() {
    let (seen, upstream, _dir, keys) = stand_in_and_keys().await;
    let (_server, url) = start_helpdesk(&upstream, &keys, &[]).await;
    let report = client_report(
        node_bin("node"),
        node_file("tasks-2025.mjs"),
        "TypeScript",
        &url,
    )
    .await;
    assert_eq!(report["ok"], true, "{report}");

    // The 2025-11-25 declarations.
    assert_eq!(report["protocolVersion"], "2025-11-25", "{report}");
    assert_eq!(
        report["capabilities"]["tasks"],
        json!({"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}),
        "{report}"
    );
    assert_eq!(
        report["execution"],
        json!({"taskSupport": "optional"}),
        "{report}"
    );

    // A task first, working, then completed with the report.
    let stream = report["stream"].as_array().expect("stream");
    let created = &stream[0];
    assert_eq!(created["type"], "taskCreated", "{report}");
    assert_eq!(created["task"]["status"], "working", "{report}");
    assert_eq!(created["task"]["ttl"], 3_600_000, "{report}");
    let statuses: Vec<&str> = stream
        .iter()
        .filter(|m| m["type"] == "taskStatus")
        .filter_map(|m| m["status"].as_str())
        .collect();
    assert_eq!(statuses.first(), Some(&"working"), "{report}");
    assert_eq!(statuses.last(), Some(&"completed"), "{report}");
    let expected = report_of("CORE");
    let last = stream.last().expect("a last message");
    assert_eq!(last["type"], "result", "{report}");
    assert_eq!(last["result"]["structuredContent"], expected, "{report}");

    // The task read again: completed; its result names it; listed to its owner.
    let task_id = report["taskId"].as_str().expect("task id");
    assert_eq!(report["get"]["status"], "completed", "{report}");
    assert_eq!(report["get"]["taskId"], task_id, "{report}");
    assert_eq!(report["result"]["structuredContent"], expected, "{report}");
    assert_eq!(
        report["result"]["_meta"]["io.modelcontextprotocol/related-task"]["taskId"], task_id,
        "{report}"
    );
    let listed: Vec<&str> = report["list"]["tasks"]
        .as_array()
        .expect("tasks")
        .iter()
        .filter_map(|t| t["taskId"].as_str())
        .collect();
    assert!(listed.contains(&task_id), "{report}");
    // Without `task`, the same tool is a plain call.
    assert_eq!(report["plain"]["structuredContent"], expected, "{report}");

    // Another principal: no such task, an empty list.
    assert!(report["otherGet"]["error"].is_string(), "{report}");
    assert_eq!(report["otherGet"]["code"], -32602, "{report}");
    assert_eq!(report["otherList"]["tasks"], json!([]), "{report}");

    // Cancelled: the task says so, a second cancel is refused, tasks/result is an error, and
    // the status URL is polled no more.
    assert_eq!(report["slowBefore"]["status"], "working", "{report}");
    assert_eq!(report["cancel"]["status"], "cancelled", "{report}");
    assert_eq!(report["afterCancel"]["status"], "cancelled", "{report}");
    assert_eq!(report["cancelAgain"]["code"], -32602, "{report}");
    assert!(report["slowResult"]["error"].is_string(), "{report}");
    assert_eq!(seen.count("DELETE /reports/SLOW"), 1, "{:?}", seen.0);
    let polls = seen.count("GET /reports/SLOW");
    tokio::time::sleep(Duration::from_millis(2500)).await;
    assert_eq!(
        seen.count("GET /reports/SLOW"),
        polls,
        "no poll after the cancel"
    );
}
