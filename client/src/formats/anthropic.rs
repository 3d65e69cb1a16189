//! The Anthropic messages format: tools with `input_schema`, `tool_use` blocks, `tool_result`
//! blocks and messages with a separate system text.

use serde_json::{Map, Value, json};

use super::definition::ToolDefinition;
use super::error::{FormatError, format_error, string_at};
use super::names::ToolNames;
use super::result::result_text;
use crate::message::{Message, ToolCall};
use mcpgen_core::ToolResult;

/// Tool definitions as Anthropic tools: `{"name","description","input_schema"}`.
pub fn anthropic_tools(tools: &[ToolDefinition], names: &ToolNames) -> Vec<Value> {
    tools
        .iter()
        .map(|t| {
            json!({
                "name": names.provider_name(&t.name),
                "description": t.description,
                "input_schema": t.input_schema,
            })
        })
        .collect()
}

/// The tool calls of an Anthropic message: accepts the response or just its `content` array;
/// reads the `tool_use` blocks.
pub fn parse_anthropic_tool_calls(
    response: &Value,
    names: &ToolNames,
) -> Result<Vec<ToolCall>, FormatError> {
    const P: &str = "Anthropic";
    let (blocks, base) = match response {
        Value::Array(blocks) => (blocks, ""),
        _ => match response.get("content") {
            Some(Value::Array(blocks)) => (blocks, "/content"),
            Some(other) => {
                return Err(format_error(
                    P,
                    "/content".into(),
                    format!("expected an array, got {}", mcpgen_core::json_kind(other)),
                ));
            }
            None => return Err(format_error(P, "/content".into(), "missing")),
        },
    };
    let mut out = Vec::new();
    for (i, block) in blocks.iter().enumerate() {
        if block.get("type").and_then(Value::as_str) != Some("tool_use") {
            continue;
        }
        let at = format!("{base}/{i}");
        let id = string_at(P, block, &at, "id")?;
        let name = string_at(P, block, &at, "name")?;
        let arguments = match block.get("input") {
            None | Some(Value::Null) => Value::Object(Map::new()),
            Some(v) => v.clone(),
        };
        out.push(ToolCall {
            id: id.to_owned(),
            name: names.tool_name(name).to_owned(),
            arguments,
        });
    }
    Ok(out)
}

/// The text of an Anthropic response (whole response or `content` array): its `text`
/// blocks joined by newlines.
pub fn anthropic_text(response: &Value) -> Option<String> {
    let blocks = match response {
        Value::Array(b) => b,
        _ => response.get("content")?.as_array()?,
    };
    let texts: Vec<&str> = blocks
        .iter()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
        .filter_map(|b| b.get("text").and_then(Value::as_str))
        .collect();
    (!texts.is_empty()).then(|| texts.join("\n"))
}

/// A tool result as an Anthropic content block:
/// `{"type":"tool_result","tool_use_id","content","is_error"}`. Results go back in a
/// `user` message whose content is these blocks (see [`anthropic_tool_results_message`]).
pub fn anthropic_tool_result(call_id: &str, result: &ToolResult) -> Value {
    json!({
        "type": "tool_result",
        "tool_use_id": call_id,
        "content": result_text(result),
        "is_error": result.is_error,
    })
}

/// The `user` message carrying the results of one assistant turn's `tool_use` blocks.
pub fn anthropic_tool_results_message<'a>(
    results: impl IntoIterator<Item = (&'a str, &'a ToolResult)>,
) -> Value {
    let blocks: Vec<Value> = results
        .into_iter()
        .map(|(id, r)| anthropic_tool_result(id, r))
        .collect();
    json!({"role": "user", "content": blocks})
}

