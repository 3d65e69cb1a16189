//! The table of a catalog's Streamable HTTP sessions: who owns each, whether it is in use,
//! when it was last used, and the admission of new sessions under the caps
//! ([`SessionLimits`]): a principal at its own cap gives up its least recently used idle
//! session (never another principal's); at the catalog's cap a new session is refused unless
//! its principal has an idle session to give up.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

use mcpgen_identity::Principal;

/// The session caps of a catalog.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SessionLimits {
    /// Sessions held in all; past it new sessions are refused.
    pub max: usize,
    /// Sessions one principal holds; past it its own oldest idle session is closed.
    pub per_principal: usize,
}

/// One session's owner and use.
struct Entry {
    owner: Principal,
    /// Sequence number of its last use (start or end of a request), for least-recently-used
    /// order.
    used: u64,
    /// Requests (and streams) of the session in progress.
    busy: usize,
}

/// Why a new session is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// The catalog holds its most sessions, and the principal has no idle one to give up.
    ServerCap,
    /// The principal holds its most sessions, all in use.
    PrincipalCap,
}

/// A new session may be opened; `closing` is the principal's own idle session that was given
/// up for it (already out of the table; the caller closes it in rmcp's session manager).
#[derive(Debug, PartialEq, Eq)]
pub struct Admitted {
    /// The session given up, if one was.
    pub closing: Option<Arc<str>>,
}

/// The sessions of one catalog.
pub struct Owners {
    limits: SessionLimits,
    by_id: HashMap<Arc<str>, Entry>,
    /// Principal id → its sessions by last use (sequence number → id).
    by_principal: HashMap<String, BTreeMap<u64, Arc<str>>>,
    /// Admitted sessions whose `initialize` is still being answered, by principal id.
    pending: HashMap<String, usize>,
    pending_total: usize,
    next: u64,
}

impl Owners {
    /// An empty table under `limits`.
    pub fn new(limits: SessionLimits) -> Self {
        Self {
            limits,
            by_id: HashMap::new(),
            by_principal: HashMap::new(),
            pending: HashMap::new(),
            pending_total: 0,
            next: 0,
        }
    }

    /// The caps this table keeps.
    pub fn limits(&self) -> SessionLimits {
        self.limits
    }

    /// The owner of session `id`, if the table knows it.
    pub fn owner(&self, id: &str) -> Option<&Principal> {
        self.by_id.get(id).map(|entry| &entry.owner)
    }

    fn held_by(&self, principal: &str) -> usize {
        self.by_principal.get(principal).map_or(0, BTreeMap::len)
            + self.pending.get(principal).copied().unwrap_or(0)
    }

    /// Admits a new session of `principal` (counted as pending until [`Owners::settle`]),
    /// giving up its own least recently used idle session when a cap is reached.
    pub fn admit(&mut self, principal: &Principal) -> Result<Admitted, Refusal> {
        let mut closing = None;
        if self.held_by(&principal.id) >= self.limits.per_principal {
            closing = Some(
                self.give_up_idle(&principal.id)
                    .ok_or(Refusal::PrincipalCap)?,
            );
        } else if self.by_id.len() + self.pending_total >= self.limits.max {
            closing = Some(self.give_up_idle(&principal.id).ok_or(Refusal::ServerCap)?);
        }
        *self.pending.entry(principal.id.clone()).or_default() += 1;
        self.pending_total += 1;
        Ok(Admitted { closing })
    }

    /// Records the session rmcp `issued` to `principal` (`None`: none was opened), ending its
    /// admission when it was `admitted` (a session issued without one is recorded all the
    /// same, so that no session is left without its owner). The new session counts as in use
    /// until its opening request ends ([`Owners::touch`]).
    pub fn settle(&mut self, principal: &Principal, issued: Option<Arc<str>>, admitted: bool) {
        if admitted && let Some(pending) = self.pending.get_mut(&principal.id) {
            *pending = pending.saturating_sub(1);
            if *pending == 0 {
                self.pending.remove(&principal.id);
            }
            self.pending_total = self.pending_total.saturating_sub(1);
        }
        if let Some(id) = issued {
            self.insert(id, principal.clone());
        }
    }

    /// Records session `id` of `owner`, in use by the request that opened it.
    fn insert(&mut self, id: Arc<str>, owner: Principal) {
        self.remove(&id);
        let used = self.tick();
        self.by_principal
            .entry(owner.id.clone())
            .or_default()
            .insert(used, id.clone());
        let entry = Entry {
            owner,
            used,
            busy: 1,
        };
        self.by_id.insert(id, entry);
    }

    fn tick(&mut self) -> u64 {
        let seq = self.next;
        self.next += 1;
        seq
    }

