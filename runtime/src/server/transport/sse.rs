//! The legacy HTTP+SSE transport of MCP 2024-11-05, which rmcp no longer provides.
//!
//! - `GET /sse` opens a `text/event-stream`. Its first event is `event: endpoint` whose data is
//!   the URL to post messages to, `/message?sessionId=<id>`; every response and notification
//!   of the session follows as `event: message` with the JSON-RPC message in `data:`. A
//!   keep-alive comment goes out every 15 seconds.
//! - `POST /message?sessionId=<id>` carries one JSON-RPC message (or a batch) from the client
//!   and is answered `202 Accepted` with an empty body; the answer arrives on the stream.
//!   Unknown or ended session → 404; a caller other than the one that opened the stream → 403;
//!   a body that is not JSON-RPC → 400.
//!
//! Both routes sit behind the same `Host`/`Origin`, authentication and body-size layers as
//! `/mcp`. The session's handler is fixed to the [`Principal`] that opened the stream. The
//! session ends when the stream closes (client gone, or server shutdown through the
//! `sessions` token), and the stream closes when the session's service stops.
//!
//! With a store the replicas share (`--state-redis`), a message POSTed to a replica that does
//! not hold its stream is relayed to the one that does (`sse_relay.rs`).

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use futures::channel::mpsc;
use futures::{SinkExt, StreamExt};
use mcpgen_audit::AuditStatus;
use rmcp::ServiceExt;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use tokio_util::sync::CancellationToken;

use super::malformed::{INVALID_REQUEST, PARSE_ERROR};
use crate::server::access::refused::audit_refused;
use crate::server::access::reply::{jsonrpc_error, unauthorized};
use crate::server::call::handler::McpHandler;
use crate::server::state::inner::Inner;
use mcpgen_identity::auth::AuthError;
use mcpgen_identity::principal::Principal;

/// Interval of the keep-alive comments on an open stream.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// Messages that may wait in each direction of a session before senders wait.
const CHANNEL_CAPACITY: usize = 64;

/// Path of the message endpoint announced in the `endpoint` event, after the routes' base.
const MESSAGE_PATH: &str = "/message";

/// One open stream: who opened it, and where its client's messages go.
struct Session {
    principal: Principal,
    to_server: mpsc::Sender<ClientJsonRpcMessage>,
}

/// The streams this replica holds, by session id.
type Sessions = Arc<Mutex<HashMap<Arc<str>, Session>>>;

/// State shared by the two routes.
#[derive(Clone)]
struct SseState {
    inner: Arc<Inner>,
    sessions: Sessions,
    shutdown: CancellationToken,
    /// Where the message endpoint is, e.g. `/message` or `/mcp/<catalog>/message`.
    message_path: Arc<str>,
    /// The relay between replicas (`--state-redis`).
    #[cfg(feature = "redis")]
    relay: Option<mcpgen_state::Relay>,
}

/// Ends a session when the stream that carries it is dropped.
struct SessionGuard {
    id: Arc<str>,
    sessions: Sessions,
    ct: CancellationToken,
}

impl Drop for SessionGuard {
    fn drop(&mut self) {
        self.ct.cancel();
        self.sessions
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&self.id);
        tracing::debug!(session = %self.id, "legacy SSE session ended");
    }
}

/// The routes `GET <base>/sse` and `POST <base>/message` (`base` empty or e.g.
/// `/mcp/<catalog>`). Cancelling `shutdown` closes every open stream.
pub(crate) fn routes(inner: &Arc<Inner>, base: &str, shutdown: CancellationToken) -> Router {
    let message_path: Arc<str> = format!("{base}{MESSAGE_PATH}").into();
    let sessions: Sessions = Arc::new(Mutex::new(HashMap::new()));
    #[cfg(feature = "redis")]
    let relay = {
        let sessions = sessions.clone();
        let deliver = move |relayed| deliver_relayed(&sessions, relayed);
        super::sse_relay::start(inner, &message_path, &shutdown, deliver)
    };
    let state = SseState {
        inner: inner.clone(),
        sessions,
        shutdown,
        message_path: message_path.clone(),
        #[cfg(feature = "redis")]
        relay,
    };
    Router::new()
        .route(&format!("{base}/sse"), get(open_stream))
        .route(&message_path, post(post_message))
        .with_state(state)
}

/// The principal the auth layer put into the request.
fn principal_of(request: &Request) -> Option<Principal> {
    request.extensions().get::<Principal>().cloned()
}

