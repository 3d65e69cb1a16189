//! The request body: which arguments make it up and how it is encoded for its content type.
//!
//! The body is either one `Body` argument (the whole body) or an object made of the `BodyField`
//! arguments (a flattened object body), keyed by wire name in binding order. `null` means "not
//! given" for a whole body; a `null` field is kept in JSON (e.g. to clear it in a merge patch)
//! and left out of form and multipart bodies.
//!
//! How each content type is encoded:
//!
//! - **JSON** (`application/json`, any `+json` type): the value as JSON, whatever it is —
//!   object, array, string, number or boolean.
//! - **`application/x-www-form-urlencoded`**: the body must be an object. A property without
//!   an encoding `style`/`explode`, and any property encoded with `style: deepObject`, uses the
//!   bracket convention that Stripe, Rails, PHP and Express `qs` read, with **indexed arrays
//!   everywhere**: `metadata[order_id]=6735`, `expand[0]=a&expand[1]=b`,
//!   `line_items[0][price]=p_1`, `line_items[1][adjustable_quantity][enabled]=true`. Booleans
//!   are `true`/`false`, numbers their JSON text. `null` (a property, an object property or
//!   an array item) is left out, the remaining array items numbered without gaps; an empty
//!   array or object sends nothing. Names and values are encoded as
//!   `application/x-www-form-urlencoded` (space as `+`, everything but `A-Z a-z 0-9 * - . _`
//!   percent-encoded), except that the brackets this convention adds are written literally,
//!   as Stripe's own client libraries send them (brackets inside a property name are
//!   encoded). A property that is an object or an array of objects thus never goes as JSON
//!   text unless its encoding's `contentType` asks for JSON (below).
//! - **`multipart/form-data`**: the body must be an object; each property is one part named
//!   after it (names and filenames escaped as RFC 7578 and HTML do: `"` as `%22`, CR as `%0D`,
//!   LF as `%0A`). A property is a **file** when its value is a `data:` URI
//!   (`data:image/png;base64,...`, optionally with a non-standard `;name=a.png` parameter) or
//!   a file object `{"data": "<base64 or data: URI>", "filename": "a.png", "content_type":
//!   "image/png"}` (only these keys, `data` required). A file part has a `filename` (given, or
//!   `file` plus an extension guessed from the media type) and a `Content-Type` (given, from
//!   the data URI, or `application/octet-stream`). A plain base64 string cannot be told apart
//!   from text and is sent as a text part. An array of files or scalars gives one part per
//!   item, all with the array's name (e.g. two parts named `files[]`), as OpenAPI's per-item
//!   defaults say; strings, numbers and booleans are text parts without a `Content-Type`;
//!   other objects and arrays are JSON parts with `Content-Type: application/json`. The
//!   boundary is random per request and never occurs in the content.
//! - **Text** (`text/*`, `application/xml`, `+xml`, `application/yaml`, `+yaml`): a string sent
//!   as-is (UTF-8); a number or boolean as its JSON text.
//! - **Anything else** (`application/octet-stream`, `image/png`, ...): raw bytes from a base64
//!   string (standard or URL-safe alphabet, padding optional, whitespace ignored), a `data:`
//!   URI or a file object. When the declared type has a wildcard (`image/*`, `*/*`), the data
//!   URI's or file object's media type is sent instead (or `application/octet-stream`).
//!
//! The OpenAPI `encoding` object ([`BodyBinding::encoding`](crate::BodyBinding)) changes
//! these defaults per property:
//!
//! - In a **form** body, a property whose encoding sets `style` or `explode` is written as a
//!   query parameter of that style would be: `form` with explode repeats the name
//!   (`tag=a&tag=b`; an object gives `k=v&k2=v2`), without explode joins with commas
//!   (`tag=a,b`); `spaceDelimited` joins with `+`, `pipeDelimited` with `%7C`; `deepObject`
//!   uses the bracket convention above (`filter[state]=open`, `filter[ids][0]=1`). The
//!   default style is `form` and the default explode follows the style. `allowReserved`
//!   keeps reserved characters in the values (except `&` and `+`, which would change what the
//!   server reads). A property without style or explode whose `contentType` is JSON is sent
//!   as its JSON text, form-encoded (`meta=%7B%22a%22%3A1%7D`); other content types do not
//!   change a form property.
//! - In a **multipart** body, `contentType` is the part's `Content-Type`: any value for a JSON
//!   type is sent as one JSON part (an array too); a text type takes a string, number or
//!   boolean; any other type takes a file (a `data:` URI or file object) or base64, sent as a
//!   file part (each item of an array of them is a part of its own).
//!   A file's own media type is kept when it is one of the declared types (wildcards
//!   allowed); otherwise the first declared type without a wildcard is sent. As OpenAPI
//!   3.1.1 says, a property whose encoding sets `style` or `explode` ignores `contentType`
//!   and is written as text parts the way a form field would be: explode gives one part per
//!   array item, no explode one part `a,b` (or `a b`, `a|b`), `deepObject` parts named in the
//!   bracket convention (`name[key]`, `name[key][0]`).
//!
//! Values that cannot be encoded for the content type (an object for `text/plain`, bad base64,
//! a malformed `data:` URI) are reported naming the argument, and no request is sent.

