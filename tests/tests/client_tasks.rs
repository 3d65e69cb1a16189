//! The client's task-augmented call (`Session::call_tool_as_task`) against the conformance
//! fixture, whose task tools run as MCP tasks: the call gets a task, polls it, and returns its
//! result; a tool that is not a task tool answers at once.

use std::time::Duration;

use mcpgen_client::{McpConfig, ServerConfig, Session};
use mcpgen_runtime::Content;
use mcpgen_tests::start_fixture_http;
use serde_json::{Map, Value, json};

/// How long a task may take before the call gives up.
const WAIT: Duration = Duration::from_secs(30);

fn server(url: &str) -> ServerConfig {
    let text = json!({ "mcpServers": { "fixture": {"url": url, "allow_private": true} } });
    let mut config = McpConfig::from_json_str(&text.to_string()).expect("valid configuration");
    config.servers.remove("fixture").expect("the server")
}

fn args(value: Value) -> Map<String, Value> {
    value.as_object().cloned().unwrap_or_default()
}

fn text(content: &[Content]) -> String {
    content
        .iter()
        .filter_map(|c| match c {
            Content::Text(text) => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn a_task_call_waits_for_the_task_and_returns_its_result() {
    let (_fixture, url) = start_fixture_http().await;
    let session = Session::connect("fixture", &server(&format!("{url}/mcp")))
        .await
        .expect("connects");

    let done = session
        .call_tool_as_task(
            "slow_compute",
            args(json!({"seconds": 1, "label": "sum"})),
            WAIT,
        )
        .await
        .expect("the task's result");
    assert!(!done.is_error, "{:?}", done.content);
    assert_eq!(text(&done.content), "computed `sum` in 1 s");

    let failed = session
        .call_tool_as_task("failing_job", Map::new(), WAIT)
        .await
        .expect("a tool error is a result");
    assert!(failed.is_error);
    assert!(text(&failed.content).contains("the job failed"));

    let at_once = session
        .call_tool_as_task("greet", args(json!({"name": "World"})), WAIT)
        .await
        .expect("a plain tool answers at once");
    assert_eq!(text(&at_once.content), "Hello, World!");
}
