//! Schema comparison: which input changes break calls that worked and which keep them
//! working, and what changed in an output schema. Local `$ref`s (`#/$defs/...`) are followed
//! within each schema; a definition reached again on the same path is not compared twice.

use std::collections::BTreeSet;

use mcpgen_core::json_pointer;
use serde_json::{Map, Value};

use super::ChangeKind;

/// Deepest nesting compared (schemas are budgeted, so real ones stay far below).
const MAX_DEPTH: usize = 32;

/// Whether the schemas are inputs (what callers send) or outputs (what they receive).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    Input,
    Output,
}

struct Walk<'a> {
    old_root: &'a Value,
    new_root: &'a Value,
    side: Side,
    out: Vec<(ChangeKind, String, String)>,
}

/// Input changes: (kind, pointer inside the schema, message).
pub(super) fn compare_input(old: &Value, new: &Value) -> Vec<(ChangeKind, String, String)> {
    let mut walk = Walk {
        old_root: old,
        new_root: new,
        side: Side::Input,
        out: Vec::new(),
    };
    walk.node(old, new, String::new(), &mut Vec::new(), 0);
    walk.out
}

/// Output changes: (pointer inside the schema, message).
pub(super) fn compare_output(old: &Value, new: &Value) -> Vec<(String, String)> {
    let mut walk = Walk {
        old_root: old,
        new_root: new,
        side: Side::Output,
        out: Vec::new(),
    };
    walk.node(old, new, String::new(), &mut Vec::new(), 0);
    walk.out.into_iter().map(|(_, p, m)| (p, m)).collect()
}

/// Follows a local `$ref` (`#/...`) in `root`, up to a few hops; the ref names followed are
/// added to `seen`.
fn resolve<'a>(root: &'a Value, mut schema: &'a Value, seen: &mut Vec<String>) -> &'a Value {
    for _ in 0..8 {
        let Some(r) = schema.get("$ref").and_then(Value::as_str) else {
            break;
        };
        let Some(pointer) = r.strip_prefix('#') else {
            break;
        };
        match root.pointer(pointer) {
            Some(target) => {
                seen.push(r.to_owned());
                schema = target;
            }
            None => break,
        }
    }
    schema
}

/// The JSON types a schema accepts; `None` for any.
fn types(schema: &Value) -> Option<BTreeSet<String>> {
    match schema.get("type") {
        Some(Value::String(t)) => Some(BTreeSet::from([t.clone()])),
        Some(Value::Array(list)) => Some(
            list.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect(),
        ),
        _ => None,
    }
}

fn accepts(set: &Option<BTreeSet<String>>, t: &str) -> bool {
    match set {
        None => true,
        Some(s) => s.contains(t) || (t == "integer" && s.contains("number")),
    }
}

fn show_types(set: &Option<BTreeSet<String>>) -> String {
    match set {
        None => "any".to_owned(),
        Some(s) => s.iter().cloned().collect::<Vec<_>>().join(" | "),
    }
}

