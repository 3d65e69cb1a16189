//! `#[mcp_tool]` tools served over Streamable HTTP on loopback and driven by rmcp's client:
//! schemas from the Rust types, structured results that fit them, errors as `isError`.

use crate::support;

use support::{call, text};

use mcpgen::schemars::JsonSchema;
use mcpgen::server::Server;
use mcpgen::{AppToolSet, Args, ToolContext};
use mcpgen::{mcp_tool, mcp_tools, tool_set};
use rmcp::model::Tool;
use rmcp::service::{RoleClient, RunningService};
use serde::Serialize;
use serde_json::{Map, Value, json};
use tokio::sync::oneshot;

/// A chat room.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[schemars(crate = "mcpgen::schemars")]
struct Room {
    /// The room's unique id.
    id: u32,
    /// What the room is called.
    name: String,
    /// Topic, if one was set.
    topic: Option<String>,
}

/// A failure an alias hides.
type RoomResult<T> = Result<T, String>;

struct Rooms {
    rooms: Vec<Room>,
}

#[mcp_tools]
impl Rooms {
    /// Lists the rooms whose name contains `filter`.
    #[mcp_tool(read_only, idempotent, title = "List rooms")]
    async fn list_rooms(
        &self,
        /// Part of the room name to look for.
        filter: Option<String>,
        /// Most rooms to return.
        #[serde(default = "default_limit")]
        limit: u32,
    ) -> Vec<Room> {
        self.rooms
            .iter()
            .filter(|r| filter.as_deref().is_none_or(|f| r.name.contains(f)))
            .take(limit as usize)
            .cloned()
            .collect()
    }

    /// Looks one room up by id.
    #[mcp_tool(name = "get_room", access = read)]
    fn room(&self, id: u32) -> RoomResult<Room> {
        self.rooms
            .iter()
            .find(|r| r.id == id)
            .cloned()
            .ok_or_else(|| format!("no room with id {id}"))
    }
}

fn default_limit() -> u32 {
    10
}

/// Echoes its text and the request id the call carried.
#[mcp_tool(read_only)]
async fn echo(
    /// What to say back.
    text: String,
    ctx: &ToolContext,
) -> Result<String, std::io::Error> {
    Ok(format!("{text} ({})", ctx.request_id().unwrap_or("no id")))
}

/// Adds two numbers.
#[mcp_tool(read_only, scope = "math")]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Starts a server with `sets` on loopback and connects rmcp's client.
async fn serve(
    sets: Vec<std::sync::Arc<dyn mcpgen::ToolSet>>,
) -> (RunningService<RoleClient, ()>, oneshot::Sender<()>) {
    let mut builder = Server::builder("rooms", "0.1.0").no_auth();
    for set in sets {
        builder = builder.shared_tool_set(set);
    }
    support::serve(builder.build().expect("the server builds")).await
}

fn rooms() -> Rooms {
    Rooms {
        rooms: vec![
            Room {
                id: 1,
                name: "general".into(),
                topic: None,
            },
            Room {
                id: 2,
                name: "rust-help".into(),
                topic: Some("borrowck".into()),
            },
        ],
    }
}

fn sets() -> Vec<std::sync::Arc<dyn mcpgen::ToolSet>> {
    let free: AppToolSet<()> = tool_set![echo, add];
    vec![
        std::sync::Arc::new(rooms().into_tool_set()),
        std::sync::Arc::new(free),
    ]
}

fn tool<'a>(tools: &'a [Tool], name: &str) -> &'a Tool {
    tools
        .iter()
        .find(|t| t.name == name)
        .unwrap_or_else(|| panic!("`{name}` is listed"))
}

fn object(map: &Map<String, Value>) -> Value {
    Value::Object(map.clone())
}

/// `structured` fits `schema` (a JSON Schema 2020-12 validator compiled from the listed
/// output schema).
fn assert_fits(schema: &Value, structured: &Value) {
    let validator = jsonschema::validator_for(schema).expect("the output schema compiles");
    let problems: Vec<String> = validator
        .iter_errors(structured)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(
        problems.is_empty(),
        "{structured} does not fit {schema}: {problems:?}"
    );
}

