//! The rooms example (`examples/rooms`, binary `rooms-mcp`) as a child process over Streamable
//! HTTP, driven by rmcp's client and the official TypeScript SDK client: schemas from the Rust
//! types, structured results that fit them, errors as `isError`, one token audience per room,
//! and rooms that survive a restart.

use std::collections::HashMap;
use std::path::Path;
use std::time::Duration;

use http::{HeaderName, HeaderValue};
use mcpgen_runtime::auth::TokenAuthority;
use mcpgen_tests::{
    KillOnDrop, free_port, node_bin, node_file, text, wait_ready, workspace_binary,
};
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult, Tool};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::{Map, Value, json};

const SECRET_VAR: &str = "ROOMS_E2E_TOKEN_SECRET";
const SECRET: &str = "rooms-e2e-secret-of-at-least-32-bytes-long!";
/// The variable alpha's `crm` secret names; set for the server, never shown by it.
const CRM_VAR: &str = "ROOMS_E2E_CRM_TOKEN";
const CRM_VALUE: &str = "crm-value-that-must-never-be-shown";

/// Every tool of the example, sorted.
const TOOLS: [&str; 15] = [
    "add_mcp_http",
    "add_prompt",
    "add_tool",
    "check_secret",
    "create_room",
    "delete_room",
    "edit_room",
    "inspect_room",
    "list_prompts",
    "list_rooms",
    "list_secrets",
    "remove_prompt",
    "remove_tool",
    "show_prompt",
    "toggle_mcp_server",
];
const READ_TOOLS: [&str; 6] = [
    "check_secret",
    "inspect_room",
    "list_prompts",
    "list_rooms",
    "list_secrets",
    "show_prompt",
];

type Client = RunningService<RoleClient, ()>;

/// Two hand-written rooms: alpha (a prompt, two secrets, one of them set) and beta.
fn write_rooms(dir: &Path) {
    std::fs::write(
        dir.join("alpha.yaml"),
        format!(
            "name: alpha\n\
             description: The first room\n\
             prompts:\n\
             \x20 - name: greeting\n\
             \x20   description: How to start\n\
             \x20   text: Say hello.\n\
             secrets:\n\
             \x20 - name: crm\n\
             \x20   env: {CRM_VAR}\n\
             \x20 - name: mail\n\
             \x20   env: ROOMS_E2E_UNSET_VARIABLE\n"
        ),
    )
    .expect("alpha.yaml is written");
    std::fs::write(
        dir.join("beta.yaml"),
        "name: beta\ndescription: The second room\n",
    )
    .expect("beta.yaml is written");
}

/// Starts `rooms-mcp` on a free port; returns it and its base URL once `/healthz` answers.
async fn start(dir: &Path) -> (KillOnDrop, String) {
    let port = free_port();
    let child = tokio::process::Command::new(workspace_binary("rooms-mcp"))
        .arg("--rooms-dir")
        .arg(dir)
        .args(["--listen", &format!("127.0.0.1:{port}")])
        .args(["--token-secret-env", SECRET_VAR])
        .env(SECRET_VAR, SECRET)
        .env(CRM_VAR, CRM_VALUE)
        .env("RUST_LOG", "error")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .expect("rooms-mcp starts");
    let url = format!("http://127.0.0.1:{port}");
    assert!(
        wait_ready(&format!("{url}/healthz")).await,
        "rooms-mcp answers /healthz"
    );
    (KillOnDrop(child), url)
}

/// A token for `audience` with every scope.
fn token(audience: &str) -> String {
    TokenAuthority::new(SECRET.as_bytes(), audience)
        .expect("an authority")
        .issue("e2e", &["mcp:*".to_owned()], Duration::from_secs(600))
}

