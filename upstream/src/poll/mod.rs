//! Polling an operation that runs long ([`HttpBinding::task`]): its request answered
//! `202 Accepted` with a `Location`, which is polled with GET until the operation ends.
//!
//! - `202`: still working; a new `Location` on it is polled next, after the wait its
//!   `Retry-After` asks for (`wait`), at most [`TaskPolling::max_interval`];
//! - a redirect (`303 See Other`, or `301`, `302`, `307`, `308`): the result is there, and is
//!   fetched at once, at most [`MAX_REDIRECTS`] hops in a row;
//! - anything else (`200`, a `4xx`/`5xx`, no answer): the end, mapped as the operation's own
//!   response would be.
//!
//! Polling goes to the origin of the operation's request, with the upstream's credentials, and
//! to the origins the operator allowed ([`TaskPolling::follow_origins`]) with none (`origin`);
//! a `Location` anywhere else ends the call with an error naming it, and so does one that
//! leads back to the upstream's own origin once polling has been on an allowed one (that
//! origin would steer a request carrying the upstream's credentials). Redirects are followed
//! here, not by the HTTP client, so every request counts against one cap
//! ([`TaskPolling::max_polls`]): past it, the call ends with an error saying so. Every poll
//! passes the upstream's guard. Polling stops at once when the call is cancelled (`tasks/cancel`, or the
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

use crate::error::UpstreamError;
use crate::invoked::GuardReport;
use crate::redirect::MAX_REDIRECTS;
use crate::response::Call;
use crate::{Exchange, Upstream};
use mcpgen_contract::toolset::CallContext;

/// The most a server waits between two polls of an operation's status, by default: 30 s.
pub const DEFAULT_TASK_POLL_MAX_INTERVAL: Duration = Duration::from_secs(30);

/// The most requests an operation's polling makes by default (`--task-polls-max`): every
/// status poll and every redirect hop counts.
pub const DEFAULT_TASK_POLLS_MAX: usize = 1000;

/// How long polling goes on for a call with no time limit of its own: the default time to
/// live of a task, past which the task ends anyway.
const POLL_LIMIT: Duration = mcpgen_contract::tasks::DEFAULT_TASK_TTL;

/// How operations that run long are polled.
#[derive(Debug, Clone)]
pub struct TaskPolling {
    /// The longest wait between two polls, whatever `Retry-After` asks for.
    pub max_interval: Duration,
    /// The most requests one operation is polled with, redirect hops included.
    pub max_polls: usize,
    /// Origins other than the upstream's (`https://files.example.com`) that a `Location` may
    /// lead to; they are polled with no credential. Empty (the default): only the upstream's
    /// own origin.
    pub follow_origins: Vec<String>,
}

impl Default for TaskPolling {
    fn default() -> Self {
        Self {
            max_interval: DEFAULT_TASK_POLL_MAX_INTERVAL,
            max_polls: DEFAULT_TASK_POLLS_MAX,
            follow_origins: Vec::new(),
        }
    }
}

/// [`TaskPolling`] checked: the allowed origins parsed.
#[derive(Debug, Clone)]
pub(super) struct Policy {
    max_interval: Duration,
    max_polls: usize,
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
            max_polls: polling.max_polls.max(1),
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
    /// Whether polling has been on an allowed other origin already (a resumed polling).
    pub left_own: bool,
}

impl Accepted {
    /// Where another replica's polling of an operation was (`point`, as [`Course::point`]
    /// wrote it), to go on from there with the upstream's own credentials; fails, saying why,
    /// when the point cannot be read.
    pub(super) fn resumed(
        point: &str,
        cancel: &'static [&'static str],
    ) -> Result<Self, ToolResult> {
        let unreadable = || {
            ToolResult::error(
                "the task was taken over from a replica that was lost, but where its operation                  was polled cannot be read; run the call again",
            )
        };
        let point: serde_json::Value = serde_json::from_str(point).map_err(|_| unreadable())?;
        let text = |name: &str| point.get(name).and_then(serde_json::Value::as_str);
        let url = text("origin")
            .and_then(|origin| url::Url::parse(origin).ok())
            .ok_or_else(unreadable)?;
        let location = text("target").ok_or_else(unreadable)?.to_owned();
        Ok(Self {
            url,
            headers: HeaderMap::new(),
            location,
            retry_after: None,
            cancel,
            left_own: point
                .get("left_own")
                .and_then(serde_json::Value::as_bool)
                .unwrap_or(false),
        })
    }
}

/// Why polling ended without a final response.
enum Stop {
    Cancelled,
    OutOfTime,
}

/// Where polling is: the next URL, and whether it has been on an allowed other origin (it then
/// never goes back to the upstream's own).
struct Course<'a> {
    started: &'a str,
    own: url::Origin,
    follow: &'a [url::Origin],
    target: url::Url,
    left_own: bool,
}

