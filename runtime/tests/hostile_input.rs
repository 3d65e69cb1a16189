//! Hostile and broken input at the HTTP layer, sent with real requests to a server on
//! loopback: bodies cut off in transit, JSON that is not JSON-RPC, wrong content types,
//! oversized bodies (declared and streamed), and clients that stall mid-body. Each gets a clear
//! HTTP status with a JSON-RPC error body, on both protocol eras of `/mcp` and on the legacy
//! SSE message endpoint, and none of them keeps the server from answering others. A request
//! refused for want of a credential is answered within the body read timeout without its body
//! being read, and closes its connection; a refused batch is one audit record; two `Host`
//! headers are a 400, and an absolute-form request target's authority is checked like `Host`.

use std::time::Duration;

use crate::support::*;
use futures::StreamExt;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Bound on every wait, so a bug cannot hang the suite.
const WAIT: Duration = Duration::from_secs(10);

const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#;

async fn start_with(
    configure: impl FnOnce(
        mcpgen_runtime::server::ServerBuilder,
    ) -> mcpgen_runtime::server::ServerBuilder,
) -> Running {
    let notes = Notes::default();
    let recorder = Recorder::default();
    let server = configure(builder(&notes, &recorder)).build().unwrap();
    Running::start(server).await
}

async fn start() -> Running {
    start_with(|b| b).await
}

