//! `mcpgen mock` as a real child process on loopback: every operation of every spec in `specs/`
//! answers with a body its own response schema accepts, the same request gets the same body,
//! requests that do not fit are refused with the JSON pointer of what does not, and bad specs,
//! addresses and ports are clear errors.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcpgen_codegen::schema::{Direction, SchemaConverter};
use mcpgen_codegen::spec::{Operation, ParamLocation, Spec};
use serde_json::{Value, json};

// The mock's own value maker, to build requests that fit each operation.
#[allow(dead_code)]
#[path = "../../src/serving/mock/pattern.rs"]
mod pattern;
#[allow(dead_code)]
#[path = "../../src/serving/mock/sample.rs"]
mod sample;
#[allow(dead_code)]
#[path = "../../src/serving/mock/seed.rs"]
mod seed;

/// A running `mcpgen mock`, stopped when dropped.
pub(super) struct Mock {
    child: Child,
    pub(super) address: String,
    log: Arc<Mutex<String>>,
}

impl Drop for Mock {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Mock {
    pub(super) fn log(&self) -> String {
        self.log.lock().map(|l| l.clone()).unwrap_or_default()
    }

    /// The log once `done` holds for it (its lines are read as the mock writes them), or after
    /// a minute.
    fn log_when(&self, done: impl Fn(&str) -> bool) -> String {
        for _ in 0..600 {
            let log = self.log();
            if done(&log) {
                return log;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        self.log()
    }
}

fn mcpgen() -> Command {
    Command::new(env!("CARGO_BIN_EXE_mcpgen"))
}

/// Starts the mock of `spec` on a free loopback port and reads the URL it prints.
pub(super) fn start(spec: &Path) -> Mock {
    let mut child = mcpgen()
        .args(["mock", "--listen", "127.0.0.1:0", "--spec"])
        .arg(spec)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("mcpgen runs");
    let log = Arc::new(Mutex::new(String::new()));
    let stderr = child.stderr.take().expect("stderr");
    let sink = Arc::clone(&log);
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if let Ok(mut log) = sink.lock() {
                log.push_str(&line);
                log.push('\n');
            }
        }
    });
    let mut line = String::new();
    let stdout = child.stdout.take().expect("stdout");
    BufReader::new(stdout).read_line(&mut line).expect("stdout");
    let mut mock = Mock {
        child,
        address: String::new(),
        log,
    };
    let Some(address) = line.trim().strip_prefix("http://") else {
        std::thread::sleep(Duration::from_millis(500));
        panic!(
            "{}: no URL printed ({line:?}); stderr: {}",
            spec.display(),
            mock.log()
        );
    };
    mock.address = address.to_owned();
    mock
}

/// An answer: status, headers (names in lower case) and body.
struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&self.body)))
    }
}

/// One HTTP/1.1 request over a fresh connection.
fn send(
    address: &str,
    method: &str,
    target: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Answer {
    let mut stream = TcpStream::connect(address).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .expect("timeout");
    let mut head = format!(
        "{method} {target} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).expect("write");
    stream.write_all(body).expect("write");
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).expect("read");
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a head");
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|s| s.parse().ok())
        .expect("a status");
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    Answer {
        status,
        headers,
        body: raw[split + 4..].to_vec(),
    }
}

fn specs() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../specs");
    let mut found = Vec::new();
    for entry in std::fs::read_dir(&root).expect("specs/") {
        let dir = entry.expect("entry").path();
        for name in ["openapi.yaml", "openapi.yml", "openapi.json"] {
            if dir.join(name).is_file() {
                found.push(dir.join(name));
            }
        }
    }
    found.sort();
    assert!(found.len() >= 5, "{found:?}");
    found
}

/// A schema of `spec` converted as the engine converts it, with its `$defs` at its root.
fn converted(spec: &Spec, schema: &Value, pointer: &str, direction: Direction) -> Value {
    let mut converter = SchemaConverter::new(&spec.root, &spec.path, direction);
    let converted = converter.convert(schema, pointer);
    let (defs, _) = converter.finish();
    json!({"allOf": [converted], "$defs": defs})
}

fn made(schema: &Value, seed: u64) -> Value {
    sample::Sampler::new(schema).value(schema, &mut seed::Rng::new(seed))
}

fn text_of(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Array(items) => items.iter().map(text_of).collect::<Vec<_>>().join(","),
        other => other.to_string(),
    }
}

