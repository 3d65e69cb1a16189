//! Polling an operation that runs long ([`HttpBinding::task`]): its request answered
//! `202 Accepted` with a `Location`, which is polled with GET until the operation ends.
//!
//! - `202`: still working; a new `Location` on it is polled next, after the wait its
//!   `Retry-After` asks for (`wait`), at most [`TaskPolling::max_interval`];
//! - a redirect (`303 See Other`): the result is there, and is fetched at once;
//! - anything else (`200`, a `4xx`/`5xx`, no answer): the end, mapped as the operation's own
//!   response would be.
//!
//! Polling goes to the origin of the operation's request, with the upstream's credentials, and
//! to the origins the operator allowed ([`TaskPolling::follow_origins`]) with none (`origin`);
//! a `Location` anywhere else ends the call with an error naming it. Every poll passes the
//! upstream's guard. Polling stops at once when the call is cancelled (`tasks/cancel`, or the
//! caller going away), and when the call's time runs out; a cancel also reaches the API where
//! the spec documents `DELETE` on the status endpoint (`cancel`).
//!
//! [`HttpBinding::task`]: mcpgen_core::tool::HttpBinding::task

mod cancel;
mod origin;
mod wait;

use std::time::{Duration, Instant, SystemTime};

use reqwest::header::HeaderMap;

use mcpgen_core::result::ToolResult;

use super::invoked::GuardReport;
use super::redirect::MAX_REDIRECTS;
use super::response::Call;
use super::{Exchange, Upstream, UpstreamError};
use crate::toolset::CallContext;

/// The most a server waits between two polls of an operation's status, by default: 30 s.
pub const DEFAULT_TASK_POLL_MAX_INTERVAL: Duration = Duration::from_secs(30);

/// How long polling goes on for a call with no time limit of its own: the default time to
/// live of a task, past which the task ends anyway.
const POLL_LIMIT: Duration = crate::tasks::DEFAULT_TASK_TTL;

/// How operations that run long are polled.
#[derive(Debug, Clone)]
pub struct TaskPolling {
    /// The longest wait between two polls, whatever `Retry-After` asks for.
    pub max_interval: Duration,
    /// Origins other than the upstream's (`https://files.example.com`) that a `Location` may
    /// lead to; they are polled with no credential. Empty (the default): only the upstream's
    /// own origin.
    pub follow_origins: Vec<String>,
}

impl Default for TaskPolling {
    fn default() -> Self {
        Self {
            max_interval: DEFAULT_TASK_POLL_MAX_INTERVAL,
            follow_origins: Vec::new(),
        }
    }
}

/// [`TaskPolling`] checked: the allowed origins parsed.
#[derive(Debug, Clone)]
pub(super) struct Policy {
    max_interval: Duration,
    follow: Vec<url::Origin>,
}

impl Policy {
    /// Checks `polling`; fails naming an origin that is not `scheme://host[:port]`.
    pub(super) fn new(polling: &TaskPolling) -> Result<Self, UpstreamError> {
        let follow = polling
            .follow_origins
            .iter()
            .map(|text| {
                origin::parse(text).map_err(|reason| UpstreamError::FollowOrigin {
                    origin: text.clone(),
                    reason,
                })
            })
            .collect::<Result<_, _>>()?;
        Ok(Self {
            max_interval: polling.max_interval,
            follow,
        })
    }
}

/// An operation's request answered `202` with a `Location`: where polling starts from.
pub(super) struct Accepted {
    /// The URL the request went to: relative `Location`s resolve against it, and its origin
    /// is the one polled with credentials.
    pub url: url::Url,
    /// The request's headers (credentials, forwarded headers, trace), sent with each poll on
    /// the request's own origin only.
    pub headers: HeaderMap,
    /// The `202`'s `Location`.
    pub location: String,
    /// The `202`'s `Retry-After`.
    pub retry_after: Option<String>,
    /// The status endpoints whose `DELETE` cancels the operation.
    pub cancel: &'static [&'static str],
}

/// Why polling ended without a final response.
enum Stop {
    Cancelled,
    OutOfTime,
}

