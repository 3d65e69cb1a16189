//! The context a tool call runs with, over real transports driven by rmcp's client: the
//! caller's principal, progress notifications tied to the request's progress token, log
//! messages (and `logging/setLevel`), and cancellation by `notifications/cancelled` or by the
//! connection closing; with a store the replicas share, a session's log level on a replica that
//! rebuilds the session.
#![allow(deprecated)] // rmcp marks MCP logging for removal (SEP-2577); the protocol still has it.

use crate::support;

use std::time::Duration;

use mcpgen_runtime::server::Server;
use mcpgen_runtime::{
    BoxFuture, CallContext, LocalConnection, LogLevel, McpConnection, Principal, ToolContext,
    ToolDef, ToolError, ToolResult, ToolSet,
};
use rmcp::model::{
    CallToolRequest, ClientRequest, LoggingLevel, LoggingMessageNotificationParam,
    ProgressNotificationParam, ServerResult, SetLevelRequestParams,
};
use rmcp::service::{NotificationContext, PeerRequestOptions, RequestHandle, RunningService};
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::{Map, Value, json};
use support::{FixedKeys, Recorder, Running, call, http_transport, text};
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};

/// Longest any single step may take before the test gives up; never a measured duration.
const PATIENCE: Duration = Duration::from_secs(30);

const fn tool(name: &'static str, description: &'static str) -> ToolDef {
    support::read_tool(name, description, r#"{"type":"object","properties":{}}"#)
}

static TOOLS: &[ToolDef] = &[
    tool(
        "report",
        "Reports progress twice, logs once, and says who called",
    ),
    tool("wait_for_cancel", "Waits until the call is cancelled"),
];

/// Tools that use their [`ToolContext`]; `started` hears when `wait_for_cancel` begins and
/// `outcome` whether it then saw its cancellation.
#[derive(Clone)]
struct Reporter {
    started: UnboundedSender<()>,
    outcome: UnboundedSender<bool>,
}

/// The test's ends of a [`Reporter`]'s channels.
struct ReporterEvents {
    started: UnboundedReceiver<()>,
    outcome: UnboundedReceiver<bool>,
}

fn reporter() -> (Reporter, ReporterEvents) {
    let (started, started_rx) = unbounded_channel();
    let (outcome, outcome_rx) = unbounded_channel();
    (
        Reporter { started, outcome },
        ReporterEvents {
            started: started_rx,
            outcome: outcome_rx,
        },
    )
}

impl ToolSet for Reporter {
    fn tools(&self) -> &'static [ToolDef] {
        TOOLS
    }

    fn call<'a>(
        &'a self,
        tool: &'static ToolDef,
        _args: Map<String, Value>,
        call: &'a CallContext,
    ) -> BoxFuture<'a, Result<ToolResult, ToolError>> {
        let name = tool.name;
        let ctx = ToolContext::from_call(call);
        Box::pin(async move {
            match name {
                "report" => {
                    let first = ctx.progress(1.0, Some(2.0), Some("half way")).await;
                    let second = ctx.progress(2.0, Some(2.0), None).await;
                    let logged = ctx
                        .log(LogLevel::Info, json!({"event": "report finished"}))
                        .await;
                    let principal = ctx.principal();
                    let progress_sent = [first, second].map(|r| format!("{r:?}"));
                    Ok(ToolResult::text(
                        json!({
                            "principal": principal.map(|p| p.id.clone()),
                            "key_id": principal.and_then(|p| p.key_id.clone()),
                            "progress_sent": progress_sent,
                            "logged": format!("{logged:?}"),
                        })
                        .to_string(),
                    ))
                }
                "wait_for_cancel" => {
                    let _ = self.started.send(());
                    let seen = tokio::time::timeout(PATIENCE, ctx.cancelled())
                        .await
                        .is_ok();
                    let _ = self.outcome.send(seen && ctx.is_cancelled());
                    Ok(ToolResult::text(if seen { "stopped" } else { "timed out" }))
                }
                other => Err(ToolError::UnknownTool(other.to_owned())),
            }
        })
    }
}