async fn connect(url: &str, token: &str) -> Client {
    let mut headers = HashMap::new();
    headers.insert(
        HeaderName::from_static("authorization"),
        HeaderValue::from_str(&format!("Bearer {token}")).expect("a header value"),
    );
    let config =
        StreamableHttpClientTransportConfig::with_uri(url.to_owned()).custom_headers(headers);
    let transport = StreamableHttpClientTransport::with_client(reqwest::Client::new(), config);
    tokio::time::timeout(Duration::from_secs(10), ().serve(transport))
        .await
        .expect("the client connects in time")
        .expect("the client connects")
}

async fn call(client: &Client, name: &'static str, args: Value) -> CallToolResult {
    let Value::Object(args) = args else {
        panic!("arguments are an object");
    };
    client
        .call_tool(CallToolRequestParams::new(name).with_arguments(args))
        .await
        .expect("the call gets an answer")
}

fn tool<'a>(tools: &'a [Tool], name: &str) -> &'a Tool {
    tools
        .iter()
        .find(|t| t.name == name)
        .unwrap_or_else(|| panic!("`{name}` is listed"))
}

/// `value` fits `schema` (JSON Schema 2020-12).
fn assert_fits(schema: &Value, value: &Value) {
    let validator = jsonschema::validator_for(schema).expect("the output schema compiles");
    let problems: Vec<String> = validator
        .iter_errors(value)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(
        problems.is_empty(),
        "{value} does not fit {schema}: {problems:?}"
    );
}

/// Calls `name` and checks its structured content against the listed output schema.
async fn call_checked(client: &Client, tools: &[Tool], name: &'static str, args: Value) -> Value {
    let result = call(client, name, args).await;
    assert_eq!(result.is_error, Some(false), "{name}: {}", text(&result));
    let structured = result
        .structured_content
        .clone()
        .unwrap_or_else(|| panic!("{name} returns structured content"));
    let schema = Value::Object(
        tool(tools, name)
            .output_schema
            .as_deref()
            .cloned()
            .unwrap_or_else(|| panic!("{name} has an output schema")),
    );
    assert_fits(&schema, &structured);
    structured
}

/// A raw `initialize` POST; returns the status.
async fn initialize_status(url: &str, token: &str) -> u16 {
    reqwest::Client::new()
        .post(url)
        .bearer_auth(token)
        .header("accept", "application/json, text/event-stream")
        .json(&json!({
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "raw", "version": "1"},
            },
        }))
        .send()
        .await
        .expect("the request is sent")
        .status()
        .as_u16()
}

