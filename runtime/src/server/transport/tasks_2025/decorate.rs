//! What rmcp answers a 2025-11-25 client, with the parts of the earlier form of tasks rmcp
//! cannot write: `capabilities.tasks` in `initialize`, `execution.taskSupport` on each task
//! tool in `tools/list`. rmcp answers a session's requests as SSE (each `data:` one message)
//! or as JSON; the answer's result is changed, nothing else (headers, ids, other events).

use std::sync::Arc;

use axum::body::Body;
use axum::http::header;
use axum::response::Response;
use futures::StreamExt;
use serde_json::{Value, json};

use super::REVISION;
use crate::server::state::inner::Inner;

/// The `initialize` answer, with the `tasks` capability when it agreed on 2025-11-25;
/// `agreed` is called then, before the answer reaches the client.
pub(crate) fn initialize(
    response: Response,
    agreed: impl Fn() + Send + Sync + 'static,
) -> Response {
    rewrite(response, move |result| {
        if result.get("protocolVersion").and_then(Value::as_str) != Some(REVISION) {
            return;
        }
        agreed();
        if let Some(Value::Object(capabilities)) = result.get_mut("capabilities") {
            capabilities.insert(
                "tasks".into(),
                json!({ "list": {}, "cancel": {}, "requests": { "tools": { "call": {} } } }),
            );
        }
    })
}

/// The `tools/list` answer, with `execution.taskSupport` on each task tool.
pub(crate) fn tools_list(response: Response, inner: Arc<Inner>) -> Response {
    rewrite(response, move |result| {
        let Some(Value::Array(tools)) = result.get_mut("tools") else {
            return;
        };
        for tool in tools.iter_mut().filter_map(Value::as_object_mut) {
            let support = tool
                .get("name")
                .and_then(Value::as_str)
                .and_then(|name| inner.tasks.support(name));
            if let Some(support) = support {
                tool.insert(
                    "execution".into(),
                    json!({ "taskSupport": support.as_str() }),
                );
            }
        }
    })
}

/// `response` with `change` applied to the result of each JSON-RPC answer in it (SSE or JSON;
/// any other body is left as it is).
fn rewrite(
    response: Response,
    change: impl Fn(&mut serde_json::Map<String, Value>) + Send + Sync + 'static,
) -> Response {
    let content_type = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(|v| {
            v.split(';')
                .next()
                .unwrap_or_default()
                .trim()
                .to_ascii_lowercase()
        });
    let (mut parts, body) = response.into_parts();
    match content_type.as_deref() {
        Some("text/event-stream") => {
            let events = sse_stream::SseStream::new(body).map(move |event| {
                let mut event = event?;
                if let Some(data) = event.data.as_deref()
                    && let Some(changed) = rewritten(data, &change)
                {
                    event.data = Some(changed);
                }
                Ok::<_, sse_stream::Error>(event)
            });
            Response::from_parts(parts, Body::new(sse_stream::SseBody::new(events)))
        }
        Some("application/json") => {
            let body = async move {
                let bytes = axum::body::to_bytes(body, usize::MAX).await?;
                let changed = std::str::from_utf8(&bytes)
                    .ok()
                    .and_then(|text| rewritten(text, &change));
                Ok::<_, axum::Error>(changed.map_or(bytes, axum::body::Bytes::from))
            };
            // The length changes with the body.
            parts.headers.remove(header::CONTENT_LENGTH);
            let stream = futures::stream::once(body);
            Response::from_parts(parts, Body::from_stream(stream))
        }
        _ => Response::from_parts(parts, body),
    }
}

/// The message `data` with `change` applied to its result, when it is an answer with one.
fn rewritten(data: &str, change: &impl Fn(&mut serde_json::Map<String, Value>)) -> Option<String> {
    let mut message: Value = serde_json::from_str(data).ok()?;
    let Some(Value::Object(result)) = message.get_mut("result") else {
        return None;
    };
    change(result);
    serde_json::to_string(&message).ok()
}
