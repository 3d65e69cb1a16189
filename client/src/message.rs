//! The provider-neutral conversation that the tool-call loop (`llm`) keeps and the provider
//! formats (`formats`) translate: messages and the tool calls a model asks for.

use serde_json::Value;

/// One message of a provider-neutral conversation.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    /// Instructions for the model.
    System(String),
    /// What the user said.
    User(String),
    /// What the model said: text, tool calls, or both.
    Assistant {
        /// Text of the turn, if any.
        text: Option<String>,
        /// Tools the model asked to call in this turn.
        tool_calls: Vec<ToolCall>,
    },
    /// The result of one tool call, answering the call with id `call_id`.
    Tool {
        /// The id of the call this answers.
        call_id: String,
        /// The tool's name.
        name: String,
        /// The result rendered as text (by `formats::result_text`).
        content: String,
        /// Whether the call failed.
        is_error: bool,
    },
}

/// A tool call a model asked for, in a provider-neutral form.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    /// The provider's id for the call (`tool_call_id` / `tool_use_id`), echoed in the result.
    pub id: String,
    /// The tool's name (mapped back from the provider's name).
    pub name: String,
    /// The arguments. Normally an object; what the model sent when that did not parse as
    /// JSON is kept as a string so the failure can be reported back to the model.
    pub arguments: Value,
}

/// What the model answered in one turn.
#[derive(Debug, Clone, PartialEq)]
pub enum LlmTurn {
    /// A final answer: the loop ends.
    Final(String),
    /// Tools to call (with optional text the model said alongside).
    ToolCalls {
        /// Text of the turn, if any.
        text: Option<String>,
        /// The calls, in the order the model gave them.
        calls: Vec<ToolCall>,
    },
}
