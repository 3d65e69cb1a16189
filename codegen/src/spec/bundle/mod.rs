//! Bundling: relative-file `$ref`s are pulled into the document so every `$ref` is local.
//!
//! A `$ref` to another file (`pet.yaml`, `./schemas/pet.json#/Pet`,
//! `common.yaml#/components/schemas/Error`) is resolved relative to the folder of the file that
//! holds it. Its target is copied into the root document and the `$ref` rewritten to point at
//! the copy:
//!
//! | target                         | OpenAPI 3.x                     | Swagger 2.0            |
//! |--------------------------------|---------------------------------|------------------------|
//! | schema (or a whole file)       | `components/schemas/<Name>`     | `definitions/<Name>`   |
//! | parameter                      | `components/parameters/<Name>`  | `parameters/<Name>`    |
//! | response                       | `components/responses/<Name>`   | `responses/<Name>`     |
//! | request body, header, …        | `components/<section>/<Name>`   | `x-mcpgen-bundled/…`   |
//! | path item                      | `x-mcpgen-bundled/pathItems/<Name>`                      |
//!
//! What a target is comes from where the `$ref` stands (a `schema`, an entry of `parameters`,
//! …), else from the target's pointer. `<Name>` is the pointer's last segment or the file stem,
//! suffixed `_2`, `_3`, … when another target already has it. A root `components` entry that is
//! only an external `$ref` is replaced by the target itself, keeping its name.
//!
//! Refs inside copied content are followed relative to their own file; a memo of
//! (file, pointer) → local pointer, filled before the content is walked, makes cycles between
//! files safe. Remote refs are refused. Local refs (`#/...`) stay as written, but ones that do
//! not resolve are reported. Refs inside `x-` extensions and example values are data and left
//! alone.
//!
//! A ref that cannot be followed is an error of the operations that hold or reach it
//! ([`bundle_by_operation`]), not of the document. A `discriminator.mapping` entry is only a
//! hint for choosing among `oneOf`/`anyOf` alternatives: one whose ref cannot be followed is
//! dropped with a warning naming it (`drop`), and the schema keeps its alternatives.
//!
//! One file per job: `kind` says which section a target goes to, `walk` finds the `$ref`s that
//! are references, `reference` parses them, `root` rewrites the root document's own external
//! refs, `copy` copies targets into it, `names` picks the names of the copies and `taint`
//! finds the operations that reach a ref that cannot be followed.

mod copy;
mod drop;
mod kind;
mod names;
mod reference;
mod root;
mod taint;
mod walk;

use std::collections::{HashMap, HashSet, VecDeque};
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::error::{Error, Warning};
use kind::Kind;
use reference::tidy;

/// Makes every `$ref` in `doc` (read from `path`) local. Every `$ref` that cannot be
/// followed is an error.
pub fn bundle(path: &Path, doc: Value) -> Result<Value, Vec<Error>> {
    let Bundled {
        doc,
        errors,
        unusable,
        dangling,
        dropped,
    } = run(path, doc);
    let mut all: Vec<Error> = unusable.into_iter().map(|u| u.error).collect();
    all.extend(dangling.into_iter().map(|d| d.error));
    all.extend(dropped.into_iter().map(|d| d.error));
    all.extend(errors);
    if all.is_empty() { Ok(doc) } else { Err(all) }
}

/// An operation (or a path item) of the root document that holds or reaches a `$ref` that
/// cannot be followed: it is unusable, not the document.
#[derive(Debug, Clone)]
pub struct Unusable {
    /// Path template of the path item.
    pub path: String,
    /// Lower-case method of the operation; `None` when the path item itself holds or reaches
    /// the `$ref` (every operation under it is unusable).
    pub method: Option<String>,
    /// Why, naming the `$ref` and its pointer.
    pub error: Error,
}

/// A `$ref` outside `paths` that cannot be followed (see [`taint`]).
#[derive(Debug)]
struct Dangling {
    /// Where the reference stands in the bundled root document (segments).
    at: Vec<String>,
    /// Why, naming the file and pointer where it is written.
    error: Error,
}

/// Like [`bundle`], except that a `$ref` that cannot be followed (a missing file, a pointer to
/// nothing) makes the operations that use it unusable, not the document: one in the root
/// document's `paths` the operation (or path item) holding it, one elsewhere (a component, a
/// file a component comes from) every operation that reaches it through local references. It
/// is left as written and returned as [`Unusable`] for each of those operations; one that no
/// operation reaches is returned as a warning. A discriminator mapping entry whose ref cannot
/// be followed is removed, with a warning naming it, and makes nothing unusable.
pub fn bundle_by_operation(path: &Path, doc: Value) -> Result<ByOperation, Vec<Error>> {
    let Bundled {
        mut doc,
        errors,
        mut unusable,
        dangling,
        dropped,
    } = run(path, doc);
    if !errors.is_empty() {
        return Err(errors);
    }
    let dropped_mappings = drop::remove_mapping_entries(&mut doc, dropped);
    let mut unused = Vec::new();
    if !dangling.is_empty() {
        let (more, warnings) = taint::unusable_operations(&mut doc, dangling);
        unusable.extend(more);
        unused = warnings;
    }
    Ok(ByOperation {
        doc,
        unusable,
        unused,
        dropped_mappings,
    })
}

