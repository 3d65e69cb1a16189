//! `tools/list` of the stateless 2026-07-28 protocol, answered from bytes serialised once per
//! visible set.
//!
//! What a caller sees depends only on which tools it may call (its visible set) among the
//! tools served (fixed at start-up, or until they are replaced); the answer for a set is
//! therefore serialised once per set of tools served, on its first request, and every later request with the same set gets those bytes with its own
//! JSON-RPC `id` around them. With a thousand tools that answer is over a megabyte of JSON,
//! which rmcp would write anew for every request.
//!
//! Only a request rmcp would answer with a plain `tools/list` result takes this path: a POST
//! without a session, `MCP-Protocol-Version: 2026-07-28`, one `Mcp-Method: tools/list`,
//! `Accept` naming both JSON and SSE without parameters, a JSON body, and a request whose
//! `_meta` carries the same protocol version and the client capabilities. Anything else
//! (errors included) goes on to rmcp unchanged, so the wire behaviour is rmcp's: the result
//! is the one the rmcp handler returns ([`crate::server::call::handler::tools_list`]), completed as rmcp
//! completes it for that revision, in rmcp's JSON-RPC envelope, with its status and
//! `Content-Type`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use rmcp::model::{ClientRequest, GetMeta, RequestId, ServerResult};

use super::plain_request::{envelope, plain_stateless_post, read_body, stateless_request};
use crate::server::call::handler::tools_list;
use crate::server::state::inner::Inner;
use mcpgen_identity::principal::Principal;

/// The most bytes of serialised lists kept; past it, further sets are serialised per request.
const MAX_CACHED_BYTES: usize = 64 << 20;

/// The visible set a list belongs to: `None` for a request without a principal (nothing is
/// visible, not even the meta-tools of search mode); and whether the client declared the
/// views extension (its tools then name their views).
type SetKey = (Option<Arc<[usize]>>, bool);

/// The serialised `tools/list` results of one catalog, by visible set.
pub(crate) struct ListAnswers {
    inner: Arc<Inner>,
    cache: Mutex<Cached>,
}

#[derive(Default)]
struct Cached {
    /// The generation of the tools the lists were made from; lists of earlier tools are
    /// dropped when the tools are replaced.
    generation: u64,
    by_set: HashMap<SetKey, Bytes>,
    held: usize,
}

impl ListAnswers {
    /// The answers of the catalog `inner`, none serialised yet.
    pub(crate) fn new(inner: Arc<Inner>) -> Self {
        Self {
            inner,
            cache: Mutex::default(),
        }
    }

