//! `nullable: true` (OpenAPI 3.0) as JSON Schema 2020-12 says it.

use serde_json::{Map, Value, json};

use crate::keywords::ANNOTATIONS;

/// Applies `nullable: true` to a converted schema.
pub(super) fn make_nullable(mut out: Map<String, Value>) -> Value {
    const CONSTRAINING: [&str; 9] = [
        "$ref", "allOf", "anyOf", "oneOf", "not", "if", "then", "else", "const",
    ];
    if !CONSTRAINING.iter().any(|k| out.contains_key(*k)) {
        match out.get_mut("type") {
            Some(Value::String(t)) if t != "null" => {
                let t = std::mem::take(t);
                out.insert("type".into(), json!([t, "null"]));
            }
            Some(Value::Array(types)) if !types.iter().any(|t| t == "null") => {
                types.push(json!("null"));
            }
            _ => {}
        }
        if let Some(Value::Array(values)) = out.get_mut("enum")
            && !values.contains(&Value::Null)
        {
            values.push(Value::Null);
        }
        return Value::Object(out);
    }
    let mut outer = Map::new();
    for &key in ANNOTATIONS {
        if let Some(v) = out.shift_remove(key) {
            outer.insert(key.into(), v);
        }
    }
    outer.insert(
        "anyOf".into(),
        json!([Value::Object(out), { "type": "null" }]),
    );
    Value::Object(outer)
}