/// `GET /sse`: opens a session and its stream.
async fn open_stream(State(state): State<SseState>, request: Request) -> Response {
    let Some(principal) = principal_of(&request) else {
        return unauthorized(&AuthError::Missing);
    };
    let mut id = rmcp::transport::common::server_side_http::session_id();
    if let Some(replica) = &state.inner.replica {
        id = super::replica::issued(replica, &id).into();
    }
    let ct = state.shutdown.child_token();
    let (to_server, from_client) = mpsc::channel::<ClientJsonRpcMessage>(CHANNEL_CAPACITY);
    let (to_client, from_server) = mpsc::channel::<ServerJsonRpcMessage>(CHANNEL_CAPACITY);
    state
        .sessions
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .insert(
            id.clone(),
            Session {
                principal: principal.clone(),
                to_server,
            },
        );
    tracing::debug!(session = %id, principal = %principal.id, "legacy SSE session opened");
    #[cfg(feature = "redis")]
    if let Some(relay) = &state.relay {
        super::sse_relay::hold(relay, id.clone(), &principal, ct.clone());
    }

    let handler = McpHandler::new(state.inner.clone(), Some(principal));
    let service_ct = ct.clone();
    let service_id = id.clone();
    tokio::spawn(async move {
        match handler
            .serve_with_ct((to_client, from_client), service_ct.clone())
            .await
        {
            Ok(running) => {
                if let Err(error) = running.waiting().await {
                    tracing::warn!(session = %service_id, %error, "legacy SSE session failed");
                }
            }
            Err(error) => {
                tracing::debug!(session = %service_id, %error, "legacy SSE session not initialized");
            }
        }
        // The service is gone: close the stream.
        service_ct.cancel();
    });

    let guard = SessionGuard {
        id: id.clone(),
        sessions: state.sessions.clone(),
        ct: ct.clone(),
    };
    // Behind a proxy with a public URL, the message endpoint is announced at it; otherwise
    // as a path (under the base path), which the client resolves against the stream's URL.
    let message_url = state
        .inner
        .placement
        .public(&state.message_path)
        .unwrap_or_else(|| state.message_path.to_string());
    let endpoint = Event::default()
        .event("endpoint")
        .data(format!("{message_url}?sessionId={id}"));
    let messages = from_server.filter_map(move |message| {
        // The stream owns the guard: dropping the stream ends the session.
        let _session = &guard;
        let event = match serde_json::to_string(&message) {
            Ok(json) => Some(Ok::<_, Infallible>(
                Event::default().event("message").data(json),
            )),
            Err(error) => {
                tracing::warn!(%error, "cannot serialize a message for the SSE stream");
                None
            }
        };
        std::future::ready(event)
    });
    let stream = futures::stream::once(std::future::ready(Ok(endpoint)))
        .chain(messages)
        .take_until(ct.cancelled_owned());
    Sse::new(stream)
        .keep_alive(KeepAlive::new().interval(KEEP_ALIVE).text("keep-alive"))
        .into_response()
}

/// The `sessionId` query parameter.
fn session_id_of(request: &Request) -> Option<String> {
    let query = request.uri().query()?;
    url::form_urlencoded::parse(query.as_bytes())
        .find(|(name, _)| name == "sessionId")
        .map(|(_, value)| value.into_owned())
}

/// Parses one JSON-RPC message or a batch of them.
fn parse_messages(body: &[u8]) -> Result<Vec<ClientJsonRpcMessage>, serde_json::Error> {
    let value: serde_json::Value = serde_json::from_slice(body)?;
    match value {
        serde_json::Value::Array(items) => items.into_iter().map(serde_json::from_value).collect(),
        single => Ok(vec![serde_json::from_value(single)?]),
    }
}

fn session_not_found() -> Response {
    jsonrpc_error(
        StatusCode::NOT_FOUND,
        -32001,
        "session not found: open a new stream at /sse",
    )
}

/// `POST /message?sessionId=<id>`: hands the client's message(s) to the session.
async fn post_message(State(state): State<SseState>, request: Request) -> Response {
    let Some(principal) = principal_of(&request) else {
        return unauthorized(&AuthError::Missing);
    };
    let Some(id) = session_id_of(&request) else {
        return jsonrpc_error(
            StatusCode::BAD_REQUEST,
            -32600,
            "missing the sessionId query parameter",
        );
    };
    let to_server = {
        let sessions = state
            .sessions
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        sessions
            .get(id.as_str())
            .map(|session| (session.principal == principal).then(|| session.to_server.clone()))
    };
    let Some(to_server) = to_server else {
        #[cfg(feature = "redis")]
        if let Some(relay) = &state.relay {
            return post_relayed(&state, relay, &id, principal, request).await;
        }
        return session_not_found();
    };
    let Some(to_server) = to_server else {
        return refuse_other_caller(&state, &id, &principal, request).await;
    };
    // The request's parts go along with each message, as rmcp does on `/mcp`, so a call sees
    // the credential and headers of the POST that carried it.
    let (parts, body) = request.into_parts();
    let body = match read_body(&state, body).await {
        Ok(body) => body,
        Err(refused) => return refused,
    };
    forward(to_server, &body, &parts).await
}

/// The body of a POST to the message endpoint, within the body limit.
async fn read_body(state: &SseState, body: axum::body::Body) -> Result<Bytes, Response> {
    axum::body::to_bytes(body, state.inner.max_body_bytes)
        .await
        .map_err(|_| {
            jsonrpc_error(
                StatusCode::BAD_REQUEST,
                -32600,
                "the request body could not be read",
            )
        })
}

