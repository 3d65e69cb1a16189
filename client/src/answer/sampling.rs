//! `sampling/createMessage` through the application's [`Llm`]: the request's messages become
//! the provider-neutral conversation, its tools [`ToolDefinition`]s, and the model's turn the
//! result (text, or `tool_use` blocks with `stopReason: toolUse`).
//!
//! Works on the wire JSON, so rmcp's sampling types (deprecated upstream and changing) stay
//! out of it.

use std::collections::HashMap;

use serde_json::{Map, Value, json};

use crate::formats::ToolDefinition;
use crate::message::{LlmTurn, Message, ToolCall};

/// The conversation and tools of a sampling request, or why it cannot be passed to a model
/// (naming the message and block).
pub(super) fn request(params: &Value) -> Result<(Vec<Message>, Vec<ToolDefinition>), String> {
    let mut messages = Vec::new();
    if let Some(system) = params.get("systemPrompt").and_then(Value::as_str) {
        messages.push(Message::System(system.to_owned()));
    }
    let mut names: HashMap<String, String> = HashMap::new();
    let empty = Vec::new();
    let list = params
        .get("messages")
        .and_then(Value::as_array)
        .unwrap_or(&empty);
    for (i, message) in list.iter().enumerate() {
        let blocks: Vec<&Value> = match message.get("content") {
            Some(Value::Array(blocks)) => blocks.iter().collect(),
            Some(block) => vec![block],
            None => Vec::new(),
        };
        let role = message.get("role").and_then(Value::as_str).unwrap_or("");
        let mut texts = Vec::new();
        let mut calls = Vec::new();
        for (j, block) in blocks.iter().enumerate() {
            let at = || format!("messages/{i}/content/{j}");
            match block.get("type").and_then(Value::as_str) {
                Some("text") => {
                    texts.push(block["text"].as_str().unwrap_or_default().to_owned());
                }
                Some("tool_use") => {
                    let id = block["id"].as_str().unwrap_or_default().to_owned();
                    let name = block["name"].as_str().unwrap_or_default().to_owned();
                    names.insert(id.clone(), name.clone());
                    calls.push(ToolCall {
                        id,
                        name,
                        arguments: block.get("input").cloned().unwrap_or(json!({})),
                    });
                }
                Some("tool_result") => {
                    let id = block["toolUseId"].as_str().unwrap_or_default().to_owned();
                    messages.push(Message::Tool {
                        name: names.get(&id).cloned().unwrap_or_default(),
                        call_id: id,
                        content: content_text(block.get("content")),
                        is_error: block.get("isError") == Some(&Value::Bool(true)),
                    });
                }
                Some(other) => {
                    return Err(format!(
                        "{}: {other} content cannot be passed to the model, only text and tool calls",
                        at()
                    ));
                }
                None => return Err(format!("{}: a content block without a type", at())),
            }
        }
        let text = (!texts.is_empty()).then(|| texts.join("\n"));
        match role {
            "assistant" => messages.push(Message::Assistant {
                text,
                tool_calls: calls,
            }),
            "user" => {
                if let Some(text) = text {
                    messages.push(Message::User(text));
                }
            }
            other => return Err(format!("messages/{i}/role: unknown role `{other}`")),
        }
    }
    let tools = params
        .get("tools")
        .and_then(Value::as_array)
        .map(|tools| {
            tools
                .iter()
                .map(|t| ToolDefinition {
                    name: t["name"].as_str().unwrap_or_default().to_owned(),
                    description: t["description"].as_str().unwrap_or_default().to_owned(),
                    input_schema: t
                        .get("inputSchema")
                        .and_then(Value::as_object)
                        .cloned()
                        .unwrap_or_else(|| {
                            let mut m = Map::new();
                            m.insert("type".into(), json!("object"));
                            m
                        }),
                })
                .collect()
        })
        .unwrap_or_default();
    Ok((messages, tools))
}

