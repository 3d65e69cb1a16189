//! The spool of the audit database sink, on the generated Synaplan server run as child
//! processes against a real PostgreSQL (see `support/postgres.rs`) and the loopback Synaplan
//! stand-in:
//!
//! - one process per spool: a second server given a spool in use stops at start, naming
//!   `--audit-db-spool`, the path and the way out; `--replica-name NAME` gives each its own;
//! - two replicas named `a` and `b` in one working directory, 2,000 calls, PostgreSQL
//!   restarted three times during them: every acknowledged call has exactly one row
//!   (`MCPGEN_SPOOL_RUNS=10` repeats it; `scripts/load.sh --spool` does, for LOAD.md);
//! - a replay killed with `kill -9` halfway, then restarted: nothing lost, nothing twice;
//! - a spool on a file system that fills up (a 64 KiB tmpfs mounted here; the tests run as
//!   root), with `--audit-fsync always`: calls are refused, not acknowledged, `/readyz` says
//!   why and `mcpgen_audit_errors_total` counts them; once space returns service resumes, and
//!   every acknowledged call has its row.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use mcpgen_tests::{free_port, synaplan_stand_in, wait_ready, workspace_binary};
use serde_json::{Value, json};

use crate::support::postgres::Postgres;

const KEY: &str = "read-key-0123456789";

fn keys_file(dir: &Path) -> PathBuf {
    let path = dir.join("keys.yaml");
    std::fs::write(
        &path,
        format!(
            "keys:\n  - id: reader\n    key: {KEY}\n    principal: alice\n    scopes: [mcp:read]\n"
        ),
    )
    .expect("write keys");
    path
}

/// `synaplan-mcp` over HTTP on `port`, in `dir`, with `flags`.
fn server_command(
    upstream: &str,
    dir: &Path,
    port: u16,
    flags: &[&str],
) -> tokio::process::Command {
    let keys = keys_file(dir);
    let mut command = tokio::process::Command::new(workspace_binary("synaplan-mcp"));
    command
        .args(["--transport", "http", "--upstream-url", upstream])
        .args(["--listen", &format!("127.0.0.1:{port}")])
        .args(["--keys", keys.to_str().expect("utf8")])
        .args(flags)
        .current_dir(dir)
        .env("RUST_LOG", "error")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .kill_on_drop(true);
    command
}

/// Starts a server (see [`server_command`]); returns it and its URL once it answers.
async fn start(upstream: &str, dir: &Path, flags: &[&str]) -> (tokio::process::Child, String) {
    let port = free_port();
    let child = server_command(upstream, dir, port, flags)
        .spawn()
        .expect("server starts");
    let url = format!("http://127.0.0.1:{port}");
    assert!(wait_ready(&format!("{url}/healthz")).await, "server is up");
    (child, url)
}

/// How a call was answered.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Answer {
    /// A successful result: the call is acknowledged.
    Acknowledged,
    /// An error result, with its text.
    Refused(String),
    /// No answer (the server is gone).
    Nothing,
}

