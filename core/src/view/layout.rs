//! Which view a tool's output schema gets, and what it shows.
//!
//! The schema is the documented one, in full: a summarised schema has lost the item fields a
//! table needs. A `{"result": ...}` wrapper around a non-object response is looked through.
//!
//! - An array of objects, or an object holding one under a list-like name (`items`, `data`,
//!   `results`, ...) or as its only array of objects, becomes a **table**: one column per item
//!   property; the object's other properties are shown above it.
//! - Any other object becomes a **card**: its properties as a definition list, nested objects
//!   as nested lists, arrays of objects as sub-tables.
//! - A schema with nothing to show (no properties, no items) gets no view.

use serde::Serialize;
use serde_json::{Map, Value};

use super::paging::Paging;
use crate::json_pointer;

/// How deep nested objects and arrays are described; deeper values are shown as JSON text.
const MAX_DEPTH: usize = 3;

/// How many `$ref`s are followed for one node before it is shown as JSON text.
const MAX_REFS: usize = 8;

/// Property names that hold the rows of a list response.
const LIST_NAMES: [&str; 14] = [
    "items", "data", "results", "records", "entries", "rows", "list", "values", "content", "hits",
    "nodes", "elements", "objects", "edges",
];

/// Objects a list response keeps its paging in, beside the list.
const PAGING_HOLDERS: [&str; 7] = [
    "meta",
    "pagination",
    "paging",
    "page_info",
    "pageInfo",
    "links",
    "_links",
];

/// The longest description used as a label; longer ones become the field's help text.
const LABEL_CHARS: usize = 32;

/// The longest help text kept.
const HELP_CHARS: usize = 160;

/// What a view shows at its top.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ViewKind {
    /// Rows and columns.
    Table,
    /// One object's fields.
    Card,
}

impl ViewKind {
    /// `table` or `card`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Table => "table",
            Self::Card => "card",
        }
    }
}

/// What the allowlist asks of a tool's view (`ui:`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Requested {
    /// Whatever the schema suggests.
    #[default]
    Auto,
    /// A table; no view when the output holds no array of objects.
    Table,
    /// A card of the whole output.
    Card,
}

/// How one value is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// Text (folded when long).
    Text,
    /// A number.
    Number,
    /// An identifier (a number or text whose field name says it names something: `id`,
    /// `*_id`, `*Id`, `number`, ...), written as it is, without grouping.
    Id,
    /// Yes or no.
    Bool,
    /// A calendar date (`format: date`).
    Date,
    /// A moment (`format: date-time`), shown in the viewer's locale.
    DateTime,
    /// A link (`format: uri`), opened through the host.
    Uri,
    /// One of a fixed set of values (`enum`), shown as a badge.
    Enum,
    /// An object: its `fields`.
    Object,
    /// An array of objects: a table whose columns are `fields`.
    Table,
    /// An array of plain values, each shown as the one field in `fields`.
    List,
    /// Anything else: JSON text.
    Json,
}

/// One property (a column of a table, a line of a card).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Field {
    /// The property's name in the value.
    pub key: String,
    /// What the column or line is titled: the schema's `title`, else a short `description`,
    /// else the name made readable.
    pub label: String,
    /// How the value is shown.
    pub kind: Kind,
    /// The description, when it did not become the label.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub help: Option<String>,
    /// The properties of an object or of a table's rows; the item of a list.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fields: Vec<Field>,
}

/// A view's layout: what the renderer script draws from a result's `structuredContent`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Layout {
    /// The tool whose results it shows (and which a table calls again for its next page).
    pub tool: String,
    /// The view's heading: the tool's title, else its name.
    pub title: String,
    /// Table or card.
    pub kind: ViewKind,
    /// Where the rows (table) or the object (card) are in `structuredContent`, as property
    /// names from the root; empty for the root itself.
    pub path: Vec<String>,
    /// A table's columns, or a card's fields.
    pub fields: Vec<Field>,
    /// A table's other fields (its response's properties beside the rows), shown above it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub extra: Vec<Field>,
    /// How a table asks for the next page, when its tool pages.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub paging: Option<Paging>,
}

impl Layout {
    /// The layout as JSON text, as a [`super::ViewDef`] holds it.
    pub fn to_json(&self) -> String {
        // Plain strings, booleans and arrays: serialising them does not fail.
        serde_json::to_string(self).unwrap_or_default()
    }
}

