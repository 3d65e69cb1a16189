//! The local spool file of the database sink: records that could not be inserted, one JSON
//! line each (`{"id": …, "event": {…}}`), in the order they were recorded, until the database
//! is back and they are replayed.

use std::fs::{File, OpenOptions};
use std::io::{self, BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

use super::Keyed;

/// An append-only file of keyed records.
pub(super) struct Spool {
    path: PathBuf,
    file: File,
    /// Records in the file.
    len: u64,
}

impl Spool {
    /// Opens (or creates) the spool at `path` and counts the records already in it.
    pub(super) fn open(path: &Path) -> io::Result<Self> {
        let file = OpenOptions::new()
            .create(true)
            .read(true)
            .append(true)
            .open(path)
            .map_err(|e| in_file(path, "open", e))?;
        let mut spool = Self {
            path: path.to_path_buf(),
            file,
            len: 0,
        };
        spool.len = u64::try_from(spool.read()?.len()).unwrap_or(u64::MAX);
        Ok(spool)
    }

    /// Records waiting in the file.
    pub(super) fn len(&self) -> u64 {
        self.len
    }

    /// The spool's path.
    pub(super) fn path(&self) -> &Path {
        &self.path
    }

    /// Appends `records` with one write; with `sync`, makes them durable before returning.
    pub(super) fn append(&mut self, records: &[Keyed], sync: bool) -> io::Result<()> {
        let mut buffer = Vec::new();
        for record in records {
            serde_json::to_writer(&mut buffer, record)
                .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
            buffer.push(b'\n');
        }
        self.file
            .write_all(&buffer)
            .map_err(|e| in_file(&self.path, "write", e))?;
        if sync {
            self.file
                .sync_data()
                .map_err(|e| in_file(&self.path, "sync", e))?;
        }
        self.len += u64::try_from(records.len()).unwrap_or(u64::MAX);
        Ok(())
    }

    /// Every record in the file, in order. A last line cut short by a crash is skipped (it was
    /// never acknowledged: records are acknowledged after their write).
    pub(super) fn read(&self) -> io::Result<Vec<Keyed>> {
        let file = File::open(&self.path).map_err(|e| in_file(&self.path, "read", e))?;
        let mut records = Vec::new();
        for (n, line) in BufReader::new(file).lines().enumerate() {
            let line = line.map_err(|e| in_file(&self.path, "read", e))?;
            if line.trim().is_empty() {
                continue;
            }
            match serde_json::from_str::<Keyed>(&line) {
                Ok(record) => records.push(record),
                Err(e) => tracing::warn!(
                    target: "mcpgen::audit",
                    path = %self.path.display(),
                    line = n + 1,
                    error = %e,
                    "skipping an unreadable line of the audit spool"
                ),
            }
        }
        Ok(records)
    }

    /// Empties the file once every record in it is in the database.
    pub(super) fn clear(&mut self) -> io::Result<()> {
        self.file
            .set_len(0)
            .and_then(|()| self.file.sync_all())
            .map_err(|e| in_file(&self.path, "truncate", e))?;
        self.len = 0;
        Ok(())
    }
}

fn in_file(path: &Path, action: &str, e: io::Error) -> io::Error {
    io::Error::new(
        e.kind(),
        format!("cannot {action} the audit spool {}: {e}", path.display()),
    )
}
