//! Client profiles: the dialect and shape of the schemas a generated server advertises.
//!
//! Many MCP clients cannot follow `$ref` in tool schemas, and some read only JSON Schema
//! draft-07. A profile, chosen with `server.profile` in the allowlist or `mcpgen generate
//! --profile` (which wins), reshapes every tool's input and output schema once, as emission
//! starts ([`advertised`]): the tool table and `tools.json` hold the profile's schemas, and a
//! server never transforms anything per request.
//!
//! - [`Profile::Default`]: JSON Schema 2020-12, shared and recursive schemas in `$defs`.
//! - [`Profile::Inline`]: 2020-12 without any `$ref` or `$defs` ([`inline`]). Every reference
//!   is replaced by its target. A definition is expanded [`INLINE_RECURSION_DEPTH`] time(s)
//!   on any path from the root; where it recurs inside its own expansion, a stub takes its
//!   place: its `type` and the description `A <Name> (recursive; nested levels omitted)`,
//!   reported as a warning naming the tool and the JSON pointer of the stub. Inlining repeats a
//!   definition wherever it is referenced, so a schema that fits its budget with `$defs` may
//!   not once inlined: it is fitted again, inlined ([`budget::refit`]), to the limits it was
//!   first fitted to.
//! - [`Profile::Draft07`]: the draft-07 dialect ([`draft07`]): `$schema` names draft-07,
//!   `$defs` become `definitions`, `prefixItems` the array form of `items` (plus
//!   `additionalItems`), `dependentRequired` / `dependentSchemas` become `dependencies`, a
//!   `$ref` with sibling keywords moves into `allOf` (draft-07 ignores a `$ref`'s siblings),
//!   and keywords draft-07 lacks are translated where that keeps the meaning
//!   (`unevaluatedProperties` / `unevaluatedItems` on a schema without in-place applicators)
//!   or dropped with a warning naming the pointer.
//! - [`Profile::Cursor`]: `inline`, and tool names of at most [`CURSOR_MAX_NAME_LEN`]
//!   characters (a lower `server.max_name_len` still applies).
//!
//! Typed arguments and outputs are generated from the default schemas, since typify reads
//! 2020-12 with `#/$defs/...` references: a profile changes what is advertised, never the
//! Rust types. The documented output schema that `--output-check strict` compiles stays in
//! the default form too; when a profile changes a tool's output schema, the default form is
//! kept as the tool's documented one, so strict checks are the same under every profile.

use std::borrow::Cow;
use std::fmt;
use std::str::FromStr;

use mcpgen_core::json_pointer::{self, child};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::budget;
use crate::error::Warning;
use crate::ir;
use crate::keywords;

/// How many times `inline` expands one definition on a path from the root: where it recurs
/// inside its own expansion(s), a stub stands in.
pub const INLINE_RECURSION_DEPTH: usize = 1;

/// The longest tool name under the `cursor` profile.
pub const CURSOR_MAX_NAME_LEN: usize = 60;

/// The `$schema` of draft-07 schemas.
pub const DRAFT_07_SCHEMA: &str = "http://json-schema.org/draft-07/schema#";

/// Which clients the advertised schemas are shaped for (see the module documentation).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Profile {
    /// JSON Schema 2020-12 with `$defs` (`default`).
    #[default]
    Default,
    /// 2020-12 with every reference inlined and recursion cut (`inline`).
    Inline,
    /// The draft-07 dialect (`draft-07`).
    Draft07,
    /// `inline` plus tool names of at most 60 characters (`cursor`).
    Cursor,
}

impl Profile {
    /// Every profile, in the order they are listed in messages.
    pub const ALL: [Profile; 4] = [
        Profile::Default,
        Profile::Inline,
        Profile::Draft07,
        Profile::Cursor,
    ];

    /// The name written in the allowlist and on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Profile::Default => "default",
            Profile::Inline => "inline",
            Profile::Draft07 => "draft-07",
            Profile::Cursor => "cursor",
        }
    }

    /// The tool-name limit the profile imposes, if any.
    pub fn max_name_len(self) -> Option<usize> {
        (self == Profile::Cursor).then_some(CURSOR_MAX_NAME_LEN)
    }

    /// The valid names, for messages: "`default`, `inline`, `draft-07`, `cursor`".
    pub fn valid_values() -> String {
        Profile::ALL
            .iter()
            .map(|p| format!("`{}`", p.as_str()))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

impl fmt::Display for Profile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Profile {
    type Err = String;

    /// A profile by its name, exactly as [`Profile::as_str`] spells it.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Profile::ALL
            .into_iter()
            .find(|p| p.as_str() == s)
            .ok_or_else(|| {
                format!(
                    "unknown profile `{s}`; use one of {}",
                    Profile::valid_values()
                )
            })
    }
}

