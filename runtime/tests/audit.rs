//! Audit events, the argument digest, timestamps and the sinks.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use mcpgen_runtime::audit::{
    AuditEvent, AuditSink, AuditStatus, Fsync, JsonlSink, MultiSink, TracingSink, args_digest,
    canonical_json, new_call_id, now_rfc3339, rfc3339,
};
use serde_json::{Map, Value, json};

fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("not an object: {other}"),
    }
}

fn event(n: usize) -> AuditEvent {
    let args =
        object(json!({"n": n, "text": "héllo \"q\"\n", "nested": {"b": [1, 2.5], "a": null}}));
    AuditEvent {
        call_id: new_call_id(),
        parent_call_id: None,
        code_sha256: None,
        inner_calls: n.is_multiple_of(11).then_some(3),
        time: now_rfc3339(),
        request_id: Some(format!("req-{n}")),
        principal: Some("alice".to_owned()),
        key_id: n.is_multiple_of(2).then(|| "alice-laptop".to_owned()),
        tool: "synaplan_list_prompts".to_owned(),
        operation_id: n.is_multiple_of(2).then(|| "get_api_prompts".to_owned()),
        status: match n % 7 {
            0 => AuditStatus::Ok,
            1 => AuditStatus::ToolError,
            2 => AuditStatus::InvalidArguments,
            3 => AuditStatus::Denied,
            4 => AuditStatus::RateLimited,
            5 => AuditStatus::UpstreamError,
            _ => AuditStatus::Timeout,
        },
        duration_ms: n as u64,
        upstream_status: n.is_multiple_of(3).then_some(200),
        args_sha256: args_digest(&args),
        args: n.is_multiple_of(5).then(|| Value::Object(args)),
        error: (!n.is_multiple_of(7)).then(|| format!("failure {n}: \"quoted\"\nsecond line")),
        trace_id: n
            .is_multiple_of(4)
            .then(|| format!("4bf92f3577b34da6a3ce929d0e0e{n:04x}")),
    }
}

fn read_events(path: &std::path::Path) -> Vec<AuditEvent> {
    let text = std::fs::read_to_string(path).unwrap();
    assert!(
        text.is_empty() || text.ends_with('\n'),
        "last line unterminated"
    );
    text.lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}")))
        .collect()
}

#[test]
fn digest_ignores_key_order_at_every_level() {
    let a = object(json!({"b": 1, "a": {"y": [true, null], "x": "s"}}));
    let b = object(json!({"a": {"x": "s", "y": [true, null]}, "b": 1}));
    assert_eq!(args_digest(&a), args_digest(&b));
    assert_eq!(
        canonical_json(&Value::Object(a.clone())),
        r#"{"a":{"x":"s","y":[true,null]},"b":1}"#
    );
    let c = object(json!({"a": {"x": "s", "y": [null, true]}, "b": 1}));
    assert_ne!(args_digest(&a), args_digest(&c), "array order matters");
    // SHA-256 of `{}`.
    assert_eq!(
        args_digest(&Map::new()),
        "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"
    );
}

#[test]
fn canonical_json_writes_strings_and_numbers_like_serde_json() {
    // Keys already sorted, so serde_json's compact output is the canonical form.
    let value = json!({
        "a": "quote \" backslash \\ newline \n tab \t cr \r bell \u{7} nul \u{0} del \u{7f} é 🔑 </",
        "b": [0, -1, 1.5, 1e300, -0.0, 18446744073709551615u64],
        "c": {"\u{1}key": false}
    });
    assert_eq!(
        canonical_json(&value),
        serde_json::to_string(&value).unwrap()
    );
}

