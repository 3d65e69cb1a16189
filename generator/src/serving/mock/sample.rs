//! A value that fits a JSON Schema (2020-12, as the engine's converter writes it), drawn from a
//! seeded generator: the same schema and seed give the same value.
//!
//! Types, formats, enums, `const`, bounds, patterns, required properties, `$ref`s into `$defs`,
//! `allOf` (merged), `anyOf`/`oneOf` (one alternative) and arrays of a few items are followed.
//! Recursive schemas end: past [`FULL_DEPTH`] levels (or [`MAX_VALUES`] values made, for wide
//! schemas) only required properties and the fewest items are made, and past [`MAX_DEPTH`] the
//! smallest value the schema's type allows.

use std::cell::Cell;

use serde_json::{Map, Number, Value};

use super::pattern::string_matching;
use super::seed::Rng;

/// Levels under which optional properties and array items beyond the minimum are made.
const FULL_DEPTH: usize = 4;
/// Levels after which the smallest value of the schema's type is made.
const MAX_DEPTH: usize = 24;
/// Values made for one call of [`Sampler::value`] after which only what is required is made.
const MAX_VALUES: usize = 2_000;
/// Items in an array without bounds.
const DEFAULT_ITEMS: usize = 2;

/// Makes values for the schemas of one document, `root`, whose `$ref`s are local (`#/$defs/…`).
pub(crate) struct Sampler<'a> {
    root: &'a Value,
    /// Whether a schema's `examples` are used where it has them.
    pub(crate) examples: bool,
    /// Values made so far by the current [`Sampler::value`].
    made: Cell<usize>,
}

impl<'a> Sampler<'a> {
    /// A sampler resolving `$ref`s in `root`; schema examples are used.
    pub(crate) fn new(root: &'a Value) -> Self {
        Sampler {
            root,
            examples: true,
            made: Cell::new(0),
        }
    }

    /// A value for `schema`.
    pub(crate) fn value(&self, schema: &Value, rng: &mut Rng) -> Value {
        self.made.set(0);
        self.sample(schema, rng, 0)
    }

    /// Whether optional parts are still made at `depth`.
    fn full(&self, depth: usize) -> bool {
        depth < FULL_DEPTH && self.made.get() < MAX_VALUES
    }

