//! One `tools/call`, independent of the transport, as named stages in order (`stages`):
//! visibility → the audit sinks' readiness → rate limit → argument validation → the tool set
//! → a stateless call's answers → confirmation → the call → its outcome (the output checked)
//! → one audit record (`record.rs`).
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

use futures::FutureExt;
use mcpgen_audit::{AuditSink, AuditStatus};
use mcpgen_core::result::ToolResult;
use mcpgen_core::tool::ToolDef;
use mcpgen_identity::Principal;
use serde_json::{Map, Value};

use super::confirm::{Confirmation, confirm};
use super::record::{Pending, result_text};
use crate::server::catalog::echo::echoed;
use crate::server::catalog::live::Served;
use crate::server::catalog::table::{Catalog, Entry};
use crate::server::config::OutputCheck;
use crate::server::state::inner::Inner;
use mcpgen_contract::guard_report::GuardReport;
use mcpgen_contract::input::{self, InputRequired, Refusal, RoundEnd};
use mcpgen_contract::toolset::{CallContext, ToolError, ToolSet};
use mcpgen_policy::rate::Refused;

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
/// `args_sha256` is the arguments' [`args_digest`](mcpgen_audit::args_digest).
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

/// A call answered before its outcome was known (refused, or asking the client something):
/// the status and error text of its audit record, and its answer.
struct Stop {
    status: AuditStatus,
    error: Option<String>,
    answer: Answer,
}

/// What a stage gives the next, or the [`Stop`] that ends the call there (boxed, so what a
/// stage that goes on returns stays small).
type Stage<T> = Result<T, Box<Stop>>;

impl Stop {
    /// Answered with `answer`; `error` is the record's error text.
    fn new(status: AuditStatus, error: Option<String>, answer: Answer) -> Box<Self> {
        Box::new(Self {
            status,
            error,
            answer,
        })
    }

    /// The tool was not called: answered with `error` as an error result.
    fn refused(status: AuditStatus, error: String) -> Box<Self> {
        let answer = Answer::Result(ToolResult::error(error.clone()));
        Self::new(status, Some(error), answer)
    }

    /// Answered with `answer`, its error text (if any) in the record.
    fn answered(status: AuditStatus, answer: Answer) -> Box<Self> {
        Self::new(status, answer_error(&answer), answer)
    }
}

/// How a call that ran ended: the status of its record, the upstream's HTTP status, and the
/// answer.
struct Ended {
    status: AuditStatus,
    upstream_status: Option<u16>,
    answer: Answer,
}

/// One call: its audit record begun, the stages of [`stages`], and the record written before
/// the answer is returned.
async fn run(
    inner: &Inner,
    principal: Option<&Principal>,
    name: &str,
    args: Option<Map<String, Value>>,
    ctx: &mut CallContext,
) -> Answer {
    let _in_flight = inner.inflight.enter();
    let args = args.unwrap_or_default();
    // The tools served now, for the whole call, even if they are replaced meanwhile.
    let served = inner.tools.load();
    let mut pending = Pending::begin(inner, principal, name, &args, ctx);
    match stages(inner, &served, principal, name, args, ctx, &mut pending).await {
        Ok(ended) => record(pending, ended, name).await,
        Err(stop) => {
            pending.finish(stop.status, stop.error).await;
            stop.answer
        }
    }
}

/// The stages of a call, in order: visibility, the audit sinks' readiness, the rate limit,
/// argument validation, the tool set, a stateless call's answers, confirmation, the call
/// itself, a question it left unanswered, and its outcome. A stage that answers the call
/// stops it there.
async fn stages<'a>(
    inner: &'a Inner,
    served: &'a Served,
    principal: Option<&'a Principal>,
    name: &str,
    args: Map<String, Value>,
    ctx: &mut CallContext,
    pending: &mut Pending<'a>,
) -> Stage<Ended> {
    let (principal, entry) = visible(&served.catalog, principal, name)?;
    pending.known(entry);
    audit_ready(inner, name)?;
    rate_limit(inner, principal, entry.def, name).await?;
    let args = validate(&served.catalog, name, args)?;
    let Some(set) = served.sets.get(entry.set) else {
        let error = "the tool's tool set is missing".to_owned();
        return Err(Stop::new(
            AuditStatus::ToolError,
            Some(error),
            Answer::UnknownTool,
        ));
    };
    let binding = open_answers(inner, ctx, principal, name, &pending.args_sha256)?;
    ctx.principal = Some(Arc::new(principal.clone()));
    ctx.notifier = std::mem::take(&mut ctx.notifier).with_logger(entry.def.name);
    confirmed(inner, ctx, entry.def, name, &args, &binding).await?;
    let outcome = call_set(set.as_ref(), entry.def, args, ctx).await;
    // A tool that fails because it asked the client something is answered with the question;
    // one that recovered from an unanswered question keeps its own result.
    let failed = !matches!(&outcome, Ok(Ok(result)) if !result.is_error);
    if failed && let Some((status, answer)) = pending_input(inner, ctx, &binding) {
        return Err(Stop::answered(status, answer));
    }
    let upstream_status = ctx.upstream_status();
    let guard = ctx.upstream_guard();
    #[cfg(feature = "metrics")]
    upstream_metrics(
        inner,
        ctx,
        pending.series,
        entry.def,
        upstream_status,
        guard,
    );
    let (status, answer) =
        outcome_answer(inner, &served.catalog, entry.def, name, ctx, guard, outcome);
    Ok(Ended {
        status,
        upstream_status,
        answer,
    })
}

