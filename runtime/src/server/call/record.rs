//! The audit record of one call through the pipeline: what it needs is gathered as the call
//! begins ([`Pending::begin`]) and as the tool becomes known, and it is written with the
//! call's outcome ([`Pending::finish_with`]), which also counts the call in the metrics and
//! marks the call's span with it.

use std::time::Instant;

use mcpgen_core::result::{Content, ToolResult};
use mcpgen_core::tool::ToolDef;
use serde_json::{Map, Value};

use crate::server::catalog::echo::echoed;
use crate::server::catalog::table::Entry;
use crate::server::state::inner::Inner;
use mcpgen_audit::{
    AuditEvent, AuditSink, AuditStatus, MAX_ERROR_CHARS, Unrecorded, args_digest, error_text,
    new_call_id, now_rfc3339,
};
use mcpgen_contract::toolset::CallContext;
use mcpgen_identity::principal::Principal;

/// What the audit record of one call needs besides its outcome.
pub(super) struct Pending<'a> {
    inner: &'a Inner,
    started: Instant,
    time: String,
    request_id: Option<String>,
    principal: Option<&'a Principal>,
    tool: &'a str,
    /// The tool table's entry, once the tool is known to exist.
    def: Option<&'static ToolDef>,
    /// The tool's metrics series, once the tool is known to exist.
    #[cfg(feature = "metrics")]
    pub(super) series: Option<&'a mcpgen_metrics::ToolSeries>,
    trace_id: Option<String>,
    /// The arguments' digest: the record's, and the binding of a stateless call's state.
    pub(super) args_sha256: String,
    args: Option<Value>,
    /// Whether a sink keeps the record, decided when the call began.
    auditing: bool,
    /// The `call_id` of the `execute` this is an inner call of (code mode).
    parent_call_id: Option<String>,
}

impl<'a> Pending<'a> {
    /// The record of a call of `name` with `args` for `principal`, begun as the call begins.
    /// One digest of the arguments serves the audit record and a stateless call's sealed
    /// state.
    pub(super) fn begin(
        inner: &'a Inner,
        principal: Option<&'a Principal>,
        name: &'a str,
        args: &Map<String, Value>,
        ctx: &CallContext,
    ) -> Self {
        let auditing = inner.audit.keeps_records();
        let args_sha256 = if auditing || ctx.input.is_stateless() {
            args_digest(args)
        } else {
            String::new()
        };
        Self {
            inner,
            started: Instant::now(),
            time: if auditing {
                now_rfc3339()
            } else {
                String::new()
            },
            request_id: ctx.request_id.clone(),
            principal,
            tool: name,
            def: None,
            #[cfg(feature = "metrics")]
            series: None,
            trace_id: ctx.trace.as_ref().map(|t| t.trace_id()),
            args_sha256,
            args: (auditing && inner.audit_args).then(|| Value::Object(args.clone())),
            auditing,
            parent_call_id: ctx
                .parent
                .as_ref()
                .map(|p| p.call_id.to_string())
                .or_else(|| ctx.task_id.as_deref().map(str::to_owned)),
        }
    }

    /// Notes the tool's entry, once the tool is known to exist.
    pub(super) fn known(&mut self, entry: &'a Entry) {
        self.def = Some(entry.def);
        #[cfg(feature = "metrics")]
        {
            self.series = self
                .inner
                .metrics
                .as_deref()
                .and_then(|metrics| metrics.series(&entry.series, entry.def));
        }
    }

    /// Records a call that ended with `status`; `error` says why it failed (`None` on success).
    /// The call is answered with an error whether or not its record is kept.
    pub(super) async fn finish(self, status: AuditStatus, error: Option<String>) {
        let _ = self.finish_with(status, None, error).await;
    }

    /// Records a call; `Err` when a sink could not keep the record.
    pub(super) async fn finish_with(
        self,
        status: AuditStatus,
        upstream_status: Option<u16>,
        error: Option<String>,
    ) -> Result<(), Unrecorded> {
        #[cfg(feature = "metrics")]
        if let Some(metrics) = &self.inner.metrics {
            let duration = self.started.elapsed();
            match self.series {
                Some(series) => metrics.call_finished_in(series, status, duration),
                None => metrics.call_finished(self.def, status, duration),
            }
        }
        // The call's span (when it belongs to a trace) carries its outcome.
        let span = tracing::Span::current();
        if !span.is_none() {
            span.record("status", status.as_str());
            if let Some(code) = upstream_status {
                span.record("upstream_status", code);
            }
            if let Some(principal) = self.principal {
                span.record("principal", principal.id.as_str());
            }
        }
        if !self.auditing {
            return Ok(());
        }
        let event = AuditEvent {
            upstream_status,
            parent_call_id: self.parent_call_id,
            args: self.args,
            ..AuditEvent::new(
                new_call_id(),
                self.time,
                echoed(self.tool),
                status,
                self.args_sha256,
            )
            .by(
                self.principal.map(|p| p.id.as_str()),
                self.principal.and_then(|p| p.key_id.as_deref()),
            )
            .operation(self.def)
            .took(self.started.elapsed())
            .failed(error.as_deref())
            .request(self.request_id, self.trace_id)
        };
        self.inner.audit.try_record(event).await
    }
}

/// The text blocks of a result, joined by newlines, cut for the audit record.
pub(super) fn result_text(result: &ToolResult) -> String {
    let mut text = String::new();
    for content in &result.content {
        if let Content::Text(t) = content {
            if !text.is_empty() {
                text.push('\n');
            }
            text.push_str(t);
            if text.len() > 4 * MAX_ERROR_CHARS {
                break;
            }
        }
    }
    error_text(&text)
}
