//! The OpenAI chat-completions format: function tools, `tool_calls`, `role: tool` results and
//! chat messages.

use serde_json::{Map, Value, json};

use super::definition::ToolDefinition;
use super::error::{FormatError, format_error, string_at};
use super::names::ToolNames;
use super::result::result_text;
use crate::message::{Message, ToolCall};
use mcpgen_core::ToolResult;

/// Tool definitions as OpenAI function-calling tools:
/// `{"type":"function","function":{"name","description","parameters"}}`.
pub fn openai_tools(tools: &[ToolDefinition], names: &ToolNames) -> Vec<Value> {
    tools
        .iter()
        .map(|t| {
            json!({
                "type": "function",
                "function": {
                    "name": names.provider_name(&t.name),
                    "description": t.description,
                    "parameters": t.input_schema,
                }
            })
        })
        .collect()
}

/// The tool calls of an OpenAI chat completion: accepts the whole response (the first
/// choice's message is read) or the assistant message itself. No `tool_calls` → no calls.
/// `function.arguments` is a JSON string; an empty one means `{}`.
pub fn parse_openai_tool_calls(
    response: &Value,
    names: &ToolNames,
) -> Result<Vec<ToolCall>, FormatError> {
    const P: &str = "OpenAI";
    let (message, base) = match response.get("choices") {
        Some(choices) => (
            choices
                .get(0)
                .and_then(|c| c.get("message"))
                .ok_or_else(|| format_error(P, "/choices/0/message".into(), "missing"))?,
            "/choices/0/message",
        ),
        None => (response, ""),
    };
    let calls = match message.get("tool_calls") {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(calls)) => calls,
        Some(other) => {
            return Err(format_error(
                P,
                format!("{base}/tool_calls"),
                format!("expected an array, got {}", mcpgen_core::json_kind(other)),
            ));
        }
    };
    let mut out = Vec::with_capacity(calls.len());
    for (i, call) in calls.iter().enumerate() {
        let at = format!("{base}/tool_calls/{i}");
        let id = string_at(P, call, &at, "id")?;
        let function = call
            .get("function")
            .ok_or_else(|| format_error(P, format!("{at}/function"), "missing"))?;
        let fat = format!("{at}/function");
        let name = string_at(P, function, &fat, "name")?;
        let arguments = match function.get("arguments") {
            None | Some(Value::Null) => Value::Object(Map::new()),
            Some(Value::String(s)) if s.trim().is_empty() => Value::Object(Map::new()),
            Some(Value::String(s)) => {
                serde_json::from_str(s).unwrap_or_else(|_| Value::String(s.clone()))
            }
            // Some compatible servers send the object itself.
            Some(other) => other.clone(),
        };
        out.push(ToolCall {
            id: id.to_owned(),
            name: names.tool_name(name).to_owned(),
            arguments,
        });
    }
    Ok(out)
}

/// The final text of an OpenAI response (whole response or message): `content` as a string.
pub fn openai_text(response: &Value) -> Option<String> {
    let message = response
        .get("choices")
        .and_then(|c| c.get(0))
        .and_then(|c| c.get("message"))
        .unwrap_or(response);
    message
        .get("content")
        .and_then(Value::as_str)
        .map(str::to_owned)
}

/// A tool result as an OpenAI message: `{"role":"tool","tool_call_id","content"}`.
pub fn openai_tool_message(call_id: &str, result: &ToolResult) -> Value {
    json!({
        "role": "tool",
        "tool_call_id": call_id,
        "content": result_text(result),
    })
}

