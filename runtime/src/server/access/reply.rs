//! Replies both HTTP transports (Streamable HTTP in `http.rs`, legacy HTTP+SSE in `sse.rs`)
//! send before a request reaches MCP: JSON-RPC error bodies and the 401 for a refused
//! credential.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use mcpgen_identity::auth::AuthError;

/// JSON-RPC error code of an authentication failure.
pub const AUTH_ERROR_CODE: i64 = -32001;

/// An HTTP response whose body is a JSON-RPC error without an id.
pub(crate) fn jsonrpc_error(status: StatusCode, code: i64, message: &str) -> Response {
    let body = serde_json::json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": {"code": code, "message": message},
    });
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}

/// How long a client is asked to wait when a credential cannot be checked now, in seconds.
const RETRY_AFTER_SECONDS: &str = "30";

/// The answer for a refused credential: 503 with `Retry-After` when it could not be checked
/// (a service it depends on is unreachable), else 401 with `challenge` as `WWW-Authenticate`
/// (the default challenge of `error` when `None`).
pub(crate) fn refused(error: &AuthError, challenge: Option<String>) -> Response {
    if let AuthError::Unavailable(_) = error {
        let mut response = jsonrpc_error(
            StatusCode::SERVICE_UNAVAILABLE,
            AUTH_ERROR_CODE,
            &error.to_string(),
        );
        response.headers_mut().insert(
            header::RETRY_AFTER,
            HeaderValue::from_static(RETRY_AFTER_SECONDS),
        );
        return response;
    }
    let Some(challenge) = challenge.and_then(|c| HeaderValue::from_str(&c).ok()) else {
        return unauthorized(error);
    };
    let mut response = jsonrpc_error(
        StatusCode::UNAUTHORIZED,
        AUTH_ERROR_CODE,
        &error.to_string(),
    );
    response
        .headers_mut()
        .insert(header::WWW_AUTHENTICATE, challenge);
    response
}

/// The 401 answer for a refused credential.
pub(crate) fn unauthorized(error: &AuthError) -> Response {
    let mut response = jsonrpc_error(
        StatusCode::UNAUTHORIZED,
        AUTH_ERROR_CODE,
        &error.to_string(),
    );
    match HeaderValue::from_str(&error.www_authenticate()) {
        Ok(value) => {
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, value);
        }
        Err(_) => {
            response.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static("Bearer realm=\"mcp\""),
            );
        }
    }
    response
}

/// `response`, closing its connection unless it is `reusable` (false when the request's body
/// was not read to its end: the rest of it may still be on its way, and is not read).
pub(crate) fn closing(mut response: Response, reusable: bool) -> Response {
    if !reusable {
        response
            .headers_mut()
            .insert(header::CONNECTION, HeaderValue::from_static("close"));
    }
    response
}
