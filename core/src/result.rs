//! What a tool call returns.

use serde_json::Value;

/// The result of one tool call, mirroring MCP's `CallToolResult`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ToolResult {
    /// Content blocks shown to the model.
    pub content: Vec<Content>,
    /// Structured JSON output conforming to the tool's `outputSchema`.
    pub structured_content: Option<Value>,
    /// Whether the call failed (the model sees the failure as the result).
    pub is_error: bool,
}

/// One content block of a tool result.
#[derive(Debug, Clone, PartialEq)]
pub enum Content {
    /// Plain text.
    Text(String),
    /// An image, base64-encoded.
    Image {
        /// Base64 data.
        data: String,
        /// MIME type, e.g. `image/png`.
        mime_type: String,
    },
    /// Audio, base64-encoded.
    Audio {
        /// Base64 data.
        data: String,
        /// MIME type, e.g. `audio/wav`.
        mime_type: String,
    },
    /// An embedded binary resource (e.g. a PDF an upstream returned), base64-encoded.
    Resource {
        /// A stable synthetic URI naming where the bytes came from, e.g.
        /// `mcpgen://response/getInvoicePdf`.
        uri: String,
        /// MIME type, e.g. `application/pdf`.
        mime_type: String,
        /// Base64 data.
        blob: String,
    },
    /// An embedded text resource, e.g. a document a tool produced.
    TextResource {
        /// The resource's URI, e.g. `file:///notes/today.md`.
        uri: String,
        /// MIME type, e.g. `text/markdown`.
        mime_type: String,
        /// The text itself.
        text: String,
    },
}

impl ToolResult {
    /// A successful result with one text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            content: vec![Content::Text(text.into())],
            structured_content: None,
            is_error: false,
        }
    }

    /// A successful result with these content blocks, for tools that return images, audio,
    /// resources or several blocks (`#[mcp_tool]` functions may return a `ToolResult`).
    pub fn content(content: Vec<Content>) -> Self {
        Self {
            content,
            ..Self::default()
        }
    }

    /// A failed result with one text block explaining the failure.
    pub fn error(text: impl Into<String>) -> Self {
        Self {
            content: vec![Content::Text(text.into())],
            structured_content: None,
            is_error: true,
        }
    }

    /// A successful JSON result: the JSON as text, and as structured content (wrapped as
    /// `{"result": value}` when `wrap` is set, matching the tool's `outputSchema`).
    pub fn json(value: Value, wrap: bool) -> Self {
        // The same compact text as `Display`, written straight into a byte buffer rather than
        // through `fmt::Write` a piece at a time (half the instructions on a typical answer).
        // Serialising a `Value` cannot fail: its map keys are strings.
        let text = serde_json::to_string(&value).unwrap_or_default();
        let structured = if wrap {
            let mut map = serde_json::Map::new();
            map.insert("result".to_owned(), value);
            Value::Object(map)
        } else {
            value
        };
        Self {
            content: vec![Content::Text(text)],
            structured_content: Some(structured),
            is_error: false,
        }
    }

    /// The text of all text blocks, joined by newlines.
    pub fn joined_text(&self) -> String {
        let mut out = String::new();
        for block in &self.content {
            if let Content::Text(t) = block {
                if !out.is_empty() {
                    out.push('\n');
                }
                out.push_str(t);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn json_text_is_the_compact_serialisation_of_the_value() {
        let values = [
            json!({"b": 1, "a": [true, null, -0.5, 1e300, 18446744073709551615u64]}),
            json!({"quote\"d": "line\nbreak\ttab \u{1} é 😀 </script>", "nested": {"x": {}}}),
            json!([]),
            json!("just a string"),
            json!(42),
        ];
        for value in values {
            let result = ToolResult::json(value.clone(), false);
            assert_eq!(result.joined_text(), value.to_string());
            assert_eq!(result.structured_content, Some(value.clone()));
            let wrapped = ToolResult::json(value.clone(), true);
            assert_eq!(wrapped.joined_text(), value.to_string());
            assert_eq!(wrapped.structured_content, Some(json!({ "result": value })));
        }
    }
}
