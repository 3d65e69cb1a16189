//! The circuit breaker of one upstream: closed while it answers, open (calls refused at once)
//! for a cool-down after `threshold` failed requests in a row, then half-open: one call goes
//! through as a probe, and its outcome closes the breaker or opens it again.
//!
//! A failure is a request that got no answer (connection refused or reset, a timeout) or an
//! answer with a 5xx status; any other answer is a success. The state is a few words behind
//! a mutex held only to read and change them, never across an await.

use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

/// Where the breaker stands.
#[derive(Debug, Clone, Copy)]
enum State {
    /// Requests go through; `failures` in a row so far.
    Closed { failures: u32 },
    /// Requests are refused until `until`.
    Open { until: Instant },
    /// The cool-down is over and one probe is (or is about to be) in flight; other requests
    /// are refused until it ends.
    Probing,
}

/// The breaker of one upstream (see the module docs). A `threshold` of 0 turns it off.
#[derive(Debug)]
pub(crate) struct Breaker {
    threshold: u32,
    cooldown: Duration,
    state: Mutex<State>,
}

/// Why the breaker refused a call: how long until it lets a probe through (zero while a
/// probe is in flight).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Open {
    pub retry_in: Duration,
}

/// A call the breaker let through; its outcome is reported with [`Breaker::record`]. A probe
/// dropped without an outcome (its call was cancelled) lets the next call probe.
#[derive(Debug)]
pub(crate) struct Ticket<'a> {
    breaker: &'a Breaker,
    probe: bool,
    done: bool,
}

impl Breaker {
    pub(crate) fn new(threshold: u32, cooldown: Duration) -> Self {
        Self {
            threshold,
            cooldown,
            state: Mutex::new(State::Closed { failures: 0 }),
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        // The state is plain data, always left consistent: a panic elsewhere cannot leave it
        // half-written.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Lets a call through, or says why not.
    pub(crate) fn admit(&self) -> Result<Ticket<'_>, Open> {
        let ticket = |probe| Ticket {
            breaker: self,
            probe,
            done: false,
        };
        if self.threshold == 0 {
            return Ok(ticket(false));
        }
        let mut state = self.state();
        match *state {
            State::Closed { .. } => Ok(ticket(false)),
            State::Open { until } => {
                let now = Instant::now();
                if now >= until {
                    *state = State::Probing;
                    Ok(ticket(true))
                } else {
                    Err(Open {
                        retry_in: until - now,
                    })
                }
            }
            State::Probing => Err(Open {
                retry_in: Duration::ZERO,
            }),
        }
    }

    /// Records the outcome of one request of `ticket`'s call (`failed`: no answer or a 5xx).
    /// A call that retries records each request; a probe's first request decides. Returns
    /// whether this request opened the breaker.
    pub(crate) fn record(&self, ticket: &mut Ticket<'_>, failed: bool) -> bool {
        if self.threshold == 0 || ticket.done && ticket.probe {
            return false;
        }
        let mut state = self.state();
        let open = State::Open {
            until: Instant::now() + self.cooldown,
        };
        if ticket.probe {
            ticket.done = true;
            *state = if failed {
                open
            } else {
                State::Closed { failures: 0 }
            };
            return failed;
        }
        match (*state, failed) {
            (State::Closed { .. }, false) => {
                *state = State::Closed { failures: 0 };
                false
            }
            (State::Closed { failures }, true) => {
                let failures = failures.saturating_add(1);
                if failures >= self.threshold {
                    *state = open;
                    true
                } else {
                    *state = State::Closed { failures };
                    false
                }
            }
            // Calls let through before the breaker opened, or beside a probe: the probe
            // decides.
            (State::Open { .. } | State::Probing, _) => false,
        }
    }

    /// Whether a call that failed may send its one retry: not once the breaker is open.
    pub(crate) fn allows_retry(&self, ticket: &Ticket<'_>) -> bool {
        self.threshold == 0 || !ticket.probe && matches!(*self.state(), State::Closed { .. })
    }
}

impl Drop for Ticket<'_> {
    fn drop(&mut self) {
        if self.probe && !self.done {
            let mut state = self.breaker.state();
            if matches!(*state, State::Probing) {
                *state = State::Open {
                    until: Instant::now(),
                };
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opens_after_the_threshold_and_a_probe_decides() {
        let breaker = Breaker::new(2, Duration::ZERO);
        let mut first = breaker.admit().expect("closed");
        assert!(!breaker.record(&mut first, true));
        let mut second = breaker.admit().expect("still closed");
        assert!(
            breaker.record(&mut second, true),
            "the second failure opens it"
        );
        // A zero cool-down: the next call is the probe, and calls beside it are refused.
        let mut probe = breaker.admit().expect("the probe goes through");
        assert!(
            breaker.admit().is_err(),
            "refused while the probe is in flight"
        );
        assert!(
            breaker.record(&mut probe, true),
            "a failed probe opens it again"
        );
        let mut probe = breaker.admit().expect("another probe");
        assert!(!breaker.record(&mut probe, false));
        assert!(
            breaker.admit().is_ok() && breaker.admit().is_ok(),
            "closed again"
        );
    }

    #[test]
    fn a_success_resets_the_count_and_an_open_breaker_refuses() {
        let breaker = Breaker::new(2, Duration::from_secs(3600));
        let mut ticket = breaker.admit().expect("closed");
        breaker.record(&mut ticket, true);
        breaker.record(&mut ticket, false);
        breaker.record(&mut ticket, true);
        assert!(breaker.admit().is_ok(), "failures were not in a row");
        breaker.record(&mut ticket, true);
        let open = breaker.admit().expect_err("open");
        assert!(open.retry_in > Duration::from_secs(3500));
        assert!(!breaker.allows_retry(&ticket));
    }

    #[test]
    fn a_dropped_probe_lets_the_next_call_probe() {
        let breaker = Breaker::new(1, Duration::ZERO);
        let mut ticket = breaker.admit().expect("closed");
        breaker.record(&mut ticket, true);
        drop(breaker.admit().expect("the probe"));
        assert!(breaker.admit().is_ok(), "the next call probes");
    }

    #[test]
    fn threshold_zero_never_opens() {
        let breaker = Breaker::new(0, Duration::from_secs(3600));
        let mut ticket = breaker.admit().expect("off");
        for _ in 0..10 {
            assert!(!breaker.record(&mut ticket, true));
        }
        assert!(breaker.admit().is_ok());
    }
}
