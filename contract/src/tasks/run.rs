//! A task's running call: asks the client through the task, and ends it.

use std::sync::Arc;

use mcpgen_audit::now_rfc3339;
use rmcp::ErrorData;
use rmcp::model::{CallToolResult, InputRequest, TaskStatus};
use serde_json::Value;
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use super::shared::Change;
use super::store::{Tasks, error_object};
use super::table::Outcome;

/// A task's running call: asks the client through the task, and ends it.
#[derive(Debug, Clone)]
#[doc(hidden)]
pub struct TaskRun {
    tasks: Arc<Tasks>,
    id: String,
    cancel: CancellationToken,
    /// Where the operation of a task taken over from a lost replica was last polled.
    resume: Option<Arc<str>>,
}

impl TaskRun {
    pub(super) fn new(
        tasks: Arc<Tasks>,
        id: String,
        cancel: CancellationToken,
        resume: Option<Arc<str>>,
    ) -> Self {
        Self {
            tasks,
            id,
            cancel,
            resume,
        }
    }

    /// Where the API's operation was last polled, for a task taken over from a lost replica:
    /// polling goes on from there instead of sending the request again.
    #[doc(hidden)]
    pub fn resume_point(&self) -> Option<&str> {
        self.resume.as_deref()
    }

    /// Whether another replica could go on with this task (its tasks are shared).
    #[doc(hidden)]
    pub fn shared(&self) -> bool {
        self.tasks.shared.is_some()
    }

    /// The API's operation is now polled at `point` (the upstream's own form): another
    /// replica goes on from there if this one is lost.
    #[doc(hidden)]
    pub fn polled_at(&self, point: &str) {
        if let Some(shared) = &self.tasks.shared {
            shared.changed(&self.id, Change::PolledAt(Arc::from(point)));
        }
    }

    /// The task's id.
    #[doc(hidden)]
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Cancelled when the task is cancelled or expires.
    #[doc(hidden)]
    pub fn cancellation(&self) -> CancellationToken {
        self.cancel.clone()
    }

    /// Asks the client `request` under `key` through the task (status `input_required`
    /// until every open question is answered) and waits for the answer of `tasks/update`.
    /// `Err` says why no answer can come.
    #[doc(hidden)]
    pub async fn ask(&self, key: &str, request: InputRequest) -> Result<Value, String> {
        let (sender, answer) = oneshot::channel();
        {
            let mut table = self.tasks.lock();
            let Some(entry) = table.entries.get_mut(&self.id) else {
                return Err("the task has expired".to_owned());
            };
            if entry.ended.is_some() {
                return Err("the task has ended".to_owned());
            }
            if entry.asked.iter().any(|asked| asked == key) {
                return Err(format!("`{key}` was asked already in this task"));
            }
            entry.asked.push(key.to_owned());
            entry.pending.insert(key.to_owned(), (request, sender));
            entry.task.last_updated_at = now_rfc3339();
            self.tasks.share_running(&table, &self.id);
        }
        answer
            .await
            .map_err(|_| "the task was cancelled before the question was answered".to_owned())
    }

    /// Marks the call as failed unexpectedly (the tool panicked): the task fails.
    #[doc(hidden)]
    pub fn failed_unexpectedly(&self) {
        if let Some(entry) = self.tasks.lock().entries.get_mut(&self.id) {
            entry.failed_unexpectedly = true;
        }
    }

    /// Ends the task with the call's result (`completed`, even when it is a tool error), or
    /// as failed when the call failed unexpectedly. The result is written once, before the
    /// table is locked, and kept as that text.
    #[doc(hidden)]
    pub fn finish(&self, result: &CallToolResult) {
        let written = written_exactly(result);
        let mut table = self.tasks.lock();
        let unexpected = table
            .entries
            .get(&self.id)
            .is_some_and(|entry| entry.failed_unexpectedly);
        let (outcome, status) = match written {
            _ if unexpected => (
                failed(&ErrorData::internal_error(
                    "the tool failed unexpectedly; the server log has details",
                    None,
                )),
                TaskStatus::Failed,
            ),
            Ok(text) if text.starts_with('{') => (
                Outcome::Completed {
                    result: Arc::new(text),
                    is_error: result.is_error == Some(true),
                },
                TaskStatus::Completed,
            ),
            _ => (
                failed(&ErrorData::internal_error(
                    "the tool's result could not be written",
                    None,
                )),
                TaskStatus::Failed,
            ),
        };
        self.tasks.end_in(&mut table, &self.id, outcome, status);
    }

    /// Ends the task as failed with `error`.
    #[doc(hidden)]
    pub fn fail(&self, error: &ErrorData) {
        let mut table = self.tasks.lock();
        self.tasks
            .end_in(&mut table, &self.id, failed(error), TaskStatus::Failed);
    }
}

/// `value` as JSON text in a buffer of exactly its length. The text is kept for the task's
/// lifetime and counted by its length against the results budget; a buffer grown by doubling
/// would hold up to twice that, unseen by the budget.
fn written_exactly<T: serde::Serialize>(value: &T) -> serde_json::Result<String> {
    /// Counts the bytes written, keeping none.
    struct Counter(usize);
    impl std::io::Write for Counter {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0 += bytes.len();
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut counter = Counter(0);
    serde_json::to_writer(&mut counter, value)?;
    let mut buffer = Vec::with_capacity(counter.0);
    serde_json::to_writer(&mut buffer, value)?;
    // serde_json writes UTF-8 only.
    String::from_utf8(buffer).map_err(|e| serde::ser::Error::custom(e.to_string()))
}

fn failed(error: &ErrorData) -> Outcome {
    Outcome::Failed(Arc::new(error_object(error)))
}
