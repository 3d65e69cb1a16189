//! Stateless 2026-07-28 `tools/call`s answered by the runtime's own handler, without rmcp's
//! per-request machinery (reading the message into rmcp's types twice, a one-shot transport
//! and service spawned for each request, the service loop around the handler).
//!
//! Only a request rmcp would hand to the handler as it is takes this path: a POST without a
//! session, `MCP-Protocol-Version: 2026-07-28`, one `Mcp-Method: tools/call`, one plain
//! `Mcp-Name` equal to the tool's name, `Accept` naming both JSON and SSE without parameters,
//! a JSON body, and a `tools/call` whose `_meta` names the same revision and carries the
//! client capabilities. Anything else goes on to rmcp unchanged, so refusals are rmcp's.
//!
//! The call itself is the one the rmcp handler makes ([`answer_call`]), and its answer is
//! written as rmcp writes it for a stateless request: the result (or error) in rmcp's
//! JSON-RPC types, as plain JSON with rmcp's HTTP status for the error code, unless the tool
//! sent progress or log notifications first; then, as rmcp does, an SSE stream with each
//! notification and the answer last. The call runs in the connection's task until it answers,
//! and moves to a task of its own when it sends a notification first (the SSE stream then
//! carries its messages) or when the client goes away: that cancels the call's
//! [`Cancellation`](crate::Cancellation) but does not cut the call short, so it is still
//! recorded.

use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use futures::{FutureExt, StreamExt};
use mcpgen_identity::Principal;
use rmcp::model::{ErrorCode, ErrorData, RequestId, ServerJsonRpcMessage, ServerResult};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::call_request::{self, CallRequest};
use super::plain_request::{plain_stateless_post, read_body};
use crate::server::access::reply::jsonrpc_error;
use crate::server::call::handler::{answer_call, call_context};
use crate::server::state::inner::Inner;
use mcpgen_contract::notify::{Cancellation, Sink};

/// The standard header naming the called tool.
const NAME_HEADER: &str = "mcp-name";

/// How a value is marked as Base64 in a standard header; such names are left to rmcp.
const BASE64_PREFIX: &str = "=?base64?";

/// How often an open SSE answer sends a keep-alive comment (rmcp's default).
const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// The one `Mcp-Name` header, when it is plain text.
pub(crate) fn plain_name(headers: &HeaderMap) -> Option<&str> {
    let mut values = headers.get_all(NAME_HEADER).iter();
    let value = values.next()?.to_str().ok()?;
    (values.next().is_none() && !value.starts_with(BASE64_PREFIX)).then_some(value)
}

/// Answers a stateless 2026-07-28 `tools/call` itself; passes every other request on.
pub(crate) async fn answer_stateless(
    State(inner): State<Arc<Inner>>,
    request: Request,
    next: Next,
) -> Response {
    if request.method() != Method::POST
        || !plain_stateless_post(request.headers(), "tools/call")
        || plain_name(request.headers()).is_none()
    {
        return next.run(request).await;
    }
    let (mut parts, body) = request.into_parts();
    let bytes = match read_body(body).await {
        Ok(bytes) => bytes,
        Err(refused) => return refused,
    };
    let Some(CallRequest {
        id,
        mut params,
        meta,
    }) = call_request(&bytes, plain_name(&parts.headers))
    else {
        return next
            .run(Request::from_parts(parts, Body::from(bytes)))
            .await;
    };
    let (sender, receiver) = mpsc::unbounded_channel();
    let log_level = Arc::default();
    let sink = Sink::Stream(sender.clone());
    let mut call = call_context(&inner, &id, &meta, Some(&parts), sink, &log_level);
    let cancelled = CancellationToken::new();
    call.cancellation = Cancellation::from_token(cancelled.clone());
    call.input = mcpgen_contract::input::rounds(
        meta.client_capabilities(),
        params.input_responses.take(),
        params.request_state.take(),
    );
    // Nothing reads the request's parts after this: the principal is taken, not copied.
    let principal = parts.extensions.remove::<Principal>();
    let answer_id = id.clone();
    let call = async move {
        let answer = answer_call(&inner, principal.as_ref(), params, call).await;
        let message = answer_message(answer_id, answer.map(ServerResult::from));
        // The client may be gone; the call has run and been recorded all the same.
        let _ = sender.send(message);
    };
    // A panic past the pipeline's own catch drops the sender: answered as a call that ended
    // without an answer, as when the call ran in a task of its own.
    let call = Detachable::new(AssertUnwindSafe(call).catch_unwind().map(drop));
    respond(call, receiver, cancelled).await
}

/// A call run in place that moves to a task of its own when it is detached or dropped
/// unfinished, so that it always runs to its end.
struct Detachable(Option<Pin<Box<dyn Future<Output = ()> + Send>>>);

impl Detachable {
    fn new(call: impl Future<Output = ()> + Send + 'static) -> Self {
        Self(Some(Box::pin(call)))
    }

    /// Runs the call here until it ends (at once if it already has).
    async fn run(&mut self) {
        if let Some(call) = &mut self.0 {
            call.await;
            self.0 = None;
        }
    }

    /// Runs the rest of the call in a task of its own (nothing if it has ended).
    fn detach(&mut self) {
        if let Some(call) = self.0.take()
            && let Ok(runtime) = tokio::runtime::Handle::try_current()
        {
            runtime.spawn(call);
        }
    }
}

