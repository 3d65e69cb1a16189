//! Tasks across replicas. Each task is a hash, `mcpgen:<scope>:task:<id>`: its owner, its
//! holder (the instance of the replica running it), its `Task` object and state, its result
//! once it has ended, and, for an operation the API runs long, the call and where it was last
//! polled. It expires with the task's time to live: from its start while it runs, from its end
//! once it has ended. The store keeps no more results than the replicas do: a result a replica
//! drops from its budget (`--tasks-results-max-bytes`) is dropped here too.
//!
//! A replica with tasks holds a lease, `lease:<instance>`, renewed every third of [`LEASE`],
//! and lists what it runs in `held:<instance>` (every such instance is in `holders`). When a
//! lease lapses, another replica claims the tasks of its set, one by one (a claim is atomic,
//! so one replica wins each), and goes on with them. The holder listens on
//! `tasks:<instance>` for what the others tell it: a cancel, or answers to its questions.
//!
//! Ends are written only over a running task: a task cancelled on one replica stays cancelled
//! when its holder's call ends a moment later.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use mcpgen_contract::tasks::shared::{
    Change, ForHolder, Now, Record, Resumable, SharedTasks, StoreProblem, Stored,
};
use mcpgen_core::BoxFuture;
use redis::AsyncCommands;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::{SharedState, StoreError, prefix, subscribe};

/// How long a replica's lease lasts unless renewed; it is renewed every third of that.
pub const LEASE: Duration = Duration::from_secs(9);

/// How often a failed write is tried again before it is given up (and logged).
const WRITE_TRIES: usize = 3;

/// Writes `ARGV[2..]` (field, value pairs) to the task `KEYS[1]` while it runs; nothing to a
/// task that has ended or is gone.
const WHILE_RUNNING: &str = r"
if redis.call('EXISTS', KEYS[1]) == 0 or redis.call('HEXISTS', KEYS[1], 'ended') == 1 then
  return 0
end
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
return 1";

/// Ends the task `KEYS[1]` (`ARGV[1]` its `Task`, `ARGV[2]` its state, `ARGV[3]` its result or
/// empty, `ARGV[4]` how many milliseconds it is kept), unless it has ended or is gone; takes
/// it out of its holder's set (`KEYS[2]` is the prefix). 1 when it ended it.
const END: &str = r"
if redis.call('EXISTS', KEYS[1]) == 0 or redis.call('HEXISTS', KEYS[1], 'ended') == 1 then
  return 0
end
redis.call('HSET', KEYS[1], 'task', ARGV[1], 'now', ARGV[2], 'ended', '1')
if ARGV[3] ~= '' then redis.call('HSET', KEYS[1], 'result', ARGV[3]) end
redis.call('HDEL', KEYS[1], 'call', 'resume')
redis.call('PEXPIRE', KEYS[1], ARGV[4])
local holder = redis.call('HGET', KEYS[1], 'holder')
if holder then redis.call('SREM', KEYS[2] .. 'held:' .. holder, ARGV[5]) end
return 1";

/// Drops the result of the ended task `KEYS[1]`, its state now `ARGV[1]`.
const EXPIRE: &str = r"
if redis.call('HEXISTS', KEYS[1], 'ended') == 1 then
  redis.call('HDEL', KEYS[1], 'result')
  redis.call('HSET', KEYS[1], 'now', ARGV[1])
end
return 1";

/// Claims the task `KEYS[1]` from the lost holder `ARGV[1]` for `ARGV[2]`, moving it from set
/// `KEYS[2]` to set `KEYS[3]`; 1 when this claim won it.
const CLAIM: &str = r"
redis.call('SREM', KEYS[2], ARGV[3])
if redis.call('HGET', KEYS[1], 'holder') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'holder', ARGV[2])
if redis.call('HEXISTS', KEYS[1], 'ended') == 1 then return 0 end
redis.call('SADD', KEYS[3], ARGV[3])
redis.call('PEXPIRE', KEYS[3], ARGV[4])
return 1";

/// The tasks of one server in the store; each has an instance id of its own.
#[derive(Clone)]
pub struct TaskStore {
    state: Arc<SharedState>,
    prefix: Arc<str>,
    instance: Arc<str>,
    /// The writer of changes, started on first use.
    writer: Arc<OnceLock<mpsc::UnboundedSender<(String, Change)>>>,
}

impl std::fmt::Debug for TaskStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskStore")
            .field("prefix", &self.prefix)
            .field("instance", &self.instance)
            .finish_non_exhaustive()
    }
}

/// A task claimed from a lost replica, still running: the claimer goes on with it.
#[derive(Debug)]
pub struct Claimed {
    /// The task's id.
    pub id: String,
    /// What the store has of it.
    pub stored: Stored,
}

impl TaskStore {
    pub(crate) fn new(state: Arc<SharedState>, scope: &str) -> Self {
        Self {
            state,
            prefix: prefix(scope).into(),
            instance: uuid::Uuid::new_v4().simple().to_string().into(),
            writer: Arc::default(),
        }
    }

    fn key(&self, id: &str) -> String {
        format!("{}task:{id}", self.prefix)
    }

