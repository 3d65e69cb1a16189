//! The tasks of the 2025-11-25 revision, over the same [`Tasks`] table: the `Task` object
//! (`ttl` and `pollInterval` rather than `ttlMs` and `pollIntervalMs`, no inlined result),
//! `CreateTaskResult` (`{"task": Task}`), and the answers to `tasks/get`, `tasks/result`,
//! `tasks/list` and `tasks/cancel` as that revision has them. A task's result is fetched with
//! `tasks/result`, which waits for the task to end; a tool error counts as `failed`.

use rmcp::ErrorData;
use rmcp::model::{JsonObject, Task};
use serde_json::{Value, json};

use super::Tasks;
use super::store::{Ending, State, Summary, status_name};

/// The `_meta` key naming the task a result belongs to.
const RELATED_TASK: &str = "io.modelcontextprotocol/related-task";

/// How many tasks one `tasks/list` page holds.
const PAGE: usize = 50;

/// The `Task` object of `summary`, as the 2025-11-25 revision writes it.
fn task_object(summary: &Summary) -> Value {
    let task = &summary.task;
    let (status, message) = match &summary.state {
        State::Completed { is_error: true } => (
            "failed",
            Some("the tool answered with an error; tasks/result has it".to_owned()),
        ),
        State::Failed { message } => ("failed", message.clone()),
        State::Expired => (
            status_name(task.status),
            Some("its result has expired (--tasks-results-max-bytes)".to_owned()),
        ),
        _ => (status_name(task.status), task.status_message.clone()),
    };
    let mut object = JsonObject::new();
    object.insert("taskId".into(), Value::from(task.task_id.clone()));
    object.insert("status".into(), Value::from(status));
    if let Some(message) = message {
        object.insert("statusMessage".into(), Value::from(message));
    }
    object.insert("createdAt".into(), Value::from(task.created_at.clone()));
    object.insert(
        "lastUpdatedAt".into(),
        Value::from(task.last_updated_at.clone()),
    );
    object.insert("ttl".into(), task.ttl_ms.map_or(Value::Null, Value::from));
    if let Some(interval) = task.poll_interval_ms {
        object.insert("pollInterval".into(), Value::from(interval));
    }
    Value::Object(object)
}

/// The `CreateTaskResult` of a task that has just started.
#[doc(hidden)]
pub fn created(task: &Task) -> Value {
    let summary = Summary {
        task: task.clone(),
        state: State::Working,
    };
    json!({ "task": task_object(&summary) })
}

/// `tasks/get`: the task `id` of `owner` as it is now.
#[doc(hidden)]
pub async fn get(tasks: &Tasks, owner: &str, id: &str) -> Result<Value, ErrorData> {
    Ok(task_object(&tasks.summary_anywhere(owner, id).await?))
}

/// `tasks/cancel`: the task, now cancelled; a task that has ended is refused.
#[doc(hidden)]
pub async fn cancel(tasks: &Tasks, owner: &str, id: &str) -> Result<Value, ErrorData> {
    Ok(task_object(
        &tasks.cancel_running_anywhere(owner, id).await?,
    ))
}

/// `tasks/list`: a page of the tasks of `owner`, oldest first; the cursor is where the page
/// starts. Only the page is taken from the table, without results, and written after.
#[doc(hidden)]
pub fn list(tasks: &Tasks, owner: &str, cursor: Option<&str>) -> Result<Value, ErrorData> {
    let start = match cursor {
        None => 0,
        Some(cursor) => cursor.parse::<usize>().map_err(|_| bad_cursor(cursor))?,
    };
    let (page, total) = tasks.list(owner, start, PAGE);
    if start > total {
        return Err(bad_cursor(cursor.unwrap_or_default()));
    }
    let end = start + page.len();
    let page: Vec<Value> = page.iter().map(task_object).collect();
    let mut result = json!({ "tasks": page });
    if end < total {
        result["nextCursor"] = Value::from(end.to_string());
    }
    Ok(result)
}

fn bad_cursor(cursor: &str) -> ErrorData {
    ErrorData::invalid_params(
        format!("tasks/list: `{cursor}` is not a cursor this server gave"),
        None,
    )
}

/// `tasks/result`: waits until the task `id` of `owner` ends (or its time to live passes),
/// then answers what the call would have: the tool's result, naming the task in its `_meta`,
/// or the task's error.
#[doc(hidden)]
pub async fn result(tasks: &Tasks, owner: &str, id: &str) -> Result<Value, ErrorData> {
    loop {
        let ending = match tasks.ending_elsewhere(owner, id).await {
            // Held elsewhere: looked at again after a poll interval while it runs.
            Some(ending) => {
                let ending = ending?;
                if matches!(ending, Ending::Running) {
                    tokio::time::sleep(Tasks::look_again()).await;
                }
                ending
            }
            None => {
                let (mut ended, deadline) = tasks.watch_end(owner, id)?;
                tokio::select! {
                    // An error means the task was dropped: the look below says so.
                    _ = ended.wait_for(|ended| *ended) => {}
                    () = tokio::time::sleep_until(deadline.into()) => {}
                }
                tasks.ending(owner, id)?
            }
        };
        match ending {
            Ending::Completed(mut result) => {
                let meta = result
                    .entry("_meta")
                    .or_insert_with(|| Value::Object(JsonObject::new()));
                if let Value::Object(meta) = meta {
                    meta.insert(RELATED_TASK.into(), json!({ "taskId": id }));
                }
                return Ok(Value::Object(result));
            }
            Ending::Failed(error) => return Err(error),
            Ending::Cancelled => {
                return Err(ErrorData::internal_error(
                    format!("task `{id}` was cancelled before it had a result"),
                    None,
                ));
            }
            // Not ended yet (the wait ended just before its time to live passed): wait again.
            Ending::Running => {}
        }
    }
}
