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
//! | `deepObject`     | —       | `id%5B0%5D=3&id%5B1%5D=4` | `id%5Bk%5D=v&id%5Bk2%5D=v2` |
//!
//! Choices the tables leave open:
//!
//! - Delimiters a style introduces (`,` `.` `;` `=` `&`) are written literally; the values
//!   between them are percent-encoded (everything but RFC 3986 unreserved characters), so a
//!   comma inside a value stays distinguishable from a delimiter.
//! - `pipeDelimited` writes its `|` as `%7C`: `|` is not allowed unencoded in a URI (RFC 3986),
//!   and servers decode `%7C` before splitting, so both spellings arrive as the same text.
//! - `deepObject` (which OpenAPI defines only for an object of scalars) writes every array
//!   and object in the bracket convention that Stripe, Rails, PHP and Express `qs` read, at
//!   any depth: object properties as `id[k]`, array items by index as `id[0]`, `id[1]`, so an
//!   array of objects is `id[0][k]=v` and nested objects are `id[a][b]=v`. `explode` makes no
//!   difference. `null` items are left out and the remaining items numbered without gaps; a
//!   scalar is `id=v`. In a query the brackets are written as `%5B`/`%5D` (not allowed
//!   unencoded in a query by RFC 3986; those parsers decode them first), in a form body as
//!   `[`/`]` (what Stripe's own client libraries send) and in multipart part names as they
//!   are. Brackets inside a property name are always encoded (in a query and a form body).
//! - `spaceDelimited` and `pipeDelimited` with `explode: true` are written as exploded `form`
//!   (the tables define them only without explode).
//! - `null` is never sent: a `null` argument omits the parameter, and `null` array items and
//!   object properties are left out. An empty array or object omits a query, header or cookie
//!   parameter; in a path (which cannot omit it) it gives the table's "empty" column: nothing
//!   for `simple`, `.` for `label` and `;id` for `matrix`.
//! - `allowReserved` keeps reserved characters in query values unencoded, except those that
//!   would break the query (see `encode_reserved`).
//! - Booleans and numbers are written as JSON text (`true`, `1.5`); arrays or objects nested
//!   where the style has no place for them are written as compact JSON, percent-encoded.

use mcpgen_core::tool::{ArgBinding, Location};
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, percent_encode_byte, utf8_percent_encode};
use serde_json::{Map, Value};

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
        let style = Self::parse(name);
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

    /// The style called `name` in OpenAPI, if there is one.
    pub(super) fn parse(name: &str) -> Option<Self> {
        match name {
            "simple" => Some(Self::Simple),
            "label" => Some(Self::Label),
            "matrix" => Some(Self::Matrix),
            "form" => Some(Self::Form),
            "spaceDelimited" => Some(Self::SpaceDelimited),
            "pipeDelimited" => Some(Self::PipeDelimited),
            "deepObject" => Some(Self::DeepObject),
            _ => None,
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

/// Where query-style `name=value` pairs are written, which decides their escaping.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Target {
    /// A URL query string: RFC 3986 percent-encoding, `deepObject` brackets as `%5B`/`%5D`.
    Query,
    /// An `application/x-www-form-urlencoded` body: space as `+`, brackets written as they are
    /// (the bracket convention of the default form encoding).
    Form,
    /// Multipart part names and contents: nothing is escaped.
    Raw,
}

/// How one parameter's names and values are escaped.
#[derive(Debug, Clone, Copy)]
pub(super) struct Escape {
    target: Target,
    allow_reserved: bool,
}

impl Escape {
    /// Escaping for `target`, keeping reserved characters in values when `allow_reserved`.
    pub(super) fn new(target: Target, allow_reserved: bool) -> Self {
        Self {
            target,
            allow_reserved,
        }
    }

    /// A parameter or property name (never affected by `allowReserved`).
    pub(super) fn name(self, text: &str) -> String {
        match self.target {
            Target::Query => encode(text),
            Target::Form => form_encode(text),
            Target::Raw => text.to_owned(),
        }
    }

    /// A value (an array item, an object key or value, a scalar).
    pub(super) fn value(self, text: &str) -> String {
        if self.allow_reserved && self.target != Target::Raw {
            encode_reserved(text, self.target)
        } else {
            self.name(text)
        }
    }

    /// The `[` and `]` of the `deepObject` bracket convention.
    fn brackets(self) -> (&'static str, &'static str) {
        match self.target {
            Target::Query => ("%5B", "%5D"),
            Target::Form | Target::Raw => ("[", "]"),
        }
    }
}

/// Encodes one name or value as `application/x-www-form-urlencoded` (space as `+`, everything
/// but `A-Z a-z 0-9 * - . _` percent-encoded).
pub(super) fn form_encode(text: &str) -> String {
    url::form_urlencoded::byte_serialize(text.as_bytes()).collect()
}

/// Percent-encodes a value whose parameter has `allowReserved: true`.
///
/// OpenAPI says such values keep RFC 3986's reserved characters (`:/?#[]@!$&'()*+,;=`)
/// unencoded, as RFC 6570's reserved expansion does (which also passes existing `%XX` triples
/// through, as here). Taken literally, that breaks the request for a few of them, so these
/// are still encoded:
///
/// - in a query, `&` (it would end the value and start another parameter), `#` (it would end
///   the query and start a fragment, so the rest never reaches the server) and `'` (WHATWG URL
///   parsers, which HTTP clients use, encode it in `http(s)` queries anyway, so writing
///   `%27` keeps the bytes on the wire the ones computed here);
/// - in a form body, `&` (as in a query) and `+` (form decoding reads it as a space).
///
/// `=` stays literal in both: parsers split a pair at its first `=`, so a later one belongs to
/// the value. `+` stays literal in a query, as OpenAPI says, although servers that decode
/// queries as forms read it as a space: an API that sets `allowReserved` has said it reads the
/// query as RFC 3986 text. A lone `%` (not followed by two hex digits) is encoded, as are all characters
/// that are neither reserved nor unreserved (space, non-ASCII, `"`, `<`, ...); a space in a
/// form body is `+`.
fn encode_reserved(text: &str, target: Target) -> String {
    let kept: &[u8] = match target {
        Target::Query => b":/?[]@!$()*+,;=",
        Target::Form | Target::Raw => b":/?#[]@!$'()*,;=",
    };
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    for (i, &b) in bytes.iter().enumerate() {
        let triple = b == b'%'
            && bytes.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
            && bytes.get(i + 2).is_some_and(u8::is_ascii_hexdigit);
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) || kept.contains(&b) || triple {
            out.push(char::from(b));
        } else if b == b' ' && target == Target::Form {
            out.push('+');
        } else {
            out.push_str(percent_encode_byte(b));
        }
    }
    out
}

