//! Media types: the essence of a `Content-Type` value, whether it is JSON, and whether a body
//! of it is text sent as-is. Used by both the request body and the response mapping.

/// A media type's essence: lowercase, without parameters.
pub(super) fn essence(content_type: &str) -> String {
    content_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase()
}

/// Whether a media type (a `Content-Type` value, parameters allowed) is JSON:
/// `application/json` or any `+json` type.
pub(super) fn is_json_media_type(content_type: &str) -> bool {
    let essence = essence(content_type);
    essence == "application/json" || essence.ends_with("+json")
}

/// Whether a media type essence is text sent as-is.
pub(super) fn is_text(essence: &str) -> bool {
    essence.starts_with("text/")
        || matches!(
            essence,
            "application/xml" | "application/yaml" | "application/x-yaml"
        )
        || essence.ends_with("+xml")
        || essence.ends_with("+yaml")
}
