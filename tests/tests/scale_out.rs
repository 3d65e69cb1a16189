//! Three replicas of the generated Synaplan server sharing one Redis (`--state-redis`, from the
//! system's packages, started here on loopback), behind a real nginx that balances every
//! request round robin with no map and no sticky routing: the official Python client on a
//! 2025-06-18 session and the official TypeScript client on a 2025-11-25 session each make 200
//! calls, every request of a session going to whichever replica nginx picks; a legacy SSE client
//! whose POSTs land on replicas other than its stream's is answered; a session is refused to
//! another principal on every replica; a rolling restart of the three under a session's steady
//! calls loses neither a call nor the session. nginx's access log says which replica took each
//! request.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use mcpgen_tests::{
    KillOnDrop, admin_keys_file, free_port, listening_command, nginx_requests, node_bin, node_file,
    start_nginx_round_robin, start_redis, start_synaplan_http, synaplan_stand_in, wait_port,
    wait_ready,
};
use serde_json::{Value, json};

use crate::replicas::{KEY, TOOL, audited_ok, legacy_sse_call, python_calls};

/// Requests nginx passed to each replica for `method` and `uri`.
fn per_replica(nginx: &Path, method: &str, uri: &str) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for (upstream, m, u) in nginx_requests(nginx) {
        if m == method && u == uri {
            *counts.entry(upstream).or_default() += 1;
        }
    }
    counts
}

