//! Indexing the operations of an OpenAPI 3.x document.
//!
//! Paths are visited in file order and methods in [`METHODS`] order. Path items, parameters,
//! request bodies and responses may be (chains of) local `$ref`s; they are followed, and a
//! cycle is an error rather than a hang. Pointers in the result point at where things really
//! are in `root` (after following refs), so later stages can resolve schema refs in context.
//!
//! Problems are collected: every malformed part of every operation is reported in one go.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use indexmap::IndexMap;
use mcpgen_core::json_pointer;
use percent_encoding::percent_decode_str;
use serde_json::{Map, Value};

use super::{
    BrokenOperation, METHODS, MediaType, Operation, ParamLocation, Parameter, RequestBody, Response,
};
use crate::error::{Error, Warning};

/// The operations of a document: usable ones, and malformed ones with their errors.
#[derive(Debug, Clone, Default)]
pub struct Indexed {
    /// Usable operations, in document order.
    pub operations: Vec<Operation>,
    /// Operations that could not be read; an error only if the allowlist selects one.
    pub broken: Vec<BrokenOperation>,
    /// Non-fatal problems.
    pub warnings: Vec<Warning>,
}

/// Lists every operation of `root`. Problems inside one operation (or its path item) make that
/// operation broken rather than failing the document, so a malformed operation that is not
/// selected cannot stop generation; problems with the document as a whole are errors.
pub fn operations(path: &Path, root: &Value) -> Result<Indexed, Vec<Error>> {
    let mut indexer = Indexer {
        path,
        root,
        errors: Vec::new(),
        warnings: Vec::new(),
        broken: Vec::new(),
    };
    let operations = indexer.operations();
    let operations = indexer.split_duplicate_ids(operations);
    if indexer.errors.is_empty() {
        Ok(Indexed {
            operations,
            broken: indexer.broken,
            warnings: indexer.warnings,
        })
    } else {
        Err(indexer.errors)
    }
}

/// Longest `$ref` chain followed before giving up.
const MAX_REF_CHAIN: usize = 64;

/// A value reached by following `$ref`s.
struct Resolved<'r> {
    value: &'r Value,
    /// JSON pointer of `value` in the root.
    pointer: String,
    /// A `description` written next to a `$ref` on the way (OpenAPI 3.1 lets it override).
    description: Option<&'r str>,
}

struct Indexer<'r> {
    path: &'r Path,
    root: &'r Value,
    errors: Vec<Error>,
    warnings: Vec<Warning>,
    broken: Vec<BrokenOperation>,
}

impl<'r> Indexer<'r> {
    fn spec_error(&mut self, pointer: &str, message: String) {
        self.errors.push(Error::Spec {
            path: self.path.to_owned(),
            pointer: pointer.to_owned(),
            message,
        });
    }

    fn warn(&mut self, pointer: &str, message: String) {
        self.warnings.push(Warning {
            location: format!("{}: {pointer}", self.path.display()),
            message,
        });
    }

