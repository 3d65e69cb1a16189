//! Which dialect a document is written in (`swagger` / `openapi`).

use std::path::Path;

use serde_json::Value;

use crate::error::{Error, Warning};
use crate::spec::SpecVersion;

const SUPPORTED: &str = "supported: Swagger 2.0, OpenAPI 3.0.x and 3.1.x";

/// Reads `swagger` / `openapi`.
pub(super) fn detect(path: &Path, doc: &Value) -> Result<(SpecVersion, Vec<Warning>), Error> {
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
