//! Audit records for `tools/call` requests refused over HTTP before they reach the call
//! pipeline: 401 (no valid credential) and 403 (`Host`/`Origin` refused, or a session owned by
//! another principal). Such a request still names its tool in its body, so every sink gets
//! one record per refused call, with the reason as its error text.

use std::time::Instant;

use axum::body::Body;
use axum::extract::Request;
use serde_json::{Map, Value};

use super::pipeline::echoed;
use super::state::Inner;
use crate::audit::{AuditEvent, AuditSink, AuditStatus, args_digest, error_text, now_rfc3339};
use crate::auth::AuthError;
use crate::principal::Principal;
use crate::trace::{TRACEPARENT, TraceParent};

/// The metrics label of an authentication failure (a fixed set of words, never the text).
pub(crate) fn auth_reason(error: &AuthError) -> &'static str {
    if *error == AuthError::Missing {
        "missing"
    } else if *error == AuthError::Expired {
        "expired"
    } else if *error == AuthError::WrongAudience {
        "wrong_audience"
    } else {
        "invalid"
    }
}

/// Records one audit event per `tools/call` in `request`'s body (a JSON-RPC message or a
/// batch), refused with `status` because of `reason` (`kind`: a fixed word for metrics, e.g.
/// `missing`), and gives the request back with its body so it can still be passed on.
/// Requests that are not tool calls leave no record.
pub(crate) async fn audit_refused(
    inner: &Inner,
    request: Request,
    principal: Option<&Principal>,
    (status, kind): (AuditStatus, &'static str),
    reason: &str,
) -> Request {
    let started = Instant::now();
    #[cfg(feature = "metrics")]
    if let Some(metrics) = &inner.metrics {
        metrics.refused(kind);
    }
    #[cfg(not(feature = "metrics"))]
    let _ = kind;
    let auditing = inner.audit.keeps_records();
    let wants_record = auditing;
    #[cfg(feature = "metrics")]
    let wants_record = wants_record || inner.metrics.is_some();
    if !wants_record || request.method() != http::Method::POST {
        return request;
    }
    let (parts, body) = request.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, inner.max_body_bytes).await else {
        return Request::from_parts(parts, Body::empty());
    };
    let calls = tool_calls(&bytes);
    if !calls.is_empty() {
        let from_header = parts
            .headers
            .get(TRACEPARENT)
            .and_then(|v| v.to_str().ok())
            .and_then(TraceParent::parse);
        // With traces exported, the request's own span (see the handler's `incoming_trace`).
        let request_span = parts
            .extensions
            .get::<crate::trace::RequestSpan>()
            .map(|span| span.0);
        for call in calls {
            let trace = match from_header {
                Some(header) => Some(request_span.unwrap_or(header)),
                None => call.trace.or(request_span),
            };
            let trace_id = trace.map(|t| t.trace_id());
            let def = inner.catalog.get(&call.tool).map(|entry| entry.def);
            #[cfg(feature = "metrics")]
            if let Some(metrics) = &inner.metrics {
                metrics.call_finished(def, status, started.elapsed());
            }
            if !auditing {
                continue;
            }
            let event = AuditEvent {
                time: now_rfc3339(),
                request_id: call.id,
                principal: principal.map(|p| p.id.clone()),
                key_id: principal.and_then(|p| p.key_id.clone()),
                tool: echoed(&call.tool),
                operation_id: def
                    .and_then(|d| d.http.as_ref())
                    .map(|h| h.operation_id.to_owned()),
                status,
                duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
                upstream_status: None,
                args_sha256: args_digest(&call.args),
                args: inner.audit_args.then(|| Value::Object(call.args)),
                error: Some(error_text(reason)),
                trace_id,
                call_id: uuid::Uuid::new_v4().to_string(),
                parent_call_id: None,
                code_sha256: None,
                inner_calls: None,
            };
            inner.audit.record(event).await;
        }
    }
    Request::from_parts(parts, Body::from(bytes))
}

/// A `tools/call` found in a refused request's body.
struct RefusedCall {
    id: Option<String>,
    tool: String,
    args: Map<String, Value>,
    trace: Option<TraceParent>,
}

/// The `tools/call` requests of a JSON-RPC body (one message or a batch).
fn tool_calls(body: &[u8]) -> Vec<RefusedCall> {
    let Ok(message) = serde_json::from_slice::<Value>(body) else {
        return Vec::new();
    };
    let messages = match message {
        Value::Array(items) => items,
        single => vec![single],
    };
    messages
        .into_iter()
        .filter_map(|mut message| {
            if message.get("method").and_then(Value::as_str) != Some("tools/call") {
                return None;
            }
            let id = message.get("id").and_then(|id| match id {
                Value::String(s) => Some(s.clone()),
                Value::Number(n) => Some(n.to_string()),
                _ => None,
            });
            let params = message.get_mut("params")?.as_object_mut()?;
            let tool = params.get("name")?.as_str()?.to_owned();
            let trace = params
                .get("_meta")
                .and_then(|meta| meta.get(TRACEPARENT))
                .and_then(Value::as_str)
                .and_then(TraceParent::parse);
            let args = match params.remove("arguments") {
                Some(Value::Object(args)) => args,
                _ => Map::new(),
            };
            Some(RefusedCall {
                id,
                tool,
                args,
                trace,
            })
        })
        .collect()
}