    /// Follows `$ref`s from `value` (found at `pointer`) until a value that is not a `$ref`.
    fn resolve(&mut self, value: &'r Value, pointer: &str) -> Option<Resolved<'r>> {
        let mut current = Resolved {
            value,
            pointer: pointer.to_owned(),
            description: None,
        };
        let mut seen: Vec<String> = Vec::new();
        while let Some(reference) = current.value.get("$ref").and_then(Value::as_str) {
            if current.description.is_none() {
                current.description = current.value.get("description").and_then(Value::as_str);
            }
            let at = format!("{}/$ref", current.pointer);
            let Some(fragment) = reference.strip_prefix('#') else {
                self.ref_error(
                    &at,
                    reference,
                    "only local references (`#/...`) are supported here".into(),
                );
                return None;
            };
            let target = percent_decode_str(fragment)
                .decode_utf8_lossy()
                .into_owned();
            seen.push(current.pointer.clone());
            if seen.contains(&target) || seen.len() > MAX_REF_CHAIN {
                let chain = seen.join("` → `");
                self.ref_error(
                    &at,
                    reference,
                    format!("reference cycle: `{chain}` → `{target}`"),
                );
                return None;
            }
            let Some(next) = self.root.pointer(&target) else {
                self.ref_error(
                    &at,
                    reference,
                    format!("`{target}` does not exist in this document"),
                );
                return None;
            };
            current.value = next;
            current.pointer = target;
        }
        Some(current)
    }

    fn ref_error(&mut self, pointer: &str, reference: &str, reason: String) {
        self.errors.push(Error::Ref {
            path: self.path.to_owned(),
            pointer: pointer.to_owned(),
            reference: reference.to_owned(),
            reason,
        });
    }

    /// `value` as a mapping, or an error naming what it should have been.
    fn object(
        &mut self,
        value: &'r Value,
        pointer: &str,
        what: &str,
    ) -> Option<&'r Map<String, Value>> {
        match value {
            Value::Object(map) => Some(map),
            other => {
                self.spec_error(
                    pointer,
                    format!("{what} must be a mapping, found {}", kind_of(other)),
                );
                None
            }
        }
    }

    fn operations(&mut self) -> Vec<Operation> {
        let Some(root) = self.object(self.root, "", "the document") else {
            return Vec::new();
        };
        let Some(paths) = root.get("paths") else {
            return Vec::new();
        };
        let Some(paths) = self.object(paths, "/paths", "`paths`") else {
            return Vec::new();
        };
        let mut operations = Vec::new();
        for (template, item) in paths {
            if template.starts_with("x-") {
                continue;
            }
            let pointer = format!("/paths/{}", json_pointer::escape(template));
            operations.extend(self.path_item(template, item, &pointer));
        }
        operations
    }

    fn path_item(&mut self, template: &str, item: &'r Value, pointer: &str) -> Vec<Operation> {
        let before = self.errors.len();
        let mut operations = Vec::new();
        let resolved = self.resolve(item, pointer);
        let map = resolved
            .as_ref()
            .and_then(|item| self.object(item.value, &item.pointer, "a path item"));
        let item_pointer = resolved
            .as_ref()
            .map_or(pointer.to_owned(), |r| r.pointer.clone());
        let shared = match map {
            Some(map) => {
                self.parameters(map.get("parameters"), &format!("{item_pointer}/parameters"))
            }
            None => Vec::new(),
        };
        // Problems of the path item itself belong to every operation under it.
        let shared_errors: Vec<Error> = self.errors.drain(before..).collect();
        let Some(map) = map else {
            self.broken.push(BrokenOperation {
                operation_id: None,
                method: "*".into(),
                path: template.to_owned(),
                errors: shared_errors,
            });
            return operations;
        };
        for method in METHODS {
            let Some(op) = map.get(method) else {
                continue;
            };
            let op_pointer = format!("{item_pointer}/{method}");
            let start = self.errors.len();
            let parsed = self.operation(template, method, op, &op_pointer, &shared);
            let mut errors = shared_errors.clone();
            errors.extend(self.errors.drain(start..));
            match parsed {
                Some(op) if errors.is_empty() => operations.push(op),
                _ => self.broken.push(BrokenOperation {
                    operation_id: op
                        .get("operationId")
                        .and_then(Value::as_str)
                        .map(str::to_owned),
                    method: method.to_owned(),
                    path: template.to_owned(),
                    errors,
                }),
            }
        }
        operations
    }

