//! One build's walk over a schema: what is kept, trimmed or summarised at a cut depth.
//!
//! A walk copies a node, leaving out what its [`Trims`] say (examples and defaults, long enum
//! lists, descriptions of nested fields) and summarising the nested nodes at or past the cut
//! depth. With `keep_required`, nodes on a required chain (the root, then every property its
//! parent requires, the items of such an array and the members of its compositions) are never
//! summarised. With `shapes`, an array of objects that would be summarised keeps its items' keys
//! and types one level down.

use std::borrow::Cow;
use std::rc::Rc;

use mcpgen_core::json_pointer;
use serde_json::{Map, Value};

use super::text::{cap, first_sentence, plain_text};
use super::{DefCache, ENUM_KEEP, OMITTED, PROPERTY_DESCRIPTION_CHARS, RECURSION_OMITTED};
use crate::keywords;

/// What a build leaves out before it summarises anything, in the order the budget gives up
/// on them: each stage keeps the ones before it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Trims {
    /// `examples`, `example` and `default` are left out.
    pub(super) examples: bool,
    /// Enum lists longer than [`ENUM_KEEP`] values become a description naming the first ones
    /// and how many more there are.
    pub(super) enums: bool,
    /// Descriptions and titles of nested fields (below the arguments) are left out.
    pub(super) nested_descriptions: bool,
}

/// The state of one build's walk.
pub(super) struct Walk {
    pub(super) cut: usize,
    pub(super) describe: bool,
    pub(super) trims: Trims,
    pub(super) keep_required: bool,
    pub(super) shapes: bool,
    pub(super) cuts: Vec<String>,
    /// Whether a trim left something out.
    pub(super) trimmed: bool,
    /// References kept, with the depth they were found at and whether on a required chain.
    pub(super) refs: Vec<(String, usize, bool)>,
    /// The build's budget: once `spent` passes it the build is over and the walk stops.
    pub(super) limit: Option<usize>,
    /// A lower bound of the bytes written so far: keys and strings copied.
    pub(super) spent: usize,
}

