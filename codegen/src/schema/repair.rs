//! Repairs: keyword values of the wrong shape (a numeric keyword written as a string, an
//! unknown type name, a list with duplicates) made valid or dropped.

use serde_json::{Map, Number, Value, json};

use super::SchemaConverter;

impl SchemaConverter<'_> {
    /// The normalized `type` keyword and whether it named Swagger's `file`.
    pub(super) fn normalize_type(&mut self, value: &Value, ptr: &str) -> Option<(Value, bool)> {
        fn one(name: &str) -> Option<(&'static str, bool)> {
            Some(match name {
                "null" => ("null", false),
                "boolean" => ("boolean", false),
                "object" => ("object", false),
                "array" => ("array", false),
                "number" => ("number", false),
                "string" => ("string", false),
                "integer" => ("integer", false),
                "file" => ("string", true),
                _ => return None,
            })
        }
        match value {
            Value::String(name) => match one(name) {
                Some((t, file)) => Some((json!(t), file)),
                None => {
                    self.warn(
                        ptr,
                        format!("unknown type `{name}`; dropped (any type allowed)"),
                    );
                    None
                }
            },
            Value::Array(names) => {
                let mut types: Vec<Value> = Vec::new();
                let mut file = false;
                for name in names {
                    match name.as_str().and_then(one) {
                        Some((t, f)) => {
                            file |= f;
                            let t = json!(t);
                            if !types.contains(&t) {
                                types.push(t);
                            }
                        }
                        None => {
                            self.warn(ptr, format!("unknown type {name}; dropped from the list"))
                        }
                    }
                }
                if types.is_empty() {
                    None
                } else {
                    Some((Value::Array(types), file))
                }
            }
            other => {
                self.dropped(ptr, "type", "a type name or an array of them", other);
                None
            }
        }
    }
}

/// A number, or a string holding one.
pub(super) fn as_number(value: &Value) -> Option<Value> {
    match value {
        Value::Number(_) => Some(value.clone()),
        Value::String(s) => {
            let s = s.trim();
            if let Ok(i) = s.parse::<i64>() {
                Some(Value::Number(i.into()))
            } else {
                s.parse::<f64>()
                    .ok()
                    .and_then(Number::from_f64)
                    .map(Value::Number)
            }
        }
        _ => None,
    }
}

/// A non-negative integer (also written as `5.0` or `"5"`).
pub(super) fn as_count(value: &Value) -> Option<Value> {
    const MAX_EXACT: f64 = 9_007_199_254_740_992.0;
    let n = match value {
        Value::Number(n) => match n.as_u64() {
            Some(u) => Some(u),
            None => n
                .as_f64()
                .filter(|f| f.fract() == 0.0 && *f >= 0.0 && *f <= MAX_EXACT)
                .map(|f| f as u64),
        },
        Value::String(s) => s.trim().parse::<u64>().ok(),
        _ => None,
    };
    n.map(|u| Value::Number(u.into()))
}

/// The strings of `values`, each once, in order.
pub(super) fn unique_strings(values: &[Value]) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::new();
    for v in values {
        if v.is_string() && !out.contains(v) {
            out.push(v.clone());
        }
    }
    out
}

/// A name → array-of-names map with everything but unique strings removed.
pub(super) fn string_arrays(map: &Map<String, Value>) -> Map<String, Value> {
    map.iter()
        .filter_map(|(k, v)| match v {
            Value::Array(names) => Some((k.clone(), Value::Array(unique_strings(names)))),
            _ => None,
        })
        .collect()
}
