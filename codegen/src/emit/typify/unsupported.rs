//! Schema shapes typify 0.8 panics on, found before typify sees them.

use std::collections::{BTreeMap, BTreeSet};

use mcpgen_core::json_pointer;
use serde_json::Value;

/// Two names that typify would turn into the same Rust field or variant name (it drops
/// punctuation and case, and does not always disambiguate), compared conservatively:
/// case-folded, letters and digits only.
pub(super) fn colliding_names<'a>(
    names: impl Iterator<Item = &'a str>,
) -> Option<(&'a str, &'a str)> {
    let mut seen: BTreeMap<String, &str> = BTreeMap::new();
    for name in names {
        let folded: String = name
            .chars()
            .filter(char::is_ascii_alphanumeric)
            .map(|c| c.to_ascii_lowercase())
            .collect();
        if let Some(first) = seen.insert(folded, name) {
            return Some((first, name));
        }
    }
    None
}

/// The first place in `schema` (already [`clean`](super::clean::clean)ed) that typify 0.8 would panic on, as a JSON
/// pointer relative to `schema` and the reason; `defs` are the definition keys a `$ref` may name.
pub(super) fn unsupported(schema: &Value, defs: &BTreeSet<&str>) -> Option<(String, String)> {
    let Value::Object(map) = schema else {
        return None;
    };
    if let Some(r) = map.get("$ref") {
        let known = r
            .as_str()
            .and_then(|r| r.strip_prefix("#/$defs/"))
            .is_some_and(|name| defs.contains(name));
        return (!known).then(|| {
            (
                "/$ref".to_owned(),
                format!("typify cannot follow the reference {r}"),
            )
        });
    }
    if let Some(not) = map.get("not")
        && !readable_not(not)
    {
        return Some((
            "/not".to_owned(),
            "typify reads `not` only with `true`/`false`, `{}` or an enum of one JSON type".into(),
        ));
    }
    if !map.contains_key("type")
        && let Some(Value::Array(values)) = map.get("enum")
        && json_types(values.iter().filter(|v| !v.is_null())).len() > 1
    {
        return Some((
            "/enum".to_owned(),
            "typify cannot type an enum without `type` whose values mix JSON types".into(),
        ));
    }
    if let Some(Value::Array(values)) = map.get("enum")
        && let Some((a, b)) = colliding_names(values.iter().filter_map(Value::as_str))
    {
        return Some((
            "/enum".to_owned(),
            format!("enum values `{a}` and `{b}` would become the same Rust variant name"),
        ));
    }
    if let Some(Value::Object(props)) = map.get("properties")
        && let Some((a, b)) = colliding_names(props.keys().map(String::as_str))
    {
        return Some((
            "/properties".to_owned(),
            format!("properties `{a}` and `{b}` would become the same Rust field name"),
        ));
    }
    for key in ["allOf", "anyOf", "oneOf"] {
        if let Some(Value::Array(items)) = map.get(key)
            && items.is_empty()
        {
            return Some((
                format!("/{key}"),
                format!("typify cannot read an empty `{key}`"),
            ));
        }
    }
    for (key, value) in map {
        let found = match key.as_str() {
            "default" | "const" | "enum" | "$defs" => None,
            "properties" | "definitions" => value.as_object().and_then(|props| {
                props.iter().find_map(|(name, s)| {
                    unsupported(s, defs)
                        .map(|(p, why)| (format!("/{key}/{}{p}", json_pointer::escape(name)), why))
                })
            }),
            _ => match value {
                Value::Array(items) => items.iter().enumerate().find_map(|(i, s)| {
                    unsupported(s, defs).map(|(p, why)| (format!("/{key}/{i}{p}"), why))
                }),
                other => unsupported(other, defs).map(|(p, why)| (format!("/{key}{p}"), why)),
            },
        };
        if found.is_some() {
            return found;
        }
    }
    None
}

/// Whether typify 0.8 reads `{"not": schema}` without panicking.
pub(super) fn readable_not(schema: &Value) -> bool {
    match schema {
        Value::Bool(_) => true,
        Value::Object(map) => {
            let schema_keys = map
                .keys()
                .filter(|k| !matches!(k.as_str(), "description" | "default" | "title"))
                .count();
            match (map.get("type"), map.get("enum")) {
                (None, None) => schema_keys == 0,
                (Some(Value::String(_)), Some(Value::Array(_))) => true,
                (None, Some(Value::Array(values))) => {
                    schema_keys == 1
                        && values
                            .iter()
                            .all(|v| v.is_boolean() || v.is_number() || v.is_string())
                        && json_types(values.iter()).len() == 1
                }
                _ => false,
            }
        }
        _ => false,
    }
}

/// The JSON types of `values` (`number` for integers too).
pub(super) fn json_types<'a>(values: impl Iterator<Item = &'a Value>) -> BTreeSet<&'static str> {
    values
        .map(|v| match v {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Number(_) => "number",
            Value::String(_) => "string",
            Value::Array(_) => "array",
            Value::Object(_) => "object",
        })
        .collect()
}
