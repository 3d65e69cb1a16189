//! OpenAPI schemas (2.0-upgraded, 3.0, 3.1) → JSON Schema 2020-12, the dialect of MCP.
//!
//! A [`SchemaConverter`] converts the schemas of one document for one [`Direction`]:
//!
//! - `$ref`s become `#/$defs/<name>` and their targets are converted once into the converter's
//!   `$defs` (names from [`def_name_for_pointer`]); recursive schemas terminate because a name is
//!   reserved before its target is converted, and targets are converted from a work list, not by
//!   recursion, so long chains of references cannot exhaust the stack. In OpenAPI 3.0 the siblings
//!   of `$ref` are ignored (except `nullable`); in 3.1 they are kept.
//! - `nullable: true` becomes a `type` array with `"null"` (and `null` in `enum`), or
//!   `anyOf: [<schema>, {"type": "null"}]` when the schema constrains values through `$ref`,
//!   `allOf`, `oneOf`, `anyOf`, `not`, `if` or `const`.
//! - `exclusiveMinimum: true` + `minimum: x` becomes `exclusiveMinimum: x` (same for maximum);
//!   `example` becomes `examples: [..]`; `type: file` becomes `type: string, format: binary`; a
//!   tuple `items: [..]` becomes `prefixItems`; `dependencies` becomes `dependentRequired` /
//!   `dependentSchemas`; schema-local `$defs` / `definitions` are hoisted into the converter's
//!   `$defs`.
//! - OpenAPI-only keywords (`discriminator`, `xml`, `externalDocs`), extensions (`x-*`), identifier
//!   keywords (`$id`, `$schema`, `$anchor`, …) and unknown keywords are dropped. A discriminator's
//!   `mapping` still makes sure every mapped schema is in `$defs`.
//! - [`Direction::Input`] drops `readOnly` properties, [`Direction::Output`] drops `writeOnly`
//!   ones, from `properties` and from `required` (also `required` lists of `allOf` siblings).
//! - Keywords whose values have the wrong shape (a `required: true` on a property, a numeric
//!   keyword written as a string, an unknown type name) are repaired or dropped, so every result
//!   validates against the JSON Schema 2020-12 meta-schema.
//!
//! Nothing here panics on input: anything unusable becomes `{}` (any value) with a [`Warning`]
//! naming the JSON pointer.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use indexmap::IndexMap;
use serde_json::{Map, Number, Value, json};
use sha2::{Digest, Sha256};

use crate::error::Warning;
use crate::keywords;
use crate::spec::{escape_pointer_segment, percent_decode, pointer_from_segments};

/// How many levels of inline nesting [`SchemaConverter`] follows by default; deeper parts become
/// `{}` with a warning.
pub const DEFAULT_MAX_DEPTH: usize = 64;

/// Prefix of `$defs` names made for references that are not `#/components/schemas/<name>`.
const REF_PREFIX: &str = "ref__";
/// Longest readable part of a `$defs` name (a hash suffix keeps longer names distinct).
const MAX_NAME_LEN: usize = 96;
/// How many `$ref` hops or `allOf` members the read-only/write-only probes follow.
const PROBE_BUDGET: usize = 256;
/// How long a chain of `$ref`-only schemas may be before it counts as a cycle.
const MAX_REF_CHAIN: usize = 64;

/// Names of properties; the empty set, for conversions that strip nothing extra.
static NO_NAMES: BTreeSet<String> = BTreeSet::new();

/// Which side of a call a schema describes; decides whether `readOnly` or `writeOnly`
/// properties are dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Direction {
    /// Tool arguments (request): `readOnly` properties are left out.
    Input,
    /// Tool output (response): `writeOnly` properties are left out.
    Output,
}

impl Direction {
    /// The annotation that hides a property in this direction.
    fn hiding_keyword(self) -> &'static str {
        match self {
            Self::Input => "readOnly",
            Self::Output => "writeOnly",
        }
    }
}

