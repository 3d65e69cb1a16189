//! File and binary arguments: `data:` URIs, file objects and base64, decoded to bytes with
//! an optional filename and media type.

use base64::Engine as _;
use base64::alphabet;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use serde_json::{Map, Value};

use crate::media::essence;

/// File contents from a `data:` URI or a file object.
pub(super) struct File {
    pub(super) bytes: Vec<u8>,
    pub(super) filename: Option<String>,
    pub(super) content_type: Option<String>,
}

/// Whether a value is given as a file (a `data:` URI or a file object).
pub(super) fn is_file(value: &Value) -> bool {
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
pub(super) fn file_object(value: &Value, what: &str) -> Result<Option<File>, String> {
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
                mcpgen_core::json_kind(other)
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
pub(super) fn is_data_uri(text: &str) -> bool {
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
pub(super) fn data_uri(text: &str, what: &str) -> Result<File, String> {
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
pub(super) fn decode_base64(text: &str) -> Result<Vec<u8>, String> {
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
    use super::*;

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
