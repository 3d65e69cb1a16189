//! Tool definitions, tool calls and tool results in the shapes the OpenAI and Anthropic
//! function-calling APIs use.
//!
//! Both providers accept tool names matching `^[a-zA-Z0-9_-]{1,64}$`; MCP tool names may
//! contain other characters (`.`, `/`) or be longer. [`ToolNames`] maps each name to one the
//! providers accept and back:
//!
//! - a name that already fits is kept as is;
//! - otherwise every other character becomes `_`; if the result is empty, longer than 64, or
//!   taken by another tool, it is cut to 55 characters and `_` plus 8 hex digits of the
//!   SHA-256 of the original name is appended.
//!
//! The mapping depends only on the set of names, not on their order.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use crate::message::Message;
pub use crate::message::ToolCall;
use mcpgen_runtime::{Content, ToolResult};

/// The longest tool name the providers accept.
pub const MAX_PROVIDER_NAME_LEN: usize = 64;

/// One tool as a model sees it: name, description, input schema.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolDefinition {
    /// The name calls use (for a registry, the possibly server-qualified name).
    pub name: String,
    /// What the tool does; empty when the server gave none.
    pub description: String,
    /// JSON Schema of the arguments (always an object schema).
    pub input_schema: Map<String, Value>,
}

impl ToolDefinition {
    /// The definition of an MCP tool as a server listed it, under `name`.
    pub fn from_mcp(name: impl Into<String>, tool: &rmcp::model::Tool) -> Self {
        let mut input_schema = (*tool.input_schema).clone();
        if !input_schema.contains_key("type") {
            input_schema.insert("type".to_owned(), json!("object"));
        }
        Self {
            name: name.into(),
            description: tool.description.as_deref().unwrap_or_default().to_owned(),
            input_schema,
        }
    }

    /// The definition of a tool of a local tool set. An input schema that does not parse as a
    /// JSON object becomes `{"type":"object"}`.
    pub fn from_def(def: &mcpgen_runtime::ToolDef) -> Self {
        let input_schema = match serde_json::from_str::<Value>(def.input_schema) {
            Ok(Value::Object(map)) => map,
            _ => {
                let mut map = Map::new();
                map.insert("type".to_owned(), json!("object"));
                map
            }
        };
        Self {
            name: def.name.to_owned(),
            description: def.description.to_owned(),
            input_schema,
        }
    }
}

/// The two-way mapping between tool names and the names sent to a model provider.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolNames {
    to_provider: BTreeMap<String, String>,
    to_tool: BTreeMap<String, String>,
}

fn fits(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_PROVIDER_NAME_LEN
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

fn hashed(original: &str, base: &str) -> String {
    let digest = Sha256::digest(original.as_bytes());
    let hex: String = digest[..4].iter().map(|b| format!("{b:02x}")).collect();
    let cut: String = base.chars().take(MAX_PROVIDER_NAME_LEN - 9).collect();
    if cut.is_empty() {
        format!("tool_{hex}")
    } else {
        format!("{cut}_{hex}")
    }
}

impl ToolNames {
    /// The mapping for these tool names.
    pub fn new<'a>(names: impl IntoIterator<Item = &'a str>) -> Self {
        let names: BTreeSet<&str> = names.into_iter().collect();
        let mut out = Self::default();
        // Names that fit keep themselves; they are reserved first so a mapped name never
        // takes one.
        for name in names.iter().filter(|n| fits(n)) {
            out.insert(name, (*name).to_owned());
        }
        for name in names.iter().filter(|n| !fits(n)) {
            let replaced: String = name
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                        c
                    } else {
                        '_'
                    }
                })
                .collect();
            let mut candidate = replaced.clone();
            if !fits(&candidate) || out.to_tool.contains_key(&candidate) {
                candidate = hashed(name, &replaced);
            }
            // Two different names with the same 32-bit hash prefix and the same 55-character
            // stem: extend until unique.
            let mut n = 2;
            while out.to_tool.contains_key(&candidate) {
                candidate = hashed(&format!("{name}#{n}"), &replaced);
                n += 1;
            }
            out.insert(name, candidate);
        }
        out
    }

    /// The mapping for these definitions' names.
    pub fn for_tools(tools: &[ToolDefinition]) -> Self {
        Self::new(tools.iter().map(|t| t.name.as_str()))
    }

    fn insert(&mut self, tool: &str, provider: String) {
        self.to_tool.insert(provider.clone(), tool.to_owned());
        self.to_provider.insert(tool.to_owned(), provider);
    }

    /// The name to send to the provider for `tool` (the tool's own name if it is not mapped).
    pub fn provider_name<'a>(&'a self, tool: &'a str) -> &'a str {
        self.to_provider.get(tool).map_or(tool, String::as_str)
    }

    /// The tool a provider's name stands for (the name itself if it is not mapped).
    pub fn tool_name<'a>(&'a self, provider: &'a str) -> &'a str {
        self.to_tool.get(provider).map_or(provider, String::as_str)
    }
}

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