/// Converts schemas of one document, collecting referenced schemas into `$defs`.
pub struct SchemaConverter<'a> {
    root: &'a Value,
    spec_path: &'a Path,
    direction: Direction,
    /// OpenAPI 3.1 or later: `$ref` siblings apply.
    ref_siblings: bool,
    max_depth: usize,
    defs: BTreeMap<String, Value>,
    /// Reserved `$defs` names whose targets still have to be converted: (name, target, pointer).
    pending: Vec<(String, &'a Value, String)>,
    /// Whether reserved `$defs` are converted only when [`SchemaConverter::def`] asks for them.
    lazy: bool,
    warnings: Vec<Warning>,
}

/// The parts of a plain object schema gathered by [`SchemaConverter::object_properties`] before
/// anything is converted.
struct Gathered<'s> {
    /// Property name → (raw schema, its pointer) for every schema that declares it.
    properties: IndexMap<String, Vec<(&'s Value, String)>>,
    required: Vec<String>,
    saw_properties: bool,
}

impl<'a> SchemaConverter<'a> {
    /// A converter for schemas of `root` (the bundled, upgraded document read from `spec_path`).
    pub fn new(root: &'a Value, spec_path: &'a Path, direction: Direction) -> Self {
        Self {
            root,
            spec_path,
            direction,
            ref_siblings: allows_ref_siblings(root),
            max_depth: DEFAULT_MAX_DEPTH,
            defs: BTreeMap::new(),
            pending: Vec::new(),
            lazy: false,
            warnings: Vec::new(),
        }
    }

    /// Converts the targets of references only when [`SchemaConverter::def`] asks for them,
    /// instead of the whole closure of every converted schema: a tool fitted to a budget
    /// (see [`crate::budget`]) converts only the definitions it keeps.
    pub fn with_lazy_defs(mut self) -> Self {
        self.lazy = true;
        self
    }

    /// The converted `$defs` entry `name` (unescaped), converting it now if it is still
    /// pending; `None` for a name no converted schema refers to.
    pub fn def(&mut self, name: &str) -> Option<&Value> {
        if let Some(i) = self.pending.iter().position(|(n, _, _)| n == name) {
            let (name, target, pointer) = self.pending.swap_remove(i);
            let converted = self.conv(target, &pointer, 0, &NO_NAMES);
            self.defs.insert(name, converted);
        }
        self.defs.get(name)
    }

    /// Sets how many levels of inline nesting are followed (default [`DEFAULT_MAX_DEPTH`]);
    /// deeper parts become `{}` with a warning.
    pub fn with_max_depth(mut self, max_depth: usize) -> Self {
        self.max_depth = max_depth;
        self
    }

    /// The direction this converter was made for.
    pub fn direction(&self) -> Direction {
        self.direction
    }

    /// Converts `schema`, found at JSON pointer `pointer` of the document (with or without a
    /// leading `#`). Referenced schemas are added to the `$defs` returned by
    /// [`SchemaConverter::finish`].
    pub fn convert(&mut self, schema: &Value, pointer: &str) -> Value {
        let pointer = pointer.strip_prefix('#').unwrap_or(pointer);
        let converted = self.conv(schema, pointer, 0, &NO_NAMES);
        if !self.lazy {
            self.drain_pending();
        }
        converted
    }

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

    /// The `$defs` collected so far (name → converted schema).
    pub fn defs(&self) -> &BTreeMap<String, Value> {
        &self.defs
    }

    /// The warnings collected so far.
    pub fn warnings(&self) -> &[Warning] {
        &self.warnings
    }

    /// The `$defs` collected so far (name → converted schema) and the warnings.
    pub fn finish(self) -> (BTreeMap<String, Value>, Vec<Warning>) {
        (self.defs, self.warnings)
    }

    // ----- conversion -------------------------------------------------------------------------

    /// Converts the targets of reserved `$defs` names until none is left.
    fn drain_pending(&mut self) {
        while let Some((name, target, pointer)) = self.pending.pop() {
            let converted = self.conv(target, &pointer, 0, &NO_NAMES);
            self.defs.insert(name, converted);
        }
    }