/// What [`bundle_by_operation`] made of a document.
#[derive(Debug)]
pub struct ByOperation {
    /// The document, with every `$ref` that could be followed made local.
    pub doc: Value,
    /// The operations that hold or reach a `$ref` that cannot be followed.
    pub unusable: Vec<Unusable>,
    /// `$ref`s outside `paths` that cannot be followed and that no operation reaches.
    pub unused: Vec<Warning>,
    /// Discriminator mapping entries removed because their `$ref` cannot be followed, one
    /// warning each.
    pub dropped_mappings: Vec<Warning>,
}

/// What bundling made of a document.
struct Bundled {
    /// The document, its external refs made local where they could be followed.
    doc: Value,
    /// Problems of the document as a whole.
    errors: Vec<Error>,
    /// Refs in one operation of the root document that cannot be followed.
    unusable: Vec<Unusable>,
    /// Refs outside `paths` that cannot be followed.
    dangling: Vec<Dangling>,
    /// Discriminator mapping entries whose ref cannot be followed (still in `doc`).
    dropped: Vec<Dangling>,
}

/// Bundles `doc` (read from `path`).
fn run(path: &Path, doc: Value) -> Bundled {
    if doc.get("openapi").is_none() && doc.get("swagger").is_none() {
        // Not an API description: the upgrade step says so; its refs are not worth reporting.
        return Bundled {
            doc,
            errors: Vec::new(),
            unusable: Vec::new(),
            dangling: Vec::new(),
            dropped: Vec::new(),
        };
    }
    let mut doc = doc;
    let mut bundler = Bundler::new(path, &doc);
    bundler.find_component_refs(&doc);
    bundler.rewrite_root(&mut doc);
    bundler.run_jobs();
    bundler.place(&mut doc);
    bundler.check_local_refs(&mut doc);
    Bundled {
        doc,
        errors: bundler.errors,
        unusable: bundler.unusable,
        dangling: bundler.dangling,
        dropped: bundler.dropped,
    }
}

/// One file involved in bundling: its identity (canonical path) and its name for messages.
#[derive(Debug, Clone)]
struct File {
    canonical: PathBuf,
    shown: PathBuf,
}

/// A target still to be copied into the root document.
struct Job {
    file: File,
    pointer: String,
    kind: Kind,
    dest: Vec<String>,
}

struct Bundler {
    root: File,
    swagger2: bool,
    /// Parsed external files by canonical path, or why they cannot be used.
    files: HashMap<PathBuf, Result<Value, String>>,
    /// (canonical file, pointer) → local reference of its copy.
    memo: HashMap<(PathBuf, String), String>,
    /// Names in use per section path.
    taken: HashMap<Vec<String>, HashSet<String>>,
    /// Root `components` entries that are replaced by their external target.
    replaced: HashSet<Vec<String>>,
    jobs: VecDeque<Job>,
    /// Copies ready to be placed: destination segments and content.
    placed: Vec<(Vec<String>, Value)>,
    /// Where copies were placed.
    copies: HashSet<Vec<String>>,
    /// Refs from other files back into the root document, to check at the end.
    into_root: Vec<RootRef>,
    errors: Vec<Error>,
    /// Refs in one operation of the root document that cannot be followed.
    unusable: Vec<Unusable>,
    /// Refs outside the root document's `paths` that cannot be followed.
    dangling: Vec<Dangling>,
    /// Discriminator mapping entries whose ref cannot be followed, where they stand in the
    /// bundled root document.
    dropped: Vec<Dangling>,
}

/// A `$ref` in another file that points back into the root document.
struct RootRef {
    /// The file holding it.
    file: PathBuf,
    /// Pointer of the `$ref` in that file.
    at: String,
    reference: String,
    /// The decoded pointer it targets in the root document.
    pointer: String,
}

impl Bundler {
    fn new(path: &Path, doc: &Value) -> Bundler {
        let canonical = std::fs::canonicalize(path).unwrap_or_else(|_| {
            std::env::current_dir()
                .map(|dir| tidy(&dir.join(path)))
                .unwrap_or_else(|_| path.to_owned())
        });
        let swagger2 = match doc.get("swagger") {
            Some(Value::String(v)) => v.starts_with('2'),
            Some(Value::Number(n)) => n.as_f64().is_some_and(|v| (2.0..3.0).contains(&v)),
            _ => false,
        };
        let mut bundler = Bundler {
            root: File {
                canonical,
                shown: path.to_owned(),
            },
            swagger2,
            files: HashMap::new(),
            memo: HashMap::new(),
            taken: HashMap::new(),
            replaced: HashSet::new(),
            jobs: VecDeque::new(),
            placed: Vec::new(),
            copies: HashSet::new(),
            into_root: Vec::new(),
            errors: Vec::new(),
            unusable: Vec::new(),
            dangling: Vec::new(),
            dropped: Vec::new(),
        };
        bundler.seed_taken_names(doc);
        bundler
    }

    /// Reports refs from other files into the root that do not resolve in the bundled document.
    fn check_local_refs(&mut self, doc: &mut Value) {
        for back in std::mem::take(&mut self.into_root) {
            if doc.pointer(&back.pointer).is_none() {
                self.errors.push(Error::Ref {
                    path: back.file,
                    pointer: back.at,
                    reference: back.reference,
                    reason: format!(
                        "`{}` has nothing at `#{}`",
                        self.root.shown.display(),
                        back.pointer
                    ),
                });
            }
        }
        // Dangling local refs are not errors here: `index` reports them for the operation that
        // uses them and the schema converter warns, so one that is never selected cannot stop
        // generation.
    }
}
