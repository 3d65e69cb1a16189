//! How many tasks a server holds (`--tasks-max`), and how operations that run long are polled
//! (`--task-poll-max-interval`, `--task-follow-origin`).

use std::time::Duration;

use crate::tasks::DEFAULT_TASKS_MAX;
use crate::upstream::{DEFAULT_TASK_POLL_MAX_INTERVAL, TaskPolling, UpstreamConfig};

/// The bound of the task table: tools that run as MCP tasks keep their state in memory, private
/// to the principal that started each task, for one hour from its creation. Operations that
/// run long (a documented `202` with a `Location`, or the allowlist's `task: true`) run as
/// tasks, and their `202 Accepted` answers are polled until the operation ends.
#[derive(Debug, Clone, clap::Args)]
pub struct TaskArgs {
    /// Tasks held in memory at once (running, or ended and kept for their time to live); a
    /// call that would start one more is refused with a tool error saying so.
    #[arg(
        long,
        env = "MCPGEN_TASKS_MAX",
        default_value_t = DEFAULT_TASKS_MAX,
        value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..),
        value_name = "N"
    )]
    pub tasks_max: usize,
    /// The longest wait, in seconds, between two polls of an operation that runs long. Such an
    /// operation answers `202 Accepted` with a `Location`, which is polled with GET until it
    /// answers `200` (the result), `303 See Other` (the result is fetched from its
    /// `Location`) or an error; a `202` asks to wait by its `Retry-After` (seconds or an HTTP
    /// date), else the wait starts at 1 s and doubles, never beyond this.
    #[arg(
        long,
        env = "MCPGEN_TASK_POLL_MAX_INTERVAL",
        default_value_t = DEFAULT_TASK_POLL_MAX_INTERVAL.as_secs(),
        value_parser = clap::builder::RangedU64ValueParser::<u64>::new().range(1..),
        value_name = "SECONDS"
    )]
    pub task_poll_max_interval: u64,
    /// Another origin (`https://files.example.com`) that the status or result `Location` of
    /// an operation that runs long may lead to; repeat the flag, or separate origins with
    /// commas. Such an origin is polled with no credential: neither the upstream's (auth
    /// headers, API keys, cookies) nor the caller's nor an exchanged token. Without it, a
    /// `Location` on another origin than the upstream's ends the call with an error naming
    /// it.
    #[arg(
        long = "task-follow-origin",
        env = "MCPGEN_TASK_FOLLOW_ORIGIN",
        value_delimiter = ',',
        value_name = "ORIGIN"
    )]
    pub task_follow_origins: Vec<String>,
}

impl TaskArgs {
    /// `config` with the polling these flags set.
    pub fn polling(&self, config: UpstreamConfig) -> UpstreamConfig {
        config.with_task_polling(TaskPolling {
            max_interval: Duration::from_secs(self.task_poll_max_interval),
            follow_origins: self.task_follow_origins.clone(),
        })
    }
}
