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
//!
//! Shared by both providers: [`ToolDefinition`] (a tool and its input schema), [`ToolNames`],
//! [`result_text`] and [`FormatError`]. Everything else is named for its provider.

mod anthropic;
mod definition;
mod error;
#[cfg(test)]
mod fixtures;
mod names;
mod openai;
mod openai_stream;
mod result;

pub use crate::message::ToolCall;
pub use anthropic::{
    anthropic_messages, anthropic_text, anthropic_tool_result, anthropic_tool_results_message,
    anthropic_tools, parse_anthropic_tool_calls,
};
pub use definition::ToolDefinition;
pub use error::FormatError;
pub use names::{MAX_PROVIDER_NAME_LEN, ToolNames};
pub use openai::{
    openai_messages, openai_text, openai_tool_message, openai_tools, parse_openai_tool_calls,
};
pub use openai_stream::OpenAiStream;
pub use result::result_text;
