//! `host`, `basePath` and `schemes` → `servers`.

use serde_json::{Value, json};

use super::Swagger2;

impl Swagger2<'_> {
    /// `host` + `basePath` + first of `schemes` → `servers`.
    pub(super) fn servers(&self) -> Option<Value> {
        let host = self.doc.get("host").and_then(Value::as_str);
        let base = self.doc.get("basePath").and_then(Value::as_str);
        let scheme = self
            .doc
            .get("schemes")
            .and_then(Value::as_array)
            .and_then(|s| s.first())
            .and_then(Value::as_str)
            .unwrap_or("https");
        let url = match (host, base) {
            // A host written with its scheme (a common slip) is taken as written.
            (Some(host), base) if host.contains("://") => {
                format!("{}{}", host.trim_end_matches('/'), base.unwrap_or(""))
            }
            (Some(host), base) => format!("{scheme}://{host}{}", base.unwrap_or("")),
            (None, Some(base)) => base.to_owned(),
            (None, None) => return None,
        };
        Some(json!([{ "url": url }]))
    }
}
