//! MCP tasks (the `io.modelcontextprotocol/tasks` extension) over a real Streamable HTTP server,
//! in stateless 2026-07-28 requests: a task tool answers a task at once to a client that
//! declared the extension and runs as any call for one that did not; a task is private to the
//! principal that started it; `tasks/cancel` stops it; running tasks are bounded for the
//! server (`--tasks-max`) and per principal (`--tasks-max-per-principal`), ended ones by the
//! bytes they keep (`--tasks-results-max-bytes`); with a replica name, task ids start with it.
//! A session's revision is the one it agreed on at `initialize`.

use crate::support;

use mcpgen_runtime::audit::AuditStatus;
use mcpgen_runtime::server::Server;
use mcpgen_runtime::tasks::TaskSupport;
use mcpgen_runtime::{
    BoxFuture, CallContext, ToolContext, ToolDef, ToolError, ToolResult, ToolSet,
};
use serde_json::{Map, Value, json};
use support::*;

static TOOLS: &[ToolDef] = &[support::read_tool(
    "work",
    "Works until it is cancelled, or answers at once when asked to",
    r#"{"type":"object","properties":{"quick":{"type":"boolean"},"bytes":{"type":"integer"}}}"#,
)];

/// One tool that works until it is cancelled (`quick`: answers at once; `bytes`: with a text
/// of that many bytes).
struct Worker;

impl ToolSet for Worker {
    fn tools(&self) -> &'static [ToolDef] {
        TOOLS
    }

    fn call<'a>(
        &'a self,
        _tool: &'static ToolDef,
        args: Map<String, Value>,
        call: &'a CallContext,
    ) -> BoxFuture<'a, Result<ToolResult, ToolError>> {
        let ctx = ToolContext::from_call(call);
        Box::pin(async move {
            if args.get("quick") != Some(&Value::Bool(true)) {
                ctx.cancelled().await;
            }
            match args.get("bytes").and_then(Value::as_u64) {
                Some(bytes) => Ok(ToolResult::text(
                    "w".repeat(usize::try_from(bytes).unwrap_or(0)),
                )),
                None => Ok(ToolResult::text("worked")),
            }
        })
    }
}

/// A server whose `work` runs as a task, holding at most `max` tasks, on the replica `r1`.
async fn start(max: usize) -> Running {
    start_recorded(max, &Recorder::default()).await
}

/// The same, its audit records kept by `recorder`.
async fn start_recorded(max: usize, recorder: &Recorder) -> Running {
    let server = Server::builder("tasks", "0.1.0")
        .tool_set(Worker)
        .authenticator(FixedKeys::new())
        .audit(recorder.clone())
        .task_tool("work", TaskSupport::Optional)
        .tasks_max(max)
        .replica_name("r1")
        .build()
        .unwrap();
    Running::start(server).await
}

async fn call_work(url: &str, key: &str, quick: bool, tasks: bool) -> Value {
    let params = json!({"name": "work", "arguments": {"quick": quick}, "_meta": task_meta(tasks)});
    stateless_request(url, key, "tools/call", "work", params).await
}

async fn task_request(url: &str, key: &str, method: &str, id: &str) -> Value {
    let params = json!({"taskId": id, "_meta": task_meta(true)});
    stateless_request(url, key, method, id, params).await
}

