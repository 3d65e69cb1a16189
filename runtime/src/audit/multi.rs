//! Fan-out to several sinks.

use std::fmt;
use std::sync::Arc;

use mcpgen_core::BoxFuture;

use super::event::AuditEvent;
use super::{AuditHealth, AuditSink, Unrecorded};

/// Records every event in each of its sinks, concurrently; `record` returns when all have.
#[derive(Clone, Default)]
pub struct MultiSink {
    sinks: Vec<Arc<dyn AuditSink>>,
}

impl fmt::Debug for MultiSink {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MultiSink")
            .field("sinks", &self.sinks.len())
            .finish()
    }
}

impl MultiSink {
    /// A sink with no sinks inside (records nothing).
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a sink.
    pub fn with(mut self, sink: impl AuditSink) -> Self {
        self.sinks.push(Arc::new(sink));
        self
    }

    /// Adds a shared sink.
    pub fn push(&mut self, sink: Arc<dyn AuditSink>) {
        self.sinks.push(sink);
    }

    /// Number of sinks.
    pub fn len(&self) -> usize {
        self.sinks.len()
    }

    /// Whether there are no sinks.
    pub fn is_empty(&self) -> bool {
        self.sinks.is_empty()
    }
}

impl From<Vec<Arc<dyn AuditSink>>> for MultiSink {
    fn from(sinks: Vec<Arc<dyn AuditSink>>) -> Self {
        Self { sinks }
    }
}

impl AuditSink for MultiSink {
    fn record<'a>(&'a self, event: AuditEvent) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            let Some((last, rest)) = self.sinks.split_last() else {
                return;
            };
            let mut pending: Vec<_> = rest.iter().map(|s| s.record(event.clone())).collect();
            pending.push(last.record(event));
            futures::future::join_all(pending).await;
        })
    }

    /// Kept when every sink kept it; otherwise the first sink's reason.
    fn try_record<'a>(&'a self, event: AuditEvent) -> BoxFuture<'a, Result<(), Unrecorded>> {
        Box::pin(async move {
            let Some((last, rest)) = self.sinks.split_last() else {
                return Ok(());
            };
            let mut pending: Vec<_> = rest.iter().map(|s| s.try_record(event.clone())).collect();
            pending.push(last.try_record(event));
            futures::future::join_all(pending)
                .await
                .into_iter()
                .collect::<Result<(), _>>()
        })
    }

    fn flush<'a>(&'a self) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            futures::future::join_all(self.sinks.iter().map(|s| s.flush())).await;
        })
    }

    fn health(&self) -> AuditHealth {
        self.sinks
            .iter()
            .map(|s| s.health())
            .fold(AuditHealth::default(), |a, b| a + b)
    }

    fn ready(&self) -> bool {
        self.sinks.iter().all(|s| s.ready())
    }

    fn unready(&self) -> Option<String> {
        self.sinks.iter().find_map(|s| s.unready())
    }

    /// Whether any sink keeps records (none does when there are none).
    fn keeps_records(&self) -> bool {
        self.sinks.iter().any(|s| s.keeps_records())
    }
}