#[tokio::test]
async fn tools_list_shows_schemas_from_the_rust_types() {
    let (client, _stop) = serve(sets()).await;
    let tools = client.list_all_tools().await.expect("tools/list");
    let mut names: Vec<&str> = tools.iter().map(|t| &*t.name).collect();
    names.sort_unstable();
    assert_eq!(names, ["add", "echo", "get_room", "list_rooms"]);

    let list = tool(&tools, "list_rooms");
    assert_eq!(
        list.description.as_deref(),
        Some("Lists the rooms whose name contains `filter`.")
    );
    assert_eq!(list.title.as_deref(), Some("List rooms"));
    let input = object(&list.input_schema);
    assert_eq!(input["type"], "object");
    assert_eq!(
        input["properties"]["filter"]["description"],
        "Part of the room name to look for."
    );
    assert_eq!(
        input["properties"]["limit"]["description"],
        "Most rooms to return."
    );
    assert_eq!(input["properties"]["limit"]["default"], 10);
    // `Option<T>` and defaulted parameters are optional.
    assert!(
        input
            .get("required")
            .is_none_or(|r| r.as_array().is_some_and(Vec::is_empty)),
        "{input}"
    );
    let annotations = list.annotations.as_ref().expect("annotations");
    assert_eq!(annotations.read_only_hint, Some(true));
    assert_eq!(annotations.idempotent_hint, Some(true));

    // A non-object output is wrapped; the element type's doc comments describe its fields.
    let output = object(list.output_schema.as_ref().expect("an output schema"));
    assert_eq!(output["type"], "object");
    assert_eq!(output["required"], json!(["result"]));
    assert_eq!(output["properties"]["result"]["type"], "array");
    assert_eq!(
        output["$defs"]["Room"]["properties"]["name"]["description"],
        "What the room is called."
    );

    let get = tool(&tools, "get_room");
    let input = object(&get.input_schema);
    assert_eq!(input["required"], json!(["id"]));
    let output = object(get.output_schema.as_ref().expect("an output schema"));
    assert_eq!(output["type"], "object");
    assert!(output["properties"]["id"].is_object(), "{output}");

    let add = tool(&tools, "add");
    let output = object(add.output_schema.as_ref().expect("an output schema"));
    assert_eq!(output["properties"]["result"]["type"], "integer");
    // The context parameter is not an argument.
    let echo = object(&tool(&tools, "echo").input_schema);
    assert_eq!(echo["required"], json!(["text"]));
    assert!(echo["properties"].get("ctx").is_none(), "{echo}");
    assert_eq!(
        echo["properties"]["text"]["description"],
        "What to say back."
    );
    client.cancel().await.ok();
}

#[tokio::test]
async fn structured_content_fits_the_output_schema() {
    let (client, _stop) = serve(sets()).await;
    let tools = client.list_all_tools().await.expect("tools/list");

    let result = call(&client, "list_rooms", json!({"filter": "rust"})).await;
    assert_ne!(result.is_error, Some(true), "{}", text(&result));
    let structured = result
        .structured_content
        .clone()
        .expect("structured content");
    assert_eq!(structured["result"][0]["name"], "rust-help");
    assert_eq!(structured["result"].as_array().map(Vec::len), Some(1));
    let schema = object(
        tool(&tools, "list_rooms")
            .output_schema
            .as_ref()
            .expect("schema"),
    );
    assert_fits(&schema, &structured);
    // The text block is the same value, unwrapped.
    let echoed: Value = serde_json::from_str(&text(&result)).expect("JSON text");
    assert_eq!(echoed, structured["result"]);

    let result = call(&client, "get_room", json!({"id": 1})).await;
    let structured = result
        .structured_content
        .clone()
        .expect("structured content");
    assert_eq!(
        structured,
        json!({"id": 1, "name": "general", "topic": null})
    );
    let schema = object(
        tool(&tools, "get_room")
            .output_schema
            .as_ref()
            .expect("schema"),
    );
    assert_fits(&schema, &structured);

    let result = call(&client, "add", json!({"a": 2, "b": 40})).await;
    assert_eq!(result.structured_content, Some(json!({"result": 42})));
    assert_eq!(text(&result), "42");

    let result = call(&client, "echo", json!({"text": "hi"})).await;
    assert_eq!(result.is_error, Some(false));
    let said = text(&result);
    assert!(said.starts_with("hi ("), "{said}");
    assert!(
        !said.contains("no id"),
        "the context carries the request id: {said}"
    );
    client.cancel().await.ok();
}

