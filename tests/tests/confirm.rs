//! Confirmation of destructive tools, end to end: the generated `library2-mcp` server (its
//! allowlist sets `confirm: true` on `library2_remove_book`, a DELETE) behind a loopback
//! stand-in for the library API, driven by rmcp's client with an elicitation handler, in both
//! protocol eras: a 2025-11-25 session (the server sends `elicitation/create`) and the
//! stateless 2026-07-28 era (the server answers with an input-required result and the client
//! retries with its answer).
//!
//! Accept → the stand-in receives the DELETE; decline or cancel → it receives nothing and the
//! result is `isError`; the audit log records both outcomes.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcpgen_tests::{KillOnDrop, StandIn, start_listening, text};
use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig, ElicitRequestParams,
    ElicitResult, ElicitationAction, Implementation, ProtocolVersion,
};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RequestContext, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ClientHandler, ErrorData, RoleClient, ServiceExt};
use serde_json::{Value, json};

/// A client that answers every elicitation with `action` and remembers the messages it was
/// shown.
#[derive(Clone)]
struct Person {
    action: ElicitationAction,
    shown: Arc<Mutex<Vec<String>>>,
}

impl Person {
    fn new(action: ElicitationAction) -> Self {
        Self {
            action,
            shown: Arc::default(),
        }
    }

    fn shown(&self) -> Vec<String> {
        self.shown.lock().map(|s| s.clone()).unwrap_or_default()
    }
}

impl ClientHandler for Person {
    fn get_info(&self) -> ClientConfig {
        let capabilities = ClientCapabilities::builder().enable_elicitation().build();
        ClientConfig::new(capabilities, Implementation::new("confirm-test", "1.0.0"))
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let shown = serde_json::to_string(&request).unwrap_or_default();
        if let Ok(mut list) = self.shown.lock() {
            list.push(shown);
        }
        let mut result = ElicitResult::new(self.action.clone());
        if self.action == ElicitationAction::Accept {
            result = result.with_content(json!({ "confirm": true }));
        }
        Ok(result)
    }
}

#[derive(Clone, Copy, Debug)]
enum Era {
    /// `initialize` with 2025-11-25: a session; the server sends `elicitation/create`.
    Session,
    /// `server/discover` with 2026-07-28: stateless; the server answers input-required.
    Stateless,
}

/// Starts `library2-mcp` over HTTP with auth off and a JSONL audit log, against `upstream`.
async fn start_library(
    upstream: &str,
    audit: &std::path::Path,
    extra: &[&str],
) -> (KillOnDrop, String) {
    let audit = audit.to_string_lossy();
    let mut args = vec![
        "--transport",
        "http",
        "--no-auth",
        "--upstream-url",
        upstream,
    ];
    args.extend(["--upstream-api-key", "terminal-7", "--audit-log", &audit]);
    args.extend(["--audit-fsync", "always"]);
    args.extend_from_slice(extra);
    start_listening("library2-mcp", &args).await
}

