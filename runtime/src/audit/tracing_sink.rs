//! The tracing sink.

use super::{AuditEvent, AuditSink};
use crate::BoxFuture;

/// Emits each event as a `tracing` event at INFO level with target `mcpgen::audit` and one
/// field per event field (`args` only when present). Durable only as far as the subscriber is.
#[derive(Debug, Clone, Copy, Default)]
pub struct TracingSink;

impl TracingSink {
    /// The tracing sink.
    pub fn new() -> Self {
        Self
    }
}

impl AuditSink for TracingSink {
    fn record<'a>(&'a self, event: AuditEvent) -> BoxFuture<'a, ()> {
        let args = event.args.as_ref().map(tracing::field::display);
        tracing::info!(
            target: "mcpgen::audit",
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
        Box::pin(std::future::ready(()))
    }

    fn flush<'a>(&'a self) -> BoxFuture<'a, ()> {
        Box::pin(std::future::ready(()))
    }
}
