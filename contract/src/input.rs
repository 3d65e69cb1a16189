//! Asking the client during a call: a form for the user to fill in (elicitation), a message
//! from the client's model (sampling), or the client's roots.
//!
//! Tools ask through [`ToolContext`](crate::ToolContext) ([`elicit`](crate::ToolContext::elicit),
//! [`sample`](crate::ToolContext::sample), [`list_roots`](crate::ToolContext::list_roots)).
//! How the question reaches the client depends on the protocol revision of the call:
//!
//! - **Sessions** (revisions up to 2025-11-25: Streamable HTTP sessions, stdio, legacy SSE):
//!   the server sends the request to the client while the tool waits, and the tool gets the
//!   answer back.
//! - **Stateless calls** (2026-07-28): the server may not send requests of its own. The first
//!   time the tool asks, the question is recorded and the ask fails with
//!   [`InputError::InputRequired`]; the tool returns that error (`?`), and the server answers
//!   the call with `resultType: "input_required"`, the recorded questions and a sealed
//!   `requestState`. The client asks its user or model and calls the tool again with the
//!   answers; this time the same ask returns the answer. Answers of earlier rounds travel in
//!   the sealed state, so a tool may ask in several rounds; a state that was altered is
//!   refused.
//!
//! Every question has a key, unique within the call (`"user_name"`, `"confirm"`): it is how
//! the client's answer finds its question in stateless calls. To ask several questions in
//! one round, ask them all before returning the first error:
//!
//! ```
//! use mcpgen_contract::ToolContext;
//! use mcpgen_contract::input::{Elicitation, InputError, Sampling};
//!
//! async fn greet(ctx: &ToolContext) -> Result<String, InputError> {
//!     let schema = serde_json::json!({
//!         "type": "object",
//!         "properties": { "name": { "type": "string" } },
//!         "required": ["name"]
//!     });
//!     let name = ctx.elicit("user_name", Elicitation::new("What is your name?", schema)).await;
//!     let greeting = ctx.sample("greeting", Sampling::user("Write a greeting", 50)).await;
//!     let (name, greeting) = (name?, greeting?);
//!     let name = name.accepted().and_then(|c| c.get("name")).and_then(|v| v.as_str());
//!     Ok(format!("{}, {}", greeting.text(), name.unwrap_or("stranger")))
//! }
//! ```
//!
//! A tool must be deterministic up to its questions: it runs again from the start on every
//! round, so it should not change anything before it has all its answers.

// Sampling and roots are deprecated by SEP-2577 but remain part of every revision served.
#![allow(deprecated)]

use std::collections::BTreeMap;
use std::sync::Arc;

use mcpgen_core::result::Content;
use rmcp::RoleServer;
use rmcp::model::{
    ClientCapabilities, CreateMessageRequestParams, ElicitRequestParams, ElicitationSchema,
    InputRequest, ProtocolVersion, ServerRequest,
};
use rmcp::service::{Peer, RequestContext};
use serde_json::{Map, Value, json};

mod rounds;
mod task;

#[doc(hidden)]
pub use rounds::MIN_KEY_BYTES;
#[doc(hidden)]
pub use rounds::{InputRequired, Refusal, RequestStates, RoundEnd, Rounds, binding};
#[doc(hidden)]
pub use task::TaskAsking;

/// A client capability a question needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ClientCapability {
    /// `elicitation`: the client can show the user a form.
    Elicitation,
    /// `sampling`: the client can have its model write a message.
    Sampling,
    /// `roots`: the client can list its roots.
    Roots,
}

impl ClientCapability {
    /// The capability's name in `initialize` and `clientCapabilities`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Elicitation => "elicitation",
            Self::Sampling => "sampling",
            Self::Roots => "roots",
        }
    }

    fn declared_in(self, capabilities: Option<&ClientCapabilities>) -> bool {
        capabilities.is_some_and(|c| match self {
            Self::Elicitation => c.elicitation.is_some(),
            Self::Sampling => c.sampling.is_some(),
            Self::Roots => c.roots.is_some(),
        })
    }
}

impl std::fmt::Display for ClientCapability {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A form for the user to fill in (`elicitation/create`): a message and the JSON Schema of
/// the answer (an object of primitive-typed properties, as MCP allows).
#[derive(Debug, Clone, PartialEq)]
pub struct Elicitation {
    message: String,
    requested_schema: Value,
}

impl Elicitation {
    /// Asks `message`, expecting an object that fits `requested_schema`.
    pub fn new(message: impl Into<String>, requested_schema: Value) -> Self {
        Self {
            message: message.into(),
            requested_schema,
        }
    }

