//! The JSON-lines file written by the recording task itself, for [`Fsync::Batch`] and
//! [`Fsync::Never`].
//!
//! Neither mode syncs before `record` returns, so a record needs only its `write` to the
//! operating system: the task that records appends its line under a lock, without the hop to
//! a writer thread and back (two thread wake-ups per call) that [`Fsync::Always`]'s group
//! commit needs. In batch mode a syncer thread syncs the file at most every 100 ms while
//! something is unsynced, on a handle of its own, so no writer waits for a sync.

use std::fs::File;
use std::io::{self, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;

use super::{BATCH_INTERVAL, Fsync, sync_file, write_failed, write_recovered};

/// The file and what its next write must know.
struct Appender {
    file: File,
    /// The file ends in a partial line (a crash before, or a failed write): the next write
    /// starts on a new line.
    needs_newline: bool,
    buffer: Vec<u8>,
}

/// What the syncer and the writers share.
struct Shared {
    /// A handle of its own, so a sync never holds the writers' lock.
    sync_file: File,
    unsynced: AtomicBool,
    path: PathBuf,
    errors: Arc<AtomicU64>,
}

impl Shared {
    fn sync(&self) {
        // Whatever is written after this point is left for the next sync.
        if !self.unsynced.swap(false, Ordering::AcqRel) {
            return;
        }
        sync_file(&self.sync_file, &self.path, &self.errors);
    }
}

/// Appends lines from the recording tasks.
pub(super) struct Direct {
    appender: Mutex<Appender>,
    shared: Arc<Shared>,
    fsync: Fsync,
    /// Writes are failing (their cause was logged).
    failing: AtomicBool,
    /// Dropped to stop the syncer (batch mode only).
    stop: Option<Sender<()>>,
    syncer: Option<JoinHandle<()>>,
}

impl Direct {
    /// Takes over `file` (opened for appending); in batch mode, starts the syncer.
    pub(super) fn start(
        file: File,
        path: PathBuf,
        fsync: Fsync,
        needs_newline: bool,
        errors: Arc<AtomicU64>,
    ) -> io::Result<Self> {
        let shared = Arc::new(Shared {
            sync_file: file.try_clone()?,
            unsynced: AtomicBool::new(false),
            path,
            errors,
        });
        let (stop, syncer) = if fsync == Fsync::Batch {
            let (stop, stopped) = mpsc::channel::<()>();
            let shared = Arc::clone(&shared);
            let syncer = std::thread::Builder::new()
                .name("mcpgen-audit-sync".to_owned())
                .spawn(move || {
                    while let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(BATCH_INTERVAL)
                    {
                        shared.sync();
                    }
                })?;
            (Some(stop), Some(syncer))
        } else {
            (None, None)
        };
        Ok(Self {
            appender: Mutex::new(Appender {
                file,
                needs_newline,
                buffer: Vec::new(),
            }),
            shared,
            failing: AtomicBool::new(false),
            fsync,
            stop,
            syncer,
        })
    }

    /// Appends `line` (ending in a newline) with one write. A failed write is counted, and
    /// its cause logged when writes begin to fail (and when they succeed again).
    pub(super) fn append(&self, line: &[u8]) -> io::Result<()> {
        let mut appender = self.appender.lock().unwrap_or_else(PoisonError::into_inner);
        let Appender {
            file,
            needs_newline,
            buffer,
        } = &mut *appender;
        let written = if *needs_newline {
            buffer.clear();
            buffer.push(b'\n');
            buffer.extend_from_slice(line);
            file.write_all(buffer)
        } else {
            file.write_all(line)
        };
        match written {
            Ok(()) => {
                *needs_newline = false;
                self.shared.unsynced.store(true, Ordering::Release);
                drop(appender);
                write_recovered(&self.failing, &self.shared.path);
                Ok(())
            }
            Err(e) => {
                // Part of the line may be in the file; start the next write on a new line.
                *needs_newline = true;
                self.shared.unsynced.store(true, Ordering::Release);
                drop(appender);
                self.shared.errors.fetch_add(1, Ordering::Relaxed);
                write_failed(&self.failing, &self.shared.path, &e);
                Err(e)
            }
        }
    }

    /// Syncs what is written (batch mode; never mode leaves it to the operating system).
    pub(super) fn flush(&self) {
        if self.fsync == Fsync::Batch {
            self.shared.sync();
        }
    }
}

impl Drop for Direct {
    /// Stops the syncer and syncs what is left (batch mode).
    fn drop(&mut self) {
        self.stop = None;
        if let Some(syncer) = self.syncer.take() {
            let _ = syncer.join();
        }
        self.flush();
    }
}
