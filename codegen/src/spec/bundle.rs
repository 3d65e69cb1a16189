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

use std::collections::{HashMap, HashSet, VecDeque};
use std::path::{Component, Path, PathBuf};

use serde_json::{Map, Value};

use super::load::parse_document;
use super::{percent_decode, pointer_from_segments, pointer_segments};
use crate::error::Error;
use crate::keywords;

/// Makes every `$ref` in `doc` (read from `path`) local.
pub fn bundle(path: &Path, doc: Value) -> Result<Value, Vec<Error>> {
    if doc.get("openapi").is_none() && doc.get("swagger").is_none() {
        // Not an API description: the upgrade step says so; its refs are not worth reporting.
        return Ok(doc);
    }
    let mut doc = doc;
    let mut bundler = Bundler::new(path, &doc);
    bundler.find_component_refs(&doc);
    bundler.rewrite_root(&mut doc);
    bundler.run_jobs();
    bundler.place(&mut doc);
    bundler.check_local_refs(&mut doc);
    if bundler.errors.is_empty() {
        Ok(doc)
    } else {
        Err(bundler.errors)
    }
}

/// What a referenced object is: decides the section its copy goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Schema,
    Parameter,
    Response,
    RequestBody,
    Header,
    Example,
    Link,
    Callback,
    SecurityScheme,
    PathItem,
    /// Not known from the position; judged from the target pointer.
    Other,
}

impl Kind {
    /// The kind of the entries of a section named `name` (`schemas`, `parameters`, …).
    fn of_section(name: &str) -> Option<Kind> {
        Some(match name {
            "schemas" | "definitions" => Kind::Schema,
            "parameters" => Kind::Parameter,
            "responses" => Kind::Response,
            "requestBodies" => Kind::RequestBody,
            "headers" => Kind::Header,
            "examples" => Kind::Example,
            "links" => Kind::Link,
            "callbacks" => Kind::Callback,
            "securitySchemes" | "securityDefinitions" => Kind::SecurityScheme,
            "pathItems" | "paths" | "webhooks" => Kind::PathItem,
            _ => return None,
        })
    }

    /// Judges a target from its pointer (`/components/parameters/Limit` → parameter); a whole
    /// file or an unknown place is a schema.
    fn of_pointer(pointer: &str) -> Kind {
        let segments = pointer_segments(pointer);
        let n = segments.len();
        if n >= 2 {
            let parent = segments[n - 2].as_str();
            if parent == "paths" && n == 2 {
                return Kind::PathItem;
            }
            if parent != "paths"
                && let Some(kind) = Kind::of_section(parent)
            {
                return kind;
            }
        }
        match segments.last().map(String::as_str) {
            Some("requestBody") => Kind::RequestBody,
            _ => Kind::Schema,
        }
    }

    /// The section a bundled target of this kind goes to.
    fn section(self, swagger2: bool) -> [&'static str; 2] {
        let bundled = "x-mcpgen-bundled";
        match (self, swagger2) {
            (Kind::Schema | Kind::Other, false) => ["components", "schemas"],
            (Kind::Schema | Kind::Other, true) => ["definitions", ""],
            (Kind::Parameter, false) => ["components", "parameters"],
            (Kind::Parameter, true) => ["parameters", ""],
            (Kind::Response, false) => ["components", "responses"],
            (Kind::Response, true) => ["responses", ""],
            (Kind::SecurityScheme, false) => ["components", "securitySchemes"],
            (Kind::SecurityScheme, true) => ["securityDefinitions", ""],
            (Kind::PathItem, _) => [bundled, "pathItems"],
            (Kind::RequestBody, false) => ["components", "requestBodies"],
            (Kind::RequestBody, true) => [bundled, "requestBodies"],
            (Kind::Header, false) => ["components", "headers"],
            (Kind::Header, true) => [bundled, "headers"],
            (Kind::Example, false) => ["components", "examples"],
            (Kind::Example, true) => [bundled, "examples"],
            (Kind::Link, false) => ["components", "links"],
            (Kind::Link, true) => [bundled, "links"],
            (Kind::Callback, false) => ["components", "callbacks"],
            (Kind::Callback, true) => [bundled, "callbacks"],
        }
    }
}

