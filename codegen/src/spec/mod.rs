//! Reading an API description: load (JSON/YAML) → bundle external `$ref`s → upgrade Swagger 2.0
//! to the OpenAPI 3.0 shape → index operations.
//!
//! After [`Spec::load`], `root` is a single OpenAPI 3.x document: every `$ref` in it is a local
//! JSON pointer (`#/...`), so later stages never read files.

pub mod bundle;
pub mod index;
pub mod load;
pub mod upgrade;

use std::path::{Path, PathBuf};

use indexmap::IndexMap;
use percent_encoding::percent_decode_str;
use serde_json::Value;

use crate::error::Error;

/// The dialect a document was written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum SpecVersion {
    /// Swagger 2.0 (upgraded to the 3.0 shape on load).
    Swagger2,
    /// OpenAPI 3.0.x.
    OpenApi30,
    /// OpenAPI 3.1.x.
    OpenApi31,
}

/// A loaded, bundled and upgraded API description with its operations indexed.
#[derive(Debug, Clone)]
pub struct Spec {
    /// The file it was read from.
    pub path: PathBuf,
    /// The dialect of the original document.
    pub version: SpecVersion,
    /// The document in OpenAPI 3.x shape; all `$ref`s are local (`#/...`).
    pub root: Value,
    /// Every operation, in document order (paths in file order, methods in a fixed order).
    pub operations: Vec<Operation>,
    /// Operations that could not be read (an error only when the allowlist selects one).
    pub broken: Vec<BrokenOperation>,
    /// Non-fatal problems found while loading.
    pub warnings: Vec<crate::error::Warning>,
    /// Discriminator mapping entries dropped because their `$ref` cannot be followed (a mapping
    /// only helps choose among `oneOf`/`anyOf` alternatives); also in `warnings`.
    pub dropped_mappings: Vec<crate::error::Warning>,
}

/// An operation that could not be read, with the reasons.
#[derive(Debug, Clone)]
pub struct BrokenOperation {
    /// `operationId`, if it could be read.
    pub operation_id: Option<String>,
    /// Lower-case method (`*` when the whole path item is unreadable).
    pub method: String,
    /// Path template.
    pub path: String,
    /// What is wrong.
    pub errors: Vec<Error>,
}

/// HTTP methods OpenAPI path items may hold, in the order operations are indexed.
pub const METHODS: [&str; 8] = [
    "get", "put", "post", "delete", "options", "head", "patch", "trace",
];

/// One operation (path + method).
#[derive(Debug, Clone)]
pub struct Operation {
    /// `operationId`, if the spec gives one.
    pub operation_id: Option<String>,
    /// Lower-case HTTP method.
    pub method: String,
    /// Path template, e.g. `/api/v1/chats/{id}`.
    pub path: String,
    /// JSON pointer of the operation object in `root`, e.g. `/paths/~1api~1v1~1chats/get`.
    pub pointer: String,
    /// `summary`.
    pub summary: Option<String>,
    /// `description`.
    pub description: Option<String>,
    /// `deprecated`.
    pub deprecated: bool,
    /// `tags`.
    pub tags: Vec<String>,
    /// Parameters: path-item level merged with operation level (operation wins on
    /// name + location), `$ref`s resolved.
    pub parameters: Vec<Parameter>,
    /// The request body, `$ref` resolved.
    pub request_body: Option<RequestBody>,
    /// Responses by status code (`"200"`, `"2XX"`, `"default"`), `$ref`s resolved, in spec order.
    pub responses: IndexMap<String, Response>,
    /// Effective security requirements: scheme names of each alternative (operation level,
    /// else document level). Empty alternative (`{}`) means "no auth also accepted".
    pub security: Vec<Vec<String>>,
}

/// Where a parameter goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ParamLocation {
    /// `in: path`.
    Path,
    /// `in: query`.
    Query,
    /// `in: header`.
    Header,
    /// `in: cookie`.
    Cookie,
}

impl ParamLocation {
    /// The OpenAPI spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Path => "path",
            Self::Query => "query",
            Self::Header => "header",
            Self::Cookie => "cookie",
        }
    }
}

