//! The stateless fast path: stateless 2026-07-28 `tools/call`, `tools/list` and read
//! requests answered by the runtime's own handler, without rmcp's per-request machinery.

use std::sync::Arc;

use axum::Router;
use axum::middleware;

use crate::server::state::inner::Inner;

pub(crate) mod call_request;
pub(crate) mod plain_request;
pub(crate) mod stateless;
pub(crate) mod stateless_reads;
pub(crate) mod tools_list;

/// `routes` (the Streamable HTTP service of the catalog `inner`) behind the layers that
/// answer stateless `tools/call`, `tools/list` and the requests of [`stateless_reads`]
/// here.
pub(crate) fn answered_here(routes: Router, inner: Arc<Inner>) -> Router {
    let lists = Arc::new(tools_list::ListAnswers::new(inner.clone()));
    let reads = Arc::new(stateless_reads::Reads::new(inner.clone()));
    routes
        .route_layer(middleware::from_fn_with_state(
            reads,
            stateless_reads::answer_reads,
        ))
        .route_layer(middleware::from_fn_with_state(
            lists,
            tools_list::answer_tools_list,
        ))
        .route_layer(middleware::from_fn_with_state(
            inner,
            stateless::answer_stateless,
        ))
}
