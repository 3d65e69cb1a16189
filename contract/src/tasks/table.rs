//! The task table behind the lock: every entry, with the orders it is looked up in (running
//! tasks by creation, ended ones by their end, each principal's by creation), the running
//! counts the limits are checked against, and the bytes the ended tasks keep.
//!
//! Ended tasks are kept for their time to live from their end, within one byte budget for the
//! whole server (`--tasks-results-max-bytes`): past it, the results of the tasks that ended
//! first are dropped (the task is then answered as expired), and once no result is left to
//! drop, the oldest ended tasks themselves.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::{Duration, Instant};

use mcpgen_audit::now_rfc3339;
use rmcp::model::{InputRequest, JsonObject, Task};
use serde_json::Value;
use tokio::sync::{oneshot, watch};
use tokio_util::sync::CancellationToken;

/// What an ended task costs besides its result: the entry, its ids and its indexes, rounded
/// up. Counted against the results budget, so that even tasks without a result are bounded.
pub(super) const ENTRY_COST: usize = 1024;

/// How a task ended.
#[derive(Debug, Clone)]
pub(super) enum Outcome {
    /// The call answered: its `CallToolResult`, serialized once; shared, never copied.
    Completed {
        /// The result as JSON text (an object).
        result: Arc<String>,
        /// Whether the result is a tool error (`isError: true`).
        is_error: bool,
    },
    /// The task failed with this JSON-RPC error object.
    Failed(Arc<JsonObject>),
    /// Cancelled by `tasks/cancel`.
    Cancelled,
    /// It ended with a result or an error, which was dropped to stay within the results
    /// budget; the status it ended with stays.
    Expired,
}

impl Outcome {
    /// The bytes the outcome keeps.
    fn bytes(&self) -> usize {
        match self {
            Self::Completed { result, .. } => result.len(),
            Self::Failed(error) => serde_json::to_string(&**error).map_or(0, |text| text.len()),
            Self::Cancelled | Self::Expired => 0,
        }
    }
}

/// An ended task's end: how, in which order, until when it is kept, and what it costs.
#[derive(Debug)]
pub(super) struct Ended {
    pub outcome: Outcome,
    /// Its place in the order tasks ended in.
    order: u64,
    /// Until when the entry is kept.
    keep_until: Instant,
    /// What it counts against the results budget.
    cost: usize,
}

#[derive(Debug)]
pub(super) struct Entry {
    /// The id of the principal that started the task; nobody else sees it.
    pub owner: String,
    pub task: Task,
    /// Its place in the order tasks were created in.
    order: u64,
    pub created: Instant,
    /// `None` while it runs.
    pub ended: Option<Ended>,
    /// Questions waiting for a `tasks/update`, by key.
    pub pending: BTreeMap<String, (InputRequest, oneshot::Sender<Value>)>,
    /// Every key asked so far: a key is asked once in a task's life.
    pub asked: Vec<String>,
    /// Cancelled by `tasks/cancel` (and when the task expires): the running call sees it.
    pub cancel: CancellationToken,
    /// `true` once the task has ended.
    pub end_signal: watch::Sender<bool>,
    /// The tool failed in a way that is not a tool error (it panicked): the task fails.
    pub failed_unexpectedly: bool,
}

/// The entries and their orders; see the [module](self) documentation.
#[derive(Debug, Default)]
pub(super) struct Table {
    pub entries: HashMap<String, Entry>,
    /// Running tasks, by creation.
    running: BTreeMap<u64, String>,
    /// Running tasks per principal.
    running_of: HashMap<String, usize>,
    /// Ended tasks, by their end.
    ended: BTreeMap<u64, String>,
    /// Ended tasks that still keep a result or an error, by their end.
    with_outcome: BTreeMap<u64, String>,
    /// Each principal's tasks, by creation.
    of_owner: HashMap<String, BTreeMap<u64, String>>,
    /// What the ended tasks cost, in bytes.
    kept: usize,
    next_order: u64,
    /// The tasks that ended (`false`) or lost their result (`true`) since the store was last
    /// told.
    changed: Vec<(String, bool)>,
}

impl Table {
    /// How many tasks run, in all and for `owner`.
    pub(super) fn running(&self, owner: &str) -> (usize, usize) {
        (
            self.running.len(),
            self.running_of.get(owner).copied().unwrap_or(0),
        )
    }

    /// The bytes the ended tasks keep.
    pub(super) fn kept_bytes(&self) -> usize {
        self.kept
    }

