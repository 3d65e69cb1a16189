//! A generated server started as a child process over stdio, against a loopback upstream that
//! answers everything with `200 {}`, and called through plain JSON-RPC lines.

use std::path::Path;
use std::process::Command;

use serde_json::{Map, Value, json};

/// Answers every HTTP request on a loopback port with `200 {}`, for as long as the test runs.
pub fn loopback_upstream() -> String {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("address"));
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            std::thread::spawn(move || {
                let mut buf = [0u8; 65536];
                let _ = stream.read(&mut buf);
                let _ = stream.write_all(
                    b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}",
                );
            });
        }
    });
    url
}

/// Starts the server `exe` over stdio against a loopback upstream and calls `n` tools spread
/// evenly across `tools` (the `tools/list` entries), with the arguments `args_for` makes from
/// each input schema; returns how many calls got a result. A crashed server fails the test
/// with the call it died on.
pub fn call_spread_tools(
    exe: &Path,
    tools: &Value,
    n: usize,
    args_for: impl Fn(&Value) -> Map<String, Value>,
) -> usize {
    use std::io::{BufRead, BufReader, Write};
    let tools = tools.as_array().expect("tools");
    let upstream = loopback_upstream();
    let mut child = Command::new(exe)
        .args(["--no-auth", "--upstream-url", &upstream])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::inherit())
        .spawn()
        .expect("the server starts");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    let mut send = |message: Value| {
        writeln!(stdin, "{message}").expect("write");
        stdin.flush().expect("flush");
    };
    let mut answer = |id: u64, what: &str| -> Value {
        for line in lines.by_ref() {
            let message: Value = serde_json::from_str(&line.expect("read")).expect("JSON-RPC");
            if message["id"] == id {
                return message;
            }
        }
        panic!("the server exited before answering {what}");
    };
    send(
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "corpus", "version": "1"}}}),
    );
    answer(0, "initialize");
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let mut answered = 0;
    let step = (tools.len() / n).max(1);
    for (i, tool) in tools.iter().step_by(step).take(n).enumerate() {
        let name = tool["name"].as_str().expect("name");
        let args = args_for(&tool["inputSchema"]);
        let id = i as u64 + 1;
        send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                    "params": {"name": name, "arguments": args}}));
        let reply = answer(id, &format!("tools/call {name}"));
        assert!(reply.get("result").is_some(), "{name}: {reply}");
        answered += 1;
    }
    let _ = child.kill();
    let _ = child.wait();
    answered
}
