//! One inner call of a program: `tools.<name>(args)` run through the call pipeline as the
//! `execute`'s caller, as a direct `tools/call` would be, and its answer turned into what the
//! program sees: the API's response body as JSON, or the error its promise is rejected with.

use std::sync::Arc;
use std::time::Instant;

use serde_json::{Map, Value};
use tracing::Instrument;

use crate::engine::{CallReply, CallRequest};
use crate::host::{Host, InnerAnswer};
use mcpgen_contract::input::InputChannel;
use mcpgen_contract::toolset::{CallContext, ParentCall};
use mcpgen_contract::trace::call_span;
use mcpgen_core::result::{Content, ToolResult};
use mcpgen_identity::principal::Principal;

/// The parts of an `execute` every inner call of its program shares; each call's task holds
/// it, so a call outlives the program that asked for it.
pub(super) struct Parent {
    pub(super) host: Arc<dyn Host>,
    pub(super) principal: Principal,
    /// The `execute`'s own context, which each inner call's is made from.
    pub(super) ctx: CallContext,
    pub(super) call_id: Arc<str>,
    pub(super) deadline: Instant,
}

/// Runs `request` and says how it ended. Its arguments were checked to be an object.
pub(super) async fn call(
    parent: Arc<Parent>,
    request: CallRequest,
    args: Map<String, Value>,
) -> CallReply {
    let outcome = run(&parent, &request.name, args).await;
    CallReply {
        id: request.id,
        outcome,
    }
}

/// `args` of `tools.<name>(args)` as a JSON object, or the error the program's promise is
/// rejected with (no call made).
pub(super) fn arguments(name: &str, args: &str) -> Result<Map<String, Value>, String> {
    serde_json::from_str::<Map<String, Value>>(&crate::report::well_formed(args))
        .map_err(|_| format!("tools.{name}: the arguments must be a JSON object"))
}

async fn run(parent: &Parent, name: &str, args: Map<String, Value>) -> Result<String, String> {
    let mut ctx = parent.ctx.clone();
    // Nobody can be asked anything in the middle of a program.
    ctx.input = InputChannel::None;
    ctx.principal = None;
    ctx.parent = Some(ParentCall {
        call_id: Arc::clone(&parent.call_id),
        deadline: parent.deadline,
    });
    // Each inner call is a span of its own under the `execute`'s, as a direct call would be.
    let span = call_span(&mut ctx.trace, name);
    let answer = parent
        .host
        .call(&parent.principal, name, args, ctx)
        .instrument(span)
        .await;
    match answer {
        InnerAnswer::Result {
            result,
            wrapped,
            upstream_status,
        } if !result.is_error => {
            let value = value_of(result, wrapped, upstream_status);
            serde_json::to_string(&value).map_err(|e| format!("tools.{name}: {e}"))
        }
        InnerAnswer::Result { result, .. } => Err(result.joined_text()),
        InnerAnswer::Unknown(message) | InnerAnswer::Refused(message) => Err(message),
        InnerAnswer::AskedClient => Err(format!(
            "tool `{name}` asked the client a question, which a program cannot answer; call \
             `{name}` directly (not from `execute`)"
        )),
    }
}

/// What a program sees of a successful result: the response body as JSON (unwrapped from the
/// `{"result": …}` MCP needs around a non-object), `null` for a 204, a non-JSON body as its
/// text, and other content (images, files) as a list of its blocks.
fn value_of(result: ToolResult, wrapped: bool, upstream_status: Option<u16>) -> Value {
    let ToolResult {
        content,
        structured_content,
        ..
    } = result;
    if let Some(structured) = structured_content {
        // The text of a JSON result is the body's JSON, an object's starting with `{`: a
        // `{"result": …}` whose text does not start so was wrapped around a non-object.
        let text_is_object =
            matches!(content.first(), Some(Content::Text(t)) if t.starts_with('{'));
        return match structured {
            Value::Object(mut map)
                if map.len() == 1 && (wrapped || !text_is_object) && map.contains_key("result") =>
            {
                map.remove("result").unwrap_or(Value::Null)
            }
            other => other,
        };
    }
    if upstream_status == Some(204) {
        return Value::Null;
    }
    if content.iter().all(|c| matches!(c, Content::Text(_))) {
        let mut text = String::new();
        for block in content {
            if let Content::Text(t) = block {
                if !text.is_empty() {
                    text.push('\n');
                }
                text.push_str(&t);
            }
        }
        return Value::String(text);
    }
    Value::Array(content.into_iter().map(block).collect())
}

/// A content block as a program sees it.
fn block(content: Content) -> Value {
    let mut map = Map::new();
    let mut put = |key: &str, value: String| {
        map.insert(key.to_owned(), Value::String(value));
    };
    match content {
        Content::Text(text) => {
            put("type", "text".to_owned());
            put("text", text);
        }
        Content::Image { data, mime_type } => {
            put("type", "image".to_owned());
            put("mimeType", mime_type);
            put("data", data);
        }
        Content::Audio { data, mime_type } => {
            put("type", "audio".to_owned());
            put("mimeType", mime_type);
            put("data", data);
        }
        Content::Resource {
            uri,
            mime_type,
            blob,
        } => {
            put("type", "resource".to_owned());
            put("uri", uri);
            put("mimeType", mime_type);
            put("blob", blob);
        }
        Content::TextResource {
            uri,
            mime_type,
            text,
        } => {
            put("type", "resource".to_owned());
            put("uri", uri);
            put("mimeType", mime_type);
            put("text", text);
        }
    }
    Value::Object(map)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_wrapped_non_object_is_unwrapped_and_an_object_named_result_is_not() {
        let array = ToolResult::json(json!([1, 2]), true);
        assert_eq!(value_of(array, false, Some(200)), json!([1, 2]));
        let object = ToolResult::json(json!({"result": [1]}), false);
        assert_eq!(value_of(object, false, Some(200)), json!({"result": [1]}));
        let declared = ToolResult::json(json!({"a": 1}), true);
        assert_eq!(value_of(declared, true, Some(200)), json!({"a": 1}));
    }

    #[test]
    fn no_content_is_null_and_text_is_text() {
        let empty = ToolResult::text("GET /x succeeded with status 204 (no content)");
        assert_eq!(value_of(empty, false, Some(204)), Value::Null);
        let text = ToolResult::text("plain words");
        assert_eq!(value_of(text, false, Some(200)), json!("plain words"));
    }
}
