//! RFC 3339 timestamps of audit records, written by chrono.

use std::time::{SystemTime, UNIX_EPOCH};

use chrono::{DateTime, SecondsFormat, TimeDelta, Utc};

/// The current time as RFC 3339 in UTC with millisecond precision,
/// e.g. `2025-06-01T12:34:56.789Z`.
pub fn now_rfc3339() -> String {
    rfc3339(SystemTime::now())
}

/// `time` as RFC 3339 in UTC with millisecond precision (truncated), e.g.
/// `1970-01-01T00:00:00.000Z` for the Unix epoch. A time outside chrono's range (about
/// 262,000 years either side of year 0) is written as the nearest end of the range.
pub fn rfc3339(time: SystemTime) -> String {
    let at = match time.duration_since(UNIX_EPOCH) {
        Ok(after) => TimeDelta::from_std(after)
            .ok()
            .and_then(|after| DateTime::UNIX_EPOCH.checked_add_signed(after))
            .unwrap_or(DateTime::<Utc>::MAX_UTC),
        Err(before) => TimeDelta::from_std(before.duration())
            .ok()
            .and_then(|before| DateTime::UNIX_EPOCH.checked_sub_signed(before))
            .unwrap_or(DateTime::<Utc>::MIN_UTC),
    };
    at.to_rfc3339_opts(SecondsFormat::Millis, true)
}
