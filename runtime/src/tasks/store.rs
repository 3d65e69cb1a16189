//! The task table: each task's state, who started it, its open questions and its end.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use rmcp::ErrorData;
use rmcp::model::{
    CallToolResult, DetailedTask, InputRequest, InputRequests, JsonObject, Task, TaskPayload,
    TaskStatus,
};
use serde_json::Value;
use tokio::sync::{oneshot, watch};
use tokio_util::sync::CancellationToken;

use super::{POLL_INTERVAL, TaskSettings, TaskSupport};
use crate::audit::now_rfc3339;

/// Every task of a server, in memory; see the [module](super) documentation.
#[derive(Debug)]
pub struct Tasks {
    settings: TaskSettings,
    /// What task ids start with (`--replica-name`), with its `.`.
    prefix: String,
    entries: Mutex<HashMap<String, Entry>>,
}

/// A call refused because the table holds as many tasks as it may.
#[derive(Debug, Clone, Copy, thiserror::Error)]
#[error(
    "this server holds {max} tasks, the most it may (--tasks-max); wait for some to end or \
     expire, or raise the limit"
)]
pub(crate) struct Full {
    max: usize,
}

#[derive(Debug)]
struct Entry {
    /// The id of the principal that started the task; nobody else sees it.
    owner: String,
    task: Task,
    created: Instant,
    /// Until when the entry is kept once ended.
    keep_until: Instant,
    terminal: Option<TaskPayload>,
    /// Questions waiting for a `tasks/update`, by key.
    pending: BTreeMap<String, (InputRequest, oneshot::Sender<Value>)>,
    /// Every key asked so far: a key is asked once in a task's life.
    asked: Vec<String>,
    /// Cancelled by `tasks/cancel` (and when the task expires): the running call sees it.
    cancel: CancellationToken,
    /// `true` once the task has ended.
    ended: watch::Sender<bool>,
    /// The tool failed in a way that is not a tool error (it panicked): the task fails.
    failed_unexpectedly: bool,
}

impl Entry {
    fn detailed(&self) -> DetailedTask {
        let payload = match &self.terminal {
            Some(payload) => payload.clone(),
            None if !self.pending.is_empty() => TaskPayload::InputRequired {
                input_requests: self
                    .pending
                    .iter()
                    .map(|(key, (request, _))| (key.clone(), request.clone()))
                    .collect::<InputRequests>(),
            },
            None => TaskPayload::Working,
        };
        DetailedTask::new(self.task.clone(), payload)
    }

    /// Ends the task with `payload`, unless it has ended already.
    fn end(&mut self, payload: TaskPayload, keep: Duration) {
        if self.terminal.is_some() {
            return;
        }
        self.task.status = payload.status();
        self.task.last_updated_at = now_rfc3339();
        self.terminal = Some(payload);
        self.pending.clear();
        self.keep_until = self.keep_until.max(Instant::now() + keep);
        self.ended.send_replace(true);
    }
}

/// A task's running call: asks the client through the task, and ends it.
#[derive(Debug, Clone)]
pub(crate) struct TaskRun {
    tasks: Arc<Tasks>,
    id: String,
    cancel: CancellationToken,
}