    /// Adds a running task of `owner`.
    pub(super) fn insert(&mut self, owner: &str, task: Task, cancel: CancellationToken) {
        let order = self.bump();
        let id = task.task_id.clone();
        self.running.insert(order, id.clone());
        *self.running_of.entry(owner.to_owned()).or_default() += 1;
        self.of_owner
            .entry(owner.to_owned())
            .or_default()
            .insert(order, id.clone());
        self.entries.insert(
            id,
            Entry {
                owner: owner.to_owned(),
                task,
                order,
                created: Instant::now(),
                ended: None,
                pending: BTreeMap::new(),
                asked: Vec::new(),
                cancel,
                end_signal: watch::channel(false).0,
                failed_unexpectedly: false,
            },
        );
    }

    /// The tasks that ended (`false`) or lost their result (`true`) since the last call.
    pub(super) fn take_changed(&mut self) -> Vec<(String, bool)> {
        std::mem::take(&mut self.changed)
    }

    /// Removes the task `id`, which another replica answers for now.
    pub(super) fn forget(&mut self, id: &str) {
        self.remove(id);
    }

    fn bump(&mut self) -> u64 {
        self.next_order += 1;
        self.next_order
    }

    /// The ids of `owner`'s tasks, oldest first.
    pub(super) fn ids_of(&self, owner: &str) -> impl Iterator<Item = &String> {
        self.of_owner
            .get(owner)
            .into_iter()
            .flat_map(BTreeMap::values)
    }

