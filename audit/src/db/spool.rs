//! The local spool file of the database sink: records that could not be inserted, one JSON
//! line each (an [`AuditEvent`], as in the JSON-lines audit log), in the order they were
//! recorded, until the database is back and they are replayed.
//!
//! - **One process per spool**: the file is locked (an exclusive `flock`, through
//!   [`File::try_lock`]) for as long as the sink lives. A second process finds it locked and
//!   does not start.
//! - **Whole records only**: a write cut short (a full disk) is cut back to the last whole
//!   record before the error is reported, and a partial last line left by a crash is cut off
//!   when the spool is opened, so a replay never meets a torn line.
//! - **Nothing unread removed**: the spool is emptied only when everything in it was read (and
//!   inserted); records are never removed one by one.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use crate::event::AuditEvent;

/// Why a spool cannot be opened.
#[derive(Debug)]
pub(super) enum OpenError {
    /// Another process holds the spool's lock.
    Locked,
    /// The file cannot be created, read or locked.
    Io(io::Error),
}

/// An append-only, locked file of audit records.
pub(super) struct Spool {
    path: PathBuf,
    /// Opened for reading and appending; holds the lock.
    file: File,
    /// Records in the file.
    len: u64,
    /// Bytes of whole records in the file: where the next record starts.
    size: u64,
    /// A failed write may have left bytes past `size` that could not be cut off yet.
    dirty: bool,
}

impl Spool {
    /// Opens (or creates) the spool at `path`, takes its lock, cuts off a partial last line
    /// and counts the records already in it.
    pub(super) fn open(path: &Path) -> Result<Self, OpenError> {
        let file = OpenOptions::new()
            .create(true)
            .read(true)
            .append(true)
            .open(path)
            .map_err(|e| OpenError::Io(in_file(path, "open", e)))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => return Err(OpenError::Locked),
            Err(TryLockError::Error(e)) => return Err(OpenError::Io(in_file(path, "lock", e))),
        }
        let mut spool = Self {
            path: path.to_path_buf(),
            file,
            len: 0,
            size: 0,
            dirty: false,
        };
        let bytes = spool.bytes(None).map_err(OpenError::Io)?;
        let whole = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        if whole < bytes.len() {
            tracing::warn!(
                target: "mcpgen::audit",
                path = %path.display(),
                bytes = bytes.len() - whole,
                "the audit spool ends in a partial record (a write cut short); it is removed"
            );
            spool
                .file
                .set_len(len64(whole))
                .and_then(|()| spool.file.sync_all())
                .map_err(|e| OpenError::Io(in_file(path, "repair", e)))?;
        }
        spool.size = len64(whole);
        spool.len = len64(parse(&bytes[..whole], path).len());
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

    /// Appends `records` with one write; with `sync`, makes them durable before returning. On
    /// any error the file is cut back to its last whole record (a record half written counts
    /// as not written).
    pub(super) fn append(&mut self, records: &[AuditEvent], sync: bool) -> io::Result<()> {
        if records.is_empty() {
            return Ok(());
        }
        if self.dirty {
            self.cut_back()?;
        }
        let mut buffer = Vec::new();
        for record in records {
            serde_json::to_writer(&mut buffer, record)
                .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
            buffer.push(b'\n');
        }
        let written = self
            .file
            .write_all(&buffer)
            .map_err(|e| in_file(&self.path, "write", e))
            .and_then(|()| {
                if sync {
                    self.file
                        .sync_data()
                        .map_err(|e| in_file(&self.path, "sync", e))
                } else {
                    Ok(())
                }
            });
        if let Err(error) = written {
            self.dirty = true;
            // Best effort now; retried before the next write if it fails.
            let _ = self.cut_back();
            return Err(error);
        }
        self.size += len64(buffer.len());
        self.len += len64(records.len());
        Ok(())
    }

    /// Cuts the file back to its last whole record.
    fn cut_back(&mut self) -> io::Result<()> {
        self.file
            .set_len(self.size)
            .map_err(|e| in_file(&self.path, "cut back", e))?;
        self.dirty = false;
        Ok(())
    }