/// The layout of the tool `tool` (titled `title`) whose output schema is `schema`, or `None`
/// when it has nothing to show or `requested` cannot be met (a table without an array of
/// objects). `wrapped`: the output is `{"result": ...}` around a non-object response.
/// `resolve` gives the definition a `#/$defs/NAME` reference names.
pub fn derive(
    tool: &str,
    title: &str,
    schema: &Value,
    wrapped: bool,
    requested: Requested,
    resolve: &mut dyn FnMut(&str) -> Option<Value>,
) -> Option<Layout> {
    let mut walk = Walk::new(resolve);
    let mut root = walk.normalize(schema)?;
    let mut path = Vec::new();
    if wrapped {
        root = walk.normalize(properties(&root)?.get("result")?)?;
        path.push("result".to_owned());
    }
    let layout = |kind, path, fields, extra| Layout {
        tool: tool.to_owned(),
        title: title.to_owned(),
        kind,
        path,
        fields,
        extra,
        paging: None,
    };
    if requested != Requested::Card
        && let Some((key, columns)) = walk.table_in(&root, requested == Requested::Table)
    {
        let extra = match &key {
            Some(key) => walk.fields(&root, 0, |k| k != key.as_str()),
            None => Vec::new(),
        };
        path.extend(key);
        return Some(layout(ViewKind::Table, path, columns, extra));
    }
    if requested == Requested::Table {
        return None;
    }
    let fields = if properties(&root).is_some() {
        walk.fields(&root, 0, |_| true)
    } else if wrapped {
        // A plain value or an array of plain values: one line, titled after the tool.
        let key = path.pop().unwrap_or_default();
        vec![walk.field(&key, &root, 0)]
    } else {
        Vec::new()
    };
    (!fields.is_empty()).then(|| layout(ViewKind::Card, path, fields, Vec::new()))
}

/// A resolver of `#/$defs/NAME` for a schema that carries its definitions under `$defs` (or
/// `definitions`) at its root, as `schemars` writes them.
pub fn resolve_local(root: &Value) -> impl FnMut(&str) -> Option<Value> + '_ {
    move |name| {
        ["$defs", "definitions"]
            .iter()
            .find_map(|key| root.get(key)?.get(name))
            .cloned()
    }
}

/// The `properties` of an object schema.
pub(super) fn properties(schema: &Value) -> Option<&Map<String, Value>> {
    schema.get("properties")?.as_object()
}

/// The schema's type, leaving `null` out of a type list.
pub(super) fn type_of(schema: &Value) -> Option<&str> {
    match schema.get("type")? {
        Value::String(t) => Some(t),
        Value::Array(types) => types
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null"),
        _ => None,
    }
}

/// Walks schemas, following references through the resolver.
pub(super) struct Walk<'r> {
    resolve: &'r mut dyn FnMut(&str) -> Option<Value>,
    /// How many `allOf` merges are under way: a schema that includes itself ends the walk.
    merging: usize,
}

impl<'r> Walk<'r> {
    /// A walk resolving references through `resolve`.
    pub(super) fn new(resolve: &'r mut dyn FnMut(&str) -> Option<Value>) -> Self {
        Self {
            resolve,
            merging: 0,
        }
    }

    /// `schema` with references followed, a nullable union reduced to its other member and a
    /// one-member `allOf` to that member; `None` when a reference cannot be followed.
    pub(super) fn normalize(&mut self, schema: &Value) -> Option<Value> {
        let mut node = schema.clone();
        for _ in 0..MAX_REFS {
            if let Some(reference) = node.get("$ref").and_then(Value::as_str) {
                let name = reference.strip_prefix("#/$defs/")?;
                let name = json_pointer::unescape(name);
                node = (self.resolve)(&name)?;
                continue;
            }
            let union = ["anyOf", "oneOf", "allOf"]
                .iter()
                .find_map(|key| node.get(key)?.as_array());
            if let Some(members) = union {
                let mut others = members
                    .iter()
                    .filter(|m| m.get("type").and_then(Value::as_str) != Some("null"));
                if let (Some(only), None) = (others.next(), others.next()) {
                    node = only.clone();
                    continue;
                }
            }
            if let Some(members) = node.get("allOf").and_then(Value::as_array) {
                if self.merging >= MAX_REFS {
                    return None;
                }
                self.merging += 1;
                let merged = self.merge(members.clone());
                self.merging -= 1;
                return Some(merged);
            }
            return Some(node);
        }
        None
    }

