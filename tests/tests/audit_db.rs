//! The audit trail in a real PostgreSQL (from the system's packages, started here on loopback
//! in a temporary data folder): the generated Synaplan server, built with its `postgres`
//! feature (`scripts/test.sh` builds it so), runs as a child process against the loopback
//! Synaplan stand-in.
//!
//! - a mixed run leaves exactly one row per call, with the status and error text of the
//!   JSON-lines record of the same call;
//! - with `--audit-fsync always`, a kill -9 of the server loses no acknowledged call;
//! - PostgreSQL stopped and started again mid-run: after the replay of the spool, every call
//!   has exactly one row;
//! - a bad `--audit-db` URL stops the start with a message naming the flag and the fix.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use mcpgen_tests::{free_port, synaplan_stand_in, wait_ready, workspace_binary};
use serde_json::{Value, json};

use crate::support::postgres::Postgres;

// ---------------------------------------------------------------------------------------------
// The server and its calls.

fn keys_file(dir: &Path) -> PathBuf {
    let path = dir.join("keys.yaml");
    std::fs::write(
        &path,
        "keys:\n  - id: reader\n    key: read-key-0123456789\n    principal: alice\n    scopes: [mcp:read]\n  - id: slow\n    key: limited-key-0123456789\n    principal: bob\n    scopes: [mcp:read]\n    rate_limit: 0.001\n",
    )
    .expect("write keys");
    path
}