    fn operation(
        &mut self,
        template: &str,
        method: &str,
        op: &'r Value,
        pointer: &str,
        shared: &[Parameter],
    ) -> Option<Operation> {
        let map = self.object(op, pointer, "an operation")?;
        let own = self.parameters(map.get("parameters"), &format!("{pointer}/parameters"));
        let parameters = merge_parameters(shared, own);
        self.check_path_parameters(template, &parameters, pointer);
        let request_body = map
            .get("requestBody")
            .and_then(|body| self.request_body(body, &format!("{pointer}/requestBody")));
        let responses = self.responses(map.get("responses"), &format!("{pointer}/responses"));
        let security = self.security(map, pointer);
        Some(Operation {
            operation_id: self.operation_id(map, pointer),
            method: method.to_owned(),
            path: template.to_owned(),
            pointer: pointer.to_owned(),
            summary: text(map, "summary"),
            description: text(map, "description"),
            deprecated: flag(map, "deprecated"),
            tags: map
                .get("tags")
                .and_then(Value::as_array)
                .map(|tags| {
                    tags.iter()
                        .filter_map(Value::as_str)
                        .map(str::to_owned)
                        .collect()
                })
                .unwrap_or_default(),
            parameters,
            request_body,
            responses,
            security,
        })
    }

    fn operation_id(&mut self, op: &Map<String, Value>, pointer: &str) -> Option<String> {
        match op.get("operationId")? {
            Value::String(id) => Some(id.clone()),
            Value::Number(n) => Some(n.to_string()),
            other => {
                self.spec_error(
                    &format!("{pointer}/operationId"),
                    format!("`operationId` must be a string, found {}", kind_of(other)),
                );
                None
            }
        }
    }

