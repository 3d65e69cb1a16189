//! Serving a [`PromptSet`]: `prompts/list`, `prompts/get`, and `completion/complete` for
//! prompt arguments.

use std::collections::{BTreeMap, HashMap};

use mcpgen_core::json_kind;
use rmcp::ErrorData;
use rmcp::model::{
    ArgumentInfo, CacheScope, CompleteResult, CompletionContext, GetPromptResult, JsonObject,
    ListPromptsResult,
};

use crate::server::error::ConfigProblem;
use mcpgen_contract::app::ToolContext;
use mcpgen_contract::completion::{self, Completer};
use mcpgen_contract::prompt::{Prompt, PromptArgs, PromptError, PromptMessage, PromptSet, Role};
use mcpgen_contract::toolset::CallContext;

/// How long a client may cache a `prompts/list` answer: the list is fixed at start-up.
const LIST_TTL_MS: u64 = 60_000;

/// The prompts of one server, checked and indexed.
#[derive(Default)]
pub(crate) struct Prompts {
    prompts: Vec<Prompt>,
    by_name: HashMap<String, usize>,
    /// The `prompts/list` entries, made once.
    listed: Vec<rmcp::model::Prompt>,
}

impl Prompts {
    /// Checks `set` (names present and unique, argument names unique per prompt), adding what
    /// is wrong to `problems`.
    pub(crate) fn build(set: PromptSet, problems: &mut Vec<ConfigProblem>) -> Self {
        let mut by_name = HashMap::new();
        for (index, prompt) in set.prompts.iter().enumerate() {
            let problem = |reason: String| ConfigProblem::InvalidPrompt {
                prompt: prompt.name.clone(),
                reason,
            };
            if prompt.name.is_empty() {
                problems.push(problem(format!(
                    "prompt #{} (counted from 1) has an empty name",
                    index + 1
                )));
            } else if by_name.contains_key(&prompt.name) {
                problems.push(problem(
                    "the name is used twice; prompt names must be unique".to_owned(),
                ));
            } else {
                by_name.insert(prompt.name.clone(), index);
            }
            let mut seen: Vec<&str> = Vec::new();
            for argument in &prompt.arguments {
                if argument.name.is_empty() {
                    problems.push(problem("an argument has an empty name".to_owned()));
                } else if seen.contains(&argument.name.as_str()) {
                    problems.push(problem(format!(
                        "argument `{}` is declared twice",
                        argument.name
                    )));
                }
                seen.push(&argument.name);
            }
        }
        let listed = set.prompts.iter().map(listed).collect();
        Self {
            prompts: set.prompts,
            by_name,
            listed,
        }
    }

    /// Whether some argument has a completer.
    pub(crate) fn has_completions(&self) -> bool {
        self.prompts
            .iter()
            .any(|p| p.arguments.iter().any(|a| a.completer.is_some()))
    }

    /// The `prompts/list` answer.
    pub(crate) fn list(&self) -> ListPromptsResult {
        ListPromptsResult::with_all_items(self.listed.clone())
            .with_ttl_ms(LIST_TTL_MS)
            .with_cache_scope(CacheScope::Private)
    }

    fn find(&self, name: &str) -> Result<&Prompt, ErrorData> {
        self.by_name
            .get(name)
            .and_then(|&index| self.prompts.get(index))
            .ok_or_else(|| {
                let known: Vec<&str> = self.prompts.iter().map(|p| p.name.as_str()).collect();
                ErrorData::invalid_params(
                    format!(
                        "prompt `{name}` not found; prompts: {}",
                        if known.is_empty() {
                            "none".to_owned()
                        } else {
                            known.join(", ")
                        }
                    ),
                    Some(serde_json::json!({ "name": name })),
                )
            })
    }

