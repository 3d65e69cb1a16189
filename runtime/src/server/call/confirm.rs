//! Confirmation of tools that need the person's consent before each call
//! ([`ToolDef::confirm`]): the pipeline asks through elicitation (`elicitation/create` in a
//! session; an `input_required` result in the stateless 2026-07-28 era) showing the tool, its
//! operation and the arguments, and runs the tool only on an explicit accept.
//!
//! Decline, cancel, an accept that does not say yes, or a client that cannot ask (unless the
//! server runs with [`Unconfirmable::Proceed`]) end the call with an error result saying it
//! was not confirmed, audited as `not_confirmed`; the tool does not run, so nothing reaches the
//! upstream.

use mcpgen_core::result::ToolResult;
use mcpgen_core::tool::ToolDef;
use serde_json::{Map, Value, json};

use crate::server::config::Unconfirmable;
use crate::server::state::inner::Inner;
use mcpgen_contract::input::{self, ClientCapability, ElicitAnswer, Elicitation, InputError};
use mcpgen_contract::toolset::CallContext;

/// The key of the confirmation question; tools' own questions use other keys.
const KEY: &str = "mcpgen_confirm";

/// Longest rendering of the arguments shown in the question, in characters.
const MAX_SHOWN_ARGUMENTS: usize = 2_000;

/// How the confirmation of one call ended.
pub(crate) enum Confirmation {
    /// The person accepted (or the server lets unconfirmable calls proceed): run the tool.
    Confirmed,
    /// The call is not made; this error result answers it.
    Refused(ToolResult),
    /// Stateless call: the question (or a refusal of the client's answer) is pending in the
    /// call's input channel; the pipeline answers with it.
    Pending,
}

/// Asks the person to confirm calling `def` with `args`.
pub(crate) async fn confirm(
    inner: &Inner,
    ctx: &CallContext,
    def: &ToolDef,
    args: &Map<String, Value>,
) -> Confirmation {
    let name = def.name;
    if !input::client_supports(&ctx.input, ClientCapability::Elicitation) {
        return match inner.unconfirmable {
            Unconfirmable::Proceed => {
                tracing::warn!(
                    tool = name,
                    "calling without confirmation: the client cannot ask (server runs with --unconfirmable-calls proceed)"
                );
                Confirmation::Confirmed
            }
            Unconfirmable::Refuse => Confirmation::Refused(ToolResult::error(format!(
                "tool `{name}` was not called: not confirmed. It needs the person's \
                 confirmation before each call, and this client cannot ask for it (it does \
                 not offer the elicitation capability)"
            ))),
        };
    }
    let question = Elicitation::new(message(def, args), schema());
    match input::elicit(&ctx.input, KEY, &question).await {
        Ok(ElicitAnswer::Accept(content)) if content.get("confirm") == Some(&Value::Bool(true)) => {
            Confirmation::Confirmed
        }
        Ok(ElicitAnswer::Accept(_)) => refused(name, "the person did not say yes"),
        Ok(ElicitAnswer::Decline) => refused(name, "the person declined"),
        Ok(ElicitAnswer::Cancel) => refused(name, "the person cancelled"),
        Err(InputError::InputRequired { .. }) => Confirmation::Pending,
        Err(error) => {
            if ctx.input.is_stateless() {
                // An answer the server cannot use is refused by the pipeline with the reason.
                Confirmation::Pending
            } else {
                refused(name, &error.to_string())
            }
        }
    }
}

fn refused(name: &str, why: &str) -> Confirmation {
    Confirmation::Refused(ToolResult::error(format!(
        "tool `{name}` was not called: not confirmed ({why}); nothing was sent"
    )))
}

/// What the person is shown: the tool, the operation it performs and the arguments.
fn message(def: &ToolDef, args: &Map<String, Value>) -> String {
    let mut text = format!("Confirm this call before it is made.\n\nTool: {}", def.name);
    if let Some(title) = def.title {
        text.push_str(&format!(" ({title})"));
    }
    if let Some(http) = &def.http {
        text.push_str(&format!(
            "\nOperation: {} {} ({})",
            http.method, http.path, http.operation_id
        ));
    }
    let mut shown = Value::Object(args.clone()).to_string();
    if shown.chars().count() > MAX_SHOWN_ARGUMENTS {
        shown = shown.chars().take(MAX_SHOWN_ARGUMENTS).collect();
        shown.push_str("… (cut)");
    }
    text.push_str(&format!("\nArguments: {shown}"));
    text
}

/// One required yes/no field.
fn schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "confirm": {
                "type": "boolean",
                "title": "Make this call",
                "description": "Yes to make the call; no, decline or cancel to leave it undone",
            }
        },
        "required": ["confirm"],
    })
}

#[cfg(test)]
mod tests {
    use mcpgen_core::tool::{Access, HttpBinding, ToolAnnotations};

    use super::*;

    const DELETE: ToolDef = ToolDef {
        name: "remove_book",
        title: Some("Remove a book"),
        description: "Removes a book",
        input_schema: "{}",
        output_schema: None,
        full_input_schema: None,
        full_output_schema: None,
        full_defs: None,
        documented_output_schema: None,
        wrap_output: false,
        access: Access::Write,
        annotations: ToolAnnotations {
            read_only_hint: Some(false),
            destructive_hint: Some(true),
            idempotent_hint: None,
            open_world_hint: None,
        },
        confirm: true,
        required_scope: None,
        plugin: None,
        http: Some(HttpBinding {
            method: "DELETE",
            path: "/books/{bookId}",
            operation_id: "removeBook",
            args: &[],
            body: None,
            security: &[],
            server_url: None,
            task: false,
            cancel: &[],
        }),
        declaration: None,
        view: None,
    };

    #[test]
    fn the_question_shows_the_tool_the_operation_and_the_arguments() {
        let Value::Object(args) = json!({"bookId": 42, "reason": "damaged"}) else {
            unreachable!()
        };
        let text = message(&DELETE, &args);
        for shown in [
            "remove_book",
            "Remove a book",
            "DELETE /books/{bookId}",
            "removeBook",
            "\"bookId\":42",
            "damaged",
        ] {
            assert!(text.contains(shown), "{shown} in {text}");
        }
    }

    #[test]
    fn long_arguments_are_cut() {
        let Value::Object(args) = json!({"text": "x".repeat(10_000)}) else {
            unreachable!()
        };
        let text = message(&DELETE, &args);
        assert!(text.ends_with("… (cut)"), "{text}");
        assert!(text.chars().count() < MAX_SHOWN_ARGUMENTS + 200);
    }

    #[test]
    fn the_form_is_one_required_boolean() {
        let schema = schema();
        assert_eq!(schema["required"], json!(["confirm"]));
        assert_eq!(schema["properties"]["confirm"]["type"], "boolean");
    }
}
