//! Replies both HTTP transports (Streamable HTTP in `http.rs`, legacy HTTP+SSE in `sse.rs`)
//! send before a request reaches MCP: JSON-RPC error bodies and the 401 for a refused
//! credential.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use crate::auth::AuthError;

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