    /// `prompts/get`: checks the arguments against the prompt's, then fills it in with the
    /// request's context `call`.
    pub(crate) async fn get(
        &self,
        name: &str,
        arguments: Option<JsonObject>,
        call: &CallContext,
    ) -> Result<GetPromptResult, ErrorData> {
        let prompt = self.find(name)?;
        let args = check_arguments(prompt, arguments.unwrap_or_default())?;
        let context = ToolContext::from_call(call);
        let messages = (prompt.handler)(args, context).await.map_err(|e| match e {
            PromptError::InvalidArguments(message) => {
                ErrorData::invalid_params(format!("prompt `{name}`: {message}"), None)
            }
            // `Failed`, and any kind added later: its text is the message.
            failed => ErrorData::internal_error(format!("prompt `{name}` failed: {failed}"), None),
        })?;
        let result = GetPromptResult::new(messages.into_iter().map(message_to_wire).collect());
        Ok(match &prompt.description {
            Some(description) => result.with_description(description.clone()),
            None => result,
        })
    }

    /// `completion/complete` for argument `argument.name` of prompt `name`.
    pub(crate) async fn complete(
        &self,
        name: &str,
        argument: &ArgumentInfo,
        context: Option<&CompletionContext>,
    ) -> Result<CompleteResult, ErrorData> {
        let prompt = self.find(name)?;
        let declared = prompt
            .arguments
            .iter()
            .find(|a| a.name == argument.name)
            .ok_or_else(|| {
                ErrorData::invalid_params(
                    format!(
                        "prompt `{name}` has no argument `{}`; its arguments: {}",
                        argument.name,
                        argument_names(prompt)
                    ),
                    None,
                )
            })?;
        let completion = match &declared.completer {
            Some(completer) => Some(run(completer, argument, context).await),
            None => None,
        };
        Ok(completion::result_to_wire(completion))
    }
}

async fn run(
    completer: &Completer,
    argument: &ArgumentInfo,
    context: Option<&CompletionContext>,
) -> completion::Completion {
    completer
        .complete(completion::request_from_wire(argument, context))
        .await
}

fn argument_names(prompt: &Prompt) -> String {
    if prompt.arguments.is_empty() {
        return "none".to_owned();
    }
    prompt
        .arguments
        .iter()
        .map(|a| a.name.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The arguments of a `prompts/get` request as the handler gets them: every one declared and
/// a string, every required one present. All problems are reported together.
fn check_arguments(prompt: &Prompt, arguments: JsonObject) -> Result<PromptArgs, ErrorData> {
    let mut problems = Vec::new();
    let mut values = BTreeMap::new();
    for (key, value) in arguments {
        if !prompt.arguments.iter().any(|a| a.name == key) {
            problems.push(format!(
                "it has no argument `{key}` (its arguments: {})",
                argument_names(prompt)
            ));
            continue;
        }
        match value {
            serde_json::Value::String(text) => {
                values.insert(key, text);
            }
            other => problems.push(format!(
                "argument `{key}` must be a string, got {}",
                json_kind(&other)
            )),
        }
    }
    for argument in &prompt.arguments {
        if argument.required && !values.contains_key(&argument.name) {
            problems.push(format!("required argument `{}` is missing", argument.name));
        }
    }
    if problems.is_empty() {
        Ok(PromptArgs::new(values))
    } else {
        Err(ErrorData::invalid_params(
            format!("prompt `{}`: {}", prompt.name, problems.join("; ")),
            None,
        ))
    }
}

fn listed(prompt: &Prompt) -> rmcp::model::Prompt {
    let arguments = prompt
        .arguments
        .iter()
        .map(|argument| {
            let mut listed =
                rmcp::model::PromptArgument::new(&argument.name).with_required(argument.required);
            if let Some(title) = &argument.title {
                listed = listed.with_title(title);
            }
            if let Some(description) = &argument.description {
                listed = listed.with_description(description);
            }
            listed
        })
        .collect::<Vec<_>>();
    let mut entry = rmcp::model::Prompt::new(
        &prompt.name,
        prompt.description.as_deref(),
        (!arguments.is_empty()).then_some(arguments),
    );
    if let Some(title) = &prompt.title {
        entry = entry.with_title(title);
    }
    entry
}

fn message_to_wire(message: PromptMessage) -> rmcp::model::PromptMessage {
    let role = match message.role {
        Role::User => rmcp::model::Role::User,
        Role::Assistant => rmcp::model::Role::Assistant,
    };
    rmcp::model::PromptMessage::new(role, mcpgen_contract::wire::content_block(message.content))
}
