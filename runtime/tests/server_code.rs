//! Code mode over Streamable HTTP on loopback, driven by rmcp's client: `execute` runs a
//! program whose inner calls go through the same checks, limits and audit as direct calls.

#[allow(dead_code)] // the shared helpers of `main`; this binary uses some of them
mod support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcpgen_runtime::audit::{AuditEvent, AuditStatus};
use mcpgen_runtime::code::{self, CodeLimits};
use mcpgen_runtime::server::{ToolMode, Unconfirmable};
use mcpgen_runtime::{BoxFuture, CallContext, ToolDef, ToolError, ToolResult, ToolSet};
use rmcp::model::CallToolResult;
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};
use support::*;

/// A tool that needs the person's confirmation.
const DELETE_NOTE: ToolDef = ToolDef::new(
    "delete_note",
    "Delete a note",
    r#"{"type":"object","properties":{"id":{"type":"integer"}},"required":["id"]}"#,
)
.confirm();

static DELETING: &[ToolDef] = &[DELETE_NOTE];

/// A tool set with [`DELETE_NOTE`], recording the calls that reach it.
#[derive(Clone, Default)]
struct Deleting(Arc<Mutex<Vec<String>>>);

impl ToolSet for Deleting {
    fn tools(&self) -> &'static [ToolDef] {
        DELETING
    }

    fn call<'a>(
        &'a self,
        tool: &'static ToolDef,
        _args: Map<String, Value>,
        _ctx: &'a CallContext,
    ) -> BoxFuture<'a, Result<ToolResult, ToolError>> {
        Box::pin(async move {
            self.0.lock().unwrap().push(tool.name.to_owned());
            Ok(ToolResult::text("deleted"))
        })
    }
}

struct Started {
    server: Running,
    notes: Notes,
    deleting: Deleting,
    recorder: Recorder,
}

/// The program code mode starts as its worker process (a test binary cannot be one).
const WORKER: &str = env!("CARGO_BIN_EXE_mcpgen-code-worker");

async fn start(limits: CodeLimits) -> Started {
    start_with(limits, |builder| builder).await
}

async fn start_with(
    limits: CodeLimits,
    more: impl FnOnce(mcpgen_runtime::server::ServerBuilder) -> mcpgen_runtime::server::ServerBuilder,
) -> Started {
    let limits = limits.with_worker_program(WORKER);
    let notes = Notes::default();
    let recorder = Recorder::default();
    let deleting = Deleting::default();
    let server = more(builder(&notes, &recorder))
        .tool_set(deleting.clone())
        .tool_mode(ToolMode::Code)
        .code_limits(limits)
        // Does not let a program's call of a tool needing confirmation through.
        .unconfirmable(Unconfirmable::Proceed)
        .build()
        .unwrap();
    Started {
        server: Running::start(server).await,
        notes,
        deleting,
        recorder,
    }
}

async fn execute(client: &Client, code: &str) -> CallToolResult {
    client
        .call_tool(call("execute", json!({ "code": code })))
        .await
        .unwrap()
}

/// The structured content of a successful `execute`, checked against its text.
fn output(result: &CallToolResult) -> Value {
    assert_ne!(result.is_error, Some(true), "{}", text(result));
    let value = result
        .structured_content
        .clone()
        .expect("structured content");
    assert_eq!(serde_json::from_str::<Value>(&text(result)).unwrap(), value);
    value
}

/// The error text of a failed `execute`.
fn failure(result: &CallToolResult) -> String {
    assert_eq!(result.is_error, Some(true), "{}", text(result));
    text(result)
}

