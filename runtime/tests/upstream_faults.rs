//! The upstream's guard against a real, misbehaving REST server on loopback: one retry of
//! idempotent requests (counted at the server: exactly two for GET, PUT and DELETE, one for
//! POST and PATCH), a circuit breaker that opens on refused connections, timeouts and 5xx,
//! fails fast while open and closes once the server is back, a concurrency cap the server
//! can count, and the audit records and `/metrics` of a served tool set showing each.

use crate::support;

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU16, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use clap::Parser as _;
use mcpgen_runtime::cli::{App, ServeArgs};
use mcpgen_runtime::{
    GuardConfig, GuardRefusal, HttpBinding, Invoked, OpenApiTools, ToolAnnotations, ToolDef,
    Upstream, UpstreamConfig, cli,
};
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use serde_json::Map;
use support::{Client, Recorder, Running, http_transport, text};

/// Bound on every wait, so a bug cannot hang the suite.
const WAIT: Duration = Duration::from_secs(20);

// ---------------------------------------------------------------------------------------------
// The misbehaving REST server.

/// What the server does, changed by the tests while it runs.
#[derive(Default)]
struct Behaviour {
    /// The status of every answer; 0: `200 {"ok":true}`.
    status: AtomicU16,
    /// Answers this many next requests with 503 before going back to `status`.
    fail_next: AtomicUsize,
    /// Milliseconds to wait before answering.
    delay_ms: AtomicU64,
    /// `METHOD /path` of every request received.
    received: Mutex<Vec<String>>,
    in_flight: AtomicUsize,
    most_in_flight: AtomicUsize,
}

struct Faulty {
    base: String,
    behaviour: Arc<Behaviour>,
}

impl Faulty {
    async fn start() -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        Self::on(listener)
    }

    /// Serves on `listener` (e.g. bound to the port of a server that was away).
    fn on(listener: tokio::net::TcpListener) -> Self {
        let addr = listener.local_addr().unwrap();
        let behaviour = Arc::new(Behaviour::default());
        let app = axum::Router::new()
            .fallback(answer)
            .with_state(behaviour.clone());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        Self {
            base: format!("http://{addr}"),
            behaviour,
        }
    }

    fn set_status(&self, status: u16) {
        self.behaviour.status.store(status, Ordering::SeqCst);
    }

    fn set_delay(&self, delay: Duration) {
        let ms = u64::try_from(delay.as_millis()).unwrap();
        self.behaviour.delay_ms.store(ms, Ordering::SeqCst);
    }

    fn received(&self) -> Vec<String> {
        self.behaviour.received.lock().unwrap().clone()
    }

    fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.behaviour.received.lock().unwrap())
    }

    fn most_in_flight(&self) -> usize {
        self.behaviour.most_in_flight.load(Ordering::SeqCst)
    }
}

async fn answer(State(behaviour): State<Arc<Behaviour>>, request: Request) -> Response {
    let line = format!("{} {}", request.method(), request.uri().path());
    behaviour.received.lock().unwrap().push(line);
    let now = behaviour.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
    behaviour.most_in_flight.fetch_max(now, Ordering::SeqCst);
    let delay = behaviour.delay_ms.load(Ordering::SeqCst);
    tokio::time::sleep(Duration::from_millis(delay)).await;
    behaviour.in_flight.fetch_sub(1, Ordering::SeqCst);
    let failing = behaviour
        .fail_next
        .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
        .is_ok();
    let status = match (failing, behaviour.status.load(Ordering::SeqCst)) {
        (true, _) => 503,
        (false, status) => status,
    };
    if status == 0 {
        return (
            StatusCode::OK,
            [(header::CONTENT_TYPE, "application/json")],
            r#"{"ok":true}"#,
        )
            .into_response();
    }
    let status = StatusCode::from_u16(status).unwrap();
    (status, format!("the server says {status}")).into_response()
}

/// An address where nothing listens (connections are refused).
async fn closed_port() -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    listener.local_addr().unwrap()
}

// ---------------------------------------------------------------------------------------------
// Tools.

