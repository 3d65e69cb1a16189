//! The tasks of a server: starting one within the limits, and what `tasks/*` requests see.
//! The table itself (its orders and the results budget) is `table`; a task's running call is
//! `run`.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Instant;

use mcpgen_audit::now_rfc3339;
use rmcp::ErrorData;
use rmcp::model::{DetailedTask, InputRequests, JsonObject, Task, TaskPayload, TaskStatus};
use serde_json::Value;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use super::run::TaskRun;
use super::shared::{Change, Now, Record, SharedTasks};
use super::table::{Entry, Outcome, Table};
use super::{POLL_INTERVAL, TaskSettings, TaskSupport};

/// Every task of a server, in memory; see the [module](super) documentation.
#[derive(Debug)]
pub struct Tasks {
    pub(super) settings: TaskSettings,
    /// What task ids start with (`--replica-name`), with its `.`.
    prefix: String,
    table: Mutex<Table>,
    /// Where the tasks of every replica are kept, if they are shared.
    pub(super) shared: Option<Arc<dyn SharedTasks>>,
}

/// A call refused because as many tasks run as may.
#[derive(Debug, Clone, Copy, thiserror::Error)]
#[doc(hidden)]
pub enum Full {
    /// The server runs as many as it may.
    #[error(
        "this server runs {max} tasks, the most it may (--tasks-max); wait for some to end, \
         or raise the limit"
    )]
    Server {
        /// `--tasks-max`.
        max: usize,
    },
    /// The caller's principal runs as many as one principal may.
    #[error(
        "your principal runs {max} tasks, the most one principal may \
         (--tasks-max-per-principal); wait for one of them to end, or cancel one"
    )]
    Principal {
        /// `--tasks-max-per-principal`.
        max: usize,
    },
}

/// What `tasks/list` and the 2025-11-25 `tasks/get` show of a task: never its result.
#[derive(Debug, Clone)]
#[doc(hidden)]
pub struct Summary {
    /// The task's metadata, its status included.
    pub task: Task,
    /// How it is now.
    pub state: State,
}

/// A task's state, without its result.
#[derive(Debug, Clone, PartialEq, Eq)]
#[doc(hidden)]
pub enum State {
    /// Running.
    Working,
    /// Running, waiting for answers (`tasks/update`).
    InputRequired,
    /// Ended with the tool's result; `is_error` when it is a tool error.
    Completed {
        /// The result's `isError`.
        is_error: bool,
    },
    /// Failed with a JSON-RPC error, whose message this is.
    Failed {
        /// The error's message.
        message: Option<String>,
    },
    /// Cancelled.
    Cancelled,
    /// Ended, and its result (or error) dropped to stay within the results budget.
    Expired,
}

/// How a task ended, as `tasks/result` (2025-11-25) answers it.
#[derive(Debug)]
#[doc(hidden)]
pub enum Ending {
    /// Not yet.
    Running,
    /// The tool's result.
    Completed(JsonObject),
    /// The task's error.
    Failed(ErrorData),
    /// Cancelled.
    Cancelled,
}

impl Tasks {
    /// An empty table with `settings`; with `replica`, task ids start with `replica.`.
    pub fn new(settings: TaskSettings, replica: Option<&str>) -> Self {
        Self {
            settings,
            prefix: replica.map(|name| format!("{name}.")).unwrap_or_default(),
            table: Mutex::default(),
            shared: None,
        }
    }

    /// The same table, its tasks shared with other replicas through `shared`.
    #[must_use]
    pub fn with_shared(mut self, shared: Arc<dyn SharedTasks>) -> Self {
        self.shared = Some(shared);
        self
    }

    /// How the tool `name` runs as a task, if it does.
    pub fn support(&self, name: &str) -> Option<TaskSupport> {
        self.settings.tools.get(name).copied()
    }

    /// Whether any tool runs as a task: the server then declares the tasks extension.
    pub fn offered(&self) -> bool {
        !self.settings.tools.is_empty()
    }