/// A POST to `/mcp` as `reader-key` with the headers of a session-era client.
fn session_post(url: &str) -> reqwest::RequestBuilder {
    reqwest::Client::new()
        .post(format!("{url}/mcp"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("x-api-key", "reader-key")
}

/// A POST to `/mcp` as `reader-key` with the headers of a 2026-07-28 (stateless) client.
fn stateless_post(url: &str, method: &str) -> reqwest::RequestBuilder {
    session_post(url)
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", method)
}

/// Sends and returns the status and the body read as JSON (`Value::Null` if it is not JSON).
async fn answer(request: reqwest::RequestBuilder) -> (u16, Value, String) {
    let response = tokio::time::timeout(WAIT, request.send())
        .await
        .expect("answered in time")
        .expect("sent");
    let status = response.status().as_u16();
    let content_type = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    let text = response.text().await.unwrap_or_default();
    let body = serde_json::from_str(&text).unwrap_or(Value::Null);
    (status, body, content_type)
}

/// Opens a Streamable HTTP session as `reader-key`; its id.
async fn open_session(url: &str) -> String {
    let response = session_post(url).body(INIT).send().await.unwrap();
    assert_eq!(response.status(), 200);
    response.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_owned()
}

const CUT_OFF_CALL: &str =
    r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"list_no"#;

fn assert_parse_error(status: u16, body: &Value, content_type: &str, what: &str) {
    assert_eq!(status, 400, "{what}: {body}");
    assert!(
        content_type.starts_with("application/json"),
        "{what}: {content_type}"
    );
    assert_eq!(body["jsonrpc"], "2.0", "{what}: {body}");
    assert_eq!(body["error"]["code"], -32700, "{what}: {body}");
    assert_eq!(body["id"], Value::Null, "{what}: {body}");
}

#[tokio::test]
async fn a_cut_off_body_is_a_parse_error_on_both_protocol_eras() {
    let server = start().await;
    let url = &server.url;

    // Session era: the first request (a cut-off initialize) and one inside a session.
    let (status, body, ct) = answer(session_post(url).body(&INIT[..INIT.len() / 2])).await;
    assert_parse_error(status, &body, &ct, "cut-off initialize");
    let session = open_session(url).await;
    let (status, body, ct) = answer(
        session_post(url)
            .header("mcp-session-id", &session)
            .body(CUT_OFF_CALL),
    )
    .await;
    assert_parse_error(status, &body, &ct, "cut-off call in a session");

    // Stateless 2026-07-28 era.
    let (status, body, ct) = answer(stateless_post(url, "tools/call").body(CUT_OFF_CALL)).await;
    assert_parse_error(status, &body, &ct, "cut-off stateless call");

    // An empty body is no JSON either.
    let (status, body, ct) = answer(stateless_post(url, "tools/list").body("")).await;
    assert_parse_error(status, &body, &ct, "empty stateless body");

    // Bytes that are not even UTF-8.
    let (status, body, ct) = answer(session_post(url).body(vec![0xff, 0xfe, 0x7b])).await;
    assert_parse_error(status, &body, &ct, "binary garbage");

    // The server still answers well-formed requests.
    let (status, body, _) = answer(
        stateless_post(url, "tools/list").body(
            json!({"jsonrpc": "2.0", "id": 8, "method": "tools/list", "params": {"_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
                "io.modelcontextprotocol/clientCapabilities": {}
            }}})
            .to_string(),
        ),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["id"], 8);
    server.stop().await.unwrap();
}

#[tokio::test]
async fn json_that_is_not_a_jsonrpc_message_is_an_invalid_request() {
    let server = start().await;
    let url = &server.url;
    let cases = [
        (
            json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": 7}),
            json!(3),
        ),
        (json!({"id": "x", "method": "tools/list"}), json!("x")),
        (
            json!([{"jsonrpc": "2.0", "id": 1, "method": "ping"}]),
            Value::Null,
        ),
        (json!("just a string"), Value::Null),
        (
            json!({"jsonrpc": "2.0", "id": {"nested": 1}, "method": 5}),
            Value::Null,
        ),
    ];
    for (message, id) in cases {
        for (era, request) in [
            ("session", session_post(url)),
            ("stateless", stateless_post(url, "tools/list")),
        ] {
            let (status, body, _) = answer(request.body(message.to_string())).await;
            assert_eq!(status, 400, "{era} {message}: {body}");
            assert_eq!(body["error"]["code"], -32600, "{era} {message}: {body}");
            assert_eq!(body["id"], id, "{era} {message}: {body}");
        }
    }
    server.stop().await.unwrap();
}

#[tokio::test]
async fn a_wrong_content_type_or_accept_is_refused_with_a_jsonrpc_body() {
    let server = start().await;
    let url = &server.url;
    let (status, body, ct) = answer(
        reqwest::Client::new()
            .post(format!("{url}/mcp"))
            .header("content-type", "text/plain")
            .header("accept", "application/json, text/event-stream")
            .header("x-api-key", "reader-key")
            .body(INIT),
    )
    .await;
    assert_eq!(status, 415, "{body}");
    assert!(ct.starts_with("application/json"), "{ct}");
    assert_eq!(body["error"]["code"], -32600, "{body}");

    let (status, body, ct) = answer(
        reqwest::Client::new()
            .post(format!("{url}/mcp"))
            .header("content-type", "application/json")
            .header("accept", "text/html")
            .header("x-api-key", "reader-key")
            .body(INIT),
    )
    .await;
    assert_eq!(status, 406, "{body}");
    assert!(ct.starts_with("application/json"), "{ct}");
    assert_eq!(body["error"]["code"], -32600, "{body}");
    server.stop().await.unwrap();
}

#[tokio::test]
async fn the_legacy_message_endpoint_tells_parse_errors_from_invalid_requests() {
    let server = start().await;
    // A stream whose first event names the session; kept open for the whole test.
    let response = reqwest::Client::new()
        .get(format!("{}/sse", server.url))
        .header("accept", "text/event-stream")
        .header("x-api-key", "reader-key")
        .send()
        .await
        .unwrap();
    let mut chunks = response.bytes_stream();
    let mut text = String::new();
    let endpoint = loop {
        let chunk = tokio::time::timeout(WAIT, chunks.next())
            .await
            .expect("the endpoint event in time")
            .expect("the stream stays open")
            .unwrap();
        text.push_str(&String::from_utf8_lossy(&chunk));
        if text.contains("\n\n") {
            let data = text
                .lines()
                .find_map(|l| l.strip_prefix("data:"))
                .expect("an endpoint event");
            break format!("{}{}", server.url, data.trim());
        }
    };
    let post = |body: &'static str| {
        reqwest::Client::new()
            .post(&endpoint)
            .header("content-type", "application/json")
            .header("x-api-key", "reader-key")
            .body(body)
    };
    let (status, body, ct) = answer(post(CUT_OFF_CALL)).await;
    assert_parse_error(status, &body, &ct, "legacy SSE cut-off message");
    let (status, body, _) = answer(post(r#"{"jsonrpc":"2.0","id":2,"method":7}"#)).await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["error"]["code"], -32600, "{body}");
    drop(chunks);
    server.stop().await.unwrap();
}

#[tokio::test]
async fn an_oversized_body_is_refused_whether_declared_or_streamed() {
    let server = start_with(|b| b.max_body_bytes(1024)).await;
    let url = &server.url;
    let big = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{"pad":"{}"}}}}"#,
        "x".repeat(4096)
    );
    // Declared by Content-Length.
    let (status, body, _) = answer(stateless_post(url, "tools/list").body(big.clone())).await;
    assert_eq!(status, 413, "{body}");
    assert_eq!(body["error"]["code"], -32600, "{body}");
    // Chunked, without a length: refused once the limit is passed.
    let chunks: Vec<Result<String, std::io::Error>> = big
        .as_bytes()
        .chunks(256)
        .map(|c| Ok(String::from_utf8_lossy(c).into_owned()))
        .collect();
    let (status, body, _) =
        answer(session_post(url).body(reqwest::Body::wrap_stream(futures::stream::iter(chunks))))
            .await;
    assert_eq!(status, 413, "{body}");
    assert_eq!(body["error"]["code"], -32600, "{body}");
    server.stop().await.unwrap();
}

