//! Tasks any replica answers for, and that outlive their replica: three replicas of the
//! generated helpdesk server sharing one Redis (`--state-redis`, started here on loopback),
//! against the loopback stand-in of `task_operations` whose report runs long at the API
//! (`202` and a `Location`, then `303` to the result). With stateless 2026-07-28 requests sent
//! straight to one replica or another:
//!
//! - a task started on the first replica is followed to its result on the other two, and
//!   another principal is refused it on every replica;
//! - a task cancelled on the second replica is cancelled on all three, and the first, which
//!   runs it, stops polling and cancels the report at the API;
//! - the replica running a long report is killed (`SIGKILL`); another takes the task over
//!   when its lease lapses, goes on polling where it was (the report is not asked for again),
//!   and the task ends `completed` with the API's report, its call on that replica's audit;
//! - a task whose request was still on its way when its replica was killed ends `failed`,
//!   saying the replica was lost;
//! - a rolling restart of the three (each in turn: SIGTERM with a one-second drain, started
//!   again) while each runs a long report: every task ends `completed` with its report, each
//!   report asked for once and each task's call on the record once.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use mcpgen_tests::{KillOnDrop, free_port, start_redis, wait_port};
use serde_json::{Value, json};

use crate::task_operations::{
    KEY, OTHER_KEY, Seen, report_of, stand_in_and_keys, start_helpdesk, start_report, stateless,
};

/// Three helpdesk replicas sharing a Redis, each with its own audit log in `dir`.
struct Replicas {
    _redis: KillOnDrop,
    store: String,
    processes: Vec<Option<KillOnDrop>>,
    urls: Vec<String>,
    audits: Vec<PathBuf>,
}

/// The flags of replica `i`: the store, its audit log in `dir`, and a short drain, so that a
/// stopped replica leaves its running tasks behind.
fn flags(store: &str, dir: &Path, i: usize) -> Vec<String> {
    let audit = dir.join(format!("replica-{i}.jsonl"));
    [
        "--state-redis",
        store,
        "--audit-log",
        audit.to_str().expect("utf8"),
        "--shutdown-timeout",
        "1",
    ]
    .map(str::to_owned)
    .to_vec()
}

async fn three_replicas(upstream: &str, keys: &str, dir: &Path) -> Replicas {
    let redis_port = free_port();
    let redis = start_redis(redis_port);
    assert!(wait_port(redis_port).await, "redis listens on {redis_port}");
    let store = format!("redis://127.0.0.1:{redis_port}");
    let mut replicas = Replicas {
        _redis: redis,
        store,
        processes: Vec::new(),
        urls: Vec::new(),
        audits: Vec::new(),
    };
    for i in 0..3 {
        let flags = flags(&replicas.store, dir, i);
        let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
        let (process, url) = start_helpdesk(upstream, keys, &flags).await;
        replicas.processes.push(Some(process));
        replicas.urls.push(url);
        replicas.audits.push(dir.join(format!("replica-{i}.jsonl")));
    }
    replicas
}

/// The 2026-07-28 `tasks/get` of `id` on `url` as the holder of `key`.
async fn get(url: &str, key: &str, id: &str) -> Value {
    stateless(url, key, "tasks/get", id, json!({"taskId": id})).await
}