use std::fmt::Write as _;

use base64::Engine as _;
use base64::alphabet;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use serde_json::{Map, Value};

use super::args::{Problems, provided};
use super::media::{essence, is_json_media_type};
use super::style::{self, Escape, Style, Target, form_encode};
use crate::{HttpBinding, Location, PropertyEncoding};

/// An encoded request body.
pub(super) struct RequestBody {
    /// The `Content-Type` to send.
    pub content_type: String,
    /// The encoded bytes.
    pub bytes: Vec<u8>,
}

/// The body to send, in the shape the arguments give it before encoding.
enum Shape<'a> {
    /// The whole body from one `Body` argument (argument name, value).
    Whole(&'static str, &'a Value),
    /// An object made of the given `BodyField` arguments.
    Fields(Vec<Field<'a>>),
}

/// One `BodyField` argument that was given.
struct Field<'a> {
    /// The argument name, for messages.
    arg: &'static str,
    /// The property name on the wire.
    wire: &'a str,
    value: &'a Value,
}

/// A top-level property of an object body, with how to name it in messages.
struct Property<'a> {
    /// How to refer to it in a message, e.g. "argument `file`".
    what: String,
    name: &'a str,
    value: &'a Value,
}

impl<'a> Shape<'a> {
    /// The top-level properties of an object body, or a message saying the body is not an
    /// object.
    fn properties(&self, kind: &str) -> Result<Vec<Property<'a>>, String> {
        match self {
            Shape::Fields(fields) => Ok(fields
                .iter()
                .map(|f| Property {
                    what: format!("argument `{}`", f.arg),
                    name: f.wire,
                    value: f.value,
                })
                .collect()),
            Shape::Whole(arg, Value::Object(map)) => Ok(map
                .iter()
                .map(|(name, value)| Property {
                    what: format!("argument `{arg}` (property `{name}`)"),
                    name,
                    value,
                })
                .collect()),
            Shape::Whole(arg, other) => Err(format!(
                "argument `{arg}` must be an object for a {kind} body, not {}",
                crate::json_kind(other)
            )),
        }
    }

    /// The shape as one JSON value.
    fn to_value(&self) -> Value {
        match self {
            Shape::Whole(_, value) => (*value).clone(),
            Shape::Fields(fields) => Value::Object(
                fields
                    .iter()
                    .map(|f| (f.wire.to_owned(), f.value.clone()))
                    .collect(),
            ),
        }
    }
}

