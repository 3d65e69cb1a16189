//! `#[mcp_tool]` tools that use their `ToolContext` — the caller's principal, progress, log
//! messages and cancellation — served over Streamable HTTP on loopback and driven by rmcp's
//! client.
#![allow(deprecated)] // rmcp marks MCP logging for removal (SEP-2577); the protocol still has it.

use crate::support;

use std::time::Duration;

use mcpgen::auth::{AuthError, Authenticator};
use mcpgen::mcp_tools;
use mcpgen::schemars::JsonSchema;
use mcpgen::server::Server;
use mcpgen::{LogLevel, Principal, ToolContext};
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, ClientRequest, LoggingLevel,
    LoggingMessageNotificationParam, ProgressNotificationParam, ServerResult,
};
use rmcp::service::{NotificationContext, PeerRequestOptions, RequestHandle, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde::Serialize;
use serde_json::{Value, json};
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};
use tokio::sync::oneshot;

/// Longest any single step may take before the test gives up; never a measured duration.
const PATIENCE: Duration = Duration::from_secs(30);

/// What `import` did.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(crate = "mcpgen::schemars")]
struct Imported {
    /// Files imported.
    count: usize,
    /// Who asked.
    principal: Option<String>,
}

/// Tools whose state tells the test when `wait_for_stop` starts and whether it saw its
/// cancellation.
struct Jobs {
    started: UnboundedSender<()>,
    outcome: UnboundedSender<bool>,
}

#[mcp_tools]
impl Jobs {
    /// Imports files, reporting progress after each and logging when done.
    #[mcp_tool(read_only)]
    async fn import(&self, files: Vec<String>, ctx: &ToolContext) -> Result<Imported, String> {
        let total = files.len() as f64;
        for (done, file) in files.iter().enumerate() {
            let sent = ctx
                .progress((done + 1) as f64, Some(total), Some(file.as_str()))
                .await
                .map_err(|e| e.to_string())?;
            if !sent {
                return Err("the caller asked for no progress".to_owned());
            }
        }
        ctx.log(LogLevel::Notice, format!("imported {} files", files.len()))
            .await
            .map_err(|e| e.to_string())?;
        Ok(Imported {
            count: files.len(),
            principal: ctx.principal().map(|p| p.id.clone()),
        })
    }

    /// Runs until the caller cancels it.
    #[mcp_tool(read_only)]
    async fn wait_for_stop(&self, ctx: ToolContext) -> String {
        let _ = self.started.send(());
        let seen = tokio::time::timeout(PATIENCE, ctx.cancelled())
            .await
            .is_ok();
        let _ = self.outcome.send(seen && ctx.is_cancelled());
        "stopped".to_owned()
    }
}

/// One key, `ops-key`, for the principal `ops`.
struct OneKey;

impl Authenticator for OneKey {
    async fn authenticate(&self, credential: Option<&str>) -> Result<Principal, AuthError> {
        match credential {
            Some("ops-key") => Ok(Principal {
                key_id: Some("ops-key-id".to_owned()),
                ..Principal::unrestricted("ops")
            }),
            Some(_) => Err(AuthError::Invalid),
            None => Err(AuthError::Missing),
        }
    }
}

