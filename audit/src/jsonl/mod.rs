//! The JSON-lines file sink.
//!
//! With [`Fsync::Always`], one writer thread owns the file. `record` serializes the event,
//! waits for a queue slot (the queue is bounded: back-pressure, never dropping), hands the line
//! to the writer and waits for its acknowledgement. The writer takes every line queued at that
//! moment, appends them with one write, syncs, and only then acknowledges each — so under
//! concurrency many records share one `fsync` (group commit). With [`Fsync::Batch`] and
//! [`Fsync::Never`], which do not sync before `record` returns, the recording task appends its
//! line itself ([`direct`]).

use std::fmt;
use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::thread::JoinHandle;
use std::time::Duration;

mod direct;

use mcpgen_core::BoxFuture;
use tokio::sync::{OwnedSemaphorePermit, Semaphore, oneshot};

use super::event::AuditEvent;
use super::line::write_json;
use super::{AuditHealth, AuditSink, Unrecorded};
use direct::Direct;

/// Bytes reserved for one record's line.
const LINE_CAPACITY: usize = 512;

/// Records that may wait for the writer before `record` itself waits for a slot.
const QUEUE_CAPACITY: usize = 1024;

/// Longest time a written record stays unsynced in [`Fsync::Batch`] mode.
pub(super) const BATCH_INTERVAL: Duration = Duration::from_millis(100);

/// When the JSON-lines sink syncs the file to disk (`--audit-fsync`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Fsync {
    /// Before every `record` returns: an acknowledged record survives a crash of the machine.
    Always,
    /// At most every 100 ms and on `flush`; a record is written to the operating system
    /// before `record` returns, so it survives the process being killed.
    #[default]
    Batch,
    /// Never (the operating system decides); records still reach it before `record` returns.
    Never,
}

impl Fsync {
    /// The mode's name as on the command line (`always`, `batch`, `never`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Always => "always",
            Self::Batch => "batch",
            Self::Never => "never",
        }
    }
}

impl fmt::Display for Fsync {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An unknown `--audit-fsync` value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown audit fsync mode `{0}`; expected `always`, `batch` or `never`")]
pub struct ParseFsyncError(pub String);

impl FromStr for Fsync {
    type Err = ParseFsyncError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "always" => Ok(Self::Always),
            "batch" => Ok(Self::Batch),
            "never" => Ok(Self::Never),
            _ => Err(ParseFsyncError(s.to_owned())),
        }
    }
}

/// A message to the writer thread: a line to append, or (`line: None`) a flush request. The
/// acknowledgement says whether the line was written and synced.
struct Message {
    line: Option<Vec<u8>>,
    ack: oneshot::Sender<bool>,
    _slot: OwnedSemaphorePermit,
}

/// Appends one JSON object per line to a file (`--audit-log FILE`).
pub struct JsonlSink {
    path: PathBuf,
    fsync: Fsync,
    slots: Arc<Semaphore>,
    sender: Option<Sender<Message>>,
    writer: Option<JoinHandle<()>>,
    /// Batch and never modes: the recording task writes (then `sender` and `writer` are
    /// `None`).
    direct: Option<Direct>,
    /// Failed writes and syncs, and records the writer could not take.
    errors: Arc<AtomicU64>,
}

impl fmt::Debug for JsonlSink {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JsonlSink")
            .field("path", &self.path)
            .field("fsync", &self.fsync)
            .finish_non_exhaustive()
    }
}

