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

use rmcp::model::{JsonObject, Tool, ToolAnnotations as McpAnnotations};
use serde_json::{Value, json};

use super::catalog::{Catalog, Entry};
use super::full_schema::{Which, full_schema};
use super::pipeline;
use super::validate::ArgsValidator;
use crate::principal::Principal;
use crate::{DESCRIBE_TOOLS, ToolResult};

/// Name of the meta-tool that returns full tool definitions.
pub const DESCRIBE_TOOL: &str = DESCRIBE_TOOLS.name;

/// A meta-tool: its listing and the validator of its arguments.
pub(crate) struct MetaTool {
    pub(crate) listed: Tool,
    pub(crate) validator: Option<ArgsValidator>,
}

/// A meta-tool named `name` with `description` and the argument schema `schema`.
pub(crate) fn meta_tool(
    name: &'static str,
    description: String,
    schema: Value,
    read_only: bool,
) -> MetaTool {
    // The schemas are fixed and compile; were one not to, its arguments would go unchecked
    // here and be refused by the checks of the call.
    let validator = ArgsValidator::compile(&schema).ok();
    let mut listed = Tool::default();
    listed.name = Cow::Borrowed(name);
    listed.description = Some(Cow::Owned(description));
    listed.input_schema = Arc::new(match schema {
        Value::Object(map) => map,
        _ => JsonObject::new(),
    });
    listed.annotations = Some(McpAnnotations::from_raw(
        None,
        Some(read_only),
        Some(false),
        Some(read_only),
        Some(!read_only),
    ));
    MetaTool { listed, validator }
}

/// `describe_tools` with `description` (and the schema of [`DESCRIBE_TOOLS`]).
pub(crate) fn describe_tool(description: String) -> MetaTool {
    let schema = serde_json::from_str(DESCRIBE_TOOLS.input_schema).unwrap_or_default();
    meta_tool(DESCRIBE_TOOL, description, schema, true)
}

/// `describe_tools` as `all` mode lists it: [`DESCRIBE_TOOLS`].
pub(crate) fn all_mode_tool() -> MetaTool {
    describe_tool(DESCRIBE_TOOLS.description.to_owned())
}

/// The answer to `describe_tools` with `args` (already checked against its schema).
pub(crate) fn answer(catalog: &Catalog, principal: &Principal, args: &Value) -> ToolResult {
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
            Some(entry) => tools.push(definition(entry)),
            None => unknown.push(Value::String(pipeline::echoed(requested))),
        }
    }
    structured(json!({ "tools": tools, "unknown": unknown }))
}

/// A tool's full definition: its listing, with its own description and its full schemas.
pub(crate) fn definition(entry: &Entry) -> Value {
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
