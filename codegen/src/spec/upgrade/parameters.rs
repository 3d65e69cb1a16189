//! Parameters: sorted into plain ones, bodies and form fields; plain ones converted.

use mcpgen_core::json_pointer;
use serde_json::{Map, Value, json};

use super::Swagger2;
use super::schema::{is_schema_key, schema_of};
use percent_encoding::percent_decode_str;

use crate::spec::resolve_local;

/// A Swagger 2.0 parameter sorted by what it becomes.
pub(super) enum Param {
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

impl Swagger2<'_> {
    /// Sorts a `parameters` list into plain parameters, a body and form fields.
    pub(super) fn sort_parameters(&mut self, params: Option<&Value>, pointer: &str) -> Vec<Param> {
        let Some(Value::Array(params)) = params else {
            return Vec::new();
        };
        params
            .iter()
            .enumerate()
            .map(|(i, p)| self.sort_parameter(p, &format!("{pointer}/{i}")))
            .collect()
    }

    pub(super) fn sort_parameter(&mut self, param: &Value, pointer: &str) -> Param {
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
        let Some(target) = resolve_local(self.doc, reference) else {
            // Reported by bundling (dangling) or not local; kept as written.
            return Param::Plain(param.clone());
        };
        let top_level = reference
            .strip_prefix("#/parameters/")
            .map(|name| json_pointer::unescape(&percent_decode_str(name).decode_utf8_lossy()));
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

    /// A plain (query/path/header) parameter: schema keywords move under `schema`.
    pub(super) fn parameter(&mut self, param: &Value, pointer: &str) -> Value {
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
    pub(super) fn collection_style(
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
}

pub(super) fn plain_params(params: &[Param]) -> Vec<Value> {
    params
        .iter()
        .filter_map(|p| match p {
            Param::Plain(v) => Some(v.clone()),
            _ => None,
        })
        .collect()
}
