//! Which sessions agreed on protocol 2025-11-25 at `initialize`: a session's revision is fixed
//! then, so a session opened on another revision that later sends `MCP-Protocol-Version:
//! 2025-11-25` is not served this form of tasks (its requests go to rmcp, as on its own
//! revision). Sessions rmcp no longer knows are dropped from the set now and then.

use std::collections::HashSet;
use std::sync::{Mutex, MutexGuard, PoisonError};

use rmcp::transport::streamable_http_server::session::SessionManager;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;

/// The set's size at which it is first pruned of sessions rmcp no longer knows.
const FIRST_PRUNE: usize = 256;

/// The sessions of revision 2025-11-25; see the [module](self) documentation.
#[derive(Debug)]
pub(super) struct Revisions {
    inner: Mutex<Set>,
}

#[derive(Debug)]
struct Set {
    sessions: HashSet<String>,
    /// The size at which the set is next pruned.
    prune_at: usize,
}

impl Default for Revisions {
    fn default() -> Self {
        Self {
            inner: Mutex::new(Set {
                sessions: HashSet::new(),
                prune_at: FIRST_PRUNE,
            }),
        }
    }
}

impl Revisions {
    fn lock(&self) -> MutexGuard<'_, Set> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The session `id` agreed on 2025-11-25 at its `initialize`.
    pub(super) fn agreed(&self, id: &str) {
        self.lock().sessions.insert(id.to_owned());
    }

    /// Whether the session `id` agreed on 2025-11-25 at its `initialize`.
    pub(super) fn is_2025(&self, id: &str) -> bool {
        self.lock().sessions.contains(id)
    }

    /// Drops the sessions `manager` no longer knows, once the set has grown to twice its
    /// size after the last prune (so pruning costs a constant per session opened).
    pub(super) async fn prune(&self, manager: &LocalSessionManager) {
        let ids: Vec<String> = {
            let set = self.lock();
            if set.sessions.len() < set.prune_at {
                return;
            }
            set.sessions.iter().cloned().collect()
        };
        let mut gone = Vec::new();
        for id in ids {
            let known = manager
                .has_session(&id.as_str().into())
                .await
                .unwrap_or(false);
            if !known {
                gone.push(id);
            }
        }
        let mut set = self.lock();
        for id in &gone {
            set.sessions.remove(id);
        }
        set.prune_at = (set.sessions.len() * 2).max(FIRST_PRUNE);
    }
}
