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

use std::collections::HashSet;
use std::path::Path;

use serde_json::{Map, Value, json};

use super::{SpecVersion, escape_pointer_segment};
use crate::error::{Error, Warning};

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

const SUPPORTED: &str = "supported: Swagger 2.0, OpenAPI 3.0.x and 3.1.x";

/// Reads `swagger` / `openapi`.
fn detect(path: &Path, doc: &Value) -> Result<(SpecVersion, Vec<Warning>), Error> {
    let spec_error = |pointer: &str, message: String| Error::Spec {
        path: path.to_owned(),
        pointer: pointer.into(),
        message,
    };
    if let Some(value) = doc.get("swagger") {
        let text = version_text(value).ok_or_else(|| {
            spec_error(
                "/swagger",
                format!("`swagger` must be the string \"2.0\", found {value}"),
            )
        })?;
        return if text == "2.0" || text == "2" {
            Ok((SpecVersion::Swagger2, Vec::new()))
        } else {
            Err(spec_error(
                "/swagger",
                format!(
                    "unsupported Swagger version `{text}`; {SUPPORTED} (convert older documents to 2.0 or 3.x first)"
                ),
            ))
        };
    }
    let Some(value) = doc.get("openapi") else {
        return Err(spec_error(
            "",
            "not an OpenAPI or Swagger document: there is no top-level `openapi` (3.x) or `swagger` (2.0) field".into(),
        ));
    };
    let text = version_text(value).ok_or_else(|| {
        spec_error(
            "/openapi",
            format!("`openapi` must be a version string such as \"3.0.3\", found {value}"),
        )
    })?;
    let minor = |m: &str| text == m || text.starts_with(&format!("{m}."));
    if minor("3.0") {
        Ok((SpecVersion::OpenApi30, Vec::new()))
    } else if minor("3.1") {
        Ok((SpecVersion::OpenApi31, Vec::new()))
    } else if minor("3.2") {
        let warning = Warning {
            location: format!("{}: /openapi", path.display()),
            message: format!("OpenAPI {text} is read as 3.1; what is new in 3.2 is ignored"),
        };
        Ok((SpecVersion::OpenApi31, vec![warning]))
    } else {
        Err(spec_error(
            "/openapi",
            format!("unsupported OpenAPI version `{text}`; {SUPPORTED}"),
        ))
    }
}

