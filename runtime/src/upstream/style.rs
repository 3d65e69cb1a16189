//! How one parameter value is written on the wire: OpenAPI `style` and `explode`, and
//! percent-encoding.
//!
//! The output follows the "Style Values" and "Style Examples" tables of OpenAPI 3.1 (as
//! corrected in 3.1.1 to agree with RFC 6570, e.g. `label` without explode is `.a,b`):
//!
//! | style            | explode | array               | object                  |
//! |------------------|---------|---------------------|-------------------------|
//! | `simple`         | false   | `3,4`               | `k,v,k2,v2`             |
//! | `simple`         | true    | `3,4`               | `k=v,k2=v2`             |
//! | `label`          | false   | `.3,4`              | `.k,v,k2,v2`            |
//! | `label`          | true    | `.3.4`              | `.k=v.k2=v2`            |
//! | `matrix`         | false   | `;id=3,4`           | `;id=k,v,k2,v2`         |
//! | `matrix`         | true    | `;id=3;id=4`        | `;k=v;k2=v2`            |
//! | `form`           | false   | `id=3,4`            | `id=k,v,k2,v2`          |
//! | `form`           | true    | `id=3&id=4`         | `k=v&k2=v2`             |
//! | `spaceDelimited` | false   | `id=3%204`          | `id=k%20v%20k2%20v2`    |
//! | `pipeDelimited`  | false   | `id=3%7C4`          | `id=k%7Cv%7Ck2%7Cv2`    |
//! | `deepObject`     | —       | `id=3&id=4`         | `id%5Bk%5D=v&id%5Bk2%5D=v2` |
//!
//! Choices the tables leave open:
//!
//! - Delimiters a style introduces (`,` `.` `;` `=` `&`) are written literally; the values
//!   between them are percent-encoded (everything but RFC 3986 unreserved characters), so a
//!   comma inside a value stays distinguishable from a delimiter.
//! - `pipeDelimited` writes its `|` as `%7C`: `|` is not allowed unencoded in a URI (RFC 3986),
//!   and servers decode `%7C` before splitting, so both spellings arrive as the same text.
//! - `deepObject` writes its brackets as `%5B`/`%5D` (again, not allowed unencoded in a query
//!   by RFC 3986); Rails, PHP, Express `qs` and the like decode them before parsing. Nested
//!   objects continue the bracket convention (`id%5Ba%5D%5Bb%5D=v`), arrays inside an object
//!   use empty brackets (`id%5Bk%5D%5B%5D=3&id%5Bk%5D%5B%5D=4`); a top-level array is written
//!   as exploded `form`.
//! - `spaceDelimited` and `pipeDelimited` with `explode: true` are written as exploded `form`
//!   (the tables define them only without explode).
//! - `null` is never sent: a `null` argument omits the parameter, and `null` array items and
//!   object properties are left out. An empty array or object omits a query, header or cookie
//!   parameter; in a path (which cannot omit it) it gives the table's "empty" column: nothing
//!   for `simple`, `.` for `label` and `;id` for `matrix`.
//! - Booleans and numbers are written as JSON text (`true`, `1.5`); arrays or objects nested
//!   where the style has no place for them are written as compact JSON, percent-encoded.

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use serde_json::{Map, Value};

use crate::{ArgBinding, Location};

/// Everything outside RFC 3986's unreserved characters (`A-Z a-z 0-9 - . _ ~`) is encoded:
/// this is safe in a path segment, a query name and a query value alike.
const COMPONENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// Percent-encodes `text` for a path segment, a query component or a cookie value.
pub(super) fn encode(text: &str) -> String {
    utf8_percent_encode(text, COMPONENT).to_string()
}

/// The OpenAPI serialization styles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Style {
    /// `simple`: `a,b,c` (path and header; the default for both).
    Simple,
    /// `label`: `.a,b,c` / `.a.b.c` (path).
    Label,
    /// `matrix`: `;id=a,b,c` / `;id=a;id=b` (path).
    Matrix,
    /// `form`: `id=a&id=b` or `id=a,b` (query and cookie; the default for both).
    Form,
    /// `spaceDelimited`: `id=a%20b` (query).
    SpaceDelimited,
    /// `pipeDelimited`: `id=a%7Cb` (query).
    PipeDelimited,
    /// `deepObject`: `id%5Bk%5D=v` (query).
    DeepObject,
}