    /// The object an `allOf` of object schemas describes: their properties together.
    fn merge(&mut self, members: Vec<Value>) -> Value {
        let mut merged = Map::new();
        for member in members {
            let Some(member) = self.normalize(&member) else {
                continue;
            };
            if let Some(props) = properties(&member) {
                for (key, schema) in props {
                    merged.entry(key.clone()).or_insert_with(|| schema.clone());
                }
            }
        }
        let mut object = Map::new();
        object.insert("type".into(), Value::String("object".into()));
        object.insert("properties".into(), Value::Object(merged));
        Value::Object(object)
    }

    /// The rows of a table in `root`: `(None, columns)` when `root` is an array of objects,
    /// `(Some(key), columns)` when its property `key` is (a list-like name first, else the
    /// only one; with `any`, the first one).
    fn table_in(&mut self, root: &Value, any: bool) -> Option<(Option<String>, Vec<Field>)> {
        if let Some(columns) = self.item_columns(root, 0) {
            return Some((None, columns));
        }
        let props = properties(root)?;
        let mut lists = Vec::new();
        for (key, schema) in props {
            if let Some(node) = self.normalize(schema)
                && let Some(columns) = self.item_columns(&node, 1)
            {
                lists.push((key.clone(), columns));
            }
        }
        let preferred = lists
            .iter()
            .position(|(key, _)| LIST_NAMES.contains(&key.as_str()));
        // The only list of a response whose other fields are counts, flags and paging (an
        // object with a name or a text beside its list is a card).
        let only = lists.len() == 1 && {
            let key = &lists[0].0;
            props.iter().filter(|(k, _)| *k != key).all(|(k, schema)| {
                PAGING_HOLDERS.contains(&k.as_str())
                    || super::paging::is_paging_field(k)
                    || self.normalize(schema).is_some_and(|node| {
                        matches!(type_of(&node), Some("integer" | "number" | "boolean"))
                    })
            })
        };
        let pick = match preferred {
            Some(i) => Some(i),
            None if only || (any && !lists.is_empty()) => Some(0),
            None => None,
        }?;
        let (key, columns) = lists.swap_remove(pick);
        Some((Some(key), columns))
    }

    /// The columns of an array of objects.
    fn item_columns(&mut self, node: &Value, depth: usize) -> Option<Vec<Field>> {
        if type_of(node) != Some("array") {
            return None;
        }
        let items = self.normalize(node.get("items")?)?;
        properties(&items)?;
        let columns = self.fields(&items, depth + 1, |_| true);
        (!columns.is_empty()).then_some(columns)
    }

    /// A field per property of `object` whose name `keep` accepts.
    pub(super) fn fields(
        &mut self,
        object: &Value,
        depth: usize,
        keep: impl Fn(&str) -> bool,
    ) -> Vec<Field> {
        let Some(props) = properties(object) else {
            return Vec::new();
        };
        props
            .iter()
            .filter(|(key, _)| keep(key))
            .map(|(key, schema)| self.field(key, schema, depth))
            .collect()
    }

    /// The field of the property `key` whose schema is `schema`.
    fn field(&mut self, key: &str, schema: &Value, depth: usize) -> Field {
        let node = self.normalize(schema).unwrap_or(Value::Null);
        let (label, help) = label(key, &node);
        let mut field = Field {
            key: key.to_owned(),
            label,
            kind: Kind::Json,
            help,
            fields: Vec::new(),
        };
        let enumerated = node
            .get("enum")
            .and_then(Value::as_array)
            .is_some_and(|values| values.iter().any(|v| !v.is_null()));
        field.kind = match type_of(&node) {
            _ if enumerated => Kind::Enum,
            Some("string") => match node.get("format").and_then(Value::as_str) {
                Some("date-time") => Kind::DateTime,
                Some("date") => Kind::Date,
                Some("uri" | "url" | "iri") => Kind::Uri,
                _ => Kind::Text,
            },
            Some("integer" | "number") if is_identifier(key) => Kind::Id,
            Some("integer" | "number") => Kind::Number,
            Some("boolean") => Kind::Bool,
            Some("array") if depth < MAX_DEPTH => self.array_kind(&node, depth, &mut field),
            Some("object") | None if depth < MAX_DEPTH && properties(&node).is_some() => {
                field.fields = self.fields(&node, depth + 1, |_| true);
                Kind::Object
            }
            _ => Kind::Json,
        };
        field
    }