impl Walk {
    /// Copies `node` (at `depth`, found at JSON pointer `ptr`; `required` when it is on a
    /// required chain, `inherited` the names its parent requires when it is a composition
    /// member), trimming and summarising what lies at or past the cut depth. A node the walk
    /// leaves as it is comes back borrowed: only what changes is built anew.
    pub(super) fn node<'v>(
        &mut self,
        node: &'v Value,
        depth: usize,
        required: bool,
        inherited: &[&str],
        ptr: &mut String,
        defs: &mut DefCache<'_>,
    ) -> Cow<'v, Value> {
        if self.over() {
            return Cow::Owned(Value::Null);
        }
        let Value::Object(map) = node else {
            self.spend(node);
            return Cow::Borrowed(node);
        };
        if depth >= self.cut && !(self.keep_required && required) && is_nested(map) {
            self.cuts.push(ptr.clone());
            let head = self.describe && !(self.trims.nested_descriptions && depth >= 2);
            if self.shapes {
                // The items of a kept array keep their keys and types, as a cut array does.
                let kept = if ptr.ends_with("/items") {
                    object_shape(map, defs)
                } else {
                    shape(map, defs, head, self.describe)
                };
                if let Some(kept) = kept {
                    return Cow::Owned(kept);
                }
            }
            return Cow::Owned(summary(map, defs, head, self.describe));
        }
        let mut names: Vec<&str> = inherited.to_vec();
        if let Some(Value::Array(list)) = map.get("required") {
            names.extend(list.iter().filter_map(Value::as_str));
        }
        let nested_text = self.trims.nested_descriptions && depth >= 2;
        let mut enum_note = None;
        // Each key's value as the walk leaves it; `None`: left out.
        let mut kept: Vec<Option<Cow<'v, Value>>> = Vec::with_capacity(map.len());
        let mut changed = false;
        for (key, value) in map {
            let k = key.as_str();
            let dropped = (self.trims.examples && matches!(k, "examples" | "example" | "default"))
                || (nested_text && matches!(k, "description" | "title"));
            if dropped {
                self.trimmed = true;
                changed = true;
                // A summary (or a profile's recursion stub) keeps its mark.
                if k == "description"
                    && let Some(mark) = mark(value)
                {
                    self.spent += k.len() + mark.len() + 5;
                    kept.push(Some(Cow::Owned(Value::String(mark.to_owned()))));
                } else {
                    kept.push(None);
                }
                continue;
            }
            if k == "enum"
                && self.trims.enums
                && let Value::Array(values) = value
                && values.len() > ENUM_KEEP
            {
                self.trimmed = true;
                changed = true;
                enum_note = Some(enum_note_text(values));
                kept.push(None);
                continue;
            }
            self.spent += k.len() + 3;
            let d = if super::DEEPER.contains(&k) {
                depth + 1
            } else {
                depth
            };
            let value = match value {
                Value::String(_) if k == "$ref" => {
                    if let Some(name) = def_name(value) {
                        self.refs.push((name, depth, required));
                    }
                    Cow::Borrowed(value)
                }
                _ if keywords::SUBSCHEMA.contains(&k) => {
                    let r = required && k == "items";
                    let len = push_token(ptr, k);
                    let v = self.node(value, d, r, &[], ptr, defs);
                    ptr.truncate(len);
                    v
                }
                Value::Array(items) if keywords::SUBSCHEMA_LIST.contains(&k) => {
                    let pass: &[&str] = if k == "prefixItems" { &[] } else { &names };
                    let len = push_token(ptr, k);
                    let walked: Vec<Cow<'v, Value>> = items
                        .iter()
                        .enumerate()
                        .map(|(i, item)| {
                            let len = ptr.len();
                            ptr.push('/');
                            ptr.push_str(&i.to_string());
                            let v = self.node(item, d, required, pass, ptr, defs);
                            ptr.truncate(len);
                            v
                        })
                        .collect();
                    ptr.truncate(len);
                    if walked.iter().all(|v| matches!(v, Cow::Borrowed(_))) {
                        Cow::Borrowed(value)
                    } else {
                        Cow::Owned(Value::Array(
                            walked.into_iter().map(Cow::into_owned).collect(),
                        ))
                    }
                }
                Value::Object(entries)
                    if keywords::SUBSCHEMA_MAP.contains(&k)
                        && k != "$defs"
                        && k != "definitions" =>
                {
                    let len = push_token(ptr, k);
                    let walked: Vec<Cow<'v, Value>> = entries
                        .iter()
                        .map(|(name, sub)| {
                            self.spent += name.len() + 3;
                            let len = push_token(ptr, name);
                            let r = required && k == "properties" && names.contains(&name.as_str());
                            let v = self.node(sub, depth + 1, r, &[], ptr, defs);
                            ptr.truncate(len);
                            v
                        })
                        .collect();
                    ptr.truncate(len);
                    if walked.iter().all(|v| matches!(v, Cow::Borrowed(_))) {
                        Cow::Borrowed(value)
                    } else {
                        Cow::Owned(Value::Object(
                            entries
                                .keys()
                                .cloned()
                                .zip(walked.into_iter().map(Cow::into_owned))
                                .collect(),
                        ))
                    }
                }
                _ => {
                    self.spend(value);
                    Cow::Borrowed(value)
                }
            };
            changed |= matches!(value, Cow::Owned(_));
            kept.push(Some(value));
        }
        if !changed {
            return Cow::Borrowed(node);
        }
        let mut out = Map::new();
        for ((key, _), value) in map.iter().zip(kept) {
            if let Some(value) = value {
                out.insert(key.clone(), value.into_owned());
            }
        }
        if let Some(note) = enum_note {
            let text = match out.get("description").and_then(Value::as_str) {
                Some(d) if !d.is_empty() => format!("{d} {note}"),
                _ => note,
            };
            out.insert("description".to_owned(), Value::String(text));
        }
        Cow::Owned(Value::Object(out))
    }
}

/// Appends `/` and the escaped `token` to `ptr`; returns the length `ptr` had before.
fn push_token(ptr: &mut String, token: &str) -> usize {
    let len = ptr.len();
    ptr.push('/');
    if token.contains(['~', '/']) {
        ptr.push_str(&json_pointer::escape(token));
    } else {
        ptr.push_str(token);
    }
    len
}

impl Walk {
    /// Whether the build is certainly over its budget.
    pub(super) fn over(&self) -> bool {
        self.limit.is_some_and(|l| self.spent > l)
    }

    /// Counts the strings and keys of a copied value (a lower bound of its JSON length).
    fn spend(&mut self, value: &Value) {
        if self.over() {
            return;
        }
        self.spent += match value {
            Value::String(s) => s.len() + 2,
            Value::Array(items) => {
                items.iter().for_each(|v| self.spend(v));
                items.len()
            }
            Value::Object(map) => {
                for (k, v) in map {
                    self.spent += k.len() + 3;
                    self.spend(v);
                }
                2
            }
            _ => 1,
        };
    }
}

