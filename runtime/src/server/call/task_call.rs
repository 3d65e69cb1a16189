//! A `tools/call` of a task tool (see [`crate::tasks`]): answered at once with the task when
//! the client declared the tasks extension, the call itself going on in a task of its own
//! through the same pipeline as any call; refused when the tool requires tasks and the client
//! did not declare them; otherwise a call like any other.

use std::sync::Arc;

use mcpgen_audit::{AuditEvent, AuditSink, AuditStatus, Unrecorded, args_digest, now_rfc3339};
use rmcp::ErrorData;
use rmcp::model::{CallToolRequestParams, CallToolResponse, ClientCapabilities, CreateTaskResult};
use tracing::Instrument;

use super::pipeline::{self, Answer};
use crate::server::state::inner::Inner;
use mcpgen_contract::input::{InputChannel, TaskAsking};
use mcpgen_contract::notify::{Cancellation, Notifier};
use mcpgen_contract::tasks::TaskSupport;
use mcpgen_contract::toolset::CallContext;
use mcpgen_contract::wire::call_tool_result;
use mcpgen_identity::principal::Principal;

/// How a call of a tool goes.
pub(crate) enum Route<'a> {
    /// As any call: not a task tool, a client without tasks calling an optional one, or a
    /// tool the caller may not see (answered by the pipeline as unknown).
    Plain,
    /// As a task of `principal`.
    Task(&'a Principal),
    /// Refused: the tool requires tasks, which the client did not declare.
    Refused(ErrorData),
}

/// How the call of `name` with the context `call` goes.
pub(crate) fn route<'a>(
    inner: &Inner,
    principal: Option<&'a Principal>,
    name: &str,
    call: &CallContext,
) -> Route<'a> {
    let Some(support) = inner.tasks.support(name) else {
        return Route::Plain;
    };
    let Some(principal) = caller(inner, principal, name) else {
        return Route::Plain;
    };
    let declared = call
        .input
        .capabilities()
        .is_some_and(ClientCapabilities::supports_tasks);
    match (declared, support) {
        // The first round of a tool that asks before it becomes a task runs as any call.
        (true, TaskSupport::RequiredAfterInput) if !call.input.continues_rounds() => {
            if call.input.is_stateless() {
                Route::Plain
            } else {
                Route::Task(principal)
            }
        }
        (true, _) => Route::Task(principal),
        (false, TaskSupport::Required | TaskSupport::RequiredAfterInput) => {
            Route::Refused(ErrorData::missing_required_client_capability(
                ClientCapabilities::builder().enable_tasks().build(),
            ))
        }
        (false, _) => Route::Plain,
    }
}

/// How a `tools/call` goes for a client of the 2025-11-25 revision, which asks for a task with
/// the call's `task` parameter.
#[cfg(feature = "http")]
pub(crate) enum Route2025<'a> {
    /// Not decided here: a tool the caller may not see (answered by the pipeline as unknown),
    /// or a call without `task` (a plain call, or a task of the 2026-07-28 extension when the
    /// client declared it).
    AsAnyOther,
    /// As a task of `principal`.
    Task(&'a Principal),
    /// Refused with method not found, as that revision asks: `task` on a tool that does not run
    /// as a task.
    Refused(ErrorData),
}

/// How the 2025-11-25 call of `name` goes; `augmented` when the call has a `task` parameter.
#[cfg(feature = "http")]
pub(crate) fn route_2025<'a>(
    inner: &Inner,
    principal: Option<&'a Principal>,
    name: &str,
    augmented: bool,
) -> Route2025<'a> {
    let Some(principal) = caller(inner, principal, name) else {
        return Route2025::AsAnyOther;
    };
    let refused = |message: String| {
        Route2025::Refused(ErrorData::new(
            rmcp::model::ErrorCode::METHOD_NOT_FOUND,
            message,
            None,
        ))
    };
    match (augmented, inner.tasks.support(name)) {
        (true, Some(_)) => Route2025::Task(principal),
        (true, None) => refused(format!(
            "tool `{name}` does not run as a task (no `execution.taskSupport`); call it without \
             the `task` parameter"
        )),
        // Without `task`, the call is the extension's to route: a client on this revision may
        // also have declared the 2026-07-28 extension (the runtime's own client does).
        (false, _) => Route2025::AsAnyOther,
    }
}

