//! `tasks/*` for a task another replica holds (or held), answered from the store when this
//! replica does not hold it; see [`shared`](super::shared). Without a store each method is
//! the table's own.

use std::collections::BTreeMap;
use std::time::Duration;

use mcpgen_audit::now_rfc3339;
use rmcp::ErrorData;
use rmcp::model::{DetailedTask, JsonObject, Task, TaskPayload, TaskStatus};
use serde_json::Value;

use super::POLL_INTERVAL;
use super::shared::{ForHolder, Now, Record, Resumable, SharedTasks, Stored};
use super::store::{Ending, State, Summary, Tasks, expired, parse_result, unknown};

impl Tasks {
    /// Records the task `task` of `owner`, just started here, in the store (when tasks are
    /// shared), before the client hears of it; `call` when another replica may go on with
    /// it. Fails, saying why, when the store cannot keep it.
    #[doc(hidden)]
    pub async fn share_start(
        &self,
        owner: &str,
        task: &Task,
        call: Option<&Resumable>,
    ) -> Result<(), String> {
        let Some(shared) = &self.shared else {
            return Ok(());
        };
        let record = Record {
            task: task.clone(),
            now: Now::Working,
        };
        shared
            .started(owner, &record, call, self.settings.ttl)
            .await
    }

    /// The task `id` of `owner` from the store, when tasks are shared and this replica does
    /// not hold it; `None` to answer from the table.
    async fn elsewhere(&self, owner: &str, id: &str) -> Option<Result<Stored, ErrorData>> {
        let shared = self.shared.as_ref()?;
        if self.holds(id) {
            return None;
        }
        Some(match shared.load(id).await {
            Ok(Some(stored)) if stored.owner == owner => Ok(stored),
            Ok(_) => Err(unknown(id)),
            Err(problem) => Err(away(id, &problem)),
        })
    }

    /// [`get`](Self::get), for a task held by any replica.
    #[doc(hidden)]
    pub async fn get_anywhere(&self, owner: &str, id: &str) -> Result<DetailedTask, ErrorData> {
        let Some(stored) = self.elsewhere(owner, id).await else {
            return self.get(owner, id);
        };
        let stored = stored?;
        let payload = match stored.record.now {
            Now::Working => TaskPayload::Working,
            Now::InputRequired { requests } => TaskPayload::InputRequired {
                input_requests: requests,
            },
            Now::Completed { .. } => TaskPayload::Completed {
                result: parse_result(stored.result.as_deref().unwrap_or_default())?,
            },
            Now::Failed => TaskPayload::Failed {
                error: error_of(stored.result.as_deref()),
            },
            Now::Cancelled => TaskPayload::Cancelled,
            Now::Expired => return Err(expired(id, self.settings.results_max_bytes)),
        };
        Ok(DetailedTask::new(stored.record.task, payload))
    }

    /// [`summary`](Self::summary), for a task held by any replica.
    #[doc(hidden)]
    pub async fn summary_anywhere(&self, owner: &str, id: &str) -> Result<Summary, ErrorData> {
        match self.elsewhere(owner, id).await {
            None => self.summary(owner, id),
            Some(stored) => {
                let summary = summary_of(&stored?);
                if summary.state == State::Expired {
                    return Err(expired(id, self.settings.results_max_bytes));
                }
                Ok(summary)
            }
        }
    }

    /// [`update`](Self::update), for a task held by any replica: the answers are handed to
    /// the holder.
    #[doc(hidden)]
    pub async fn update_anywhere(
        &self,
        owner: &str,
        id: &str,
        responses: BTreeMap<String, Value>,
    ) -> Result<(), ErrorData> {
        let Some(stored) = self.elsewhere(owner, id).await else {
            return self.update(owner, id, responses);
        };
        if stored?.record.now.ended() {
            return Ok(());
        }
        let request = ForHolder::Answers {
            id: id.to_owned(),
            responses,
        };
        self.shared()?
            .tell_holder(id, &request)
            .await
            .map_err(|problem| away(id, &problem))
    }

    /// [`cancel`](Self::cancel), for a task held by any replica.
    #[doc(hidden)]
    pub async fn cancel_anywhere(&self, owner: &str, id: &str) -> Result<(), ErrorData> {
        match self.elsewhere(owner, id).await {
            None => self.cancel(owner, id),
            Some(stored) => self.cancel_stored(id, stored?).await.map(drop),
        }
    }