    /// The number of tasks held, by status, for metrics.
    pub fn counts(&self) -> BTreeMap<&'static str, usize> {
        let table = self.lock();
        let mut counts = BTreeMap::new();
        for entry in table.entries.values() {
            *counts.entry(status_name(entry.task.status)).or_default() += 1;
        }
        counts
    }

    /// The bytes ended tasks keep (their results and entries), at most
    /// `--tasks-results-max-bytes`.
    pub fn kept_bytes(&self) -> usize {
        self.lock().kept_bytes()
    }

    /// The table, swept: tasks past their time to live ended, ended ones kept long enough
    /// dropped.
    pub(super) fn lock(&self) -> MutexGuard<'_, Table> {
        let mut table = self.table.lock().unwrap_or_else(PoisonError::into_inner);
        let ttl = self.settings.ttl;
        table.sweep(ttl, self.settings.results_max_bytes, || {
            error_object(&ErrorData::internal_error(
                format!(
                    "the task expired: it was still running when its time to live ({} s) passed",
                    ttl.as_secs()
                ),
                None,
            ))
        });
        self.share_ends(&mut table);
        table
    }

    /// Ends the task `id` with `outcome` (of status `status`), unless it has ended already.
    pub(super) fn end_in(&self, table: &mut Table, id: &str, outcome: Outcome, status: TaskStatus) {
        table.end(
            id,
            outcome,
            status,
            self.settings.ttl,
            self.settings.results_max_bytes,
        );
        self.share_ends(table);
    }

    /// Tells the store of the tasks that ended, or lost their result, since it was last told;
    /// under the table's lock, so that the store hears of changes in their order.
    fn share_ends(&self, table: &mut Table) {
        let changed = table.take_changed();
        let Some(shared) = &self.shared else {
            return;
        };
        for (id, expired) in changed {
            if expired {
                shared.changed(&id, Change::Expired);
                continue;
            }
            let Some(entry) = table.entries.get(&id) else {
                continue;
            };
            let result = entry.ended.as_ref().and_then(|ended| match &ended.outcome {
                Outcome::Completed { result, .. } => Some(result.clone()),
                Outcome::Failed(error) => serde_json::to_string(&**error).ok().map(Arc::new),
                Outcome::Cancelled | Outcome::Expired => None,
            });
            shared.changed(
                &id,
                Change::Ended {
                    record: record_of(entry),
                    result,
                    keep: self.settings.ttl,
                },
            );
        }
    }

    /// Tells the store how the running task `id` is now (a question asked or answered).
    pub(super) fn share_running(&self, table: &Table, id: &str) {
        if let (Some(shared), Some(entry)) = (&self.shared, table.entries.get(id))
            && entry.ended.is_none()
        {
            shared.changed(id, Change::Running(record_of(entry)));
        }
    }

    /// Starts a task for `owner`: its first state (for the `CreateTaskResult`) and the handle
    /// of its running call. The task is in the table before this returns. Refused when the
    /// server runs `--tasks-max` tasks, or `owner` runs `--tasks-max-per-principal`.
    #[doc(hidden)]
    pub fn start(self: &Arc<Self>, owner: &str) -> Result<(Task, TaskRun), Full> {
        let mut table = self.lock();
        let (all, own) = table.running(owner);
        if all >= self.settings.max {
            return Err(Full::Server {
                max: self.settings.max,
            });
        }
        let per_principal = self.settings.max_per_principal();
        if own >= per_principal {
            return Err(Full::Principal { max: per_principal });
        }
        let id = format!("{}{}", self.prefix, uuid::Uuid::new_v4().simple());
        let now = now_rfc3339();
        let ttl_ms = u64::try_from(self.settings.ttl.as_millis()).unwrap_or(u64::MAX);
        let poll_ms = u64::try_from(POLL_INTERVAL.as_millis()).unwrap_or(1000);
        let task = Task::new(id.clone(), TaskStatus::Working, now.clone(), now)
            .with_ttl_ms(ttl_ms)
            .with_poll_interval_ms(poll_ms);
        let cancel = CancellationToken::new();
        table.insert(owner, task.clone(), cancel.clone());
        drop(table);
        Ok((task, TaskRun::new(self.clone(), id, cancel, None)))
    }

    /// Takes over the running task `task` of `owner`, whose replica was lost, as running
    /// here; `resume` is where its operation was last polled. It counts as running, past
    /// the limits if need be: the work exists already.
    #[doc(hidden)]
    pub fn adopt(self: &Arc<Self>, owner: &str, task: Task, resume: Option<Arc<str>>) -> TaskRun {
        let id = task.task_id.clone();
        let cancel = CancellationToken::new();
        self.lock().insert(owner, task, cancel.clone());
        TaskRun::new(self.clone(), id, cancel, resume)
    }

    /// Whether this replica holds the task `id`.
    pub(super) fn holds(&self, id: &str) -> bool {
        self.lock().entries.contains_key(id)
    }

    /// The task `id` was cancelled on another replica, which the store says already: its call
    /// is told to stop, and the entry goes (the store answers for it).
    #[doc(hidden)]
    pub fn cancelled_elsewhere(&self, id: &str) {
        let mut table = self.lock();
        if let Some(entry) = table.entries.get(id) {
            entry.cancel.cancel();
            table.forget(id);
        }
    }

    /// Answers to the questions of the task `id`, handed on by another replica (which
    /// checked whose task it is).
    #[doc(hidden)]
    pub fn answers_from_elsewhere(&self, id: &str, responses: BTreeMap<String, Value>) {
        let owner = self.lock().entries.get(id).map(|entry| entry.owner.clone());
        if let Some(owner) = owner {
            // An unknown task has ended meanwhile: the answers are not needed.
            let _ = self.update(&owner, id, responses);
        }
    }

    /// `tasks/get`: the task `id` of `owner` as it is now, its result inlined once it has
    /// ended. The result is written out after the table's lock is let go.
    #[doc(hidden)]
    pub fn get(&self, owner: &str, id: &str) -> Result<DetailedTask, ErrorData> {
        let (task, payload) = {
            let table = self.lock();
            let entry = owned(&table, owner, id)?;
            (entry.task.clone(), Payload::of(entry))
        };
        let payload = match payload {
            Payload::Now(payload) => payload,
            Payload::Result(result) => TaskPayload::Completed {
                result: parse_result(&result)?,
            },
            Payload::Expired => return Err(expired(id, self.settings.results_max_bytes)),
        };
        Ok(DetailedTask::new(task, payload))
    }

    /// What `tasks/list` and the 2025-11-25 `tasks/get` show of the task `id` of `owner`;
    /// an expired one is refused, saying so.
    #[doc(hidden)]
    pub fn summary(&self, owner: &str, id: &str) -> Result<Summary, ErrorData> {
        let table = self.lock();
        let summary = summary(owned(&table, owner, id)?);
        if summary.state == State::Expired {
            return Err(expired(id, self.settings.results_max_bytes));
        }
        Ok(summary)
    }

    /// `tasks/update`: hands the answers to the questions they answer; answers to keys not
    /// asked (or answered already) are ignored.
    #[doc(hidden)]
    pub fn update(
        &self,
        owner: &str,
        id: &str,
        responses: BTreeMap<String, Value>,
    ) -> Result<(), ErrorData> {
        let mut table = self.lock();
        owned(&table, owner, id)?;
        let Some(entry) = table.entries.get_mut(id) else {
            return Err(unknown(id));
        };
        for (key, value) in responses {
            if let Some((_, answer)) = entry.pending.remove(&key) {
                // The call may have gone on without it.
                let _ = answer.send(value);
            }
        }
        entry.task.last_updated_at = now_rfc3339();
        self.share_running(&table, id);
        Ok(())
    }

    /// `tasks/cancel`: a running task ends as cancelled, and its call is told to stop; an
    /// ended task stays as it ended.
    #[doc(hidden)]
    pub fn cancel(&self, owner: &str, id: &str) -> Result<(), ErrorData> {
        let mut table = self.lock();
        owned(&table, owner, id)?.cancel.cancel();
        self.end_in(&mut table, id, Outcome::Cancelled, TaskStatus::Cancelled);
        Ok(())
    }

    /// `tasks/list` (2025-11-25): up to `count` of the tasks of `owner` from the `start`th,
    /// oldest first, as summaries (no result is copied), and how many `owner` has.
    #[doc(hidden)]
    pub fn list(&self, owner: &str, start: usize, count: usize) -> (Vec<Summary>, usize) {
        let table = self.lock();
        let ids: Vec<&String> = table.ids_of(owner).collect();
        let page = ids
            .iter()
            .skip(start)
            .take(count)
            .filter_map(|id| table.entries.get(*id))
            .map(summary)
            .collect();
        (page, ids.len())
    }

    /// What `tasks/result` (2025-11-25) waits on for the task `id` of `owner`: a receiver that
    /// turns `true` when the task ends (or errs when the task is dropped), and the time its
    /// TTL passes (the task then ends as failed on the next look).
    pub(crate) fn watch_end(
        &self,
        owner: &str,
        id: &str,
    ) -> Result<(watch::Receiver<bool>, Instant), ErrorData> {
        let table = self.lock();
        let entry = owned(&table, owner, id)?;
        Ok((
            entry.end_signal.subscribe(),
            entry.created + self.settings.ttl,
        ))
    }

    /// How the task `id` of `owner` ended, for `tasks/result` (2025-11-25); its result is
    /// written out after the table's lock is let go. An expired one is refused, saying so.
    #[doc(hidden)]
    pub fn ending(&self, owner: &str, id: &str) -> Result<Ending, ErrorData> {
        let outcome = {
            let table = self.lock();
            match &owned(&table, owner, id)?.ended {
                None => return Ok(Ending::Running),
                Some(ended) => ended.outcome.clone(),
            }
        };
        Ok(match outcome {
            Outcome::Completed { result, .. } => Ending::Completed(parse_result(&result)?),
            Outcome::Failed(error) => Ending::Failed(
                serde_json::from_value(Value::Object((*error).clone())).unwrap_or_else(|_| {
                    ErrorData::internal_error(format!("task `{id}` failed"), None)
                }),
            ),
            Outcome::Cancelled => Ending::Cancelled,
            Outcome::Expired => return Err(expired(id, self.settings.results_max_bytes)),
        })
    }

    /// `tasks/cancel` as the 2025-11-25 revision has it: a running task ends as cancelled
    /// (its call told to stop) and is answered as it is then; an ended task is refused with
    /// invalid params.
    pub(crate) fn cancel_running(&self, owner: &str, id: &str) -> Result<Summary, ErrorData> {
        let mut table = self.lock();
        let entry = owned(&table, owner, id)?;
        if entry.ended.is_some() {
            return Err(ErrorData::invalid_params(
                format!(
                    "task `{id}` has already ended ({}); only a running task can be cancelled",
                    status_name(entry.task.status)
                ),
                None,
            ));
        }
        entry.cancel.cancel();
        self.end_in(&mut table, id, Outcome::Cancelled, TaskStatus::Cancelled);
        let entry = owned(&table, owner, id)?;
        Ok(summary(entry))
    }
}

