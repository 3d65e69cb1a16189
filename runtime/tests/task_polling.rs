//! Operations that run long, served through the generated binary's flags against a stand-in
//! API on loopback: the operation answers `202 Accepted` with a `Location`, its status is
//! polled (`Retry-After` honoured) until a `303 See Other` leads to the result. A client that
//! declared tasks gets a task at once and follows it; one that did not waits for the result.
//! Cancelling the task stops the polling; a `Location` on another origin is refused unless
//! `--task-follow-origin` allows it, and never gets a credential, nor may it send polling back
//! to the API's origin; an error status fails the call with the API's detail; a task is
//! private to its principal. A redirect loop stops after 5 hops, a `202`/`303` ping-pong after
//! `--task-polls-max` requests; a `text/html` answer, or a JSON array where the output schema
//! is an object, is an error result.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::support::{Running, stateless_request, task_meta};
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use clap::Parser as _;
use mcpgen_runtime::cli::{App, ServeArgs};
use mcpgen_runtime::{
    ArgBinding, HttpBinding, Location, OpenApiTools, SecurityScheme, SecuritySchemeKind, ToolDef,
    cli,
};
use serde_json::{Value, json};

/// The API key the server sends upstream; it must never reach another origin.
const API_KEY: &str = "upstream-secret-5d1c";
/// The header it is sent in.
const KEY_HEADER: &str = "x-upstream-key";

static SCHEMES: &[SecurityScheme] = &[SecurityScheme {
    name: "key",
    kind: SecuritySchemeKind::ApiKeyHeader("X-Upstream-Key"),
}];

/// `POST /jobs/{kind}`: runs long; its result is checked against the output schema.
static TOOLS: &[ToolDef] = &[ToolDef::new(
    "start_job",
    "Starts a job",
    r#"{"type":"object","properties":{"kind":{"type":"string"}},"required":["kind"]}"#,
)
.output_schema(
    r#"{"type":"object","properties":{"id":{"type":"string"},"rows":{"type":"integer"}},"required":["id","rows"]}"#,
)
.http(
    HttpBinding::new("POST", "/jobs/{kind}", "startJob")
        .args(&[ArgBinding::new("kind", Location::Path).required()])
        .security(&["key"])
        .task(),
)];

fn app() -> App {
    App {
        name: "jobs",
        version: "1.0.0",
        description: "jobs for tests",
        title: "Jobs",
        default_upstream_url: None,
        security_schemes: SCHEMES,
    }
}

// ---------------------------------------------------------------------------------------------
// The stand-in API and the "other origin".

/// What a stand-in saw: per path, the requests' headers, in order.
#[derive(Clone, Default)]
struct Seen(Arc<Mutex<BTreeMap<String, Vec<HeaderMap>>>>);

impl Seen {
    fn record(&self, path: &str, headers: &HeaderMap) -> usize {
        let mut seen = self.0.lock().unwrap();
        let list = seen.entry(path.to_owned()).or_default();
        list.push(headers.clone());
        list.len()
    }

    fn count(&self, path: &str) -> usize {
        self.0.lock().unwrap().get(path).map_or(0, Vec::len)
    }

    fn headers(&self) -> Vec<(String, HeaderMap)> {
        let seen = self.0.lock().unwrap();
        seen.iter()
            .flat_map(|(path, list)| list.iter().map(|h| (path.clone(), h.clone())))
            .collect()
    }
}

#[derive(Clone)]
struct Api {
    seen: Seen,
    /// The other origin's base URL, for `Location`s that lead there (for the other origin:
    /// the API's).
    other: String,
}

fn accepted(location: &str) -> Response {
    (
        StatusCode::ACCEPTED,
        [(header::LOCATION, location), (header::RETRY_AFTER, "1")],
    )
        .into_response()
}

fn json_body(status: StatusCode, content_type: &'static str, body: Value) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, content_type)],
        body.to_string(),
    )
        .into_response()
}

async fn start_job(
    State(api): State<Api>,
    Path(kind): Path<String>,
    headers: HeaderMap,
) -> Response {
    api.seen.record(&format!("/jobs/{kind}"), &headers);
    match kind.as_str() {
        "away" => accepted(&format!("{}/status/away", api.other)),
        "bounce303" => accepted(&format!("{}/bounce/303", api.other)),
        "bounce307" => accepted(&format!("{}/bounce/307", api.other)),
        _ => accepted(&format!("/status/{kind}")),
    }
}

