//! The tools (and the prompt) of the scenarios where a tool asks the client: elicitation and
//! sampling over a session (revisions up to 2025-11-25), and input-required results in
//! stateless calls (2026-07-28), where the same tools answer `input_required` until the client
//! repeats the call with the answers.

use mcpgen::input::{
    ClientCapability, ElicitAnswer, Elicitation, InputError, Sampling, SamplingAnswer,
};
use mcpgen::mcp_tool;
use mcpgen::{Prompt, PromptMessage, ToolContext, ToolResult};
use serde_json::{Value, json};

/// A form asking for one string property `name`, required.
fn one_string(property: &str) -> Value {
    json!({
        "type": "object",
        "properties": { property: { "type": "string" } },
        "required": [property]
    })
}

/// `action=<action>, content=<content as JSON>`.
fn describe(answer: &ElicitAnswer) -> String {
    let content = answer
        .accepted()
        .map_or_else(|| "{}".to_owned(), |c| Value::Object(c.clone()).to_string());
    format!("action={}, content={content}", answer.action())
}

/// The string property `name` of an accepted form, or `fallback`.
fn field<'a>(answer: &'a ElicitAnswer, name: &str, fallback: &'a str) -> &'a str {
    answer
        .accepted()
        .and_then(|c| c.get(name))
        .and_then(Value::as_str)
        .unwrap_or(fallback)
}

/// Asks the user for a username and an email address, with the given message.
#[mcp_tool(read_only)]
pub(crate) async fn test_elicitation(
    ctx: &ToolContext,
    /// The message to show the user
    message: String,
) -> Result<ToolResult, InputError> {
    let schema = json!({
        "type": "object",
        "properties": {
            "username": { "type": "string", "description": "User's response" },
            "email": { "type": "string", "description": "User's email address" }
        },
        "required": ["username", "email"]
    });
    let answer = ctx
        .elicit("user_response", Elicitation::new(message, schema))
        .await?;
    Ok(ToolResult::text(format!(
        "User response: {}",
        describe(&answer)
    )))
}

/// Asks the client's model to answer the given prompt.
#[mcp_tool(read_only)]
pub(crate) async fn test_sampling(
    ctx: &ToolContext,
    /// The prompt to send
    prompt: String,
) -> Result<ToolResult, InputError> {
    let answer = ctx
        .sample("llm_response", Sampling::user(prompt, 100))
        .await?;
    Ok(ToolResult::text(format!("LLM response: {}", answer.text())))
}

/// Asks for a form whose properties all have defaults (SEP-1034).
#[mcp_tool(read_only)]
pub(crate) async fn test_elicitation_sep1034_defaults(
    ctx: &ToolContext,
) -> Result<ToolResult, InputError> {
    let schema = json!({
        "type": "object",
        "properties": {
            "name": { "type": "string", "default": "John Doe" },
            "age": { "type": "integer", "default": 30 },
            "score": { "type": "number", "default": 95.5 },
            "status": {
                "type": "string",
                "enum": ["active", "inactive", "pending"],
                "default": "active"
            },
            "verified": { "type": "boolean", "default": true }
        }
    });
    let answer = ctx
        .elicit(
            "defaults",
            Elicitation::new(
                "Please review and update the form fields with defaults",
                schema,
            ),
        )
        .await?;
    Ok(ToolResult::text(format!(
        "Elicitation completed: {}",
        describe(&answer)
    )))
}

