//! Rate limits shared by every replica of a server, kept in Redis or Valkey
//! (`--rate-limit-redis redis://…`, feature `redis`).
//!
//! Each principal has one key, `mcpgen:rate:<principal id>`, holding the theoretical arrival
//! time of GCRA (the generic cell rate algorithm): a limit of `r` calls per second with a
//! burst of `b` lets a call through when it is no earlier than `b - 1` intervals of `1/r`
//! before that time, then moves the time one interval on. The check and the update are one
//! server-side script, so replicas never race, and the clock is Redis's own (`TIME`), so
//! replicas' clocks do not matter.
//!
//! When Redis cannot be reached, [`RedisUnavailable`] decides: `open` lets calls through
//! (logging a warning and counting `mcpgen_rate_limit_store_errors_total`), `closed` refuses
//! them and makes `/readyz` report not ready until Redis answers again.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use tokio::sync::OnceCell;

/// The GCRA check-and-update. KEYS[1]: the bucket; ARGV[1]: the emission interval and
/// ARGV[2]: the burst tolerance, both in microseconds. Returns `{1, 0}` when the call may go
/// ahead, `{0, microseconds to wait}` otherwise.
const GCRA: &str = r"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local interval = tonumber(ARGV[1])
local tolerance = tonumber(ARGV[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or now)
if tat < now then tat = now end
local allow_at = tat - tolerance
if now < allow_at then
  return {0, math.ceil(allow_at - now)}
end
local new_tat = tat + interval
redis.call('SET', KEYS[1], string.format('%.0f', new_tat), 'PX', math.ceil((new_tat - now) / 1000) + 1000)
return {1, 0}
";

/// How long one Redis round trip (or connecting) may take before Redis counts as away.
const TIMEOUT: Duration = Duration::from_millis(500);

/// What happens to calls while Redis is unreachable (`--rate-limit-redis-unavailable`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum RedisUnavailable {
    /// Calls go ahead unlimited; a warning is logged and a metric counts each one.
    #[default]
    Open,
    /// Calls are refused (audited as `unavailable`) and `/readyz` reports not ready.
    Closed,
}

/// A `--rate-limit-redis` URL that cannot be used.
#[derive(Debug, Clone, thiserror::Error)]
#[error(
    "--rate-limit-redis {url}: {reason}; use redis://[:PASSWORD@]HOST[:PORT][/DB] or \
     rediss://… for TLS"
)]
pub struct RedisUrlError {
    url: String,
    reason: String,
}

/// What the shared limiter answers.
pub enum SharedVerdict {
    /// The call may go ahead.
    Allowed,
    /// The call is over the limit; retry after this long.
    Limited(Duration),
    /// Redis is away and the limiter fails closed.
    Unavailable,
}

/// The limiter in Redis.
pub struct RedisLimiter {
    client: redis::Client,
    connection: OnceCell<ConnectionManager>,
    script: redis::Script,
    when_down: RedisUnavailable,
    available: Arc<AtomicBool>,
    url: String,
}

impl std::fmt::Debug for RedisLimiter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisLimiter")
            .field("url", &self.url)
            .field("when_down", &self.when_down)
            .finish_non_exhaustive()
    }
}

/// `url` with its password, if any, replaced by `***`.
fn redact(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    match rest.split_once('@') {
        Some((userinfo, host)) if userinfo.contains(':') => {
            let user = userinfo.split(':').next().unwrap_or_default();
            format!("{scheme}://{user}:***@{host}")
        }
        _ => url.to_owned(),
    }
}

