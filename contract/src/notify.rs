//! What a running tool may tell its caller before it answers, and how it learns that the
//! caller gave up: progress and log notifications ([`Notifier`]) and cancellation
//! ([`Cancellation`]). The server puts both into each call's
//! [`CallContext`](crate::CallContext); `#[mcp_tool]` functions reach them through
//! [`ToolContext`](crate::ToolContext).
//!
//! MCP's rules, which these types follow rather than work around:
//! - `notifications/progress` may only be sent for a request whose `_meta` carried a
//!   `progressToken`, and must carry that token. Without one, [`Notifier::progress`] sends
//!   nothing and answers `Ok(false)`.
//! - `notifications/message` goes to the caller only at or above the level the client asked
//!   for: the connection's `logging/setLevel`, or, on the 2026-07-28 protocol, the request's
//!   `io.modelcontextprotocol/logLevel` in `_meta` (which wins). On the 2026-07-28 protocol
//!   (a request whose `_meta` names its protocol version) a request without a log level gets
//!   no log messages, as that revision requires; on earlier revisions a client that never set
//!   a level gets every level. A message below the level is not sent and [`Notifier::log`]
//!   answers `Ok(false)`.
//! - `notifications/cancelled` from the client, or the connection closing, cancels the call's
//!   [`Cancellation`]. The server still waits for the tool to return (and records the call);
//!   a tool that stops early should return promptly with whatever result suits it, which the
//!   client will no longer read.
//!
//! Over Streamable HTTP with sessions, progress notifications travel on the response stream
//! of the request they belong to; log messages travel on the session's standalone `GET`
//! stream, which clients open after `initialize`.

#![allow(deprecated)] // MCP keeps logging, marked for removal by SEP-2577: rmcp flags its types.

use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

use rmcp::RoleServer;
use rmcp::model::{
    LoggingLevel, LoggingMessageNotification, LoggingMessageNotificationParam,
    ProgressNotification, ProgressNotificationParam, ProgressToken, ServerNotification,
};
use rmcp::service::Peer;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

/// How severe a log message is: the syslog levels MCP uses, least severe first, so levels
/// compare by severity (`LogLevel::Warning > LogLevel::Info`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LogLevel {
    /// Detailed information for debugging.
    Debug,
    /// Normal operation.
    Info,
    /// Normal but significant.
    Notice,
    /// Something may be wrong.
    Warning,
    /// An operation failed.
    Error,
    /// A component failed.
    Critical,
    /// Action must be taken immediately.
    Alert,
    /// The system is unusable.
    Emergency,
}

impl LogLevel {
    /// Every level, least severe first.
    pub const ALL: [LogLevel; 8] = [
        LogLevel::Debug,
        LogLevel::Info,
        LogLevel::Notice,
        LogLevel::Warning,
        LogLevel::Error,
        LogLevel::Critical,
        LogLevel::Alert,
        LogLevel::Emergency,
    ];

    /// The level's name in MCP messages: `debug`, `info`, ..., `emergency`.
    pub fn as_str(self) -> &'static str {
        match self {
            LogLevel::Debug => "debug",
            LogLevel::Info => "info",
            LogLevel::Notice => "notice",
            LogLevel::Warning => "warning",
            LogLevel::Error => "error",
            LogLevel::Critical => "critical",
            LogLevel::Alert => "alert",
            LogLevel::Emergency => "emergency",
        }
    }

    fn to_wire(self) -> LoggingLevel {
        match self {
            LogLevel::Debug => LoggingLevel::Debug,
            LogLevel::Info => LoggingLevel::Info,
            LogLevel::Notice => LoggingLevel::Notice,
            LogLevel::Warning => LoggingLevel::Warning,
            LogLevel::Error => LoggingLevel::Error,
            LogLevel::Critical => LoggingLevel::Critical,
            LogLevel::Alert => LoggingLevel::Alert,
            LogLevel::Emergency => LoggingLevel::Emergency,
        }
    }

    #[doc(hidden)]
    pub fn from_wire(level: LoggingLevel) -> Self {
        match level {
            LoggingLevel::Debug => LogLevel::Debug,
            LoggingLevel::Info => LogLevel::Info,
            LoggingLevel::Notice => LogLevel::Notice,
            LoggingLevel::Warning => LogLevel::Warning,
            LoggingLevel::Error => LogLevel::Error,
            LoggingLevel::Critical => LogLevel::Critical,
            LoggingLevel::Alert => LogLevel::Alert,
            LoggingLevel::Emergency => LogLevel::Emergency,
        }
    }
}