#[test]
fn rfc3339_formats_utc_with_milliseconds() {
    let at = |secs: u64, millis: u64| {
        SystemTime::UNIX_EPOCH + Duration::from_secs(secs) + Duration::from_millis(millis)
    };
    assert_eq!(rfc3339(at(0, 0)), "1970-01-01T00:00:00.000Z");
    assert_eq!(rfc3339(at(951_782_400, 7)), "2000-02-29T00:00:00.007Z");
    assert_eq!(rfc3339(at(1_735_689_599, 999)), "2024-12-31T23:59:59.999Z");
    assert_eq!(rfc3339(at(4_107_542_400, 0)), "2100-03-01T00:00:00.000Z");
    assert_eq!(
        rfc3339(SystemTime::UNIX_EPOCH + Duration::from_nanos(1_999_999)),
        "1970-01-01T00:00:00.001Z",
        "truncated, not rounded"
    );
    assert_eq!(
        rfc3339(SystemTime::UNIX_EPOCH - Duration::from_millis(500)),
        "1969-12-31T23:59:59.500Z"
    );
    assert_eq!(
        rfc3339(SystemTime::UNIX_EPOCH - Duration::from_secs(86_400 * 365)),
        "1969-01-01T00:00:00.000Z"
    );

    let now = now_rfc3339();
    assert_eq!(now.len(), 24, "{now}");
    assert!(now.starts_with("20") && now.ends_with('Z'), "{now}");
    assert_eq!(&now[10..11], "T");
    assert_eq!(&now[19..20], ".");
}

#[test]
fn status_is_written_in_snake_case() {
    let all = [
        (AuditStatus::Ok, "ok"),
        (AuditStatus::ToolError, "tool_error"),
        (AuditStatus::InvalidArguments, "invalid_arguments"),
        (AuditStatus::Denied, "denied"),
        (AuditStatus::RateLimited, "rate_limited"),
        (AuditStatus::UpstreamError, "upstream_error"),
        (AuditStatus::Timeout, "timeout"),
        (AuditStatus::InputRequired, "input_required"),
        (AuditStatus::NotConfirmed, "not_confirmed"),
        (AuditStatus::Unauthenticated, "unauthenticated"),
        (AuditStatus::Forbidden, "forbidden"),
        (AuditStatus::Unavailable, "unavailable"),
        (AuditStatus::TaskStarted, "task_started"),
    ];
    assert_eq!(AuditStatus::ALL.len(), all.len());
    for (status, name) in all {
        assert_eq!(serde_json::to_value(status).unwrap(), json!(name));
        assert_eq!(status.as_str(), name);
        assert_eq!(status.to_string(), name);
    }
}

#[test]
fn fsync_modes_parse() {
    assert_eq!("always".parse::<Fsync>().unwrap(), Fsync::Always);
    assert_eq!("Batch".parse::<Fsync>().unwrap(), Fsync::Batch);
    assert_eq!("never".parse::<Fsync>().unwrap(), Fsync::Never);
    assert_eq!(Fsync::default(), Fsync::Batch);
    assert_eq!(Fsync::Always.to_string(), "always");
    let err = "sometimes".parse::<Fsync>().unwrap_err().to_string();
    assert!(
        err.contains("`sometimes`") && err.contains("always"),
        "{err}"
    );
}

#[tokio::test]
async fn n_records_make_exactly_n_lines_that_parse_back() {
    for fsync in [Fsync::Always, Fsync::Batch, Fsync::Never] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("audit.jsonl");
        let sink = JsonlSink::open(&path, fsync).unwrap();
        let events: Vec<AuditEvent> = (0..50).map(event).collect();
        for e in &events {
            sink.record(e.clone()).await;
        }
        sink.flush().await;
        assert_eq!(read_events(&path), events, "{fsync}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_records_are_all_written_once() {
    // Always goes through the writer thread's queue; batch and never are written by the
    // recording tasks themselves.
    for fsync in [Fsync::Always, Fsync::Batch, Fsync::Never] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("audit.jsonl");
        let sink = Arc::new(JsonlSink::open(&path, fsync).unwrap());
        // More records in flight than the queue holds: `record` waits, nothing is dropped.
        let tasks: Vec<_> = (0..3000)
            .map(|n| {
                let sink = Arc::clone(&sink);
                tokio::spawn(async move { sink.record(event(n)).await })
            })
            .collect();
        for task in tasks {
            task.await.unwrap();
        }
        let mut ids: Vec<String> = read_events(&path)
            .into_iter()
            .filter_map(|e| e.request_id)
            .collect();
        ids.sort();
        let mut expected: Vec<String> = (0..3000).map(|n| format!("req-{n}")).collect();
        expected.sort();
        assert_eq!(ids, expected, "{fsync}");
    }
}