impl Serialize for Profile {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Profile {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        name.parse()
            .map_err(|e| serde::de::Error::custom(format!("server.profile: {e}")))
    }
}

/// A change a profile made that a reader should know about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    /// JSON pointer of the node: for `inline` in the inlined schema, for `draft-07` in the
    /// default (2020-12) schema.
    pub pointer: String,
    /// What was done and why.
    pub message: String,
}

/// `server` as advertised under `profile`: every tool's input and output schema reshaped,
/// with a warning per [`Note`] naming the tool and the pointer. The default profile borrows.
///
/// Inlining repeats a definition wherever it is referenced, so a schema that fits its budget
/// with `$defs` may not once inlined: such a schema is fitted again, inlined, to the limits it
/// was first fitted to ([`budget::refit`]), and each node that summarises is reported. A tool
/// summarised only then keeps its default schema as its full one.
pub fn advertised<'s>(
    server: &'s ir::Server,
    profile: Profile,
    warnings: &mut Vec<Warning>,
) -> Cow<'s, ir::Server> {
    if profile == Profile::Default {
        return Cow::Borrowed(server);
    }
    let mut out = server.clone();
    let ir::Server {
        tools, full_defs, ..
    } = &mut out;
    for tool in tools.iter_mut() {
        let (input, notes) = reshape(profile, &tool.input_schema);
        let shaped = fitted(profile, input, notes, Some(tool.input_limits));
        report(warnings, &tool.name, "inputSchema", profile, shaped.notes);
        report_cuts(warnings, &tool.name, "inputSchema", profile, &shaped.cuts);
        if shaped.summarised && tool.full_input_schema.is_none() {
            let full = budget::without_defs(&tool.input_schema, &mut full_defs.input);
            tool.full_input_schema = Some(full);
        }
        tool.input_schema = shaped.schema;
        // The full schemas are left as they are: the model reads them through
        // `describe_tools` and the server checks arguments against them; no client reads
        // them as a tool's schema. They share their definitions across tools, and inlining a
        // document whose references share targets (Stripe's objects) grows exponentially with
        // its depth.
        if let Some(output) = tool.output_schema.take() {
            let (reshaped, notes) = reshape(profile, &output);
            let shaped = fitted(profile, reshaped, notes, tool.output_limits);
            report(warnings, &tool.name, "outputSchema", profile, shaped.notes);
            report_cuts(warnings, &tool.name, "outputSchema", profile, &shaped.cuts);
            if shaped.summarised && tool.full_output_schema.is_none() {
                let full = budget::without_defs(&output, &mut full_defs.output);
                tool.full_output_schema = Some(full);
            }
            if shaped.schema != output && tool.documented_output_schema.is_none() {
                tool.documented_output_schema = Some(output);
            }
            tool.output_schema = Some(shaped.schema);
        }
    }
    Cow::Owned(out)
}

/// A reshaped schema, fitted again when the profile took it over its budget.
struct Shaped {
    schema: Value,
    /// The profile's notes about nodes still in `schema`.
    notes: Vec<Note>,
    /// JSON pointers of the nodes the second fit summarised.
    cuts: Vec<String>,
    /// Whether the second fit left anything out.
    summarised: bool,
}

/// `schema` (reshaped under `profile`, with its `notes`) as it is when it fits `limits`, else
/// fitted to them again (inlined schemas only). Notes about nodes inside a summary are dropped.
fn fitted(
    profile: Profile,
    schema: Value,
    notes: Vec<Note>,
    limits: Option<budget::Limits>,
) -> Shaped {
    let unchanged = |schema, notes| Shaped {
        schema,
        notes,
        cuts: Vec::new(),
        summarised: false,
    };
    let inlined = matches!(profile, Profile::Inline | Profile::Cursor);
    // `max_depth` fits (compact output schemas) have no budget, only a depth.
    let Some(limits) = limits.filter(|l| inlined && l.budget.is_some() && l.max_depth.is_none())
    else {
        return unchanged(schema, notes);
    };
    let fit = budget::refit(&schema, limits);
    // A schema over its budget for its required chains alone is summarised as it was.
    if !fit.summarised || fit.schema == schema {
        return unchanged(schema, notes);
    }
    // Only nodes the second fit changed are reported (the first one's summaries are cut again).
    let cuts: Vec<String> = fit
        .cuts
        .into_iter()
        .filter(|cut| schema.pointer(cut) != fit.schema.pointer(cut))
        .collect();
    let inside = |pointer: &str| {
        cuts.iter().any(|cut| {
            pointer
                .strip_prefix(cut.as_str())
                .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
        })
    };
    let notes = notes.into_iter().filter(|n| !inside(&n.pointer)).collect();
    Shaped {
        schema: fit.schema,
        notes,
        cuts,
        summarised: true,
    }
}