/// A version written as a string, or as a YAML number (`swagger: 2.0`).
fn version_text(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.trim().to_owned()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// Keys of a Swagger 2.0 parameter, header or items object that belong in the 3.0 `schema`.
const SCHEMA_KEYS: [&str; 17] = [
    "type",
    "format",
    "items",
    "default",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "pattern",
    "maxItems",
    "minItems",
    "uniqueItems",
    "enum",
    "multipleOf",
    "x-nullable",
];

fn is_schema_key(key: &str) -> bool {
    SCHEMA_KEYS.contains(&key)
}

const JSON: &str = "application/json";
const MULTIPART: &str = "multipart/form-data";
const URLENCODED: &str = "application/x-www-form-urlencoded";

/// A Swagger 2.0 parameter sorted by what it becomes.
enum Param {
    /// A query/path/header parameter (converted, or a `$ref` to one).
    Plain(Value),
    /// `in: body`; `reference` is its top-level parameter name when it came through a `$ref`.
    Body {
        param: Value,
        reference: Option<String>,
    },
    /// `in: formData`.
    Form(Value),
}

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

    /// `host` + `basePath` + first of `schemes` → `servers`.
    fn servers(&self) -> Option<Value> {
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

    fn components(&mut self) -> Map<String, Value> {
        let mut components = Map::new();
        if let Some(Value::Object(definitions)) = self.doc.get("definitions") {
            let schemas = definitions
                .iter()
                .map(|(name, schema)| (name.clone(), converted_schema(schema)))
                .collect();
            components.insert("schemas".into(), Value::Object(schemas));
        }
        let (parameters, bodies) = self.component_parameters();
        for (section, map) in [("parameters", parameters), ("requestBodies", bodies)] {
            if !map.is_empty() {
                components.insert(section.into(), Value::Object(map));
            }
        }
        if let Some(Value::Object(responses)) = self.doc.get("responses") {
            let produces = self.effective(&self.produces);
            let converted = responses
                .iter()
                .map(|(name, r)| (name.clone(), self.response(r, &produces)))
                .collect();
            components.insert("responses".into(), Value::Object(converted));
        }
        if let Some(Value::Object(schemes)) = self.doc.get("securityDefinitions") {
            let converted = schemes
                .iter()
                .map(|(name, s)| {
                    let pointer = format!("/securityDefinitions/{}", escape_pointer_segment(name));
                    (name.clone(), self.security_scheme(s, &pointer))
                })
                .collect();
            components.insert("securitySchemes".into(), Value::Object(converted));
        }
        components
    }

    /// Top-level parameters: plain ones and bodies. Form fields are inlined where used.
    fn component_parameters(&mut self) -> (Map<String, Value>, Map<String, Value>) {
        let mut parameters = Map::new();
        let mut bodies = Map::new();
        let Some(Value::Object(params)) = self.doc.get("parameters") else {
            return (parameters, bodies);
        };
        let consumes = self.effective(&self.consumes);
        for (name, param) in params {
            let pointer = format!("/parameters/{}", escape_pointer_segment(name));
            match param.get("in").and_then(Value::as_str) {
                Some("body") => {
                    bodies.insert(name.clone(), body(param, &consumes));
                }
                Some("formData") => {}
                _ => {
                    parameters.insert(name.clone(), self.parameter(param, &pointer));
                }
            }
        }
        (parameters, bodies)
    }

    fn paths(&mut self, paths: &Value) -> Value {
        let Value::Object(paths) = paths else {
            return paths.clone();
        };
        let converted = paths
            .iter()
            .map(|(template, item)| {
                let pointer = format!("/paths/{}", escape_pointer_segment(template));
                (template.clone(), self.path_item(item, &pointer))
            })
            .collect();
        Value::Object(converted)
    }

    /// `x-mcpgen-bundled`: bundled path items are converted like those under `paths`.
    fn bundled(&mut self, value: &Value) -> Value {
        let mut out = value.clone();
        if let Some(Value::Object(items)) = out.get_mut("pathItems") {
            for (name, item) in items.iter_mut() {
                let pointer = format!(
                    "/x-mcpgen-bundled/pathItems/{}",
                    escape_pointer_segment(name)
                );
                *item = self.path_item(item, &pointer);
            }
        }
        out
    }

    fn path_item(&mut self, item: &Value, pointer: &str) -> Value {
        let Value::Object(map) = item else {
            return item.clone();
        };
        let shared = self.sort_parameters(map.get("parameters"), &format!("{pointer}/parameters"));
        let mut out = Map::new();
        for (key, value) in map {
            if super::METHODS.contains(&key.as_str()) {
                let op_pointer = format!("{pointer}/{key}");
                out.insert(key.clone(), self.operation(value, &shared, &op_pointer));
            } else if key == "parameters" {
                let plain = plain_params(&shared);
                if !plain.is_empty() {
                    out.insert(key.clone(), Value::Array(plain));
                }
            } else {
                out.insert(key.clone(), value.clone());
            }
        }
        Value::Object(out)
    }

    fn operation(&mut self, op: &Value, shared: &[Param], pointer: &str) -> Value {
        let Value::Object(map) = op else {
            return op.clone();
        };
        let own = self.sort_parameters(map.get("parameters"), &format!("{pointer}/parameters"));
        let consumes = self
            .effective(&media_types(map.get("consumes")).unwrap_or_else(|| self.consumes.clone()));
        let produces = self
            .effective(&media_types(map.get("produces")).unwrap_or_else(|| self.produces.clone()));
        let mut request_body = self.request_body(shared, &own, &consumes, pointer);
        let mut out = Map::new();
        for (key, value) in map {
            match key.as_str() {
                "consumes" | "produces" => {}
                "schemes" => self.warn(
                    &format!("{pointer}/schemes"),
                    "operation-level `schemes` has no OpenAPI 3.0 equivalent; ignored".into(),
                ),
                "parameters" => {
                    let plain = plain_params(&own);
                    if !plain.is_empty() {
                        out.insert(key.clone(), Value::Array(plain));
                    }
                    if let Some(body) = request_body.take() {
                        out.insert("requestBody".into(), body);
                    }
                }
                "responses" => {
                    if let Some(body) = request_body.take() {
                        out.insert("requestBody".into(), body);
                    }
                    let converted = self.responses(value, &produces);
                    out.insert(key.clone(), converted);
                }
                _ => {
                    out.insert(key.clone(), value.clone());
                }
            }
        }
        if let Some(body) = request_body {
            out.insert("requestBody".into(), body);
        }
        Value::Object(out)
    }

    /// Sorts a `parameters` list into plain parameters, a body and form fields.
    fn sort_parameters(&mut self, params: Option<&Value>, pointer: &str) -> Vec<Param> {
        let Some(Value::Array(params)) = params else {
            return Vec::new();
        };
        params
            .iter()
            .enumerate()
            .map(|(i, p)| self.sort_parameter(p, &format!("{pointer}/{i}")))
            .collect()
    }

    fn sort_parameter(&mut self, param: &Value, pointer: &str) -> Param {
        let Some(reference) = param.get("$ref").and_then(Value::as_str) else {
            return match param.get("in").and_then(Value::as_str) {
                Some("body") => Param::Body {
                    param: param.clone(),
                    reference: None,
                },
                Some("formData") => Param::Form(param.clone()),
                _ => Param::Plain(self.parameter(param, pointer)),
            };
        };
        let Some(target) = super::resolve_local(self.doc, reference) else {
            // Reported by bundling (dangling) or not local; kept as written.
            return Param::Plain(param.clone());
        };
        let top_level = reference.strip_prefix("#/parameters/").map(|name| {
            super::percent_decode(name)
                .replace("~1", "/")
                .replace("~0", "~")
        });
        match (target.get("in").and_then(Value::as_str), top_level) {
            (Some("body"), reference) => Param::Body {
                param: target.clone(),
                reference,
            },
            (Some("formData"), _) => Param::Form(target.clone()),
            // Refs to `#/parameters/X` follow X to `components/parameters`.
            (_, Some(_)) => Param::Plain(param.clone()),
            (_, None) => Param::Plain(self.parameter(target, pointer)),
        }
    }

    /// The operation's `requestBody`, from its own body/form parameters or the path item's.
    fn request_body(
        &mut self,
        shared: &[Param],
        own: &[Param],
        consumes: &[String],
        pointer: &str,
    ) -> Option<Value> {
        let bodies: Vec<(&Value, &Option<String>)> = own
            .iter()
            .chain(shared)
            .filter_map(|p| match p {
                Param::Body { param, reference } => Some((param, reference)),
                _ => None,
            })
            .collect();
        if own
            .iter()
            .filter(|p| matches!(p, Param::Body { .. }))
            .count()
            > 1
        {
            self.warn(
                pointer,
                "more than one `in: body` parameter; only the first is used".into(),
            );
        }
        let forms = form_fields(shared, own);
        if let Some((param, reference)) = bodies.first() {
            if !forms.is_empty() {
                self.warn(
                    pointer,
                    "both `in: body` and `in: formData` parameters; the form fields are ignored"
                        .into(),
                );
            }
            let global = self.effective(&self.consumes);
            return Some(match reference {
                Some(name) if consumes == global.as_slice() => {
                    json!({ "$ref": format!("#/components/requestBodies/{}", escape_pointer_segment(name)) })
                }
                _ => body(param, consumes),
            });
        }
        if forms.is_empty() {
            return None;
        }
        Some(self.form_body(&forms, consumes, pointer))
    }

    /// Form fields → an object schema under a form media type.
    fn form_body(&mut self, fields: &[&Value], consumes: &[String], pointer: &str) -> Value {
        let mut properties = Map::new();
        let mut required = Vec::new();
        let mut encoding = Map::new();
        let mut any_file = false;
        for field in fields {
            let Some(name) = field.get("name").and_then(Value::as_str) else {
                continue;
            };
            any_file |= field.get("type").and_then(Value::as_str) == Some("file");
            let mut schema = schema_of(field);
            if let (Some(description), Value::Object(s)) = (field.get("description"), &mut schema) {
                s.insert("description".into(), description.clone());
            }
            properties.insert(name.to_owned(), schema);
            if field.get("required").and_then(Value::as_bool) == Some(true) {
                required.push(json!(name));
            }
            if let Some((style, explode)) = self.collection_style(field, "form", pointer) {
                encoding.insert(
                    name.to_owned(),
                    json!({ "style": style, "explode": explode }),
                );
            }
        }
        let media = if any_file || consumes.iter().any(|c| c == MULTIPART) {
            MULTIPART
        } else {
            URLENCODED
        };
        let mut schema = json!({ "type": "object", "properties": properties });
        if !required.is_empty() {
            schema["required"] = Value::Array(required.clone());
        }
        let mut media_type = json!({ "schema": schema });
        if !encoding.is_empty() {
            media_type["encoding"] = Value::Object(encoding);
        }
        let mut out = json!({ "content": { media: media_type } });
        if !required.is_empty() {
            out["required"] = json!(true);
        }
        out
    }

    /// A plain (query/path/header) parameter: schema keywords move under `schema`.
    fn parameter(&mut self, param: &Value, pointer: &str) -> Value {
        let Value::Object(map) = param else {
            return param.clone();
        };
        let location = map
            .get("in")
            .and_then(Value::as_str)
            .unwrap_or("query")
            .to_owned();
        let style = self.collection_style(param, &location, pointer);
        let mut out = Map::new();
        for (key, value) in map {
            if is_schema_key(key) {
                if !out.contains_key("schema") {
                    out.insert("schema".into(), schema_of(param));
                    if let Some((style, explode)) = &style {
                        out.insert("style".into(), json!(style));
                        out.insert("explode".into(), json!(explode));
                    }
                }
            } else if key != "collectionFormat" {
                out.insert(key.clone(), value.clone());
            }
        }
        if location == "path" {
            out.insert("required".into(), json!(true));
        }
        Value::Object(out)
    }

    /// `collectionFormat` of an array parameter → (`style`, `explode`) where the 3.0 default
    /// for `location` differs; `None` when the default fits.
    fn collection_style(
        &mut self,
        param: &Value,
        location: &str,
        pointer: &str,
    ) -> Option<(String, bool)> {
        if param.get("type").and_then(Value::as_str) != Some("array") {
            return None;
        }
        let format = param
            .get("collectionFormat")
            .and_then(Value::as_str)
            .unwrap_or("csv");
        let form_like = matches!(location, "query" | "cookie" | "form" | "formData");
        let delimited = |style: &str| Some((style.to_owned(), false));
        match (format, form_like) {
            ("multi", true) => Some(("form".into(), true)),
            ("ssv", true) => delimited("spaceDelimited"),
            ("pipes", true) => delimited("pipeDelimited"),
            ("csv", true) => delimited("form"),
            ("csv", false) => None,
            (other, _) => {
                let fallback = if form_like { delimited("form") } else { None };
                self.warn(
                    pointer,
                    format!("`collectionFormat: {other}` has no OpenAPI 3.0 equivalent for `in: {location}`; treated as csv"),
                );
                fallback
            }
        }
    }

    fn responses(&self, responses: &Value, produces: &[String]) -> Value {
        let Value::Object(map) = responses else {
            return responses.clone();
        };
        let converted = map
            .iter()
            .map(|(code, response)| (code.clone(), self.response(response, produces)))
            .collect();
        Value::Object(converted)
    }

    fn response(&self, response: &Value, produces: &[String]) -> Value {
        let Value::Object(map) = response else {
            return response.clone();
        };
        if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
            // A shared response is converted with the global `produces`; inline it where the
            // operation produces something else.
            let global = self.effective(&self.produces);
            return match super::resolve_local(self.doc, reference) {
                Some(target)
                    if produces != global.as_slice() && reference.starts_with("#/responses/") =>
                {
                    self.response(target, produces)
                }
                _ => response.clone(),
            };
        }
        let mut out = Map::new();
        for (key, value) in map {
            match key.as_str() {
                "schema" => {
                    let schema = converted_schema(value);
                    let content: Map<String, Value> = produces
                        .iter()
                        .map(|media| (media.clone(), json!({ "schema": schema })))
                        .collect();
                    out.insert("content".into(), Value::Object(content));
                }
                "examples" => {}
                "headers" => {
                    out.insert(key.clone(), headers(value));
                }
                _ => {
                    out.insert(key.clone(), value.clone());
                }
            }
        }
        if let Some(Value::Object(examples)) = map.get("examples") {
            add_examples(&mut out, examples);
        }
        Value::Object(out)
    }

    fn security_scheme(&mut self, scheme: &Value, pointer: &str) -> Value {
        let Value::Object(map) = scheme else {
            return scheme.clone();
        };
        match map.get("type").and_then(Value::as_str) {
            Some("basic") => {
                let mut out = Map::new();
                out.insert("type".into(), json!("http"));
                out.insert("scheme".into(), json!("basic"));
                copy_except(map, &mut out, &["type"]);
                Value::Object(out)
            }
            Some("apiKey") => scheme.clone(),
            Some("oauth2") => self.oauth2(map, pointer),
            other => {
                self.warn(
                    pointer,
                    format!(
                        "security scheme type {} is not a Swagger 2.0 type; kept as written",
                        other.map_or("(missing)".to_owned(), |t| format!("`{t}`"))
                    ),
                );
                scheme.clone()
            }
        }
    }

    fn oauth2(&mut self, map: &Map<String, Value>, pointer: &str) -> Value {
        let flow = map.get("flow").and_then(Value::as_str).unwrap_or("");
        let (name, keys): (&str, &[&str]) = match flow {
            "implicit" => ("implicit", &["authorizationUrl"]),
            "password" => ("password", &["tokenUrl"]),
            "application" => ("clientCredentials", &["tokenUrl"]),
            "accessCode" => ("authorizationCode", &["authorizationUrl", "tokenUrl"]),
            _ => {
                self.warn(
                    pointer,
                    format!("unknown OAuth2 flow `{flow}`; the scheme has no flows"),
                );
                ("", &[])
            }
        };
        let mut flow_object = Map::new();
        for key in keys {
            if let Some(url) = map.get(*key) {
                flow_object.insert((*key).to_owned(), url.clone());
            }
        }
        flow_object.insert(
            "scopes".into(),
            map.get("scopes").cloned().unwrap_or_else(|| json!({})),
        );
        let mut flows = Map::new();
        if !name.is_empty() {
            flows.insert(name.to_owned(), Value::Object(flow_object));
        }
        let mut out = Map::new();
        out.insert("type".into(), json!("oauth2"));
        copy_except(
            map,
            &mut out,
            &["type", "flow", "authorizationUrl", "tokenUrl", "scopes"],
        );
        out.insert("flows".into(), Value::Object(flows));
        Value::Object(out)
    }

    /// `consumes`/`produces` list, or `application/json` when empty.
    fn effective(&self, types: &[String]) -> Vec<String> {
        if types.is_empty() {
            vec![JSON.to_owned()]
        } else {
            types.to_vec()
        }
    }

    /// `#/definitions/X` → `#/components/schemas/X`, `#/parameters/X` →
    /// `#/components/parameters/X` (or `requestBodies`), `#/responses/X` →
    /// `#/components/responses/X`, everywhere.
    fn rewrite_refs(&self, value: &mut Value) {
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

    fn rewritten(&self, reference: &str) -> Option<String> {
        if let Some(rest) = reference.strip_prefix("#/definitions/") {
            return Some(format!("#/components/schemas/{rest}"));
        }
        if let Some(rest) = reference.strip_prefix("#/responses/") {
            return Some(format!("#/components/responses/{rest}"));
        }
        let rest = reference.strip_prefix("#/parameters/")?;
        let name = rest.split('/').next().unwrap_or(rest);
        let decoded = super::percent_decode(name)
            .replace("~1", "/")
            .replace("~0", "~");
        let section = if self.body_names.contains(&decoded) {
            "requestBodies"
        } else {
            "parameters"
        };
        Some(format!("#/components/{section}/{rest}"))
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

fn plain_params(params: &[Param]) -> Vec<Value> {
    params
        .iter()
        .filter_map(|p| match p {
            Param::Plain(v) => Some(v.clone()),
            _ => None,
        })
        .collect()
}

/// Form fields of the path item and the operation; the operation's win by name.
fn form_fields<'p>(shared: &'p [Param], own: &'p [Param]) -> Vec<&'p Value> {
    let name = |v: &Value| v.get("name").and_then(Value::as_str).map(str::to_owned);
    let own_fields: Vec<&Value> = own
        .iter()
        .filter_map(|p| match p {
            Param::Form(v) => Some(v),
            _ => None,
        })
        .collect();
    let own_names: HashSet<Option<String>> = own_fields.iter().map(|v| name(v)).collect();
    let mut fields: Vec<&Value> = shared
        .iter()
        .filter_map(|p| match p {
            Param::Form(v) if !own_names.contains(&name(v)) => Some(v),
            _ => None,
        })
        .collect();
    fields.extend(own_fields);
    fields
}

/// An `in: body` parameter → a request body with one content entry per media type.
fn body(param: &Value, consumes: &[String]) -> Value {
    let schema = param
        .get("schema")
        .map_or_else(|| json!({}), converted_schema);
    let mut out = Map::new();
    if let Some(description) = param.get("description") {
        out.insert("description".into(), description.clone());
    }
    let content: Map<String, Value> = consumes
        .iter()
        .map(|media| (media.clone(), json!({ "schema": schema })))
        .collect();
    out.insert("content".into(), Value::Object(content));
    if let Some(required) = param.get("required") {
        out.insert("required".into(), required.clone());
    }
    if let Some(name) = param.get("name") {
        out.insert("x-codegen-request-body-name".into(), name.clone());
    }
    if let Value::Object(map) = param {
        for (key, value) in map {
            if key.starts_with("x-") {
                out.insert(key.clone(), value.clone());
            }
        }
    }
    Value::Object(out)
}

/// The schema of a non-body parameter, header or items object.
fn schema_of(param: &Value) -> Value {
    let mut schema = Map::new();
    if let Value::Object(map) = param {
        for (key, value) in map {
            if key == "items" {
                schema.insert(key.clone(), schema_of(value));
            } else if is_schema_key(key) {
                schema.insert(key.clone(), value.clone());
            }
        }
    }
    let mut schema = Value::Object(schema);
    convert_schema(&mut schema);
    schema
}

/// Swagger 2.0 headers → 3.0 header objects (`schema` holds the type).
fn headers(value: &Value) -> Value {
    let Value::Object(map) = value else {
        return value.clone();
    };
    let converted = map
        .iter()
        .map(|(name, header)| {
            let mut out = Map::new();
            if let Value::Object(h) = header {
                for (key, v) in h {
                    if !is_schema_key(key) && key != "collectionFormat" {
                        out.insert(key.clone(), v.clone());
                    }
                }
            }
            out.insert("schema".into(), schema_of(header));
            (name.clone(), Value::Object(out))
        })
        .collect();
    Value::Object(converted)
}

/// Swagger 2.0 response `examples` (media type → value) → `content.<type>.example`.
fn add_examples(response: &mut Map<String, Value>, examples: &Map<String, Value>) {
    let content = response
        .entry("content")
        .or_insert_with(|| Value::Object(Map::new()));
    let Value::Object(content) = content else {
        return;
    };
    for (media, example) in examples {
        let entry = content
            .entry(media.clone())
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(entry) = entry {
            entry.insert("example".into(), example.clone());
        }
    }
}

fn copy_except(from: &Map<String, Value>, to: &mut Map<String, Value>, skip: &[&str]) {
    for (key, value) in from {
        if !skip.contains(&key.as_str()) && !to.contains_key(key) {
            to.insert(key.clone(), value.clone());
        }
    }
}

fn converted_schema(schema: &Value) -> Value {
    let mut schema = schema.clone();
    convert_schema(&mut schema);
    schema
}

/// Swagger 2.0 schema → 3.0 schema, in place: `x-nullable` → `nullable`, `type: file` →
/// binary string, `discriminator: name` → `discriminator: {propertyName: name}`.
fn convert_schema(schema: &mut Value) {
    let Value::Object(map) = schema else {
        return;
    };
    if map.contains_key("x-nullable") {
        *map = std::mem::take(map)
            .into_iter()
            .filter_map(|(key, value)| match key.as_str() {
                "x-nullable" if value == Value::Bool(true) => Some(("nullable".to_owned(), value)),
                "x-nullable" => None,
                _ => Some((key, value)),
            })
            .collect();
    }
    if map.get("type").and_then(Value::as_str) == Some("file") {
        map.insert("type".into(), json!("string"));
        map.insert("format".into(), json!("binary"));
    }
    if let Some(Value::String(property)) = map.get("discriminator") {
        let property = property.clone();
        map.insert("discriminator".into(), json!({ "propertyName": property }));
    }
    for (key, child) in map.iter_mut() {
        match key.as_str() {
            "properties" => {
                if let Value::Object(props) = child {
                    props.values_mut().for_each(convert_schema);
                }
            }
            "items" | "additionalProperties" | "not" => match child {
                Value::Array(items) => items.iter_mut().for_each(convert_schema),
                _ => convert_schema(child),
            },
            "allOf" | "anyOf" | "oneOf" => {
                if let Value::Array(items) = child {
                    items.iter_mut().for_each(convert_schema);
                }
            }
            _ => {}
        }
    }
}