#[tokio::test]
async fn rooms_over_streamable_http_with_rmcp() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    write_rooms(dir.path());
    let (server, url) = start(dir.path()).await;
    let alpha_url = format!("{url}/mcp/alpha");
    let client = connect(&alpha_url, &token("alpha")).await;

    // tools/list: schemas from the Rust types, doc comments as descriptions, access as hints.
    let tools = client.list_all_tools().await.expect("tools/list");
    let mut names: Vec<&str> = tools.iter().map(|t| &*t.name).collect();
    names.sort_unstable();
    assert_eq!(names, TOOLS);
    for t in &tools {
        assert!(t.output_schema.is_some(), "{} has an output schema", t.name);
        let read_only = t.annotations.as_ref().and_then(|a| a.read_only_hint);
        assert_eq!(
            read_only == Some(true),
            READ_TOOLS.contains(&&*t.name),
            "{}: readOnlyHint {read_only:?}",
            t.name
        );
    }
    let list = tool(&tools, "list_rooms");
    assert_eq!(
        list.description.as_deref(),
        Some("Lists the rooms (in a room's catalog, only that room).")
    );
    let output = Value::Object(list.output_schema.as_deref().cloned().expect("a schema"));
    assert_eq!(output["required"], json!(["rooms", "count"]));
    assert_eq!(
        output["properties"]["count"]["description"],
        "How many rooms there are."
    );
    let add = Value::Object((*tool(&tools, "add_tool").input_schema).clone());
    assert_eq!(add["required"], json!(["name", "description"]));
    assert_eq!(
        add["properties"]["description"]["description"],
        "What the tool does."
    );

    // Results fit the advertised schemas.
    let rooms = call_checked(&client, &tools, "list_rooms", json!({})).await;
    assert_eq!(rooms["count"], 1);
    assert_eq!(rooms["rooms"][0]["name"], "alpha");
    assert_eq!(rooms["rooms"][0]["secrets"], 2);
    let secrets = call_checked(&client, &tools, "list_secrets", json!({})).await;
    assert_eq!(
        secrets["secrets"],
        json!([
            {"name": "crm", "env": CRM_VAR, "resolved": true},
            {"name": "mail", "env": "ROOMS_E2E_UNSET_VARIABLE", "resolved": false},
        ])
    );
    let checked = call_checked(&client, &tools, "check_secret", json!({"name": "mail"})).await;
    assert_eq!(checked["status"], "unresolved");
    let room = call_checked(&client, &tools, "inspect_room", json!({})).await;
    assert!(!room.to_string().contains(CRM_VALUE), "{room}");
    let prompt = call_checked(&client, &tools, "show_prompt", json!({"name": "greeting"})).await;
    assert_eq!(prompt["text"], "Say hello.");

    // Errors are `isError` results that say why.
    let missing = call(&client, "show_prompt", json!({"name": "farewell"})).await;
    assert_eq!(missing.is_error, Some(true));
    assert!(
        text(&missing).contains("room `alpha` has no prompt named `farewell`; it has: greeting"),
        "{}",
        text(&missing)
    );
    let other = call(&client, "inspect_room", json!({"room": "beta"})).await;
    assert_eq!(other.is_error, Some(true));
    assert!(
        text(&other).contains("serves room `alpha` only"),
        "{}",
        text(&other)
    );

    // A token for alpha is refused at beta; beta's own token and the server's are accepted.
    assert_eq!(
        initialize_status(&format!("{url}/mcp/beta"), &token("alpha")).await,
        401
    );
    assert_eq!(
        initialize_status(&format!("{url}/mcp"), &token("alpha")).await,
        401
    );
    assert_eq!(
        initialize_status(&format!("{url}/mcp/beta"), &token("beta")).await,
        200
    );
    assert_eq!(
        initialize_status(&format!("{url}/mcp/beta"), &token("rooms")).await,
        200
    );

    // Writes survive a restart of the server.
    let added = call_checked(
        &client,
        &tools,
        "add_tool",
        json!({"name": "lookup", "description": "Looks an order up", "command": "orders get"}),
    )
    .await;
    assert_eq!(added["status"], "ok");
    call_checked(
        &client,
        &tools,
        "add_mcp_http",
        json!({"name": "tickets", "url": "https://tickets.example.com/mcp"}),
    )
    .await;
    let toggled = call_checked(
        &client,
        &tools,
        "toggle_mcp_server",
        json!({"name": "tickets"}),
    )
    .await;
    assert!(
        toggled["message"]
            .as_str()
            .is_some_and(|m| m.ends_with("disabled")),
        "{toggled}"
    );
    call_checked(
        &client,
        &tools,
        "remove_prompt",
        json!({"name": "greeting"}),
    )
    .await;
    client.cancel().await.ok();
    drop(server);
    // Killed, not shut down: the write must already be on disk.
    let (_server, url) = start(dir.path()).await;
    let client = connect(&format!("{url}/mcp/alpha"), &token("alpha")).await;
    let room = call(&client, "inspect_room", json!({})).await;
    let room = room.structured_content.expect("a room");
    assert_eq!(
        room["tools"],
        json!([{"name": "lookup", "description": "Looks an order up", "command": "orders get"}])
    );
    assert_eq!(
        room["mcp_servers"],
        json!([{"name": "tickets", "url": "https://tickets.example.com/mcp", "enabled": false}])
    );
    assert_eq!(room["prompts"], json!([]));
    assert_eq!(room["secrets"].as_array().map(Vec::len), Some(2));
    let mut files: Vec<String> = std::fs::read_dir(dir.path())
        .expect("the directory lists")
        .map(|e| {
            e.expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    files.sort();
    assert_eq!(
        files,
        ["alpha.yaml", "beta.yaml"],
        "no temporary file is left"
    );
    client.cancel().await.ok();
}

#[tokio::test]
async fn rooms_with_the_typescript_sdk() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    write_rooms(dir.path());
    let (_server, url) = start(dir.path()).await;
    let calls = json!([
        {"name": "list_rooms", "arguments": {}},
        {"name": "create_room", "arguments": {"name": "gamma", "description": "Third"}},
        {"name": "list_rooms", "arguments": {}},
        {"name": "inspect_room", "arguments": {"room": "nowhere"}},
        {"name": "add_prompt", "arguments": {"room": "beta", "name": "hi", "text": "Hello"}},
        {"name": "list_prompts", "arguments": {"room": "beta"}},
    ]);
    let out = tokio::time::timeout(
        Duration::from_secs(60),
        tokio::process::Command::new(node_bin("node"))
            .arg(node_file("list-and-call.mjs"))
            .arg("http")
            .arg(calls.to_string())
            .arg(format!("{url}/mcp"))
            .arg(format!("Authorization=Bearer {}", token("rooms")))
            .kill_on_drop(true)
            .output(),
    )
    .await
    .expect("the client finishes within 60 s")
    .expect("the client runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let line = stdout.lines().last().unwrap_or_default();
    let out: Value = serde_json::from_str(line).unwrap_or_else(|_| {
        panic!(
            "the client printed no JSON line (status {}):\n{stdout}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        )
    });
    assert_eq!(out["ok"], true, "{out}");
    let tools: Vec<Map<String, Value>> =
        serde_json::from_value(out["tools"].clone()).expect("a list of tools");
    let by_name: HashMap<&str, &Map<String, Value>> = tools
        .iter()
        .map(|t| (t["name"].as_str().unwrap_or_default(), t))
        .collect();
    let mut names: Vec<&str> = by_name.keys().copied().collect();
    names.sort_unstable();
    assert_eq!(names, TOOLS);
    let create = by_name["create_room"];
    assert_eq!(
        create["description"],
        "Creates an empty room (only in the catalog of every room, /mcp)."
    );
    assert_eq!(create["inputSchema"]["required"], json!(["name"]));
    assert_eq!(create["annotations"]["readOnlyHint"], false);
    assert_eq!(by_name["list_secrets"]["annotations"]["readOnlyHint"], true);

    // The SDK accepted every result (it checks structured content against outputSchema);
    // check it again here.
    let results = out["results"].as_array().expect("results");
    let names = [
        "list_rooms",
        "create_room",
        "list_rooms",
        "inspect_room",
        "add_prompt",
        "list_prompts",
    ];
    for (result, name) in results.iter().zip(names) {
        assert_eq!(result["ok"], true, "{name}: {result}");
        if result["isError"] == false {
            assert_fits(&by_name[name]["outputSchema"], &result["structuredContent"]);
        }
    }
    assert_eq!(results[0]["structuredContent"]["count"], 2);
    assert_eq!(results[1]["structuredContent"]["status"], "ok");
    assert_eq!(results[2]["structuredContent"]["count"], 3);
    assert_eq!(results[3]["isError"], true);
    assert!(
        results[3]["text"][0]
            .as_str()
            .is_some_and(|t| t.contains("`nowhere` does not exist")),
        "{}",
        results[3]
    );
    assert_eq!(
        results[5]["structuredContent"]["prompts"],
        json!([{"name": "hi", "description": ""}])
    );
    let gamma = std::fs::read_to_string(dir.path().join("gamma.yaml")).expect("gamma.yaml");
    assert!(gamma.contains("description: Third"), "{gamma}");
}

/// Keeps the tool names of every audit event.
#[derive(Clone, Default)]
struct AuditedTools(std::sync::Arc<std::sync::Mutex<Vec<(String, String)>>>);

impl mcpgen_runtime::audit::AuditSink for AuditedTools {
    fn record<'a>(
        &'a self,
        event: mcpgen_runtime::audit::AuditEvent,
    ) -> mcpgen_runtime::BoxFuture<'a, ()> {
        Box::pin(async move {
            if let Ok(mut events) = self.0.lock() {
                events.push((event.tool, format!("{:?}", event.status)));
            }
        })
    }

    fn flush<'a>(&'a self) -> mcpgen_runtime::BoxFuture<'a, ()> {
        Box::pin(async {})
    }
}

