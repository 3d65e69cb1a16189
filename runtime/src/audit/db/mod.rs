//! The database sink (features `postgres`, `sqlite`): one row per record in `mcpgen_audit`,
//! inserted in batches by one writer task.
//!
//! - **Durability** follows `--audit-fsync`: with [`Fsync::Always`], `record` returns once the
//!   row is committed (or, while the database is away, synced to the spool file); with `batch`
//!   and `never`, `record` returns once the record is queued, and the writer commits it as soon
//!   as the queue reaches it (the queue is bounded: back-pressure, never dropping).
//! - **Database away**: records the writer cannot insert go to a local spool file, in order;
//!   while the spool holds records, new ones follow them there, and every second the writer
//!   replays the spool, oldest first. Each record carries an id (its idempotency key), and the
//!   insert skips ids already in the table, so a replay cut short by a crash inserts nothing
//!   twice.
//! - With [`DbUnavailable::Refuse`], the server refuses new calls while the database is away
//!   ([`AuditSink::ready`]); records of calls already running still reach the spool.

mod backend;
mod spool;

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use mcpgen_core::BoxFuture;
use tokio::sync::{mpsc, oneshot};

use self::backend::Backend;
use self::spool::Spool;
use super::{AuditEvent, AuditHealth, AuditSink, Fsync};

/// Records the writer takes in one batch at most.
const BATCH: usize = 1024;

/// How often the writer retries a database that is away.
const RETRY: Duration = Duration::from_secs(1);

/// What the server does while the audit database is unreachable
/// (`--audit-db-unavailable`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum DbUnavailable {
    /// Keep serving; records go to the spool file and are replayed when the database is back.
    #[default]
    Spool,
    /// Refuse new calls (an error result, audited as `unavailable`) and report not ready at
    /// `/readyz` until the database is back.
    Refuse,
}

/// A record and its idempotency key, as inserted and as spooled.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
struct Keyed {
    id: String,
    event: AuditEvent,
}

/// A `--audit-db` URL that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DbUrlError {
    /// The URL names neither PostgreSQL nor SQLite.
    #[error(
        "not a PostgreSQL or SQLite URL; use postgres://USER:PASSWORD@HOST:PORT/DATABASE or \
         sqlite:///path/to/audit.db"
    )]
    Scheme,
    /// The URL is for a backend this binary was built without.
    #[error("this server was built without the `{0}` feature of mcpgen-runtime")]
    NotCompiled(&'static str),
    /// The driver refused the URL (the message never shows the password).
    #[error("{0}")]
    Invalid(String),
}

/// The database sink could not start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DbSinkError {
    /// The URL is unusable (the text shows the URL without its password).
    #[error("--audit-db {url}: {source}")]
    Url {
        /// The URL, password replaced by `***`.
        url: String,
        /// Why.
        source: DbUrlError,
    },
    /// The spool file cannot be opened.
    #[error("--audit-db-spool: {0}")]
    Spool(std::io::Error),
    /// Not called inside a Tokio runtime.
    #[error("the audit database sink must be opened inside a Tokio runtime")]
    NoRuntime,
}

/// Where the database sink writes and how.
#[derive(Debug, Clone)]
pub struct DbSinkConfig {
    /// `postgres://…` / `postgresql://…` or `sqlite:///path`.
    pub url: String,
    /// Durability, as for the JSON-lines file.
    pub fsync: Fsync,
    /// The local spool file for records the database could not take.
    pub spool: PathBuf,
    /// What the server does while the database is away.
    pub unavailable: DbUnavailable,
}

impl DbSinkConfig {
    /// `url` with the defaults: `batch`, the spool `mcpgen-audit.spool` in the working
    /// directory, [`DbUnavailable::Spool`].
    pub fn new(url: impl Into<String>) -> Self {
        Self {
            url: url.into(),
            fsync: Fsync::default(),
            spool: PathBuf::from(DEFAULT_SPOOL),
            unavailable: DbUnavailable::default(),
        }
    }
}

/// The default spool file (`--audit-db-spool`).
pub const DEFAULT_SPOOL: &str = "mcpgen-audit.spool";

