//! Schemas as typify should see them.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::unsupported::unsupported;

/// The schema as typify should see it: formats that would pull in chrono/uuid and patterns that
/// would pull in regress are dropped (the JSON schema in `tools.json` keeps them; validation is
/// the runtime's job), and 2020-12-only keywords typify does not read are removed.
pub(super) fn to_typify_schema(
    schema: &Value,
    renames: &BTreeMap<String, String>,
) -> Result<schemars::schema::Schema, String> {
    let cleaned = clean(schema, renames);
    let defs: BTreeSet<&str> = renames.values().map(String::as_str).collect();
    if let Some((pointer, why)) = unsupported(&cleaned, &defs) {
        return Err(format!("at `{pointer}`: {why}"));
    }
    serde_json::from_value(cleaned).map_err(|e| format!("schema not readable by typify: {e}"))
}

pub(super) fn clean(v: &Value, renames: &BTreeMap<String, String>) -> Value {
    match v {
        Value::Object(map) => {
            // typify reads `$ref` with siblings poorly; the reference alone carries the type.
            if let Some(r) = map.get("$ref") {
                let r = match r.as_str().and_then(|r| r.strip_prefix("#/$defs/")) {
                    Some(name) => {
                        let key = renames.get(name).map_or(name, String::as_str);
                        Value::String(format!("#/$defs/{key}"))
                    }
                    None => r.clone(),
                };
                let mut only = serde_json::Map::new();
                only.insert("$ref".to_owned(), r);
                return Value::Object(only);
            }
            let mut out = serde_json::Map::new();
            for (k, val) in map {
                match k.as_str() {
                    "$defs"
                    | "title"
                    | "pattern"
                    | "patternProperties"
                    | "examples"
                    | "example"
                    | "contentEncoding"
                    | "contentMediaType"
                    | "prefixItems"
                    | "$comment"
                    | "deprecated"
                    | "readOnly"
                    | "writeOnly"
                    | "unevaluatedProperties"
                    | "dependentRequired"
                    | "dependentSchemas" => {}
                    "format" => {
                        if let Some(f) = val.as_str()
                            && KEPT_FORMATS.contains(&f)
                        {
                            out.insert(k.clone(), val.clone());
                        }
                    }
                    "properties" | "definitions" => {
                        let props = val
                            .as_object()
                            .map(|m| {
                                m.iter()
                                    .map(|(pk, pv)| (pk.clone(), clean(pv, renames)))
                                    .collect()
                            })
                            .unwrap_or_default();
                        out.insert(k.clone(), Value::Object(props));
                    }
                    "default" | "const" | "enum" => {
                        out.insert(k.clone(), val.clone());
                    }
                    _ => {
                        out.insert(k.clone(), clean(val, renames));
                    }
                }
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(|i| clean(i, renames)).collect()),
        other => other.clone(),
    }
}

pub(super) const KEPT_FORMATS: &[&str] = &[
    "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float", "double",
];
