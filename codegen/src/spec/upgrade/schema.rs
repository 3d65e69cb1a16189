//! Swagger 2.0 schemas → 3.0 schemas, and the schemas of parameters, headers and items.

use serde_json::{Map, Value, json};

/// Keys of a Swagger 2.0 parameter, header or items object that belong in the 3.0 `schema`.
pub(super) const SCHEMA_KEYS: [&str; 17] = [
    "type",
    "format",
    "items",
    "default",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "pattern",
    "maxItems",
    "minItems",
    "uniqueItems",
    "enum",
    "multipleOf",
    "x-nullable",
];

pub(super) fn is_schema_key(key: &str) -> bool {
    SCHEMA_KEYS.contains(&key)
}

/// The schema of a non-body parameter, header or items object.
pub(super) fn schema_of(param: &Value) -> Value {
    let mut schema = Map::new();
    if let Value::Object(map) = param {
        for (key, value) in map {
            if key == "items" {
                schema.insert(key.clone(), schema_of(value));
            } else if is_schema_key(key) {
                schema.insert(key.clone(), value.clone());
            }
        }
    }
    let mut schema = Value::Object(schema);
    convert_schema(&mut schema);
    schema
}

pub(super) fn converted_schema(schema: &Value) -> Value {
    let mut schema = schema.clone();
    convert_schema(&mut schema);
    schema
}

/// Swagger 2.0 schema → 3.0 schema, in place: `x-nullable` → `nullable`, `type: file` →
/// binary string, `discriminator: name` → `discriminator: {propertyName: name}`.
pub(super) fn convert_schema(schema: &mut Value) {
    let Value::Object(map) = schema else {
        return;
    };
    if map.contains_key("x-nullable") {
        *map = std::mem::take(map)
            .into_iter()
            .filter_map(|(key, value)| match key.as_str() {
                "x-nullable" if value == Value::Bool(true) => Some(("nullable".to_owned(), value)),
                "x-nullable" => None,
                _ => Some((key, value)),
            })
            .collect();
    }
    if map.get("type").and_then(Value::as_str) == Some("file") {
        map.insert("type".into(), json!("string"));
        map.insert("format".into(), json!("binary"));
    }
    if let Some(Value::String(property)) = map.get("discriminator") {
        let property = property.clone();
        map.insert("discriminator".into(), json!({ "propertyName": property }));
    }
    for (key, child) in map.iter_mut() {
        match key.as_str() {
            "properties" => {
                if let Value::Object(props) = child {
                    props.values_mut().for_each(convert_schema);
                }
            }
            "items" | "additionalProperties" | "not" => match child {
                Value::Array(items) => items.iter_mut().for_each(convert_schema),
                _ => convert_schema(child),
            },
            "allOf" | "anyOf" | "oneOf" => {
                if let Value::Array(items) = child {
                    items.iter_mut().for_each(convert_schema);
                }
            }
            _ => {}
        }
    }
}