    /// Every record in the file, in order. A line that cannot be read is skipped with a
    /// warning (the spool is written whole lines only, so this means outside damage).
    pub(super) fn read(&self) -> io::Result<Vec<AuditEvent>> {
        let bytes = self.bytes(Some(self.size))?;
        Ok(parse(&bytes, &self.path))
    }

    /// The file's first `limit` bytes (all of them with `None`).
    fn bytes(&self, limit: Option<u64>) -> io::Result<Vec<u8>> {
        let file = File::open(&self.path).map_err(|e| in_file(&self.path, "read", e))?;
        let mut bytes = Vec::new();
        file.take(limit.unwrap_or(u64::MAX))
            .read_to_end(&mut bytes)
            .map_err(|e| in_file(&self.path, "read", e))?;
        Ok(bytes)
    }

    /// Empties the file once every record in it is in the database. Refuses when the file
    /// holds more than was read (records never read are never removed).
    pub(super) fn clear(&mut self) -> io::Result<()> {
        if self.dirty {
            self.cut_back()?;
        }
        let on_disk = self
            .file
            .metadata()
            .map_err(|e| in_file(&self.path, "read", e))?
            .len();
        if on_disk != self.size {
            return Err(io::Error::other(format!(
                "the audit spool {} holds {on_disk} bytes where {} were read; it is left as \
                 it is",
                self.path.display(),
                self.size
            )));
        }
        self.file
            .set_len(0)
            .and_then(|()| self.file.sync_all())
            .map_err(|e| in_file(&self.path, "empty", e))?;
        self.len = 0;
        self.size = 0;
        Ok(())
    }

    /// Moves the records of `legacy` (another spool, e.g. the default one from before a
    /// replica name was given) into this one, under `legacy`'s lock: they are appended and
    /// synced here before `legacy` is removed, so a crash in between leaves them in both
    /// (the database skips the copy it already has). `Ok(None)` when another process holds
    /// `legacy`'s lock (it is that process's spool) or there is nothing to move.
    pub(super) fn take_over(&mut self, legacy: &Path) -> io::Result<Option<u64>> {
        let other = match Spool::open(legacy) {
            Ok(other) => other,
            Err(OpenError::Locked) => return Ok(None),
            Err(OpenError::Io(e)) => return Err(e),
        };
        let records = other.read()?;
        self.append(&records, true)?;
        std::fs::remove_file(legacy).map_err(|e| in_file(legacy, "remove", e))?;
        sync_parent(legacy);
        drop(other);
        Ok((!records.is_empty()).then(|| len64(records.len())))
    }
}

/// The records of `bytes` (whole lines), skipping unreadable ones with a warning.
fn parse(bytes: &[u8], path: &Path) -> Vec<AuditEvent> {
    let mut records = Vec::new();
    for (n, line) in bytes.split(|&b| b == b'\n').enumerate() {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match record(line) {
            Ok(record) => records.push(record),
            Err(e) => tracing::warn!(
                target: "mcpgen::audit",
                path = %path.display(),
                line = n + 1,
                error = %e,
                "skipping an unreadable line of the audit spool"
            ),
        }
    }
    records
}

/// One spool line: an [`AuditEvent`], or the earlier form `{"id": …, "event": {…}}` whose
/// event has no `call_id` yet (the `id` becomes its `call_id`).
fn record(line: &[u8]) -> serde_json::Result<AuditEvent> {
    let mut value: serde_json::Value = serde_json::from_slice(line)?;
    if let Some(object) = value.as_object_mut()
        && !object.contains_key("call_id")
        && let (Some(id), Some(serde_json::Value::Object(mut event))) =
            (object.get("id").cloned(), object.remove("event"))
    {
        event.entry("call_id").or_insert(id);
        value = serde_json::Value::Object(event);
    }
    serde_json::from_value(value)
}

/// Makes a removal in `path`'s folder durable (best effort).
fn sync_parent(path: &Path) {
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if let Ok(dir) = File::open(parent) {
        let _ = dir.sync_all();
    }
}

