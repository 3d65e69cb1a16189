//! A circuit breaker per server: after repeated transport failures, calls fail fast instead of
//! waiting on a server that is down, and one probe call is let through after a cool-down.
//!
//! States and transitions:
//!
//! - **closed** (normal): every call goes through. A failure adds one to a counter, a success
//!   resets it; the `failure_threshold`-th consecutive failure opens the breaker.
//! - **open**: calls fail at once with [`BreakerOpen`], which says when the next attempt is
//!   allowed. When `cool_down` has passed since opening, the next call becomes the probe.
//! - **half-open**: exactly one probe call is in flight; other calls fail fast. The probe's
//!   success closes the breaker; its failure opens it again for another `cool_down`. A probe
//!   whose outcome is never recorded (its future was dropped) frees the slot for the next one.
//!
//! The states are [`mcpgen_core::breaker`]'s, the machine the server's upstream guard walks
//! too; this module adds the settings, the clock and the error a refused call returns.
//!
//! What counts as a failure is the caller's decision: the registry counts transport errors and
//! timeouts, not a tool's own `isError` result (the server answered, so it is up).
//!
//! Time comes from a [`Clock`], so tests can move it by hand instead of sleeping.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mcpgen_core::breaker::{Breaker, Ticket};

/// Where the breaker reads the time from.
pub trait Clock: Send + Sync {
    /// The current instant.
    fn now(&self) -> Instant;
}

/// The real monotonic clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Instant {
        Instant::now()
    }
}

/// A clock that moves only when told to, for tests.
#[derive(Debug, Clone)]
pub struct ManualClock(Arc<Mutex<Instant>>);

impl ManualClock {
    /// A clock standing at the current instant.
    pub fn new() -> Self {
        Self(Arc::new(Mutex::new(Instant::now())))
    }

    /// Moves the clock forward by `by`.
    pub fn advance(&self, by: Duration) {
        let mut now = self.0.lock().unwrap_or_else(|p| p.into_inner());
        *now += by;
    }
}

impl Default for ManualClock {
    fn default() -> Self {
        Self::new()
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Instant {
        *self.0.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Breaker settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BreakerConfig {
    /// Consecutive failures that open the breaker (at least 1). Default 5.
    pub failure_threshold: u32,
    /// How long the breaker stays open before one probe is let through. Default 30 s.
    pub cool_down: Duration,
}

impl Default for BreakerConfig {
    fn default() -> Self {
        Self {
            failure_threshold: 5,
            cool_down: Duration::from_secs(30),
        }
    }
}

/// The breaker's state, as reported by [`CircuitBreaker::state`].
pub use mcpgen_core::breaker::BreakerState;

/// A call refused because a circuit breaker is open (or its one probe is already in flight).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "server `{server}` is unavailable: circuit breaker open after {failures} consecutive failures; {}",
    retry_text(*.retry_in)
)]
pub struct BreakerOpen {
    /// The server the breaker guards.
    pub server: String,
    /// The failure threshold that opened it.
    pub failures: u32,
    /// How long until a probe call is allowed; zero when a probe is in flight right now.
    pub retry_in: Duration,
}

fn retry_text(retry_in: Duration) -> String {
    if retry_in.is_zero() {
        "a probe call is in flight, retry when it completes".to_owned()
    } else {
        // Whole seconds, rounded up, so "retrying in 0 s" is never printed while still open.
        let ms = retry_in.as_millis();
        let secs = ms.div_ceil(1000);
        format!("next attempt allowed in {secs} s")
    }
}

/// A circuit breaker guarding one server. Cheap to share behind an `Arc`.
pub struct CircuitBreaker {
    server: String,
    config: BreakerConfig,
    clock: Arc<dyn Clock>,
    machine: Breaker,
}

impl std::fmt::Debug for CircuitBreaker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CircuitBreaker")
            .field("server", &self.server)
            .field("config", &self.config)
            .field("state", &self.state())
            .finish()
    }
}

impl CircuitBreaker {
    /// A closed breaker for `server` on the system clock. A `failure_threshold` of 0 is taken
    /// as 1.
    pub fn new(server: impl Into<String>, config: BreakerConfig) -> Self {
        Self::with_clock(server, config, Arc::new(SystemClock))
    }

    /// A closed breaker for `server` reading time from `clock`.
    pub fn with_clock(
        server: impl Into<String>,
        config: BreakerConfig,
        clock: Arc<dyn Clock>,
    ) -> Self {
        let config = BreakerConfig {
            failure_threshold: config.failure_threshold.max(1),
            ..config
        };
        Self {
            server: server.into(),
            config,
            clock,
            machine: Breaker::new(config.failure_threshold, config.cool_down),
        }
    }

    /// The server this breaker guards.
    pub fn server(&self) -> &str {
        &self.server
    }

    /// The current state. An open breaker whose cool-down has passed reports `HalfOpen`.
    pub fn state(&self) -> BreakerState {
        self.machine.state(self.clock.now())
    }

    /// Asks to make a call. `Ok` carries a permit to report the outcome with; `Err` says the
    /// breaker is open and when to retry.
    pub fn acquire(&self) -> Result<Permit<'_>, BreakerOpen> {
        match self.machine.admit(self.clock.now()) {
            Ok(ticket) => Ok(Permit {
                clock: &*self.clock,
                ticket,
            }),
            Err(retry_in) => Err(BreakerOpen {
                server: self.server.clone(),
                failures: self.config.failure_threshold,
                retry_in,
            }),
        }
    }
}

