//! Ties each `/mcp` session to the principal that initialized it, and keeps the session caps:
//! records the owner when rmcp issues a session id, refuses (403) requests on a session owned
//! by someone else, forgets sessions that are deleted or that rmcp no longer knows (404), and
//! admits new sessions under `--sessions-max` and `--sessions-max-per-principal` (see
//! [`mcpgen_policy::sessions`]): a principal at its cap has its own least recently used idle session closed or
//! is refused (429); at the catalog's cap a new session is refused (503), and no other
//! principal's session is closed to make room. A session is in use while one of its requests
//! is answered or one of its streams is open.
//!
//! With a store the replicas share (`--state-redis`, see [`shared`]), the owner of each new
//! session is written there too, and a request for a session this replica does not hold is
//! checked against the owner the store names (then rmcp rebuilds the session from the store).
//! The caps count the sessions each replica holds.

pub(crate) mod shared;

use std::collections::HashSet;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll};

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;
use hyper::body::{Frame, SizeHint};
use mcpgen_audit::AuditStatus;
use rmcp::transport::common::server_side_http::SessionId;
use rmcp::transport::streamable_http_server::session::SessionManager;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;

use self::shared::{Owner, Shared};
use crate::server::access::refused::audit_refused;
use crate::server::access::reply::{AUTH_ERROR_CODE, jsonrpc_error, unauthorized};
use crate::server::state::inner::Inner;
use mcpgen_identity::auth::AuthError;
use mcpgen_identity::principal::Principal;
use mcpgen_policy::sessions::{Owners, Refusal};

/// The header that carries a Streamable HTTP session id.
pub(crate) const SESSION_HEADER: &str = "mcp-session-id";

/// The header naming the request's protocol revision.
const PROTOCOL_VERSION_HEADER: &str = "mcp-protocol-version";

/// The first revision without sessions (its requests never open one).
const STATELESS_SINCE: &str = "2026-07-28";

/// How long a client refused a new session is asked to wait, in seconds.
const RETRY_AFTER_SECONDS: &str = "5";

/// State of the session layer: the table, and rmcp's session manager (to close the sessions
/// given up, and to learn which sessions it ended on its own).
#[derive(Clone)]
pub(crate) struct SessionOwners {
    owners: Arc<Mutex<Owners>>,
    manager: Arc<LocalSessionManager>,
    /// Audits the calls refused because their session belongs to someone else.
    inner: Arc<Inner>,
    /// The sessions in the store the replicas share, if any.
    shared: Option<Shared>,
}

impl SessionOwners {
    /// The layer's state for `inner`'s sessions, held by `manager`.
    pub(crate) fn new(
        inner: &Arc<Inner>,
        manager: Arc<LocalSessionManager>,
        shared: Option<Shared>,
    ) -> Self {
        Self {
            owners: Arc::new(Mutex::new(Owners::new(inner.sessions))),
            manager,
            inner: inner.clone(),
            shared,
        }
    }

    /// Whether the session `id`, which this replica's table does not know, belongs to
    /// `principal` by the store; when it does, it is in the table from now on (in use by
    /// this request). `None`: the store does not know it either (or there is no store).
    async fn shared_owner(&self, id: &str, principal: &Principal) -> Option<bool> {
        match self.shared.as_ref()?.owner(id).await {
            Owner::Principal(owner) if owner == principal.id => {
                self.lock().settle(principal, Some(Arc::from(id)), false);
                Some(true)
            }
            Owner::Principal(_) => Some(false),
            Owner::Unknown => None,
            Owner::Away(error) => {
                tracing::warn!(session = %id, %error, "the session's owner cannot be read from the store");
                None
            }
        }
    }

    fn lock(&self) -> MutexGuard<'_, Owners> {
        lock(&self.owners)
    }

    /// Admits a new session of `principal`, closing the idle session it gives up; at the
    /// catalog's cap, first forgets the sessions rmcp ended on its own.
    async fn admit(&self, principal: &Principal) -> Result<(), Refusal> {
        if self.lock().full() {
            let live: HashSet<Arc<str>> =
                self.manager.sessions.read().await.keys().cloned().collect();
            self.lock().retain_live(&live);
        }
        let admitted = self.lock().admit(principal)?;
        if let Some(id) = admitted.closing {
            tracing::info!(session = %id, principal = %principal.id, "closing the principal's least recently used idle session for a new one");
            #[cfg(feature = "metrics")]
            if let Some(metrics) = &self.inner.metrics {
                metrics.session_closed("principal_cap");
            }
            let id: SessionId = id;
            if let Err(error) = self.manager.close_session(&id).await {
                tracing::warn!(session = %id, %error, "cannot close a session given up");
            }
        }
        Ok(())
    }
}

fn lock(owners: &Mutex<Owners>) -> MutexGuard<'_, Owners> {
    owners.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A session in use by one request or stream; its end is recorded when dropped.
struct InUse {
    owners: Arc<Mutex<Owners>>,
    id: Arc<str>,
}

impl Drop for InUse {
    fn drop(&mut self) {
        lock(&self.owners).touch(&self.id, false);
    }
}

/// A response body that keeps its session in use until it has been sent (or dropped).
struct InUseBody {
    body: Body,
    _use: InUse,
}

