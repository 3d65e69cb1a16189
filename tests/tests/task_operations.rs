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
//!
//! Bounds, against a stand-in that can be made hostile: one principal at
//! `--tasks-max-per-principal` leaves room for another; 300 tasks with 1 MB results stay within
//! `--tasks-results-max-bytes` (the server's VmRSS within the budget plus 50 MB), the oldest
//! expiring first, and listing them does not hold up a `tasks/get`; an allowed other origin
//! that redirects polling back to the API's own origin gets neither the credential nor the
//! API's answer.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, post};
use mcpgen_tests::{
    KillOnDrop, node_bin, node_file, repo_root, serve_on_loopback, start_listening, start_nginx,
};
use serde_json::{Value, json};

pub(crate) const KEY: &str = "reader-key-0123456789";
pub(crate) const OTHER_KEY: &str = "other-key-0123456789";

/// What the stand-in saw: the paths it was asked for, in order.
#[derive(Clone, Default)]
pub(crate) struct Seen(Arc<Mutex<Vec<String>>>);

impl Seen {
    fn push(&self, path: String) -> usize {
        let mut seen = self.0.lock().unwrap();
        seen.push(path.clone());
        seen.iter().filter(|p| **p == path).count()
    }

    pub(crate) fn count(&self, prefix: &str) -> usize {
        self.0
            .lock()
            .unwrap()
            .iter()
            .filter(|p| p.starts_with(prefix))
            .count()
    }
}

/// `POST /projects/{project}/reports`: accepted, the report's status at `/reports/{project}`;
/// `HANG` is not answered for two minutes.
async fn build(State(seen): State<Seen>, Path(project): Path<String>) -> Response {
    seen.push(format!("POST /projects/{project}/reports"));
    if project == "HANG" {
        tokio::time::sleep(Duration::from_secs(120)).await;
    }
    (
        StatusCode::ACCEPTED,
        [(header::LOCATION, format!("../../reports/{project}"))],
    )
        .into_response()
}

