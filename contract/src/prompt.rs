//! Prompts: message templates a client lists with `prompts/list` and fills in with
//! `prompts/get`.
//!
//! A [`Prompt`] has a name, an optional title and description, the [`PromptArgument`]s it
//! takes (strings, some required) and a handler that turns the arguments into
//! [`PromptMessage`]s. Collect prompts in a [`PromptSet`] and serve them with
//! `ServerBuilder::prompts`:
//!
//! ```
//! use mcpgen_contract::{Completer, Prompt, PromptArgument, PromptMessage, PromptSet};
//! use mcpgen_core::Content;
//!
//! let prompts = PromptSet::new()
//!     .prompt(Prompt::fixed("greeting", vec![PromptMessage::user_text("Say hello.")])
//!         .description("Greets the user"))
//!     .prompt(
//!         Prompt::new("summarize", |args| async move {
//!             let topic = args.get("topic").unwrap_or_default();
//!             Ok(vec![PromptMessage::user(Content::Text(format!("Summarize {topic}.")))])
//!         })
//!         .description("Summarizes a topic")
//!         .argument(
//!             PromptArgument::new("topic")
//!                 .description("What to summarize")
//!                 .required()
//!                 .complete(Completer::from_values(["rust", "mcp"])),
//!         ),
//!     );
//! # let _ = prompts;
//! ```
//!
//! Before a handler runs, the server checks the request: every required argument is there,
//! every argument is a string, and none is unknown to the prompt. A request that fails the
//! check is answered with an invalid-params error naming the prompt and the argument.

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::Arc;

use mcpgen_core::BoxFuture;
use mcpgen_core::result::Content;

use crate::app::ToolContext;
use crate::completion::Completer;
use crate::input::InputError;

/// Who a prompt message is from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// The user (or the client on the user's behalf).
    User,
    /// The model.
    Assistant,
}

/// One message of a filled-in prompt.
#[derive(Debug, Clone, PartialEq)]
pub struct PromptMessage {
    /// Who the message is from.
    pub role: Role,
    /// Text, an image, audio or an embedded resource.
    pub content: Content,
}

impl PromptMessage {
    /// A message from the user.
    pub fn user(content: Content) -> Self {
        Self {
            role: Role::User,
            content,
        }
    }

    /// A message from the model.
    pub fn assistant(content: Content) -> Self {
        Self {
            role: Role::Assistant,
            content,
        }
    }

    /// A text message from the user.
    pub fn user_text(text: impl Into<String>) -> Self {
        Self::user(Content::Text(text.into()))
    }

    /// A text message from the model.
    pub fn assistant_text(text: impl Into<String>) -> Self {
        Self::assistant(Content::Text(text.into()))
    }
}

/// The arguments of one `prompts/get` request, checked against the prompt's
/// [`PromptArgument`]s: every required one is present.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PromptArgs(BTreeMap<String, String>);

impl PromptArgs {
    /// Arguments with these values.
    pub fn new(values: BTreeMap<String, String>) -> Self {
        Self(values)
    }

    /// The value of argument `name`, if the client gave it.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0.get(name).map(String::as_str)
    }

    /// Every argument given, by name.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.0.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }
}

/// Why a prompt could not be filled in.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PromptError {
    /// The arguments cannot be used (the client gets an invalid-params error with this text).
    #[error("{0}")]
    InvalidArguments(String),
    /// The prompt failed (the client gets an internal error with this text).
    #[error("{0}")]
    Failed(String),
}

/// One argument a prompt takes. Argument values are strings.
#[derive(Debug, Clone)]
pub struct PromptArgument {
    #[doc(hidden)]
    pub name: String,
    #[doc(hidden)]
    pub title: Option<String>,
    #[doc(hidden)]
    pub description: Option<String>,
    #[doc(hidden)]
    pub required: bool,
    #[doc(hidden)]
    pub completer: Option<Completer>,
}

