//! Our tool-result content as rmcp's protocol model: the one place the shared model (from
//! `mcpgen-core`) meets the wire types. Also the listing of a meta-tool (a tool of the server
//! itself), which the server (`server/catalog/meta_tool.rs`) and code mode (`code/listing.rs`)
//! both list.

use std::borrow::Cow;
use std::sync::Arc;

use mcpgen_core::Content;
use mcpgen_core::tool::DESCRIBE_TOOLS;
use rmcp::model::{JsonObject, Tool, ToolAnnotations as McpAnnotations};
use serde_json::Value;

/// The listing of a meta-tool named `name` with `description` and the argument schema
/// `schema`: read-only (and idempotent) or not, never destructive to what it reads, closed
/// world when read-only.
#[doc(hidden)]
pub fn meta_listing(
    name: &'static str,
    description: String,
    schema: Value,
    read_only: bool,
) -> Tool {
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
    listed
}

/// The listing of `describe_tools` with `description` (and the schema of [`DESCRIBE_TOOLS`]).
#[doc(hidden)]
pub fn describe_listing(description: String) -> Tool {
    let schema = serde_json::from_str(DESCRIBE_TOOLS.input_schema).unwrap_or_default();
    meta_listing(DESCRIBE_TOOLS.name, description, schema, true)
}

/// A content block as MCP sends it (in tool results and prompt messages).
#[doc(hidden)]
pub fn content_block(content: Content) -> rmcp::model::ContentBlock {
    use rmcp::model::{ContentBlock, ResourceContents};
    match content {
        Content::Text(text) => ContentBlock::text(text),
        Content::Image { data, mime_type } => ContentBlock::image(data, mime_type),
        Content::Audio { data, mime_type } => ContentBlock::audio(data, mime_type),
        Content::Resource {
            uri,
            mime_type,
            blob,
        } => ContentBlock::resource(ResourceContents::blob(blob, uri).with_mime_type(mime_type)),
        Content::TextResource {
            uri,
            mime_type,
            text,
        } => ContentBlock::resource(ResourceContents::text(text, uri).with_mime_type(mime_type)),
    }
}

/// Maps our result to rmcp's.
#[doc(hidden)]
pub fn call_tool_result(result: mcpgen_core::ToolResult) -> rmcp::model::CallToolResult {
    let content = result.content.into_iter().map(content_block).collect();
    let mut mapped = if result.is_error {
        rmcp::model::CallToolResult::error(content)
    } else {
        rmcp::model::CallToolResult::success(content)
    };
    mapped.structured_content = result.structured_content;
    mapped
}