#[tokio::test]
async fn code_mode_lists_execute_and_runs_programs_through_the_pipeline() {
    let started = start(CodeLimits::default()).await;
    let client = connect(&started.server.url, "admin-key").await;
    let tools = client.list_all_tools().await.unwrap();
    assert_eq!(names(&tools), ["describe_tools", "execute", "search_tools"]);
    let execute_tool = tools.iter().find(|t| t.name == "execute").unwrap();
    assert_eq!(
        execute_tool.input_schema.get("required"),
        Some(&json!(["code"]))
    );
    let output_schema = execute_tool.output_schema.as_ref().expect("output schema");
    assert_eq!(
        output_schema.get("required"),
        Some(&json!(["result", "logs"]))
    );
    // A small API's declarations ride in `execute`'s description, so that a program can be
    // written without asking for them; the rest of the list does not grow with the API:
    // three meta-tools whose descriptions name only the number of tools.
    let description = execute_tool.description.as_deref().unwrap_or_default();
    let (_, declarations) = description
        .split_once("without `search_tools` or `describe_tools`.\n\n")
        .expect("the declarations in execute's description");
    for signature in [
        "list_notes(args: {",
        "add_note(args: {",
        "plugin_echo(args: {",
        "delete_note(args: {",
    ] {
        assert!(
            declarations.contains(signature),
            "{signature}: {declarations}"
        );
    }
    let search_text = tools.iter().find(|t| t.name == "search_tools").unwrap();
    let count: usize = search_text
        .description
        .as_deref()
        .unwrap_or_default()
        .split_once('(')
        .and_then(|(_, rest)| rest.split_once(" in all)"))
        .and_then(|(n, _)| n.parse().ok())
        .expect("the number of tools in search_tools' description");
    // What `mcpgen sizes` reports, from the runtime without the engine, is what is served.
    let reported: Value = serde_json::from_str(&code::tools_list_json(
        count,
        &CodeLimits::default(),
        Some(declarations),
    ))
    .unwrap();
    assert_eq!(reported, json!({ "tools": tools }));
    let bare = code::tools_list_json(count, &CodeLimits::default(), None).len();
    assert!(bare <= 4000, "code mode's tools/list is {bare} bytes");
    let search = tools.iter().find(|t| t.name == "search_tools").unwrap();
    assert!(
        search
            .description
            .as_deref()
            .unwrap_or_default()
            .contains("execute"),
        "{search:?}"
    );

    let code = r#"
        const page = await tools.list_notes({limit: 3});
        console.log("notes:", page.notes.length);
        console.error("and", {an: "object"});
        const echoed = await tools.plugin_echo({message: "hi"});
        return {notes: page.notes, echoed};
    "#;
    let result = execute(&client, code).await;
    assert_eq!(
        output(&result),
        json!({
            "result": {"notes": ["note 1", "note 2", "note 3"], "echoed": "hi"},
            "logs": ["notes: 3", "[error] and {\"an\":\"object\"}"],
        })
    );
    // The tools stay callable by name.
    let direct = client
        .call_tool(call("list_notes", json!({"limit": 1})))
        .await
        .unwrap();
    assert_eq!(direct.is_error, Some(false));
    assert_eq!(
        started.notes.calls(),
        ["list_notes", "plugin_echo", "list_notes"]
    );

    let events = started.recorder.events();
    let execute_event = events
        .iter()
        .find(|e| e.tool == "execute")
        .expect("execute record");
    assert_eq!(execute_event.status, AuditStatus::Ok);
    assert_eq!(execute_event.inner_calls, Some(2));
    assert_eq!(execute_event.principal.as_deref(), Some("admin"));
    let digest = hex::encode(Sha256::digest(code.as_bytes()));
    assert_eq!(execute_event.code_sha256.as_deref(), Some(digest.as_str()));
    assert!(execute_event.args.is_none(), "no --audit-args: no code");
    let inner: Vec<(&str, Option<&str>)> = events
        .iter()
        .filter(|e| e.tool != "execute")
        .map(|e| (e.tool.as_str(), e.parent_call_id.as_deref()))
        .collect();
    let parent = Some(execute_event.call_id.as_str());
    assert_eq!(
        inner,
        [
            ("list_notes", parent),
            ("plugin_echo", parent),
            ("list_notes", None)
        ]
    );
    let mut ids: Vec<&str> = events.iter().map(|e| e.call_id.as_str()).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), events.len(), "every record has its own call_id");
    client.cancel().await.unwrap();
    started.server.stop().await.unwrap();
}