/// A provider-neutral conversation as OpenAI chat messages: system, user, assistant (with
/// `tool_calls`, arguments as a JSON string) and `role: tool` results.
pub fn openai_messages(messages: &[Message], names: &ToolNames) -> Vec<Value> {
    messages
        .iter()
        .map(|m| match m {
            Message::System(text) => json!({"role": "system", "content": text}),
            Message::User(text) => json!({"role": "user", "content": text}),
            Message::Assistant { text, tool_calls } => {
                let mut out = Map::new();
                out.insert("role".into(), json!("assistant"));
                out.insert("content".into(), json!(text));
                if !tool_calls.is_empty() {
                    let calls: Vec<Value> = tool_calls
                        .iter()
                        .map(|c| {
                            let arguments = match &c.arguments {
                                Value::String(raw) => raw.clone(),
                                other => other.to_string(),
                            };
                            json!({
                                "id": c.id,
                                "type": "function",
                                "function": {
                                    "name": names.provider_name(&c.name),
                                    "arguments": arguments,
                                }
                            })
                        })
                        .collect();
                    out.insert("tool_calls".into(), Value::Array(calls));
                }
                Value::Object(out)
            }
            Message::Tool {
                call_id, content, ..
            } => json!({"role": "tool", "tool_call_id": call_id, "content": content}),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::fixtures::{conversation, def};

    #[test]
    fn openai_tool_definitions_have_the_function_shape() {
        let tools = [def("get_weather")];
        let names = ToolNames::for_tools(&tools);
        assert_eq!(
            Value::Array(openai_tools(&tools, &names)),
            json!([{
                "type": "function",
                "function": {
                    "name": "get_weather",
                    "description": "Weather for a city",
                    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}
                }
            }])
        );
    }

    #[test]
    fn mapped_names_appear_in_definitions_and_parsed_calls() {
        let tools = [def("weather.today")];
        let names = ToolNames::for_tools(&tools);
        let sent = openai_tools(&tools, &names);
        assert_eq!(sent[0]["function"]["name"], json!("weather_today"));
        let response = json!({"tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "weather_today", "arguments": "{}"}}
        ]});
        let calls = parse_openai_tool_calls(&response, &names).unwrap();
        assert_eq!(calls[0].name, "weather.today");
    }

    #[test]
    fn openai_tool_calls_parse_from_a_completion() {
        let response = json!({
            "id": "chatcmpl-1",
            "choices": [{
                "index": 0,
                "finish_reason": "tool_calls",
                "message": {
                    "role": "assistant",
                    "content": null,
                    "tool_calls": [
                        {"id": "call_1", "type": "function",
                         "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}},
                        {"id": "call_2", "type": "function",
                         "function": {"name": "get_time", "arguments": ""}},
                        {"id": "call_3", "type": "function",
                         "function": {"name": "get_time", "arguments": "{not json"}}
                    ]
                }
            }]
        });
        let calls = parse_openai_tool_calls(&response, &ToolNames::default()).unwrap();
        assert_eq!(
            calls,
            vec![
                ToolCall {
                    id: "call_1".into(),
                    name: "get_weather".into(),
                    arguments: json!({"city": "Paris"}),
                },
                ToolCall {
                    id: "call_2".into(),
                    name: "get_time".into(),
                    arguments: json!({}),
                },
                ToolCall {
                    id: "call_3".into(),
                    name: "get_time".into(),
                    arguments: json!("{not json"),
                },
            ]
        );
        assert_eq!(openai_text(&response), None);
        let plain = json!({"choices": [{"message": {"role": "assistant", "content": "Sunny."}}]});
        assert!(
            parse_openai_tool_calls(&plain, &ToolNames::default())
                .unwrap()
                .is_empty()
        );
        assert_eq!(openai_text(&plain).as_deref(), Some("Sunny."));
    }

    #[test]
    fn malformed_openai_calls_name_the_pointer() {
        let response = json!({"tool_calls": [{"id": 5, "function": {"name": "x"}}]});
        let err = parse_openai_tool_calls(&response, &ToolNames::default()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "malformed OpenAI response at /tool_calls/0/id: expected a string, got a number"
        );
        let err =
            parse_openai_tool_calls(&json!({"choices": []}), &ToolNames::default()).unwrap_err();
        assert_eq!(err.pointer, "/choices/0/message");
    }

    #[test]
    fn a_result_renders_as_a_tool_message() {
        let ok = ToolResult::text("18°C, sunny");
        assert_eq!(
            openai_tool_message("call_1", &ok),
            json!({"role": "tool", "tool_call_id": "call_1", "content": "18°C, sunny"})
        );
    }

    #[test]
    fn a_conversation_in_openai_messages() {
        let names = ToolNames::new(["weather.today"]);
        assert_eq!(
            Value::Array(openai_messages(&conversation(), &names)),
            json!([
                {"role": "system", "content": "Be brief."},
                {"role": "user", "content": "Weather in Paris?"},
                {"role": "assistant", "content": null, "tool_calls": [
                    {"id": "c1", "type": "function",
                     "function": {"name": "weather_today", "arguments": "{\"city\":\"Paris\"}"}}
                ]},
                {"role": "tool", "tool_call_id": "c1", "content": "18°C"},
                {"role": "assistant", "content": "18°C."}
            ])
        );
    }
}