    /// The message shown to the user.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The schema of the expected answer.
    pub fn requested_schema(&self) -> &Value {
        &self.requested_schema
    }
}

/// What the user did with a form.
#[derive(Debug, Clone, PartialEq)]
pub enum ElicitAnswer {
    /// The user submitted the form, with this content.
    Accept(Map<String, Value>),
    /// The user explicitly refused to answer.
    Decline,
    /// The user dismissed the form without choosing.
    Cancel,
}

impl ElicitAnswer {
    /// The submitted content, if the user accepted.
    pub fn accepted(&self) -> Option<&Map<String, Value>> {
        match self {
            Self::Accept(content) => Some(content),
            Self::Decline | Self::Cancel => None,
        }
    }

    /// `accept`, `decline` or `cancel`.
    pub fn action(&self) -> &'static str {
        match self {
            Self::Accept(_) => "accept",
            Self::Decline => "decline",
            Self::Cancel => "cancel",
        }
    }
}

/// A request for a message from the client's model (`sampling/createMessage`).
#[derive(Debug, Clone, PartialEq)]
pub struct Sampling {
    messages: Vec<(Speaker, String)>,
    max_tokens: u32,
    system_prompt: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Speaker {
    User,
    Assistant,
}

impl Sampling {
    /// A conversation of one user message, answered in at most `max_tokens` tokens.
    pub fn user(text: impl Into<String>, max_tokens: u32) -> Self {
        Self {
            messages: vec![(Speaker::User, text.into())],
            max_tokens,
            system_prompt: None,
        }
    }

    /// Adds a later user message.
    pub fn then_user(mut self, text: impl Into<String>) -> Self {
        self.messages.push((Speaker::User, text.into()));
        self
    }

    /// Adds a later message of the model.
    pub fn then_assistant(mut self, text: impl Into<String>) -> Self {
        self.messages.push((Speaker::Assistant, text.into()));
        self
    }

    /// Sets the system prompt.
    pub fn system_prompt(mut self, prompt: impl Into<String>) -> Self {
        self.system_prompt = Some(prompt.into());
        self
    }

    fn to_params(&self) -> Result<CreateMessageRequestParams, String> {
        let messages: Vec<Value> = self
            .messages
            .iter()
            .map(|(speaker, text)| {
                json!({
                    "role": match speaker { Speaker::User => "user", Speaker::Assistant => "assistant" },
                    "content": { "type": "text", "text": text },
                })
            })
            .collect();
        let mut params = json!({ "messages": messages, "maxTokens": self.max_tokens });
        if let (Some(prompt), Value::Object(map)) = (&self.system_prompt, &mut params) {
            map.insert("systemPrompt".into(), Value::String(prompt.clone()));
        }
        serde_json::from_value(params).map_err(|e| e.to_string())
    }
}

/// The message the client's model wrote.
#[derive(Debug, Clone, PartialEq)]
pub struct SamplingAnswer {
    /// The model that wrote it, as the client names it.
    pub model: String,
    /// Why the model stopped (`endTurn`, `maxTokens`, …), if the client said.
    pub stop_reason: Option<String>,
    /// The message's text, image and audio blocks.
    pub content: Vec<Content>,
}

impl SamplingAnswer {
    /// The text blocks of the message, joined by blank lines.
    pub fn text(&self) -> String {
        let texts: Vec<&str> = self
            .content
            .iter()
            .filter_map(|c| match c {
                Content::Text(text) => Some(text.as_str()),
                _ => None,
            })
            .collect();
        texts.join("\n\n")
    }
}

/// One of the client's roots (`roots/list`): a directory or other location it works in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Root {
    /// The root's URI, e.g. `file:///home/me/project`.
    pub uri: String,
    /// A name for people, if the client gave one.
    pub name: Option<String>,
}