impl JsonlSink {
    /// Opens `path` for appending (creating it if needed) and starts the writer thread.
    /// Errors name the file.
    pub fn open(path: impl AsRef<Path>, fsync: Fsync) -> io::Result<Self> {
        let path = path.as_ref().to_path_buf();
        let context = |action: &str, e: io::Error| {
            io::Error::new(
                e.kind(),
                format!("cannot {action} audit log {}: {e}", path.display()),
            )
        };
        let mut options = OpenOptions::new();
        options.read(true).append(true);
        let (mut file, created) = match options.clone().create_new(true).open(&path) {
            Ok(file) => (file, true),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                (options.open(&path).map_err(|e| context("open", e))?, false)
            }
            Err(e) => return Err(context("create", e)),
        };
        if created && fsync != Fsync::Never {
            sync_parent_dir(&path);
        }
        // A previous crash may have left a partial last line; start ours on a fresh one.
        let needs_newline = !ends_with_newline(&mut file).map_err(|e| context("read", e))?;
        let errors = Arc::new(AtomicU64::new(0));
        if fsync != Fsync::Always {
            let direct = Direct::start(file, path.clone(), fsync, needs_newline, errors.clone())
                .map_err(|e| context("start the syncer for", e))?;
            return Ok(Self {
                path,
                fsync,
                slots: Arc::new(Semaphore::new(QUEUE_CAPACITY)),
                sender: None,
                writer: None,
                direct: Some(direct),
                errors,
            });
        }
        let (sender, receiver) = mpsc::channel();
        let writer = Writer {
            errors: Arc::clone(&errors),
            failing: AtomicBool::new(false),
            file,
            path: path.clone(),
            needs_newline,
            unsynced: false,
            buffer: Vec::new(),
        };
        let handle = std::thread::Builder::new()
            .name("mcpgen-audit".to_owned())
            .spawn(move || writer.run(receiver))
            .map_err(|e| context("start the writer for", e))?;
        Ok(Self {
            path,
            fsync,
            slots: Arc::new(Semaphore::new(QUEUE_CAPACITY)),
            sender: Some(sender),
            writer: Some(handle),
            direct: None,
            errors,
        })
    }

    /// The file records are appended to.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The sync mode.
    pub fn fsync(&self) -> Fsync {
        self.fsync
    }

    /// Queues `line` (or a flush when `None`) and waits until the writer has handled it;
    /// whether it was written. Gives the line back when the writer is gone (it only stops if
    /// it panicked).
    async fn submit(&self, line: Option<Vec<u8>>) -> Result<bool, Option<Vec<u8>>> {
        let (Some(sender), Ok(slot)) =
            (&self.sender, Arc::clone(&self.slots).acquire_owned().await)
        else {
            return Err(line); // the semaphore is never closed; the sender only goes in drop
        };
        let (ack, done) = oneshot::channel();
        let message = Message {
            line,
            ack,
            _slot: slot,
        };
        if let Err(mpsc::SendError(message)) = sender.send(message) {
            return Err(message.line);
        }
        done.await.map_err(|_| None)
    }
}

impl AuditSink for JsonlSink {
    fn record<'a>(&'a self, event: AuditEvent) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            // A record not written was counted, and the cause logged when writes began to fail.
            let _ = self.try_record(event).await;
        })
    }

    /// `Err` when the line could not be written (with [`Fsync::Always`]: written and synced).
    fn try_record<'a>(&'a self, event: AuditEvent) -> BoxFuture<'a, Result<(), Unrecorded>> {
        Box::pin(async move {
            // A record is about 400 bytes: one allocation, written straight into.
            let mut line = Vec::with_capacity(LINE_CAPACITY);
            match write_json(&event, &mut line) {
                Ok(()) => {}
                Err(e) => {
                    self.errors.fetch_add(1, Ordering::Relaxed);
                    tracing::error!(
                        target: "mcpgen::audit",
                        error = %e,
                        "cannot serialize an audit record"
                    );
                    return Err(Unrecorded(format!("cannot serialize it: {e}")));
                }
            };
            line.push(b'\n');
            let not_written = |detail: String| {
                Unrecorded(format!(
                    "the audit log {} cannot be written{detail}",
                    self.path.display()
                ))
            };
            if let Some(direct) = &self.direct {
                return direct
                    .append(&line)
                    .map_err(|e| not_written(format!(" ({e})")));
            }
            match self.submit(Some(line)).await {
                Ok(true) => Ok(()),
                Ok(false) => Err(not_written(String::new())),
                Err(_) => {
                    self.errors.fetch_add(1, Ordering::Relaxed);
                    tracing::error!(
                        target: "mcpgen::audit",
                        path = %self.path.display(),
                        "audit log writer has stopped"
                    );
                    Err(not_written(" (its writer has stopped)".to_owned()))
                }
            }
        })
    }

    fn health(&self) -> AuditHealth {
        self.current_health()
    }

    fn flush<'a>(&'a self) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            if let Some(direct) = &self.direct {
                direct.flush();
                return;
            }
            if self.submit(None).await.is_err() {
                tracing::error!(
                    target: "mcpgen::audit",
                    path = %self.path.display(),
                    "audit log writer has stopped; cannot flush"
                );
            }
        })
    }
}

impl JsonlSink {
    /// Records waiting for the writer, and errors so far.
    fn current_health(&self) -> AuditHealth {
        let free = self.slots.available_permits();
        AuditHealth {
            queued: u64::try_from(QUEUE_CAPACITY.saturating_sub(free)).unwrap_or(u64::MAX),
            spooled: 0,
            errors: self.errors.load(Ordering::Relaxed),
        }
    }
}

