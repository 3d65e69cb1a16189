//! Audit records for `tools/call` requests refused over HTTP before they reach the call
//! pipeline: 401 (no valid credential) and 403 (`Host`/`Origin` refused, or a session owned by
//! another principal). Only a bounded prefix of such a request's body is read (see
//! [`super::prefix`]), within the body read deadline; when it holds a `tools/call`, every sink
//! gets one record for the request, with the reason as its error text: a batch gives one
//! record, naming its first call and saying how many calls the prefix held.

use std::time::Instant;

use axum::extract::Request;
use mcpgen_audit::{AuditEvent, AuditSink, AuditStatus, args_digest, new_call_id, now_rfc3339};
use mcpgen_listener::HeadReceived;
use serde_json::Map;

use super::prefix::{Calls, PREFIX_BYTES, read_prefix, tool_calls};
use crate::server::catalog::echo::echoed;
use crate::server::state::inner::Inner;
use mcpgen_contract::trace::{TRACEPARENT, TraceParent};
use mcpgen_identity::auth::AuthError;
use mcpgen_identity::principal::Principal;

/// The `tool` of a record whose call was cut off before its name.
const UNREAD_TOOL: &str = "(unread)";

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

/// Reads at most a bounded prefix of `request`'s body, before the body read deadline, and
/// records one audit event when it holds `tools/call` requests (a JSON-RPC message or a
/// batch), refused with `status` because of `reason` (`kind`: a fixed word for metrics, e.g.
/// `missing`). Returns whether the connection may serve more requests: not when an HTTP/1
/// body was not read to its end (the answer then closes it, `reply::closing`); an HTTP/2
/// stream's unread body ends with the stream.
pub(crate) async fn audit_refused(
    inner: &Inner,
    request: Request,
    principal: Option<&Principal>,
    (status, kind): (AuditStatus, &'static str),
    reason: &str,
) -> bool {
    let started = Instant::now();
    #[cfg(feature = "metrics")]
    if let Some(metrics) = &inner.metrics {
        metrics.refused(kind);
    }
    #[cfg(not(feature = "metrics"))]
    let _ = kind;
    let (parts, body) = request.into_parts();
    let deadline = HeadReceived::body_deadline(&parts.extensions, inner.body_read_timeout);
    let prefix = read_prefix(body, PREFIX_BYTES, deadline).await;
    let reusable = prefix.complete || parts.version >= http::Version::HTTP_2;
    let auditing = inner.audit.keeps_records();
    #[cfg(feature = "metrics")]
    let wants_record = auditing || inner.metrics.is_some();
    #[cfg(not(feature = "metrics"))]
    let wants_record = auditing;
    if !wants_record || parts.method != http::Method::POST {
        return reusable;
    }
    let calls = tool_calls(&prefix);
    if calls.count == 0 {
        return reusable;
    }
    let from_header = parts
        .headers
        .get(TRACEPARENT)
        .and_then(|v| v.to_str().ok())
        .and_then(TraceParent::parse);
    // With traces exported, the request's own span (see the handler's `incoming_trace`).
    let request_span = parts
        .extensions
        .get::<mcpgen_contract::trace::RequestSpan>()
        .map(|span| span.0);
    let error = Some(refusal_text(reason, &calls));
    let single = !calls.batch;
    let (id, tool, args, call_trace) = match calls.first {
        Some(call) => (call.id, call.tool, call.args, call.trace),
        None => (None, UNREAD_TOOL.to_owned(), Map::new(), None),
    };
    let trace = match from_header {
        Some(header) => Some(request_span.unwrap_or(header)),
        None => call_trace.or(request_span),
    };
    let def = inner.tools.load().catalog.get(&tool).map(|entry| entry.def);
    #[cfg(feature = "metrics")]
    if let Some(metrics) = &inner.metrics {
        metrics.call_finished(def, status, started.elapsed());
    }
    if auditing {
        let event = AuditEvent::new(
            new_call_id(),
            now_rfc3339(),
            echoed(&tool),
            status,
            args_digest(&args),
        )
        .by(
            principal.map(|p| p.id.as_str()),
            principal.and_then(|p| p.key_id.as_deref()),
        )
        .operation(def)
        .took(started.elapsed())
        .args_if(inner.audit_args, || args)
        .failed(error.as_deref())
        .request(if single { id } else { None }, trace.map(|t| t.trace_id()));
        inner.audit.record(event).await;
    }
    reusable
}

/// The error text of a refused request's record: the reason, and for a batch how many calls
/// it held (or, cut short, at least held).
fn refusal_text(reason: &str, calls: &Calls) -> String {
    let calls_text = match calls.count {
        1 => "1 tool call".to_owned(),
        n => format!("{n} tool calls"),
    };
    match (calls.batch, calls.all) {
        (false, _) => reason.to_owned(),
        (true, true) => format!("{reason} (a batch of {calls_text}, recorded once)"),
        (true, false) => format!(
            "{reason} (a batch of at least {calls_text}, recorded once; the rest of its body \
             was not read)"
        ),
    }
}