/// Why a question got no answer.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum InputError {
    /// Stateless call: the question is recorded; return this error and the call is answered
    /// with `input_required`, to be repeated by the client with the answer.
    #[error("input `{key}` is required: the client is asked and will call again with the answer")]
    InputRequired {
        /// The question's key.
        key: String,
    },
    /// The client did not declare the capability the question needs.
    #[error("the client cannot answer `{key}`: it did not declare the `{capability}` capability")]
    MissingCapability {
        /// The question's key.
        key: String,
        /// The capability it needs.
        capability: ClientCapability,
    },
    /// The call did not come from an MCP client (e.g. a direct in-process call).
    #[error("input `{key}` cannot be asked: the call did not come from an MCP client")]
    NoClient {
        /// The question's key.
        key: String,
    },
    /// The question itself cannot be sent (e.g. a schema MCP does not allow in a form).
    #[error("input `{key}` cannot be asked: {message}")]
    InvalidQuestion {
        /// The question's key.
        key: String,
        /// What is wrong with it.
        message: String,
    },
    /// The client's answer does not have the shape of an answer to the question.
    #[error("the client's answer to `{key}` is not valid: {message}")]
    InvalidAnswer {
        /// The question's key.
        key: String,
        /// What is wrong with it.
        message: String,
    },
    /// The client answered with an error, or the connection failed.
    #[error("the client could not answer `{key}`: {message}")]
    Client {
        /// The question's key.
        key: String,
        /// The client's error, or why the request failed.
        message: String,
    },
}

/// How the questions of one call reach the client.
#[derive(Debug, Clone, Default)]
#[doc(hidden)]
pub enum InputChannel {
    /// Not an MCP call: nobody to ask.
    #[default]
    None,
    /// A session: requests to the client over its connection.
    Session(Arc<SessionPeer>),
    /// A stateless call: questions are recorded and answered in the next round.
    Rounds(Arc<Rounds>),
    /// A task's call: questions wait in the task for its `tasks/update`.
    Task(Arc<TaskAsking>),
}

impl InputChannel {
    /// Opens the answers a stateless call brought back, with its sealed state bound to
    /// `binding` (see [`binding`]); nothing to do in sessions.
    #[doc(hidden)]
    pub fn open(&self, states: &RequestStates, binding: &[u8]) -> Result<(), Refusal> {
        match self {
            Self::Rounds(rounds) => rounds.open(states, binding),
            Self::None | Self::Session(_) | Self::Task(_) => Ok(()),
        }
    }

    /// What answers a stateless call whose handler failed after asking something; `None` in
    /// sessions and when nothing was asked.
    #[doc(hidden)]
    pub fn end(&self, states: &RequestStates, binding: &[u8]) -> Option<RoundEnd> {
        match self {
            Self::Rounds(rounds) => rounds.end(states, binding),
            Self::None | Self::Session(_) | Self::Task(_) => None,
        }
    }

    /// Whether this is a stateless call, whose questions go in rounds.
    #[doc(hidden)]
    pub fn is_stateless(&self) -> bool {
        matches!(self, Self::Rounds(_))
    }

    /// Whether this is a later round of a stateless call (it brings answers back).
    #[doc(hidden)]
    pub fn continues_rounds(&self) -> bool {
        matches!(self, Self::Rounds(rounds) if rounds.continues())
    }

    /// What the client declared, when known.
    #[doc(hidden)]
    pub fn capabilities(&self) -> Option<&ClientCapabilities> {
        match self {
            Self::None => None,
            Self::Session(session) => session.capabilities.as_ref(),
            Self::Rounds(rounds) => rounds.capabilities(),
            Self::Task(task) => task.capabilities.as_ref(),
        }
    }

    /// Notes that the call failed unexpectedly (the tool panicked): a task's call then fails
    /// the task rather than completing it with an error result.
    #[doc(hidden)]
    pub fn failed_unexpectedly(&self) {
        if let Self::Task(task) = self {
            task.run.failed_unexpectedly();
        }
    }
}

/// The client's connection and what it declared.
#[derive(Clone)]
#[doc(hidden)]
pub struct SessionPeer {
    peer: Peer<RoleServer>,
    capabilities: Option<ClientCapabilities>,
}

impl std::fmt::Debug for SessionPeer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionPeer").finish_non_exhaustive()
    }
}

/// The channel of a `tools/call` (or any request that may ask) in `context`, with the
/// answers and state the client sent back if it is a later round of a stateless call.
#[doc(hidden)]
pub fn channel(
    context: &RequestContext<RoleServer>,
    responses: Option<BTreeMap<String, Value>>,
    request_state: Option<String>,
) -> InputChannel {
    let capabilities = context.client_capabilities();
    let stateless = context
        .protocol_version()
        .is_some_and(|v| v >= ProtocolVersion::V_2026_07_28);
    if stateless {
        rounds(capabilities, responses, request_state)
    } else {
        InputChannel::Session(Arc::new(SessionPeer {
            peer: context.peer.clone(),
            capabilities,
        }))
    }
}

