//! One `tools/call`, independent of the transport: visibility check → rate limit → argument
//! validation → dispatch to the owning tool set → one audit record.
//!
//! A tool may ask the client for input (see [`crate::input`]). In stateless calls the answers
//! the client brought back are opened (and a forged state refused) before dispatch, and a
//! tool that failed because it asked something unanswered is answered `input_required` with
//! its questions, audited as `input_required`.
//!
//! The tool set receives the caller's [`Principal`] in its [`CallContext`], set here once the
//! caller has passed the visibility check, and a notifier that names the tool in its log
//! messages.
//!
//! The audit record is written (as durably as the sinks promise) before the answer is
//! returned, so a client never receives the result of a call whose record could be lost: a
//! call whose record a sink could not keep is answered `unavailable` instead.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::Instant;

use futures::FutureExt;
use mcpgen_core::result::{Content, ToolResult};
use mcpgen_core::tool::ToolDef;
use mcpgen_identity::Principal;
use serde_json::{Map, Value};

use super::confirm::{Confirmation, confirm};
use crate::audit::{
    AuditEvent, AuditSink, AuditStatus, MAX_ERROR_CHARS, Unrecorded, args_digest, error_text,
    new_call_id, now_rfc3339,
};
use crate::input::{self, InputRequired, Refusal, RoundEnd};
use crate::server::catalog::echo::echoed;
use crate::server::config::OutputCheck;
use crate::server::policy::rate::Refused;
use crate::server::state::inner::Inner;
use crate::toolset::{CallContext, ToolError};

/// How a call is answered.
#[derive(Debug)]
pub(crate) enum Answer {
    /// A tool result (possibly `is_error`).
    Result(ToolResult),
    /// The tool does not exist or the caller may not call it: answered as an unknown tool.
    UnknownTool,
    /// A stateless call whose tool asked the client for input: answered `input_required`.
    InputRequired(InputRequired),
    /// A stateless call answered with a JSON-RPC error: an answer or the echoed state cannot
    /// be used, or a question needs a capability the client did not declare.
    Refused(Refusal),
}

/// The binding of a stateless `tools/call`'s sealed state (see [`input::binding`]);
/// `args_sha256` is the arguments' [`args_digest`].
pub(crate) fn state_binding(principal: &Principal, tool: &str, args_sha256: &str) -> Vec<u8> {
    input::binding(&principal.id, &format!("tools/call {tool}"), args_sha256)
}

/// Opens the answers a stateless call brought back (see [`crate::input`]); `Err` is the
/// answer refusing a state that fails verification. Nothing to do in sessions.
pub(crate) fn open_input(inner: &Inner, ctx: &CallContext, binding: &[u8]) -> Result<(), Answer> {
    ctx.input
        .open(&inner.request_states, binding)
        .map_err(Answer::Refused)
}

/// What answers a stateless call in place of a step that failed because it asked the client
/// something (an `input_required` result with the sealed state), or got an answer it cannot
/// use (a refusal), with the audit status of that answer. `None` in sessions, and when
/// nothing was asked.
pub(crate) fn pending_input(
    inner: &Inner,
    ctx: &CallContext,
    binding: &[u8],
) -> Option<(AuditStatus, Answer)> {
    Some(match ctx.input.end(&inner.request_states, binding)? {
        RoundEnd::Ask(required) => (AuditStatus::InputRequired, Answer::InputRequired(required)),
        RoundEnd::Refuse(refusal @ Refusal::MissingCapability(_)) => {
            (AuditStatus::ToolError, Answer::Refused(refusal))
        }
        RoundEnd::Refuse(refusal) => (AuditStatus::InvalidArguments, Answer::Refused(refusal)),
    })
}

/// The message of the protocol error that answers an unknown or hidden tool.
pub(crate) fn unknown_tool_message(name: &str) -> String {
    format!("Unknown tool: {}", echoed(name))
}

/// What the audit record of one call needs besides its outcome.
struct Pending<'a> {
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
    series: Option<&'a crate::metrics::ToolSeries>,
    trace_id: Option<String>,
    args_sha256: String,
    args: Option<Value>,
    /// Whether a sink keeps the record, decided when the call began.
    auditing: bool,
    /// The `call_id` of the `execute` this is an inner call of (code mode).
    parent_call_id: Option<String>,
}