#[tokio::test]
async fn generated_and_app_tools_share_one_server() {
    let upstream = mcpgen_tests::synaplan_stand_in().await;
    let generated = synaplan_mcp::tool_set(
        mcpgen_runtime::Upstream::new(mcpgen_runtime::UpstreamConfig::new(&upstream.url))
            .expect("an upstream"),
    );
    let dir = tempfile::tempdir().expect("a temporary directory");
    write_rooms(dir.path());
    let store =
        std::sync::Arc::new(rooms::store::RoomStore::open(dir.path()).expect("the store opens"));
    let app = rooms::tools::RoomTools::all(store).into_tool_set();
    let audit = AuditedTools::default();
    let tokens = TokenAuthority::new(SECRET.as_bytes(), "mixed").expect("an authority");
    let server = mcpgen_runtime::server::Server::builder("mixed", "0.1.0")
        .tool_set(generated)
        .tool_set(app)
        .authenticator(tokens.clone())
        .audit(audit.clone())
        .build()
        .expect("the server builds");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a loopback port");
    let addr = listener.local_addr().expect("an address");
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = tokio::spawn(async move {
        server
            .serve_listener(listener, async move {
                let _ = stopped.await;
            })
            .await
    });
    let reader = tokens.issue("reader", &["mcp:read".to_owned()], Duration::from_secs(60));
    let client = connect(&format!("http://{addr}/mcp"), &reader).await;

    // One scope filters both kinds of tools.
    let tools = client.list_all_tools().await.expect("tools/list");
    let names: Vec<&str> = tools.iter().map(|t| &*t.name).collect();
    assert!(names.contains(&"synaplan_list_prompts"), "{names:?}");
    assert!(names.contains(&"list_rooms"), "{names:?}");
    assert!(!names.contains(&"create_room"), "{names:?}");
    assert!(
        tools.iter().all(|t| t
            .annotations
            .as_ref()
            .and_then(|a| a.read_only_hint)
            .unwrap_or(false)),
        "a reader sees read tools only: {names:?}"
    );
    let generated = call(&client, "synaplan_list_prompts", json!({})).await;
    assert_eq!(generated.is_error, Some(false), "{}", text(&generated));
    let app = call(&client, "list_rooms", json!({})).await;
    assert_eq!(app.is_error, Some(false), "{}", text(&app));
    // The same argument validation: a missing required argument never reaches the tool.
    let invalid = call(&client, "show_prompt", json!({"room": "alpha"})).await;
    assert_eq!(invalid.is_error, Some(true));
    assert!(text(&invalid).contains("name"), "{}", text(&invalid));
    // A write tool is refused to a reader, like an unknown tool.
    let refused = client
        .call_tool(
            CallToolRequestParams::new("create_room")
                .with_arguments(Map::from_iter([("name".to_owned(), json!("delta"))])),
        )
        .await;
    assert!(
        refused.is_err() || refused.as_ref().is_ok_and(|r| r.is_error == Some(true)),
        "{refused:?}"
    );
    assert!(!dir.path().join("delta.yaml").exists());
    client.cancel().await.ok();
    let _ = stop.send(());
    serving
        .await
        .expect("the server task ends")
        .expect("the server stops cleanly");
    // One audit sink records the calls of both kinds.
    let audited = audit.0.lock().map(|e| e.clone()).unwrap_or_default();
    let tools: Vec<&str> = audited.iter().map(|(tool, _)| tool.as_str()).collect();
    assert!(tools.contains(&"synaplan_list_prompts"), "{audited:?}");
    assert!(tools.contains(&"list_rooms"), "{audited:?}");
    assert!(tools.contains(&"show_prompt"), "{audited:?}");
}
