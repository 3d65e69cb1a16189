//! Copying targets of external refs (and what they reference) into the root document.

use std::path::Path;

use mcpgen_core::json_pointer;
use serde_json::{Map, Value};

use super::drop;
use super::kind::Kind;
use super::reference::{local_reference, parse_reference, tidy};
use super::walk::walk;
use super::{Bundler, Dangling, File, Job, RootRef, Unusable};
use crate::error::Error;
use crate::spec::load::parse_document;

impl Bundler {
    /// Copies queued targets (and whatever they reference) until none is left.
    pub(super) fn run_jobs(&mut self) {
        while let Some(job) = self.jobs.pop_front() {
            let Ok(mut content) = self.target(&job.file, &job.pointer).cloned() else {
                continue;
            };
            let mut path = json_pointer::tokens(&job.pointer);
            let prefix = path.len();
            walk(
                &mut content,
                job.kind,
                &mut path,
                &mut |reference, kind, at| {
                    // Where the reference stands once the copy is placed.
                    let mut placed = job.dest.clone();
                    placed.extend(at.iter().skip(prefix).cloned());
                    self.follow(reference, kind, &job.file, at, &placed);
                },
            );
            self.placed.push((job.dest, content));
        }
    }

    /// Puts the copies into the root document.
    pub(super) fn place(&mut self, doc: &mut Value) {
        for (dest, content) in std::mem::take(&mut self.placed) {
            self.copies.insert(dest.clone());
            if let Err(at) = insert_at(doc, &dest, content) {
                self.errors.push(Error::Spec {
                    path: self.root.shown.clone(),
                    pointer: at,
                    message: "expected a mapping here, to hold the targets of external $refs"
                        .into(),
                });
            }
        }
    }

    /// Handles one `$ref` found in `file` at `at`, which stands at `placed` in the bundled
    /// root document: rewrites it to a local reference (queueing the copy of its target) or
    /// records why it cannot be followed: for the operation holding it, for every operation
    /// that reaches it (see [`super::taint`]), or, for a discriminator mapping entry, as an
    /// entry to drop (see [`super::drop`]).
    pub(super) fn follow(
        &mut self,
        reference: &mut String,
        kind: Kind,
        file: &File,
        at: &[String],
        placed: &[String],
    ) {
        match self.localize(reference, kind, file, at) {
            Ok(Some(local)) => *reference = local,
            Ok(None) => {}
            Err(reason) => {
                let error = Error::Ref {
                    path: file.shown.clone(),
                    pointer: json_pointer::join(at),
                    reference: reference.clone(),
                    reason,
                };
                if drop::is_mapping_entry(at) {
                    self.dropped.push(Dangling {
                        at: placed.to_vec(),
                        error,
                    });
                    return;
                }
                match operation_of(at).filter(|_| file.canonical == self.root.canonical) {
                    Some((path, method)) => self.unusable.push(Unusable {
                        path,
                        method,
                        error,
                    }),
                    None => self.dangling.push(Dangling {
                        at: placed.to_vec(),
                        error,
                    }),
                }
            }
        }
    }

    /// The local reference `reference` (in `file`) becomes, or `None` to keep it as written.
    pub(super) fn localize(
        &mut self,
        reference: &str,
        kind: Kind,
        file: &File,
        at: &[String],
    ) -> Result<Option<String>, String> {
        let parts = parse_reference(reference)?;
        let in_root = file.canonical == self.root.canonical;
        if parts.file.is_empty() && in_root {
            // Checked once everything is bundled.
            return Ok(None);
        }
        let target_file = if parts.file.is_empty() {
            file.clone()
        } else {
            self.locate(file, &parts.file)?
        };
        if target_file.canonical == self.root.canonical {
            if !in_root {
                // Back into the root document: checked once everything is bundled.
                self.into_root.push(RootRef {
                    file: file.shown.clone(),
                    at: json_pointer::join(at),
                    reference: reference.to_owned(),
                    pointer: parts.pointer.clone(),
                });
            }
            return Ok(Some(local_reference(&parts.pointer)));
        }
        let key = (target_file.canonical.clone(), parts.pointer.clone());
        if let Some(local) = self.memo.get(&key) {
            return Ok(Some(local.clone()));
        }
        self.target(&target_file, &parts.pointer)?;
        let kind = match kind {
            Kind::Other => Kind::of_pointer(&parts.pointer),
            known => known,
        };
        let dest = self.claim_name(kind, &target_file, &parts.pointer);
        let local = local_reference(&json_pointer::join(&dest));
        self.memo.insert(key, local.clone());
        self.jobs.push_back(Job {
            file: target_file,
            pointer: parts.pointer,
            kind,
            dest,
        });
        Ok(Some(local))
    }