impl Tasks {
    /// An empty table with `settings`; with `replica`, task ids start with `replica.`.
    pub fn new(settings: TaskSettings, replica: Option<&str>) -> Self {
        Self {
            settings,
            prefix: replica.map(|name| format!("{name}.")).unwrap_or_default(),
            entries: Mutex::default(),
        }
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
        let mut entries = self.lock();
        self.sweep(&mut entries);
        let mut counts = BTreeMap::new();
        for entry in entries.values() {
            *counts.entry(status_name(entry.task.status)).or_default() += 1;
        }
        counts
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<String, Entry>> {
        self.entries.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Starts a task for `owner`: its first state (for the `CreateTaskResult`) and the handle
    /// of its running call. The task is in the table before this returns.
    pub(crate) fn start(self: &Arc<Self>, owner: &str) -> Result<(Task, TaskRun), Full> {
        let mut entries = self.lock();
        self.sweep(&mut entries);
        if entries.len() >= self.settings.max {
            return Err(Full {
                max: self.settings.max,
            });
        }
        let id = format!("{}{}", self.prefix, uuid::Uuid::new_v4().simple());
        let now = now_rfc3339();
        let ttl_ms = u64::try_from(self.settings.ttl.as_millis()).unwrap_or(u64::MAX);
        let poll_ms = u64::try_from(POLL_INTERVAL.as_millis()).unwrap_or(1000);
        let task = Task::new(id.clone(), TaskStatus::Working, now.clone(), now)
            .with_ttl_ms(ttl_ms)
            .with_poll_interval_ms(poll_ms);
        let cancel = CancellationToken::new();
        let created = Instant::now();
        entries.insert(
            id.clone(),
            Entry {
                owner: owner.to_owned(),
                task: task.clone(),
                created,
                keep_until: created + self.settings.ttl,
                terminal: None,
                pending: BTreeMap::new(),
                asked: Vec::new(),
                cancel: cancel.clone(),
                ended: watch::channel(false).0,
                failed_unexpectedly: false,
            },
        );
        let run = TaskRun {
            tasks: self.clone(),
            id,
            cancel,
        };
        Ok((task, run))
    }

    /// `tasks/get`: the task `id` of `owner` as it is now.
    pub(crate) fn get(&self, owner: &str, id: &str) -> Result<DetailedTask, ErrorData> {
        let mut entries = self.lock();
        self.sweep(&mut entries);
        Ok(owned(&entries, owner, id)?.detailed())
    }

    /// `tasks/update`: hands the answers to the questions they answer; answers to keys not
    /// asked (or answered already) are ignored.
    pub(crate) fn update(
        &self,
        owner: &str,
        id: &str,
        responses: BTreeMap<String, Value>,
    ) -> Result<(), ErrorData> {
        let mut entries = self.lock();
        self.sweep(&mut entries);
        owned(&entries, owner, id)?;
        let Some(entry) = entries.get_mut(id) else {
            return Err(unknown(id));
        };
        for (key, value) in responses {
            if let Some((_, answer)) = entry.pending.remove(&key) {
                // The call may have gone on without it.
                let _ = answer.send(value);
            }
        }
        entry.task.last_updated_at = now_rfc3339();
        Ok(())
    }

    /// `tasks/cancel`: a running task ends as cancelled, and its call is told to stop; an
    /// ended task stays as it ended.
    pub(crate) fn cancel(&self, owner: &str, id: &str) -> Result<(), ErrorData> {
        let mut entries = self.lock();
        self.sweep(&mut entries);
        owned(&entries, owner, id)?;
        if let Some(entry) = entries.get_mut(id) {
            entry.cancel.cancel();
            entry.end(TaskPayload::Cancelled, self.settings.ttl);
        }
        Ok(())
    }

    /// `tasks/list` (2025-11-25): the tasks of `owner` as they are now, oldest first.
    #[cfg(feature = "http")]
    pub(crate) fn list(&self, owner: &str) -> Vec<DetailedTask> {
        let mut entries = self.lock();
        self.sweep(&mut entries);
        let mut owned: Vec<&Entry> = entries.values().filter(|e| e.owner == owner).collect();
        owned.sort_by(|a, b| {
            a.created
                .cmp(&b.created)
                .then(a.task.task_id.cmp(&b.task.task_id))
        });
        owned.into_iter().map(Entry::detailed).collect()
    }

    /// What `tasks/result` (2025-11-25) waits on for the task `id` of `owner`: a receiver that
    /// turns `true` when the task ends (or errs when the task is dropped), and the time its
    /// TTL passes (the task then ends as failed on the next look).
    #[cfg(feature = "http")]
    pub(crate) fn watch_end(
        &self,
        owner: &str,
        id: &str,
    ) -> Result<(watch::Receiver<bool>, Instant), ErrorData> {
        let mut entries = self.lock();
        self.sweep(&mut entries);
        let entry = owned(&entries, owner, id)?;
        Ok((entry.ended.subscribe(), entry.created + self.settings.ttl))
    }

    /// `tasks/cancel` as the 2025-11-25 revision has it: a running task ends as cancelled
    /// (its call told to stop) and is answered as it is then; an ended task is refused with
    /// invalid params.
    #[cfg(feature = "http")]
    pub(crate) fn cancel_running(&self, owner: &str, id: &str) -> Result<DetailedTask, ErrorData> {
        let mut entries = self.lock();
        self.sweep(&mut entries);
        owned(&entries, owner, id)?;
        let Some(entry) = entries.get_mut(id) else {
            return Err(unknown(id));
        };
        if entry.terminal.is_some() {
            return Err(ErrorData::invalid_params(
                format!(
                    "task `{id}` has already ended ({}); only a running task can be cancelled",
                    status_name(entry.task.status)
                ),
                None,
            ));
        }
        entry.cancel.cancel();
        entry.end(TaskPayload::Cancelled, self.settings.ttl);
        Ok(entry.detailed())
    }

    /// Ends the tasks past their TTL as failed, and drops ended ones kept long enough.
    fn sweep(&self, entries: &mut HashMap<String, Entry>) {
        let now = Instant::now();
        let ttl = self.settings.ttl;
        for entry in entries.values_mut() {
            if entry.terminal.is_none() && now.duration_since(entry.created) >= ttl {
                entry.cancel.cancel();
                let error = ErrorData::internal_error(
                    format!(
                        "the task expired: it was still running when its time to live ({} s) \
                         passed",
                        ttl.as_secs()
                    ),
                    None,
                );
                entry.end(
                    TaskPayload::Failed {
                        error: error_object(&error),
                    },
                    ttl,
                );
            }
        }
        entries.retain(|_, entry| entry.terminal.is_none() || now < entry.keep_until);
    }

    fn with_entry<T>(&self, id: &str, f: impl FnOnce(&mut Entry) -> T) -> Option<T> {
        self.lock().get_mut(id).map(f)
    }
}

/// The entry `id` if `owner` started it; another principal's task is an unknown one.
fn owned<'a>(
    entries: &'a HashMap<String, Entry>,
    owner: &str,
    id: &str,
) -> Result<&'a Entry, ErrorData> {
    entries
        .get(id)
        .filter(|entry| entry.owner == owner)
        .ok_or_else(|| unknown(id))
}