async fn connect(url: &str, era: Era, person: Person) -> RunningService<RoleClient, Person> {
    let transport = StreamableHttpClientTransport::from_uri(format!("{url}/mcp"));
    let connecting = async move {
        match era {
            Era::Session => person.serve(transport).await,
            Era::Stateless => {
                person
                    .serve_with_lifecycle(
                        transport,
                        ClientLifecycleMode::Discover {
                            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
                        },
                    )
                    .await
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(10), connecting)
        .await
        .expect("the client connects in time")
        .expect("the client connects")
}

async fn remove_book(client: &RunningService<RoleClient, Person>, id: u64) -> CallToolResult {
    let Value::Object(args) = json!({ "bookId": id, "X-Withdrawal-Reason": "damaged" }) else {
        unreachable!("a JSON object literal")
    };
    tokio::time::timeout(
        Duration::from_secs(20),
        client.call_tool(CallToolRequestParams::new("library2_remove_book").with_arguments(args)),
    )
    .await
    .expect("the call is answered in time")
    .expect("the call gets a result")
}

/// The audit records of `library2_remove_book`, in order.
fn audited(path: &std::path::Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|record| record["tool"] == "library2_remove_book")
        .collect()
}

async fn confirm_round(era: Era) {
    let upstream = StandIn::start(vec![
        ("DELETE /books/41", (204, "application/json", String::new())),
        ("DELETE /books/42", (204, "application/json", String::new())),
        ("DELETE /books/43", (204, "application/json", String::new())),
    ])
    .await
    .expect("stand-in starts");
    let dir = tempfile::tempdir().expect("tempdir");
    let audit = dir.path().join("audit.jsonl");
    let (_server, url) = start_library(&upstream.url, &audit, &[]).await;

    // Accept: the DELETE goes out, once, after the person saw what it would do.
    let accepting = Person::new(ElicitationAction::Accept);
    let client = connect(&url, era, accepting.clone()).await;
    let result = remove_book(&client, 42).await;
    assert_ne!(
        result.is_error,
        Some(true),
        "{era:?}: an accepted call succeeds: {}",
        text(&result)
    );
    let deletes: Vec<_> = upstream
        .received()
        .into_iter()
        .filter(|r| r.method == "DELETE")
        .collect();
    assert_eq!(deletes.len(), 1, "{era:?}: one DELETE after accept");
    assert_eq!(deletes[0].uri, "/books/42");
    let shown = accepting.shown();
    assert_eq!(shown.len(), 1, "{era:?}: the person was asked once");
    for expected in [
        "library2_remove_book",
        "DELETE",
        "/books/{bookId}",
        "42",
        "damaged",
    ] {
        assert!(
            shown[0].contains(expected),
            "{era:?}: the question shows `{expected}`: {}",
            shown[0]
        );
    }
    client.cancel().await.ok();

    // Decline and cancel: nothing goes upstream and the result says why.
    for (action, id) in [
        (ElicitationAction::Decline, 41),
        (ElicitationAction::Cancel, 43),
    ] {
        let person = Person::new(action.clone());
        let client = connect(&url, era, person.clone()).await;
        let result = remove_book(&client, id).await;
        assert_eq!(
            result.is_error,
            Some(true),
            "{era:?} {action:?}: the result is an error: {}",
            text(&result)
        );
        assert!(
            text(&result).contains("not confirmed"),
            "{era:?} {action:?}: the error says the call was not confirmed: {}",
            text(&result)
        );
        assert_eq!(person.shown().len(), 1, "{era:?} {action:?}: asked once");
        client.cancel().await.ok();
    }
    let deletes = upstream
        .received()
        .into_iter()
        .filter(|r| r.method == "DELETE")
        .count();
    assert_eq!(
        deletes, 1,
        "{era:?}: decline and cancel send nothing upstream"
    );

    // The audit log has the accepted call and the two refused ones; stateless calls also
    // record each first round, which answered with the question.
    let all: Vec<String> = audited(&audit)
        .iter()
        .map(|r| r["status"].as_str().unwrap_or_default().to_owned())
        .collect();
    let asked = all.iter().filter(|s| *s == "input_required").count();
    let expected_rounds = match era {
        Era::Session => 0,
        Era::Stateless => 3,
    };
    assert_eq!(
        asked, expected_rounds,
        "{era:?}: question rounds in {all:?}"
    );
    let statuses: Vec<&String> = all.iter().filter(|s| *s != "input_required").collect();
    assert_eq!(
        statuses,
        ["ok", "not_confirmed", "not_confirmed"],
        "{era:?}: audit statuses"
    );
}

#[tokio::test]
async fn confirm_in_a_session() {
    confirm_round(Era::Session).await;
}

#[tokio::test]
async fn confirm_stateless() {
    confirm_round(Era::Stateless).await;
}

/// A client that does not offer elicitation cannot confirm: the call is an error and nothing
/// is sent upstream.
#[tokio::test]
async fn confirm_without_elicitation_refuses() {
    without_elicitation(&[], false).await;
}

/// With `--unconfirmable-calls proceed`, such a client's call goes through unconfirmed.
#[tokio::test]
async fn confirm_without_elicitation_may_proceed() {
    without_elicitation(&["--unconfirmable-calls", "proceed"], true).await;
}

async fn without_elicitation(extra: &[&str], proceeds: bool) {
    let upstream = StandIn::start(vec![(
        "DELETE /books/42",
        (204, "application/json", String::new()),
    )])
    .await
    .expect("stand-in starts");
    let dir = tempfile::tempdir().expect("tempdir");
    let audit = dir.path().join("audit.jsonl");
    let (_server, url) = start_library(&upstream.url, &audit, extra).await;
    let transport = StreamableHttpClientTransport::from_uri(format!("{url}/mcp"));
    let client = tokio::time::timeout(Duration::from_secs(10), ().serve(transport))
        .await
        .expect("the client connects in time")
        .expect("the client connects");
    let Value::Object(args) = json!({ "bookId": 42 }) else {
        unreachable!("a JSON object literal")
    };
    let result = client
        .call_tool(CallToolRequestParams::new("library2_remove_book").with_arguments(args))
        .await
        .expect("the call gets a result");
    let statuses: Vec<String> = audited(&audit)
        .iter()
        .map(|r| r["status"].as_str().unwrap_or_default().to_owned())
        .collect();
    if proceeds {
        assert_ne!(result.is_error, Some(true), "{}", text(&result));
        assert_eq!(upstream.received().len(), 1, "the DELETE is sent");
        assert_eq!(statuses, ["ok"]);
    } else {
        assert_eq!(result.is_error, Some(true), "{}", text(&result));
        assert!(
            text(&result).contains("elicitation"),
            "the error names the missing capability: {}",
            text(&result)
        );
        assert!(upstream.received().is_empty(), "nothing sent upstream");
        assert_eq!(statuses, ["not_confirmed"]);
    }
    client.cancel().await.ok();
}
