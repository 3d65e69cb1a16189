//! `in: body` and `in: formData` parameters → `requestBody`.

use std::collections::HashSet;

use mcpgen_core::json_pointer;
use serde_json::{Map, Value, json};

use super::parameters::Param;
use super::schema::{converted_schema, schema_of};
use super::{MULTIPART, Swagger2, URLENCODED};

impl Swagger2<'_> {
    /// The operation's `requestBody`, from its own body/form parameters or the path item's.
    pub(super) fn request_body(
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
                    json!({ "$ref": format!("#/components/requestBodies/{}", json_pointer::escape(name)) })
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
    pub(super) fn form_body(
        &mut self,
        fields: &[&Value],
        consumes: &[String],
        pointer: &str,
    ) -> Value {
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
}

/// Form fields of the path item and the operation; the operation's win by name.
pub(super) fn form_fields<'p>(shared: &'p [Param], own: &'p [Param]) -> Vec<&'p Value> {
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
pub(super) fn body(param: &Value, consumes: &[String]) -> Value {
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
