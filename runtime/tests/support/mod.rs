//! Shared pieces of the server tests: a small tool set, a fixed-key authenticator, a recording
//! audit sink, and helpers that start a real server on loopback and connect rmcp's clients;
//! in [`recording`], a recording upstream REST server; in [`child`], a test run in a child
//! process with its own environment.

pub mod child;
pub mod recording;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use http::{HeaderName, HeaderValue};
use mcpgen_runtime::audit::{AuditEvent, AuditSink};
use mcpgen_runtime::auth::{AuthError, Authenticator};
use mcpgen_runtime::server::{Server, ServerBuilder};
use mcpgen_runtime::{
    ArgBinding, BoxFuture, CallContext, HttpBinding, Principal, ToolAnnotations, ToolDef,
    ToolError, ToolResult, ToolSet,
};
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::{Map, Value, json};
use tokio::sync::oneshot;

// ---------------------------------------------------------------------------------------------
// The tool set.

const READ_ONLY: ToolAnnotations = ToolAnnotations {
    read_only_hint: Some(true),
    destructive_hint: None,
    idempotent_hint: Some(true),
    open_world_hint: Some(false),
};

/// A read-only tool without HTTP binding or output schema, for tool sets written in a test.
pub const fn read_tool(
    name: &'static str,
    description: &'static str,
    input_schema: &'static str,
) -> ToolDef {
    ToolDef {
        name,
        title: None,
        description,
        input_schema,
        output_schema: None,
        full_input_schema: None,
        full_output_schema: None,
        full_defs: None,
        documented_output_schema: None,
        wrap_output: false,
        access: mcpgen_runtime::Access::Read,
        annotations: READ_ONLY,
        confirm: false,
        required_scope: None,
        plugin: None,
        http: None,
        declaration: None,
        view: None,
    }
}

const WRITES: ToolAnnotations = ToolAnnotations {
    read_only_hint: Some(false),
    destructive_hint: Some(false),
    idempotent_hint: Some(false),
    open_world_hint: Some(false),
};

/// Read-only: lists notes.
pub const LIST_NOTES: ToolDef = ToolDef {
    name: "list_notes",
    title: Some("List notes"),
    description: "List the notes",
    input_schema: r#"{"type":"object","properties":{"limit":{"type":"integer","minimum":1}}}"#,
    output_schema: Some(
        r#"{"type":"object","properties":{"notes":{"type":"array","items":{"type":"string"}}},"required":["notes"]}"#,
    ),
    full_input_schema: None,
    full_output_schema: None,
    full_defs: None,
    documented_output_schema: None,
    wrap_output: false,
    access: mcpgen_runtime::Access::Read,
    annotations: READ_ONLY,
    confirm: false,
    required_scope: None,
    plugin: None,
    http: None,
    declaration: None,
    view: None,
};

/// Writes: needs the `notes:write` scope.
pub const ADD_NOTE: ToolDef = ToolDef {
    name: "add_note",
    title: Some("Add a note"),
    description: "Add a note",
    input_schema: r#"{"type":"object","properties":{"text":{"type":"string","minLength":1},"pinned":{"type":"boolean"}},"required":["text"]}"#,
    output_schema: None,
    full_input_schema: None,
    full_output_schema: None,
    full_defs: None,
    documented_output_schema: None,
    wrap_output: false,
    access: mcpgen_runtime::Access::Write,
    annotations: WRITES,
    confirm: false,
    required_scope: Some("notes:write"),
    plugin: None,
    http: None,
    declaration: None,
    view: None,
};

/// Read-only, in the `echo` plugin.
pub const PLUGIN_ECHO: ToolDef = ToolDef {
    name: "plugin_echo",
    title: None,
    description: "Echo a message (echo plugin)",
    input_schema: r#"{"type":"object","properties":{"message":{"type":"string"}},"required":["message"]}"#,
    output_schema: None,
    full_input_schema: None,
    full_output_schema: None,
    full_defs: None,
    documented_output_schema: None,
    wrap_output: false,
    access: mcpgen_runtime::Access::Read,
    annotations: READ_ONLY,
    confirm: false,
    required_scope: None,
    plugin: Some("echo"),
    http: None,
    declaration: None,
    view: None,
};