async fn status(State(api): State<Api>, Path(kind): Path<String>, headers: HeaderMap) -> Response {
    let polls = api.seen.record(&format!("/status/{kind}"), &headers);
    match kind.as_str() {
        // Twice still working, then the result is elsewhere on the same origin.
        "ok" if polls > 2 => {
            (StatusCode::SEE_OTHER, [(header::LOCATION, "/results/ok")]).into_response()
        }
        "fail" if polls > 1 => json_body(
            StatusCode::UNPROCESSABLE_ENTITY,
            "application/problem+json",
            json!({"title": "Export failed", "detail": "the export broke at row 7"}),
        ),
        // Done at once, but its result is on the other origin.
        "leave" => (
            StatusCode::SEE_OTHER,
            [(header::LOCATION, format!("{}/results/leave", api.other))],
        )
            .into_response(),
        // Redirected to itself, for ever.
        "loop" => (StatusCode::FOUND, [(header::LOCATION, "/status/loop")]).into_response(),
        // Done at once, with a result that is not what the schema says.
        "html" | "list" | "pingpong" => (
            StatusCode::SEE_OTHER,
            [(header::LOCATION, format!("/results/{kind}"))],
        )
            .into_response(),
        _ => accepted(&format!("/status/{kind}")),
    }
}

/// The other origin's `GET /bounce/{status}`: sends polling back to the API's own origin,
/// to a path that lists users.
async fn bounce(State(api): State<Api>, Path(code): Path<u16>, headers: HeaderMap) -> Response {
    api.seen.record(&format!("/bounce/{code}"), &headers);
    let status = StatusCode::from_u16(code).unwrap_or(StatusCode::SEE_OTHER);
    (
        status,
        [(header::LOCATION, format!("{}/users?leak=1", api.other))],
    )
        .into_response()
}

/// The API's `GET /users`: what a credentialed request steered here would get.
async fn users(State(api): State<Api>, headers: HeaderMap) -> Response {
    api.seen.record("/users", &headers);
    json_body(
        StatusCode::OK,
        "application/json",
        json!([{"id": "u1", "email": "ada@example.com"}]),
    )
}

async fn result(
    State(api): State<Api>,
    Path(kind): Path<String>,
    uri: Uri,
    headers: HeaderMap,
) -> Response {
    api.seen.record(uri.path(), &headers);
    match kind.as_str() {
        "html" => (
            StatusCode::OK,
            [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
            "<html><body>Please sign in</body></html>",
        )
            .into_response(),
        "list" => json_body(
            StatusCode::OK,
            "application/json",
            json!([{"id": "job-1", "rows": 3}]),
        ),
        // Working again: back to the status, which says it is done.
        "pingpong" => (
            StatusCode::ACCEPTED,
            [
                (header::LOCATION, "/status/pingpong"),
                (header::RETRY_AFTER, "0"),
            ],
        )
            .into_response(),
        _ => json_body(
            StatusCode::OK,
            "application/json",
            json!({"id": format!("job-{kind}"), "rows": 3}),
        ),
    }
}

/// A fresh loopback port and its base URL.
async fn bind() -> (tokio::net::TcpListener, String) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    (listener, format!("http://{addr}"))
}

/// Serves `router` on `listener`.
fn serve(listener: tokio::net::TcpListener, router: axum::Router) {
    tokio::spawn(async move { axum::serve(listener, router).await });
}

struct Stand {
    api: String,
    seen: Seen,
    other: String,
    other_seen: Seen,
}

async fn stand_ins() -> Stand {
    let ((other_listener, other), (api_listener, api)) = (bind().await, bind().await);
    let other_seen = Seen::default();
    serve(
        other_listener,
        axum::Router::new()
            .route("/status/{kind}", get(result))
            .route("/results/{kind}", get(result))
            .route("/bounce/{code}", get(bounce))
            .with_state(Api {
                seen: other_seen.clone(),
                other: api.clone(),
            }),
    );
    let seen = Seen::default();
    serve(
        api_listener,
        axum::Router::new()
            .route("/jobs/{kind}", post(start_job))
            .route("/status/{kind}", get(status))
            .route("/results/{kind}", get(result))
            .route("/users", get(users))
            .with_state(Api {
                seen: seen.clone(),
                other: other.clone(),
            }),
    );
    Stand {
        api,
        seen,
        other,
        other_seen,
    }
}

