//! Per-principal and per-tool rate limits: GCRA (`governor`) keyed by principal id, or by
//! principal and tool.
//!
//! A principal's own limit ([`Principal::rate_limit`], e.g. from the keys file) overrides the
//! server default; with neither, calls are not limited. A bucket holds up to one second's worth
//! of calls (at least one), or for a server default written per minute or hour (`10/min`), one
//! such window's worth, so short bursts pass and the sustained rate is the limit.
//!
//! With a shared store (feature `redis`), the same limits are kept in Redis for every replica
//! (see `shared_rate.rs`) instead of in this process.

use std::collections::HashMap;
use std::num::NonZeroU32;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use governor::Quota;
use governor::clock::{Clock, DefaultClock};
use governor::state::keyed::HashMapStateStore;
use mcpgen_identity::Principal;

/// Above this many keys in one limiter, idle keys (indistinguishable from fresh ones) are
/// dropped.
const PRUNE_ABOVE: usize = 10_000;

/// A keyed GCRA limiter for one quota.
type Keyed = governor::RateLimiter<String, HashMapStateStore<String>, DefaultClock>;

/// A call refused by the rate limit.
#[derive(Debug, Clone, PartialEq)]
pub struct RateLimited {
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

/// The limits of a server: its default, the per-tool limits, and where they are kept.
pub struct RateLimiter {
    default: Option<f64>,
    /// The default limit's burst, when it is not one second's worth.
    default_burst: Option<f64>,
    clock: DefaultClock,
    /// One keyed limiter per quota in use (calls per second and burst, as bits).
    limiters: Mutex<HashMap<(u64, u64), Arc<Keyed>>>,
    /// Per-tool limits (calls per second, burst), per principal.
    tool_limits: HashMap<&'static str, (f64, f64)>,
    /// Limits kept in Redis for every replica, instead of the limiters above.
    #[cfg(feature = "redis")]
    shared: Option<std::sync::Arc<crate::shared_rate::RedisLimiter>>,
}

/// Why the rate limit refused a call.
pub enum Refused {
    /// Over the limit.
    Limited(RateLimited),
    /// The shared store is unreachable and fails closed.
    #[cfg_attr(not(feature = "redis"), allow(dead_code))]
    Unavailable,
}

/// Whether `rate` is usable as a limit (finite and positive).
pub fn is_valid_rate(rate: f64) -> bool {
    rate.is_finite() && rate > 0.0
}

fn capacity(rate: f64) -> f64 {
    rate.max(1.0)
}

impl RateLimiter {
    /// A limiter with `default` calls per second for principals without their own limit.
    pub fn new(default: Option<f64>) -> Self {
        Self {
            default: default.filter(|r| is_valid_rate(*r)),
            default_burst: None,
            clock: DefaultClock::default(),
            limiters: Mutex::new(HashMap::new()),
            tool_limits: HashMap::new(),
            #[cfg(feature = "redis")]
            shared: None,
        }
    }

    /// The same limiter, with per-tool limits (each principal gets each tool's allowance).
    pub fn with_tool_limits(mut self, limits: &[mcpgen_contract::toolset::ToolRate]) -> Self {
        for limit in limits {
            if is_valid_rate(limit.per_second) {
                self.tool_limits
                    .insert(limit.tool, (limit.per_second, limit.burst.max(1.0)));
            }
        }
        self
    }

    /// The same limiter, whose default limit allows bursts of `burst` calls.
    pub fn with_default_burst(mut self, burst: Option<f64>) -> Self {
        self.default_burst = burst.filter(|b| is_valid_rate(*b));
        self
    }

    /// The same limiter, keeping its limits in Redis.
    #[cfg(feature = "redis")]
    pub fn with_shared(
        mut self,
        shared: Option<std::sync::Arc<crate::shared_rate::RedisLimiter>>,
    ) -> Self {
        self.shared = shared;
        self
    }

    /// The limit that applies to `principal`, if any.
    fn rate_for(&self, principal: &Principal) -> Option<f64> {
        principal
            .rate_limit
            .filter(|r| is_valid_rate(*r))
            .or(self.default)
    }

    /// The burst of `principal`'s limit `rate`.
    fn burst_for(&self, principal: &Principal, rate: f64) -> f64 {
        match (
            principal.rate_limit.filter(|r| is_valid_rate(*r)),
            self.default_burst,
        ) {
            (None, Some(burst)) => burst.max(1.0),
            _ => capacity(rate),
        }
    }

    /// Whether calls can be admitted now (not while a shared store that fails closed is away).
    /// `/readyz` asks it.
    pub fn ready(&self) -> bool {
        #[cfg(feature = "redis")]
        if let Some(shared) = &self.shared {
            return shared.ready();
        }
        true
    }

    /// Whether the shared store is away and calls go ahead unlimited (for the metric).
    pub fn failing_open(&self) -> bool {
        #[cfg(feature = "redis")]
        if let Some(shared) = &self.shared {
            return shared.failing_open();
        }
        false
    }

    /// Takes one call from `principal`'s allowance and, when `tool` has a limit of its own
    /// (allowlist `rate_limit:`), from `principal`'s allowance for `tool`; in Redis when
    /// shared, else here.
    pub async fn admit(&self, principal: &Principal, tool: &str) -> Result<(), Refused> {
        if let Some(rate) = self.rate_for(principal) {
            let burst = self.burst_for(principal, rate);
            self.take(&format!("p:{}", principal.id), rate, burst)
                .await?;
        }
        if let Some(&(rate, burst)) = self.tool_limits.get(tool) {
            // Tool names never hold `:`, so the key cannot collide with another.
            self.take(&format!("t:{tool}:{}", principal.id), rate, burst)
                .await?;
        }
        Ok(())
    }