/// Asks for a form with every kind of enumeration (SEP-1330).
#[mcp_tool(read_only)]
pub(crate) async fn test_elicitation_sep1330_enums(
    ctx: &ToolContext,
) -> Result<ToolResult, InputError> {
    let schema = json!({
        "type": "object",
        "properties": {
            "untitledSingle": {
                "type": "string",
                "enum": ["option1", "option2", "option3"]
            },
            "titledSingle": {
                "type": "string",
                "oneOf": [
                    { "const": "value1", "title": "First Option" },
                    { "const": "value2", "title": "Second Option" },
                    { "const": "value3", "title": "Third Option" }
                ]
            },
            "legacyEnum": {
                "type": "string",
                "enum": ["opt1", "opt2", "opt3"],
                "enumNames": ["Option One", "Option Two", "Option Three"]
            },
            "untitledMulti": {
                "type": "array",
                "items": { "type": "string", "enum": ["option1", "option2", "option3"] }
            },
            "titledMulti": {
                "type": "array",
                "items": {
                    "anyOf": [
                        { "const": "value1", "title": "First Choice" },
                        { "const": "value2", "title": "Second Choice" },
                        { "const": "value3", "title": "Third Choice" }
                    ]
                }
            }
        }
    });
    let answer = ctx
        .elicit(
            "enums",
            Elicitation::new("Please select options from the enum fields", schema),
        )
        .await?;
    Ok(ToolResult::text(format!(
        "Elicitation completed: {}",
        describe(&answer)
    )))
}

/// Asks the user's name, then greets them.
#[mcp_tool(read_only)]
pub(crate) async fn test_input_required_result_elicitation(
    ctx: &ToolContext,
) -> Result<ToolResult, InputError> {
    greet(ctx).await
}

/// Asks the client's model for the capital of France.
#[mcp_tool(read_only)]
pub(crate) async fn test_input_required_result_sampling(
    ctx: &ToolContext,
) -> Result<ToolResult, InputError> {
    let answer = ctx
        .sample(
            "capital_question",
            Sampling::user("What is the capital of France?", 100),
        )
        .await?;
    Ok(ToolResult::text(format!(
        "Sampling response: {}",
        answer.text()
    )))
}

/// Asks the client for its roots.
#[mcp_tool(read_only)]
pub(crate) async fn test_input_required_result_list_roots(
    ctx: &ToolContext,
) -> Result<ToolResult, InputError> {
    let roots = ctx.list_roots("client_roots").await?;
    let listed: Vec<String> = roots
        .iter()
        .map(|root| match &root.name {
            Some(name) => format!("{} ({name})", root.uri),
            None => root.uri.clone(),
        })
        .collect();
    Ok(ToolResult::text(format!(
        "Client roots: {}",
        listed.join(", ")
    )))
}

/// Asks for a confirmation; the answer comes back with the sealed request state, which the
/// server verifies before the tool runs again.
#[mcp_tool(read_only)]
pub(crate) async fn test_input_required_result_request_state(
    ctx: &ToolContext,
) -> Result<ToolResult, InputError> {
    confirmed(ctx).await
}

/// Like `test_input_required_result_request_state`; a state changed by the client is refused.
#[mcp_tool(read_only)]
pub(crate) async fn test_input_required_result_tampered_state(
    ctx: &ToolContext,
) -> Result<ToolResult, InputError> {
    confirmed(ctx).await
}

async fn confirmed(ctx: &ToolContext) -> Result<ToolResult, InputError> {
    let schema = json!({
        "type": "object",
        "properties": { "ok": { "type": "boolean" } },
        "required": ["ok"]
    });
    let answer = ctx
        .elicit("confirm", Elicitation::new("Please confirm", schema))
        .await?;
    let ok = answer
        .accepted()
        .and_then(|c| c.get("ok"))
        .and_then(Value::as_bool)
        .unwrap_or(false);
    Ok(ToolResult::text(format!("state-ok: confirmed={ok}")))
}

/// Asks three questions in one round: the user's name, a greeting from the model and the
/// client's roots.
#[mcp_tool(read_only)]
pub(crate) async fn test_input_required_result_multiple_inputs(
    ctx: &ToolContext,
) -> Result<ToolResult, InputError> {
    let name = ask_name(ctx).await;
    let greeting = ask_greeting(ctx).await;
    let roots = ctx.list_roots("client_roots").await;
    let (name, greeting, roots) = (name?, greeting?, roots?);
    Ok(ToolResult::text(format!(
        "{} {} ({} roots)",
        greeting.text(),
        field(&name, "name", "stranger"),
        roots.len()
    )))
}

