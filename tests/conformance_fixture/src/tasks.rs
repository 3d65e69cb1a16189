//! The tools of the tasks scenarios (the `io.modelcontextprotocol/tasks` extension): a plain
//! tool, and tools that run as tasks: one that takes its time, one that fails as a tool, one
//! that fails unexpectedly, and two that ask the client while they run.

use std::time::Duration;

use mcpgen::input::{ElicitAnswer, Elicitation, InputError};
use mcpgen::mcp_tool;
use mcpgen::server::ServerBuilder;
use mcpgen::tasks::TaskSupport;
use mcpgen::{ToolContext, ToolResult};
use serde_json::json;

/// How long `test_tool_with_task` works once it has its answer.
const WORK: Duration = Duration::from_secs(1);

/// How long `failing_job` works before it fails.
const FAILING_AFTER: Duration = Duration::from_secs(1);

/// Runs `test_tool_with_task` as a task once it has its answer (the other task tools say so
/// in their `#[mcp_tool]`).
pub(crate) fn declare(builder: ServerBuilder) -> ServerBuilder {
    builder.task_tool("test_tool_with_task", TaskSupport::RequiredAfterInput)
}

/// Greets `name` at once (not a task).
#[mcp_tool(read_only)]
pub(crate) fn greet(
    /// Who to greet
    name: String,
) -> String {
    format!("Hello, {name}!")
}

/// Works for `seconds` seconds, then says what it computed; stops when cancelled.
#[mcp_tool(read_only, task)]
pub(crate) async fn slow_compute(
    ctx: &ToolContext,
    /// How long to work, in seconds
    seconds: u64,
    /// A label the result repeats
    label: Option<String>,
) -> Result<String, String> {
    let label = label.unwrap_or_default();
    tokio::select! {
        () = tokio::time::sleep(Duration::from_secs(seconds)) => {
            Ok(format!("computed `{label}` in {seconds} s"))
        }
        () = ctx.cancelled() => Err(format!("`{label}` was cancelled")),
    }
}

/// Works a second, then fails with a tool error.
#[mcp_tool(read_only, task = "required")]
pub(crate) async fn failing_job() -> Result<String, String> {
    tokio::time::sleep(FAILING_AFTER).await;
    Err("the job failed, as it always does".to_owned())
}

/// Fails unexpectedly (it panics): its task fails with a protocol error.
#[mcp_tool(read_only, task)]
pub(crate) async fn protocol_error_job() -> String {
    panic!("protocol_error_job fails unexpectedly, as the tasks scenarios expect")
}

/// Asks the user to confirm deleting `filename`, then says what it did.
#[mcp_tool(task)]
pub(crate) async fn confirm_delete(
    ctx: &ToolContext,
    /// The file to delete
    filename: String,
) -> Result<ToolResult, InputError> {
    let form = json!({
        "type": "object",
        "properties": { "confirm": { "type": "boolean" } },
        "required": ["confirm"]
    });
    let answer = ctx
        .elicit(
            "confirm",
            Elicitation::new(format!("Delete {filename}?"), form),
        )
        .await?;
    Ok(ToolResult::text(if confirmed(&answer) {
        format!("Deleted {filename}")
    } else {
        format!("Kept {filename}")
    }))
}

/// Asks two questions at once, and answers once both are answered.
#[mcp_tool(read_only, task)]
pub(crate) async fn multi_input(ctx: &ToolContext) -> Result<ToolResult, InputError> {
    let form = json!({
        "type": "object",
        "properties": { "name": { "type": "string" }, "confirm": { "type": "boolean" } }
    });
    let (first, second) = tokio::join!(
        ctx.elicit("first", Elicitation::new("First question", form.clone())),
        ctx.elicit("second", Elicitation::new("Second question", form)),
    );
    let (first, second) = (first?, second?);
    Ok(ToolResult::text(format!(
        "first: {}, second: {}",
        first.action(),
        second.action()
    )))
}

/// Asks for the user's name in input-required rounds, then greets them from a task.
#[mcp_tool(read_only)]
pub(crate) async fn test_tool_with_task(ctx: &ToolContext) -> Result<ToolResult, InputError> {
    let form = json!({
        "type": "object",
        "properties": { "name": { "type": "string" } },
        "required": ["name"]
    });
    let answer = ctx
        .elicit("user_name", Elicitation::new("What is your name?", form))
        .await?;
    let name = answer
        .accepted()
        .and_then(|content| content.get("name"))
        .and_then(serde_json::Value::as_str)
        .unwrap_or("stranger")
        .to_owned();
    tokio::time::sleep(WORK).await;
    Ok(ToolResult::text(format!("Hello, {name}, from a task")))
}

fn confirmed(answer: &ElicitAnswer) -> bool {
    answer
        .accepted()
        .and_then(|content| content.get("confirm"))
        .and_then(serde_json::Value::as_bool)
        .unwrap_or(false)
}
