//! Views (MCP Apps) of `#[mcp_tool]` tools: a tool with an output type gets one, derived from
//! its output schema when the server starts; `ui = "none"` opts out. Served over Streamable
//! HTTP on loopback and read with rmcp's client, declaring the extension or not.

use crate::support;

use std::time::Duration;

use mcpgen::schemars::JsonSchema;
use mcpgen::server::Server;
use mcpgen::{AppToolSet, mcp_tool, tool_set};
use rmcp::ServiceExt;
use rmcp::model::{ClientCapabilities, ClientConfig, ReadResourceRequestParams, ResourceContents};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use serde::Serialize;
use serde_json::{Value, json};

const UI: &str = "io.modelcontextprotocol/ui";

/// A chat room.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[schemars(crate = "mcpgen::schemars")]
struct Room {
    /// The room's unique id.
    id: u32,
    /// What the room is called.
    name: String,
    /// Who is in it.
    members: Vec<Member>,
}

/// Someone in a room.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[schemars(crate = "mcpgen::schemars")]
struct Member {
    /// Their name.
    name: String,
    /// Their part in the room.
    role: Role,
}

/// A member's part.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[schemars(crate = "mcpgen::schemars")]
#[serde(rename_all = "lowercase")]
enum Role {
    Owner,
    Guest,
}

fn room(id: u32) -> Room {
    Room {
        id,
        name: format!("room {id}"),
        members: vec![
            Member {
                name: "ada".into(),
                role: Role::Owner,
            },
            Member {
                name: "grace".into(),
                role: Role::Guest,
            },
        ],
    }
}

/// Lists the rooms.
#[mcp_tool(read_only)]
fn list_rooms() -> Vec<Room> {
    vec![room(1), room(2)]
}

/// Looks one room up.
#[mcp_tool(read_only)]
fn get_room(id: u32) -> Room {
    room(id)
}

/// Looks one room up, for models only.
#[mcp_tool(read_only, ui = "none")]
fn get_room_quietly(id: u32) -> Room {
    room(id)
}

/// Counts the rooms, as a card.
#[mcp_tool(read_only, ui = "card")]
fn room_names() -> Vec<String> {
    vec!["room 1".into()]
}

/// Says nothing back.
#[mcp_tool]
fn ping() {}

async fn client(
    ui: bool,
) -> (
    RunningService<RoleClient, ClientConfig>,
    tokio::sync::oneshot::Sender<()>,
) {
    let set: AppToolSet<()> = tool_set![list_rooms, get_room, get_room_quietly, room_names, ping];
    let server = Server::builder("rooms", "0.1.0")
        .no_auth()
        .tool_set(set)
        .build()
        .expect("the server builds");
    let (addr, stop) = support::listen(server).await;
    let mut capabilities = ClientCapabilities::default();
    if ui {
        let mut extensions = rmcp::model::ExtensionCapabilities::new();
        extensions.insert(UI.to_owned(), Default::default());
        capabilities.extensions = Some(extensions);
    }
    let mut info = ClientConfig::default();
    info.capabilities = capabilities;
    let transport = StreamableHttpClientTransport::from_uri(format!("http://{addr}/mcp"));
    let client = tokio::time::timeout(Duration::from_secs(10), info.serve(transport))
        .await
        .expect("the client connects in time")
        .expect("the client connects");
    (client, stop)
}

/// The layout JSON inside a view's document.
fn layout_of(html: &str) -> Value {
    let start = html
        .find("id=\"mcpgen-layout\">")
        .map(|i| i + "id=\"mcpgen-layout\">".len())
        .expect("a layout block");
    let end = start + html[start..].find("</script>").expect("its end");
    serde_json::from_str(&html[start..end]).expect("the layout is JSON")
}

#[tokio::test]
async fn app_tools_with_an_output_type_get_views_unless_they_opt_out() {
    let (client, _stop) = client(true).await;
    let tools = client.list_all_tools().await.expect("lists");
    let uri = |name: &str| {
        let tool = tools.iter().find(|t| t.name == name).expect("listed");
        tool.meta
            .as_ref()
            .and_then(|m| m.get("ui"))
            .and_then(|ui| ui.get("resourceUri"))
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    assert_eq!(uri("list_rooms").as_deref(), Some("ui://rooms/list_rooms"));
    assert_eq!(uri("get_room").as_deref(), Some("ui://rooms/get_room"));
    assert_eq!(uri("room_names").as_deref(), Some("ui://rooms/room_names"));
    assert_eq!(uri("get_room_quietly"), None, "ui = \"none\"");
    assert_eq!(uri("ping"), None, "no output type");

    let read = |uri: &'static str| {
        let client = &client;
        async move {
            let read = client
                .read_resource(ReadResourceRequestParams::new(uri))
                .await
                .expect("the view is served");
            match read.contents.into_iter().next() {
                Some(ResourceContents::TextResourceContents {
                    mime_type,
                    text,
                    meta,
                    ..
                }) => {
                    assert_eq!(mime_type.as_deref(), Some("text/html;profile=mcp-app"));
                    // The resource tells the host the document's policy: no origin of any kind.
                    let empty: Vec<Value> = Vec::new();
                    assert_eq!(
                        json!(meta),
                        json!({"ui": {"prefersBorder": true, "csp": {
                            "connectDomains": empty, "resourceDomains": empty,
                            "frameDomains": empty, "baseUriDomains": empty
                        }}})
                    );
                    layout_of(&text)
                }
                other => panic!("text contents expected, got {other:?}"),
            }
        }
    };
    // A `Vec` is wrapped as `{"result": [...]}`: a table of its items.
    let list = read("ui://rooms/list_rooms").await;
    assert_eq!(list["kind"], "table");
    assert_eq!(list["path"], json!(["result"]));
    let columns: Vec<&str> = list["fields"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|f| f["key"].as_str())
        .collect();
    assert_eq!(columns, ["id", "name", "members"]);
    // A struct is a card; its `Vec` of structs a sub-table, its enum a badge.
    let card = read("ui://rooms/get_room").await;
    assert_eq!(card["kind"], "card");
    assert_eq!(card["fields"][2]["kind"], "table");
    assert_eq!(card["fields"][2]["fields"][1]["kind"], "enum");
    assert_eq!(read("ui://rooms/room_names").await["kind"], "card");
    let missing = client
        .read_resource(ReadResourceRequestParams::new(
            "ui://rooms/get_room_quietly",
        ))
        .await;
    assert!(missing.is_err(), "{missing:?}");
}

#[tokio::test]
async fn clients_without_the_extension_see_no_view() {
    let (client, _stop) = client(false).await;
    let tools = client.list_all_tools().await.expect("lists");
    assert!(tools.iter().all(|t| t.meta.is_none()), "{tools:?}");
    let server = client.peer_info().expect("server info");
    let extensions = server.capabilities.extensions.clone().unwrap_or_default();
    assert!(
        extensions.contains_key(UI),
        "the server declares the extension"
    );
}
