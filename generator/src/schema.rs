//! OpenAPI schemas (2.0-upgraded, 3.0, 3.1) → JSON Schema 2020-12, the dialect of MCP.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use crate::error::Warning;

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
    defs: BTreeMap<String, Value>,
    warnings: Vec<Warning>,
}

impl<'a> SchemaConverter<'a> {
    /// A converter for schemas of `root` (the bundled, upgraded document read from `spec_path`).
    pub fn new(root: &'a Value, spec_path: &'a Path, direction: Direction) -> Self {
        Self {
            root,
            spec_path,
            direction,
            defs: BTreeMap::new(),
            warnings: Vec::new(),
        }
    }

    /// Converts `schema`, found at JSON pointer `pointer` of the document.
    pub fn convert(&mut self, schema: &Value, pointer: &str) -> Value {
        let _ = (self.root, self.spec_path, self.direction, pointer);
        schema.clone()
    }

    /// The `$defs` collected so far (name → converted schema) and the warnings.
    pub fn finish(self) -> (BTreeMap<String, Value>, Vec<Warning>) {
        (self.defs, self.warnings)
    }
}
