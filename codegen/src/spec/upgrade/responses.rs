//! Responses: `schema` → `content` per `produces` type, headers and examples.

use serde_json::{Map, Value, json};

use super::Swagger2;
use super::schema::{converted_schema, is_schema_key, schema_of};
use crate::spec::resolve_local;

impl Swagger2<'_> {
    pub(super) fn responses(&self, responses: &Value, produces: &[String]) -> Value {
        let Value::Object(map) = responses else {
            return responses.clone();
        };
        let converted = map
            .iter()
            .map(|(code, response)| (code.clone(), self.response(response, produces)))
            .collect();
        Value::Object(converted)
    }

    pub(super) fn response(&self, response: &Value, produces: &[String]) -> Value {
        let Value::Object(map) = response else {
            return response.clone();
        };
        if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
            // A shared response is converted with the global `produces`; inline it where the
            // operation produces something else.
            let global = self.effective(&self.produces);
            return match resolve_local(self.doc, reference) {
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
}

/// Swagger 2.0 headers → 3.0 header objects (`schema` holds the type).
pub(super) fn headers(value: &Value) -> Value {
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
pub(super) fn add_examples(response: &mut Map<String, Value>, examples: &Map<String, Value>) {
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