/// State the writer task and the sink share.
#[derive(Debug, Default)]
struct Shared {
    available: AtomicBool,
    queued: AtomicU64,
    spooled: AtomicU64,
    errors: AtomicU64,
}

enum Message {
    Record(Box<Keyed>, Option<oneshot::Sender<()>>),
    Flush(oneshot::Sender<()>),
}

/// Writes audit records to PostgreSQL or SQLite (`--audit-db URL`).
pub struct DbSink {
    url: String,
    fsync: Fsync,
    refuse: bool,
    sender: mpsc::Sender<Message>,
    shared: Arc<Shared>,
}

impl fmt::Debug for DbSink {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DbSink")
            .field("url", &self.url)
            .field("fsync", &self.fsync)
            .finish_non_exhaustive()
    }
}

/// The password in `url` (`scheme://user:password@host…`), if any.
fn password_of(url: &str) -> Option<&str> {
    let rest = url.split_once("://")?.1;
    let authority = rest.split(['/', '?']).next()?;
    let userinfo = authority.rsplit_once('@')?.0;
    Some(userinfo.split_once(':')?.1)
}

/// `url` with its password replaced by `***`, for messages and logs.
pub fn redacted(url: &str) -> String {
    match password_of(url) {
        Some(password) if !password.is_empty() => url.replacen(password, "***", 1),
        _ => url.to_owned(),
    }
}

impl DbSink {
    /// Checks the URL, opens the spool and starts the writer task, which creates the table
    /// (migrations) as soon as the database answers. An unreachable database does not stop
    /// the start: records wait in the spool.
    pub fn open(config: DbSinkConfig) -> Result<Self, DbSinkError> {
        let runtime = tokio::runtime::Handle::try_current().map_err(|_| DbSinkError::NoRuntime)?;
        let url = redacted(&config.url);
        let backend =
            Backend::connect(&config.url, config.fsync == Fsync::Always).map_err(|source| {
                DbSinkError::Url {
                    url: url.clone(),
                    source,
                }
            })?;
        let spool = Spool::open(&config.spool).map_err(DbSinkError::Spool)?;
        let shared = Arc::new(Shared::default());
        shared.spooled.store(spool.len(), Ordering::Relaxed);
        let (sender, receiver) = mpsc::channel(BATCH);
        let writer = Writer {
            backend,
            spool,
            fsync: config.fsync,
            shared: Arc::clone(&shared),
            migrated: false,
            url: url.clone(),
            last_attempt: Instant::now(),
        };
        runtime.spawn(writer.run(receiver));
        Ok(Self {
            url,
            fsync: config.fsync,
            refuse: config.unavailable == DbUnavailable::Refuse,
            sender,
            shared,
        })
    }

    /// Whether the last attempt to reach the database succeeded.
    pub fn is_available(&self) -> bool {
        self.shared.available.load(Ordering::Acquire)
    }

    /// Waits until the database has been reached (tables created), at most `timeout`.
    pub async fn wait_available(&self, timeout: Duration) -> bool {
        let deadline = tokio::time::Instant::now() + timeout;
        while !self.is_available() {
            if tokio::time::Instant::now() >= deadline {
                return false;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        true
    }
}

impl AuditSink for DbSink {
    fn record<'a>(&'a self, event: AuditEvent) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            let keyed = Keyed {
                id: uuid::Uuid::new_v4().to_string(),
                event,
            };
            let (ack, done) = if self.fsync == Fsync::Always {
                let (ack, done) = oneshot::channel();
                (Some(ack), Some(done))
            } else {
                (None, None)
            };
            self.shared.queued.fetch_add(1, Ordering::Relaxed);
            if let Err(mpsc::error::SendError(Message::Record(keyed, _))) = self
                .sender
                .send(Message::Record(Box::new(keyed), ack))
                .await
            {
                self.shared.queued.fetch_sub(1, Ordering::Relaxed);
                self.shared.errors.fetch_add(1, Ordering::Relaxed);
                tracing::error!(
                    target: "mcpgen::audit",
                    record = ?keyed.event,
                    "the audit database writer has stopped; record logged here instead"
                );
                return;
            }
            if let Some(done) = done {
                let _ = done.await;
            }
        })
    }

    fn flush<'a>(&'a self) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            let (ack, done) = oneshot::channel();
            if self.sender.send(Message::Flush(ack)).await.is_ok() {
                let _ = done.await;
            }
        })
    }

    fn health(&self) -> AuditHealth {
        AuditHealth {
            queued: self.shared.queued.load(Ordering::Relaxed),
            spooled: self.shared.spooled.load(Ordering::Relaxed),
            errors: self.shared.errors.load(Ordering::Relaxed),
        }
    }

    fn ready(&self) -> bool {
        !self.refuse || self.is_available()
    }
}