impl RedisLimiter {
    /// Checks `url` and starts a background probe (on the current Tokio runtime) that keeps
    /// [`ready`](Self::ready) up to date; connects on first use.
    pub fn new(url: &str, when_down: RedisUnavailable) -> Result<Arc<Self>, RedisUrlError> {
        let shown = redact(url);
        let fail = |reason: String| RedisUrlError {
            url: shown.clone(),
            reason,
        };
        let scheme = url.split_once("://").map(|(s, _)| s.to_ascii_lowercase());
        if !matches!(
            scheme.as_deref(),
            Some("redis" | "rediss" | "valkey" | "valkeys")
        ) {
            return Err(fail("not a Redis URL".to_owned()));
        }
        let client = redis::Client::open(url).map_err(|e| fail(e.to_string()))?;
        let limiter = Arc::new(Self {
            client,
            connection: OnceCell::new(),
            script: redis::Script::new(GCRA),
            when_down,
            available: Arc::new(AtomicBool::new(false)),
            url: shown,
        });
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            let probe = Arc::downgrade(&limiter);
            runtime.spawn(async move {
                loop {
                    let Some(limiter) = probe.upgrade() else {
                        return;
                    };
                    limiter.ping().await;
                    drop(limiter);
                    tokio::time::sleep(Duration::from_secs(1)).await;
                }
            });
        }
        Ok(limiter)
    }

    /// Whether calls can be admitted: always when failing open, else while Redis answers.
    pub fn ready(&self) -> bool {
        self.when_down == RedisUnavailable::Open || self.available.load(Ordering::Acquire)
    }

    async fn connection(&self) -> Result<ConnectionManager, redis::RedisError> {
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(TIMEOUT))
            .set_response_timeout(Some(TIMEOUT))
            .set_number_of_retries(1);
        self.connection
            .get_or_try_init(|| async {
                ConnectionManager::new_with_config(self.client.clone(), config).await
            })
            .await
            .cloned()
    }

    async fn ping(&self) {
        let answered = match self.connection().await {
            Ok(mut connection) => {
                let pong: Result<String, _> = redis::cmd("PING").query_async(&mut connection).await;
                pong.is_ok()
            }
            Err(_) => false,
        };
        self.mark(answered);
    }

    fn mark(&self, answered: bool) {
        let was = self.available.swap(answered, Ordering::AcqRel);
        if was && !answered {
            tracing::warn!(url = %self.url, fail = ?self.when_down, "rate limit store (Redis) unreachable");
        } else if !was && answered {
            tracing::info!(url = %self.url, "rate limit store (Redis) reached");
        }
    }

    /// Takes one call from `key`'s allowance: `per_second` calls a second, `burst` at once.
    pub async fn check(&self, key: &str, per_second: f64, burst: f64) -> SharedVerdict {
        let interval = (1_000_000.0 / per_second).max(1.0);
        let tolerance = interval * (burst.max(1.0) - 1.0);
        let outcome = async {
            let mut connection = self.connection().await?;
            let answer: (i64, i64) = self
                .script
                .key(format!("mcpgen:rate:{key}"))
                .arg(format!("{interval:.0}"))
                .arg(format!("{tolerance:.0}"))
                .invoke_async(&mut connection)
                .await?;
            Ok::<_, redis::RedisError>(answer)
        };
        match tokio::time::timeout(TIMEOUT * 2, outcome).await {
            Ok(Ok((1, _))) => {
                self.mark(true);
                SharedVerdict::Allowed
            }
            Ok(Ok((_, wait))) => {
                self.mark(true);
                SharedVerdict::Limited(Duration::from_micros(u64::try_from(wait).unwrap_or(0)))
            }
            Ok(Err(error)) => self.down(&error.to_string()),
            Err(_) => self.down("no answer in time"),
        }
    }

    fn down(&self, error: &str) -> SharedVerdict {
        self.mark(false);
        match self.when_down {
            RedisUnavailable::Open => {
                tracing::warn!(url = %self.url, error, "rate limit store (Redis) unreachable: the call goes ahead unlimited");
                SharedVerdict::Allowed
            }
            RedisUnavailable::Closed => SharedVerdict::Unavailable,
        }
    }

    /// Whether the last check failed open (for the metric).
    pub fn failing_open(&self) -> bool {
        self.when_down == RedisUnavailable::Open && !self.available.load(Ordering::Acquire)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_never_show() {
        assert_eq!(
            redact("redis://:hunter2@cache:6379/0"),
            "redis://:***@cache:6379/0"
        );
        assert_eq!(redact("redis://cache:6379"), "redis://cache:6379");
    }
}
