//! Per-principal rate limits: one token bucket per principal id.
//!
//! A principal's own limit ([`Principal::rate_limit`], e.g. from the keys file) overrides the
//! server default; with neither, calls are not limited. A bucket holds up to one second's worth
//! of calls (at least one), so short bursts pass and the sustained rate is the limit.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::principal::Principal;

/// Above this many buckets, full (idle) buckets are dropped before a new one is added.
const PRUNE_ABOVE: usize = 10_000;

/// A call refused by the rate limit.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RateLimited {
    /// The limit that applies, in calls per second.
    pub rate: f64,
    /// How long until the next call would be accepted.
    pub retry_after: Duration,
}

impl std::fmt::Display for RateLimited {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Round up to a tenth of a second, so retrying after the stated time succeeds.
        let tenths = (self.retry_after.as_secs_f64() * 10.0).ceil().max(1.0);
        write!(
            f,
            "rate limit exceeded ({} calls per second); retry after {:.1} seconds",
            self.rate,
            tenths / 10.0
        )
    }
}

#[derive(Debug)]
struct Bucket {
    tokens: f64,
    last: Instant,
}

/// Token buckets keyed by principal id.
#[derive(Debug)]
pub(crate) struct RateLimiter {
    default: Option<f64>,
    buckets: Mutex<HashMap<String, Bucket>>,
}

/// Whether `rate` is usable as a limit (finite and positive).
pub(crate) fn is_valid_rate(rate: f64) -> bool {
    rate.is_finite() && rate > 0.0
}

fn capacity(rate: f64) -> f64 {
    rate.max(1.0)
}

impl RateLimiter {
    /// A limiter with `default` calls per second for principals without their own limit.
    pub(crate) fn new(default: Option<f64>) -> Self {
        Self {
            default: default.filter(|r| is_valid_rate(*r)),
            buckets: Mutex::new(HashMap::new()),
        }
    }

    /// The limit that applies to `principal`, if any.
    fn rate_for(&self, principal: &Principal) -> Option<f64> {
        principal
            .rate_limit
            .filter(|r| is_valid_rate(*r))
            .or(self.default)
    }

    /// Takes one call from `principal`'s bucket, or says when to retry.
    pub(crate) fn check(&self, principal: &Principal) -> Result<(), RateLimited> {
        self.check_at(principal, Instant::now())
    }

    fn check_at(&self, principal: &Principal, now: Instant) -> Result<(), RateLimited> {
        let Some(rate) = self.rate_for(principal) else {
            return Ok(());
        };
        let cap = capacity(rate);
        let mut buckets = self
            .buckets
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if !buckets.contains_key(&principal.id) && buckets.len() >= PRUNE_ABOVE {
            // Drop buckets that have refilled completely: forgetting them changes nothing.
            buckets.retain(|_, b| {
                b.tokens + now.saturating_duration_since(b.last).as_secs_f64() * rate < cap
            });
        }
        let bucket = buckets.entry(principal.id.clone()).or_insert(Bucket {
            tokens: cap,
            last: now,
        });
        let elapsed = now.saturating_duration_since(bucket.last).as_secs_f64();
        bucket.tokens = (bucket.tokens + elapsed * rate).min(cap);
        bucket.last = now;
        if bucket.tokens >= 1.0 {
            bucket.tokens -= 1.0;
            Ok(())
        } else {
            let wait = (1.0 - bucket.tokens) / rate;
            Err(RateLimited {
                rate,
                retry_after: Duration::from_secs_f64(wait),
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn principal(rate: Option<f64>) -> Principal {
        let mut p = Principal::unrestricted("alice");
        p.rate_limit = rate;
        p
    }

    #[test]
    fn without_a_limit_everything_passes() {
        let limiter = RateLimiter::new(None);
        for _ in 0..1000 {
            assert!(limiter.check(&principal(None)).is_ok());
        }
    }

    #[test]
    fn the_default_limit_allows_a_burst_then_refuses_with_a_retry_time() {
        let limiter = RateLimiter::new(Some(2.0));
        let now = Instant::now();
        let p = principal(None);
        assert!(limiter.check_at(&p, now).is_ok());
        assert!(limiter.check_at(&p, now).is_ok());
        let refused = limiter.check_at(&p, now).unwrap_err();
        assert_eq!(refused.rate, 2.0);
        assert!((refused.retry_after.as_secs_f64() - 0.5).abs() < 1e-9);
        assert!(
            refused.to_string().contains("retry after 0.5 seconds"),
            "{refused}"
        );
        // Half a second later one token has come back.
        assert!(
            limiter
                .check_at(&p, now + Duration::from_millis(500))
                .is_ok()
        );
    }

    #[test]
    fn the_principal_limit_overrides_the_default() {
        let limiter = RateLimiter::new(Some(100.0));
        let now = Instant::now();
        let p = principal(Some(0.5));
        assert!(limiter.check_at(&p, now).is_ok());
        let refused = limiter.check_at(&p, now).unwrap_err();
        assert!((refused.retry_after.as_secs_f64() - 2.0).abs() < 1e-9);
    }

    #[test]
    fn principals_have_separate_buckets() {
        let limiter = RateLimiter::new(Some(1.0));
        let now = Instant::now();
        let alice = principal(None);
        let mut bob = principal(None);
        bob.id = "bob".into();
        assert!(limiter.check_at(&alice, now).is_ok());
        assert!(limiter.check_at(&alice, now).is_err());
        assert!(limiter.check_at(&bob, now).is_ok());
    }
}