/// The official TypeScript client's `calls` calls of [`TOOL`] on one session through `url`.
async fn typescript_calls(url: &str, calls: usize) -> Value {
    let calls: Vec<Value> = (0..calls)
        .map(|_| json!({"name": TOOL, "arguments": {}}))
        .collect();
    let out = tokio::time::timeout(
        Duration::from_secs(120),
        tokio::process::Command::new(node_bin("node"))
            .arg(node_file("list-and-call.mjs"))
            .arg("http")
            .arg(Value::from(calls).to_string())
            .arg(url)
            .arg(format!("X-API-Key={KEY}"))
            .kill_on_drop(true)
            .output(),
    )
    .await
    .expect("the TypeScript client finishes within 120 s")
    .expect("the TypeScript client runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(stdout.lines().last().unwrap_or_default()).unwrap_or_else(|_| {
        panic!(
            "the TypeScript client printed no JSON line (status {}):\n{stdout}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

#[tokio::test(flavor = "multi_thread")]
async fn three_replicas_round_robin_serve_every_session_from_the_shared_store() {
    let upstream = synaplan_stand_in().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let keys = admin_keys_file(dir.path());
    let keys = keys.to_str().expect("utf8");
    let redis_port = free_port();
    let _redis = start_redis(redis_port);
    assert!(wait_port(redis_port).await, "redis listens on {redis_port}");
    let store = format!("redis://127.0.0.1:{redis_port}");
    let audits: Vec<_> = (0..3)
        .map(|i| dir.path().join(format!("replica-{i}.jsonl")))
        .collect();
    let mut replicas = Vec::new();
    for audit in &audits {
        let audit = audit.to_str().expect("utf8");
        let args = [
            "--keys",
            keys,
            "--state-redis",
            &store,
            "--audit-log",
            audit,
        ];
        replicas.push(start_synaplan_http(&upstream.url, &args).await);
    }
    let addresses: Vec<&str> = replicas
        .iter()
        .map(|(_, url)| url.trim_start_matches("http://"))
        .collect();
    let nginx_dir = dir.path().join("nginx");
    std::fs::create_dir(&nginx_dir).expect("nginx folder");
    let (_nginx, port) = start_nginx_round_robin(&nginx_dir, &addresses).await;
    let url = format!("http://127.0.0.1:{port}/mcp");

    // The Python client, asking for 2025-06-18 at its handshake.
    let python = python_calls(&url, "session-2025-06-18", 1, 200).await;
    assert_eq!(python["failed"], 0, "{python}");
    assert_eq!(python["ok"], 200, "{python}");
    assert_eq!(python["versions"], json!(["2025-06-18"]), "{python}");
    assert_eq!(
        python["sessions"].as_array().map(Vec::len),
        Some(1),
        "one session, kept by the client through every replica: {python}"
    );

    // The TypeScript client, on its own latest revision.
    let typescript = typescript_calls(&url, 200).await;
    assert_eq!(typescript["ok"], true, "{typescript}");
    assert_eq!(typescript["protocolVersion"], "2025-11-25", "{typescript}");
    assert!(typescript["session"].is_string(), "{typescript}");
    let results = typescript["results"].as_array().expect("results");
    assert_eq!(results.len(), 200);
    let answered = results
        .iter()
        .filter(|r| r["ok"] == true && r["isError"] == false)
        .count();
    assert_eq!(answered, 200, "every call answered: {typescript}");

    // Every replica took requests of the sessions, and every call has its audit record on
    // the replica that served it.
    let posts = per_replica(&nginx_dir, "POST", "/mcp");
    assert_eq!(posts.len(), 3, "requests on all three replicas: {posts:?}");
    assert!(
        posts.values().all(|n| *n >= 50),
        "round robin spreads the sessions' requests: {posts:?}"
    );
    let mut served = vec![0; 3];
    for _ in 0..100 {
        served = audits.iter().map(|a| audited_ok(a)).collect();
        if served.iter().sum::<usize>() >= 400 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(
        served.iter().sum::<usize>(),
        400,
        "one record per call: {served:?}"
    );
    assert!(
        served.iter().all(|n| *n > 0),
        "each replica served calls: {served:?}"
    );

    // Legacy HTTP+SSE: the stream stays on one replica; the messages are POSTed round robin
    // and reach it through the store.
    for _ in 0..3 {
        legacy_sse_call(port).await;
    }
    let messages = per_replica(&nginx_dir, "POST", "/message");
    let streams = per_replica(&nginx_dir, "GET", "/sse");
    assert_eq!(streams.values().sum::<usize>(), 3, "{streams:?}");
    assert_eq!(
        messages.len(),
        3,
        "the messages landed on every replica, not only the streams': {messages:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_session_from_the_store_is_refused_to_another_principal() {
    let upstream = synaplan_stand_in().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let keys = dir.path().join("keys.yaml");
    std::fs::write(
        &keys,
        "keys:\n  - id: alice\n    key: alice-key-0123456789\n    principal: alice\n    scopes: ['mcp:*']\n  - id: bob\n    key: bob-key-0123456789\n    principal: bob\n    scopes: ['mcp:*']\n",
    )
    .expect("keys file");
    let keys = keys.to_str().expect("utf8");
    let redis_port = free_port();
    let _redis = start_redis(redis_port);
    assert!(wait_port(redis_port).await, "redis listens on {redis_port}");
    let store = format!("redis://127.0.0.1:{redis_port}");
    let args = ["--keys", keys, "--state-redis", &store];
    let (_a, url_a) = start_synaplan_http(&upstream.url, &args).await;
    let (_b, url_b) = start_synaplan_http(&upstream.url, &args).await;
    let http = reqwest::Client::new();
    let post = |url: String, key: &'static str, session: Option<String>, body: Value| {
        let mut request = http
            .post(format!("{url}/mcp"))
            .header("x-api-key", key)
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2025-06-18")
            .json(&body);
        if let Some(session) = session {
            request = request.header("mcp-session-id", session);
        }
        request.send()
    };
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "probe", "version": "0"}}});
    let opened = post(url_a.clone(), "alice-key-0123456789", None, initialize)
        .await
        .expect("initialize");
    assert!(opened.status().is_success(), "{}", opened.status());
    let session = opened
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .expect("a session id")
        .to_owned();
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let sent = post(
        url_a,
        "alice-key-0123456789",
        Some(session.clone()),
        initialized,
    )
    .await
    .expect("initialized");
    assert!(sent.status().is_success(), "{}", sent.status());
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
    // Bob, on the replica that never saw the session: refused as another principal's.
    let bob = post(
        url_b.clone(),
        "bob-key-0123456789",
        Some(session.clone()),
        list.clone(),
    )
    .await
    .expect("bob's request");
    assert_eq!(bob.status(), reqwest::StatusCode::FORBIDDEN);
    // Alice, there: served from the store.
    let alice = post(url_b, "alice-key-0123456789", Some(session), list)
        .await
        .expect("alice's request");
    assert!(alice.status().is_success(), "{}", alice.status());
    let text = alice.text().await.expect("body");
    assert!(text.contains(TOOL), "the tools of the session: {text}");
}

