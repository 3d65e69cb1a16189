//! What the guard of an upstream (its concurrency cap, circuit breaker and retry) did with one
//! call. The call context carries it whatever the features, so the pipeline, the audit and the
//! metrics read it in one place; only the `openapi` feature's upstream fills it in.

/// What the guard of an `Upstream` did with one call: whether it waited
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

/// Why the guard of an `Upstream` did not send a call.
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
