//! The generated Synaplan server in code mode (`--tool-mode code`, built with the `code-mode`
//! feature), as a child process over Streamable HTTP against a loopback stand-in for the
//! Synaplan API that pages, searches and takes writes.
//!
//! The official Python and TypeScript clients run programs that page through a filtered list,
//! fan out one call per item, aggregate across lists and write; a read-only key's write is
//! refused inside its program with nothing reaching the API; inner errors are caught, invalid
//! arguments are named by path and unknown tools are unknown. The audit log links every inner
//! call to its `execute`. Then a sandbox battery, each case followed by a call that still
//! answers: an infinite loop, a promise that never settles, a memory bomb (the server's peak
//! RSS stays bounded), unbounded recursion, host capabilities probed, state leaking between
//! programs, 100,000 inner calls (the API sees at most the cap), a 50 MB result and 20
//! programs at once.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::{Path as UrlPath, Query, State};
use axum::routing::{get, post, put};
use mcpgen_tests::{
    http_client, node_bin, node_file, repo_root, serve_on_loopback, start_synaplan_http, text,
};
use rmcp::model::{CallToolRequestParams, CallToolResult};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

/// The requests the stand-in received, as `METHOD path`.
type Seen = Arc<Mutex<Vec<String>>>;

/// Eight files in two groups, every other one a PDF.
fn files() -> Vec<Value> {
    (1..=8)
        .map(|id| {
            let pdf = id % 2 == 1;
            json!({
                "id": id,
                "fileName": format!("file-{id}.{}", if pdf { "pdf" } else { "txt" }),
                "mimeType": if pdf { "application/pdf" } else { "text/plain" },
                "size": id * 1000,
                "groupKey": if id <= 4 { "contracts" } else { "invoices" },
                "status": "vectorized",
            })
        })
        .collect()
}

fn chats() -> Vec<Value> {
    ["Untitled", "Contract review", "Untitled", "Budget"]
        .iter()
        .enumerate()
        .map(|(i, title)| json!({"id": i + 1, "title": title, "messageCount": i * 3}))
        .collect()
}

