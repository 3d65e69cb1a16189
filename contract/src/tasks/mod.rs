//! MCP tasks: a call that goes on after its answer. A task tool called by a client that
//! declared the `io.modelcontextprotocol/tasks` extension (2026-07-28, SEP-2663) is answered
//! at once with a task (`resultType: "task"`); the call runs on, and the client follows it
//! with `tasks/get` (the result or error inlined once it ends), answers its questions with
//! `tasks/update` and stops it with `tasks/cancel`. A client that did not declare the
//! extension calls the same tool as any other and waits for its result, unless the tool
//! requires tasks ([`TaskSupport::Required`]), which such a client is refused with `-32021`.
//!
//! [`Tasks`] holds the state of every task in memory, private to the principal that started
//! each one: another principal's `tasks/get` is answered as for an unknown task. Running tasks
//! are bounded for the server (`--tasks-max`) and per principal (`--tasks-max-per-principal`);
//! ended tasks no longer count. A task lives for its TTL (default one hour) from its creation;
//! one still running then ends as failed. An ended task is kept for its TTL from its end,
//! within one byte budget for all ended tasks (`--tasks-results-max-bytes`): past it, the
//! oldest ended results are dropped first, and such a task is answered as expired. With a replica name (`--replica-name`), task ids start with
//! it, as session ids do, so a load balancer can route `Mcp-Name: <task id>` requests.

use std::collections::BTreeMap;
use std::time::Duration;

mod anywhere;
#[doc(hidden)]
pub mod form_2025;
mod run;
pub mod shared;
mod store;
mod table;

#[doc(hidden)]
pub use run::TaskRun;
pub use store::Tasks;

/// The default number of tasks running at once (`--tasks-max`).
pub const DEFAULT_TASKS_MAX: usize = 1000;

/// The default byte budget of ended tasks' results (`--tasks-results-max-bytes`): 64 MiB.
pub const DEFAULT_TASKS_RESULTS_MAX_BYTES: usize = 64 * 1024 * 1024;

/// How long a task is kept from its creation, by default: one hour.
pub const DEFAULT_TASK_TTL: Duration = Duration::from_secs(60 * 60);

/// How often a client is told to poll a running task.
const POLL_INTERVAL: Duration = Duration::from_secs(1);

/// Whether a tool runs as a task.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum TaskSupport {
    /// A task for clients that declared the tasks extension; a plain call for the others.
    Optional,
    /// Only as a task: a client that did not declare the tasks extension is refused
    /// (`-32021`, naming the extension).
    Required,
    /// Only as a task, once the tool has the answers it asks for first: a stateless call
    /// answers `input_required` rounds as any call does, and the call that brings the answers
    /// back becomes the task (advertised as required).
    RequiredAfterInput,
}

impl TaskSupport {
    /// The value of a tool's `execution.taskSupport`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Optional => "optional",
            Self::Required | Self::RequiredAfterInput => "required",
        }
    }
}

/// How tasks are kept: how many run at once, for how long and in how many bytes they are
/// kept, and which tools run as tasks.
#[derive(Debug, Clone)]
pub struct TaskSettings {
    /// The most tasks running at once; a call that would start one more is refused.
    pub max: usize,
    /// The most tasks one principal runs at once; `None`: a quarter of [`max`](Self::max),
    /// at least one.
    pub per_principal: Option<usize>,
    /// The bytes all ended tasks keep (their results, errors and entries); past it, the
    /// oldest ended results are dropped first.
    pub results_max_bytes: usize,
    /// How long a task is kept from its creation.
    pub ttl: Duration,
    /// The tools that run as tasks, by name.
    pub tools: BTreeMap<String, TaskSupport>,
}

impl TaskSettings {
    /// The most tasks one principal runs at once: [`per_principal`](Self::per_principal), by
    /// default a quarter of [`max`](Self::max), at least one.
    pub fn max_per_principal(&self) -> usize {
        self.per_principal.unwrap_or(self.max / 4).max(1)
    }

    /// The same settings with the tools that tool sets declare as tasks
    /// ([`ToolSet::task_support`](crate::ToolSet::task_support)) added; a tool named with
    /// `ServerBuilder::task_tool` keeps its setting.
    #[doc(hidden)]
    pub fn declared<'a>(mut self, tools: impl IntoIterator<Item = (&'a str, TaskSupport)>) -> Self {
        for (name, support) in tools {
            self.tools.entry(name.to_owned()).or_insert(support);
        }
        self
    }
}

impl Default for TaskSettings {
    fn default() -> Self {
        Self {
            max: DEFAULT_TASKS_MAX,
            per_principal: None,
            results_max_bytes: DEFAULT_TASKS_RESULTS_MAX_BYTES,
            ttl: DEFAULT_TASK_TTL,
            tools: BTreeMap::new(),
        }
    }
}
