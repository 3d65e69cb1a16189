//! Tasks shared by the replicas of a server (`--state-redis`): what a store keeps of each task
//! so that any replica answers for it, and what the replica holding a task is told by the
//! others. The store itself is another crate's ([`SharedTasks`] is its interface); this module
//! says what goes in and how a stored task is answered.
//!
//! The replica that starts a task writes it to the store before the client hears of it, then
//! writes each change (a question asked, its end, its result dropped from the budget) in
//! order, without holding the call up. A replica asked about a task it does not hold reads the
//! store; one asked to cancel it, or to hand it answers, tells the holder. A task whose holder
//! is gone is taken over by another replica: an operation the API runs long (`202` and a
//! `Location`) has its polling resumed from the last status URL; any other task ends as failed,
//! saying that the replica running it was lost.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use mcpgen_core::BoxFuture;
use mcpgen_identity::principal::Principal;
use rmcp::model::{InputRequests, Task};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A task's state as the store keeps it, beside its `Task` object.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum Now {
    /// Running.
    Working,
    /// Running, waiting for the answers to these questions.
    InputRequired {
        /// The open questions, by key.
        requests: InputRequests,
    },
    /// Ended with the tool's result (the record's result); `is_error` for a tool error.
    Completed {
        /// The result's `isError`.
        is_error: bool,
    },
    /// Failed with the JSON-RPC error object that is the record's result.
    Failed,
    /// Cancelled.
    Cancelled,
    /// Ended, its result dropped to stay within the results budget.
    Expired,
}

impl Now {
    /// Whether the task has ended.
    pub fn ended(&self) -> bool {
        !matches!(self, Self::Working | Self::InputRequired { .. })
    }
}

/// What the store keeps of a task besides its result.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Record {
    /// The task's metadata, its status included.
    pub task: Task,
    /// How it is now.
    pub now: Now,
}

/// What another replica needs to go on with a task whose replica was lost: the call, and the
/// caller it runs for. Kept only for a tool whose operation the API may run long.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Resumable {
    /// The tool called.
    pub tool: String,
    /// Its arguments.
    pub arguments: serde_json::Map<String, Value>,
    /// The caller, as authentication had it.
    pub principal: Caller,
}

/// A [`Principal`] as the store keeps it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Caller {
    id: String,
    key_id: Option<String>,
    scopes: Vec<String>,
    plugins: Vec<String>,
    rate_limit: Option<f64>,
}

impl From<&Principal> for Caller {
    fn from(principal: &Principal) -> Self {
        Self {
            id: principal.id.clone(),
            key_id: principal.key_id.clone(),
            scopes: principal.scopes.clone(),
            plugins: principal.plugins.clone(),
            rate_limit: principal.rate_limit,
        }
    }
}

impl From<Caller> for Principal {
    fn from(caller: Caller) -> Self {
        Self {
            id: caller.id,
            key_id: caller.key_id,
            scopes: caller.scopes,
            plugins: caller.plugins,
            rate_limit: caller.rate_limit,
        }
    }
}

/// A task as read from the store.
#[derive(Debug, Clone)]
pub struct Stored {
    /// The id of the principal that started it.
    pub owner: String,
    /// Its metadata and state.
    pub record: Record,
    /// Its result (a `CallToolResult`) or error object, as JSON text, once it has ended.
    pub result: Option<String>,
    /// The call, when another replica may go on with it.
    pub call: Option<Resumable>,
    /// Where the API's operation was last polled, when it may be resumed (the upstream's
    /// own form).
    pub resume: Option<String>,
}

/// A change of a task, written to the store in the order it happened.
#[derive(Debug, Clone)]
pub enum Change {
    /// Its state changed while it runs (a question asked).
    Running(Record),
    /// The API's operation is now polled at this point (the upstream's own form).
    PolledAt(Arc<str>),
    /// It ended: kept `keep` from now, with its result or error object.
    Ended {
        /// Its metadata and end state.
        record: Record,
        /// Its result or error object, as JSON text.
        result: Option<Arc<String>>,
        /// How long it is kept from now.
        keep: Duration,
    },
    /// Its result was dropped to stay within the results budget.
    Expired,
}

/// A request for the replica holding a task, from another replica.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ForHolder {
    /// The task was cancelled (the store says so already): stop its call.
    Cancel {
        /// The task.
        id: String,
    },
    /// Answers to the task's questions (`tasks/update`).
    Answers {
        /// The task.
        id: String,
        /// The answers, by key.
        responses: BTreeMap<String, Value>,
    },
}

/// Why the store could not be used, for messages.
pub type StoreProblem = String;

/// Where the tasks of every replica are kept (see the [module](self) documentation). Each
/// method fails, saying why, when the store cannot be reached.
pub trait SharedTasks: Send + Sync + std::fmt::Debug {
    /// Records a task just started by `owner` on this replica, kept `keep` (its time to
    /// live); `call` when another replica may go on with it.
    fn started<'a>(
        &'a self,
        owner: &'a str,
        record: &'a Record,
        call: Option<&'a Resumable>,
        keep: Duration,
    ) -> BoxFuture<'a, Result<(), StoreProblem>>;

    /// Records a change of the task `id`, after the ones recorded before; returns at once.
    fn changed(&self, id: &str, change: Change);

    /// The task `id`, if the store has it.
    fn load<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<Stored>, StoreProblem>>;

    /// Ends the running task `id` as cancelled (its record now `record`) and tells its holder;
    /// `false` when it had ended meanwhile.
    fn cancel<'a>(
        &'a self,
        id: &'a str,
        record: &'a Record,
        keep: Duration,
    ) -> BoxFuture<'a, Result<bool, StoreProblem>>;

    /// Hands `request` to the replica holding its task.
    fn tell_holder<'a>(
        &'a self,
        id: &'a str,
        request: &'a ForHolder,
    ) -> BoxFuture<'a, Result<(), StoreProblem>>;
}
