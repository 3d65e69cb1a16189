//! `tools/list` of the stateless 2026-07-28 protocol comes from bytes serialised once per
//! visible set: on the wire it must be exactly what rmcp answers for the same request.
//!
//! An `Accept` header with a weight (`;q=1`) means the same to rmcp but keeps a request off
//! the serialised path, so each request is sent both ways and the answers compared byte for
//! byte.

use crate::support::*;
use serde_json::{Value, json};

/// One stateless `tools/list` with `id`, as `key`; `accept` decides the path it takes.
async fn list(url: &str, key: &str, id: Value, accept: &str) -> Answer {
    let body = json!({
        "jsonrpc": "2.0", "id": id, "method": "tools/list",
        "params": {"_meta": stateless_meta(json!({}))}
    });
    post_stateless(url, key, "tools/list", &[], &body, accept).await
}

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
                let fast = list(&server.url, key, id.clone(), RUNTIME_PATH).await;
                let rmcp = list(&server.url, key, id.clone(), THROUGH_RMCP).await;
                assert_eq!(fast.status, 200, "{key}");
                assert_eq!(fast, rmcp, "{key}, id {id}");
                let answer: Value = serde_json::from_str(&fast.body).unwrap();
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
    for accept in [RUNTIME_PATH, THROUGH_RMCP] {
        let answer =
            post_stateless(&server.url, "reader-key", "tools/list", &[], &body, accept).await;
        answers.push((answer.status, answer.body));
    }
    assert_eq!(answers[0], answers[1]);
    let error: Value = serde_json::from_str(&answers[0].1).unwrap();
    assert_eq!(error["id"], 3);
    assert!(error["error"]["code"].is_i64(), "{error}");
    server.stop().await.unwrap();
}