impl Pending<'_> {
    /// Records a call that ended with `status`; `error` says why it failed (`None` on success).
    /// The call is answered with an error whether or not its record is kept.
    async fn finish(self, status: AuditStatus, error: Option<String>) {
        let _ = self.finish_with(status, None, error).await;
    }

    /// Records a call; `Err` when a sink could not keep the record.
    async fn finish_with(
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
        let duration_ms = u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX);
        let event = AuditEvent {
            time: self.time,
            request_id: self.request_id,
            principal: self.principal.map(|p| p.id.clone()),
            key_id: self.principal.and_then(|p| p.key_id.clone()),
            tool: echoed(self.tool),
            operation_id: self
                .def
                .and_then(|def| def.http.as_ref())
                .map(|http| http.operation_id.to_owned()),
            status,
            duration_ms,
            upstream_status,
            args_sha256: self.args_sha256,
            args: self.args,
            error: error.as_deref().map(error_text),
            trace_id: self.trace_id,
            call_id: new_call_id(),
            parent_call_id: self.parent_call_id,
            code_sha256: None,
            inner_calls: None,
        };
        self.inner.audit.try_record(event).await
    }
}

/// Runs one `tools/call` for `principal` (`None`: nobody was identified, so nothing is visible).
pub(crate) async fn call_tool(
    inner: &Inner,
    principal: Option<&Principal>,
    name: &str,
    args: Option<Map<String, Value>>,
    mut ctx: CallContext,
) -> Answer {
    run(inner, principal, name, args, &mut ctx).await
}

/// Runs one inner call of a program (code mode) for `principal`: a `tools/call` whose context
/// names its `execute` ([`CallContext::parent`]). Such a call never asks the person to confirm
/// (a tool that needs it is refused, to be called directly), and its successful result keeps
/// its structured content whatever the tool's output schema. Also returns the upstream's HTTP
/// status, when an upstream answered.
#[cfg(feature = "code-mode")]
pub(crate) async fn call_inner(
    inner: &Inner,
    principal: &Principal,
    name: &str,
    args: Map<String, Value>,
    mut ctx: CallContext,
) -> (Answer, Option<u16>) {
    let answer = run(inner, Some(principal), name, Some(args), &mut ctx).await;
    (answer, ctx.upstream_status())
}