#[tokio::test]
async fn an_err_is_an_error_result_and_bad_arguments_never_reach_the_tool() {
    let (client, _stop) = serve(sets()).await;
    let result = call(&client, "get_room", json!({"id": 99})).await;
    assert_eq!(result.is_error, Some(true));
    assert_eq!(text(&result), "no room with id 99");
    assert!(result.structured_content.is_none());

    let result = call(&client, "add", json!({"a": "two", "b": 1})).await;
    assert_eq!(result.is_error, Some(true));
    let said = text(&result);
    assert!(said.contains("integer") && said.contains("two"), "{said}");
    client.cancel().await.ok();
}

#[test]
fn one_function_serves_several_sets() {
    let first: AppToolSet<()> = tool_set![add];
    let second: AppToolSet<()> = tool_set![echo, add];
    use mcpgen::ToolSet;
    assert_eq!(first.tools().len(), 1);
    assert_eq!(
        second.tools().iter().map(|t| t.name).collect::<Vec<_>>(),
        ["echo", "add"]
    );
    assert_eq!(
        second.tool("add").map(|t| t.required_scope),
        Some(Some("math"))
    );
}

/// Two terms.
#[derive(Debug, serde::Deserialize, JsonSchema)]
#[schemars(crate = "mcpgen::schemars")]
#[serde(deny_unknown_fields)]
struct Terms {
    /// The first term.
    a: i64,
    /// The second term.
    #[serde(default)]
    b: i64,
}

/// Adds two terms given as the tool's own arguments.
#[mcp_tool(read_only)]
fn sum(Args(terms): Args<Terms>) -> i64 {
    terms.a + terms.b
}

/// Multiplies two terms, the parameter marked as the whole arguments.
#[mcp_tool(read_only)]
async fn product(#[args] Terms { a, b }: Terms, ctx: &ToolContext) -> Result<i64, String> {
    ctx.request_id()
        .map(|_| a * b)
        .ok_or_else(|| "no request id".to_owned())
}

/// Adds `by` to the terms' sum, the terms flattened next to it.
#[mcp_tool(read_only)]
fn offset(#[serde(flatten)] terms: Terms2, by: i64) -> i64 {
    terms.a + terms.b + by
}

/// Two terms, for flattening (serde refuses unknown fields only at the top). The derive
/// imported as `mcpgen::schemars::JsonSchema` needs no `#[schemars(crate = …)]`.
#[derive(Debug, serde::Deserialize, JsonSchema)]
struct Terms2 {
    a: i64,
    b: i64,
}

/// Adds the terms of its nested `terms` argument.
#[mcp_tool(read_only)]
fn nested(terms: Terms2) -> i64 {
    terms.a + terms.b
}

/// A string as the whole arguments, which a server refuses.
#[mcp_tool]
fn shout(Args(text): Args<String>) -> String {
    text.to_uppercase()
}

