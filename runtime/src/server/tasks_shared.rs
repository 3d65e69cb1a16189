//! Tasks shared by the replicas (`--state-redis`; see [`mcpgen_contract::tasks::shared`]):
//! the table's store, this replica's lease on the tasks it runs, what other replicas tell it
//! about them, and the tasks it takes over from replicas that were lost.

use std::sync::Arc;

use mcpgen_contract::input::{InputChannel, TaskAsking};
use mcpgen_contract::notify::Cancellation;
use mcpgen_contract::tasks::shared::{ForHolder, Now, Resumable};
use mcpgen_contract::tasks::{TaskRun, Tasks};
use mcpgen_contract::toolset::CallContext;
use mcpgen_contract::wire::call_tool_result;
use mcpgen_identity::principal::Principal;
use mcpgen_state::tasks::{Claimed, LEASE};
use mcpgen_state::{SharedState, TaskStore};
use rmcp::ErrorData;
use tokio_util::sync::CancellationToken;

use super::call::pipeline::{self, Answer};
use super::state::inner::Inner;

/// `tasks`, shared through the store `shared` when there is one (and a tool runs as a task),
/// and the store's handle for [`hold`].
pub(crate) fn share(
    tasks: Tasks,
    shared: &Option<Arc<SharedState>>,
    server: &str,
) -> (Tasks, Option<TaskStore>) {
    match shared {
        Some(shared) if tasks.offered() => {
            let store = shared.tasks(server);
            (tasks.with_shared(Arc::new(store.clone())), Some(store))
        }
        _ => (tasks, None),
    }
}

/// What another replica needs to go on with a call of `name` for `principal`: only for a tool
/// whose operation the API may run long (`202` and a `Location`), when tasks are shared.
pub(crate) fn resumable(
    inner: &Inner,
    principal: &Principal,
    name: &str,
    arguments: Option<&serde_json::Map<String, serde_json::Value>>,
) -> Option<Resumable> {
    inner.task_store.as_ref()?;
    let served = inner.tools.load();
    let def = served.catalog.get(name)?.def;
    def.http.as_ref().filter(|binding| binding.task)?;
    Some(Resumable {
        tool: name.to_owned(),
        arguments: arguments.cloned().unwrap_or_default(),
        principal: principal.into(),
    })
}

/// Holds this replica's lease while `shutdown` is not cancelled, hands what other replicas
/// say to the tasks it runs, and takes over the tasks of replicas whose lease lapsed.
pub(crate) fn hold(inner: &Arc<Inner>, shutdown: &CancellationToken) {
    let Some(store) = inner.task_store.clone() else {
        return;
    };
    let mut told = store.listen(shutdown.clone());
    let tasks = inner.tasks.clone();
    tokio::spawn(async move {
        while let Some(request) = told.recv().await {
            match request {
                ForHolder::Cancel { id } => tasks.cancelled_elsewhere(&id),
                ForHolder::Answers { id, responses } => {
                    tasks.answers_from_elsewhere(&id, responses);
                }
            }
        }
    });
    let (inner, shutdown) = (inner.clone(), shutdown.clone());
    tokio::spawn(async move {
        let mut beat = tokio::time::interval(LEASE / 3);
        loop {
            tokio::select! {
                _ = beat.tick() => {}
                () = shutdown.cancelled() => return,
            }
            if let Err(error) = store.renew_lease().await {
                tracing::warn!(%error, "the tasks' lease was not renewed");
                continue;
            }
            match store.claim_lost().await {
                Ok(claimed) => {
                    for claimed in claimed {
                        take_over(&inner, claimed);
                    }
                }
                Err(error) => tracing::warn!(%error, "lost replicas' tasks were not looked for"),
            }
        }
    });
}

/// Goes on with a task claimed from a lost replica: its operation's polling resumed where that
/// replica was, or, when its work lived in that replica's process, the task failed saying so.
fn take_over(inner: &Arc<Inner>, claimed: Claimed) {
    let Claimed { id, stored } = claimed;
    if stored.record.now.ended() {
        return;
    }
    let mut task = stored.record.task;
    task.status = rmcp::model::TaskStatus::Working;
    let run = inner
        .tasks
        .adopt(&stored.owner, task, stored.resume.as_deref().map(Arc::from));
    let (Some(call), Some(_)) = (stored.call, stored.resume) else {
        run.fail(&ErrorData::internal_error(
            format!(
                "task `{id}` was lost with the replica that ran it: its work was in that \
                 replica's process (or its operation had not been accepted by the API yet), so \
                 no other replica can go on with it; run the call again"
            ),
            None,
        ));
        return;
    };
    debug_assert!(matches!(
        stored.record.now,
        Now::Working | Now::InputRequired { .. }
    ));
    let inner = inner.clone();
    tokio::spawn(async move {
        let principal = Principal::from(call.principal);
        let context = context_of(&run, &id);
        let answer = pipeline::call_tool(
            &inner,
            Some(&principal),
            &call.tool,
            Some(call.arguments),
            context,
        )
        .await;
        match answer {
            Answer::Result(result) => run.finish(&call_tool_result(result)),
            Answer::UnknownTool => run.fail(&ErrorData::invalid_params(
                pipeline::unknown_tool_message(&call.tool),
                None,
            )),
            Answer::Refused(refusal) => run.fail(&refusal.to_error()),
            Answer::InputRequired(_) => run.fail(&ErrorData::internal_error(
                "the task asked the client again after it was taken over",
                None,
            )),
        }
    });
}

/// The context of a call taken over as the task `id`: asking through the task, stopped by its
/// cancel, polling from where the lost replica was.
fn context_of(run: &TaskRun, id: &str) -> CallContext {
    let mut context = CallContext::new();
    context.task_id = Some(Arc::from(id));
    context.task_run = Some(run.clone());
    context.cancellation = Cancellation::from_token(run.cancellation());
    context.input = InputChannel::Task(Arc::new(TaskAsking {
        run: run.clone(),
        capabilities: None,
    }));
    context
}
