//! Output schemas that real APIs keep.
//!
//! Official MCP clients validate a result's `structuredContent` against the tool's advertised
//! `outputSchema` and reject any mismatch. Real APIs drift from their documents: they leave
//! out fields the document marks `required`, add fields it does not have, return `null` where
//! it documents a string, and grow enums. The schema a server advertises is therefore the
//! documented one made tolerant of exactly that drift, while keeping the shape (types,
//! properties, items, descriptions) a model reads:
//!
//! - `required`, `additionalProperties: false` and `unevaluatedProperties: false` are dropped;
//! - every property also accepts `null`;
//! - `oneOf` becomes `anyOf` (branches without `required` overlap, and `oneOf` would then fail
//!   on data that fits two of them);
//! - validation-only keywords (`enum`, `const`, `pattern`, length, range and count limits) are
//!   dropped; an enum's values move into the description so the model still sees them;
//! - `not` and `if` subschemas stay as documented, so that relaxing never rejects data the
//!   documented schema accepts.
//!
//! The documented schema is kept beside it for `strict` servers, which report any mismatch.

use serde_json::{Map, Value, json};

use crate::keywords;

/// Keywords that only constrain values; dropped from advertised output schemas.
const VALIDATION_ONLY: &[&str] = &[
    "required",
    "pattern",
    "minLength",
    "maxLength",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minContains",
    "maxContains",
    "minProperties",
    "maxProperties",
    "dependentRequired",
];

/// The tolerant form of a documented output schema (see the module documentation). The root
/// keeps its type (an `outputSchema` is an object), every property below it accepts `null`.
pub fn tolerant_output(documented: &Value) -> Value {
    let mut schema = documented.clone();
    relax(&mut schema);
    schema
}

/// Relaxes one schema node in place, and everything below it.
fn relax(schema: &mut Value) {
    let Value::Object(map) = schema else {
        return;
    };
    for key in VALIDATION_ONLY {
        map.remove(*key);
    }
    for key in ["additionalProperties", "unevaluatedProperties"] {
        if map.get(key) == Some(&Value::Bool(false)) {
            map.remove(key);
        }
    }
    move_enum_into_description(map);
    if let Some(one_of) = map.remove("oneOf") {
        match map.get_mut("anyOf") {
            // Both present: the node must match one of each; keep both as `anyOf` under allOf.
            Some(_) => {
                let all_of = map
                    .entry("allOf")
                    .or_insert_with(|| Value::Array(Vec::new()));
                if let Value::Array(list) = all_of {
                    list.push(json!({ "anyOf": one_of }));
                }
            }
            None => {
                map.insert("anyOf".to_owned(), one_of);
            }
        }
    }
    // `not` and `if` are left as documented: relaxing what `not` excludes would reject more,
    // and relaxing an `if` would send documented data to the other branch.
    for key in keywords::SUBSCHEMA {
        if matches!(*key, "not" | "if") {
            continue;
        }
        if let Some(sub) = map.get_mut(*key) {
            relax(sub);
        }
    }
    for key in keywords::SUBSCHEMA_LIST {
        if let Some(Value::Array(list)) = map.get_mut(*key) {
            list.iter_mut().for_each(relax);
        }
    }
    for key in keywords::SUBSCHEMA_MAP {
        if let Some(Value::Object(subs)) = map.get_mut(*key) {
            for sub in subs.values_mut() {
                relax(sub);
            }
        }
    }
    if let Some(Value::Object(properties)) = map.get_mut("properties") {
        properties.values_mut().for_each(accept_null);
    }
}

/// `enum` and `const` constrain values; their values go into the description instead.
fn move_enum_into_description(map: &mut Map<String, Value>) {
    let values: Vec<Value> = match (map.remove("enum"), map.remove("const")) {
        (Some(Value::Array(values)), _) => values,
        (_, Some(value)) => vec![value],
        _ => return,
    };
    let listed: Vec<String> = values
        .iter()
        .filter(|v| !v.is_null())
        .map(|v| match v {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        })
        .collect();
    if listed.is_empty() {
        return;
    }
    let note = format!("Documented values: {}.", listed.join(", "));
    let description = match map.get("description").and_then(Value::as_str) {
        Some(text) if !text.is_empty() => format!("{text} {note}"),
        _ => note,
    };
    map.insert("description".to_owned(), Value::String(description));
}

