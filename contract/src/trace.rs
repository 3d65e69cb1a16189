//! W3C Trace Context: the `traceparent` a request arrives with is continued by the call, sent
//! on to the upstream with the call's own span id, and its trace id goes into the audit record.
//!
//! A `traceparent` is read from the HTTP request's header, else from the request's `_meta`
//! (`_meta.traceparent`, as 2026-07-28 clients send it). A value that does not follow the
//! W3C format is ignored, as the specification asks.

use std::fmt;

/// The `traceparent` header name.
pub const TRACEPARENT: &str = "traceparent";

/// Whether traces are exported (OpenTelemetry is set up): then every call belongs to a trace,
/// a new one when the request did not continue one.
static EXPORTING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Marks traces as exported (called once the exporter is set up).
pub fn set_exporting(on: bool) {
    EXPORTING.store(on, std::sync::atomic::Ordering::Relaxed);
}

/// Whether traces are exported.
pub fn exporting() -> bool {
    EXPORTING.load(std::sync::atomic::Ordering::Relaxed)
}

/// The span a call of `tool` runs in (a direct call, a task's, or an inner call of a program).
/// A call continuing a trace (`trace`, its position) runs in a span carrying its trace id, so
/// every log line of the call (JSON logs included) names the trace; a call outside any trace
/// runs in no span. Exported, the span is a child of the position continued (the HTTP request's
/// span, or the caller's), and `trace` becomes the span's own position, which the upstream
/// request continues.
#[doc(hidden)]
pub fn call_span(trace: &mut Option<TraceParent>, tool: &str) -> tracing::Span {
    let Some(parent) = *trace else {
        return tracing::Span::none();
    };
    let span = tracing::info_span!(
        "tool_call",
        trace_id = %parent.trace_id(),
        tool = %tool,
        status = tracing::field::Empty,
        upstream_status = tracing::field::Empty,
        principal = tracing::field::Empty,
    );
    #[cfg(feature = "otel")]
    let own = start_child(&span, &parent).unwrap_or_else(|| parent.child());
    #[cfg(not(feature = "otel"))]
    let own = parent.child();
    *trace = Some(own);
    span
}

/// The position of an HTTP request's own span (exported traces only), put into the request's
/// extensions by the HTTP layer: the calls of the request continue it, so the request's span
/// is their parent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[doc(hidden)]
pub struct RequestSpan(pub TraceParent);

/// A position in a W3C trace: the trace id, the id of the span that is the parent of what
/// happens next, and the trace flags.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TraceParent {
    trace_id: [u8; 16],
    span_id: [u8; 8],
    flags: u8,
}

impl TraceParent {
    /// Parses a `traceparent` value (`00-<32 hex>-<16 hex>-<2 hex>`). `None` for anything
    /// else: version `ff`, an all-zero trace or parent id, upper-case hex, wrong lengths;
    /// versions after `00` may carry more fields after the flags, which are ignored.
    pub fn parse(value: &str) -> Option<Self> {
        let value = value.trim();
        let mut parts = value.split('-');
        let version = parts.next()?;
        let trace = parts.next()?;
        let span = parts.next()?;
        let flags = parts.next()?;
        let rest = parts.next();
        if version.len() != 2 || version == "ff" || (version == "00" && rest.is_some()) {
            return None;
        }
        hex_bytes::<1>(version)?;
        let trace_id = hex_bytes::<16>(trace)?;
        let span_id = hex_bytes::<8>(span)?;
        let [flags] = hex_bytes::<1>(flags)?;
        if trace_id == [0; 16] || span_id == [0; 8] {
            return None;
        }
        Some(Self {
            trace_id,
            span_id,
            flags,
        })
    }

    /// The position of a span known by its ids (an exported span's own); `None` for an
    /// all-zero trace or span id.
    pub fn from_ids(trace_id: [u8; 16], span_id: [u8; 8], sampled: bool) -> Option<Self> {
        (trace_id != [0; 16] && span_id != [0; 8]).then_some(Self {
            trace_id,
            span_id,
            flags: u8::from(sampled),
        })
    }

    /// A new trace (random trace and span ids), sampled.
    pub fn new_root() -> Self {
        let id = uuid::Uuid::new_v4().into_bytes();
        let mut trace = Self {
            trace_id: id,
            span_id: [0; 8],
            flags: 1,
        };
        trace.span_id = new_span_id();
        trace
    }

    /// The same trace with a new span id: the span of work done on behalf of this position
    /// (the call, then its upstream request), whose parent is this one.
    pub fn child(&self) -> Self {
        Self {
            span_id: new_span_id(),
            ..*self
        }
    }

    /// The trace id as 32 lowercase hex digits.
    pub fn trace_id(&self) -> String {
        hex::encode(self.trace_id)
    }