/// A client that passes on the progress and log notifications it receives.
#[derive(Clone)]
struct Listener {
    progress: UnboundedSender<ProgressNotificationParam>,
    logs: UnboundedSender<LoggingMessageNotificationParam>,
}

struct Heard {
    progress: UnboundedReceiver<ProgressNotificationParam>,
    logs: UnboundedReceiver<LoggingMessageNotificationParam>,
}

fn listener() -> (Listener, Heard) {
    let (progress, progress_rx) = unbounded_channel();
    let (logs, logs_rx) = unbounded_channel();
    (
        Listener { progress, logs },
        Heard {
            progress: progress_rx,
            logs: logs_rx,
        },
    )
}

impl ClientHandler for Listener {
    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let _ = self.progress.send(params);
    }

    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let _ = self.logs.send(params);
    }
}

type ListeningClient = RunningService<RoleClient, Listener>;

async fn next<T>(rx: &mut UnboundedReceiver<T>, what: &str) -> T {
    tokio::time::timeout(PATIENCE, rx.recv())
        .await
        .unwrap_or_else(|_| panic!("{what} arrives in time"))
        .unwrap_or_else(|| panic!("{what}: the channel is still open"))
}

fn server(tools: Reporter) -> Server {
    Server::builder("context", "0.1.0")
        .tool_set(tools)
        .authenticator(FixedKeys::new())
        .audit(Recorder::default())
        .build()
        .expect("the server builds")
}

/// Sends `tools/call` for `name` and returns the handle (which knows the progress token rmcp's
/// client put into the request's `_meta`).
async fn start_call(client: &ListeningClient, name: &'static str) -> RequestHandle<RoleClient> {
    client
        .peer()
        .send_request_with_option(
            ClientRequest::CallToolRequest(CallToolRequest::new(call(name, json!({})))),
            PeerRequestOptions::no_options(),
        )
        .await
        .expect("the request is sent")
}

async fn finish(handle: RequestHandle<RoleClient>) -> Value {
    let answer = tokio::time::timeout(PATIENCE, handle.await_response())
        .await
        .expect("the call answers in time")
        .expect("the call succeeds");
    let ServerResult::CallToolResult(result) = answer else {
        panic!("a tools/call result, got {answer:?}");
    };
    assert_ne!(result.is_error, Some(true), "{}", text(&result));
    serde_json::from_str(&text(&result)).expect("the report is JSON")
}

/// Calls `report`; checks both progress notifications carry the request's token and the
/// report's own view of what it sent. Returns the report.
async fn report_with_progress(client: &ListeningClient, heard: &mut Heard) -> Value {
    let handle = start_call(client, "report").await;
    let token = handle.progress_token.clone();
    let report = finish(handle).await;
    assert_eq!(report["progress_sent"], json!(["Ok(true)", "Ok(true)"]));

    let first = next(&mut heard.progress, "the first progress notification").await;
    let second = next(&mut heard.progress, "the second progress notification").await;
    assert_eq!(first.progress_token, token);
    assert_eq!(second.progress_token, token);
    assert_eq!(
        (first.progress, first.total, first.message.as_deref()),
        (1.0, Some(2.0), Some("half way"))
    );
    assert_eq!(
        (second.progress, second.total, second.message.as_deref()),
        (2.0, Some(2.0), None)
    );
    report
}

fn assert_logged(log: &LoggingMessageNotificationParam) {
    assert_eq!(log.level, LoggingLevel::Info);
    assert_eq!(log.logger.as_deref(), Some("report"));
    assert_eq!(log.data, json!({"event": "report finished"}));
}

