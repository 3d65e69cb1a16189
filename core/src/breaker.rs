//! The state machine of a circuit breaker, shared by the server's upstream guard and the
//! client's registry: each side keeps its own settings, messages and clock, and both walk
//! these states.
//!
//! - **closed** (normal): every call goes through. A failure adds one to a counter, a success
//!   resets it; the `threshold`-th failure in a row opens the breaker. A threshold of 0 turns
//!   the breaker off: it never opens.
//! - **open**: calls are refused, each told how long until the next attempt. When the
//!   cool-down has passed, the next call becomes the probe.
//! - **half-open**: exactly one probe call is in flight; other calls are refused. The probe's
//!   first outcome decides: a success closes the breaker, a failure opens it again for another
//!   cool-down. A probe dropped without an outcome (its call was cancelled) frees the slot for
//!   the next one.
//!
//! Outcomes of calls let through before the breaker opened, or beside a probe, tell nothing
//! new and change nothing: the probe decides. What counts as a failure is the caller's
//! decision, and so is the time: every method that needs it takes `now`, so a caller can read
//! a clock of its own. The state is a few words behind a mutex held only to read and change
//! them, never across an await.

use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

/// Where a breaker stands, as reported by [`Breaker::state`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BreakerState {
    /// Calls go through; `failures` consecutive failures so far.
    Closed {
        /// Consecutive failures since the last success.
        failures: u32,
    },
    /// Calls fail fast until `until`.
    Open {
        /// When the next call may go through as a probe.
        until: Instant,
    },
    /// One probe may go through (or is in flight).
    HalfOpen {
        /// Whether the probe has been handed out and not yet resolved.
        probe_in_flight: bool,
    },
}

/// A circuit breaker guarding one server (see the module docs).
#[derive(Debug)]
pub struct Breaker {
    threshold: u32,
    cool_down: Duration,
    state: Mutex<BreakerState>,
}

/// A call the breaker let through; report each request's outcome with [`Ticket::record`].
#[derive(Debug)]
pub struct Ticket<'a> {
    breaker: &'a Breaker,
    probe: bool,
    done: bool,
}

impl Breaker {
    /// A closed breaker that opens after `threshold` failures in a row (0: never) and stays
    /// open for `cool_down`.
    pub fn new(threshold: u32, cool_down: Duration) -> Self {
        Self {
            threshold,
            cool_down,
            state: Mutex::new(BreakerState::Closed { failures: 0 }),
        }
    }

    fn lock(&self) -> MutexGuard<'_, BreakerState> {
        // The state is plain data, always left consistent: a panic elsewhere cannot leave it
        // half-written.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Turns an open breaker whose cool-down has passed at `now` half-open.
    fn expire(state: &mut BreakerState, now: Instant) {
        if let BreakerState::Open { until } = *state
            && now >= until
        {
            *state = BreakerState::HalfOpen {
                probe_in_flight: false,
            };
        }
    }

    /// The state at `now`: an open breaker whose cool-down has passed reports `HalfOpen`.
    pub fn state(&self, now: Instant) -> BreakerState {
        let mut state = self.lock();
        Self::expire(&mut state, now);
        *state
    }

    /// Lets a call through at `now`, or refuses it with how long until a probe may go (zero
    /// while a probe is in flight).
    pub fn admit(&self, now: Instant) -> Result<Ticket<'_>, Duration> {
        let ticket = |probe| Ticket {
            breaker: self,
            probe,
            done: false,
        };
        if self.threshold == 0 {
            return Ok(ticket(false));
        }
        let mut state = self.lock();
        Self::expire(&mut state, now);
        match *state {
            BreakerState::Closed { .. } => Ok(ticket(false)),
            BreakerState::HalfOpen {
                probe_in_flight: false,
            } => {
                *state = BreakerState::HalfOpen {
                    probe_in_flight: true,
                };
                Ok(ticket(true))
            }
            BreakerState::HalfOpen {
                probe_in_flight: true,
            } => Err(Duration::ZERO),
            BreakerState::Open { until } => Err(until.saturating_duration_since(now)),
        }
    }

    /// Whether a call that failed under `ticket` may try once more: not once the breaker is
    /// open, and never the probe.
    pub fn allows_retry(&self, ticket: &Ticket<'_>) -> bool {
        self.threshold == 0 || !ticket.probe && matches!(*self.lock(), BreakerState::Closed { .. })
    }
}

impl Ticket<'_> {
    /// Whether this call is the half-open probe.
    pub fn is_probe(&self) -> bool {
        self.probe
    }

    /// Records the outcome of one request of this call at `now` (`failed`: the caller counts
    /// it against the server). A call that retries records each request; a probe's first
    /// request decides. Returns whether this request opened the breaker.
    pub fn record(&mut self, failed: bool, now: Instant) -> bool {
        let breaker = self.breaker;
        if breaker.threshold == 0 || self.done && self.probe {
            return false;
        }
        let mut state = breaker.lock();
        let open = BreakerState::Open {
            until: now + breaker.cool_down,
        };
        if self.probe {
            self.done = true;
            *state = if failed {
                open
            } else {
                BreakerState::Closed { failures: 0 }
            };
            return failed;
        }
        match (*state, failed) {
            (BreakerState::Closed { .. }, false) => {
                *state = BreakerState::Closed { failures: 0 };
                false
            }
            (BreakerState::Closed { failures }, true) => {
                let failures = failures.saturating_add(1);
                if failures >= breaker.threshold {
                    *state = open;
                    true
                } else {
                    *state = BreakerState::Closed { failures };
                    false
                }
            }
            // Let through before the breaker opened, or beside a probe: the probe decides.
            (BreakerState::Open { .. } | BreakerState::HalfOpen { .. }, _) => false,
        }
    }
}

