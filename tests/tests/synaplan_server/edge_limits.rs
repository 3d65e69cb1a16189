//! The edge of a real `synaplan-mcp` process, probed as a hostile client would over loopback:
//! callers without a credential trickling large bodies are answered or cut off within
//! `--body-read-timeout` and cost the server no more than a bounded prefix of each body;
//! `--max-connections` keeps a connection past the cap waiting until a served one ends; a
//! refused batch is one audit record; one principal opening sessions past `--sessions-max`
//! does not close another principal's session.

use std::time::{Duration, Instant};

use mcpgen_tests::{KillOnDrop, start_synaplan_http, synaplan_stand_in};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Bound on every wait, so a bug cannot hang the suite.
const WAIT: Duration = Duration::from_secs(20);

/// Two principals, one key each.
const KEYS: &str = "keys:\n  - id: a\n    key: alice-key-0123456789\n    principal: alice\n    scopes: ['mcp:*']\n  - id: b\n    key: bob-key-0123456789ab\n    principal: bob\n    scopes: ['mcp:*']\n";

/// Starts `synaplan-mcp` with the two keys of [`KEYS`] and `extra` flags.
async fn start(dir: &std::path::Path, extra: &[&str]) -> (KillOnDrop, String) {
    let keys = dir.join("keys.yaml");
    std::fs::write(&keys, KEYS).expect("write keys");
    let upstream = synaplan_stand_in().await;
    let keys = keys.display().to_string();
    let mut args = vec!["--keys", keys.as_str()];
    args.extend_from_slice(extra);
    let started = start_synaplan_http(&upstream.url, &args).await;
    // The stand-in is not needed by these tests; it lives as long as the runtime.
    std::mem::forget(upstream);
    started
}

/// The server's resident memory in KiB (`VmRSS` of `/proc/<pid>/status`).
fn rss_kib(server: &KillOnDrop) -> u64 {
    let pid = server.0.id().expect("the server runs");
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("proc status");
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmRSS")
}

fn addr(url: &str) -> String {
    url.trim_start_matches("http://").to_owned()
}

/// Reads from `tcp` until it has a status line (returned), or the connection ends (`None`).
async fn status_line(tcp: &mut tokio::net::tcp::OwnedReadHalf) -> Option<String> {
    let mut reply = Vec::new();
    let mut buffer = [0u8; 4096];
    loop {
        if let Some(end) = reply.windows(2).position(|w| w == b"\r\n") {
            return Some(String::from_utf8_lossy(&reply[..end]).into_owned());
        }
        match tcp.read(&mut buffer).await {
            Ok(0) | Err(_) => return None,
            Ok(n) => reply.extend_from_slice(&buffer[..n]),
        }
    }
}