/// A client that passes on the progress and log notifications it receives.
#[derive(Clone)]
struct Listener {
    progress: UnboundedSender<ProgressNotificationParam>,
    logs: UnboundedSender<LoggingMessageNotificationParam>,
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

struct Setup {
    client: RunningService<RoleClient, Listener>,
    progress: UnboundedReceiver<ProgressNotificationParam>,
    logs: UnboundedReceiver<LoggingMessageNotificationParam>,
    started: UnboundedReceiver<()>,
    outcome: UnboundedReceiver<bool>,
    _stop: oneshot::Sender<()>,
}

async fn serve() -> Setup {
    let (started, started_rx) = unbounded_channel();
    let (outcome, outcome_rx) = unbounded_channel();
    let server = Server::builder("jobs", "0.1.0")
        .tool_set(Jobs { started, outcome }.into_tool_set())
        .authenticator(OneKey)
        .build()
        .expect("the server builds");
    let (addr, stop) = support::listen(server).await;
    let mut headers = std::collections::HashMap::new();
    headers.insert(
        reqwest::header::HeaderName::from_static("x-api-key"),
        reqwest::header::HeaderValue::from_static("ops-key"),
    );
    let config = StreamableHttpClientTransportConfig::with_uri(format!("http://{addr}/mcp"))
        .custom_headers(headers);
    let transport = StreamableHttpClientTransport::with_client(reqwest::Client::new(), config);
    let (progress, progress_rx) = unbounded_channel();
    let (logs, logs_rx) = unbounded_channel();
    let client = tokio::time::timeout(PATIENCE, Listener { progress, logs }.serve(transport))
        .await
        .expect("the client connects in time")
        .expect("the client connects");
    Setup {
        client,
        progress: progress_rx,
        logs: logs_rx,
        started: started_rx,
        outcome: outcome_rx,
        _stop: stop,
    }
}

async fn next<T>(rx: &mut UnboundedReceiver<T>, what: &str) -> T {
    tokio::time::timeout(PATIENCE, rx.recv())
        .await
        .unwrap_or_else(|_| panic!("{what} arrives in time"))
        .unwrap_or_else(|| panic!("{what}: the channel is still open"))
}

async fn start_call(
    client: &RunningService<RoleClient, Listener>,
    name: &'static str,
    args: Value,
) -> RequestHandle<RoleClient> {
    let Value::Object(args) = args else {
        panic!("arguments are an object");
    };
    let params = CallToolRequestParams::new(name).with_arguments(args);
    client
        .peer()
        .send_request_with_option(
            ClientRequest::CallToolRequest(CallToolRequest::new(params)),
            PeerRequestOptions::no_options(),
        )
        .await
        .expect("the request is sent")
}

#[tokio::test]
async fn a_macro_tool_reports_progress_and_logs_to_its_caller() {
    let mut setup = serve().await;
    let handle = start_call(
        &setup.client,
        "import",
        json!({"files": ["a.txt", "b.txt"]}),
    )
    .await;
    let token = handle.progress_token.clone();
    let answer = tokio::time::timeout(PATIENCE, handle.await_response())
        .await
        .expect("the call answers in time")
        .expect("the call succeeds");
    let ServerResult::CallToolResult(result) = answer else {
        panic!("a tools/call result, got {answer:?}");
    };
    assert_ne!(result.is_error, Some(true), "{result:?}");
    assert_eq!(
        result.structured_content,
        Some(json!({"count": 2, "principal": "ops"}))
    );

    for (done, file) in [(1.0, "a.txt"), (2.0, "b.txt")] {
        let progress = next(&mut setup.progress, "a progress notification").await;
        assert_eq!(progress.progress_token, token);
        assert_eq!(
            (
                progress.progress,
                progress.total,
                progress.message.as_deref()
            ),
            (done, Some(2.0), Some(file))
        );
    }
    let log = next(&mut setup.logs, "the log message").await;
    assert_eq!(log.level, LoggingLevel::Notice);
    assert_eq!(log.logger.as_deref(), Some("import"));
    assert_eq!(log.data, json!("imported 2 files"));
}

#[tokio::test]
async fn a_macro_tool_sees_its_call_cancelled() {
    let mut setup = serve().await;
    let handle = start_call(&setup.client, "wait_for_stop", json!({})).await;
    next(&mut setup.started, "the tool's start").await;
    handle
        .cancel(Some("no longer needed".to_owned()))
        .await
        .expect("the cancellation is sent");
    assert!(
        next(&mut setup.outcome, "the tool's outcome").await,
        "the tool saw its cancellation"
    );
}
