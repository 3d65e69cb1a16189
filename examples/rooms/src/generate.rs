//! Drafting a room tool with a language model. This is an ordinary function, deliberately not
//! an MCP tool: a model calling a tool that calls a model is a loop to keep out of the
//! catalog. Review the draft, then add it with `add_tool`.

use crate::model::{RoomTool, valid_name};

/// Why a draft could not be made.
#[derive(Debug, thiserror::Error)]
pub enum GenerateError {
    /// The model could not be asked.
    #[error("the model could not be asked: {0}")]
    Model(String),
    /// The model's answer is not a tool definition.
    #[error("the model's answer is not a tool definition ({reason}): {answer}")]
    Unusable {
        /// What is wrong with it.
        reason: String,
        /// The answer, as received.
        answer: String,
    },
}

/// Asks a model (through `complete`, which sends a prompt and returns the model's text) for a
/// tool that does what `request` describes, answered as YAML with `name`, `description` and
/// optionally `command`.
pub async fn generate_tool<F, Fut, E>(complete: F, request: &str) -> Result<RoomTool, GenerateError>
where
    F: FnOnce(String) -> Fut,
    Fut: std::future::Future<Output = Result<String, E>>,
    E: std::fmt::Display,
{
    let prompt = format!(
        "Define one tool for this request: {request}\n\
         Answer with YAML only, with the keys `name` (1 to 64 ASCII letters, digits, `_` or \
         `-`), `description` (one sentence) and optionally `command`."
    );
    let answer = complete(prompt)
        .await
        .map_err(|e| GenerateError::Model(e.to_string()))?;
    let yaml = answer
        .trim()
        .trim_start_matches("```yaml")
        .trim_start_matches("```")
        .trim_end_matches("```");
    let tool: RoomTool = serde_saphyr::from_str(yaml).map_err(|e| GenerateError::Unusable {
        reason: e.to_string(),
        answer: answer.clone(),
    })?;
    if !valid_name(&tool.name) {
        return Err(GenerateError::Unusable {
            reason: format!("`{}` is not a valid tool name", tool.name),
            answer,
        });
    }
    Ok(tool)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_yaml_answer_becomes_a_tool() {
        let tool = generate_tool(
            |prompt: String| async move {
                assert!(prompt.contains("look up orders"));
                Ok::<_, String>(
                    "```yaml\nname: lookup_order\ndescription: Finds an order\n```".to_owned(),
                )
            },
            "look up orders",
        )
        .await
        .expect("a tool");
        assert_eq!(tool.name, "lookup_order");
        assert_eq!(tool.command, None);
    }
}
