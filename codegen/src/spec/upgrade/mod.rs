//! Swagger 2.0 → OpenAPI 3.0 shape; version detection.
//!
//! OpenAPI 3.x documents pass through unchanged. A Swagger 2.0 document is rewritten into the
//! 3.0 shape (`openapi: 3.0.3`):
//!
//! - `definitions` → `components/schemas` (every `#/definitions/X` ref follows), top-level
//!   `parameters` → `components/parameters` (body parameters → `components/requestBodies`),
//!   `responses` → `components/responses`, `securityDefinitions` → `components/securitySchemes`;
//! - `host`/`basePath`/`schemes` → `servers`;
//! - `in: body` and `in: formData` parameters → `requestBody`, one content entry per
//!   `consumes` type (form fields become an object schema; `multipart/form-data` when a file is
//!   sent or `consumes` says so, else `application/x-www-form-urlencoded`); an array form
//!   field's `collectionFormat` becomes its `encoding` entry's `style`/`explode` (`csv`, the
//!   default, is `form` without explode: one `a,b` value or part; `multi` repeats it), for
//!   multipart bodies too, as OpenAPI 3.1.1 defines style for multipart properties;
//! - other parameters: `type`, `format`, `items`, `enum`, … move into `schema`,
//!   `collectionFormat` becomes `style`/`explode`;
//! - response `schema` → `content` per `produces` type; `x-nullable` → `nullable`;
//!   `type: file` → `{type: string, format: binary}`.
//!
//! `x-` extensions are kept and property order is preserved.
//!
//! One file per job: `version` detects the dialect, `components` and `refs` move the top-level
//! sections and the references to them, `schema` converts schemas, `servers`, `paths`,
//! `parameters`, `bodies`, `responses` and `security` convert what their names say.

mod bodies;
mod components;
mod parameters;
mod paths;
mod refs;
mod responses;
mod schema;
mod security;
mod servers;
mod version;

use std::collections::HashSet;
use std::path::Path;

use serde_json::{Map, Value, json};

use super::SpecVersion;
use crate::error::{Error, Warning};
use version::detect;

/// Detects the dialect of `doc` and returns it in OpenAPI 3.x shape.
pub fn to_openapi3(
    path: &Path,
    doc: Value,
) -> Result<(SpecVersion, Value, Vec<Warning>), Vec<Error>> {
    let (version, mut warnings) = detect(path, &doc).map_err(|e| vec![e])?;
    if version != SpecVersion::Swagger2 {
        return Ok((version, doc, warnings));
    }
    let mut upgrader = Swagger2::new(path, &doc);
    let upgraded = upgrader.document();
    warnings.append(&mut upgrader.warnings);
    Ok((version, upgraded, warnings))
}

const JSON: &str = "application/json";
const MULTIPART: &str = "multipart/form-data";
const URLENCODED: &str = "application/x-www-form-urlencoded";

/// The upgrade of one Swagger 2.0 document.
struct Swagger2<'a> {
    path: &'a Path,
    doc: &'a Value,
    consumes: Vec<String>,
    produces: Vec<String>,
    /// Top-level parameters that are bodies (their refs go to `requestBodies`).
    body_names: HashSet<String>,
    warnings: Vec<Warning>,
}

impl<'a> Swagger2<'a> {
    fn new(path: &'a Path, doc: &'a Value) -> Self {
        let body_names = doc
            .get("parameters")
            .and_then(Value::as_object)
            .map(|params| {
                params
                    .iter()
                    .filter(|(_, p)| p.get("in").and_then(Value::as_str) == Some("body"))
                    .map(|(name, _)| name.clone())
                    .collect()
            })
            .unwrap_or_default();
        Swagger2 {
            path,
            doc,
            consumes: media_types(doc.get("consumes")).unwrap_or_default(),
            produces: media_types(doc.get("produces")).unwrap_or_default(),
            body_names,
            warnings: Vec::new(),
        }
    }

    fn warn(&mut self, pointer: &str, message: String) {
        self.warnings.push(Warning {
            location: format!("{}: {pointer}", self.path.display()),
            message,
        });
    }

    /// The whole document in 3.0 shape.
    fn document(&mut self) -> Value {
        let Some(doc) = self.doc.as_object() else {
            return self.doc.clone();
        };
        let mut out = Map::new();
        out.insert("openapi".into(), json!("3.0.3"));
        let mut servers = self.servers();
        let mut components = Some(self.components());
        for (key, value) in doc {
            match key.as_str() {
                "swagger" | "consumes" | "produces" => {}
                "host" | "basePath" | "schemes" => {
                    if let Some(servers) = servers.take() {
                        out.insert("servers".into(), servers);
                    }
                }
                "definitions" | "parameters" | "responses" | "securityDefinitions" => {
                    if let Some(components) = components.take()
                        && !components.is_empty()
                    {
                        out.insert("components".into(), Value::Object(components));
                    }
                }
                "paths" => {
                    out.insert(key.clone(), self.paths(value));
                }
                "x-mcpgen-bundled" => {
                    out.insert(key.clone(), self.bundled(value));
                }
                _ => {
                    out.insert(key.clone(), value.clone());
                }
            }
        }
        let mut out = Value::Object(out);
        self.rewrite_refs(&mut out);
        out
    }

    /// `consumes`/`produces` list, or `application/json` when empty.
    fn effective(&self, types: &[String]) -> Vec<String> {
        if types.is_empty() {
            vec![JSON.to_owned()]
        } else {
            types.to_vec()
        }
    }
}

/// The media types of a `consumes`/`produces` value (`None` when absent).
fn media_types(value: Option<&Value>) -> Option<Vec<String>> {
    let list = value?.as_array()?;
    Some(
        list.iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
    )
}
