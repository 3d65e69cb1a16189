//! Schema text as a tool table holds it: parsed into a JSON object, and checked against the
//! meta-schema of its draft without compiling a validator.

use jsonschema::Draft;
use rmcp::model::JsonObject;
use serde_json::Value;

/// `text` parsed as a JSON object; the error says what the text is instead.
pub(crate) fn parse_object(text: &str) -> Result<JsonObject, String> {
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(other) => Err(format!(
            "the schema must be a JSON object, found {}",
            mcpgen_core::json_kind(&other)
        )),
        Err(e) => Err(format!("the schema is not valid JSON: {e}")),
    }
}

/// The draft `schema` is written in: draft-07 when its `$schema` says so (the generator's
/// `draft-07` profile), else 2020-12.
pub(crate) fn draft_of(schema: &Value) -> Draft {
    match schema.get("$schema").and_then(Value::as_str) {
        Some(
            "http://json-schema.org/draft-07/schema#" | "http://json-schema.org/draft-07/schema",
        ) => Draft::Draft7,
        _ => Draft::Draft202012,
    }
}

/// Checks `schema` against the meta-schema of its draft, without compiling a validator. The
/// error says what is wrong with the schema.
pub(crate) fn check_schema(schema: &Value) -> Result<(), String> {
    let verdict = match draft_of(schema) {
        Draft::Draft7 => jsonschema::draft7::meta::validate(schema),
        _ => jsonschema::draft202012::meta::validate(schema),
    };
    verdict.map_err(|e| e.to_string())
}