impl Course<'_> {
    /// Where polling is, for another replica to go on from: the origin polled with
    /// credentials, the next URL (without the query credential this server adds) and whether
    /// polling left that origin.
    fn point(&self) -> String {
        serde_json::json!({
            "origin": self.own.ascii_serialization(),
            "target": self.target.as_str(),
            "left_own": self.left_own,
        })
        .to_string()
    }

    /// Moves on to `location`, resolved against the current target; fails, naming it, when
    /// it is not a URL or leads where polling may not go.
    fn go(&mut self, location: &str) -> Result<(), ToolResult> {
        let next = self.target.join(location).map_err(|e| {
            ToolResult::error(format!(
                "{} was accepted, but its status `Location` `{}` is not a valid URL: {e}",
                self.started,
                crate::base_url::redact_url_text(location)
            ))
        })?;
        self.check(&next)?;
        self.target = next;
        Ok(())
    }

    /// Whether polling may go to `next`.
    fn check(&self, next: &url::Url) -> Result<(), ToolResult> {
        match origin::place(next, &self.own, self.follow) {
            origin::Place::Own if self.left_own => Err(back_home(self.started, next, &self.target)),
            origin::Place::Own | origin::Place::Allowed => Ok(()),
            origin::Place::Elsewhere => Err(elsewhere(self.started, next, &self.own)),
        }
    }
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
        let limit = ctx.time_left().unwrap_or(POLL_LIMIT);
        let deadline = Instant::now() + limit;
        let mut course = Course {
            started: &started,
            own: accepted.url.origin(),
            follow: &self.polling.follow,
            target: accepted.url.clone(),
            left_own: accepted.left_own,
        };
        course.go(&accepted.location)?;
        // Where polling is, for another replica to go on from if this one is lost: only for a
        // task whose requests carry nothing of the caller's.
        let share = ctx
            .task_run
            .as_ref()
            .filter(|run| run.shared() && self.may_resume(ctx));
        let mark = |course: &Course<'_>| {
            if let Some(run) = share {
                run.polled_at(&course.point());
            }
        };
        mark(&course);
        let mut last_wait = wait::next(
            accepted.retry_after.as_deref(),
            None,
            self.polling.max_interval,
            SystemTime::now(),
        );
        let mut pending = Some(last_wait);
        let mut redirects = 0;
        let mut sent = 0;
        loop {
            if sent >= self.polling.max_polls {
                return Err(too_many_polls(&started, &course.target, sent));
            }
            if let Some(pause) = pending.take()
                && let Err(stop) = self.pause(pause, deadline, ctx).await
            {
                if matches!(stop, Stop::Cancelled) {
                    self.cancel_at_api(&accepted, &course.target, report).await;
                }
                return Err(stopped(&started, &course.target, stop, limit));
            }
            sent += 1;
            let target = course.target.clone();
            let (url, headers) = match origin::place(&target, &course.own, course.follow) {
                origin::Place::Own => self.with_credentials(&accepted, &target),
                _ => {
                    if !course.left_own {
                        course.left_own = true;
                        mark(&course);
                    }
                    (target.clone(), HeaderMap::new())
                }
            };
            *what = Call {
                method: "GET".to_owned(),
                path: target.path().to_owned(),
                operation_id: std::mem::take(&mut what.operation_id),
            };
            let left = deadline.saturating_duration_since(Instant::now());
            // Redirects are followed below, each hop counted, not by the client.
            let builder = self
                .http_no_redirects
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
                        course.go(next)?;
                        mark(&course);
                    }
                    last_wait = wait::next(
                        head.retry_after.as_deref(),
                        Some(last_wait),
                        self.polling.max_interval,
                        SystemTime::now(),
                    );
                    pending = Some(last_wait);
                }
                (301 | 302 | 303 | 307 | 308, Some(next)) => {
                    if redirects >= MAX_REDIRECTS {
                        return Err(too_many_redirects(&started, &target));
                    }
                    redirects += 1;
                    course.go(next)?;
                    mark(&course);
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

/// The error of a call whose status, on an allowed other origin (`from`), leads back to the
/// upstream's own origin (`target`).
fn back_home(started: &str, target: &url::Url, from: &url::Url) -> ToolResult {
    ToolResult::error(format!(
        "{started} was accepted, and its status was being polled at `{}`, on an origin allowed \
         by --task-follow-origin, which sent it back to `{}`, on the upstream's own origin; \
         that was not fetched: an allowed origin gets no say over requests that carry the \
         upstream's credentials",
        origin::shown(from),
        origin::shown(target),
    ))
}

/// The error of a call whose polling made as many requests as it may.
fn too_many_polls(started: &str, target: &url::Url, sent: usize) -> ToolResult {
    ToolResult::error(format!(
        "{started} was accepted, but it had not ended after {sent} status requests (polls and \
         redirects, the most --task-polls-max allows); polling stopped at `{}` (the operation \
         itself may still be running)",
        origin::shown(target),
    ))
}

/// The error of a call whose status redirected more times in a row than are followed.
fn too_many_redirects(started: &str, target: &url::Url) -> ToolResult {
    ToolResult::error(format!(
        "{started} was accepted, but polling its status was redirected more than \
         {MAX_REDIRECTS} times in a row (a redirect loop?); polling stopped at `{}`",
        origin::shown(target),
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