    fn parameters(&mut self, list: Option<&'r Value>, pointer: &str) -> Vec<Parameter> {
        let Some(list) = list else {
            return Vec::new();
        };
        let Value::Array(items) = list else {
            self.spec_error(
                pointer,
                format!("`parameters` must be a list, found {}", kind_of(list)),
            );
            return Vec::new();
        };
        let mut out: Vec<Parameter> = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let Some(param) = self.parameter(item, &format!("{pointer}/{i}")) else {
                continue;
            };
            match out
                .iter_mut()
                .find(|p| p.name == param.name && p.location == param.location)
            {
                Some(existing) => {
                    self.warn(
                        &format!("{pointer}/{i}"),
                        format!(
                            "parameter `{}` (in {}) is listed twice; the later one is used",
                            param.name,
                            param.location.as_str()
                        ),
                    );
                    *existing = param;
                }
                None => out.push(param),
            }
        }
        out
    }

    fn parameter(&mut self, value: &'r Value, pointer: &str) -> Option<Parameter> {
        let resolved = self.resolve(value, pointer)?;
        let at = resolved.pointer.as_str();
        let map = self.object(resolved.value, at, "a parameter")?;
        let Some(name) = map.get("name").and_then(Value::as_str) else {
            self.spec_error(at, "the parameter has no `name` (a string)".into());
            return None;
        };
        let location = match map.get("in").and_then(Value::as_str) {
            Some("path") => ParamLocation::Path,
            Some("query") => ParamLocation::Query,
            Some("header") => ParamLocation::Header,
            Some("cookie") => ParamLocation::Cookie,
            other => {
                let found = other.map_or_else(|| "no `in`".to_owned(), |v| format!("`in: {v}`"));
                self.spec_error(
                    at,
                    format!("parameter `{name}` has {found}; expected `in` to be path, query, header or cookie"),
                );
                return None;
            }
        };
        let (schema, schema_pointer) = parameter_schema(map, at);
        Some(Parameter {
            name: name.to_owned(),
            location,
            required: location == ParamLocation::Path || flag(map, "required"),
            description: resolved
                .description
                .map(str::to_owned)
                .or_else(|| text(map, "description")),
            deprecated: flag(map, "deprecated"),
            schema,
            schema_pointer,
            style: text(map, "style"),
            explode: map.get("explode").and_then(Value::as_bool),
            allow_reserved: location == ParamLocation::Query
                && map.get("allowReserved").and_then(Value::as_bool) == Some(true),
            example: self.example(map, at),
        })
    }

    /// `example`, else the value of the first of `examples`.
    fn example(&mut self, map: &'r Map<String, Value>, pointer: &str) -> Option<Value> {
        if let Some(example) = map.get("example") {
            return Some(example.clone());
        }
        let (name, first) = map.get("examples")?.as_object()?.iter().next()?;
        let at = format!("{pointer}/examples/{}", json_pointer::escape(name));
        let resolved = self.resolve(first, &at)?;
        resolved.value.get("value").cloned()
    }

    fn request_body(&mut self, value: &'r Value, pointer: &str) -> Option<RequestBody> {
        let resolved = self.resolve(value, pointer)?;
        let map = self.object(resolved.value, &resolved.pointer, "a request body")?;
        Some(RequestBody {
            required: flag(map, "required"),
            description: resolved
                .description
                .map(str::to_owned)
                .or_else(|| text(map, "description")),
            content: self.content(map.get("content"), &format!("{}/content", resolved.pointer)),
            pointer: resolved.pointer,
        })
    }

    fn responses(&mut self, value: Option<&'r Value>, pointer: &str) -> IndexMap<String, Response> {
        let mut out = IndexMap::new();
        let Some(map) = value.and_then(|v| self.object(v, pointer, "`responses`")) else {
            return out;
        };
        for (code, response) in map {
            if code.starts_with("x-") {
                continue;
            }
            let at = json_pointer::child(pointer, code);
            if let Some(response) = self.response(response, &at) {
                out.insert(code.clone(), response);
            }
        }
        out
    }

    fn response(&mut self, value: &'r Value, pointer: &str) -> Option<Response> {
        let resolved = self.resolve(value, pointer)?;
        let map = self.object(resolved.value, &resolved.pointer, "a response")?;
        Some(Response {
            description: resolved
                .description
                .map(str::to_owned)
                .or_else(|| text(map, "description")),
            content: self.content(map.get("content"), &format!("{}/content", resolved.pointer)),
            headers: map
                .get("headers")
                .and_then(Value::as_object)
                .map(|headers| headers.keys().cloned().collect())
                .unwrap_or_default(),
        })
    }

    fn content(&mut self, value: Option<&'r Value>, pointer: &str) -> IndexMap<String, MediaType> {
        let mut out = IndexMap::new();
        let Some(map) = value.and_then(|v| self.object(v, pointer, "`content`")) else {
            return out;
        };
        for (media, entry) in map {
            let at = json_pointer::child(pointer, media);
            let Some(entry) = self.object(entry, &at, "a media type object") else {
                continue;
            };
            out.insert(
                media.clone(),
                MediaType {
                    schema: entry.get("schema").cloned(),
                    schema_pointer: format!("{at}/schema"),
                    encoding: entry.get("encoding").cloned(),
                },
            );
        }
        out
    }

    /// The operation's `security`, else the document's.
    fn security(&mut self, op: &'r Map<String, Value>, op_pointer: &str) -> Vec<Vec<String>> {
        let (value, pointer) = match (op.get("security"), self.root.get("security")) {
            (Some(value), _) => (value, format!("{op_pointer}/security")),
            (None, Some(value)) => (value, "/security".to_owned()),
            (None, None) => return Vec::new(),
        };
        let Value::Array(alternatives) = value else {
            self.spec_error(
                &pointer,
                format!("`security` must be a list, found {}", kind_of(value)),
            );
            return Vec::new();
        };
        let mut out = Vec::new();
        for (i, alternative) in alternatives.iter().enumerate() {
            if let Some(map) = self.object(
                alternative,
                &format!("{pointer}/{i}"),
                "a security requirement",
            ) {
                out.push(map.keys().cloned().collect());
            }
        }
        out
    }

    /// Warns about `{name}`s of the template without a path parameter, and the reverse.
    fn check_path_parameters(&mut self, template: &str, parameters: &[Parameter], pointer: &str) {
        let names = template_names(template);
        let declared: HashSet<&str> = parameters
            .iter()
            .filter(|p| p.location == ParamLocation::Path)
            .map(|p| p.name.as_str())
            .collect();
        for name in &names {
            if !declared.contains(name.as_str()) {
                self.warn(
                    pointer,
                    format!("the path `{template}` has `{{{name}}}` but the operation declares no path parameter `{name}`"),
                );
            }
        }
        for name in declared {
            if !names.iter().any(|n| n == name) {
                self.warn(
                    pointer,
                    format!("path parameter `{name}` does not appear in the path `{template}`"),
                );
            }
        }
    }

    /// Operations sharing an operationId cannot be selected by it: each loses its id (so it is
    /// selected as `METHOD /path` and named from method and path), and the id is recorded as
    /// broken with an error naming every place it is used.
    fn split_duplicate_ids(&mut self, operations: Vec<Operation>) -> Vec<Operation> {
        let mut places: HashMap<String, Vec<String>> = HashMap::new();
        for op in &operations {
            if let Some(id) = &op.operation_id {
                places
                    .entry(id.clone())
                    .or_default()
                    .push(op.pointer.clone());
            }
        }
        let mut kept = Vec::new();
        for op in operations {
            let duplicated = op
                .operation_id
                .as_ref()
                .and_then(|id| places.get(id))
                .filter(|p| p.len() > 1);
            let Some(pointers) = duplicated else {
                kept.push(op);
                continue;
            };
            let id = op.operation_id.clone().unwrap_or_default();
            let error = Error::Spec {
                path: self.path.to_owned(),
                pointer: format!("{}/operationId", op.pointer),
                message: format!(
                    "operationId `{id}` is used by `{}`; operationIds must be unique, rename one \
                     (or select the operation as \"{} {}\")",
                    pointers.join("` and `"),
                    op.method.to_ascii_uppercase(),
                    op.path
                ),
            };
            self.broken.push(BrokenOperation {
                operation_id: op.operation_id.clone(),
                method: op.method.clone(),
                path: op.path.clone(),
                errors: vec![error],
            });
            // Still selectable as `METHOD /path`, and named from method and path.
            let mut op = op;
            op.operation_id = None;
            kept.push(op);
        }
        kept
    }
}

