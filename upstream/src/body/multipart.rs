//! `multipart/form-data` bodies: one part per property (or per item of an array of files or
//! scalars), written with a boundary that occurs in none of them.

use std::fmt::Write as _;

use mcpgen_core::tool::PropertyEncoding;
use serde_json::Value;

use super::encoding::{body_style, encoding_of, styled};
use super::files::{File, data_uri, decode_base64, file_object, is_data_uri, is_file};
use super::shape::Property;
use crate::media::{essence, is_json_media_type, is_text};
use crate::style::{self, Escape, Target};

/// One part of a multipart body.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Part {
    name: String,
    /// `Some` for a file part.
    filename: Option<String>,
    content_type: Option<String>,
    bytes: Vec<u8>,
}

/// The parts for an object body, or a message naming the argument that cannot be encoded.
pub(super) fn multipart_parts(
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
                    mcpgen_core::json_kind(other)
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
pub(super) fn multipart(parts: &[Part], boundary: &dyn Fn(u32) -> String) -> (String, Vec<u8>) {
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
pub(super) fn random_boundary(attempt: u32) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_boundaries_differ() {
        assert_ne!(random_boundary(0), random_boundary(0));
    }
}
