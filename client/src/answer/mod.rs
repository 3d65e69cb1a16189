//! What the client answers when a server asks: elicitation (questions for the person), sampling
//! (a completion from the application's model) and roots (the folders the client works in).
//!
//! A server may only ask for what the client declared at the handshake, and each capability
//! is declared only when [`ClientAnswers`] provides it: without an [`Elicitor`] the client
//! declares no `elicitation` (and a server that asks anyway is declined), without an
//! [`Llm`] no `sampling`, without roots no `roots`.
//!
//! ```no_run
//! use std::sync::Arc;
//! use mcpgen_core::BoxFuture;
//! use mcpgen_client::answer::{ClientAnswers, ElicitAnswer, ElicitRequest, Elicitor, Root};
//! use mcpgen_client::{McpConfig, Session};
//!
//! /// Says yes to every yes/no question (a real application asks its user).
//! struct AlwaysYes;
//!
//! impl Elicitor for AlwaysYes {
//!     fn elicit<'a>(&'a self, request: &'a ElicitRequest) -> BoxFuture<'a, ElicitAnswer> {
//!         Box::pin(async move {
//!             let mut answer = serde_json::Map::new();
//!             for (name, field) in request.fields() {
//!                 if field["type"] == "boolean" {
//!                     answer.insert(name.to_owned(), serde_json::Value::Bool(true));
//!                 }
//!             }
//!             ElicitAnswer::Accept(answer)
//!         })
//!     }
//! }
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let answers = ClientAnswers::new()
//!     .with_elicitor(Arc::new(AlwaysYes))
//!     .with_roots(vec![Root::new("file:///home/me/project").with_name("project")]);
//! let config = McpConfig::discover()?;
//! if let Some(server) = config.servers.get("library") {
//!     let session = Session::connect_with("library", server, &answers).await?;
//!     session.shutdown().await?;
//! }
//! # Ok(())
//! # }
//! ```

mod handler;
mod sampling;

use std::sync::Arc;

use serde_json::{Map, Value};

use crate::llm::Llm;
use mcpgen_core::BoxFuture;

pub(crate) use handler::Answerer;

/// A question a server asks the person, through the client (`elicitation/create`).
#[derive(Debug, Clone, PartialEq)]
pub struct ElicitRequest {
    /// The configured name of the server asking.
    pub server: String,
    /// What the server says to the person.
    pub message: String,
    /// What kind of answer is wanted.
    pub mode: ElicitMode,
}

/// The kinds of question.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ElicitMode {
    /// A form: a flat JSON Schema object whose properties are strings, numbers, integers,
    /// booleans or enums; the answer holds the values the person gave.
    Form {
        /// The requested schema (`type: object`, `properties`, `required`).
        schema: Value,
    },
    /// The person is to visit a URL (out of band); the answer holds nothing.
    Url {
        /// Where to send the person.
        url: String,
    },
}

impl ElicitRequest {
    /// The form's fields in the schema's order, each with its schema (none for a URL
    /// question).
    pub fn fields(&self) -> Vec<(&str, &Value)> {
        match &self.mode {
            ElicitMode::Form { schema } => schema
                .get("properties")
                .and_then(Value::as_object)
                .map(|p| p.iter().map(|(k, v)| (k.as_str(), v)).collect())
                .unwrap_or_default(),
            ElicitMode::Url { .. } => Vec::new(),
        }
    }

    /// Whether the form requires field `name`.
    pub fn is_required(&self, name: &str) -> bool {
        match &self.mode {
            ElicitMode::Form { schema } => schema
                .get("required")
                .and_then(Value::as_array)
                .is_some_and(|r| r.iter().any(|n| n.as_str() == Some(name))),
            ElicitMode::Url { .. } => false,
        }
    }
}

/// The person's answer to an [`ElicitRequest`].
#[derive(Debug, Clone, PartialEq)]
pub enum ElicitAnswer {
    /// The person answered; for a form, the values by field name.
    Accept(Map<String, Value>),
    /// The person said no.
    Decline,
    /// The person dismissed the question without choosing.
    Cancel,
}