/// Makes a (property) schema also accept `null`.
fn accept_null(schema: &mut Value) {
    let Value::Object(map) = schema else {
        // `true` accepts null already; `false` is kept: it documents that the field is absent.
        return;
    };
    match map.get_mut("type") {
        Some(Value::String(name)) => {
            if name != "null" {
                let name = std::mem::take(name);
                map.insert("type".to_owned(), json!([name, "null"]));
            }
            return;
        }
        Some(Value::Array(names)) => {
            if !names.iter().any(|n| n == "null") {
                names.push(json!("null"));
            }
            return;
        }
        _ => {}
    }
    if map.is_empty() || is_annotation_only(map) {
        return;
    }
    // `$ref`, `anyOf`, `allOf`, ...: wrap, keeping the annotations on the outside.
    let mut outer = Map::new();
    for key in ["title", "description", "readOnly", "deprecated", "examples"] {
        if let Some(value) = map.remove(key) {
            outer.insert(key.to_owned(), value);
        }
    }
    let inner = Value::Object(std::mem::take(map));
    outer.insert("anyOf".to_owned(), json!([inner, {"type": "null"}]));
    *map = outer;
}

/// A schema with only annotations accepts any value, `null` included.
fn is_annotation_only(map: &Map<String, Value>) -> bool {
    map.keys().all(|k| {
        matches!(
            k.as_str(),
            "title"
                | "description"
                | "readOnly"
                | "writeOnly"
                | "deprecated"
                | "examples"
                | "default"
                | "format"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn required_extra_and_null_are_tolerated_and_the_shape_stays() {
        let documented = json!({
            "type": "object",
            "required": ["prompts"],
            "additionalProperties": false,
            "properties": {
                "prompts": {"type": "array", "items": {"$ref": "#/$defs/Prompt"}}
            },
            "$defs": {
                "Prompt": {
                    "type": "object",
                    "required": ["id", "prompt"],
                    "properties": {
                        "id": {"type": "integer", "minimum": 1},
                        "prompt": {"type": "string", "description": "Text", "maxLength": 10},
                        "kind": {"type": "string", "enum": ["a", "b"]},
                        "owner": {"$ref": "#/$defs/Owner", "description": "Who"},
                        "any": {"description": "anything"}
                    }
                },
                "Owner": {"oneOf": [{"type": "object", "properties": {"x": {"type": "string"}}}, {"type": "string"}]}
            }
        });
        let tolerant = tolerant_output(&documented);
        assert_eq!(
            tolerant,
            json!({
                "type": "object",
                "properties": {
                    "prompts": {"type": ["array", "null"], "items": {"$ref": "#/$defs/Prompt"}}
                },
                "$defs": {
                    "Prompt": {
                        "type": "object",
                        "properties": {
                            "id": {"type": ["integer", "null"]},
                            "prompt": {"type": ["string", "null"], "description": "Text"},
                            "kind": {"type": ["string", "null"], "description": "Documented values: a, b."},
                            "owner": {"description": "Who", "anyOf": [{"$ref": "#/$defs/Owner"}, {"type": "null"}]},
                            "any": {"description": "anything"}
                        }
                    },
                    "Owner": {"anyOf": [{"type": "object", "properties": {"x": {"type": ["string", "null"]}}}, {"type": "string"}]}
                }
            })
        );
    }

    #[test]
    fn one_of_beside_any_of_keeps_both_constraints() {
        let tolerant = tolerant_output(&json!({
            "type": "object",
            "anyOf": [{"type": "object"}],
            "oneOf": [{"type": "object"}, {"type": "object"}]
        }));
        assert_eq!(
            tolerant,
            json!({
                "type": "object",
                "anyOf": [{"type": "object"}],
                "allOf": [{"anyOf": [{"type": "object"}, {"type": "object"}]}]
            })
        );
    }

    #[test]
    fn what_not_excludes_and_if_conditions_stay_as_documented() {
        // What the `output_check` fuzz target checks: relaxing the inside of `not` would reject
        // `"ab"`, which the documented schema accepts. Each property is wrapped to accept null.
        let documented = json!({
            "type": "object",
            "properties": {
                "a": {"not": {"type": "string", "minLength": 3}},
                "b": {"if": {"type": "string", "maxLength": 2}, "then": {"const": "x"}, "else": {"type": "string"}}
            }
        });
        let tolerant = tolerant_output(&documented);
        assert_eq!(
            tolerant["properties"]["a"]["anyOf"][0]["not"],
            json!({"type": "string", "minLength": 3})
        );
        assert_eq!(
            tolerant["properties"]["b"]["anyOf"][0]["if"],
            json!({"type": "string", "maxLength": 2})
        );
        assert_eq!(
            tolerant["properties"]["b"]["anyOf"][0]["then"],
            json!({"description": "Documented values: x."})
        );
    }
}