/// How many bytes `base64` decodes to (without decoding it).
fn decoded_len(base64: &str) -> usize {
    let trimmed = base64.trim_end_matches('=');
    let len = trimmed.bytes().filter(|b| !b.is_ascii_whitespace()).count();
    len * 3 / 4
}

/// A tool result as text for a model: text blocks joined by newlines; images and resources
/// described by MIME type and size; structured content as JSON when there is no other
/// content; a failed result starts with `Error: `.
pub fn result_text(result: &ToolResult) -> String {
    let mut parts = Vec::with_capacity(result.content.len());
    for block in &result.content {
        parts.push(match block {
            Content::Text(t) => t.clone(),
            Content::Image { data, mime_type } => {
                format!("[image: {mime_type}, {} bytes]", decoded_len(data))
            }
            Content::Audio { data, mime_type } => {
                format!("[audio: {mime_type}, {} bytes]", decoded_len(data))
            }
            Content::Resource {
                uri,
                mime_type,
                blob,
            } => format!("[resource {uri}: {mime_type}, {} bytes]", decoded_len(blob)),
            Content::TextResource {
                uri,
                mime_type,
                text,
            } => format!("[resource {uri}: {mime_type}]\n{text}"),
        });
    }
    let mut text = parts.join("\n");
    if parts.is_empty() {
        text = match &result.structured_content {
            Some(v) => v.to_string(),
            None => "(no content)".to_owned(),
        };
    }
    if result.is_error {
        format!("Error: {text}")
    } else {
        text
    }
}

/// A model response that does not have the expected shape.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("malformed {provider} response at {pointer}: {message}")]
pub struct FormatError {
    /// `OpenAI` or `Anthropic`.
    pub provider: &'static str,
    /// JSON pointer of the offending value.
    pub pointer: String,
    /// What is wrong.
    pub message: String,
}

fn format_error(
    provider: &'static str,
    pointer: String,
    message: impl Into<String>,
) -> FormatError {
    FormatError {
        provider,
        pointer,
        message: message.into(),
    }
}

fn string_at<'a>(
    provider: &'static str,
    value: &'a Value,
    base: &str,
    key: &str,
) -> Result<&'a str, FormatError> {
    match value.get(key) {
        Some(Value::String(s)) => Ok(s),
        Some(other) => Err(format_error(
            provider,
            format!("{base}/{key}"),
            format!(
                "expected a string, got {}",
                mcpgen_runtime::json_kind(other)
            ),
        )),
        None => Err(format_error(provider, format!("{base}/{key}"), "missing")),
    }
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
                format!(
                    "expected an array, got {}",
                    mcpgen_runtime::json_kind(other)
                ),
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
                    format!(
                        "expected an array, got {}",
                        mcpgen_runtime::json_kind(other)
                    ),
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