#[tokio::test]
async fn a_reader_s_write_is_refused_inside_and_hidden_tools_are_unknown() {
    let started = start(CodeLimits::default()).await;
    let client = connect(&started.server.url, "reader-key").await;
    // `execute`'s description declares only the tools the reader may call.
    let tools = client.list_all_tools().await.unwrap();
    let execute_tool = tools.iter().find(|t| t.name == "execute").unwrap();
    let description = execute_tool.description.as_deref().unwrap_or_default();
    assert!(description.contains("list_notes(args: {"), "{description}");
    assert!(!description.contains("add_note"), "{description}");
    let code = r#"
        const out = [];
        for (const call of [() => tools.add_note({text: "x"}), () => tools.no_such_tool({})]) {
            try { await call(); out.push("called"); } catch (e) { out.push(e.message); }
        }
        return out;
    "#;
    let result = execute(&client, code).await;
    assert_eq!(
        output(&result)["result"],
        json!(["Unknown tool: add_note", "Unknown tool: no_such_tool"])
    );
    assert!(
        started.notes.calls().is_empty(),
        "nothing reached the tools"
    );
    let denied: Vec<(String, AuditStatus)> = started
        .recorder
        .events()
        .into_iter()
        .filter(|e| e.parent_call_id.is_some())
        .map(|e| (e.tool, e.status))
        .collect();
    assert_eq!(
        denied,
        [
            ("add_note".to_owned(), AuditStatus::Denied),
            ("no_such_tool".to_owned(), AuditStatus::Denied)
        ]
    );
    client.cancel().await.unwrap();
    started.server.stop().await.unwrap();
}

