//! Reading the upstream's response under a size cap and mapping it to a tool result.

use std::time::Duration;

use reqwest::StatusCode;
use serde_json::Value;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use mcpgen_core::result::{Content, ToolResult};

use crate::base_url::redact_url_text;
use crate::invoked::Invoked;
use crate::media::{essence, is_json_media_type};

/// How much of an error response's body goes into the error result.
const ERROR_BODY_LIMIT: usize = 4 * 1024;

/// How much of a body that should have been JSON goes into the error result.
const NOT_JSON_SHOWN: usize = 512;

/// What was called, for messages: method and rendered path (never the query, which may hold a
/// credential), and the operation (for naming returned resources).
pub(super) struct Call {
    /// HTTP method.
    pub method: String,
    /// Rendered path.
    pub path: String,
    /// The operation's `operationId`.
    pub operation_id: String,
}

impl std::fmt::Display for Call {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.method, self.path)
    }
}

/// The parts of a response's head that the result mapping looks at.
#[derive(Default)]
pub(super) struct Head {
    /// `Content-Type`.
    pub content_type: Option<String>,
    /// `Retry-After` (seconds or an HTTP date), passed on in error results.
    pub retry_after: Option<String>,
    /// `Location`, named when a redirect was not followed.
    pub location: Option<String>,
    /// Why a redirect was not followed, when the response is a 3xx with a `Location`.
    pub redirect_stopped: Option<&'static str>,
}

/// What a tool's output schema asks of a successful response body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Expected {
    /// The tool has an output schema: the body must be JSON, and with an object schema (not
    /// `wrap`) a body of another JSON type is left unwrapped, for the output check to refuse.
    pub schema: bool,
    /// The tool's structured content is `{"result": …}`.
    pub wrap: bool,
}

