//! Which failed requests are sent once more, and after how long.

use std::time::Duration;

use reqwest::{Method, StatusCode};

/// The shortest wait before a retry.
const MIN_DELAY: Duration = Duration::from_millis(50);

/// The longest wait before a retry.
const MAX_DELAY: Duration = Duration::from_millis(250);

/// Whether a request of `method` may be sent twice: the idempotent methods of RFC 9110
/// (GET, HEAD, OPTIONS, TRACE, PUT, DELETE). Never POST or PATCH.
pub(crate) fn idempotent(method: &Method) -> bool {
    method.is_idempotent()
}

/// Whether a request that failed this way is worth one retry: it was not answered because
/// the connection could not be made (not a timeout, which already waited the whole timeout),
/// or it was answered 502, 503 or 504 (a proxy or the server saying it is briefly away).
pub(crate) fn worth_retrying(outcome: Result<StatusCode, &reqwest::Error>) -> bool {
    match outcome {
        Ok(status) => matches!(status.as_u16(), 502..=504),
        Err(err) => err.is_connect() && !err.is_timeout(),
    }
}

/// How long to wait before the retry: a random time between 50 and 250 ms, so callers that
/// failed together do not come back together.
pub(crate) fn jitter() -> Duration {
    let span = u64::try_from((MAX_DELAY - MIN_DELAY).as_millis()).unwrap_or(0);
    MIN_DELAY + Duration::from_millis(fastrand::u64(0..=span))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_idempotent_methods_retry() {
        for method in [Method::GET, Method::HEAD, Method::PUT, Method::DELETE] {
            assert!(idempotent(&method), "{method}");
        }
        for method in [Method::POST, Method::PATCH] {
            assert!(!idempotent(&method), "{method}");
        }
    }

    #[test]
    fn gateway_statuses_are_worth_a_retry_others_are_not() {
        for code in [502, 503, 504] {
            assert!(worth_retrying(Ok(StatusCode::from_u16(code).unwrap())));
        }
        for code in [200, 400, 404, 429, 500, 501] {
            assert!(!worth_retrying(Ok(StatusCode::from_u16(code).unwrap())));
        }
    }

    #[test]
    fn the_delay_stays_in_its_window() {
        for _ in 0..100 {
            let delay = jitter();
            assert!((MIN_DELAY..=MAX_DELAY).contains(&delay), "{delay:?}");
        }
    }
}
