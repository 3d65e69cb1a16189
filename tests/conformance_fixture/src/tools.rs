//! The tools of the suite's tool scenarios, named and answering as the scenarios expect.

use std::time::Duration;

use mcpgen::notify::LogLevel;
use mcpgen::schemars::JsonSchema;
use mcpgen::{AppToolSet, Content, ToolContext, ToolResult};
use mcpgen::{mcp_tool, tool_set};
use serde::Deserialize;

use crate::resources::RED_PIXEL_PNG;

/// Eight samples of silence: 8 kHz, mono, 8-bit PCM WAV.
const SILENT_WAV: &str = "UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQgAAACAgICAgICAgA==";

/// The pause between the notifications a tool sends, so they arrive while it still runs.
const STEP: Duration = Duration::from_millis(50);

/// Every fixture tool.
pub fn all() -> AppToolSet<()> {
    tool_set![
        test_simple_text,
        test_image_content,
        test_audio_content,
        test_embedded_resource,
        test_multiple_content_types,
        test_tool_with_logging,
        test_error_handling,
        test_tool_with_progress,
        test_logging_tool,
        json_schema_2020_12_tool,
        crate::headers::test_custom_headers,
        crate::headers::test_custom_headers_null,
        crate::asking::test_elicitation,
        crate::asking::test_sampling,
        crate::asking::test_elicitation_sep1034_defaults,
        crate::asking::test_elicitation_sep1330_enums,
        crate::asking::test_input_required_result_elicitation,
        crate::asking::test_input_required_result_sampling,
        crate::asking::test_input_required_result_list_roots,
        crate::asking::test_input_required_result_request_state,
        crate::asking::test_input_required_result_tampered_state,
        crate::asking::test_input_required_result_multiple_inputs,
        crate::asking::test_input_required_result_multi_round,
        crate::asking::test_input_required_result_capabilities,
        crate::asking::test_missing_capability,
        crate::asking::test_streaming_elicitation,
        crate::tasks::greet,
        crate::tasks::slow_compute,
        crate::tasks::failing_job,
        crate::tasks::protocol_error_job,
        crate::tasks::confirm_delete,
        crate::tasks::multi_input,
        crate::tasks::test_tool_with_task,
    ]
}

fn red_pixel() -> Content {
    Content::Image {
        data: RED_PIXEL_PNG.to_owned(),
        mime_type: "image/png".to_owned(),
    }
}

/// Returns one text block.
#[mcp_tool(read_only)]
fn test_simple_text() -> ToolResult {
    ToolResult::text("This is a simple text response for testing.")
}

/// Returns one image block: a 1×1 red PNG.
#[mcp_tool(read_only)]
fn test_image_content() -> ToolResult {
    ToolResult::content(vec![red_pixel()])
}

/// Returns one audio block: a short silent WAV.
#[mcp_tool(read_only)]
fn test_audio_content() -> ToolResult {
    ToolResult::content(vec![Content::Audio {
        data: SILENT_WAV.to_owned(),
        mime_type: "audio/wav".to_owned(),
    }])
}

/// Returns one embedded text resource.
#[mcp_tool(read_only)]
fn test_embedded_resource() -> ToolResult {
    ToolResult::content(vec![Content::TextResource {
        uri: "test://embedded-resource".to_owned(),
        mime_type: "text/plain".to_owned(),
        text: "This is an embedded resource content.".to_owned(),
    }])
}

/// Returns a text, an image and an embedded JSON resource.
#[mcp_tool(read_only)]
fn test_multiple_content_types() -> ToolResult {
    ToolResult::content(vec![
        Content::Text("Multiple content types test:".to_owned()),
        red_pixel(),
        Content::TextResource {
            uri: "test://mixed-content-resource".to_owned(),
            mime_type: "application/json".to_owned(),
            text: r#"{"test":"data","value":123}"#.to_owned(),
        },
    ])
}

/// Sends three info-level log messages while it runs, then says it is done.
#[mcp_tool(read_only)]
async fn test_tool_with_logging(ctx: &ToolContext) -> Result<String, String> {
    let messages = [
        "Tool execution started",
        "Tool processing data",
        "Tool execution completed",
    ];
    for (i, message) in messages.into_iter().enumerate() {
        if i > 0 {
            tokio::time::sleep(STEP).await;
        }
        ctx.log(LogLevel::Info, message)
            .await
            .map_err(|e| format!("log message {i} not sent: {e}"))?;
    }
    Ok("Tool with logging executed successfully".to_owned())
}

/// Always fails, with an `isError` result.
#[mcp_tool(read_only)]
fn test_error_handling() -> Result<String, String> {
    Err("This tool intentionally returns an error for testing".to_owned())
}

/// Reports progress 0, 50 and 100 of 100 (when the request asked for progress), then says it
/// is done.
#[mcp_tool(read_only)]
async fn test_tool_with_progress(ctx: &ToolContext) -> Result<String, String> {
    for (i, done) in [0.0, 50.0, 100.0].into_iter().enumerate() {
        if i > 0 {
            tokio::time::sleep(STEP).await;
        }
        ctx.progress(done, Some(100.0), None)
            .await
            .map_err(|e| format!("progress {done} not sent: {e}"))?;
    }
    Ok("Tool with progress executed successfully".to_owned())
}

/// Sends one info-level log message, then says it is done. The stateless-server scenario
/// (2026-07-28) calls it without `_meta.logLevel` and checks that the message is not sent.
#[mcp_tool(read_only)]
async fn test_logging_tool(ctx: &ToolContext) -> Result<String, String> {
    let sent = ctx
        .log(LogLevel::Info, "test_logging_tool ran")
        .await
        .map_err(|e| format!("log message not sent: {e}"))?;
    Ok(format!("logged: {sent}"))
}

/// A postal address, shared through `$defs` in the tool's input schema, where `$anchor` names
/// it too.
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(
    crate = "mcpgen::schemars",
    rename = "address",
    extend("$anchor" = "addressDef")
)]
struct Address {
    street: Option<String>,
    city: Option<String>,
}

/// How to reach the person: by phone or by email.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[schemars(crate = "mcpgen::schemars", inline)]
enum ContactMethod {
    Phone,
    Email,
}

// The input schema names its dialect (`$schema`), keeps the address in `$defs`, is closed
// (`additionalProperties: false`) and adds composition and conditional keywords at its root.
/// Tool with JSON Schema 2020-12 features
#[mcp_tool(read_only, deny_unknown_arguments)]
#[schemars(extend(
    "allOf" = [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
    "if" = {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
    "then" = {"required": ["phone"]},
    "else" = {"required": ["email"]}
))]
fn json_schema_2020_12_tool(
    name: Option<String>,
    address: Option<Address>,
    #[serde(rename = "contactMethod")] contact_method: Option<ContactMethod>,
    phone: Option<String>,
    email: Option<String>,
) -> ToolResult {
    let city = address.and_then(|a| a.city.or(a.street));
    let contact = match contact_method {
        Some(ContactMethod::Phone) => phone,
        Some(ContactMethod::Email) | None => email.or(phone),
    };
    ToolResult::text(format!(
        "name: {}, city: {}, contact: {}",
        name.as_deref().unwrap_or("-"),
        city.as_deref().unwrap_or("-"),
        contact.as_deref().unwrap_or("-")
    ))
}
