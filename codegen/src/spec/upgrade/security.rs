//! `securityDefinitions` entries → security schemes.

use serde_json::{Map, Value, json};

use super::Swagger2;

impl Swagger2<'_> {
    pub(super) fn security_scheme(&mut self, scheme: &Value, pointer: &str) -> Value {
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

    pub(super) fn oauth2(&mut self, map: &Map<String, Value>, pointer: &str) -> Value {
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
}

pub(super) fn copy_except(from: &Map<String, Value>, to: &mut Map<String, Value>, skip: &[&str]) {
    for (key, value) in from {
        if !skip.contains(&key.as_str()) && !to.contains_key(key) {
            to.insert(key.clone(), value.clone());
        }
    }
}