/// A POST to `/mcp` without a credential that promises `length` body bytes and sends them in
/// pieces of `piece` bytes every `every`, until answered or cut off. Returns how long that
/// took from the end of the head, and the status line if one came.
async fn trickle(
    addr: String,
    length: usize,
    piece: usize,
    every: Duration,
) -> (Duration, Option<String>) {
    let tcp = TcpStream::connect(&addr).await.expect("connect");
    let (mut read, mut write) = tcp.into_split();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\ncontent-length: {length}\r\n\r\n"
    );
    write.write_all(head.as_bytes()).await.expect("head");
    let sent_head = Instant::now();
    let writer = tokio::spawn(async move {
        let chunk = vec![b' '; piece];
        let mut sent = 0;
        while sent < length {
            let n = piece.min(length - sent);
            if write.write_all(&chunk[..n]).await.is_err() {
                return;
            }
            sent += n;
            tokio::time::sleep(every).await;
        }
        // Keep the connection open: the server must end it.
        tokio::time::sleep(WAIT).await;
        drop(write);
    });
    let status = tokio::time::timeout(WAIT, status_line(&mut read))
        .await
        .unwrap_or(None);
    let took = sent_head.elapsed();
    writer.abort();
    (took, status)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn trickling_bodies_without_a_credential_are_cut_off_in_time_and_hold_little_memory() {
    let dir = tempfile::tempdir().expect("tempdir");
    // With an audit log, a refused request's body is looked at for the calls it holds.
    let audit = dir.path().join("audit.jsonl").display().to_string();
    let flags = ["--body-read-timeout", "2", "--audit-log", &audit];
    let (server, url) = start(dir.path(), &flags).await;
    // Idle, after one request of each kind has warmed the paths up.
    let _ = trickle(addr(&url), 10, 10, Duration::ZERO).await;
    let idle = rss_kib(&server);
    const LENGTH: usize = 4 * 1024 * 1024 - 1;
    let mut clients = Vec::new();
    for i in 0..60 {
        // Half trickle slowly (never reaching the prefix before the deadline), half send
        // their 4 MiB as fast as the server reads.
        let (piece, every) = if i % 2 == 0 {
            (100, Duration::from_millis(100))
        } else {
            (64 * 1024, Duration::from_millis(5))
        };
        clients.push(tokio::spawn(trickle(addr(&url), LENGTH, piece, every)));
    }
    let mut peak = idle;
    let sampling = async {
        for _ in 0..30 {
            peak = peak.max(rss_kib(&server));
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    };
    let results = async {
        let mut results = Vec::new();
        for client in clients {
            results.push(client.await.expect("client task"));
        }
        results
    };
    let ((), results) = tokio::join!(sampling, results);
    peak = peak.max(rss_kib(&server));
    for (took, status) in &results {
        // Two seconds of body read timeout, with slack for a loaded machine.
        assert!(
            *took < Duration::from_secs(8),
            "answered or cut off after {took:?}: {status:?}"
        );
        if let Some(status) = status {
            assert!(status.starts_with("HTTP/1.1 401"), "{status}");
        }
    }
    let answered = results.iter().filter(|(_, s)| s.is_some()).count();
    assert!(
        answered >= 30,
        "most clients got their 401: {answered} of 60"
    );
    let grown_mib = peak.saturating_sub(idle) / 1024;
    assert!(
        grown_mib < 50,
        "memory rose by {grown_mib} MiB (idle {idle} KiB, peak {peak} KiB)"
    );
    // The server still answers everyone else.
    let health = reqwest::get(format!("{url}/healthz"))
        .await
        .expect("healthz");
    assert_eq!(health.status(), 200);
}

/// Sends `GET /healthz` on `tcp` and reads the answer's status line, within `within`.
async fn healthz(tcp: &mut TcpStream, within: Duration) -> Option<String> {
    tcp.write_all(b"GET /healthz HTTP/1.1\r\nhost: localhost\r\n\r\n")
        .await
        .ok()?;
    let mut reply = Vec::new();
    let mut buffer = [0u8; 1024];
    tokio::time::timeout(within, async {
        loop {
            if reply.windows(2).any(|w| w == b"ok") {
                return;
            }
            match tcp.read(&mut buffer).await {
                Ok(0) | Err(_) => return,
                Ok(n) => reply.extend_from_slice(&buffer[..n]),
            }
        }
    })
    .await
    .ok()?;
    let text = String::from_utf8_lossy(&reply).into_owned();
    text.lines().next().map(str::to_owned)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connection_past_max_connections_waits_until_a_served_one_ends() {
    let dir = tempfile::tempdir().expect("tempdir");
    let metrics = format!("127.0.0.1:{}", mcpgen_tests::free_port());
    let flags = ["--max-connections", "2", "--metrics-listen", &metrics];
    let (_server, url) = start(dir.path(), &flags).await;
    let addr = addr(&url);
    // Two kept-alive connections take both slots.
    let mut first = TcpStream::connect(&addr).await.expect("connect");
    let mut second = TcpStream::connect(&addr).await.expect("connect");
    for tcp in [&mut first, &mut second] {
        let status = healthz(tcp, WAIT).await;
        assert_eq!(status.as_deref(), Some("HTTP/1.1 200 OK"));
    }
    // A third connects (the kernel's backlog takes it) but is not served.
    let mut third = TcpStream::connect(&addr).await.expect("connect");
    let waiting = healthz(&mut third, Duration::from_secs(2)).await;
    assert_eq!(waiting, None, "a connection past the cap is not served");
    // Once one ends, the waiting one is served (its request was already sent).
    drop(first);
    let mut reply = Vec::new();
    let mut buffer = [0u8; 1024];
    let served = tokio::time::timeout(WAIT, async {
        while !reply.windows(2).any(|w| w == b"ok") {
            match third.read(&mut buffer).await {
                Ok(0) | Err(_) => break,
                Ok(n) => reply.extend_from_slice(&buffer[..n]),
            }
        }
    })
    .await;
    assert!(served.is_ok(), "the waiting connection is served in time");
    let reply = String::from_utf8_lossy(&reply);
    assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
    // The connection still open keeps working.
    let status = healthz(&mut second, WAIT).await;
    assert_eq!(status.as_deref(), Some("HTTP/1.1 200 OK"));
    // The wait is counted, on the metrics listener (which has slots of its own).
    let scrape = reqwest::get(format!("http://{metrics}/metrics"))
        .await
        .expect("scrape")
        .text()
        .await
        .expect("body");
    // At least the third (the connection of the start-up's readiness probe may have held a
    // slot a moment longer, keeping the second waiting too).
    let waited: u64 = scrape
        .lines()
        .find_map(|line| line.strip_prefix("mcpgen_connections_waited_total "))
        .and_then(|value| value.trim().parse().ok())
        .unwrap_or(0);
    assert!(waited >= 1, "{scrape}");
    assert!(scrape.contains("mcpgen_connections_open 2"), "{scrape}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_batch_of_10000_calls_is_one_audit_record() {
    let dir = tempfile::tempdir().expect("tempdir");
    let audit = dir.path().join("audit.jsonl");
    let audit_arg = audit.display().to_string();
    let (_server, url) = start(
        dir.path(),
        &["--audit-log", &audit_arg, "--audit-fsync", "always"],
    )
    .await;
    let batch: Vec<Value> = (0..10_000)
        .map(|id| {
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                   "params": {"name": "list_prompts", "arguments": {}}})
        })
        .collect();
    let body = serde_json::to_vec(&batch).expect("batch");
    let tcp = TcpStream::connect(addr(&url)).await.expect("connect");
    let (mut read, mut write) = tcp.into_split();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\ncontent-length: {}\r\n\r\n",
        body.len()
    );
    let writer = tokio::spawn(async move {
        let _ = write.write_all(head.as_bytes()).await;
        let _ = write.write_all(&body).await;
        write
    });
    let status = tokio::time::timeout(WAIT, status_line(&mut read))
        .await
        .expect("answered in time");
    assert_eq!(status.as_deref(), Some("HTTP/1.1 401 Unauthorized"));
    drop(writer);
    // With `--audit-fsync always` the record is on disk before the answer goes out.
    let text = std::fs::read_to_string(&audit).unwrap_or_default();
    let records: Vec<Value> = text
        .lines()
        .map(|line| serde_json::from_str(line).expect("a JSON line"))
        .collect();
    assert_eq!(records.len(), 1, "one record for the refused batch: {text}");
    assert_eq!(records[0]["status"], "unauthenticated", "{text}");
    assert_eq!(records[0]["tool"], "list_prompts", "{text}");
    let error = records[0]["error"].as_str().unwrap_or_default();
    assert!(error.contains("a batch of at least"), "{error}");
}

