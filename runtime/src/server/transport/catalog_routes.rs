//! The routes of the mounted catalogs: `<mcp path>/<name>` and everything below it, sent to
//! the catalog mounted as `<name>` now (see [`Server::mount`](crate::server::Server::mount)), or
//! answered 404 when none is.
//!
//! Each catalog's routes (Streamable HTTP, legacy SSE, behind the `Host`/`Origin`, auth and
//! body-size layers with the catalog's own authenticators) are built on its first request and
//! kept while it stays mounted, so its sessions live across requests. A request already
//! handed to a catalog's routes holds them, so it finishes even if the catalog is unmounted
//! meanwhile.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use axum::Router;
use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::any;
use tokio_util::sync::CancellationToken;
use tower::ServiceExt;

use crate::server::access::reply::jsonrpc_error;
use crate::server::state::inner::Inner;
use crate::server::state::mounts::MountTable;
use crate::server::state::placement::Placement;
use mcpgen_policy::rebinding::Rebinding;

/// Builds a catalog's routes: Streamable HTTP at `base` and legacy SSE below it, guarded.
pub(crate) type BuildRoutes = fn(&Arc<Inner>, &str, &Arc<Rebinding>, CancellationToken) -> Router;

/// Catalog name → the state its routes were built for, and the routes.
type Built = HashMap<String, (Arc<Inner>, Router)>;

#[derive(Clone)]
struct Dispatch {
    mounts: Arc<MountTable>,
    placement: Arc<Placement>,
    policy: Arc<Rebinding>,
    sessions: CancellationToken,
    build: BuildRoutes,
    built: Arc<Mutex<Built>>,
}

/// The routes `<mcp path>/{catalog}` and `<mcp path>/{catalog}/{*rest}`.
pub(crate) fn routes(
    mounts: Arc<MountTable>,
    placement: Arc<Placement>,
    policy: Arc<Rebinding>,
    sessions: CancellationToken,
    build: BuildRoutes,
) -> Router {
    let mcp = placement.mcp_path();
    let state = Dispatch {
        mounts,
        placement,
        policy,
        sessions,
        build,
        built: Arc::default(),
    };
    Router::new()
        .route(&format!("{mcp}/{{catalog}}"), any(dispatch))
        .route(&format!("{mcp}/{{catalog}}/{{*rest}}"), any(dispatch))
        .with_state(state)
}

/// Hands the request to the routes of the catalog its path names.
async fn dispatch(State(state): State<Dispatch>, request: Request) -> Response {
    let prefix = format!("{}/", state.placement.mcp_path());
    let name = request
        .uri()
        .path()
        .strip_prefix(&prefix)
        .and_then(|rest| rest.split('/').next())
        .unwrap_or_default()
        .to_owned();
    let routes = {
        let mut built = state.built.lock().unwrap_or_else(PoisonError::into_inner);
        match state.mounts.get(&name) {
            None => {
                built.remove(&name);
                None
            }
            Some(inner) => match built.get(&name) {
                Some((at, routes)) if Arc::ptr_eq(at, &inner) => Some(routes.clone()),
                _ => {
                    let base = state.placement.mount_path(&name);
                    let routes =
                        (state.build)(&inner, &base, &state.policy, state.sessions.clone());
                    built.insert(name.clone(), (inner, routes.clone()));
                    Some(routes)
                }
            },
        }
    };
    match routes {
        Some(routes) => match routes.oneshot(request).await {
            Ok(response) => response,
            Err(never) => match never {},
        },
        None => jsonrpc_error(
            StatusCode::NOT_FOUND,
            -32601,
            &format!("no catalog `{name}` is mounted here"),
        )
        .into_response(),
    }
}
