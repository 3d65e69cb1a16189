//! How many tasks a server holds (`--tasks-max`).

use crate::tasks::DEFAULT_TASKS_MAX;

/// The bound of the task table: tools that run as MCP tasks keep their state in memory, private
/// to the principal that started each task, for one hour from its creation.
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
}