/// Asks the person what a server wants to know; implemented by the application (the
/// `mcpgen call` command asks on the terminal).
pub trait Elicitor: Send + Sync {
    /// Asks `request` and returns the answer.
    fn elicit<'a>(&'a self, request: &'a ElicitRequest) -> BoxFuture<'a, ElicitAnswer>;

    /// Whether URL questions can be shown ([`ElicitMode::Url`]; default: no, only forms are
    /// declared).
    fn supports_url(&self) -> bool {
        false
    }
}

/// A folder (or other URI) the client works in, listed to servers that ask (`roots/list`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Root {
    /// The root's URI, normally `file:///...`.
    pub uri: String,
    /// A name to show for it.
    pub name: Option<String>,
}

impl Root {
    /// A root at `uri`.
    pub fn new(uri: impl Into<String>) -> Self {
        Self {
            uri: uri.into(),
            name: None,
        }
    }

    /// The root of a local folder (a `file://` URI); `None` when `path` is not absolute.
    pub fn from_path(path: &std::path::Path) -> Option<Self> {
        url::Url::from_directory_path(path).ok().map(|u| Root {
            uri: u.to_string(),
            name: path.file_name().map(|n| n.to_string_lossy().into_owned()),
        })
    }

    /// Sets the name.
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }
}

/// How the client answers server requests; each part is declared as a capability only when
/// it is set. The default answers nothing and declares nothing (elicitation is declined,
/// sampling refused, roots empty).
#[derive(Clone, Default)]
pub struct ClientAnswers {
    pub(crate) elicitor: Option<Arc<dyn Elicitor>>,
    pub(crate) sampler: Option<Sampler>,
    pub(crate) roots: Option<Vec<Root>>,
}

/// The application's model, answering `sampling/createMessage`.
#[derive(Clone)]
pub(crate) struct Sampler {
    pub(crate) llm: Arc<dyn Llm>,
    pub(crate) model: String,
}

impl std::fmt::Debug for ClientAnswers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientAnswers")
            .field("elicitation", &self.elicitor.is_some())
            .field("sampling", &self.sampler.as_ref().map(|s| &s.model))
            .field("roots", &self.roots)
            .finish()
    }
}

impl ClientAnswers {
    /// Answers nothing, declares nothing.
    pub fn new() -> Self {
        Self::default()
    }

    /// Answers elicitation through `elicitor` (declares `elicitation`).
    pub fn with_elicitor(mut self, elicitor: Arc<dyn Elicitor>) -> Self {
        self.elicitor = Some(elicitor);
        self
    }

    /// Answers sampling through `llm` (declares `sampling`, with tools); `model` is the
    /// model name reported in each result.
    pub fn with_sampling(mut self, llm: Arc<dyn Llm>, model: impl Into<String>) -> Self {
        self.sampler = Some(Sampler {
            llm,
            model: model.into(),
        });
        self
    }

    /// Lists `roots` to servers that ask (declares `roots`).
    pub fn with_roots(mut self, roots: Vec<Root>) -> Self {
        self.roots = Some(roots);
        self
    }

    /// The capabilities these answers declare, as the handshake's `capabilities` object.
    pub fn capabilities(&self) -> Value {
        let mut caps = Map::new();
        if let Some(elicitor) = &self.elicitor {
            let mut modes = Map::new();
            modes.insert("form".into(), Value::Object(Map::new()));
            if elicitor.supports_url() {
                modes.insert("url".into(), Value::Object(Map::new()));
            }
            caps.insert("elicitation".into(), Value::Object(modes));
        }
        if self.sampler.is_some() {
            caps.insert("sampling".into(), serde_json::json!({"tools": {}}));
        }
        if self.roots.is_some() {
            caps.insert("roots".into(), serde_json::json!({"listChanged": false}));
        }
        Value::Object(caps)
    }
}
