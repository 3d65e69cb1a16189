//! The legacy SSE transport across replicas. A client opens its stream (`GET /sse`) on one
//! replica and POSTs its messages to `/message?sessionId=…`, which a load balancer may send to
//! any replica. The replica holding the stream records itself as the session's holder,
//! `mcpgen:<scope>:sse:<id>` (its relay's instance and the session's owner, renewed while the
//! stream is open); a replica that receives a message for a session it does not hold checks
//! the owner there and publishes the message on the holder's channel,
//! `mcpgen:<scope>:relay:<instance>`, which the holder hands to the session as if it had been
//! POSTed to it. A message nobody is subscribed to (the holder is gone) is refused as for an
//! unknown session.
//!
//! A relayed message carries the POST's URI, headers and credential, as a message POSTed to the
//! holder would; pub/sub keeps nothing, but the message crosses the network to Redis: use
//! `rediss://` when Redis is not on the same host.

use std::sync::Arc;
use std::time::Duration;

use redis::AsyncCommands;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::{QUEUE, SharedState, StoreError, prefix, subscribe};

/// How long a holder record lasts unless renewed; the holder renews it every third of that.
pub const HOLD: Duration = Duration::from_secs(90);

/// One catalog's relay; each has an instance id of its own.
#[derive(Clone)]
pub struct Relay {
    state: Arc<SharedState>,
    prefix: Arc<str>,
    instance: Arc<str>,
}

impl std::fmt::Debug for Relay {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Relay")
            .field("prefix", &self.prefix)
            .field("instance", &self.instance)
            .finish_non_exhaustive()
    }
}

/// A message POSTed to one replica for a stream another holds.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Relayed {
    /// The session it is for.
    pub session: String,
    /// The POST's URI.
    pub uri: String,
    /// The POST's headers (those with text values).
    pub headers: Vec<(String, String)>,
    /// The message (or batch), as JSON text.
    pub body: String,
    /// The credential the POST presented, if any.
    pub credential: Option<String>,
    /// Whether that credential is an OAuth access token (never sent upstream).
    pub oauth: bool,
}

/// Which relay holds a session's stream, and whose the session is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Holder {
    /// The holder relay's instance id.
    pub instance: String,
    /// The id of the principal that opened the stream.
    pub owner: String,
}

impl Relay {
    pub(crate) fn new(state: Arc<SharedState>, scope: &str) -> Self {
        Self {
            state,
            prefix: prefix(scope).into(),
            instance: uuid::Uuid::new_v4().simple().to_string().into(),
        }
    }

    fn key(&self, session: &str) -> String {
        format!("{}sse:{session}", self.prefix)
    }

    fn channel(&self, instance: &str) -> String {
        format!("{}relay:{instance}", self.prefix)
    }

    /// Records this relay as the holder of `session`, owned by `owner`.
    pub async fn hold(&self, session: &str, owner: &str) -> Result<(), StoreError> {
        let key = self.key(session);
        let mut connection = self.state.connection().await?;
        let _: (i64, i64) = redis::pipe()
            .hset_multiple(&key, &[("holder", &*self.instance), ("owner", owner)])
            .expire(&key, hold_secs())
            .query_async(&mut connection)
            .await?;
        Ok(())
    }

    /// Renews the holder record of `session`.
    pub async fn renew(&self, session: &str) -> Result<(), StoreError> {
        let mut connection = self.state.connection().await?;
        let _: i64 = connection.expire(self.key(session), hold_secs()).await?;
        Ok(())
    }

    /// Forgets the holder record of `session` (its stream closed).
    pub async fn release(&self, session: &str) -> Result<(), StoreError> {
        let mut connection = self.state.connection().await?;
        let _: i64 = connection.del(self.key(session)).await?;
        Ok(())
    }

    /// Who holds `session`, if anyone does.
    pub async fn holder(&self, session: &str) -> Result<Option<Holder>, StoreError> {
        let mut connection = self.state.connection().await?;
        let (instance, owner): (Option<String>, Option<String>) = redis::cmd("HMGET")
            .arg(self.key(session))
            .arg("holder")
            .arg("owner")
            .query_async(&mut connection)
            .await?;
        Ok(instance
            .zip(owner)
            .map(|(instance, owner)| Holder { instance, owner }))
    }

    /// Publishes `message` to the relay `instance`; `false` when no relay of that instance
    /// listens (its replica is gone).
    pub async fn send(&self, instance: &str, message: &Relayed) -> Result<bool, StoreError> {
        let text = serde_json::to_string(message).map_err(|e| {
            StoreError(redis::RedisError::from((
                redis::ErrorKind::Client,
                "cannot serialize a relayed message",
                e.to_string(),
            )))
        })?;
        let mut connection = self.state.connection().await?;
        let receivers: i64 = connection.publish(self.channel(instance), text).await?;
        Ok(receivers > 0)
    }

    /// The messages relayed to this relay, until `shutdown`; subscribes again (after a
    /// second) whenever Redis is lost.
    pub fn listen(&self, shutdown: CancellationToken) -> mpsc::Receiver<Relayed> {
        let (sender, receiver) = mpsc::channel(QUEUE);
        let mut texts = subscribe(
            self.state.clone(),
            self.channel(&self.instance),
            shutdown,
            "the legacy SSE relay",
        );
        tokio::spawn(async move {
            while let Some(text) = texts.recv().await {
                match serde_json::from_str::<Relayed>(&text) {
                    Ok(relayed) => {
                        if sender.send(relayed).await.is_err() {
                            return;
                        }
                    }
                    Err(error) => tracing::warn!(%error, "a relayed message cannot be read"),
                }
            }
        });
        receiver
    }
}

fn hold_secs() -> i64 {
    i64::try_from(HOLD.as_secs()).unwrap_or(i64::MAX)
}
