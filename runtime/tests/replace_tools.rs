//! `Server::replace_tools` on a server serving HTTP: the sessions open are told with
//! `notifications/tools/list_changed` (when the server declares `tools.listChanged`), their
//! lists and calls follow the swap, stateless lists served from serialised bytes follow it
//! too, and tool sets that do not build are refused with the tools served kept.

use std::sync::Arc;
use std::time::Duration;

use mcpgen_runtime::ToolSet;
use rmcp::ClientHandler;
use rmcp::ServiceExt;
use rmcp::service::{NotificationContext, RoleClient, RunningService};
use serde_json::{Value, json};
use tokio::sync::mpsc;

use crate::support::*;

/// A client that reports each `notifications/tools/list_changed`.
#[derive(Clone)]
struct Listening(mpsc::UnboundedSender<()>);

impl ClientHandler for Listening {
    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        let _ = self.0.send(());
    }
}

async fn listening(
    url: &str,
    key: &str,
) -> (
    RunningService<RoleClient, Listening>,
    mpsc::UnboundedReceiver<()>,
) {
    let (send, changes) = mpsc::unbounded_channel();
    let client = Listening(send)
        .serve(http_transport(url, &[("x-api-key", key)]))
        .await
        .expect("the client connects");
    (client, changes)
}

/// The names a stateless `tools/list` as `key` answers with, on the path `accept` picks.
async fn stateless_names(url: &str, key: &str, accept: &str) -> Vec<String> {
    let body = json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/list",
        "params": {"_meta": stateless_meta(json!({}))}
    });
    let answer = post_stateless(url, key, "tools/list", &[], &body, accept).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    let answer: Value = serde_json::from_str(&answer.body).unwrap();
    let mut names: Vec<String> = answer["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect();
    names.sort();
    names
}

/// The notes tool set serving only the first `n` of its tools.
fn first_tools(notes: &Notes, n: usize) -> Vec<Arc<dyn ToolSet>> {
    let set = Notes {
        tools: Some(&NOTE_TOOLS[..n]),
        ..notes.clone()
    };
    vec![Arc::new(set)]
}

#[tokio::test]
async fn replaced_tools_reach_sessions_stateless_lists_and_calls() {
    let notes = Notes::default();
    let recorder = Recorder::default();
    let server = builder(&notes, &recorder)
        .tools_list_changed(true)
        .build()
        .unwrap();
    let running = Running::start(server.clone()).await;
    // The serialised list of this visible set is made before the swap.
    let before = stateless_names(&running.url, "admin-key", RUNTIME_PATH).await;
    assert_eq!(before.len(), NOTE_TOOLS.len());
    let (client, mut changes) = listening(&running.url, "admin-key").await;
    let declared = client
        .peer_info()
        .and_then(|i| i.capabilities.tools.clone());
    assert_eq!(declared.and_then(|t| t.list_changed), Some(true));
    assert_eq!(
        names(&client.list_all_tools().await.unwrap()).len(),
        NOTE_TOOLS.len()
    );

    let told = server.replace_tools(first_tools(&notes, 2)).await.unwrap();
    assert_eq!(told, 1, "the one open session is told");
    tokio::time::timeout(Duration::from_secs(10), changes.recv())
        .await
        .expect("notifications/tools/list_changed arrives")
        .expect("the client still listens");
    let expected = vec!["add_note".to_owned(), "list_notes".to_owned()];
    assert_eq!(names(&client.list_all_tools().await.unwrap()), expected);
    assert_eq!(
        stateless_names(&running.url, "admin-key", RUNTIME_PATH).await,
        expected
    );
    assert_eq!(
        stateless_names(&running.url, "admin-key", THROUGH_RMCP).await,
        expected
    );
    let names_now: Vec<&str> = server.tools().iter().map(|t| t.name).collect();
    assert_eq!(names_now, ["list_notes", "add_note"]);

    // A tool no longer served is unknown; one still served is called.
    let gone = client
        .call_tool(call("plugin_echo", json!({"message": "hi"})))
        .await;
    assert!(gone.is_err(), "{gone:?}");
    let kept = client
        .call_tool(call("list_notes", json!({"limit": 1})))
        .await
        .unwrap();
    assert_eq!(kept.is_error, Some(false));

    // Two sets serving the same tool do not build: refused, and nothing changes.
    let mut twice = first_tools(&notes, 1);
    twice.extend(first_tools(&notes, 1));
    let refused = server.replace_tools(twice).await.unwrap_err().to_string();
    assert!(refused.contains("list_notes"), "{refused}");
    assert_eq!(names(&client.list_all_tools().await.unwrap()), expected);
    assert_eq!(
        stateless_names(&running.url, "admin-key", RUNTIME_PATH).await,
        expected
    );
    assert!(
        changes.try_recv().is_err(),
        "a refused swap is not announced"
    );

    client.cancel().await.unwrap();
    running.stop().await.unwrap();
}

#[tokio::test]
async fn without_list_changed_the_tools_are_replaced_but_nobody_is_told() {
    let notes = Notes::default();
    let recorder = Recorder::default();
    let server = builder(&notes, &recorder).build().unwrap();
    let running = Running::start(server.clone()).await;
    let (client, mut changes) = listening(&running.url, "admin-key").await;
    let declared = client
        .peer_info()
        .and_then(|i| i.capabilities.tools.clone());
    assert_ne!(declared.and_then(|t| t.list_changed), Some(true));
    assert_eq!(
        server.replace_tools(first_tools(&notes, 1)).await.unwrap(),
        0
    );
    assert_eq!(
        names(&client.list_all_tools().await.unwrap()),
        ["list_notes"]
    );
    assert!(changes.try_recv().is_err());
    client.cancel().await.unwrap();
    running.stop().await.unwrap();
}