/// Builds the body for `binding` from `args`, or `None` when no body is sent. Missing required
/// arguments were reported by the caller; problems with the body are added to `problems`.
pub(super) fn build(
    binding: &HttpBinding,
    args: &Map<String, Value>,
    problems: &mut Problems,
) -> Option<RequestBody> {
    let spec = binding.body?;
    let whole = binding.args.iter().find(|a| a.location == Location::Body);
    let mut fields = binding
        .args
        .iter()
        .filter(|a| a.location == Location::BodyField)
        .peekable();
    let has_fields = fields.peek().is_some();

    let shape = if let Some((arg, value)) =
        whole.and_then(|arg| provided(args, arg).map(|value| (arg.arg, value)))
    {
        Shape::Whole(arg, value)
    } else {
        let given: Vec<Field<'_>> = fields
            .filter_map(|arg| {
                args.get(arg.arg).map(|value| Field {
                    arg: arg.arg,
                    wire: arg.wire,
                    value,
                })
            })
            .collect();
        if !given.is_empty() || (has_fields && spec.required) {
            Shape::Fields(given)
        } else {
            if spec.required && whole.is_none() {
                problems.push(
                    "the operation requires a request body, but no argument is bound to it \
                     (the tool table is broken)"
                        .to_owned(),
                );
            }
            return None;
        }
    };

    match encode(spec.content_type, spec.encoding, &shape, &random_boundary) {
        Ok(body) => Some(body),
        Err(problem) => {
            problems.push(problem);
            None
        }
    }
}

/// Encodes `shape` for `content_type`; `boundary` makes multipart boundaries (it is called
/// again with a higher attempt number if the boundary occurs in the content).
fn encode(
    content_type: &str,
    encoding: &[PropertyEncoding],
    shape: &Shape<'_>,
    boundary: &dyn Fn(u32) -> String,
) -> Result<RequestBody, String> {
    let essence = essence(content_type);
    let body = |bytes: Vec<u8>| RequestBody {
        content_type: content_type.to_owned(),
        bytes,
    };
    if is_json_media_type(content_type) {
        return serde_json::to_vec(&shape.to_value())
            .map(body)
            .map_err(|e| format!("cannot encode the request body as JSON: {e}"));
    }
    match essence.as_str() {
        "application/x-www-form-urlencoded" => {
            let properties = shape.properties("form")?;
            Ok(body(form(&properties, encoding)?.into_bytes()))
        }
        "multipart/form-data" => {
            let properties = shape.properties("multipart")?;
            let parts = multipart_parts(&properties, encoding)?;
            let (boundary, bytes) = multipart(&parts, boundary);
            Ok(RequestBody {
                content_type: format!("{essence}; boundary={boundary}"),
                bytes,
            })
        }
        _ if is_text(&essence) => match shape {
            Shape::Whole(_, Value::String(text)) => Ok(body(text.clone().into_bytes())),
            Shape::Whole(_, value @ (Value::Number(_) | Value::Bool(_))) => {
                Ok(body(value.to_string().into_bytes()))
            }
            Shape::Whole(arg, other) => Err(format!(
                "argument `{arg}` must be a string for a `{content_type}` body, not {}",
                crate::json_kind(other)
            )),
            Shape::Fields(fields) => Err(flattened_body(content_type, fields)),
        },
        _ if essence.starts_with("multipart/") => Err(format!(
            "content type `{content_type}` is not supported (of the multipart types, only \
             multipart/form-data is)"
        )),
        _ => match shape {
            Shape::Whole(arg, value) => {
                let what = format!("argument `{arg}`");
                let file = match value {
                    Value::String(text) if is_data_uri(text) => data_uri(text, &what)?,
                    Value::String(text) => File {
                        bytes: decode_base64(text).map_err(|e| {
                            format!(
                                "{what} must be base64 or a `data:` URI for a `{content_type}` \
                                 body: {e}"
                            )
                        })?,
                        filename: None,
                        content_type: None,
                    },
                    other => file_object(other, &what)?.ok_or_else(|| {
                        format!(
                            "{what} must be base64, a `data:` URI or a file object \
                             {{\"data\", \"filename\", \"content_type\"}} for a \
                             `{content_type}` body, not {}",
                            crate::json_kind(other)
                        )
                    })?,
                };
                let content_type = if essence.contains('*') {
                    file.content_type
                        .unwrap_or_else(|| "application/octet-stream".to_owned())
                } else {
                    content_type.to_owned()
                };
                Ok(RequestBody {
                    content_type,
                    bytes: file.bytes,
                })
            }
            Shape::Fields(fields) => Err(flattened_body(content_type, fields)),
        },
    }
}

