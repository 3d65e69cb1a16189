//! Names of the copies: taken names per section, and a free one for each new copy.

use mcpgen_core::json_pointer;
use serde_json::Value;

use super::kind::{Kind, section_path};
use super::{Bundler, File};

impl Bundler {
    /// Records the names already used in every section a copy may go to.
    pub(super) fn seed_taken_names(&mut self, doc: &Value) {
        let kinds = [
            Kind::Schema,
            Kind::Parameter,
            Kind::Response,
            Kind::RequestBody,
            Kind::Header,
            Kind::Example,
            Kind::Link,
            Kind::Callback,
            Kind::SecurityScheme,
            Kind::PathItem,
        ];
        for kind in kinds {
            let section = section_path(kind.section(self.swagger2));
            let names = doc
                .pointer(&json_pointer::join(&section))
                .and_then(Value::as_object)
                .map(|map| map.keys().cloned().collect())
                .unwrap_or_default();
            self.taken.insert(section, names);
        }
    }

    /// Picks a free name for a copy of (`file`, `pointer`) and returns its destination.
    pub(super) fn claim_name(&mut self, kind: Kind, file: &File, pointer: &str) -> Vec<String> {
        let section = section_path(kind.section(self.swagger2));
        let base = base_name(file, pointer);
        let taken = self.taken.entry(section.clone()).or_default();
        let mut name = base.clone();
        let mut n = 2;
        while taken.contains(&name) {
            name = format!("{base}_{n}");
            n += 1;
        }
        taken.insert(name.clone());
        let mut dest = section;
        dest.push(name);
        dest
    }
}

/// The name a copy gets: the pointer's last segment or, for a whole file, the file stem;
/// characters outside `[A-Za-z0-9._-]` become `_`.
pub(super) fn base_name(file: &File, pointer: &str) -> String {
    let stem = file
        .shown
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let last = json_pointer::tokens(pointer).pop().unwrap_or_default();
    let raw = if last.is_empty() {
        stem
    } else if last.bytes().all(|b| b.is_ascii_digit()) {
        format!("{stem}_{last}")
    } else {
        last
    };
    let clean: String = raw
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if clean.is_empty() {
        "Bundled".into()
    } else {
        clean
    }
}
