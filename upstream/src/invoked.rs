//! What one upstream call comes to: the result the client sees, and what the audit record
//! keeps of the exchange (the HTTP status, whether it timed out), which the client does not.

use std::ops::Deref;

use mcpgen_core::result::ToolResult;

pub use mcpgen_contract::guard_report::{GuardRefusal, GuardReport};

/// The outcome of one [`Upstream`](crate::Upstream) call.
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