/// The message for a flattened (object) body of a content type that takes a single value.
fn flattened_body(content_type: &str, fields: &[Field<'_>]) -> String {
    let args: Vec<String> = fields.iter().map(|f| format!("`{}`", f.arg)).collect();
    format!(
        "a `{content_type}` body cannot be made of separate properties (argument {}); the \
         tool table is broken",
        args.join(", ")
    )
}

/// Whether a media type essence is text sent as-is.
fn is_text(essence: &str) -> bool {
    essence.starts_with("text/")
        || matches!(
            essence,
            "application/xml" | "application/yaml" | "application/x-yaml"
        )
        || essence.ends_with("+xml")
        || essence.ends_with("+yaml")
}

// ---------------------------------------------------------------------------------------------
// application/x-www-form-urlencoded

/// The encoding the binding gives for the property named `name` on the wire, if any.
fn encoding_of<'e>(encoding: &'e [PropertyEncoding], name: &str) -> Option<&'e PropertyEncoding> {
    encoding.iter().find(|e| e.property == name)
}

/// The encoding of a property if it sets `style` or `explode`, which makes the property
/// written in that style rather than by the defaults.
fn styled(encoding: Option<&PropertyEncoding>) -> Option<&PropertyEncoding> {
    encoding.filter(|e| e.style.is_some() || e.explode.is_some())
}

/// The style and explode an encoding asks for (`form` by default, explode following the
/// style), or a message if the style has no meaning in a body.
fn body_style(encoding: &PropertyEncoding, what: &str) -> Result<(Style, bool), String> {
    let style = match encoding.style {
        None => Style::Form,
        Some(name) => match Style::parse(name) {
            Some(
                style @ (Style::Form
                | Style::SpaceDelimited
                | Style::PipeDelimited
                | Style::DeepObject),
            ) => style,
            _ => {
                return Err(format!(
                    "{what} is encoded with style `{name}`, which OpenAPI does not define for                      a request body property (the tool table is broken)"
                ));
            }
        },
    };
    Ok((style, encoding.explode.unwrap_or(style == Style::Form)))
}

