//! Writing a generated crate to disk, and checking a folder against a fresh generation.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::error::Error;

/// Writes `files` (relative path → contents) under `dir`, creating folders; a file whose
/// contents are already identical is not touched. Each file is written to a temporary name and
/// renamed, so an interrupted run never leaves a half-written file. Returns the paths written.
pub fn write_crate(dir: &Path, files: &BTreeMap<String, String>) -> Result<Vec<PathBuf>, Error> {
    let io = |path: &Path, e: std::io::Error| Error::Io {
        path: path.to_owned(),
        message: e.to_string(),
    };
    let mut written = Vec::new();
    for (rel, contents) in files {
        let path = dir.join(rel);
        if std::fs::read_to_string(&path).is_ok_and(|old| &old == contents) {
            continue;
        }
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| io(parent, e))?;
        }
        let tmp = path.with_extension("mcpgen-tmp");
        std::fs::write(&tmp, contents).map_err(|e| io(&tmp, e))?;
        std::fs::rename(&tmp, &path).map_err(|e| io(&path, e))?;
        written.push(path);
    }
    Ok(written)
}

/// Files under `dir` that differ from `files`: changed, missing, or present but not generated
/// (ignoring `target/`). Paths are relative to `dir`, sorted.
pub fn diff_crate(dir: &Path, files: &BTreeMap<String, String>) -> Vec<String> {
    let mut out = BTreeSet::new();
    for (rel, contents) in files {
        match std::fs::read_to_string(dir.join(rel)) {
            Ok(old) if &old == contents => {}
            Ok(_) => {
                out.insert(format!("{rel} (changed)"));
            }
            Err(_) => {
                out.insert(format!("{rel} (missing)"));
            }
        }
    }
    for rel in list_files(dir) {
        if !files.contains_key(&rel) {
            out.insert(format!("{rel} (not generated)"));
        }
    }
    out.into_iter().collect()
}

fn list_files(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let Ok(rel) = path.strip_prefix(dir) else {
                continue;
            };
            let rel = rel.to_string_lossy().replace('\\', "/");
            if rel == "target" || rel == "Cargo.lock" {
                continue;
            }
            if path.is_dir() {
                stack.push(path);
            } else {
                out.push(rel);
            }
        }
    }
    out.sort();
    out
}