#[tokio::test]
async fn http_tool_reports_progress_and_logs_as_the_authenticated_principal() {
    let (tools, _events) = reporter();
    let running = Running::start(server(tools)).await;
    let (handler, mut heard) = listener();
    let client = handler
        .serve(http_transport(&running.url, &[("x-api-key", "admin-key")]))
        .await
        .expect("the client connects");
    assert!(
        client
            .peer_info()
            .and_then(|info| info.capabilities.logging.clone())
            .is_some(),
        "the server declares the logging capability"
    );

    let report = report_with_progress(&client, &mut heard).await;
    assert_eq!(report["principal"], "admin");
    assert_eq!(report["key_id"], "admin-key-id");
    assert_eq!(report["logged"], "Ok(true)");
    // Log messages travel on the session's standalone stream.
    assert_logged(&next(&mut heard.logs, "the log message").await);

    // Past `logging/setLevel warning`, the tool's info message is not sent.
    client
        .peer()
        .set_level(SetLevelRequestParams::new(LoggingLevel::Warning))
        .await
        .expect("the server accepts logging/setLevel");
    let report = report_with_progress(&client, &mut heard).await;
    assert_eq!(report["logged"], "Ok(false)");

    client.cancel().await.expect("the client closes");
    running.stop().await.expect("the server stops");
}

#[tokio::test]
async fn http_client_cancellation_reaches_the_tool() {
    let (tools, mut events) = reporter();
    let running = Running::start(server(tools)).await;
    let (handler, _heard) = listener();
    let client = handler
        .serve(http_transport(&running.url, &[("x-api-key", "reader-key")]))
        .await
        .expect("the client connects");

    let handle = start_call(&client, "wait_for_cancel").await;
    next(&mut events.started, "the tool's start").await;
    handle
        .cancel(Some("the user stopped it".to_owned()))
        .await
        .expect("the cancellation is sent");
    assert!(
        next(&mut events.outcome, "the tool's outcome").await,
        "the tool saw its cancellation"
    );

    client.cancel().await.expect("the client closes");
    running.stop().await.expect("the server stops");
}

/// Serves over an in-memory stdio pipe as `principal` and connects a listening client.
async fn connect_stdio(
    server: Server,
    principal: Principal,
) -> (
    ListeningClient,
    Heard,
    tokio::task::JoinHandle<Result<(), mcpgen_runtime::server::ServerError>>,
) {
    let (client_end, server_end) = tokio::io::duplex(64 * 1024);
    let (read, write) = tokio::io::split(server_end);
    let serving = tokio::spawn(async move { server.serve_io(principal, read, write).await });
    let (handler, heard) = listener();
    let client = handler
        .serve(client_end)
        .await
        .expect("the client initializes");
    (client, heard, serving)
}

#[tokio::test]
async fn stdio_tool_reports_progress_and_logs_as_the_fixed_principal() {
    let (tools, _events) = reporter();
    let (client, mut heard, serving) =
        connect_stdio(server(tools), FixedKeys::principal("reader-key")).await;

    let report = report_with_progress(&client, &mut heard).await;
    assert_eq!(report["principal"], "reader");
    assert_eq!(report["logged"], "Ok(true)");
    assert_logged(&next(&mut heard.logs, "the log message").await);

    client.cancel().await.expect("the client closes");
    let served = tokio::time::timeout(PATIENCE, serving)
        .await
        .expect("the server ends with the connection");
    served
        .expect("the server task does not panic")
        .expect("the server ends cleanly");
}

#[tokio::test]
async fn stdio_connection_closing_cancels_the_running_call() {
    let (tools, mut events) = reporter();
    let (client, _heard, serving) =
        connect_stdio(server(tools), FixedKeys::principal("reader-key")).await;

    let _handle = start_call(&client, "wait_for_cancel").await;
    next(&mut events.started, "the tool's start").await;
    client.cancel().await.expect("the client closes");
    assert!(
        next(&mut events.outcome, "the tool's outcome").await,
        "the tool saw the connection close"
    );
    let _ = tokio::time::timeout(PATIENCE, serving)
        .await
        .expect("the server ends with the connection");
}

#[tokio::test]
async fn in_process_calls_have_no_one_to_notify() {
    let (tools, _events) = reporter();
    let local = LocalConnection(tools);
    let result = local
        .call_tool("report", Map::new())
        .await
        .expect("the call runs");
    let Some(mcpgen_runtime::Content::Text(report)) = result.content.first() else {
        panic!("a text result");
    };
    let report: Value = serde_json::from_str(report).expect("the report is JSON");
    assert_eq!(report["progress_sent"], json!(["Ok(false)", "Ok(false)"]));
    assert_eq!(report["logged"], "Ok(false)");
    assert_eq!(report["principal"], Value::Null);
}