impl PromptArgument {
    /// An optional argument named `name`.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            title: None,
            description: None,
            required: false,
            completer: None,
        }
    }

    /// Sets the name shown to users.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Sets what the argument is for.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Makes the argument required: `prompts/get` without it is refused before the handler
    /// runs.
    pub fn required(mut self) -> Self {
        self.required = true;
        self
    }

    /// Suggests values for the argument (`completion/complete`).
    pub fn complete(mut self, completer: Completer) -> Self {
        self.completer = Some(completer);
        self
    }

    /// The argument's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Whether the argument is required.
    pub fn is_required(&self) -> bool {
        self.required
    }
}

type PromptFn = dyn Fn(PromptArgs, ToolContext) -> BoxFuture<'static, Result<Vec<PromptMessage>, PromptError>>
    + Send
    + Sync;

impl From<InputError> for PromptError {
    fn from(error: InputError) -> Self {
        Self::Failed(error.to_string())
    }
}

/// A prompt: its name, description, arguments and the handler that fills it in.
#[derive(Clone)]
pub struct Prompt {
    #[doc(hidden)]
    pub name: String,
    #[doc(hidden)]
    pub title: Option<String>,
    #[doc(hidden)]
    pub description: Option<String>,
    #[doc(hidden)]
    pub arguments: Vec<PromptArgument>,
    #[doc(hidden)]
    pub handler: Arc<PromptFn>,
}

impl std::fmt::Debug for Prompt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Prompt")
            .field("name", &self.name)
            .field("title", &self.title)
            .field("description", &self.description)
            .field("arguments", &self.arguments)
            .finish_non_exhaustive()
    }
}

impl Prompt {
    /// A prompt named `name` that `handler` fills in from the request's arguments.
    pub fn new<F, Fut>(name: impl Into<String>, handler: F) -> Self
    where
        F: Fn(PromptArgs) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Vec<PromptMessage>, PromptError>> + Send + 'static,
    {
        Self {
            name: name.into(),
            title: None,
            description: None,
            arguments: Vec::new(),
            handler: Arc::new(move |args, _| Box::pin(handler(args))),
        }
    }

    /// A prompt named `name` whose `handler` also gets the request's context, the one tools
    /// get: who is asking, and a way to ask the client for input while filling the prompt in
    /// ([`ToolContext::elicit`] and the like; an [`InputError`] converts into a
    /// [`PromptError`] with `?`, and in a stateless request one that asked the client is
    /// answered `input_required`).
    pub fn with_context<F, Fut>(name: impl Into<String>, handler: F) -> Self
    where
        F: Fn(PromptArgs, ToolContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Vec<PromptMessage>, PromptError>> + Send + 'static,
    {
        Self {
            name: name.into(),
            title: None,
            description: None,
            arguments: Vec::new(),
            handler: Arc::new(move |args, ctx| Box::pin(handler(args, ctx))),
        }
    }

    /// A prompt named `name` that always answers with `messages`.
    pub fn fixed(name: impl Into<String>, messages: Vec<PromptMessage>) -> Self {
        let messages: Arc<[PromptMessage]> = messages.into();
        Self::new(name, move |_| {
            let messages = messages.to_vec();
            async move { Ok(messages) }
        })
    }

    /// Sets the name shown to users.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Sets what the prompt does.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Adds an argument; arguments are listed in the order they are added.
    pub fn argument(mut self, argument: PromptArgument) -> Self {
        self.arguments.push(argument);
        self
    }

    /// The prompt's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The prompt's arguments.
    pub fn arguments(&self) -> &[PromptArgument] {
        &self.arguments
    }
}

/// The prompts a server offers, listed in the order they are added. Names must be unique;
/// `ServerBuilder::build` reports a repeated name, or an
/// argument named twice.
#[derive(Debug, Clone, Default)]
pub struct PromptSet {
    #[doc(hidden)]
    pub prompts: Vec<Prompt>,
}

impl PromptSet {
    /// An empty set.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a prompt.
    pub fn prompt(mut self, prompt: Prompt) -> Self {
        self.prompts.push(prompt);
        self
    }

    /// The prompts, in the order they were added.
    pub fn prompts(&self) -> &[Prompt] {
        &self.prompts
    }

    /// Whether the set has no prompts.
    pub fn is_empty(&self) -> bool {
        self.prompts.is_empty()
    }
}
