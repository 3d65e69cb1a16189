//! The request body: which arguments make it up and how it is encoded for its content type.
//!
//! JSON bodies (`application/json`, `*/*+json`) are supported in full; for any other content
//! type, a body given as a string is sent as-is.

use serde_json::{Map, Value};

use super::is_json_media_type;
use super::request::{Problems, provided};
use crate::{HttpBinding, Location};

/// An encoded request body.
pub(super) struct RequestBody {
    /// The `Content-Type` to send.
    pub content_type: String,
    /// The encoded bytes.
    pub bytes: Vec<u8>,
}

/// The body to send, in the shape the arguments give it before encoding.
enum Shape<'a> {
    /// The whole body from one `Body` argument.
    Whole(&'a Value),
    /// An object made of the given `BodyField` arguments (wire name → value).
    Fields(Map<String, Value>),
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

    let shape = if let Some(value) = whole.and_then(|arg| provided(args, arg)) {
        Shape::Whole(value)
    } else {
        // A field given as `null` is sent as `null` (e.g. to clear it in a merge patch).
        let given: Map<String, Value> = fields
            .filter_map(|arg| args.get(arg.arg).map(|v| (arg.wire.to_owned(), v.clone())))
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

    let content_type = spec.content_type;
    if is_json_media_type(content_type) {
        let encoded = match &shape {
            Shape::Whole(value) => serde_json::to_vec(value),
            Shape::Fields(map) => serde_json::to_vec(map),
        };
        return match encoded {
            Ok(bytes) => Some(RequestBody {
                content_type: content_type.to_owned(),
                bytes,
            }),
            Err(e) => {
                problems.push(format!("cannot encode the request body as JSON: {e}"));
                None
            }
        };
    }
    match shape {
        Shape::Whole(Value::String(text)) => Some(RequestBody {
            content_type: content_type.to_owned(),
            bytes: text.clone().into_bytes(),
        }),
        _ => {
            problems.push(format!(
                "content type `{content_type}` is not supported yet (only JSON bodies, and \
                 bodies of other types given as a string, are)"
            ));
            None
        }
    }
}
