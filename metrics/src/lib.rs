//! Prometheus metrics of a server (feature `metrics`): what [`Metrics`] counts, rendered in
//! the Prometheus text format at `/metrics` (see [`MetricsEndpoint`]).
//!
//! Series (every name starts with `mcpgen_`):
//!
//! | Series | Type | Labels |
//! |---|---|---|
//! | `mcpgen_tool_calls_total` | counter | `tool`, `status` (the audit status) |
//! | `mcpgen_tool_call_duration_seconds` | histogram | `tool` |
//! | `mcpgen_upstream_requests_total` | counter | `tool`, `code` (HTTP status, `timeout` or `error`) |
//! | `mcpgen_upstream_duration_seconds` | histogram | `tool` |
//! | `mcpgen_upstream_retries_total` | counter | `tool` |
//! | `mcpgen_upstream_refused_total` | counter | `tool`, `reason` (`circuit_open`, `concurrency_cap`) |
//! | `mcpgen_upstream_queued_total` | counter | `tool` |
//! | `mcpgen_upstream_circuit_opened_total` | counter | `tool` (the call whose failure opened it) |
//! | `mcpgen_calls_in_flight` | gauge | |
//! | `mcpgen_tasks` | gauge | `state` (`working`, `input_required`, `completed`, `failed`, `cancelled`) |
//! | `mcpgen_auth_failures_total` | counter | `reason` (`missing`, `invalid`, `expired`, `wrong_audience`, `host_or_origin`, `session_owner`) |
//! | `mcpgen_rate_limited_total` | counter | `tool` |
//! | `mcpgen_audit_queue_depth` | gauge | |
//! | `mcpgen_audit_spooled_records` | gauge | |
//! | `mcpgen_audit_errors_total` | counter | |
//! | `mcpgen_rate_limit_store_errors_total` | counter | |
//! | `mcpgen_connections_open` | gauge | |
//! | `mcpgen_connections_waited_total` | counter | |
//! | `mcpgen_sessions_refused_total` | counter | `reason` (`server_cap`, `principal_cap`) |
//! | `mcpgen_sessions_closed_total` | counter | `reason` (`principal_cap`) |
//!
//! `tool` is a name from the tool table, or `(unknown)` for a name the table does not have
//! (names sent by clients never become labels). No label carries a credential, a principal or
//! an argument value. Calls refused with 401 or 403 count in `mcpgen_tool_calls_total` with
//! status `unauthenticated` / `forbidden`, as they count in the audit.
#![deny(missing_docs)]

mod endpoint;
mod tool;

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use prometheus::{
    HistogramOpts, HistogramVec, IntCounter, IntCounterVec, IntGauge, IntGaugeVec, Opts, Registry,
};

pub use endpoint::{METRICS_PATH, MIN_TOKEN_LEN, MetricsEndpoint, MetricsTokenError};
pub use tool::ToolSeries;
use tool::UpstreamCode;

use mcpgen_audit::{AuditSink, AuditStatus};
use mcpgen_core::tool::ToolDef;

use mcpgen_contract::guard_report::GuardReport;

/// The `tool` label of a name that is not in the tool table.
pub const UNKNOWN_TOOL: &str = "(unknown)";

/// Bucket bounds of the duration histograms, in seconds.
const BUCKETS: &[f64] = &[
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0,
];

/// The counters, gauges and histograms of one server (shared by its catalogs).
pub struct Metrics {
    registry: Registry,
    calls: IntCounterVec,
    call_duration: HistogramVec,
    upstream_requests: IntCounterVec,
    upstream_duration: HistogramVec,
    upstream_retries: IntCounterVec,
    upstream_refused: IntCounterVec,
    upstream_queued: IntCounterVec,
    circuit_opened: IntCounterVec,
    in_flight: IntGauge,
    auth_failures: IntCounterVec,
    rate_limited: IntCounterVec,
    audit_queue: IntGauge,
    audit_spooled: IntGauge,
    audit_errors: IntCounter,
    rate_store_errors: IntCounter,
    connections_open: IntGauge,
    connections_waited: IntCounter,
    sessions_refused: IntCounterVec,
    sessions_closed: IntCounterVec,
    /// What the gauges read when rendered: calls in progress, and the audit sinks.
    probes: OnceLock<Probes>,
    tasks: IntGaugeVec,
    /// The tasks held, by state, when rendered.
    task_probe: OnceLock<TaskProbe>,
}