/// Writes a request head that promises `length` body bytes, and `sent` of them, then stalls.
async fn stalled_request(server: &Running, length: usize, sent: &[u8]) -> tokio::net::TcpStream {
    let mut tcp = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nhost: {}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\nx-api-key: reader-key\r\ncontent-length: {length}\r\n\r\n",
        server.addr
    );
    tcp.write_all(head.as_bytes()).await.unwrap();
    tcp.write_all(sent).await.unwrap();
    tcp.flush().await.unwrap();
    tcp
}

#[tokio::test]
async fn a_client_that_stalls_mid_body_is_timed_out_without_starving_others() {
    let server = start_with(|b| b.body_read_timeout(Duration::from_millis(500))).await;
    // Several clients that promise a body and never finish it.
    let mut stalled = Vec::new();
    for _ in 0..8 {
        stalled.push(stalled_request(&server, INIT.len(), &INIT.as_bytes()[..10]).await);
    }
    // Meanwhile everyone else is answered.
    let session = open_session(&server.url).await;
    assert!(!session.is_empty());
    // Each stalled client gets 408 with a JSON-RPC error, not a connection held forever.
    for mut tcp in stalled {
        let mut reply = Vec::new();
        let read = tokio::time::timeout(WAIT, async {
            let mut buffer = [0u8; 1024];
            loop {
                let n = tcp.read(&mut buffer).await.unwrap_or(0);
                if n == 0 {
                    break;
                }
                reply.extend_from_slice(&buffer[..n]);
                if String::from_utf8_lossy(&reply).contains("-32600") {
                    break;
                }
            }
        })
        .await;
        assert!(read.is_ok(), "the stalled client is answered");
        let reply = String::from_utf8_lossy(&reply);
        assert!(reply.starts_with("HTTP/1.1 408"), "{reply}");
        assert!(reply.contains("-32600"), "{reply}");
    }
    server.stop().await.unwrap();
}

/// Writes `head` (and `body`) on a new connection and reads the answer until the server ends
/// the connection or `WAIT` passes; the answer and whether the connection was ended.
async fn raw_exchange(server: &Running, head: &str, body: &[u8]) -> (String, bool) {
    let mut tcp = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    tcp.write_all(head.as_bytes()).await.unwrap();
    tcp.write_all(body).await.unwrap();
    tcp.flush().await.unwrap();
    let mut reply = Vec::new();
    let ended = tokio::time::timeout(WAIT, async {
        let mut buffer = [0u8; 4096];
        loop {
            match tcp.read(&mut buffer).await {
                Ok(0) | Err(_) => break,
                Ok(n) => reply.extend_from_slice(&buffer[..n]),
            }
        }
    })
    .await
    .is_ok();
    (String::from_utf8_lossy(&reply).into_owned(), ended)
}