    /// `cancel_running` (2025-11-25), for a task held by any replica.
    pub(crate) async fn cancel_running_anywhere(
        &self,
        owner: &str,
        id: &str,
    ) -> Result<Summary, ErrorData> {
        let Some(stored) = self.elsewhere(owner, id).await else {
            return self.cancel_running(owner, id);
        };
        let stored = stored?;
        if stored.record.now.ended() {
            return Err(ErrorData::invalid_params(
                format!(
                    "task `{id}` has already ended ({}); only a running task can be cancelled",
                    super::store::status_name(stored.record.task.status)
                ),
                None,
            ));
        }
        self.cancel_stored(id, stored).await
    }

    /// Ends the stored task `id` as cancelled, unless it has ended, and tells its holder;
    /// the task as it is then.
    async fn cancel_stored(&self, id: &str, mut stored: Stored) -> Result<Summary, ErrorData> {
        if !stored.record.now.ended() {
            let mut record = stored.record.clone();
            record.task.status = TaskStatus::Cancelled;
            record.task.last_updated_at = now_rfc3339();
            record.now = Now::Cancelled;
            let shared = self.shared()?;
            let cancelled = shared
                .cancel(id, &record, self.settings.ttl)
                .await
                .map_err(|problem| away(id, &problem))?;
            if cancelled {
                // The holder stops the call; a holder that is gone has nothing to stop.
                let request = ForHolder::Cancel { id: id.to_owned() };
                if let Err(problem) = shared.tell_holder(id, &request).await {
                    tracing::warn!(task = id, %problem, "the task's holder was not told of its cancel");
                }
                stored.record = record;
            } else if let Ok(Some(now)) = shared.load(id).await {
                stored = now;
            }
        }
        Ok(summary_of(&stored))
    }

    /// `ending` (2025-11-25 `tasks/result`) for a task held by any replica, and when to look
    /// again while it runs; `None` to wait on the table.
    pub(crate) async fn ending_elsewhere(
        &self,
        owner: &str,
        id: &str,
    ) -> Option<Result<Ending, ErrorData>> {
        let stored = match self.elsewhere(owner, id).await? {
            Ok(stored) => stored,
            Err(error) => return Some(Err(error)),
        };
        Some(Ok(match stored.record.now {
            Now::Working | Now::InputRequired { .. } => Ending::Running,
            Now::Completed { .. } => {
                match parse_result(stored.result.as_deref().unwrap_or_default()) {
                    Ok(result) => Ending::Completed(result),
                    Err(error) => return Some(Err(error)),
                }
            }
            Now::Failed => Ending::Failed(
                serde_json::from_value(Value::Object(error_of(stored.result.as_deref())))
                    .unwrap_or_else(|_| {
                        ErrorData::internal_error(format!("task `{id}` failed"), None)
                    }),
            ),
            Now::Cancelled => Ending::Cancelled,
            Now::Expired => return Some(Err(expired(id, self.settings.results_max_bytes))),
        }))
    }

    /// How long to wait before looking at a task held elsewhere again.
    pub(crate) fn look_again() -> Duration {
        POLL_INTERVAL
    }

    fn shared(&self) -> Result<&dyn SharedTasks, ErrorData> {
        self.shared
            .as_deref()
            .ok_or_else(|| ErrorData::internal_error("tasks are not shared here", None))
    }
}

/// What `tasks/list` and the 2025-11-25 `tasks/get` show of a stored task.
fn summary_of(stored: &Stored) -> Summary {
    let state = match &stored.record.now {
        Now::Working => State::Working,
        Now::InputRequired { .. } => State::InputRequired,
        Now::Completed { is_error } => State::Completed {
            is_error: *is_error,
        },
        Now::Failed => State::Failed {
            message: error_of(stored.result.as_deref())
                .get("message")
                .and_then(Value::as_str)
                .map(str::to_owned),
        },
        Now::Cancelled => State::Cancelled,
        Now::Expired => State::Expired,
    };
    let mut task = stored.record.task.clone();
    if state == State::InputRequired {
        task.status = TaskStatus::InputRequired;
    }
    Summary { task, state }
}

/// A stored error object, or one saying the task failed.
fn error_of(result: Option<&str>) -> JsonObject {
    result
        .and_then(|text| serde_json::from_str(text).ok())
        .unwrap_or_else(|| {
            let mut object = JsonObject::new();
            object.insert("code".into(), Value::from(-32603));
            object.insert("message".into(), Value::from("the task failed"));
            object
        })
}

/// The error for a task the store could not be asked about.
fn away(id: &str, problem: &str) -> ErrorData {
    ErrorData::internal_error(
        format!(
            "task `{id}` is not held by this replica, and the shared store cannot be asked \
             about it now ({problem}); retry"
        ),
        None,
    )
}
