//! A tool without an output schema (`output_schema: none` in the allowlist) answers with text
//! only: MCP ties `structuredContent` to an advertised `outputSchema`.

use crate::support::*;
use mcpgen_runtime::ToolDef;
use serde_json::json;

/// `list_notes` (which answers with JSON) advertised without an output schema.
const UNTYPED_LIST_NOTES: ToolDef = ToolDef {
    output_schema: None,
    full_input_schema: None,
    full_output_schema: None,
    full_defs: None,
    documented_output_schema: None,
    ..LIST_NOTES
};

#[tokio::test]
async fn json_results_of_a_tool_without_output_schema_carry_text_only() {
    let notes = Notes {
        tools: Some(&[UNTYPED_LIST_NOTES]),
        ..Notes::default()
    };
    let server = builder(&notes, &Recorder::default()).build().unwrap();
    let server = Running::start(server).await;
    let client = connect(&server.url, "reader-key").await;
    let listed = client.list_all_tools().await.unwrap();
    assert!(listed.iter().all(|t| t.output_schema.is_none()));
    let result = client
        .call_tool(call("list_notes", json!({"limit": 2})))
        .await
        .unwrap();
    assert_eq!(result.is_error, Some(false));
    assert_eq!(result.structured_content, None);
    let text = text(&result);
    assert!(text.contains("note 2"), "{text}");
    client.cancel().await.unwrap();
    server.stop().await.unwrap();
}