    fn resolve<'v>(&self, schema: &'v Value) -> &'v Value
    where
        'a: 'v,
    {
        let mut current = schema;
        for _ in 0..32 {
            let Some(target) = current
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| r.strip_prefix('#'))
                .and_then(|p| self.root.pointer(p))
            else {
                break;
            };
            current = target;
        }
        current
    }

    fn sample(&self, schema: &Value, rng: &mut Rng, depth: usize) -> Value {
        let Value::Object(map) = schema else {
            return Value::String("example".into());
        };
        if depth > MAX_DEPTH {
            return smallest(self.type_of(map, depth));
        }
        self.made.set(self.made.get() + 1);
        if let Some(target) = map
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| r.strip_prefix('#'))
            .and_then(|p| self.root.pointer(p))
        {
            let siblings = map.keys().any(|k| k != "$ref" && k != "description");
            if !siblings {
                return self.sample(target, rng, depth + 1);
            }
            let mut rest = map.clone();
            rest.remove("$ref");
            let merged = self.merge(&[target, &Value::Object(rest)]);
            return self.sample(&merged, rng, depth + 1);
        }
        if self.examples
            && let Some(example) = map.get("examples").and_then(Value::as_array)
            && let Some(first) = example.first()
        {
            return first.clone();
        }
        if let Some(value) = map.get("const") {
            return value.clone();
        }
        if let Some(values) = map.get("enum").and_then(Value::as_array)
            && !values.is_empty()
        {
            let non_null: Vec<&Value> = values.iter().filter(|v| !v.is_null()).collect();
            if non_null.is_empty() {
                return Value::Null;
            }
            return non_null[rng.below(non_null.len())].clone();
        }
        if let Some(all) = map.get("allOf").and_then(Value::as_array) {
            let mut parts: Vec<&Value> = all.iter().collect();
            let mut rest = map.clone();
            rest.remove("allOf");
            let rest = Value::Object(rest);
            parts.push(&rest);
            let merged = self.merge(&parts);
            return self.sample(&merged, rng, depth + 1);
        }
        for key in ["oneOf", "anyOf"] {
            if let Some(alternatives) = map.get(key).and_then(Value::as_array)
                && let Some(chosen) = self.alternative(alternatives, depth)
            {
                let mut rest = map.clone();
                rest.remove(key);
                let merged = self.merge(&[chosen, &Value::Object(rest)]);
                return self.sample(&merged, rng, depth + 1);
            }
        }
        match self.type_of(map, depth) {
            "null" => Value::Null,
            "boolean" => Value::Bool(rng.below(2) == 0),
            "integer" => integer(map, rng),
            "number" => number(map, rng),
            "array" => self.array(map, rng, depth),
            "object" => self.object(map, rng, depth),
            _ => string(map, rng),
        }
    }

    /// The alternative of a `oneOf`/`anyOf` to make: the first that is not `null` (past the
    /// depth limit, a `null` one if there is one, so that recursion ends).
    fn alternative<'v>(&self, alternatives: &'v [Value], depth: usize) -> Option<&'v Value> {
        let is_null = |v: &Value| self.resolve(v).get("type") == Some(&Value::from("null"));
        if !self.full(depth)
            && let Some(null) = alternatives.iter().find(|v| is_null(v))
        {
            return Some(null);
        }
        alternatives
            .iter()
            .find(|v| !is_null(v))
            .or(alternatives.first())
    }

    /// The type to make: the schema's (the first that is not `null`, or `null` past the depth
    /// limit when allowed), else the one its keywords imply.
    fn type_of(&self, map: &Map<String, Value>, depth: usize) -> &'static str {
        let names: Vec<&str> = match map.get("type") {
            Some(Value::String(t)) => vec![t.as_str()],
            Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        if !self.full(depth) && names.contains(&"null") {
            return "null";
        }
        let known = [
            "object", "array", "string", "integer", "number", "boolean", "null",
        ];
        if let Some(name) = names.iter().find(|n| **n != "null") {
            return known.into_iter().find(|k| k == name).unwrap_or("string");
        }
        if names.contains(&"null") {
            return "null";
        }
        if map.contains_key("properties") || map.contains_key("required") {
            "object"
        } else if map.contains_key("items") || map.contains_key("prefixItems") {
            "array"
        } else if ["minimum", "maximum", "multipleOf"]
            .iter()
            .any(|k| map.contains_key(*k))
        {
            "number"
        } else {
            "string"
        }
    }

    /// One schema holding the constraints of `parts` (the members of an `allOf`, `$ref`s
    /// followed): properties and `required` joined, a property in several parts kept as the
    /// `allOf` of its schemas, other keywords from the first part that has them.
    fn merge(&self, parts: &[&Value]) -> Value {
        let mut merged = Map::new();
        let mut properties = Map::new();
        let mut required: Vec<Value> = Vec::new();
        let mut flat = Vec::new();
        self.flatten(parts, &mut flat, 0);
        for part in flat {
            let Value::Object(part) = part else { continue };
            for (key, value) in part {
                match key.as_str() {
                    "properties" => {
                        for (name, schema) in value.as_object().into_iter().flatten() {
                            match properties.get_mut(name) {
                                Some(existing) => {
                                    let both = Value::Array(vec![existing.clone(), schema.clone()]);
                                    *existing = serde_json::json!({ "allOf": both });
                                }
                                None => {
                                    properties.insert(name.clone(), schema.clone());
                                }
                            }
                        }
                    }
                    "required" => {
                        for name in value.as_array().into_iter().flatten() {
                            if !required.contains(name) {
                                required.push(name.clone());
                            }
                        }
                    }
                    // Followed and opened by `flatten`; kept, they would be merged again.
                    "$ref" | "allOf" | "description" | "title" => {}
                    _ => {
                        merged.entry(key.clone()).or_insert_with(|| value.clone());
                    }
                }
            }
        }
        if !properties.is_empty() {
            merged.insert("properties".into(), Value::Object(properties));
            merged
                .entry("type".to_owned())
                .or_insert_with(|| Value::from("object"));
        }
        if !required.is_empty() {
            merged.insert("required".into(), Value::Array(required));
        }
        Value::Object(merged)
    }

    /// `parts` with `$ref`s followed and nested `allOf`s opened.
    fn flatten<'v>(&self, parts: &[&'v Value], out: &mut Vec<&'v Value>, depth: usize)
    where
        'a: 'v,
    {
        for part in parts {
            let part = match part.get("$ref") {
                Some(_) if depth < MAX_DEPTH => {
                    let target = self.resolve(part);
                    if std::ptr::eq(target, *part) {
                        out.push(part);
                        continue;
                    }
                    self.flatten(&[target], out, depth + 1);
                    // Siblings of the `$ref` (OpenAPI 3.1) apply too.
                    out.push(part);
                    continue;
                }
                _ => *part,
            };
            match part.get("allOf").and_then(Value::as_array) {
                Some(all) if depth < MAX_DEPTH => {
                    let members: Vec<&Value> = all.iter().collect();
                    self.flatten(&members, out, depth + 1);
                    out.push(part);
                }
                _ => out.push(part),
            }
        }
    }

    fn array(&self, map: &Map<String, Value>, rng: &mut Rng, depth: usize) -> Value {
        let min = count(map, "minItems").unwrap_or(0);
        let max = count(map, "maxItems").unwrap_or(usize::MAX);
        let mut items = Vec::new();
        if let Some(prefix) = map.get("prefixItems").and_then(Value::as_array) {
            for schema in prefix.iter().take(max) {
                items.push(self.sample(schema, rng, depth + 1));
            }
        }
        let wanted = if !self.full(depth) {
            min
        } else {
            DEFAULT_ITEMS.clamp(min, max.max(min))
        };
        let schema = match map.get("items") {
            Some(Value::Bool(false)) => return Value::Array(items),
            Some(schema) => schema.clone(),
            None => Value::Object(Map::new()),
        };
        let unique = map.get("uniqueItems") == Some(&Value::Bool(true));
        let mut tries = 0;
        while items.len() < wanted && tries < wanted * 8 + 8 {
            tries += 1;
            let item = self.sample(&schema, rng, depth + 1);
            if unique && items.contains(&item) {
                continue;
            }
            items.push(item);
        }
        Value::Array(items)
    }

    fn object(&self, map: &Map<String, Value>, rng: &mut Rng, depth: usize) -> Value {
        let mut out = Map::new();
        let required: Vec<&str> = map
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let properties = map.get("properties").and_then(Value::as_object);
        let additional = map.get("additionalProperties");
        for (name, schema) in properties.into_iter().flatten() {
            let needed = required.contains(&name.as_str());
            if needed || (self.full(depth) && schema != &Value::Bool(false)) {
                out.insert(name.clone(), self.sample(schema, rng, depth + 1));
            }
        }
        let extra = match additional {
            Some(Value::Bool(false)) => None,
            Some(schema @ Value::Object(_)) => Some(schema.clone()),
            _ => Some(Value::Object(Map::new())),
        };
        for name in required {
            if !out.contains_key(name) {
                let schema = extra.clone().unwrap_or(Value::Object(Map::new()));
                out.insert(name.to_owned(), self.sample(&schema, rng, depth + 1));
            }
        }
        let min = count(map, "minProperties").unwrap_or(0);
        let wants_entry = properties.is_none_or(Map::is_empty)
            && matches!(additional, Some(Value::Object(_)))
            && self.full(depth);
        let mut i = 1;
        while let Some(schema) = &extra
            && (out.len() < min || (wants_entry && out.is_empty()))
            && i < 64
        {
            out.insert(format!("key{i}"), self.sample(schema, rng, depth + 1));
            i += 1;
        }
        Value::Object(out)
    }
}

