//! The plain request every fast path answers: a stateless 2026-07-28 POST whose headers and
//! JSON-RPC message rmcp would accept as they are, its body, and rmcp's envelope around an
//! answer. A request that is not plain goes on to rmcp unchanged.

use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::Response;
use rmcp::model::{ClientJsonRpcMessage, ClientRequest, GetMeta, ProtocolVersion, RequestId};

use crate::server::access::reply::jsonrpc_error;
use crate::server::transport::malformed::declares_json;

/// The header that carries a Streamable HTTP session id.
const SESSION_HEADER: &str = "mcp-session-id";
/// The header naming the request's protocol revision.
const PROTOCOL_VERSION_HEADER: &str = "mcp-protocol-version";
/// The standard header naming the request's method.
const METHOD_HEADER: &str = "mcp-method";

/// The whole JSON-RPC response: `result` in rmcp's envelope, answering `id`.
pub(crate) fn envelope(id: &RequestId, result: &[u8]) -> Vec<u8> {
    let id = serde_json::to_vec(id).unwrap_or_default();
    let mut body = Vec::with_capacity(result.len() + id.len() + 40);
    body.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
    body.extend_from_slice(&id);
    body.extend_from_slice(br#","result":"#);
    body.extend_from_slice(result);
    body.push(b'}');
    body
}

/// Whether the headers are those of a stateless 2026-07-28 POST of `method` that rmcp would
/// accept as they are: no session, one `MCP-Protocol-Version: 2026-07-28`, one matching
/// `Mcp-Method`, a plain `Accept` naming JSON and SSE, and a JSON body.
pub(crate) fn plain_stateless_post(headers: &HeaderMap, method: &str) -> bool {
    let one = |name: &str, expected: &str| {
        let mut values = headers.get_all(name).iter();
        values
            .next()
            .is_some_and(|v| v.as_bytes() == expected.as_bytes())
            && values.next().is_none()
    };
    !headers.contains_key(SESSION_HEADER)
        && one(
            PROTOCOL_VERSION_HEADER,
            ProtocolVersion::V_2026_07_28.as_str(),
        )
        && one(METHOD_HEADER, method)
        && accepts_json_and_sse(headers)
        && declares_json(headers)
}

/// Whether every `Accept` value is a plain list (no parameters, no weights) naming both JSON
/// and SSE. Lists with parameters are left to rmcp, which weighs them.
fn accepts_json_and_sse(headers: &HeaderMap) -> bool {
    let (mut json, mut sse) = (false, false);
    for value in headers.get_all(header::ACCEPT) {
        let Ok(value) = value.to_str() else {
            return false;
        };
        if value.contains(';') || value.contains('"') {
            return false;
        }
        for essence in value.split(',').map(str::trim) {
            json |= essence.eq_ignore_ascii_case("application/json");
            sse |= essence.eq_ignore_ascii_case("text/event-stream");
        }
    }
    json && sse
}

/// The id and request of `bytes` when they are a JSON-RPC request rmcp would hand to the
/// handler of a stateless 2026-07-28 POST as it is: its `_meta` names 2026-07-28 (as the
/// header does, checked by [`plain_stateless_post`]) and carries the client capabilities.
pub(crate) fn stateless_request(bytes: &[u8]) -> Option<(RequestId, ClientRequest)> {
    let Ok(ClientJsonRpcMessage::Request(request)) = serde_json::from_slice(bytes) else {
        return None;
    };
    let meta = request.request.get_meta();
    let revision = ProtocolVersion::V_2026_07_28;
    (meta.protocol_version().as_ref() == Some(&revision)
        && meta.missing_required_keys(&revision).is_empty())
    .then_some((request.id, request.request))
}

/// The body of a request a fast path answers: the body-size layer has already read it into
/// memory, within its limit; a body that could not be read is answered with -32600.
pub(crate) async fn read_body(body: Body) -> Result<Bytes, Response> {
    axum::body::to_bytes(body, usize::MAX).await.map_err(|_| {
        jsonrpc_error(
            StatusCode::BAD_REQUEST,
            -32600,
            "the request body could not be read",
        )
    })
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use rmcp::model::{JsonRpcResponse, JsonRpcVersion2_0, ListToolsResult, ServerResult, Tool};
    use serde_json::json;

    use super::*;

    fn tool(name: &'static str) -> Tool {
        let mut tool = Tool::default();
        tool.name = name.into();
        tool.description = Some("Says \"hi\" \u{2028} in <b>bold</b>".into());
        tool.input_schema = Arc::new(
            json!({"type": "object", "properties": {"q": {"type": "string"}}})
                .as_object()
                .cloned()
                .unwrap_or_default(),
        );
        tool
    }

    #[test]
    fn the_envelope_is_rmcps_for_every_kind_of_id() {
        let list = ListToolsResult::with_all_items(vec![tool("a"), tool("b_c")])
            .with_ttl_ms(60_000)
            .with_cache_scope(rmcp::model::CacheScope::Private);
        let mut result = ServerResult::ListToolsResult(list);
        result.fill_missing_cache_hints();
        let bytes = serde_json::to_vec(&result).expect("serialises");
        for id in [
            RequestId::Number(0),
            RequestId::Number(-7),
            RequestId::Number(i64::MAX),
            RequestId::String("req-1".into()),
            RequestId::String("quote \" and \u{1F600}".into()),
        ] {
            let rmcp = rmcp::model::ServerJsonRpcMessage::Response(JsonRpcResponse {
                jsonrpc: JsonRpcVersion2_0,
                id: id.clone(),
                result: result.clone(),
            });
            let expected = serde_json::to_vec(&rmcp).expect("serialises");
            assert_eq!(
                String::from_utf8_lossy(&envelope(&id, &bytes)),
                String::from_utf8_lossy(&expected)
            );
        }
    }
}