/// A task's payload as `tasks/get` answers it, taken under the lock: the result itself is
/// shared, and written out after.
enum Payload {
    Now(TaskPayload),
    Result(Arc<String>),
    Expired,
}

impl Payload {
    fn of(entry: &Entry) -> Self {
        match entry.ended.as_ref().map(|ended| &ended.outcome) {
            Some(Outcome::Completed { result, .. }) => Self::Result(result.clone()),
            Some(Outcome::Failed(error)) => Self::Now(TaskPayload::Failed {
                error: (**error).clone(),
            }),
            Some(Outcome::Cancelled) => Self::Now(TaskPayload::Cancelled),
            Some(Outcome::Expired) => Self::Expired,
            None if !entry.pending.is_empty() => Self::Now(TaskPayload::InputRequired {
                input_requests: entry
                    .pending
                    .iter()
                    .map(|(key, (request, _))| (key.clone(), request.clone()))
                    .collect::<InputRequests>(),
            }),
            None => Self::Now(TaskPayload::Working),
        }
    }
}

/// What the store keeps of `entry`.
fn record_of(entry: &Entry) -> Record {
    let Summary { task, state } = summary(entry);
    let now = match state {
        State::Working => Now::Working,
        State::InputRequired => Now::InputRequired {
            requests: entry
                .pending
                .iter()
                .map(|(key, (request, _))| (key.clone(), request.clone()))
                .collect(),
        },
        State::Completed { is_error } => Now::Completed { is_error },
        State::Failed { .. } => Now::Failed,
        State::Cancelled => Now::Cancelled,
        State::Expired => Now::Expired,
    };
    Record { task, now }
}