/// One warning per node that a second fit summarised, naming the tool and the pointer.
fn report_cuts(
    warnings: &mut Vec<Warning>,
    tool: &str,
    which: &str,
    profile: Profile,
    cuts: &[String],
) {
    warnings.extend(cuts.iter().map(|pointer| Warning {
        location: format!("tool `{tool}`: {which} at `{pointer}`"),
        message: format!(
            "nested fields summarised to fit the schema budget once references were inlined \
             (profile `{profile}`; `schema_budget:` in the allowlist changes the budget)"
        ),
    }));
}

/// `schema` under `profile`, with the notes of what changed.
pub fn reshape(profile: Profile, schema: &Value) -> (Value, Vec<Note>) {
    match profile {
        Profile::Default => (schema.clone(), Vec::new()),
        Profile::Inline | Profile::Cursor => inline(schema),
        Profile::Draft07 => draft07(schema),
    }
}

fn report(
    warnings: &mut Vec<Warning>,
    tool: &str,
    which: &str,
    profile: Profile,
    notes: Vec<Note>,
) {
    warnings.extend(notes.into_iter().map(|note| Warning {
        location: format!("tool `{tool}` {which} at `#{}`", note.pointer),
        message: format!("{} (profile `{profile}`)", note.message),
    }));
}

/// Calls `f` on every direct subschema of the schema object `map`, with its JSON pointer.
/// Values that hold data (`enum`, `const`, `default`, `examples`, property names) are never
/// visited; neither are the string lists of `dependencies`.
fn for_each_subschema(
    map: &mut Map<String, Value>,
    ptr: &str,
    mut f: impl FnMut(&mut Value, &str),
) {
    for (key, value) in map.iter_mut() {
        let key = key.as_str();
        let at = child(ptr, key);
        let list = keywords::SUBSCHEMA_LIST.contains(&key) || (key == "items" && value.is_array());
        if list {
            if let Value::Array(items) = value {
                for (i, item) in items.iter_mut().enumerate() {
                    f(item, &child(&at, &i.to_string()));
                }
            }
        } else if keywords::SUBSCHEMA.contains(&key) {
            f(value, &at);
        } else if (keywords::SUBSCHEMA_MAP.contains(&key) || key == "dependencies")
            && let Value::Object(named) = value
        {
            for (name, sub) in named.iter_mut() {
                if !sub.is_array() {
                    f(sub, &child(&at, name));
                }
            }
        }
    }
}

/// The name a reference shows in stubs: its last pointer segment, unescaped.
fn ref_name(reference: &str) -> String {
    match reference.rsplit_once('/') {
        Some((_, last)) if !last.is_empty() => json_pointer::unescape(last),
        _ => "schema".to_owned(),
    }
}

// ---------------------------------------------------------------------------------------------
// inline

/// `schema` with every local `$ref` replaced by its target and no `$defs` / `definitions`
/// left; recursion is cut after [`INLINE_RECURSION_DEPTH`] expansions with a stub and a note.
/// Deterministic: the walk follows the schema's key order.
pub fn inline(schema: &Value) -> (Value, Vec<Note>) {
    let mut inliner = Inliner {
        root: schema,
        stack: Vec::new(),
        notes: Vec::new(),
    };
    let mut out = schema.clone();
    inliner.walk(&mut out, "");
    (out, inliner.notes)
}

struct Inliner<'a> {
    /// The schema references resolve against.
    root: &'a Value,
    /// The references being expanded, outermost first.
    stack: Vec<String>,
    notes: Vec<Note>,
}