impl Expected {
    /// What `tool` asks of its body.
    pub(super) fn of(tool: &mcpgen_core::tool::ToolDef) -> Self {
        Self {
            schema: tool.output_schema.is_some(),
            wrap: tool.wrap_output,
        }
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
    // Sized once from the declared length (at most the cap), so that a large answer is not
    // copied from buffer to buffer as it grows, and holds no more than it needs.
    let declared = resp
        .content_length()
        .map_or(0, |len| usize::try_from(len).unwrap_or(cap).min(cap));
    let mut bytes = Vec::with_capacity(declared);
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
///
/// - not 2xx: an error with method, path, status and the (truncated) body, a
///   `application/problem+json` body rendered by its title and detail, `Retry-After` passed on,
///   and for a redirect that was not followed, its `Location`;
/// - 2xx with no body: a short success text;
/// - JSON (declared, or an unlabelled body that parses): structured content plus the JSON as text;
/// - `text/*` and other textual types (XML, YAML, ...), or an unlabelled UTF-8 body: text;
/// - `image/*`: image content;
/// - anything else: an embedded resource with the MIME type and the bytes in base64.
///
/// A binary body cut at the cap is an error (the bytes would be silently corrupt), and so is
/// a body that is not JSON for a tool with an output schema (`expected`), naming its content
/// type.
pub(super) fn map(
    call: &Call,
    status: StatusCode,
    head: &Head,
    body: CappedBody,
    cap: usize,
    expected: Expected,
) -> ToolResult {
    if !status.is_success() {
        return failure(call, status, head, &body);
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
    let content_type = head.content_type.as_deref().unwrap_or_default();
    let essence = essence(content_type);
    let declared_json = is_json_media_type(content_type);
    let unlabelled = essence.is_empty();
    if body.truncated && (declared_json || unlabelled) {
        let text = String::from_utf8_lossy(&body.bytes);
        return ToolResult::error(format!(
            "{call} returned status {} with a body over the {cap}-byte response limit; it was cut \
             at the limit and cannot be parsed as JSON. Raise `max_response_bytes` or ask for \
             less. The start of the body: {}",
            status.as_u16(),
            truncate(&text, ERROR_BODY_LIMIT, true)
        ));
    }
    if declared_json || unlabelled {
        match serde_json::from_slice::<Value>(&body.bytes) {
            Ok(value) => {
                // structuredContent must be an object: wrap anything else, unless the schema
                // is an object (the output check then refuses the body's other type).
                let wrap = expected.wrap || (!expected.schema && !value.is_object());
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
    if expected.schema {
        return not_json(call, status, content_type, &body);
    }
    let text = if is_textual(&essence) {
        // A declared text type is text even in another encoding: decode what can be decoded.
        Some(
            utf8_text(&body.bytes, body.truncated)
                .unwrap_or_else(|| String::from_utf8_lossy(&body.bytes).into_owned()),
        )
    } else if unlabelled {
        utf8_text(&body.bytes, body.truncated)
    } else {
        None
    };
    if let Some(mut text) = text {
        if body.truncated {
            text.push_str(&format!(
                "\n…[truncated: the response exceeded the {cap}-byte limit]"
            ));
        }
        return ToolResult::text(text);
    }
    let mime_type = if unlabelled {
        "application/octet-stream".to_owned()
    } else {
        essence
    };
    if body.truncated {
        return ToolResult::error(format!(
            "{call} returned status {} with a {mime_type} body over the {cap}-byte response \
             limit; binary content cut at the limit would be corrupt, so none is returned. Raise \
             `max_response_bytes` or ask for less.",
            status.as_u16()
        ));
    }
    let data = BASE64.encode(&body.bytes);
    if mime_type.starts_with("image/") {
        return ToolResult {
            content: vec![Content::Image { data, mime_type }],
            structured_content: None,
            is_error: false,
        };
    }
    let uri = resource_uri(&call.operation_id);
    let note = format!(
        "{call} succeeded with status {}, returning {} bytes of {mime_type}, embedded as resource \
         {uri}",
        status.as_u16(),
        body.bytes.len()
    );
    ToolResult {
        content: vec![
            Content::Text(note),
            Content::Resource {
                uri,
                mime_type,
                blob: data,
            },
        ],
        structured_content: None,
        is_error: false,
    }
}

/// The error result for a successful response that is not JSON, of a tool whose output schema
/// asks for JSON: its content type named, and the start of a text body.
fn not_json(call: &Call, status: StatusCode, content_type: &str, body: &CappedBody) -> ToolResult {
    let what = match content_type.trim() {
        "" => "no content type, and a body that is not JSON".to_owned(),
        declared => format!(
            "content type `{}`",
            truncate(&declared.replace(char::is_control, " "), 200, false)
        ),
    };
    let mut message = format!(
        "{call} returned status {} with {what}, but the tool's output schema asks for JSON; \
         the body ({} bytes{}) is not returned as the tool's result",
        status.as_u16(),
        body.bytes.len(),
        if body.truncated { " or more" } else { "" }
    );
    if let Some(text) = utf8_text(&body.bytes, body.truncated) {
        message.push_str(". It starts: ");
        message.push_str(&truncate(&text, NOT_JSON_SHOWN, false));
    }
    ToolResult::error(message)
}

/// The error result for a response that is not 2xx.
fn failure(call: &Call, status: StatusCode, head: &Head, body: &CappedBody) -> ToolResult {
    let content_type = head.content_type.as_deref().unwrap_or_default();
    let shown = if essence(content_type) == "application/problem+json" && !body.truncated {
        problem_text(&body.bytes)
    } else {
        None
    };
    let shown = shown.unwrap_or_else(|| {
        let text = String::from_utf8_lossy(&body.bytes);
        truncate(&text, ERROR_BODY_LIMIT, body.truncated)
    });
    let mut message = match (&head.location, head.redirect_stopped) {
        (Some(location), Some(why)) if status.is_redirection() => format!(
            "{call} was redirected with status {} to {}, which was not followed: {why}",
            status_text(status),
            shown_location(location)
        ),
        _ => format!("{call} failed with status {}", status_text(status)),
    };
    if shown.is_empty() {
        message.push_str(" (empty body)");
    } else {
        message.push_str(": ");
        message.push_str(&shown);
    }
    if let Some(retry) = head.retry_after.as_deref().and_then(retry_after_text) {
        message.push_str("\nThe upstream asks to ");
        message.push_str(&retry);
        message.push('.');
    }
    ToolResult::error(message)
}

/// An RFC 9457 problem document as `title: detail (status …, type …, instance …)`, with any
/// other members appended as JSON; `None` when the body is not such a document.
fn problem_text(bytes: &[u8]) -> Option<String> {
    let Ok(Value::Object(mut problem)) = serde_json::from_slice::<Value>(bytes) else {
        return None;
    };
    let mut take = |key: &str| match problem.remove(key) {
        Some(Value::String(s)) if !s.trim().is_empty() => Some(s.trim().to_owned()),
        Some(Value::Number(n)) => Some(n.to_string()),
        _ => None,
    };
    let title = take("title");
    let detail = take("detail");
    let status = take("status");
    let kind = take("type").filter(|t| t != "about:blank");
    let instance = take("instance");
    let mut out = match (title, detail) {
        (Some(title), Some(detail)) => format!("{title}: {detail}"),
        (Some(one), None) | (None, Some(one)) => one,
        (None, None) => return None,
    };
    let extras: Vec<String> = [("status", status), ("type", kind), ("instance", instance)]
        .into_iter()
        .filter_map(|(name, value)| value.map(|v| format!("{name} {v}")))
        .collect();
    if !extras.is_empty() {
        out.push_str(&format!(" ({})", extras.join(", ")));
    }
    if !problem.is_empty() {
        out.push_str(&format!("; more: {}", Value::Object(problem)));
    }
    Some(truncate(&out, ERROR_BODY_LIMIT, false))
}

/// `retry after 30 seconds` or `retry after <date>`; `None` for an empty or odd value.
fn retry_after_text(value: &str) -> Option<String> {
    let value = value.trim();
    if value.is_empty() || value.len() > 64 || value.chars().any(char::is_control) {
        return None;
    }
    Some(match value.parse::<u64>() {
        Ok(1) => "retry after 1 second".to_owned(),
        Ok(seconds) => format!("retry after {seconds} seconds"),
        Err(_) => format!("retry after {value}"),
    })
}

/// A `Location` value for a message: user info hidden, at most 2 KiB.
fn shown_location(location: &str) -> String {
    let location = redact_url_text(location);
    format!("`{}`", truncate(&location, 2048, false))
}

/// The synthetic URI naming a binary response of an operation: `mcpgen://response/<operationId>`,
/// with anything but unreserved characters percent-encoded.
fn resource_uri(operation_id: &str) -> String {
    format!("mcpgen://response/{}", crate::style::encode(operation_id))
}

/// Whether a media type (essence) is text a model can read as is.
fn is_textual(essence: &str) -> bool {
    if essence.starts_with("image/") {
        // Including SVG: `image/*` is image content.
        return false;
    }
    essence.starts_with("text/")
        || essence.ends_with("+xml")
        || essence.ends_with("+json")
        || essence.ends_with("+yaml")
        || matches!(
            essence,
            "application/xml"
                | "application/yaml"
                | "application/x-yaml"
                | "application/javascript"
                | "application/ecmascript"
                | "application/x-ndjson"
                | "application/jsonl"
                | "application/x-www-form-urlencoded"
                | "application/graphql"
                | "application/sql"
                | "application/csv"
        )
}

/// Maps a failed exchange (no response, or the body could not be read) to an error result;
/// a timeout is [`Invoked::timed_out`].
pub(super) fn map_error(
    call: &Call,
    err: &reqwest::Error,
    timeout: Duration,
    display_base: &str,
) -> Invoked {
    if err.is_timeout() {
        return Invoked::new(ToolResult::error(format!(
            "{call} timed out after {} s",
            timeout.as_secs_f64()
        )))
        .timed_out();
    }
    if err.is_connect() {
        return Invoked::new(ToolResult::error(format!(
            "{call}: the upstream could not be reached at {display_base}: {}",
            describe(err)
        )));
    }
    Invoked::new(ToolResult::error(format!(
        "{call} failed: {}",
        describe(err)
    )))
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