    /// The file `relative` names, seen from `from`.
    pub(super) fn locate(&self, from: &File, relative: &str) -> Result<File, String> {
        let join = |base: &Path| base.parent().unwrap_or(Path::new("")).join(relative);
        let shown = tidy(&join(&from.shown));
        let canonical = std::fs::canonicalize(join(&from.canonical))
            .map_err(|e| format!("cannot read `{}`: {e}", shown.display()))?;
        Ok(File { canonical, shown })
    }

    /// The value at `pointer` in `file` (loading the file once).
    pub(super) fn target(&mut self, file: &File, pointer: &str) -> Result<&Value, String> {
        let loaded = self
            .files
            .entry(file.canonical.clone())
            .or_insert_with(|| load_file(file));
        let doc = loaded.as_ref().map_err(Clone::clone)?;
        doc.pointer(pointer)
            .ok_or_else(|| format!("`{}` has nothing at `#{pointer}`", file.shown.display()))
    }
}

pub(super) fn load_file(file: &File) -> Result<Value, String> {
    let text = std::fs::read_to_string(&file.canonical)
        .map_err(|e| format!("cannot read `{}`: {e}", file.shown.display()))?;
    // Referenced files may hold a bare schema or even a scalar: only the syntax matters here.
    match parse_document(&file.shown, &text) {
        Ok(doc) => Ok(doc),
        Err(Error::Spec { .. }) => parse_fragment(&file.shown, &text),
        Err(e) => Err(format!(
            "`{}` is not valid JSON or YAML: {e}",
            file.shown.display()
        )),
    }
}

/// The path item (template) and operation (method) of the root document that `at` lies in,
/// if it lies in one: `paths/<template>/<method>/...` or `paths/<template>/...`.
pub(super) fn operation_of(at: &[String]) -> Option<(String, Option<String>)> {
    match at {
        [paths, template, rest @ ..] if paths == "paths" => {
            let method = rest
                .first()
                .filter(|m| crate::spec::METHODS.contains(&m.as_str()))
                .cloned();
            Some((template.clone(), method))
        }
        _ => None,
    }
}

/// Reads a file whose root is not a mapping (a list, a scalar); an empty file is `null`.
pub(super) fn parse_fragment(shown: &Path, text: &str) -> Result<Value, String> {
    let wrapped = format!("fragment:\n{}", indent(text));
    parse_document(shown, &wrapped)
        .ok()
        .and_then(|mut doc| doc.get_mut("fragment").map(Value::take))
        .ok_or_else(|| format!("`{}` is not valid JSON or YAML", shown.display()))
}

pub(super) fn indent(text: &str) -> String {
    text.lines().map(|line| format!("  {line}\n")).collect()
}

/// Inserts `content` at `dest`, creating mappings on the way; `Err` names the pointer of a
/// non-mapping in the way.
pub(super) fn insert_at(doc: &mut Value, dest: &[String], content: Value) -> Result<(), String> {
    let Some((last, parents)) = dest.split_last() else {
        return Ok(());
    };
    let mut node = doc;
    for (depth, segment) in parents.iter().enumerate() {
        let Value::Object(map) = node else {
            return Err(json_pointer::join(&dest[..depth]));
        };
        node = map
            .entry(segment.clone())
            .or_insert_with(|| Value::Object(Map::new()));
    }
    match node {
        Value::Object(map) => {
            map.insert(last.clone(), content);
            Ok(())
        }
        _ => Err(json_pointer::join(parents)),
    }
}