/// The smallest value of a type, where recursion has to end.
fn smallest(kind: &str) -> Value {
    match kind {
        "object" => Value::Object(Map::new()),
        "array" => Value::Array(Vec::new()),
        "integer" | "number" => Value::from(0),
        "boolean" => Value::Bool(false),
        "string" => Value::String(String::new()),
        _ => Value::Null,
    }
}

fn count(map: &Map<String, Value>, key: &str) -> Option<usize> {
    map.get(key)
        .and_then(Value::as_u64)
        .map(|n| n.min(64) as usize)
}

fn bound(map: &Map<String, Value>, key: &str) -> Option<f64> {
    map.get(key).and_then(Value::as_f64)
}

/// The lowest and highest values allowed, bounds that are not there chosen around them.
fn range(map: &Map<String, Value>, step: f64) -> (f64, f64) {
    let low = match (bound(map, "minimum"), bound(map, "exclusiveMinimum")) {
        (Some(a), Some(b)) => Some(a.max(b + step)),
        (a, b) => a.or(b.map(|b| b + step)),
    };
    let high = match (bound(map, "maximum"), bound(map, "exclusiveMaximum")) {
        (Some(a), Some(b)) => Some(a.min(b - step)),
        (a, b) => a.or(b.map(|b| b - step)),
    };
    match (low, high) {
        (Some(l), Some(h)) => (l, h.max(l)),
        (Some(l), None) => (l, l + 99.0),
        (None, Some(h)) => (if h >= 1.0 { 1.0 } else { h - 99.0 }, h),
        (None, None) => (1.0, 100.0),
    }
}

