//! A model's tool-call loop: the model asks for tools, the loop runs them and hands the results
//! back, until the model answers. A stand-in model plays the provider here, and the tools are
//! an in-process tool set; with a real provider the model sends `messages` and `tools` to its
//! API (in the formats of `mcpgen::client::formats`), and the tools come from a `Registry` of
//! MCP servers (`tool-loop --servers` asks the servers of the configuration file).

use mcpgen::client::{
    Llm, LlmError, LlmTurn, LoopOptions, McpConfig, Message, Registry, ToolCall, ToolDefinition,
    run_tool_loop,
};
use mcpgen::prelude::*;
use mcpgen::{BoxFuture, LocalConnection, ToolSet};
use serde_json::json;

// ANCHOR: tools
/// Today's weather in a city.
#[mcp_tool(read_only)]
fn weather(
    /// The city's name.
    city: String,
) -> String {
    format!("sunny and 21 °C in {city}")
}
// ANCHOR_END: tools

// ANCHOR: model
/// A stand-in for a provider: asks for the weather in Lisbon once, then answers with what the
/// tool said.
struct StandInModel;

impl Llm for StandInModel {
    fn respond<'a>(
        &'a self,
        messages: &'a [Message],
        tools: &'a [ToolDefinition],
    ) -> BoxFuture<'a, Result<LlmTurn, LlmError>> {
        Box::pin(async move {
            if let Some(Message::Tool { content, .. }) = messages.last() {
                return Ok(LlmTurn::Final(format!("Today it is {content}.")));
            }
            let weather = tools
                .iter()
                .find(|tool| tool.name == "weather")
                .ok_or_else(|| LlmError("no weather tool on offer".into()))?;
            Ok(LlmTurn::ToolCalls {
                text: None,
                calls: vec![ToolCall {
                    id: "call-1".into(),
                    name: weather.name.clone(),
                    arguments: json!({"city": "Lisbon"}),
                }],
            })
        })
    }
}
// ANCHOR_END: model

// ANCHOR: loop
/// Runs the loop for one question and returns the model's answer.
async fn ask(question: &str) -> Result<String, Box<dyn std::error::Error>> {
    let tools = tool_set![weather];
    let mut definitions = Vec::new();
    for def in tools.tools() {
        definitions.push(ToolDefinition {
            name: def.name.to_owned(),
            description: def.description.to_owned(),
            input_schema: serde_json::from_str(def.input_schema)?,
        });
    }
    let outcome = run_tool_loop(
        &StandInModel,
        &LocalConnection(tools),
        &definitions,
        vec![Message::User(question.into())],
        &LoopOptions::default(),
    )
    .await?;
    Ok(outcome.answer)
}
// ANCHOR_END: loop

// ANCHOR: registry
/// Runs the loop over the tools of every MCP server in the configuration file
/// (`MCPGEN_MCP_CONFIG`, else `~/.config/mcpgen/mcp_servers.json`).
async fn ask_servers(llm: &impl Llm, question: &str) -> Result<String, Box<dyn std::error::Error>> {
    let registry = Registry::connect(&McpConfig::discover()?).await;
    for failure in registry.failures() {
        eprintln!("left out: {failure}");
    }
    let tools = registry.definitions().await;
    let outcome = run_tool_loop(
        llm, // your `impl Llm` for OpenAI, Anthropic, ...
        &registry,
        &tools,
        vec![Message::User(question.into())],
        &LoopOptions::default(),
    )
    .await;
    registry.shutdown().await.ok();
    Ok(outcome?.answer)
}
// ANCHOR_END: registry

#[mcpgen::tokio::main(crate = "mcpgen::tokio")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let question = "What is the weather in Lisbon?";
    let answer = if std::env::args().any(|arg| arg == "--servers") {
        ask_servers(&StandInModel, question).await?
    } else {
        ask(question).await?
    };
    println!("{answer}");
    Ok(())
}

#[cfg(test)]
mod tests {
    #[mcpgen::tokio::test(crate = "mcpgen::tokio")]
    async fn the_model_answers_with_what_the_tool_returned() {
        let answer = super::ask("What is the weather in Lisbon?")
            .await
            .expect("the loop ends with an answer");
        assert_eq!(answer, "Today it is sunny and 21 °C in Lisbon.");
    }
}