/// Path-level parameters, overridden (in place) by operation-level ones with the same name
/// and location; the operation's others follow.
fn merge_parameters(shared: &[Parameter], own: Vec<Parameter>) -> Vec<Parameter> {
    let mut merged = shared.to_vec();
    for param in own {
        match merged
            .iter_mut()
            .find(|p| p.name == param.name && p.location == param.location)
        {
            Some(existing) => *existing = param,
            None => merged.push(param),
        }
    }
    merged
}

/// A parameter's schema: `schema`, else the first `content` entry's, else `{}`.
fn parameter_schema(map: &Map<String, Value>, pointer: &str) -> (Value, String) {
    if let Some(schema) = map.get("schema") {
        return (schema.clone(), format!("{pointer}/schema"));
    }
    let first = map
        .get("content")
        .and_then(Value::as_object)
        .and_then(|content| content.iter().next());
    if let Some((media, entry)) = first
        && let Some(schema) = entry.get("schema")
    {
        let at = format!("{pointer}/content/{}/schema", json_pointer::escape(media));
        return (schema.clone(), at);
    }
    (Value::Object(Map::new()), format!("{pointer}/schema"))
}

/// The `{name}`s of a path template, in order.
fn template_names(template: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut rest = template;
    while let Some(start) = rest.find('{') {
        let after = &rest[start + 1..];
        let Some(end) = after.find('}') else {
            break;
        };
        names.push(after[..end].to_owned());
        rest = &after[end + 1..];
    }
    names
}

fn text(map: &Map<String, Value>, key: &str) -> Option<String> {
    map.get(key).and_then(Value::as_str).map(str::to_owned)
}

/// A boolean member of `map`; false when it is absent or not a boolean.
fn flag(map: &Map<String, Value>, key: &str) -> bool {
    map.get(key).and_then(Value::as_bool).unwrap_or(false)
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "a mapping",
    }
}
