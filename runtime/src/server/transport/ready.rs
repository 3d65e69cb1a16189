//! `GET /readyz`: whether the server can take calls now. Not ready (503) while a backend the
//! configuration makes essential is unreachable (the audit database with
//! `--audit-db-unavailable refuse`, or a database away with a spool that cannot be
//! written), Redis with `--rate-limit-redis-unavailable closed`); `/healthz` stays liveness only.

use std::sync::Arc;

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use mcpgen_audit::AuditSink;

use crate::server::state::inner::Inner;

/// `200 ready`, or `503 not ready` naming what is missing.
pub(crate) async fn readyz(State(inner): State<Arc<Inner>>) -> Response {
    if let Some(reason) = inner.audit.unready() {
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            format!("not ready: {reason}\n"),
        )
            .into_response();
    }
    if !inner.rate.ready() {
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            "not ready: the rate limit store (Redis) is unreachable\n",
        )
            .into_response();
    }
    (StatusCode::OK, "ready\n").into_response()
}