/// Starts `synaplan-mcp` over HTTP on a free port with `flags`; returns it and its URL.
async fn start_server(
    upstream: &str,
    dir: &Path,
    flags: &[&str],
) -> (tokio::process::Child, String) {
    let port = free_port();
    let keys = keys_file(dir);
    let child = tokio::process::Command::new(workspace_binary("synaplan-mcp"))
        .args(["--transport", "http", "--upstream-url", upstream])
        .args(["--listen", &format!("127.0.0.1:{port}")])
        .args(["--keys", keys.to_str().expect("utf8")])
        .args(flags)
        .current_dir(dir)
        .env("RUST_LOG", "error")
        .stdout(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("server starts");
    let url = format!("http://127.0.0.1:{port}");
    assert!(wait_ready(&format!("{url}/healthz")).await, "server is up");
    (child, url)
}

/// A stateless (2026-07-28) `tools/call` with JSON-RPC id `id`; the HTTP status and the
/// answer.
async fn raw_call(
    http: &reqwest::Client,
    url: &str,
    id: u32,
    key: Option<&str>,
    tool: &str,
    args: Value,
) -> (u16, Value) {
    let body = json!({
        "jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": tool, "arguments": args, "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": {}
        }}
    });
    let mut request = http
        .post(format!("{url}/mcp"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", tool)
        .body(body.to_string());
    if let Some(key) = key {
        request = request.header("x-api-key", key);
    }
    let response = request.send().await.expect("request");
    let status = response.status().as_u16();
    let answer = response.json().await.unwrap_or(Value::Null);
    (status, answer)
}

const READER: Option<&str> = Some("read-key-0123456789");

#[tokio::test(flavor = "multi_thread")]
async fn a_mixed_run_leaves_exactly_one_row_per_call_with_its_status_and_error() {
    let pg = Postgres::start();
    let upstream = synaplan_stand_in().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let audit = dir.path().join("audit.jsonl");
    let url_flag = pg.url();
    let (mut server, url) = start_server(
        &upstream.url,
        dir.path(),
        &[
            "--audit-db",
            &url_flag,
            "--audit-fsync",
            "always",
            "--audit-log",
            audit.to_str().expect("utf8"),
        ],
    )
    .await;
    let http = reqwest::Client::new();
    let mut id = 0;
    let mut next = || {
        id += 1;
        id
    };
    let list = "synaplan_list_prompts";
    // ok ×2, invalid arguments, denied (a write tool for a read key), upstream 500 ×2,
    // rate-limited (the limited key's second call), unauthenticated ×2.
    for _ in 0..2 {
        let (status, answer) = raw_call(&http, &url, next(), READER, list, json!({})).await;
        assert_eq!(status, 200);
        assert_ne!(answer["result"]["isError"], true, "{answer}");
    }
    raw_call(
        &http,
        &url,
        next(),
        READER,
        list,
        json!({"language": "english"}),
    )
    .await;
    raw_call(
        &http,
        &url,
        next(),
        READER,
        "synaplan_send_message",
        json!({"message": "hi"}),
    )
    .await;
    for _ in 0..2 {
        raw_call(
            &http,
            &url,
            next(),
            READER,
            "synaplan_list_files",
            json!({}),
        )
        .await;
    }
    let limited = Some("limited-key-0123456789");
    raw_call(
        &http,
        &url,
        next(),
        limited,
        "synaplan_get_config",
        json!({}),
    )
    .await;
    let (_, answer) = raw_call(
        &http,
        &url,
        next(),
        limited,
        "synaplan_get_config",
        json!({}),
    )
    .await;
    assert!(answer.to_string().contains("rate limit"), "{answer}");
    assert_eq!(
        raw_call(&http, &url, next(), None, list, json!({})).await.0,
        401
    );
    let wrong = Some("not-a-key");
    assert_eq!(
        raw_call(&http, &url, next(), wrong, list, json!({}))
            .await
            .0,
        401
    );
    let calls = next() - 1;

    // With --audit-fsync always every row is committed before its answer.
    let jsonl: Vec<Value> = std::fs::read_to_string(&audit)
        .expect("audit log")
        .lines()
        .map(|l| serde_json::from_str(l).expect("json"))
        .collect();
    assert_eq!(jsonl.len(), calls as usize);
    let from_file: BTreeSet<(String, String, String, String)> = jsonl
        .iter()
        .map(|r| {
            (
                r["request_id"].as_str().unwrap_or_default().to_owned(),
                r["status"].as_str().unwrap_or_default().to_owned(),
                r["tool"].as_str().unwrap_or_default().to_owned(),
                r["error"].as_str().unwrap_or_default().replace('\n', " "),
            )
        })
        .collect();
    let rows = pg.query(
        "SELECT request_id, status, tool, replace(coalesce(error, ''), E'\\n', ' ') FROM mcpgen_audit",
    );
    assert_eq!(rows.len(), calls as usize, "{rows:#?}");
    let from_db: BTreeSet<(String, String, String, String)> = rows
        .iter()
        .map(|row| {
            let mut cols = row.splitn(4, '|').map(str::to_owned);
            let mut col = || cols.next().unwrap_or_default();
            (col(), col(), col(), col())
        })
        .collect();
    assert_eq!(from_db, from_file);
    let per_status: BTreeMap<String, u64> = pg
        .query("SELECT status, count(*) FROM mcpgen_audit GROUP BY status")
        .iter()
        .filter_map(|row| {
            let (status, n) = row.split_once('|')?;
            Some((status.to_owned(), n.parse().ok()?))
        })
        .collect();
    for (status, n) in [
        ("invalid_arguments", 1),
        ("denied", 1),
        ("rate_limited", 1),
        ("unauthenticated", 2),
    ] {
        assert_eq!(per_status.get(status), Some(&n), "{status}: {per_status:?}");
    }
    assert!(
        per_status.get("ok").is_some_and(|n| *n >= 2),
        "{per_status:?}"
    );
    assert_eq!(
        pg.count(
            "SELECT count(*) FROM mcpgen_audit WHERE tool = 'synaplan_list_files' \
             AND status = 'upstream_error' AND upstream_status = 500 \
             AND error LIKE '%disk on fire%' AND operation_id IS NOT NULL"
        ),
        2
    );
    assert_eq!(
        pg.count(
            "SELECT count(*) FROM mcpgen_audit WHERE status = 'unauthenticated' \
             AND principal IS NULL AND error LIKE '%credential%'"
        ),
        2
    );
    // The book's admin questions (docs/src/operator/audit.md) run as written, and answer
    // about this run.
    let page =
        std::fs::read_to_string(mcpgen_tests::repo_root().join("docs/src/operator/audit.md"))
            .expect("docs/src/operator/audit.md");
    let sql = page
        .split("```sql\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("the audit page's SQL block");
    let questions: Vec<&str> = sql
        .split(";\n")
        .map(str::trim)
        .filter(|q| !q.is_empty())
        .collect();
    assert_eq!(questions.len(), 4, "{sql}");
    for question in &questions {
        assert!(!pg.query(question).is_empty(), "no answer to {question}");
    }
    let per_user = pg.query(questions[0]);
    assert!(
        per_user
            .iter()
            .any(|row| row.starts_with("alice|synaplan_list_files|2|2")),
        "{per_user:#?}"
    );
    server.start_kill().ok();
}

/// The rows of `sql` in the SQLite database `db`, columns joined by `|`, read with the
/// system's `sqlite3`.
fn sqlite_query(db: &Path, sql: &str) -> Vec<String> {
    let out = Command::new("sqlite3")
        .args(["-batch", "-separator", "|"])
        .arg(db)
        .arg(sql)
        .output()
        .expect("sqlite3 runs (apt-get install sqlite3)");
    assert!(
        out.status.success(),
        "sqlite3 {sql}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_owned)
        .collect()
}

#[tokio::test]
async fn sqlite_gets_one_row_per_call_as_the_jsonl_log_has_it() {
    let upstream = synaplan_stand_in().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let audit = dir.path().join("audit.jsonl");
    let db = dir.path().join("audit.db");
    let db_flag = format!("sqlite://{}", db.display());
    let (mut server, url) = start_server(
        &upstream.url,
        dir.path(),
        &[
            "--audit-db",
            &db_flag,
            "--audit-fsync",
            "always",
            "--audit-log",
            audit.to_str().expect("utf8"),
        ],
    )
    .await;
    let http = reqwest::Client::new();
    let list = "synaplan_list_prompts";
    // ok ×2, invalid arguments, upstream 500 ×2, unauthenticated.
    for id in 1..=2 {
        let (status, answer) = raw_call(&http, &url, id, READER, list, json!({})).await;
        assert_eq!(status, 200);
        assert_ne!(answer["result"]["isError"], true, "{answer}");
    }
    raw_call(&http, &url, 3, READER, list, json!({"language": "english"})).await;
    for id in 4..=5 {
        raw_call(&http, &url, id, READER, "synaplan_list_files", json!({})).await;
    }
    assert_eq!(raw_call(&http, &url, 6, None, list, json!({})).await.0, 401);

    let from_file: BTreeSet<(String, String, String, String)> = std::fs::read_to_string(&audit)
        .expect("audit log")
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("json"))
        .map(|r| {
            let field = |name: &str| r[name].as_str().unwrap_or_default().replace('\n', " ");
            (
                field("request_id"),
                field("status"),
                field("tool"),
                field("error"),
            )
        })
        .collect();
    assert_eq!(from_file.len(), 6, "{from_file:#?}");
    let from_db: BTreeSet<(String, String, String, String)> = sqlite_query(
        &db,
        "SELECT coalesce(request_id, ''), status, tool, \
         replace(coalesce(error, ''), char(10), ' ') FROM mcpgen_audit",
    )
    .iter()
    .map(|row| {
        let mut cols = row.splitn(4, '|').map(str::to_owned);
        let mut col = || cols.next().unwrap_or_default();
        (col(), col(), col(), col())
    })
    .collect();
    assert_eq!(from_db, from_file);
    assert_eq!(
        sqlite_query(
            &db,
            "SELECT count(*) FROM mcpgen_audit WHERE upstream_status = 500 \
             AND operation_id IS NOT NULL AND length(args_sha256) = 64 AND duration_ms >= 0"
        ),
        ["2"]
    );
    server.start_kill().ok();
}

/// Calls from `workers` concurrent loops, each with ids of its own, until `stop` is set;
/// returns the ids of the calls that were answered (acknowledged).
fn call_loops(
    url: &str,
    workers: u32,
    stop: Arc<std::sync::atomic::AtomicBool>,
    answered: Arc<AtomicU32>,
) -> Vec<tokio::task::JoinHandle<Vec<u32>>> {
    (0..workers)
        .map(|w| {
            let url = url.to_owned();
            let stop = stop.clone();
            let answered = answered.clone();
            tokio::spawn(async move {
                let http = reqwest::Client::new();
                let mut acked = Vec::new();
                let mut n = 0;
                while !stop.load(Ordering::Acquire) {
                    let id = w * 1_000_000 + n;
                    n += 1;
                    let body = raw_call_result(&http, &url, id).await;
                    match body {
                        Some(true) => {
                            acked.push(id);
                            answered.fetch_add(1, Ordering::AcqRel);
                        }
                        Some(false) => panic!("call {id} failed"),
                        None => break, // the server is gone
                    }
                }
                acked
            })
        })
        .collect()
}

/// `Some(true)`: answered with a successful result; `None`: the server did not answer.
async fn raw_call_result(http: &reqwest::Client, url: &str, id: u32) -> Option<bool> {
    let body = json!({
        "jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "synaplan_list_prompts", "arguments": {}, "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": {}
        }}
    });
    let response = http
        .post(format!("{url}/mcp"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", "synaplan_list_prompts")
        .header("x-api-key", "read-key-0123456789")
        .body(body.to_string())
        .send()
        .await
        .ok()?;
    let answer: Value = response.json().await.ok()?;
    Some(answer["result"]["isError"] != true && answer["result"].is_object())
}

async fn wait_for(answered: &AtomicU32, n: u32) {
    for _ in 0..600 {
        if answered.load(Ordering::Acquire) >= n {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("fewer than {n} calls were answered");
}

fn ids_in(pg: &Postgres) -> Vec<u32> {
    pg.query("SELECT request_id FROM mcpgen_audit")
        .iter()
        .map(|id| id.trim().parse().expect("a numeric request id"))
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn kill_9_with_fsync_always_loses_no_acknowledged_call() {
    let pg = Postgres::start();
    let upstream = synaplan_stand_in().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let url_flag = pg.url();
    let (mut server, url) = start_server(
        &upstream.url,
        dir.path(),
        &["--audit-db", &url_flag, "--audit-fsync", "always"],
    )
    .await;
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let answered = Arc::new(AtomicU32::new(0));
    let loops = call_loops(&url, 8, stop.clone(), answered.clone());
    wait_for(&answered, 200).await;
    // SIGKILL while calls are in flight.
    server.start_kill().expect("kill -9");
    server.wait().await.expect("reaped");
    stop.store(true, Ordering::Release);
    let mut acked = Vec::new();
    for task in loops {
        acked.extend(task.await.expect("loop"));
    }
    assert!(acked.len() >= 200);
    let rows: BTreeSet<u32> = ids_in(&pg).into_iter().collect();
    let missing: Vec<&u32> = acked.iter().filter(|id| !rows.contains(id)).collect();
    assert!(
        missing.is_empty(),
        "acknowledged calls without a row: {missing:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn postgres_restarted_mid_run_loses_nothing_and_duplicates_nothing() {
    let pg = Postgres::start();
    let upstream = synaplan_stand_in().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let url_flag = pg.url();
    let (mut server, url) = start_server(
        &upstream.url,
        dir.path(),
        &["--audit-db", &url_flag, "--audit-fsync", "always"],
    )
    .await;
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let answered = Arc::new(AtomicU32::new(0));
    let loops = call_loops(&url, 4, stop.clone(), answered.clone());
    wait_for(&answered, 100).await;
    pg.down();
    // Calls go on while the database is away: their records wait in the spool.
    let during = answered.load(Ordering::Acquire);
    wait_for(&answered, during + 100).await;
    let spool = dir.path().join("mcpgen-audit.spool");
    assert!(
        std::fs::metadata(&spool).is_ok_and(|m| m.len() > 0),
        "records are spooled while PostgreSQL is down"
    );
    pg.up();
    let after = answered.load(Ordering::Acquire);
    wait_for(&answered, after + 100).await;
    stop.store(true, Ordering::Release);
    let mut acked = Vec::new();
    for task in loops {
        acked.extend(task.await.expect("loop"));
    }
    // The replay runs within a second or two of PostgreSQL's return.
    let mut ids = Vec::new();
    for _ in 0..300 {
        ids = ids_in(&pg);
        if ids.len() >= acked.len() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let distinct: BTreeSet<u32> = ids.iter().copied().collect();
    assert_eq!(distinct.len(), ids.len(), "no record is inserted twice");
    let expected: BTreeSet<u32> = acked.iter().copied().collect();
    assert_eq!(distinct, expected, "every call has exactly one row");
    assert_eq!(
        std::fs::metadata(&spool).map(|m| m.len()).unwrap_or(0),
        0,
        "the spool is empty after the replay"
    );
    server.start_kill().ok();
}

#[tokio::test]
async fn a_bad_audit_db_url_stops_the_start_naming_the_flag_and_the_fix() {
    let upstream = synaplan_stand_in().await;
    for (url, expected) in [
        (
            "mysql://audit:hunter2@db/mcp",
            "postgres://USER:PASSWORD@HOST",
        ),
        ("postgres://audit:hunter2@db:notaport/mcp", "--audit-db"),
    ] {
        let out = tokio::process::Command::new(workspace_binary("synaplan-mcp"))
            .args(["--transport", "http", "--no-auth", "--upstream-url"])
            .arg(&upstream.url)
            .args(["--listen", &format!("127.0.0.1:{}", free_port())])
            .args(["--audit-db", url])
            .stdin(Stdio::null())
            .output()
            .await
            .expect("runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{url} started");
        assert!(
            stderr.contains("--audit-db") && stderr.contains(expected),
            "{url}: {stderr}"
        );
        assert!(
            !stderr.contains("hunter2"),
            "the password is shown: {stderr}"
        );
    }
}

/// Code mode in PostgreSQL: the `execute`'s row carries `code_sha256` and `inner_calls`, and
/// each inner call's row names the `execute`'s `call_id` as its `parent_call_id`.
#[tokio::test(flavor = "multi_thread")]
async fn code_mode_links_inner_calls_to_their_execute_in_postgres() {
    let pg = Postgres::start();
    let upstream = synaplan_stand_in().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let url_flag = pg.url();
    let (mut server, url) = start_server(
        &upstream.url,
        dir.path(),
        &[
            "--audit-db",
            &url_flag,
            "--audit-fsync",
            "always",
            "--tool-mode",
            "code",
        ],
    )
    .await;
    let http = reqwest::Client::new();
    let code = "const a = await tools.synaplan_list_prompts({});\n\
                const b = await tools.synaplan_list_prompts({});\n\
                return a.prompts.length + b.prompts.length;";
    let (status, answer) = raw_call(&http, &url, 1, READER, "execute", json!({"code": code})).await;
    assert_eq!(status, 200);
    assert_eq!(
        answer["result"]["structuredContent"]["result"], 2,
        "{answer}"
    );
    server.kill().await.ok();
    let rows = pg.query(
        "SELECT e.call_id, e.code_sha256, e.inner_calls, count(i.*) FROM mcpgen_audit e \
         JOIN mcpgen_audit i ON i.parent_call_id = e.call_id \
         WHERE e.tool = 'execute' AND i.tool = 'synaplan_list_prompts' \
         GROUP BY e.call_id, e.code_sha256, e.inner_calls",
    );
    assert_eq!(rows.len(), 1, "{rows:?}");
    let fields: Vec<&str> = rows[0].split('|').collect();
    assert_eq!(fields[1].len(), 64, "a SHA-256 of the code: {rows:?}");
    assert_eq!(&fields[2..], ["2", "2"], "{rows:?}");
    assert_eq!(
        pg.count("SELECT count(DISTINCT call_id) FROM mcpgen_audit"),
        pg.count("SELECT count(*) FROM mcpgen_audit")
    );
}