    /// Ends the task `id` with `outcome` (its status `status`), unless it has ended already;
    /// it is kept `keep` from now, within `budget` bytes with every other ended task.
    pub(super) fn end(
        &mut self,
        id: &str,
        outcome: Outcome,
        status: rmcp::model::TaskStatus,
        keep: Duration,
        budget: usize,
    ) {
        let order = self.bump();
        let Some(entry) = self.entries.get_mut(id) else {
            return;
        };
        if entry.ended.is_some() {
            return;
        }
        entry.task.status = status;
        entry.task.last_updated_at = now_rfc3339();
        entry.pending.clear();
        let has_outcome = matches!(outcome, Outcome::Completed { .. } | Outcome::Failed(_));
        let cost = ENTRY_COST + outcome.bytes();
        entry.ended = Some(Ended {
            outcome,
            order,
            keep_until: Instant::now() + keep,
            cost,
        });
        entry.end_signal.send_replace(true);
        self.running.remove(&entry.order);
        if let Some(count) = self.running_of.get_mut(&entry.owner) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                self.running_of.remove(&entry.owner);
            }
        }
        self.ended.insert(order, id.to_owned());
        self.changed.push((id.to_owned(), false));
        if has_outcome {
            self.with_outcome.insert(order, id.to_owned());
        }
        self.kept += cost;
        self.fit(budget);
    }

    /// Drops results, oldest ended first, then ended tasks, until the ended ones keep at
    /// most `budget` bytes.
    fn fit(&mut self, budget: usize) {
        while self.kept > budget {
            if let Some((_, id)) = self.with_outcome.pop_first() {
                if let Some(ended) = self.entries.get_mut(&id).and_then(|e| e.ended.as_mut()) {
                    ended.outcome = Outcome::Expired;
                    self.kept = self.kept.saturating_sub(ended.cost) + ENTRY_COST;
                    ended.cost = ENTRY_COST;
                    self.changed.push((id.clone(), true));
                    tracing::debug!(task = %id, "a task's result expired (--tasks-results-max-bytes)");
                }
            } else if let Some((_, id)) = self.ended.first_key_value() {
                let id = id.clone();
                self.remove(&id);
            } else {
                break;
            }
        }
    }

    /// Removes the task `id` and its places in every order.
    fn remove(&mut self, id: &str) {
        let Some(entry) = self.entries.remove(id) else {
            return;
        };
        if let Some(owned) = self.of_owner.get_mut(&entry.owner) {
            owned.remove(&entry.order);
            if owned.is_empty() {
                self.of_owner.remove(&entry.owner);
            }
        }
        match &entry.ended {
            Some(ended) => {
                self.ended.remove(&ended.order);
                self.with_outcome.remove(&ended.order);
                self.kept = self.kept.saturating_sub(ended.cost);
            }
            None => {
                self.running.remove(&entry.order);
                if let Some(count) = self.running_of.get_mut(&entry.owner) {
                    *count = count.saturating_sub(1);
                    if *count == 0 {
                        self.running_of.remove(&entry.owner);
                    }
                }
            }
        }
    }

    /// Ends the running tasks created `ttl` ago or more as failed with `error` (kept for
    /// `ttl`), and drops the ended tasks kept long enough. Both are looked at in order, so a
    /// sweep costs only what it ends or drops.
    pub(super) fn sweep(&mut self, ttl: Duration, budget: usize, error: impl Fn() -> JsonObject) {
        let now = Instant::now();
        while let Some((_, id)) = self.running.first_key_value() {
            let id = id.clone();
            let Some(entry) = self.entries.get(&id) else {
                self.running.pop_first();
                continue;
            };
            if now.duration_since(entry.created) < ttl {
                break;
            }
            entry.cancel.cancel();
            self.end(
                &id,
                Outcome::Failed(Arc::new(error())),
                rmcp::model::TaskStatus::Failed,
                ttl,
                budget,
            );
        }
        while let Some((_, id)) = self.ended.first_key_value() {
            let id = id.clone();
            let kept_until = self
                .entries
                .get(&id)
                .and_then(|entry| entry.ended.as_ref())
                .map(|ended| ended.keep_until);
            match kept_until {
                Some(until) if now < until => break,
                Some(_) => self.remove(&id),
                None => {
                    self.ended.pop_first();
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use rmcp::model::TaskStatus;

    use super::*;

    const HOUR: Duration = Duration::from_secs(3600);

    fn task(id: &str) -> Task {
        Task::new(id, TaskStatus::Working, "now", "now")
    }

    fn completed(bytes: usize) -> Outcome {
        Outcome::Completed {
            result: Arc::new("x".repeat(bytes)),
            is_error: false,
        }
    }

    fn outcome(table: &Table, id: &str) -> Option<&'static str> {
        let ended = table.entries.get(id)?.ended.as_ref()?;
        Some(match ended.outcome {
            Outcome::Completed { .. } => "completed",
            Outcome::Failed(_) => "failed",
            Outcome::Cancelled => "cancelled",
            Outcome::Expired => "expired",
        })
    }

    #[test]
    fn only_running_tasks_count_per_principal_and_in_all() {
        let mut table = Table::default();
        table.insert("ada", task("a"), CancellationToken::new());
        table.insert("ada", task("b"), CancellationToken::new());
        table.insert("bob", task("c"), CancellationToken::new());
        assert_eq!(table.running("ada"), (3, 2));
        table.end(
            "a",
            Outcome::Cancelled,
            TaskStatus::Cancelled,
            HOUR,
            usize::MAX,
        );
        table.end("c", completed(10), TaskStatus::Completed, HOUR, usize::MAX);
        assert_eq!(table.running("ada"), (1, 1));
        assert_eq!(table.running("bob"), (1, 0));
        // Ending twice changes nothing.
        table.end("a", completed(10), TaskStatus::Completed, HOUR, usize::MAX);
        assert_eq!(outcome(&table, "a"), Some("cancelled"));
        assert_eq!(table.kept_bytes(), 2 * ENTRY_COST + 10);
    }

    #[test]
    fn past_the_budget_the_oldest_results_expire_then_the_oldest_tasks_go() {
        let mut table = Table::default();
        // Three entries and two results.
        let budget = 3 * ENTRY_COST + 2 * 100 + 10;
        for id in ["a", "b", "c"] {
            table.insert("ada", task(id), CancellationToken::new());
        }
        for id in ["a", "b", "c"] {
            table.end(id, completed(100), TaskStatus::Completed, HOUR, budget);
        }
        assert_eq!(outcome(&table, "a"), Some("expired"));
        assert_eq!(outcome(&table, "b"), Some("completed"));
        assert_eq!(outcome(&table, "c"), Some("completed"));
        assert!(table.kept_bytes() <= budget);
        // A budget that holds no result: every result goes, then tasks, oldest first.
        table.insert("ada", task("d"), CancellationToken::new());
        table.end(
            "d",
            completed(100),
            TaskStatus::Completed,
            HOUR,
            2 * ENTRY_COST,
        );
        assert!(!table.entries.contains_key("a"));
        assert!(!table.entries.contains_key("b"));
        assert_eq!(outcome(&table, "c"), Some("expired"));
        assert_eq!(outcome(&table, "d"), Some("expired"));
        assert_eq!(table.kept_bytes(), 2 * ENTRY_COST);
        let ids: Vec<&String> = table.ids_of("ada").collect();
        assert_eq!(ids, ["c", "d"]);
    }

    #[test]
    fn a_sweep_ends_running_tasks_past_their_ttl_and_drops_ended_ones_kept_long_enough() {
        let mut table = Table::default();
        table.insert("ada", task("a"), CancellationToken::new());
        table.insert("ada", task("b"), CancellationToken::new());
        table.end(
            "b",
            Outcome::Cancelled,
            TaskStatus::Cancelled,
            Duration::ZERO,
            usize::MAX,
        );
        table.sweep(Duration::ZERO, usize::MAX, JsonObject::new);
        // `a` ended as failed (kept for the TTL, here none: dropped on the next sweep); `b`
        // was kept for none and is gone.
        assert!(!table.entries.contains_key("b"));
        assert_eq!(table.running("ada"), (0, 0));
        table.sweep(Duration::ZERO, usize::MAX, JsonObject::new);
        assert!(table.entries.is_empty());
        assert_eq!(table.kept_bytes(), 0);
        assert_eq!(table.ids_of("ada").count(), 0);
    }
}