// ---------------------------------------------------------------------------------------------
// The server, started from flags.

struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Self {
        let dir =
            std::env::temp_dir().join(format!("mcpgen-task-polling-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let mut keys = std::fs::File::create(dir.join("keys.yaml")).unwrap();
        writeln!(
            keys,
            "keys:\n  - id: alice-key\n    key: alice-secret\n    principal: alice\n    \
             scopes: [\"mcp:*\"]\n  - id: bob-key\n    key: bob-secret\n    principal: bob\n    \
             scopes: [\"mcp:*\"]"
        )
        .unwrap();
        Self(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A server for the stand-in API with `extra` flags.
async fn server(stand: &Stand, name: &str, extra: &[&str]) -> (Running, Scratch) {
    let scratch = Scratch::new(name);
    let mut argv: Vec<String> = [
        "jobs-mcp",
        "--transport",
        "http",
        "--upstream-url",
        &stand.api,
        "--upstream-api-key",
        API_KEY,
        "--keys",
        &scratch.0.join("keys.yaml").display().to_string(),
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect();
    argv.extend(extra.iter().map(|s| (*s).to_owned()));
    let args = ServeArgs::try_parse_from(argv).expect("the flags parse");
    let upstream = cli::upstream(&app(), &args).expect("the upstream is configured");
    let server = cli::server_builder(&app(), &args, OpenApiTools::new(TOOLS, upstream))
        .expect("the server is configured")
        .build()
        .expect("the server builds");
    (Running::start(server).await, scratch)
}

// ---------------------------------------------------------------------------------------------
// Stateless 2026-07-28 requests.

async fn start_job_call(url: &str, key: &str, kind: &str, tasks: bool) -> Value {
    let params =
        json!({"name": "start_job", "arguments": {"kind": kind}, "_meta": task_meta(tasks)});
    tokio::time::timeout(
        Duration::from_secs(20),
        stateless_request(url, key, "tools/call", "start_job", params),
    )
    .await
    .expect("the call is answered in time")
}

async fn task_request(url: &str, key: &str, method: &str, id: &str) -> Value {
    let params = json!({"taskId": id, "_meta": task_meta(true)});
    stateless_request(url, key, method, id, params).await
}

/// Polls `tasks/get` until the task leaves `working`.
async fn settled(url: &str, key: &str, id: &str) -> Value {
    for _ in 0..400 {
        let answer = task_request(url, key, "tasks/get", id).await;
        if answer["result"]["status"] != "working" {
            return answer;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("task {id} still working after 20 s");
}

/// Starts `kind` as a task of alice's; returns the task id.
async fn started_task(url: &str, kind: &str) -> String {
    let answer = start_job_call(url, "alice-secret", kind, true).await;
    assert_eq!(answer["result"]["resultType"], "task", "{answer}");
    answer["result"]["taskId"].as_str().unwrap().to_owned()
}

fn text_of(result: &Value) -> String {
    result["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

fn carries_no_credential(seen: &Seen) {
    for (path, headers) in seen.headers() {
        for name in [KEY_HEADER, "authorization", "cookie", "x-api-key"] {
            assert!(
                headers.get(name).is_none(),
                "{path} got a `{name}` header: {headers:?}"
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn a_client_with_tasks_gets_a_task_at_once_that_completes_with_the_result() {
    let stand = stand_ins().await;
    let (server, _scratch) = server(&stand, "task", &[]).await;
    let id = started_task(&server.url, "ok").await;

    let now = task_request(&server.url, "alice-secret", "tasks/get", &id).await;
    assert_eq!(now["result"]["status"], "working", "{now}");

    let done = settled(&server.url, "alice-secret", &id).await;
    assert_eq!(done["result"]["status"], "completed", "{done}");
    let result = &done["result"]["result"];
    assert_eq!(
        result["structuredContent"],
        json!({"id": "job-ok", "rows": 3}),
        "{done}"
    );
    assert_eq!(result["isError"], false, "{done}");
    assert_eq!(
        stand.seen.count("/status/ok"),
        3,
        "twice working, then the 303"
    );
    assert_eq!(stand.seen.count("/results/ok"), 1);
    for (path, headers) in stand.seen.headers() {
        assert_eq!(
            headers.get(KEY_HEADER).and_then(|v| v.to_str().ok()),
            Some(API_KEY),
            "{path} is on the upstream's own origin and gets its credential"
        );
    }
}

#[tokio::test]
async fn a_client_without_tasks_waits_for_the_result() {
    let stand = stand_ins().await;
    let (server, _scratch) = server(&stand, "plain", &[]).await;
    let started = std::time::Instant::now();
    let answer = start_job_call(&server.url, "alice-secret", "ok", false).await;
    let result = &answer["result"];
    assert_ne!(result["resultType"], "task", "{answer}");
    assert_eq!(
        result["structuredContent"],
        json!({"id": "job-ok", "rows": 3}),
        "{answer}"
    );
    assert!(
        started.elapsed() >= Duration::from_secs(2),
        "Retry-After: 1 is honoured between polls"
    );
}

#[tokio::test]
async fn cancelling_the_task_stops_the_polling() {
    let stand = stand_ins().await;
    let (server, _scratch) = server(&stand, "cancel", &[]).await;
    let id = started_task(&server.url, "forever").await;
    for _ in 0..100 {
        if stand.seen.count("/status/forever") >= 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(stand.seen.count("/status/forever") >= 1, "polling started");

    let cancelled = task_request(&server.url, "alice-secret", "tasks/cancel", &id).await;
    assert!(cancelled.get("error").is_none(), "{cancelled}");
    let polls = stand.seen.count("/status/forever");
    tokio::time::sleep(Duration::from_millis(2500)).await;
    assert_eq!(
        stand.seen.count("/status/forever"),
        polls,
        "no poll after the cancel"
    );
    let after = task_request(&server.url, "alice-secret", "tasks/get", &id).await;
    assert_eq!(after["result"]["status"], "cancelled", "{after}");
}

#[tokio::test]
async fn a_location_on_another_origin_fails_naming_it_and_gets_nothing() {
    let stand = stand_ins().await;
    let (server, _scratch) = server(&stand, "away", &[]).await;
    let answer = start_job_call(&server.url, "alice-secret", "away", false).await;
    let result = &answer["result"];
    assert_eq!(result["isError"], true, "{answer}");
    let message = text_of(result);
    assert!(
        message.contains(&format!("{}/status/away", stand.other)),
        "the message names where the status is: {message}"
    );
    assert!(message.contains("--task-follow-origin"), "{message}");
    assert_eq!(
        stand.other_seen.headers().len(),
        0,
        "the other origin got no request"
    );

    // A result on another origin, reached by a 303 from the API's own status URL.
    let answer = start_job_call(&server.url, "alice-secret", "leave", false).await;
    let message = text_of(&answer["result"]);
    assert!(
        message.contains(&format!("{}/results/leave", stand.other)),
        "{message}"
    );
    assert_eq!(stand.other_seen.headers().len(), 0);
}

#[tokio::test]
async fn an_allowed_origin_is_followed_without_credentials() {
    let stand = stand_ins().await;
    let (server, _scratch) =
        server(&stand, "follow", &["--task-follow-origin", &stand.other]).await;
    let answer = start_job_call(&server.url, "alice-secret", "away", false).await;
    let result = &answer["result"];
    assert_eq!(
        result["structuredContent"],
        json!({"id": "job-away", "rows": 3}),
        "{answer}"
    );

    let answer = start_job_call(&server.url, "alice-secret", "leave", false).await;
    let result = &answer["result"];
    assert_eq!(
        result["structuredContent"],
        json!({"id": "job-leave", "rows": 3}),
        "{answer}"
    );

    assert_eq!(stand.other_seen.count("/status/away"), 1);
    assert_eq!(stand.other_seen.count("/results/leave"), 1);
    carries_no_credential(&stand.other_seen);
}

#[tokio::test]
async fn an_error_status_fails_the_call_with_the_apis_detail() {
    let stand = stand_ins().await;
    let (server, _scratch) = server(&stand, "fail", &[]).await;
    let id = started_task(&server.url, "fail").await;
    let done = settled(&server.url, "alice-secret", &id).await;
    let result = &done["result"]["result"];
    assert_eq!(result["isError"], true, "{done}");
    let message = text_of(result);
    assert!(message.contains("422"), "{message}");
    assert!(message.contains("the export broke at row 7"), "{message}");
}

#[tokio::test]
async fn another_principal_cannot_see_the_task() {
    let stand = stand_ins().await;
    let (server, _scratch) = server(&stand, "private", &[]).await;
    let id = started_task(&server.url, "forever").await;
    let theirs = task_request(&server.url, "bob-secret", "tasks/get", &id).await;
    assert!(theirs.get("error").is_some(), "{theirs}");
    let cancel = task_request(&server.url, "bob-secret", "tasks/cancel", &id).await;
    assert!(cancel.get("error").is_some(), "{cancel}");
    let mine = task_request(&server.url, "alice-secret", "tasks/get", &id).await;
    assert_eq!(mine["result"]["status"], "working", "{mine}");
    task_request(&server.url, "alice-secret", "tasks/cancel", &id).await;
}

#[tokio::test]
async fn an_allowed_origin_cannot_send_polling_back_to_the_api_with_its_credential() {
    let stand = stand_ins().await;
    let (server, _scratch) =
        server(&stand, "bounce", &["--task-follow-origin", &stand.other]).await;
    for (kind, code) in [("bounce303", 303), ("bounce307", 307)] {
        let answer = start_job_call(&server.url, "alice-secret", kind, false).await;
        let result = &answer["result"];
        assert_eq!(result["isError"], true, "{answer}");
        assert!(result.get("structuredContent").is_none(), "{answer}");
        let message = text_of(result);
        assert!(!message.contains("ada@example.com"), "{message}");
        assert!(message.contains("--task-follow-origin"), "{message}");
        assert!(
            message.contains(&format!("{}/users", stand.api)),
            "names where it was sent: {message}"
        );
        assert_eq!(stand.other_seen.count(&format!("/bounce/{code}")), 1);
    }
    assert_eq!(
        stand.seen.count("/users"),
        0,
        "the API's /users got no request"
    );
    carries_no_credential(&stand.other_seen);
}

#[tokio::test]
async fn a_redirect_loop_stops_after_five_hops() {
    let stand = stand_ins().await;
    let (server, _scratch) = server(&stand, "loop", &[]).await;
    let answer = start_job_call(&server.url, "alice-secret", "loop", false).await;
    let result = &answer["result"];
    assert_eq!(result["isError"], true, "{answer}");
    let message = text_of(result);
    assert!(
        message.contains("redirected more than 5 times"),
        "{message}"
    );
    assert_eq!(
        stand.seen.count("/status/loop"),
        6,
        "one poll and its 5 redirects, each one request"
    );
}

#[tokio::test]
async fn a_202_and_303_ping_pong_stops_after_the_polls_allowed() {
    let stand = stand_ins().await;
    let (server, _scratch) = server(&stand, "pingpong", &["--task-polls-max", "6"]).await;
    let id = started_task(&server.url, "pingpong").await;
    let done = settled(&server.url, "alice-secret", &id).await;
    let result = &done["result"]["result"];
    assert_eq!(result["isError"], true, "{done}");
    let message = text_of(result);
    assert!(message.contains("--task-polls-max"), "{message}");
    assert!(message.contains("6 status requests"), "{message}");
    assert_eq!(
        stand.seen.count("/status/pingpong") + stand.seen.count("/results/pingpong"),
        6,
        "every poll and hop counted"
    );
}

#[tokio::test]
async fn a_body_that_is_not_what_the_output_schema_says_is_an_error_result() {
    let stand = stand_ins().await;
    // The tolerant check is the default.
    let (server, _scratch) = server(&stand, "shape", &[]).await;

    let answer = start_job_call(&server.url, "alice-secret", "html", false).await;
    let result = &answer["result"];
    assert_eq!(result["isError"], true, "{answer}");
    assert!(result.get("structuredContent").is_none(), "{answer}");
    let message = text_of(result);
    assert!(message.contains("`text/html; charset=utf-8`"), "{message}");
    assert!(message.contains("output schema"), "{message}");

    let answer = start_job_call(&server.url, "alice-secret", "list", false).await;
    let result = &answer["result"];
    assert_eq!(result["isError"], true, "{answer}");
    assert!(result.get("structuredContent").is_none(), "{answer}");
    let message = text_of(result);
    assert!(
        message.contains("JSON array") && message.contains("an object"),
        "{message}"
    );
}