fn integer(map: &Map<String, Value>, rng: &mut Rng) -> Value {
    let (low, high) = range(map, 1.0);
    let (low, high) = (low.ceil() as i64, high.floor() as i64);
    let span = (high.saturating_sub(low)).clamp(0, 1_000_000) as usize;
    let mut n = low.saturating_add(rng.below(span + 1) as i64);
    if let Some(step) = map
        .get("multipleOf")
        .and_then(Value::as_i64)
        .filter(|s| *s > 0)
    {
        n = n.div_euclid(step) * step;
        if n < low {
            n = n.saturating_add(step);
        }
    }
    Value::Number(Number::from(n))
}

fn number(map: &Map<String, Value>, rng: &mut Rng) -> Value {
    if map.contains_key("multipleOf") {
        return integer(map, rng);
    }
    let lowest = [bound(map, "minimum"), bound(map, "exclusiveMinimum")]
        .into_iter()
        .flatten()
        .reduce(f64::max);
    let highest = [bound(map, "maximum"), bound(map, "exclusiveMaximum")]
        .into_iter()
        .flatten()
        .reduce(f64::min);
    if let (Some(l), Some(h)) = (lowest, highest)
        && h - l < 1.0
    {
        // A narrow range: its middle is inside whether its bounds are exclusive or not.
        return Number::from_f64((l + h) / 2.0)
            .map(Value::Number)
            .unwrap_or(Value::from(0));
    }
    let (low, high) = range(map, 0.5);
    let span = high - low;
    let tenths = (span * 10.0).clamp(0.0, 1_000_000.0) as usize;
    let n = low + rng.below(tenths + 1) as f64 / 10.0;
    Number::from_f64(n.min(high))
        .map(Value::Number)
        .unwrap_or(Value::from(0))
}

