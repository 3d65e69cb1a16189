//! rmcp's Streamable HTTP service behind an `Arc`.
//!
//! axum clones a route's service for every request, and each middleware layer clones the
//! service it wraps once more; rmcp's service clones its whole configuration (the allowed
//! hosts and origins among it) each time. Behind an `Arc`, every request, including those a
//! fast path answers before they reach rmcp, costs a reference count instead.

use std::convert::Infallible;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::extract::Request;
use axum::response::{IntoResponse, Response};
use mcpgen_core::BoxFuture;
use rmcp::transport::streamable_http_server::StreamableHttpService;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;

use crate::server::call::handler::McpHandler;

/// The Streamable HTTP service of a catalog, shared by every clone.
#[derive(Clone)]
pub(crate) struct Shared(Arc<StreamableHttpService<McpHandler, LocalSessionManager>>);

impl Shared {
    pub(crate) fn new(service: StreamableHttpService<McpHandler, LocalSessionManager>) -> Self {
        Self(Arc::new(service))
    }
}

impl tower::Service<Request> for Shared {
    type Response = Response;
    type Error = Infallible;
    type Future = BoxFuture<'static, Result<Response, Infallible>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request) -> Self::Future {
        let service = self.0.clone();
        Box::pin(async move { Ok(service.handle(request).await.into_response()) })
    }
}