fn encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// A request that fits `op`: its path with every parameter filled, its required query
/// parameters and headers, and a body of its first media type.
struct Built {
    target: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

fn build(spec: &Spec, op: &Operation) -> Built {
    let mut path = op.path.clone();
    let mut query = Vec::new();
    let mut headers = Vec::new();
    for (i, p) in op.parameters.iter().enumerate() {
        let schema = converted(spec, &p.schema, &p.schema_pointer, Direction::Input);
        let value = made(&schema, i as u64);
        let json_encoded = p.schema_pointer.contains("/content/");
        match p.location {
            ParamLocation::Path => {
                path = path.replace(&format!("{{{}}}", p.name), &encode(&text_of(&value)));
            }
            ParamLocation::Query if p.required => {
                let name = encode(&p.name);
                match (&value, json_encoded, p.style.as_deref()) {
                    (_, true, _) => query.push(format!("{name}={}", encode(&value.to_string()))),
                    (Value::Object(map), _, Some("deepObject")) => {
                        for (k, v) in map {
                            query.push(format!(
                                "{name}%5B{}%5D={}",
                                encode(k),
                                encode(&text_of(v))
                            ));
                        }
                    }
                    (Value::Array(items), _, _) if p.explode != Some(false) => {
                        for item in items {
                            query.push(format!("{name}={}", encode(&text_of(item))));
                        }
                    }
                    _ => query.push(format!("{name}={}", encode(&text_of(&value)))),
                }
            }
            ParamLocation::Header if p.required => {
                let text = if json_encoded {
                    value.to_string()
                } else {
                    text_of(&value)
                };
                headers.push((p.name.clone(), text));
            }
            _ => {}
        }
    }
    let mut body = Vec::new();
    if let Some(request_body) = &op.request_body
        && let Some((media, entry)) = request_body.content.iter().next()
    {
        headers.push(("Content-Type".into(), media.clone()));
        body = if media.contains("json") {
            let schema = entry.schema.as_ref().map_or(json!({}), |s| {
                converted(spec, s, &entry.schema_pointer, Direction::Input)
            });
            serde_json::to_vec(&made(&schema, 1)).expect("JSON")
        } else if media == "application/x-www-form-urlencoded" {
            let schema = entry.schema.as_ref().map_or(json!({}), |s| {
                converted(spec, s, &entry.schema_pointer, Direction::Input)
            });
            let fields = made(&schema, 1);
            let pairs: Vec<String> = fields
                .as_object()
                .into_iter()
                .flatten()
                .map(|(k, v)| format!("{}={}", encode(k), encode(&text_of(v))))
                .collect();
            pairs.join("&").into_bytes()
        } else {
            b"name=example".to_vec()
        };
    }
    let mut target = path;
    if !query.is_empty() {
        target.push('?');
        target.push_str(&query.join("&"));
    }
    Built {
        target,
        headers,
        body,
    }
}

fn call(mock: &Mock, op: &Operation, built: &Built) -> Answer {
    let headers: Vec<(&str, &str)> = built
        .headers
        .iter()
        .map(|(n, v)| (n.as_str(), v.as_str()))
        .collect();
    send(
        &mock.address,
        &op.method.to_ascii_uppercase(),
        &built.target,
        &headers,
        &built.body,
    )
}

#[test]
fn every_operation_of_every_spec_answers_with_a_body_its_schema_accepts_and_the_same_twice() {
    for file in specs() {
        let spec = Spec::load(&file).unwrap_or_else(|e| panic!("{}: {e:?}", file.display()));
        let mock = start(&file);
        let mut sent = 0;
        for op in &spec.operations {
            let what = format!("{}: {} {}", file.display(), op.method, op.path);
            let built = build(&spec, op);
            let answer = call(&mock, op, &built);
            sent += 1;
            assert!(
                (200..300).contains(&answer.status),
                "{what}: {} {}\nlog:\n{}",
                answer.status,
                String::from_utf8_lossy(&answer.body),
                mock.log()
            );
            let documented = op
                .responses
                .iter()
                .find(|(code, _)| code.starts_with('2') && code.len() == 3);
            let Some((code, response)) = documented else {
                continue;
            };
            if let Ok(code) = code.parse::<u16>() {
                assert_eq!(answer.status, code, "{what}");
            }
            let picked = response
                .content
                .iter()
                .find(|(m, _)| m.contains("json"))
                .or_else(|| response.content.iter().next());
            let Some((media, entry)) = picked.filter(|_| answer.status != 204) else {
                assert!(answer.body.is_empty(), "{what}: a body for no content");
                continue;
            };
            assert_eq!(
                answer.header("content-type"),
                Some(media.as_str()),
                "{what}"
            );
            if media.contains("json")
                && let Some(schema) = &entry.schema
            {
                let schema = converted(&spec, schema, &entry.schema_pointer, Direction::Output);
                let validator = jsonschema::draft202012::new(&schema).expect("compiles");
                let body = answer.json();
                let problems: Vec<String> = validator
                    .iter_errors(&body)
                    .map(|e| e.to_string())
                    .collect();
                assert!(problems.is_empty(), "{what}: {problems:?}\n{body:#}");
            }
            let again = call(&mock, op, &built);
            sent += 1;
            assert_eq!(
                again.body, answer.body,
                "{what}: another body the second time"
            );
        }
        // One line per request, after what the mock says at start-up.
        let requests = |log: &str| {
            log.lines()
                .filter(|l| {
                    l.split_once(" /")
                        .is_some_and(|(m, _)| m.chars().all(|c| c.is_ascii_uppercase()))
                })
                .count()
        };
        let log = mock.log_when(|log| requests(log) >= sent);
        assert_eq!(requests(&log), sent, "{log}");
    }
}

fn spec(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../specs")
        .join(name);
    ["openapi.yaml", "openapi.json"]
        .iter()
        .map(|f| dir.join(f))
        .find(|p| p.is_file())
        .expect("spec")
}

fn refused(answer: &Answer, pointer: &str) {
    let body = answer.json();
    assert_eq!(answer.status, 400, "{body}");
    assert_eq!(body["pointer"], pointer, "{body}");
    assert!(
        body["error"].as_str().is_some_and(|e| !e.is_empty()),
        "{body}"
    );
}

#[test]
fn requests_that_do_not_fit_are_refused_with_the_pointer_of_what_does_not() {
    let helpdesk = start(&spec("helpdesk"));
    let json = [("Content-Type", "application/json")];
    let wrong_type = br#"{"project": "CORE", "title": 42}"#;
    let answer = send(&helpdesk.address, "POST", "/tickets", &json, wrong_type);
    refused(&answer, "/body/title");
    let missing = br#"{"project": "CORE"}"#;
    refused(
        &send(&helpdesk.address, "POST", "/tickets", &json, missing),
        "/body/title",
    );
    refused(
        &send(&helpdesk.address, "POST", "/tickets", &json, b""),
        "/body",
    );
    refused(
        &send(&helpdesk.address, "POST", "/tickets", &json, b"{"),
        "/body",
    );
    refused(
        &send(&helpdesk.address, "GET", "/users?limit=two", &[], b""),
        "/query/limit",
    );
    let fits = br#"{"project": "CORE", "title": "Printer on fire"}"#;
    assert_eq!(
        send(&helpdesk.address, "POST", "/tickets", &json, fits).status,
        201
    );
    let csv = [("Content-Type", "text/csv")];
    let answer = send(&helpdesk.address, "POST", "/tickets", &csv, fits);
    assert_eq!(answer.status, 415);
    assert_eq!(answer.json()["pointer"], "/header/content-type");

    let unknown = send(&helpdesk.address, "GET", "/nowhere", &[], b"");
    assert_eq!(unknown.status, 404);
    assert!(
        unknown.json()["error"]
            .as_str()
            .is_some_and(|e| e.contains("/nowhere"))
    );
    let other_method = send(&helpdesk.address, "PATCH", "/tickets", &[], b"");
    assert_eq!(other_method.status, 405);
    assert_eq!(other_method.header("allow"), Some("POST"));
    let logged = |log: &str| log.contains("POST /tickets 400 /body/title: ");
    assert!(logged(&helpdesk.log_when(logged)), "{}", helpdesk.log());

    let events = start(&spec("events31"));
    let path = "/reports/segments/channels?to=2024-02-01";
    refused(&send(&events.address, "GET", path, &[], b""), "/query/from");
    let path = "/reports/segments/channels?from=2024-01-01&to=2024-02-01";
    assert_eq!(send(&events.address, "GET", path, &[], b"").status, 200);

    // Swagger 2.0: the bookId path parameter is an integer; the base path may be kept.
    let library = start(&spec("library2"));
    refused(
        &send(&library.address, "GET", "/books/seventeen", &[], b""),
        "/path/bookId",
    );
    let form = [("Content-Type", "application/x-www-form-urlencoded")];
    let path = "/books/17/availability";
    let answer = send(
        &library.address,
        "POST",
        path,
        &form,
        b"availability=stolen",
    );
    refused(&answer, "/body/availability");
    let answer = send(&library.address, "POST", path, &form, b"note=gone");
    refused(&answer, "/body/availability");
    let answer = send(&library.address, "POST", path, &form, b"availability=lost");
    assert_eq!(answer.status, 200, "{}", library.log());
    let by_base = send(&library.address, "GET", "/v2/books/17", &[], b"");
    assert_eq!(by_base.status, 200, "{}", library.log());
    assert_eq!(
        by_base.body,
        send(&library.address, "GET", "/books/17", &[], b"").body
    );
}

#[test]
fn different_requests_get_their_own_answers_from_the_same_seed_every_run() {
    let file = spec("helpdesk");
    let first = start(&file);
    let a = send(&first.address, "GET", "/tickets/CORE-1", &[], b"");
    let b = send(&first.address, "GET", "/tickets/CORE-2", &[], b"");
    assert_eq!(a.status, 200);
    assert_ne!(a.body, b.body, "two tickets, one body");
    drop(first);
    let second = start(&file);
    let again = send(&second.address, "GET", "/tickets/CORE-1", &[], b"");
    assert_eq!(again.body, a.body, "another body in another run");
}

fn fails(args: &[&str]) -> String {
    let out = mcpgen().args(args).output().expect("mcpgen runs");
    assert!(!out.status.success(), "{args:?} succeeded");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn bad_specs_addresses_and_ports_are_clear_errors() {
    let dir = tempfile::tempdir().expect("tempdir");
    let broken = dir.path().join("openapi.yaml");
    std::fs::write(
        &broken,
        "openapi: 3.0.3\ninfo:\n  title: t\n  version: '1'\npaths:\n  /a: [\n",
    )
    .expect("write");
    let message = fails(&[
        "mock",
        "--listen",
        "127.0.0.1:0",
        "--spec",
        broken.to_str().expect("utf-8"),
    ]);
    assert!(
        message.contains(&format!("{}:", broken.display())),
        "{message}"
    );
    assert!(
        message.contains(":6:") || message.contains(":7:"),
        "no line: {message}"
    );

    let shapeless = dir.path().join("shapeless.yaml");
    std::fs::write(
        &shapeless,
        "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths: [1]\n",
    )
    .expect("write");
    let message = fails(&[
        "mock",
        "--listen",
        "127.0.0.1:0",
        "--spec",
        shapeless.to_str().expect("utf-8"),
    ]);
    assert!(message.contains("/paths"), "no pointer: {message}");

    let closed = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = closed.local_addr().expect("addr").port();
    drop(closed);
    let url = format!("http://127.0.0.1:{port}/openapi.yaml");
    let message = fails(&["mock", "--listen", "127.0.0.1:0", "--spec", &url]);
    assert!(message.contains(&url), "{message}");

    let helpdesk = spec("helpdesk");
    let helpdesk = helpdesk.to_str().expect("utf-8");
    let message = fails(&["mock", "--spec", helpdesk, "--listen", "0.0.0.0:0"]);
    assert!(message.contains("not a loopback address"), "{message}");
    assert!(message.contains("--allow-remote"), "{message}");

    let taken = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let address = taken.local_addr().expect("addr").to_string();
    let message = fails(&["mock", "--spec", helpdesk, "--listen", &address]);
    assert!(message.contains(&address), "{message}");
    assert!(message.contains("pick another port"), "{message}");
}

#[test]
fn every_flag_of_mock_is_documented_in_help() {
    let out = mcpgen()
        .args(["mock", "--help"])
        .output()
        .expect("mcpgen runs");
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{help}");
    for flag in ["--spec", "--listen", "--allow-remote", "--spec-timeout"] {
        let line = help
            .lines()
            .find(|l| l.trim_start().starts_with(flag))
            .unwrap_or_else(|| panic!("{flag} missing: {help}"));
        let described = line.trim_start().split_once("  ").map(|(_, d)| d.trim());
        assert!(described.is_some_and(|d| !d.is_empty()), "{flag}: {line:?}");
    }
    assert!(
        help.contains("MCPGEN_MOCK_LISTEN") && help.contains("127.0.0.1:4010"),
        "{help}"
    );
}

#[test]
fn a_spec_url_is_served_like_a_file() {
    let file = spec("helpdesk");
    let text = std::fs::read(&file).expect("read");
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let address = listener.local_addr().expect("addr");
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut buffer = [0u8; 4096];
            let _ = stream.read(&mut buffer);
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: application/yaml\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                text.len()
            );
            let _ = stream.write_all(head.as_bytes());
            let _ = stream.write_all(&text);
        }
    });
    let mock = start(Path::new(&format!("http://{address}/api/openapi.yaml")));
    let answer = send(&mock.address, "GET", "/tickets/CORE-1", &[], b"");
    assert_eq!(answer.status, 200, "{}", mock.log());
    assert!(answer.json().is_object());
}