    /// Marks session `id` used again (one more request or stream of it in progress when
    /// `start`, one fewer otherwise). Returns whether the table knows the session.
    pub fn touch(&mut self, id: &str, start: bool) -> bool {
        let used = self.tick();
        let Some(entry) = self.by_id.get_mut(id) else {
            return false;
        };
        if start {
            entry.busy += 1;
        } else {
            entry.busy = entry.busy.saturating_sub(1);
        }
        let before = std::mem::replace(&mut entry.used, used);
        if let Some(sessions) = self.by_principal.get_mut(&entry.owner.id)
            && let Some(key) = sessions.remove(&before)
        {
            sessions.insert(used, key);
        }
        true
    }

    /// Takes the least recently used idle session of `principal` out of the table.
    fn give_up_idle(&mut self, principal: &str) -> Option<Arc<str>> {
        let sessions = self.by_principal.get(principal)?;
        let id = sessions
            .values()
            .find(|id| self.by_id.get(*id).is_some_and(|entry| entry.busy == 0))?
            .clone();
        self.remove(&id);
        Some(id)
    }

    /// Forgets session `id`.
    pub fn remove(&mut self, id: &str) {
        let Some(entry) = self.by_id.remove(id) else {
            return;
        };
        if let Some(sessions) = self.by_principal.get_mut(&entry.owner.id) {
            sessions.remove(&entry.used);
            if sessions.is_empty() {
                self.by_principal.remove(&entry.owner.id);
            }
        }
    }

    /// Whether a new session would meet the catalog's cap (so that sessions rmcp has ended
    /// on its own are worth looking for).
    pub fn full(&self) -> bool {
        self.by_id.len() + self.pending_total >= self.limits.max
    }

    /// Forgets the sessions not in `live` (those rmcp closed on its own: idle too long, or
    /// ended by the client's connection).
    pub fn retain_live(&mut self, live: &HashSet<Arc<str>>) {
        let gone: Vec<Arc<str>> = self
            .by_id
            .keys()
            .filter(|id| !live.contains(*id))
            .cloned()
            .collect();
        for id in gone {
            self.remove(&id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(max: usize, per_principal: usize) -> Owners {
        Owners::new(SessionLimits { max, per_principal })
    }

    /// Opens a session `id` for `who` and ends the request that opened it (idle).
    fn open(owners: &mut Owners, who: &Principal, id: &str) -> Result<Admitted, Refusal> {
        let admitted = owners.admit(who)?;
        owners.settle(who, Some(Arc::from(id)), true);
        owners.touch(id, false);
        Ok(admitted)
    }

    #[test]
    fn a_principal_at_its_cap_gives_up_its_own_oldest_idle_session() {
        let (alice, bob) = (
            Principal::unrestricted("alice"),
            Principal::unrestricted("bob"),
        );
        let mut owners = table(100, 2);
        open(&mut owners, &bob, "b1").unwrap();
        open(&mut owners, &alice, "a1").unwrap();
        open(&mut owners, &alice, "a2").unwrap();
        // a1 is used again, so a2 is now the least recently used.
        owners.touch("a1", true);
        owners.touch("a1", false);
        let admitted = open(&mut owners, &alice, "a3").unwrap();
        assert_eq!(admitted.closing.as_deref(), Some("a2"));
        assert!(owners.owner("b1").is_some());
        assert!(owners.owner("a2").is_none());
    }

    #[test]
    fn sessions_in_use_are_never_given_up() {
        let alice = Principal::unrestricted("alice");
        let mut owners = table(100, 1);
        owners.admit(&alice).unwrap();
        owners.settle(&alice, Some(Arc::from("a1")), true);
        // a1's opening request is still in progress.
        assert_eq!(owners.admit(&alice), Err(Refusal::PrincipalCap));
        owners.touch("a1", false);
        assert_eq!(owners.admit(&alice).unwrap().closing.as_deref(), Some("a1"));
    }

    #[test]
    fn at_the_catalog_cap_others_sessions_stay_and_new_ones_are_refused() {
        let (alice, bob) = (
            Principal::unrestricted("alice"),
            Principal::unrestricted("bob"),
        );
        let mut owners = table(2, 10);
        open(&mut owners, &bob, "b1").unwrap();
        open(&mut owners, &alice, "a1").unwrap();
        owners.touch("a1", true);
        // Bob's idle session is not Alice's to take; hers is in use.
        assert_eq!(owners.admit(&alice), Err(Refusal::ServerCap));
        assert!(owners.owner("b1").is_some());
        // Pending admissions count against the cap until settled.
        owners.touch("a1", false);
        assert!(owners.admit(&alice).is_ok());
        assert_eq!(owners.admit(&bob).unwrap().closing.as_deref(), Some("b1"));
        assert_eq!(owners.admit(&alice), Err(Refusal::ServerCap));
    }

    #[test]
    fn sessions_rmcp_ended_are_forgotten() {
        let alice = Principal::unrestricted("alice");
        let mut owners = table(2, 10);
        open(&mut owners, &alice, "a1").unwrap();
        open(&mut owners, &alice, "a2").unwrap();
        assert!(owners.full());
        owners.retain_live(&HashSet::from([Arc::from("a2")]));
        assert!(!owners.full());
        assert!(owners.owner("a1").is_none());
        assert!(!owners.touch("a1", true));
    }
}
