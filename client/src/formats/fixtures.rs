//! Tools and conversations the provider tests share.

use serde_json::{Map, json};

use super::definition::ToolDefinition;
use crate::message::{Message, ToolCall};

/// A weather tool named `name`.
pub(super) fn def(name: &str) -> ToolDefinition {
    let mut schema = Map::new();
    schema.insert("type".into(), json!("object"));
    schema.insert("properties".into(), json!({"city": {"type": "string"}}));
    ToolDefinition {
        name: name.to_owned(),
        description: "Weather for a city".to_owned(),
        input_schema: schema,
    }
}

/// A short conversation with one tool call of `weather.today`.
pub(super) fn conversation() -> Vec<Message> {
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
