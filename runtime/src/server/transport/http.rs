//! The HTTP transports: routes, the auth / `Host` / `Origin` / body-size layers, and serving
//! with graceful shutdown.
//!
//! Routes:
//! - `/mcp`: Streamable HTTP (rmcp's service). Clients that send `initialize` get a session
//!   (`Mcp-Session-Id`; responses as SSE streams, as rmcp does for sessions); requests of the
//!   stateless 2026-07-28 protocol get plain JSON responses; their `tools/list` is answered
//!   from bytes serialised once per visible set (`tools_list.rs`), their `tools/call` by the
//!   runtime's own handler (`stateless.rs`), both as rmcp would answer them.
//! - `GET /sse` and `POST /message?sessionId=`: the legacy HTTP+SSE transport (2024-11-05),
//!   see `sse.rs`.
//! - `GET /healthz`: `200 ok`, no checks.
//! - `GET /.well-known/mcp.json` and `GET /mcp/server-card`: the server cards (`Host` and
//!   `Origin` checked, no credential needed).
//! - For each mounted catalog `<name>`: `/mcp/<name>` (Streamable HTTP), `GET /mcp/<name>/sse`
//!   and `POST /mcp/<name>/message?sessionId=` (legacy HTTP+SSE), each behind the same layers
//!   as `/mcp` but authenticated by the mount's own authenticators (then the server's). With
//!   mounts and no tool sets of its own, the server serves neither `/mcp` nor `/sse`.
//! - With a base path `B` ([`Placement`](crate::server::Placement)), `/mcp` becomes `B`, and every
//!   other route moves below it (`B/sse`, `B/healthz`, `B/<name>`, `B/server-card`, …).
//!
//! Everything under [`protected_routes`] passes, outermost first: `Host`/`Origin` validation
//! (403; 400 for two `Host` headers), authentication (401 with `WWW-Authenticate` and a
//! JSON-RPC error body, code -32001; the [`Principal`] goes into the request extensions), and
//! the body size limit (413) and read deadline (408), counted from the request's head. A
//! refused request has at most a bounded prefix of its body read (`access/prefix.rs`).
//!
//! A `/mcp` session belongs to the principal that initialized it: a request carrying the
//! `Mcp-Session-Id` of a session opened by another principal is refused with 403 (as on the
//! legacy SSE transport); ids we never issued are left to rmcp (404). New sessions are admitted
//! under `--sessions-max-per-principal` and `--sessions-max` (see `session/`).
//!
//! On the 2026-07-28 protocol (`MCP-Protocol-Version` at or after it) rmcp checks the standard
//! `Mcp-Method` and `Mcp-Name` headers against the body; a `tools/call` of a tool that declares
//! custom headers (`x-mcp-header`) has its `Mcp-Param-*` headers checked here first (400 with
//! JSON-RPC error -32020, HeaderMismatch, on a mismatch; see `param_headers.rs`).

