//! Reading typed fields of an entry: each reader returns the value when the field is present
//! and has the expected type, and reports a problem naming the field when it has not.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use mcpgen_core::json_kind;

pub(super) fn string_field(
    map: &Map<String, Value>,
    field: &str,
    problem: &mut impl FnMut(&str, String),
) -> Option<String> {
    match map.get(field)? {
        Value::String(s) => Some(s.clone()),
        other => {
            problem(
                field,
                format!("must be a string, found {}", json_kind(other)),
            );
            None
        }
    }
}

pub(super) fn bool_field(
    map: &Map<String, Value>,
    field: &str,
    problem: &mut impl FnMut(&str, String),
) -> Option<bool> {
    match map.get(field)? {
        Value::Bool(b) => Some(*b),
        other => {
            problem(
                field,
                format!("must be true or false, found {}", json_kind(other)),
            );
            None
        }
    }
}

pub(super) fn uint_field(
    map: &Map<String, Value>,
    field: &str,
    problem: &mut impl FnMut(&str, String),
) -> Option<u64> {
    let value = map.get(field)?;
    match value.as_u64() {
        Some(n) => Some(n),
        None => {
            problem(field, format!("must be a whole number ≥ 0, found {value}"));
            None
        }
    }
}

pub(super) fn string_list(
    map: &Map<String, Value>,
    field: &str,
    problem: &mut impl FnMut(&str, String),
) -> Option<Vec<String>> {
    match map.get(field)? {
        Value::Array(items) => {
            let mut out = Vec::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                match item {
                    Value::String(s) => out.push(s.clone()),
                    other => problem(
                        &format!("{field}[{i}]"),
                        format!("must be a string, found {}", json_kind(other)),
                    ),
                }
            }
            Some(out)
        }
        other => {
            problem(
                field,
                format!("must be an array of strings, found {}", json_kind(other)),
            );
            None
        }
    }
}

pub(super) fn string_map(
    map: &Map<String, Value>,
    field: &str,
    problem: &mut impl FnMut(&str, String),
) -> Option<BTreeMap<String, String>> {
    match map.get(field)? {
        Value::Object(entries) => {
            let mut out = BTreeMap::new();
            for (k, v) in entries {
                match v {
                    Value::String(s) => {
                        out.insert(k.clone(), s.clone());
                    }
                    other => problem(
                        &format!("{field}.{k}"),
                        format!("must be a string, found {}", json_kind(other)),
                    ),
                }
            }
            Some(out)
        }
        other => {
            problem(
                field,
                format!(
                    "must be an object of string values, found {}",
                    json_kind(other)
                ),
            );
            None
        }
    }
}
