//! `describe_tools` in code mode: the full definitions search mode returns, each with the
//! tool's TypeScript declaration, what a program calls it by.

use mcpgen_identity::Principal;
use serde_json::Value;

use crate::server::for_code::{Catalog, answer_with, definition};
use crate::{ToolDef, ToolResult};

/// The answer to `describe_tools` with `args` (already checked against its schema): search
/// mode's full definitions, each with the tool's `declaration`.
pub(crate) fn describe(catalog: &Catalog, principal: &Principal, args: &Value) -> ToolResult {
    answer_with(catalog, principal, args, |entry| {
        let mut tool = definition(entry);
        if let (Value::Object(map), Some(declaration)) = (&mut tool, declaration(entry.def)) {
            map.insert("declaration".to_owned(), Value::String(declaration));
        }
        tool
    })
}

/// The TypeScript declaration of `def`'s function in programs (`tools.NAME(args):
/// Promise<…>`, with its description as a doc comment), preceded by the named types it
/// reaches: compiled into the tool table by generation, or made from the tool's schemas for
/// tools that have none there (`#[mcp_tool]` tools).
pub(crate) fn declaration(def: &ToolDef) -> Option<String> {
    Some(mcpgen_core::typescript::declaration_for(def))
}
