//! The database sink (features `postgres`, `sqlite`): one row per record in `mcpgen_audit`,
//! inserted in batches by one writer task.
//!
//! - **Durability** follows `--audit-fsync`: with [`Fsync::Always`], `record` returns once the
//!   row is committed (or, while the database is away, synced to the spool file); with `batch`
//!   and `never`, `record` returns once the record is queued, and the writer commits it as soon
//!   as the queue reaches it (the queue is bounded: back-pressure, never dropping).
//! - **Database away**: records the writer cannot insert go to a local spool file, in order;
//!   while the spool holds records, new ones follow them there, and every second the writer
//!   replays the spool, oldest first, one transaction per [`BATCH`] records. Each record
//!   carries its `call_id`, and the insert skips ids already in the table, so a replay cut
//!   short by a crash inserts nothing twice. The spool is emptied only once all it held is in.
//! - **One process per spool**: the spool is locked while the sink lives; a second process
//!   given the same path does not start ([`DbSinkError::SpoolLocked`]). A default spool
//!   (`mcpgen-audit.spool`) left beside the spool in use is taken over at start.
//! - **Spool not writable** (a full disk, a read-only file system): records are not kept, so
//!   calls are refused ([`AuditSink::try_record`] fails, [`AuditSink::ready`] is `false`) until
//!   a write succeeds or the database is back. With [`Fsync::Always`] no call is acknowledged
//!   without its record committed or synced; with `batch`, records queued before the failure
//!   wait in memory and are written as soon as the spool or the database takes them.
//! - With [`DbUnavailable::Refuse`], the server refuses new calls while the database is away
//!   ([`AuditSink::ready`]); records of calls already running still reach the spool.

mod backend;
mod spool;
mod writer;

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use mcpgen_core::BoxFuture;
use tokio::sync::{mpsc, oneshot};

use self::backend::Backend;
use self::spool::{OpenError, Spool};
use self::writer::Writer;
use super::event::{AuditEvent, AuditStatus};
use super::jsonl::Fsync;
use super::{AuditHealth, AuditSink, Unrecorded};

/// Records the writer takes in one batch at most, and replays in one transaction.
const BATCH: usize = 1024;

/// What the server does while the audit database is unreachable
/// (`--audit-db-unavailable`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum DbUnavailable {
    /// Keep serving; records go to the spool file and are replayed when the database is back.
    #[default]
    Spool,
    /// Refuse new calls (an error result, audited as `unavailable`) and report not ready at
    /// `/readyz` until the database is back.
    Refuse,
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
    #[error(
        "this server was built without the `{0}` feature; build it with `cargo build \
         --release --features {0}` (the generated crate's feature of that name)"
    )]
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
    #[error("--audit-db (MCPGEN_AUDIT_DB) {url}: {source}")]
    Url {
        /// The URL, password replaced by `***`.
        url: String,
        /// Why.
        source: DbUrlError,
    },
    /// The spool file cannot be opened.
    #[error("--audit-db-spool: {0}")]
    Spool(std::io::Error),
    /// Another process holds the spool file's lock: two processes never share a spool.
    #[error(
        "--audit-db-spool {}: another process is using this spool (it is locked); give each \
         process its own: `--replica-name NAME` (the spool becomes mcpgen-audit.NAME.spool) \
         or `--audit-db-spool PATH`",
        .0.display()
    )]
    SpoolLocked(PathBuf),
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
    /// directory (see [`spool_path`]), [`DbUnavailable::Spool`].
    pub fn new(url: impl Into<String>) -> Self {
        Self {
            url: url.into(),
            fsync: Fsync::default(),
            spool: PathBuf::from(DEFAULT_SPOOL),
            unavailable: DbUnavailable::default(),
        }
    }
}

/// The default spool file (`--audit-db-spool`) of a server without a replica name.
pub const DEFAULT_SPOOL: &str = "mcpgen-audit.spool";

/// The default spool file of a server: `mcpgen-audit.NAME.spool` for the replica named
/// `NAME` (`--replica-name`), [`DEFAULT_SPOOL`] without a name; in the working directory.
pub fn spool_path(replica: Option<&str>) -> PathBuf {
    match replica {
        Some(name) => PathBuf::from(format!("mcpgen-audit.{name}.spool")),
        None => PathBuf::from(DEFAULT_SPOOL),
    }
}

