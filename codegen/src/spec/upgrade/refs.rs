//! References to the moved sections follow them into `components`.

use mcpgen_core::json_pointer;
use serde_json::Value;

use super::Swagger2;
use percent_encoding::percent_decode_str;

impl Swagger2<'_> {
    /// `#/definitions/X` → `#/components/schemas/X`, `#/parameters/X` →
    /// `#/components/parameters/X` (or `requestBodies`), `#/responses/X` →
    /// `#/components/responses/X`, everywhere.
    pub(super) fn rewrite_refs(&self, value: &mut Value) {
        match value {
            Value::Object(map) => {
                for (key, child) in map.iter_mut() {
                    match child {
                        Value::String(reference) if key == "$ref" => {
                            if let Some(new) = self.rewritten(reference) {
                                *reference = new;
                            }
                        }
                        _ => self.rewrite_refs(child),
                    }
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|item| self.rewrite_refs(item)),
            _ => {}
        }
    }

    pub(super) fn rewritten(&self, reference: &str) -> Option<String> {
        if let Some(rest) = reference.strip_prefix("#/definitions/") {
            return Some(format!("#/components/schemas/{rest}"));
        }
        if let Some(rest) = reference.strip_prefix("#/responses/") {
            return Some(format!("#/components/responses/{rest}"));
        }
        let rest = reference.strip_prefix("#/parameters/")?;
        let name = rest.split('/').next().unwrap_or(rest);
        let decoded = json_pointer::unescape(&percent_decode_str(name).decode_utf8_lossy());
        let section = if self.body_names.contains(&decoded) {
            "requestBodies"
        } else {
            "parameters"
        };
        Some(format!("#/components/{section}/{rest}"))
    }
}