    /// Converts one schema at `ptr`, `depth` levels below the schema being converted.
    /// `strip_required` names properties hidden in an enclosing `allOf`, which must not stay
    /// in this schema's `required`.
    fn conv(
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
                        kind(other)
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
    fn conv_map(
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

    /// Moves schema-local `$defs` (found at `ptr`) into the converter's `$defs`, under the
    /// names that references to them (`#<ptr>/<name>`) get.
    fn hoist(&mut self, map: &Map<String, Value>, ptr: &str, depth: usize) {
        let base = split_pointer(ptr).unwrap_or_default();
        for (name, schema) in map {
            let mut segments = base.clone();
            segments.push(name.clone());
            let def_name = def_name_from_segments(&segments);
            if self.defs.contains_key(&def_name) {
                continue;
            }
            self.defs.insert(def_name.clone(), Value::Bool(true));
            let converted = self.conv(schema, &child(ptr, name), depth + 1, &NO_NAMES);
            self.defs.insert(def_name, converted);
        }
    }

    /// `dependencies` (draft 7) → `dependentRequired` (arrays) and `dependentSchemas` (schemas),
    /// without overriding those keywords when they are also given.
    fn split_dependencies(
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

    /// Makes sure every schema named in a discriminator's `mapping` is in `$defs`.
    fn discriminator_mapping(&mut self, value: &Value, ptr: &str) {
        let Some(Value::Object(mapping)) = value.get("mapping") else {
            return;
        };
        let mapping_ptr = child(ptr, "mapping");
        for (key, target) in mapping {
            let at = child(&mapping_ptr, key);
            let reference = match target {
                Value::String(s) if s.starts_with('#') => s.clone(),
                // A bare schema name.
                Value::String(s) if !s.contains('/') && !s.contains('#') => {
                    format!("#/components/schemas/{}", escape_pointer_segment(s))
                }
                Value::String(s) => {
                    self.warn(
                        &at,
                        format!(
                            "discriminator mapping `{s}` is not a local reference or a schema name; ignored"
                        ),
                    );
                    continue;
                }
                other => {
                    self.dropped(&at, "discriminator mapping", "a string", other);
                    continue;
                }
            };
            let _ = self.ref_to_def(&Value::String(reference), &at, ptr);
        }
    }

    /// The normalized `type` keyword and whether it named Swagger's `file`.
    fn normalize_type(&mut self, value: &Value, ptr: &str) -> Option<(Value, bool)> {
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

    // ----- references -------------------------------------------------------------------------

    /// Resolves a `$ref` value found at `at` (inside the schema at `ptr`), reserves its `$defs`
    /// name and queues its target; `None` (with a warning) when it cannot be used.
    fn ref_to_def(&mut self, value: &Value, at: &str, ptr: &str) -> Option<String> {
        let Value::String(reference) = value else {
            self.dropped(at, "$ref", "a string", value);
            return None;
        };
        let Some(segments) = parse_ref(reference) else {
            self.warn(
                at,
                format!(
                    "`$ref` `{reference}` is not a local JSON pointer (`#/...`); used `{{}}` (any value) instead"
                ),
            );
            return None;
        };
        let Some((segments, target)) = self.resolve_segments(segments, ptr) else {
            self.warn(
                at,
                format!(
                    "`$ref` `{reference}` does not resolve in the document; used `{{}}` (any value) instead"
                ),
            );
            return None;
        };
        if !is_schema_position(&segments) || !matches!(target, Value::Object(_) | Value::Bool(_)) {
            self.warn(
                at,
                format!(
                    "`$ref` `{reference}` points to something that is not a schema; used `{{}}` (any value) instead"
                ),
            );
            return None;
        }
        let name = def_name_from_segments(&segments);
        if self.defs.contains_key(&name) {
            return Some(name);
        }
        if self.is_ref_cycle(target, &segments) {
            self.warn(
                at,
                format!(
                    "`$ref` `{reference}` starts a cycle of references that never reaches a schema; used `{{}}` (any value) instead"
                ),
            );
            return None;
        }
        // Reserve the name before converting, so recursive schemas terminate.
        self.defs.insert(name.clone(), Value::Bool(true));
        self.pending
            .push((name.clone(), target, pointer_from_segments(&segments)));
        Some(name)
    }

    /// Looks `segments` up in the document; a `#/$defs/...` or `#/definitions/...` reference
    /// that does not resolve from the document root is looked up in the schemas enclosing
    /// `ptr`, innermost first (a JSON Schema copied into the document with its local `$defs`).
    fn resolve_segments(
        &self,
        segments: Vec<String>,
        ptr: &str,
    ) -> Option<(Vec<String>, &'a Value)> {
        if let Some(target) = self.lookup(&segments) {
            return Some((segments, target));
        }
        if !matches!(
            segments.first().map(String::as_str),
            Some("$defs" | "definitions")
        ) {
            return None;
        }
        let enclosing = split_pointer(ptr)?;
        for len in (0..=enclosing.len()).rev() {
            let mut candidate = enclosing[..len].to_vec();
            candidate.extend(segments.iter().cloned());
            if let Some(target) = self.lookup(&candidate) {
                return Some((candidate, target));
            }
        }
        None
    }

    /// Resolves a reference without warnings (for probes).
    fn resolve_quiet(&self, reference: &str) -> Option<&'a Value> {
        self.lookup(&parse_ref(reference)?)
    }

    /// The value at `segments` in the document.
    fn lookup(&self, segments: &[String]) -> Option<&'a Value> {
        let mut current = self.root;
        for segment in segments {
            current = match current {
                Value::Object(map) => map.get(segment)?,
                Value::Array(items) => items.get(array_index(segment)?)?,
                _ => return None,
            };
        }
        Some(current)
    }

    /// Whether following `$ref`s from `target` (at `segments`) comes back without ever
    /// reaching a schema that is more than a reference.
    fn is_ref_cycle(&self, target: &'a Value, segments: &[String]) -> bool {
        let mut seen = vec![pointer_from_segments(segments)];
        let mut current = target;
        for _ in 0..MAX_REF_CHAIN {
            let Some(Value::String(reference)) = current.get("$ref") else {
                return false;
            };
            let Some(next_segments) = parse_ref(reference) else {
                return false;
            };
            let Some(next) = self.lookup(&next_segments) else {
                return false;
            };
            let pointer = pointer_from_segments(&next_segments);
            if seen.contains(&pointer) {
                return true;
            }
            seen.push(pointer);
            current = next;
        }
        true
    }

    // ----- readOnly / writeOnly ---------------------------------------------------------------

    /// Whether a (raw) property schema is hidden in this direction: marked itself, or through
    /// its `$ref` target or an `allOf` member.
    fn is_hidden(&self, schema: &Value, budget: &mut usize) -> bool {
        if *budget == 0 {
            return false;
        }
        *budget -= 1;
        let Value::Object(obj) = schema else {
            return false;
        };
        if obj.get(self.direction.hiding_keyword()) == Some(&Value::Bool(true)) {
            return true;
        }
        if let Some(Value::String(reference)) = obj.get("$ref")
            && let Some(target) = self.resolve_quiet(reference)
            && self.is_hidden(target, budget)
        {
            return true;
        }
        if let Some(Value::Array(members)) = obj.get("allOf") {
            return members.iter().any(|m| self.is_hidden(m, budget));
        }
        false
    }

    /// Adds the names of hidden properties of an `allOf` member (following `$ref`s and nested
    /// `allOf`s) to `out`.
    fn collect_hidden(&self, schema: &Value, budget: &mut usize, out: &mut BTreeSet<String>) {
        if *budget == 0 {
            return;
        }
        *budget -= 1;
        let Value::Object(obj) = schema else {
            return;
        };
        if let Some(Value::Object(props)) = obj.get("properties") {
            for (name, prop) in props {
                if self.is_hidden(prop, budget) {
                    out.insert(name.clone());
                }
            }
        }
        if let Some(Value::String(reference)) = obj.get("$ref")
            && let Some(target) = self.resolve_quiet(reference)
        {
            self.collect_hidden(target, budget, out);
        }
        if let Some(Value::Array(members)) = obj.get("allOf") {
            for member in members {
                self.collect_hidden(member, budget, out);
            }
        }
    }

    // ----- object_properties ------------------------------------------------------------------

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
            let pointer = pointer_from_segments(&segments);
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

    // ----- warnings ---------------------------------------------------------------------------

    fn warn(&mut self, ptr: &str, message: String) {
        self.warnings.push(Warning {
            location: format!("{} at `{}`", self.spec_path.display(), ptr),
            message,
        });
    }

    /// Warns that keyword `key` was dropped because its value is not `expected`.
    fn dropped(&mut self, ptr: &str, key: &str, expected: &str, found: &Value) {
        self.warn(
            ptr,
            format!(
                "`{key}` should be {expected}, found {}; dropped",
                kind(found)
            ),
        );
    }
}

/// The `$defs` name for the schema a local reference (`#/...`) points to.
///
/// A pure function of the pointer, so every converter over a document names a schema the same
/// way: `#/components/schemas/Pet` → `Pet`. Component names are kept when they consist of
/// `[A-Za-z0-9_.-]`; otherwise the other characters become `_` and `-` plus 8 hex digits of the
/// pointer's SHA-256 are appended (`Page«User»` → `Page_User_-1a2b3c4d`), so distinct names stay
/// distinct. Any other pointer becomes `ref__` + its segments joined with `_` + the hash suffix
/// (`#/paths/~1a/get/responses/200/content/application~1json/schema` →
/// `ref__paths_a_get_responses_200_content_application_json_schema-…`); component names starting
/// with `ref__` also get the suffix, so the two kinds never collide.
pub fn def_name_for_pointer(reference: &str) -> String {
    match parse_ref(reference) {
        Some(segments) => def_name_from_segments(&segments),
        None => {
            let body = sanitize(reference);
            let body = body.trim_matches('_');
            let body = if body.is_empty() { "root" } else { body };
            format!("{REF_PREFIX}{}-{}", truncate(body), short_hash(reference))
        }
    }
}

fn def_name_from_segments(segments: &[String]) -> String {
    let canonical = format!("#{}", pointer_from_segments(segments));
    if let [components, schemas, name] = segments
        && components == "components"
        && schemas == "schemas"
    {
        let clean = sanitize(name);
        if clean == *name
            && !clean.is_empty()
            && !clean.starts_with(REF_PREFIX)
            && clean.len() <= MAX_NAME_LEN
        {
            return clean;
        }
        let clean = if clean.is_empty() {
            "_"
        } else {
            truncate(&clean)
        };
        return format!("{clean}-{}", short_hash(&canonical));
    }
    let parts: Vec<String> = segments
        .iter()
        .map(|s| sanitize(s).trim_matches('_').to_owned())
        .filter(|s| !s.is_empty())
        .collect();
    let body = if parts.is_empty() {
        "root".to_owned()
    } else {
        parts.join("_")
    };
    format!("{REF_PREFIX}{}-{}", truncate(&body), short_hash(&canonical))
}

/// `[A-Za-z0-9_.-]` kept, every other character → `_`.
fn sanitize(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// At most [`MAX_NAME_LEN`] bytes of an ASCII name.
fn truncate(s: &str) -> &str {
    s.get(..MAX_NAME_LEN).unwrap_or(s)
}

fn short_hash(s: &str) -> String {
    let digest = Sha256::digest(s.as_bytes());
    hex::encode(&digest[..4])
}

/// `#/$defs/<name>`.
fn def_ref(name: &str) -> String {
    format!("#/$defs/{}", escape_pointer_segment(name))
}

/// Whether the document is OpenAPI 3.1 or later, where `$ref` siblings apply.
fn allows_ref_siblings(root: &Value) -> bool {
    let Some(version) = root.get("openapi").and_then(Value::as_str) else {
        return false;
    };
    let mut parts = version.trim().split('.');
    let major = parts.next().and_then(|p| p.parse::<u64>().ok());
    let minor = parts.next().and_then(|p| p.parse::<u64>().ok());
    matches!((major, minor), (Some(3), Some(m)) if m >= 1) || major.is_some_and(|m| m > 3)
}

/// Applies `nullable: true` to a converted schema.
fn make_nullable(mut out: Map<String, Value>) -> Value {
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
    const ANNOTATIONS: [&str; 8] = [
        "title",
        "description",
        "default",
        "examples",
        "deprecated",
        "readOnly",
        "writeOnly",
        "$comment",
    ];
    let mut outer = Map::new();
    for key in ANNOTATIONS {
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

/// Whether a pointer (as segments) can address a schema: `components/schemas/<name>`, a
/// `schema` of a parameter/media type/header, or a subschema of one of these. Pointers into
/// places this does not know (vendor extensions, a leftover top-level `definitions`) count as
/// schemas; the target must still be an object or a boolean.
fn is_schema_position(segments: &[String]) -> bool {
    #[derive(Clone, Copy, PartialEq)]
    enum At {
        OpenApi,
        SchemaMap,
        SchemaList,
        Schema,
        Data,
        Unknown,
    }
    let mut at = At::OpenApi;
    for (i, segment) in segments.iter().enumerate() {
        let s = segment.as_str();
        at = match at {
            At::OpenApi if i == 0 => match s {
                "components" | "paths" | "webhooks" => At::OpenApi,
                "openapi" | "info" | "servers" | "security" | "tags" | "externalDocs"
                | "jsonSchemaDialect" => At::Data,
                _ => At::Unknown,
            },
            At::OpenApi if i == 1 && segments[0] == "components" => match s {
                "schemas" => At::SchemaMap,
                _ if s.starts_with("x-") => At::Unknown,
                _ => At::OpenApi,
            },
            At::OpenApi => match s {
                "schema" => At::Schema,
                "example" | "examples" => At::Data,
                _ if s.starts_with("x-") => At::Unknown,
                _ => At::OpenApi,
            },
            At::SchemaMap | At::SchemaList => At::Schema,
            At::Schema => match s {
                _ if keywords::SUBSCHEMA.contains(&s) => At::Schema,
                _ if keywords::SUBSCHEMA_MAP.contains(&s) => At::SchemaMap,
                _ if keywords::SUBSCHEMA_LIST.contains(&s) => At::SchemaList,
                // Tuple `items: [..]`.
                _ if array_index(s).is_some() => At::Schema,
                "enum" | "const" | "default" | "example" | "examples" | "required" | "type"
                | "discriminator" | "xml" | "externalDocs" | "dependentRequired" => At::Data,
                _ => At::Unknown,
            },
            At::Data => At::Data,
            At::Unknown => At::Unknown,
        };
    }
    matches!(at, At::Schema | At::Unknown)
}

/// The segments of a local reference (`#/a/b`, percent-decoded, `~` escapes undone).
fn parse_ref(reference: &str) -> Option<Vec<String>> {
    let fragment = reference.strip_prefix('#')?;
    split_pointer(&percent_decode(fragment))
}

/// The segments of a JSON pointer (`/a/b`, `~` escapes undone).
fn split_pointer(pointer: &str) -> Option<Vec<String>> {
    if pointer.is_empty() {
        return Some(Vec::new());
    }
    let rest = pointer.strip_prefix('/')?;
    Some(
        rest.split('/')
            .map(|s| s.replace("~1", "/").replace("~0", "~"))
            .collect(),
    )
}

/// `ptr` + one escaped segment.
fn child(ptr: &str, segment: &str) -> String {
    format!("{ptr}/{}", escape_pointer_segment(segment))
}

/// An array index as JSON pointer writes it (no sign, no leading zeros).
fn array_index(segment: &str) -> Option<usize> {
    if segment.is_empty()
        || !segment.bytes().all(|b| b.is_ascii_digit())
        || (segment.len() > 1 && segment.starts_with('0'))
    {
        return None;
    }
    segment.parse().ok()
}

/// A number, or a string holding one.
fn as_number(value: &Value) -> Option<Value> {
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
fn as_count(value: &Value) -> Option<Value> {
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
fn unique_strings(values: &[Value]) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::new();
    for v in values {
        if v.is_string() && !out.contains(v) {
            out.push(v.clone());
        }
    }
    out
}

/// A name → array-of-names map with everything but unique strings removed.
fn string_arrays(map: &Map<String, Value>) -> Map<String, Value> {
    map.iter()
        .filter_map(|(k, v)| match v {
            Value::Array(names) => Some((k.clone(), Value::Array(unique_strings(names)))),
            _ => None,
        })
        .collect()
}

/// What kind of JSON value this is, for messages.
fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// `{}`: any value.
fn any() -> Value {
    Value::Object(Map::new())
}