#[tokio::test]
async fn declarations_that_do_not_fit_leave_execute_s_short_description() {
    // 0 turns them off; 200 bytes is less than the declarations of the notes' tools.
    for limit in [0, 200] {
        let started = start(CodeLimits::default().with_inline_declarations(limit)).await;
        let client = connect(&started.server.url, "admin-key").await;
        let tools = client.list_all_tools().await.unwrap();
        let execute_tool = tools.iter().find(|t| t.name == "execute").unwrap();
        let description = execute_tool.description.as_deref().unwrap_or_default();
        assert!(
            !description.contains("list_notes"),
            "{limit}: {description}"
        );
        // The description the runtime lists without declarations (the tool count is only
        // in `search_tools`' description).
        let listed: Value =
            serde_json::from_str(&code::tools_list_json(0, &CodeLimits::default(), None)).unwrap();
        let listed_execute = listed["tools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == "execute")
            .unwrap();
        assert_eq!(listed_execute["description"], json!(description));
        client.cancel().await.unwrap();
        started.server.stop().await.unwrap();
    }
}

#[tokio::test]
async fn inner_failures_are_catchable_errors_naming_their_cause() {
    let started = start(CodeLimits::default()).await;
    let client = connect(&started.server.url, "admin-key").await;
    let code = r#"
        const messages = {};
        try { await tools.remote_status(); } catch (e) { messages.upstream = e.message; }
        try { await tools.list_notes({limit: 0}); } catch (e) { messages.invalid = e.message; }
        try { await tools.delete_note({id: 1}); } catch (e) { messages.confirm = e.message; }
        try { await tools.list_notes(7); } catch (e) { messages.shape = e.message; }
        return messages;
    "#;
    let result = output(&execute(&client, code).await)["result"].clone();
    let message = |key: &str| result[key].as_str().unwrap_or_default().to_owned();
    assert!(message("upstream").contains("502"), "{result}");
    assert!(
        message("invalid").contains("invalid arguments for tool `list_notes`")
            && message("invalid").contains("limit"),
        "{result}"
    );
    assert!(
        message("confirm").contains("`delete_note`") && message("confirm").contains("directly"),
        "{result}"
    );
    assert!(message("shape").contains("must be an object"), "{result}");
    assert!(
        started.deleting.0.lock().unwrap().is_empty(),
        "a tool needing confirmation never runs from a program"
    );
    assert!(
        started
            .recorder
            .events()
            .iter()
            .any(|e| e.tool == "delete_note" && e.status == AuditStatus::NotConfirmed)
    );

    let uncaught = failure(&execute(&client, "const x = 1;\nnull.field;\nreturn x;").await);
    assert!(
        uncaught.contains("TypeError") && uncaught.contains("line 2"),
        "{uncaught}"
    );
    let syntax = failure(&execute(&client, "const a = 1;\nconst b = ;\nreturn a;").await);
    assert!(
        syntax.contains("does not parse") && syntax.contains("line 2"),
        "{syntax}"
    );
    let typed = failure(&execute(&client, "const n: number = 1;\nreturn n;").await);
    assert!(typed.contains("plain JavaScript"), "{typed}");
    let events = started.recorder.events();
    let failed = events
        .iter()
        .filter(|e| e.tool == "execute" && e.status == AuditStatus::ToolError)
        .count();
    assert_eq!(failed, 3, "{events:?}");
    client.cancel().await.unwrap();
    started.server.stop().await.unwrap();
}

#[tokio::test]
async fn inner_calls_take_rate_limit_tokens_and_execute_takes_none() {
    let started = start(CodeLimits::default()).await;
    // One call a second, a burst of one.
    let client = connect(&started.server.url, "limited-key").await;
    let code = r#"
        const out = [];
        for (let i = 0; i < 2; i++) {
            try { await tools.list_notes({}); out.push("ok"); } catch (e) { out.push(e.message); }
        }
        return out;
    "#;
    let result = output(&execute(&client, code).await)["result"].clone();
    assert_eq!(result[0], "ok", "{result}");
    assert!(
        result[1]
            .as_str()
            .unwrap_or_default()
            .contains("rate limit"),
        "{result}"
    );
    assert_eq!(started.notes.calls(), ["list_notes"]);
    client.cancel().await.unwrap();
    started.server.stop().await.unwrap();
}

#[tokio::test]
async fn limits_end_a_program_with_an_error_naming_them() {
    // A time limit that a program stopped for its memory cannot reach first, even on a loaded
    // machine where the worker that runs it is still starting.
    let limits = CodeLimits::default()
        .with_timeout(Duration::from_secs(3))
        .with_memory(16 * 1024 * 1024)
        .with_max_calls(5)
        .with_max_output(1024);
    let started = start(limits).await;
    let client = connect(&started.server.url, "admin-key").await;
    for (code, limit) in [
        ("while (true) {}", "--code-timeout"),
        (
            "const a = []; while (true) a.push('x'.repeat(1000000) + a.length);",
            "--code-memory",
        ),
        (
            "function f(n) { return f(n + 1) + 1; } return f(0);",
            "stack depth",
        ),
        (
            "for (let i = 0; i < 100000; i++) { try { await tools.list_notes({}); } catch (e) {} }",
            "--code-max-calls",
        ),
        ("return 'x'.repeat(5000);", "--code-max-output"),
        (
            "for (let i = 0; i < 1000; i++) console.log('line', i);",
            "--code-max-output",
        ),
    ] {
        let message = failure(&execute(&client, code).await);
        assert!(message.contains(limit), "{code}: {message}");
        // The server still answers.
        let next = execute(
            &client,
            "return (await tools.list_notes({limit: 1})).notes;",
        )
        .await;
        assert_eq!(output(&next)["result"], json!(["note 1"]), "after {code}");
    }
    let calls = started.notes.calls();
    let from_the_cap = calls.len() - 6;
    assert_eq!(
        from_the_cap, 5,
        "the calls past the cap reached nothing: {calls:?}"
    );
    let never = failure(&execute(&client, "await new Promise(() => {}); return 1;").await);
    assert!(never.contains("nothing can settle"), "{never}");
    client.cancel().await.unwrap();
    started.server.stop().await.unwrap();
}

/// A program that loops inside the engine's C code, where its interrupt handler is never
/// called.
const IN_C: &str = "return Array.prototype.reverse.call({length: 2 ** 53 - 1});";

/// The `execute` records, and for each the inner records naming it.
fn executes_and_inner(recorder: &Recorder) -> Vec<(AuditEvent, Vec<AuditEvent>)> {
    let events = recorder.events();
    events
        .iter()
        .filter(|e| e.tool == "execute")
        .map(|e| {
            let inner = events
                .iter()
                .filter(|i| i.parent_call_id.as_deref() == Some(e.call_id.as_str()))
                .cloned()
                .collect();
            (e.clone(), inner)
        })
        .collect()
}

#[tokio::test]
async fn every_inner_call_has_one_record_linked_to_its_execute_however_the_program_ends() {
    let limits = CodeLimits::default()
        .with_timeout(Duration::from_secs(1))
        .with_max_concurrent(2);
    let started = start(limits).await;
    let client = connect(&started.server.url, "admin-key").await;
    let cases = [
        // Still waiting at the deadline: the call ends after it, and is recorded as it ended.
        ("return await tools.slow({ms: 1000});", 1, "--code-timeout"),
        // Two writes started, never awaited.
        (
            "tools.add_note({text: 'a'}); tools.add_note({text: 'b'}); return 1;",
            2,
            "",
        ),
        // A call from a thrown value's `toJSON`.
        (
            "throw { toJSON() { tools.add_note({text: 'thrown'}); return 'boom'; } };",
            1,
            "boom",
        ),
        // Calls, then a loop in the engine's C code: killed past the deadline.
        (
            "await tools.list_notes({}); await tools.list_notes({}); await tools.list_notes({});\n\
             return Array.prototype.reverse.call({length: 2 ** 53 - 1});",
            3,
            "--code-timeout",
        ),
    ];
    for (code, _, says) in cases {
        let result = execute(&client, code).await;
        assert!(text(&result).contains(says), "{code}: {}", text(&result));
    }
    // Records of calls that end after their `execute` follow it.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let records = executes_and_inner(&started.recorder);
    assert_eq!(records.len(), cases.len());
    for ((execute, inner), (code, calls, _)) in records.iter().zip(cases) {
        assert_eq!(execute.inner_calls, Some(calls), "{code}");
        assert_eq!(inner.len(), calls as usize, "{code}: {inner:?}");
    }
    let slow = &records[0].1[0];
    assert_eq!(slow.tool, "slow");
    // Each call that reached the tool set has its record, and no other did.
    assert_eq!(started.notes.calls().len(), 1 + 2 + 1 + 3);
    client.cancel().await.unwrap();
    started.server.stop().await.unwrap();
}

#[tokio::test]
async fn a_program_looping_in_c_is_killed_and_its_slot_comes_back_by_the_grace() {
    let limits = CodeLimits::default()
        .with_timeout(Duration::from_secs(1))
        .with_max_concurrent(2)
        .with_max_per_principal(2);
    let started = start(limits).await;
    let client = connect(&started.server.url, "admin-key").await;
    let runaways = (0..3).map(|_| execute(&client, IN_C));
    let begun = std::time::Instant::now();
    for result in futures::future::join_all(runaways).await {
        assert!(
            failure(&result).contains("--code-timeout") || failure(&result).contains("not run")
        );
    }
    let answer = execute(&client, "return 6 * 7;").await;
    assert_eq!(output(&answer)["result"], json!(42));
    // Two deadlines one after the other, each with its grace, and generous slack.
    assert!(
        begun.elapsed() < Duration::from_secs(8),
        "{:?}",
        begun.elapsed()
    );
    client.cancel().await.unwrap();
    started.server.stop().await.unwrap();
}

#[tokio::test]
async fn one_principal_s_runaways_leave_room_for_another_s_program() {
    let limits = CodeLimits::default()
        .with_timeout(Duration::from_secs(2))
        .with_max_concurrent(4);
    let started = start(limits).await;
    let admin = connect(&started.server.url, "admin-key").await;
    let notes = connect(&started.server.url, "notes-key").await;
    // A quarter of 4: one program of admin's at a time. The second comes once the first runs
    // (its call reached the tool set), waits for its slot, and is not run: the first holds it
    // until its deadline plus the grace, past the second's own deadline.
    let calls = started.notes.calls.clone();
    let running = async move {
        while !calls.lock().unwrap().iter().any(|c| c == "slow") {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    };
    let (first, second, other) = tokio::join!(
        execute(
            &admin,
            "await tools.slow({ms: 1}); return Array.prototype.reverse.call({length: 2 ** 53 - 1});"
        ),
        async {
            running.await;
            execute(&admin, "return 1;").await
        },
        async {
            tokio::time::sleep(Duration::from_millis(300)).await;
            execute(&notes, "return 6 * 7;").await
        },
    );
    assert!(
        failure(&first).contains("--code-timeout"),
        "{}",
        text(&first)
    );
    let not_run = failure(&second);
    assert!(
        not_run.contains("not run") && not_run.contains("--code-max-per-principal"),
        "{not_run}"
    );
    assert_eq!(output(&other)["result"], json!(42));
    admin.cancel().await.unwrap();
    notes.cancel().await.unwrap();
    started.server.stop().await.unwrap();
}

#[tokio::test]
async fn a_crashed_worker_fails_its_program_and_a_worker_cannot_open_files_or_sockets() {
    let started = start(CodeLimits::default()).await;
    let client = connect(&started.server.url, "admin-key").await;
    let crashed = failure(&execute(&client, "/* mcpgen-test-hook: crash */").await);
    assert!(
        crashed.contains("worker process died") && crashed.contains("SIGABRT"),
        "{crashed}"
    );
    let next = execute(&client, "return 6 * 7;").await;
    assert_eq!(output(&next)["result"], json!(42));
    let escaped = output(&execute(&client, "/* mcpgen-test-hook: escape */").await);
    let tried = &escaped["result"];
    for what in ["file", "socket"] {
        let outcome = tried[what].as_str().unwrap();
        assert!(outcome.starts_with("refused"), "{what}: {outcome}");
    }
    // Nothing of the server's environment reaches a worker.
    assert_eq!(
        tried["env"],
        json!(["MCPGEN_CODE_WORKER", "MCPGEN_CODE_TEST_HOOKS"]),
        "{tried}"
    );
    client.cancel().await.unwrap();
    started.server.stop().await.unwrap();
}

#[tokio::test]
async fn memory_surrogates_and_oversized_arguments_are_answered_by_name() {
    let limits = CodeLimits::default().with_memory(16 * 1024 * 1024);
    let started = start_with(limits, |b| b.max_body_bytes(4096)).await;
    let client = connect(&started.server.url, "admin-key").await;
    for code in [
        "const m = new Map(); for (let i = 0; ; i++) m.set(i, {i});",
        "const o = {}; for (let i = 0; ; i++) o['k' + i] = i;",
    ] {
        let message = failure(&execute(&client, code).await);
        assert!(message.contains("--code-memory"), "{code}: {message}");
    }
    let cut = output(&execute(&client, "return ['a\\u{1F600}b'.slice(0, 2), '\\uDE00'];").await);
    assert_eq!(cut["result"], json!(["a\u{FFFD}", "\u{FFFD}"]));
    let logged = output(&execute(&client, "console.log('\\uD83D', 'x'); return 1;").await);
    assert_eq!(logged["logs"], json!(["\u{FFFD} x"]));
    let large = failure(
        &execute(
            &client,
            "return await tools.add_note({text: 'x'.repeat(10000)});",
        )
        .await,
    );
    assert!(large.contains("--max-body-bytes"), "{large}");
    assert!(
        started.notes.calls().is_empty(),
        "{:?}",
        started.notes.calls()
    );
    client.cancel().await.unwrap();
    started.server.stop().await.unwrap();
}

#[test]
fn a_binary_that_does_not_serve_as_a_worker_stops_the_build_naming_the_function() {
    // This test binary does not call `run_worker_if_asked`: started as a worker, it fails on
    // the argument it does not know.
    let this = std::env::current_exe().unwrap();
    let built = builder(&Notes::default(), &Recorder::default())
        .tool_mode(ToolMode::Code)
        .code_limits(CodeLimits::default().with_worker_program(this))
        .build();
    let Err(error) = built else {
        panic!("a server whose worker does not answer must not build");
    };
    let message = error.to_string();
    assert!(
        message.contains("code-mode worker") && message.contains("run_worker_if_asked()"),
        "{message}"
    );
}