/// Permission to make one call; report its outcome with [`Permit::success`] or
/// [`Permit::failure`]. Dropping it unreported counts as neither.
#[must_use = "report the call's outcome with success() or failure()"]
pub struct Permit<'a> {
    clock: &'a dyn Clock,
    ticket: Ticket<'a>,
}

impl Permit<'_> {
    /// Whether this call is the half-open probe.
    pub fn is_probe(&self) -> bool {
        self.ticket.is_probe()
    }

    /// The call succeeded (the server answered): resets the failure count, and closes the
    /// breaker when this call was the probe.
    pub fn success(mut self) {
        self.ticket.record(false, self.clock.now());
    }

    /// The call failed in a way that says the server is unhealthy.
    pub fn failure(mut self) {
        self.ticket.record(true, self.clock.now());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn breaker(threshold: u32, cool_down_secs: u64) -> (CircuitBreaker, ManualClock) {
        let clock = ManualClock::new();
        let b = CircuitBreaker::with_clock(
            "weather",
            BreakerConfig {
                failure_threshold: threshold,
                cool_down: Duration::from_secs(cool_down_secs),
            },
            Arc::new(clock.clone()),
        );
        (b, clock)
    }

    fn fail(b: &CircuitBreaker, times: u32) {
        for _ in 0..times {
            b.acquire().expect("admitted").failure();
        }
    }

    #[test]
    fn defaults_are_five_failures_and_thirty_seconds() {
        let c = BreakerConfig::default();
        assert_eq!(c.failure_threshold, 5);
        assert_eq!(c.cool_down, Duration::from_secs(30));
    }

    #[test]
    fn closed_counts_consecutive_failures_and_opens_at_the_threshold() {
        let (b, _) = breaker(3, 30);
        fail(&b, 2);
        assert_eq!(b.state(), BreakerState::Closed { failures: 2 });
        fail(&b, 1);
        assert!(matches!(b.state(), BreakerState::Open { .. }));
    }

    #[test]
    fn a_success_resets_the_count() {
        let (b, _) = breaker(3, 30);
        fail(&b, 2);
        b.acquire().expect("admitted").success();
        assert_eq!(b.state(), BreakerState::Closed { failures: 0 });
        fail(&b, 2);
        assert_eq!(b.state(), BreakerState::Closed { failures: 2 });
    }

    #[test]
    fn open_fails_fast_and_says_when_it_retries() {
        let (b, clock) = breaker(2, 30);
        fail(&b, 2);
        clock.advance(Duration::from_millis(10_500));
        let err = b.acquire().err().expect("refused while open");
        assert_eq!(err.server, "weather");
        assert_eq!(err.retry_in, Duration::from_millis(19_500));
        assert_eq!(
            err.to_string(),
            "server `weather` is unavailable: circuit breaker open after 2 consecutive failures; next attempt allowed in 20 s"
        );
    }

    #[test]
    fn after_the_cool_down_exactly_one_probe_goes_through() {
        let (b, clock) = breaker(1, 30);
        fail(&b, 1);
        clock.advance(Duration::from_secs(30));
        assert_eq!(
            b.state(),
            BreakerState::HalfOpen {
                probe_in_flight: false
            }
        );
        let probe = b.acquire().expect("the probe");
        assert!(probe.is_probe());
        let second = b.acquire().err().expect("only one probe");
        assert_eq!(second.retry_in, Duration::ZERO);
        assert!(second.to_string().contains("a probe call is in flight"));
        probe.success();
        assert_eq!(b.state(), BreakerState::Closed { failures: 0 });
        assert!(!b.acquire().expect("closed again").is_probe());
    }

    #[test]
    fn a_failed_probe_opens_again_for_a_full_cool_down() {
        let (b, clock) = breaker(1, 30);
        fail(&b, 1);
        clock.advance(Duration::from_secs(31));
        b.acquire().expect("the probe").failure();
        let err = b.acquire().err().expect("open again");
        assert_eq!(err.retry_in, Duration::from_secs(30));
        clock.advance(Duration::from_secs(30));
        assert!(b.acquire().expect("next probe").is_probe());
    }

    #[test]
    fn a_dropped_probe_frees_the_slot() {
        let (b, clock) = breaker(1, 5);
        fail(&b, 1);
        clock.advance(Duration::from_secs(5));
        drop(b.acquire().expect("the probe"));
        assert_eq!(
            b.state(),
            BreakerState::HalfOpen {
                probe_in_flight: false
            }
        );
        assert!(b.acquire().expect("another probe").is_probe());
    }

    #[test]
    fn a_late_failure_of_a_call_admitted_while_closed_does_not_extend_the_open_period() {
        let (b, clock) = breaker(1, 30);
        let late = b.acquire().expect("admitted while closed");
        fail(&b, 1);
        let BreakerState::Open { until } = b.state() else {
            panic!("open");
        };
        clock.advance(Duration::from_secs(10));
        late.failure();
        assert_eq!(b.state(), BreakerState::Open { until });
    }

    #[test]
    fn a_zero_threshold_is_taken_as_one() {
        let (b, _) = breaker(0, 30);
        fail(&b, 1);
        assert!(matches!(b.state(), BreakerState::Open { .. }));
    }
}