/// Read-only, with an HTTP binding; always fails as if the upstream answered 502.
pub const REMOTE_STATUS: ToolDef = ToolDef {
    name: "remote_status",
    title: None,
    description: "Ask the remote API for its status",
    input_schema: r#"{"type":"object","properties":{}}"#,
    output_schema: None,
    full_input_schema: None,
    full_output_schema: None,
    full_defs: None,
    documented_output_schema: None,
    wrap_output: false,
    access: mcpgen_runtime::Access::Read,
    annotations: READ_ONLY,
    confirm: false,
    required_scope: None,
    plugin: None,
    http: Some(HttpBinding {
        method: "GET",
        path: "/status",
        operation_id: "getStatus",
        args: &[] as &[ArgBinding],
        body: None,
        security: &[],
        server_url: None,
        task: false,
        cancel: &[],
    }),
    declaration: None,
    view: None,
};

/// Read-only: takes `ms` milliseconds, for shutdown tests.
pub const SLOW: ToolDef = read_tool(
    "slow",
    "Wait a little, then answer",
    r#"{"type":"object","properties":{"ms":{"type":"integer","minimum":0,"maximum":1000}},"required":["ms"]}"#,
);

pub static NOTE_TOOLS: &[ToolDef] = &[LIST_NOTES, ADD_NOTE, PLUGIN_ECHO, REMOTE_STATUS, SLOW];

/// Names of the tools the tool set was asked to run, in order.
pub type CallLog = Arc<Mutex<Vec<String>>>;

/// The in-test tool set.
#[derive(Clone, Default)]
pub struct Notes {
    pub calls: CallLog,
    pub tools: Option<&'static [ToolDef]>,
    /// The search index text the set hands to servers in search mode, if any.
    pub search_index: Option<&'static str>,
}

impl Notes {
    pub fn calls(&self) -> Vec<String> {
        self.calls.lock().unwrap().clone()
    }
}

impl ToolSet for Notes {
    fn tools(&self) -> &'static [ToolDef] {
        self.tools.unwrap_or(NOTE_TOOLS)
    }

    fn search_index(&self) -> Option<&'static str> {
        self.search_index
    }

    fn call<'a>(
        &'a self,
        tool: &'static ToolDef,
        args: Map<String, Value>,
        ctx: &'a CallContext,
    ) -> BoxFuture<'a, Result<ToolResult, ToolError>> {
        let name = tool.name;
        Box::pin(async move {
            self.calls.lock().unwrap().push(name.to_owned());
            match name {
                "list_notes" => {
                    let limit = args.get("limit").and_then(Value::as_u64).unwrap_or(2);
                    let notes: Vec<String> = (1..=limit).map(|i| format!("note {i}")).collect();
                    Ok(ToolResult::json(json!({ "notes": notes }), false))
                }
                "add_note" => Ok(ToolResult::text(format!(
                    "added: {}",
                    args.get("text").and_then(Value::as_str).unwrap_or_default()
                ))),
                "plugin_echo" => Ok(ToolResult::text(
                    args.get("message")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_owned(),
                )),
                "remote_status" => {
                    ctx.report_upstream(Some(502), false);
                    Ok(ToolResult::error(
                        "GET /status failed with status 502 Bad Gateway (empty body)",
                    ))
                }
                "slow" => {
                    let ms = args.get("ms").and_then(Value::as_u64).unwrap_or(0);
                    tokio::time::sleep(Duration::from_millis(ms)).await;
                    Ok(ToolResult::text(format!("waited {ms} ms")))
                }
                other => Err(ToolError::UnknownTool(other.to_owned())),
            }
        })
    }
}

// ---------------------------------------------------------------------------------------------
// Authentication and audit.

