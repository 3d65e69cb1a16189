//! Session ids that name the replica holding the session
//! ([`ServerBuilder::replica_name`](crate::server::ServerBuilder::replica_name), `--replica-name`).
//!
//! Stateless 2026-07-28 requests can go to any replica. A session (a client that sent
//! `initialize`, or a legacy SSE stream) lives in the memory of the replica that opened it,
//! so every later request of the session must reach that replica. With a replica name `N`,
//! the session ids a server issues start with `N.`: `Mcp-Session-Id: N.<id>` on Streamable
//! HTTP, `sessionId=N.<id>` in the legacy SSE `endpoint` event. A load balancer routes on
//! that prefix (nginx: a `map` on `$http_mcp_session_id` and `$arg_sessionId`) and balances
//! requests without a session id freely.
//!
//! On Streamable HTTP, rmcp issues and looks up the ids: [`prefix_sessions`] adds the prefix
//! to the id in a response and takes it off the id in a request before rmcp sees it. An id
//! with another replica's prefix is left as it is; rmcp does not know it and answers 404.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::HeaderValue;
use axum::middleware::Next;
use axum::response::Response;

/// The header that carries a Streamable HTTP session id.
const SESSION_HEADER: &str = "mcp-session-id";

/// The longest replica name.
const MAX_NAME_LEN: usize = 32;

/// Why `name` cannot be a replica name, or `None` when it can: 1 to 32 ASCII letters,
/// digits, `-` or `_`, so that it is a valid part of a session id and a plain word in a load
/// balancer's configuration.
pub(crate) fn name_problem(name: &str) -> Option<String> {
    let valid = !name.is_empty()
        && name.len() <= MAX_NAME_LEN
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    (!valid).then(|| {
        format!(
            "--replica-name (MCPGEN_REPLICA_NAME) `{name}` cannot be used: give 1 to \
             {MAX_NAME_LEN} ASCII letters, digits, `-` or `_`, like `mcp-1`"
        )
    })
}

/// `id` as issued by the replica `name`: `name.id`.
pub(crate) fn issued(name: &str, id: &str) -> String {
    format!("{name}.{id}")
}

/// The request's session id without this replica's prefix (rmcp's own id), and the response's
/// session id with it.
pub(crate) async fn prefix_sessions(
    State(name): State<Arc<str>>,
    mut request: Request,
    next: Next,
) -> Response {
    let own = request
        .headers()
        .get(SESSION_HEADER)
        .and_then(|v| v.to_str().ok())
        .and_then(|id| id.strip_prefix(&*name)?.strip_prefix('.'))
        .and_then(|id| HeaderValue::from_str(id).ok());
    if let Some(id) = own {
        request.headers_mut().insert(SESSION_HEADER, id);
    }
    let mut response = next.run(request).await;
    let named = response
        .headers()
        .get(SESSION_HEADER)
        .and_then(|v| v.to_str().ok())
        .and_then(|id| HeaderValue::from_str(&issued(&name, id)).ok());
    if let Some(id) = named {
        response.headers_mut().insert(SESSION_HEADER, id);
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_plain_words() {
        assert_eq!(name_problem("mcp-1"), None);
        assert_eq!(name_problem("A_b9"), None);
        for bad in ["", "a.b", "a b", "ä", &"x".repeat(33)] {
            let problem = name_problem(bad).expect("refused");
            assert!(problem.contains("--replica-name"), "{problem}");
        }
    }

    #[test]
    fn issued_ids_start_with_the_name() {
        assert_eq!(issued("mcp-1", "abc"), "mcp-1.abc");
    }
}