/// Visibility: the caller and the tool's entry, when the caller may call it. A tool the
/// caller may not call is indistinguishable from one that does not exist.
fn visible<'a, 'c>(
    catalog: &'c Catalog,
    principal: Option<&'a Principal>,
    name: &str,
) -> Stage<(&'a Principal, &'c Entry)> {
    match (principal, catalog.get(name)) {
        (Some(p), Some(entry)) if p.may_call(entry.def) => Ok((p, entry)),
        _ => Err(Stop::new(
            AuditStatus::Denied,
            Some(unknown_tool_message(name)),
            Answer::UnknownTool,
        )),
    }
}

/// Refuses the call while the audit sinks cannot keep its record and the server refuses
/// calls it cannot record.
fn audit_ready(inner: &Inner, name: &str) -> Stage<()> {
    match inner.audit.unready() {
        None => Ok(()),
        Some(reason) => Err(Stop::refused(
            AuditStatus::Unavailable,
            format!(
                "tool `{name}` was not called: {reason}, and this server refuses calls it \
                 cannot record; retry later"
            ),
        )),
    }
}

/// The caller's rate limit for the tool `def`.
async fn rate_limit(inner: &Inner, principal: &Principal, def: &ToolDef, name: &str) -> Stage<()> {
    match inner.rate.admit(principal, def.name).await {
        Ok(()) => {}
        Err(Refused::Limited(limited)) => {
            return Err(Stop::refused(
                AuditStatus::RateLimited,
                format!("tool `{name}` was not called: {limited}"),
            ));
        }
        Err(Refused::Unavailable) => {
            return Err(Stop::refused(
                AuditStatus::Unavailable,
                format!(
                    "tool `{name}` was not called: the rate limit store is unreachable, and \
                     this server refuses calls it cannot limit; retry later"
                ),
            ));
        }
    }
    #[cfg(feature = "metrics")]
    if inner.rate.failing_open()
        && let Some(metrics) = &inner.metrics
    {
        metrics.rate_limit_store_error();
    }
    Ok(())
}

/// The arguments, checked against the tool's input schema.
fn validate(catalog: &Catalog, name: &str, args: Map<String, Value>) -> Stage<Map<String, Value>> {
    let (args, verdict) = catalog.validators().validate_map(name, args);
    match verdict {
        Ok(()) => Ok(args),
        Err(problem) => Err(Stop::refused(
            AuditStatus::InvalidArguments,
            format!("invalid arguments for tool `{name}`: {problem}"),
        )),
    }
}

/// Opens the answers a stateless call brought back; returns the binding of its sealed state
/// (empty in sessions).
fn open_answers(
    inner: &Inner,
    ctx: &CallContext,
    principal: &Principal,
    name: &str,
    args_sha256: &str,
) -> Stage<Vec<u8>> {
    let binding = if ctx.input.is_stateless() {
        state_binding(principal, name, args_sha256)
    } else {
        Vec::new()
    };
    match open_input(inner, ctx, &binding) {
        Ok(()) => Ok(binding),
        Err(refused) => Err(Stop::answered(AuditStatus::InvalidArguments, refused)),
    }
}

