//! Search mode over Streamable HTTP on loopback, driven by rmcp's client: the meta-tools find,
//! describe and call tools under the caller's visibility, and `call_tool` goes through the same
//! checks and audit as a direct call.

use crate::support::*;
use mcpgen_runtime::audit::AuditStatus;
use mcpgen_runtime::server::{ConfigProblem, ServerError, ToolMode};
use mcpgen_runtime::{Access, ToolAnnotations, ToolDef};
use rmcp::model::CallToolResult;
use rmcp::service::ServiceError;
use serde_json::{Value, json};

async fn start(pinned: &[&str]) -> (Running, Notes, Recorder) {
    let notes = Notes::default();
    let recorder = Recorder::default();
    let server = builder(&notes, &recorder)
        .tool_mode(ToolMode::Search)
        .pinned(pinned.iter().map(|s| (*s).to_owned()).collect())
        .build()
        .unwrap();
    (Running::start(server).await, notes, recorder)
}

fn structured(result: &CallToolResult) -> Value {
    assert_eq!(result.is_error, Some(false), "{}", text(result));
    let value = result
        .structured_content
        .clone()
        .expect("structured content");
    assert_eq!(
        serde_json::from_str::<Value>(&text(result)).unwrap(),
        value,
        "the text is the same JSON"
    );
    value
}