/// The input channel of a stateless (2026-07-28) request from a client with `capabilities`:
/// rounds answered `input_required`, continued with `responses` and the sealed
/// `request_state` the client sent back.
#[doc(hidden)]
pub fn rounds(
    capabilities: Option<ClientCapabilities>,
    responses: Option<BTreeMap<String, Value>>,
    request_state: Option<String>,
) -> InputChannel {
    InputChannel::Rounds(Arc::new(Rounds::new(
        capabilities,
        responses.unwrap_or_default(),
        request_state,
    )))
}

/// Asks the client to fill in `form`; see [`ToolContext::elicit`](crate::ToolContext::elicit).
#[doc(hidden)]
pub async fn elicit(
    input: &InputChannel,
    key: &str,
    form: &Elicitation,
) -> Result<ElicitAnswer, InputError> {
    let params = || -> Result<ElicitRequestParams, String> {
        let schema: ElicitationSchema = serde_json::from_value(form.requested_schema.clone())
            .map_err(|e| format!("the requested schema is not one MCP allows in a form: {e}"))?;
        Ok(ElicitRequestParams::FormElicitationParams {
            meta: None,
            message: form.message.clone(),
            requested_schema: schema,
        })
    };
    let answer = match input {
        InputChannel::None => {
            return Err(InputError::NoClient {
                key: key.to_owned(),
            });
        }
        InputChannel::Session(session) => {
            let params = params().map_err(|message| invalid_question(key, message))?;
            session
                .send(
                    key,
                    ClientCapability::Elicitation,
                    ServerRequest::ElicitRequest(rmcp::model::Request::new(params)),
                )
                .await?
        }
        InputChannel::Rounds(rounds) => rounds.ask(key, ClientCapability::Elicitation, || {
            Ok(InputRequest::Elicitation(rmcp::model::Request::new(
                params()?,
            )))
        })?,
        InputChannel::Task(task) => {
            task.ask(key, ClientCapability::Elicitation, || {
                Ok(InputRequest::Elicitation(rmcp::model::Request::new(
                    params()?,
                )))
            })
            .await?
        }
    };
    parse_answer(input, key, &answer, elicit_answer)
}

/// Asks the client's model for a message; see [`ToolContext::sample`](crate::ToolContext::sample).
pub(crate) async fn sample(
    input: &InputChannel,
    key: &str,
    request: &Sampling,
) -> Result<SamplingAnswer, InputError> {
    let answer = match input {
        InputChannel::None => {
            return Err(InputError::NoClient {
                key: key.to_owned(),
            });
        }
        InputChannel::Session(session) => {
            let params = request
                .to_params()
                .map_err(|message| invalid_question(key, message))?;
            session
                .send(
                    key,
                    ClientCapability::Sampling,
                    ServerRequest::CreateMessageRequest(rmcp::model::Request::new(params)),
                )
                .await?
        }
        InputChannel::Rounds(rounds) => rounds.ask(key, ClientCapability::Sampling, || {
            Ok(InputRequest::CreateMessage(rmcp::model::Request::new(
                request.to_params()?,
            )))
        })?,
        InputChannel::Task(task) => {
            task.ask(key, ClientCapability::Sampling, || {
                Ok(InputRequest::CreateMessage(rmcp::model::Request::new(
                    request.to_params()?,
                )))
            })
            .await?
        }
    };
    parse_answer(input, key, &answer, sampling_answer)
}

/// Asks the client for its roots; see [`ToolContext::list_roots`](crate::ToolContext::list_roots).
pub(crate) async fn list_roots(input: &InputChannel, key: &str) -> Result<Vec<Root>, InputError> {
    let request = || rmcp::model::ListRootsRequest {
        method: Default::default(),
        extensions: Default::default(),
    };
    let answer = match input {
        InputChannel::None => {
            return Err(InputError::NoClient {
                key: key.to_owned(),
            });
        }
        InputChannel::Session(session) => {
            session
                .send(
                    key,
                    ClientCapability::Roots,
                    ServerRequest::ListRootsRequest(request()),
                )
                .await?
        }
        InputChannel::Rounds(rounds) => rounds.ask(key, ClientCapability::Roots, || {
            Ok(InputRequest::ListRoots(request()))
        })?,
        InputChannel::Task(task) => {
            task.ask(key, ClientCapability::Roots, || {
                Ok(InputRequest::ListRoots(request()))
            })
            .await?
        }
    };
    parse_answer(input, key, &answer, roots_answer)
}

