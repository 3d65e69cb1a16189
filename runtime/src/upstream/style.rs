//! How one parameter value is written on the wire: OpenAPI `style` and `explode`, and
//! percent-encoding.
//!
//! Delimiters a style introduces (`,` between array items, `=` and `&` in the query) are
//! written literally; the values between them are percent-encoded, so a comma inside a value
//! stays distinguishable from a delimiter.

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use serde_json::Value;

use crate::{ArgBinding, Location};

/// Everything outside RFC 3986's unreserved characters (`A-Z a-z 0-9 - . _ ~`) is encoded:
/// this is safe in a path segment, a query name and a query value alike.
const COMPONENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// Percent-encodes `text` for a path segment or a query component.
pub(super) fn encode(text: &str) -> String {
    utf8_percent_encode(text, COMPONENT).to_string()
}

/// The OpenAPI serialization styles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Style {
    /// `simple`: `a,b,c` (the default for path and header parameters).
    Simple,
    /// `form`: `name=a&name=b` or `name=a,b` (the default for query and cookie parameters).
    Form,
}

impl Style {
    /// The style `binding` asks for (or its location's default), or a message saying it is
    /// not supported.
    pub(super) fn of(binding: &ArgBinding) -> Result<Self, String> {
        let default = match binding.location {
            Location::Path | Location::Header => Self::Simple,
            _ => Self::Form,
        };
        match binding.style {
            None => Ok(default),
            Some(name) => {
                let style = match name {
                    "simple" => Some(Self::Simple),
                    "form" => Some(Self::Form),
                    _ => None,
                };
                match style {
                    Some(style) if style == default => Ok(style),
                    _ => Err(format!(
                        "argument `{}` uses style `{name}` for a {} parameter, which is not \
                         supported yet",
                        binding.arg,
                        location_name(binding.location)
                    )),
                }
            }
        }
    }

    /// Whether `binding` explodes arrays and objects: its `explode`, or the style's default.
    pub(super) fn explode(self, binding: &ArgBinding) -> bool {
        binding.explode.unwrap_or(self == Self::Form)
    }
}

/// How a location is named in messages.
pub(super) fn location_name(location: Location) -> &'static str {
    match location {
        Location::Path => "path",
        Location::Query => "query",
        Location::Header => "header",
        Location::Cookie => "cookie",
        Location::BodyField => "body field",
        Location::Body => "body",
    }
}

/// A scalar's plain text: strings without quotes, numbers and booleans as written, `null` as
/// empty. Arrays and objects nested inside a parameter have no standard form; they are written
/// as compact JSON.
pub(super) fn scalar_text(value: &Value) -> String {
    match value {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::Array(_) | Value::Object(_) => value.to_string(),
    }
}

/// `simple` style: scalars as their text, arrays as `a,b,c`, objects as `k,v,k,v` (or
/// `k=v,k=v` when exploded). Each value is passed through `encode`.
pub(super) fn simple(value: &Value, explode: bool, encode: impl Fn(&str) -> String) -> String {
    match value {
        Value::Array(items) => items
            .iter()
            .map(|item| encode(&scalar_text(item)))
            .collect::<Vec<_>>()
            .join(","),
        Value::Object(map) => map
            .iter()
            .map(|(k, v)| {
                let (k, v) = (encode(k), encode(&scalar_text(v)));
                if explode {
                    format!("{k}={v}")
                } else {
                    format!("{k},{v}")
                }
            })
            .collect::<Vec<_>>()
            .join(","),
        scalar => encode(&scalar_text(scalar)),
    }
}

/// `form` style: the encoded `name=value` pairs for one query parameter.
///
/// Scalars give `name=v`; arrays give `name=a&name=b` when exploded and `name=a,b` otherwise;
/// objects give `k=v&k=v` when exploded and `name=k,v,k,v` otherwise. An empty exploded array
/// or object gives no pair.
pub(super) fn form(name: &str, value: &Value, explode: bool) -> Vec<String> {
    let name = encode(name);
    match value {
        Value::Array(items) if explode => items
            .iter()
            .map(|item| format!("{name}={}", encode(&scalar_text(item))))
            .collect(),
        Value::Object(map) if explode => map
            .iter()
            .map(|(k, v)| format!("{}={}", encode(k), encode(&scalar_text(v))))
            .collect(),
        other => vec![format!("{name}={}", simple(other, false, encode))],
    }
}
