//! Tasks in their 2025-11-25 form, for session clients of that revision over Streamable HTTP.
//!
//! rmcp models only the tasks extension of 2026-07-28 (SEP-2663): it drops a `tools/call`'s
//! `task` parameter, has no `execution` on a tool and no `tasks` server capability. So on a
//! server with task tools, this layer, in front of rmcp's service, serves the earlier form:
//!
//! - `initialize` answered with protocol 2025-11-25 gains `capabilities.tasks` (`list`,
//!   `cancel`, `requests.tools.call`), and, on a session of that revision (agreed at its
//!   `initialize`, [`revision`], and named by its `MCP-Protocol-Version` header), `tools/list`
//!   gains each task tool's `execution.taskSupport` ([`decorate`]);
//! - on such a session, a `tools/call` of a task tool with a `task` parameter, and
//!   `tasks/get`, `tasks/result`, `tasks/list` and `tasks/cancel`, are answered here as JSON
//!   ([`answer`]), over the same task table and call pipeline as the 2026-07-28 form;
//! - every other request, and any request on a session rmcp does not know, goes on to rmcp
//!   unchanged.
//!
//! The layer sits inside the session-ownership layer, so a request on another principal's
//! session never reaches it.

use std::sync::Arc;

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::Method;
use axum::middleware::{self, Next};
use axum::response::Response;
use rmcp::transport::streamable_http_server::session::SessionManager;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use serde::Deserialize;

use self::revision::Revisions;
use super::fast_path::plain_request::read_body;
use super::session::shared::Shared;
use crate::server::state::inner::Inner;

mod answer;
mod decorate;
mod revision;

/// The revision whose form of tasks this layer serves.
const REVISION: &str = "2025-11-25";

/// The header that carries a Streamable HTTP session id.
const SESSION_HEADER: &str = "mcp-session-id";

/// The header naming the request's protocol revision.
const PROTOCOL_VERSION_HEADER: &str = "mcp-protocol-version";

/// What the layer needs: the catalog's state, rmcp's sessions (to answer only on a session
/// rmcp knows), and the sessions that agreed on this revision.
#[derive(Clone)]
pub(crate) struct Earlier {
    inner: Arc<Inner>,
    manager: Arc<LocalSessionManager>,
    revisions: Arc<Revisions>,
    /// The sessions in the store the replicas share (`--state-redis`): a session opened on
    /// another replica has its revision there.
    shared: Option<Shared>,
}

impl Earlier {
    /// Whether the session `id` agreed on this revision at its `initialize`, on this replica
    /// or, by the store, on another.
    async fn agreed(&self, id: &str) -> bool {
        if self.revisions.is_2025(id) {
            return true;
        }
        let Some(shared) = &self.shared else {
            return false;
        };
        let agreed = shared.revision(id).await.as_deref() == Some(REVISION);
        if agreed {
            self.revisions.agreed(id);
        }
        agreed
    }

    /// Whether rmcp holds the session `id` here, or the store knows it (rmcp rebuilds it
    /// here on its next request).
    async fn known(&self, id: &str) -> bool {
        let sid: rmcp::transport::common::server_side_http::SessionId = id.into();
        if self.manager.has_session(&sid).await.unwrap_or(false) {
            return true;
        }
        match &self.shared {
            Some(shared) => shared.revision(id).await.is_some(),
            None => false,
        }
    }
}

/// `routes` (the Streamable HTTP service of the catalog `inner`) behind the layer, when the
/// catalog has task tools; unchanged otherwise.
pub(crate) fn served(
    routes: Router,
    inner: &Arc<Inner>,
    manager: &Arc<LocalSessionManager>,
    shared: Option<Shared>,
) -> Router {
    if !inner.tasks.offered() {
        return routes;
    }
    let state = Earlier {
        inner: inner.clone(),
        manager: manager.clone(),
        revisions: Arc::default(),
        shared,
    };
    routes.route_layer(middleware::from_fn_with_state(state, serve_2025))
}

/// The method of a JSON-RPC message, read without keeping the rest.
#[derive(Deserialize)]
struct Method2025 {
    method: Option<String>,
}

/// Serves the requests of the 2025-11-25 form of tasks; passes every other request on.
async fn serve_2025(State(state): State<Earlier>, request: Request, next: Next) -> Response {
    if request.method() != Method::POST {
        return next.run(request).await;
    }
    let headers = request.headers();
    let version = headers
        .get(PROTOCOL_VERSION_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(str::trim);
    let session = headers
        .get(SESSION_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let served = match (&session, version) {
        // An `initialize` carries no session, and no header of a later revision.
        (None, None | Some(REVISION)) => true,
        // A session's revision is the one it agreed on at `initialize`, whatever a later
        // header says.
        (Some(id), Some(REVISION)) => state.agreed(id).await,
        _ => false,
    };
    if !served {
        return next.run(request).await;
    }
    let (parts, body) = request.into_parts();
    let bytes = match read_body(body).await {
        Ok(bytes) => bytes,
        Err(refused) => return refused,
    };
    let method = serde_json::from_slice::<Method2025>(&bytes)
        .ok()
        .and_then(|m| m.method);
    let onward = |parts, bytes| Request::from_parts(parts, Body::from(bytes));
    let Some(session) = session else {
        if method.as_deref() != Some("initialize") {
            return next.run(onward(parts, bytes)).await;
        }
        let response = next.run(onward(parts, bytes)).await;
        state.revisions.prune(&state.manager).await;
        let opened = response
            .headers()
            .get(SESSION_HEADER)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let revisions = state.revisions.clone();
        return decorate::initialize(response, move || {
            if let Some(id) = &opened {
                revisions.agreed(id);
            }
        });
    };
    match method.as_deref() {
        Some("tools/list") => {
            let response = next.run(onward(parts, bytes)).await;
            decorate::tools_list(response, state.inner.clone())
        }
        Some("tools/call" | "tasks/get" | "tasks/result" | "tasks/list" | "tasks/cancel") => {
            // A session rmcp does not know is its to refuse (404).
            if !state.known(&session).await {
                return next.run(onward(parts, bytes)).await;
            }
            match answer::answer(&state.inner, &parts, &bytes).await {
                Some(response) => response,
                None => next.run(onward(parts, bytes)).await,
            }
        }
        _ => next.run(onward(parts, bytes)).await,
    }
}