/// Starts the call `request` of `principal` as a task and answers with the task; a full task
/// table answers with a tool error saying so.
pub(crate) async fn start(
    inner: &Arc<Inner>,
    principal: &Principal,
    request: CallToolRequestParams,
    mut call: CallContext,
    span: tracing::Span,
) -> CallToolResponse {
    let refused = |why: String| {
        let message = format!("tool `{}` was not started: {why}", request.name);
        call_tool_result(mcpgen_core::ToolResult::error(message)).into()
    };
    let (task, run) = match inner.tasks.start(&principal.id) {
        Ok(started) => started,
        Err(full) => return refused(full.to_string()),
    };
    if let Err(unrecorded) = record_start(inner, principal, &request, &call, run.id()).await {
        let why = format!("{unrecorded}; this server starts no task it cannot record, retry later");
        run.fail(&ErrorData::internal_error(why.clone(), None));
        return refused(why);
    }
    #[cfg(all(feature = "http", feature = "redis"))]
    let resumable = crate::server::tasks_shared::resumable(
        inner,
        principal,
        &request.name,
        request.arguments.as_ref(),
    );
    #[cfg(not(all(feature = "http", feature = "redis")))]
    let resumable = None;
    // Another replica answers for the task as soon as the client hears of it.
    if let Err(problem) = inner
        .tasks
        .share_start(&principal.id, &task, resumable.as_ref())
        .await
    {
        let why = format!("{problem}; the task could not be shared with the other replicas");
        run.fail(&ErrorData::internal_error(why.clone(), None));
        return refused(why);
    }
    call.task_id = Some(Arc::from(run.id()));
    call.task_run = Some(run.clone());
    // A later round keeps its answers (the call becomes the task once it has them); any
    // other call asks through the task.
    if !call.input.continues_rounds() {
        let capabilities = call.input.capabilities().cloned();
        call.input = InputChannel::Task(Arc::new(TaskAsking {
            run: run.clone(),
            capabilities,
        }));
    }
    call.cancellation = Cancellation::from_token(run.cancellation());
    // The request is answered with the task: no stream is left to notify on.
    call.notifier = Notifier::none();
    tracing::debug!(task = run.id(), tool = %request.name, "task started");
    let inner = inner.clone();
    let principal = principal.clone();
    tokio::spawn(
        async move {
            let name = request.name;
            let answer =
                pipeline::call_tool(&inner, Some(&principal), &name, request.arguments, call).await;
            match answer {
                Answer::Result(result) => run.finish(&call_tool_result(result)),
                Answer::UnknownTool => run.fail(&ErrorData::invalid_params(
                    pipeline::unknown_tool_message(&name),
                    None,
                )),
                Answer::Refused(refusal) => run.fail(&refusal.to_error()),
                Answer::InputRequired(_) => run.fail(&ErrorData::internal_error(
                    format!(
                        "tool `{name}` asked the client again after it became a task; a tool \
                         that asks before it becomes a task must ask everything first"
                    ),
                    None,
                )),
            }
        }
        .instrument(span),
    );
    CallToolResponse::Task(CreateTaskResult::new(task))
}

/// The audit record of a call that started the task `id`: its `call_id` is the task id, which
/// the record of the call the task runs names as its `parent_call_id`.
async fn record_start(
    inner: &Inner,
    principal: &Principal,
    request: &CallToolRequestParams,
    call: &CallContext,
    id: &str,
) -> Result<(), Unrecorded> {
    if !inner.audit.keeps_records() {
        return Ok(());
    }
    let empty = serde_json::Map::new();
    let args = request.arguments.as_ref().unwrap_or(&empty);
    let def = inner
        .tools
        .load()
        .catalog
        .get(&request.name)
        .map(|entry| entry.def);
    let event = AuditEvent::new(
        id.to_owned(),
        now_rfc3339(),
        request.name.to_string(),
        AuditStatus::TaskStarted,
        args_digest(args),
    )
    .by(Some(principal.id.as_str()), principal.key_id.as_deref())
    .operation(def)
    .args_if(inner.audit_args, || args.clone())
    .request(
        call.request_id.clone(),
        call.trace.as_ref().map(|t| t.trace_id()),
    );
    inner.audit.try_record(event).await
}

/// `principal`, if it may call the tool `name` (a tool it may not see is answered by the
/// pipeline as unknown, not as a task).
fn caller<'a>(
    inner: &Inner,
    principal: Option<&'a Principal>,
    name: &str,
) -> Option<&'a Principal> {
    principal.filter(|p| {
        inner
            .tools
            .load()
            .catalog
            .get(name)
            .is_some_and(|entry| p.may_call(entry.def))
    })
}