/// The mark a description ends with when it says that something was left out: a summary's
/// or a recursion stub's.
fn mark(description: &Value) -> Option<&'static str> {
    let d = description.as_str()?;
    [OMITTED, RECURSION_OMITTED]
        .into_iter()
        .find(|mark| d.ends_with(mark))
}

/// "Values: `a`, `b`, … (52 more)": the first [`ENUM_KEEP`] values of a long enum and how many
/// were left out.
fn enum_note_text(values: &[Value]) -> String {
    let shown: Vec<String> = values
        .iter()
        .take(ENUM_KEEP)
        .map(|v| match v {
            Value::String(s) => format!("`{s}`"),
            other => format!("`{other}`"),
        })
        .collect();
    format!(
        "Values: {}, … ({} more)",
        shown.join(", "),
        values.len() - shown.len()
    )
}

/// Whether a node has nested structure worth summarising: a reference, properties, or a
/// subschema that itself has subschemas (an array of strings or a nullable string is flat).
pub(super) fn is_nested(map: &Map<String, Value>) -> bool {
    if map.contains_key("$ref") {
        return true;
    }
    if let Some(Value::Object(props)) = map.get("properties")
        && !props.is_empty()
    {
        return true;
    }
    let structured = |v: &Value| v.as_object().is_some_and(has_subschemas);
    map.iter().any(|(k, v)| {
        let k = k.as_str();
        if keywords::SUBSCHEMA.contains(&k) {
            structured(v)
        } else if keywords::SUBSCHEMA_LIST.contains(&k) {
            v.as_array().is_some_and(|a| a.iter().any(structured))
        } else if k == "patternProperties" || k == "dependentSchemas" {
            v.as_object().is_some_and(|m| m.values().any(structured))
        } else {
            false
        }
    })
}

/// Whether a node has any subschema (or reference) at all.
fn has_subschemas(map: &Map<String, Value>) -> bool {
    map.iter().any(|(k, v)| {
        let k = k.as_str();
        match k {
            "$ref" | "patternProperties" | "dependentSchemas" => true,
            "properties" => v.as_object().is_some_and(|p| !p.is_empty()),
            _ => keywords::SUBSCHEMA.contains(&k) || keywords::SUBSCHEMA_LIST.contains(&k),
        }
    })
}

/// The summary of a node: its type where it can be known, and a description saying nested
/// fields were left out (with `head`, led by the node's title and first sentence).
fn summary(map: &Map<String, Value>, defs: &mut DefCache<'_>, head: bool, describe: bool) -> Value {
    let mut out = Map::new();
    if let Some(t) = type_value(map, defs) {
        out.insert("type".to_owned(), t);
    }
    if describe {
        out.insert(
            "description".to_owned(),
            Value::String(summary_text(map, defs, head)),
        );
    }
    Value::Object(out)
}

/// The `type` keyword for a node's types, when they can be known.
fn type_value(map: &Map<String, Value>, defs: &mut DefCache<'_>) -> Option<Value> {
    let mut types: Vec<Value> = node_types(map, defs, 8)?
        .into_iter()
        .map(Value::String)
        .collect();
    Some(if types.len() == 1 {
        types.pop().unwrap_or(Value::Null)
    } else {
        Value::Array(types)
    })
}

/// What a summary says: the title and first sentence (with `head`), then that nested fields
/// were omitted.
fn summary_text(map: &Map<String, Value>, defs: &mut DefCache<'_>, head: bool) -> String {
    if !head {
        return OMITTED.to_owned();
    }
    let target = map
        .get("$ref")
        .and_then(def_name)
        .and_then(|name| defs.get(&name));
    let text = |key: &str| {
        map.get(key)
            .or_else(|| target.as_ref().and_then(|t| t.get(key)))
            .and_then(Value::as_str)
            .map(|s| first_sentence(&plain_text(s)))
            .filter(|s| !s.is_empty())
    };
    let title = text("title");
    let description = text("description");
    let lead = match (title, description) {
        (Some(t), Some(d)) if d.starts_with(&t) => d,
        (Some(t), Some(d)) => format!("{t}: {d}"),
        (Some(t), None) => t,
        (None, Some(d)) => d,
        (None, None) => String::new(),
    };
    let lead = cap(&lead, PROPERTY_DESCRIPTION_CHARS);
    if lead.is_empty() {
        OMITTED.to_owned()
    } else {
        format!("{lead} {OMITTED}")
    }
}