    /// The `result` member of the `tools/list` answer for `principal`, as JSON; `ui`: the
    /// client declared the views extension.
    pub(crate) fn result(&self, principal: Option<&Principal>, ui: bool) -> Bytes {
        let served = self.inner.tools.load();
        let key: SetKey = (principal.map(|p| served.catalog.visible_indices(p)), ui);
        {
            let mut cache = self.lock();
            if cache.generation != served.generation {
                *cache = Cached {
                    generation: served.generation,
                    ..Cached::default()
                };
            }
            if let Some(hit) = cache.by_set.get(&key) {
                return hit.clone();
            }
        }
        let bytes = Bytes::from(serialise(&self.inner, principal, ui));
        let mut cache = self.lock();
        // Kept only while the tools it lists are still the ones served.
        if cache.generation == served.generation
            && cache.held + bytes.len() <= MAX_CACHED_BYTES
            && !cache.by_set.contains_key(&key)
        {
            cache.held += bytes.len();
            cache.by_set.insert(key, bytes.clone());
        }
        bytes
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Cached> {
        self.cache.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The result as rmcp sends it to a 2026-07-28 peer: the handler's answer with any missing
/// caching hints filled in.
fn serialise(inner: &Inner, principal: Option<&Principal>, ui: bool) -> Vec<u8> {
    let mut result = ServerResult::ListToolsResult(tools_list(inner, principal, ui));
    result.fill_missing_cache_hints();
    // Serialising plain data (strings, numbers, JSON objects) into memory does not fail.
    serde_json::to_vec(&result).unwrap_or_default()
}

/// Whether the headers are those of a stateless 2026-07-28 `tools/list` POST that rmcp would
/// accept as it is.
fn headers_fit(headers: &HeaderMap) -> bool {
    plain_stateless_post(headers, "tools/list")
}

/// The id of `bytes` when they are a `tools/list` request rmcp would answer with the list,
/// and whether its client capabilities declare the views extension.
fn list_request_id(bytes: &[u8]) -> Option<(RequestId, bool)> {
    stateless_request(bytes).and_then(|(id, request)| {
        let ui = crate::views::request_wants(request.get_meta(), None);
        matches!(request, ClientRequest::ListToolsRequest(_)).then_some((id, ui))
    })
}

/// Answers a stateless 2026-07-28 `tools/list` from the serialised lists; passes every other
/// request on.
pub(crate) async fn answer_tools_list(
    State(answers): State<Arc<ListAnswers>>,
    request: Request,
    next: Next,
) -> Response {
    if request.method() != Method::POST || !headers_fit(request.headers()) {
        return next.run(request).await;
    }
    let (parts, body) = request.into_parts();
    let bytes = match read_body(body).await {
        Ok(bytes) => bytes,
        Err(refused) => return refused,
    };
    let Some((id, ui)) = list_request_id(&bytes) else {
        return next
            .run(Request::from_parts(parts, Body::from(bytes)))
            .await;
    };
    let result = answers.result(parts.extensions.get::<Principal>(), ui);
    (
        StatusCode::OK,
        [(header::CONTENT_TYPE, "application/json")],
        envelope(&id, &result),
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(*name, value.parse().expect("a header value"));
        }
        map
    }

    const PLAIN: [(&str, &str); 4] = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/list"),
        ("accept", "application/json, text/event-stream"),
        ("content-type", "application/json"),
    ];

    #[test]
    fn only_plain_stateless_list_headers_fit() {
        assert!(headers_fit(&headers(&PLAIN)));
        let with = |extra: (&'static str, &'static str)| {
            let mut pairs = PLAIN.to_vec();
            pairs.push(extra);
            headers_fit(&headers(&pairs))
        };
        assert!(!with(("mcp-session-id", "abc")));
        assert!(!with(("mcp-method", "tools/list")), "a repeated header");
        assert!(!with(("accept", "application/json;q=0")));
        let without = |name: &str| {
            let pairs: Vec<_> = PLAIN.iter().copied().filter(|(n, _)| *n != name).collect();
            headers_fit(&headers(&pairs))
        };
        for name in [
            "mcp-protocol-version",
            "mcp-method",
            "accept",
            "content-type",
        ] {
            assert!(!without(name), "{name}");
        }
        let mut call = PLAIN.to_vec();
        call[1] = ("mcp-method", "tools/call");
        assert!(!headers_fit(&headers(&call)));
        let mut old = PLAIN.to_vec();
        old[0] = ("mcp-protocol-version", "2025-11-25");
        assert!(!headers_fit(&headers(&old)));
    }

    #[test]
    fn only_a_list_request_with_the_revisions_meta_is_answered() {
        let meta = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
        });
        let body = |params: serde_json::Value| {
            serde_json::to_vec(
                &json!({"jsonrpc": "2.0", "id": 4, "method": "tools/list", "params": params}),
            )
            .expect("serialises")
        };
        assert_eq!(
            list_request_id(&body(json!({"_meta": meta}))),
            Some((RequestId::Number(4), false))
        );
        let mut with_ui = meta.clone();
        with_ui["io.modelcontextprotocol/clientCapabilities"] = json!({
            "extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}}
        });
        assert_eq!(
            list_request_id(&body(json!({"_meta": with_ui}))),
            Some((RequestId::Number(4), true))
        );
        let mut old = meta.clone();
        old["io.modelcontextprotocol/protocolVersion"] = json!("2025-11-25");
        assert_eq!(list_request_id(&body(json!({"_meta": old}))), None);
        let mut bare = meta.clone();
        bare.as_object_mut()
            .map(|m| m.remove("io.modelcontextprotocol/clientCapabilities"));
        assert_eq!(list_request_id(&body(json!({"_meta": bare}))), None);
        assert_eq!(list_request_id(&body(json!({}))), None);
        let call = json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "a", "_meta": meta}});
        assert_eq!(list_request_id(call.to_string().as_bytes()), None);
        assert_eq!(list_request_id(b"{not json"), None);
    }
}
