//! What one upstream call comes to: the result the client sees, and what the audit record
//! keeps of the exchange (the HTTP status, whether it timed out), which the client does not.

use std::ops::Deref;

use crate::ToolResult;

/// The outcome of one [`Upstream`](super::Upstream) call.
///
/// It dereferences to its [`ToolResult`], so `invoked.is_error` and `invoked.content` read the
/// result directly.
#[derive(Debug, Clone, PartialEq)]
pub struct Invoked {
    /// What the tool answers.
    pub result: ToolResult,
    /// The upstream's HTTP status, when it answered.
    pub status: Option<u16>,
    /// Whether the request timed out.
    pub timed_out: bool,
    /// What the upstream's guard (cap, circuit breaker, retry) did with the call.
    pub guard: GuardReport,
}

/// What the guard of an [`Upstream`](super::Upstream) did with one call: whether it waited
/// for a slot under the concurrency cap, was refused unsent, was sent twice, or opened the
/// circuit breaker. The metrics count each; a refusal is audited as `unavailable`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GuardReport {
    /// The call waited for a slot under the concurrency cap.
    pub queued: bool,
    /// The call was not sent, and why.
    pub refused: Option<GuardRefusal>,
    /// The request failed and was sent once more.
    pub retried: bool,
    /// A failed request of this call opened the circuit breaker.
    pub opened_circuit: bool,
}

/// Why the guard of an [`Upstream`](super::Upstream) did not send a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum GuardRefusal {
    /// The circuit breaker is open: the upstream's last requests failed.
    CircuitOpen,
    /// No slot under the concurrency cap came free within the queue timeout.
    ConcurrencyCap,
}

impl GuardRefusal {
    /// The refusal as a metrics label: `circuit_open` or `concurrency_cap`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::CircuitOpen => "circuit_open",
            Self::ConcurrencyCap => "concurrency_cap",
        }
    }
}

impl Invoked {
    /// `result`, with no upstream response.
    pub fn new(result: ToolResult) -> Self {
        Self {
            result,
            status: None,
            timed_out: false,
            guard: GuardReport::default(),
        }
    }

    /// The same outcome, with the upstream's HTTP status.
    pub fn with_status(mut self, status: u16) -> Self {
        self.status = Some(status);
        self
    }

    /// The same outcome, with what the guard did.
    pub fn with_guard(mut self, guard: GuardReport) -> Self {
        self.guard = guard;
        self
    }

    /// The same outcome, marked as timed out.
    pub fn timed_out(mut self) -> Self {
        self.timed_out = true;
        self
    }
}

impl Deref for Invoked {
    type Target = ToolResult;

    fn deref(&self) -> &ToolResult {
        &self.result
    }
}