/// Encodes an object body as `application/x-www-form-urlencoded` pairs.
fn form(properties: &[Property<'_>], encoding: &[PropertyEncoding]) -> Result<String, String> {
    let mut pairs = Vec::new();
    for property in properties {
        let own = encoding_of(encoding, property.name);
        let escape = Escape::new(Target::Form, own.is_some_and(|e| e.allow_reserved));
        match styled(own) {
            Some(_) if property.value.is_null() => {}
            Some(own) => {
                let (style, explode) = body_style(own, &property.what)?;
                pairs.extend(style::query(
                    property.name,
                    property.value,
                    style,
                    explode,
                    escape,
                ));
            }
            None if property.value.is_null() => {}
            None if own
                .and_then(|e| e.content_type)
                .is_some_and(is_json_media_type) =>
            {
                let json = serde_json::to_string(property.value)
                    .map_err(|e| format!("cannot encode {} as JSON: {e}", property.what))?;
                pairs.push(format!(
                    "{}={}",
                    form_encode(property.name),
                    escape.value(&json)
                ));
            }
            None => {
                let mut named = Vec::new();
                style::bracket_pairs(
                    &escape.name(property.name),
                    property.value,
                    escape,
                    &mut named,
                );
                pairs.extend(
                    named
                        .into_iter()
                        .map(|(name, value)| format!("{name}={value}")),
                );
            }
        }
    }
    Ok(pairs.join("&"))
}

// ---------------------------------------------------------------------------------------------
// multipart/form-data

/// File contents from a `data:` URI or a file object.
struct File {
    bytes: Vec<u8>,
    filename: Option<String>,
    content_type: Option<String>,
}

/// One part of a multipart body.
#[derive(Debug, PartialEq, Eq)]
struct Part {
    name: String,
    /// `Some` for a file part.
    filename: Option<String>,
    content_type: Option<String>,
    bytes: Vec<u8>,
}

/// The parts for an object body, or a message naming the argument that cannot be encoded.
fn multipart_parts(
    properties: &[Property<'_>],
    encoding: &[PropertyEncoding],
) -> Result<Vec<Part>, String> {
    let mut parts = Vec::new();
    for property in properties {
        let own = encoding_of(encoding, property.name);
        if let Some(own) = styled(own) {
            let (style, explode) = body_style(own, &property.what)?;
            let escape = Escape::new(Target::Raw, false);
            for (name, text) in style::pairs(property.name, property.value, style, explode, escape)
            {
                parts.push(Part {
                    name,
                    filename: None,
                    content_type: None,
                    bytes: text.into_bytes(),
                });
            }
            continue;
        }
        let declared = own.and_then(|e| e.content_type);
        // A JSON part type describes the whole value, so an array is one JSON part.
        let json_part = declared
            .and_then(|d| concrete_types(d).next())
            .is_some_and(is_json_media_type);
        match property.value {
            Value::Array(items)
                if !json_part
                    && items
                        .iter()
                        .all(|item| (!item.is_array() && !item.is_object()) || is_file(item)) =>
            {
                for (i, item) in items.iter().enumerate() {
                    let what = format!("{} item {i}", property.what);
                    if let Some(part) = multipart_part(property.name, item, declared, &what)? {
                        parts.push(part);
                    }
                }
            }
            value => {
                if let Some(part) = multipart_part(property.name, value, declared, &property.what)?
                {
                    parts.push(part);
                }
            }
        }
    }
    Ok(parts)
}

/// The part for one value (`None` for `null`); `declared` is the property's `contentType`
/// from the encoding object, if any.
fn multipart_part(
    name: &str,
    value: &Value,
    declared: Option<&str>,
    what: &str,
) -> Result<Option<Part>, String> {
    let text = |bytes: Vec<u8>, content_type: Option<&str>| Part {
        name: name.to_owned(),
        filename: None,
        content_type: content_type.map(str::to_owned),
        bytes,
    };
    if value.is_null() {
        return Ok(None);
    }
    if let Some(declared) = declared
        && !is_file(value)
        && let Some(target) = concrete_types(declared).next()
    {
        let part_essence = essence(target);
        if is_json_media_type(target) {
            let json = serde_json::to_vec(value)
                .map_err(|e| format!("cannot encode {what} as JSON: {e}"))?;
            return Ok(Some(text(json, Some(target))));
        }
        if is_text(&part_essence) {
            return match value {
                Value::String(s) => Ok(Some(text(s.clone().into_bytes(), Some(target)))),
                Value::Bool(_) | Value::Number(_) => {
                    Ok(Some(text(value.to_string().into_bytes(), Some(target))))
                }
                other => Err(format!(
                    "{what} must be a string, number or boolean for a `{target}` part, not {}",
                    crate::json_kind(other)
                )),
            };
        }
        if let Value::String(s) = value {
            let bytes = decode_base64(s).map_err(|e| {
                format!("{what} must be base64 or a `data:` URI for a `{target}` part: {e}")
            })?;
            let file = File {
                bytes,
                filename: None,
                content_type: None,
            };
            return Ok(Some(file_part(name, file, Some(declared))));
        }
    }
    let file = match value {
        Value::Null => return Ok(None),
        Value::String(s) if is_data_uri(s) => data_uri(s, what)?,
        Value::String(s) => return Ok(Some(text(s.clone().into_bytes(), None))),
        Value::Bool(_) | Value::Number(_) => {
            return Ok(Some(text(value.to_string().into_bytes(), None)));
        }
        Value::Array(_) | Value::Object(_) => match file_object(value, what)? {
            Some(file) => file,
            None => {
                let json = serde_json::to_vec(value)
                    .map_err(|e| format!("cannot encode {what} as JSON: {e}"))?;
                return Ok(Some(text(json, Some("application/json"))));
            }
        },
    };
    Ok(Some(file_part(name, file, declared)))
}

/// The media types of a `contentType` list (`image/png, image/jpeg`) that have no wildcard.
fn concrete_types(declared: &str) -> impl Iterator<Item = &str> {
    declared
        .split(',')
        .map(str::trim)
        .filter(|t| !t.is_empty() && !t.contains('*'))
}

/// Whether the media type `media` is matched by the range `range` (`image/png`, `image/*`,
/// `*/*`).
fn media_matches(range: &str, media: &str) -> bool {
    let (range, media) = (essence(range), essence(media));
    range == "*/*"
        || range == media
        || range
            .strip_suffix("/*")
            .is_some_and(|kind| media.split('/').next() == Some(kind))
}

/// A file part: its own media type when `declared` (the encoding's `contentType`) allows it,
/// else the first declared type without a wildcard, else its own or
/// `application/octet-stream`.
fn file_part(name: &str, file: File, declared: Option<&str>) -> Part {
    let content_type = match declared {
        Some(declared)
            if !file.content_type.as_deref().is_some_and(|own| {
                declared
                    .split(',')
                    .any(|range| media_matches(range.trim(), own))
            }) =>
        {
            concrete_types(declared)
                .next()
                .map(str::to_owned)
                .or(file.content_type)
        }
        _ => file.content_type,
    }
    .unwrap_or_else(|| "application/octet-stream".to_owned());
    let filename = file
        .filename
        .unwrap_or_else(|| format!("file{}", extension(&content_type)));
    Part {
        name: name.to_owned(),
        filename: Some(filename),
        content_type: Some(content_type),
        bytes: file.bytes,
    }
}

/// Writes `parts` with a boundary from `boundary` that occurs in none of them; returns the
/// boundary and the body.
fn multipart(parts: &[Part], boundary: &dyn Fn(u32) -> String) -> (String, Vec<u8>) {
    let mut attempt = 0;
    let boundary = loop {
        let candidate = boundary(attempt);
        let delimiter = format!("--{candidate}");
        let clashes = parts.iter().any(|p| {
            p.bytes
                .windows(delimiter.len())
                .any(|w| w == delimiter.as_bytes())
        });
        if !clashes {
            break candidate;
        }
        attempt += 1;
    };
    let mut out = Vec::new();
    for part in parts {
        let mut head = format!(
            "--{boundary}\r\nContent-Disposition: form-data; name=\"{}\"",
            escape_disposition(&part.name)
        );
        if let Some(filename) = &part.filename {
            let _ = write!(head, "; filename=\"{}\"", escape_disposition(filename));
        }
        head.push_str("\r\n");
        if let Some(content_type) = &part.content_type {
            // Header values cannot hold line breaks.
            let content_type = content_type.replace(['\r', '\n'], " ");
            let _ = write!(head, "Content-Type: {content_type}\r\n");
        }
        head.push_str("\r\n");
        out.extend_from_slice(head.as_bytes());
        out.extend_from_slice(&part.bytes);
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
    (boundary, out)
}

/// Escapes a part name or filename for a quoted `Content-Disposition` parameter.
fn escape_disposition(text: &str) -> String {
    text.replace('"', "%22")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A boundary that is hard to guess and differs per request (the attempt number only makes a
/// retry differ).
fn random_boundary(attempt: u32) -> String {
    use std::hash::{BuildHasher, Hasher};
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let count = COUNTER.fetch_add(1, Ordering::Relaxed);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let mut halves = [0u64; 2];
    for (i, half) in halves.iter_mut().enumerate() {
        // Each `RandomState` is keyed randomly (per thread, then stepped on each use).
        let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
        hasher.write_u64(count);
        hasher.write_u128(nanos);
        hasher.write_u32(attempt);
        hasher.write_usize(i);
        *half = hasher.finish();
    }
    format!("mcpgen-{:016x}{:016x}", halves[0], halves[1])
}

/// A file extension (with the dot) for a media type, for default filenames.
fn extension(content_type: &str) -> &'static str {
    match essence(content_type).as_str() {
        "image/png" => ".png",
        "image/jpeg" => ".jpg",
        "image/gif" => ".gif",
        "image/webp" => ".webp",
        "image/svg+xml" => ".svg",
        "application/pdf" => ".pdf",
        "application/json" => ".json",
        "application/zip" => ".zip",
        "text/plain" => ".txt",
        "text/csv" => ".csv",
        "text/html" => ".html",
        "audio/mpeg" => ".mp3",
        "audio/wav" | "audio/x-wav" => ".wav",
        "video/mp4" => ".mp4",
        _ => ".bin",
    }
}

// ---------------------------------------------------------------------------------------------
// Files: data: URIs, file objects and base64.

/// Whether a value is given as a file (a `data:` URI or a file object).
fn is_file(value: &Value) -> bool {
    match value {
        Value::String(s) => is_data_uri(s),
        Value::Object(map) => is_file_object(map),
        _ => false,
    }
}

/// Whether `map` is a file object: a string `data` and no keys but `data`, `filename`,
/// `content_type`.
fn is_file_object(map: &Map<String, Value>) -> bool {
    map.get("data").is_some_and(Value::is_string)
        && map
            .keys()
            .all(|k| matches!(k.as_str(), "data" | "filename" | "content_type"))
}

/// The file a file object describes: `Ok(None)` if `value` is not a file object.
fn file_object(value: &Value, what: &str) -> Result<Option<File>, String> {
    let Value::Object(map) = value else {
        return Ok(None);
    };
    if !is_file_object(map) {
        return Ok(None);
    }
    let text = |key: &str| -> Result<Option<String>, String> {
        match map.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(other) => Err(format!(
                "{what}: `{key}` of a file must be a string, not {}",
                crate::json_kind(other)
            )),
        }
    };
    let filename = text("filename")?;
    let content_type = text("content_type")?;
    let data = text("data")?.unwrap_or_default();
    let mut file = if is_data_uri(&data) {
        data_uri(&data, &format!("{what} (`data`)"))?
    } else {
        File {
            bytes: decode_base64(&data)
                .map_err(|e| format!("{what}: `data` of a file is not valid base64: {e}"))?,
            filename: None,
            content_type: None,
        }
    };
    if filename.is_some() {
        file.filename = filename;
    }
    if content_type.is_some() {
        file.content_type = content_type;
    }
    Ok(Some(file))
}

/// Whether a string is meant as a `data:` URI: it starts with `data:` and has no whitespace
/// before its first comma (so text such as "data: see below" stays text).
fn is_data_uri(text: &str) -> bool {
    let Some(prefix) = text.get(..5) else {
        return false;
    };
    if !prefix.eq_ignore_ascii_case("data:") {
        return false;
    }
    let head = text[5..].split(',').next().unwrap_or_default();
    !head.chars().any(char::is_whitespace)
}

/// Decodes a `data:` URI (RFC 2397): `data:[<media type>][;name=<file name>][;base64],<data>`.
fn data_uri(text: &str, what: &str) -> Result<File, String> {
    let malformed = |why: &str| {
        format!(
            "{what} is not a valid `data:` URI ({why}); expected `data:<media type>;base64,<data>`"
        )
    };
    let rest = &text[5..];
    let Some((head, payload)) = rest.split_once(',') else {
        return Err(malformed("it has no `,` before the data"));
    };
    let mut params: Vec<&str> = head.split(';').collect();
    let base64 = params
        .last()
        .is_some_and(|p| p.trim().eq_ignore_ascii_case("base64"));
    if base64 {
        params.pop();
    }
    let mut filename = None;
    let mut kept = Vec::new();
    for (i, param) in params.iter().enumerate() {
        if i > 0
            && let Some((key, value)) = param.split_once('=')
            && matches!(
                key.trim().to_ascii_lowercase().as_str(),
                "name" | "filename"
            )
        {
            let value = percent_encoding::percent_decode_str(value.trim())
                .decode_utf8_lossy()
                .into_owned();
            filename = Some(value);
            continue;
        }
        kept.push(*param);
    }
    let mut media_type = kept.join(";");
    if media_type.is_empty() {
        media_type = "text/plain;charset=US-ASCII".to_owned();
    } else if media_type.starts_with(';') {
        media_type.insert_str(0, "text/plain");
    }
    if !essence(&media_type).contains('/') {
        return Err(malformed(&format!("`{media_type}` is not a media type")));
    }
    let bytes = if base64 {
        decode_base64(payload)
            .map_err(|e| malformed(&format!("its base64 data is invalid: {e}")))?
    } else {
        percent_encoding::percent_decode_str(payload).collect()
    };
    Ok(File {
        bytes,
        filename,
        content_type: Some(media_type),
    })
}

/// Decodes base64 in the standard or URL-safe alphabet, padded or not, ignoring whitespace.
fn decode_base64(text: &str) -> Result<Vec<u8>, String> {
    let compact: String = text.chars().filter(|c| !c.is_ascii_whitespace()).collect();
    let config =
        GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent);
    let alphabet = if compact.contains(['-', '_']) {
        &alphabet::URL_SAFE
    } else {
        &alphabet::STANDARD
    };
    GeneralPurpose::new(alphabet, config)
        .decode(compact.as_bytes())
        .map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn whole(value: &Value) -> Shape<'_> {
        Shape::Whole("body", value)
    }

    fn fixed(attempt: u32) -> String {
        format!("B{attempt}")
    }

    #[test]
    fn multipart_bytes_are_exact() {
        let value = json!({
            "files[]": [
                "data:text/plain;name=a.txt;base64,aGk=",
                {"data": "AAE=", "filename": "b\"\r\n.bin", "content_type": "application/x-thing"},
            ],
            "title": "Hello",
            "n": 3,
            "meta": {"k": [1]},
            "skip": null,
        });
        let body = encode("multipart/form-data", &[], &whole(&value), &fixed).unwrap();
        assert_eq!(body.content_type, "multipart/form-data; boundary=B0");
        let expected: &[u8] = b"--B0\r\n\
Content-Disposition: form-data; name=\"files[]\"; filename=\"a.txt\"\r\n\
Content-Type: text/plain\r\n\r\nhi\r\n\
--B0\r\n\
Content-Disposition: form-data; name=\"files[]\"; filename=\"b%22%0D%0A.bin\"\r\n\
Content-Type: application/x-thing\r\n\r\n\x00\x01\r\n\
--B0\r\n\
Content-Disposition: form-data; name=\"title\"\r\n\r\nHello\r\n\
--B0\r\n\
Content-Disposition: form-data; name=\"n\"\r\n\r\n3\r\n\
--B0\r\n\
Content-Disposition: form-data; name=\"meta\"\r\n\
Content-Type: application/json\r\n\r\n{\"k\":[1]}\r\n\
--B0--\r\n";
        assert_eq!(
            String::from_utf8_lossy(&body.bytes),
            String::from_utf8_lossy(expected)
        );
        assert_eq!(body.bytes, expected);
    }

    #[test]
    fn multipart_boundary_never_occurs_in_content() {
        let value = json!({"a": "x--B0y"});
        let body = encode("multipart/form-data", &[], &whole(&value), &fixed).unwrap();
        assert_eq!(body.content_type, "multipart/form-data; boundary=B1");
    }

    #[test]
    fn random_boundaries_differ() {
        assert_ne!(random_boundary(0), random_boundary(0));
    }

    #[test]
    fn data_uris() {
        let file = data_uri("data:,a%20b", "x").unwrap();
        assert_eq!(file.bytes, b"a b");
        assert_eq!(
            file.content_type.as_deref(),
            Some("text/plain;charset=US-ASCII")
        );
        let file = data_uri("data:image/png;base64,iVBO", "x").unwrap();
        assert_eq!(file.bytes, [0x89, 0x50, 0x4e]);
        assert_eq!(file.content_type.as_deref(), Some("image/png"));
        assert!(data_uri("data:image/png;base64", "x").is_err());
        assert!(data_uri("data:nonsense;base64,AA==", "x").is_err());
        assert!(!is_data_uri("data: see below, please"));
        assert!(is_data_uri("DATA:image/png;base64,AA=="));
    }

    #[test]
    fn base64_alphabets_and_padding() {
        assert_eq!(decode_base64("+/8=").unwrap(), [0xfb, 0xff]);
        assert_eq!(decode_base64("-_8").unwrap(), [0xfb, 0xff]);
        assert_eq!(decode_base64("aG\nk=").unwrap(), b"hi");
        assert!(decode_base64("a*b").is_err());
    }
}