async fn run(
    inner: &Inner,
    principal: Option<&Principal>,
    name: &str,
    args: Option<Map<String, Value>>,
    ctx: &mut CallContext,
) -> Answer {
    let _in_flight = inner.inflight.enter();
    let args = args.unwrap_or_default();
    let auditing = inner.audit.keeps_records();
    // One digest of the arguments serves the audit record and a stateless call's sealed state.
    let args_sha256 = if auditing || ctx.input.is_stateless() {
        args_digest(&args)
    } else {
        String::new()
    };
    let mut pending = Pending {
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
    };

    // Visibility: a tool the caller may not call is indistinguishable from one that does not
    // exist.
    let (principal, entry) = match (principal, inner.catalog.get(name)) {
        (Some(p), Some(entry)) if p.may_call(entry.def) => (p, entry),
        _ => {
            let error = unknown_tool_message(name);
            pending.finish(AuditStatus::Denied, Some(error)).await;
            return Answer::UnknownTool;
        }
    };
    pending.def = Some(entry.def);
    #[cfg(feature = "metrics")]
    {
        pending.series = inner
            .metrics
            .as_deref()
            .and_then(|metrics| metrics.series(&entry.series, entry.def));
    }

    if let Some(reason) = inner.audit.unready() {
        let error = format!(
            "tool `{name}` was not called: {reason}, and this server refuses calls it cannot \
             record; retry later"
        );
        pending
            .finish(AuditStatus::Unavailable, Some(error.clone()))
            .await;
        return Answer::Result(ToolResult::error(error));
    }

    match inner.rate.admit(principal, entry.def.name).await {
        Ok(()) => {}
        Err(Refused::Limited(limited)) => {
            let error = format!("tool `{name}` was not called: {limited}");
            pending
                .finish(AuditStatus::RateLimited, Some(error.clone()))
                .await;
            return Answer::Result(ToolResult::error(error));
        }
        Err(Refused::Unavailable) => {
            let error = format!(
                "tool `{name}` was not called: the rate limit store is unreachable, and this \
                 server refuses calls it cannot limit; retry later"
            );
            pending
                .finish(AuditStatus::Unavailable, Some(error.clone()))
                .await;
            return Answer::Result(ToolResult::error(error));
        }
    }
    #[cfg(feature = "metrics")]
    if inner.rate.failing_open()
        && let Some(metrics) = &inner.metrics
    {
        metrics.rate_limit_store_error();
    }

    let (args, verdict) = inner.catalog.validators().validate_map(name, args);
    if let Err(problem) = verdict {
        let error = format!("invalid arguments for tool `{name}`: {problem}");
        pending
            .finish(AuditStatus::InvalidArguments, Some(error.clone()))
            .await;
        return Answer::Result(ToolResult::error(error));
    }

    let Some(set) = inner.sets.get(entry.set) else {
        let error = "the tool's tool set is missing".to_owned();
        pending.finish(AuditStatus::ToolError, Some(error)).await;
        return Answer::UnknownTool;
    };
    let binding = if ctx.input.is_stateless() {
        state_binding(principal, name, &pending.args_sha256)
    } else {
        Vec::new()
    };
    if let Err(refused) = open_input(inner, ctx, &binding) {
        let error = answer_error(&refused);
        pending.finish(AuditStatus::InvalidArguments, error).await;
        return refused;
    }
    ctx.principal = Some(Arc::new(principal.clone()));
    ctx.notifier = std::mem::take(&mut ctx.notifier).with_logger(entry.def.name);
    // A program cannot have a person confirm its call: a stateless confirmation re-runs the
    // request, which would replay the program's earlier writes.
    if entry.def.confirm && ctx.parent.is_some() {
        let error = format!(
            "tool `{name}` was not called: it needs a person's confirmation, which a program \
             cannot ask for; call `{name}` directly (not from `execute`), where confirmation applies"
        );
        pending
            .finish(AuditStatus::NotConfirmed, Some(error.clone()))
            .await;
        return Answer::Result(ToolResult::error(error));
    }
    if entry.def.confirm {
        match confirm(inner, ctx, entry.def, &args).await {
            Confirmation::Confirmed => {}
            Confirmation::Refused(result) => {
                let error = Some(result_text(&result));
                pending.finish(AuditStatus::NotConfirmed, error).await;
                return Answer::Result(result);
            }
            Confirmation::Pending => {
                if let Some((status, answer)) = pending_input(inner, ctx, &binding) {
                    let error = answer_error(&answer);
                    pending.finish(status, error).await;
                    return answer;
                }
                let error = format!("tool `{name}` was not called: not confirmed");
                pending
                    .finish(AuditStatus::NotConfirmed, Some(error.clone()))
                    .await;
                return Answer::Result(ToolResult::error(error));
            }
        }
    }
    // A panicking tool set answers this call with an error instead of taking the connection
    // (or the session) down with it.
    let outcome =
        match std::panic::catch_unwind(AssertUnwindSafe(|| set.call(entry.def, args, ctx))) {
            Ok(future) => AssertUnwindSafe(future).catch_unwind().await.map_err(drop),
            Err(_) => Err(()),
        };
    // A tool that fails because it asked the client something is answered with the question;
    // one that recovered from an unanswered question keeps its own result.
    let failed = !matches!(&outcome, Ok(Ok(result)) if !result.is_error);
    if failed && let Some((status, answer)) = pending_input(inner, ctx, &binding) {
        let error = answer_error(&answer);
        pending.finish(status, error).await;
        return answer;
    }
    let upstream_status = ctx.upstream_status();
    let guard = ctx.upstream_guard();
    #[cfg(feature = "metrics")]
    if let Some(metrics) = &inner.metrics {
        if let Some(latency) = ctx.upstream_latency() {
            let timed_out = ctx.upstream_timed_out();
            match pending.series {
                Some(series) => {
                    metrics.upstream_finished_in(series, upstream_status, timed_out, latency);
                }
                None => metrics.upstream_finished(entry.def, upstream_status, timed_out, latency),
            }
        }
        metrics.upstream_guarded(entry.def, guard);
    }
    let (status, answer) = match outcome {
        Ok(Ok(result)) => {
            let mut result = check_output(inner, entry.def, name, result);
            // MCP ties structuredContent to an advertised outputSchema: a tool without one
            // answers with its text content only. A program's inner call keeps it: the
            // result goes to the program, not to the client.
            if entry.def.output_schema.is_none()
                && !result.content.is_empty()
                && ctx.parent.is_none()
            {
                result.structured_content = None;
            }
            let status = if !result.is_error {
                AuditStatus::Ok
            } else if guard.refused.is_some() {
                // Refused unsent by the upstream's circuit breaker or concurrency cap.
                AuditStatus::Unavailable
            } else if ctx.upstream_timed_out() {
                AuditStatus::Timeout
            } else if entry.def.http.is_some() {
                AuditStatus::UpstreamError
            } else {
                AuditStatus::ToolError
            };
            (status, Answer::Result(result))
        }
        Ok(Err(ToolError::InvalidArguments { tool, message })) => (
            AuditStatus::InvalidArguments,
            Answer::Result(ToolResult::error(format!(
                "invalid arguments for tool `{tool}`: {message}"
            ))),
        ),
        Ok(Err(ToolError::UnknownTool(_))) => {
            tracing::error!(
                tool = name,
                "the tool set that lists this tool refused it as unknown"
            );
            (AuditStatus::ToolError, Answer::UnknownTool)
        }
        Err(()) => {
            tracing::error!(tool = name, "the tool panicked");
            ctx.input.failed_unexpectedly();
            (
                AuditStatus::ToolError,
                Answer::Result(ToolResult::error(format!(
                    "tool `{name}` failed unexpectedly; the server log has details"
                ))),
            )
        }
    };
    let error = answer_error(&answer);
    if let Err(unrecorded) = pending.finish_with(status, upstream_status, error).await {
        return Answer::Result(ToolResult::error(format!(
            "tool `{name}` is unavailable: {unrecorded}; this server reports no call it cannot \
             record, so the outcome is withheld (the tool may have run); retry later"
        )));
    }
    answer
}