/// The summary of an array of objects that keeps its items' keys, their types and which are
/// required, one level down; `None` when `map` is not an array whose items (through at most a
/// few references) are an object with properties.
fn shape(
    map: &Map<String, Value>,
    defs: &mut DefCache<'_>,
    head: bool,
    describe: bool,
) -> Option<Value> {
    let array = resolve(map, defs)?;
    let items = array.map().get("items")?.as_object()?;
    let item = object_shape(items, defs)?;
    let mut out = Map::new();
    out.insert("type".to_owned(), Value::String("array".to_owned()));
    out.insert("items".to_owned(), item);
    if describe {
        out.insert(
            "description".to_owned(),
            Value::String(summary_text(map, defs, head)),
        );
    }
    Some(Value::Object(out))
}

/// A node's map, or the definition its reference points to (shared, not copied).
enum Resolved<'m> {
    Here(&'m Map<String, Value>),
    Def(Rc<Value>),
}

impl Resolved<'_> {
    fn map(&self) -> &Map<String, Value> {
        match self {
            Resolved::Here(map) => map,
            // Only an object is ever kept (see `resolve`).
            Resolved::Def(def) => def.as_object().unwrap_or(&EMPTY),
        }
    }
}

/// The map of an empty object.
static EMPTY: std::sync::LazyLock<Map<String, Value>> = std::sync::LazyLock::new(Map::new);

/// `map`, or what its reference (through at most a few more) points to.
fn resolve<'m>(map: &'m Map<String, Value>, defs: &mut DefCache<'_>) -> Option<Resolved<'m>> {
    let mut at = Resolved::Here(map);
    for _ in 0..8 {
        let Some(name) = at.map().get("$ref").and_then(def_name) else {
            return Some(at);
        };
        let def = defs.get(&name)?;
        def.as_object()?;
        at = Resolved::Def(def);
    }
    None
}

/// An object's keys with their types and which are required (no descriptions, nothing
/// deeper); `None` when `map` is not an object with properties.
fn object_shape(map: &Map<String, Value>, defs: &mut DefCache<'_>) -> Option<Value> {
    let object = resolve(map, defs)?;
    let object = object.map();
    let Some(Value::Object(props)) = object.get("properties") else {
        return None;
    };
    if props.is_empty() {
        return None;
    }
    let mut fields = Map::new();
    for (name, sub) in props {
        let mut field = Map::new();
        if let Some(t) = sub.as_object().and_then(|m| type_value(m, defs)) {
            field.insert("type".to_owned(), t);
        }
        fields.insert(name.clone(), Value::Object(field));
    }
    let mut out = Map::new();
    out.insert("type".to_owned(), Value::String("object".to_owned()));
    out.insert("properties".to_owned(), Value::Object(fields));
    if let Some(required @ Value::Array(_)) = object.get("required") {
        out.insert("required".to_owned(), required.clone());
    }
    Some(Value::Object(out))
}

/// The JSON types a node accepts, in the order written, when they can be told from its `type`,
/// its reference's target or the members of its `allOf` / `anyOf` / `oneOf`; `None` when any
/// value may be allowed.
pub(super) fn node_types(
    map: &Map<String, Value>,
    defs: &mut DefCache<'_>,
    hops: usize,
) -> Option<Vec<String>> {
    match map.get("type") {
        Some(Value::String(t)) => return Some(vec![t.clone()]),
        Some(Value::Array(ts)) => {
            return Some(
                ts.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect(),
            );
        }
        _ => {}
    }
    if hops == 0 {
        return None;
    }
    if let Some(name) = map.get("$ref").and_then(def_name) {
        let target = defs.get(&name)?;
        return node_types(target.as_object()?, defs, hops - 1);
    }
    if let Some(Value::Array(members)) = map.get("allOf") {
        // Every member constrains the value: the first whose types are known bounds them.
        return members
            .iter()
            .filter_map(Value::as_object)
            .find_map(|m| node_types(m, defs, hops - 1));
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(members)) = map.get(key) {
            let mut all: Vec<String> = Vec::new();
            for member in members {
                for t in node_types(member.as_object()?, defs, hops - 1)? {
                    if !all.contains(&t) {
                        all.push(t);
                    }
                }
            }
            return (!all.is_empty()).then_some(all);
        }
    }
    None
}

/// The (unescaped) definition name of a `#/$defs/<name>` reference.
pub(super) fn def_name(reference: &Value) -> Option<String> {
    let name = reference.as_str()?.strip_prefix("#/$defs/")?;
    Some(json_pointer::unescape(name))
}
