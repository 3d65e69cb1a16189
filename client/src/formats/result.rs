//! A tool result as the text a model reads.

use mcpgen_core::{Content, ToolResult};

/// How many bytes `base64` decodes to (without decoding it).
fn decoded_len(base64: &str) -> usize {
    let trimmed = base64.trim_end_matches('=');
    let len = trimmed.bytes().filter(|b| !b.is_ascii_whitespace()).count();
    len * 3 / 4
}

/// A tool result as text for a model: text blocks joined by newlines; images and resources
/// described by MIME type and size; structured content as JSON when there is no other
/// content; a failed result starts with `Error: `.
pub fn result_text(result: &ToolResult) -> String {
    let mut parts = Vec::with_capacity(result.content.len());
    for block in &result.content {
        parts.push(match block {
            Content::Text(t) => t.clone(),
            Content::Image { data, mime_type } => {
                format!("[image: {mime_type}, {} bytes]", decoded_len(data))
            }
            Content::Audio { data, mime_type } => {
                format!("[audio: {mime_type}, {} bytes]", decoded_len(data))
            }
            Content::Resource {
                uri,
                mime_type,
                blob,
            } => format!("[resource {uri}: {mime_type}, {} bytes]", decoded_len(blob)),
            Content::TextResource {
                uri,
                mime_type,
                text,
            } => format!("[resource {uri}: {mime_type}]\n{text}"),
        });
    }
    let mut text = parts.join("\n");
    if parts.is_empty() {
        text = match &result.structured_content {
            Some(v) => v.to_string(),
            None => "(no content)".to_owned(),
        };
    }
    if result.is_error {
        format!("Error: {text}")
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn result_text_describes_binary_content_and_marks_errors() {
        let result = ToolResult {
            content: vec![
                Content::Text("Here it is".into()),
                Content::Image {
                    data: "iVBORw0KGgo=".into(), // 8 bytes
                    mime_type: "image/png".into(),
                },
                Content::Resource {
                    uri: "mcpgen://response/getInvoicePdf".into(),
                    mime_type: "application/pdf".into(),
                    blob: "JVBERi0xLjQK".into(), // 9 bytes
                },
            ],
            ..ToolResult::default()
        };
        assert_eq!(
            result_text(&result),
            "Here it is\n[image: image/png, 8 bytes]\n[resource mcpgen://response/getInvoicePdf: application/pdf, 9 bytes]"
        );
        let structured = ToolResult {
            structured_content: Some(json!({"a": 1})),
            ..ToolResult::default()
        };
        assert_eq!(result_text(&structured), r#"{"a":1}"#);
        assert_eq!(result_text(&ToolResult::default()), "(no content)");
        assert_eq!(result_text(&ToolResult::error("boom")), "Error: boom");
    }
}