fn principal(id: &str, scopes: &[&str], plugins: &[&str], rate: Option<f64>) -> Principal {
    Principal {
        id: id.to_owned(),
        key_id: Some(format!("{id}-key-id")),
        scopes: scopes.iter().map(|s| (*s).to_owned()).collect(),
        plugins: plugins.iter().map(|s| (*s).to_owned()).collect(),
        rate_limit: rate,
    }
}

/// Fixed keys:
/// - `reader-key`: `mcp:read`;
/// - `writer-key`: `mcp:read mcp:write` (no `notes:write`);
/// - `notes-key`: `mcp:read notes:write`, plugin `echo`;
/// - `admin-key`: `mcp:*`, all plugins;
/// - `limited-key`: `mcp:*`, one call per second.
pub struct FixedKeys(HashMap<&'static str, Principal>);

impl FixedKeys {
    pub fn new() -> Self {
        let mut keys = HashMap::new();
        keys.insert("reader-key", principal("reader", &["mcp:read"], &[], None));
        keys.insert(
            "writer-key",
            principal("writer", &["mcp:read", "mcp:write"], &[], None),
        );
        keys.insert(
            "notes-key",
            principal("notes", &["mcp:read", "notes:write"], &["echo"], None),
        );
        keys.insert("admin-key", principal("admin", &["mcp:*"], &["*"], None));
        keys.insert(
            "limited-key",
            principal("limited", &["mcp:*"], &["*"], Some(1.0)),
        );
        Self(keys)
    }

    pub fn principal(key: &str) -> Principal {
        Self::new().0.get(key).cloned().expect("a test key")
    }
}

impl Authenticator for FixedKeys {
    async fn authenticate(&self, credential: Option<&str>) -> Result<Principal, AuthError> {
        let credential = credential.ok_or(AuthError::Missing)?;
        self.0.get(credential).cloned().ok_or(AuthError::Invalid)
    }
}

/// Keeps every audit event in memory.
#[derive(Clone, Default)]
pub struct Recorder {
    pub events: Arc<Mutex<Vec<AuditEvent>>>,
    pub flushes: Arc<Mutex<usize>>,
}

impl Recorder {
    pub fn events(&self) -> Vec<AuditEvent> {
        self.events.lock().unwrap().clone()
    }

    pub fn flushes(&self) -> usize {
        *self.flushes.lock().unwrap()
    }
}

impl AuditSink for Recorder {
    fn record<'a>(&'a self, event: AuditEvent) -> BoxFuture<'a, ()> {
        Box::pin(async move { self.events.lock().unwrap().push(event) })
    }

    fn flush<'a>(&'a self) -> BoxFuture<'a, ()> {
        Box::pin(async move { *self.flushes.lock().unwrap() += 1 })
    }
}

// ---------------------------------------------------------------------------------------------
// Running a server.

/// The standard test server: the notes tools, fixed keys, a recording audit sink.
pub fn builder(notes: &Notes, recorder: &Recorder) -> ServerBuilder {
    Server::builder("notes", "0.1.0")
        .description("Notes for tests")
        .tool_set(notes.clone())
        .authenticator(FixedKeys::new())
        .audit(recorder.clone())
}

/// A server listening on `127.0.0.1:0`.
pub struct Running {
    pub addr: SocketAddr,
    pub url: String,
    stop: Option<oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<Result<(), mcpgen_runtime::server::ServerError>>,
}

impl Running {
    pub async fn start(server: Server) -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            server
                .serve_listener(listener, async move {
                    let _ = stopped.await;
                })
                .await
        });
        Self {
            addr,
            url: format!("http://{addr}"),
            stop: Some(stop),
            task,
        }
    }

    /// Triggers shutdown without waiting.
    pub fn trigger_stop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }

    /// Shuts down and waits for the server to return.
    pub async fn stop(mut self) -> Result<(), mcpgen_runtime::server::ServerError> {
        self.trigger_stop();
        tokio::time::timeout(Duration::from_secs(10), self.task)
            .await
            .expect("the server stops in time")
            .expect("the server task does not panic")
    }
}