/// Confirmation, for a tool that needs a person's: asked of the client, or refused in a
/// program's inner call.
async fn confirmed(
    inner: &Inner,
    ctx: &CallContext,
    def: &'static ToolDef,
    name: &str,
    args: &Map<String, Value>,
    binding: &[u8],
) -> Stage<()> {
    if !def.confirm {
        return Ok(());
    }
    // A program cannot have a person confirm its call: a stateless confirmation re-runs the
    // request, which would replay the program's earlier writes.
    if ctx.parent.is_some() {
        return Err(Stop::refused(
            AuditStatus::NotConfirmed,
            format!(
                "tool `{name}` was not called: it needs a person's confirmation, which a \
                 program cannot ask for; call `{name}` directly (not from `execute`), where \
                 confirmation applies"
            ),
        ));
    }
    match confirm(inner, ctx, def, args).await {
        Confirmation::Confirmed => Ok(()),
        Confirmation::Refused(result) => Err(Stop::new(
            AuditStatus::NotConfirmed,
            Some(result_text(&result)),
            Answer::Result(result),
        )),
        Confirmation::Pending => match pending_input(inner, ctx, binding) {
            Some((status, answer)) => Err(Stop::answered(status, answer)),
            None => Err(Stop::refused(
                AuditStatus::NotConfirmed,
                format!("tool `{name}` was not called: not confirmed"),
            )),
        },
    }
}

/// Calls the tool on its tool set. A panicking tool set (`Err(())`) answers this call with
/// an error instead of taking the connection (or the session) down with it.
async fn call_set(
    set: &dyn ToolSet,
    def: &'static ToolDef,
    args: Map<String, Value>,
    ctx: &CallContext,
) -> Result<Result<ToolResult, ToolError>, ()> {
    match std::panic::catch_unwind(AssertUnwindSafe(|| set.call(def, args, ctx))) {
        Ok(future) => AssertUnwindSafe(future).catch_unwind().await.map_err(drop),
        Err(_) => Err(()),
    }
}

/// Counts the call's upstream request (its latency, status and timeout) and what the
/// upstream's guard did with it.
#[cfg(feature = "metrics")]
fn upstream_metrics(
    inner: &Inner,
    ctx: &CallContext,
    series: Option<&mcpgen_metrics::ToolSeries>,
    def: &ToolDef,
    upstream_status: Option<u16>,
    guard: GuardReport,
) {
    let Some(metrics) = &inner.metrics else {
        return;
    };
    if let Some(latency) = ctx.upstream_latency() {
        let timed_out = ctx.upstream_timed_out();
        match series {
            Some(series) => {
                metrics.upstream_finished_in(series, upstream_status, timed_out, latency);
            }
            None => metrics.upstream_finished(def, upstream_status, timed_out, latency),
        }
    }
    metrics.upstream_guarded(def, guard);
}

/// The answer to a call that ran, and its audit status: a result with its output checked
/// (and its structured content dropped where MCP does not allow it), or an error.
fn outcome_answer(
    inner: &Inner,
    catalog: &Catalog,
    def: &ToolDef,
    name: &str,
    ctx: &CallContext,
    guard: GuardReport,
    outcome: Result<Result<ToolResult, ToolError>, ()>,
) -> (AuditStatus, Answer) {
    match outcome {
        Ok(Ok(result)) => {
            let mut result = check_output(inner, catalog, def, name, result);
            // MCP ties structuredContent to an advertised outputSchema: a tool without one
            // answers with its text content only. A program's inner call keeps it: the
            // result goes to the program, not to the client.
            if def.output_schema.is_none() && !result.content.is_empty() && ctx.parent.is_none() {
                result.structured_content = None;
            }
            let status = if !result.is_error {
                AuditStatus::Ok
            } else if guard.refused.is_some() {
                // Refused unsent by the upstream's circuit breaker or concurrency cap.
                AuditStatus::Unavailable
            } else if ctx.upstream_timed_out() {
                AuditStatus::Timeout
            } else if def.http.is_some() {
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
    }
}

/// Writes the record of a call that ran and returns its answer, or, when a sink could not
/// keep the record, an error in its place.
async fn record(pending: Pending<'_>, ended: Ended, name: &str) -> Answer {
    let error = answer_error(&ended.answer);
    match pending
        .finish_with(ended.status, ended.upstream_status, error)
        .await
    {
        Ok(()) => ended.answer,
        Err(unrecorded) => Answer::Result(ToolResult::error(format!(
            "tool `{name}` is unavailable: {unrecorded}; this server reports no call it cannot \
             record, so the outcome is withheld (the tool may have run); retry later"
        ))),
    }
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

/// Checks a successful result's structured content against the tool's output schema, as the
/// server's [`OutputCheck`] mode says. Structured content that is not an object (a JSON array
/// where the schema is an object) is an error result in every mode that checks, the tolerant
/// one included; with the check off it is wrapped as `{"result": …}`.
fn check_output(
    inner: &Inner,
    catalog: &Catalog,
    def: &ToolDef,
    name: &str,
    mut result: ToolResult,
) -> ToolResult {
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
    let Err(problem) = catalog.validators().validate_output(name, output) else {
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
