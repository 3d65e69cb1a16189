//! The audit of mcpgen's servers: one [`AuditEvent`] per `tools/call`, delivered to pluggable
//! [`AuditSink`]s.
//!
//! Sinks: [`JsonlSink`] (a JSON-lines file with an [`Fsync`] durability setting),
//! [`TracingSink`] (a `tracing` event, target `mcpgen::audit`) and [`MultiSink`] (fan-out);
//! with the `postgres` or `sqlite` feature, `DbSink` (a database table, with a spool file
//! while the database is away).
//!
//! The contract a caller relies on: when [`AuditSink::record`] returns, the sink has taken the
//! record as far as its durability setting promises (for [`JsonlSink`], written to the file and,
//! with [`Fsync::Always`], synced to disk). A caller that awaits `record` before replying to the
//! client therefore never acknowledges a call whose record could be lost. Sinks apply
//! back-pressure (`record` waits) rather than dropping records.
//!
//! Events never carry credentials: the principal and key id name the caller, and the
//! arguments appear only as a digest unless the operator asks for them (`--audit-args`).
//!
//! Servers use this crate through `mcpgen_runtime::audit` (and `mcpgen::audit`), which is
//! this crate re-exported; it depends on nothing of the server.
#![deny(missing_docs)]

#[cfg(any(feature = "postgres", feature = "sqlite"))]
mod db;
mod event;
mod jsonl;
mod line;
mod multi;
mod time;
mod tracing_sink;

use std::sync::Arc;

#[cfg(any(feature = "postgres", feature = "sqlite"))]
pub use db::{
    DEFAULT_SPOOL, DbSink, DbSinkConfig, DbSinkError, DbUnavailable, DbUrlError, redacted,
    spool_path,
};
pub use event::{
    AuditEvent, AuditStatus, MAX_ERROR_CHARS, args_digest, canonical_json, error_text, new_call_id,
};
pub use jsonl::{Fsync, JsonlSink, ParseFsyncError};
pub use multi::MultiSink;
pub use time::{now_rfc3339, rfc3339};
pub use tracing_sink::TracingSink;

use mcpgen_core::BoxFuture;

/// A record a sink could not keep: the call it belongs to must not be reported as done.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the audit record of this call could not be kept: {0}")]
pub struct Unrecorded(pub String);

/// Where audit events go.
pub trait AuditSink: Send + Sync + 'static {
    /// Records `event`. Returns once the event is as durable as the sink promises; waits
    /// (back-pressure) rather than dropping the event when the sink is busy.
    fn record<'a>(&'a self, event: AuditEvent) -> BoxFuture<'a, ()>;

    /// Records `event` as [`AuditSink::record`] does, and says whether the sink kept it. An
    /// `Err` means the record is not kept as far as the sink promises (the audit database is
    /// away and its spool cannot be written): the server answers the call as `unavailable`
    /// instead of with its result. By default: [`AuditSink::record`], then `Ok`.
    fn try_record<'a>(&'a self, event: AuditEvent) -> BoxFuture<'a, Result<(), Unrecorded>> {
        Box::pin(async move {
            self.record(event).await;
            Ok(())
        })
    }

    /// Makes every event recorded so far durable (called on graceful shutdown).
    fn flush<'a>(&'a self) -> BoxFuture<'a, ()>;

    /// How the sink is doing (for metrics). By default: nothing queued, spooled or failed.
    fn health(&self) -> AuditHealth {
        AuditHealth::default()
    }

    /// Whether the server may start new calls: `false` while a destination the operator made
    /// essential is away (the audit database with `--audit-db-unavailable refuse`). By
    /// default always `true`.
    fn ready(&self) -> bool {
        true
    }

    /// Why the server may not start new calls now (what `/readyz` and a refused call say), or
    /// `None` when it may. By default: a generic reason when [`AuditSink::ready`] is `false`.
    fn unready(&self) -> Option<String> {
        (!self.ready()).then(|| "an audit destination cannot take records".to_owned())
    }

    /// Whether a record handed over now would be kept anywhere. `false` lets the server skip
    /// putting the record together at all: the tracing sink when the log filter leaves its
    /// level out (`RUST_LOG=...,mcpgen::audit=off`). By default always `true`.
    fn keeps_records(&self) -> bool {
        true
    }
}

/// How an audit sink is doing, as the metrics report it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AuditHealth {
    /// Records handed to the sink and not yet written.
    pub queued: u64,
    /// Records kept in a local spool file until their destination is back.
    pub spooled: u64,
    /// Errors so far: failed writes or syncs, and calls refused because their records could
    /// not be kept.
    pub errors: u64,
}

impl std::ops::Add for AuditHealth {
    type Output = Self;

    fn add(self, other: Self) -> Self {
        Self {
            queued: self.queued + other.queued,
            spooled: self.spooled + other.spooled,
            errors: self.errors + other.errors,
        }
    }
}

impl<S: AuditSink + ?Sized> AuditSink for Arc<S> {
    fn record<'a>(&'a self, event: AuditEvent) -> BoxFuture<'a, ()> {
        (**self).record(event)
    }

    fn flush<'a>(&'a self) -> BoxFuture<'a, ()> {
        (**self).flush()
    }

    fn health(&self) -> AuditHealth {
        (**self).health()
    }

    fn try_record<'a>(&'a self, event: AuditEvent) -> BoxFuture<'a, Result<(), Unrecorded>> {
        (**self).try_record(event)
    }

    fn ready(&self) -> bool {
        (**self).ready()
    }

    fn unready(&self) -> Option<String> {
        (**self).unready()
    }

    fn keeps_records(&self) -> bool {
        (**self).keeps_records()
    }
}
