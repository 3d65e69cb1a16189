//! A stateless `tools/call` read in one pass.
//!
//! rmcp reads a JSON-RPC message through serde's untagged and flattened machinery: the whole
//! message (arguments and `_meta` included) is first buffered into serde's generic content
//! and then read again into rmcp's types. [`read`] reads the usual shape of a `tools/call`
//! straight into the same values: `jsonrpc`, `id`, `method` and `params`, whose fields are
//! `name`, `arguments` and `_meta`, nothing else. It accepts only messages rmcp reads into
//! the same id, parameters and metadata; any other shape (other fields, duplicate keys,
//! `null` where rmcp would also take it, a `method` with escapes) gives `None`, and the
//! caller reads the message with rmcp as before ([`super::plain_request::stateless_request`]).

use rmcp::model::{
    CallToolRequestParams, ClientRequest, GetMeta, JsonObject, JsonRpcVersion2_0, MetaObject,
    ProtocolVersion, RequestId, RequestMetaObject,
};
use serde::Deserialize;

use super::plain_request::stateless_request;

/// A `tools/call` rmcp hands to the handler: its id, its parameters (without `_meta`, which
/// rmcp keeps apart) and its request metadata.
pub(crate) struct CallRequest {
    pub(crate) id: RequestId,
    pub(crate) params: CallToolRequestParams,
    pub(crate) meta: RequestMetaObject,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Message<'a> {
    #[allow(dead_code, reason = "read to refuse any other version, as rmcp does")]
    jsonrpc: JsonRpcVersion2_0,
    id: RequestId,
    #[serde(borrow)]
    method: &'a str,
    params: Params,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Params {
    name: String,
    #[serde(default)]
    arguments: Option<JsonObject>,
    #[serde(rename = "_meta")]
    meta: JsonObject,
}

/// The `tools/call` in `bytes` when it has the usual shape and its `_meta` names 2026-07-28
/// with the keys that revision requires; `None` leaves the message to rmcp.
pub(crate) fn read(bytes: &[u8]) -> Option<CallRequest> {
    let message: Message = serde_json::from_slice(bytes).ok()?;
    if message.method != "tools/call" {
        return None;
    }
    let meta = RequestMetaObject(MetaObject(message.params.meta));
    let revision = ProtocolVersion::V_2026_07_28;
    if meta.protocol_version().as_ref() != Some(&revision)
        || !meta.missing_required_keys(&revision).is_empty()
    {
        return None;
    }
    let mut params = CallToolRequestParams::new(message.params.name);
    params.arguments = message.params.arguments;
    Some(CallRequest {
        id: message.id,
        params,
        meta,
    })
}

/// The `tools/call` in `bytes` as rmcp reads it and hands it to the handler of a stateless
/// 2026-07-28 POST ([`stateless_request`]), whatever its shape.
pub(crate) fn read_with_rmcp(bytes: &[u8]) -> Option<CallRequest> {
    let (id, request) = stateless_request(bytes)?;
    let meta = request.get_meta().clone();
    let ClientRequest::CallToolRequest(call) = request else {
        return None;
    };
    Some(CallRequest {
        id,
        params: call.params,
        meta,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What rmcp hands the handler for `body`, when it is a stateless `tools/call`.
    fn through_rmcp(body: &str) -> Option<(RequestId, CallToolRequestParams, RequestMetaObject)> {
        read_with_rmcp(body.as_bytes()).map(|call| (call.id, call.params, call.meta))
    }

    const META: &str = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}"#;

    fn call(id: &str, params: &str) -> String {
        format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{params}}}"#)
    }