impl std::fmt::Display for LogLevel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a notification could not be sent.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum NotifyError {
    /// The connection to the client is closed.
    #[error("`{notification}` was not sent: the client's connection is closed")]
    ConnectionClosed {
        /// The notification's method, e.g. `notifications/progress`.
        notification: &'static str,
    },
    /// A progress value is not a finite number (JSON has no NaN or infinity).
    #[error(
        "`notifications/progress` was not sent: progress {progress} of {total:?} is not a finite \
         number; report finite values that increase with every notification"
    )]
    InvalidProgress {
        /// The progress given.
        progress: f64,
        /// The total given.
        total: Option<f64>,
    },
}

/// The lowest level a connection's client asked for with `logging/setLevel`, shared by the
/// calls of that connection so a change applies to calls already running.
#[derive(Debug, Default)]
#[doc(hidden)]
pub struct SessionLogLevel(AtomicU8);

impl SessionLogLevel {
    /// `0`: never set; otherwise the level's position in [`LogLevel::ALL`] plus one.
    #[doc(hidden)]
    pub fn set(&self, level: LogLevel) {
        let position = LogLevel::ALL
            .iter()
            .position(|l| *l == level)
            .unwrap_or_default();
        let encoded = u8::try_from(position + 1).unwrap_or(u8::MAX);
        self.0.store(encoded, Ordering::Relaxed);
    }

    fn get(&self) -> Option<LogLevel> {
        let encoded = usize::from(self.0.load(Ordering::Relaxed));
        encoded
            .checked_sub(1)
            .and_then(|i| LogLevel::ALL.get(i).copied())
    }
}

/// Where the notifications of a call go.
#[doc(hidden)]
pub enum Sink {
    /// rmcp's peer of the connection or request.
    Peer(Peer<RoleServer>),
    /// The response stream of a stateless request the runtime answers itself.
    Stream(tokio::sync::mpsc::UnboundedSender<rmcp::model::ServerJsonRpcMessage>),
}

impl Sink {
    async fn send(&self, notification: ServerNotification) -> Result<(), ()> {
        match self {
            Self::Peer(peer) => peer.send_notification(notification).await.map_err(|_| ()),
            Self::Stream(stream) => stream
                .send(rmcp::model::ServerJsonRpcMessage::notification(
                    notification,
                ))
                .map_err(|_| ()),
        }
    }
}

/// The connection a call came in on, and what its request asked for.
struct Link {
    sink: Sink,
    progress_token: Option<ProgressToken>,
    request_level: Option<LogLevel>,
    session_level: Arc<SessionLogLevel>,
    /// The request names its protocol version in `_meta` (2026-07-28 and later): its own log
    /// level is the only one, and without one nothing is logged.
    per_request: bool,
}

/// Sends progress and log notifications to the client of one call.
///
/// Cheap to clone; a clone may be moved into a task the tool spawns. A notifier that belongs
/// to no connection ([`Notifier::none`], the default, e.g. for calls made in-process through
/// [`LocalConnection`](crate::LocalConnection)) sends nothing and answers `Ok(false)`.
#[derive(Clone, Default)]
pub struct Notifier {
    link: Option<Arc<Link>>,
    logger: Option<&'static str>,
}

impl std::fmt::Debug for Notifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Notifier")
            .field("connected", &self.link.is_some())
            .field("progress_token", &self.has_progress_token())
            .field("logger", &self.logger)
            .finish()
    }
}

impl Notifier {
    /// A notifier with no connection behind it: every notification is a no-op.
    pub fn none() -> Self {
        Self::default()
    }

    /// The notifier of one request on `peer`: its progress token and requested log level
    /// (from `_meta`), the connection's `logging/setLevel`, and whether the request carries its
    /// protocol version in `_meta` (the 2026-07-28 protocol).
    #[doc(hidden)]
    pub fn for_request(
        sink: Sink,
        progress_token: Option<ProgressToken>,
        request_level: Option<LoggingLevel>,
        session_level: Arc<SessionLogLevel>,
        per_request: bool,
    ) -> Self {
        Self {
            link: Some(Arc::new(Link {
                sink,
                progress_token,
                request_level: request_level.map(LogLevel::from_wire),
                session_level,
                per_request,
            })),
            logger: None,
        }
    }

    /// The same notifier, naming `logger` (the tool) in its log messages.
    #[doc(hidden)]
    pub fn with_logger(mut self, logger: &'static str) -> Self {
        self.logger = Some(logger);
        self
    }

    /// Whether the caller gave a progress token, so progress can be reported.
    pub fn has_progress_token(&self) -> bool {
        self.link
            .as_ref()
            .is_some_and(|link| link.progress_token.is_some())
    }

    /// Whether a message at `level` would reach the client: there is a connection and the
    /// client's level allows it (the request's; else, before 2026-07-28, the connection's, and
    /// with neither every level; on 2026-07-28 a request without a level gets none).
    /// Check it before building an expensive message.
    pub fn log_enabled(&self, level: LogLevel) -> bool {
        self.link.as_ref().is_some_and(|link| {
            if link.per_request {
                return link.request_level.is_some_and(|min| level >= min);
            }
            link.request_level
                .or_else(|| link.session_level.get())
                .is_none_or(|min| level >= min)
        })
    }

