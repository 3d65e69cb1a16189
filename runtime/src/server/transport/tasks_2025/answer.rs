//! The requests of the 2025-11-25 form of tasks answered here, as JSON: a `tools/call` of a
//! task tool with a `task` parameter (the task started through the same pipeline as a
//! 2026-07-28 task, [`task_call::start`]), one that revision refuses (`task` on a tool that is
//! not a task tool: -32601), and `tasks/get`, `tasks/result`, `tasks/list` and `tasks/cancel`
//! over the caller's own tasks. A request whose `_meta` declares the 2026-07-28 extension is
//! left to rmcp, which serves that form.
use std::sync::Arc;

use axum::http::request::Parts;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use rmcp::ErrorData;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, JsonObject, MetaObject, RequestId, RequestMetaObject,
    TASKS_EXTENSION_ID,
};
use serde_json::{Value, json};

use crate::server::call::handler::call_context;
use crate::server::call::task_call::{self, Route2025};
use crate::server::state::inner::Inner;
use mcpgen_contract::notify::Sink;
use mcpgen_contract::tasks::form_2025;
use mcpgen_contract::trace::call_span;
use mcpgen_identity::principal::Principal;

/// The answer to the request in `bytes`, or `None` to leave it to rmcp (a message that is
/// not a request of this form, or a call this form does not decide).
pub(crate) async fn answer(inner: &Arc<Inner>, parts: &Parts, bytes: &[u8]) -> Option<Response> {
    let Ok(Value::Object(mut message)) = serde_json::from_slice::<Value>(bytes) else {
        return None;
    };
    let id = message.get("id").cloned()?;
    let method = message.get("method").and_then(Value::as_str)?.to_owned();
    let params = match message.remove("params") {
        Some(Value::Object(params)) => params,
        None => JsonObject::new(),
        Some(_) => return None,
    };
    if declares_extension(&params) {
        return None;
    }
    let principal = parts.extensions.get::<Principal>();
    let answer = match method.as_str() {
        "tools/call" => call(inner, parts, principal, &id, params).await?,
        _ => {
            let owner = principal.map(|p| p.id.as_str());
            tasks_request(inner, &method, owner, &params).await
        }
    };
    Some(reply(id, answer))
}

/// Whether the request's `_meta` declares the 2026-07-28 tasks extension: such a client (the
/// runtime's own client does so on a 2025-11-25 session) speaks the extension's form, which
/// rmcp serves.
fn declares_extension(params: &JsonObject) -> bool {
    params
        .get("_meta")
        .and_then(|meta| meta.get("io.modelcontextprotocol/clientCapabilities"))
        .and_then(|capabilities| capabilities.get("extensions"))
        .and_then(Value::as_object)
        .is_some_and(|extensions| extensions.contains_key(TASKS_EXTENSION_ID))
}

/// A `tools/call`: started as a task, refused, or left to rmcp (`None`).
async fn call(
    inner: &Arc<Inner>,
    parts: &Parts,
    principal: Option<&Principal>,
    id: &Value,
    mut params: JsonObject,
) -> Option<Result<Value, ErrorData>> {
    let name = params.get("name").and_then(Value::as_str)?.to_owned();
    let augmented = params.get("task").is_some_and(Value::is_object);
    let principal = match task_call::route_2025(inner, principal, &name, augmented) {
        Route2025::AsAnyOther => return None,
        Route2025::Refused(error) => return Some(Err(error)),
        Route2025::Task(principal) => principal,
    };
    let request_id = serde_json::from_value::<RequestId>(id.clone()).ok()?;
    let mut request = CallToolRequestParams::new(name);
    request.arguments = match params.remove("arguments") {
        Some(Value::Object(arguments)) => Some(arguments),
        None | Some(Value::Null) => None,
        Some(_) => {
            return Some(Err(ErrorData::invalid_params(
                "tools/call: `arguments` must be an object",
                None,
            )));
        }
    };
    let meta = match params.remove("_meta") {
        Some(Value::Object(meta)) => meta,
        _ => JsonObject::new(),
    };
    let meta = RequestMetaObject(MetaObject(meta));
    // The task answers nothing on this request's stream: its notifier is replaced when it
    // starts, and a task of this form asks the client nothing (no capability is known here).
    let (sender, _) = tokio::sync::mpsc::unbounded_channel();
    let mut call = call_context(
        inner,
        &request_id,
        &meta,
        Some(parts),
        Sink::Stream(sender),
        &Arc::default(),
    );
    let span = call_span(&mut call.trace, &request.name);
    // Started in a task of its own: a client that goes away while the start is recorded does
    // not leave a task in the table that never runs.
    let (inner, principal) = (inner.clone(), principal.clone());
    let started =
        tokio::spawn(
            async move { task_call::start(&inner, &principal, request, call, span).await },
        );
    Some(match started.await {
        Err(_) => Err(ErrorData::internal_error("the task was not started", None)),
        Ok(started) => match started {
            CallToolResponse::Task(created) => Ok(form_2025::created(&created.task)),
            CallToolResponse::Complete(refused) => Err(ErrorData::internal_error(
                first_text(&refused)
                    .unwrap_or("the task was not started")
                    .to_owned(),
                None,
            )),
            _ => Err(ErrorData::internal_error("the task was not started", None)),
        },
    })
}

/// The first text of a tool result: why a task was not started.
fn first_text(result: &rmcp::model::CallToolResult) -> Option<&str> {
    result
        .content
        .iter()
        .find_map(|content| content.as_text().map(|text| text.text.as_str()))
}

/// `tasks/get`, `tasks/result`, `tasks/list` or `tasks/cancel` of `owner`; a request without a
/// principal knows no task.
async fn tasks_request(
    inner: &Inner,
    method: &str,
    owner: Option<&str>,
    params: &JsonObject,
) -> Result<Value, ErrorData> {
    let tasks = &inner.tasks;
    if method == "tasks/list" {
        let cursor = match params.get("cursor") {
            None | Some(Value::Null) => None,
            Some(Value::String(cursor)) => Some(cursor.as_str()),
            Some(_) => {
                return Err(ErrorData::invalid_params(
                    "tasks/list: `cursor` must be a string",
                    None,
                ));
            }
        };
        return match owner {
            Some(owner) => form_2025::list(tasks, owner, cursor),
            None => Ok(json!({ "tasks": [] })),
        };
    }
    let Some(task_id) = params.get("taskId").and_then(Value::as_str) else {
        return Err(ErrorData::invalid_params(
            format!("{method}: `taskId` (a string) is required"),
            None,
        ));
    };
    let Some(owner) = owner else {
        return Err(ErrorData::invalid_params(
            format!("unknown task `{task_id}`"),
            None,
        ));
    };
    match method {
        "tasks/get" => form_2025::get(tasks, owner, task_id).await,
        "tasks/cancel" => form_2025::cancel(tasks, owner, task_id).await,
        _ => form_2025::result(tasks, owner, task_id).await,
    }
}

/// The JSON-RPC answer to `id`, as JSON (a POST may be answered so on any session).
fn reply(id: Value, answer: Result<Value, ErrorData>) -> Response {
    let message = match answer {
        Ok(result) => json!({ "jsonrpc": "2.0", "id": id, "result": result }),
        Err(error) => json!({ "jsonrpc": "2.0", "id": id, "error": error }),
    };
    (
        StatusCode::OK,
        [(header::CONTENT_TYPE, "application/json")],
        message.to_string(),
    )
        .into_response()
}