/// Counts the tasks a server holds, by state.
pub type TaskProbe = Arc<dyn Fn() -> BTreeMap<&'static str, usize> + Send + Sync>;

/// The states `mcpgen_tasks` always shows, 0 when no task is in them.
const TASK_STATES: [&str; 5] = [
    "working",
    "input_required",
    "completed",
    "failed",
    "cancelled",
];

struct Probes {
    in_flight: Arc<dyn Fn() -> usize + Send + Sync>,
    audit: Arc<dyn AuditSink>,
}

impl std::fmt::Debug for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Metrics").finish_non_exhaustive()
    }
}

/// A metric could not be registered (names are fixed, so this does not happen in practice).
#[derive(Debug, thiserror::Error)]
#[error("cannot set up the metrics registry: {0}")]
pub struct MetricsError(#[from] prometheus::Error);

fn counter(
    registry: &Registry,
    name: &str,
    help: &str,
    labels: &[&str],
) -> prometheus::Result<IntCounterVec> {
    let vec = IntCounterVec::new(Opts::new(name, help), labels)?;
    registry.register(Box::new(vec.clone()))?;
    Ok(vec)
}

fn histogram(registry: &Registry, name: &str, help: &str) -> prometheus::Result<HistogramVec> {
    let opts = HistogramOpts::new(name, help).buckets(BUCKETS.to_vec());
    let vec = HistogramVec::new(opts, &["tool"])?;
    registry.register(Box::new(vec.clone()))?;
    Ok(vec)
}

fn gauge(registry: &Registry, name: &str, help: &str) -> prometheus::Result<IntGauge> {
    let gauge = IntGauge::new(name, help)?;
    registry.register(Box::new(gauge.clone()))?;
    Ok(gauge)
}

impl Metrics {
    /// A fresh registry with every series of the table above.
    pub fn new() -> Result<Self, MetricsError> {
        let r = Registry::new();
        let audit_errors = IntCounter::new(
            "mcpgen_audit_errors_total",
            "Audit sink errors (failed writes or syncs)",
        )?;
        r.register(Box::new(audit_errors.clone()))?;
        let rate_store_errors = IntCounter::new(
            "mcpgen_rate_limit_store_errors_total",
            "Calls let through unlimited because the shared rate limit store was unreachable",
        )?;
        r.register(Box::new(rate_store_errors.clone()))?;
        let connections_waited = IntCounter::new(
            "mcpgen_connections_waited_total",
            "Connections that waited in the listen backlog because --max-connections were served",
        )?;
        r.register(Box::new(connections_waited.clone()))?;
        Ok(Self {
            rate_store_errors,
            connections_waited,
            connections_open: gauge(
                &r,
                "mcpgen_connections_open",
                "Connections served now on the MCP listener",
            )?,
            sessions_refused: counter(
                &r,
                "mcpgen_sessions_refused_total",
                "New sessions refused: the catalog's cap (503) or the principal's, all in use (429)",
                &["reason"],
            )?,
            sessions_closed: counter(
                &r,
                "mcpgen_sessions_closed_total",
                "Idle sessions closed to make room for a new session of the same principal",
                &["reason"],
            )?,
            calls: counter(
                &r,
                "mcpgen_tool_calls_total",
                "Tool calls by tool and audit status",
                &["tool", "status"],
            )?,
            call_duration: histogram(
                &r,
                "mcpgen_tool_call_duration_seconds",
                "Duration of tool calls by tool",
            )?,
            upstream_requests: counter(
                &r,
                "mcpgen_upstream_requests_total",
                "Upstream API requests by tool and HTTP status code (timeout, error: no answer)",
                &["tool", "code"],
            )?,
            upstream_duration: histogram(
                &r,
                "mcpgen_upstream_duration_seconds",
                "Latency of upstream API requests by tool",
            )?,
            upstream_retries: counter(
                &r,
                "mcpgen_upstream_retries_total",
                "Upstream requests sent a second time (idempotent, after a refused connection or 502/503/504), by tool",
                &["tool"],
            )?,
            upstream_refused: counter(
                &r,
                "mcpgen_upstream_refused_total",
                "Tool calls not sent upstream: circuit breaker open, or no slot under the concurrency cap in time",
                &["tool", "reason"],
            )?,
            upstream_queued: counter(
                &r,
                "mcpgen_upstream_queued_total",
                "Tool calls that waited for a slot under the upstream concurrency cap, by tool",
                &["tool"],
            )?,
            circuit_opened: counter(
                &r,
                "mcpgen_upstream_circuit_opened_total",
                "Times the upstream circuit breaker opened, by the tool whose call opened it",
                &["tool"],
            )?,
            in_flight: gauge(&r, "mcpgen_calls_in_flight", "Tool calls in progress")?,
            auth_failures: counter(
                &r,
                "mcpgen_auth_failures_total",
                "Requests refused with 401 or 403 by reason",
                &["reason"],
            )?,
            rate_limited: counter(
                &r,
                "mcpgen_rate_limited_total",
                "Tool calls refused by a rate limit, by tool",
                &["tool"],
            )?,
            audit_queue: gauge(
                &r,
                "mcpgen_audit_queue_depth",
                "Audit records waiting to be written",
            )?,
            audit_spooled: gauge(
                &r,
                "mcpgen_audit_spooled_records",
                "Audit records in a local spool file, waiting for their database",
            )?,
            tasks: {
                let opts = Opts::new("mcpgen_tasks", "Tasks held, by state");
                let vec = IntGaugeVec::new(opts, &["state"])?;
                r.register(Box::new(vec.clone()))?;
                vec
            },
            audit_errors,
            registry: r,
            probes: OnceLock::new(),
            task_probe: OnceLock::new(),
        })
    }

    /// Sets what the in-flight and audit gauges read; the first call wins.
    pub fn attach(
        &self,
        in_flight: Arc<dyn Fn() -> usize + Send + Sync>,
        audit: Arc<dyn AuditSink>,
    ) {
        let _ = self.probes.set(Probes { in_flight, audit });
    }

    /// Sets what the tasks gauge reads; the first call wins.
    pub fn count_tasks(&self, probe: TaskProbe) {
        let _ = self.task_probe.set(probe);
    }

    /// Counts one finished tool call of `def` (`None`: not in the tool table).
    pub fn call_finished(&self, def: Option<&ToolDef>, status: AuditStatus, duration: Duration) {
        let tool = def.map_or(UNKNOWN_TOOL, |d| d.name);
        self.calls.with_label_values(&[tool, status.as_str()]).inc();
        self.call_duration
            .with_label_values(&[tool])
            .observe(duration.as_secs_f64());
        if status == AuditStatus::RateLimited {
            self.rate_limited.with_label_values(&[tool]).inc();
        }
    }

    /// Counts one finished call of the tool whose series are `series` (see
    /// [`Metrics::series`]), as [`Metrics::call_finished`] does.
    pub fn call_finished_in(&self, series: &ToolSeries, status: AuditStatus, duration: Duration) {
        if let Some(calls) = series.calls(self, status) {
            calls.inc();
        }
        series.duration(self).observe(duration.as_secs_f64());
        if status == AuditStatus::RateLimited {
            series.rate_limited(self).inc();
        }
    }

    /// Counts one upstream request of `def`: its HTTP status (`None`: no answer, `timed_out`
    /// or another failure) and latency.
    pub fn upstream_finished(
        &self,
        def: &ToolDef,
        status: Option<u16>,
        timed_out: bool,
        latency: Duration,
    ) {
        let code = UpstreamCode::new(status, timed_out).label();
        self.upstream_requests
            .with_label_values(&[def.name, code.as_str()])
            .inc();
        self.upstream_duration
            .with_label_values(&[def.name])
            .observe(latency.as_secs_f64());
    }

    /// Counts one upstream request of the tool whose series are `series`, as
    /// [`Metrics::upstream_finished`] does.
    pub fn upstream_finished_in(
        &self,
        series: &ToolSeries,
        status: Option<u16>,
        timed_out: bool,
        latency: Duration,
    ) {
        series.count_upstream(self, UpstreamCode::new(status, timed_out));
        series
            .upstream_duration(self)
            .observe(latency.as_secs_f64());
    }

    /// Counts what the upstream's guard did with one call of `def`.
    pub fn upstream_guarded(&self, def: &ToolDef, guard: GuardReport) {
        let tool = [def.name];
        if guard.queued {
            self.upstream_queued.with_label_values(&tool).inc();
        }
        if let Some(refusal) = guard.refused {
            self.upstream_refused
                .with_label_values(&[def.name, refusal.as_str()])
                .inc();
        }
        if guard.retried {
            self.upstream_retries.with_label_values(&tool).inc();
        }
        if guard.opened_circuit {
            self.circuit_opened.with_label_values(&tool).inc();
        }
    }

    /// Counts a call let through unlimited because the shared store was away.
    pub fn rate_limit_store_error(&self) {
        self.rate_store_errors.inc();
    }

    /// Counts a request refused with 401 or 403; `reason` is a fixed word (see the table).
    pub fn refused(&self, reason: &'static str) {
        self.auth_failures.with_label_values(&[reason]).inc();
    }

    /// Counts a connection opened (`true`) or closed on the MCP listener.
    pub fn connection(&self, opened: bool) {
        if opened {
            self.connections_open.inc();
        } else {
            self.connections_open.dec();
        }
    }

    /// Counts a connection that waited in the listen backlog for a free slot.
    pub fn connection_waited(&self) {
        self.connections_waited.inc();
    }

    /// Counts a new session refused; `reason` is `server_cap` or `principal_cap`.
    pub fn session_refused(&self, reason: &'static str) {
        self.sessions_refused.with_label_values(&[reason]).inc();
    }

    /// Counts an idle session closed to make room; `reason` is `principal_cap`.
    pub fn session_closed(&self, reason: &'static str) {
        self.sessions_closed.with_label_values(&[reason]).inc();
    }

    /// The metrics in the Prometheus text format (version 0.0.4).
    pub fn render(&self) -> String {
        if let Some(probes) = self.probes.get() {
            self.in_flight
                .set(i64::try_from((probes.in_flight)()).unwrap_or(i64::MAX));
            let health = probes.audit.health();
            self.audit_queue
                .set(i64::try_from(health.queued).unwrap_or(i64::MAX));
            self.audit_spooled
                .set(i64::try_from(health.spooled).unwrap_or(i64::MAX));
            let seen = self.audit_errors.get();
            if health.errors > seen {
                self.audit_errors.inc_by(health.errors - seen);
            }
        }
        if let Some(probe) = self.task_probe.get() {
            let counts = probe();
            for state in TASK_STATES {
                let held = counts.get(state).copied().unwrap_or(0);
                self.tasks
                    .with_label_values(&[state])
                    .set(i64::try_from(held).unwrap_or(i64::MAX));
            }
        }
        let encoder = prometheus::TextEncoder::new();
        encoder
            .encode_to_string(&self.registry.gather())
            .unwrap_or_else(|e| format!("# cannot encode the metrics: {e}\n"))
    }
}