fn unknown(id: &str) -> ErrorData {
    ErrorData::invalid_params(format!("unknown task `{id}`"), None)
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

impl TaskRun {
    /// The task's id.
    pub(crate) fn id(&self) -> &str {
        &self.id
    }

    /// Cancelled when the task is cancelled or expires.
    pub(crate) fn cancellation(&self) -> CancellationToken {
        self.cancel.clone()
    }

    /// Asks the client `request` under `key` through the task (status `input_required`
    /// until every open question is answered) and waits for the answer of `tasks/update`.
    /// `Err` says why no answer can come.
    pub(crate) async fn ask(&self, key: &str, request: InputRequest) -> Result<Value, String> {
        let (sender, answer) = oneshot::channel();
        self.tasks
            .with_entry(&self.id, |entry| {
                if entry.terminal.is_some() {
                    return Err("the task has ended".to_owned());
                }
                if entry.asked.iter().any(|asked| asked == key) {
                    return Err(format!("`{key}` was asked already in this task"));
                }
                entry.asked.push(key.to_owned());
                entry.pending.insert(key.to_owned(), (request, sender));
                entry.task.last_updated_at = now_rfc3339();
                Ok(())
            })
            .unwrap_or_else(|| Err("the task has expired".to_owned()))?;
        answer
            .await
            .map_err(|_| "the task was cancelled before the question was answered".to_owned())
    }

    /// Marks the call as failed unexpectedly (the tool panicked): the task fails.
    pub(crate) fn failed_unexpectedly(&self) {
        self.tasks
            .with_entry(&self.id, |entry| entry.failed_unexpectedly = true);
    }

    /// Ends the task with the call's result (`completed`, even when it is a tool error), or
    /// as failed when the call failed unexpectedly.
    pub(crate) fn finish(&self, result: &CallToolResult) {
        let keep = self.tasks.settings.ttl;
        self.tasks.with_entry(&self.id, |entry| {
            let payload = if entry.failed_unexpectedly {
                let error = ErrorData::internal_error(
                    "the tool failed unexpectedly; the server log has details",
                    None,
                );
                TaskPayload::Failed {
                    error: error_object(&error),
                }
            } else {
                match serde_json::to_value(result) {
                    Ok(Value::Object(result)) => TaskPayload::Completed { result },
                    _ => TaskPayload::Failed {
                        error: error_object(&ErrorData::internal_error(
                            "the tool's result could not be written",
                            None,
                        )),
                    },
                }
            };
            entry.end(payload, keep);
        });
    }

    /// Ends the task as failed with `error`.
    pub(crate) fn fail(&self, error: &ErrorData) {
        let keep = self.tasks.settings.ttl;
        self.tasks.with_entry(&self.id, |entry| {
            entry.end(
                TaskPayload::Failed {
                    error: error_object(error),
                },
                keep,
            );
        });
    }
}