/// Opens a session as the holder of `key` (initialize, then initialized); its id.
async fn open_session(url: &str, key: &str) -> String {
    let client = reqwest::Client::new();
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"}}});
    let response = tokio::time::timeout(WAIT, session_post(&client, url, key, None, &init).send())
        .await
        .expect("answered in time")
        .expect("sent");
    assert_eq!(response.status(), 200, "{:?}", response.text().await);
    let id = response.headers()["mcp-session-id"]
        .to_str()
        .expect("text")
        .to_owned();
    let _ = response.bytes().await;
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let response = session_post(&client, url, key, Some(&id), &initialized)
        .send()
        .await
        .expect("sent");
    assert!(response.status().is_success(), "{}", response.status());
    id
}

fn session_post(
    client: &reqwest::Client,
    url: &str,
    key: &str,
    session: Option<&str>,
    message: &Value,
) -> reqwest::RequestBuilder {
    let mut request = client
        .post(format!("{url}/mcp"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("x-api-key", key)
        .body(message.to_string());
    if let Some(id) = session {
        request = request
            .header("mcp-session-id", id)
            .header("mcp-protocol-version", "2025-06-18");
    }
    request
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_principal_past_sessions_max_does_not_close_another_principals_session() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (_server, url) = start(dir.path(), &["--sessions-max", "20"]).await;
    let bobs = open_session(&url, "bob-key-0123456789ab").await;
    for _ in 0..70 {
        open_session(&url, "alice-key-0123456789").await;
    }
    let client = reqwest::Client::new();
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}});
    let response = session_post(&client, &url, "bob-key-0123456789ab", Some(&bobs), &list)
        .send()
        .await
        .expect("sent");
    assert_eq!(response.status(), 200, "bob's session still answers");
    let text = response.text().await.expect("body");
    assert!(text.contains("\"tools\""), "{text}");
}
