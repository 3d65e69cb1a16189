//! The tracing sink.

use mcpgen_core::BoxFuture;

use super::AuditSink;
use super::event::AuditEvent;

/// Emits each event as a `tracing` event with target `mcpgen::audit` and one field per event
/// field (`args` only when present): at INFO level, or at DEBUG level ([`TracingSink::debug`])
/// when another sink keeps the records. Durable only as far as the subscriber is.
#[derive(Debug, Clone, Copy, Default)]
pub struct TracingSink {
    debug: bool,
}

impl TracingSink {
    /// The tracing sink, at INFO level.
    pub fn new() -> Self {
        Self { debug: false }
    }

    /// The tracing sink at DEBUG level: for a server whose records go to an audit log or
    /// database, which would otherwise also write every record to its log.
    pub fn debug() -> Self {
        Self { debug: true }
    }
}

/// One `tracing` event for `$event` at `$level`.
macro_rules! audit_event {
    ($level:ident, $event:expr) => {{
        let event = $event;
        let args = event.args.as_ref().map(tracing::field::display);
        tracing::$level!(
            target: "mcpgen::audit",
            call_id = %event.call_id,
            parent_call_id = event.parent_call_id.as_deref(),
            code_sha256 = event.code_sha256.as_deref(),
            inner_calls = event.inner_calls,
            time = %event.time,
            request_id = event.request_id.as_deref(),
            principal = event.principal.as_deref(),
            key_id = event.key_id.as_deref(),
            tool = %event.tool,
            operation_id = event.operation_id.as_deref(),
            status = event.status.as_str(),
            duration_ms = event.duration_ms,
            upstream_status = event.upstream_status,
            args_sha256 = %event.args_sha256,
            args,
            error = event.error.as_deref(),
            trace_id = event.trace_id.as_deref(),
            "tool call"
        );
    }};
}

impl AuditSink for TracingSink {
    fn record<'a>(&'a self, event: AuditEvent) -> BoxFuture<'a, ()> {
        if self.debug {
            audit_event!(debug, &event);
        } else {
            audit_event!(info, &event);
        }
        Box::pin(std::future::ready(()))
    }

    fn flush<'a>(&'a self) -> BoxFuture<'a, ()> {
        Box::pin(std::future::ready(()))
    }

    /// Whether the current subscriber takes `mcpgen::audit` events at this sink's level.
    fn keeps_records(&self) -> bool {
        if self.debug {
            tracing::enabled!(target: "mcpgen::audit", tracing::Level::DEBUG)
        } else {
            tracing::enabled!(target: "mcpgen::audit", tracing::Level::INFO)
        }
    }
}
