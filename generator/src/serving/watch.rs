//! `mcpgen serve --watch`: the spec file and the allowlist are polled; on an edit the table is
//! built again, exactly as at start-up, and the runtime swaps the new tools in
//! ([`Server::replace_tools`]), telling the open sessions. An edit that does not build (a YAML
//! syntax error, an allowlist entry naming an unknown operation, an invalid spec) is logged
//! with the engine's own error, which names the file, the line or JSON pointer and the fix,
//! and the tools served stay as they were until a later edit builds.
//!
//! Polling, not file-system events: it is a few `stat` calls a second on two files, works
//! the same on every platform and file system (network mounts and container volumes
//! included), and needs no dependency.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use mcpgen_runtime::server::Server;
use mcpgen_runtime::{ToolSet, Upstream};
use tokio::runtime::Handle;

use super::serve::{Source, tool_set};

/// How often the files are looked at.
const POLL: Duration = Duration::from_millis(250);

/// The files an edit of which rebuilds the tools, with what they looked like at the last
/// build.
pub(super) struct Watched {
    files: Vec<PathBuf>,
    seen: Vec<Stamp>,
}

/// A file's length and modification time; `None` while it cannot be read.
type Stamp = Option<(u64, SystemTime)>;

fn stamp(path: &PathBuf) -> Stamp {
    let meta = std::fs::metadata(path).ok()?;
    Some((meta.len(), meta.modified().ok()?))
}

impl Watched {
    /// The files of `source` (a spec given as a URL is not watched), as they are now, before
    /// the start-up build reads them.
    pub(super) fn new(source: &Source) -> Self {
        let mut files = Vec::new();
        if !source.spec_is_url() {
            files.push(source.spec.clone());
        }
        files.push(source.tools.clone());
        let seen = files.iter().map(stamp).collect();
        Self { files, seen }
    }

    /// Watches on a thread of its own, replacing the tools of `server` after each edit (the
    /// next tools call the API through `upstream`). Called on the server's async runtime.
    pub(super) fn start(mut self, source: Source, server: Server, upstream: Upstream) {
        let live = Live {
            server,
            upstream,
            runtime: Handle::current(),
        };
        let names: Vec<String> = self.files.iter().map(|f| f.display().to_string()).collect();
        eprintln!("watching {} for changes", names.join(" and "));
        let spawned = std::thread::Builder::new()
            .name("mcpgen-watch".to_owned())
            .spawn(move || {
                loop {
                    std::thread::sleep(POLL);
                    if let Some(changed) = self.changed() {
                        eprintln!("{changed} changed: building the tools again");
                        reload(&source, &live);
                    }
                }
            });
        if let Err(error) = spawned {
            eprintln!("warning: --watch: cannot start the watching thread: {error}");
        }
    }

    /// The first file that changed since the last look, if any (every change is taken in).
    fn changed(&mut self) -> Option<String> {
        let now: Vec<Stamp> = self.files.iter().map(stamp).collect();
        let changed = self
            .files
            .iter()
            .zip(self.seen.iter().zip(&now))
            .find(|(_, (before, after))| before != after)
            .map(|(file, _)| file.display().to_string());
        self.seen = now;
        changed
    }
}

/// The running server whose tools are replaced, from the watching thread.
struct Live {
    server: Server,
    upstream: Upstream,
    runtime: Handle,
}

/// Builds the tools of `source` again and swaps them into `live`; on any error, logs it and
/// keeps the tools served.
fn reload(source: &Source, live: &Live) {
    // A rebuild is a run of its own: its progress lines count from now, not from start-up.
    mcpgen_codegen::progress::enable();
    let table = match source.table() {
        Ok(table) => table,
        Err(message) => {
            eprintln!("{message}");
            eprintln!("the edit does not build: still serving the previous tools");
            return;
        }
    };
    let sets: Vec<Arc<dyn ToolSet>> = vec![Arc::new(tool_set(&table, live.upstream.clone()))];
    match live.runtime.block_on(live.server.replace_tools(sets)) {
        Ok(told) => eprintln!(
            "{}: tools replaced: {} tools served, {told} sessions told",
            table.name,
            table.tools.len()
        ),
        Err(error) => {
            eprintln!("error: {error}");
            eprintln!("the edit does not build: still serving the previous tools");
        }
    }
}