/// The text blocks of a tool result's content, joined.
fn content_text(content: Option<&Value>) -> String {
    let blocks: Vec<&Value> = match content {
        Some(Value::Array(list)) => list.iter().collect(),
        Some(one) => vec![one],
        None => Vec::new(),
    };
    blocks
        .iter()
        .filter_map(|b| b.get("text").and_then(Value::as_str))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The `CreateMessageResult` JSON for the model's `turn`.
pub(super) fn result(turn: LlmTurn, model: &str) -> Value {
    match turn {
        LlmTurn::ToolCalls { text, calls } if !calls.is_empty() => {
            let mut content = Vec::new();
            if let Some(text) = text.filter(|t| !t.is_empty()) {
                content.push(json!({"type": "text", "text": text}));
            }
            for call in calls {
                let input = match call.arguments {
                    Value::Object(map) => Value::Object(map),
                    _ => json!({}),
                };
                content.push(json!({
                    "type": "tool_use", "id": call.id, "name": call.name, "input": input
                }));
            }
            json!({"role": "assistant", "content": content, "model": model, "stopReason": "toolUse"})
        }
        LlmTurn::ToolCalls { text, .. } => final_text(text.unwrap_or_default(), model),
        LlmTurn::Final(text) => final_text(text, model),
    }
}

fn final_text(text: String, model: &str) -> Value {
    json!({
        "role": "assistant",
        "content": {"type": "text", "text": text},
        "model": model,
        "stopReason": "endTurn",
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_conversation_with_tool_use_becomes_messages_and_tools() {
        let params = json!({
            "systemPrompt": "Be brief.",
            "maxTokens": 100,
            "messages": [
                {"role": "user", "content": {"type": "text", "text": "Weather in Paris?"}},
                {"role": "assistant", "content": [
                    {"type": "tool_use", "id": "t1", "name": "weather", "input": {"city": "Paris"}}
                ]},
                {"role": "user", "content": [
                    {"type": "tool_result", "toolUseId": "t1", "content": [{"type": "text", "text": "18°C"}]}
                ]}
            ],
            "tools": [{"name": "weather", "description": "Weather", "inputSchema": {"type": "object"}}]
        });
        let (messages, tools) = request(&params).unwrap();
        assert_eq!(
            messages,
            vec![
                Message::System("Be brief.".into()),
                Message::User("Weather in Paris?".into()),
                Message::Assistant {
                    text: None,
                    tool_calls: vec![ToolCall {
                        id: "t1".into(),
                        name: "weather".into(),
                        arguments: json!({"city": "Paris"}),
                    }],
                },
                Message::Tool {
                    call_id: "t1".into(),
                    name: "weather".into(),
                    content: "18°C".into(),
                    is_error: false,
                },
            ]
        );
        assert_eq!(tools.len(), 1);
        assert_eq!(tools[0].name, "weather");
    }

    #[test]
    fn images_are_refused_with_their_place() {
        let params = json!({"maxTokens": 5, "messages": [
            {"role": "user", "content": [{"type": "text", "text": "see"}, {"type": "image", "data": "", "mimeType": "image/png"}]}
        ]});
        assert_eq!(
            request(&params).unwrap_err(),
            "messages/0/content/1: image content cannot be passed to the model, only text and tool calls"
        );
    }

    #[test]
    fn turns_become_results() {
        assert_eq!(
            result(LlmTurn::Final("Hi".into()), "m1"),
            json!({"role": "assistant", "content": {"type": "text", "text": "Hi"}, "model": "m1", "stopReason": "endTurn"})
        );
        let calls = LlmTurn::ToolCalls {
            text: None,
            calls: vec![ToolCall {
                id: "c".into(),
                name: "weather".into(),
                arguments: json!({"city": "Oslo"}),
            }],
        };
        assert_eq!(
            result(calls, "m1"),
            json!({"role": "assistant", "content": [{"type": "tool_use", "id": "c", "name": "weather", "input": {"city": "Oslo"}}], "model": "m1", "stopReason": "toolUse"})
        );
    }
}
