//! The writer task of the database sink: owns the pool and the spool, inserts batches, spools
//! what the database cannot take, replays the spool when the database is back, and keeps in
//! memory the records that neither could take (batch mode) until one of them can.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use tokio::sync::mpsc;

use super::backend::Backend;
use super::spool::Spool;
use super::{BATCH, Message, Shared};
use crate::event::AuditEvent;
use crate::jsonl::Fsync;

/// How often the writer retries a database that is away (and a spool that could not be
/// written).
const RETRY: Duration = Duration::from_secs(1);

/// The writer task's state.
pub(super) struct Writer {
    backend: Backend,
    spool: Spool,
    fsync: Fsync,
    shared: Arc<Shared>,
    migrated: bool,
    url: String,
    /// When the database was last tried while away.
    last_attempt: Instant,
    /// Acknowledged records (batch and never modes) that neither the database nor the spool
    /// took; written as soon as one of them does.
    held: Vec<AuditEvent>,
}

impl Writer {
    pub(super) fn new(
        backend: Backend,
        spool: Spool,
        fsync: Fsync,
        shared: Arc<Shared>,
        url: String,
    ) -> Self {
        shared.spooled.store(spool.len(), Ordering::Relaxed);
        Self {
            backend,
            spool,
            fsync,
            shared,
            migrated: false,
            url,
            last_attempt: Instant::now(),
            held: Vec::new(),
        }
    }

    /// Whether records must wait for the database (and the writer retries every second).
    fn waiting(&self) -> bool {
        !self.migrated || self.spool.len() > 0 || !self.held.is_empty()
    }

    pub(super) async fn run(mut self, mut receiver: mpsc::Receiver<Message>) {
        self.reach().await;
        let mut batch = Vec::with_capacity(BATCH);
        loop {
            let waiting = self.waiting();
            // While the database is away, retry every second, busy or idle.
            if waiting && self.last_attempt.elapsed() >= RETRY {
                self.reach().await;
                continue;
            }
            let first = if waiting {
                let wait = RETRY.saturating_sub(self.last_attempt.elapsed());
                match tokio::time::timeout(wait, receiver.recv()).await {
                    Ok(Some(message)) => message,
                    Ok(None) => break,
                    Err(_) => {
                        self.reach().await;
                        continue;
                    }
                }
            } else {
                match receiver.recv().await {
                    Some(message) => message,
                    None => break,
                }
            };
            batch.push(first);
            while batch.len() < BATCH {
                match receiver.try_recv() {
                    Ok(message) => batch.push(message),
                    Err(_) => break,
                }
            }
            self.handle(&mut batch).await;
        }
        self.reach().await;
        self.backend.close().await;
    }

    /// Creates the tables if needed, replays the spool and inserts the held records; when
    /// the database does not answer, spools the held records. Records whether the database
    /// answered.
    async fn reach(&mut self) {
        if !self.try_reach().await && !self.held.is_empty() {
            self.spool_records(Vec::new());
        }
        // Counted from the end of the attempt: a slow failure still leaves a second for
        // the records waiting in the queue.
        self.last_attempt = Instant::now();
    }

    /// Whether the database took everything waiting.
    async fn try_reach(&mut self) -> bool {
        if !self.migrated {
            match self.backend.migrate().await {
                Ok(()) => self.migrated = true,
                Err(error) => {
                    self.down(&error);
                    return false;
                }
            }
        }
        if self.spool.len() > 0 && !self.replay().await {
            return false;
        }
        if !self.held.is_empty() {
            if let Err(error) = self.backend.insert(&self.held).await {
                self.down(&error);
                return false;
            }
            self.held.clear();
        }
        self.up();
        self.recovered();
        true
    }

    /// Inserts the spool's records, [`BATCH`] per transaction (a replay cut short keeps what
    /// it committed; the rest comes again, and ids already in are skipped), then empties it.
    async fn replay(&mut self) -> bool {
        let records = match self.spool.read() {
            Ok(records) => records,
            Err(error) => {
                self.shared.errors.fetch_add(1, Ordering::Relaxed);
                tracing::error!(target: "mcpgen::audit", %error, "cannot read the audit spool");
                return false;
            }
        };
        for chunk in records.chunks(BATCH) {
            if let Err(error) = self.backend.insert(chunk).await {
                self.down(&error);
                return false;
            }
        }
        if let Err(error) = self.spool.clear() {
            self.shared.errors.fetch_add(1, Ordering::Relaxed);
            tracing::error!(target: "mcpgen::audit", %error, "cannot empty the audit spool; its records are in the database and will be skipped when replayed");
        } else {
            tracing::info!(target: "mcpgen::audit", url = %self.url, replayed = records.len(), "audit database is back; spooled records replayed");
        }
        self.shared
            .spooled
            .store(self.spool.len(), Ordering::Relaxed);
        true
    }

