//! `tools/list` of the stateless 2026-07-28 protocol comes from bytes serialised once per
//! visible set: on the wire it must be exactly what rmcp answers for the same request.
//!
//! An `Accept` header with a weight (`;q=1`) means the same to rmcp but keeps a request off
//! the serialised path, so each request is sent both ways and the answers compared byte for
//! byte.

mod support;

use serde_json::{Value, json};
use support::*;

/// One stateless `tools/list` with `id`, as `key`; `accept` decides the path it takes.
async fn list(url: &str, key: &str, id: Value, accept: &str) -> (u16, String, Vec<u8>) {
    let body = json!({
        "jsonrpc": "2.0", "id": id, "method": "tools/list",
        "params": {"_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": {}
        }}
    });
    let response = reqwest::Client::new()
        .post(format!("{url}/mcp"))
        .header("content-type", "application/json")
        .header("accept", accept)
        .header("x-api-key", key)
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/list")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    let content_type = response.headers()["content-type"]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(response.headers().get("mcp-session-id").is_none());
    (
        status,
        content_type,
        response.bytes().await.unwrap().to_vec(),
    )
}

const SERIALISED: &str = "application/json, text/event-stream";
const THROUGH_RMCP: &str = "application/json;q=1, text/event-stream;q=1";

#[tokio::test]
async fn each_visible_set_gets_the_bytes_rmcp_would_send() {
    let notes = Notes::default();
    let recorder = Recorder::default();
    let server = Running::start(builder(&notes, &recorder).build().unwrap()).await;
    let cases: [(&str, usize); 4] = [
        ("reader-key", 3),
        ("writer-key", 3),
        ("notes-key", 5),
        ("admin-key", 5),
    ];
    // Twice over: the first request of a set serialises its list, the second reuses it.
    for round in 0..2 {
        for (key, tools) in cases {
            for id in [
                json!(round),
                json!(9_007_199_254_740_993_i64),
                json!("a \"quoted\" id"),
            ] {
                let fast = list(&server.url, key, id.clone(), SERIALISED).await;
                let rmcp = list(&server.url, key, id.clone(), THROUGH_RMCP).await;
                assert_eq!(fast.0, 200, "{key}");
                assert_eq!((fast.0, &fast.1), (rmcp.0, &rmcp.1), "{key}");
                assert_eq!(
                    String::from_utf8_lossy(&fast.2),
                    String::from_utf8_lossy(&rmcp.2),
                    "{key}, id {id}"
                );
                let answer: Value = serde_json::from_slice(&fast.2).unwrap();
                assert_eq!(answer["id"], id);
                assert_eq!(answer["result"]["tools"].as_array().unwrap().len(), tools);
                assert_eq!(answer["result"]["cacheScope"], "private");
            }
        }
    }
    server.stop().await.unwrap();
}

#[tokio::test]
async fn a_refused_list_request_is_still_answered_as_rmcp_answers_it() {
    let notes = Notes::default();
    let recorder = Recorder::default();
    let server = Running::start(builder(&notes, &recorder).build().unwrap()).await;
    // `_meta` without the client capabilities: rmcp's invalid-params answer, on both paths.
    let body = json!({
        "jsonrpc": "2.0", "id": 3, "method": "tools/list",
        "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}
    });
    let mut answers = Vec::new();
    for accept in [SERIALISED, THROUGH_RMCP] {
        let response = reqwest::Client::new()
            .post(format!("{}/mcp", server.url))
            .header("content-type", "application/json")
            .header("accept", accept)
            .header("x-api-key", "reader-key")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", "tools/list")
            .body(body.to_string())
            .send()
            .await
            .unwrap();
        let status = response.status().as_u16();
        answers.push((status, response.text().await.unwrap()));
    }
    assert_eq!(answers[0], answers[1]);
    let error: Value = serde_json::from_str(&answers[0].1).unwrap();
    assert_eq!(error["id"], 3);
    assert!(error["error"]["code"].is_i64(), "{error}");
    server.stop().await.unwrap();
}