use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{Method, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use futures::StreamExt;
use mcpgen_audit::AuditStatus;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;

use super::card;
use super::session::{SessionOwners, bind_session};
use crate::server::access::authn::authenticate;
#[cfg(feature = "oauth")]
use crate::server::access::oauth;
use crate::server::access::refused::audit_refused;
use crate::server::access::reply::{closing, jsonrpc_error};
use crate::server::call::handler::McpHandler;
use crate::server::error::ServerError;
use crate::server::state::inner::Inner;
use crate::server::state::server::Server;
use mcpgen_identity::principal::Principal;
#[cfg(feature = "metrics")]
use mcpgen_listener::ConnectionEvent;
use mcpgen_policy::rebinding::{Rebinding, Refusal};

/// The header naming the request's protocol revision.
const PROTOCOL_VERSION_HEADER: &str = "mcp-protocol-version";

/// The first revision whose requests carry the standard and custom `Mcp-*` headers.
const STANDARD_HEADERS_SINCE: &str = "2026-07-28";

/// JSON-RPC error code of a header that contradicts the body (HeaderMismatch).
const HEADER_MISMATCH_CODE: i64 = -32020;

/// How long, after the calls in progress have finished, shutdown lets their responses be
/// written before closing the streams that are still open.
const RESPONSE_GRACE: Duration = Duration::from_millis(500);

/// The `Host`/`Origin` policy, and the catalog whose audit records the calls it refuses
/// (`None` for routes that serve no calls).
#[derive(Clone)]
struct RebindingGuard {
    policy: Arc<Rebinding>,
    inner: Option<Arc<Inner>>,
}

/// Refuses requests with a disallowed `Host` or `Origin`.
async fn check_rebinding(
    State(guard): State<RebindingGuard>,
    request: Request,
    next: Next,
) -> Response {
    match guard.policy.check(request.uri(), request.headers()) {
        Ok(()) => next.run(request).await,
        Err(refusal) => {
            tracing::warn!(%refusal, "request refused (possible DNS rebinding or cross-origin call)");
            let (status, text) = match &refusal {
                Refusal::Malformed(_) => (StatusCode::BAD_REQUEST, refusal.to_string()),
                _ => (StatusCode::FORBIDDEN, refusal.to_string()),
            };
            let reusable = match &guard.inner {
                Some(inner) => {
                    let kind = (AuditStatus::Forbidden, "host_or_origin");
                    audit_refused(inner, request, None, kind, &text).await
                }
                // Routes that serve no calls read no body.
                None => {
                    request.version() >= http::Version::HTTP_2
                        || hyper::body::Body::is_end_stream(request.body())
                }
            };
            closing(jsonrpc_error(status, -32000, &text), reusable)
        }
    }
}

fn too_large(max: usize) -> Response {
    jsonrpc_error(
        StatusCode::PAYLOAD_TOO_LARGE,
        -32600,
        &format!("the request body is larger than the limit of {max} bytes"),
    )
}

/// The body-size layer's settings: the largest body, and how long a client may take to send it.
#[derive(Clone, Copy)]
struct BodyLimits {
    max: usize,
    timeout: Duration,
}

/// Reads the body up to the limit (413 beyond it) within the read timeout (408 past it, so a
/// client that stalls mid-body does not hold its connection and buffer forever) and hands it
/// on buffered.
async fn limit_body(State(limits): State<BodyLimits>, request: Request, next: Next) -> Response {
    let max = limits.max;
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|len| len > u64::try_from(max).unwrap_or(u64::MAX)) {
        return too_large(max);
    }
    let (parts, body) = request.into_parts();
    let read = async {
        let mut stream = body.into_data_stream();
        let mut buffered = Vec::new();
        while let Some(chunk) = stream.next().await {
            let Ok(chunk) = chunk else {
                return Err(jsonrpc_error(
                    StatusCode::BAD_REQUEST,
                    -32600,
                    "the request body could not be read",
                ));
            };
            if buffered.len() + chunk.len() > max {
                return Err(too_large(max));
            }
            buffered.extend_from_slice(&chunk);
        }
        Ok(buffered)
    };
    // Counted from the request's head, so the time authentication took is part of it.
    let deadline = mcpgen_listener::HeadReceived::body_deadline(&parts.extensions, limits.timeout);
    let deadline = tokio::time::Instant::from_std(deadline);
    let buffered = match tokio::time::timeout_at(deadline, read).await {
        Ok(Ok(buffered)) => buffered,
        Ok(Err(refusal)) => return refusal,
        Err(_) => {
            tracing::debug!(
                path = parts.uri.path(),
                "request refused: the body did not arrive in time"
            );
            let mut response = jsonrpc_error(
                StatusCode::REQUEST_TIMEOUT,
                -32600,
                &format!(
                    "the request body did not arrive within {} ms",
                    limits.timeout.as_millis()
                ),
            );
            // The rest of the body may still be on its way: do not read it, close.
            response.headers_mut().insert(
                header::CONNECTION,
                header::HeaderValue::from_static("close"),
            );
            return response;
        }
    };
    next.run(Request::from_parts(parts, Body::from(buffered)))
        .await
}