    fn held(&self, instance: &str) -> String {
        format!("{}held:{instance}", self.prefix)
    }

    fn lease_key(&self, instance: &str) -> String {
        format!("{}lease:{instance}", self.prefix)
    }

    fn holders(&self) -> String {
        format!("{}holders", self.prefix)
    }

    fn channel(&self, instance: &str) -> String {
        format!("{}tasks:{instance}", self.prefix)
    }

    /// Renews this replica's lease.
    pub async fn renew_lease(&self) -> Result<(), StoreError> {
        let mut connection = self.state.connection().await?;
        let () = connection
            .pset_ex(
                self.lease_key(&self.instance),
                1,
                millis(LEASE).unsigned_abs(),
            )
            .await?;
        Ok(())
    }

    /// Gives up this replica's lease (it is going away): its tasks are taken over at once.
    pub async fn drop_lease(&self) -> Result<(), StoreError> {
        let mut connection = self.state.connection().await?;
        let _: i64 = connection.del(self.lease_key(&self.instance)).await?;
        Ok(())
    }

    /// The running tasks of replicas whose lease has lapsed, each now claimed by this one.
    pub async fn claim_lost(&self) -> Result<Vec<Claimed>, StoreError> {
        let mut connection = self.state.connection().await?;
        let holders: Vec<String> = connection.smembers(self.holders()).await?;
        let mut claimed = Vec::new();
        for lost in holders.iter().filter(|holder| **holder != *self.instance) {
            let alive: bool = connection.exists(self.lease_key(lost)).await?;
            if alive {
                continue;
            }
            let ids: Vec<String> = connection.smembers(self.held(lost)).await?;
            for id in ids {
                let won: i64 = redis::Script::new(CLAIM)
                    .key(self.key(&id))
                    .key(self.held(lost))
                    .key(self.held(&self.instance))
                    .arg(lost)
                    .arg(&*self.instance)
                    .arg(&id)
                    .arg(millis(Duration::from_secs(24 * 3600)))
                    .invoke_async(&mut connection)
                    .await?;
                if won == 1
                    && let Some(stored) = self.read(&mut connection, &id).await?
                {
                    tracing::info!(task = %id, lost = %lost, "took over a task whose replica was lost");
                    claimed.push(Claimed { id, stored });
                }
            }
            let left: i64 = connection.scard(self.held(lost)).await?;
            if left == 0 {
                let _: i64 = connection.srem(self.holders(), lost).await?;
            }
        }
        Ok(claimed)
    }

    /// What other replicas tell this one about the tasks it holds, until `shutdown`.
    pub fn listen(&self, shutdown: CancellationToken) -> mpsc::Receiver<ForHolder> {
        let (sender, receiver) = mpsc::channel(crate::QUEUE);
        let mut texts = subscribe(
            self.state.clone(),
            self.channel(&self.instance),
            shutdown,
            "the task holder",
        );
        tokio::spawn(async move {
            while let Some(text) = texts.recv().await {
                match serde_json::from_str::<ForHolder>(&text) {
                    Ok(request) => {
                        if sender.send(request).await.is_err() {
                            return;
                        }
                    }
                    Err(error) => tracing::warn!(%error, "a request for a task cannot be read"),
                }
            }
        });
        receiver
    }

    async fn read(
        &self,
        connection: &mut redis::aio::ConnectionManager,
        id: &str,
    ) -> Result<Option<Stored>, StoreError> {
        let fields: std::collections::HashMap<String, String> =
            connection.hgetall(self.key(id)).await?;
        Ok(stored_of(fields))
    }

    /// Applies the changes sent to `changes`, in order, each tried again a few times.
    async fn write_changes(self, mut changes: mpsc::UnboundedReceiver<(String, Change)>) {
        while let Some((id, change)) = changes.recv().await {
            let mut tries = 0;
            loop {
                tries += 1;
                match self.write(&id, &change).await {
                    Ok(()) => break,
                    Err(error) if tries >= WRITE_TRIES => {
                        tracing::warn!(task = %id, %error, "a task's change was not written to the shared store");
                        break;
                    }
                    Err(_) => tokio::time::sleep(Duration::from_millis(200)).await,
                }
            }
        }
    }

    async fn write(&self, id: &str, change: &Change) -> Result<(), StoreError> {
        let mut connection = self.state.connection().await?;
        let key = self.key(id);
        match change {
            Change::Running(record) => {
                let _: i64 = redis::Script::new(WHILE_RUNNING)
                    .key(&key)
                    .arg("")
                    .arg("task")
                    .arg(json(&record.task)?)
                    .arg("now")
                    .arg(json(&record.now)?)
                    .invoke_async(&mut connection)
                    .await?;
            }
            Change::PolledAt(point) => {
                let _: i64 = redis::Script::new(WHILE_RUNNING)
                    .key(&key)
                    .arg("")
                    .arg("resume")
                    .arg(&**point)
                    .invoke_async(&mut connection)
                    .await?;
            }
            Change::Ended {
                record,
                result,
                keep,
            } => {
                self.end(
                    &mut connection,
                    id,
                    record,
                    result.as_deref().map(String::as_str),
                    *keep,
                )
                .await?;
            }
            Change::Expired => {
                let _: i64 = redis::Script::new(EXPIRE)
                    .key(&key)
                    .arg(json(&Now::Expired)?)
                    .invoke_async(&mut connection)
                    .await?;
            }
        }
        Ok(())
    }

