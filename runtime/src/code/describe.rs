//! `describe_tools` in code mode: the full definitions search mode returns, each with the
//! tool's TypeScript declaration, what a program calls it by.

use serde_json::{Value, json};

use crate::principal::Principal;
use crate::server::for_code::{Catalog, definition, structured};
use crate::{ToolDef, ToolResult};

/// The answer to `describe_tools` with `args` (already checked against its schema).
pub(crate) fn describe(catalog: &Catalog, principal: &Principal, args: &Value) -> ToolResult {
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
            Some(entry) => {
                let mut tool = definition(entry);
                if let (Value::Object(map), Some(declaration)) = (&mut tool, declaration(entry.def))
                {
                    map.insert("declaration".to_owned(), Value::String(declaration));
                }
                tools.push(tool);
            }
            None => unknown.push(Value::String(crate::server::for_code::echoed(requested))),
        }
    }
    structured(json!({ "tools": tools, "unknown": unknown }))
}

/// The TypeScript declaration of `def`'s function in programs (`tools.NAME(args):
/// Promise<…>`, with its description as a doc comment), preceded by the named types it
/// reaches: compiled into the tool table by generation, or made from the tool's schemas for
/// tools that have none there (`#[mcp_tool]` tools).
pub(crate) fn declaration(def: &ToolDef) -> Option<String> {
    Some(mcpgen_core::typescript::declaration_for(def))
}
