//! The shape of a request body before encoding: one `Body` argument (the whole body) or an
//! object of the `BodyField` arguments given, chosen from a call's arguments.

use mcpgen_core::tool::{HttpBinding, Location};
use serde_json::{Map, Value};

use crate::args::{Problems, provided};

/// The body to send, in the shape the arguments give it before encoding.
pub(super) enum Shape<'a> {
    /// The whole body from one `Body` argument (argument name, value).
    Whole(&'static str, &'a Value),
    /// An object made of the given `BodyField` arguments.
    Fields(Vec<Field<'a>>),
}

/// One `BodyField` argument that was given.
pub(super) struct Field<'a> {
    /// The argument name, for messages.
    pub(super) arg: &'static str,
    /// The property name on the wire.
    pub(super) wire: &'a str,
    pub(super) value: &'a Value,
}

/// A top-level property of an object body, with how to name it in messages.
pub(super) struct Property<'a> {
    /// How to refer to it in a message, e.g. "argument `file`".
    pub(super) what: String,
    pub(super) name: &'a str,
    pub(super) value: &'a Value,
}

impl<'a> Shape<'a> {
    /// The top-level properties of an object body, or a message saying the body is not an
    /// object.
    pub(super) fn properties(&self, kind: &str) -> Result<Vec<Property<'a>>, String> {
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
                mcpgen_core::json_kind(other)
            )),
        }
    }

    /// The shape as one JSON value.
    pub(super) fn to_value(&self) -> Value {
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

/// Chooses the shape of the body of `binding` from `args`: the `Body` argument when given,
/// else the `BodyField` arguments given (an empty object when the body is `required` and
/// has fields). `None` when no body is sent; a body that is required but has no argument is
/// added to `problems`.
pub(super) fn choose<'a>(
    binding: &HttpBinding,
    required: bool,
    args: &'a Map<String, Value>,
    problems: &mut Problems,
) -> Option<Shape<'a>> {
    let whole = binding.args.iter().find(|a| a.location == Location::Body);
    let mut fields = binding
        .args
        .iter()
        .filter(|a| a.location == Location::BodyField)
        .peekable();
    let has_fields = fields.peek().is_some();

    if let Some((arg, value)) =
        whole.and_then(|arg| provided(args, arg).map(|value| (arg.arg, value)))
    {
        Some(Shape::Whole(arg, value))
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
        if !given.is_empty() || (has_fields && required) {
            Some(Shape::Fields(given))
        } else {
            if required && whole.is_none() {
                problems.push(
                    "the operation requires a request body, but no argument is bound to it \
                     (the tool table is broken)"
                        .to_owned(),
                );
            }
            None
        }
    }
}

/// The message for a flattened (object) body of a content type that takes a single value.
pub(super) fn flattened_body(content_type: &str, fields: &[Field<'_>]) -> String {
    let args: Vec<String> = fields.iter().map(|f| format!("`{}`", f.arg)).collect();
    format!(
        "a `{content_type}` body cannot be made of separate properties (argument {}); the \
         tool table is broken",
        args.join(", ")
    )
}