    fn up(&self) {
        if !self.shared.available.swap(true, Ordering::AcqRel) {
            tracing::info!(target: "mcpgen::audit", url = %self.url, "audit database reached");
        }
    }

    fn down(&self, error: &sqlx::Error) {
        if self.shared.available.swap(false, Ordering::AcqRel) || !self.migrated {
            tracing::warn!(
                target: "mcpgen::audit",
                url = %self.url,
                %error,
                spool = %self.spool.path().display(),
                "audit database unreachable; records go to the spool until it is back"
            );
        }
    }

    /// Inserts the batch's records (or spools them), then tells each waiting caller whether
    /// its record was kept, and answers the flushes.
    async fn handle(&mut self, batch: &mut Vec<Message>) {
        let mut records = Vec::with_capacity(batch.len());
        let mut acks = Vec::new();
        let mut flushes = Vec::new();
        for message in batch.drain(..) {
            match message {
                Message::Record(event, ack) => {
                    records.push(*event);
                    acks.extend(ack);
                }
                Message::Flush(ack) => flushes.push(ack),
            }
        }
        if !flushes.is_empty() && self.waiting() {
            self.reach().await;
        }
        let mut kept = true;
        if !records.is_empty() {
            let count = u64::try_from(records.len()).unwrap_or(0);
            let inserted = if self.waiting() {
                false
            } else {
                match self.backend.insert(&records).await {
                    Ok(()) => {
                        self.up();
                        true
                    }
                    Err(error) => {
                        self.down(&error);
                        false
                    }
                }
            };
            if !inserted {
                kept = self.spool_records(records);
            }
            self.shared.queued.fetch_sub(count, Ordering::Relaxed);
        }
        for ack in acks {
            let _ = ack.send(kept);
        }
        for ack in flushes {
            let _ = ack.send(());
        }
    }

    /// Appends the held records, then `records`, to the spool. Records not written are held
    /// (batch and never: they were acknowledged) or dropped (always: their callers hear they
    /// were not kept, and the calls are answered `unavailable`). Whether `records` were kept.
    fn spool_records(&mut self, records: Vec<AuditEvent>) -> bool {
        let sync = self.fsync != Fsync::Never;
        let mut result = Ok(());
        if !self.held.is_empty() {
            result = self.spool.append(&self.held, sync);
            if result.is_ok() {
                self.held.clear();
            }
        }
        if result.is_ok() {
            result = self.spool.append(&records, sync);
        }
        self.shared
            .spooled
            .store(self.spool.len(), Ordering::Relaxed);
        match result {
            Ok(()) => {
                self.recovered();
                true
            }
            Err(error) => {
                self.failed(&error);
                if self.fsync != Fsync::Always {
                    self.held.extend(records);
                }
                false
            }
        }
    }

    /// Records cannot be kept: refuse calls until they can (logged once per change).
    fn failed(&self, error: &std::io::Error) {
        self.shared.errors.fetch_add(1, Ordering::Relaxed);
        let reason = format!(
            "the audit database is unreachable and the audit spool cannot be written ({error})"
        );
        *self
            .shared
            .failure
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = reason;
        if !self.shared.failing.swap(true, Ordering::AcqRel) {
            tracing::error!(
                target: "mcpgen::audit",
                url = %self.url,
                spool = %self.spool.path().display(),
                %error,
                held = self.held.len(),
                "audit records cannot be kept: the database is unreachable and the spool \
                 cannot be written; calls are refused until one of them takes records again"
            );
        }
    }

    /// Records can be kept again.
    fn recovered(&self) {
        if self.shared.failing.swap(false, Ordering::AcqRel) {
            tracing::info!(
                target: "mcpgen::audit",
                spool = %self.spool.path().display(),
                "audit records can be kept again; calls are accepted"
            );
        }
    }
}