/// The default spool beside `spool`, when `spool` is another file: taken over at start.
fn legacy_beside(spool: &Path) -> Option<PathBuf> {
    if spool.file_name().is_some_and(|name| name == DEFAULT_SPOOL) {
        return None;
    }
    Some(spool.with_file_name(DEFAULT_SPOOL))
}

/// State the writer task and the sink share.
#[derive(Debug, Default)]
struct Shared {
    available: AtomicBool,
    /// Records cannot be kept: the database is away and the spool cannot be written.
    failing: AtomicBool,
    /// Why, while `failing`.
    failure: Mutex<String>,
    queued: AtomicU64,
    spooled: AtomicU64,
    errors: AtomicU64,
}

impl Shared {
    fn failure(&self) -> String {
        self.failure
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

enum Message {
    /// A record, and (with [`Fsync::Always`]) who waits to hear whether it was kept.
    Record(Box<AuditEvent>, Option<oneshot::Sender<bool>>),
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
        let mut spool = match Spool::open(&config.spool) {
            Ok(spool) => spool,
            Err(OpenError::Locked) => return Err(DbSinkError::SpoolLocked(config.spool)),
            Err(OpenError::Io(e)) => return Err(DbSinkError::Spool(e)),
        };
        if let Some(legacy) = legacy_beside(&config.spool).filter(|p| p.exists()) {
            match spool.take_over(&legacy) {
                Ok(Some(moved)) => tracing::info!(
                    target: "mcpgen::audit",
                    from = %legacy.display(),
                    to = %config.spool.display(),
                    records = moved,
                    "audit records of an earlier spool moved into this one"
                ),
                Ok(None) => {}
                Err(error) => tracing::warn!(
                    target: "mcpgen::audit",
                    %error,
                    "cannot take over the earlier audit spool; it is left as it is"
                ),
            }
        }
        let shared = Arc::new(Shared::default());
        let (sender, receiver) = mpsc::channel(BATCH);
        let writer = Writer::new(
            backend,
            spool,
            config.fsync,
            Arc::clone(&shared),
            url.clone(),
        );
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
            // A record not kept was counted, and its cause logged when it began.
            let _ = self.try_record(event).await;
        })
    }

    fn try_record<'a>(&'a self, event: AuditEvent) -> BoxFuture<'a, Result<(), Unrecorded>> {
        Box::pin(async move {
            let failing = self.shared.failing.load(Ordering::Acquire);
            // The record of a call refused because records cannot be kept counts as one
            // refusal, whatever becomes of the record.
            let refusal = failing && event.status == AuditStatus::Unavailable;
            if refusal {
                self.shared.errors.fetch_add(1, Ordering::Relaxed);
            }
            let not_kept = || {
                if !refusal {
                    self.shared.errors.fetch_add(1, Ordering::Relaxed);
                }
                Err(Unrecorded(self.failure()))
            };
            // Batch and never acknowledge once queued: while records cannot be kept, nothing
            // more is queued (the records already queued wait in the writer's memory).
            if failing && self.fsync != Fsync::Always {
                return not_kept();
            }
            let (ack, done) = if self.fsync == Fsync::Always {
                let (ack, done) = oneshot::channel();
                (Some(ack), Some(done))
            } else {
                (None, None)
            };
            self.shared.queued.fetch_add(1, Ordering::Relaxed);
            if self
                .sender
                .send(Message::Record(Box::new(event), ack))
                .await
                .is_err()
            {
                self.shared.queued.fetch_sub(1, Ordering::Relaxed);
                tracing::error!(
                    target: "mcpgen::audit",
                    "the audit database writer has stopped; a record was not kept"
                );
                return not_kept();
            }
            match done {
                Some(done) => match done.await {
                    Ok(true) => Ok(()),
                    _ => not_kept(),
                },
                None => Ok(()),
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
        !self.shared.failing.load(Ordering::Acquire) && (!self.refuse || self.is_available())
    }

    fn unready(&self) -> Option<String> {
        if self.shared.failing.load(Ordering::Acquire) {
            Some(self.failure())
        } else if self.refuse && !self.is_available() {
            Some("the audit database is unreachable".to_owned())
        } else {
            None
        }
    }
}

impl DbSink {
    /// Why records cannot be kept now.
    fn failure(&self) -> String {
        let failure = self.shared.failure();
        if failure.is_empty() {
            "the audit database is unreachable and its spool cannot be written".to_owned()
        } else {
            failure
        }
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