    async fn take(&self, key: &str, rate: f64, burst: f64) -> Result<(), Refused> {
        #[cfg(feature = "redis")]
        if let Some(shared) = &self.shared {
            return match shared.check(key, rate, burst).await {
                crate::shared_rate::SharedVerdict::Allowed => Ok(()),
                crate::shared_rate::SharedVerdict::Limited(retry_after) => {
                    Err(Refused::Limited(RateLimited { rate, retry_after }))
                }
                crate::shared_rate::SharedVerdict::Unavailable => Err(Refused::Unavailable),
            };
        }
        self.take_local(key, rate, burst).map_err(Refused::Limited)
    }

    #[cfg(test)]
    fn check(&self, principal: &Principal) -> Result<(), RateLimited> {
        let Some(rate) = self.rate_for(principal) else {
            return Ok(());
        };
        let cap = self.burst_for(principal, rate);
        self.take_local(&format!("p:{}", principal.id), rate, cap)
    }

    /// Takes one call from `key`'s allowance (`rate` per second, `cap` at once), or says when
    /// to retry.
    fn take_local(&self, key: &str, rate: f64, cap: f64) -> Result<(), RateLimited> {
        let limiter = {
            let mut limiters = self
                .limiters
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            let quota = (rate.to_bits(), cap.to_bits());
            match limiters.get(&quota) {
                Some(limiter) => limiter.clone(),
                None => {
                    let Some(built) = quota_of(rate, cap) else {
                        return Ok(()); // not a usable rate: not limited (refused at build)
                    };
                    let limiter = Arc::new(Keyed::hashmap_with_clock(built, self.clock.clone()));
                    limiters.insert(quota, limiter.clone());
                    limiter
                }
            }
        };
        if limiter.len() > PRUNE_ABOVE {
            limiter.retain_recent();
        }
        limiter
            .check_key(&key.to_owned())
            .map_err(|not_until| RateLimited {
                rate,
                retry_after: not_until.wait_time_from(self.clock.now()),
            })
    }
}

impl std::fmt::Debug for RateLimiter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RateLimiter")
            .field("default", &self.default)
            .field("default_burst", &self.default_burst)
            .field("tool_limits", &self.tool_limits)
            .finish_non_exhaustive()
    }
}

/// `rate` calls per second with bursts of `cap` (rounded, at least one).
fn quota_of(rate: f64, cap: f64) -> Option<Quota> {
    if !is_valid_rate(rate) {
        return None;
    }
    let burst = NonZeroU32::new(cap.round().clamp(1.0, f64::from(u32::MAX)) as u32)
        .unwrap_or(NonZeroU32::MIN);
    Quota::with_period(Duration::from_secs_f64(1.0 / rate)).map(|q| q.allow_burst(burst))
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
        let p = principal(None);
        assert!(limiter.check(&p).is_ok());
        assert!(limiter.check(&p).is_ok());
        let refused = limiter.check(&p).unwrap_err();
        assert_eq!(refused.rate, 2.0);
        // The next call is due half a second after the first two (less the time since).
        let retry = refused.retry_after.as_secs_f64();
        assert!(retry > 0.0 && retry <= 0.5, "{retry}");
        assert!(
            refused.to_string().contains("retry after 0.5 seconds"),
            "{refused}"
        );
    }

    #[test]
    fn a_window_burst_lets_that_many_through_at_once() {
        let limiter = RateLimiter::new(Some(10.0 / 60.0)).with_default_burst(Some(10.0));
        let p = principal(None);
        for _ in 0..10 {
            assert!(limiter.check(&p).is_ok());
        }
        let refused = limiter.check(&p).unwrap_err();
        assert!(refused.retry_after.as_secs_f64() > 5.0, "{refused:?}");
    }

    #[test]
    fn the_principal_limit_overrides_the_default() {
        let limiter = RateLimiter::new(Some(100.0));
        let p = principal(Some(0.5));
        assert!(limiter.check(&p).is_ok());
        let refused = limiter.check(&p).unwrap_err();
        let retry = refused.retry_after.as_secs_f64();
        assert!(retry > 1.5 && retry <= 2.0, "{retry}");
    }

    #[tokio::test]
    async fn a_tool_limit_holds_per_principal_beside_the_principal_limit() {
        let limiter =
            RateLimiter::new(None).with_tool_limits(&[mcpgen_contract::toolset::ToolRate::new(
                "costly",
                2.0 / 60.0,
                2.0,
            )]);
        let alice = principal(None);
        let mut bob = principal(None);
        bob.id = "bob".into();
        assert!(limiter.admit(&alice, "costly").await.is_ok());
        assert!(limiter.admit(&alice, "costly").await.is_ok());
        assert!(matches!(
            limiter.admit(&alice, "costly").await,
            Err(Refused::Limited(_))
        ));
        assert!(limiter.admit(&alice, "cheap").await.is_ok());
        assert!(limiter.admit(&bob, "costly").await.is_ok());
    }

    #[test]
    fn principals_have_separate_buckets() {
        let limiter = RateLimiter::new(Some(1.0));
        let alice = principal(None);
        let mut bob = principal(None);
        bob.id = "bob".into();
        assert!(limiter.check(&alice).is_ok());
        assert!(limiter.check(&alice).is_err());
        assert!(limiter.check(&bob).is_ok());
    }
}