/// Checks the `Mcp-Param-*` headers of a `tools/call` against its arguments (requests of the
/// 2026-07-28 protocol only, and only when some tool declares custom headers): a mismatch is
/// answered with 400 and a HeaderMismatch error carrying the request's id.
async fn check_param_headers(
    State(inner): State<Arc<Inner>>,
    request: Request,
    next: Next,
) -> Response {
    // The tools served now: their headers, even if they are replaced meanwhile.
    let served = inner.tools.load();
    let table = &served.param_headers;
    let applies = !table.is_empty()
        && request.method() == Method::POST
        && request
            .headers()
            .get(PROTOCOL_VERSION_HEADER)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|version| version.trim() >= STANDARD_HEADERS_SINCE);
    if !applies {
        return next.run(request).await;
    }
    let (parts, body) = request.into_parts();
    // The body-size layer has already read the body into memory, within its limit.
    let Ok(bytes) = axum::body::to_bytes(body, usize::MAX).await else {
        return jsonrpc_error(
            StatusCode::BAD_REQUEST,
            -32600,
            "the request body could not be read",
        );
    };
    if let Ok(message) = serde_json::from_slice::<serde_json::Value>(&bytes) {
        let principal = parts.extensions.get::<Principal>();
        if let Err(mismatch) = table.check(&parts.headers, &message, principal) {
            tracing::debug!(reason = %mismatch.0, "request refused: a custom header contradicts the body");
            let body = serde_json::json!({
                "jsonrpc": "2.0",
                "id": message.get("id").cloned().unwrap_or(serde_json::Value::Null),
                "error": {"code": HEADER_MISMATCH_CODE, "message": mismatch.0},
            });
            return (
                StatusCode::BAD_REQUEST,
                [(header::CONTENT_TYPE, "application/json")],
                body.to_string(),
            )
                .into_response();
        }
    }
    next.run(Request::from_parts(parts, Body::from(bytes)))
        .await
}

/// The Streamable HTTP service at `path`, behind the session-ownership layer.
fn mcp_routes(inner: &Arc<Inner>, path: &str, sessions: CancellationToken) -> Router {
    // Host/Origin are checked by our own layer (which also covers the other routes), so
    // rmcp's copies of those checks are switched off. Sessions stay on for clients that use
    // them; requests of the stateless protocol are answered with plain JSON.
    let mut config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(true)
        .with_json_response(true)
        .disable_allowed_hosts()
        .disable_allowed_origins()
        .with_max_request_body_bytes(inner.max_body_bytes)
        .with_cancellation_token(sessions);
    // With a shared store, rmcp keeps each session's `initialize` there and rebuilds on this
    // replica a session another opened; the session ids then name no replica.
    let shared = super::session::shared::of(inner, path);
    if let Some(shared) = &shared {
        config.session_store = Some(shared.store());
    }
    let manager = Arc::new(LocalSessionManager::default());
    let owners = SessionOwners::new(inner, manager.clone(), shared.clone());
    let replica = inner.replica.clone().filter(|_| shared.is_none());
    let own = inner.clone();
    let inner = inner.clone();
    let sessions_of_rmcp = manager.clone();
    let handler_shared = shared.clone();
    let service: StreamableHttpService<McpHandler, LocalSessionManager> =
        StreamableHttpService::new(
            move || {
                let handler = McpHandler::new(inner.clone(), None);
                Ok(super::session::shared::handler(handler, &handler_shared))
            },
            manager,
            config,
        );
    let routes = Router::new()
        .route_service(path, super::shared_service::Shared::new(service))
        .route_layer(middleware::from_fn(super::malformed::answer_malformed));
    let routes = super::tasks_2025::served(routes, &own, &sessions_of_rmcp, shared);
    let router = super::fast_path::answered_here(routes, own.clone())
        .route_layer(middleware::from_fn_with_state(own, check_param_headers));
    let router = router.route_layer(middleware::from_fn_with_state(owners, bind_session));
    match &replica {
        Some(name) => router.route_layer(middleware::from_fn_with_state(
            name.clone(),
            super::replica::prefix_sessions,
        )),
        None => router,
    }
}

/// The routes of one catalog that need a credential: Streamable HTTP at `base` (`/mcp`, or
/// `/mcp/<name>` for a mount) and, merged in here, the legacy SSE routes (`/sse` and
/// `/message`, under `/mcp/<name>` for a mount).
fn protected_routes(
    inner: &Arc<Inner>,
    base: &str,
    sse_base: &str,
    sessions: CancellationToken,
) -> Router {
    let routes = transport_routes(inner, base, sse_base, sessions);
    #[cfg(feature = "oauth")]
    if inner.resource.oauth.is_some() {
        return routes.route_layer(middleware::from_fn_with_state(
            inner.clone(),
            oauth::check_scope,
        ));
    }
    routes
}

/// Streamable HTTP at `base` and legacy SSE under `sse_base`.
fn transport_routes(
    inner: &Arc<Inner>,
    base: &str,
    sse_base: &str,
    sessions: CancellationToken,
) -> Router {
    // Legacy HTTP+SSE merges here, so it shares the auth, Host/Origin and body-size layers;
    // each stream gets a handler fixed to the principal that opened it.
    #[cfg(feature = "legacy-sse")]
    return mcp_routes(inner, base, sessions.clone())
        .merge(super::sse::routes(inner, sse_base, sessions));
    #[cfg(not(feature = "legacy-sse"))]
    {
        let _ = sse_base;
        mcp_routes(inner, base, sessions)
    }
}