/// Segments of a section path, without the empty filler of [`Kind::section`].
fn section_path(section: [&'static str; 2]) -> Vec<String> {
    section
        .iter()
        .filter(|s| !s.is_empty())
        .map(|s| (*s).to_owned())
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Walking: finds every `$ref` that is a reference (not data) and hands it to a callback.
// ---------------------------------------------------------------------------------------------

/// Called with the reference text, the kind of object it stands for, and the segments of the
/// object holding it.
type OnRef<'a> = dyn FnMut(&mut String, Kind, &[String]) + 'a;

/// How the children under a key are to be walked.
enum Slot {
    /// The child is an object of this kind.
    One(Kind),
    /// The child is a map or list of objects of this kind.
    Many(Kind),
    /// The child is data (or not ours): not walked.
    Skip,
}

fn walk(value: &mut Value, kind: Kind, path: &mut Vec<String>, on_ref: &mut OnRef<'_>) {
    if kind == Kind::Schema {
        walk_schema(value, path, on_ref);
    } else {
        walk_object(value, kind, path, on_ref);
    }
}

fn walk_many(value: &mut Value, kind: Kind, path: &mut Vec<String>, on_ref: &mut OnRef<'_>) {
    match value {
        Value::Object(map) => {
            for (key, child) in map.iter_mut() {
                path.push(key.clone());
                walk(child, kind, path, on_ref);
                path.pop();
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter_mut().enumerate() {
                path.push(i.to_string());
                walk(child, kind, path, on_ref);
                path.pop();
            }
        }
        _ => {}
    }
}

/// Walks a non-schema OpenAPI object (document, path item, operation, parameter, …).
fn walk_object(value: &mut Value, kind: Kind, path: &mut Vec<String>, on_ref: &mut OnRef<'_>) {
    let map = match value {
        Value::Object(map) => map,
        Value::Array(items) => {
            for (i, child) in items.iter_mut().enumerate() {
                path.push(i.to_string());
                walk_object(child, Kind::Other, path, on_ref);
                path.pop();
            }
            return;
        }
        _ => return,
    };
    if let Some(Value::String(reference)) = map.get_mut("$ref") {
        on_ref(reference, kind, path);
    }
    // Example, link and security scheme objects hold only data below them.
    if matches!(kind, Kind::Example | Kind::Link | Kind::SecurityScheme) {
        return;
    }
    for (key, child) in map.iter_mut() {
        let slot = object_slot(kind, key);
        path.push(key.clone());
        match slot {
            Slot::One(k) => walk(child, k, path, on_ref),
            Slot::Many(k) => walk_many(child, k, path, on_ref),
            Slot::Skip => {}
        }
        path.pop();
    }
}

fn object_slot(kind: Kind, key: &str) -> Slot {
    if key == "$ref" || key.starts_with("x-") {
        return Slot::Skip;
    }
    match key {
        "example" | "default" | "enum" | "const" => Slot::Skip,
        "schema" => Slot::One(Kind::Schema),
        "requestBody" => Slot::One(Kind::RequestBody),
        _ => match Kind::of_section(key) {
            Some(k) => Slot::Many(k),
            // A callback maps expressions to path items.
            None if kind == Kind::Callback => Slot::One(Kind::PathItem),
            None => Slot::One(Kind::Other),
        },
    }
}

/// Walks a schema (JSON Schema keywords; annotations and values are data).
fn walk_schema(value: &mut Value, path: &mut Vec<String>, on_ref: &mut OnRef<'_>) {
    let map = match value {
        Value::Object(map) => map,
        Value::Array(items) => {
            for (i, child) in items.iter_mut().enumerate() {
                path.push(i.to_string());
                walk_schema(child, path, on_ref);
                path.pop();
            }
            return;
        }
        _ => return,
    };
    if let Some(Value::String(reference)) = map.get_mut("$ref") {
        on_ref(reference, Kind::Schema, path);
    }
    for (key, child) in map.iter_mut() {
        path.push(key.clone());
        let k = key.as_str();
        match k {
            _ if keywords::SUBSCHEMA_MAP.contains(&k) => {
                walk_many(child, Kind::Schema, path, on_ref);
            }
            _ if keywords::SUBSCHEMA.contains(&k) || keywords::SUBSCHEMA_LIST.contains(&k) => {
                walk_schema(child, path, on_ref)
            }
            "discriminator" => walk_discriminator(child, path, on_ref),
            _ => {}
        }
        path.pop();
    }
}

/// `discriminator.mapping` values may be references (`#/components/schemas/Dog`,
/// `dog.yaml`) or plain schema names (`Dog`); only the former are followed.
fn walk_discriminator(value: &mut Value, path: &mut Vec<String>, on_ref: &mut OnRef<'_>) {
    let Some(Value::Object(mapping)) = value.get_mut("mapping") else {
        return;
    };
    path.push("mapping".into());
    for (key, target) in mapping.iter_mut() {
        if let Value::String(reference) = target
            && looks_like_reference(reference)
        {
            path.push(key.clone());
            on_ref(reference, Kind::Schema, path);
            path.pop();
        }
    }
    path.pop();
}

fn looks_like_reference(text: &str) -> bool {
    text.contains('#')
        || text.contains('/')
        || [".json", ".yaml", ".yml"]
            .iter()
            .any(|ext| text.ends_with(ext))
}

// ---------------------------------------------------------------------------------------------
// Parsing a reference.
// ---------------------------------------------------------------------------------------------

/// A reference split into its file part (empty: the same file) and its decoded JSON pointer.
struct RefParts {
    file: String,
    pointer: String,
}

fn parse_reference(reference: &str) -> Result<RefParts, String> {
    if reference.starts_with("http://")
        || reference.starts_with("https://")
        || reference.starts_with("//")
    {
        return Err("remote references are not fetched; download the file next to the spec and reference it by relative path".into());
    }
    if let Some(scheme) = uri_scheme(reference) {
        return Err(format!(
            "`{scheme}:` references are not supported; reference the file by relative path"
        ));
    }
    let (file, fragment) = reference.split_once('#').unwrap_or((reference, ""));
    let pointer = percent_decode(fragment);
    if !pointer.is_empty() && !pointer.starts_with('/') {
        return Err(format!(
            "the fragment `#{fragment}` is not a JSON pointer; write `#/path/to/target`"
        ));
    }
    Ok(RefParts {
        file: percent_decode(file),
        pointer,
    })
}

/// The URI scheme of `reference` (`urn`, `file`, …), if it has one; single letters are
/// Windows drive letters, not schemes.
fn uri_scheme(reference: &str) -> Option<&str> {
    let (scheme, _) = reference.split_once(':')?;
    let valid = scheme.len() > 1
        && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    valid.then_some(scheme)
}

/// Turns a decoded JSON pointer into a local reference (`%` escaped so decoding restores it).
fn local_reference(pointer: &str) -> String {
    format!("#{}", pointer.replace('%', "%25"))
}

/// `a/./b/../c` → `a/c`, without touching the file system (for messages only).
fn tidy(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir if out.file_name().is_some() => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// The bundler.
// ---------------------------------------------------------------------------------------------

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
        };
        bundler.seed_taken_names(doc);
        bundler
    }

    /// Records the names already used in every section a copy may go to.
    fn seed_taken_names(&mut self, doc: &Value) {
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
                .pointer(&pointer_from_segments(&section))
                .and_then(Value::as_object)
                .map(|map| map.keys().cloned().collect())
                .unwrap_or_default();
            self.taken.insert(section, names);
        }
    }

    /// Root section entries that are nothing but an external `$ref` are replaced by their
    /// target, so `components/schemas/Pet: {$ref: pet.yaml}` bundles as `Pet`, not `Pet_2`.
    fn find_component_refs(&mut self, doc: &Value) {
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

    fn replace_with_target(&mut self, reference: &str, kind: Kind, dest: Vec<String>) {
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
            .insert(key, local_reference(&pointer_from_segments(&dest)));
        self.replaced.insert(dest.clone());
        self.jobs.push_back(Job {
            file,
            pointer: parts.pointer,
            kind,
            dest,
        });
    }

    /// Rewrites the external refs of the root document.
    fn rewrite_root(&mut self, doc: &mut Value) {
        let root = self.root.clone();
        let mut path = Vec::new();
        walk_object(doc, Kind::Other, &mut path, &mut |reference, kind, at| {
            if !self.replaced.contains(at) {
                self.follow(reference, kind, &root, at);
            }
        });
    }

    /// Copies queued targets (and whatever they reference) until none is left.
    fn run_jobs(&mut self) {
        while let Some(job) = self.jobs.pop_front() {
            let Ok(mut content) = self.target(&job.file, &job.pointer).cloned() else {
                continue;
            };
            let mut path = pointer_segments(&job.pointer);
            walk(
                &mut content,
                job.kind,
                &mut path,
                &mut |reference, kind, at| {
                    self.follow(reference, kind, &job.file, at);
                },
            );
            self.placed.push((job.dest, content));
        }
    }

    /// Puts the copies into the root document.
    fn place(&mut self, doc: &mut Value) {
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

    /// Handles one `$ref` found in `file`: rewrites it to a local reference (queueing the
    /// copy of its target) or records why it cannot be followed.
    fn follow(&mut self, reference: &mut String, kind: Kind, file: &File, at: &[String]) {
        match self.localize(reference, kind, file, at) {
            Ok(Some(local)) => *reference = local,
            Ok(None) => {}
            Err(reason) => self.errors.push(Error::Ref {
                path: file.shown.clone(),
                pointer: format!("{}/$ref", pointer_from_segments(at)),
                reference: reference.clone(),
                reason,
            }),
        }
    }

    /// The local reference `reference` (in `file`) becomes, or `None` to keep it as written.
    fn localize(
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
                    at: format!("{}/$ref", pointer_from_segments(at)),
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
        let local = local_reference(&pointer_from_segments(&dest));
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
    fn locate(&self, from: &File, relative: &str) -> Result<File, String> {
        let join = |base: &Path| base.parent().unwrap_or(Path::new("")).join(relative);
        let shown = tidy(&join(&from.shown));
        let canonical = std::fs::canonicalize(join(&from.canonical))
            .map_err(|e| format!("cannot read `{}`: {e}", shown.display()))?;
        Ok(File { canonical, shown })
    }

    /// The value at `pointer` in `file` (loading the file once).
    fn target(&mut self, file: &File, pointer: &str) -> Result<&Value, String> {
        let loaded = self
            .files
            .entry(file.canonical.clone())
            .or_insert_with(|| load_file(file));
        let doc = loaded.as_ref().map_err(Clone::clone)?;
        doc.pointer(pointer)
            .ok_or_else(|| format!("`{}` has nothing at `#{pointer}`", file.shown.display()))
    }

    /// Picks a free name for a copy of (`file`, `pointer`) and returns its destination.
    fn claim_name(&mut self, kind: Kind, file: &File, pointer: &str) -> Vec<String> {
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

/// The reference of an object that holds nothing but a `$ref`.
fn sole_reference(entry: &Value) -> Option<&str> {
    let map = entry.as_object()?;
    if map.len() != 1 {
        return None;
    }
    map.get("$ref")?.as_str()
}

fn load_file(file: &File) -> Result<Value, String> {
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

/// Reads a file whose root is not a mapping (a list, a scalar); an empty file is `null`.
fn parse_fragment(shown: &Path, text: &str) -> Result<Value, String> {
    let wrapped = format!("fragment:\n{}", indent(text));
    parse_document(shown, &wrapped)
        .ok()
        .and_then(|mut doc| doc.get_mut("fragment").map(Value::take))
        .ok_or_else(|| format!("`{}` is not valid JSON or YAML", shown.display()))
}

fn indent(text: &str) -> String {
    text.lines().map(|line| format!("  {line}\n")).collect()
}

/// The name a copy gets: the pointer's last segment or, for a whole file, the file stem;
/// characters outside `[A-Za-z0-9._-]` become `_`.
fn base_name(file: &File, pointer: &str) -> String {
    let stem = file
        .shown
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let last = pointer_segments(pointer).pop().unwrap_or_default();
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

/// Inserts `content` at `dest`, creating mappings on the way; `Err` names the pointer of a
/// non-mapping in the way.
fn insert_at(doc: &mut Value, dest: &[String], content: Value) -> Result<(), String> {
    let Some((last, parents)) = dest.split_last() else {
        return Ok(());
    };
    let mut node = doc;
    for (depth, segment) in parents.iter().enumerate() {
        let Value::Object(map) = node else {
            return Err(pointer_from_segments(&dest[..depth]));
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
        _ => Err(pointer_from_segments(parents)),
    }
}
