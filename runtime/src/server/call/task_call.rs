//! A `tools/call` of a task tool (see [`crate::tasks`]): answered at once with the task when
//! the client declared the tasks extension, the call itself going on in a task of its own
//! through the same pipeline as any call; refused when the tool requires tasks and the client
//! did not declare them; otherwise a call like any other.

use std::sync::Arc;

use rmcp::ErrorData;
use rmcp::model::{CallToolRequestParams, CallToolResponse, ClientCapabilities, CreateTaskResult};
use tracing::Instrument;

use super::pipeline::{self, Answer};
use crate::input::{InputChannel, TaskAsking};
use crate::notify::{Cancellation, Notifier};
use crate::principal::Principal;
use crate::server::state::inner::Inner;
use crate::tasks::TaskSupport;
use crate::toolset::CallContext;
use crate::wire::call_tool_result;

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
    let Some(principal) = principal.filter(|p| {
        inner
            .catalog
            .get(name)
            .is_some_and(|entry| p.may_call(entry.def))
    }) else {
        return Route::Plain;
    };
    let declared = call
        .input
        .capabilities()
        .is_some_and(ClientCapabilities::supports_tasks);
    match (declared, support) {
        (true, _) => Route::Task(principal),
        (false, TaskSupport::Required) => {
            Route::Refused(ErrorData::missing_required_client_capability(
                ClientCapabilities::builder().enable_tasks().build(),
            ))
        }
        (false, _) => Route::Plain,
    }
}

/// Starts the call `request` of `principal` as a task and answers with the task; a full task
/// table answers with a tool error saying so.
pub(crate) fn start(
    inner: &Arc<Inner>,
    principal: &Principal,
    request: CallToolRequestParams,
    mut call: CallContext,
    span: tracing::Span,
) -> CallToolResponse {
    let (task, run) = match inner.tasks.start(&principal.id) {
        Ok(started) => started,
        Err(full) => {
            let refused = mcpgen_core::ToolResult::error(format!(
                "tool `{}` was not started: {full}",
                request.name
            ));
            return call_tool_result(refused).into();
        }
    };
    let capabilities = call.input.capabilities().cloned();
    call.input = InputChannel::Task(Arc::new(TaskAsking {
        run: run.clone(),
        capabilities,
    }));
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
                    "the task's call asked in stateless rounds",
                    None,
                )),
            }
        }
        .instrument(span),
    );
    CallToolResponse::Task(CreateTaskResult::new(task))
}
