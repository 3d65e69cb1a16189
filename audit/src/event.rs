//! The audit event and the digest of a call's arguments.

use std::time::Duration;

use mcpgen_core::tool::ToolDef;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

/// One `tools/call`, as recorded by the audit sinks.
///
/// Every sink writes every field: the JSON-lines file and the tracing sink under these names,
/// the databases as columns of `mcpgen_audit` of the same names. `call_id` is the record's
/// identity: the database sink inserts with `ON CONFLICT (call_id) DO NOTHING`, so a spool
/// replayed twice (after a crash between the insert and the spool's removal) adds no row.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct AuditEvent {
    /// The call's unique id: a UUID v4 made when the record is made (see [`new_call_id`]).
    /// Unique in the database (`mcpgen_audit.call_id`).
    pub call_id: String,
    /// The `call_id` of the call this one ran inside (a tool call made by a program that an
    /// `execute` call runs in code mode); `None` for a call a client made.
    #[serde(default)]
    pub parent_call_id: Option<String>,
    /// SHA-256 (hex) of the program an `execute` call ran (code mode); `None` otherwise.
    #[serde(default)]
    pub code_sha256: Option<String>,
    /// How many tool calls the program of an `execute` call made (code mode); `None`
    /// otherwise.
    #[serde(default)]
    pub inner_calls: Option<u32>,
    /// When the call was received: RFC 3339, UTC, millisecond precision (see [`super::now_rfc3339`]).
    pub time: String,
    /// The JSON-RPC request id, when the request had one.
    pub request_id: Option<String>,
    /// The principal id of the caller (`None` when auth is off and nobody was identified).
    pub principal: Option<String>,
    /// The key id or token id that authenticated the caller.
    pub key_id: Option<String>,
    /// The tool name as the client sent it.
    pub tool: String,
    /// The operationId of the API operation the tool calls (tools bound to an HTTP operation).
    #[serde(default)]
    pub operation_id: Option<String>,
    /// How the call ended.
    pub status: AuditStatus,
    /// Wall-clock duration of the call in milliseconds.
    pub duration_ms: u64,
    /// HTTP status of the upstream response, when an upstream was called and answered.
    pub upstream_status: Option<u16>,
    /// SHA-256 (hex) of the canonical JSON of the arguments (see [`args_digest`]).
    pub args_sha256: String,
    /// The arguments themselves, only when the operator asked for them (`--audit-args`).
    pub args: Option<Value>,
    /// Why the call did not succeed, as the client was told (cut to [`MAX_ERROR_CHARS`]);
    /// `None` for `ok` and `input_required`.
    #[serde(default)]
    pub error: Option<String>,
    /// The W3C trace id (32 lowercase hex digits) of the trace the call belongs to, when the
    /// request carried a `traceparent` (HTTP header or `_meta`).
    #[serde(default)]
    pub trace_id: Option<String>,
}

impl AuditEvent {
    /// The record of the call `call_id` to `tool`, received at `time` (see
    /// [`super::now_rfc3339`]), that ended with `status`, its arguments' digest `args_sha256`
    /// (see [`args_digest`]). Every other field is empty (`None`, a duration of 0) until the
    /// caller sets it.
    pub fn new(
        call_id: String,
        time: String,
        tool: String,
        status: AuditStatus,
        args_sha256: String,
    ) -> Self {
        Self {
            call_id,
            parent_call_id: None,
            code_sha256: None,
            inner_calls: None,
            time,
            request_id: None,
            principal: None,
            key_id: None,
            tool,
            operation_id: None,
            status,
            duration_ms: 0,
            upstream_status: None,
            args_sha256,
            args: None,
            error: None,
            trace_id: None,
        }
    }

    /// The caller: its principal id and the id of the key or token that authenticated it.
    #[must_use]
    pub fn by(mut self, principal: Option<&str>, key_id: Option<&str>) -> Self {
        self.principal = principal.map(str::to_owned);
        self.key_id = key_id.map(str::to_owned);
        self
    }