fn string(map: &Map<String, Value>, rng: &mut Rng) -> Value {
    let n = rng.below(1000);
    if let Some(pattern) = map.get("pattern").and_then(Value::as_str)
        && let Some(s) = string_matching(pattern, rng)
    {
        return Value::String(s);
    }
    let formatted = match map.get("format").and_then(Value::as_str).unwrap_or("") {
        "date-time" => Some(format!(
            "2024-{:02}-{:02}T{:02}:{:02}:00Z",
            1 + n % 12,
            1 + n % 28,
            n % 24,
            n % 60
        )),
        "date" => Some(format!("2024-{:02}-{:02}", 1 + n % 12, 1 + n % 28)),
        "time" => Some(format!("{:02}:{:02}:00Z", n % 24, n % 60)),
        "uuid" => Some(format!(
            "{:08x}-{:04x}-4{:03x}-8{:03x}-{:012x}",
            rng.next_u64() as u32,
            rng.next_u64() as u16,
            rng.next_u64() & 0xfff,
            rng.next_u64() & 0xfff,
            rng.next_u64() & 0xffff_ffff_ffff
        )),
        "email" | "idn-email" => Some(format!("user{n}@example.com")),
        "uri" | "url" | "iri" => Some(format!("https://example.com/items/{n}")),
        "uri-reference" | "iri-reference" => Some(format!("/items/{n}")),
        "hostname" | "idn-hostname" => Some(format!("host{n}.example.com")),
        "ipv4" => Some(format!("192.0.2.{}", n % 255)),
        "ipv6" => Some(format!("2001:db8::{:x}", n)),
        "byte" => Some("ZXhhbXBsZQ==".to_owned()),
        "binary" => Some("example".to_owned()),
        "duration" => Some(format!("PT{}M", 1 + n % 59)),
        _ => None,
    };
    if let Some(s) = formatted {
        return Value::String(s);
    }
    let min = count(map, "minLength").unwrap_or(0);
    let max = map
        .get("maxLength")
        .and_then(Value::as_u64)
        .map_or(usize::MAX, |m| m as usize);
    let mut s = format!("example-{n}");
    while s.chars().count() < min {
        s.push('x');
    }
    if s.chars().count() > max {
        s = s.chars().take(max.max(min)).collect();
    }
    Value::String(s)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn check(root: &Value, seed: u64) -> Value {
        let value = Sampler::new(root).value(root, &mut Rng::new(seed));
        let validator = jsonschema::draft202012::new(root).expect("compiles");
        assert!(
            validator.is_valid(&value),
            "{value:#} does not fit {root:#}"
        );
        value
    }

    #[test]
    fn values_fit_their_schemas() {
        let root = json!({
            "$defs": {
                "Node": {"type": "object", "required": ["id", "children"], "properties": {
                    "id": {"type": "integer", "minimum": 5, "maximum": 6},
                    "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
                    "parent": {"anyOf": [{"$ref": "#/$defs/Node"}, {"type": "null"}]}
                }},
                "Base": {"type": "object", "required": ["kind"],
                         "properties": {"kind": {"const": "a"}}}
            },
            "type": "object",
            "required": ["node", "tags", "when", "code", "both", "price", "ratio"],
            "properties": {
                "node": {"$ref": "#/$defs/Node"},
                "tags": {"type": "array", "minItems": 3, "uniqueItems": true,
                         "items": {"type": "string", "enum": ["x", "y", "z", "w"]}},
                "when": {"type": "string", "format": "date-time"},
                "code": {"type": "string", "pattern": "^[A-Z]{3}$"},
                "both": {"allOf": [{"$ref": "#/$defs/Base"},
                                   {"type": "object", "required": ["n"],
                                    "properties": {"n": {"type": "number", "exclusiveMinimum": 0, "maximum": 1}}}]},
                "price": {"type": "number", "multipleOf": 5, "minimum": 1},
                "name": {"type": "string", "minLength": 16, "maxLength": 20},
                "ratio": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 0.1}
            }
        });
        for seed in 0..30 {
            check(&root, seed);
        }
        assert_eq!(check(&root, 7), check(&root, 7));
    }
}