fn len64(n: usize) -> u64 {
    u64::try_from(n).unwrap_or(u64::MAX)
}

fn in_file(path: &Path, action: &str, e: io::Error) -> io::Error {
    io::Error::new(
        e.kind(),
        format!("cannot {action} the audit spool {}: {e}", path.display()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::{AuditStatus, new_call_id};

    fn event(n: u64) -> AuditEvent {
        AuditEvent {
            call_id: new_call_id(),
            parent_call_id: None,
            code_sha256: None,
            inner_calls: None,
            time: "2026-01-01T00:00:00.000Z".to_owned(),
            request_id: Some(n.to_string()),
            principal: Some("alice".to_owned()),
            key_id: None,
            tool: "t".to_owned(),
            operation_id: None,
            status: AuditStatus::Ok,
            duration_ms: n,
            upstream_status: None,
            args_sha256: "0".repeat(64),
            args: None,
            error: None,
            trace_id: None,
        }
    }

    fn opened(path: &Path) -> Spool {
        match Spool::open(path) {
            Ok(spool) => spool,
            Err(OpenError::Locked) => panic!("{} is locked", path.display()),
            Err(OpenError::Io(e)) => panic!("{e}"),
        }
    }

    #[test]
    fn a_second_open_of_a_spool_in_use_finds_it_locked() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("s.spool");
        let first = opened(&path);
        assert!(matches!(Spool::open(&path), Err(OpenError::Locked)));
        drop(first);
        opened(&path);
    }

    #[test]
    fn a_partial_last_line_is_cut_off_at_open_and_whole_records_stay() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("s.spool");
        let mut spool = opened(&path);
        let records = [event(1), event(2)];
        spool.append(&records, true).expect("append");
        drop(spool);
        let mut file = OpenOptions::new().append(true).open(&path).expect("open");
        file.write_all(b"{\"call_id\":\"torn").expect("write");
        drop(file);
        let spool = opened(&path);
        assert_eq!(spool.len(), 2);
        assert_eq!(spool.read().expect("read"), records);
        let text = std::fs::read_to_string(&path).expect("read");
        assert!(text.ends_with("}\n"), "{text}");
    }

    #[test]
    fn lines_of_the_earlier_form_take_their_id_as_call_id() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("s.spool");
        let mut old = serde_json::to_value(event(7)).expect("json");
        old.as_object_mut().map(|o| o.remove("call_id"));
        let line = serde_json::json!({"id": "earlier-id", "event": old});
        std::fs::write(&path, format!("{line}\n")).expect("write");
        let records = opened(&path).read().expect("read");
        assert_eq!(records.len(), 1);
        assert_eq!(records[0].call_id, "earlier-id");
        assert_eq!(records[0].request_id.as_deref(), Some("7"));
    }

    #[test]
    fn clearing_refuses_when_the_file_holds_more_than_was_read() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("s.spool");
        let mut spool = opened(&path);
        spool.append(&[event(1)], false).expect("append");
        let mut other = OpenOptions::new().append(true).open(&path).expect("open");
        other.write_all(b"{}\n").expect("write");
        assert!(spool.clear().is_err());
        assert!(std::fs::metadata(&path).expect("stat").len() > 3);
    }

    #[test]
    fn taking_over_moves_the_records_and_removes_the_other_spool() {
        let dir = tempfile::tempdir().expect("tempdir");
        let legacy = dir.path().join("mcpgen-audit.spool");
        let mut old = opened(&legacy);
        old.append(&[event(1), event(2)], true).expect("append");
        let mut spool = opened(&dir.path().join("mcpgen-audit.a.spool"));
        // In use by another spool (another process): left alone.
        assert_eq!(spool.take_over(&legacy).expect("take over"), None);
        drop(old);
        spool.append(&[event(3)], true).expect("append");
        assert_eq!(spool.take_over(&legacy).expect("take over"), Some(2));
        assert!(!legacy.exists());
        let ids: Vec<_> = spool
            .read()
            .expect("read")
            .into_iter()
            .map(|e| e.duration_ms)
            .collect();
        assert_eq!(ids, [3, 1, 2]);
    }
}