fn found(result: &CallToolResult) -> Vec<String> {
    structured(result)["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn tools_list_shows_the_meta_tools_and_the_pinned_tools_the_caller_may_call() {
    let (server, _, _) = start(&["add_note", "list_notes"]).await;
    for (key, expected) in [
        (
            "reader-key",
            &["call_tool", "describe_tools", "list_notes", "search_tools"][..],
        ),
        (
            "notes-key",
            &[
                "add_note",
                "call_tool",
                "describe_tools",
                "list_notes",
                "search_tools",
            ][..],
        ),
    ] {
        let client = connect(&server.url, key).await;
        let first = client.list_all_tools().await.unwrap();
        let again = client.list_all_tools().await.unwrap();
        assert_eq!(names(&first), expected, "tools for {key}");
        assert_eq!(
            serde_json::to_value(&first).unwrap(),
            serde_json::to_value(&again).unwrap(),
            "the list does not change between requests"
        );
        let search = first.iter().find(|t| t.name == "search_tools").unwrap();
        assert_eq!(search.input_schema.get("required"), Some(&json!(["query"])));
        client.cancel().await.unwrap();
    }
    server.stop().await.unwrap();
}

#[tokio::test]
async fn search_finds_a_tool_and_describe_returns_its_schemas() {
    let (server, _, _) = start(&[]).await;
    let client = connect(&server.url, "admin-key").await;
    let result = client
        .call_tool(call(
            "search_tools",
            json!({"query": "add a note", "limit": 2}),
        ))
        .await
        .unwrap();
    assert_eq!(found(&result).first().map(String::as_str), Some("add_note"));
    let value = structured(&result);
    assert_eq!(
        value["tools"][0],
        json!({"name": "add_note", "description": "Add a note", "access": "write"})
    );
    assert!(value["tools"].as_array().unwrap().len() <= 2, "{value}");

    let result = client
        .call_tool(call(
            "describe_tools",
            json!({"names": ["list_notes", "no_such_tool"]}),
        ))
        .await
        .unwrap();
    let value = structured(&result);
    let listed = client.list_all_tools().await.unwrap();
    assert!(
        listed.iter().all(|t| t.name != "list_notes"),
        "not listed directly"
    );
    assert_eq!(value["unknown"], json!(["no_such_tool"]));
    let tool = &value["tools"][0];
    assert_eq!(tool["name"], "list_notes");
    assert_eq!(tool["title"], "List notes");
    assert_eq!(
        tool["inputSchema"],
        json!({"type":"object","properties":{"limit":{"type":"integer","minimum":1}}})
    );
    assert_eq!(tool["outputSchema"]["required"], json!(["notes"]));
    assert_eq!(tool["annotations"]["readOnlyHint"], true);
    client.cancel().await.unwrap();
    server.stop().await.unwrap();
}

#[tokio::test]
async fn call_runs_the_inner_tool_with_validation_and_an_audit_record_naming_it() {
    let (server, notes, recorder) = start(&[]).await;
    let client = connect(&server.url, "reader-key").await;
    let result = client
        .call_tool(call(
            "call_tool",
            json!({"name": "list_notes", "arguments": {"limit": 3}}),
        ))
        .await
        .unwrap();
    assert_eq!(
        structured(&result),
        json!({"notes": ["note 1", "note 2", "note 3"]})
    );
    let invalid = client
        .call_tool(call(
            "call_tool",
            json!({"name": "list_notes", "arguments": {"limit": 0}}),
        ))
        .await
        .unwrap();
    assert_eq!(invalid.is_error, Some(true));
    assert!(
        text(&invalid).contains("invalid arguments for tool `list_notes`"),
        "{}",
        text(&invalid)
    );
    let malformed = client
        .call_tool(call("call_tool", json!({"arguments": {}})))
        .await
        .unwrap();
    assert_eq!(malformed.is_error, Some(true));
    assert!(
        text(&malformed).contains("`call_tool`"),
        "{}",
        text(&malformed)
    );
    assert_eq!(
        notes.calls(),
        ["list_notes"],
        "only the valid call reached the tool set"
    );
    let events: Vec<(String, AuditStatus)> = recorder
        .events()
        .into_iter()
        .map(|e| (e.tool, e.status))
        .collect();
    assert_eq!(
        events,
        [
            ("list_notes".to_owned(), AuditStatus::Ok),
            ("list_notes".to_owned(), AuditStatus::InvalidArguments),
        ]
    );
    // A tool found through search may also be called by its own name.
    let direct = client
        .call_tool(call("list_notes", json!({"limit": 1})))
        .await
        .unwrap();
    assert_eq!(structured(&direct), json!({"notes": ["note 1"]}));
    client.cancel().await.unwrap();
    server.stop().await.unwrap();
}

#[tokio::test]
async fn a_reader_never_finds_describes_or_calls_a_write_tool() {
    let (server, notes, recorder) = start(&[]).await;
    let client = connect(&server.url, "reader-key").await;
    for query in ["add a note", "note", "write", "echo a message"] {
        let result = client
            .call_tool(call("search_tools", json!({"query": query, "limit": 50})))
            .await
            .unwrap();
        let value = structured(&result);
        for tool in value["tools"].as_array().unwrap() {
            assert_eq!(tool["access"], "read", "{query}: {tool}");
            assert_ne!(tool["name"], "add_note");
            assert_ne!(tool["name"], "plugin_echo", "plugin tools need the plugin");
        }
    }
    let result = client
        .call_tool(call(
            "describe_tools",
            json!({"names": ["add_note", "nope"]}),
        ))
        .await
        .unwrap();
    assert_eq!(
        structured(&result),
        json!({"tools": [], "unknown": ["add_note", "nope"]})
    );

    let error = |e: ServiceError| match e {
        ServiceError::McpError(e) => e,
        other => panic!("expected a JSON-RPC error, got {other:?}"),
    };
    let through_call = error(
        client
            .call_tool(call(
                "call_tool",
                json!({"name": "add_note", "arguments": {"text": "hi"}}),
            ))
            .await
            .unwrap_err(),
    );
    let direct = error(
        client
            .call_tool(call("add_note", json!({"text": "hi"})))
            .await
            .unwrap_err(),
    );
    let unknown = error(
        client
            .call_tool(call("call_tool", json!({"name": "no_such_tool"})))
            .await
            .unwrap_err(),
    );
    assert_eq!(through_call, direct, "same code, message and data");
    assert_eq!(through_call.message, "Unknown tool: add_note");
    assert_eq!(unknown.code, direct.code);
    assert_eq!(unknown.message, "Unknown tool: no_such_tool");
    assert_eq!(unknown.data, direct.data);
    assert!(notes.calls().is_empty());
    let denied: Vec<(String, AuditStatus)> = recorder
        .events()
        .into_iter()
        .map(|e| (e.tool, e.status))
        .collect();
    assert_eq!(
        denied,
        [
            ("add_note".to_owned(), AuditStatus::Denied),
            ("add_note".to_owned(), AuditStatus::Denied),
            ("no_such_tool".to_owned(), AuditStatus::Denied),
        ]
    );
    client.cancel().await.unwrap();
    server.stop().await.unwrap();
}

#[tokio::test]
async fn the_rate_limit_applies_to_the_inner_call() {
    let (server, _, recorder) = start(&[]).await;
    let client = connect(&server.url, "limited-key").await;
    let first = client
        .call_tool(call(
            "call_tool",
            json!({"name": "slow", "arguments": {"ms": 0}}),
        ))
        .await
        .unwrap();
    assert_eq!(first.is_error, Some(false));
    let second = client
        .call_tool(call(
            "call_tool",
            json!({"name": "slow", "arguments": {"ms": 0}}),
        ))
        .await
        .unwrap();
    assert_eq!(second.is_error, Some(true));
    assert!(
        text(&second).contains("tool `slow` was not called"),
        "{}",
        text(&second)
    );
    let statuses: Vec<AuditStatus> = recorder.events().iter().map(|e| e.status).collect();
    assert_eq!(statuses, [AuditStatus::Ok, AuditStatus::RateLimited]);
    client.cancel().await.unwrap();
    server.stop().await.unwrap();
}

const CALL_TOOL_CLASH: ToolDef = ToolDef {
    name: "call_tool",
    title: None,
    description: "A tool that happens to be named like the meta-tool",
    input_schema: r#"{"type":"object"}"#,
    output_schema: None,
    full_input_schema: None,
    full_output_schema: None,
    full_defs: None,
    documented_output_schema: None,
    wrap_output: false,
    access: Access::Read,
    annotations: ToolAnnotations {
        read_only_hint: None,
        destructive_hint: None,
        idempotent_hint: None,
        open_world_hint: None,
    },
    confirm: false,
    required_scope: None,
    plugin: None,
    http: None,
    declaration: None,
    view: None,
};

static CLASHING: &[ToolDef] = &[CALL_TOOL_CLASH];

fn problems(result: Result<mcpgen_runtime::server::Server, ServerError>) -> Vec<ConfigProblem> {
    match result {
        Err(ServerError::Config(problems)) => problems,
        Err(other) => panic!("expected configuration problems, got {other}"),
        Ok(_) => panic!("expected configuration problems, the server was built"),
    }
}

#[test]
fn a_tool_named_like_a_meta_tool_is_a_start_up_error_in_search_mode() {
    let notes = Notes {
        tools: Some(CLASHING),
        ..Notes::default()
    };
    let build = |mode| {
        mcpgen_runtime::server::Server::builder("clash", "1")
            .tool_set(notes.clone())
            .tool_mode(mode)
            .build()
    };
    assert!(build(ToolMode::All).is_ok(), "no meta-tools in `all` mode");
    let found = problems(build(ToolMode::Search));
    assert_eq!(found.len(), 1, "{found:?}");
    let message = found[0].to_string();
    assert!(
        message.contains("tool `call_tool` (tool set #1)")
            && message.contains("meta-tool `call_tool`")
            && message.contains("--tool-mode all"),
        "{message}"
    );
}

#[test]
fn an_unknown_pin_or_a_broken_index_is_a_start_up_error() {
    let notes = Notes::default();
    let found = problems(
        mcpgen_runtime::server::Server::builder("pins", "1")
            .tool_set(notes.clone())
            .tool_mode(ToolMode::Search)
            .pinned(vec!["list_note".to_owned()])
            .build(),
    );
    let message = found[0].to_string();
    assert!(
        message.contains("pinned tool `list_note` is not served") && message.contains("list_notes"),
        "{message}"
    );
    let found = problems(
        mcpgen_runtime::server::Server::builder("index", "1")
            .tool_set(Notes {
                search_index: Some("not an index"),
                ..notes.clone()
            })
            .tool_mode(ToolMode::Search)
            .build(),
    );
    let message = found[0].to_string();
    assert!(
        message.starts_with("tool set #1: search index, line 1"),
        "{message}"
    );
    let stale = format!(
        "{} {} {} 1 1\nlist_notes GET 2,0,0,0,0,0\nnote 0:1\n",
        mcpgen_runtime::search::MAGIC,
        mcpgen_runtime::search::FORMAT_VERSION,
        mcpgen_runtime::search::TOKENIZER_VERSION
    );
    let found = problems(
        mcpgen_runtime::server::Server::builder("stale", "1")
            .tool_set(Notes {
                search_index: Some(String::leak(stale)),
                ..notes
            })
            .tool_mode(ToolMode::Search)
            .build(),
    );
    assert!(
        found[0]
            .to_string()
            .contains("tool `add_note` is served but not indexed"),
        "{found:?}"
    );
}
