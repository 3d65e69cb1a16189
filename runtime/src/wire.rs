//! Our tool-result content as rmcp's protocol model: the one place the shared model (from
//! `mcpgen-core`) meets the wire types.

use mcpgen_core::Content;

/// A content block as MCP sends it (in tool results and prompt messages).
pub(crate) fn content_block(content: Content) -> rmcp::model::ContentBlock {
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
pub(crate) fn call_tool_result(result: mcpgen_core::ToolResult) -> rmcp::model::CallToolResult {
    let content = result.content.into_iter().map(content_block).collect();
    let mut mapped = if result.is_error {
        rmcp::model::CallToolResult::error(content)
    } else {
        rmcp::model::CallToolResult::success(content)
    };
    mapped.structured_content = result.structured_content;
    mapped
}