    /// The span id as 16 lowercase hex digits.
    pub fn span_id(&self) -> String {
        hex::encode(self.span_id)
    }

    /// The trace id's 16 bytes.
    pub fn trace_id_bytes(&self) -> [u8; 16] {
        self.trace_id
    }

    /// The span id's 8 bytes.
    pub fn span_id_bytes(&self) -> [u8; 8] {
        self.span_id
    }

    /// Whether the sampled flag is set.
    pub fn sampled(&self) -> bool {
        self.flags & 1 == 1
    }
}

impl fmt::Display for TraceParent {
    /// The `traceparent` value, version `00`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "00-{}-{}-{}",
            hex::encode(self.trace_id),
            hex::encode(self.span_id),
            hex::encode([self.flags])
        )
    }
}

fn new_span_id() -> [u8; 8] {
    let bytes = uuid::Uuid::new_v4().into_bytes();
    let mut span = [0u8; 8];
    span.copy_from_slice(&bytes[..8]);
    if span == [0; 8] {
        span[7] = 1;
    }
    span
}

/// Exported spans (feature `otel`): the `tracing` spans of HTTP requests and tool calls, placed
/// in the trace the request continued, so the exported span, the audit record and the upstream
/// share one trace id.
#[cfg(feature = "otel")]
mod export {
    use opentelemetry::trace::{
        SpanContext, SpanId, TraceContextExt, TraceFlags, TraceId, TraceState,
    };
    use tracing_opentelemetry::OpenTelemetrySpanExt;

    use super::TraceParent;

    /// Makes `span` a child of `parent` (the position the request continued, or a new root) and
    /// starts it; returns the span's own position, which what happens inside it continues (the
    /// upstream request, a call inside an HTTP request), or `None` when the span is not exported
    /// (filtered out by the log level).
    #[doc(hidden)]
    pub fn start_child(span: &tracing::Span, parent: &TraceParent) -> Option<TraceParent> {
        continue_trace(span, parent);
        start(span)
    }

    /// Starts `span` (the child of the span it was created in, or the root of a new trace) and
    /// returns its own position; `None` when it is not exported.
    #[doc(hidden)]
    pub fn start(span: &tracing::Span) -> Option<TraceParent> {
        let context = span.context();
        let own = context.span().span_context().clone();
        if !own.is_valid() {
            return None;
        }
        TraceParent::from_ids(
            own.trace_id().to_bytes(),
            own.span_id().to_bytes(),
            own.is_sampled(),
        )
    }

    /// Makes `span` part of `trace` (its parent: the position the request continued, or a new
    /// root), so the exported span has the trace id the audit record and the upstream see.
    fn continue_trace(span: &tracing::Span, trace: &TraceParent) {
        let context = SpanContext::new(
            TraceId::from_bytes(trace.trace_id_bytes()),
            SpanId::from_bytes(trace.span_id_bytes()),
            if trace.sampled() {
                TraceFlags::SAMPLED
            } else {
                TraceFlags::default()
            },
            true,
            TraceState::default(),
        );
        let parent = opentelemetry::Context::new().with_remote_span_context(context);
        let _ = span.set_parent(parent);
    }
}

#[cfg(feature = "otel")]
#[doc(hidden)]
pub use export::{start, start_child};

/// `N` bytes from exactly `2 * N` lowercase hex digits.
fn hex_bytes<const N: usize>(s: &str) -> Option<[u8; N]> {
    if s.bytes().any(|d| d.is_ascii_uppercase()) {
        return None;
    }
    let mut out = [0u8; N];
    hex::decode_to_slice(s, &mut out).ok()?;
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_writes_version_00() {
        let text = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
        let parsed = TraceParent::parse(text).unwrap();
        assert_eq!(parsed.trace_id(), "4bf92f3577b34da6a3ce929d0e0e4736");
        assert_eq!(parsed.span_id(), "00f067aa0ba902b7");
        assert!(parsed.sampled());
        assert_eq!(parsed.to_string(), text);
        let child = parsed.child();
        assert_eq!(child.trace_id(), parsed.trace_id());
        assert_ne!(child.span_id(), parsed.span_id());
    }

    #[test]
    fn refuses_what_the_format_forbids() {
        for bad in [
            "",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",
        ] {
            assert_eq!(TraceParent::parse(bad), None, "{bad}");
        }
        // A later version may add fields.
        assert!(
            TraceParent::parse("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-x")
                .is_some()
        );
    }

    #[test]
    fn new_roots_differ() {
        let a = TraceParent::new_root();
        let b = TraceParent::new_root();
        assert_ne!(a.trace_id(), b.trace_id());
        assert!(TraceParent::parse(&a.to_string()).is_some());
    }
}
