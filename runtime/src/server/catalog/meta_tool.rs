//! Meta-tools: tools of the server itself (`describe_tools`, and in search mode
//! `search_tools` and `call_tool`), each a listing and a validator of its arguments.

use mcpgen_core::tool::DESCRIBE_TOOLS;
use rmcp::model::Tool;
use serde_json::Value;

use super::schema::validate::ArgsValidator;
use mcpgen_contract::wire::{describe_listing, meta_listing};

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
    listed_tool(meta_listing(name, description, schema, read_only))
}

/// The meta-tool `listed` lists, with the validator of its input schema.
pub(crate) fn listed_tool(listed: Tool) -> MetaTool {
    // The schemas are fixed and compile; were one not to, its arguments would go unchecked
    // here and be refused by the checks of the call.
    let schema = Value::Object(listed.input_schema.as_ref().clone());
    let validator = ArgsValidator::compile(&schema).ok();
    MetaTool { listed, validator }
}

/// `describe_tools` with `description` (and the schema of [`DESCRIBE_TOOLS`]).
pub(crate) fn describe_tool(description: String) -> MetaTool {
    listed_tool(describe_listing(description))
}

/// `describe_tools` as `all` mode lists it: [`DESCRIBE_TOOLS`].
pub(crate) fn all_mode_tool() -> MetaTool {
    describe_tool(DESCRIBE_TOOLS.description.to_owned())
}