impl Drop for JsonlSink {
    /// Lets the writer finish what is queued, sync (unless [`Fsync::Never`]) and stop.
    fn drop(&mut self) {
        self.sender = None;
        if let Some(writer) = self.writer.take() {
            let _ = writer.join();
        }
    }
}

struct Writer {
    errors: Arc<AtomicU64>,
    /// Writes are failing (their cause was logged).
    failing: AtomicBool,
    file: File,
    path: PathBuf,
    needs_newline: bool,
    unsynced: bool,
    buffer: Vec<u8>,
}

impl Writer {
    fn run(mut self, receiver: Receiver<Message>) {
        let mut batch = Vec::new();
        loop {
            let Ok(first) = receiver.recv() else {
                break;
            };
            batch.push(first);
            while batch.len() < QUEUE_CAPACITY {
                match receiver.try_recv() {
                    Ok(message) => batch.push(message),
                    Err(_) => break,
                }
            }
            self.handle(&mut batch);
        }
        if self.unsynced {
            self.sync();
        }
    }

    /// Appends the batch's lines with one write, syncs, then acknowledges: whether the lines
    /// were written and synced.
    fn handle(&mut self, batch: &mut Vec<Message>) {
        self.buffer.clear();
        if self.needs_newline {
            self.buffer.push(b'\n');
        }
        for line in batch.iter().filter_map(|m| m.line.as_deref()) {
            self.buffer.extend_from_slice(line);
        }
        let has_lines = self.buffer.len() > usize::from(self.needs_newline);
        let mut written = true;
        if has_lines {
            match self.file.write_all(&self.buffer) {
                Ok(()) => {
                    self.needs_newline = false;
                    self.unsynced = true;
                }
                Err(e) => {
                    // Part of the buffer may be in the file; start the next write on a new line.
                    self.needs_newline = true;
                    self.errors.fetch_add(1, Ordering::Relaxed);
                    write_failed(&self.failing, &self.path, &e);
                    written = false;
                }
            }
        }
        // Synced before any acknowledgement; a flush request is answered with the records.
        if self.unsynced {
            written &= self.sync();
        }
        if written && has_lines {
            write_recovered(&self.failing, &self.path);
        }
        for message in batch.drain(..) {
            let _ = message.ack.send(written);
        }
    }

    /// Whether the sync succeeded.
    fn sync(&mut self) -> bool {
        self.unsynced = false;
        sync_file(&self.file, &self.path, &self.errors)
    }
}

/// Syncs `file` (the audit log at `path`) to disk; a failure is counted in `errors` and logged.
/// Whether the sync succeeded.
pub(super) fn sync_file(file: &File, path: &Path, errors: &AtomicU64) -> bool {
    if let Err(e) = file.sync_data() {
        errors.fetch_add(1, Ordering::Relaxed);
        tracing::error!(
            target: "mcpgen::audit",
            path = %path.display(),
            error = %e,
            "cannot sync audit log to disk; written records may not survive a machine crash"
        );
        return false;
    }
    true
}

/// Logs, once until writes succeed again, that the audit log at `path` cannot be written:
/// the calls whose records it cannot keep are answered `unavailable`.
pub(super) fn write_failed(failing: &AtomicBool, path: &Path, error: &io::Error) {
    if !failing.swap(true, Ordering::AcqRel) {
        tracing::error!(
            target: "mcpgen::audit",
            path = %path.display(),
            %error,
            "cannot write the audit log; calls whose records it cannot keep are answered \
             unavailable until it can"
        );
    }
}

/// Logs, once, that the audit log at `path` takes records again.
pub(super) fn write_recovered(failing: &AtomicBool, path: &Path) {
    // Read first: a write to the flag on every record would bounce its cache line between
    // the threads that record.
    if failing.load(Ordering::Relaxed) && failing.swap(false, Ordering::AcqRel) {
        tracing::info!(target: "mcpgen::audit", path = %path.display(), "the audit log takes records again");
    }
}

fn ends_with_newline(file: &mut File) -> io::Result<bool> {
    if file.metadata()?.len() == 0 {
        return Ok(true);
    }
    file.seek(SeekFrom::End(-1))?;
    let mut last = [0u8; 1];
    file.read_exact(&mut last)?;
    Ok(last[0] == b'\n')
}

/// Makes a newly created file's directory entry durable (best effort: some file systems
/// refuse to sync directories).
fn sync_parent_dir(path: &Path) {
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if let Ok(dir) = File::open(parent) {
        let _ = dir.sync_all();
    }
}
