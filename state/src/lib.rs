//! What the replicas of an mcpgen server share in Redis or Valkey (`--state-redis URL`), so
//! that a load balancer may send any request to any replica:
//!
//! - [`Sessions`]: what a Streamable HTTP session needs after `initialize` (rmcp's
//!   [`SessionState`](rmcp::transport::streamable_http_server::session::SessionState): the
//!   revision, the client's capabilities and information), who owns it and the log level it
//!   asked for. A replica that does not hold a session rebuilds it from there.
//! - [`Relay`]: which replica holds each legacy SSE stream, and the channel a message POSTed
//!   to another replica reaches it through.
//! - [`TaskStore`]: every task, its result and which replica runs it, with the lease that
//!   says the replica is alive, so that another takes its tasks over when it is not.
//!
//! Every key lives under `mcpgen:<scope>:`, the scope naming the server and its catalog, so
//! that servers sharing one Redis never see each other's sessions; and every key expires
//! (a session after its idle lifetime, renewed by each request), so that a store left to
//! itself empties.

#![deny(missing_docs)]

pub mod relay;
pub mod sessions;
pub mod tasks;

use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use tokio::sync::{OnceCell, mpsc};
use tokio_util::sync::CancellationToken;

pub use relay::{Relay, Relayed};
pub use sessions::{SessionRecord, Sessions};
pub use tasks::TaskStore;

/// How long one Redis round trip (or connecting) may take before the store counts as away.
const TIMEOUT: Duration = Duration::from_millis(500);

/// A `--state-redis` URL that cannot be used.
#[derive(Debug, Clone, thiserror::Error)]
#[error(
    "--state-redis {url}: {reason}; use redis://[:PASSWORD@]HOST[:PORT][/DB] or rediss://… \
     for TLS"
)]
pub struct StateUrlError {
    url: String,
    reason: String,
}

/// The store could not be reached or answered with an error.
#[derive(Debug, thiserror::Error)]
#[error("the shared state store (--state-redis): {0}")]
pub struct StoreError(#[from] redis::RedisError);

/// The connection to the store, opened on first use and shared by every catalog of a
/// server.
pub struct SharedState {
    client: redis::Client,
    connection: OnceCell<ConnectionManager>,
}

impl std::fmt::Debug for SharedState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The URL may carry a password.
        f.debug_struct("SharedState").finish_non_exhaustive()
    }
}

impl SharedState {
    /// The store at `url`; nothing is connected until it is first used.
    pub fn new(url: &str) -> Result<Arc<Self>, StateUrlError> {
        let client = redis::Client::open(url).map_err(|e| StateUrlError {
            url: redacted(url),
            reason: e.to_string(),
        })?;
        Ok(Arc::new(Self {
            client,
            connection: OnceCell::new(),
        }))
    }

    /// A connection (shared; reconnects on its own).
    pub(crate) async fn connection(&self) -> Result<ConnectionManager, StoreError> {
        let connection = self
            .connection
            .get_or_try_init(|| async {
                let config = ConnectionManagerConfig::new()
                    .set_connection_timeout(Some(TIMEOUT))
                    .set_response_timeout(Some(TIMEOUT));
                ConnectionManager::new_with_config(self.client.clone(), config).await
            })
            .await?;
        Ok(connection.clone())
    }

    /// A connection of its own for subscribing to channels.
    pub(crate) async fn subscriber(&self) -> Result<redis::aio::PubSub, StoreError> {
        Ok(self.client.get_async_pubsub().await?)
    }

    /// The sessions of `scope`, each kept for `idle` after its last request.
    pub fn sessions(self: &Arc<Self>, scope: &str, idle: Duration) -> Sessions {
        Sessions::new(self.clone(), scope, idle)
    }

    /// The legacy SSE relay of `scope`.
    pub fn relay(self: &Arc<Self>, scope: &str) -> Relay {
        Relay::new(self.clone(), scope)
    }

    /// The tasks of `scope`.
    pub fn tasks(self: &Arc<Self>, scope: &str) -> TaskStore {
        TaskStore::new(self.clone(), scope)
    }
}

/// How long a listener waits before subscribing again after losing Redis.
const RESUBSCRIBE: Duration = Duration::from_secs(1);

/// Messages received on a channel, waiting to be handled.
pub(crate) const QUEUE: usize = 256;

/// The messages published on `channel`, as text, until `shutdown`; subscribes again (after a
/// second) whenever Redis is lost. `what` names the listener in the log.
pub(crate) fn subscribe(
    state: Arc<SharedState>,
    channel: String,
    shutdown: CancellationToken,
    what: &'static str,
) -> mpsc::Receiver<String> {
    let (sender, receiver) = mpsc::channel(QUEUE);
    tokio::spawn(async move {
        while !shutdown.is_cancelled() {
            let subscribed = async {
                let mut subscriber = state.subscriber().await?;
                subscriber.subscribe(&channel).await?;
                Ok::<_, StoreError>(subscriber)
            };
            let subscriber = tokio::select! {
                subscriber = subscribed => subscriber,
                () = shutdown.cancelled() => return,
            };
            match subscriber {
                Ok(subscriber) => {
                    let mut messages = subscriber.into_on_message();
                    loop {
                        let message = tokio::select! {
                            message = messages.next() => message,
                            () = shutdown.cancelled() => return,
                        };
                        let Some(message) = message else { break };
                        let Ok(text) = message.get_payload::<String>() else {
                            continue;
                        };
                        if sender.send(text).await.is_err() {
                            return;
                        }
                    }
                    tracing::warn!(%channel, "{what}'s subscription ended; subscribing again");
                }
                Err(error) => tracing::warn!(%error, "{what} cannot subscribe; retrying"),
            }
            tokio::select! {
                () = tokio::time::sleep(RESUBSCRIBE) => {}
                () = shutdown.cancelled() => return,
            }
        }
    });
    receiver
}

/// `url` without its password, for messages.
fn redacted(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            format!("{}://…@{}", &url[..scheme], &url[at + 1..])
        }
        _ => url.to_owned(),
    }
}

/// The prefix of every key of `scope`.
pub(crate) fn prefix(scope: &str) -> String {
    format!("mcpgen:{scope}:")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bad_url_is_refused_without_its_password() {
        let error = SharedState::new("http://:secret@host")
            .unwrap_err()
            .to_string();
        assert!(error.contains("--state-redis"), "{error}");
        assert!(!error.contains("secret"), "{error}");
    }
}
