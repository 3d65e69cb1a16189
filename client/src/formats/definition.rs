//! [`ToolDefinition`]: one tool as a model sees it, from an MCP listing or a local tool set.

use serde_json::{Map, Value, json};

use crate::tool::ListedTool;

/// One tool as a model sees it: name, description, input schema.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolDefinition {
    /// The name calls use (for a registry, the possibly server-qualified name).
    pub name: String,
    /// What the tool does; empty when the server gave none.
    pub description: String,
    /// JSON Schema of the arguments (always an object schema).
    pub input_schema: Map<String, Value>,
}

impl ToolDefinition {
    /// The definition of an MCP tool as a server listed it, under `name`.
    pub fn from_mcp(name: impl Into<String>, tool: &ListedTool) -> Self {
        let mut input_schema = tool.input_schema.clone();
        if !input_schema.contains_key("type") {
            input_schema.insert("type".to_owned(), json!("object"));
        }
        Self {
            name: name.into(),
            description: tool.description.as_deref().unwrap_or_default().to_owned(),
            input_schema,
        }
    }

    /// The definition of a tool of a local tool set. An input schema that does not parse as a
    /// JSON object becomes `{"type":"object"}`.
    pub fn from_def(def: &mcpgen_core::ToolDef) -> Self {
        let input_schema = match serde_json::from_str::<Value>(def.input_schema) {
            Ok(Value::Object(map)) => map,
            _ => {
                let mut map = Map::new();
                map.insert("type".to_owned(), json!("object"));
                map
            }
        };
        Self {
            name: def.name.to_owned(),
            description: def.description.to_owned(),
            input_schema,
        }
    }
}
