//! How long to wait before the next poll: the status response's `Retry-After` (seconds or an
//! HTTP date) when it gives one, else a short first wait that doubles; never longer than the
//! configured most, never shorter than [`MIN_WAIT`].

use std::time::{Duration, SystemTime};

/// The wait before the first poll when the `202` gives no `Retry-After`.
const FIRST_WAIT: Duration = Duration::from_secs(1);

/// The shortest wait, whatever `Retry-After` says: an API answering `Retry-After: 0` is not
/// polled in a busy loop.
const MIN_WAIT: Duration = Duration::from_millis(250);

/// The wait before the next poll, after a `202` whose `Retry-After` is `retry_after`;
/// `previous` is the last wait (`None` before the first poll), `max` the configured most.
pub(super) fn next(
    retry_after: Option<&str>,
    previous: Option<Duration>,
    max: Duration,
    now: SystemTime,
) -> Duration {
    let wanted = retry_after
        .and_then(|value| retry_after_wait(value, now))
        .unwrap_or_else(|| previous.map_or(FIRST_WAIT, |last| last.saturating_mul(2)));
    wanted.max(MIN_WAIT).min(max.max(MIN_WAIT))
}

/// A `Retry-After` value as a wait from `now`: a whole number of seconds, or an HTTP date
/// (a date already past is no wait). `None` when it is neither.
fn retry_after_wait(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    let at = httpdate::parse_http_date(value).ok()?;
    Some(at.duration_since(now).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAX: Duration = Duration::from_secs(30);

    #[test]
    fn without_retry_after_the_wait_starts_short_and_doubles_up_to_the_most() {
        let now = SystemTime::now();
        let first = next(None, None, MAX, now);
        assert_eq!(first, FIRST_WAIT);
        let second = next(None, Some(first), MAX, now);
        assert_eq!(second, Duration::from_secs(2));
        assert_eq!(next(None, Some(Duration::from_secs(20)), MAX, now), MAX);
    }

    #[test]
    fn retry_after_in_seconds_or_as_a_date_is_honoured_within_bounds() {
        let now = httpdate::parse_http_date("Tue, 15 Nov 1994 08:12:31 GMT").unwrap();
        assert_eq!(next(Some("3"), None, MAX, now), Duration::from_secs(3));
        let date = "Tue, 15 Nov 1994 08:12:41 GMT";
        assert_eq!(next(Some(date), None, MAX, now), Duration::from_secs(10));
        assert_eq!(
            next(Some("3600"), None, MAX, now),
            MAX,
            "capped by the most"
        );
        assert_eq!(
            next(Some("0"), None, MAX, now),
            MIN_WAIT,
            "never a busy loop"
        );
        let past = "Tue, 15 Nov 1994 08:00:00 GMT";
        assert_eq!(next(Some(past), None, MAX, now), MIN_WAIT);
        assert_eq!(
            next(Some("soon"), Some(Duration::from_secs(4)), MAX, now),
            Duration::from_secs(8),
            "an unreadable value is as none"
        );
    }
}