/// `GET /reports/{project}`: still working twice (`LONG…`: twelve times), then `303` to the
/// result; `SLOW` never ends.
async fn status(State(seen): State<Seen>, Path(project): Path<String>) -> Response {
    let polls = seen.push(format!("GET /reports/{project}"));
    if project == "SLOW" || polls <= 2 || (project.starts_with("LONG") && polls <= 12) {
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
pub(crate) async fn stand_in_and_keys() -> (Seen, String, tempfile::TempDir, String) {
    let seen = Seen::default();
    let upstream = stand_in(seen.clone()).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let keys = keys_file(dir.path());
    (seen, upstream, dir, keys)
}

/// Starts `helpdesk-mcp` over Streamable HTTP against `upstream` with the keys of
/// [`keys_file`] and `extra` flags.
pub(crate) async fn start_helpdesk(
    upstream: &str,
    keys: &str,
    extra: &[&str],
) -> (KillOnDrop, String) {
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
pub(crate) fn report_of(project: &str) -> Value {
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

// ---------------------------------------------------------------------------------------------
// Bounds, against a stand-in that can be made hostile.

/// The key the server sends the API (`--upstream-api-key`); it must not reach another origin.
const UPSTREAM_KEY: &str = "upstream-key-9f2e";

/// The size of the `notes` of a `BIG…` report: 1 MB, under the 1 MiB response cap.
const BIG_NOTES: usize = 1_000_000;

/// The hostile stand-in: the API (its requests, with their headers) and another origin.
#[derive(Clone, Default)]
struct Hostile {
    /// Requests seen by either, as `origin-name path` with their headers.
    seen: Arc<Mutex<Vec<(String, HeaderMap)>>>,
    /// The other origin's base URL, for the API's `Location`s; the API's, for the other's.
    other: Arc<Mutex<String>>,
    api: Arc<Mutex<String>>,
}

impl Hostile {
    fn record(&self, what: String, headers: &HeaderMap) {
        self.seen.lock().unwrap().push((what, headers.clone()));
    }

    fn requests(&self, prefix: &str) -> Vec<HeaderMap> {
        self.seen
            .lock()
            .unwrap()
            .iter()
            .filter(|(what, _)| what.starts_with(prefix))
            .map(|(_, headers)| headers.clone())
            .collect()
    }
}

/// `POST /projects/{project}/reports`: `BIG…` answers at once with a 1 MB report, `AWAY` is
/// accepted with its status on the other origin, anything else never ends.
async fn hostile_build(
    State(api): State<Hostile>,
    Path(project): Path<String>,
    headers: HeaderMap,
) -> Response {
    api.record(format!("api POST /projects/{project}/reports"), &headers);
    if project.starts_with("BIG") {
        let mut report = report_of(&project);
        report["notes"] = Value::from("n".repeat(BIG_NOTES));
        return axum::Json(report).into_response();
    }
    let location = if project == "AWAY" {
        format!("{}/status/AWAY", api.other.lock().unwrap())
    } else {
        format!("../../reports/{project}")
    };
    (StatusCode::ACCEPTED, [(header::LOCATION, location)]).into_response()
}

/// `GET /reports/{project}`: still working.
async fn hostile_status(State(api): State<Hostile>, Path(project): Path<String>) -> Response {
    api.record(format!("api GET /reports/{project}"), &HeaderMap::new());
    (StatusCode::ACCEPTED, [(header::RETRY_AFTER, "1")]).into_response()
}

/// `GET /users`: what a credentialed request steered here would get.
async fn hostile_users(State(api): State<Hostile>, headers: HeaderMap) -> Response {
    api.record("api GET /users".to_owned(), &headers);
    axum::Json(json!([{"id": 1, "email": "ada@example.com"}])).into_response()
}

/// The other origin's `GET /status/{project}`: done, "the result is at" the API's user list.
async fn other_status(
    State(api): State<Hostile>,
    Path(project): Path<String>,
    headers: HeaderMap,
) -> Response {
    api.record(format!("other GET /status/{project}"), &headers);
    let location = format!("{}/users?leak=1", api.api.lock().unwrap());
    (StatusCode::SEE_OTHER, [(header::LOCATION, location)]).into_response()
}

/// The hostile stand-in started: the API's base URL (with `/api`) and the other origin's.
async fn hostile_stand_in() -> (Hostile, String, String) {
    let hostile = Hostile::default();
    let other = serve_on_loopback(
        Router::new()
            .route("/status/{project}", get(other_status))
            .with_state(hostile.clone()),
    )
    .await
    .expect("the other origin serves");
    let api = Router::new()
        .route("/projects/{project}/reports", post(hostile_build))
        .route(
            "/reports/{project}",
            get(hostile_status).merge(delete(|| async { StatusCode::NO_CONTENT })),
        )
        .route("/users", get(hostile_users))
        .with_state(hostile.clone());
    let base = serve_on_loopback(Router::new().nest("/api", api))
        .await
        .expect("the stand-in serves");
    let api = format!("{base}/api");
    *hostile.other.lock().unwrap() = other.clone();
    *hostile.api.lock().unwrap() = api.clone();
    (hostile, api, other)
}

/// The JSON-RPC message of an answer: the JSON body, or the last `data:` of an SSE one.
fn message_of(body: &str) -> Value {
    serde_json::from_str(body)
        .ok()
        .or_else(|| {
            body.lines()
                .filter_map(|line| line.strip_prefix("data:"))
                .filter_map(|data| serde_json::from_str(data.trim()).ok())
                .next_back()
        })
        .unwrap_or(Value::Null)
}

/// POSTs `body` to `{url}/mcp` as the holder of `key` with `headers`; the answer's message and
/// its session id, if it opened one.
async fn post_mcp(
    url: &str,
    key: &str,
    headers: &[(&str, &str)],
    body: &Value,
) -> (Value, Option<String>) {
    // One client, its connections kept: what is timed is the server's answer.
    static CLIENT: std::sync::OnceLock<reqwest::Client> = std::sync::OnceLock::new();
    let mut request = CLIENT
        .get_or_init(reqwest::Client::new)
        .post(format!("{url}/mcp"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("x-api-key", key);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request
        .body(body.to_string())
        .send()
        .await
        .expect("the server answers");
    let session = response
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    (message_of(&response.text().await.expect("a body")), session)
}

/// A stateless 2026-07-28 request of `method` naming `name`, from a client that declared
/// the tasks extension (or not).
pub(crate) async fn stateless(
    url: &str,
    key: &str,
    method: &str,
    name: &str,
    params: Value,
) -> Value {
    let mut params = params;
    let tasks = if method == "tools/call" && params["_tasks"] == false {
        json!({})
    } else {
        json!({"extensions": {"io.modelcontextprotocol/tasks": {}}})
    };
    if let Some(params) = params.as_object_mut() {
        params.remove("_tasks");
        params.insert(
            "_meta".into(),
            json!({
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
                "io.modelcontextprotocol/clientCapabilities": tasks,
            }),
        );
    }
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let headers = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", method),
        ("mcp-name", name),
    ];
    post_mcp(url, key, &headers, &body).await.0
}

/// Starts the report of `project` as a task of the holder of `key`: the answer.
pub(crate) async fn start_report(url: &str, key: &str, project: &str) -> Value {
    let params = json!({"name": "helpdesk_build_report", "arguments": {"project": project}});
    stateless(url, key, "tools/call", "helpdesk_build_report", params).await
}

#[tokio::test(flavor = "multi_thread")]
async fn one_principal_at_its_task_limit_leaves_room_for_another() {
    let (_hostile, api, _other) = hostile_stand_in().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let keys = keys_file(dir.path());
    let flags = ["--tasks-max", "3", "--tasks-max-per-principal", "2"];
    let (_server, url) = start_helpdesk(&api, &keys, &flags).await;
    let mut mine = Vec::new();
    for _ in 0..2 {
        let answer = start_report(&url, KEY, "SLOW").await;
        assert_eq!(answer["result"]["resultType"], "task", "{answer}");
        mine.push(answer["result"]["taskId"].as_str().expect("id").to_owned());
    }
    let refused = start_report(&url, KEY, "SLOW").await;
    assert_eq!(refused["result"]["isError"], true, "{refused}");
    let text = refused["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(text.contains("--tasks-max-per-principal"), "{text}");

    let theirs = start_report(&url, OTHER_KEY, "SLOW").await;
    assert_eq!(theirs["result"]["resultType"], "task", "{theirs}");

    // A cancelled task no longer counts.
    let cancelled = stateless(
        &url,
        KEY,
        "tasks/cancel",
        &mine[0],
        json!({"taskId": mine[0]}),
    )
    .await;
    assert!(cancelled.get("error").is_none(), "{cancelled}");
    let again = start_report(&url, KEY, "SLOW").await;
    assert_eq!(again["result"]["resultType"], "task", "{again}");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_allowed_origin_that_redirects_back_to_the_api_gets_no_credential_and_no_result() {
    let (hostile, api, other) = hostile_stand_in().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let keys = keys_file(dir.path());
    let flags = [
        "--upstream-api-key",
        UPSTREAM_KEY,
        "--task-follow-origin",
        &other,
    ];
    let (_server, url) = start_helpdesk(&api, &keys, &flags).await;
    let params = json!({"name": "helpdesk_build_report", "arguments": {"project": "AWAY"},
        "_tasks": false});
    let answer = tokio::time::timeout(
        Duration::from_secs(30),
        stateless(&url, KEY, "tools/call", "helpdesk_build_report", params),
    )
    .await
    .expect("answered in time");
    let result = &answer["result"];
    assert_eq!(result["isError"], true, "{answer}");
    assert!(result.get("structuredContent").is_none(), "{answer}");
    let text = result["content"][0]["text"].as_str().unwrap_or_default();
    assert!(!text.contains("ada@example.com"), "{text}");
    assert!(text.contains("--task-follow-origin"), "{text}");
    assert!(text.contains(&format!("{api}/users")), "{text}");

    // The operation's own request carried the key; the other origin was polled without it,
    // and the API's user list was never asked for.
    let started = hostile.requests("api POST /projects/AWAY/reports");
    assert_eq!(started.len(), 1);
    assert_eq!(
        started[0].get("x-api-key").and_then(|v| v.to_str().ok()),
        Some(UPSTREAM_KEY)
    );
    let polled = hostile.requests("other GET /status/AWAY");
    assert_eq!(polled.len(), 1);
    for name in ["x-api-key", "authorization", "cookie"] {
        assert!(polled[0].get(name).is_none(), "{name}: {:?}", polled[0]);
    }
    assert!(hostile.requests("api GET /users").is_empty());
}

/// The resident memory of process `pid`, in bytes (VmRSS).
fn rss(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("/proc status");
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| {
            rest.trim()
                .trim_end_matches("kB")
                .trim()
                .parse::<u64>()
                .ok()
        })
        .expect("VmRSS")
        * 1024
}

/// A 2025-11-25 session opened as the holder of `key`: its id.
async fn session_2025(url: &str, key: &str) -> String {
    let body = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"}}});
    let (initialized, session) = post_mcp(url, key, &[], &body).await;
    assert_eq!(
        initialized["result"]["protocolVersion"], "2025-11-25",
        "{initialized}"
    );
    let session = session.expect("a session id");
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    rpc_2025_raw(url, key, &session, &note).await;
    session
}

async fn rpc_2025_raw(url: &str, key: &str, session: &str, body: &Value) -> Value {
    let headers = [
        ("mcp-session-id", session),
        ("mcp-protocol-version", "2025-11-25"),
    ];
    post_mcp(url, key, &headers, body).await.0
}

async fn rpc_2025(url: &str, key: &str, session: &str, method: &str, params: Value) -> Value {
    let body = json!({"jsonrpc": "2.0", "id": 9, "method": method, "params": params});
    rpc_2025_raw(url, key, session, &body).await
}

/// Runs the report of `project` as a 2025-11-25 task on `session` and waits for its end.
async fn big_task(url: &str, session: &str, project: String) -> String {
    let params = json!({"name": "helpdesk_build_report", "arguments": {"project": project},
        "task": {}});
    let created = rpc_2025(url, KEY, session, "tools/call", params).await;
    let id = created["result"]["task"]["taskId"]
        .as_str()
        .unwrap_or_else(|| panic!("a task: {created}"))
        .to_owned();
    for _ in 0..1000 {
        let got = rpc_2025(url, KEY, session, "tasks/get", json!({"taskId": id})).await;
        match got["result"]["status"].as_str() {
            Some("working") => tokio::time::sleep(Duration::from_millis(20)).await,
            Some("completed") => return id,
            // It ended, and its result may already have made room for later ones.
            None if got["error"]["message"]
                .as_str()
                .is_some_and(|m| m.contains("expired")) =>
            {
                return id;
            }
            _ => panic!("task {id}: {got}"),
        }
    }
    panic!("task {id} did not end within 20 s");
}

#[tokio::test(flavor = "multi_thread")]
async fn three_hundred_tasks_of_1_mb_stay_within_the_results_budget_and_listing_them_holds_up_nothing()
 {
    // The figure asked for: 300 results of 1 MB under a 64 MiB budget, and the server's
    // memory within the budget plus 50 MB of what it held idle, while they run and after.
    const BUDGET: u64 = 64 * 1024 * 1024;
    const SLACK: u64 = 50 * 1000 * 1000;
    let (_hostile, api, _other) = hostile_stand_in().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let keys = keys_file(dir.path());
    let budget = BUDGET.to_string();
    let flags = [
        "--tasks-max",
        "400",
        "--tasks-max-per-principal",
        "400",
        "--tasks-results-max-bytes",
        &budget,
    ];
    let (server, url) = start_helpdesk(&api, &keys, &flags).await;
    let pid = server.0.id().expect("a pid");
    let session = session_2025(&url, KEY).await;
    // Warm: one task run, so that what is measured is what the tasks keep.
    big_task(&url, &session, "BIG-warm".to_owned()).await;
    let idle = rss(pid);

    let mut ids = Vec::new();
    let mut highest = idle;
    // Five at a time: what is measured is what the table keeps, not many answers in flight.
    for batch in 0..60 {
        let started: Vec<_> = (0..5)
            .map(|i| {
                let (url, session) = (url.clone(), session.clone());
                tokio::spawn(
                    async move { big_task(&url, &session, format!("BIG-{batch}-{i}")).await },
                )
            })
            .collect();
        for task in started {
            ids.push(task.await.expect("the task runs"));
        }
        highest = highest.max(rss(pid));
    }
    let after = rss(pid);
    eprintln!(
        "300 tasks of 1 MB: VmRSS {} MB idle, {} MB at most as they ran, {} MB after ({} MB \
         more; budget {} MB)",
        idle / 1_000_000,
        highest / 1_000_000,
        after / 1_000_000,
        after.saturating_sub(idle) / 1_000_000,
        BUDGET / 1_000_000
    );
    assert!(
        highest.saturating_sub(idle) <= BUDGET + SLACK,
        "VmRSS grew from {idle} to {highest} bytes, past the {BUDGET}-byte budget plus {SLACK}"
    );

    // The oldest results went first; the last ones are kept.
    let first = rpc_2025(
        &url,
        KEY,
        &session,
        "tasks/result",
        json!({"taskId": ids[0]}),
    )
    .await;
    let message = first["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("expired"), "{first}");
    let got = rpc_2025(&url, KEY, &session, "tasks/get", json!({"taskId": ids[0]})).await;
    assert!(
        got["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("expired")),
        "{got}"
    );
    let last = ids.last().expect("ids").clone();
    let kept = rpc_2025(&url, KEY, &session, "tasks/result", json!({"taskId": last})).await;
    let notes = kept["result"]["structuredContent"]["notes"]
        .as_str()
        .unwrap_or_default();
    assert_eq!(notes.len(), BIG_NOTES, "the last result is kept");

    // All 300 (and the warm one) are listed, page by page, to their owner.
    let list_all = |url: String, session: String| async move {
        let mut cursor: Option<String> = None;
        let mut listed = 0;
        loop {
            let params = cursor.map_or(json!({}), |c| json!({"cursor": c}));
            let page = rpc_2025(&url, KEY, &session, "tasks/list", params).await;
            listed += page["result"]["tasks"].as_array().map_or(0, Vec::len);
            match page["result"]["nextCursor"].as_str() {
                Some(next) => cursor = Some(next.to_owned()),
                None => return listed,
            }
        }
    };
    assert_eq!(list_all(url.clone(), session.clone()).await, 301);

    // A tasks/get alone, then while 16 clients list every task over and over.
    let get_once = |url: String, session: String, id: String| async move {
        let started = std::time::Instant::now();
        let got = rpc_2025(&url, KEY, &session, "tasks/get", json!({"taskId": id})).await;
        assert_eq!(got["result"]["status"], "completed", "{got}");
        started.elapsed()
    };
    let mut alone = Vec::new();
    for _ in 0..20 {
        alone.push(get_once(url.clone(), session.clone(), last.clone()).await);
    }
    // Gets while `listers` clients list every task over and over: sorted durations.
    let while_listing = |listers: usize| {
        let (url, session, last) = (url.clone(), session.clone(), last.clone());
        async move {
            let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
            let running: Vec<_> = (0..listers)
                .map(|_| {
                    let (url, session, stop) = (url.clone(), session.clone(), stop.clone());
                    tokio::spawn(async move {
                        while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                            list_all(url.clone(), session.clone()).await;
                        }
                    })
                })
                .collect();
            tokio::time::sleep(Duration::from_millis(200)).await;
            let mut took = Vec::new();
            for _ in 0..20 {
                took.push(get_once(url.clone(), session.clone(), last.clone()).await);
            }
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
            for lister in running {
                lister.await.expect("the lists run");
            }
            took.sort();
            took
        }
    };
    let one = while_listing(1).await;
    let sixteen = while_listing(16).await;
    let peak = rss(pid);
    alone.sort();
    let alone_p50 = alone[10];
    eprintln!(
        "tasks/get: {alone_p50:?} median alone; while 1 client lists 301 tasks: {:?} median, \
         {:?} at most; while 16 do: {:?} median, {:?} at most; VmRSS then {} MB",
        one[10],
        one[19],
        sixteen[10],
        sixteen[19],
        peak / 1_000_000
    );
    assert!(
        peak.saturating_sub(idle) <= BUDGET + SLACK,
        "VmRSS while listing grew from {idle} to {peak} bytes"
    );
    // The figure asked for: a list does not delay a get by more than 50 ms. Sixteen lists at
    // once on a small machine compete for its cores, not for the table: they are held to a
    // wider bound (a list that held the table's lock as it wrote 300 results took seconds).
    assert!(
        one[10] <= alone_p50 + Duration::from_millis(50),
        "a tasks/get took {:?} (median) while a list ran, {alone_p50:?} alone",
        one[10]
    );
    assert!(
        sixteen[10] <= alone_p50 + Duration::from_millis(500),
        "a tasks/get took {:?} (median) while 16 lists ran, {alone_p50:?} alone",
        sixteen[10]
    );
}
