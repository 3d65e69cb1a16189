//! The request body: which media type is sent, and its per-property encodings.

use indexmap::IndexMap;
use mcpgen_core::json_pointer;
use serde_json::Value;

use crate::allowlist::Entry;
use crate::error::Warning;
use crate::ir;
use crate::spec::{Operation, Spec};

/// The request body media type to send: the entry's `content_type` if it names one the
/// operation offers (compared case-insensitively), else the preferred one (see
/// [`pick_media_type`]); `None` without a request body. An error is (location, message).
pub(super) fn chosen_media_type<'o>(
    op: &'o Operation,
    entry: &Entry,
) -> Result<Option<&'o str>, (String, String)> {
    let content = op.request_body.as_ref().map(|b| &b.content);
    let Some(wanted) = &entry.content_type else {
        return Ok(content
            .and_then(pick_media_type)
            .map(|(media_type, _)| media_type.as_str()));
    };
    let location = entry.location_of("content_type", wanted);
    let method = op.method.to_ascii_uppercase();
    let Some(content) = content.filter(|c| !c.is_empty()) else {
        return Err((
            location,
            format!(
                "content_type `{}` is set, but {method} {} has no request body media types; \
                 remove `content_type:`",
                wanted.value, op.path
            ),
        ));
    };
    let offered = || {
        content
            .keys()
            .map(|k| format!("`{k}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    content
        .keys()
        .find(|k| k.trim().eq_ignore_ascii_case(wanted.value.trim()))
        .map(|k| Some(k.as_str()))
        .ok_or_else(|| {
            (
                location,
                format!(
                    "content_type `{}` is not offered by {method} {}; it offers {}",
                    wanted.value,
                    op.path,
                    offered()
                ),
            )
        })
}

/// Prefers JSON, then form, multipart, text, binary, then whatever comes first.
pub(super) fn pick_media_type(
    content: &IndexMap<String, crate::spec::MediaType>,
) -> Option<(&String, &crate::spec::MediaType)> {
    let rank = |mt: &str| {
        let mt = mt.to_ascii_lowercase();
        if mt == "application/json" {
            0
        } else if mt.ends_with("+json") || mt.contains("json") {
            1
        } else if mt == "application/x-www-form-urlencoded" {
            2
        } else if mt == "multipart/form-data" {
            3
        } else if mt.starts_with("text/") {
            4
        } else {
            5
        }
    };
    content.iter().min_by_key(|(mt, _)| rank(mt))
}

/// The styles OpenAPI defines for form and multipart body properties.
pub(super) const BODY_STYLES: [&str; 4] = ["form", "spaceDelimited", "pipeDelimited", "deepObject"];

/// The media type's `encoding` object as per-property encodings, sorted by property name.
/// Only form and multipart bodies use it; entries that cannot be used are left out, and parts
/// of an entry that cannot be used (`headers`, a style bodies do not have) are dropped, each
/// with a warning naming its JSON pointer.
pub(super) fn body_encoding(
    spec: &Spec,
    media_type: &str,
    media: &crate::spec::MediaType,
    warnings: &mut Vec<Warning>,
) -> Vec<ir::PropertyEncoding> {
    let Some(encoding) = &media.encoding else {
        return Vec::new();
    };
    let media_pointer = media
        .schema_pointer
        .strip_suffix("/schema")
        .unwrap_or(&media.schema_pointer);
    let mut warn = |pointer: String, message: String| {
        warnings.push(Warning {
            location: format!("{}: {pointer}", spec.path.display()),
            message,
        });
    };
    let essence = media_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase();
    if !matches!(
        essence.as_str(),
        "application/x-www-form-urlencoded" | "multipart/form-data"
    ) {
        warn(
            format!("{media_pointer}/encoding"),
            format!(
                "`encoding` applies only to form and multipart bodies; ignored for `{media_type}`"
            ),
        );
        return Vec::new();
    }
    let Value::Object(entries) = encoding else {
        warn(
            format!("{media_pointer}/encoding"),
            "`encoding` is not an object; ignored".to_owned(),
        );
        return Vec::new();
    };
    let mut out = Vec::new();
    for (property, entry) in entries {
        let at = format!(
            "{media_pointer}/encoding/{}",
            json_pointer::escape(property)
        );
        let Value::Object(entry) = entry else {
            warn(
                at,
                format!("the encoding of `{property}` is not an object; ignored"),
            );
            continue;
        };
        let mut encoding = ir::PropertyEncoding {
            property: property.clone(),
            content_type: None,
            style: None,
            explode: None,
            allow_reserved: false,
        };
        for (key, value) in entry {
            let at = json_pointer::child(&at, key);
            match (key.as_str(), value) {
                ("contentType", Value::String(t)) => encoding.content_type = Some(t.clone()),
                ("style", Value::String(s)) if BODY_STYLES.contains(&s.as_str()) => {
                    encoding.style = Some(s.clone());
                }
                ("style", Value::String(s)) => warn(
                    at,
                    format!(
                        "style `{s}` is not defined for body properties (use one of {}); \
                         ignored",
                        BODY_STYLES.join(", ")
                    ),
                ),
                ("explode", Value::Bool(b)) => encoding.explode = Some(*b),
                ("allowReserved", Value::Bool(b)) => encoding.allow_reserved = *b,
                ("headers", _) => warn(
                    at,
                    format!("per-part headers of `{property}` are not sent; ignored"),
                ),
                ("contentType" | "style" | "explode" | "allowReserved", other) => {
                    warn(at, format!("`{key}` has the wrong type ({other}); ignored"))
                }
                _ => {}
            }
        }
        let sets_something = encoding.content_type.is_some()
            || encoding.style.is_some()
            || encoding.explode.is_some()
            || encoding.allow_reserved;
        if sets_something {
            out.push(encoding);
        }
    }
    out.sort_by(|a, b| a.property.cmp(&b.property));
    out
}
