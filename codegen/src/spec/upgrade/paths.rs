//! Path items and operations.

use mcpgen_core::json_pointer;
use serde_json::{Map, Value};

use super::parameters::{Param, plain_params};
use super::{Swagger2, media_types};
use crate::spec::METHODS;

impl Swagger2<'_> {
    pub(super) fn paths(&mut self, paths: &Value) -> Value {
        let Value::Object(paths) = paths else {
            return paths.clone();
        };
        let converted = paths
            .iter()
            .map(|(template, item)| {
                let pointer = format!("/paths/{}", json_pointer::escape(template));
                (template.clone(), self.path_item(item, &pointer))
            })
            .collect();
        Value::Object(converted)
    }

    /// `x-mcpgen-bundled`: bundled path items are converted like those under `paths`.
    pub(super) fn bundled(&mut self, value: &Value) -> Value {
        let mut out = value.clone();
        if let Some(Value::Object(items)) = out.get_mut("pathItems") {
            for (name, item) in items.iter_mut() {
                let pointer = format!("/x-mcpgen-bundled/pathItems/{}", json_pointer::escape(name));
                *item = self.path_item(item, &pointer);
            }
        }
        out
    }

    pub(super) fn path_item(&mut self, item: &Value, pointer: &str) -> Value {
        let Value::Object(map) = item else {
            return item.clone();
        };
        let shared = self.sort_parameters(map.get("parameters"), &format!("{pointer}/parameters"));
        let mut out = Map::new();
        for (key, value) in map {
            if METHODS.contains(&key.as_str()) {
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

    pub(super) fn operation(&mut self, op: &Value, shared: &[Param], pointer: &str) -> Value {
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
}