pub type Client = RunningService<RoleClient, ()>;

/// rmcp's Streamable HTTP client with `headers` on every request.
pub fn http_transport(
    url: &str,
    headers: &[(&'static str, &str)],
) -> StreamableHttpClientTransport<reqwest::Client> {
    let mut map = HashMap::new();
    for (name, value) in headers {
        map.insert(
            HeaderName::from_static(name),
            HeaderValue::from_str(value).unwrap(),
        );
    }
    let config =
        StreamableHttpClientTransportConfig::with_uri(format!("{url}/mcp")).custom_headers(map);
    StreamableHttpClientTransport::with_client(reqwest::Client::new(), config)
}

/// Connects with the `initialize` handshake (a session) as the holder of `key`.
pub async fn connect(url: &str, key: &str) -> Client {
    ().serve(http_transport(url, &[("x-api-key", key)]))
        .await
        .expect("the client connects")
}

pub fn args(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("arguments must be an object, got {other}"),
    }
}

pub fn call(name: &'static str, arguments: Value) -> CallToolRequestParams {
    CallToolRequestParams::new(name).with_arguments(args(arguments))
}

/// The text of a result's text blocks, joined.
pub fn text(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Tool names of a list, sorted.
pub fn names(tools: &[rmcp::model::Tool]) -> Vec<String> {
    let mut names: Vec<String> = tools.iter().map(|t| t.name.to_string()).collect();
    names.sort();
    names
}

/// The `Accept` value that lets a stateless request take the runtime's own path.
pub const RUNTIME_PATH: &str = "application/json, text/event-stream";
/// The same media types with weights: the same to rmcp, but such a request is answered by rmcp.
pub const THROUGH_RMCP: &str = "application/json;q=1, text/event-stream;q=1";

/// What a stateless POST was answered with.
#[derive(Debug, PartialEq)]
pub struct Answer {
    pub status: u16,
    pub content_type: String,
    pub body: String,
}

/// The `_meta` of a stateless 2026-07-28 request, with `extra` entries added.
pub fn stateless_meta(extra: Value) -> Value {
    let mut meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    if let (Some(meta), Some(extra)) = (meta.as_object_mut(), extra.as_object()) {
        meta.extend(extra.clone());
    }
    meta
}

/// POSTs the stateless JSON-RPC request `body` to `{url}/mcp` as the holder of `key`, with
/// `Mcp-Method: method` and the extra `headers`; `accept` decides the path it takes.
pub async fn post_stateless(
    url: &str,
    key: &str,
    method: &str,
    headers: &[(&str, &str)],
    body: &Value,
    accept: &str,
) -> Answer {
    let mut request = reqwest::Client::new()
        .post(format!("{url}/mcp"))
        .header("content-type", "application/json")
        .header("accept", accept)
        .header("x-api-key", key)
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", method);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request.body(body.to_string()).send().await.unwrap();
    let status = response.status().as_u16();
    let content_type = response.headers()["content-type"]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(response.headers().get("mcp-session-id").is_none());
    Answer {
        status,
        content_type,
        body: response.text().await.unwrap(),
    }
}

/// The `_meta` of a stateless request from a client that declared the tasks extension (or not).
pub fn task_meta(tasks: bool) -> Value {
    let capabilities = if tasks {
        json!({"extensions": {"io.modelcontextprotocol/tasks": {}}})
    } else {
        json!({})
    };
    stateless_meta(json!({"io.modelcontextprotocol/clientCapabilities": capabilities}))
}

/// The JSON-RPC answer of a stateless request of `method` naming `name` (its `Mcp-Name`) with
/// `params`, as the holder of `key`, on the runtime's own path.
pub async fn stateless_request(
    url: &str,
    key: &str,
    method: &str,
    name: &str,
    params: Value,
) -> Value {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let answer = post_stateless(url, key, method, &[("mcp-name", name)], &body, RUNTIME_PATH).await;
    serde_json::from_str(&answer.body).unwrap_or_else(|e| panic!("{e}: {}", answer.body))
}