/// A provider-neutral conversation as Anthropic messages: the system text (Anthropic takes it
/// as a separate `system` parameter; several are joined by blank lines) and the messages,
/// with consecutive tool results gathered into one `user` message of `tool_result` blocks.
pub fn anthropic_messages(messages: &[Message], names: &ToolNames) -> (Option<String>, Vec<Value>) {
    let mut system: Vec<&str> = Vec::new();
    let mut out: Vec<Value> = Vec::new();
    let mut results: Vec<Value> = Vec::new();
    let flush = |results: &mut Vec<Value>, out: &mut Vec<Value>| {
        if !results.is_empty() {
            out.push(json!({"role": "user", "content": std::mem::take(results)}));
        }
    };
    for m in messages {
        match m {
            Message::System(text) => system.push(text),
            Message::User(text) => {
                flush(&mut results, &mut out);
                out.push(json!({"role": "user", "content": text}));
            }
            Message::Assistant { text, tool_calls } => {
                flush(&mut results, &mut out);
                let mut blocks = Vec::new();
                if let Some(text) = text.as_deref().filter(|t| !t.is_empty()) {
                    blocks.push(json!({"type": "text", "text": text}));
                }
                for c in tool_calls {
                    let input = match &c.arguments {
                        Value::Object(_) => c.arguments.clone(),
                        _ => Value::Object(Map::new()),
                    };
                    blocks.push(json!({
                        "type": "tool_use",
                        "id": c.id,
                        "name": names.provider_name(&c.name),
                        "input": input,
                    }));
                }
                out.push(json!({"role": "assistant", "content": blocks}));
            }
            Message::Tool {
                call_id,
                content,
                is_error,
                ..
            } => results.push(json!({
                "type": "tool_result",
                "tool_use_id": call_id,
                "content": content,
                "is_error": is_error,
            })),
        }
    }
    flush(&mut results, &mut out);
    let system = (!system.is_empty()).then(|| system.join("\n\n"));
    (system, out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::fixtures::{conversation, def};

    #[test]
    fn anthropic_tool_definitions_have_the_input_schema_shape() {
        let tools = [def("get_weather")];
        let names = ToolNames::for_tools(&tools);
        assert_eq!(
            Value::Array(anthropic_tools(&tools, &names)),
            json!([{
                "name": "get_weather",
                "description": "Weather for a city",
                "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}}
            }])
        );
    }

    #[test]
    fn anthropic_tool_use_blocks_parse() {
        let response = json!({
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "stop_reason": "tool_use",
            "content": [
                {"type": "text", "text": "Let me check."},
                {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}}
            ]
        });
        let calls = parse_anthropic_tool_calls(&response, &ToolNames::default()).unwrap();
        assert_eq!(
            calls,
            vec![ToolCall {
                id: "toolu_1".into(),
                name: "get_weather".into(),
                arguments: json!({"city": "Paris"}),
            }]
        );
        assert_eq!(anthropic_text(&response).as_deref(), Some("Let me check."));
        let err = parse_anthropic_tool_calls(
            &json!({"content": [{"type": "tool_use", "id": "t", "input": {}}]}),
            &ToolNames::default(),
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "malformed Anthropic response at /content/0/name: missing"
        );
    }

    #[test]
    fn results_render_as_one_user_message() {
        let ok = ToolResult::text("18°C, sunny");
        let failed = ToolResult::error("city not found");
        assert_eq!(
            anthropic_tool_results_message([("toolu_1", &ok), ("toolu_2", &failed)]),
            json!({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": "18°C, sunny", "is_error": false},
                {"type": "tool_result", "tool_use_id": "toolu_2", "content": "Error: city not found", "is_error": true}
            ]})
        );
    }

    #[test]
    fn a_conversation_in_anthropic_messages() {
        let names = ToolNames::new(["weather.today"]);
        let (system, messages) = anthropic_messages(&conversation(), &names);
        assert_eq!(system.as_deref(), Some("Be brief."));
        assert_eq!(
            Value::Array(messages),
            json!([
                {"role": "user", "content": "Weather in Paris?"},
                {"role": "assistant", "content": [
                    {"type": "tool_use", "id": "c1", "name": "weather_today", "input": {"city": "Paris"}}
                ]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "c1", "content": "18°C", "is_error": false}
                ]},
                {"role": "assistant", "content": [{"type": "text", "text": "18°C."}]}
            ])
        );
    }
}
