//! A served OpenAPI tool set calling a real recording REST server on loopback, configured
//! through the generated binary's flags (`cli::upstream`, `cli::server_builder`): configured
//! and passed-through credentials arrive exactly; forwarded headers; output checking; the
//! response cap; timeouts in the audit log; and no secret ever reaches the logs (captured at
//! trace level) or the audit file.

#[allow(dead_code)] // the shared helpers of `main`; this binary uses some of them
mod support;

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use base64::Engine as _;
use clap::Parser as _;
use mcpgen_runtime::cli::{App, ServeArgs};
use mcpgen_runtime::{
    HttpBinding, OpenApiTools, SecurityScheme, SecuritySchemeKind, ToolAnnotations, ToolDef, cli,
};
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use serde_json::{Value, json};
use support::recording::{Recording, Routes};
use support::{Client, Running, http_transport, text};

/// Bound on every wait, so a bug cannot hang the suite.
const WAIT: Duration = Duration::from_secs(10);

// ---------------------------------------------------------------------------------------------
// Everything logged by this test binary, at trace level, from every crate.

fn log_buffer() -> &'static Arc<Mutex<Vec<u8>>> {
    static BUFFER: OnceLock<Arc<Mutex<Vec<u8>>>> = OnceLock::new();
    BUFFER.get_or_init(|| {
        let buffer = Arc::new(Mutex::new(Vec::new()));
        let sink = buffer.clone();
        tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::new("trace"))
            .with_ansi(false)
            .with_writer(move || LogWriter(sink.clone()))
            .init();
        buffer
    })
}

