//! [`FormatError`]: a model response without the expected shape, and the helpers that point
//! at the offending value.

use serde_json::Value;

/// A model response that does not have the expected shape.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("malformed {provider} response at {pointer}: {message}")]
pub struct FormatError {
    /// `OpenAI` or `Anthropic`.
    pub provider: &'static str,
    /// JSON pointer of the offending value.
    pub pointer: String,
    /// What is wrong.
    pub message: String,
}

/// A [`FormatError`] of `provider` at `pointer`.
pub(super) fn format_error(
    provider: &'static str,
    pointer: String,
    message: impl Into<String>,
) -> FormatError {
    FormatError {
        provider,
        pointer,
        message: message.into(),
    }
}

/// The string `key` of `value` (at pointer `base`), or an error saying it is missing or not a
/// string.
pub(super) fn string_at<'a>(
    provider: &'static str,
    value: &'a Value,
    base: &str,
    key: &str,
) -> Result<&'a str, FormatError> {
    match value.get(key) {
        Some(Value::String(s)) => Ok(s),
        Some(other) => Err(format_error(
            provider,
            format!("{base}/{key}"),
            format!("expected a string, got {}", mcpgen_core::json_kind(other)),
        )),
        None => Err(format_error(provider, format!("{base}/{key}"), "missing")),
    }
}