/// A tool bound to `method path`, with no arguments: the shared test tool, made a write tool
/// without annotations and given the HTTP binding.
const fn tool(name: &'static str, method: &'static str, path: &'static str) -> ToolDef {
    ToolDef {
        access: mcpgen_runtime::Access::Write,
        annotations: ToolAnnotations {
            read_only_hint: None,
            destructive_hint: None,
            idempotent_hint: None,
            open_world_hint: None,
        },
        http: Some(HttpBinding {
            method,
            path,
            operation_id: name,
            args: &[],
            body: None,
            security: &[],
            server_url: None,
            task: false,
            cancel: &[],
        }),
        ..support::read_tool(name, "a test tool", r#"{"type":"object"}"#)
    }
}

const GET: ToolDef = tool("get_items", "GET", "/items");
const PUT: ToolDef = tool("put_item", "PUT", "/items/1");
const DELETE: ToolDef = tool("delete_item", "DELETE", "/items/1");
const POST: ToolDef = tool("create_item", "POST", "/items");
const PATCH: ToolDef = tool("patch_item", "PATCH", "/items/1");

static TOOLS: &[ToolDef] = &[GET, PUT, DELETE, POST, PATCH];

/// A guard with the breaker off, so only retries and the cap are at work.
fn no_breaker() -> GuardConfig {
    GuardConfig {
        breaker_threshold: 0,
        ..GuardConfig::default()
    }
}

fn upstream(base: &str, guard: GuardConfig) -> Upstream {
    Upstream::new(UpstreamConfig::new(base).with_guard(guard)).unwrap()
}

async fn invoke(upstream: &Upstream, tool: &ToolDef) -> Invoked {
    tokio::time::timeout(WAIT, upstream.invoke(tool, Map::new()))
        .await
        .expect("the call ends in time")
}

fn text_of(invoked: &Invoked) -> String {
    invoked
        .content
        .iter()
        .filter_map(|c| match c {
            mcpgen_runtime::Content::Text(t) => Some(t.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

// ---------------------------------------------------------------------------------------------
// Retry.

#[tokio::test(flavor = "multi_thread")]
async fn idempotent_requests_are_retried_exactly_once_post_and_patch_never() {
    let server = Faulty::start().await;
    let upstream = upstream(&server.base, no_breaker());
    for status in [502, 503, 504] {
        server.set_status(status);
        for tool in [&GET, &PUT, &DELETE] {
            let invoked = invoke(&upstream, tool).await;
            let method = tool.http.as_ref().unwrap().method;
            let received = server.take();
            assert_eq!(received.len(), 2, "{method} on {status}: {received:?}");
            assert!(invoked.is_error && invoked.guard.retried, "{invoked:?}");
            assert_eq!(invoked.status, Some(status));
            assert!(text_of(&invoked).contains("retried once"), "{invoked:?}");
        }
        for tool in [&POST, &PATCH] {
            let invoked = invoke(&upstream, tool).await;
            let received = server.take();
            assert_eq!(received.len(), 1, "never twice: {received:?}");
            assert!(invoked.is_error && !invoked.guard.retried, "{invoked:?}");
            assert!(!text_of(&invoked).contains("retried"), "{invoked:?}");
        }
    }
    // A 500 is the server's own failure, not a passing one: not retried.
    server.set_status(500);
    let invoked = invoke(&upstream, &GET).await;
    assert_eq!(server.take().len(), 1);
    assert!(invoked.is_error && !invoked.guard.retried);

    // A passing 503: the retry succeeds.
    server.set_status(0);
    server.behaviour.fail_next.store(1, Ordering::SeqCst);
    let invoked = invoke(&upstream, &GET).await;
    assert!(!invoked.is_error && invoked.guard.retried, "{invoked:?}");
    assert_eq!(server.take(), ["GET /items", "GET /items"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_refused_connection_is_retried_for_get_only() {
    let addr = closed_port().await;
    let upstream = upstream(&format!("http://{addr}"), no_breaker());
    let get = invoke(&upstream, &GET).await;
    assert!(get.is_error && get.guard.retried, "{get:?}");
    let text = text_of(&get);
    assert!(
        text.contains("could not be reached") && text.contains("retried once"),
        "{text}"
    );
    let post = invoke(&upstream, &POST).await;
    assert!(post.is_error && !post.guard.retried, "{post:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn no_retry_turns_retries_off() {
    let server = Faulty::start().await;
    server.set_status(503);
    let guard = GuardConfig {
        retry: false,
        ..no_breaker()
    };
    let invoked = invoke(&upstream(&server.base, guard), &GET).await;
    assert_eq!(server.take().len(), 1);
    assert!(invoked.is_error && !invoked.guard.retried);
}

// ---------------------------------------------------------------------------------------------
// Circuit breaker.

fn breaker(threshold: u32, cooldown: Duration) -> GuardConfig {
    GuardConfig {
        breaker_threshold: threshold,
        breaker_cooldown: cooldown,
        ..GuardConfig::default()
    }
}

#[track_caller]
fn assert_refused_open(invoked: &Invoked) {
    assert!(invoked.is_error, "{invoked:?}");
    assert_eq!(invoked.guard.refused, Some(GuardRefusal::CircuitOpen));
    let text = text_of(invoked);
    assert!(
        text.contains("was not sent")
            && text.contains("upstream API is unavailable")
            && text.contains("retry later"),
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn server_errors_open_the_breaker_which_fails_fast_and_closes_when_a_probe_succeeds() {
    let server = Faulty::start().await;
    server.set_status(500);
    let upstream = upstream(&server.base, breaker(3, Duration::from_millis(500)));
    for n in 1..=3 {
        let invoked = invoke(&upstream, &POST).await;
        assert_eq!(invoked.status, Some(500));
        assert_eq!(
            invoked.guard.opened_circuit,
            n == 3,
            "call {n}: {invoked:?}"
        );
    }
    assert_eq!(server.received().len(), 3);
    // Open: refused at once, nothing reaches the server, whatever the method.
    for tool in [&POST, &GET] {
        assert_refused_open(&invoke(&upstream, tool).await);
    }
    assert_eq!(server.received().len(), 3, "nothing was sent while open");

    // The server is back; after the cool-down one probe goes through and closes the breaker.
    server.set_status(0);
    tokio::time::sleep(Duration::from_millis(600)).await;
    let probe = invoke(&upstream, &GET).await;
    assert!(!probe.is_error, "{probe:?}");
    let after = invoke(&upstream, &POST).await;
    assert!(!after.is_error, "{after:?}");
    assert_eq!(server.received().len(), 5);
}

#[tokio::test(flavor = "multi_thread")]
async fn refused_connections_open_the_breaker_until_the_server_comes_back_on_its_port() {
    let addr = closed_port().await;
    let upstream = upstream(
        &format!("http://{addr}"),
        breaker(2, Duration::from_millis(500)),
    );
    // The GET and its retry are the two failures in a row.
    let first = invoke(&upstream, &GET).await;
    assert!(
        first.guard.retried && first.guard.opened_circuit,
        "{first:?}"
    );
    assert_refused_open(&invoke(&upstream, &GET).await);

    let server = Faulty::on(tokio::net::TcpListener::bind(addr).await.unwrap());
    tokio::time::sleep(Duration::from_millis(600)).await;
    let probe = invoke(&upstream, &GET).await;
    assert!(!probe.is_error, "{probe:?}");
    assert!(!invoke(&upstream, &POST).await.is_error);
    assert_eq!(server.received(), ["GET /items", "POST /items"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn timeouts_open_the_breaker_and_a_failed_probe_opens_it_again() {
    let server = Faulty::start().await;
    server.set_delay(Duration::from_secs(2));
    let config = UpstreamConfig::new(&server.base)
        .with_timeout(Duration::from_millis(200))
        .with_guard(breaker(2, Duration::from_millis(300)));
    let upstream = Upstream::new(config).unwrap();
    for _ in 0..2 {
        let invoked = invoke(&upstream, &GET).await;
        assert!(invoked.timed_out && !invoked.guard.retried, "{invoked:?}");
    }
    assert_eq!(server.received().len(), 2, "a timeout is not retried");
    assert_refused_open(&invoke(&upstream, &GET).await);
    // Still slow: the probe times out and the breaker opens again.
    tokio::time::sleep(Duration::from_millis(400)).await;
    let probe = invoke(&upstream, &GET).await;
    assert!(probe.timed_out && probe.guard.opened_circuit, "{probe:?}");
    assert_refused_open(&invoke(&upstream, &GET).await);
    assert_eq!(server.received().len(), 3);
}

// ---------------------------------------------------------------------------------------------
// Concurrency cap.

#[tokio::test(flavor = "multi_thread")]
async fn the_cap_bounds_the_requests_the_server_sees_at_once() {
    let server = Faulty::start().await;
    server.set_delay(Duration::from_millis(300));
    let guard = GuardConfig {
        max_concurrency: 2,
        ..no_breaker()
    };
    let upstream = upstream(&server.base, guard);
    let calls = (0..8).map(|_| invoke(&upstream, &GET));
    let results = futures::future::join_all(calls).await;
    assert!(results.iter().all(|r| !r.is_error), "{results:?}");
    assert_eq!(server.received().len(), 8);
    assert_eq!(
        server.most_in_flight(),
        2,
        "at most two at once, and two were"
    );
    let queued = results.iter().filter(|r| r.guard.queued).count();
    assert!(queued >= 6, "{queued} of 8 waited for a slot");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_call_that_finds_no_slot_in_time_is_refused_unsent() {
    let server = Faulty::start().await;
    server.set_delay(Duration::from_secs(1));
    let guard = GuardConfig {
        max_concurrency: 1,
        queue_timeout: Duration::from_millis(200),
        ..no_breaker()
    };
    let upstream = upstream(&server.base, guard);
    let (first, second) = tokio::join!(invoke(&upstream, &GET), async {
        tokio::time::sleep(Duration::from_millis(50)).await;
        invoke(&upstream, &GET).await
    });
    assert!(!first.is_error, "{first:?}");
    assert!(second.is_error, "{second:?}");
    assert_eq!(second.guard.refused, Some(GuardRefusal::ConcurrencyCap));
    assert!(second.guard.queued);
    let text = text_of(&second);
    assert!(
        text.contains("upstream API is busy") && text.contains("retry later"),
        "{text}"
    );
    assert_eq!(server.received().len(), 1, "the refused call was not sent");
}

// ---------------------------------------------------------------------------------------------
// Flags.

const APP: App = App {
    name: "faults",
    version: "1.0.0",
    description: "faults for tests",
    title: "Faults",
    default_upstream_url: None,
    security_schemes: &[],
};

fn parse(extra: &[&str]) -> ServeArgs {
    let mut argv = vec![
        "faults-mcp",
        "--upstream-url",
        "http://127.0.0.1:9",
        "--no-auth",
    ];
    argv.extend(extra);
    ServeArgs::try_parse_from(argv).expect("the flags parse")
}

#[test]
fn the_flags_set_the_guard_and_the_defaults_are_sane() {
    let defaults = cli::upstream(&APP, &parse(&[])).unwrap();
    assert_eq!(defaults.config().guard, GuardConfig::default());
    assert_eq!(GuardConfig::default().max_concurrency, 64);
    assert!(GuardConfig::default().retry);
    let args = parse(&[
        "--upstream-max-concurrency",
        "3",
        "--upstream-queue-timeout",
        "4",
        "--upstream-breaker-threshold",
        "0",
        "--upstream-breaker-cooldown",
        "7",
        "--upstream-no-retry",
    ]);
    let guard = cli::upstream(&APP, &args).unwrap().config().guard;
    assert_eq!(
        guard,
        GuardConfig {
            max_concurrency: 3,
            queue_timeout: Duration::from_secs(4),
            breaker_threshold: 0,
            breaker_cooldown: Duration::from_secs(7),
            retry: false,
        }
    );
    for bad in [
        ["--upstream-max-concurrency", "0"],
        ["--upstream-breaker-cooldown", "0"],
    ] {
        let mut argv = vec!["faults-mcp", "--no-auth"];
        argv.extend(bad);
        assert!(ServeArgs::try_parse_from(argv).is_err(), "{bad:?}");
    }
}

// ---------------------------------------------------------------------------------------------
// Served: the audit records and the metrics.

#[cfg(feature = "metrics")]
const METRICS_TOKEN: &str = "metrics-token-0123456789abcdef";

async fn serve(upstream: Upstream, recorder: &Recorder) -> Running {
    let builder = mcpgen_runtime::server::Server::builder("faults", "1.0.0")
        .tool_set(OpenApiTools::new(TOOLS, upstream))
        .no_auth()
        .audit(recorder.clone());
    #[cfg(feature = "metrics")]
    let builder = {
        use mcpgen_runtime::metrics::{Metrics, MetricsEndpoint};
        let metrics = Arc::new(Metrics::new().unwrap());
        builder.metrics_endpoint(MetricsEndpoint::open(metrics).with_token(METRICS_TOKEN))
    };
    Running::start(builder.build().expect("the server builds")).await
}

async fn call(client: &Client, name: &'static str) -> CallToolResult {
    tokio::time::timeout(WAIT, client.call_tool(CallToolRequestParams::new(name)))
        .await
        .expect("the call is answered in time")
        .expect("the call is answered")
}

#[tokio::test(flavor = "multi_thread")]
async fn audit_records_and_metrics_show_retries_refusals_and_waits() {
    let server = Faulty::start().await;
    let guard = GuardConfig {
        max_concurrency: 1,
        queue_timeout: Duration::from_millis(500),
        breaker_threshold: 2,
        breaker_cooldown: Duration::from_millis(500),
        retry: true,
    };
    let recorder = Recorder::default();
    let running = serve(upstream(&server.base, guard), &recorder).await;
    let client = ().serve(http_transport(&running.url, &[])).await.unwrap();

    // A GET answered 503 twice: retried once, and the two failures open the breaker.
    server.set_status(503);
    let retried = call(&client, "get_items").await;
    assert_eq!(retried.is_error, Some(true));
    // Open: refused unsent, with a message the model can act on.
    let refused = call(&client, "get_items").await;
    assert_eq!(refused.is_error, Some(true));
    assert!(text(&refused).contains("retry later"), "{}", text(&refused));
    assert_eq!(server.take().len(), 2);
    // Back after the cool-down.
    server.set_status(0);
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert_ne!(call(&client, "get_items").await.is_error, Some(true));
    // A POST answered 503 is sent once.
    server.set_status(503);
    assert_eq!(call(&client, "create_item").await.is_error, Some(true));
    assert_eq!(server.take(), ["GET /items", "POST /items"]);
    server.set_status(0);
    // Two calls at once under a cap of one, the first holding its slot too long.
    server.set_delay(Duration::from_millis(1500));
    let (slow, waited) = tokio::join!(call(&client, "get_items"), async {
        tokio::time::sleep(Duration::from_millis(100)).await;
        call(&client, "get_items").await
    });
    assert_ne!(slow.is_error, Some(true), "{}", text(&slow));
    assert_eq!(waited.is_error, Some(true));
    assert!(text(&waited).contains("busy"), "{}", text(&waited));

    let events = recorder.events();
    let seen: Vec<(&str, &str, Option<u16>)> = events
        .iter()
        .map(|e| (e.tool.as_str(), e.status.as_str(), e.upstream_status))
        .collect();
    assert_eq!(
        seen,
        [
            ("get_items", "upstream_error", Some(503)),
            ("get_items", "unavailable", None),
            ("get_items", "ok", Some(200)),
            ("create_item", "upstream_error", Some(503)),
            ("get_items", "unavailable", None),
            ("get_items", "ok", Some(200)),
        ]
    );
    let error = |i: usize| events[i].error.clone().unwrap_or_default();
    assert!(error(0).contains("retried once"), "{}", error(0));
    assert!(
        error(1).contains("upstream API is unavailable"),
        "{}",
        error(1)
    );
    assert!(!error(3).contains("retried"), "{}", error(3));
    assert!(error(4).contains("upstream API is busy"), "{}", error(4));

    #[cfg(feature = "metrics")]
    {
        let scrape = reqwest::Client::new()
            .get(format!("{}/metrics", running.url))
            .bearer_auth(METRICS_TOKEN)
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        let value = |name: &str, labels: &[&str]| metric(&scrape, name, labels);
        assert_eq!(
            value("mcpgen_upstream_retries_total", &["tool=\"get_items\""]),
            1
        );
        assert_eq!(
            value("mcpgen_upstream_retries_total", &["tool=\"create_item\""]),
            0
        );
        assert_eq!(
            value(
                "mcpgen_upstream_circuit_opened_total",
                &["tool=\"get_items\""]
            ),
            1
        );
        for reason in ["circuit_open", "concurrency_cap"] {
            let reason = format!("reason=\"{reason}\"");
            assert_eq!(
                value(
                    "mcpgen_upstream_refused_total",
                    &["tool=\"get_items\"", &reason]
                ),
                1,
                "{reason}\n{scrape}"
            );
        }
        assert_eq!(
            value("mcpgen_upstream_queued_total", &["tool=\"get_items\""]),
            1
        );
        assert_eq!(
            value(
                "mcpgen_tool_calls_total",
                &["tool=\"get_items\"", "status=\"unavailable\""]
            ),
            2
        );
        // Refused calls sent nothing: the upstream requests counted are the ones made.
        let requests: u64 = ["200", "503"]
            .iter()
            .map(|code| {
                let code = format!("code=\"{code}\"");
                value(
                    "mcpgen_upstream_requests_total",
                    &["tool=\"get_items\"", &code],
                )
            })
            .sum();
        assert_eq!(requests, 3, "{scrape}");
    }
    let _ = client.cancel().await;
    running.stop().await.unwrap();
}

/// The value of the series `name` whose labels include all of `labels` (0 when absent).
#[cfg(feature = "metrics")]
fn metric(scrape: &str, name: &str, labels: &[&str]) -> u64 {
    scrape
        .lines()
        .filter_map(|line| line.strip_prefix(name)?.strip_prefix('{'))
        .filter_map(|rest| rest.split_once("} "))
        .filter(|(have, _)| {
            let have: Vec<&str> = have.split(',').collect();
            labels.iter().all(|l| have.contains(l))
        })
        .map(|(_, value)| value.trim().parse::<u64>().unwrap())
        .sum()
}
