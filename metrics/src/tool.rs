//! The series of one tool, resolved on its first call and kept with the tool's catalog entry,
//! so that counting a call finds its counters and histograms without hashing label values.
//!
//! Each series is still made on first use, as [`prometheus`]'s `with_label_values` makes it:
//! `/metrics` shows the same series as when every call looked them up.

use std::sync::{OnceLock, PoisonError, RwLock};

use mcpgen_audit::AuditStatus;
use mcpgen_core::tool::ToolDef;
use prometheus::{Histogram, IntCounter};

use super::Metrics;

/// An upstream's answer as counted: an HTTP status, a timeout, or another failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum UpstreamCode {
    Status(u16),
    Timeout,
    Error,
}

impl UpstreamCode {
    pub(crate) fn new(status: Option<u16>, timed_out: bool) -> Self {
        match (status, timed_out) {
            (Some(code), _) => Self::Status(code),
            (None, true) => Self::Timeout,
            (None, false) => Self::Error,
        }
    }

    /// The `code` label.
    pub(crate) fn label(self) -> String {
        match self {
            Self::Status(code) => code.to_string(),
            Self::Timeout => "timeout".to_owned(),
            Self::Error => "error".to_owned(),
        }
    }
}

/// The series of one tool of one [`Metrics`]; see [`Metrics::series`].
pub struct ToolSeries {
    /// The address of the [`Metrics`] these series belong to.
    owner: usize,
    name: &'static str,
    calls: [OnceLock<IntCounter>; AuditStatus::ALL.len()],
    duration: OnceLock<Histogram>,
    rate_limited: OnceLock<IntCounter>,
    upstream_duration: OnceLock<Histogram>,
    /// The upstream answers seen so far, each with its counter (a handful per tool).
    upstream_codes: RwLock<Vec<(UpstreamCode, IntCounter)>>,
}

impl ToolSeries {
    fn new(owner: &Metrics, def: &ToolDef) -> Self {
        Self {
            owner: owner_address(owner),
            name: def.name,
            calls: std::array::from_fn(|_| OnceLock::new()),
            duration: OnceLock::new(),
            rate_limited: OnceLock::new(),
            upstream_duration: OnceLock::new(),
            upstream_codes: RwLock::new(Vec::new()),
        }
    }

    pub(crate) fn calls(&self, metrics: &Metrics, status: AuditStatus) -> Option<&IntCounter> {
        let slot = self.calls.get(status as usize)?;
        Some(slot.get_or_init(|| {
            metrics
                .calls
                .with_label_values(&[self.name, status.as_str()])
        }))
    }

    pub(crate) fn duration(&self, metrics: &Metrics) -> &Histogram {
        self.duration
            .get_or_init(|| metrics.call_duration.with_label_values(&[self.name]))
    }

    pub(crate) fn rate_limited(&self, metrics: &Metrics) -> &IntCounter {
        self.rate_limited
            .get_or_init(|| metrics.rate_limited.with_label_values(&[self.name]))
    }

    pub(crate) fn upstream_duration(&self, metrics: &Metrics) -> &Histogram {
        self.upstream_duration
            .get_or_init(|| metrics.upstream_duration.with_label_values(&[self.name]))
    }

    /// Counts one upstream answer `code`.
    pub(crate) fn count_upstream(&self, metrics: &Metrics, code: UpstreamCode) {
        let seen = self
            .upstream_codes
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .find(|(seen, _)| *seen == code)
            .map(|(_, counter)| counter.inc())
            .is_some();
        if seen {
            return;
        }
        let counter = metrics
            .upstream_requests
            .with_label_values(&[self.name, code.label().as_str()]);
        counter.inc();
        let mut codes = self
            .upstream_codes
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        if !codes.iter().any(|(seen, _)| *seen == code) {
            codes.push((code, counter));
        }
    }
}

fn owner_address(metrics: &Metrics) -> usize {
    std::ptr::from_ref(metrics) as usize
}

impl Metrics {
    /// The series of `def` kept in `slot` (a field of the tool's catalog entry), made on the
    /// first call. `None` when the slot holds the series of another [`Metrics`] (a catalog
    /// served with two registries), which then counts by label as before.
    pub fn series<'s>(
        &self,
        slot: &'s OnceLock<ToolSeries>,
        def: &ToolDef,
    ) -> Option<&'s ToolSeries> {
        let series = slot.get_or_init(|| ToolSeries::new(self, def));
        (series.owner == owner_address(self)).then_some(series)
    }
}
