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
//! The OpenAPI `encoding` object ([`BodyBinding::encoding`](mcpgen_core::BodyBinding)) changes
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

mod encoding;
mod files;
mod form;
mod multipart;
mod shape;

use serde_json::{Map, Value};

use files::{File, data_uri, decode_base64, file_object, is_data_uri};
use multipart::{multipart, multipart_parts, random_boundary};
use shape::{Shape, flattened_body};

use mcpgen_core::tool::{HttpBinding, PropertyEncoding};

use crate::args::Problems;
use crate::media::{essence, is_json_media_type, is_text};

/// An encoded request body.
pub(super) struct RequestBody {
    /// The `Content-Type` to send.
    pub content_type: String,
    /// The encoded bytes.
    pub bytes: Vec<u8>,
}

/// Builds the body for `binding` from `args`, or `None` when no body is sent. Missing required
/// arguments were reported by the caller; problems with the body are added to `problems`.
pub(super) fn build(
    binding: &HttpBinding,
    args: &Map<String, Value>,
    problems: &mut Problems,
) -> Option<RequestBody> {
    let spec = binding.body?;
    let shape = shape::choose(binding, spec.required, args, problems)?;
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
            Ok(body(form::form(&properties, encoding)?.into_bytes()))
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
                mcpgen_core::json_kind(other)
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
                            mcpgen_core::json_kind(other)
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
}