#[tokio::test]
async fn a_request_without_a_credential_is_answered_by_the_body_read_timeout_and_closed() {
    let timeout = Duration::from_millis(800);
    let server = start_with(|b| b.body_read_timeout(timeout)).await;
    // It promises 100,000 bytes and sends none.
    let head = "POST /mcp HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\ncontent-length: 100000\r\n\r\n";
    let started = std::time::Instant::now();
    let (reply, ended) = raw_exchange(&server, head, b"").await;
    assert!(ended, "the connection is closed: {reply}");
    assert!(reply.starts_with("HTTP/1.1 401"), "{reply}");
    assert!(
        reply.to_ascii_lowercase().contains("connection: close"),
        "{reply}"
    );
    assert!(started.elapsed() < timeout + Duration::from_secs(5));
    // A small body sent whole is drained: the connection is not closed for it.
    let call = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_notes"}}"#;
    let mut tcp = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\ncontent-length: {}\r\n\r\n{call}",
        call.len()
    );
    tcp.write_all(head.as_bytes()).await.unwrap();
    let mut buffer = vec![0u8; 4096];
    let n = tokio::time::timeout(WAIT, tcp.read(&mut buffer))
        .await
        .expect("answered in time")
        .unwrap();
    let reply = String::from_utf8_lossy(&buffer[..n]).to_ascii_lowercase();
    assert!(reply.starts_with("http/1.1 401"), "{reply}");
    assert!(!reply.contains("connection: close"), "{reply}");
    server.stop().await.unwrap();
}

#[tokio::test]
async fn two_host_headers_are_a_bad_request() {
    let server = start().await;
    let head = format!(
        "POST /mcp HTTP/1.1\r\nhost: localhost\r\nhost: evil.example\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\nx-api-key: reader-key\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        INIT.len()
    );
    let (reply, _) = raw_exchange(&server, &head, INIT.as_bytes()).await;
    assert!(reply.starts_with("HTTP/1.1 400"), "{reply}");
    assert!(reply.contains("more than one Host header"), "{reply}");
    assert!(
        !reply.to_ascii_lowercase().contains("mcp-session-id"),
        "{reply}"
    );
    server.stop().await.unwrap();
}

#[tokio::test]
async fn an_absolute_form_target_has_its_authority_checked_like_host() {
    let server = start().await;
    let request = |target: &str| {
        format!(
            "POST {target} HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\nx-api-key: reader-key\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
            INIT.len()
        )
    };
    let (reply, _) = raw_exchange(
        &server,
        &request("http://evil.example/mcp"),
        INIT.as_bytes(),
    )
    .await;
    assert!(reply.starts_with("HTTP/1.1 403"), "{reply}");
    assert!(reply.contains("evil.example"), "{reply}");
    // The server's own authority in absolute form is served.
    let own = format!("http://localhost:{}/mcp", server.addr.port());
    let (reply, _) = raw_exchange(&server, &request(&own), INIT.as_bytes()).await;
    assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
    server.stop().await.unwrap();
}

#[tokio::test]
async fn a_refused_batch_is_one_audit_record_counting_its_calls() {
    let notes = Notes::default();
    let recorder = Recorder::default();
    let server = Running::start(builder(&notes, &recorder).build().unwrap()).await;
    let call = |id: u64, tool: &str| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
               "params": {"name": tool, "arguments": {}}})
    };
    let batch = json!([
        {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        call(2, "list_notes"),
        call(3, "add_note"),
        call(4, "list_notes"),
    ]);
    let (status, _, _) = answer(
        reqwest::Client::new()
            .post(format!("{}/mcp", server.url))
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(batch.to_string()),
    )
    .await;
    assert_eq!(status, 401);
    let events = recorder.events();
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(events[0].tool, "list_notes");
    assert_eq!(events[0].request_id, None);
    let error = events[0].error.as_deref().unwrap_or_default();
    assert!(
        error.contains("a batch of 3 tool calls, recorded once"),
        "{error}"
    );
    server.stop().await.unwrap();
}