#[tokio::test]
async fn each_record_is_in_the_file_when_record_returns() {
    for fsync in [Fsync::Always, Fsync::Batch, Fsync::Never] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("audit.jsonl");
        let sink = JsonlSink::open(&path, fsync).unwrap();
        for n in 0..20 {
            let e = event(n);
            sink.record(e.clone()).await;
            // No flush: the line must already be in the file.
            let events = read_events(&path);
            assert_eq!(events.len(), n + 1, "{fsync}");
            assert_eq!(events.last(), Some(&e), "{fsync}");
        }
    }
}

#[tokio::test]
async fn reopening_appends_and_repairs_a_partial_last_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("audit.jsonl");
    let (first, second) = (event(1), event(2));
    {
        let sink = JsonlSink::open(&path, Fsync::Batch).unwrap();
        sink.record(first.clone()).await;
    } // dropping the sink stops its writer after a final sync
    {
        let sink = JsonlSink::open(&path, Fsync::Batch).unwrap();
        sink.record(second.clone()).await;
    }
    assert_eq!(read_events(&path), [first, second]);

    // A crash mid-write left a partial line: new records start on a line of their own.
    for (n, fsync) in [Fsync::Always, Fsync::Batch, Fsync::Never]
        .into_iter()
        .enumerate()
    {
        let mut text = std::fs::read_to_string(&path).unwrap();
        text.push_str("{\"time\":\"2025-");
        std::fs::write(&path, &text).unwrap();
        let partial = text.lines().count() - 1;
        let sink = JsonlSink::open(&path, fsync).unwrap();
        let e = event(3 + n);
        sink.record(e.clone()).await;
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), partial + 2, "{fsync}");
        assert_eq!(lines[partial], "{\"time\":\"2025-", "{fsync}");
        assert_eq!(
            serde_json::from_str::<AuditEvent>(lines[partial + 1]).unwrap(),
            e,
            "{fsync}"
        );
    }
}

#[test]
fn open_error_names_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("missing-dir").join("audit.jsonl");
    let err = JsonlSink::open(&path, Fsync::Batch)
        .unwrap_err()
        .to_string();
    assert!(err.contains("missing-dir"), "{err}");
}

#[tokio::test]
async fn multi_sink_records_in_every_sink() {
    let dir = tempfile::tempdir().unwrap();
    let first = dir.path().join("first.jsonl");
    let second = dir.path().join("second.jsonl");
    let shared: Arc<dyn AuditSink> = Arc::new(JsonlSink::open(&second, Fsync::Never).unwrap());
    let mut sink = MultiSink::new()
        .with(JsonlSink::open(&first, Fsync::Always).unwrap())
        .with(TracingSink::new());
    sink.push(shared);
    assert_eq!(sink.len(), 3);
    let events: Vec<AuditEvent> = (0..5).map(event).collect();
    for e in &events {
        sink.record(e.clone()).await;
    }
    sink.flush().await;
    assert_eq!(read_events(&first), events);
    assert_eq!(read_events(&second), events);
}

/// A subscriber that keeps every event's target and fields.
#[derive(Clone, Default)]
struct Capture(Arc<Mutex<Vec<Captured>>>);

/// An event's target and its fields, rendered.
type Captured = (String, BTreeMap<String, String>);

struct Fields<'a>(&'a mut BTreeMap<String, String>);

impl tracing::field::Visit for Fields<'_> {
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        self.0.insert(field.name().to_owned(), format!("{value:?}"));
    }

    fn record_str(&mut self, field: &tracing::field::Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.to_owned());
    }
}

impl tracing::Subscriber for Capture {
    fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, _: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        tracing::span::Id::from_u64(1)
    }
    fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}
    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, event: &tracing::Event<'_>) {
        let mut fields = BTreeMap::new();
        event.record(&mut Fields(&mut fields));
        fields.insert("level".to_owned(), event.metadata().level().to_string());
        let target = event.metadata().target().to_owned();
        self.0.lock().unwrap().push((target, fields));
    }
    fn enter(&self, _: &tracing::span::Id) {}
    fn exit(&self, _: &tracing::span::Id) {}
}

