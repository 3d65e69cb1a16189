//! One JSON Schema (2020-12) as a TypeScript type: the keywords a model needs to write a call
//! or read a result become types, the rest become doc comments.
//!
//! `#/$defs/NAME` references become the type names [`Render::refs`] gives them; every other
//! reference, and anything nested deeper than [`MAX_DEPTH`], is `unknown`.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::json_pointer;

use super::text::{doc_comment, literal, property_key, shorten};

/// How deep inline types nest before the rest is `unknown`: named types start again at zero,
/// so only a schema written to be deep reaches it.
pub(crate) const MAX_DEPTH: usize = 32;

/// The longest default or example a doc comment quotes, in bytes of JSON.
const QUOTE_BYTES: usize = 80;

/// How tightly a type expression binds, for parentheses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Prec {
    /// `A | B`.
    Union,
    /// `A & B`.
    Intersection,
    /// Anything else: a name, a literal, `T[]`, an object literal.
    Atom,
}

/// A type expression and how tightly it binds.
#[derive(Debug, Clone)]
struct Ty {
    text: String,
    prec: Prec,
}

impl Ty {
    fn atom(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            prec: Prec::Atom,
        }
    }

    fn unknown() -> Self {
        Self::atom("unknown")
    }

    fn is_unknown(&self) -> bool {
        self.text == "unknown"
    }

    /// The text, in parentheses when it binds looser than `at_least`.
    fn at(&self, at_least: Prec) -> String {
        if self.prec < at_least {
            format!("({})", self.text)
        } else {
            self.text.clone()
        }
    }
}

/// The union of `members`: duplicates and `never` dropped; `unknown` when any member is.
fn union(members: Vec<Ty>) -> Ty {
    let mut kept: Vec<Ty> = Vec::new();
    for member in members {
        if member.is_unknown() {
            return Ty::unknown();
        }
        if member.text != "never" && !kept.iter().any(|k| k.text == member.text) {
            kept.push(member);
        }
    }
    match kept.len() {
        0 => Ty::atom("never"),
        1 => kept.remove(0),
        _ => Ty {
            text: kept
                .iter()
                .map(|t| t.at(Prec::Intersection))
                .collect::<Vec<_>>()
                .join(" | "),
            prec: Prec::Union,
        },
    }
}

/// The intersection of `parts`: `unknown` parts dropped (they add nothing); `unknown` when
/// none is left.
fn intersection(parts: Vec<Ty>) -> Ty {
    let mut kept: Vec<Ty> = Vec::new();
    for part in parts {
        if !part.is_unknown() && !kept.iter().any(|k| k.text == part.text) {
            kept.push(part);
        }
    }
    match kept.len() {
        0 => Ty::unknown(),
        1 => kept.remove(0),
        _ => Ty {
            text: kept
                .iter()
                .map(|t| t.at(Prec::Atom))
                .collect::<Vec<_>>()
                .join(" & "),
            prec: Prec::Intersection,
        },
    }
}

/// Renders schemas whose `#/$defs/NAME` references name the types in `refs`.
pub(crate) struct Render<'a> {
    /// Definition name (as the schema's references spell it) → TypeScript type name.
    pub(crate) refs: &'a BTreeMap<String, String>,
}