    /// The API operation `def` calls, for a tool bound to one (none for other tools or for a
    /// name the table does not have).
    #[must_use]
    pub fn operation(mut self, def: Option<&ToolDef>) -> Self {
        self.operation_id = def
            .and_then(|def| def.http.as_ref())
            .map(|http| http.operation_id.to_owned());
        self
    }

    /// How long the call took, in whole milliseconds.
    #[must_use]
    pub fn took(mut self, elapsed: Duration) -> Self {
        self.duration_ms = u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX);
        self
    }

    /// The arguments themselves, kept only when the operator asked for them (`--audit-args`).
    #[must_use]
    pub fn args_if(mut self, keep: bool, args: impl FnOnce() -> Map<String, Value>) -> Self {
        self.args = keep.then(|| Value::Object(args()));
        self
    }

    /// Why the call did not succeed, cut to [`MAX_ERROR_CHARS`] (see [`error_text`]).
    #[must_use]
    pub fn failed(mut self, error: Option<&str>) -> Self {
        self.error = error.map(error_text);
        self
    }

    /// The JSON-RPC id of the request and the trace the call belongs to.
    #[must_use]
    pub fn request(mut self, request_id: Option<String>, trace_id: Option<String>) -> Self {
        self.request_id = request_id;
        self.trace_id = trace_id;
        self
    }
}

/// A new, unique [`AuditEvent::call_id`]: a random UUID v4, lowercase and hyphenated.
pub fn new_call_id() -> String {
    // Encoded into a buffer, without the formatting machinery `to_string` goes through.
    let mut buffer = uuid::Uuid::encode_buffer();
    uuid::Uuid::new_v4()
        .hyphenated()
        .encode_lower(&mut buffer)
        .to_owned()
}

/// Longest error text, in characters, an audit record keeps; longer texts are cut and end in `…`.
pub const MAX_ERROR_CHARS: usize = 2000;

/// `text` cut to [`MAX_ERROR_CHARS`] characters for an audit record's `error`.
pub fn error_text(text: &str) -> String {
    match text.char_indices().nth(MAX_ERROR_CHARS) {
        None => text.to_owned(),
        Some((cut, _)) => {
            let mut s = text[..cut].to_owned();
            s.push('…');
            s
        }
    }
}

/// How a tool call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AuditStatus {
    /// The tool succeeded.
    Ok,
    /// The tool ran and reported an error (`isError: true`) other than the ones below.
    ToolError,
    /// The arguments did not match the input schema; the tool was not run.
    InvalidArguments,
    /// The principal may not call the tool (answered as an unknown tool).
    Denied,
    /// The principal exceeded its rate limit.
    RateLimited,
    /// The upstream answered with an error status or could not be reached.
    UpstreamError,
    /// The call or the upstream request timed out.
    Timeout,
    /// The tool asked the client for input (a stateless call answered `input_required`); the
    /// client calls again with the answers, which makes a record of its own.
    InputRequired,
    /// The tool needs the person's confirmation and did not get it (declined, cancelled, or a
    /// client that cannot ask); nothing was sent upstream.
    NotConfirmed,
    /// The request was refused with HTTP 401: no credential, or one that is not valid.
    Unauthenticated,
    /// The request was refused with HTTP 403 before reaching the tool (a disallowed `Host` or
    /// `Origin`, or a session that belongs to another principal).
    Forbidden,
    /// The call was refused before it started because a backend the configuration makes
    /// essential was unreachable (the audit database with `--audit-db-unavailable refuse`),
    /// or because the upstream API's circuit breaker is open or its concurrency cap stayed
    /// full (nothing was sent upstream).
    Unavailable,
    /// The call started an MCP task and was answered with it; the record of the call the task
    /// runs names this record's `call_id` (the task id) as its `parent_call_id`.
    TaskStarted,
}