/// A replica of the rolling restart, started (again) on `port`.
async fn replica_on(port: u16, args: &[&str]) -> KillOnDrop {
    let child = listening_command("synaplan-mcp", port, args)
        .spawn()
        .expect("synaplan-mcp starts");
    assert!(
        wait_ready(&format!("http://127.0.0.1:{port}/healthz")).await,
        "the replica on {port} comes up"
    );
    KillOnDrop(child)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_rolling_restart_of_three_replicas_loses_no_call_and_no_session() {
    let upstream = synaplan_stand_in().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let keys = admin_keys_file(dir.path());
    let keys = keys.to_str().expect("utf8").to_owned();
    let redis_port = free_port();
    let _redis = start_redis(redis_port);
    assert!(wait_port(redis_port).await, "redis listens on {redis_port}");
    let store = format!("redis://127.0.0.1:{redis_port}");
    let ports: Vec<u16> = (0..3).map(|_| free_port()).collect();
    let audits: Vec<String> = (0..3)
        .map(|i| {
            let path = dir.path().join(format!("replica-{i}.jsonl"));
            path.to_str().expect("utf8").to_owned()
        })
        .collect();
    let args = |i: usize| -> Vec<String> {
        [
            "--transport",
            "http",
            "--upstream-url",
            &upstream.url,
            "--keys",
            &keys,
            "--state-redis",
            &store,
            "--audit-log",
            &audits[i],
        ]
        .map(str::to_owned)
        .to_vec()
    };
    let mut replicas = Vec::new();
    for (i, port) in ports.iter().enumerate() {
        let args = args(i);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        replicas.push(replica_on(*port, &args).await);
    }
    let addresses: Vec<String> = ports.iter().map(|p| format!("127.0.0.1:{p}")).collect();
    let addresses: Vec<&str> = addresses.iter().map(String::as_str).collect();
    let nginx_dir = dir.path().join("nginx");
    std::fs::create_dir(&nginx_dir).expect("nginx folder");
    let (_nginx, port) = start_nginx_round_robin(&nginx_dir, &addresses).await;
    let url = format!("http://127.0.0.1:{port}/mcp");

    // Steady calls on one session, while each replica in turn is stopped (SIGTERM: it
    // finishes the calls it has, refuses new ones and exits) and started again.
    let calls = 2000;
    let load =
        tokio::spawn(async move { python_calls(&url, "session-2025-06-18", 1, calls).await });
    tokio::time::sleep(Duration::from_millis(500)).await;
    for (i, port) in ports.iter().enumerate() {
        let pid = replicas[i].0.id().expect("pid").to_string();
        let status = std::process::Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .expect("kill -TERM");
        assert!(status.success());
        let exit = tokio::time::timeout(Duration::from_secs(30), replicas[i].0.wait())
            .await
            .expect("the replica stops within 30 s")
            .expect("wait");
        assert!(exit.success(), "replica {i} stops cleanly: {exit}");
        let args = args(i);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        replicas[i] = replica_on(*port, &args).await;
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    assert!(
        !load.is_finished(),
        "the calls went on through every restart (make more of them if this machine is faster)"
    );
    let python = load.await.expect("the load");
    assert_eq!(python["failed"], 0, "{python}");
    assert_eq!(python["ok"], calls, "{python}");
    assert_eq!(
        python["sessions"].as_array().map(Vec::len),
        Some(1),
        "the client kept its one session through the restarts: {python}"
    );
    // Every call the client was answered has its audit record, on whichever replica served it.
    let audits: Vec<std::path::PathBuf> = audits.iter().map(Into::into).collect();
    let audited: usize = audits.iter().map(|a| audited_ok(a)).sum();
    assert!(
        audited >= calls as usize,
        "{audited} audit records for {calls} answered calls"
    );
    let restarted = per_replica(&nginx_dir, "POST", "/mcp");
    assert_eq!(
        restarted.len(),
        3,
        "every replica served the session: {restarted:?}"
    );
}