impl Drop for Detachable {
    fn drop(&mut self) {
        self.detach();
    }
}

/// The JSON-RPC answer to `id` as rmcp sends it to a 2026-07-28 peer: a result with any
/// missing caching hints filled in, or an error with "resource not found" as invalid params.
pub(crate) fn answer_message(
    id: RequestId,
    answer: Result<ServerResult, ErrorData>,
) -> ServerJsonRpcMessage {
    match answer {
        Ok(mut result) => {
            result.fill_missing_cache_hints();
            ServerJsonRpcMessage::response(result, id)
        }
        Err(mut error) => {
            if error.code == ErrorCode::RESOURCE_NOT_FOUND {
                error.code = ErrorCode::INVALID_PARAMS;
            }
            ServerJsonRpcMessage::error(error, Some(id))
        }
    }
}

/// The `tools/call` of the tool `name` in `bytes`, when rmcp would hand it to the handler:
/// read in one pass when it has the usual shape ([`call_request::read`]), else as rmcp reads
/// it ([`call_request::read_with_rmcp`]).
fn call_request(bytes: &[u8], name: Option<&str>) -> Option<CallRequest> {
    let call = call_request::read(bytes).or_else(|| call_request::read_with_rmcp(bytes))?;
    (Some(&*call.params.name) == name).then_some(call)
}

/// The HTTP answer: plain JSON when the first message is the answer, else (the tool sent
/// notifications first) an SSE stream of every message, the answer last. Runs `call` until
/// its first message.
async fn respond(
    mut call: Detachable,
    mut receiver: mpsc::UnboundedReceiver<ServerJsonRpcMessage>,
    cancelled: CancellationToken,
) -> Response {
    // Dropped before the first message (the client went away): the call is told so, and
    // `call` (dropped first) runs on in a task of its own.
    let guard = cancelled.clone().drop_guard();
    let first = tokio::select! {
        biased;
        first = receiver.recv() => first,
        () = call.run() => receiver.recv().await,
    };
    let Some(first) = first else {
        return jsonrpc_error(
            StatusCode::INTERNAL_SERVER_ERROR,
            -32603,
            "the call ended without an answer",
        );
    };
    if is_answer(&first) {
        // The call ends right after sending its answer.
        call.run().await;
        guard.disarm();
        let status = status_of(&first);
        let body = serde_json::to_vec(&first).unwrap_or_default();
        return (status, [(header::CONTENT_TYPE, "application/json")], body).into_response();
    }
    guard.disarm();
    call.detach();
    sse(first, receiver, cancelled)
}

fn is_answer(message: &ServerJsonRpcMessage) -> bool {
    matches!(
        message,
        ServerJsonRpcMessage::Response(_) | ServerJsonRpcMessage::Error(_)
    )
}

/// The HTTP status rmcp gives a stateless answer: 400 for errors about the request's
/// protocol metadata or headers, 404 for an unknown method, else 200.
pub(crate) fn status_of(message: &ServerJsonRpcMessage) -> StatusCode {
    let ServerJsonRpcMessage::Error(error) = message else {
        return StatusCode::OK;
    };
    match error.error.code {
        ErrorCode::UNSUPPORTED_PROTOCOL_VERSION
        | ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY
        | ErrorCode::HEADER_MISMATCH => StatusCode::BAD_REQUEST,
        ErrorCode::METHOD_NOT_FOUND => StatusCode::NOT_FOUND,
        _ => StatusCode::OK,
    }
}

/// The SSE answer rmcp sends: one `data:` event per message, ending after the answer, with
/// keep-alive comments while the call runs. Dropping it (the client went away) cancels the
/// call.
fn sse(
    first: ServerJsonRpcMessage,
    receiver: mpsc::UnboundedReceiver<ServerJsonRpcMessage>,
    cancelled: CancellationToken,
) -> Response {
    let rest = futures::stream::unfold(Some(receiver), |receiver| async move {
        let mut receiver = receiver?;
        let message = receiver.recv().await?;
        let done = is_answer(&message);
        Some((message, (!done).then_some(receiver)))
    });
    let guard = cancelled.drop_guard();
    let events = futures::stream::iter([first])
        .chain(rest)
        .map(move |message| {
            let _ = &guard;
            let data = serde_json::to_string(&message).unwrap_or_default();
            Ok::<_, std::convert::Infallible>(sse_stream::Sse::default().data(data))
        });
    let body = sse_stream::SseBody::new(events)
        .with_keep_alive::<TokioTimer>(sse_stream::KeepAlive::new().interval(KEEP_ALIVE));
    (
        StatusCode::OK,
        [
            (header::CONTENT_TYPE, "text/event-stream"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        [("x-accel-buffering", "no")],
        Body::new(body),
    )
        .into_response()
}

/// The keep-alive timer of an SSE answer.
struct TokioTimer(Pin<Box<tokio::time::Sleep>>);

impl Future for TokioTimer {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        self.0.as_mut().poll(cx)
    }
}

impl sse_stream::Timer for TokioTimer {
    fn from_duration(duration: Duration) -> Self {
        Self(Box::pin(tokio::time::sleep(duration)))
    }

    fn reset(mut self: Pin<&mut Self>, instant: std::time::Instant) {
        self.0
            .as_mut()
            .reset(tokio::time::Instant::from_std(instant));
    }
}