/// Polls `tasks/get` until the task leaves `working`.
async fn settled(url: &str, key: &str, id: &str) -> Value {
    loop {
        let answer = task_request(url, key, "tasks/get", id).await;
        if answer["result"]["status"] != "working" {
            return answer;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn a_task_tool_answers_a_task_to_a_client_that_declared_the_extension() {
    let server = start(10).await;
    let answer = call_work(&server.url, "reader-key", true, true).await;
    let created = &answer["result"];
    assert_eq!(created["resultType"], "task", "{answer}");
    assert_eq!(created["status"], "working");
    assert_eq!(created["ttlMs"], 3_600_000, "the default TTL is one hour");
    let id = created["taskId"].as_str().unwrap();
    assert!(
        id.starts_with("r1."),
        "task ids carry the replica name: {id}"
    );

    let done = settled(&server.url, "reader-key", id).await;
    assert_eq!(done["result"]["status"], "completed", "{done}");
    assert_eq!(done["result"]["result"]["content"][0]["text"], "worked");
}

#[tokio::test]
async fn the_audit_links_the_tasks_start_to_its_calls_record() {
    let recorder = Recorder::default();
    let server = start_recorded(10, &recorder).await;
    let answer = call_work(&server.url, "reader-key", true, true).await;
    let id = answer["result"]["taskId"].as_str().unwrap().to_owned();
    settled(&server.url, "reader-key", &id).await;

    let events = recorder.events();
    let started: Vec<_> = events
        .iter()
        .filter(|e| e.status == AuditStatus::TaskStarted)
        .collect();
    assert_eq!(started.len(), 1, "{events:?}");
    assert_eq!(started[0].call_id, id);
    assert_eq!(started[0].tool, "work");
    assert_eq!(started[0].principal.as_deref(), Some("reader"));
    let ended: Vec<_> = events
        .iter()
        .filter(|e| e.parent_call_id.as_deref() == Some(id.as_str()))
        .collect();
    assert_eq!(ended.len(), 1, "{events:?}");
    assert_eq!(ended[0].status, AuditStatus::Ok);
    assert_eq!(ended[0].args_sha256, started[0].args_sha256);
}

#[tokio::test]
async fn a_client_without_the_extension_gets_the_result_at_once() {
    let server = start(10).await;
    let answer = call_work(&server.url, "reader-key", true, false).await;
    assert_eq!(answer["result"]["content"][0]["text"], "worked", "{answer}");
    assert!(answer["result"].get("taskId").is_none());
}

#[tokio::test]
async fn another_principal_sees_no_task_and_cancel_stops_it() {
    let server = start(10).await;
    let answer = call_work(&server.url, "reader-key", false, true).await;
    let id = answer["result"]["taskId"].as_str().unwrap().to_owned();

    for method in ["tasks/get", "tasks/cancel"] {
        let other = task_request(&server.url, "admin-key", method, &id).await;
        assert_eq!(other["error"]["code"], -32602, "{method}: {other}");
        let message = other["error"]["message"].as_str().unwrap();
        assert!(message.contains("unknown task"), "{message}");
    }
    let working = task_request(&server.url, "reader-key", "tasks/get", &id).await;
    assert_eq!(working["result"]["status"], "working", "{working}");

    let ack = task_request(&server.url, "reader-key", "tasks/cancel", &id).await;
    assert_eq!(ack["result"], json!({"resultType": "complete"}), "{ack}");
    let cancelled = task_request(&server.url, "reader-key", "tasks/get", &id).await;
    assert_eq!(cancelled["result"]["status"], "cancelled", "{cancelled}");
}

#[tokio::test]
async fn a_full_task_table_refuses_a_new_task_saying_so() {
    let server = start(2).await;
    // One each: a principal runs at most a quarter of --tasks-max, at least one.
    for key in ["reader-key", "admin-key"] {
        let answer = call_work(&server.url, key, false, true).await;
        assert_eq!(answer["result"]["resultType"], "task", "{answer}");
    }
    let refused = call_work(&server.url, "reader-key", false, true).await;
    assert_eq!(refused["result"]["isError"], true, "{refused}");
    let text = refused["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("--tasks-max)"), "{text}");
}

#[tokio::test]
async fn tasks_methods_need_the_extension() {
    let server = start(10).await;
    let params = json!({"taskId": "r1.none", "_meta": task_meta(false)});
    let answer = stateless_request(&server.url, "reader-key", "tasks/get", "r1.none", params).await;
    assert_eq!(answer["error"]["code"], -32021, "{answer}");
}

/// A session of protocol 2025-11-25 opened as the holder of `key`: its id.
async fn session_2025(url: &str, key: &str) -> (String, Value) {
    session_of(url, key, "2025-11-25").await
}

/// A session that asked for protocol `version`, opened as the holder of `key`: its id.
async fn session_of(url: &str, key: &str, version: &str) -> (String, Value) {
    let body = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": version, "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"}}});
    let response = reqwest::Client::new()
        .post(format!("{url}/mcp"))
        .header("content-type", "application/json")
        .header("accept", RUNTIME_PATH)
        .header("x-api-key", key)
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    let session = response.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_owned();
    let initialized = message(&response.text().await.unwrap());
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    post_2025(url, key, &session, &note).await;
    (session, initialized)
}

/// The JSON-RPC message of an answer: the JSON body, or the last `data:` of an SSE one.
fn message(body: &str) -> Value {
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

/// POSTs `body` on the 2025-11-25 session `session` and reads the answer.
async fn post_2025(url: &str, key: &str, session: &str, body: &Value) -> Value {
    let response = reqwest::Client::new()
        .post(format!("{url}/mcp"))
        .header("content-type", "application/json")
        .header("accept", RUNTIME_PATH)
        .header("x-api-key", key)
        .header("mcp-session-id", session)
        .header("mcp-protocol-version", "2025-11-25")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    message(&response.text().await.unwrap())
}

async fn rpc_2025(url: &str, key: &str, session: &str, method: &str, params: Value) -> Value {
    let body = json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": params});
    post_2025(url, key, session, &body).await
}

#[tokio::test]
async fn a_2025_11_25_session_gets_tasks_in_that_revision_s_form() {
    let server = Server::builder("tasks", "0.1.0")
        .tool_set(Worker)
        .authenticator(FixedKeys::new())
        .task_tool("work", TaskSupport::Required)
        .build()
        .unwrap();
    let server = Running::start(server).await;
    let url = &server.url;
    let (session, initialized) = session_2025(url, "reader-key").await;
    assert_eq!(
        initialized["result"]["capabilities"]["tasks"]["requests"]["tools"]["call"],
        json!({}),
        "{initialized}"
    );
    let listed = rpc_2025(url, "reader-key", &session, "tools/list", json!({})).await;
    assert_eq!(
        listed["result"]["tools"][0]["execution"],
        json!({"taskSupport": "required"}),
        "{listed}"
    );

    // A tool that requires tasks, called without one: refused as the extension refuses a
    // client that did not declare it.
    let plain = json!({"name": "work", "arguments": {"quick": true}});
    let refused = rpc_2025(url, "reader-key", &session, "tools/call", plain.clone()).await;
    assert_eq!(refused["error"]["code"], -32021, "{refused}");

    // As a task: created, then its result through tasks/result.
    let mut augmented = plain;
    augmented["task"] = json!({"ttl": 1000});
    let created = rpc_2025(url, "reader-key", &session, "tools/call", augmented).await;
    let task = &created["result"]["task"];
    assert_eq!(task["status"], "working", "{created}");
    assert_eq!(task["ttl"], 3_600_000, "{created}");
    let id = task["taskId"].as_str().unwrap();
    let result = rpc_2025(
        url,
        "reader-key",
        &session,
        "tasks/result",
        json!({"taskId": id}),
    )
    .await;
    assert_eq!(result["result"]["content"][0]["text"], "worked", "{result}");
    assert_eq!(
        result["result"]["_meta"]["io.modelcontextprotocol/related-task"]["taskId"], id,
        "{result}"
    );
    let got = rpc_2025(
        url,
        "reader-key",
        &session,
        "tasks/get",
        json!({"taskId": id}),
    )
    .await;
    assert_eq!(got["result"]["status"], "completed", "{got}");
    let cancel = rpc_2025(
        url,
        "reader-key",
        &session,
        "tasks/cancel",
        json!({"taskId": id}),
    )
    .await;
    assert_eq!(cancel["error"]["code"], -32602, "an ended task: {cancel}");
    let bad = rpc_2025(
        url,
        "reader-key",
        &session,
        "tasks/list",
        json!({"cursor": "x"}),
    )
    .await;
    assert_eq!(bad["error"]["code"], -32602, "{bad}");

    // To a 2026-07-28 client, tasks/list is still a method this revision removed.
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tasks/list", "params": {"_meta": task_meta(true)}});
    let answer = post_stateless(url, "reader-key", "tasks/list", &[], &body, RUNTIME_PATH).await;
    let listed = message(&answer.body);
    assert_eq!(listed["error"]["code"], -32601, "{answer:?}");
}

#[tokio::test]
async fn one_principal_at_its_limit_leaves_room_for_others_and_ended_tasks_do_not_count() {
    let server = Server::builder("tasks", "0.1.0")
        .tool_set(Worker)
        .authenticator(FixedKeys::new())
        .task_tool("work", TaskSupport::Optional)
        .tasks_max(3)
        .tasks_max_per_principal(Some(2))
        .build()
        .unwrap();
    let server = Running::start(server).await;
    let url = &server.url;
    // A task that has completed does not count.
    let quick = call_work(url, "reader-key", true, true).await;
    let id = quick["result"]["taskId"].as_str().unwrap().to_owned();
    assert_eq!(
        settled(url, "reader-key", &id).await["result"]["status"],
        "completed"
    );
    let mut mine = Vec::new();
    for _ in 0..2 {
        let answer = call_work(url, "reader-key", false, true).await;
        assert_eq!(answer["result"]["resultType"], "task", "{answer}");
        mine.push(answer["result"]["taskId"].as_str().unwrap().to_owned());
    }
    let refused = call_work(url, "reader-key", false, true).await;
    assert_eq!(refused["result"]["isError"], true, "{refused}");
    let text = refused["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("--tasks-max-per-principal"), "{text}");

    // Another principal still starts one; then the server is full for everyone.
    let theirs = call_work(url, "admin-key", false, true).await;
    assert_eq!(theirs["result"]["resultType"], "task", "{theirs}");
    let full = call_work(url, "admin-key", false, true).await;
    let text = full["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("--tasks-max)"), "{text}");

    // Cancelled tasks no longer count, for the principal nor for the server.
    for id in &mine {
        task_request(url, "reader-key", "tasks/cancel", id).await;
    }
    for _ in 0..2 {
        let again = call_work(url, "reader-key", false, true).await;
        assert_eq!(again["result"]["resultType"], "task", "{again}");
    }
}

#[tokio::test]
async fn ended_tasks_keep_their_results_within_the_byte_budget_the_oldest_expiring_first() {
    let server = Server::builder("tasks", "0.1.0")
        .tool_set(Worker)
        .authenticator(FixedKeys::new())
        .task_tool("work", TaskSupport::Optional)
        .tasks_results_max_bytes(250_000)
        .build()
        .unwrap();
    let server = Running::start(server).await;
    let url = &server.url;
    let mut ids = Vec::new();
    for _ in 0..3 {
        let params = json!({"name": "work", "arguments": {"quick": true, "bytes": 100_000},
            "_meta": task_meta(true)});
        let answer = stateless_request(url, "reader-key", "tools/call", "work", params).await;
        let id = answer["result"]["taskId"].as_str().unwrap().to_owned();
        settled(url, "reader-key", &id).await;
        ids.push(id);
    }
    // Two results fit in the budget: the first one went.
    let first = task_request(url, "reader-key", "tasks/get", &ids[0]).await;
    let message = first["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("expired"), "{first}");
    assert!(message.contains("--tasks-results-max-bytes"), "{first}");
    for id in &ids[1..] {
        let kept = task_request(url, "reader-key", "tasks/get", id).await;
        assert_eq!(kept["result"]["status"], "completed", "{kept}");
        let text = kept["result"]["result"]["content"][0]["text"]
            .as_str()
            .unwrap();
        assert_eq!(text.len(), 100_000);
    }
}

#[tokio::test]
async fn a_session_keeps_the_revision_it_agreed_on_at_initialize() {
    let server = Server::builder("tasks", "0.1.0")
        .tool_set(Worker)
        .authenticator(FixedKeys::new())
        .task_tool("work", TaskSupport::Optional)
        .build()
        .unwrap();
    let server = Running::start(server).await;
    let url = &server.url;
    let (session, initialized) = session_of(url, "reader-key", "2025-06-18").await;
    assert_eq!(
        initialized["result"]["protocolVersion"], "2025-06-18",
        "{initialized}"
    );
    assert!(
        initialized["result"]["capabilities"].get("tasks").is_none(),
        "{initialized}"
    );
    // The session then claims the later revision: it is still a 2025-06-18 session.
    let listed = rpc_2025(url, "reader-key", &session, "tasks/list", json!({})).await;
    assert!(listed["result"].get("tasks").is_none(), "{listed}");
    assert!(
        listed.get("error").is_some() || listed.is_null(),
        "{listed}"
    );
    let tools = rpc_2025(url, "reader-key", &session, "tools/list", json!({})).await;
    assert!(
        tools["result"]["tools"][0].get("execution").is_none(),
        "{tools}"
    );
    let call = json!({"name": "work", "arguments": {"quick": true}, "task": {"ttl": 1000}});
    let called = rpc_2025(url, "reader-key", &session, "tools/call", call).await;
    assert!(called["result"].get("task").is_none(), "{called}");

    // A session that agreed on 2025-11-25 is served that form.
    let (session, _) = session_2025(url, "reader-key").await;
    let listed = rpc_2025(url, "reader-key", &session, "tasks/list", json!({})).await;
    assert_eq!(listed["result"]["tasks"], json!([]), "{listed}");
}
