//! Descriptions: of the tool (from the operation's summary and description) and of argument
//! schemas (from the parameter's description, deprecation and example).

use serde_json::{Value, json};

use crate::budget;
use crate::spec::Operation;

/// Adds the parameter's description, deprecation and example to its schema.
pub(super) fn annotate(
    schema: &mut Value,
    description: Option<&str>,
    deprecated: bool,
    example: Option<&Value>,
) {
    let Value::Object(map) = schema else {
        if let Some(d) = description {
            *schema = json!({ "description": d });
        }
        return;
    };
    if let Some(d) = description {
        map.entry("description").or_insert_with(|| json!(d));
    }
    if deprecated {
        map.insert("deprecated".into(), json!(true));
    }
    if let Some(e) = example {
        map.entry("examples").or_insert_with(|| json!([e]));
    }
}

/// Summary and description joined, else `METHOD path`. With a `limit` (characters; `0`: none),
/// the first paragraph of the description (the summary when there is none; the title carries
/// the summary), markup stripped and cut to the limit by [`budget::tool_description`].
pub(super) fn operation_description(op: &Operation, limit: usize) -> String {
    if limit > 0 {
        let trimmed = [op.description.as_deref(), op.summary.as_deref()]
            .into_iter()
            .flatten()
            .map(|text| budget::tool_description(text, limit))
            .find(|text| !text.is_empty());
        if let Some(trimmed) = trimmed {
            return trimmed;
        }
    }
    let parts: Vec<&str> = [op.summary.as_deref(), op.description.as_deref()]
        .into_iter()
        .flatten()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    let mut parts = parts;
    parts.dedup();
    if parts.is_empty() {
        format!("{} {}", op.method.to_ascii_uppercase(), op.path)
    } else {
        parts.join("\n\n")
    }
}