/// A `redis-server` on a free loopback port, without persistence, and its URL; killed on drop.
#[cfg(feature = "redis")]
async fn redis() -> (tokio::process::Child, String) {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let child = tokio::process::Command::new("redis-server")
        .args([
            "--port",
            &port.to_string(),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
        ])
        .stdout(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("redis-server is installed (scripts/test.sh installs it)");
    for _ in 0..200 {
        if tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_ok()
        {
            return (child, format!("redis://127.0.0.1:{port}"));
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("redis-server does not listen on {port}");
}

/// One JSON-RPC message POSTed on a 2025-06-18 session (none yet: `session` is `None`) to the
/// server at `url`; the response's session id and body.
#[cfg(feature = "redis")]
async fn post(url: &str, session: Option<&str>, message: Value) -> (Option<String>, String) {
    let mut request = reqwest::Client::new()
        .post(format!("{url}/mcp"))
        .header("x-api-key", "admin-key")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-06-18")
        .json(&message);
    if let Some(session) = session {
        request = request.header("mcp-session-id", session);
    }
    let response = request.send().await.expect("the server answers");
    assert!(
        response.status().is_success(),
        "{message}: {}",
        response.status()
    );
    let session = response
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    (session, response.text().await.expect("a body"))
}

/// A session opened on the server at `url`: its id.
#[cfg(feature = "redis")]
async fn open_session(url: &str) -> String {
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "context-test", "version": "0"}}});
    let (session, _) = post(url, None, initialize).await;
    let session = session.expect("a session id");
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    post(url, Some(&session), initialized).await;
    session
}

/// Whether the `report` tool, called on `session` at `url`, had its info message sent.
#[cfg(feature = "redis")]
async fn report_logged(url: &str, session: &str) -> String {
    let call = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": "report", "arguments": {}}});
    let (_, body) = post(url, Some(session), call).await;
    let answer: Value = body
        .lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .filter_map(|data| serde_json::from_str::<Value>(data.trim()).ok())
        .find(|message| message["id"] == 7)
        .unwrap_or_else(|| panic!("the call's answer: {body}"));
    let text = answer["result"]["content"][0]["text"]
        .as_str()
        .expect("a text result");
    let report: Value = serde_json::from_str(text).expect("the report");
    report["logged"].as_str().expect("logged").to_owned()
}

#[cfg(feature = "redis")]
#[tokio::test]
async fn a_session_s_log_level_holds_on_a_replica_that_rebuilds_it_from_the_store() {
    let (_redis, store) = redis().await;
    let replica = |tools| {
        let state = mcpgen_runtime::server::SharedState::new(&store).expect("the store's URL");
        Server::builder("context", "0.1.0")
            .tool_set(tools)
            .authenticator(FixedKeys::new())
            .audit(Recorder::default())
            .shared_state(state)
            .build()
            .expect("the server builds")
    };
    let a = Running::start(replica(reporter().0)).await;
    let b = Running::start(replica(reporter().0)).await;

    // A session that set no level has the info message sent on either replica.
    let plain = open_session(&a.url).await;
    assert_eq!(report_logged(&b.url, &plain).await, "Ok(true)");

    // One that set `warning` on the replica it opened on keeps it on the other.
    let quiet = open_session(&a.url).await;
    let set_level = json!({"jsonrpc": "2.0", "id": 2, "method": "logging/setLevel",
        "params": {"level": "warning"}});
    post(&a.url, Some(&quiet), set_level).await;
    assert_eq!(report_logged(&b.url, &quiet).await, "Ok(false)");
    assert_eq!(report_logged(&a.url, &quiet).await, "Ok(false)");

    a.stop().await.expect("a stops");
    b.stop().await.expect("b stops");
}