#[test]
fn tracing_sink_emits_every_field() {
    let capture = Capture::default();
    let with_args = event(0); // n = 0: ok, key id, upstream status and args present
    let without = event(1);
    tracing::subscriber::with_default(capture.clone(), || {
        futures::executor::block_on(async {
            TracingSink::new().record(with_args.clone()).await;
            TracingSink::new().record(without.clone()).await;
            TracingSink::new().flush().await;
        })
    });
    let events = capture.0.lock().unwrap().clone();
    assert_eq!(events.len(), 2);
    let (target, fields) = &events[0];
    assert_eq!(target, "mcpgen::audit");
    assert_eq!(fields["level"], "INFO");
    assert_eq!(fields["time"], with_args.time);
    assert_eq!(fields["request_id"], "req-0");
    assert_eq!(fields["principal"], "alice");
    assert_eq!(fields["key_id"], "alice-laptop");
    assert_eq!(fields["tool"], "synaplan_list_prompts");
    assert_eq!(fields["status"], "ok");
    assert_eq!(fields["duration_ms"], "0");
    assert_eq!(fields["upstream_status"], "200");
    assert_eq!(fields["args_sha256"], with_args.args_sha256);
    let args: Value = serde_json::from_str(&fields["args"]).unwrap();
    assert_eq!(Some(args), with_args.args);

    let (_, fields) = &events[1];
    assert_eq!(fields["status"], "tool_error");
    assert!(!fields.contains_key("args"));
    assert!(!fields.contains_key("key_id"));
    assert!(!fields.contains_key("upstream_status"));
}

#[test]
fn tracing_sink_at_debug_emits_the_same_fields_at_debug_level() {
    let capture = Capture::default();
    let record = event(0);
    tracing::subscriber::with_default(capture.clone(), || {
        futures::executor::block_on(async {
            TracingSink::new().record(record.clone()).await;
            TracingSink::debug().record(record.clone()).await;
        })
    });
    let events = capture.0.lock().unwrap().clone();
    assert_eq!(events.len(), 2);
    let (info, debug) = (&events[0], &events[1]);
    assert_eq!(info.0, debug.0);
    assert_eq!(info.1["level"], "INFO");
    assert_eq!(debug.1["level"], "DEBUG");
    let without_level = |fields: &BTreeMap<String, String>| {
        let mut fields = fields.clone();
        fields.remove("level");
        fields
    };
    assert_eq!(without_level(&info.1), without_level(&debug.1));
}

/// A subscriber that takes every event up to a level.
struct UpTo(tracing::Level);

impl tracing::Subscriber for UpTo {
    fn enabled(&self, metadata: &tracing::Metadata<'_>) -> bool {
        *metadata.level() <= self.0
    }
    fn new_span(&self, _: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        tracing::span::Id::from_u64(1)
    }
    fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}
    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, _: &tracing::Event<'_>) {}
    fn enter(&self, _: &tracing::span::Id) {}
    fn exit(&self, _: &tracing::span::Id) {}
}

#[test]
fn tracing_sink_keeps_records_only_where_the_log_takes_its_level() {
    let dir = tempfile::tempdir().unwrap();
    let jsonl: Arc<dyn AuditSink> =
        Arc::new(JsonlSink::open(dir.path().join("a.jsonl"), Fsync::Never).unwrap());
    let keeps = |level| {
        tracing::subscriber::with_default(UpTo(level), || {
            [
                TracingSink::new().keeps_records(),
                TracingSink::debug().keeps_records(),
                MultiSink::new().with(TracingSink::debug()).keeps_records(),
                MultiSink::new()
                    .with(TracingSink::debug())
                    .with(jsonl.clone())
                    .keeps_records(),
            ]
        })
    };
    assert_eq!(keeps(tracing::Level::WARN), [false, false, false, true]);
    assert_eq!(keeps(tracing::Level::INFO), [true, false, false, true]);
    assert_eq!(keeps(tracing::Level::DEBUG), [true, true, true, true]);
    assert!(!MultiSink::new().keeps_records());
}
