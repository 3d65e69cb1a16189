//! Suggestions for a prompt argument or a resource-template variable while the user types it
//! (`completion/complete`).
//!
//! A [`Completer`] is attached to one [`PromptArgument`](crate::PromptArgument) or to one
//! variable of a [`ResourceTemplate`](crate::ResourceTemplate); the server calls it with what
//! the user typed so far and answers with its [`Completion`]. Arguments and variables without
//! a completer are answered with no suggestions.

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::Arc;

use mcpgen_core::BoxFuture;

/// The most suggestions one answer carries (MCP's limit); the rest are counted in
/// [`Completion::total`] and flagged with [`Completion::has_more`].
pub const MAX_COMPLETION_VALUES: usize = 100;

/// What the client asks to complete.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CompletionRequest {
    /// What the user typed so far (may be empty).
    pub value: String,
    /// Values the user already gave for the other arguments or variables of the same prompt
    /// or template, by name.
    pub context: BTreeMap<String, String>,
}

/// Suggestions, best first.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Completion {
    /// The suggested values, at most [`MAX_COMPLETION_VALUES`] of which are sent.
    pub values: Vec<String>,
    /// How many values match in all, when known and larger than `values`.
    pub total: Option<u32>,
    /// Whether more values match than `values` holds.
    pub has_more: bool,
}

impl Completion {
    /// These suggestions, all of them.
    pub fn new(values: Vec<String>) -> Self {
        Self {
            values,
            total: None,
            has_more: false,
        }
    }

    /// The `candidates` that start with `typed`, ignoring case, in the candidates' order.
    pub fn matching<I, S>(candidates: I, typed: &str) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let typed = typed.to_lowercase();
        Self::new(
            candidates
                .into_iter()
                .map(Into::into)
                .filter(|candidate| candidate.to_lowercase().starts_with(&typed))
                .collect(),
        )
    }

    /// The answer as sent: at most [`MAX_COMPLETION_VALUES`] values, with the number left out
    /// reflected in `total` and `has_more`.
    #[doc(hidden)]
    pub fn limited(mut self) -> Self {
        if self.values.len() > MAX_COMPLETION_VALUES {
            let all = self.values.len();
            self.values.truncate(MAX_COMPLETION_VALUES);
            self.has_more = true;
            self.total = Some(
                self.total
                    .unwrap_or(0)
                    .max(u32::try_from(all).unwrap_or(u32::MAX)),
            );
        }
        self
    }
}

type CompleteFn = dyn Fn(CompletionRequest) -> BoxFuture<'static, Completion> + Send + Sync;

/// Suggests values for one prompt argument or template variable. Cheap to clone.
#[derive(Clone)]
pub struct Completer(Arc<CompleteFn>);

impl std::fmt::Debug for Completer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Completer")
    }
}

impl Completer {
    /// Completes with `complete`, which may look the values up (a database, an API).
    pub fn new<F, Fut>(complete: F) -> Self
    where
        F: Fn(CompletionRequest) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Completion> + Send + 'static,
    {
        Self(Arc::new(move |request| Box::pin(complete(request))))
    }

    /// Completes from a fixed list: the values that start with what the user typed, ignoring
    /// case ([`Completion::matching`]).
    pub fn from_values<I, S>(values: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let values: Arc<[String]> = values.into_iter().map(Into::into).collect();
        Self::new(move |request: CompletionRequest| {
            let values = values.clone();
            async move { Completion::matching(values.iter().cloned(), &request.value) }
        })
    }

    /// Runs the completer; the answer is cut to what one reply may carry.
    #[doc(hidden)]
    pub async fn complete(&self, request: CompletionRequest) -> Completion {
        (self.0)(request).await.limited()
    }
}

/// The request as the server hands it to a [`Completer`]: the typed value and the other
/// arguments the client already resolved.
#[doc(hidden)]
pub fn request_from_wire(
    argument: &rmcp::model::ArgumentInfo,
    context: Option<&rmcp::model::CompletionContext>,
) -> CompletionRequest {
    CompletionRequest {
        value: argument.value.clone(),
        context: context
            .and_then(|c| c.arguments.as_ref())
            .map(|arguments| {
                arguments
                    .iter()
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect()
            })
            .unwrap_or_default(),
    }
}

/// The `completion/complete` answer for `completion` (already limited), or for no completer.
#[doc(hidden)]
pub fn result_to_wire(completion: Option<Completion>) -> rmcp::model::CompleteResult {
    let completion = completion.unwrap_or_default().limited();
    let mut info = rmcp::model::CompletionInfo::default();
    info.values = completion.values;
    info.total = completion.total;
    info.has_more = Some(completion.has_more);
    rmcp::model::CompleteResult::new(info)
}