struct LogWriter(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for LogWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn logs() -> String {
    String::from_utf8_lossy(&log_buffer().lock().unwrap()).into_owned()
}

/// Fails if any of `secrets` (or its base64 or percent-encoded form) is in the captured logs
/// or in the audit file.
#[track_caller]
fn assert_no_secrets(audit: &Path, secrets: &[&str]) {
    let logs = logs();
    assert!(
        logs.contains("upstream responded"),
        "the log capture is not working (no upstream debug event):\n{logs}"
    );
    let audit = std::fs::read_to_string(audit).expect("the audit file exists");
    assert!(!audit.trim().is_empty(), "the audit file is empty");
    for secret in secrets {
        let forms = [
            (*secret).to_owned(),
            base64::engine::general_purpose::STANDARD.encode(secret),
        ];
        for form in &forms {
            assert!(!logs.contains(form.as_str()), "`{form}` is in the logs");
            assert!(
                !audit.contains(form.as_str()),
                "`{form}` is in the audit file"
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The recording REST server.

type Rest = Recording<Answers>;

/// Starts the recording REST server, capturing logs from the first event on.
async fn start_rest() -> Rest {
    log_buffer();
    Rest::start().await
}

struct Answers;

impl Routes for Answers {
    async fn answer(path: &str) -> Response {
        let json = |body: &'static str| {
            (
                StatusCode::OK,
                [(header::CONTENT_TYPE, "application/json")],
                body,
            )
                .into_response()
        };
        match path {
            "/slow" => {
                tokio::time::sleep(Duration::from_secs(5)).await;
                json(r#"{"id":1,"name":"late"}"#)
            }
            "/bad-output" => json(r#"{"id":"seven","name":"x"}"#),
            _ => json(r#"{"id":7,"name":"a thing"}"#),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The API: its security schemes and tools.

const SCHEMES: &[SecurityScheme] = &[
    SecurityScheme {
        name: "hdr",
        kind: SecuritySchemeKind::ApiKeyHeader("X-Upstream-Key"),
    },
    SecurityScheme {
        name: "qry",
        kind: SecuritySchemeKind::ApiKeyQuery("api_key"),
    },
    SecurityScheme {
        name: "ck",
        kind: SecuritySchemeKind::ApiKeyCookie("session"),
    },
    SecurityScheme {
        name: "bearer",
        kind: SecuritySchemeKind::Bearer,
    },
];

const BASIC_SCHEMES: &[SecurityScheme] = &[SecurityScheme {
    name: "basic",
    kind: SecuritySchemeKind::Basic,
}];

const THING_SCHEMA: &str = r#"{"type":"object","properties":{"id":{"type":"integer"},"name":{"type":"string"}},"required":["id"]}"#;

const fn tool(
    name: &'static str,
    path: &'static str,
    security: &'static [&'static str],
    output_schema: Option<&'static str>,
) -> ToolDef {
    ToolDef {
        name,
        title: None,
        description: "a test tool",
        input_schema: r#"{"type":"object"}"#,
        output_schema,
        full_input_schema: None,
        full_output_schema: None,
        full_defs: None,
        documented_output_schema: None,
        wrap_output: false,
        access: mcpgen_runtime::Access::Read,
        annotations: ToolAnnotations {
            read_only_hint: Some(true),
            destructive_hint: None,
            idempotent_hint: None,
            open_world_hint: None,
        },
        confirm: false,
        required_scope: None,
        plugin: None,
        http: Some(HttpBinding {
            method: "GET",
            path,
            operation_id: name,
            args: &[],
            body: None,
            security,
            server_url: None,
            task: false,
            cancel: &[],
        }),
        declaration: None,
        view: None,
    }
}

static TOOLS: &[ToolDef] = &[
    tool("get_hdr", "/things/1", &["hdr"], Some(THING_SCHEMA)),
    tool("get_qry", "/things/1", &["qry"], None),
    tool("get_ck", "/things/1", &["ck"], None),
    tool("get_bearer", "/things/1", &["bearer"], None),
    // Header and query both accepted: the header is preferred.
    tool("get_any", "/things/1", &["qry", "hdr"], None),
    tool("get_open", "/things/1", &[], None),
    tool("get_bad", "/bad-output", &[], Some(THING_SCHEMA)),
    tool("get_slow", "/slow", &[], None),
];

fn app(schemes: &'static [SecurityScheme]) -> App {
    App {
        name: "things",
        version: "1.0.0",
        description: "things for tests",
        title: "Things",
        default_upstream_url: None,
        security_schemes: schemes,
    }
}

/// The caller's key, as in the keys file.
const CALLER_KEY: &str = "caller-secret-9f3a1";

/// A scratch directory with a keys file accepting [`CALLER_KEY`]; the audit log goes there too.
struct Scratch {
    dir: PathBuf,
}

impl Scratch {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!(
            "mcpgen-server-upstream-{name}-{}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let mut keys = std::fs::File::create(dir.join("keys.yaml")).unwrap();
        writeln!(
            keys,
            "keys:\n  - id: caller-key\n    key: {CALLER_KEY}\n    principal: caller\n    scopes: [\"mcp:*\"]"
        )
        .unwrap();
        Self { dir }
    }

    fn keys(&self) -> String {
        self.dir.join("keys.yaml").display().to_string()
    }

    fn audit(&self) -> PathBuf {
        self.dir.join("audit.jsonl")
    }

    fn audit_records(&self) -> Vec<Value> {
        std::fs::read_to_string(self.audit())
            .unwrap_or_default()
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The flags of a server for `rest`, with a keys file and an audit log, plus `extra`.
fn flags(rest: &Rest, scratch: &Scratch, extra: &[&str]) -> ServeArgs {
    let mut argv = vec![
        "things-mcp".to_owned(),
        "--transport".to_owned(),
        "http".to_owned(),
        "--upstream-url".to_owned(),
        rest.base.clone(),
        "--keys".to_owned(),
        scratch.keys(),
        "--audit-log".to_owned(),
        scratch.audit().display().to_string(),
        "--audit-fsync".to_owned(),
        "always".to_owned(),
        "--audit-args".to_owned(),
    ];
    argv.extend(extra.iter().map(|s| (*s).to_owned()));
    ServeArgs::try_parse_from(argv).expect("the flags parse")
}

/// Starts the server the flags describe.
async fn serve(app: &App, args: &ServeArgs) -> Running {
    log_buffer();
    let upstream = cli::upstream(app, args).expect("the upstream is configured");
    let server = cli::server_builder(app, args, OpenApiTools::new(TOOLS, upstream))
        .expect("the server is configured")
        .build()
        .expect("the server builds");
    Running::start(server).await
}

async fn connect(url: &str, headers: &[(&'static str, &str)]) -> Client {
    tokio::time::timeout(WAIT, ().serve(http_transport(url, headers)))
        .await
        .expect("the client connects in time")
        .expect("the client connects")
}

async fn call(client: &Client, name: &'static str) -> CallToolResult {
    tokio::time::timeout(WAIT, client.call_tool(CallToolRequestParams::new(name)))
        .await
        .expect("the call is answered in time")
        .expect("the call is answered")
}

#[track_caller]
fn assert_success(result: &CallToolResult) {
    assert_ne!(result.is_error, Some(true), "{}", text(result));
}

// ---------------------------------------------------------------------------------------------
// Configured credentials.

#[tokio::test(flavor = "multi_thread")]
async fn configured_key_and_bearer_arrive_exactly_and_are_never_logged_or_audited() {
    const KEY: &str = "upstream-key-7c2e;";
    const TOKEN: &str = "upstream-bearer-51d0";
    let rest = start_rest().await;
    let scratch = Scratch::new("configured");
    // A `;` cannot go in a cookie, so the apiKey-in-cookie scheme refuses this key clearly.
    let refused = cli::upstream(
        &app(SCHEMES),
        &flags(&rest, &scratch, &["--upstream-api-key", KEY]),
    )
    .unwrap_err();
    assert!(
        refused.contains("Cookie(session=***)") && !refused.contains(KEY),
        "{refused}"
    );

    const COOKIE_KEY: &str = "upstream-key-7c2e";
    let args = flags(
        &rest,
        &scratch,
        &["--upstream-api-key", COOKIE_KEY, "--upstream-bearer", TOKEN],
    );
    let server = serve(&app(SCHEMES), &args).await;
    let client = connect(&server.url, &[("x-api-key", CALLER_KEY)]).await;
    let result = call(&client, "get_open").await;
    assert_success(&result);

    let request = rest.only_request();
    assert_eq!(request.target, format!("/things/1?api_key={COOKIE_KEY}"));
    assert_eq!(request.header("x-upstream-key"), Some(COOKIE_KEY));
    assert_eq!(
        request.header("cookie"),
        Some(format!("session={COOKIE_KEY}").as_str())
    );
    assert_eq!(
        request.header("authorization"),
        Some(format!("Bearer {TOKEN}").as_str())
    );
    // Without pass-through, the caller's own key goes nowhere.
    let wire = format!("{request:?}");
    assert!(!wire.contains(CALLER_KEY), "{wire}");

    client.cancel().await.unwrap();
    server.stop().await.unwrap();
    assert_no_secrets(&scratch.audit(), &[COOKIE_KEY, TOKEN, CALLER_KEY]);
}

#[tokio::test(flavor = "multi_thread")]
async fn configured_basic_credentials_arrive_exactly_and_are_never_logged_or_audited() {
    const PASSWORD: &str = "basic-password-e81b";
    let rest = start_rest().await;
    let scratch = Scratch::new("basic");
    let user_pass = format!("alice:{PASSWORD}");
    let args = flags(&rest, &scratch, &["--upstream-basic", &user_pass]);
    let server = serve(&app(BASIC_SCHEMES), &args).await;
    let client = connect(&server.url, &[("x-api-key", CALLER_KEY)]).await;
    assert_success(&call(&client, "get_open").await);

    let expected = format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(&user_pass)
    );
    assert_eq!(
        rest.only_request().header("authorization"),
        Some(expected.as_str())
    );
    client.cancel().await.unwrap();
    server.stop().await.unwrap();
    assert_no_secrets(&scratch.audit(), &[PASSWORD, &user_pass, CALLER_KEY]);
}

#[tokio::test]
async fn credential_flags_the_api_cannot_take_are_refused_at_start() {
    let rest = start_rest().await;
    let scratch = Scratch::new("refused");
    let basic = cli::upstream(
        &app(SCHEMES),
        &flags(&rest, &scratch, &["--upstream-basic", "alice:pw-secret"]),
    )
    .unwrap_err();
    assert!(
        basic.contains("--upstream-basic") && basic.contains("no HTTP basic security scheme"),
        "{basic}"
    );
    assert!(!basic.contains("pw-secret"), "{basic}");

    let no_colon = cli::upstream(
        &app(BASIC_SCHEMES),
        &flags(&rest, &scratch, &["--upstream-basic", "alice"]),
    )
    .unwrap_err();
    assert!(no_colon.contains("USER:PASSWORD"), "{no_colon}");

    let key = cli::upstream(
        &app(BASIC_SCHEMES),
        &flags(&rest, &scratch, &["--upstream-api-key", "k"]),
    )
    .unwrap_err();
    assert!(
        key.contains("no apiKey security scheme") && key.contains("`basic` (HTTP basic"),
        "{key}"
    );

    let pass_through = cli::upstream(
        &app(BASIC_SCHEMES),
        &flags(&rest, &scratch, &["--upstream-pass-through"]),
    )
    .unwrap_err();
    assert!(
        pass_through.contains("no apiKey (header, query or cookie) or HTTP bearer"),
        "{pass_through}"
    );

    for (value, why) in [("0", "positive"), ("x", "positive")] {
        let parsed =
            ServeArgs::try_parse_from(["things-mcp", "--upstream-max-response-bytes", value]);
        let err = parsed.unwrap_err().to_string();
        assert!(err.contains(why), "{err}");
    }
    assert!(ServeArgs::try_parse_from(["things-mcp", "--upstream-timeout", "0"]).is_err());
}

// ---------------------------------------------------------------------------------------------
// Pass-through of the caller's credential.

#[tokio::test(flavor = "multi_thread")]
async fn the_callers_key_is_passed_through_in_each_scheme_and_never_logged_or_audited() {
    let rest = start_rest().await;
    let scratch = Scratch::new("pass-through");
    let args = flags(&rest, &scratch, &["--upstream-pass-through"]);
    let server = serve(&app(SCHEMES), &args).await;

    // The caller authenticates with `Authorization: Bearer`.
    let bearer = format!("Bearer {CALLER_KEY}");
    let client = connect(&server.url, &[("authorization", &bearer)]).await;

    assert_success(&call(&client, "get_hdr").await);
    let request = rest.take().remove(0);
    assert_eq!(request.header("x-upstream-key"), Some(CALLER_KEY));
    assert_eq!(request.target, "/things/1");
    assert_eq!(request.header("authorization"), None);

    assert_success(&call(&client, "get_qry").await);
    assert_eq!(
        rest.take().remove(0).target,
        format!("/things/1?api_key={CALLER_KEY}")
    );

    assert_success(&call(&client, "get_ck").await);
    assert_eq!(
        rest.take().remove(0).header("cookie"),
        Some(format!("session={CALLER_KEY}").as_str())
    );

    assert_success(&call(&client, "get_bearer").await);
    assert_eq!(
        rest.take().remove(0).header("authorization"),
        Some(bearer.as_str())
    );

    assert_success(&call(&client, "get_any").await);
    let request = rest.take().remove(0);
    assert_eq!(request.header("x-upstream-key"), Some(CALLER_KEY));
    assert_eq!(request.target, "/things/1", "the header is preferred");

    // An operation without security gets nothing.
    assert_success(&call(&client, "get_open").await);
    let wire = format!("{:?}", rest.take().remove(0));
    assert!(!wire.contains(CALLER_KEY), "{wire}");
    client.cancel().await.unwrap();

    // The same with `X-API-Key`.
    let client = connect(&server.url, &[("x-api-key", CALLER_KEY)]).await;
    assert_success(&call(&client, "get_hdr").await);
    assert_eq!(
        rest.take().remove(0).header("x-upstream-key"),
        Some(CALLER_KEY)
    );
    client.cancel().await.unwrap();

    server.stop().await.unwrap();
    assert_no_secrets(&scratch.audit(), &[CALLER_KEY]);
}

#[tokio::test(flavor = "multi_thread")]
async fn without_pass_through_the_callers_key_is_not_sent() {
    let rest = start_rest().await;
    let scratch = Scratch::new("no-pass-through");
    let server = serve(&app(SCHEMES), &flags(&rest, &scratch, &[])).await;
    let client = connect(&server.url, &[("x-api-key", CALLER_KEY)]).await;
    for tool in ["get_hdr", "get_qry", "get_ck", "get_bearer"] {
        assert_success(&call(&client, tool).await);
    }
    for request in rest.take() {
        let wire = format!("{request:?}");
        assert!(!wire.contains(CALLER_KEY), "{wire}");
    }
    client.cancel().await.unwrap();
    server.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn on_stdio_the_key_the_server_was_started_with_is_passed_through() {
    let rest = start_rest().await;
    let scratch = Scratch::new("stdio");
    let mut args = flags(&rest, &scratch, &["--upstream-pass-through"]);
    args.transport = cli::Transport::Stdio;
    let upstream = cli::upstream(&app(SCHEMES), &args).unwrap();
    let server = cli::server_builder(&app(SCHEMES), &args, OpenApiTools::new(TOOLS, upstream))
        .unwrap()
        .build()
        .unwrap();
    let (client_io, server_io) = tokio::io::duplex(64 * 1024);
    let (read, write) = tokio::io::split(server_io);
    let principal = mcpgen_runtime::Principal::unrestricted("local");
    let serving = tokio::spawn(async move {
        server
            .serve_io_with(
                principal,
                Some(mcpgen_runtime::CallerCredential::new(CALLER_KEY)),
                read,
                write,
            )
            .await
    });
    let client = tokio::time::timeout(WAIT, ().serve(client_io))
        .await
        .unwrap()
        .unwrap();
    assert_success(&call(&client, "get_qry").await);
    assert_eq!(
        rest.only_request().target,
        format!("/things/1?api_key={CALLER_KEY}")
    );
    client.cancel().await.unwrap();
    tokio::time::timeout(WAIT, serving)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert_no_secrets(&scratch.audit(), &[CALLER_KEY]);
}

/// One `GET /sse` session driven by hand: the endpoint event, then POSTs answered on the stream.
struct SseSession {
    response: reqwest::Response,
    buffer: String,
    endpoint: String,
}

impl SseSession {
    async fn open(url: &str, key: &str) -> Self {
        let response = tokio::time::timeout(
            WAIT,
            reqwest::Client::new()
                .get(format!("{url}/sse"))
                .header("accept", "text/event-stream")
                .header("x-api-key", key)
                .send(),
        )
        .await
        .unwrap()
        .unwrap();
        assert_eq!(response.status(), 200);
        let mut session = Self {
            response,
            buffer: String::new(),
            endpoint: String::new(),
        };
        let (event, data) = session.next_event().await;
        assert_eq!(event, "endpoint");
        session.endpoint = format!("{url}{data}");
        session
    }

    async fn next_event(&mut self) -> (String, String) {
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let block: String = self.buffer.drain(..end + 2).collect();
                let mut event = "message".to_owned();
                let mut data = None;
                for line in block.lines() {
                    if let Some(value) = line.strip_prefix("event:") {
                        event = value.trim().to_owned();
                    } else if let Some(value) = line.strip_prefix("data:") {
                        data = Some(value.trim_start().to_owned());
                    }
                }
                if let Some(data) = data {
                    return (event, data);
                }
                continue;
            }
            let chunk = tokio::time::timeout(WAIT, self.response.chunk())
                .await
                .expect("an event in time")
                .unwrap()
                .expect("the stream is open");
            self.buffer.push_str(std::str::from_utf8(&chunk).unwrap());
        }
    }

    async fn post(&self, key: &str, headers: &[(&str, &str)], message: Value) {
        let mut request = reqwest::Client::new()
            .post(&self.endpoint)
            .header("content-type", "application/json")
            .header("x-api-key", key)
            .body(message.to_string());
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let response = tokio::time::timeout(WAIT, request.send())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(response.status(), 202);
    }

    /// `initialize`, `notifications/initialized`, then one `tools/call`; the call's answer.
    async fn call_once(&mut self, key: &str, headers: &[(&str, &str)], tool: &str) -> Value {
        self.post(
            key,
            headers,
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2024-11-05",
                "capabilities": {},
                "clientInfo": {"name": "legacy", "version": "1"},
            }}),
        )
        .await;
        let (_, answer) = self.next_event().await;
        assert!(answer.contains("\"id\":1"), "{answer}");
        self.post(
            key,
            headers,
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        )
        .await;
        self.post(
            key,
            headers,
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                   "params": {"name": tool, "arguments": {}}}),
        )
        .await;
        let (_, answer) = self.next_event().await;
        serde_json::from_str(&answer).unwrap()
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn pass_through_and_forwarded_headers_work_on_the_legacy_sse_transport() {
    let rest = start_rest().await;
    let scratch = Scratch::new("sse");
    let args = flags(
        &rest,
        &scratch,
        &["--upstream-pass-through", "--forward-header", "X-Tenant"],
    );
    let server = serve(&app(SCHEMES), &args).await;
    let mut session = SseSession::open(&server.url, CALLER_KEY).await;
    let answer = session
        .call_once(CALLER_KEY, &[("x-tenant", "tenant-42")], "get_hdr")
        .await;
    assert_eq!(answer["id"], 2, "{answer}");
    assert_ne!(answer["result"]["isError"], true, "{answer}");
    let request = rest.only_request();
    assert_eq!(request.header("x-upstream-key"), Some(CALLER_KEY));
    assert_eq!(request.header("x-tenant"), Some("tenant-42"));
    drop(session);
    server.stop().await.unwrap();
    assert_no_secrets(&scratch.audit(), &[CALLER_KEY]);
}

// ---------------------------------------------------------------------------------------------
// Forwarded headers.

#[tokio::test(flavor = "multi_thread")]
async fn only_allowlisted_headers_are_forwarded() {
    let rest = start_rest().await;
    let scratch = Scratch::new("forward");
    let args = flags(
        &rest,
        &scratch,
        &[
            "--forward-header",
            "X-Tenant",
            "--forward-header",
            "traceparent",
        ],
    );
    assert_eq!(args.forward_headers, ["X-Tenant", "traceparent"]);
    let server = serve(&app(SCHEMES), &args).await;
    let client = connect(
        &server.url,
        &[
            ("x-api-key", CALLER_KEY),
            ("x-tenant", "tenant-7"),
            (
                "traceparent",
                "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
            ),
            ("x-other", "not-forwarded"),
        ],
    )
    .await;
    assert_success(&call(&client, "get_open").await);
    let request = rest.only_request();
    assert_eq!(request.header("x-tenant"), Some("tenant-7"));
    // The server continues the caller's trace: the same trace id, with a span of its own.
    let traceparent = request.header("traceparent").unwrap_or_default();
    assert!(
        traceparent.starts_with("00-0af7651916cd43dd8448eb211c80319c-")
            && !traceparent.contains("b7ad6b7169203331"),
        "{traceparent}"
    );
    assert_eq!(request.header("x-other"), None);
    assert_eq!(request.header("x-api-key"), None);
    client.cancel().await.unwrap();
    server.stop().await.unwrap();
}

#[tokio::test]
async fn hop_by_hop_and_framing_headers_are_refused_at_start() {
    let rest = start_rest().await;
    let scratch = Scratch::new("forward-refused");
    let args = flags(
        &rest,
        &scratch,
        &[
            "--forward-header",
            "Host,Content-Length,X-Fine",
            "--forward-header",
            "Transfer-Encoding",
            "--forward-header",
            "connection",
            "--forward-header",
            "bad header",
            "--forward-header",
            "Authorization,X-API-Key",
        ],
    );
    let upstream = cli::upstream(&app(SCHEMES), &args).unwrap();
    let err = cli::server_builder(&app(SCHEMES), &args, OpenApiTools::new(TOOLS, upstream))
        .unwrap()
        .build()
        .unwrap_err()
        .to_string();
    for name in ["Host", "Content-Length", "Transfer-Encoding", "connection"] {
        assert!(
            err.contains(&format!("forwarded header `{name}`: it describes")),
            "{name}: {err}"
        );
    }
    assert!(
        err.contains("`bad header`: not a valid HTTP header name"),
        "{err}"
    );
    for name in ["Authorization", "X-API-Key"] {
        assert!(
            err.contains(&format!(
                "forwarded header `{name}`: it carries the caller's credential"
            )),
            "{name}: {err}"
        );
    }
    assert!(!err.contains("X-Fine"), "{err}");
}

// ---------------------------------------------------------------------------------------------
// Output checking.

async fn call_bad_output(mode: &str) -> (CallToolResult, Running, Scratch) {
    let rest = start_rest().await;
    let scratch = Scratch::new(&format!("output-{mode}"));
    let args = flags(&rest, &scratch, &["--output-check", mode]);
    let server = serve(&app(SCHEMES), &args).await;
    let client = connect(&server.url, &[("x-api-key", CALLER_KEY)]).await;
    let result = call(&client, "get_bad").await;
    // A conforming result passes in every mode.
    assert_success(&call(&client, "get_hdr").await);
    client.cancel().await.unwrap();
    (result, server, scratch)
}

const OUTPUT_WARNING: &str = "the result does not fit the tool's advertised output schema";

#[tokio::test(flavor = "multi_thread")]
async fn strict_output_check_turns_a_mismatch_into_an_error_naming_the_location() {
    let (result, server, scratch) = call_bad_output("strict").await;
    assert_eq!(result.is_error, Some(true));
    let message = text(&result);
    assert!(
        message.contains("`get_bad`") && message.contains("output schema"),
        "{message}"
    );
    assert!(message.contains("`/id`"), "{message}");
    assert_eq!(result.structured_content, None);
    server.stop().await.unwrap();
    let records = scratch.audit_records();
    let record = records.iter().find(|r| r["tool"] == "get_bad").unwrap();
    assert_eq!(record["upstream_status"], 200, "{record}");
    assert_ne!(record["status"], "ok", "{record}");
}

#[tokio::test(flavor = "multi_thread")]
async fn tolerant_output_check_sends_data_that_does_not_fit_as_an_error_result_with_the_data() {
    // `warn` is the old name of `tolerant`, the default: both spellings are accepted.
    for mode in ["tolerant", "warn"] {
        let (result, server, _scratch) = call_bad_output(mode).await;
        assert_eq!(result.is_error, Some(true), "{mode}");
        // Clients reject structured content that fails the advertised schema, even on errors.
        assert_eq!(result.structured_content, None, "{mode}");
        let message = text(&result);
        assert!(message.contains("`/id`"), "{mode}: {message}");
        assert!(
            message.contains(r#"{"id":"seven","name":"x"}"#),
            "{mode}: the data reaches the model as text: {message}"
        );
        server.stop().await.unwrap();
        let logs = logs();
        let warning = logs
            .lines()
            .find(|line| line.contains(OUTPUT_WARNING) && line.contains("get_bad"))
            .unwrap_or_else(|| panic!("no warning for get_bad in:\n{logs}"));
        assert!(warning.contains("WARN"), "{warning}");
        assert!(warning.contains("/id"), "{warning}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn output_check_off_returns_the_data_unchecked() {
    let (result, server, _scratch) = call_bad_output("off").await;
    assert_success(&result);
    assert_eq!(
        result.structured_content,
        Some(json!({"id": "seven", "name": "x"}))
    );
    server.stop().await.unwrap();
}

// ---------------------------------------------------------------------------------------------
// Limits.

#[tokio::test(flavor = "multi_thread")]
async fn an_upstream_timeout_is_audited_as_timeout() {
    let rest = start_rest().await;
    let scratch = Scratch::new("timeout");
    let args = flags(&rest, &scratch, &["--upstream-timeout", "1"]);
    let server = serve(&app(SCHEMES), &args).await;
    let client = connect(&server.url, &[("x-api-key", CALLER_KEY)]).await;
    let result = call(&client, "get_slow").await;
    assert_eq!(result.is_error, Some(true));
    assert!(
        text(&result).contains("timed out after 1 s"),
        "{}",
        text(&result)
    );
    assert_success(&call(&client, "get_open").await);
    client.cancel().await.unwrap();
    server.stop().await.unwrap();
    let records = scratch.audit_records();
    let status = |tool: &str| {
        records
            .iter()
            .find(|r| r["tool"] == tool)
            .map(|r| r["status"].clone())
    };
    assert_eq!(status("get_slow"), Some(json!("timeout")), "{records:?}");
    assert_eq!(status("get_open"), Some(json!("ok")), "{records:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_response_cap_flag_limits_what_is_read() {
    let rest = start_rest().await;
    let scratch = Scratch::new("cap");
    let args = flags(&rest, &scratch, &["--upstream-max-response-bytes", "10"]);
    assert_eq!(
        cli::upstream(&app(SCHEMES), &args)
            .unwrap()
            .config()
            .max_response_bytes,
        10
    );
    let server = serve(&app(SCHEMES), &args).await;
    let client = connect(&server.url, &[("x-api-key", CALLER_KEY)]).await;
    let result = call(&client, "get_open").await;
    assert_eq!(result.is_error, Some(true), "{}", text(&result));
    assert!(text(&result).contains("10"), "{}", text(&result));
    client.cancel().await.unwrap();
    server.stop().await.unwrap();

    let default = flags(&rest, &scratch, &[]);
    assert_eq!(default.upstream_max_response_bytes, 1024 * 1024);
    assert_eq!(default.upstream_timeout, 30);
}
