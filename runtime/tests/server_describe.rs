//! Full schemas beside summarised ones, over Streamable HTTP on loopback with rmcp's client:
//! arguments are checked against the full schema, `all` mode lists `describe_tools` next to
//! the tools and says so in the summarised tools' descriptions, and `describe_tools` returns
//! the full schemas to callers that may call the tool.

use crate::support::*;
use mcpgen_runtime::{SUMMARISED_NOTE, ToolDef};
use rmcp::model::CallToolResult;
use serde_json::{Value, json};

/// `add_note` as a budget leaves it: `items` lost its item shape in the listed schema.
const SUMMARISED_ADD_NOTE: ToolDef = ToolDef::new(
    "add_note",
    "Add a note",
    r#"{"type":"object","properties":{"text":{"type":"string"},"items":{"type":"array","description":"Line items (nested fields omitted)"}},"required":["text"]}"#,
)
.full_input_schema(
    r#"{"type":"object","properties":{"text":{"type":"string"},"items":{"type":"array","items":{"type":"object","properties":{"price":{"type":"string"},"quantity":{"type":"integer","minimum":1}},"required":["price","quantity"]}}},"required":["text"]}"#,
);

static TOOLS: &[ToolDef] = &[LIST_NOTES, SUMMARISED_ADD_NOTE];

async fn start(describe: bool) -> (Running, Notes) {
    let notes = Notes {
        tools: Some(TOOLS),
        ..Notes::default()
    };
    let server = builder(&notes, &Recorder::default())
        .describe_tools(describe)
        .build()
        .unwrap();
    (Running::start(server).await, notes)
}

fn structured(result: &CallToolResult) -> Value {
    assert_eq!(result.is_error, Some(false), "{}", text(result));
    result
        .structured_content
        .clone()
        .expect("structured content")
}

#[tokio::test]
async fn all_mode_lists_describe_tools_and_notes_the_summarised_tools() {
    let (server, _) = start(true).await;
    let client = connect(&server.url, "admin-key").await;
    let tools = client.list_all_tools().await.unwrap();
    assert_eq!(
        names(&tools),
        ["add_note", "describe_tools", "list_notes"],
        "sorted names"
    );
    let description = |name: &str| {
        tools
            .iter()
            .find(|t| t.name == name)
            .and_then(|t| t.description.clone())
            .unwrap_or_default()
    };
    assert_eq!(
        description("add_note"),
        format!("Add a note. {SUMMARISED_NOTE}")
    );
    assert_eq!(description("list_notes"), "List the notes");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn describe_tools_returns_the_full_schema_only_to_callers_that_may_call_the_tool() {
    let (server, _) = start(true).await;
    let admin = connect(&server.url, "admin-key").await;
    let described = structured(
        &admin
            .call_tool(call(
                "describe_tools",
                json!({"names": ["add_note", "list_notes", "nope"]}),
            ))
            .await
            .unwrap(),
    );
    let add = &described["tools"][0];
    assert_eq!(add["name"], "add_note");
    assert_eq!(
        add["description"], "Add a note",
        "no note in the definition"
    );
    assert_eq!(
        add["inputSchema"]["properties"]["items"]["items"]["required"],
        json!(["price", "quantity"])
    );
    assert_eq!(described["tools"][1]["name"], "list_notes");
    assert_eq!(described["unknown"], json!(["nope"]));
    admin.cancel().await.unwrap();

    // `mcp:read` does not grant the writing `add_note`: it is described as unknown.
    let reader = connect(&server.url, "reader-key").await;
    let described = structured(
        &reader
            .call_tool(call("describe_tools", json!({"names": ["add_note"]})))
            .await
            .unwrap(),
    );
    assert_eq!(described, json!({"tools": [], "unknown": ["add_note"]}));
    let refused = reader
        .call_tool(call("describe_tools", json!({"names": []})))
        .await
        .unwrap();
    assert_eq!(refused.is_error, Some(true));
    assert!(
        text(&refused).contains("describe_tools"),
        "{}",
        text(&refused)
    );
    reader.cancel().await.unwrap();
}

#[tokio::test]
async fn a_nested_mistake_is_refused_against_the_full_schema_before_the_tool_runs() {
    let (server, notes) = start(true).await;
    let client = connect(&server.url, "admin-key").await;
    let refused = client
        .call_tool(call(
            "add_note",
            json!({"text": "order", "items": [{"price": "p_1", "quantity": 0}]}),
        ))
        .await
        .unwrap();
    assert_eq!(refused.is_error, Some(true));
    let message = text(&refused);
    assert!(message.contains("/items/0/quantity"), "{message}");
    assert!(notes.calls().is_empty(), "the tool did not run");

    let accepted = client
        .call_tool(call(
            "add_note",
            json!({"text": "order", "items": [{"price": "p_1", "quantity": 2}]}),
        ))
        .await
        .unwrap();
    assert_eq!(accepted.is_error, Some(false), "{}", text(&accepted));
    assert_eq!(notes.calls(), ["add_note"]);
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn turned_off_all_mode_lists_only_the_tools_and_still_checks_the_full_schema() {
    let (server, notes) = start(false).await;
    let client = connect(&server.url, "admin-key").await;
    let tools = client.list_all_tools().await.unwrap();
    assert_eq!(names(&tools), ["add_note", "list_notes"]);
    assert!(tools.iter().all(|t| {
        !t.description
            .as_deref()
            .unwrap_or_default()
            .contains("describe_tools")
    }));
    let unknown = client
        .call_tool(call("describe_tools", json!({"names": ["add_note"]})))
        .await
        .unwrap_err();
    assert!(unknown.to_string().contains("describe_tools"), "{unknown}");
    let refused = client
        .call_tool(call(
            "add_note",
            json!({"text": "order", "items": [{"quantity": 1}]}),
        ))
        .await
        .unwrap();
    assert_eq!(refused.is_error, Some(true));
    assert!(text(&refused).contains("price"), "{}", text(&refused));
    assert!(notes.calls().is_empty());
    client.cancel().await.unwrap();
}
