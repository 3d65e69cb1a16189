//! Keyword translation: one schema walked keyword by keyword into JSON Schema 2020-12.

use std::collections::BTreeSet;

use mcpgen_core::json_kind;
use serde_json::{Map, Value, json};

use super::defs::def_ref;
use super::hidden::PROBE_BUDGET;
use super::nullable::make_nullable;
use super::repair::{as_count, as_number, string_arrays, unique_strings};
use super::{NO_NAMES, SchemaConverter, any, child};

impl SchemaConverter<'_> {
    /// Converts one schema at `ptr`, `depth` levels below the schema being converted.
    /// `strip_required` names properties hidden in an enclosing `allOf`, which must not stay
    /// in this schema's `required`.
    pub(super) fn conv(
        &mut self,
        schema: &Value,
        ptr: &str,
        depth: usize,
        strip_required: &BTreeSet<String>,
    ) -> Value {
        let obj = match schema {
            Value::Bool(_) => return schema.clone(),
            Value::Object(obj) => obj,
            other => {
                self.warn(
                    ptr,
                    format!(
                        "expected a schema (an object or a boolean), found {}; used `{{}}` (any value) instead",
                        json_kind(other)
                    ),
                );
                return any();
            }
        };
        if depth >= self.max_depth {
            self.warn(
                ptr,
                format!(
                    "schema nests deeper than {} levels; used `{{}}` (any value) for the deeper part",
                    self.max_depth
                ),
            );
            return any();
        }

        if !self.ref_siblings
            && let Some(reference) = obj.get("$ref")
        {
            // OpenAPI 3.0: siblings of `$ref` are ignored, except the widespread `nullable`.
            let mut out = Map::new();
            if let Some(name) = self.ref_to_def(reference, &child(ptr, "$ref"), ptr) {
                out.insert("$ref".into(), Value::String(def_ref(&name)));
            }
            return if obj.get("nullable") == Some(&Value::Bool(true)) {
                make_nullable(out)
            } else {
                Value::Object(out)
            };
        }

        // Properties hidden in this direction: this schema's own, and those of `allOf` members
        // (whose `required` lists must not demand them either).
        let mut hidden = BTreeSet::new();
        if let Some(Value::Object(props)) = obj.get("properties") {
            for (name, prop) in props {
                if self.is_hidden(prop, &mut { PROBE_BUDGET }) {
                    hidden.insert(name.clone());
                }
            }
        }
        let mut group_hidden: BTreeSet<String> = strip_required.clone();
        group_hidden.extend(hidden.iter().cloned());
        if let Some(Value::Array(members)) = obj.get("allOf") {
            let mut budget = PROBE_BUDGET;
            for member in members {
                self.collect_hidden(member, &mut budget, &mut group_hidden);
            }
        }

        let mut out = Map::new();
        let mut nullable = false;
        let mut example = None;
        let mut exclusive_minimum = false;
        let mut exclusive_maximum = false;
        let mut is_file = false;
        let mut tuple_items = None;
        let mut additional_items = None;
        let mut dependencies = None;

        for (key, value) in obj {
            let at = child(ptr, key);
            match key.as_str() {
                "$ref" => {
                    if let Some(name) = self.ref_to_def(value, &at, ptr) {
                        out.insert(key.clone(), Value::String(def_ref(&name)));
                    }
                }
                "type" => {
                    if let Some((types, file)) = self.normalize_type(value, &at) {
                        out.insert(key.clone(), types);
                        is_file |= file;
                    }
                }
                "nullable" => match value {
                    Value::Bool(b) => nullable = *b,
                    other => self.dropped(&at, key, "a boolean", other),
                },
                "example" => example = Some(value),
                "examples" => match value {
                    Value::Array(_) => {
                        out.insert(key.clone(), value.clone());
                    }
                    other => self.dropped(&at, key, "an array", other),
                },
                "exclusiveMinimum" | "exclusiveMaximum" => match value {
                    Value::Bool(flag) => {
                        if key == "exclusiveMinimum" {
                            exclusive_minimum = *flag;
                        } else {
                            exclusive_maximum = *flag;
                        }
                    }
                    other => match as_number(other) {
                        Some(n) => {
                            out.insert(key.clone(), n);
                        }
                        None => self.dropped(&at, key, "a number or a boolean", other),
                    },
                },
                "minimum" | "maximum" => match as_number(value) {
                    Some(n) => {
                        out.insert(key.clone(), n);
                    }
                    None => self.dropped(&at, key, "a number", value),
                },
                "multipleOf" => {
                    match as_number(value).filter(|n| n.as_f64().is_some_and(|f| f > 0.0)) {
                        Some(n) => {
                            out.insert(key.clone(), n);
                        }
                        None => self.dropped(&at, key, "a number greater than 0", value),
                    }
                }
                "maxLength" | "minLength" | "maxItems" | "minItems" | "maxProperties"
                | "minProperties" | "maxContains" | "minContains" => match as_count(value) {
                    Some(n) => {
                        out.insert(key.clone(), n);
                    }
                    None => self.dropped(&at, key, "a non-negative integer", value),
                },
                "title" | "description" | "format" | "pattern" | "$comment" | "contentEncoding"
                | "contentMediaType" => match value {
                    Value::String(_) => {
                        out.insert(key.clone(), value.clone());
                    }
                    other => self.dropped(&at, key, "a string", other),
                },
                "uniqueItems" | "deprecated" | "readOnly" | "writeOnly" => match value {
                    Value::Bool(_) => {
                        out.insert(key.clone(), value.clone());
                    }
                    other => self.dropped(&at, key, "a boolean", other),
                },
                "default" | "const" => {
                    out.insert(key.clone(), value.clone());
                }
                "enum" => match value {
                    Value::Array(_) => {
                        out.insert(key.clone(), value.clone());
                    }
                    other => self.dropped(&at, key, "an array", other),
                },
                "required" => match value {
                    Value::Array(names) => {
                        let mut kept: Vec<Value> = Vec::new();
                        for name in names {
                            if let Value::String(s) = name
                                && !group_hidden.contains(s)
                                && !kept.contains(name)
                            {
                                kept.push(name.clone());
                            }
                        }
                        if !kept.is_empty() {
                            out.insert(key.clone(), Value::Array(kept));
                        }
                    }
                    // `required: true` on a property schema: a Swagger habit with no meaning here.
                    Value::Bool(_) => {}
                    other => self.dropped(&at, key, "an array of property names", other),
                },
                "dependentRequired" => match value {
                    Value::Object(map) => {
                        out.insert(key.clone(), Value::Object(string_arrays(map)));
                    }
                    other => self.dropped(&at, key, "an object", other),
                },
                "items" => match value {
                    Value::Array(items) => tuple_items = Some((items, at)),
                    _ => {
                        let converted = self.conv(value, &at, depth + 1, &NO_NAMES);
                        out.insert(key.clone(), converted);
                    }
                },
                "additionalItems" => additional_items = Some((value, at)),
                "additionalProperties"
                | "not"
                | "if"
                | "then"
                | "else"
                | "contains"
                | "propertyNames"
                | "unevaluatedProperties"
                | "unevaluatedItems"
                | "contentSchema" => {
                    let converted = self.conv(value, &at, depth + 1, &NO_NAMES);
                    out.insert(key.clone(), converted);
                }
                "allOf" | "anyOf" | "oneOf" | "prefixItems" => match value {
                    Value::Array(members) => {
                        let strip = if key == "allOf" {
                            &group_hidden
                        } else {
                            &NO_NAMES
                        };
                        let converted: Vec<Value> = members
                            .iter()
                            .enumerate()
                            .map(|(i, m)| {
                                self.conv(m, &child(&at, &i.to_string()), depth + 1, strip)
                            })
                            .collect();
                        if !converted.is_empty() {
                            out.insert(key.clone(), Value::Array(converted));
                        }
                    }
                    other => self.dropped(&at, key, "an array of schemas", other),
                },
                "properties" => match value {
                    Value::Object(props) => {
                        let mut converted = Map::new();
                        for (name, prop) in props {
                            if hidden.contains(name) {
                                continue;
                            }
                            let v = self.conv(prop, &child(&at, name), depth + 1, &NO_NAMES);
                            converted.insert(name.clone(), v);
                        }
                        out.insert(key.clone(), Value::Object(converted));
                    }
                    other => self.dropped(&at, key, "an object of schemas", other),
                },
                "patternProperties" | "dependentSchemas" => match value {
                    Value::Object(map) => {
                        let converted = self.conv_map(map, &at, depth);
                        out.insert(key.clone(), Value::Object(converted));
                    }
                    other => self.dropped(&at, key, "an object of schemas", other),
                },
                "$defs" | "definitions" => match value {
                    Value::Object(map) => self.hoist(map, &at, depth),
                    other => self.dropped(&at, key, "an object of schemas", other),
                },
                "dependencies" => dependencies = Some((value, at)),
                "discriminator" => self.discriminator_mapping(value, &at),
                // OpenAPI-only keywords (`xml`, `externalDocs`), extensions (`x-*`), identifier
                // keywords (`$id` would change the base of our `#/$defs/...` references,
                // `$schema`, `$anchor`, `$dynamicRef`, ...) and unknown keywords are dropped.
                _ => {}
            }
        }

        if let Some((items, at)) = tuple_items {
            // Draft 4–7 tuple form.
            if !items.is_empty() && !out.contains_key("prefixItems") {
                let converted: Vec<Value> = items
                    .iter()
                    .enumerate()
                    .map(|(i, m)| self.conv(m, &child(&at, &i.to_string()), depth + 1, &NO_NAMES))
                    .collect();
                out.insert("prefixItems".into(), Value::Array(converted));
            }
            if let Some((rest, rest_at)) = additional_items {
                let converted = self.conv(rest, &rest_at, depth + 1, &NO_NAMES);
                out.insert("items".into(), converted);
            }
        }
        if let Some((value, at)) = dependencies {
            self.split_dependencies(value, &at, depth, &mut out);
        }
        self.constrain_discriminator(obj, &mut out);
        if exclusive_minimum && let Some(min) = out.shift_remove("minimum") {
            out.entry("exclusiveMinimum").or_insert(min);
        }
        if exclusive_maximum && let Some(max) = out.shift_remove("maximum") {
            out.entry("exclusiveMaximum").or_insert(max);
        }
        if let Some(example) = example
            && !out.contains_key("examples")
        {
            out.insert("examples".into(), Value::Array(vec![example.clone()]));
        }
        if is_file && !out.contains_key("format") {
            out.insert("format".into(), json!("binary"));
        }
        if nullable {
            make_nullable(out)
        } else {
            Value::Object(out)
        }
    }

    /// Converts every schema of a name → schema map.
    pub(super) fn conv_map(
        &mut self,
        map: &Map<String, Value>,
        ptr: &str,
        depth: usize,
    ) -> Map<String, Value> {
        let mut converted = Map::new();
        for (name, schema) in map {
            let v = self.conv(schema, &child(ptr, name), depth + 1, &NO_NAMES);
            converted.insert(name.clone(), v);
        }
        converted
    }

    /// `dependencies` (draft 7) → `dependentRequired` (arrays) and `dependentSchemas` (schemas),
    /// without overriding those keywords when they are also given.
    pub(super) fn split_dependencies(
        &mut self,
        value: &Value,
        ptr: &str,
        depth: usize,
        out: &mut Map<String, Value>,
    ) {
        let Value::Object(map) = value else {
            self.dropped(ptr, "dependencies", "an object", value);
            return;
        };
        let mut required = Map::new();
        let mut schemas = Map::new();
        for (name, dep) in map {
            match dep {
                Value::Array(names) => {
                    required.insert(name.clone(), Value::Array(unique_strings(names)));
                }
                _ => {
                    let v = self.conv(dep, &child(ptr, name), depth + 1, &NO_NAMES);
                    schemas.insert(name.clone(), v);
                }
            }
        }
        if !required.is_empty() && !out.contains_key("dependentRequired") {
            out.insert("dependentRequired".into(), Value::Object(required));
        }
        if !schemas.is_empty() && !out.contains_key("dependentSchemas") {
            out.insert("dependentSchemas".into(), Value::Object(schemas));
        }
    }
}