fn summary(entry: &Entry) -> Summary {
    let state = match entry.ended.as_ref().map(|ended| &ended.outcome) {
        Some(Outcome::Completed { is_error, .. }) => State::Completed {
            is_error: *is_error,
        },
        Some(Outcome::Failed(error)) => State::Failed {
            message: error
                .get("message")
                .and_then(Value::as_str)
                .map(str::to_owned),
        },
        Some(Outcome::Cancelled) => State::Cancelled,
        Some(Outcome::Expired) => State::Expired,
        None if !entry.pending.is_empty() => State::InputRequired,
        None => State::Working,
    };
    let mut task = entry.task.clone();
    if state == State::InputRequired {
        task.status = TaskStatus::InputRequired;
    }
    Summary { task, state }
}

/// A stored result read back as the object it was written from.
pub(super) fn parse_result(result: &str) -> Result<JsonObject, ErrorData> {
    serde_json::from_str(result).map_err(|e| {
        ErrorData::internal_error(
            format!("the task's stored result cannot be read: {e}"),
            None,
        )
    })
}

/// The entry `id` if `owner` started it; another principal's task is an unknown one.
fn owned<'a>(table: &'a Table, owner: &str, id: &str) -> Result<&'a Entry, ErrorData> {
    table
        .entries
        .get(id)
        .filter(|entry| entry.owner == owner)
        .ok_or_else(|| unknown(id))
}