impl Render<'_> {
    /// `schema` as a type expression; multi-line object literals are indented for a line
    /// that starts with `indent`.
    pub(crate) fn type_of(&self, schema: &Value, indent: &str) -> String {
        self.ty(schema, indent, 0).text
    }

    /// A named type `name` for the definition `schema`, with its doc comment: an `interface`
    /// when the schema is a plain object, else a `type` alias.
    pub(crate) fn named(&self, name: &str, schema: &Value) -> String {
        let doc = doc_comment(&doc_lines(schema), "");
        match schema.as_object().filter(|map| is_plain_object(map)) {
            Some(map) => format!("{doc}interface {name} {}", self.object(map, "", 0).text),
            None => {
                let ty = self.ty(schema, "", 0).text;
                // `type A = A;` is no type: a definition that only names itself holds anything.
                let ty = if ty == name { "unknown".to_owned() } else { ty };
                format!("{doc}type {name} = {ty};")
            }
        }
    }

    /// The return type of a tool whose output schema is `output`: the body of `{"result": X}`
    /// when `wrapped`, `unknown` without a schema.
    pub(crate) fn result_of(&self, output: Option<&Value>, wrapped: bool) -> String {
        let Some(output) = output else {
            return "unknown".to_owned();
        };
        let body = if wrapped {
            output.pointer("/properties/result").unwrap_or(output)
        } else {
            output
        };
        self.type_of(body, "")
    }

    fn ty(&self, schema: &Value, indent: &str, depth: usize) -> Ty {
        let map = match schema {
            Value::Bool(false) => return Ty::atom("never"),
            Value::Object(map) if depth <= MAX_DEPTH => map,
            _ => return Ty::unknown(),
        };
        let mut parts = vec![self.own_type(map, indent, depth)];
        if let Some(Value::Array(all)) = map.get("allOf") {
            parts.extend(all.iter().map(|s| self.ty(s, indent, depth + 1)));
        }
        for key in ["anyOf", "oneOf"] {
            if let Some(Value::Array(branches)) = map.get(key) {
                let branches = branches.iter().map(|s| self.ty(s, indent, depth + 1));
                parts.push(union(branches.collect()));
            }
        }
        let ty = intersection(parts);
        if map.get("nullable") == Some(&Value::Bool(true)) && !ty.is_unknown() {
            union(vec![ty, Ty::atom("null")])
        } else {
            ty
        }
    }

    /// The type `map`'s own keywords give, before `allOf`, `anyOf` and `oneOf`.
    fn own_type(&self, map: &Map<String, Value>, indent: &str, depth: usize) -> Ty {
        if let Some(Value::String(reference)) = map.get("$ref") {
            return self.reference(reference);
        }
        if let Some(value) = map.get("const") {
            return literal(value).map_or_else(Ty::unknown, Ty::atom);
        }
        if let Some(Value::Array(values)) = map.get("enum") {
            let members = values
                .iter()
                .map(|v| literal(v).map_or_else(Ty::unknown, Ty::atom));
            return union(members.collect());
        }
        let types: Vec<&str> = match map.get("type") {
            Some(Value::String(one)) => vec![one.as_str()],
            Some(Value::Array(many)) => many.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        if types.is_empty() {
            return if is_object_like(map) {
                self.object(map, indent, depth)
            } else if map.contains_key("items") || map.contains_key("prefixItems") {
                self.array(map, indent, depth)
            } else {
                Ty::unknown()
            };
        }
        let members = types.into_iter().map(|t| match t {
            "string" => Ty::atom("string"),
            "integer" | "number" => Ty::atom("number"),
            "boolean" => Ty::atom("boolean"),
            "null" => Ty::atom("null"),
            "array" => self.array(map, indent, depth),
            "object" => self.object(map, indent, depth),
            _ => Ty::unknown(),
        });
        union(members.collect())
    }

    /// A `#/$defs/NAME` reference as the type name given to `NAME`; `unknown` for any other
    /// reference or a name without a type.
    fn reference(&self, reference: &str) -> Ty {
        let name = reference
            .strip_prefix("#/$defs/")
            .filter(|rest| !rest.contains('/'))
            .map(json_pointer::unescape);
        match name.and_then(|n| self.refs.get(&n)) {
            Some(ty) => Ty::atom(ty.clone()),
            None => Ty::unknown(),
        }
    }

    /// `T[]`, or a tuple for `prefixItems`.
    fn array(&self, map: &Map<String, Value>, indent: &str, depth: usize) -> Ty {
        let items = map.get("items");
        if let Some(Value::Array(prefix)) = map.get("prefixItems") {
            let mut members: Vec<String> = prefix
                .iter()
                .map(|s| self.ty(s, indent, depth + 1).text)
                .collect();
            match items {
                Some(Value::Bool(false)) => {}
                Some(rest) => members.push(format!(
                    "...{}[]",
                    self.ty(rest, indent, depth + 1).at(Prec::Atom)
                )),
                None => members.push("...unknown[]".to_owned()),
            }
            return Ty::atom(format!("[{}]", members.join(", ")));
        }
        let item = match items {
            Some(schema) => self.ty(schema, indent, depth + 1),
            None => Ty::unknown(),
        };
        Ty::atom(format!("{}[]", item.at(Prec::Atom)))
    }

    /// An object literal type: one line per property, with its doc comment, and an index
    /// signature for `additionalProperties` and `patternProperties`.
    fn object(&self, map: &Map<String, Value>, indent: &str, depth: usize) -> Ty {
        let inner = format!("{indent}  ");
        let required: Vec<&str> = match map.get("required") {
            Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        let properties = match map.get("properties") {
            Some(Value::Object(properties)) => Some(properties),
            _ => None,
        };
        let mut body = String::new();
        let mut property_types = Vec::new();
        for (name, schema) in properties.into_iter().flatten() {
            let ty = self.ty(schema, &inner, depth + 1);
            let optional = !required.contains(&name.as_str());
            let mark = if optional { "?" } else { "" };
            body.push_str(&doc_comment(&doc_lines(schema), &inner));
            body.push_str(&format!(
                "{inner}{}{mark}: {};\n",
                property_key(name),
                ty.text
            ));
            property_types.push(ty);
            if optional {
                property_types.push(Ty::atom("undefined"));
            }
        }
        if let Some(index) = self.index_type(map, properties.is_some(), &inner, depth) {
            // Every property must fit the index signature (an optional one with `undefined`),
            // so it names their types too.
            let mut members = vec![index];
            members.extend(property_types);
            let index = union(members);
            body.push_str(&format!("{inner}[key: string]: {};\n", index.text));
        }
        if body.is_empty() {
            Ty::atom("{}")
        } else {
            Ty::atom(format!("{{\n{body}{indent}}}"))
        }
    }

    /// What the properties not listed hold: `additionalProperties` and `patternProperties`,
    /// or `unknown` when an object lists no properties and does not close itself; `None` when
    /// there are none.
    fn index_type(
        &self,
        map: &Map<String, Value>,
        has_properties: bool,
        indent: &str,
        depth: usize,
    ) -> Option<Ty> {
        let mut members = Vec::new();
        match map.get("additionalProperties") {
            Some(Value::Bool(false)) => {}
            Some(schema) => members.push(self.ty(schema, indent, depth + 1)),
            None if !has_properties && !map.contains_key("patternProperties") => {
                members.push(Ty::unknown())
            }
            None => {}
        }
        if let Some(Value::Object(patterns)) = map.get("patternProperties") {
            members.extend(patterns.values().map(|s| self.ty(s, indent, depth + 1)));
        }
        (!members.is_empty()).then(|| union(members))
    }
}

/// Whether `map` describes an object by its own keywords alone (no reference, enum,
/// combinator, or other type), so that it can be an `interface`.
fn is_plain_object(map: &Map<String, Value>) -> bool {
    let combined = ["$ref", "const", "enum", "allOf", "anyOf", "oneOf"]
        .iter()
        .any(|k| map.contains_key(*k));
    let object_type = match map.get("type") {
        Some(Value::String(t)) => t == "object",
        None => is_object_like(map),
        _ => false,
    };
    object_type && !combined && map.get("nullable") != Some(&Value::Bool(true))
}

/// Whether a schema without `type` still describes an object.
fn is_object_like(map: &Map<String, Value>) -> bool {
    ["properties", "additionalProperties", "patternProperties"]
        .iter()
        .any(|k| map.contains_key(*k))
}

/// What a doc comment says about a schema: its title and description, then one line of the
/// constraints a value must meet (format, range, length, pattern), its default and an
/// example, and `@deprecated`.
pub(crate) fn doc_lines(schema: &Value) -> Vec<String> {
    let Some(map) = schema.as_object() else {
        return Vec::new();
    };
    let text = |key: &str| {
        map.get(key)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
    };
    let mut lines = Vec::new();
    match (text("title"), text("description")) {
        (Some(title), Some(description)) if !description.starts_with(title) => {
            lines.push(shorten(title));
            lines.push(shorten(description));
        }
        (_, Some(description)) => lines.push(shorten(description)),
        (Some(title), None) => lines.push(shorten(title)),
        (None, None) => {}
    }
    let mut notes = Vec::new();
    if let Some(format) = text("format") {
        notes.push(format!("format: {}", shorten(format)));
    }
    for (key, label) in [
        ("minimum", "minimum"),
        ("exclusiveMinimum", "greater than"),
        ("maximum", "maximum"),
        ("exclusiveMaximum", "less than"),
        ("multipleOf", "multiple of"),
        ("minLength", "min length"),
        ("maxLength", "max length"),
        ("minItems", "min items"),
        ("maxItems", "max items"),
    ] {
        if let Some(Value::Number(n)) = map.get(key) {
            notes.push(format!("{label}: {n}"));
        }
    }
    if let Some(pattern) = text("pattern") {
        notes.push(format!("pattern: {}", shorten(pattern)));
    }
    if let Some(default) = map.get("default").and_then(quote) {
        notes.push(format!("default: {default}"));
    }
    if let Some(example) = map
        .get("examples")
        .and_then(Value::as_array)
        .and_then(|e| e.first())
        .and_then(quote)
    {
        notes.push(format!("example: {example}"));
    }
    if !notes.is_empty() {
        let mut line = notes.join("; ");
        if let Some(first) = line.get(..1) {
            line.replace_range(..1, &first.to_uppercase());
        }
        lines.push(format!("{line}."));
    }
    if map.get("deprecated") == Some(&Value::Bool(true)) {
        lines.push("@deprecated".to_owned());
    }
    lines
}

/// `value` as compact JSON, when short enough to quote in a doc comment.
fn quote(value: &Value) -> Option<String> {
    let text = serde_json::to_string(value).ok()?;
    (text.len() <= QUOTE_BYTES).then_some(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn render(schema: Value) -> String {
        let refs = BTreeMap::from([("Ticket".to_owned(), "Ticket".to_owned())]);
        Render { refs: &refs }.type_of(&schema, "")
    }

    #[test]
    fn scalars_enums_consts_and_nullable() {
        assert_eq!(render(json!({"type": "integer"})), "number");
        assert_eq!(render(json!({"type": ["string", "null"]})), "string | null");
        assert_eq!(
            render(json!({"enum": ["open", "closed", null, 3]})),
            "\"open\" | \"closed\" | null | 3"
        );
        assert_eq!(render(json!({"const": "x\"y"})), "\"x\\\"y\"");
        assert_eq!(
            render(json!({"type": "string", "nullable": true})),
            "string | null"
        );
        assert_eq!(render(json!(true)), "unknown");
        assert_eq!(render(json!(false)), "never");
        assert_eq!(render(json!({"description": "anything"})), "unknown");
    }

    #[test]
    fn unions_arrays_and_intersections_are_parenthesised_where_needed() {
        assert_eq!(
            render(
                json!({"type": "array", "items": {"anyOf": [{"$ref": "#/$defs/Ticket"}, {"type": "null"}]}})
            ),
            "(Ticket | null)[]"
        );
        assert_eq!(render(json!({"type": "array"})), "unknown[]");
        assert_eq!(
            render(
                json!({"prefixItems": [{"type": "string"}, {"type": "number"}], "items": false})
            ),
            "[string, number]"
        );
        assert_eq!(
            render(
                json!({"allOf": [{"$ref": "#/$defs/Ticket"}, {"anyOf": [{"type": "string"}, {"type": "number"}]}]})
            ),
            "Ticket & (string | number)"
        );
    }

    #[test]
    fn unknown_references_and_branches_without_types_add_nothing() {
        assert_eq!(render(json!({"$ref": "#/$defs/Missing"})), "unknown");
        assert_eq!(render(json!({"$ref": "https://example.com/x"})), "unknown");
        assert_eq!(
            render(json!({"$ref": "#/$defs/Ticket/properties/id"})),
            "unknown"
        );
        assert_eq!(
            render(
                json!({"type": "object", "properties": {"a": {"type": "string"}},
                "oneOf": [{"required": ["a"]}, {"required": ["b"]}]})
            ),
            "{\n  a?: string;\n}"
        );
    }

    #[test]
    fn objects_mark_optional_properties_and_index_signatures_cover_properties() {
        assert_eq!(
            render(
                json!({"type": "object", "properties": {"id": {"type": "integer"}, "x-y": {"type": "string"}},
                "required": ["id"], "additionalProperties": {"type": "boolean"}})
            ),
            "{\n  id: number;\n  \"x-y\"?: string;\n  [key: string]: boolean | number | string | undefined;\n}"
        );
        assert_eq!(
            render(json!({"type": "object"})),
            "{\n  [key: string]: unknown;\n}"
        );
        assert_eq!(
            render(json!({"type": "object", "additionalProperties": false})),
            "{}"
        );
    }

    #[test]
    fn nesting_past_the_limit_is_unknown() {
        let mut schema = json!({"type": "string"});
        for _ in 0..(MAX_DEPTH + 10) {
            schema = json!({"type": "array", "items": schema});
        }
        let text = render(schema);
        assert!(text.starts_with("unknown[]"), "{text}");
    }

    #[test]
    fn doc_lines_name_format_range_default_and_example() {
        let lines = doc_lines(
            &json!({"description": "Page size", "format": "int32", "minimum": 1,
            "maximum": 100, "default": 20, "examples": [50], "deprecated": true}),
        );
        assert_eq!(
            lines,
            [
                "Page size",
                "Format: int32; minimum: 1; maximum: 100; default: 20; example: 50.",
                "@deprecated"
            ]
        );
    }
}