impl Inliner<'_> {
    fn walk(&mut self, node: &mut Value, ptr: &str) {
        let Value::Object(map) = node else {
            return;
        };
        map.shift_remove("$defs");
        map.shift_remove("definitions");
        let reference = map.shift_remove("$ref");
        for_each_subschema(map, ptr, |sub, at| self.walk(sub, at));
        match reference {
            Some(Value::String(reference)) => {
                let siblings = std::mem::take(map);
                *node = self.expand(&reference, siblings, ptr);
            }
            Some(other) => self.notes.push(Note {
                pointer: child(ptr, "$ref"),
                message: format!("`$ref` is not a string ({other}); dropped"),
            }),
            None => {}
        }
    }

    /// The target of `reference`, inlined, combined with the reference's `siblings`.
    fn expand(&mut self, reference: &str, mut siblings: Map<String, Value>, ptr: &str) -> Value {
        let root = self.root;
        let Some(target) = reference.strip_prefix('#').and_then(|p| root.pointer(p)) else {
            self.notes.push(Note {
                pointer: ptr.to_owned(),
                message: format!(
                    "`$ref` `{reference}` does not resolve in the schema; used `{{}}` (any value)"
                ),
            });
            return combine(Value::Object(Map::new()), siblings);
        };
        let name = ref_name(reference);
        let depth = self.stack.iter().filter(|r| *r == reference).count();
        if depth >= INLINE_RECURSION_DEPTH {
            self.notes.push(Note {
                pointer: ptr.to_owned(),
                message: format!(
                    "`{name}` recurs inside itself; inlined {INLINE_RECURSION_DEPTH} level(s) \
                     deep, nested levels cut to a stub"
                ),
            });
            let note = format!("A {name} {}", budget::RECURSION_OMITTED);
            let description = match siblings.shift_remove("description") {
                Some(Value::String(d)) if !d.trim().is_empty() => {
                    format!("{}. {note}", d.trim_end().trim_end_matches('.'))
                }
                _ => note,
            };
            let mut stub = Map::new();
            if let Some(kind) = target.get("type").filter(|t| t.is_string() || t.is_array()) {
                stub.insert("type".into(), kind.clone());
            }
            stub.insert("description".into(), Value::String(description));
            return combine(Value::Object(stub), siblings);
        }
        self.stack.push(reference.to_owned());
        let mut expanded = target.clone();
        self.walk(&mut expanded, ptr);
        self.stack.pop();
        combine(expanded, siblings)
    }
}

/// A reference's expansion together with its sibling keywords: annotations override the
/// target's; any other sibling keeps its meaning by putting the expansion under `allOf`.
fn combine(expanded: Value, siblings: Map<String, Value>) -> Value {
    if siblings.is_empty() {
        return expanded;
    }
    let annotations_only = siblings
        .keys()
        .all(|k| keywords::ANNOTATIONS.contains(&k.as_str()));
    match expanded {
        Value::Object(mut map) if annotations_only => {
            map.extend(siblings);
            Value::Object(map)
        }
        Value::Bool(true) if annotations_only => Value::Object(siblings),
        other => {
            let mut out = siblings;
            match out.get_mut("allOf") {
                Some(Value::Array(list)) => list.insert(0, other),
                _ => {
                    out.insert("allOf".into(), Value::Array(vec![other]));
                }
            }
            Value::Object(out)
        }
    }
}

// ---------------------------------------------------------------------------------------------
// draft-07

/// Keywords of 2020-12 (or 2019-09) that draft-07 has no equivalent for; dropped.
const NO_DRAFT_07: &[&str] = &[
    "$anchor",
    "$dynamicRef",
    "$dynamicAnchor",
    "$recursiveRef",
    "$recursiveAnchor",
    "$vocabulary",
    "contentSchema",
    "minContains",
    "maxContains",
];

/// Keywords after which `unevaluatedProperties` / `unevaluatedItems` no longer equal
/// `additionalProperties` / `additionalItems`: they evaluate in place.
const IN_PLACE_APPLICATORS: &[&str] = &[
    "$ref",
    "$dynamicRef",
    "allOf",
    "anyOf",
    "oneOf",
    "if",
    "then",
    "else",
    "dependentSchemas",
];

/// `schema` in the draft-07 dialect, `$schema` first (see the module documentation), with a
/// note for every keyword dropped. Pointers in notes name the 2020-12 schema.
pub fn draft07(schema: &Value) -> (Value, Vec<Note>) {
    let mut out = schema.clone();
    let mut notes = Vec::new();
    to_draft07(&mut out, "", &mut notes);
    if let Value::Object(map) = out {
        let mut root = Map::new();
        root.insert("$schema".into(), Value::String(DRAFT_07_SCHEMA.to_owned()));
        root.extend(map);
        out = Value::Object(root);
    }
    (out, notes)
}

