//! Streamed OpenAI chat completions (`stream: true`): [`OpenAiStream`] accumulates the
//! chunks' `delta`s (text pieces, and tool calls whose id and name come in the first piece
//! and whose `arguments` string arrives in fragments, keyed by `index`) into the text and
//! [`ToolCall`]s of the turn.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::error::{FormatError, format_error};
use super::names::ToolNames;
use crate::message::{LlmTurn, ToolCall};

const P: &str = "OpenAI";

/// One tool call being assembled.
#[derive(Debug, Default, Clone)]
struct Partial {
    id: String,
    name: String,
    arguments: String,
}

/// The chunks of one streamed completion, accumulated (first choice only).
#[derive(Debug, Default, Clone)]
pub struct OpenAiStream {
    text: String,
    calls: BTreeMap<u64, Partial>,
    finish_reason: Option<String>,
    done: bool,
}

impl OpenAiStream {
    /// An empty accumulator.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds one server-sent event's `data` (a chunk as JSON, or `[DONE]`).
    pub fn push_data(&mut self, data: &str) -> Result<(), FormatError> {
        let data = data.trim();
        if data == "[DONE]" {
            self.done = true;
            return Ok(());
        }
        let chunk: Value = serde_json::from_str(data)
            .map_err(|e| format_error(P, String::new(), format!("a chunk is not JSON: {e}")))?;
        self.push(&chunk)
    }

