//! One OpenTelemetry span per HTTP request to the MCP routes (feature `otel`, only while
//! traces are exported): `http_request`, with the method, the route (the request's path) and
//! the response's status code. It continues the request's `traceparent` header, or starts a
//! new trace, and the tool calls of the request are its children
//! ([`RequestSpan`] in the request's extensions).
//!
//! Without export the layer is not installed at all, so it costs nothing.

use axum::Router;
use axum::extract::Request;
use axum::middleware::{self, Next};
use axum::response::Response;
use tracing::Instrument;

use mcpgen_contract::trace::{RequestSpan, TRACEPARENT, TraceParent};

/// `routes` with a span per request when traces are exported; `routes` as it is otherwise.
pub(crate) fn traced(routes: Router) -> Router {
    if mcpgen_contract::trace::exporting() {
        routes.layer(middleware::from_fn(trace_request))
    } else {
        routes
    }
}

/// Runs the request inside its span and records the status code it is answered with.
async fn trace_request(mut request: Request, next: Next) -> Response {
    let incoming = request
        .headers()
        .get(TRACEPARENT)
        .and_then(|v| v.to_str().ok())
        .and_then(TraceParent::parse);
    let span = tracing::info_span!(
        "http_request",
        otel.kind = "server",
        http.request.method = %request.method(),
        http.route = %request.uri().path(),
        http.response.status_code = tracing::field::Empty,
        trace_id = tracing::field::Empty,
    );
    let own = match &incoming {
        Some(parent) => mcpgen_contract::trace::start_child(&span, parent),
        None => mcpgen_contract::trace::start(&span),
    };
    if let Some(own) = own {
        span.record("trace_id", own.trace_id());
        request.extensions_mut().insert(RequestSpan(own));
    }
    let response = next.run(request).instrument(span.clone()).await;
    span.record("http.response.status_code", response.status().as_u16());
    response
}
