//! What keeps one upstream's faults from becoming everyone's: a cap on concurrent requests,
//! a circuit breaker, and one retry of idempotent requests.
//!
//! - the circuit breaker ([`mcpgen_core::breaker`]): fails calls fast while the upstream is
//!   down, and lets one probe through after a cool-down to find out whether it is back; a
//!   failure is a request that got no answer (connection refused or reset, a timeout) or an
//!   answer with a 5xx status;
//! - `retry`: which failed requests are sent once more (idempotent methods, on a refused
//!   connection or 502/503/504), and the random wait before;
//! - here: the [`GuardConfig`], and the [`Guard`] shared by every clone of one
//!   [`Upstream`](crate::Upstream) that admits calls (the cap is a Tokio semaphore).
//!
//! A call the guard refuses is not sent; the tool's result says the upstream is unavailable
//! and to retry later, the [`GuardReport`] says why, and the audit status is `unavailable`.

pub(super) mod retry;

use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use mcpgen_core::breaker::Breaker;
pub(super) use mcpgen_core::breaker::Ticket;

use crate::invoked::{GuardRefusal, GuardReport};

/// The default cap on concurrent requests to one upstream.
pub const DEFAULT_MAX_CONCURRENCY: usize = 64;

/// The default longest wait for a free slot under the cap.
pub const DEFAULT_QUEUE_TIMEOUT: Duration = Duration::from_secs(10);

/// The default number of failed requests in a row that opens the circuit breaker.
pub const DEFAULT_BREAKER_THRESHOLD: u32 = 5;

/// The default time the open breaker refuses calls before it lets a probe through.
pub const DEFAULT_BREAKER_COOLDOWN: Duration = Duration::from_secs(30);

/// How calls to one upstream are guarded against its faults.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GuardConfig {
    /// At most this many requests to the upstream are in flight at once (at least 1); further
    /// calls wait for a slot.
    pub max_concurrency: usize,
    /// A call that finds no free slot within this time is refused, unsent.
    pub queue_timeout: Duration,
    /// This many failed requests in a row (no answer, a timeout, or a 5xx) open the circuit
    /// breaker; 0 turns the breaker off.
    pub breaker_threshold: u32,
    /// How long the open breaker refuses calls before it lets one through as a probe.
    pub breaker_cooldown: Duration,
    /// Whether a request of an idempotent method (GET, HEAD, OPTIONS, TRACE, PUT, DELETE) is
    /// sent once more, after a random 50–250 ms, when the connection could not be made or the
    /// answer was 502, 503 or 504. POST and PATCH are never sent twice.
    pub retry: bool,
}

impl Default for GuardConfig {
    fn default() -> Self {
        Self {
            max_concurrency: DEFAULT_MAX_CONCURRENCY,
            queue_timeout: DEFAULT_QUEUE_TIMEOUT,
            breaker_threshold: DEFAULT_BREAKER_THRESHOLD,
            breaker_cooldown: DEFAULT_BREAKER_COOLDOWN,
            retry: true,
        }
    }
}

/// The shared state of one upstream's guard.
#[derive(Debug)]
pub(super) struct Guard {
    config: GuardConfig,
    slots: Arc<Semaphore>,
    breaker: Breaker,
}

/// A call the guard let through: its slot under the cap (held until dropped) and its breaker
/// ticket.
pub(super) struct Admitted<'a> {
    _slot: OwnedSemaphorePermit,
    pub ticket: Ticket<'a>,
}

impl Guard {
    pub(super) fn new(config: GuardConfig) -> Self {
        let slots = config.max_concurrency.clamp(1, Semaphore::MAX_PERMITS);
        Self {
            config,
            slots: Arc::new(Semaphore::new(slots)),
            breaker: Breaker::new(config.breaker_threshold, config.breaker_cooldown),
        }
    }

    pub(super) fn config(&self) -> &GuardConfig {
        &self.config
    }

    /// Admits a call: refused at once while the breaker is open, else after waiting (at most
    /// the queue timeout) for a slot under the cap. Whether it waited goes in `report`.
    pub(super) async fn admit(&self, report: &mut GuardReport) -> Result<Admitted<'_>, String> {
        let ticket = self.breaker.admit(Instant::now()).map_err(|retry_in| {
            report.refused = Some(GuardRefusal::CircuitOpen);
            self.open_message(retry_in)
        })?;
        let slot = match self.slots.clone().try_acquire_owned() {
            Ok(slot) => slot,
            Err(_) => {
                report.queued = true;
                match tokio::time::timeout(
                    self.config.queue_timeout,
                    self.slots.clone().acquire_owned(),
                )
                .await
                {
                    Ok(Ok(slot)) => slot,
                    // The semaphore is never closed; either way no slot came.
                    Ok(Err(_)) | Err(_) => {
                        report.refused = Some(GuardRefusal::ConcurrencyCap);
                        return Err(self.cap_message());
                    }
                }
            }
        };
        Ok(Admitted {
            _slot: slot,
            ticket,
        })
    }

    /// Records one request's outcome (`failed`: no answer or a 5xx); notes in `report` when
    /// it opened the breaker.
    pub(super) fn record(&self, ticket: &mut Ticket<'_>, failed: bool, report: &mut GuardReport) {
        if ticket.record(failed, Instant::now()) {
            report.opened_circuit = true;
            tracing::warn!(
                failures = self.config.breaker_threshold,
                cooldown_s = self.config.breaker_cooldown.as_secs_f64(),
                "upstream circuit breaker opened: calls are refused until a probe succeeds"
            );
        }
    }

    /// Whether a failed request of `method` under `ticket` gets its one retry.
    pub(super) fn may_retry(&self, method: &reqwest::Method, ticket: &Ticket<'_>) -> bool {
        self.config.retry && retry::idempotent(method) && self.breaker.allows_retry(ticket)
    }

    /// Why a call is refused while the breaker is open, `retry_in` before it lets a probe
    /// through (zero while a probe is in flight).
    fn open_message(&self, retry_in: Duration) -> String {
        let when = if retry_in.is_zero() {
            "a test request is in flight to see whether it is back".to_owned()
        } else {
            format!("it is tried again in {} s", retry_in.as_secs_f64().ceil())
        };
        format!(
            "the upstream API is unavailable: its last {} requests failed, so calls to it are \
             refused for now ({when}); retry later",
            self.config.breaker_threshold
        )
    }

    fn cap_message(&self) -> String {
        format!(
            "the upstream API is busy: {} requests to it are already in progress and none \
             finished within {} s; retry later",
            self.config.max_concurrency,
            self.config.queue_timeout.as_secs_f64()
        )
    }
}
