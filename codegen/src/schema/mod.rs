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
//!   `mapping` still makes sure every mapped schema is in `$defs`, and where every `oneOf`/`anyOf`
//!   alternative names the discriminator property's values, a `dependentSchemas` constraint
//!   refuses a value none of them names.
//! - [`Direction::Input`] drops `readOnly` properties, [`Direction::Output`] drops `writeOnly`
//!   ones, from `properties` and from `required` (also `required` lists of `allOf` siblings).
//! - Keywords whose values have the wrong shape (a `required: true` on a property, a numeric
//!   keyword written as a string, an unknown type name) are repaired or dropped, so every result
//!   validates against the JSON Schema 2020-12 meta-schema.
//!
//! Nothing here panics on input: anything unusable becomes `{}` (any value) with a [`Warning`]
//! naming the JSON pointer.
//!
//! One file per job: `translate` walks a schema and translates its keywords, `defs` resolves
//! references, names their targets and collects `$defs`, `nullable` applies `nullable`,
//! `hidden` finds `readOnly`/`writeOnly` properties, `object` gathers the properties of plain
//! object schemas, `discriminator` constrains a discriminator's property, `repair` fixes
//! keyword values of the wrong shape and `memo` shares the conversions of referenced schemas
//! between the converters of one document.

mod defs;
mod discriminator;
mod hidden;
mod memo;
mod nullable;
mod object;
mod repair;
mod translate;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use indexmap::IndexMap;
use mcpgen_core::json_kind;
use mcpgen_core::json_pointer::child;
use serde_json::{Map, Value};

use crate::error::Warning;

pub use defs::def_name_for_pointer;
pub use memo::SharedDefs;

/// How many levels of inline nesting [`SchemaConverter`] follows by default; deeper parts become
/// `{}` with a warning.
pub const DEFAULT_MAX_DEPTH: usize = 64;

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

/// Converts schemas of one document, collecting referenced schemas into `$defs`.
pub struct SchemaConverter<'a> {
    root: &'a Value,
    spec_path: &'a Path,
    direction: Direction,
    /// OpenAPI 3.1 or later: `$ref` siblings apply.
    ref_siblings: bool,
    max_depth: usize,
    defs: BTreeMap<String, Value>,
    /// Reserved `$defs` names whose targets still have to be converted: name → (target,
    /// pointer), in the order they were reserved.
    pending: IndexMap<String, (&'a Value, String)>,
    /// Whether reserved `$defs` are converted only when [`SchemaConverter::def`] asks for them.
    lazy: bool,
    warnings: Vec<Warning>,
    /// Conversions shared with the other converters of the document, if any.
    shared: Option<&'a SharedDefs<'a>>,
    /// While a referenced schema is converted for [`SharedDefs`]: the references it reserves.
    recording: Option<Vec<memo::Reserved<'a>>>,
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
            pending: IndexMap::new(),
            lazy: false,
            warnings: Vec::new(),
            shared: None,
            recording: None,
        }
    }

    /// Converts referenced schemas through `shared`, which the other converters of the same
    /// document (and direction) also use: each one is converted once, not once per converter.
    /// The results and warnings are the same as without it.
    pub fn with_shared_defs(mut self, shared: &'a SharedDefs<'a>) -> Self {
        self.shared = Some(shared);
        self
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
        if let Some((name, (target, pointer))) = self.pending.swap_remove_entry(name) {
            let converted = self.convert_def(&name, target, &pointer);
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
}

impl SchemaConverter<'_> {
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
        while let Some((name, (target, pointer))) = self.pending.pop() {
            let converted = self.convert_def(&name, target, &pointer);
            self.defs.insert(name, converted);
        }
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
                json_kind(found)
            ),
        );
    }
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

/// `{}`: any value.
fn any() -> Value {
    Value::Object(Map::new())
}