fn show_values(values: &[&Value]) -> String {
    values
        .iter()
        .map(|v| v.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Lower bounds (a higher value accepts less) and upper bounds (a lower value accepts less).
const LOWER: [&str; 4] = ["minimum", "exclusiveMinimum", "minLength", "minItems"];
const UPPER: [&str; 4] = ["maximum", "exclusiveMaximum", "maxLength", "maxItems"];

impl Walk<'_> {
    fn push(&mut self, kind: ChangeKind, pointer: &str, message: String) {
        let kind = match self.side {
            Side::Input => kind,
            Side::Output => ChangeKind::Output,
        };
        self.out.push((kind, pointer.to_owned(), message));
    }

    /// What a property is called in messages: top-level input properties are arguments.
    fn noun(&self, pointer: &str) -> &'static str {
        if self.side == Side::Input && pointer.is_empty() {
            "argument"
        } else {
            "property"
        }
    }

    fn node(
        &mut self,
        old: &Value,
        new: &Value,
        pointer: String,
        seen: &mut Vec<String>,
        depth: usize,
    ) {
        if depth > MAX_DEPTH {
            return;
        }
        let mark = seen.len();
        let before: BTreeSet<String> = seen.iter().cloned().collect();
        let old = resolve(self.old_root, old, seen);
        let new = resolve(self.new_root, new, seen);
        // A definition already compared on this path: recursion, stop here.
        if seen[mark..].iter().any(|r| before.contains(r)) {
            seen.truncate(mark);
            return;
        }
        self.types(old, new, &pointer);
        self.enums(old, new, &pointer);
        self.bounds(old, new, &pointer);
        self.properties(old, new, &pointer, seen, depth);
        if let (Some(a), Some(b)) = (old.get("items"), new.get("items"))
            && a.is_object()
            && b.is_object()
        {
            self.node(a, b, format!("{pointer}/items"), seen, depth + 1);
        }
        seen.truncate(mark);
    }

    fn types(&mut self, old: &Value, new: &Value, pointer: &str) {
        let (a, b) = (types(old), types(new));
        if a == b {
            return;
        }
        let narrowed = match &a {
            None => b.is_some(),
            Some(set) => set.iter().any(|t| !accepts(&b, t)),
        };
        let message = format!("type {} → {}", show_types(&a), show_types(&b));
        if narrowed {
            self.push(
                ChangeKind::Breaking,
                pointer,
                format!("{message} (narrowed)"),
            );
        } else {
            self.push(
                ChangeKind::Compatible,
                pointer,
                format!("{message} (widened)"),
            );
        }
    }

    fn enums(&mut self, old: &Value, new: &Value, pointer: &str) {
        let (a, b) = (
            old.get("enum").and_then(Value::as_array),
            new.get("enum").and_then(Value::as_array),
        );
        match (a, b) {
            (None, None) => {}
            (None, Some(values)) => self.push(
                ChangeKind::Breaking,
                &format!("{pointer}/enum"),
                format!(
                    "now limited to the values {}",
                    show_values(&values.iter().collect::<Vec<_>>())
                ),
            ),
            (Some(_), None) => self.push(
                ChangeKind::Compatible,
                &format!("{pointer}/enum"),
                "no longer limited to a list of values".into(),
            ),
            (Some(a), Some(b)) => {
                let removed: Vec<&Value> = a.iter().filter(|v| !b.contains(v)).collect();
                let added: Vec<&Value> = b.iter().filter(|v| !a.contains(v)).collect();
                if !removed.is_empty() {
                    let message = match self.side {
                        Side::Input => format!("enum value removed: {}", show_values(&removed)),
                        Side::Output => {
                            format!("enum value no longer returned: {}", show_values(&removed))
                        }
                    };
                    self.push(ChangeKind::Breaking, &format!("{pointer}/enum"), message);
                }
                if !added.is_empty() {
                    let message = match self.side {
                        Side::Input => format!("enum value added: {}", show_values(&added)),
                        Side::Output => {
                            format!("new enum value may be returned: {}", show_values(&added))
                        }
                    };
                    self.push(ChangeKind::Compatible, &format!("{pointer}/enum"), message);
                }
            }
        }
    }

    fn bounds(&mut self, old: &Value, new: &Value, pointer: &str) {
        let num = |v: &Value, k: &str| v.get(k).and_then(Value::as_f64);
        for (keys, tighter) in [(LOWER, true), (UPPER, false)] {
            for key in keys {
                let (a, b) = (num(old, key), num(new, key));
                if a == b {
                    continue;
                }
                let stricter = match (a, b) {
                    (None, Some(_)) => true,
                    (Some(_), None) => false,
                    (Some(a), Some(b)) => (b > a) == tighter,
                    (None, None) => false,
                };
                let show = |v: Option<f64>| v.map_or("none".to_owned(), |v| v.to_string());
                let message = format!("{key} {} → {}", show(a), show(b));
                let kind = if stricter {
                    ChangeKind::Breaking
                } else {
                    ChangeKind::Compatible
                };
                self.push(kind, &format!("{pointer}/{key}"), message);
            }
        }
        let (a, b) = (old.get("pattern"), new.get("pattern"));
        if a != b {
            let kind = if b.is_some() {
                ChangeKind::Breaking
            } else {
                ChangeKind::Compatible
            };
            let show = |v: Option<&Value>| v.map_or("none".to_owned(), Value::to_string);
            self.push(
                kind,
                &format!("{pointer}/pattern"),
                format!("pattern {} → {}", show(a), show(b)),
            );
        }
    }

    fn properties(
        &mut self,
        old: &Value,
        new: &Value,
        pointer: &str,
        seen: &mut Vec<String>,
        depth: usize,
    ) {
        let empty = Map::new();
        let props = |v: &Value| v.get("properties").and_then(Value::as_object).cloned();
        let (a, b) = (props(old), props(new));
        if a.is_none() && b.is_none() {
            return;
        }
        let (a, b) = (a.unwrap_or_else(|| empty.clone()), b.unwrap_or(empty));
        let required = |v: &Value| -> BTreeSet<String> {
            v.get("required")
                .and_then(Value::as_array)
                .map(|r| {
                    r.iter()
                        .filter_map(Value::as_str)
                        .map(str::to_owned)
                        .collect()
                })
                .unwrap_or_default()
        };
        let (ra, rb) = (required(old), required(new));
        let noun = self.noun(pointer);
        for (name, schema_a) in &a {
            let at = format!("{pointer}/properties/{}", json_pointer::escape(name));
            match b.get(name) {
                None => {
                    let message = match self.side {
                        Side::Input => format!("{noun} `{name}` removed"),
                        Side::Output => format!("{noun} `{name}` no longer returned"),
                    };
                    self.push(ChangeKind::Breaking, &at, message);
                }
                Some(schema_b) => {
                    match (ra.contains(name), rb.contains(name), self.side) {
                        (false, true, Side::Input) => self.push(
                            ChangeKind::Breaking,
                            &at,
                            format!("{noun} `{name}` is now required"),
                        ),
                        (true, false, Side::Input) => self.push(
                            ChangeKind::Compatible,
                            &at,
                            format!("{noun} `{name}` is now optional"),
                        ),
                        (false, true, Side::Output) => self.push(
                            ChangeKind::Compatible,
                            &at,
                            format!("{noun} `{name}` is now always returned"),
                        ),
                        (true, false, Side::Output) => self.push(
                            ChangeKind::Breaking,
                            &at,
                            format!("{noun} `{name}` may now be missing"),
                        ),
                        _ => {}
                    }
                    self.node(schema_a, schema_b, at, seen, depth + 1);
                }
            }
        }
        for name in b.keys().filter(|n| !a.contains_key(*n)) {
            let at = format!("{pointer}/properties/{}", json_pointer::escape(name));
            match self.side {
                Side::Input if rb.contains(name) => self.push(
                    ChangeKind::Breaking,
                    &at,
                    format!("new required {noun} `{name}`"),
                ),
                Side::Input => self.push(
                    ChangeKind::Compatible,
                    &at,
                    format!("new optional {noun} `{name}`"),
                ),
                Side::Output => self.push(
                    ChangeKind::Compatible,
                    &at,
                    format!("new {noun} `{name}` returned"),
                ),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn kinds(old: Value, new: Value) -> Vec<(ChangeKind, String, String)> {
        compare_input(&old, &new)
    }

    #[test]
    fn breaking_input_changes() {
        let old = json!({"type": "object", "properties": {
            "id": {"type": ["string", "integer"]},
            "genre": {"type": "string", "enum": ["crime", "poetry"]},
            "gone": {"type": "string"},
            "days": {"type": "integer", "maximum": 42}
        }, "required": ["id"]});
        let new = json!({"type": "object", "properties": {
            "id": {"type": "string"},
            "genre": {"type": "string", "enum": ["crime", "fantasy"]},
            "days": {"type": "integer", "maximum": 21},
            "member": {"type": "string"},
            "note": {"type": "string"}
        }, "required": ["id", "member"]});
        let got = kinds(old, new);
        let breaking: Vec<&str> = got
            .iter()
            .filter(|c| c.0 == ChangeKind::Breaking)
            .map(|c| c.2.as_str())
            .collect();
        assert_eq!(
            breaking,
            [
                "type integer | string → string (narrowed)",
                "enum value removed: \"poetry\"",
                "argument `gone` removed",
                "maximum 42 → 21",
                "new required argument `member`",
            ]
        );
        let compatible: Vec<&str> = got
            .iter()
            .filter(|c| c.0 == ChangeKind::Compatible)
            .map(|c| c.2.as_str())
            .collect();
        assert_eq!(
            compatible,
            [
                "enum value added: \"fantasy\"",
                "new optional argument `note`"
            ]
        );
        assert!(got.iter().any(|c| c.1 == "/properties/gone"));
    }

    #[test]
    fn widening_and_refs_and_recursion() {
        let old = json!({"type": "object", "properties": {
            "n": {"type": "integer"},
            "node": {"$ref": "#/$defs/Node"}
        }, "$defs": {"Node": {"type": "object", "properties": {
            "child": {"$ref": "#/$defs/Node"}, "v": {"type": "string"}
        }}}});
        let new = json!({"type": "object", "properties": {
            "n": {"type": "number"},
            "node": {"$ref": "#/$defs/Node"}
        }, "$defs": {"Node": {"type": "object", "properties": {
            "child": {"$ref": "#/$defs/Node"}, "v": {"type": "integer"}
        }}}});
        let got = kinds(old, new);
        assert_eq!(
            got,
            vec![
                (
                    ChangeKind::Compatible,
                    "/properties/n".to_owned(),
                    "type integer → number (widened)".to_owned()
                ),
                (
                    ChangeKind::Breaking,
                    "/properties/node/properties/v".to_owned(),
                    "type string → integer (narrowed)".to_owned()
                ),
            ]
        );
    }

    #[test]
    fn output_changes_are_listed() {
        let old = json!({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}}});
        let new = json!({"type": "object", "properties": {"a": {"type": "integer"}, "c": {"type": "string"}}});
        let got = compare_output(&old, &new);
        assert_eq!(
            got,
            vec![
                (
                    "/properties/a".to_owned(),
                    "type string → integer (narrowed)".to_owned()
                ),
                (
                    "/properties/b".to_owned(),
                    "property `b` no longer returned".to_owned()
                ),
                (
                    "/properties/c".to_owned(),
                    "new property `c` returned".to_owned()
                ),
            ]
        );
    }
}