#[tokio::test]
async fn a_tool_taking_one_struct_has_its_fields_as_arguments() {
    let set: AppToolSet<()> = tool_set![sum, product, offset, nested];
    let (client, _stop) = serve(vec![std::sync::Arc::new(set)]).await;
    let tools = client.list_all_tools().await.expect("tools/list");
    for name in ["sum", "product"] {
        let input = object(&tool(&tools, name).input_schema);
        assert_eq!(input["type"], "object", "{name}: {input}");
        assert_eq!(input["required"], json!(["a"]), "{name}: {input}");
        assert_eq!(
            input["properties"]["a"]["description"], "The first term.",
            "{name}: {input}"
        );
        assert_eq!(input["properties"]["b"]["default"], 0, "{name}: {input}");
        assert_eq!(input["additionalProperties"], false, "{name}: {input}");
        assert!(input.get("title").is_none(), "{name}: {input}");
    }
    let flat = object(&tool(&tools, "offset").input_schema);
    let mut required: Vec<&str> = flat["required"]
        .as_array()
        .expect("required")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    required.sort_unstable();
    assert_eq!(required, ["a", "b", "by"], "{flat}");
    let nested = object(&tool(&tools, "nested").input_schema);
    assert_eq!(nested["required"], json!(["terms"]), "{nested}");

    let result = call(&client, "sum", json!({"a": 2, "b": 40})).await;
    assert_eq!(result.structured_content, Some(json!({"result": 42})));
    let result = call(&client, "sum", json!({"a": 2})).await;
    assert_eq!(result.structured_content, Some(json!({"result": 2})));
    let result = call(&client, "product", json!({"a": 6, "b": 7})).await;
    assert_eq!(result.structured_content, Some(json!({"result": 42})));
    let result = call(&client, "offset", json!({"a": 1, "b": 2, "by": 39})).await;
    assert_eq!(result.structured_content, Some(json!({"result": 42})));
    let result = call(&client, "nested", json!({"terms": {"a": 40, "b": 2}})).await;
    assert_eq!(result.structured_content, Some(json!({"result": 42})));

    // The struct's own `deny_unknown_fields` refuses what it does not name.
    let mut args = Map::new();
    args.insert("a".into(), json!(1));
    args.insert("c".into(), json!(2));
    let refused = client
        .call_tool(rmcp::model::CallToolRequestParams::new("sum").with_arguments(args))
        .await
        .map(|r| text(&r))
        .unwrap_or_else(|e| e.to_string());
    assert!(
        refused.contains("/c") && refused.contains("unexpected"),
        "{refused}"
    );
    client.cancel().await.ok();
}

#[test]
fn a_server_refuses_whole_arguments_that_are_not_an_object() {
    let set: AppToolSet<()> = tool_set![shout];
    let refused = Server::builder("shout", "0.1.0")
        .no_auth()
        .tool_set(set)
        .build()
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(
        refused.contains("tool `shout`") && refused.contains("\"string\""),
        "{refused}"
    );
}

/// A page of items.
#[derive(Serialize, JsonSchema)]
struct Page<T> {
    /// The items.
    items: Vec<T>,
    /// Where the next page starts.
    next: Option<String>,
}

/// Search settings, each with its default.
#[derive(serde::Deserialize, JsonSchema)]
#[serde(default)]
struct Settings {
    /// Most results.
    limit: u32,
    exact: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            limit: 20,
            exact: false,
        }
    }
}

#[test]
fn the_facade_derive_handles_generics_and_container_defaults() {
    let page = Value::from(mcpgen::schemars::schema_for!(Page<Terms2>));
    let title = page["title"].as_str().unwrap_or_default();
    assert!(title.starts_with("Page"), "{page}");
    assert_eq!(page["required"], json!(["items"]), "{page}");
    assert_eq!(
        page["properties"]["items"]["items"]["$ref"], "#/$defs/Terms2",
        "{page}"
    );
    assert_eq!(page["properties"]["items"]["description"], "The items.");

    let settings = Value::from(mcpgen::schemars::schema_for!(Settings));
    assert_eq!(settings["title"], "Settings", "{settings}");
    assert_eq!(settings["properties"]["limit"]["default"], 20, "{settings}");
    assert_eq!(
        settings["properties"]["exact"]["default"], false,
        "{settings}"
    );
    assert_eq!(
        settings["properties"]["limit"]["description"],
        "Most results."
    );
    assert!(settings.get("required").is_none(), "{settings}");
}