/// `routes` behind the body-size limit, `inner`'s authentication and the `Host`/`Origin`
/// check, outermost last. The server's own routes take the layers with their fallback (an
/// unknown path is authenticated like `/mcp`); a mount's only on its routes, so that its
/// authenticators never answer for a path outside the mount.
fn guarded(routes: Router, inner: &Arc<Inner>, policy: &Arc<Rebinding>, own: bool) -> Router {
    let limits = BodyLimits {
        max: inner.max_body_bytes,
        timeout: inner.body_read_timeout,
    };
    let body = middleware::from_fn_with_state(limits, limit_body);
    let auth = middleware::from_fn_with_state(inner.clone(), authenticate);
    let guard = RebindingGuard {
        policy: policy.clone(),
        inner: Some(inner.clone()),
    };
    let rebinding = middleware::from_fn_with_state(guard, check_rebinding);
    if own {
        routes.layer(body).layer(auth).layer(rebinding)
    } else {
        routes
            .route_layer(body)
            .route_layer(auth)
            .route_layer(rebinding)
    }
}

/// The guarded routes of the catalog `inner` mounted at `base`.
fn mount_routes(
    inner: &Arc<Inner>,
    base: &str,
    policy: &Arc<Rebinding>,
    sessions: CancellationToken,
) -> Router {
    guarded(
        protected_routes(inner, base, base, sessions),
        inner,
        policy,
        false,
    )
}

/// Builds the full router for a server bound to `bound` (`None`: unknown, treated as loopback
/// for the `Host`/`Origin` defaults). Cancelling `sessions` closes open sessions and streams.
pub(crate) fn build_router(
    server: &Server,
    bound: Option<IpAddr>,
    sessions: CancellationToken,
    extra_protected: Router,
) -> Router {
    let inner = &server.inner;
    let placement = &inner.placement;
    let policy = Arc::new(inner.rebinding.policy(bound));
    let own = if server.serve_root {
        protected_routes(
            inner,
            &placement.mcp_path(),
            &placement.base_path,
            sessions.clone(),
        )
        .merge(extra_protected)
    } else {
        extra_protected
    };
    let protected = guarded(own, inner, &policy, true).merge(super::catalog_routes::routes(
        server.mounts.clone(),
        placement.clone(),
        policy.clone(),
        sessions.clone(),
        mount_routes,
    ));
    #[cfg(feature = "otel")]
    let protected = super::http_trace::traced(protected);
    let cards = Router::new()
        .route(
            &placement.root_path("/.well-known/mcp.json"),
            get(card::well_known),
        )
        .route(
            &format!("{}/server-card", placement.mcp_path()),
            get(card::server_card),
        )
        .with_state(card::CardState::of(server));
    #[cfg(feature = "oauth")]
    let cards = cards.merge(oauth::metadata_routes(
        inner,
        &server.mounts,
        server.serve_root,
    ));
    let cards = cards.layer(middleware::from_fn_with_state(
        RebindingGuard {
            policy,
            inner: None,
        },
        check_rebinding,
    ));
    let router = Router::new()
        .route(&placement.root_path("/healthz"), get(|| async { "ok" }))
        .route(
            &placement.root_path("/readyz"),
            get(super::ready::readyz).with_state(inner.clone()),
        )
        .merge(cards)
        .merge(protected);
    #[cfg(feature = "metrics")]
    if let Some(endpoint) = &server.metrics_endpoint {
        // Its own bearer token, not the MCP credentials: a scraper holds no API key.
        return endpoint.router().merge(router);
    }
    router
}

/// Counts the listener's connections in the server's metrics, when it has them.
fn connection_watch(server: &Server) -> Option<mcpgen_listener::ConnectionWatch> {
    #[cfg(feature = "metrics")]
    if let Some(metrics) = server.inner.metrics.clone() {
        return Some(Arc::new(move |event| match event {
            ConnectionEvent::Opened => metrics.connection(true),
            ConnectionEvent::Closed => metrics.connection(false),
            ConnectionEvent::Waited => metrics.connection_waited(),
        }));
    }
    let _ = server;
    None
}

impl Server {
    /// The HTTP routes, with the `Host`/`Origin` defaults of a loopback server. Serve it with
    /// any axum-compatible server; call [`Server::drain`] after it stops.
    pub fn router(&self) -> Router {
        build_router(self, None, CancellationToken::new(), Router::new())
    }

