//! The [`ServerBuilder`] methods that set how tasks run: how many run at once in all and for one
//! principal, the byte budget of ended tasks' results, and which tools run as tasks.

use super::builder::ServerBuilder;
use mcpgen_contract::tasks::TaskSupport;

impl ServerBuilder {
    /// Runs at most `max` tasks at once (`--tasks-max`, default 1,000); ended tasks do not
    /// count.
    pub fn tasks_max(mut self, max: usize) -> Self {
        self.tasks.max = max;
        self
    }

    /// Runs at most `max` tasks at once for one principal (`--tasks-max-per-principal`;
    /// `None`, the default: a quarter of [`tasks_max`](Self::tasks_max), at least one).
    pub fn tasks_max_per_principal(mut self, max: Option<usize>) -> Self {
        self.tasks.per_principal = max;
        self
    }

    /// Keeps ended tasks within `bytes` for the whole server (`--tasks-results-max-bytes`,
    /// default 64 MiB): past it, the oldest ended results are dropped first.
    pub fn tasks_results_max_bytes(mut self, bytes: usize) -> Self {
        self.tasks.results_max_bytes = bytes;
        self
    }

    /// Runs the tool `name` as a task (see [`crate::tasks`]).
    pub fn task_tool(mut self, name: impl Into<String>, support: TaskSupport) -> Self {
        self.tasks.tools.insert(name.into(), support);
        self
    }
}