/// Whether the client of `call` declared `capability`.
#[doc(hidden)]
pub fn client_supports(input: &InputChannel, capability: ClientCapability) -> bool {
    match input {
        InputChannel::None => false,
        InputChannel::Session(session) => capability.declared_in(session.capabilities.as_ref()),
        InputChannel::Rounds(rounds) => capability.declared_in(rounds.capabilities()),
        InputChannel::Task(task) => capability.declared_in(task.capabilities.as_ref()),
    }
}

pub(super) fn invalid_question(key: &str, message: String) -> InputError {
    InputError::InvalidQuestion {
        key: key.to_owned(),
        message,
    }
}

/// Reads an answer with `parse`; in a stateless call an unusable answer refuses the call.
fn parse_answer<T>(
    input: &InputChannel,
    key: &str,
    answer: &Value,
    parse: fn(&Value) -> Result<T, String>,
) -> Result<T, InputError> {
    parse(answer).map_err(|message| {
        if let InputChannel::Rounds(rounds) = input {
            rounds.invalid_answer(key, &message);
        }
        InputError::InvalidAnswer {
            key: key.to_owned(),
            message,
        }
    })
}

impl SessionPeer {
    /// Sends `request` to the client and returns its result as JSON.
    async fn send(
        &self,
        key: &str,
        capability: ClientCapability,
        request: ServerRequest,
    ) -> Result<Value, InputError> {
        if !capability.declared_in(self.capabilities.as_ref()) {
            return Err(InputError::MissingCapability {
                key: key.to_owned(),
                capability,
            });
        }
        let client_error = |message: String| InputError::Client {
            key: key.to_owned(),
            message,
        };
        let result = self
            .peer
            .send_request(request)
            .await
            .map_err(|e| client_error(e.to_string()))?;
        serde_json::to_value(&result).map_err(|e| client_error(e.to_string()))
    }
}

fn elicit_answer(value: &Value) -> Result<ElicitAnswer, String> {
    let Value::Object(map) = value else {
        return Err(format!(
            "expected an elicitation result (an object with `action`), got {}",
            mcpgen_core::json_kind(value)
        ));
    };
    match map.get("action").and_then(Value::as_str) {
        Some("accept") => match map.get("content") {
            Some(Value::Object(content)) => Ok(ElicitAnswer::Accept(content.clone())),
            None | Some(Value::Null) => Ok(ElicitAnswer::Accept(Map::new())),
            Some(other) => Err(format!(
                "`content` of an accepted elicitation must be an object, got {}",
                mcpgen_core::json_kind(other)
            )),
        },
        Some("decline") => Ok(ElicitAnswer::Decline),
        Some("cancel") => Ok(ElicitAnswer::Cancel),
        Some(other) => Err(format!(
            "`action` must be `accept`, `decline` or `cancel`, got `{other}`"
        )),
        None => Err("an elicitation result needs a string `action`".to_owned()),
    }
}

fn sampling_answer(value: &Value) -> Result<SamplingAnswer, String> {
    let result: rmcp::model::CreateMessageResult = serde_json::from_value(value.clone())
        .map_err(|e| format!("expected a sampling result: {e}"))?;
    let content = serde_json::to_value(&result.message.content)
        .map_err(|e| format!("the sampling result's content cannot be read: {e}"))?;
    let blocks = match content {
        Value::Array(blocks) => blocks,
        block => vec![block],
    };
    let text = |block: &Value, field: &str| {
        block
            .get(field)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    let content = blocks
        .iter()
        .filter_map(|block| match block.get("type").and_then(Value::as_str) {
            Some("text") => Some(Content::Text(text(block, "text"))),
            Some("image") => Some(Content::Image {
                data: text(block, "data"),
                mime_type: text(block, "mimeType"),
            }),
            Some("audio") => Some(Content::Audio {
                data: text(block, "data"),
                mime_type: text(block, "mimeType"),
            }),
            _ => None,
        })
        .collect();
    Ok(SamplingAnswer {
        model: result.model,
        stop_reason: result.stop_reason,
        content,
    })
}

fn roots_answer(value: &Value) -> Result<Vec<Root>, String> {
    let result: rmcp::model::ListRootsResult = serde_json::from_value(value.clone())
        .map_err(|e| format!("expected a roots/list result: {e}"))?;
    Ok(result
        .roots
        .into_iter()
        .map(|root| Root {
            uri: root.uri,
            name: root.name,
        })
        .collect())
}
