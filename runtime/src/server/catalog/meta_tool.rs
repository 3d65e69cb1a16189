//! Meta-tools: tools of the server itself (`describe_tools`, and in search mode
//! `search_tools` and `call_tool`), each a listing and a validator of its arguments.

use std::borrow::Cow;
use std::sync::Arc;

use mcpgen_core::tool::DESCRIBE_TOOLS;
use rmcp::model::{JsonObject, Tool, ToolAnnotations as McpAnnotations};
use serde_json::Value;

use super::schema::validate::ArgsValidator;

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
