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

impl MultiSink {
    /// The one sink that keeps a record handed over now (see [`AuditSink::keeps_records`]),
    /// `Ok(None)` when none does, `Err(())` when several do. A record is not copied for a sink
    /// that would drop it (the log sink at DEBUG level under the default log filter, beside an
    /// audit log).
    fn only_keeper(&self) -> Result<Option<&Arc<dyn AuditSink>>, ()> {
        let mut keeping = self.sinks.iter().filter(|s| s.keeps_records());
        match (keeping.next(), keeping.next()) {
            (first, None) => Ok(first),
            (Some(_), Some(_)) | (None, Some(_)) => Err(()),
        }
    }
}

impl AuditSink for MultiSink {
    fn record<'a>(&'a self, event: AuditEvent) -> BoxFuture<'a, ()> {
        match self.only_keeper() {
            Ok(None) => Box::pin(std::future::ready(())),
            Ok(Some(only)) => only.record(event),
            Err(()) => {
                let keeping: Vec<_> = self.sinks.iter().filter(|s| s.keeps_records()).collect();
                let Some((last, rest)) = keeping.split_last() else {
                    return Box::pin(std::future::ready(()));
                };
                let mut pending: Vec<_> = rest.iter().map(|s| s.record(event.clone())).collect();
                pending.push(last.record(event));
                Box::pin(async move {
                    futures::future::join_all(pending).await;
                })
            }
        }
    }

    /// Kept when every sink that keeps records kept it; otherwise the first sink's reason.
    fn try_record<'a>(&'a self, event: AuditEvent) -> BoxFuture<'a, Result<(), Unrecorded>> {
        match self.only_keeper() {
            Ok(None) => Box::pin(std::future::ready(Ok(()))),
            Ok(Some(only)) => only.try_record(event),
            Err(()) => {
                let keeping: Vec<_> = self.sinks.iter().filter(|s| s.keeps_records()).collect();
                let Some((last, rest)) = keeping.split_last() else {
                    return Box::pin(std::future::ready(Ok(())));
                };
                let mut pending: Vec<_> =
                    rest.iter().map(|s| s.try_record(event.clone())).collect();
                pending.push(last.try_record(event));
                Box::pin(async move {
                    futures::future::join_all(pending)
                        .await
                        .into_iter()
                        .collect::<Result<(), _>>()
                })
            }
        }
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