pub(super) fn unknown(id: &str) -> ErrorData {
    ErrorData::invalid_params(format!("unknown task `{id}`"), None)
}

/// The error for a task whose result was dropped to stay within `budget` bytes.
pub(super) fn expired(id: &str, budget: usize) -> ErrorData {
    ErrorData::invalid_params(
        format!(
            "task `{id}` has expired: it ended, and its result was dropped because ended tasks \
             may keep at most {budget} bytes of results on this server \
             (--tasks-results-max-bytes), the oldest going first; run the call again"
        ),
        None,
    )
}

pub(crate) fn status_name(status: TaskStatus) -> &'static str {
    match status {
        TaskStatus::Working => "working",
        TaskStatus::InputRequired => "input_required",
        TaskStatus::Completed => "completed",
        TaskStatus::Failed => "failed",
        TaskStatus::Cancelled => "cancelled",
        _ => "other",
    }
}

/// A JSON-RPC error as the object `tasks/get` inlines.
pub(crate) fn error_object(error: &ErrorData) -> JsonObject {
    match serde_json::to_value(error) {
        Ok(Value::Object(object)) => object,
        _ => {
            let mut object = JsonObject::new();
            object.insert("code".into(), Value::from(error.code.0));
            object.insert("message".into(), Value::from(error.message.to_string()));
            object
        }
    }
}
