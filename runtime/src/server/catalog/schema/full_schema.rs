//! A tool's full schemas, standing on their own.
//!
//! A generated crate holds each summarised tool's full schemas as roots whose `#/$defs/NAME`
//! references name definitions shared by all its tools ([`FullDefs`]), so that a definition
//! many tools reach is held once. [`full_schema`] puts a root together with the definitions it
//! reaches; the shared definitions are parsed once per process and kept.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use mcpgen_core::tool::{FullDefs, ToolDef, def_refs};
use rmcp::model::JsonObject;
use serde_json::Value;

use super::parse::{check_schema, parse_object};

/// Which of a tool's full schemas.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Which {
    /// The full input schema.
    Input,
    /// The full output schema.
    Output,
}

impl Which {
    fn root(self, def: &ToolDef) -> Option<&'static str> {
        match self {
            Self::Input => def.full_input_schema,
            Self::Output => def.full_output_schema,
        }
    }

    fn shared(self, defs: &FullDefs) -> &'static str {
        match self {
            Self::Input => defs.input,
            Self::Output => defs.output,
        }
    }
}

/// `def`'s full `which` schema with the shared definitions it reaches attached as `$defs`
/// (its own `$defs` win over shared ones of the same name); `None` when it has none.
pub(crate) fn full_schema(def: &ToolDef, which: Which) -> Option<Result<JsonObject, String>> {
    let root = which.root(def)?;
    Some(assemble(root, def.full_defs.map(|d| which.shared(d))))
}

/// Checks `def`'s full schemas without putting them together: each root against the
/// meta-schema, and the shared definitions once per process. The error names the schema.
pub(crate) fn check(def: &ToolDef) -> Result<(), (&'static str, String)> {
    for (which, name) in [(Which::Input, "full input"), (Which::Output, "full output")] {
        let Some(root) = which.root(def) else {
            continue;
        };
        let root = parse_object(root).map_err(|m| (name, m))?;
        check_schema(&Value::Object(root)).map_err(|m| (name, m))?;
        if let Some(defs) = def.full_defs {
            shared(which.shared(defs)).map_err(|m| (name, m))?;
        }
    }
    Ok(())
}

fn assemble(root: &str, shared_text: Option<&'static str>) -> Result<JsonObject, String> {
    let mut root = parse_object(root)?;
    let Some(shared_text) = shared_text else {
        return Ok(root);
    };
    let shared = shared(shared_text)?;
    let mut reached = match root.shift_remove("$defs") {
        Some(Value::Object(own)) => own,
        Some(other) => {
            root.insert("$defs".to_owned(), other);
            return Ok(root);
        }
        None => JsonObject::new(),
    };
    let mut queue = Vec::new();
    def_refs(&Value::Object(root.clone()), &mut queue);
    reached.values().for_each(|own| def_refs(own, &mut queue));
    while let Some(name) = queue.pop() {
        if reached.contains_key(&name) {
            continue;
        }
        if let Some(found) = shared.get(&name) {
            def_refs(found, &mut queue);
            reached.insert(name, found.clone());
        }
    }
    if !reached.is_empty() {
        root.insert("$defs".to_owned(), Value::Object(reached));
    }
    Ok(root)
}

type Parsed = Result<Arc<JsonObject>, String>;

/// The shared definitions `text`, parsed and checked against the meta-schema once.
fn shared(text: &'static str) -> Parsed {
    static CACHE: OnceLock<Mutex<HashMap<(usize, usize), Parsed>>> = OnceLock::new();
    let key = (text.as_ptr() as usize, text.len());
    let cache = CACHE.get_or_init(Mutex::default);
    if let Some(found) = cache.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
        return found.clone();
    }
    let parsed = parse_object(text)
        .map_err(|m| format!("shared definitions: {m}"))
        .and_then(|defs| {
            let mut whole = JsonObject::new();
            whole.insert("$defs".to_owned(), Value::Object(defs));
            check_schema(&Value::Object(whole.clone()))
                .map_err(|m| format!("shared definitions: {m}"))?;
            match whole.shift_remove("$defs") {
                Some(Value::Object(defs)) => Ok(Arc::new(defs)),
                _ => Ok(Arc::new(JsonObject::new())),
            }
        });
    cache
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(key, parsed.clone());
    parsed
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    static DEFS: FullDefs = FullDefs {
        input: r##"{"Item": {"type": "object", "properties": {"price": {"$ref": "#/$defs/Price"}}},
                   "Price": {"type": "string"}, "Unused": {"type": "integer"}}"##,
        output: r#"{"Item": {"type": "object"}}"#,
    };

    fn tool(root: &'static str) -> ToolDef {
        ToolDef::new("t", "d", r#"{"type":"object"}"#)
            .full_input_schema(root)
            .full_defs(&DEFS)
    }

    #[test]
    fn a_root_gets_exactly_the_definitions_it_reaches() {
        let def = tool(r##"{"type":"object","properties":{"items":{"$ref":"#/$defs/Item"}}}"##);
        let full = full_schema(&def, Which::Input)
            .expect("full")
            .expect("assembles");
        assert_eq!(
            Value::Object(full),
            json!({"type": "object", "properties": {"items": {"$ref": "#/$defs/Item"}},
                   "$defs": {
                       "Item": {"type": "object", "properties": {"price": {"$ref": "#/$defs/Price"}}},
                       "Price": {"type": "string"}}})
        );
        assert!(full_schema(&def, Which::Output).is_none());
    }

    #[test]
    fn a_tool_s_own_definition_wins_over_a_shared_one() {
        let def = tool(
            r##"{"properties":{"p":{"$ref":"#/$defs/Price"}},"$defs":{"Price":{"type":"number"}}}"##,
        );
        let full = full_schema(&def, Which::Input)
            .expect("full")
            .expect("assembles");
        assert_eq!(full["$defs"], json!({"Price": {"type": "number"}}));
    }

    #[test]
    fn broken_shared_definitions_are_named_not_a_panic() {
        static BROKEN: FullDefs = FullDefs {
            input: "{not json",
            output: r#"{"X": {"type": 12}}"#,
        };
        let def = ToolDef::new("t", "d", "{}")
            .full_input_schema(r##"{"$ref":"#/$defs/X"}"##)
            .full_output_schema(r##"{"$ref":"#/$defs/X"}"##)
            .full_defs(&BROKEN);
        let input = full_schema(&def, Which::Input).expect("full").unwrap_err();
        assert!(input.starts_with("shared definitions:"), "{input}");
        let output = full_schema(&def, Which::Output).expect("full").unwrap_err();
        assert!(output.starts_with("shared definitions:"), "{output}");
        assert_eq!(check(&def).unwrap_err().0, "full input");
    }
}
