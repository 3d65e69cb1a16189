//! The root document's own external refs, and root `components` entries that are only one.

use mcpgen_core::json_pointer;
use serde_json::Value;

use super::kind::Kind;
use super::reference::{local_reference, parse_reference};
use super::walk::walk_object;
use super::{Bundler, Job};

impl Bundler {
    /// Root section entries that are nothing but an external `$ref` are replaced by their
    /// target, so `components/schemas/Pet: {$ref: pet.yaml}` bundles as `Pet`, not `Pet_2`.
    pub(super) fn find_component_refs(&mut self, doc: &Value) {
        let sections: &[&str] = if self.swagger2 {
            &[
                "definitions",
                "parameters",
                "responses",
                "securityDefinitions",
            ]
        } else {
            &[
                "components/schemas",
                "components/parameters",
                "components/responses",
                "components/requestBodies",
                "components/headers",
                "components/examples",
                "components/links",
                "components/callbacks",
                "components/securitySchemes",
                "components/pathItems",
            ]
        };
        for section in sections {
            let Some(entries) = doc
                .pointer(&format!("/{section}"))
                .and_then(Value::as_object)
            else {
                continue;
            };
            let section_name = section.rsplit('/').next().unwrap_or(section);
            let kind = Kind::of_section(section_name).unwrap_or(Kind::Schema);
            for (name, entry) in entries {
                let Some(reference) = sole_reference(entry) else {
                    continue;
                };
                let mut dest: Vec<String> = section.split('/').map(str::to_owned).collect();
                dest.push(name.clone());
                self.replace_with_target(reference, kind, dest);
            }
        }
    }

    pub(super) fn replace_with_target(&mut self, reference: &str, kind: Kind, dest: Vec<String>) {
        let Ok(parts) = parse_reference(reference) else {
            return;
        };
        if parts.file.is_empty() {
            return;
        }
        let Ok(file) = self.locate(&self.root.clone(), &parts.file) else {
            return;
        };
        let key = (file.canonical.clone(), parts.pointer.clone());
        if file.canonical == self.root.canonical
            || self.memo.contains_key(&key)
            || self.target(&file, &parts.pointer).is_err()
        {
            return;
        }
        self.memo
            .insert(key, local_reference(&json_pointer::join(&dest)));
        self.replaced.insert(dest.clone());
        self.jobs.push_back(Job {
            file,
            pointer: parts.pointer,
            kind,
            dest,
        });
    }

    /// Rewrites the external refs of the root document.
    pub(super) fn rewrite_root(&mut self, doc: &mut Value) {
        let root = self.root.clone();
        let mut path = Vec::new();
        walk_object(doc, Kind::Other, &mut path, &mut |reference, kind, at| {
            // The object holding a `$ref` member.
            let holder = match at.split_last() {
                Some((last, holder)) if last == "$ref" => holder,
                _ => at,
            };
            if !self.replaced.contains(holder) {
                self.follow(reference, kind, &root, at, at);
            }
        });
    }
}

/// The reference of an object that holds nothing but a `$ref`.
pub(super) fn sole_reference(entry: &Value) -> Option<&str> {
    let map = entry.as_object()?;
    if map.len() != 1 {
        return None;
    }
    map.get("$ref")?.as_str()
}
