//! `readOnly` / `writeOnly`: which properties a [`Direction`] leaves out.

use std::collections::BTreeSet;

use serde_json::Value;

use super::{Direction, SchemaConverter};

/// How many `$ref` hops or `allOf` members the read-only/write-only probes follow.
pub(super) const PROBE_BUDGET: usize = 256;

impl Direction {
    /// The annotation that hides a property in this direction.
    fn hiding_keyword(self) -> &'static str {
        match self {
            Self::Input => "readOnly",
            Self::Output => "writeOnly",
        }
    }
}

impl SchemaConverter<'_> {
    /// Whether a (raw) property schema is hidden in this direction: marked itself, or through
    /// its `$ref` target or an `allOf` member.
    pub(super) fn is_hidden(&self, schema: &Value, budget: &mut usize) -> bool {
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
    pub(super) fn collect_hidden(
        &self,
        schema: &Value,
        budget: &mut usize,
        out: &mut BTreeSet<String>,
    ) {
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
}
