//! The flags of the upstream's guard: `--upstream-max-concurrency`,
//! `--upstream-queue-timeout`, `--upstream-breaker-threshold`, `--upstream-breaker-cooldown`
//! and `--upstream-no-retry` (see [`GuardConfig`]).

use std::time::Duration;

use clap::builder::TypedValueParser as _;

use mcpgen_upstream::{
    DEFAULT_BREAKER_COOLDOWN, DEFAULT_BREAKER_THRESHOLD, DEFAULT_MAX_CONCURRENCY,
    DEFAULT_QUEUE_TIMEOUT, GuardConfig,
};

/// How calls to the upstream API are guarded against its faults.
#[derive(Debug, Clone, clap::Args)]
pub struct UpstreamGuardArgs {
    /// Most requests in flight to the upstream API at once; further calls wait for a slot
    /// (see `--upstream-queue-timeout`).
    #[arg(
        long,
        env = "MCPGEN_UPSTREAM_MAX_CONCURRENCY",
        default_value_t = DEFAULT_MAX_CONCURRENCY,
        value_parser = clap::value_parser!(u32).range(1..).map(|n| n as usize),
        value_name = "N"
    )]
    pub upstream_max_concurrency: usize,
    /// Seconds a call waits for a slot under `--upstream-max-concurrency`; after that it is
    /// refused unsent ("the upstream API is busy; retry later", audit status `unavailable`).
    #[arg(
        long,
        env = "MCPGEN_UPSTREAM_QUEUE_TIMEOUT",
        default_value_t = DEFAULT_QUEUE_TIMEOUT.as_secs(),
        value_parser = clap::value_parser!(u64).range(1..),
        value_name = "SECONDS"
    )]
    pub upstream_queue_timeout: u64,
    /// Failed upstream requests in a row (refused connection, timeout or 5xx) that open the
    /// circuit breaker: calls are then refused at once ("the upstream API is unavailable;
    /// retry later", audit status `unavailable`) until a probe succeeds. 0 turns it off.
    #[arg(
        long,
        env = "MCPGEN_UPSTREAM_BREAKER_THRESHOLD",
        default_value_t = DEFAULT_BREAKER_THRESHOLD,
        value_name = "N"
    )]
    pub upstream_breaker_threshold: u32,
    /// Seconds the open circuit breaker refuses calls before it lets one through as a probe;
    /// the probe's success closes it, its failure opens it for another cool-down.
    #[arg(
        long,
        env = "MCPGEN_UPSTREAM_BREAKER_COOLDOWN",
        default_value_t = DEFAULT_BREAKER_COOLDOWN.as_secs(),
        value_parser = clap::value_parser!(u64).range(1..),
        value_name = "SECONDS"
    )]
    pub upstream_breaker_cooldown: u64,
    /// Never send a request twice. By default a GET, HEAD, OPTIONS, PUT or DELETE request
    /// whose connection was refused or that got 502, 503 or 504 is sent once more after a
    /// random 50–250 ms (POST and PATCH never are).
    #[arg(long, env = "MCPGEN_UPSTREAM_NO_RETRY")]
    pub upstream_no_retry: bool,
}

impl UpstreamGuardArgs {
    /// The guard the flags describe.
    pub fn config(&self) -> GuardConfig {
        GuardConfig {
            max_concurrency: self.upstream_max_concurrency,
            queue_timeout: Duration::from_secs(self.upstream_queue_timeout),
            breaker_threshold: self.upstream_breaker_threshold,
            breaker_cooldown: Duration::from_secs(self.upstream_breaker_cooldown),
            retry: !self.upstream_no_retry,
        }
    }
}