/// The error text an answer gave the client, for the audit record (`None` for a success and
/// for a question to the client).
fn answer_error(answer: &Answer) -> Option<String> {
    match answer {
        Answer::Result(result) if result.is_error => Some(result_text(result)),
        Answer::Result(_) | Answer::InputRequired(_) => None,
        Answer::UnknownTool => Some("the tool set that lists this tool refused it".to_owned()),
        Answer::Refused(refusal) => Some(refusal.to_error().message.to_string()),
    }
}

/// The text blocks of a result, joined by newlines, cut for the audit record.
fn result_text(result: &ToolResult) -> String {
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

/// Checks a successful result's structured content against the tool's output schema, as the
/// server's [`OutputCheck`] mode says. Structured content that is not an object (a JSON array
/// where the schema is an object) is an error result in every mode that checks, the tolerant
/// one included; with the check off it is wrapped as `{"result": …}`.
fn check_output(inner: &Inner, def: &ToolDef, name: &str, mut result: ToolResult) -> ToolResult {
    if result.is_error || def.output_schema.is_none() {
        return result;
    }
    let Some(output) = &result.structured_content else {
        return result;
    };
    if !output.is_object() {
        if inner.output_check == OutputCheck::Off {
            let mut wrapped = serde_json::Map::new();
            if let Some(value) = result.structured_content.take() {
                wrapped.insert("result".to_owned(), value);
            }
            result.structured_content = Some(Value::Object(wrapped));
            return result;
        }
        tracing::warn!(
            tool = name,
            kind = json_kind(output),
            "the result is not an object, as the tool's output schema is; sent as an error result"
        );
        return ToolResult::error(format!(
            "tool `{name}`: the API answered with a JSON {}, but the tool's output schema is an \
             object; the answer is not returned as the tool's result",
            json_kind(output)
        ));
    }
    if inner.output_check == OutputCheck::Off {
        return result;
    }
    let Err(problem) = inner.catalog.validators().validate_output(name, output) else {
        return result;
    };
    match inner.output_check {
        OutputCheck::Strict => ToolResult::error(format!(
            "tool `{name}` returned a result that does not match its output schema: {problem}"
        )),
        OutputCheck::Tolerant | OutputCheck::Off => {
            tracing::warn!(
                tool = name,
                problem = %problem,
                "the result does not fit the tool's advertised output schema; sent as an error result with the data as text"
            );
            // Clients reject structured content that fails the advertised schema, also on
            // error results: the data goes as text only.
            ToolResult::error(format!(
                "tool `{name}`: the API's answer does not fit the tool's output schema ({problem}); the data as received:\n{output}"
            ))
        }
    }
}

/// The JSON type of `value`, for messages.
fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}