/// One parameter.
#[derive(Debug, Clone)]
pub struct Parameter {
    /// Wire name.
    pub name: String,
    /// Location.
    pub location: ParamLocation,
    /// `required` (always true for path parameters).
    pub required: bool,
    /// `description`.
    pub description: Option<String>,
    /// `deprecated`.
    pub deprecated: bool,
    /// The parameter's schema as written (may be a `$ref`); from `content` if that is used
    /// instead of `schema`; `{}` if neither.
    pub schema: Value,
    /// JSON pointer of `schema` in `root` (for `$ref` resolution context and messages).
    pub schema_pointer: String,
    /// `style`, if set.
    pub style: Option<String>,
    /// `explode`, if set.
    pub explode: Option<bool>,
    /// `allowReserved: true` on a query parameter (OpenAPI defines it only for `in: query`).
    pub allow_reserved: bool,
    /// `example`/`examples` value, if any.
    pub example: Option<Value>,
}

/// A request body.
#[derive(Debug, Clone)]
pub struct RequestBody {
    /// `required`.
    pub required: bool,
    /// `description`.
    pub description: Option<String>,
    /// Media types in spec order.
    pub content: IndexMap<String, MediaType>,
    /// JSON pointer of the request body object.
    pub pointer: String,
}

/// A media type entry.
#[derive(Debug, Clone)]
pub struct MediaType {
    /// The schema as written (may be a `$ref`), if any.
    pub schema: Option<Value>,
    /// JSON pointer of `schema`.
    pub schema_pointer: String,
    /// The raw `encoding` object, if any.
    pub encoding: Option<Value>,
}

/// A response.
#[derive(Debug, Clone)]
pub struct Response {
    /// `description`.
    pub description: Option<String>,
    /// Media types in spec order.
    pub content: IndexMap<String, MediaType>,
    /// Names of the headers the response documents, as written.
    pub headers: Vec<String>,
}

impl Spec {
    /// Loads `path` (JSON or YAML), bundles relative-file `$ref`s, upgrades Swagger 2.0 and
    /// indexes operations. All problems found are returned together.
    pub fn load(path: &Path) -> Result<Spec, Vec<Error>> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            vec![Error::Io {
                path: path.to_owned(),
                message: e.to_string(),
            }]
        })?;
        Self::from_str(path, &text)
    }

    /// Like [`Spec::load`], with the text already read (`path` is used for messages and for
    /// resolving relative `$ref`s).
    pub fn from_str(path: &Path, text: &str) -> Result<Spec, Vec<Error>> {
        let raw = load::parse_document(path, text).map_err(|e| vec![e])?;
        let bundle::ByOperation {
            doc: bundled,
            unusable,
            unused,
            dropped_mappings,
        } = bundle::bundle_by_operation(path, raw)?;
        let (version, upgraded, mut warnings) = upgrade::to_openapi3(path, bundled)?;
        warnings.extend(unused);
        warnings.extend(dropped_mappings.iter().cloned());
        let indexed = index::operations(path, &upgraded)?;
        warnings.extend(indexed.warnings);
        let mut operations = indexed.operations;
        let mut broken = indexed.broken;
        // An operation holding or reaching a `$ref` that cannot be followed is broken, not the
        // document.
        for u in unusable {
            let held = |path: &str, method: &str| {
                u.path == path && u.method.as_deref().is_none_or(|m| m == method)
            };
            let mut found = false;
            for op in operations.extract_if(.., |op| held(&op.path, &op.method)) {
                found = true;
                broken.push(BrokenOperation {
                    operation_id: op.operation_id,
                    method: op.method,
                    path: op.path,
                    errors: vec![u.error.clone()],
                });
            }
            match broken.iter_mut().find(|b| held(&b.path, &b.method)) {
                Some(b) if !found => b.errors.push(u.error),
                Some(_) => {}
                None => broken.push(BrokenOperation {
                    operation_id: None,
                    method: u.method.unwrap_or_else(|| "*".to_owned()),
                    path: u.path,
                    errors: vec![u.error],
                }),
            }
        }
        Ok(Spec {
            path: path.to_owned(),
            version,
            root: upgraded,
            operations,
            broken,
            warnings,
            dropped_mappings,
        })
    }

    /// Resolves a local `$ref` (`#/a/b`) against `root`.
    pub fn resolve_pointer(&self, reference: &str) -> Option<&Value> {
        resolve_local(&self.root, reference)
    }
}

/// Resolves a local reference `#/a/b` (JSON-pointer escaped, percent-decoded) in `root`.
pub fn resolve_local<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let pointer = reference.strip_prefix('#')?;
    let decoded = percent_decode_str(pointer).decode_utf8_lossy();
    root.pointer(&decoded)
}

/// Escapes one JSON-pointer segment (`~` → `~0`, `/` → `~1`).
pub use mcpgen_core::json_pointer::escape as escape_pointer_segment;