    fn params(arguments: &str) -> String {
        format!(r#"{{"name":"list_prompts","arguments":{arguments},"_meta":{META}}}"#)
    }

    /// Messages of the usual shape, each of which is read here.
    fn usual() -> Vec<String> {
        vec![
            call("1", &params(r#"{"language":"en"}"#)),
            call(r#""req-7""#, &params("{}")),
            call("1.0", &params("{}")),
            call("1e2", &params("{}")),
            call("-5", &params("{}")),
            call("9223372036854775807", &params("{}")),
            call("2", &params("null")),
            call("3", &format!(r#"{{"name":"list_prompts","_meta":{META}}}"#)),
            call("4", &params(r#"{"a":1,"a":2}"#)),
            call(
                "5",
                &params(
                    r#"{"n":[1.5,-0.0,1e300,18446744073709551615],"s":"\u00e9\ud83d\ude00\n","o":{"p":null,"q":true}}"#,
                ),
            ),
            call(
                "6",
                &format!(r#"{{"_meta":{META},"arguments":{{}},"name":"\u006cist"}}"#),
            ),
            format!(
                r#"{{"params":{},"method":"tools/call","id":8,"jsonrpc":"2.0"}}"#,
                params("{}")
            ),
            format!(" \n{}\t\n", call("9", &params("{}"))),
            call(
                "10",
                r#"{"name":"t","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}},"progressToken":"p","traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}}"#,
            ),
        ]
    }

    /// Messages read here as nothing: rmcp reads them (or refuses them) itself.
    fn unusual() -> Vec<String> {
        vec![
            call("1.5", &params("{}")),
            call("9223372036854775808", &params("{}")),
            call("null", &params("{}")),
            call("[1]", &params("{}")),
            call("1", &params("[]")),
            call("1", &params(r#""x""#)),
            call("1", r#"{"name":"t","arguments":{}}"#),
            call("1", r#"{"name":"t","_meta":null}"#),
            call("1", &format!(r#"{{"name":7,"_meta":{META}}}"#)),
            call("1", &format!(r#"{{"arguments":{{}},"_meta":{META}}}"#)),
            call(
                "1",
                &format!(r#"{{"name":"t","_meta":{META},"task":{{"ttl":5}}}}"#),
            ),
            call(
                "1",
                &format!(r#"{{"name":"t","_meta":{META},"requestState":"s"}}"#),
            ),
            call(
                "1",
                &format!(r#"{{"name":"t","_meta":{META},"inputResponses":{{}}}}"#),
            ),
            call("1", &format!(r#"{{"name":"t","name":"u","_meta":{META}}}"#)),
            call(
                "1",
                r#"{"name":"t","_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25","io.modelcontextprotocol/clientCapabilities":{}}}"#,
            ),
            call(
                "1",
                r#"{"name":"t","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}"#,
            ),
            call("1", "[]"),
            call("1", "null"),
            call("1", &params("{}")).replace(r#""jsonrpc":"2.0","#, ""),
            call("1", &params("{}")).replace(r#""2.0""#, r#""1.0""#),
            call("1", &params("{}")).replace("tools/call", "tools/list"),
            call("1", &params("{}")).replace("tools/call", r"tools\/call"),
            call("1", &params("{}")).replace(r#""id":1,"#, r#""id":1,"extra":true,"#),
            call("1", &params("{}")).replace(r#""id":1,"#, r#""id":1,"result":{},"#),
            call("1", &params("{}")).replace(r#""id":1,"#, r#""id":1,"id":2,"#),
            call("1", &params("{}")).replace(r#""id":1,"#, ""),
            format!("{} x", call("1", &params("{}"))),
            "[]".to_string(),
            String::new(),
        ]
    }

    #[test]
    fn what_is_read_here_is_what_rmcp_reads() {
        for body in usual().iter().chain(&unusual()) {
            let Some(here) = read(body.as_bytes()) else {
                continue;
            };
            let (id, params, meta) =
                through_rmcp(body).unwrap_or_else(|| panic!("read here, not by rmcp: {body}"));
            assert_eq!(here.id, id, "{body}");
            assert_eq!(here.params, params, "{body}");
            assert_eq!(here.meta, meta, "{body}");
        }
    }

    #[test]
    fn the_usual_shape_is_read_here_and_the_rest_is_left_to_rmcp() {
        for body in usual() {
            assert!(read(body.as_bytes()).is_some(), "not read here: {body}");
        }
        for body in unusual() {
            assert!(read(body.as_bytes()).is_none(), "read here: {body}");
        }
    }
}
