//! The top-level properties of plain object schemas ([`SchemaConverter::object_properties`]).

use indexmap::IndexMap;
use mcpgen_core::json_pointer;
use serde_json::{Value, json};

use super::defs::{is_schema_position, parse_ref};
use super::hidden::PROBE_BUDGET;
use super::{NO_NAMES, SchemaConverter, any, child};

/// The parts of a plain object schema gathered by [`SchemaConverter::object_properties`] before
/// anything is converted.
struct Gathered<'s> {
    /// Property name → (raw schema, its pointer) for every schema that declares it.
    properties: IndexMap<String, Vec<(&'s Value, String)>>,
    required: Vec<String>,
    saw_properties: bool,
}

impl<'a> SchemaConverter<'a> {
    /// The converted top-level properties of a plain object schema, with its `required` names,
    /// or `None` when `schema` is not a plain object.
    ///
    /// `$ref`s are followed and `allOf` members that are plain objects are merged (a property
    /// declared by several members becomes `allOf` of its declarations). Not plain: anything
    /// with `oneOf`/`anyOf`/`not`/`if`/`enum`/`const`, a non-object `type`, `nullable: true`,
    /// maps (`additionalProperties` with a schema, `patternProperties`), schemas without any
    /// `properties`, and unresolvable references. Properties hidden in this converter's
    /// direction are left out (also from `required`); the property schemas are converted like
    /// [`SchemaConverter::convert`] does, so their references land in `$defs`.
    pub fn object_properties(
        &mut self,
        schema: &Value,
        pointer: &str,
    ) -> Option<(IndexMap<String, Value>, Vec<String>)> {
        let pointer = pointer.strip_prefix('#').unwrap_or(pointer);
        let mut gathered = Gathered {
            properties: IndexMap::new(),
            required: Vec::new(),
            saw_properties: false,
        };
        let mut visited = Vec::new();
        if !self.gather(schema, pointer, 0, &mut visited, &mut gathered) || !gathered.saw_properties
        {
            return None;
        }
        let mut properties = IndexMap::new();
        for (name, sources) in gathered.properties {
            let mut converted: Vec<Value> = sources
                .into_iter()
                .map(|(raw, at)| self.conv(raw, &at, 1, &NO_NAMES))
                .collect();
            let value = if converted.len() == 1 {
                converted.pop().unwrap_or_else(any)
            } else {
                json!({ "allOf": converted })
            };
            properties.insert(name, value);
        }
        let mut required = Vec::new();
        for name in gathered.required {
            if properties.contains_key(&name) && !required.contains(&name) {
                required.push(name);
            }
        }
        if !self.lazy {
            self.drain_pending();
        }
        Some((properties, required))
    }

    /// Gathers the properties of a plain object schema (see
    /// [`SchemaConverter::object_properties`]) without converting anything; `false` when the
    /// schema is not a plain object.
    fn gather<'s>(
        &self,
        schema: &'s Value,
        ptr: &str,
        depth: usize,
        visited: &mut Vec<String>,
        acc: &mut Gathered<'s>,
    ) -> bool
    where
        'a: 's,
    {
        if depth > self.max_depth {
            return false;
        }
        let Value::Object(obj) = schema else {
            return false;
        };
        if obj.get("nullable") == Some(&Value::Bool(true)) {
            return false;
        }
        if let Some(reference) = obj.get("$ref") {
            let Some(segments) = reference.as_str().and_then(parse_ref) else {
                return false;
            };
            let Some((segments, target)) = self.resolve_segments(segments, ptr) else {
                return false;
            };
            if !is_schema_position(&segments) {
                return false;
            }
            let pointer = json_pointer::join(&segments);
            if visited.contains(&pointer) {
                return false;
            }
            visited.push(pointer.clone());
            let plain = self.gather(target, &pointer, depth + 1, visited, acc);
            visited.pop();
            if !plain {
                return false;
            }
            if !self.ref_siblings {
                return true;
            }
        }
        for (key, value) in obj {
            match key.as_str() {
                "type" => {
                    let object = match value {
                        Value::String(t) => t == "object",
                        Value::Array(ts) => !ts.is_empty() && ts.iter().all(|t| t == "object"),
                        _ => false,
                    };
                    if !object {
                        return false;
                    }
                }
                "additionalProperties" | "unevaluatedProperties" => {
                    let plain = match value {
                        Value::Bool(_) => true,
                        Value::Object(map) => map.is_empty(),
                        _ => false,
                    };
                    if !plain {
                        return false;
                    }
                }
                "oneOf" | "anyOf" | "not" | "if" | "then" | "else" | "enum" | "const" | "items"
                | "prefixItems" | "contains" | "patternProperties" | "propertyNames"
                | "dependentSchemas" | "dependentRequired" | "dependencies" => return false,
                "properties" => {
                    let Value::Object(props) = value else {
                        return false;
                    };
                    acc.saw_properties = true;
                    let at = child(ptr, key);
                    for (name, prop) in props {
                        if self.is_hidden(prop, &mut { PROBE_BUDGET }) {
                            continue;
                        }
                        acc.properties
                            .entry(name.clone())
                            .or_default()
                            .push((prop, child(&at, name)));
                    }
                }
                "required" => {
                    if let Value::Array(names) = value {
                        acc.required
                            .extend(names.iter().filter_map(|n| n.as_str().map(str::to_owned)));
                    }
                }
                "allOf" => {
                    let Value::Array(members) = value else {
                        return false;
                    };
                    let at = child(ptr, key);
                    for (i, member) in members.iter().enumerate() {
                        if !self.gather(
                            member,
                            &child(&at, &i.to_string()),
                            depth + 1,
                            visited,
                            acc,
                        ) {
                            return false;
                        }
                    }
                }
                _ => {}
            }
        }
        true
    }
}
