//! A task-augmented `tools/call` (the `io.modelcontextprotocol/tasks` extension, SEP-2663):
//! the call declares the extension in its request `_meta`; a server that answers with a task
//! is polled with `tasks/get` until the task ends, and its result is returned as a plain
//! call's would be.

use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, GetTaskParams, RequestMetaObject,
    TASKS_EXTENSION_ID, TaskPayload,
};
use serde_json::{Map, Value, json};

use crate::error::ClientError;
use crate::session::{Session, to_tool_result};
use mcpgen_core::ToolResult;

/// How often a task is polled when the server suggests no interval.
const DEFAULT_POLL: Duration = Duration::from_secs(1);

/// The longest wait between two polls, whatever the server suggests.
const MAX_POLL: Duration = Duration::from_secs(30);

impl Session {
    /// Calls `tool` with `args` as a task: each request declares the tasks extension, so a
    /// task tool answers with a task at once; the task is then polled (`tasks/get`, at the
    /// interval the server suggests) until it ends, for at most `wait`. Its result is returned
    /// like [`call_tool`](Self::call_tool)'s; a server that answers at once (the tool is not a
    /// task tool) is answered with that result. A task that failed is a
    /// [`ClientError::Rpc`] with the task's error; one that was cancelled or outlived `wait`
    /// is an error that names the task.
    pub async fn call_tool_as_task(
        &self,
        tool: &str,
        args: Map<String, Value>,
        wait: Duration,
    ) -> Result<ToolResult, ClientError> {
        self.check_allowed(tool)?;
        let operation = format!("tools/call `{tool}` as a task");
        let mut params = CallToolRequestParams::new(tool.to_owned()).with_arguments(args);
        let mut meta = RequestMetaObject::default();
        meta.0.insert(
            "io.modelcontextprotocol/clientCapabilities".into(),
            json!({"extensions": {TASKS_EXTENSION_ID: {}}}),
        );
        params.meta = Some(meta.clone());
        let answer =
            tokio::time::timeout(self.config().timeout, self.service().call_tool_once(params))
                .await
                .map_err(|_| self.timeout_error(&operation))?
                .map_err(|e| self.service_error(&operation, e))?;
        let task = match answer {
            CallToolResponse::Task(created) => created.task,
            CallToolResponse::Complete(result) => return Ok(to_tool_result(result)),
            _ => {
                return Err(ClientError::Transport(format!(
                    "server `{}`: {operation}: the server asked for input, which a task call \
                     does not answer",
                    self.name()
                )));
            }
        };
        let poll = task
            .poll_interval_ms
            .map_or(DEFAULT_POLL, Duration::from_millis)
            .clamp(Duration::from_millis(10), MAX_POLL);
        let id = task.task_id;
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            let get = format!("tasks/get `{id}`");
            let state = tokio::time::timeout(
                self.config().timeout,
                self.service().get_task({
                    let mut get = GetTaskParams::new(id.clone());
                    get.meta = Some(meta.clone());
                    get
                }),
            )
            .await
            .map_err(|_| self.timeout_error(&get))?
            .map_err(|e| self.service_error(&get, e))?;
            match state.task.payload {
                TaskPayload::Completed { result } => {
                    let result: CallToolResult = serde_json::from_value(Value::Object(result))
                        .map_err(|e| ClientError::Decode {
                            tool: tool.to_owned(),
                            message: format!("the result of task `{id}` is not a tool result: {e}"),
                        })?;
                    return Ok(to_tool_result(result));
                }
                TaskPayload::Failed { error } => {
                    return Err(ClientError::Rpc {
                        server: self.name().to_owned(),
                        operation,
                        code: error.get("code").and_then(Value::as_i64).unwrap_or(-32603) as i32,
                        message: format!(
                            "task `{id}` failed: {}",
                            error
                                .get("message")
                                .and_then(Value::as_str)
                                .unwrap_or("no message")
                        ),
                    });
                }
                TaskPayload::Cancelled => {
                    return Err(ClientError::Transport(format!(
                        "server `{}`: {operation}: task `{id}` was cancelled",
                        self.name()
                    )));
                }
                _ => {}
            }
            if tokio::time::Instant::now() + poll > deadline {
                return Err(ClientError::Timeout {
                    server: self.name().to_owned(),
                    operation: format!("{operation} (task `{id}`)"),
                    timeout_ms: u64::try_from(wait.as_millis()).unwrap_or(u64::MAX),
                });
            }
            tokio::time::sleep(poll).await;
        }
    }
}