impl Style {
    /// The style `binding` asks for (or its location's default), or a message saying it
    /// cannot be used there.
    pub(super) fn of(binding: &ArgBinding) -> Result<Self, String> {
        let location = binding.location;
        let Some(name) = binding.style else {
            return Ok(match location {
                Location::Query | Location::Cookie => Self::Form,
                _ => Self::Simple,
            });
        };
        let style = match name {
            "simple" => Some(Self::Simple),
            "label" => Some(Self::Label),
            "matrix" => Some(Self::Matrix),
            "form" => Some(Self::Form),
            "spaceDelimited" => Some(Self::SpaceDelimited),
            "pipeDelimited" => Some(Self::PipeDelimited),
            "deepObject" => Some(Self::DeepObject),
            _ => None,
        };
        let allowed = match location {
            Location::Path => &[Self::Simple, Self::Label, Self::Matrix][..],
            Location::Query => &[
                Self::Form,
                Self::SpaceDelimited,
                Self::PipeDelimited,
                Self::DeepObject,
            ][..],
            Location::Header => &[Self::Simple][..],
            Location::Cookie => &[Self::Form][..],
            Location::BodyField | Location::Body => &[][..],
        };
        match style {
            Some(style) if allowed.contains(&style) => Ok(style),
            Some(_) => Err(format!(
                "argument `{}` uses style `{name}`, which OpenAPI does not define for a {} \
                 parameter (the tool table is broken)",
                binding.arg,
                location_name(location)
            )),
            None => Err(format!(
                "argument `{}` uses style `{name}`, which is not an OpenAPI style (the tool \
                 table is broken)",
                binding.arg
            )),
        }
    }