impl Drop for Ticket<'_> {
    fn drop(&mut self) {
        if self.probe && !self.done {
            let mut state = self.breaker.lock();
            if let BreakerState::HalfOpen { .. } = *state {
                *state = BreakerState::HalfOpen {
                    probe_in_flight: false,
                };
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOUR: Duration = Duration::from_secs(3600);

    fn fail(breaker: &Breaker, now: Instant, times: u32) {
        for _ in 0..times {
            breaker.admit(now).expect("admitted").record(true, now);
        }
    }

    #[test]
    fn closed_counts_failures_in_a_row_and_opens_at_the_threshold() {
        let now = Instant::now();
        let breaker = Breaker::new(3, HOUR);
        fail(&breaker, now, 2);
        assert_eq!(breaker.state(now), BreakerState::Closed { failures: 2 });
        let mut ticket = breaker.admit(now).expect("still closed");
        assert!(ticket.record(true, now), "the third failure opens it");
        assert_eq!(breaker.state(now), BreakerState::Open { until: now + HOUR });
    }

    #[test]
    fn a_success_resets_the_count() {
        let now = Instant::now();
        let breaker = Breaker::new(2, HOUR);
        let mut ticket = breaker.admit(now).expect("closed");
        ticket.record(true, now);
        ticket.record(false, now);
        assert_eq!(breaker.state(now), BreakerState::Closed { failures: 0 });
        ticket.record(true, now);
        assert_eq!(breaker.state(now), BreakerState::Closed { failures: 1 });
    }

    #[test]
    fn open_refuses_and_says_how_long_until_the_probe() {
        let now = Instant::now();
        let breaker = Breaker::new(1, Duration::from_secs(30));
        fail(&breaker, now, 1);
        let later = now + Duration::from_millis(10_500);
        let retry_in = breaker.admit(later).expect_err("open");
        assert_eq!(retry_in, Duration::from_millis(19_500));
    }

    #[test]
    fn after_the_cool_down_exactly_one_probe_goes_through_and_its_success_closes() {
        let now = Instant::now();
        let breaker = Breaker::new(1, Duration::from_secs(30));
        fail(&breaker, now, 1);
        let later = now + Duration::from_secs(30);
        assert_eq!(
            breaker.state(later),
            BreakerState::HalfOpen {
                probe_in_flight: false
            }
        );
        let mut probe = breaker.admit(later).expect("the probe");
        assert!(probe.is_probe());
        assert!(!breaker.allows_retry(&probe), "a probe never retries");
        assert_eq!(breaker.admit(later).expect_err("one probe"), Duration::ZERO);
        assert!(!probe.record(false, later));
        assert_eq!(breaker.state(later), BreakerState::Closed { failures: 0 });
        assert!(!breaker.admit(later).expect("closed again").is_probe());
    }

    #[test]
    fn a_failed_probe_opens_again_for_a_full_cool_down_and_its_first_request_decides() {
        let now = Instant::now();
        let breaker = Breaker::new(1, Duration::from_secs(30));
        fail(&breaker, now, 1);
        let later = now + Duration::from_secs(31);
        let mut probe = breaker.admit(later).expect("the probe");
        assert!(probe.record(true, later), "a failed probe opens it again");
        assert!(!probe.record(false, later), "only the first request counts");
        assert_eq!(
            breaker.admit(later).expect_err("open again"),
            Duration::from_secs(30)
        );
    }

    #[test]
    fn a_dropped_probe_frees_the_slot() {
        let now = Instant::now();
        let breaker = Breaker::new(1, Duration::ZERO);
        fail(&breaker, now, 1);
        drop(breaker.admit(now).expect("the probe"));
        assert_eq!(
            breaker.state(now),
            BreakerState::HalfOpen {
                probe_in_flight: false
            }
        );
        assert!(breaker.admit(now).expect("another probe").is_probe());
    }

    #[test]
    fn outcomes_of_calls_let_through_before_it_opened_change_nothing() {
        let now = Instant::now();
        let breaker = Breaker::new(1, HOUR);
        let mut late_failure = breaker.admit(now).expect("closed");
        let mut late_success = breaker.admit(now).expect("closed");
        fail(&breaker, now, 1);
        assert!(!breaker.allows_retry(&late_failure), "no retry once open");
        let later = now + Duration::from_secs(10);
        assert!(!late_failure.record(true, later));
        assert!(!late_success.record(false, later));
        assert_eq!(
            breaker.state(later),
            BreakerState::Open { until: now + HOUR }
        );
    }

    #[test]
    fn threshold_zero_never_opens() {
        let now = Instant::now();
        let breaker = Breaker::new(0, HOUR);
        let mut ticket = breaker.admit(now).expect("off");
        for _ in 0..10 {
            assert!(!ticket.record(true, now));
        }
        assert!(breaker.allows_retry(&ticket));
        assert_eq!(breaker.state(now), BreakerState::Closed { failures: 0 });
    }
}