/// Asks in two rounds: the name first, then the favourite colour.
#[mcp_tool(read_only)]
pub(crate) async fn test_input_required_result_multi_round(
    ctx: &ToolContext,
) -> Result<ToolResult, InputError> {
    let name = ctx
        .elicit(
            "step1",
            Elicitation::new("Step 1: What is your name?", one_string("name")),
        )
        .await?;
    let color = ctx
        .elicit(
            "step2",
            Elicitation::new("Step 2: What is your favorite color?", one_string("color")),
        )
        .await?;
    Ok(ToolResult::text(format!(
        "Multi-round flow complete: {} likes {}",
        field(&name, "name", "someone"),
        field(&color, "color", "no colour")
    )))
}

/// Asks only what the client declared it can answer.
#[mcp_tool(read_only)]
pub(crate) async fn test_input_required_result_capabilities(
    ctx: &ToolContext,
) -> Result<ToolResult, InputError> {
    let mut asked = Vec::new();
    if ctx.client_supports(ClientCapability::Elicitation) {
        let name = ask_name(ctx).await;
        asked.push(name.map(|a| describe(&a)));
    }
    if ctx.client_supports(ClientCapability::Sampling) {
        let greeting = ask_greeting(ctx).await;
        asked.push(greeting.map(|g| g.text()));
    }
    if ctx.client_supports(ClientCapability::Roots) {
        let roots = ctx.list_roots("client_roots").await;
        asked.push(roots.map(|r| format!("{} roots", r.len())));
    }
    let answers = asked.into_iter().collect::<Result<Vec<_>, _>>()?;
    if answers.is_empty() {
        return Ok(ToolResult::text(
            "The client declared nothing it can be asked",
        ));
    }
    Ok(ToolResult::text(format!(
        "Capability-aware flow complete: {}",
        answers.join("; ")
    )))
}

/// Needs the client's `sampling` capability; a stateless call from a client without it is
/// refused with the missing-capability error.
#[mcp_tool(read_only)]
pub(crate) async fn test_missing_capability(ctx: &ToolContext) -> Result<ToolResult, InputError> {
    let answer = ctx
        .sample("summary", Sampling::user("Summarize the conversation", 50))
        .await?;
    Ok(ToolResult::text(format!(
        "Sampling response: {}",
        answer.text()
    )))
}

/// Asks the user a question; in stateless calls the question travels in the `input_required`
/// result, never as a request of the server's own on the response stream.
#[mcp_tool(read_only)]
pub(crate) async fn test_streaming_elicitation(
    ctx: &ToolContext,
) -> Result<ToolResult, InputError> {
    greet(ctx).await
}

/// A prompt that asks the user what context to use before it can be filled in; in stateless
/// requests `prompts/get` is answered `input_required` until the client brings the answer.
pub(crate) fn test_input_required_result_prompt() -> Prompt {
    Prompt::with_context("test_input_required_result_prompt", |_, ctx| async move {
        let answer = ctx
            .elicit(
                "user_context",
                Elicitation::new("What context should the prompt use?", one_string("context")),
            )
            .await?;
        Ok(vec![PromptMessage::user_text(format!(
            "Use this context: {}",
            field(&answer, "context", "none")
        ))])
    })
    .description("A prompt that asks the user for its context first")
}

/// Asks the user's name (question `user_name`: one string field `name`).
async fn ask_name(ctx: &ToolContext) -> Result<ElicitAnswer, InputError> {
    ctx.elicit(
        "user_name",
        Elicitation::new("What is your name?", one_string("name")),
    )
    .await
}

/// Asks the client's model for a greeting (question `greeting`).
async fn ask_greeting(ctx: &ToolContext) -> Result<SamplingAnswer, InputError> {
    ctx.sample("greeting", Sampling::user("Generate a greeting", 50))
        .await
}

/// Asks the user's name and greets them.
async fn greet(ctx: &ToolContext) -> Result<ToolResult, InputError> {
    let answer = ask_name(ctx).await?;
    Ok(ToolResult::text(format!(
        "Hello, {}!",
        field(&answer, "name", "stranger")
    )))
}