impl Upstream {
    /// Polls the operation `accepted` started until it ends, for the call `ctx`, each request
    /// limited to `timeout` (or the configured timeout). Returns the final exchange, mapped
    /// by the caller as the operation's own response, after setting `what` to the request
    /// that got it; or the error result of a call that cannot go on (a `Location` elsewhere,
    /// the call cancelled or out of time, a poll the guard refused).
    pub(super) async fn poll(
        &self,
        accepted: Accepted,
        ctx: &CallContext,
        timeout: Option<Duration>,
        what: &mut Call,
        report: &mut GuardReport,
    ) -> Result<Exchange, ToolResult> {
        let started = what.to_string();
        let own = accepted.url.origin();
        let limit = ctx.time_left().unwrap_or(POLL_LIMIT);
        let deadline = Instant::now() + limit;
        let resolve = |base: &url::Url, location: &str| {
            base.join(location).map_err(|e| {
                ToolResult::error(format!(
                    "{started} was accepted, but its status `Location` `{}` is not a valid \
                     URL: {e}",
                    super::base_url::redact_url_text(location)
                ))
            })
        };
        let mut target = resolve(&accepted.url, &accepted.location)?;
        let mut last_wait = wait::next(
            accepted.retry_after.as_deref(),
            None,
            self.polling.max_interval,
            SystemTime::now(),
        );
        let mut pending = Some(last_wait);
        let mut redirects = 0;
        loop {
            if let Some(pause) = pending.take()
                && let Err(stop) = self.pause(pause, deadline, ctx).await
            {
                if matches!(stop, Stop::Cancelled) {
                    self.cancel_at_api(&accepted, &target, report).await;
                }
                return Err(stopped(&started, &target, stop, limit));
            }
            let (url, headers) = match origin::place(&target, &own, &self.polling.follow) {
                origin::Place::Own => self.with_credentials(&accepted, &target),
                origin::Place::Allowed => (target.clone(), HeaderMap::new()),
                origin::Place::Elsewhere => return Err(elsewhere(&started, &target, &own)),
            };
            *what = Call {
                method: "GET".to_owned(),
                path: target.path().to_owned(),
                operation_id: std::mem::take(&mut what.operation_id),
            };
            let left = deadline.saturating_duration_since(Instant::now());
            let builder = self
                .http
                .get(url)
                .headers(headers)
                .timeout(timeout.unwrap_or(self.config.timeout).min(left));
            let outcome = tokio::select! {
                biased;
                () = ctx.cancellation.cancelled() => {
                    self.cancel_at_api(&accepted, &target, report).await;
                    return Err(stopped(&started, &target, Stop::Cancelled, limit));
                }
                outcome = self.guarded(&reqwest::Method::GET, builder, true, report) => outcome,
            };
            let outcome =
                outcome.map_err(|why| ToolResult::error(format!("{what} was not sent: {why}")))?;
            let Ok((status, head, _)) = &outcome else {
                return Ok(outcome);
            };
            let next = head.location.as_deref();
            match (status.as_u16(), next) {
                (202, next) => {
                    redirects = 0;
                    if let Some(next) = next {
                        target = resolve(&target, next)?;
                    }
                    last_wait = wait::next(
                        head.retry_after.as_deref(),
                        Some(last_wait),
                        self.polling.max_interval,
                        SystemTime::now(),
                    );
                    pending = Some(last_wait);
                }
                (300..=399, Some(next)) if redirects < MAX_REDIRECTS => {
                    redirects += 1;
                    target = resolve(&target, next)?;
                }
                _ => return Ok(outcome),
            }
        }
    }

    /// The request to `target`, on the origin of the operation `accepted` started: its URL and
    /// headers with the upstream's credentials (those of a query API key in the URL).
    fn with_credentials(&self, accepted: &Accepted, target: &url::Url) -> (url::Url, HeaderMap) {
        let mut url = target.clone();
        let mut headers = accepted.headers.clone();
        self.auth.apply(&mut headers, &mut url);
        (url, headers)
    }

    /// Waits `pause`, or less when the deadline comes first (then fails); fails at once when
    /// the call is cancelled.
    async fn pause(
        &self,
        pause: Duration,
        deadline: Instant,
        ctx: &CallContext,
    ) -> Result<(), Stop> {
        let now = Instant::now();
        if now >= deadline {
            return Err(Stop::OutOfTime);
        }
        let until = (now + pause).min(deadline);
        tokio::select! {
            biased;
            () = ctx.cancellation.cancelled() => Err(Stop::Cancelled),
            () = tokio::time::sleep_until(until.into()) => {
                if until >= deadline { Err(Stop::OutOfTime) } else { Ok(()) }
            }
        }
    }
}

/// The error of a call whose status `Location` leads to an origin polling may not follow.
fn elsewhere(started: &str, target: &url::Url, own: &url::Origin) -> ToolResult {
    let origin = target.origin().ascii_serialization();
    ToolResult::error(format!(
        "{started} was accepted, but its status is at `{}`, on the origin `{origin}`, not the \
         upstream's own (`{}`); it was not polled, since the upstream's credentials belong to \
         its own origin only. If that origin is trusted, allow it with `--task-follow-origin \
         {origin}` (it is then polled without credentials).",
        origin::shown(target),
        own.ascii_serialization(),
    ))
}

/// The error of a call whose polling stopped before the operation ended.
fn stopped(started: &str, target: &url::Url, stop: Stop, limit: Duration) -> ToolResult {
    let at = origin::shown(target);
    ToolResult::error(match stop {
        Stop::Cancelled => format!(
            "{started} was accepted and its status was being polled at `{at}` when the call \
             was cancelled; polling stopped (the operation itself may still be running)"
        ),
        Stop::OutOfTime => format!(
            "{started} was accepted, but it was still running when the call's time ran out \
             ({} s) polling its status at `{at}`; the operation itself may still be running",
            limit.as_secs()
        ),
    })
}
