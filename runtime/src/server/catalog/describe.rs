//! `describe_tools`: the full definitions of named tools, with the full schemas a generated
//! tool keeps when the schemas `tools/list` shows had nested fields summarised to fit a
//! budget.
//!
//! Search mode always lists it. In `all` mode it is listed next to the tools when at least one
//! served tool is summarised (unless turned off), and each summarised tool's description says
//! so ([`crate::SUMMARISED_NOTE`]). A principal is described exactly the tools it may call; a
//! hidden tool is reported like an unknown one.

use std::borrow::Cow;
use std::sync::Arc;

use mcpgen_core::result::ToolResult;
use mcpgen_identity::Principal;
use serde_json::{Value, json};

use super::echo::echoed;
use super::schema::full_schema::{Which, full_schema};
use super::table::{Catalog, Entry};

/// The answer to `describe_tools` with `args` (already checked against its schema).
pub(crate) fn answer(catalog: &Catalog, principal: &Principal, args: &Value) -> ToolResult {
    answer_with(catalog, principal, args, definition)
}

/// The answer to `describe_tools` in code mode: search mode's full definitions, each with the
/// tool's TypeScript `declaration`, what a program calls it by (`tools.NAME(args):
/// Promise<…>`, with its description as a doc comment, after the named types it reaches):
/// compiled into the tool table by generation, or made from the tool's schemas for tools that
/// have none there (`#[mcp_tool]` tools).
#[cfg(feature = "code-mode")]
pub(crate) fn answer_declared(
    catalog: &Catalog,
    principal: &Principal,
    args: &Value,
) -> ToolResult {
    answer_with(catalog, principal, args, |entry| {
        let mut tool = definition(entry);
        if let Value::Object(map) = &mut tool {
            let declaration = mcpgen_core::typescript::declaration_for(entry.def);
            map.insert("declaration".to_owned(), Value::String(declaration));
        }
        tool
    })
}

/// The answer to `describe_tools`, each tool the principal may call described by `define`
/// (code mode adds the tool's TypeScript declaration to its [`definition`]).
fn answer_with(
    catalog: &Catalog,
    principal: &Principal,
    args: &Value,
    define: impl Fn(&Entry) -> Value,
) -> ToolResult {
    let mut tools = Vec::new();
    let mut unknown = Vec::new();
    for requested in args
        .get("names")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        match catalog.get(requested).filter(|e| principal.may_call(e.def)) {
            Some(entry) => tools.push(define(entry)),
            None => unknown.push(Value::String(echoed(requested))),
        }
    }
    structured(json!({ "tools": tools, "unknown": unknown }))
}

/// A tool's full definition: its listing, with its own description and its full schemas.
fn definition(entry: &Entry) -> Value {
    let mut tool = entry.listed.clone();
    tool.description = Some(Cow::Borrowed(entry.def.description));
    // The catalog checked both at start-up; they are put together only when asked for.
    if let Some(Ok(schema)) = full_schema(entry.def, Which::Input) {
        tool.input_schema = Arc::new(schema);
    }
    if let Some(Ok(schema)) = full_schema(entry.def, Which::Output) {
        tool.output_schema = Some(Arc::new(schema));
    }
    serde_json::to_value(&tool).unwrap_or_default()
}

/// A result carrying `value` as structured content and as JSON text.
pub(crate) fn structured(value: Value) -> ToolResult {
    ToolResult::json(value, false)
}