    /// Sends `notifications/progress` with the caller's progress token: `progress` so far (it
    /// must increase with every notification, as MCP requires), out of `total` if known, with
    /// an optional human-readable `message`.
    ///
    /// `Ok(false)`: nothing was sent because the caller's request carried no `progressToken`
    /// (MCP allows progress only for requests that ask for it) or there is no connection.
    pub async fn progress(
        &self,
        progress: f64,
        total: Option<f64>,
        message: Option<&str>,
    ) -> Result<bool, NotifyError> {
        let Some((link, token)) = self
            .link
            .as_ref()
            .and_then(|link| Some((link, link.progress_token.clone()?)))
        else {
            return Ok(false);
        };
        if !progress.is_finite() || total.is_some_and(|t| !t.is_finite()) {
            return Err(NotifyError::InvalidProgress { progress, total });
        }
        let mut params = ProgressNotificationParam::new(token, progress);
        params.total = total;
        params.message = message.map(str::to_owned);
        link.sink
            .send(ServerNotification::ProgressNotification(
                ProgressNotification::new(params),
            ))
            .await
            .map_err(|_| NotifyError::ConnectionClosed {
                notification: "notifications/progress",
            })?;
        Ok(true)
    }

    /// Sends `notifications/message` at `level` with `data` (any JSON: a string, or an object
    /// with details), naming the tool as its logger.
    ///
    /// `Ok(false)`: nothing was sent because the client asked for more severe messages only
    /// (see [`log_enabled`](Self::log_enabled)) or there is no connection.
    pub async fn log(&self, level: LogLevel, data: impl Into<Value>) -> Result<bool, NotifyError> {
        if !self.log_enabled(level) {
            return Ok(false);
        }
        let Some(link) = &self.link else {
            return Ok(false);
        };
        let mut params = LoggingMessageNotificationParam::new(level.to_wire(), data.into());
        params.logger = self.logger.map(str::to_owned);
        link.sink
            .send(ServerNotification::LoggingMessageNotification(
                LoggingMessageNotification::new(params),
            ))
            .await
            .map_err(|_| NotifyError::ConnectionClosed {
                notification: "notifications/message",
            })?;
        Ok(true)
    }
}

/// Tells a running call that its caller gave up: cancelled when the client sends
/// `notifications/cancelled` for the request, or its connection closes.
///
/// Cheap to clone; clones share the state. A tool that has nothing to abandon may ignore it.
#[derive(Debug, Clone, Default)]
pub struct Cancellation(CancellationToken);

impl Cancellation {
    /// A cancellation nobody has triggered yet.
    pub fn new() -> Self {
        Self::default()
    }

    #[doc(hidden)]
    pub fn from_token(token: CancellationToken) -> Self {
        Self(token)
    }

    /// Cancels the call (for callers that run tool sets themselves).
    pub fn cancel(&self) {
        self.0.cancel();
    }

    /// Whether the call was cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.0.is_cancelled()
    }

    /// Resolves once the call is cancelled (at once if it already is); pair it with the
    /// tool's work in `tokio::select!`.
    pub async fn cancelled(&self) {
        self.0.cancelled().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_notifier_without_a_connection_sends_nothing() {
        let notifier = Notifier::none();
        assert!(!notifier.has_progress_token());
        assert!(!notifier.log_enabled(LogLevel::Emergency));
        assert_eq!(notifier.progress(1.0, Some(2.0), None).await, Ok(false));
        assert_eq!(notifier.log(LogLevel::Error, "lost").await, Ok(false));
    }

    #[test]
    fn the_session_level_round_trips_every_level() {
        let level = SessionLogLevel::default();
        assert_eq!(level.get(), None);
        for l in LogLevel::ALL {
            level.set(l);
            assert_eq!(level.get(), Some(l));
            assert_eq!(LogLevel::from_wire(l.to_wire()), l);
        }
    }

    #[test]
    fn levels_order_by_severity() {
        assert!(LogLevel::Debug < LogLevel::Info);
        assert!(LogLevel::Warning > LogLevel::Notice);
        assert!(LogLevel::Emergency > LogLevel::Alert);
        assert_eq!(LogLevel::Warning.to_string(), "warning");
    }

    #[tokio::test]
    async fn cancellation_is_shared_by_clones() {
        let cancellation = Cancellation::new();
        let clone = cancellation.clone();
        assert!(!clone.is_cancelled());
        cancellation.cancel();
        assert!(clone.is_cancelled());
        clone.cancelled().await;
    }
}
