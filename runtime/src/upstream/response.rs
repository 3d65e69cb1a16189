//! Reading the upstream's response under a size cap and mapping it to a tool result.

use std::time::Duration;

use reqwest::StatusCode;
use serde_json::Value;

use super::is_json_media_type;
use crate::ToolResult;

/// How much of an error response's body goes into the error result.
const ERROR_BODY_LIMIT: usize = 4 * 1024;

/// What was called, for messages: method and rendered path (never the query, which may hold a
/// credential).
pub(super) struct Call {
    /// HTTP method.
    pub method: String,
    /// Rendered path.
    pub path: String,
}

impl std::fmt::Display for Call {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.method, self.path)
    }
}

/// A response body read up to the cap.
pub(super) struct CappedBody {
    /// The bytes read, at most the cap.
    pub bytes: Vec<u8>,
    /// Whether the body went on past the cap.
    pub truncated: bool,
}

/// Reads at most `cap` bytes of the body; the rest is not read (the connection is dropped).
pub(super) async fn read_capped(
    resp: &mut reqwest::Response,
    cap: usize,
) -> Result<CappedBody, reqwest::Error> {
    let mut bytes = Vec::new();
    while let Some(chunk) = resp.chunk().await? {
        let room = cap - bytes.len();
        if chunk.len() > room {
            bytes.extend_from_slice(&chunk[..room]);
            return Ok(CappedBody {
                bytes,
                truncated: true,
            });
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok(CappedBody {
        bytes,
        truncated: false,
    })
}

/// Maps a response to a tool result.
pub(super) fn map(
    call: &Call,
    status: StatusCode,
    content_type: Option<&str>,
    body: CappedBody,
    cap: usize,
    wrap_output: bool,
) -> ToolResult {
    if !status.is_success() {
        let text = String::from_utf8_lossy(&body.bytes);
        let shown = truncate(&text, ERROR_BODY_LIMIT, body.truncated);
        return ToolResult::error(if shown.is_empty() {
            format!(
                "{call} failed with status {} (empty body)",
                status_text(status)
            )
        } else {
            format!("{call} failed with status {}: {shown}", status_text(status))
        });
    }
    if body.bytes.is_empty() {
        let note = if status == StatusCode::NO_CONTENT {
            "no content"
        } else {
            "empty body"
        };
        return ToolResult::text(format!(
            "{call} succeeded with status {} ({note})",
            status.as_u16()
        ));
    }
    let content_type = content_type.unwrap_or_default();
    let declared_json = is_json_media_type(content_type);
    if body.truncated && (declared_json || content_type.trim().is_empty()) {
        let text = String::from_utf8_lossy(&body.bytes);
        return ToolResult::error(format!(
            "{call} returned status {} with a body over the {cap}-byte response limit; it was cut \
             at the limit and cannot be parsed as JSON. Raise `max_response_bytes` or ask for \
             less. The start of the body: {}",
            status.as_u16(),
            truncate(&text, ERROR_BODY_LIMIT, true)
        ));
    }
    if declared_json || content_type.trim().is_empty() {
        match serde_json::from_slice::<Value>(&body.bytes) {
            Ok(value) => {
                // structuredContent must be an object: wrap anything else.
                let wrap = wrap_output || !value.is_object();
                return ToolResult::json(value, wrap);
            }
            Err(e) if declared_json => {
                let text = String::from_utf8_lossy(&body.bytes);
                return ToolResult::error(format!(
                    "{call} returned status {} with content type `{content_type}`, but the body \
                     is not valid JSON ({e}): {}",
                    status.as_u16(),
                    truncate(&text, ERROR_BODY_LIMIT, false)
                ));
            }
            Err(_) => {}
        }
    }
    let Some(mut text) = utf8_text(&body.bytes, body.truncated) else {
        let shown_type = if content_type.is_empty() {
            "an unlabelled type"
        } else {
            content_type
        };
        return ToolResult::text(format!(
            "{call} succeeded with status {}, returning {}{} bytes of {shown_type} (binary \
             content is not supported yet)",
            status.as_u16(),
            if body.truncated { "more than " } else { "" },
            body.bytes.len()
        ));
    };
    if body.truncated {
        text.push_str(&format!(
            "\n…[truncated: the response exceeded the {cap}-byte limit]"
        ));
    }
    ToolResult::text(text)
}

/// Maps a failed exchange (no response, or the body could not be read) to an error result.
pub(super) fn map_error(
    call: &Call,
    err: &reqwest::Error,
    timeout: Duration,
    display_base: &str,
) -> ToolResult {
    if err.is_timeout() {
        return ToolResult::error(format!(
            "{call} timed out after {} s",
            timeout.as_secs_f64()
        ));
    }
    if err.is_connect() {
        return ToolResult::error(format!(
            "{call}: the upstream could not be reached at {display_base}: {}",
            describe(err)
        ));
    }
    ToolResult::error(format!("{call} failed: {}", describe(err)))
}

/// An error's message and root cause, without the URL (which may hold a query credential).
fn describe(err: &reqwest::Error) -> String {
    // The top-level message is written by hand, since `Display` of `reqwest::Error` includes
    // the URL; the root cause (an I/O or protocol error) does not.
    let kind = if err.is_connect() {
        "connection failed"
    } else if err.is_body() || err.is_decode() {
        "reading the response failed"
    } else if err.is_redirect() {
        "following a redirect failed"
    } else {
        "the request failed"
    };
    let mut root = std::error::Error::source(err);
    while let Some(next) = root.and_then(std::error::Error::source) {
        root = Some(next);
    }
    match root {
        Some(root) => format!("{kind}: {root}"),
        None => kind.to_owned(),
    }
}

/// `404 Not Found`, or just the code when it has no standard reason.
fn status_text(status: StatusCode) -> String {
    match status.canonical_reason() {
        Some(reason) => format!("{} {reason}", status.as_u16()),
        None => status.as_u16().to_string(),
    }
}

/// The body as text if it is UTF-8 (a character cut at the end by the cap is dropped).
fn utf8_text(bytes: &[u8], truncated: bool) -> Option<String> {
    match std::str::from_utf8(bytes) {
        Ok(text) => Some(text.to_owned()),
        Err(e) if truncated && e.error_len().is_none() => {
            String::from_utf8(bytes[..e.valid_up_to()].to_vec()).ok()
        }
        Err(_) => None,
    }
}

/// `text` cut to at most `limit` bytes on a character boundary, with an explicit marker
/// saying how much was cut (`more than` when the body had already been cut at the read cap).
fn truncate(text: &str, limit: usize, already_cut: bool) -> String {
    if text.len() <= limit {
        return if already_cut {
            format!("{text}…[truncated: the response was longer]")
        } else {
            text.to_owned()
        };
    }
    let mut cut = limit;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    let dropped = text.len() - cut;
    let more = if already_cut { "more than " } else { "" };
    format!("{}…[truncated {more}{dropped} bytes]", &text[..cut])
}
