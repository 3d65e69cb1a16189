//! The HTTP side of the mock: each request is matched to its operation, checked, and answered;
//! one log line per request goes to stderr.

use std::sync::Arc;

use axum::Router;
use axum::body::{Body, to_bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use serde_json::json;

use super::answer;
use super::check::{self, Refusal};
use super::prepare::Prepared;
use super::routes::{Found, Routes};
use super::seed;

/// Largest request body read; a larger one is answered 413.
const MAX_BODY_BYTES: usize = 16 * 1024 * 1024;

/// The operations of a spec and the routes to them.
pub(crate) struct Mock {
    pub(crate) routes: Routes,
    pub(crate) operations: Vec<Prepared>,
}

/// Serves `mock` on `listener` until the process ends.
pub(crate) async fn run(listener: std::net::TcpListener, mock: Mock) -> Result<(), String> {
    let listener = tokio::net::TcpListener::from_std(listener)
        .map_err(|e| format!("error: cannot listen: {e}"))?;
    let app = Router::new().fallback(handle).with_state(Arc::new(mock));
    axum::serve(listener, app)
        .await
        .map_err(|e| format!("error: the mock stopped: {e}"))
}

async fn handle(State(mock): State<Arc<Mock>>, request: Request) -> Response {
    let method = request.method().to_string();
    let target = request
        .uri()
        .path_and_query()
        .map_or_else(|| "/".to_owned(), ToString::to_string);
    let (response, note) = respond(&mock, request).await;
    let status = response.status().as_u16();
    eprintln!("{method} {target} {status}{note}");
    response
}

/// The answer to `request`, and what the log line adds to the status.
async fn respond(mock: &Mock, request: Request) -> (Response, String) {
    let (parts, body) = request.into_parts();
    let path = parts.uri.path().to_owned();
    let query = parts.uri.query().unwrap_or("").to_owned();
    let method = parts.method.as_str().to_owned();
    let (found, matched) = mock.routes.find(&method, &path);
    let (index, path_params) = match found {
        Found::Operation(index, params) => (index, params),
        Found::NoPath => {
            let message = format!("no operation of the spec has the path `{path}`");
            return (error(StatusCode::NOT_FOUND, &message, None), String::new());
        }
        Found::NoMethod(allowed) => {
            let message = format!("`{path}` takes {}, not {method}", allowed.join(", "));
            let mut response = error(StatusCode::METHOD_NOT_ALLOWED, &message, None);
            if let Ok(value) = HeaderValue::from_str(&allowed.join(", ")) {
                response.headers_mut().insert(header::ALLOW, value);
            }
            return (response, String::new());
        }
    };
    let Some(op) = mock.operations.get(index) else {
        let message = "the route names no operation";
        return (
            error(StatusCode::INTERNAL_SERVER_ERROR, message, None),
            String::new(),
        );
    };
    let pairs: Vec<(String, String)> = url::form_urlencoded::parse(query.as_bytes())
        .into_owned()
        .collect();
    let bytes = match to_bytes(body, MAX_BODY_BYTES).await {
        Ok(bytes) => bytes,
        Err(e) => {
            let message = format!("the body cannot be read (at most {MAX_BODY_BYTES} bytes): {e}");
            return (
                error(StatusCode::PAYLOAD_TOO_LARGE, &message, Some("/body")),
                String::new(),
            );
        }
    };
    let content_type = parts
        .headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok());
    let checked = check::parameters(&op.params, &path_params, &pairs, &parts.headers).and_then(
        |()| match &op.body {
            Some(body) => check::body(body, content_type, &bytes),
            None => Ok(()),
        },
    );
    if let Err(Refusal {
        status,
        pointer,
        message,
    }) = checked
    {
        let status = StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_REQUEST);
        let note = format!(" {pointer}: {message}");
        let message = format!("{}: {message}", op.label);
        return (error(status, &message, Some(&pointer)), note);
    }
    let seed = seed::of_request(&method, matched, &query);
    let (body, problem) = answer::body(&op.answer, seed);
    let status = StatusCode::from_u16(op.answer.status).unwrap_or(StatusCode::OK);
    let mut builder = Response::builder().status(status);
    if let Some((media, _)) = &op.answer.media {
        builder = builder.header(header::CONTENT_TYPE, media.as_str());
    }
    let note = problem.map_or_else(String::new, |p| format!(" (warning: {p})"));
    let response = builder.body(Body::from(body)).unwrap_or_else(|e| {
        let message = format!("the answer cannot be written: {e}");
        error(StatusCode::INTERNAL_SERVER_ERROR, &message, None)
    });
    (response, note)
}

/// A JSON error body: `{"error": message, "pointer": pointer}`.
fn error(status: StatusCode, message: &str, pointer: Option<&str>) -> Response {
    let body = match pointer {
        Some(pointer) => json!({"error": message, "pointer": pointer}),
        None => json!({"error": message}),
    };
    let mut response = Response::new(Body::from(body.to_string()));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}