fn to_draft07(node: &mut Value, ptr: &str, notes: &mut Vec<Note>) {
    let Value::Object(map) = node else {
        return;
    };
    for_each_subschema(map, ptr, |sub, at| to_draft07(sub, at, notes));
    let old = std::mem::take(map);
    let has = |k: &str| old.contains_key(k);
    let tuple = has("prefixItems");
    // Without in-place applicators, `unevaluated*` sees exactly what `additional*` sees.
    let plain = !IN_PLACE_APPLICATORS.iter().any(|k| has(k));
    let plain_items = plain && !has("contains");
    let has_items = has("items");
    let has_additional = has("additionalProperties");
    let mut out = Map::new();
    let mut reference = None;
    let mut dependencies = Map::new();
    let mut exclusive = Vec::new();
    for (key, value) in old {
        let at = child(ptr, &key);
        match key.as_str() {
            "$ref" => reference = Some(value),
            "$schema" => {}
            "$defs" | "definitions" => {
                if let Value::Object(defs) = value {
                    let target = out
                        .entry("definitions")
                        .or_insert_with(|| Value::Object(Map::new()));
                    if let Value::Object(target) = target {
                        for (name, def) in defs {
                            if target.contains_key(&name) {
                                notes.push(Note {
                                    pointer: child(&at, &name),
                                    message: format!(
                                        "`{name}` is in both `$defs` and `definitions`; kept the first"
                                    ),
                                });
                            } else {
                                target.insert(name, def);
                            }
                        }
                    }
                }
            }
            "prefixItems" => {
                out.insert("items".into(), value);
            }
            "items" if tuple => {
                out.insert("additionalItems".into(), value);
            }
            "dependentRequired" | "dependentSchemas" | "dependencies" => {
                if let Value::Object(entries) = value {
                    for (name, dep) in entries {
                        let merged = match dependencies.shift_remove(&name) {
                            None => dep,
                            Some(first) => {
                                serde_json::json!({ "allOf": [as_schema(first), as_schema(dep)] })
                            }
                        };
                        dependencies.insert(name, merged);
                    }
                }
            }
            "exclusiveMinimum" | "exclusiveMaximum" if value.is_boolean() => {
                exclusive.push((key, value));
            }
            // `additionalProperties` / `items` already evaluate everything left.
            "unevaluatedProperties" if plain && has_additional => {}
            "unevaluatedItems" if plain_items && has_items => {}
            "unevaluatedProperties" if plain => {
                out.insert("additionalProperties".into(), value);
            }
            "unevaluatedItems" if plain_items && tuple => {
                out.insert("additionalItems".into(), value);
            }
            "unevaluatedItems" if plain_items => {
                out.insert("items".into(), value);
            }
            "unevaluatedProperties" | "unevaluatedItems" => notes.push(Note {
                pointer: at,
                message: format!(
                    "`{key}` has no draft-07 equivalent next to in-place applicators; dropped"
                ),
            }),
            k if NO_DRAFT_07.contains(&k) => notes.push(Note {
                pointer: at,
                message: format!("`{key}` has no draft-07 equivalent; dropped"),
            }),
            _ => {
                out.insert(key, value);
            }
        }
    }
    if !dependencies.is_empty() {
        out.insert("dependencies".into(), Value::Object(dependencies));
    }
    // Draft 4 booleans, should any reach here: `true` makes the bound exclusive.
    for (key, flag) in exclusive {
        let bound = if key == "exclusiveMinimum" {
            "minimum"
        } else {
            "maximum"
        };
        if flag == Value::Bool(true)
            && let Some(limit) = out.shift_remove(bound)
        {
            out.insert(key, limit);
        }
    }
    if let Some(reference) = reference {
        let reference = match reference {
            Value::String(r) => Value::String(draft07_ref(&r)),
            other => other,
        };
        let wrapped = serde_json::json!({ "$ref": reference });
        if out.is_empty() {
            out = match wrapped {
                Value::Object(m) => m,
                _ => Map::new(),
            };
        } else {
            match out.get_mut("allOf") {
                Some(Value::Array(list)) => list.insert(0, wrapped),
                _ => {
                    out.insert("allOf".into(), Value::Array(vec![wrapped]));
                }
            }
        }
    }
    *map = out;
}

/// A dependency as a schema: a list of property names becomes `{"required": [...]}`.
fn as_schema(dep: Value) -> Value {
    match dep {
        Value::Array(names) => serde_json::json!({ "required": names }),
        schema => schema,
    }
}

/// A local reference with every `$defs` segment renamed `definitions`.
fn draft07_ref(reference: &str) -> String {
    let Some(pointer) = reference.strip_prefix('#') else {
        return reference.to_owned();
    };
    let segments: Vec<&str> = pointer
        .split('/')
        .map(|s| if s == "$defs" { "definitions" } else { s })
        .collect();
    format!("#{}", segments.join("/"))
}