    async fn end(
        &self,
        connection: &mut redis::aio::ConnectionManager,
        id: &str,
        record: &Record,
        result: Option<&str>,
        keep: Duration,
    ) -> Result<bool, StoreError> {
        let ended: i64 = redis::Script::new(END)
            .key(self.key(id))
            .key(&*self.prefix)
            .arg(json(&record.task)?)
            .arg(json(&record.now)?)
            .arg(result.unwrap_or_default())
            .arg(millis(keep))
            .arg(id)
            .invoke_async(connection)
            .await?;
        Ok(ended == 1)
    }
}

impl SharedTasks for TaskStore {
    fn started<'a>(
        &'a self,
        owner: &'a str,
        record: &'a Record,
        call: Option<&'a Resumable>,
        keep: Duration,
    ) -> BoxFuture<'a, Result<(), StoreProblem>> {
        Box::pin(async move {
            let id = &record.task.task_id;
            let key = self.key(id);
            let mut fields = vec![
                ("owner", owner.to_owned()),
                ("holder", self.instance.to_string()),
                ("task", json(&record.task).map_err(problem)?),
                ("now", json(&record.now).map_err(problem)?),
            ];
            if let Some(call) = call {
                fields.push(("call", json(call).map_err(problem)?));
            }
            let held = self.held(&self.instance);
            let mut connection = self.state.connection().await.map_err(problem)?;
            let () = redis::pipe()
                .atomic()
                .hset_multiple(&key, &fields)
                .ignore()
                .pexpire(&key, millis(keep))
                .ignore()
                .sadd(&held, id)
                .ignore()
                .pexpire(&held, millis(keep))
                .ignore()
                .sadd(self.holders(), &*self.instance)
                .ignore()
                .pexpire(self.holders(), millis(keep))
                .ignore()
                .pset_ex(
                    self.lease_key(&self.instance),
                    1,
                    millis(LEASE).unsigned_abs(),
                )
                .ignore()
                .query_async(&mut connection)
                .await
                .map_err(|e| problem(StoreError(e)))?;
            Ok(())
        })
    }

    fn changed(&self, id: &str, change: Change) {
        let writer = self.writer.get_or_init(|| {
            let (sender, receiver) = mpsc::unbounded_channel();
            tokio::spawn(self.clone().write_changes(receiver));
            sender
        });
        // The writer lives as long as the runtime does.
        let _ = writer.send((id.to_owned(), change));
    }

    fn load<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<Stored>, StoreProblem>> {
        Box::pin(async move {
            let mut connection = self.state.connection().await.map_err(problem)?;
            self.read(&mut connection, id).await.map_err(problem)
        })
    }

    fn cancel<'a>(
        &'a self,
        id: &'a str,
        record: &'a Record,
        keep: Duration,
    ) -> BoxFuture<'a, Result<bool, StoreProblem>> {
        Box::pin(async move {
            let mut connection = self.state.connection().await.map_err(problem)?;
            self.end(&mut connection, id, record, None, keep)
                .await
                .map_err(problem)
        })
    }

    fn tell_holder<'a>(
        &'a self,
        id: &'a str,
        request: &'a ForHolder,
    ) -> BoxFuture<'a, Result<(), StoreProblem>> {
        Box::pin(async move {
            let mut connection = self.state.connection().await.map_err(problem)?;
            let holder: Option<String> = connection
                .hget(self.key(id), "holder")
                .await
                .map_err(|e| problem(StoreError(e)))?;
            if let Some(holder) = holder {
                let text = json(request).map_err(problem)?;
                let _: i64 = connection
                    .publish(self.channel(&holder), text)
                    .await
                    .map_err(|e| problem(StoreError(e)))?;
            }
            Ok(())
        })
    }
}

/// A task's hash read back; `None` when it is gone or cannot be read.
fn stored_of(mut fields: std::collections::HashMap<String, String>) -> Option<Stored> {
    let owner = fields.remove("owner")?;
    let task = serde_json::from_str(&fields.remove("task")?).ok()?;
    let now = serde_json::from_str(&fields.remove("now")?).ok()?;
    Some(Stored {
        owner,
        record: Record { task, now },
        result: fields.remove("result"),
        call: fields
            .remove("call")
            .and_then(|text| serde_json::from_str(&text).ok()),
        resume: fields.remove("resume"),
    })
}

fn json<T: serde::Serialize>(value: &T) -> Result<String, StoreError> {
    serde_json::to_string(value).map_err(|e| {
        StoreError(redis::RedisError::from((
            redis::ErrorKind::Client,
            "cannot write a task for the store",
            e.to_string(),
        )))
    })
}

fn problem(error: StoreError) -> StoreProblem {
    error.to_string()
}

fn millis(duration: Duration) -> i64 {
    i64::try_from(duration.as_millis()).unwrap_or(i64::MAX)
}