    /// The HTTP routes for a server bound to `local` (the `Host`/`Origin` defaults depend on
    /// whether it is a loopback address).
    pub fn router_for(&self, local: SocketAddr) -> Router {
        build_router(
            self,
            Some(local.ip()),
            CancellationToken::new(),
            Router::new(),
        )
    }

    /// The HTTP routes plus `extra`, which sits behind the same `Host`/`Origin`,
    /// authentication and body-size layers as `/mcp` (its handlers find the caller's
    /// [`Principal`] in the request extensions).
    pub fn router_with(&self, local: Option<SocketAddr>, extra: Router) -> Router {
        build_router(self, local.map(|a| a.ip()), CancellationToken::new(), extra)
    }

    /// Listens on `addr` and serves HTTP until `shutdown` resolves, then shuts down
    /// gracefully: stops accepting connections, lets calls in progress finish (bounded by the
    /// shutdown timeout), closes open streams and flushes the audit sinks.
    ///
    /// Refuses a non-loopback address when no authenticator is configured, unless
    /// [`ServerBuilder::insecure_no_auth`](crate::server::ServerBuilder::insecure_no_auth) is set.
    pub async fn serve_http(
        &self,
        addr: SocketAddr,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> Result<(), ServerError> {
        self.check_exposure(addr)?;
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|source| ServerError::Bind { addr, source })?;
        self.serve_listener(listener, shutdown).await
    }

    /// Like [`Server::serve_http`] on a listener that is already bound (e.g. to port 0).
    pub async fn serve_listener(
        &self,
        listener: tokio::net::TcpListener,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> Result<(), ServerError> {
        let local = listener.local_addr().map_err(ServerError::Http)?;
        self.check_exposure(local)?;
        let sessions = CancellationToken::new();
        let router = build_router(self, Some(local.ip()), sessions.clone(), Router::new());
        #[cfg(feature = "redis")]
        crate::server::tasks_shared::hold(&self.inner, &sessions);
        let placement = &self.inner.placement;
        if self.serve_root {
            let (mcp, sse) = (placement.mcp_path(), placement.root_path("/sse"));
            tracing::info!(%local, auth = self.inner.auth.is_some(), "serving MCP over HTTP at {mcp} and {sse}");
        }
        for mount in self.mounts.snapshot() {
            let path = placement.mount_path(&mount.name);
            tracing::info!(%local, auth = mount.inner.auth.is_some(), "serving catalog `{}` at {path} and {path}/sse", mount.name);
        }
        let stop = CancellationToken::new();
        // Connections are served by hyper's builder, which bounds the time to send headers.
        let serving = mcpgen_listener::Serving {
            header_read_timeout: self.edge.header_read_timeout,
            max_connections: self.edge.max_connections,
            watch: connection_watch(self),
        };
        let serving = mcpgen_listener::serve(listener, router, serving, stop.clone());
        let mut serving = std::pin::pin!(serving);
        let mut shutdown = std::pin::pin!(shutdown);
        let early = tokio::select! {
            result = &mut serving => Some(result),
            () = &mut shutdown => None,
        };
        let result = match early {
            Some(result) => result,
            None => {
                // Stop accepting; let calls in progress finish and their responses go out;
                // then close what is still open (session streams). The server keeps being
                // polled meanwhile, so it closes its listener at once: a connection made
                // after the signal is refused, never served half-way.
                stop.cancel();
                let calls = async {
                    if tokio::time::timeout(
                        self.inner.shutdown_timeout,
                        self.inner.inflight.wait_idle(),
                    )
                    .await
                    .is_err()
                    {
                        tracing::warn!("shutdown: calls still in progress after the timeout");
                    }
                };
                let mut calls = std::pin::pin!(calls);
                let finished = tokio::select! {
                    result = &mut serving => {
                        calls.await;
                        Some(result)
                    }
                    () = &mut calls => None,
                };
                match finished {
                    Some(result) => result,
                    None => match tokio::time::timeout(RESPONSE_GRACE, &mut serving).await {
                        Ok(result) => result,
                        Err(_) => {
                            sessions.cancel();
                            tokio::time::timeout(RESPONSE_GRACE, &mut serving)
                                .await
                                .unwrap_or(Ok(()))
                        }
                    },
                }
            }
        };
        sessions.cancel();
        self.inner.drain().await;
        result.map_err(ServerError::Http)
    }
}