/// Reads the task `id` on the replicas `urls` in turn until it is no longer working, at most
/// `limit`; the last answer and every status seen.
async fn follow(urls: &[&str], id: &str, limit: Duration) -> (Value, Vec<String>) {
    let started = Instant::now();
    let mut statuses = Vec::new();
    for turn in 0.. {
        let answer = get(urls[turn % urls.len()], KEY, id).await;
        let status = answer["result"]["status"]
            .as_str()
            .unwrap_or("?")
            .to_owned();
        statuses.push(status.clone());
        if status != "working" || started.elapsed() > limit {
            return (answer, statuses);
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    unreachable!()
}

/// The successful calls of the report tool that ran for the task `id`, in the audit logs.
fn audited_for(audits: &[PathBuf], id: &str) -> usize {
    audits
        .iter()
        .filter_map(|audit| std::fs::read_to_string(audit).ok())
        .flat_map(|text| text.lines().map(str::to_owned).collect::<Vec<_>>())
        .filter_map(|line| serde_json::from_str::<Value>(&line).ok())
        .filter(|record| {
            record["tool"] == "helpdesk_build_report"
                && record["status"] == "ok"
                && record["parent_call_id"] == id
        })
        .count()
}

fn task_id(answer: &Value) -> String {
    assert_eq!(answer["result"]["resultType"], "task", "{answer}");
    answer["result"]["taskId"]
        .as_str()
        .expect("a task id")
        .to_owned()
}

/// Waits until `seen` counts `prefix` at least `count` times, at most 20 s.
async fn seen_at_least(seen: &Seen, prefix: &str, count: usize) {
    let started = Instant::now();
    while seen.count(prefix) < count {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "the stand-in saw `{prefix}` {} times, not {count}",
            seen.count(prefix)
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_task_started_on_one_replica_is_read_and_cancelled_through_the_others() {
    let (seen, upstream, dir, keys) = stand_in_and_keys().await;
    let replicas = three_replicas(&upstream, &keys, dir.path()).await;
    let [first, second, third] = [&replicas.urls[0], &replicas.urls[1], &replicas.urls[2]];

    // Started on the first, followed on the other two to its result.
    let id = task_id(&start_report(first, KEY, "CORE").await);
    let (done, statuses) = follow(&[second, third], &id, Duration::from_secs(30)).await;
    assert_eq!(
        statuses.first().map(String::as_str),
        Some("working"),
        "{statuses:?}"
    );
    assert_eq!(done["result"]["status"], "completed", "{done}");
    assert_eq!(
        done["result"]["result"]["structuredContent"],
        report_of("CORE"),
        "{done}"
    );
    // Every replica answers the same, and none to another principal.
    for url in [first, second, third] {
        let again = get(url, KEY, &id).await;
        assert_eq!(again["result"]["status"], "completed", "{again}");
        let theirs = get(url, OTHER_KEY, &id).await;
        let message = theirs["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains("unknown task"), "{theirs}");
    }

    // Started on the first, cancelled on the second, cancelled on all three.
    let slow = task_id(&start_report(first, KEY, "SLOW").await);
    seen_at_least(&seen, "GET /reports/SLOW", 1).await;
    for url in [second, third] {
        let running = get(url, KEY, &slow).await;
        assert_eq!(running["result"]["status"], "working", "{running}");
    }
    let theirs = stateless(
        second,
        OTHER_KEY,
        "tasks/cancel",
        &slow,
        json!({"taskId": slow}),
    )
    .await;
    assert!(
        theirs["error"].is_object(),
        "another principal cannot cancel it: {theirs}"
    );
    let cancelled = stateless(second, KEY, "tasks/cancel", &slow, json!({"taskId": slow})).await;
    assert!(cancelled.get("error").is_none(), "{cancelled}");
    for url in [first, second, third] {
        let now = get(url, KEY, &slow).await;
        assert_eq!(now["result"]["status"], "cancelled", "{now}");
    }
    // The first replica, which runs it, was told: it cancelled the report at the API and
    // polls no more.
    seen_at_least(&seen, "DELETE /reports/SLOW", 1).await;
    let polls = seen.count("GET /reports/SLOW");
    tokio::time::sleep(Duration::from_millis(2500)).await;
    assert_eq!(
        seen.count("GET /reports/SLOW"),
        polls,
        "no poll after the cancel"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_task_outlives_the_replica_that_ran_it() {
    let (seen, upstream, dir, keys) = stand_in_and_keys().await;
    let mut replicas = three_replicas(&upstream, &keys, dir.path()).await;
    let first = replicas.urls[0].clone();

    // A report the API runs for about twelve seconds, and one whose request never returns.
    let long = task_id(&start_report(&first, KEY, "LONG").await);
    let hang = task_id(&start_report(&first, KEY, "HANG").await);
    seen_at_least(&seen, "GET /reports/LONG", 2).await;
    seen_at_least(&seen, "POST /projects/HANG/reports", 1).await;
    let mut killed = replicas.processes[0].take().expect("the first replica");
    killed.0.start_kill().expect("SIGKILL");
    killed.0.wait().await.expect("the first replica is gone");

    let others = [replicas.urls[1].as_str(), replicas.urls[2].as_str()];
    let (done, statuses) = follow(&others, &long, Duration::from_secs(60)).await;
    assert_eq!(
        done["result"]["status"], "completed",
        "{done} after {statuses:?}"
    );
    assert_eq!(
        done["result"]["result"]["structuredContent"],
        report_of("LONG"),
        "{done}"
    );
    // Polling went on where it was: the report was asked for once.
    assert_eq!(seen.count("POST /projects/LONG/reports"), 1);
    assert_eq!(seen.count("GET /reports/LONG/result"), 1);
    // The replica that took it over recorded the call it finished (the audit is written in
    // batches: within five seconds).
    let mut taken_over = 0;
    for _ in 0..50 {
        taken_over = audited_for(&replicas.audits[1..], &long);
        if taken_over > 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(taken_over, 1, "one record of the taken-over call");

    // The request still on its way: nothing to go on from.
    let (lost, _) = follow(&others, &hang, Duration::from_secs(30)).await;
    assert_eq!(lost["result"]["status"], "failed", "{lost}");
    let message = lost["result"]["error"]["message"]
        .as_str()
        .unwrap_or_default();
    assert!(message.contains("lost with the replica"), "{lost}");
    assert_eq!(
        seen.count("POST /projects/HANG/reports"),
        1,
        "never sent again"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn no_task_is_lost_in_a_rolling_restart() {
    let (seen, upstream, dir, keys) = stand_in_and_keys().await;
    let mut replicas = three_replicas(&upstream, &keys, dir.path()).await;
    // A long report on each replica.
    let mut ids = Vec::new();
    for (i, url) in replicas.urls.iter().enumerate() {
        ids.push(task_id(&start_report(url, KEY, &format!("LONG{i}")).await));
    }
    for i in 0..3 {
        seen_at_least(&seen, &format!("GET /reports/LONG{i}"), 1).await;
    }
    // Each replica in turn stopped (SIGTERM: it drains for a second and exits, its task still
    // running) and started again.
    for i in 0..3 {
        let mut process = replicas.processes[i].take().expect("a replica");
        let pid = process.0.id().expect("pid").to_string();
        let status = std::process::Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .expect("kill -TERM");
        assert!(status.success());
        let exit = tokio::time::timeout(Duration::from_secs(30), process.0.wait())
            .await
            .expect("the replica stops within 30 s")
            .expect("wait");
        assert!(exit.success(), "replica {i} stops cleanly: {exit}");
        let flags = flags(&replicas.store, dir.path(), i);
        let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
        let (process, url) = start_helpdesk(&upstream, &keys, &flags).await;
        replicas.processes[i] = Some(process);
        replicas.urls[i] = url;
    }
    let urls: Vec<&str> = replicas.urls.iter().map(String::as_str).collect();
    for (i, id) in ids.iter().enumerate() {
        let (done, statuses) = follow(&urls, id, Duration::from_secs(90)).await;
        let project = format!("LONG{i}");
        assert_eq!(
            done["result"]["status"], "completed",
            "{done} after {statuses:?}"
        );
        assert_eq!(
            done["result"]["result"]["structuredContent"],
            report_of(&project),
            "{done}"
        );
        assert_eq!(seen.count(&format!("POST /projects/{project}/reports")), 1);
    }
    // Every task's call is on the record, once, on whichever replica finished it.
    for id in &ids {
        let mut audited = 0;
        for _ in 0..50 {
            audited = audited_for(&replicas.audits, id);
            if audited > 0 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        assert_eq!(audited, 1, "one record of the call of task {id}");
    }
}
