//! How much of a tool's arguments `tools/list` shows: the argument paths of an input schema
//! (`line_items[].price`) to a depth, and the share of the full schema's paths that the
//! advertised (budgeted) schema still has.
//!
//! A path names properties from the root, joined by `.`; `[]` marks the items of an array and
//! does not count towards the depth. References into the schema's own `$defs` (`definitions`
//! in the draft-07 profile's schemas) and the members of `allOf` / `anyOf` / `oneOf` are
//! followed. A path is required when every property on it is required by its parent (the
//! parent's `required`, or that of the object whose `allOf` holds it).

use std::collections::BTreeMap;

use mcpgen_core::json_pointer;
use serde_json::{Map, Value};

/// The depth `mcpgen sizes` measures to.
pub const COVERAGE_DEPTH: usize = 4;

/// How many references in a row are followed before a path is given up (recursion).
const MAX_HOPS: usize = 16;

/// The argument paths of `schema` with at most `max_depth` property names, each with whether
/// it is required.
pub fn argument_paths(schema: &Value, max_depth: usize) -> BTreeMap<String, bool> {
    let defs = schema
        .get("$defs")
        .or_else(|| schema.get("definitions"))
        .and_then(Value::as_object);
    let mut out = BTreeMap::new();
    let mut walk = PathWalk {
        defs,
        max_depth,
        out: &mut out,
    };
    walk.node(schema, "", 0, true, &[], 0);
    out
}

struct PathWalk<'a> {
    defs: Option<&'a Map<String, Value>>,
    max_depth: usize,
    out: &'a mut BTreeMap<String, bool>,
}

impl PathWalk<'_> {
    fn node(
        &mut self,
        node: &Value,
        prefix: &str,
        depth: usize,
        required: bool,
        inherited: &[String],
        hops: usize,
    ) {
        let Value::Object(map) = node else {
            return;
        };
        if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
            let target = reference
                .strip_prefix("#/$defs/")
                .or_else(|| reference.strip_prefix("#/definitions/"))
                .map(json_pointer::unescape)
                .and_then(|n| self.defs.and_then(|d| d.get(&n)));
            if let Some(target) = target
                && hops < MAX_HOPS
            {
                self.node(target, prefix, depth, required, inherited, hops + 1);
            }
        }
        let mut names: Vec<String> = inherited.to_vec();
        if let Some(Value::Array(list)) = map.get("required") {
            names.extend(list.iter().filter_map(Value::as_str).map(str::to_owned));
        }
        for key in ["allOf", "anyOf", "oneOf"] {
            if let Some(Value::Array(members)) = map.get(key) {
                for member in members {
                    self.node(member, prefix, depth, required, &names, hops + 1);
                }
            }
        }
        if let Some(items) = map.get("items") {
            self.node(items, &format!("{prefix}[]"), depth, required, &[], hops);
        }
        let Some(Value::Object(props)) = map.get("properties") else {
            return;
        };
        if depth >= self.max_depth {
            return;
        }
        for (name, sub) in props {
            let path = if prefix.is_empty() {
                name.clone()
            } else {
                format!("{prefix}.{name}")
            };
            let is_required = required && names.contains(name);
            let entry = self.out.entry(path.clone()).or_insert(false);
            *entry |= is_required;
            self.node(sub, &path, depth + 1, is_required, &[], 0);
        }
    }
}

/// Argument paths of a full schema and how many of them an advertised schema shows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Coverage {
    /// Paths of the full schema.
    pub paths: usize,
    /// Of those, the ones the advertised schema has too.
    pub visible: usize,
    /// Required paths of the full schema.
    pub required: usize,
    /// Of those, the ones the advertised schema has too.
    pub required_visible: usize,
}

impl Coverage {
    /// The paths (to `max_depth`) of `full` that `advertised` shows.
    pub fn of(advertised: &Value, full: &Value, max_depth: usize) -> Coverage {
        let shown = argument_paths(advertised, max_depth);
        let mut c = Coverage::default();
        for (path, required) in argument_paths(full, max_depth) {
            let visible = shown.contains_key(&path);
            c.paths += 1;
            c.visible += usize::from(visible);
            c.required += usize::from(required);
            c.required_visible += usize::from(required && visible);
        }
        c
    }

    /// Adds another tool's counts.
    pub fn add(&mut self, other: Coverage) {
        self.paths += other.paths;
        self.visible += other.visible;
        self.required += other.required;
        self.required_visible += other.required_visible;
    }

    /// The visible share of all paths, in percent (100 when there are none).
    pub fn visible_percent(&self) -> f64 {
        percent(self.visible, self.paths)
    }

    /// The visible share of the required paths, in percent (100 when there are none).
    pub fn required_percent(&self) -> f64 {
        percent(self.required_visible, self.required)
    }
}

fn percent(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        100.0
    } else {
        part as f64 * 100.0 / whole as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn paths_follow_items_refs_and_compositions_to_the_depth() {
        let schema = json!({
            "type": "object",
            "required": ["line_items"],
            "properties": {
                "line_items": {"type": "array", "items": {"$ref": "#/$defs/Item"}},
                "mode": {"type": "string"}
            },
            "$defs": {
                "Item": {
                    "required": ["price"],
                    "allOf": [{"properties": {"price": {"type": "string"}}}],
                    "properties": {"adjustable": {"properties": {"max": {"properties": {"deep": {"properties": {"deeper": {}}}}}}}}
                }
            }
        });
        let paths = argument_paths(&schema, 4);
        let listed: Vec<(&str, bool)> = paths.iter().map(|(p, r)| (p.as_str(), *r)).collect();
        assert_eq!(
            listed,
            [
                ("line_items", true),
                ("line_items[].adjustable", false),
                ("line_items[].adjustable.max", false),
                ("line_items[].adjustable.max.deep", false),
                ("line_items[].price", true),
                ("mode", false),
            ]
        );
        let summarised = json!({
            "type": "object",
            "properties": {"line_items": {"type": "array"}, "mode": {"type": "string"}}
        });
        let c = Coverage::of(&summarised, &schema, 4);
        assert_eq!(
            (c.paths, c.visible, c.required, c.required_visible),
            (6, 2, 2, 1)
        );
        assert_eq!(c.required_percent(), 50.0);
    }

    #[test]
    fn draft_07_definitions_are_followed() {
        let schema = json!({
            "properties": {"item": {"$ref": "#/definitions/Item"}},
            "required": ["item"],
            "definitions": {"Item": {"required": ["id"], "properties": {"id": {}}}}
        });
        let paths = argument_paths(&schema, 4);
        assert_eq!(paths.get("item.id"), Some(&true), "{paths:?}");
    }

    #[test]
    fn recursive_references_terminate() {
        let schema = json!({
            "properties": {"node": {"$ref": "#/$defs/N"}},
            "$defs": {"N": {"$ref": "#/$defs/N", "properties": {"next": {"$ref": "#/$defs/N"}}}}
        });
        let paths = argument_paths(&schema, 4);
        assert_eq!(paths.len(), 4, "{paths:?}");
    }
}