impl hyper::body::Body for InUseBody {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

/// `response` with its body holding `id` in use.
fn holding(response: Response, state: &SessionOwners, id: Arc<str>) -> Response {
    let used = InUse {
        owners: state.owners.clone(),
        id,
    };
    response.map(|body| Body::new(InUseBody { body, _use: used }))
}

/// Whether `request` (which names no session) may open one: a POST of the session-era
/// protocol whose message is `initialize`; gives the request back with its body.
async fn may_open(request: Request) -> (Request, bool) {
    let stateless = request
        .headers()
        .get(PROTOCOL_VERSION_HEADER)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|version| version.trim() >= STATELESS_SINCE);
    if request.method() != Method::POST || stateless {
        return (request, false);
    }
    let (parts, body) = request.into_parts();
    // The body-size layer has already read the body into memory, within its limit.
    let Ok(bytes) = axum::body::to_bytes(body, usize::MAX).await else {
        return (Request::from_parts(parts, Body::empty()), false);
    };
    #[derive(serde::Deserialize)]
    struct Head<'a> {
        #[serde(borrow)]
        method: Option<std::borrow::Cow<'a, str>>,
    }
    let opens = serde_json::from_slice::<Head>(&bytes)
        .ok()
        .and_then(|m| m.method)
        .is_some_and(|m| m == "initialize");
    (Request::from_parts(parts, Body::from(bytes)), opens)
}

/// The answer to a new session refused for `refusal`.
fn refused_session(refusal: Refusal, state: &SessionOwners) -> Response {
    let limits = state.lock().limits();
    let (status, message, reason) = match refusal {
        Refusal::ServerCap => (
            StatusCode::SERVICE_UNAVAILABLE,
            format!(
                "the server holds its most sessions ({}, --sessions-max); retry later",
                limits.max
            ),
            "server_cap",
        ),
        Refusal::PrincipalCap => (
            StatusCode::TOO_MANY_REQUESTS,
            format!(
                "this principal holds its most sessions ({}, --sessions-max-per-principal), \
                 all in use; end one (DELETE) or retry later",
                limits.per_principal
            ),
            "principal_cap",
        ),
    };
    tracing::warn!(reason, "new session refused");
    #[cfg(feature = "metrics")]
    if let Some(metrics) = &state.inner.metrics {
        metrics.session_refused(reason);
    }
    #[cfg(not(feature = "metrics"))]
    let _ = reason;
    let mut response = jsonrpc_error(status, -32000, &message);
    response.headers_mut().insert(
        header::RETRY_AFTER,
        HeaderValue::from_static(RETRY_AFTER_SECONDS),
    );
    response
}

/// The session layer (see the module's documentation).
pub(crate) async fn bind_session(
    State(state): State<SessionOwners>,
    request: Request,
    next: Next,
) -> Response {
    let Some(principal) = request.extensions().get::<Principal>().cloned() else {
        return unauthorized(&AuthError::Missing);
    };
    let session = request
        .headers()
        .get(SESSION_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let Some(session) = session else {
        let (request, opens) = may_open(request).await;
        if opens && let Err(refusal) = state.admit(&principal).await {
            return refused_session(refusal, &state);
        }
        let response = next.run(request).await;
        let issued = response
            .headers()
            .get(SESSION_HEADER)
            .and_then(|v| v.to_str().ok())
            .map(Arc::<str>::from);
        state.lock().settle(&principal, issued.clone(), opens);
        if let (Some(shared), Some(id)) = (&state.shared, &issued) {
            // Before the client learns the id, so that no other replica sees it ownerless.
            shared.set_owner(id, &principal.id).await;
        }
        return match issued {
            Some(id) => {
                tracing::debug!(session = %id, principal = %principal.id, "session opened");
                holding(response, &state, id)
            }
            None => response,
        };
    };
    // One look at the table: whose the session is, and (when the caller's) one more use.
    let (mut owned_by_other, mut known, held) = {
        let mut owners = state.lock();
        match owners.owner(&session) {
            Some(owner) if *owner != principal => (true, false, true),
            Some(_) => (false, owners.touch(&session, true), true),
            None => (false, false, false),
        }
    };
    if held && let Some(shared) = &state.shared {
        shared.touch(&session);
    } else if !held && let Some(own) = state.shared_owner(&session, &principal).await {
        (owned_by_other, known) = (!own, own);
    }
    if owned_by_other {
        tracing::warn!(%session, principal = %principal.id, "request refused: the session belongs to another principal");
        let kind = (AuditStatus::Forbidden, "session_owner");
        let reason = "session belongs to another principal";
        audit_refused(&state.inner, request, Some(&principal), kind, reason).await;
        return jsonrpc_error(
            StatusCode::FORBIDDEN,
            AUTH_ERROR_CODE,
            "session belongs to another principal",
        );
    }
    let deleting = request.method() == Method::DELETE;
    let response = next.run(request).await;
    let status = response.status();
    // A 404 may also be a JSON-RPC "method not found"; forget the owner only when rmcp
    // confirms the session is gone.
    let gone = if deleting && status.is_success() {
        true
    } else if status == StatusCode::NOT_FOUND {
        let id: SessionId = session.as_str().into();
        !state.manager.has_session(&id).await.unwrap_or(true)
    } else {
        false
    };
    if gone {
        state.lock().remove(&session);
    }
    if known {
        holding(response, &state, Arc::from(session))
    } else {
        response
    }
}