    /// Whether `binding` explodes arrays and objects: its `explode`, or the style's default
    /// (true for `form`, false otherwise).
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

/// A value taken apart the way every style needs it: one scalar, the (non-null) items of an
/// array, or the (non-null) properties of an object.
enum Parts<'a> {
    Scalar(&'a Value),
    Items(Vec<&'a Value>),
    Pairs(Vec<(&'a str, &'a Value)>),
}

impl<'a> Parts<'a> {
    fn of(value: &'a Value) -> Self {
        match value {
            Value::Array(items) => Self::Items(items.iter().filter(|v| !v.is_null()).collect()),
            Value::Object(map) => Self::Pairs(non_null(map)),
            scalar => Self::Scalar(scalar),
        }
    }

    /// Whether this is an array or object with nothing to send.
    fn is_empty(&self) -> bool {
        match self {
            Self::Scalar(_) => false,
            Self::Items(items) => items.is_empty(),
            Self::Pairs(pairs) => pairs.is_empty(),
        }
    }

    /// The encoded texts joined by `delimiter`: a scalar's text, the items, or the keys and
    /// values alternating.
    fn flat(&self, delimiter: &str, encode: &impl Fn(&str) -> String) -> String {
        match self {
            Self::Scalar(value) => encode(&scalar_text(value)),
            Self::Items(items) => join(items.iter().map(|v| encode(&scalar_text(v))), delimiter),
            Self::Pairs(pairs) => join(
                pairs
                    .iter()
                    .flat_map(|(k, v)| [encode(k), encode(&scalar_text(v))]),
                delimiter,
            ),
        }
    }
}

fn non_null(map: &Map<String, Value>) -> Vec<(&str, &Value)> {
    map.iter()
        .filter(|(_, v)| !v.is_null())
        .map(|(k, v)| (k.as_str(), v))
        .collect()
}

fn join(parts: impl Iterator<Item = String>, delimiter: &str) -> String {
    parts.collect::<Vec<_>>().join(delimiter)
}

/// `simple` style: scalars as their text, arrays as `a,b,c`, objects as `k,v,k,v` (or
/// `k=v,k=v` when exploded). Each value is passed through `encode`.
pub(super) fn simple(value: &Value, explode: bool, encode: impl Fn(&str) -> String) -> String {
    match Parts::of(value) {
        Parts::Pairs(pairs) if explode => join(
            pairs
                .iter()
                .map(|(k, v)| format!("{}={}", encode(k), encode(&scalar_text(v)))),
            ",",
        ),
        parts => parts.flat(",", &encode),
    }
}

/// A path parameter in `style`: the encoded text that replaces `{name}` in the template.
pub(super) fn path(name: &str, value: &Value, style: Style, explode: bool) -> String {
    let parts = Parts::of(value);
    let name = encode(name);
    match style {
        Style::Label => {
            let body = match &parts {
                _ if parts.is_empty() => String::new(),
                Parts::Pairs(pairs) if explode => join(
                    pairs
                        .iter()
                        .map(|(k, v)| format!("{}={}", encode(k), encode(&scalar_text(v)))),
                    ".",
                ),
                Parts::Items(_) if explode => parts.flat(".", &encode),
                _ => parts.flat(",", &encode),
            };
            format!(".{body}")
        }
        Style::Matrix => match &parts {
            _ if parts.is_empty() => format!(";{name}"),
            Parts::Items(items) if explode => items
                .iter()
                .map(|v| format!(";{name}={}", encode(&scalar_text(v))))
                .collect(),
            Parts::Pairs(pairs) if explode => pairs
                .iter()
                .map(|(k, v)| format!(";{}={}", encode(k), encode(&scalar_text(v))))
                .collect(),
            _ => format!(";{name}={}", parts.flat(",", &encode)),
        },
        // `Style::of` only allows the path styles here.
        _ => simple(value, explode, encode),
    }
}

/// A query parameter in `style`: its encoded `name=value` pairs, none for an empty array or
/// object.
pub(super) fn query(name: &str, value: &Value, style: Style, explode: bool) -> Vec<String> {
    let parts = Parts::of(value);
    if parts.is_empty() {
        return Vec::new();
    }
    let encoded_name = encode(name);
    let delimiter = match style {
        Style::SpaceDelimited if !explode => "%20",
        Style::PipeDelimited if !explode => "%7C",
        Style::DeepObject => {
            let mut pairs = Vec::new();
            match value {
                Value::Object(_) => deep_object(&encoded_name, value, &mut pairs),
                _ => pairs = form_exploded(&encoded_name, &parts),
            }
            return pairs;
        }
        _ if explode => return form_exploded(&encoded_name, &parts),
        _ => ",",
    };
    vec![format!("{encoded_name}={}", parts.flat(delimiter, &encode))]
}

/// Exploded `form`: `name=a&name=b` for arrays, `k=v&k2=v2` for objects, `name=v` for scalars.
fn form_exploded(name: &str, parts: &Parts<'_>) -> Vec<String> {
    match parts {
        Parts::Scalar(value) => vec![format!("{name}={}", encode(&scalar_text(value)))],
        Parts::Items(items) => items
            .iter()
            .map(|v| format!("{name}={}", encode(&scalar_text(v))))
            .collect(),
        Parts::Pairs(pairs) => pairs
            .iter()
            .map(|(k, v)| format!("{}={}", encode(k), encode(&scalar_text(v))))
            .collect(),
    }
}

/// `deepObject` pairs for `value` under the (encoded) bracketed `prefix`.
fn deep_object(prefix: &str, value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Null => {}
        Value::Object(map) => {
            for (k, v) in non_null(map) {
                deep_object(&format!("{prefix}%5B{}%5D", encode(k)), v, out);
            }
        }
        Value::Array(items) => {
            for item in items {
                deep_object(&format!("{prefix}%5B%5D"), item, out);
            }
        }
        scalar => out.push(format!("{prefix}={}", encode(&scalar_text(scalar)))),
    }
}

/// A header parameter (`simple`, not percent-encoded): its text, or `None` for an empty array
/// or object.
pub(super) fn header(value: &Value, explode: bool) -> Option<String> {
    if Parts::of(value).is_empty() {
        return None;
    }
    Some(simple(value, explode, str::to_owned))
}

/// A cookie parameter (`form`): its `name=value` pairs for the `Cookie` header, values
/// percent-encoded; none for an empty array or object.
///
/// Without explode, arrays are `name=a,b` and objects `name=k,v,k2,v2`; with explode (the
/// default), arrays repeat the name (`name=a; name=b`) and objects give `k=v; k2=v2`.
pub(super) fn cookie(name: &str, value: &Value, explode: bool) -> Vec<String> {
    let parts = Parts::of(value);
    if parts.is_empty() {
        return Vec::new();
    }
    let name = encode(name);
    if explode {
        form_exploded(&name, &parts)
    } else {
        vec![format!("{name}={}", parts.flat(",", &encode))]
    }
}