/// A tool result as an OpenAI message: `{"role":"tool","tool_call_id","content"}`.
pub fn openai_tool_message(call_id: &str, result: &ToolResult) -> Value {
    json!({
        "role": "tool",
        "tool_call_id": call_id,
        "content": result_text(result),
    })
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

    fn def(name: &str) -> ToolDefinition {
        let mut schema = Map::new();
        schema.insert("type".into(), json!("object"));
        schema.insert("properties".into(), json!({"city": {"type": "string"}}));
        ToolDefinition {
            name: name.to_owned(),
            description: "Weather for a city".to_owned(),
            input_schema: schema,
        }
    }

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
    fn names_providers_reject_are_mapped_and_mapped_back() {
        let long = "a".repeat(70);
        let names = ToolNames::new(["files.read", "files_read", "ok-name", long.as_str(), "é"]);
        assert_eq!(names.provider_name("ok-name"), "ok-name");
        // `files_read` fits and keeps its name; `files.read` would map onto it, so it is
        // hashed.
        assert_eq!(names.provider_name("files_read"), "files_read");
        let dotted = names.provider_name("files.read");
        assert!(dotted.starts_with("files_read_") && dotted.len() == "files_read_".len() + 8);
        let long_mapped = names.provider_name(&long);
        assert_eq!(long_mapped.len(), 64);
        let accented = names.provider_name("é");
        assert!(accented == "_", "got {accented}");
        for original in ["files.read", "files_read", "ok-name", long.as_str(), "é"] {
            let provider = names.provider_name(original);
            assert!(fits(provider), "{provider} must fit the providers' pattern");
            assert_eq!(names.tool_name(provider), original);
        }
        // Order does not matter.
        let reversed = ToolNames::new(["é", long.as_str(), "ok-name", "files_read", "files.read"]);
        assert_eq!(names, reversed);
        // Unknown names pass through.
        assert_eq!(names.tool_name("other"), "other");
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
    fn results_render_back_in_each_format() {
        let ok = ToolResult::text("18°C, sunny");
        assert_eq!(
            openai_tool_message("call_1", &ok),
            json!({"role": "tool", "tool_call_id": "call_1", "content": "18°C, sunny"})
        );
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
    fn result_text_describes_binary_content_and_marks_errors() {
        let result = ToolResult {
            content: vec![
                Content::Text("Here it is".into()),
                Content::Image {
                    data: "iVBORw0KGgo=".into(), // 8 bytes
                    mime_type: "image/png".into(),
                },
                Content::Resource {
                    uri: "mcpgen://response/getInvoicePdf".into(),
                    mime_type: "application/pdf".into(),
                    blob: "JVBERi0xLjQK".into(), // 9 bytes
                },
            ],
            ..ToolResult::default()
        };
        assert_eq!(
            result_text(&result),
            "Here it is\n[image: image/png, 8 bytes]\n[resource mcpgen://response/getInvoicePdf: application/pdf, 9 bytes]"
        );
        let structured = ToolResult {
            structured_content: Some(json!({"a": 1})),
            ..ToolResult::default()
        };
        assert_eq!(result_text(&structured), r#"{"a":1}"#);
        assert_eq!(result_text(&ToolResult::default()), "(no content)");
        assert_eq!(result_text(&ToolResult::error("boom")), "Error: boom");
    }

    fn conversation() -> Vec<Message> {
        vec![
            Message::System("Be brief.".into()),
            Message::User("Weather in Paris?".into()),
            Message::Assistant {
                text: None,
                tool_calls: vec![ToolCall {
                    id: "c1".into(),
                    name: "weather.today".into(),
                    arguments: json!({"city": "Paris"}),
                }],
            },
            Message::Tool {
                call_id: "c1".into(),
                name: "weather.today".into(),
                content: "18°C".into(),
                is_error: false,
            },
            Message::Assistant {
                text: Some("18°C.".into()),
                tool_calls: vec![],
            },
        ]
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
