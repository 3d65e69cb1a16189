//! [`ListedTool`]: a tool as a server listed it, in our own type, so that no public signature
//! of the client names rmcp's. The conversion from rmcp's `Tool` is here and nowhere else.
//! [`ToolOrigin`]: which server a tool comes from, for labels.

use std::sync::Arc;

use serde_json::{Map, Value};

use mcpgen_core::ToolAnnotations;

/// Where a tool comes from, for labels: `server/tool`.
pub trait ToolOrigin {
    /// The label of tool `name` (as calls name it), e.g. `weather/forecast`; `None` when the
    /// tool is unknown.
    fn origin(&self, name: &str) -> Option<String>;
}

/// One tool as a server's `tools/list` described it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ListedTool {
    /// The tool's name on its server.
    pub name: String,
    /// Human-readable title, if the server gave one.
    pub title: Option<String>,
    /// What the tool does, if the server said.
    pub description: Option<String>,
    /// JSON Schema of the arguments (`inputSchema`), as the server sent it.
    pub input_schema: Map<String, Value>,
    /// JSON Schema of the structured result (`outputSchema`), if the tool has one.
    pub output_schema: Option<Map<String, Value>>,
    /// Behaviour hints (read-only, destructive, idempotent, open world); all `None` when the
    /// server gave no annotations. Hints from an untrusted server are claims, not guarantees.
    pub annotations: ToolAnnotations,
}

impl ListedTool {
    /// rmcp's tool as ours.
    pub(crate) fn from_rmcp(tool: rmcp::model::Tool) -> Self {
        let annotations = tool
            .annotations
            .map(|a| ToolAnnotations {
                read_only_hint: a.read_only_hint,
                destructive_hint: a.destructive_hint,
                idempotent_hint: a.idempotent_hint,
                open_world_hint: a.open_world_hint,
            })
            .unwrap_or_default();
        Self {
            name: tool.name.into_owned(),
            title: tool.title,
            description: tool.description.map(|d| d.into_owned()),
            input_schema: Arc::unwrap_or_clone(tool.input_schema),
            output_schema: tool.output_schema.map(Arc::unwrap_or_clone),
            annotations,
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn every_field_of_a_listing_is_kept() {
        let wire = json!({
            "name": "files.read",
            "title": "Read a file",
            "description": "Reads one file.",
            "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}},
            "outputSchema": {"type": "object"},
            "annotations": {"readOnlyHint": true, "openWorldHint": false}
        });
        let tool: rmcp::model::Tool =
            serde_json::from_value(wire).unwrap_or_else(|e| panic!("{e}"));
        let object = |v: Value| v.as_object().cloned().unwrap_or_default();
        assert_eq!(
            ListedTool::from_rmcp(tool),
            ListedTool {
                name: "files.read".into(),
                title: Some("Read a file".into()),
                description: Some("Reads one file.".into()),
                input_schema: object(
                    json!({"type": "object", "properties": {"path": {"type": "string"}}})
                ),
                output_schema: Some(object(json!({"type": "object"}))),
                annotations: ToolAnnotations {
                    read_only_hint: Some(true),
                    destructive_hint: None,
                    idempotent_hint: None,
                    open_world_hint: Some(false),
                },
            }
        );
    }

    #[test]
    fn a_bare_listing_has_no_optional_parts() {
        let tool: rmcp::model::Tool =
            serde_json::from_value(json!({"name": "x", "inputSchema": {"type": "object"}}))
                .unwrap_or_else(|e| panic!("{e}"));
        let listed = ListedTool::from_rmcp(tool);
        assert_eq!(listed.name, "x");
        assert!(listed.title.is_none() && listed.description.is_none());
        assert!(listed.output_schema.is_none());
        assert_eq!(listed.annotations, ToolAnnotations::default());
    }
}