/// A stateless `tools/call` of `synaplan_list_prompts` with JSON-RPC id `id`.
async fn call(http: &reqwest::Client, url: &str, id: u64) -> Answer {
    let body = json!({
        "jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "synaplan_list_prompts", "arguments": {}, "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": {}
        }}
    });
    let sent = http
        .post(format!("{url}/mcp"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", "synaplan_list_prompts")
        .header("x-api-key", KEY)
        .body(body.to_string())
        .send()
        .await;
    let Ok(response) = sent else {
        return Answer::Nothing;
    };
    let Ok(answer) = response.json::<Value>().await else {
        return Answer::Nothing;
    };
    let result = &answer["result"];
    if result.is_object() && result["isError"] != true {
        Answer::Acknowledged
    } else {
        Answer::Refused(answer.to_string())
    }
}

/// Rows per request id (none before the table exists).
fn rows_per_id(pg: &Postgres) -> BTreeMap<u64, u64> {
    if pg.count("SELECT count(*) FROM pg_tables WHERE tablename = 'mcpgen_audit'") == 0 {
        return BTreeMap::new();
    }
    pg.query("SELECT request_id, count(*) FROM mcpgen_audit GROUP BY request_id")
        .iter()
        .filter_map(|row| {
            let (id, n) = row.split_once('|')?;
            Some((id.trim().parse().ok()?, n.trim().parse().ok()?))
        })
        .collect()
}

/// Waits (at most a minute) until every id of `acked` has a row; the rows per id then.
async fn rows_for(pg: &Postgres, acked: &BTreeSet<u64>) -> BTreeMap<u64, u64> {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let rows = rows_per_id(pg);
        if acked.iter().all(|id| rows.contains_key(id)) || Instant::now() > deadline {
            return rows;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_second_server_given_a_spool_in_use_stops_at_start_naming_the_flag_and_the_way_out() {
    let upstream = synaplan_stand_in().await;
    let dir = tempfile::tempdir().expect("tempdir");
    // The database need not answer: the spool is opened (and locked) at start.
    let db = format!("postgres://postgres@127.0.0.1:{}/postgres", free_port());
    let spool = dir.path().join("shared.spool");
    let spool_flag = spool.to_str().expect("utf8");
    let flags = ["--audit-db", &db, "--audit-db-spool", spool_flag];
    let (_first, _) = start(&upstream.url, dir.path(), &flags).await;
    let out = server_command(&upstream.url, dir.path(), free_port(), &flags)
        .output()
        .await
        .expect("runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "the second server started: {stderr}");
    for part in ["--audit-db-spool", spool_flag, "--replica-name", "locked"] {
        assert!(stderr.contains(part), "`{part}` missing from: {stderr}");
    }

    // The default spool, twice in one folder: the same; named replicas each get their own.
    let (_unnamed, _) = start(&upstream.url, dir.path(), &["--audit-db", &db]).await;
    let out = server_command(&upstream.url, dir.path(), free_port(), &["--audit-db", &db])
        .output()
        .await
        .expect("runs");
    assert!(!out.status.success(), "a second unnamed replica started");
    assert!(String::from_utf8_lossy(&out.stderr).contains("mcpgen-audit.spool"));
    let (_a, _) = start(
        &upstream.url,
        dir.path(),
        &["--audit-db", &db, "--replica-name", "a"],
    )
    .await;
    let (_b, _) = start(
        &upstream.url,
        dir.path(),
        &["--audit-db", &db, "--replica-name", "b"],
    )
    .await;
    for name in ["mcpgen-audit.a.spool", "mcpgen-audit.b.spool"] {
        assert!(dir.path().join(name).is_file(), "{name}");
    }
}

/// One run of two named replicas, `total` calls, PostgreSQL stopped and started three times
/// during them. Returns (acknowledged, rows, acknowledged without a row, ids with more than one
/// row, seconds).
async fn two_replicas_run(total: u64) -> (usize, u64, usize, usize, f64) {
    let started = Instant::now();
    let pg = Arc::new(Postgres::start());
    let upstream = synaplan_stand_in().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let db = pg.url();
    let mut urls = Vec::new();
    let mut servers = Vec::new();
    for name in ["a", "b"] {
        let (server, url) = start(
            &upstream.url,
            dir.path(),
            &["--audit-db", &db, "--replica-name", name],
        )
        .await;
        servers.push(server);
        urls.push(url);
    }
    // Workers call while the ids issued stay below the gate, which the run raises step by
    // step, each step beside a stop or a start of PostgreSQL.
    let issued = Arc::new(AtomicU64::new(0));
    let answered = Arc::new(AtomicU64::new(0));
    let gate = Arc::new(AtomicU64::new(0));
    let workers: Vec<_> = (0..8)
        .map(|_| {
            let (issued, answered, gate, urls) =
                (issued.clone(), answered.clone(), gate.clone(), urls.clone());
            tokio::spawn(async move {
                let http = reqwest::Client::new();
                let mut acked = Vec::new();
                loop {
                    let id = issued.fetch_add(1, Ordering::AcqRel);
                    if id >= total {
                        break;
                    }
                    while id >= gate.load(Ordering::Acquire) {
                        tokio::time::sleep(Duration::from_millis(5)).await;
                    }
                    let url = &urls[usize::from(id % 2 == 1)];
                    if call(&http, url, id + 1).await == Answer::Acknowledged {
                        acked.push(id + 1);
                    }
                    answered.fetch_add(1, Ordering::AcqRel);
                }
                acked
            })
        })
        .collect();
    let step = total / 8;
    for k in 0..6u64 {
        gate.store(step * (k + 1), Ordering::Release);
        let pg = pg.clone();
        let change =
            tokio::task::spawn_blocking(move || if k % 2 == 0 { pg.down() } else { pg.up() });
        while answered.load(Ordering::Acquire) < step * (k + 1) {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        change.await.expect("PostgreSQL stopped or started");
    }
    gate.store(total, Ordering::Release);
    let mut acked = BTreeSet::new();
    for worker in workers {
        acked.extend(worker.await.expect("worker"));
    }
    let rows = rows_for(&pg, &acked).await;
    let lost = acked.iter().filter(|id| !rows.contains_key(id)).count();
    let twice = rows.values().filter(|n| **n > 1).count();
    let count = rows.values().sum();
    for mut server in servers {
        server.start_kill().ok();
        server.wait().await.ok();
    }
    (
        acked.len(),
        count,
        lost,
        twice,
        started.elapsed().as_secs_f64(),
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn two_named_replicas_keep_every_acknowledged_call_once_through_three_postgres_restarts() {
    let runs: u32 = std::env::var("MCPGEN_SPOOL_RUNS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(1);
    let total = 2_000;
    for run in 1..=runs {
        let (acked, rows, lost, twice, seconds) = two_replicas_run(total).await;
        eprintln!(
            "spool run {run}/{runs}: calls {total}, acknowledged {acked}, rows {rows}, \
             acknowledged without a row {lost}, ids with two rows or more {twice}, {seconds:.1} s"
        );
        assert_eq!(lost, 0, "run {run}: acknowledged calls without a row");
        assert_eq!(twice, 0, "run {run}: calls with more than one row");
        assert!(acked > 0, "run {run}: no call was acknowledged");
    }
}

/// A spool line: one audit record of the call `n`.
fn spool_line(n: u64) -> String {
    json!({
        "call_id": format!("replayed-{n}"),
        "time": "2026-01-01T00:00:00.000Z",
        "request_id": n.to_string(),
        "principal": "alice",
        "key_id": null,
        "tool": "synaplan_list_prompts",
        "status": "ok",
        "duration_ms": 1,
        "upstream_status": 200,
        "args_sha256": "0".repeat(64),
        "args": null,
    })
    .to_string()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_replay_killed_halfway_then_restarted_loses_nothing_and_inserts_nothing_twice() {
    let pg = Postgres::start();
    let upstream = synaplan_stand_in().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let db = pg.url();
    // A first start creates the table.
    let (mut first, _) = start(&upstream.url, dir.path(), &["--audit-db", &db]).await;
    let deadline = Instant::now() + Duration::from_secs(30);
    let migrated = "SELECT count(*) FROM information_schema.columns \
                    WHERE table_name = 'mcpgen_audit' AND column_name = 'call_id'";
    while pg.count(migrated) == 0 {
        assert!(Instant::now() < deadline, "the migrations ran");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    first.start_kill().expect("kill");
    first.wait().await.expect("reaped");

    let total: u64 = 5_000;
    let spool = dir.path().join("mcpgen-audit.spool");
    let lines: String = (1..=total).map(|n| spool_line(n) + "\n").collect();
    std::fs::write(&spool, &lines).expect("write the spool");
    // Another transaction holds an uncommitted row with the id of record 3,000: the replay
    // commits its first two thousand-record transactions, then waits on that row.
    let mut session = pg.session();
    let mut sql = session.stdin.take().expect("psql's stdin");
    writeln!(
        sql,
        "BEGIN; INSERT INTO mcpgen_audit (id, call_id, time, tool, status, duration_ms, \
         args_sha256) VALUES ('replayed-3000', 'replayed-3000', now(), 't', 'ok', 1, '0');"
    )
    .expect("psql");
    sql.flush().expect("psql");

    let (mut replaying, _) = start(&upstream.url, dir.path(), &["--audit-db", &db]).await;
    let deadline = Instant::now() + Duration::from_secs(60);
    while pg.count("SELECT count(*) FROM mcpgen_audit") < 2048 {
        assert!(
            Instant::now() < deadline,
            "the replay committed its first batches"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    replaying.start_kill().expect("kill -9");
    replaying.wait().await.expect("reaped");
    writeln!(sql, "ROLLBACK;").expect("psql");
    drop(sql);
    session.wait().expect("psql ends");
    let halfway = pg.count("SELECT count(*) FROM mcpgen_audit");
    assert!(
        halfway > 0 && halfway < total,
        "{halfway} rows after the kill"
    );
    assert_eq!(
        std::fs::read_to_string(&spool).expect("the spool"),
        lines,
        "the spool is untouched by a replay cut short"
    );

    let (mut again, _) = start(&upstream.url, dir.path(), &["--audit-db", &db]).await;
    let deadline = Instant::now() + Duration::from_secs(60);
    while pg.count("SELECT count(*) FROM mcpgen_audit") < total {
        assert!(Instant::now() < deadline, "the replay finishes");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(pg.count("SELECT count(*) FROM mcpgen_audit"), total);
    assert_eq!(
        pg.count(
            "SELECT count(DISTINCT call_id) FROM mcpgen_audit WHERE call_id LIKE 'replayed-%'"
        ),
        total
    );
    let deadline = Instant::now() + Duration::from_secs(10);
    while std::fs::metadata(&spool).map(|m| m.len()).unwrap_or(0) > 0 {
        assert!(
            Instant::now() < deadline,
            "the spool is emptied after the replay"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    again.start_kill().ok();
}

/// A tmpfs of `size` mounted at `path`, unmounted on drop.
struct Mounted(PathBuf);

impl Mounted {
    fn tmpfs(path: &Path, size: &str) -> Self {
        std::fs::create_dir_all(path).expect("mount point");
        let out = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(path)
            .output()
            .expect("mount runs");
        assert!(
            out.status.success(),
            "mount a tmpfs (the test needs root): {}",
            String::from_utf8_lossy(&out.stderr)
        );
        Self(path.to_owned())
    }
}

impl Drop for Mounted {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
    }
}

/// Fills the file system of `path` with the file `path`, then gives back `free` bytes.
fn fill(path: &Path, free: u64) {
    let mut file = std::fs::File::create(path).expect("create the filler");
    let block = vec![0u8; 4096];
    while file.write_all(&block).is_ok() {}
    drop(file);
    let len = std::fs::metadata(path).expect("filler").len();
    let file = std::fs::OpenOptions::new()
        .write(true)
        .open(path)
        .expect("open the filler");
    file.set_len(len.saturating_sub(free))
        .expect("give back space");
}

async fn get(url: &str) -> (u16, String) {
    let response = reqwest::get(url).await.expect("GET");
    let status = response.status().as_u16();
    (status, response.text().await.unwrap_or_default())
}

#[tokio::test(flavor = "multi_thread")]
async fn a_full_spool_refuses_calls_with_fsync_always_and_service_resumes_when_space_returns() {
    let pg = Postgres::start();
    pg.down();
    let upstream = synaplan_stand_in().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let fs = Mounted::tmpfs(&dir.path().join("small"), "64k");
    let spool = fs.0.join("audit.spool");
    let filler = fs.0.join("filler");
    fill(&filler, 4096);
    let db = pg.url();
    let metrics_port = free_port();
    let metrics_listen = format!("127.0.0.1:{metrics_port}");
    let (mut server, url) = start(
        &upstream.url,
        dir.path(),
        &[
            "--audit-db",
            &db,
            "--audit-db-spool",
            spool.to_str().expect("utf8"),
            "--audit-fsync",
            "always",
            "--metrics-listen",
            &metrics_listen,
        ],
    )
    .await;
    let http = reqwest::Client::new();
    let mut acked = BTreeSet::new();
    let mut refused = Vec::new();
    for id in 1..=100 {
        match call(&http, &url, id).await {
            Answer::Acknowledged => {
                acked.insert(id);
            }
            Answer::Refused(text) => refused.push((id, text)),
            Answer::Nothing => panic!("call {id} was not answered"),
        }
    }
    assert!(!refused.is_empty(), "no call was refused on a full disk");
    assert!(acked.len() < 100);
    for (id, text) in &refused {
        assert!(
            text.contains("cannot be written") || text.contains("could not be kept"),
            "call {id}: {text}"
        );
    }
    let (status, body) = get(&format!("{url}/readyz")).await;
    assert_eq!(status, 503, "{body}");
    assert!(body.contains("spool"), "{body}");
    let (_, metrics) = get(&format!("http://{metrics_listen}/metrics")).await;
    let errors: u64 = metrics
        .lines()
        .find_map(|l| l.strip_prefix("mcpgen_audit_errors_total "))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or(0);
    assert!(
        errors >= refused.len() as u64,
        "{errors} errors for {} refusals",
        refused.len()
    );
    // Only whole records in the spool: no line torn by the full disk.
    let text = std::fs::read_to_string(&spool).expect("the spool");
    assert!(text.is_empty() || text.ends_with('\n'), "a torn last line");
    for line in text.lines() {
        serde_json::from_str::<Value>(line).expect("a whole record");
    }

    // Space returns: calls are acknowledged again.
    std::fs::remove_file(&filler).expect("free the space");
    let mut resumed = false;
    for id in 101..=120 {
        if call(&http, &url, id).await == Answer::Acknowledged {
            acked.insert(id);
            resumed = true;
        }
    }
    assert!(resumed, "service did not resume once space returned");
    for id in 121..=140 {
        assert_eq!(
            call(&http, &url, id).await,
            Answer::Acknowledged,
            "call {id}"
        );
        acked.insert(id);
    }
    assert_eq!(get(&format!("{url}/readyz")).await.0, 200);

    // The database returns: every acknowledged call has its row, once.
    pg.up();
    let rows = rows_for(&pg, &acked).await;
    let lost: Vec<_> = acked.iter().filter(|id| !rows.contains_key(id)).collect();
    assert!(
        lost.is_empty(),
        "acknowledged calls without a row: {lost:?}"
    );
    let twice: Vec<_> = rows.iter().filter(|(_, n)| **n > 1).collect();
    assert!(twice.is_empty(), "rows twice: {twice:?}");
    server.start_kill().ok();
    server.wait().await.ok();
}
