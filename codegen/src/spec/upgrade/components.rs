//! The top-level sections (`definitions`, `parameters`, `responses`, `securityDefinitions`)
//! → `components`.

use mcpgen_core::json_pointer;
use serde_json::{Map, Value};

use super::Swagger2;
use super::bodies::body;
use super::schema::converted_schema;

impl Swagger2<'_> {
    pub(super) fn components(&mut self) -> Map<String, Value> {
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
                    let pointer = format!("/securityDefinitions/{}", json_pointer::escape(name));
                    (name.clone(), self.security_scheme(s, &pointer))
                })
                .collect();
            components.insert("securitySchemes".into(), Value::Object(converted));
        }
        components
    }

    /// Top-level parameters: plain ones and bodies. Form fields are inlined where used.
    pub(super) fn component_parameters(&mut self) -> (Map<String, Value>, Map<String, Value>) {
        let mut parameters = Map::new();
        let mut bodies = Map::new();
        let Some(Value::Object(params)) = self.doc.get("parameters") else {
            return (parameters, bodies);
        };
        let consumes = self.effective(&self.consumes);
        for (name, param) in params {
            let pointer = format!("/parameters/{}", json_pointer::escape(name));
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
}
