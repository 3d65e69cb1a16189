//! Clear answers for `/mcp` requests rmcp refuses before MCP sees them.
//!
//! rmcp answers a POST whose body is not a JSON-RPC message it can read with
//! `415 Unsupported Media Type` and a plain-text body, even when the `Content-Type` is
//! `application/json`: a body cut off in transit looks to a client like a media-type problem.
//! This layer, the innermost on `/mcp` (both protocol eras), keeps the request's bytes and,
//! only when rmcp answered 415 to a JSON request, replaces that answer with what JSON-RPC
//! prescribes:
//!
//! - bytes that are not JSON: `400` with a parse error (-32700);
//! - JSON that is not a JSON-RPC request, notification or response rmcp knows (a batch, a
//!   missing `method`, `params` that are not an object, …): `400` with an invalid-request
//!   error (-32600), echoing the request's `id` when it has a usable one.
//!
//! A `Content-Type` other than JSON stays a `415`, and a missing `text/event-stream` in
//! `Accept` stays a `406`; both get a JSON-RPC error body in place of rmcp's plain text.
//! The happy path pays nothing: the body is already buffered by the size layer, the bytes are
//! shared, and they are parsed again only after a refusal.

use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde_json::Value;

use crate::server::access::reply::jsonrpc_error;

/// JSON-RPC error code of bytes that are not JSON.
pub(crate) const PARSE_ERROR: i64 = -32700;

/// JSON-RPC error code of JSON that is not a valid request.
pub(crate) const INVALID_REQUEST: i64 = -32600;

/// Whether the request declares a JSON body (`application/json`, any parameters).
pub(crate) fn declares_json(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|value| {
            let essence = value.split_once(';').map_or(value, |(essence, _)| essence);
            essence.trim().eq_ignore_ascii_case("application/json")
        })
}

/// The answer for a JSON request body rmcp could not read as a JSON-RPC message.
pub(crate) fn unreadable_message(bytes: &[u8]) -> Response {
    match serde_json::from_slice::<Value>(bytes) {
        Err(error) => jsonrpc_error(
            StatusCode::BAD_REQUEST,
            PARSE_ERROR,
            &format!("the request body is not valid JSON: {error}"),
        ),
        Ok(value) => {
            // Only ids JSON-RPC allows are echoed (a string, a number or null).
            let id = value
                .get("id")
                .filter(|id| id.is_string() || id.is_number())
                .cloned()
                .unwrap_or(Value::Null);
            let what = match &value {
                Value::Array(_) => "a batch (JSON array) is not accepted on this endpoint",
                Value::Object(map) if map.get("jsonrpc") != Some(&Value::from("2.0")) => {
                    "the message lacks \"jsonrpc\": \"2.0\""
                }
                Value::Object(map) if !map.contains_key("method") && !map.contains_key("id") => {
                    "the message has neither a method nor an id"
                }
                Value::Object(_) => {
                    "the message is not a JSON-RPC request, notification or response this server reads (check `method`, `id` and that `params` is an object)"
                }
                _ => "a JSON-RPC message must be a JSON object",
            };
            let body = serde_json::json!({
                "jsonrpc": "2.0",
                "id": id,
                "error": {"code": INVALID_REQUEST, "message": format!("invalid request: {what}")},
            });
            (
                StatusCode::BAD_REQUEST,
                [(header::CONTENT_TYPE, "application/json")],
                body.to_string(),
            )
                .into_response()
        }
    }
}

/// Turns rmcp's plain-text refusal (`status`) into a JSON-RPC error body with the same status.
async fn explained(status: StatusCode, response: Response, fallback: &str) -> Response {
    // rmcp's refusals are short texts; anything unreadable falls back to a fixed message.
    let text = axum::body::to_bytes(response.into_body(), 4096)
        .await
        .ok()
        .and_then(|bytes| String::from_utf8(bytes.to_vec()).ok())
        .filter(|text| !text.trim().is_empty())
        .unwrap_or_else(|| fallback.to_owned());
    jsonrpc_error(status, INVALID_REQUEST, text.trim())
}

/// The layer: see the module documentation.
pub(crate) async fn answer_malformed(request: Request, next: Next) -> Response {
    if request.method() != Method::POST {
        return next.run(request).await;
    }
    let json = declares_json(request.headers());
    let (parts, body) = request.into_parts();
    // The body-size layer has already read the body into memory, within its limit.
    let Ok(bytes): Result<Bytes, _> = axum::body::to_bytes(body, usize::MAX).await else {
        return jsonrpc_error(
            StatusCode::BAD_REQUEST,
            INVALID_REQUEST,
            "the request body could not be read",
        );
    };
    let response = next
        .run(Request::from_parts(parts, Body::from(bytes.clone())))
        .await;
    match response.status() {
        StatusCode::UNSUPPORTED_MEDIA_TYPE if json => unreadable_message(&bytes),
        StatusCode::UNSUPPORTED_MEDIA_TYPE => {
            explained(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                response,
                "Content-Type must be application/json",
            )
            .await
        }
        StatusCode::NOT_ACCEPTABLE => {
            explained(
                StatusCode::NOT_ACCEPTABLE,
                response,
                "Accept must list application/json and text/event-stream",
            )
            .await
        }
        _ => response,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn body_of(response: Response) -> (StatusCode, Value) {
        let status = response.status();
        let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
            .await
            .unwrap_or_default();
        (
            status,
            serde_json::from_slice(&bytes).unwrap_or(Value::Null),
        )
    }

    #[tokio::test]
    async fn cut_off_json_is_a_parse_error() {
        let (status, body) = body_of(unreadable_message(br#"{"jsonrpc":"2.0","id":1,"me"#)).await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert_eq!(body["error"]["code"], PARSE_ERROR);
        assert_eq!(body["id"], Value::Null);
    }

    #[tokio::test]
    async fn json_that_is_not_a_message_is_an_invalid_request_with_its_id() {
        let (status, body) = body_of(unreadable_message(
            br#"{"jsonrpc":"2.0","id":9,"method":"tools/list","params":7}"#,
        ))
        .await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert_eq!(body["error"]["code"], INVALID_REQUEST);
        assert_eq!(body["id"], 9);
        let (_, body) = body_of(unreadable_message(br#"{"id":{"a":1}}"#)).await;
        assert_eq!(body["id"], Value::Null, "an object id is not echoed");
    }
}