fn number(query: &HashMap<String, String>, key: &str, default: usize) -> usize {
    query
        .get(key)
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// A stand-in for the Synaplan API with paging, search and writes; `GET /api/v1/config/runtime`
/// fails with 500.
async fn stand_in() -> (String, Seen) {
    let seen: Seen = Arc::default();
    let app = Router::new()
        .route(
            "/api/v1/files",
            get(
                |State(seen): State<Seen>, Query(q): Query<HashMap<String, String>>| async move {
                    note(&seen, "GET /api/v1/files".to_owned());
                    let all: Vec<Value> = files()
                        .into_iter()
                        .filter(|f| q.get("group_key").is_none_or(|g| f["groupKey"] == **g))
                        .collect();
                    let (page, limit) = (number(&q, "page", 1).max(1), number(&q, "limit", 20));
                    let items: Vec<Value> = all
                        .iter()
                        .skip((page - 1) * limit)
                        .take(limit)
                        .cloned()
                        .collect();
                    axum::Json(json!({"files": items, "total": all.len()}))
                },
            ),
        )
        .route(
            "/api/v1/chats",
            get(
                |State(seen): State<Seen>, Query(q): Query<HashMap<String, String>>| async move {
                    note(&seen, "GET /api/v1/chats".to_owned());
                    let (offset, limit) = (number(&q, "offset", 0), number(&q, "limit", 20));
                    let items: Vec<Value> = chats().into_iter().skip(offset).take(limit).collect();
                    axum::Json(json!({"chats": items, "total": chats().len()}))
                },
            ),
        )
        .route(
            "/api/v1/chats/{id}",
            put(
                |State(seen): State<Seen>,
                 UrlPath(id): UrlPath<u64>,
                 axum::Json(body): axum::Json<Value>| async move {
                    note(&seen, format!("PUT /api/v1/chats/{id}"));
                    axum::Json(json!({"id": id, "title": body["title"], "messageCount": 0}))
                },
            ),
        )
        .route(
            "/api/v1/prompts",
            get(|State(seen): State<Seen>| async move {
                note(&seen, "GET /api/v1/prompts".to_owned());
                axum::Json(json!({"prompts": [
                    {"id": 7, "topic": "general", "language": "en"},
                    {"id": 8, "topic": "mailhandler", "language": "de"},
                ]}))
            }),
        )
        .route(
            "/api/v1/rag/search",
            post(
                |State(seen): State<Seen>, axum::Json(body): axum::Json<Value>| async move {
                    note(&seen, "POST /api/v1/rag/search".to_owned());
                    let query = body["query"].as_str().unwrap_or_default().to_owned();
                    axum::Json(json!({"results": [
                        {"fileName": query, "chunk": format!("about {query}"), "score": 0.9},
                        {"fileName": query, "chunk": "more", "score": 0.5},
                    ]}))
                },
            ),
        )
        .route(
            "/api/v1/messages/send",
            post(|State(seen): State<Seen>| async move {
                note(&seen, "POST /api/v1/messages/send".to_owned());
                axum::Json(json!({"id": 1, "chatId": 2, "text": "hello back"}))
            }),
        )
        .route(
            "/api/v1/config/runtime",
            get(|State(seen): State<Seen>| async move {
                note(&seen, "GET /api/v1/config/runtime".to_owned());
                (
                    axum::http::StatusCode::INTERNAL_SERVER_ERROR,
                    "the configuration store is down",
                )
            }),
        )
        .with_state(seen.clone());
    let url = serve_on_loopback(app).await.expect("stand-in starts");
    (url, seen)
}

fn note(seen: &Seen, what: String) {
    seen.lock().unwrap().push(what);
}

fn count(seen: &Seen, what: &str) -> usize {
    seen.lock().unwrap().iter().filter(|s| *s == what).count()
}

fn keys_file(dir: &Path) -> PathBuf {
    let path = dir.join("keys.yaml");
    std::fs::write(
        &path,
        "keys:\n  - id: reader\n    key: read-key-0123456789\n    principal: alice\n    scopes: [mcp:read]\n  - id: writer\n    key: write-key-0123456789\n    principal: bob\n    scopes: ['mcp:*']\n    plugins: [chat-organizer]\n",
    )
    .expect("write keys");
    path
}

const PAGINATED: &str = r#"
const pdfs = [];
for (let page = 1; ; page++) {
  const { files, total } = await tools.synaplan_list_files({ page, limit: 3 });
  for (const f of files) if (f.mimeType === "application/pdf") pdfs.push(f.fileName);
  if (page * 3 >= total) break;
}
return pdfs;
"#;

const FAN_OUT: &str = r#"
const { files } = await tools.synaplan_list_files({ group_key: "contracts" });
const hits = await Promise.all(files.map((f) =>
  tools.synaplan_search_documents({ query: f.fileName, group_key: "contracts" })));
return files.map((f, i) => ({ file: f.fileName, best: hits[i].results[0].score }));
"#;

const AGGREGATE: &str = r#"
const [files, chats, prompts] = await Promise.all([
  tools.synaplan_list_files({ limit: 100 }),
  tools.synaplan_list_chats({ limit: 100 }),
  tools.synaplan_list_prompts({}),
]);
const bytes = files.files.reduce((sum, f) => sum + f.size, 0);
const messages = chats.chats.reduce((sum, c) => sum + c.messageCount, 0);
console.log("languages", prompts.prompts.map((p) => p.language).join(","));
return { files: files.total, bytes, chats: chats.total, messages, prompts: prompts.prompts.length };
"#;

const WRITES: &str = r#"
const { chats } = await tools.synaplan_list_chats({});
const renamed = [];
for (const chat of chats.filter((c) => c.title === "Untitled")) {
  const done = await tools.synaplan_rename_chat({ id: chat.id, body: { title: "Chat " + chat.id } });
  renamed.push(done.title);
}
const reply = await tools.synaplan_send_message({ message: "renamed " + renamed.length });
return { renamed, reply: reply.text };
"#;

const CAUGHT: &str = r#"
try {
  await tools.synaplan_get_config({});
  return "no error";
} catch (e) {
  return { caught: e instanceof Error, message: e.message };
}
"#;

const INVALID: &str = r#"
try {
  await tools.synaplan_rename_chat({ id: 1, body: { title: "" } });
  return "no error";
} catch (e) {
  return e.message;
}
"#;

const READ_ONLY_WRITE: &str = r#"
const out = {};
try { await tools.synaplan_send_message({ message: "hi" }); out.send = "sent"; } catch (e) { out.send = e.message; }
try { await tools.synaplan_rename_chat({ id: 1, body: { title: "x" } }); out.rename = "renamed"; } catch (e) { out.rename = e.message; }
try { await tools.synaplan_delete_everything({}); out.unknown = "called"; } catch (e) { out.unknown = e.message; }
out.prompts = (await tools.synaplan_list_prompts({})).prompts.length;
return out;
"#;

fn execute(code: &str) -> Value {
    json!({"name": "execute", "arguments": {"code": code}})
}

#[derive(Clone, Copy, Debug)]
enum Sdk {
    Python,
    TypeScript,
}

/// Runs `calls` with one official client as the holder of `key`; returns its results.
async fn run_client(sdk: Sdk, url: &str, key: &str, calls: &[Value]) -> (Vec<String>, Vec<Value>) {
    let calls = Value::Array(calls.to_vec()).to_string();
    let endpoint = format!("{url}/mcp");
    let header = format!("X-API-Key={key}");
    let mut cmd = match sdk {
        Sdk::Python => {
            let python = repo_root().join("tests/python/.venv/bin/python");
            assert!(
                python.exists(),
                "run scripts/test.sh, which installs tests/python"
            );
            let mut c = tokio::process::Command::new(python);
            c.arg(repo_root().join("tests/python/list_and_call.py"));
            c.args([calls.as_str(), endpoint.as_str(), header.as_str()]);
            c
        }
        Sdk::TypeScript => {
            let mut c = tokio::process::Command::new(node_bin("node"));
            c.arg(node_file("list-and-call.mjs"));
            c.args(["http", calls.as_str(), endpoint.as_str(), header.as_str()]);
            c
        }
    };
    cmd.kill_on_drop(true);
    let out = tokio::time::timeout(std::time::Duration::from_secs(120), cmd.output())
        .await
        .expect("the client finishes")
        .expect("the client runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let printed: Value = serde_json::from_str(stdout.lines().last().unwrap_or_default())
        .unwrap_or_else(|_| {
            panic!(
                "{sdk:?} printed no JSON line:\n{stdout}\n{}",
                String::from_utf8_lossy(&out.stderr)
            )
        });
    assert_eq!(printed["ok"], true, "{sdk:?}: {printed}");
    let tools = printed["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| {
            t.as_str()
                .or(t["name"].as_str())
                .unwrap_or_default()
                .to_owned()
        })
        .collect();
    let results = printed["results"].as_array().expect("results").clone();
    (tools, results)
}

/// The `result` of a successful `execute` a client reported.
fn returned(sdk: Sdk, reported: &Value) -> Value {
    assert_eq!(reported["ok"], true, "{sdk:?}: {reported}");
    assert_eq!(reported["isError"], false, "{sdk:?}: {reported}");
    reported["structuredContent"]["result"].clone()
}

#[tokio::test]
async fn official_clients_run_programs_against_the_generated_server() {
    let (upstream, seen) = stand_in().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let keys = keys_file(dir.path());
    let audit = dir.path().join("audit.jsonl");
    let (_server, url) = start_synaplan_http(
        &upstream,
        &[
            "--keys",
            keys.to_str().expect("UTF-8 path"),
            "--tool-mode",
            "code",
            "--audit-log",
            audit.to_str().expect("UTF-8 path"),
            "--audit-fsync",
            "always",
        ],
    )
    .await;

    for (round, sdk) in [Sdk::Python, Sdk::TypeScript].into_iter().enumerate() {
        let (tools, results) = run_client(
            sdk,
            &url,
            "write-key-0123456789",
            &[
                execute(PAGINATED),
                execute(FAN_OUT),
                execute(AGGREGATE),
                execute(WRITES),
                execute(CAUGHT),
                execute(INVALID),
            ],
        )
        .await;
        assert_eq!(
            tools,
            ["search_tools", "describe_tools", "execute"],
            "{sdk:?}"
        );
        assert_eq!(
            returned(sdk, &results[0]),
            json!(["file-1.pdf", "file-3.pdf", "file-5.pdf", "file-7.pdf"])
        );
        assert_eq!(
            returned(sdk, &results[1]),
            json!([
                {"file": "file-1.pdf", "best": 0.9},
                {"file": "file-2.txt", "best": 0.9},
                {"file": "file-3.pdf", "best": 0.9},
                {"file": "file-4.txt", "best": 0.9},
            ])
        );
        assert_eq!(
            returned(sdk, &results[2]),
            json!({"files": 8, "bytes": 36000, "chats": 4, "messages": 18, "prompts": 2})
        );
        assert_eq!(
            results[2]["structuredContent"]["logs"],
            json!(["languages en,de"])
        );
        assert_eq!(
            returned(sdk, &results[3]),
            json!({"renamed": ["Chat 1", "Chat 3"], "reply": "hello back"})
        );
        let caught = returned(sdk, &results[4]);
        assert_eq!(caught["caught"], true, "{caught}");
        let message = caught["message"].as_str().unwrap_or_default();
        assert!(
            message.contains("500") && message.contains("configuration store is down"),
            "{message}"
        );
        let invalid = returned(sdk, &results[5]);
        let invalid = invalid.as_str().unwrap_or_default();
        assert!(
            invalid.contains("synaplan_rename_chat") && invalid.contains("/body/title"),
            "{invalid}"
        );
        let writes = 2 * (round + 1);
        assert_eq!(
            count(&seen, "PUT /api/v1/chats/1") + count(&seen, "PUT /api/v1/chats/3"),
            writes
        );
        assert_eq!(count(&seen, "PUT /api/v1/chats/2"), 0);

        let sent = count(&seen, "POST /api/v1/messages/send");
        let (_, results) = run_client(
            sdk,
            &url,
            "read-key-0123456789",
            &[execute(READ_ONLY_WRITE)],
        )
        .await;
        assert_eq!(
            returned(sdk, &results[0]),
            json!({
                "send": "Unknown tool: synaplan_send_message",
                "rename": "Unknown tool: synaplan_rename_chat",
                "unknown": "Unknown tool: synaplan_delete_everything",
                "prompts": 2,
            })
        );
        assert_eq!(
            count(&seen, "POST /api/v1/messages/send"),
            sent,
            "nothing of the reader's write reached the API"
        );
    }

    // The audit log: one record per `execute`, and one per inner call naming it.
    let log = std::fs::read_to_string(&audit).expect("audit log");
    let records: Vec<Value> = log
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect();
    let digest = hex::encode(Sha256::digest(WRITES.as_bytes()));
    let writes: Vec<&Value> = records
        .iter()
        .filter(|r| r["tool"] == "execute" && r["code_sha256"] == digest.as_str())
        .collect();
    assert_eq!(writes.len(), 2, "one per client");
    for record in writes {
        assert_eq!(record["principal"], "bob");
        assert_eq!(record["status"], "ok");
        assert_eq!(record["inner_calls"], 4);
        let inner: Vec<&str> = records
            .iter()
            .filter(|r| r["parent_call_id"] == record["call_id"])
            .map(|r| r["tool"].as_str().unwrap_or_default())
            .collect();
        assert_eq!(
            inner,
            [
                "synaplan_list_chats",
                "synaplan_rename_chat",
                "synaplan_rename_chat",
                "synaplan_send_message"
            ]
        );
    }
    let denied: Vec<&str> = records
        .iter()
        .filter(|r| r["principal"] == "alice" && r["status"] == "denied")
        .map(|r| r["tool"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(
        denied.len(),
        6,
        "the reader's refused calls are audited, linked to their execute: {denied:?}"
    );
    assert!(
        records
            .iter()
            .filter(|r| r["status"] == "denied")
            .all(|r| r["parent_call_id"].is_string())
    );
}

fn call(name: &'static str, args: Value) -> CallToolRequestParams {
    CallToolRequestParams::new(name).with_arguments(args.as_object().cloned().unwrap_or_default())
}

/// The peak resident memory of process `pid`, in bytes (`VmHWM`).
fn peak_rss(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("proc status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map(|kb| kb * 1024)
        .expect("VmHWM")
}

#[tokio::test]
async fn the_sandbox_holds_and_the_server_answers_after_each_attack() {
    let (upstream, seen) = stand_in().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let keys = keys_file(dir.path());
    let (server, url) = start_synaplan_http(
        &upstream,
        &[
            "--keys",
            keys.to_str().expect("UTF-8 path"),
            "--tool-mode",
            "code",
            "--code-timeout",
            "3",
            // The 20 programs at once below are one caller's.
            "--code-max-per-principal",
            "8",
        ],
    )
    .await;
    let pid = server.0.id().expect("server pid");
    let client = http_client(&url, "write-key-0123456789").await;
    let run = |code: &str| {
        let request = call("execute", json!({ "code": code }));
        let client = &client;
        async move { client.call_tool(request).await.expect("execute answers") }
    };
    let still_answers = || async {
        let result = client
            .call_tool(call("synaplan_list_prompts", json!({})))
            .await
            .expect("a direct call answers");
        assert_eq!(result.is_error, Some(false), "{}", text(&result));
    };
    let failed = |result: &CallToolResult| -> String {
        assert_eq!(result.is_error, Some(true), "{}", text(result));
        text(result)
    };

    let message = failed(&run("while (true) {}").await);
    assert!(message.contains("--code-timeout"), "{message}");
    still_answers().await;

    let message = failed(&run("await new Promise(() => {}); return 1;").await);
    assert!(message.contains("nothing can settle"), "{message}");
    still_answers().await;

    let before = peak_rss(pid);
    let message = failed(
        &run("const a = []; while (true) a.push('x'.repeat(1 << 20) + a.length); return a.length;")
            .await,
    );
    assert!(message.contains("--code-memory"), "{message}");
    let peak = peak_rss(pid);
    assert!(
        peak < before.max(32 << 20) + (64 << 20) + (48 << 20),
        "peak RSS {peak} bytes after a memory bomb (before: {before})"
    );
    still_answers().await;

    let message = failed(&run("function f(n) { return f(n + 1) + 1; } return f(0);").await);
    assert!(message.contains("stack depth"), "{message}");
    still_answers().await;

    let probes = run(r#"
        const kinds = {};
        for (const name of ["require", "process", "fetch", "XMLHttpRequest", "setTimeout",
                            "setInterval", "std", "os", "Deno", "Bun", "WebAssembly", "module"]) {
          kinds[name] = typeof globalThis[name];
        }
        kinds.importing = await import("fs").then(() => "loaded", (e) => "refused");
        kinds.evalRequire = eval("typeof require");
        kinds.functionProcess = Function("return typeof process")();
        kinds.globals = Object.getOwnPropertyNames(globalThis).filter((n) => !/^[A-Z]/.test(n)).sort();
        return kinds;
    "#)
    .await;
    assert_eq!(probes.is_error, Some(false), "{}", text(&probes));
    let kinds = probes.structured_content.expect("structured")["result"].clone();
    for name in [
        "require",
        "process",
        "fetch",
        "XMLHttpRequest",
        "setTimeout",
        "setInterval",
        "std",
        "os",
        "Deno",
        "Bun",
        "WebAssembly",
        "module",
    ] {
        assert_eq!(kinds[name], "undefined", "{name}: {kinds}");
    }
    assert_eq!(kinds["importing"], "refused");
    assert_eq!(kinds["evalRequire"], "undefined");
    assert_eq!(kinds["functionProcess"], "undefined");
    assert_eq!(
        kinds["globals"],
        json!([
            "decodeURI",
            "decodeURIComponent",
            "encodeURI",
            "encodeURIComponent",
            "escape",
            "eval",
            "globalThis",
            "isFinite",
            "isNaN",
            "parseFloat",
            "parseInt",
            "queueMicrotask",
            "undefined",
            "unescape"
        ]),
        "the global object holds the language's functions only"
    );
    still_answers().await;

    let first = run(r#"
        globalThis.leak = 1;
        Object.prototype.polluted = 2;
        Array.prototype.push = null;
        JSON.parse = () => "hijacked";
        return "set";
    "#)
    .await;
    assert_eq!(first.is_error, Some(false), "{}", text(&first));
    let second = run(r#"
        return [typeof globalThis.leak, typeof ({}).polluted, typeof [].push,
                JSON.parse("1"), (await tools.synaplan_list_prompts({})).prompts.length];
    "#)
    .await;
    assert_eq!(
        second.structured_content.expect("structured")["result"],
        json!(["undefined", "undefined", "function", 1, 2])
    );
    still_answers().await;

    let prompts_before = count(&seen, "GET /api/v1/prompts");
    let message = failed(
        &run("for (let i = 0; i < 100000; i++) { try { await tools.synaplan_list_prompts({}); } catch (e) {} } return 1;")
            .await,
    );
    assert!(message.contains("--code-max-calls"), "{message}");
    let message = failed(
        &run("const all = []; for (let i = 0; i < 100000; i++) all.push(tools.synaplan_list_prompts({})); await Promise.allSettled(all); return 1;")
            .await,
    );
    assert!(message.contains("--code-max-calls"), "{message}");
    let reached = count(&seen, "GET /api/v1/prompts") - prompts_before;
    assert!(
        reached <= 100,
        "two programs of 100,000 calls each: {reached} reached the API"
    );
    still_answers().await;

    let message = failed(&run("return 'x'.repeat(50 * 1024 * 1024);").await);
    assert!(
        message.contains("--code-max-output") || message.contains("--code-memory"),
        "{message}"
    );
    still_answers().await;

    let programs: Vec<_> = (0..20)
        .map(|i| {
            run_owned(
                &client,
                format!("return {i} + (await tools.synaplan_list_prompts({{}})).prompts.length;"),
            )
        })
        .collect();
    let results = futures::future::join_all(programs).await;
    for (i, result) in results.iter().enumerate() {
        assert_eq!(
            result.is_error,
            Some(false),
            "program {i}: {}",
            text(result)
        );
        assert_eq!(
            result.structured_content.as_ref().expect("structured")["result"],
            json!(i + 2)
        );
    }
    still_answers().await;
    client.cancel().await.ok();
}

/// The processes whose parent is `pid`, from `/proc`.
fn children(pid: u32) -> Vec<u32> {
    let mut found = Vec::new();
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return found;
    };
    for task in tasks.flatten() {
        let listed = std::fs::read_to_string(task.path().join("children")).unwrap_or_default();
        found.extend(
            listed
                .split_whitespace()
                .filter_map(|p| p.parse::<u32>().ok()),
        );
    }
    found
}

/// The clock ticks of CPU `pid` has used (user and system), from `/proc/<pid>/stat`; `None`
/// once it is gone.
fn cpu_ticks(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The fields after the command name, which is in parentheses and may hold spaces.
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let user: u64 = fields.get(11)?.parse().ok()?;
    let system: u64 = fields.get(12)?.parse().ok()?;
    Some(user + system)
}

#[tokio::test]
async fn programs_looping_in_the_engine_s_c_code_are_killed_and_the_next_answers() {
    let (upstream, _seen) = stand_in().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let keys = keys_file(dir.path());
    let (server, url) = start_synaplan_http(
        &upstream,
        &[
            "--keys",
            keys.to_str().expect("UTF-8 path"),
            "--tool-mode",
            "code",
            "--code-timeout",
            "2",
            "--code-max-concurrent",
            "2",
            "--code-max-per-principal",
            "2",
        ],
    )
    .await;
    let pid = server.0.id().expect("server pid");
    let client = http_client(&url, "write-key-0123456789").await;
    // `reverse` on such an object loops inside QuickJS's C code, which never calls the
    // interrupt handler; so do `join`, `copyWithin` and `unshift`.
    let runaways = [
        "await tools.synaplan_list_prompts({}); return Array.prototype.reverse.call({length: 2 ** 53 - 1});",
        "return Array.prototype.join.call({length: 2 ** 53 - 1});",
        "return Array.prototype.copyWithin.call({length: 2 ** 53 - 1}, 1);",
    ];
    let begun = std::time::Instant::now();
    let results = futures::future::join_all(
        runaways
            .iter()
            .map(|code| run_owned(&client, (*code).to_owned())),
    )
    .await;
    for result in &results {
        assert_eq!(result.is_error, Some(true), "{}", text(result));
        let message = text(result);
        assert!(
            message.contains("--code-timeout") || message.contains("not run"),
            "{message}"
        );
    }
    let answer = run_owned(&client, "return 6 * 7;".to_owned()).await;
    assert_eq!(answer.is_error, Some(false), "{}", text(&answer));
    assert_eq!(
        answer.structured_content.expect("structured")["result"],
        json!(42)
    );
    // The first two end at their deadline plus the grace (2.5 s), the third waited for one
    // of their slots; generous slack for a loaded machine.
    assert!(
        begun.elapsed() < std::time::Duration::from_secs(12),
        "{:?}",
        begun.elapsed()
    );
    // A second after, no worker is still running anything.
    tokio::time::sleep(std::time::Duration::from_secs(1)).await;
    let workers = children(pid);
    assert!(
        !workers.is_empty() && workers.len() <= 2,
        "workers: {workers:?}"
    );
    let before: Vec<_> = workers.iter().map(|&w| cpu_ticks(w)).collect();
    tokio::time::sleep(std::time::Duration::from_secs(1)).await;
    let after: Vec<_> = workers.iter().map(|&w| cpu_ticks(w)).collect();
    for ((worker, before), after) in workers.iter().zip(before).zip(after) {
        let used = after.unwrap_or(0).saturating_sub(before.unwrap_or(0));
        assert!(
            used <= 2,
            "worker {worker} used {used} ticks of CPU while idle"
        );
    }
    client.cancel().await.ok();
}

async fn run_owned(
    client: &rmcp::service::RunningService<rmcp::RoleClient, ()>,
    code: String,
) -> CallToolResult {
    client
        .call_tool(call("execute", json!({ "code": code })))
        .await
        .expect("execute answers")
}