impl AuditStatus {
    /// The status as written in audit records (`ok`, `tool_error`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Ok => "ok",
            Self::ToolError => "tool_error",
            Self::InvalidArguments => "invalid_arguments",
            Self::Denied => "denied",
            Self::RateLimited => "rate_limited",
            Self::UpstreamError => "upstream_error",
            Self::Timeout => "timeout",
            Self::InputRequired => "input_required",
            Self::NotConfirmed => "not_confirmed",
            Self::Unauthenticated => "unauthenticated",
            Self::Forbidden => "forbidden",
            Self::Unavailable => "unavailable",
            Self::TaskStarted => "task_started",
        }
    }

    /// Every status, in declaration order (for metrics and tests).
    pub const ALL: [AuditStatus; 13] = [
        Self::Ok,
        Self::ToolError,
        Self::InvalidArguments,
        Self::Denied,
        Self::RateLimited,
        Self::UpstreamError,
        Self::Timeout,
        Self::InputRequired,
        Self::NotConfirmed,
        Self::Unauthenticated,
        Self::Forbidden,
        Self::Unavailable,
        Self::TaskStarted,
    ];
}

impl std::fmt::Display for AuditStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// SHA-256 (lowercase hex) of the canonical JSON of `args` (see [`canonical_json`]), so two
/// calls with the same arguments have the same digest whatever the key order.
pub fn args_digest(args: &Map<String, Value>) -> String {
    let mut hasher = Sha256::new();
    write_object(args, &mut hasher);
    hex::encode(hasher.finalize())
}

/// The canonical JSON text of `value`: object keys sorted (by code point) at every level, no
/// whitespace, strings and numbers written as `serde_json` writes them.
pub fn canonical_json(value: &Value) -> String {
    let mut out = Vec::new();
    write_value(value, &mut out);
    // Only UTF-8 text (from `&str`s and ASCII punctuation) is ever written.
    String::from_utf8_lossy(&out).into_owned()
}

trait Out {
    fn put(&mut self, bytes: &[u8]);
}

impl Out for Vec<u8> {
    fn put(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }
}

impl Out for Sha256 {
    fn put(&mut self, bytes: &[u8]) {
        self.update(bytes);
    }
}

fn write_value(value: &Value, out: &mut impl Out) {
    match value {
        Value::Null => out.put(b"null"),
        Value::Bool(true) => out.put(b"true"),
        Value::Bool(false) => out.put(b"false"),
        Value::Number(n) => out.put(n.to_string().as_bytes()),
        Value::String(s) => write_string(s, out),
        Value::Array(items) => {
            out.put(b"[");
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.put(b",");
                }
                write_value(item, out);
            }
            out.put(b"]");
        }
        Value::Object(map) => write_object(map, out),
    }
}

fn write_object(map: &Map<String, Value>, out: &mut impl Out) {
    let mut entries: Vec<(&String, &Value)> = map.iter().collect();
    entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
    out.put(b"{");
    for (i, (key, value)) in entries.into_iter().enumerate() {
        if i > 0 {
            out.put(b",");
        }
        write_string(key, out);
        out.put(b":");
        write_value(value, out);
    }
    out.put(b"}");
}

/// Writes `s` as a JSON string with the escapes `serde_json` uses.
fn write_string(s: &str, out: &mut impl Out) {
    out.put(b"\"");
    let mut unicode = *b"\\u0000";
    let bytes = s.as_bytes();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let escape: &[u8] = match b {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0x08 => b"\\b",
            0x0c => b"\\f",
            0x00..=0x1f => {
                // Two digits into the two bytes after `\u00`: lengths match, so this cannot fail.
                let _ = hex::encode_to_slice([b], &mut unicode[4..]);
                &unicode
            }
            _ => continue,
        };
        out.put(&bytes[start..i]);
        out.put(escape);
        start = i + 1;
    }
    out.put(&bytes[start..]);
    out.put(b"\"");
}
