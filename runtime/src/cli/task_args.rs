//! How many tasks a server runs (`--tasks-max`, `--tasks-max-per-principal`) and keeps
//! (`--tasks-results-max-bytes`), and how operations that run long are polled
//! (`--task-poll-max-interval`, `--task-polls-max`, `--task-follow-origin`).

use std::time::Duration;

use super::values::parse_positive_bytes;
use mcpgen_contract::tasks::{DEFAULT_TASKS_MAX, DEFAULT_TASKS_RESULTS_MAX_BYTES};
use mcpgen_upstream::{
    DEFAULT_TASK_POLL_MAX_INTERVAL, DEFAULT_TASK_POLLS_MAX, TaskPolling, UpstreamConfig,
};

/// The bound of the task table: tools that run as MCP tasks keep their state in memory, private
/// to the principal that started each task, for one hour from its creation. Operations that
/// run long (a documented `202` with a `Location`, or the allowlist's `task: true`) run as
/// tasks, and their `202 Accepted` answers are polled until the operation ends.
#[derive(Debug, Clone, clap::Args)]
pub struct TaskArgs {
    /// Tasks running at once, for all principals together; a call that would start one more
    /// is refused with a tool error saying so. Ended and cancelled tasks do not count.
    #[arg(
        long,
        env = "MCPGEN_TASKS_MAX",
        default_value_t = DEFAULT_TASKS_MAX,
        value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..),
        value_name = "N"
    )]
    pub tasks_max: usize,
    /// Tasks one principal runs at once; its call that would start one more is refused with a
    /// tool error saying so, while other principals still start theirs. Default: a quarter of
    /// `--tasks-max`, at least 1.
    #[arg(
        long,
        env = "MCPGEN_TASKS_MAX_PER_PRINCIPAL",
        value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..),
        value_name = "N"
    )]
    pub tasks_max_per_principal: Option<usize>,
    /// Bytes that ended tasks keep in memory, for the whole server: their results (each
    /// stored once, as the JSON it is answered with), errors and entries. Past it, the
    /// results of the tasks that ended first are dropped, and `tasks/get` or `tasks/result`
    /// on such a task answers that it has expired. An ended task is otherwise kept for its
    /// time to live (one hour) from its end.
    #[arg(
        long,
        env = "MCPGEN_TASKS_RESULTS_MAX_BYTES",
        default_value_t = DEFAULT_TASKS_RESULTS_MAX_BYTES,
        value_parser = parse_positive_bytes,
        value_name = "BYTES"
    )]
    pub tasks_results_max_bytes: usize,
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
    /// The most requests one operation that runs long is polled with: every status poll and
    /// every redirect hop counts. Past it, the call ends with an error saying so (an API that
    /// answers `202` forever, or sends `202` and `303` back and forth, is not polled for the
    /// task's whole hour). Each poll follows at most 5 redirects, all counted here too.
    #[arg(
        long,
        env = "MCPGEN_TASK_POLLS_MAX",
        default_value_t = DEFAULT_TASK_POLLS_MAX,
        value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..),
        value_name = "N"
    )]
    pub task_polls_max: usize,
    /// Another origin (`https://files.example.com`) that the status or result `Location` of
    /// an operation that runs long may lead to; repeat the flag, or separate origins with
    /// commas. Such an origin is polled with no credential: neither the upstream's (auth
    /// headers, API keys, cookies) nor the caller's nor an exchanged token. Once polling has
    /// been on such an origin, a `Location` leading back to the upstream's own origin is
    /// refused: the call ends with an error naming it, and it is not fetched. Without the
    /// flag, a `Location` on another origin than the upstream's ends the call with an error
    /// naming it.
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
            max_polls: self.task_polls_max,
            follow_origins: self.task_follow_origins.clone(),
        })
    }
}
