//! The stateless 2026-07-28 requests that call no tool, answered by the runtime's own handler
//! as [`super::stateless`] answers `tools/call`s: `server/discover`, `prompts/list`,
//! `resources/list` and `resources/templates/list` from bytes serialised once (their answers
//! are fixed when the catalog is built), and `resources/read` and `completion/complete`
//! through the handler's own functions.
//!
//! The same requests take this path as there: a POST without a session,
//! `MCP-Protocol-Version: 2026-07-28`, one `Mcp-Method` naming one of these methods and
//! matching the body's (and for `resources/read` one plain `Mcp-Name` equal to the URI),
//! `Accept` naming both JSON and SSE without parameters, a JSON body,
//! and a request whose `_meta` names the same revision and carries the client capabilities.
//! Anything else (`prompts/get`, which may ask the client for input, among them) goes on to
//! rmcp unchanged. Answers are rmcp's: the handler's result, completed as rmcp completes it for
//! this revision, in rmcp's JSON-RPC envelope, with its status and `Content-Type`.

use std::sync::{Arc, OnceLock};

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use rmcp::ServerHandler;
use rmcp::model::{ClientRequest, DiscoverResult, ServerResult};

use super::plain_request::{envelope, plain_stateless_post, read_body, stateless_request};
use super::stateless::{answer_message, plain_name, status_of};
use crate::server::call::handler::{McpHandler, complete};
use crate::server::state::inner::Inner;
use mcpgen_identity::principal::Principal;

/// The methods answered here.
const METHODS: [&str; 6] = [
    "server/discover",
    "prompts/list",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "completion/complete",
];

/// The standard header naming the request's method.
const METHOD_HEADER: &str = "mcp-method";

/// What one catalog answers here.
pub(crate) struct Reads {
    inner: Arc<Inner>,
    fixed: OnceLock<Fixed>,
}

/// The `result` members of the fixed answers, as JSON.
struct Fixed {
    discover: Bytes,
    prompts: Bytes,
    resources: Bytes,
    templates: Bytes,
}

impl Reads {
    /// The answers of the catalog `inner`; the fixed ones are serialised on first use.
    pub(crate) fn new(inner: Arc<Inner>) -> Self {
        Self {
            inner,
            fixed: OnceLock::new(),
        }
    }

    fn fixed(&self) -> &Fixed {
        self.fixed.get_or_init(|| {
            let inner = &self.inner;
            let handler = McpHandler::new(inner.clone(), None);
            let discover = DiscoverResult::from_server_info(
                handler.supported_protocol_versions().into_owned(),
                handler.get_info(),
            );
            Fixed {
                discover: serialise(ServerResult::DiscoverResult(discover)),
                prompts: serialise(ServerResult::ListPromptsResult(inner.prompts.list())),
                resources: serialise(ServerResult::ListResourcesResult(inner.resources.list())),
                templates: serialise(ServerResult::ListResourceTemplatesResult(
                    inner.resources.list_templates(),
                )),
            }
        })
    }
}

/// A result as rmcp sends it to a 2026-07-28 peer, with any missing caching hints filled in.
fn serialise(mut result: ServerResult) -> Bytes {
    result.fill_missing_cache_hints();
    // Serialising plain data (strings, numbers, JSON objects) into memory does not fail.
    Bytes::from(serde_json::to_vec(&result).unwrap_or_default())
}

/// The method a stateless POST with these headers names, when it is answered here.
fn method_of(headers: &HeaderMap) -> Option<&'static str> {
    let value = headers.get(METHOD_HEADER)?.as_bytes();
    let method = METHODS.into_iter().find(|m| m.as_bytes() == value)?;
    plain_stateless_post(headers, method).then_some(method)
}

/// Whether the request carries the `Mcp-Name` rmcp requires of its method, as plain text:
/// the URI for `resources/read`; the other methods here need none.
fn named_as_rmcp_requires(headers: &HeaderMap, request: &ClientRequest) -> bool {
    match request {
        ClientRequest::ReadResourceRequest(read) => plain_name(headers) == Some(&*read.params.uri),
        _ => true,
    }
}

/// Answers a stateless 2026-07-28 request of one of [`METHODS`]; passes every other request
/// on.
pub(crate) async fn answer_reads(
    State(reads): State<Arc<Reads>>,
    request: Request,
    next: Next,
) -> Response {
    let method = (request.method() == Method::POST)
        .then(|| method_of(request.headers()))
        .flatten();
    let Some(method) = method else {
        return next.run(request).await;
    };
    let (parts, body) = request.into_parts();
    let bytes = match read_body(body).await {
        Ok(bytes) => bytes,
        Err(refused) => return refused,
    };
    let request = stateless_request(&bytes).filter(|(_, request)| {
        request.method() == method && named_as_rmcp_requires(&parts.headers, request)
    });
    let Some((id, request)) = request else {
        return next
            .run(Request::from_parts(parts, Body::from(bytes)))
            .await;
    };
    let fixed = |result: &Bytes| {
        let body = envelope(&id, result);
        (
            StatusCode::OK,
            [(header::CONTENT_TYPE, "application/json")],
            body,
        )
            .into_response()
    };
    let inner = &reads.inner;
    let answer = match request {
        ClientRequest::DiscoverRequest(_) => return fixed(&reads.fixed().discover),
        ClientRequest::ListPromptsRequest(_) => return fixed(&reads.fixed().prompts),
        ClientRequest::ListResourcesRequest(_) => return fixed(&reads.fixed().resources),
        ClientRequest::ListResourceTemplatesRequest(_) => return fixed(&reads.fixed().templates),
        ClientRequest::ReadResourceRequest(read) => match inner
            .tools
            .load()
            .views
            .read(&read.params.uri, parts.extensions.get::<Principal>())
        {
            Some(view) => Ok(ServerResult::from(view)),
            None => inner
                .resources
                .read(&read.params.uri)
                .await
                .map(ServerResult::from),
        },
        ClientRequest::CompleteRequest(request) => complete(inner, request.params)
            .await
            .map(ServerResult::CompleteResult),
        // Only the methods matched above reach here; anything else is rmcp's.
        _ => {
            return next
                .run(Request::from_parts(parts, Body::from(bytes)))
                .await;
        }
    };
    let message = answer_message(id, answer);
    let status = status_of(&message);
    let body = serde_json::to_vec(&message).unwrap_or_default();
    (status, [(header::CONTENT_TYPE, "application/json")], body).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(method: &'static str) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in [
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", method),
            ("accept", "application/json, text/event-stream"),
            ("content-type", "application/json"),
        ] {
            map.append(name, value.parse().expect("a header value"));
        }
        map
    }

    #[test]
    fn only_the_methods_answered_here_are_taken() {
        for method in METHODS {
            assert_eq!(method_of(&headers(method)), Some(method));
        }
        for method in ["tools/list", "tools/call", "prompts/get", "ping", "prompts"] {
            assert_eq!(method_of(&headers(method)), None, "{method}");
        }
        let mut session = headers("server/discover");
        session.insert("mcp-session-id", "abc".parse().expect("a header value"));
        assert_eq!(method_of(&session), None);
    }
}