/// A query parameter in `style`: its encoded `name=value` pairs, none for an empty array or
/// object. With [`Target::Form`] the same rules give the pairs of a form body property.
pub(super) fn query(
    name: &str,
    value: &Value,
    style: Style,
    explode: bool,
    escape: Escape,
) -> Vec<String> {
    pairs(name, value, style, explode, escape)
        .into_iter()
        .map(|(name, value)| format!("{name}={value}"))
        .collect()
}

/// The escaped (name, value) pairs of a query-style parameter (`form`, `spaceDelimited`,
/// `pipeDelimited` or `deepObject`): none for an empty array or object.
pub(super) fn pairs(
    name: &str,
    value: &Value,
    style: Style,
    explode: bool,
    escape: Escape,
) -> Vec<(String, String)> {
    let parts = Parts::of(value);
    if parts.is_empty() {
        return Vec::new();
    }
    let encoded_name = escape.name(name);
    let delimiter = match (style, escape.target) {
        (Style::SpaceDelimited, Target::Query) if !explode => "%20",
        (Style::SpaceDelimited, Target::Form) if !explode => "+",
        (Style::SpaceDelimited, Target::Raw) if !explode => " ",
        (Style::PipeDelimited, Target::Raw) if !explode => "|",
        (Style::PipeDelimited, _) if !explode => "%7C",
        (Style::DeepObject, _) => {
            let mut pairs = Vec::new();
            bracket_pairs(&encoded_name, value, escape, &mut pairs);
            return pairs;
        }
        _ if explode => return form_exploded(&encoded_name, &parts, escape),
        _ => ",",
    };
    let value = |text: &str| escape.value(text);
    vec![(encoded_name, parts.flat(delimiter, &value))]
}

/// Exploded `form`: `name=a&name=b` for arrays, `k=v&k2=v2` for objects, `name=v` for scalars.
fn form_exploded(name: &str, parts: &Parts<'_>, escape: Escape) -> Vec<(String, String)> {
    match parts {
        Parts::Scalar(value) => vec![(name.to_owned(), escape.value(&scalar_text(value)))],
        Parts::Items(items) => items
            .iter()
            .map(|v| (name.to_owned(), escape.value(&scalar_text(v))))
            .collect(),
        Parts::Pairs(pairs) => pairs
            .iter()
            .map(|(k, v)| (escape.name(k), escape.value(&scalar_text(v))))
            .collect(),
    }
}

/// The bracket convention (`deepObject`, and the default for form body properties): the
/// pairs for `value` under the already-escaped `prefix`, object properties as `prefix[k]`,
/// array items by index as `prefix[0]` (`null` items left out, the rest numbered without
/// gaps), recursively; a scalar is one pair, `null` and empty arrays or objects none.
pub(super) fn bracket_pairs(
    prefix: &str,
    value: &Value,
    escape: Escape,
    out: &mut Vec<(String, String)>,
) {
    let (open, close) = escape.brackets();
    match value {
        Value::Null => {}
        Value::Object(map) => {
            for (k, v) in non_null(map) {
                let key = format!("{prefix}{open}{}{close}", escape.name(k));
                bracket_pairs(&key, v, escape, out);
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().filter(|v| !v.is_null()).enumerate() {
                bracket_pairs(&format!("{prefix}{open}{i}{close}"), item, escape, out);
            }
        }
        scalar => out.push((prefix.to_owned(), escape.value(&scalar_text(scalar)))),
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
        form_exploded(&name, &parts, Escape::new(Target::Query, false))
            .into_iter()
            .map(|(name, value)| format!("{name}={value}"))
            .collect()
    } else {
        vec![format!("{name}={}", parts.flat(",", &encode))]
    }
}