    /// How an array is shown: a table of objects, or a list of plain values.
    fn array_kind(&mut self, node: &Value, depth: usize, field: &mut Field) -> Kind {
        if let Some(columns) = self.item_columns(node, depth) {
            field.fields = columns;
            return Kind::Table;
        }
        let item = node
            .get("items")
            .and_then(|items| self.normalize(items))
            .unwrap_or(Value::Null);
        let plain = matches!(
            type_of(&item),
            Some("string" | "integer" | "number" | "boolean")
        );
        if !plain {
            return Kind::Json;
        }
        let mut item = self.field("", &item, depth + 1);
        // `ids`, `user_ids`: a list of identifiers.
        if item.kind == Kind::Number && field.key.strip_suffix('s').is_some_and(is_identifier) {
            item.kind = Kind::Id;
        }
        field.fields = vec![item];
        Kind::List
    }
}

/// Whether a number under the property `key` names something rather than counts it: `id`,
/// `uid`, `uuid`, `*_id`, `*-id`, `*Id`, `*ID`, `number`, `*_number`, `*Number`, `*_no`, `*No`
/// (ticket numbers, comment ids, order numbers).
pub fn is_identifier(key: &str) -> bool {
    const WHOLE: [&str; 6] = ["id", "uid", "uuid", "number", "no", "nr"];
    let lower = key.to_ascii_lowercase();
    if WHOLE.contains(&lower.as_str()) {
        return true;
    }
    ["id", "number", "no", "nr"].iter().any(|word| {
        // `user_id`, `user-id`, `user.id`: a separator before the word.
        let separated = [b'_', b'-', b'.', b' '].iter().any(|sep| {
            lower.len() > word.len() + 1
                && lower.ends_with(word)
                && lower.as_bytes()[lower.len() - word.len() - 1] == *sep
        });
        // `userId`, `userID`, `orderNumber`: a capital after a lower-case letter or digit.
        let split = key.len().checked_sub(word.len()).filter(|at| *at > 0);
        let camel = split
            .and_then(|at| Some((key.get(..at)?, key.get(at..)?)))
            .is_some_and(|(head, tail)| {
                tail.eq_ignore_ascii_case(word)
                    && tail.starts_with(|c: char| c.is_ascii_uppercase())
                    && head.ends_with(|c: char| c.is_ascii_lowercase() || c.is_ascii_digit())
            });
        separated || camel
    })
}

/// The label of the property `key` and the help text left over: the schema's `title`, else
/// its description when short, else `key` made readable.
fn label(key: &str, schema: &Value) -> (String, Option<String>) {
    let text = |k: &str| {
        schema
            .get(k)
            .and_then(Value::as_str)
            .map(|s| s.split_whitespace().collect::<Vec<_>>().join(" "))
            .filter(|s| !s.is_empty())
    };
    let (title, description) = (text("title"), text("description"));
    if let Some(title) = title {
        return (title, description.map(clip));
    }
    match description {
        Some(d) if d.chars().count() <= LABEL_CHARS => (d.trim_end_matches('.').to_owned(), None),
        d => (readable(key), d.map(clip)),
    }
}

/// `text` cut to [`HELP_CHARS`] characters.
fn clip(text: String) -> String {
    match text.char_indices().nth(HELP_CHARS) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text,
    }
}

/// `created_at`, `createdAt` and `created-at` as `Created at`; the empty name as `Value`.
pub fn readable(key: &str) -> String {
    let mut words = String::new();
    let mut previous_lower = false;
    for c in key.chars() {
        if c == '_' || c == '-' || c == '.' || c == ' ' {
            if !words.ends_with(' ') && !words.is_empty() {
                words.push(' ');
            }
            previous_lower = false;
            continue;
        }
        if c.is_uppercase() && previous_lower {
            words.push(' ');
        }
        previous_lower = c.is_lowercase() || c.is_ascii_digit();
        words.extend(c.to_lowercase());
    }
    let words = words.trim();
    let mut chars = words.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => "Value".to_owned(),
    }
}
