//! What `#[mcp_tool]` lets a tool say about its argument object as a whole:
//! `deny_unknown_arguments` closes it (`additionalProperties: false`, unknown arguments
//! refused), and `#[schemars(...)]` on the function adds keywords at the schema's root. Checked
//! on the definitions and through a server on loopback driven by rmcp's client.

use crate::support;

use support::{call, text};

use std::sync::Arc;

use mcpgen::server::Server;
use mcpgen::{AppToolSet, ToolDef, ToolSet};
use mcpgen::{mcp_tool, mcp_tools, tool_set};
use rmcp::service::{RoleClient, RunningService};
use serde_json::{Value, json};
use tokio::sync::oneshot;

/// Sends a note by phone or by email; at least one of the two is needed.
#[mcp_tool(read_only, deny_unknown_arguments)]
#[schemars(extend("anyOf" = [{"required": ["phone"]}, {"required": ["email"]}]))]
fn notify(phone: Option<String>, email: Option<String>) -> Result<String, String> {
    Ok(format!(
        "sent to {}",
        phone.or(email).unwrap_or_else(|| "nobody".to_owned())
    ))
}

/// Says hello; arguments it does not take are ignored.
#[mcp_tool(read_only)]
fn hello(name: String) -> String {
    format!("hello {name}")
}

/// Takes nothing, and refuses anything.
#[mcp_tool(read_only, deny_unknown_arguments)]
fn ping() -> String {
    "pong".to_owned()
}

/// Open on purpose: the option given as `= false`.
#[mcp_tool(read_only, deny_unknown_arguments = false)]
fn open(text: String) -> String {
    text
}

struct Counter;

#[mcp_tools]
impl Counter {
    /// Counts the characters of `text`.
    #[mcp_tool(read_only, deny_unknown_arguments)]
    #[schemars(extend("x-example" = {"text": "abc"}))]
    fn count(&self, text: String) -> usize {
        text.chars().count()
    }
}

fn free() -> AppToolSet<()> {
    tool_set![notify, hello, ping, open]
}

fn input(set: &dyn ToolSet, name: &str) -> Value {
    let def: &ToolDef = set
        .tool(name)
        .unwrap_or_else(|| panic!("`{name}` is in the set"));
    serde_json::from_str(def.input_schema).expect("the input schema is JSON")
}

#[test]
fn deny_unknown_arguments_closes_the_argument_object() {
    let set = free();
    assert_eq!(input(&set, "notify")["additionalProperties"], json!(false));
    assert_eq!(input(&set, "ping")["additionalProperties"], json!(false));
    assert_eq!(input(&set, "ping")["type"], "object");
    assert!(input(&set, "hello").get("additionalProperties").is_none());
    assert!(input(&set, "open").get("additionalProperties").is_none());
    let counter = Counter.into_tool_set();
    assert_eq!(
        input(&counter, "count")["additionalProperties"],
        json!(false)
    );
}

#[test]
fn schemars_attributes_on_the_function_extend_the_root() {
    let notify = input(&free(), "notify");
    assert_eq!(
        notify["anyOf"],
        json!([{"required": ["phone"]}, {"required": ["email"]}])
    );
    // The parameters are still the properties.
    assert!(notify["properties"]["phone"].is_object(), "{notify}");
    assert!(notify["properties"]["email"].is_object(), "{notify}");
    let count = input(&Counter.into_tool_set(), "count");
    assert_eq!(count["x-example"], json!({"text": "abc"}));
}

/// Starts a server with the test's tools on loopback and connects rmcp's client.
async fn serve() -> (RunningService<RoleClient, ()>, oneshot::Sender<()>) {
    let server = Server::builder("schema-options", "0.1.0")
        .no_auth()
        .shared_tool_set(Arc::new(free()))
        .shared_tool_set(Arc::new(Counter.into_tool_set()))
        .build()
        .expect("the server builds");
    support::serve(server).await
}

#[tokio::test]
async fn a_closed_tool_refuses_unknown_arguments_and_an_open_one_ignores_them() {
    let (client, _stop) = serve().await;

    let result = call(&client, "notify", json!({"email": "a@example.org"})).await;
    assert_eq!(result.is_error, Some(false), "{}", text(&result));
    assert_eq!(text(&result), "sent to a@example.org");

    let result = call(
        &client,
        "notify",
        json!({"email": "a@example.org", "colour": "red"}),
    )
    .await;
    assert_eq!(result.is_error, Some(true));
    let said = text(&result);
    assert!(said.contains("/colour"), "the refusal names it: {said}");

    // The root keywords are enforced too: neither phone nor email.
    let result = call(&client, "notify", json!({})).await;
    assert_eq!(result.is_error, Some(true), "{}", text(&result));

    let result = call(&client, "ping", json!({"extra": 1})).await;
    assert_eq!(result.is_error, Some(true), "{}", text(&result));
    let result = call(&client, "ping", json!({})).await;
    assert_eq!(text(&result), "pong");

    let result = call(&client, "count", json!({"text": "abc", "x": 1})).await;
    assert_eq!(result.is_error, Some(true), "{}", text(&result));

    let result = call(&client, "hello", json!({"name": "Ada", "colour": "red"})).await;
    assert_eq!(result.is_error, Some(false), "{}", text(&result));
    assert_eq!(text(&result), "hello Ada");
    client.cancel().await.ok();
}