/// The writer task: owns the pool and the spool.
struct Writer {
    backend: Backend,
    spool: Spool,
    fsync: Fsync,
    shared: Arc<Shared>,
    migrated: bool,
    url: String,
    /// When the database was last tried while away.
    last_attempt: Instant,
}

impl Writer {
    async fn run(mut self, mut receiver: mpsc::Receiver<Message>) {
        self.reach().await;
        let mut batch = Vec::with_capacity(BATCH);
        loop {
            let waiting = !self.migrated || self.spool.len() > 0;
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

    /// Creates the tables if needed and replays the spool; records whether the database
    /// answered.
    async fn reach(&mut self) {
        self.try_reach().await;
        // Counted from the end of the attempt: a slow failure still leaves a second for
        // the records waiting in the queue.
        self.last_attempt = Instant::now();
    }

    async fn try_reach(&mut self) {
        if !self.migrated {
            match self.backend.migrate().await {
                Ok(()) => self.migrated = true,
                Err(error) => {
                    self.down(&error);
                    return;
                }
            }
        }
        if self.spool.len() > 0 {
            let records = match self.spool.read() {
                Ok(records) => records,
                Err(error) => {
                    self.shared.errors.fetch_add(1, Ordering::Relaxed);
                    tracing::error!(target: "mcpgen::audit", %error, "cannot read the audit spool");
                    return;
                }
            };
            if let Err(error) = self.backend.insert(&records).await {
                self.down(&error);
                return;
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
        }
        self.up();
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

    /// Inserts the batch's records (or spools them), then acknowledges them and the flushes.
    async fn handle(&mut self, batch: &mut Vec<Message>) {
        let mut records = Vec::with_capacity(batch.len());
        let mut acks = Vec::new();
        let mut flushes = Vec::new();
        for message in batch.drain(..) {
            match message {
                Message::Record(keyed, ack) => {
                    records.push(*keyed);
                    acks.extend(ack);
                }
                Message::Flush(ack) => flushes.push(ack),
            }
        }
        if !flushes.is_empty() && (self.spool.len() > 0 || !self.migrated) {
            self.reach().await;
        }
        if !records.is_empty() {
            let direct = self.migrated && self.spool.len() == 0;
            let inserted = if direct {
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
            } else {
                false
            };
            if !inserted {
                self.spool_records(&records);
            }
            self.shared
                .queued
                .fetch_sub(u64::try_from(records.len()).unwrap_or(0), Ordering::Relaxed);
        }
        for ack in acks {
            let _ = ack.send(());
        }
        for ack in flushes {
            let _ = ack.send(());
        }
    }

    fn spool_records(&mut self, records: &[Keyed]) {
        let sync = self.fsync != Fsync::Never;
        if let Err(error) = self.spool.append(records, sync) {
            self.shared.errors.fetch_add(1, Ordering::Relaxed);
            for record in records {
                tracing::error!(
                    target: "mcpgen::audit",
                    %error,
                    record = ?record.event,
                    "cannot spool an audit record; it is logged here instead"
                );
            }
        }
        self.shared
            .spooled
            .store(self.spool.len(), Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_never_show() {
        assert_eq!(
            redacted("postgres://audit:s3cret@db:5432/mcp"),
            "postgres://audit:***@db:5432/mcp"
        );
        assert_eq!(redacted("sqlite:///var/audit.db"), "sqlite:///var/audit.db");
        assert_eq!(
            redacted("postgres://audit@db/mcp"),
            "postgres://audit@db/mcp"
        );
    }
}