/// `POST /message` for a stream another replica holds: refused as for an unknown session when
/// no replica holds it (or its holder is gone), as for another caller's when the store names
/// another owner; relayed to the holder otherwise.
#[cfg(feature = "redis")]
async fn post_relayed(
    state: &SseState,
    relay: &mcpgen_state::Relay,
    id: &str,
    principal: Principal,
    request: Request,
) -> Response {
    let Some(holder) = super::sse_relay::holder(relay, id).await else {
        return session_not_found();
    };
    if holder.owner != principal.id {
        return refuse_other_caller(state, id, &principal, request).await;
    }
    let (parts, body) = request.into_parts();
    let body = match read_body(state, body).await {
        Ok(body) => body,
        Err(refused) => return refused,
    };
    // Checked here, so that the caller hears of a bad message as from the holder.
    if let Err(refused) = check_messages(&body) {
        return *refused;
    }
    let Some(relayed) = super::sse_relay::relayed(id, &parts, &body) else {
        return jsonrpc_error(
            StatusCode::BAD_REQUEST,
            PARSE_ERROR,
            "the message is not UTF-8",
        );
    };
    match relay.send(&holder.instance, &relayed).await {
        Ok(true) => StatusCode::ACCEPTED.into_response(),
        Ok(false) => session_not_found(),
        Err(error) => {
            tracing::warn!(session = %id, %error, "a message for another replica's stream cannot be relayed");
            jsonrpc_error(
                StatusCode::SERVICE_UNAVAILABLE,
                -32000,
                "the stream of this session is on another replica, which cannot be reached now; retry",
            )
        }
    }
}

/// Refuses (403, audited) a message for a session another caller opened.
async fn refuse_other_caller(
    state: &SseState,
    id: &str,
    principal: &Principal,
    request: Request,
) -> Response {
    tracing::warn!(session = %id, principal = %principal.id, "message refused: the session belongs to another caller");
    let reason = "the session belongs to another caller";
    let kind = (AuditStatus::Forbidden, "session_owner");
    audit_refused(&state.inner, request, Some(principal), kind, reason).await;
    jsonrpc_error(StatusCode::FORBIDDEN, -32001, reason)
}

/// The messages of `body`, or the answer refusing them.
fn check_messages(body: &Bytes) -> Result<Vec<ClientJsonRpcMessage>, Box<Response>> {
    parse_messages(body).map_err(|error| {
        // Bytes that are not JSON are a parse error; JSON that is not a message is an
        // invalid request.
        let code = if serde_json::from_slice::<serde::de::IgnoredAny>(body).is_err() {
            PARSE_ERROR
        } else {
            INVALID_REQUEST
        };
        Box::new(jsonrpc_error(
            StatusCode::BAD_REQUEST,
            code,
            &format!("not a JSON-RPC message: {error}"),
        ))
    })
}

/// Hands a relayed message to its session, with the parts of the POST that carried it. It
/// never waits: every relayed message of the catalog comes through one subscription, so a
/// session whose queue is full (its client sends faster than it is answered) loses the
/// message rather than holding up the other sessions' (a POST to the holder itself waits
/// instead).
#[cfg(feature = "redis")]
fn deliver_relayed(sessions: &Sessions, relayed: mcpgen_state::Relayed) {
    let session = {
        let sessions = sessions.lock().unwrap_or_else(PoisonError::into_inner);
        sessions
            .get(relayed.session.as_str())
            .map(|s| (s.principal.clone(), s.to_server.clone()))
    };
    let Some((principal, to_server)) = session else {
        tracing::debug!(session = %relayed.session, "a relayed message for a stream that has closed");
        return;
    };
    let Some(parts) = super::sse_relay::parts_of(&relayed, principal) else {
        tracing::warn!(session = %relayed.session, "a relayed message with an unusable URI is dropped");
        return;
    };
    let Ok(messages) = check_messages(&Bytes::from(relayed.body)) else {
        tracing::warn!(session = %relayed.session, "a relayed message that is not JSON-RPC is dropped");
        return;
    };
    let mut to_server = to_server;
    for mut message in messages {
        message.insert_extension(parts.clone());
        if let Err(error) = to_server.try_send(message) {
            if error.is_full() {
                tracing::warn!(session = %relayed.session, "a relayed message is dropped: the session's queue is full");
            }
            return;
        }
    }
}

/// Sends the messages in `body` to the session's service.
async fn forward(
    mut to_server: mpsc::Sender<ClientJsonRpcMessage>,
    body: &Bytes,
    parts: &http::request::Parts,
) -> Response {
    let messages = match check_messages(body) {
        Ok(messages) => messages,
        Err(refused) => return *refused,
    };
    for mut message in messages {
        message.insert_extension(parts.clone());
        if to_server.send(message).await.is_err() {
            return session_not_found();
        }
    }
    StatusCode::ACCEPTED.into_response()
}