    /// Adds one chunk (`{"choices":[{"index":0,"delta":{...},"finish_reason":...}]}`). Chunks
    /// without choices (usage-only chunks) add nothing.
    pub fn push(&mut self, chunk: &Value) -> Result<(), FormatError> {
        let Some(choices) = chunk.get("choices").and_then(Value::as_array) else {
            return Ok(());
        };
        for (c, choice) in choices.iter().enumerate() {
            if choice.get("index").and_then(Value::as_u64).unwrap_or(0) != 0 {
                continue;
            }
            if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
                self.finish_reason = Some(reason.to_owned());
            }
            let Some(delta) = choice.get("delta") else {
                continue;
            };
            if let Some(text) = delta.get("content").and_then(Value::as_str) {
                self.text.push_str(text);
            }
            let calls = match delta.get("tool_calls") {
                None | Some(Value::Null) => continue,
                Some(Value::Array(calls)) => calls,
                Some(other) => {
                    return Err(format_error(
                        P,
                        format!("/choices/{c}/delta/tool_calls"),
                        format!("expected an array, got {}", mcpgen_core::json_kind(other)),
                    ));
                }
            };
            for (i, call) in calls.iter().enumerate() {
                let at = format!("/choices/{c}/delta/tool_calls/{i}");
                let index = match call.get("index") {
                    Some(v) => v.as_u64().ok_or_else(|| {
                        format_error(P, format!("{at}/index"), "expected a whole number")
                    })?,
                    // Some compatible servers leave the index out of single calls.
                    None => i as u64,
                };
                let partial = self.calls.entry(index).or_default();
                if let Some(id) = call.get("id").and_then(Value::as_str) {
                    partial.id.push_str(id);
                }
                if let Some(function) = call.get("function") {
                    if let Some(name) = function.get("name").and_then(Value::as_str) {
                        partial.name.push_str(name);
                    }
                    match function.get("arguments") {
                        Some(Value::String(piece)) => partial.arguments.push_str(piece),
                        None | Some(Value::Null) => {}
                        Some(other) => partial.arguments.push_str(&other.to_string()),
                    }
                }
            }
        }
        Ok(())
    }

    /// Whether `[DONE]` was seen.
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// The `finish_reason` of the last chunk that had one (`stop`, `tool_calls`, `length`).
    pub fn finish_reason(&self) -> Option<&str> {
        self.finish_reason.as_deref()
    }

    /// The text so far.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The tool calls, in index order, names mapped back through `names`. Arguments that
    /// are not valid JSON are kept as a string (the loop reports that to the model); empty
    /// arguments mean `{}`. A call that never got a name is an error naming its index.
    pub fn tool_calls(&self, names: &ToolNames) -> Result<Vec<ToolCall>, FormatError> {
        self.calls
            .iter()
            .map(|(index, p)| {
                if p.name.is_empty() {
                    return Err(format_error(
                        P,
                        format!("/choices/0/delta/tool_calls (index {index})"),
                        "a streamed tool call without a function name",
                    ));
                }
                let arguments = if p.arguments.trim().is_empty() {
                    Value::Object(Map::new())
                } else {
                    serde_json::from_str(&p.arguments)
                        .unwrap_or_else(|_| Value::String(p.arguments.clone()))
                };
                Ok(ToolCall {
                    id: p.id.clone(),
                    name: names.tool_name(&p.name).to_owned(),
                    arguments,
                })
            })
            .collect()
    }

    /// The turn: tool calls (with the text, if any) or the final text.
    pub fn into_turn(self, names: &ToolNames) -> Result<LlmTurn, FormatError> {
        let calls = self.tool_calls(names)?;
        let text = self.text;
        Ok(if calls.is_empty() {
            LlmTurn::Final(text)
        } else {
            LlmTurn::ToolCalls {
                text: (!text.is_empty()).then_some(text),
                calls,
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn fragments_of_two_calls_become_two_calls() {
        let names = ToolNames::new(["weather.today", "get_time"]);
        let mut stream = OpenAiStream::new();
        let chunks = [
            r#"{"choices":[{"index":0,"delta":{"role":"assistant","content":null}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"weather_today","arguments":""}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"ci"}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"get_time","arguments":""}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"ty\":\"Paris\"}"}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#,
            r#"{"choices":[],"usage":{"total_tokens":9}}"#,
            "[DONE]",
        ];
        for chunk in chunks {
            stream.push_data(chunk).unwrap();
        }
        assert!(stream.is_done());
        assert_eq!(stream.finish_reason(), Some("tool_calls"));
        assert_eq!(
            stream.into_turn(&names).unwrap(),
            LlmTurn::ToolCalls {
                text: None,
                calls: vec![
                    ToolCall {
                        id: "call_a".into(),
                        name: "weather.today".into(),
                        arguments: json!({"city": "Paris"}),
                    },
                    ToolCall {
                        id: "call_b".into(),
                        name: "get_time".into(),
                        arguments: json!({}),
                    },
                ],
            }
        );
    }

    #[test]
    fn text_only_streams_are_a_final_answer() {
        let mut stream = OpenAiStream::new();
        for piece in ["It is ", "sunny."] {
            stream
                .push(&json!({"choices": [{"index": 0, "delta": {"content": piece}}]}))
                .unwrap();
        }
        assert_eq!(
            stream.into_turn(&ToolNames::default()).unwrap(),
            LlmTurn::Final("It is sunny.".into())
        );
    }

    #[test]
    fn broken_chunks_are_errors_not_panics() {
        let mut stream = OpenAiStream::new();
        assert!(stream.push_data("{not json").is_err());
        let err = stream
            .push(&json!({"choices": [{"delta": {"tool_calls": {"index": 0}}}]}))
            .unwrap_err();
        assert_eq!(err.pointer, "/choices/0/delta/tool_calls");
        let err = stream
            .push(&json!({"choices": [{"delta": {"tool_calls": [{"index": "x"}]}}]}))
            .unwrap_err();
        assert_eq!(err.pointer, "/choices/0/delta/tool_calls/0/index");
        let mut nameless = OpenAiStream::new();
        nameless
            .push(&json!({"choices": [{"delta": {"tool_calls": [{"index": 0, "function": {"arguments": "{}"}}]}}]}))
            .unwrap();
        assert!(nameless.tool_calls(&ToolNames::default()).is_err());
    }
}
