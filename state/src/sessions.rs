//! Streamable HTTP sessions in the store. One hash per session, `mcpgen:<scope>:session:<id>`:
//!
//! - `state`: what rmcp replays to rebuild the session on another replica (the `initialize`
//!   request's parameters: revision, client capabilities and information), written by rmcp
//!   through [`SessionStore`];
//! - `owner`: the id of the principal that opened it: a request of anyone else is refused,
//!   on every replica;
//! - `level`: the log level the client set (`logging/setLevel`), if it did.
//!
//! The hash expires after the session's idle lifetime; each request that uses the session
//! renews it. A session deleted by its client is deleted here too.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use redis::AsyncCommands;
use rmcp::transport::streamable_http_server::session::{
    SessionState, SessionStore, SessionStoreError,
};

use crate::{SharedState, StoreError, prefix};

/// The sessions of one catalog in the store.
#[derive(Clone)]
pub struct Sessions {
    state: Arc<SharedState>,
    prefix: Arc<str>,
    idle_secs: i64,
}

impl std::fmt::Debug for Sessions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sessions")
            .field("prefix", &self.prefix)
            .finish_non_exhaustive()
    }
}

/// What the store holds of a session besides rmcp's state.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SessionRecord {
    /// The id of the principal that opened it (`None` while its `initialize` is answered).
    pub owner: Option<String>,
    /// The log level it set, as the wire names it (`debug`, `info`, …).
    pub level: Option<String>,
    /// The revision it agreed on at `initialize`.
    pub revision: Option<String>,
}

impl Sessions {
    pub(crate) fn new(state: Arc<SharedState>, scope: &str, idle: Duration) -> Self {
        Self {
            state,
            prefix: format!("{}session:", prefix(scope)).into(),
            idle_secs: i64::try_from(idle.as_secs().max(1)).unwrap_or(i64::MAX),
        }
    }

    fn key(&self, id: &str) -> String {
        format!("{}{id}", self.prefix)
    }

    /// The session `id` as the store has it, its lifetime renewed; `None` when the store
    /// does not know it (never opened, ended, or idle too long).
    pub async fn record(&self, id: &str) -> Result<Option<SessionRecord>, StoreError> {
        let key = self.key(id);
        let mut connection = self.state.connection().await?;
        let (fields, _): (HashMap<String, String>, i64) = redis::pipe()
            .hgetall(&key)
            .expire(&key, self.idle_secs)
            .query_async(&mut connection)
            .await?;
        if fields.is_empty() {
            return Ok(None);
        }
        let revision = fields
            .get("state")
            .and_then(|state| serde_json::from_str::<serde_json::Value>(state).ok())
            .and_then(|state| {
                state["initialize_params"]["protocolVersion"]
                    .as_str()
                    .map(str::to_owned)
            });
        Ok(Some(SessionRecord {
            owner: fields.get("owner").cloned(),
            level: fields.get("level").cloned(),
            revision,
        }))
    }

    /// Records `owner` as the owner of the session `id`.
    pub async fn set_owner(&self, id: &str, owner: &str) -> Result<(), StoreError> {
        self.set(id, "owner", owner).await
    }

    /// Records the log level the session `id` set.
    pub async fn set_level(&self, id: &str, level: &str) -> Result<(), StoreError> {
        self.set(id, "level", level).await
    }

    /// Renews the lifetime of the session `id`.
    pub async fn touch(&self, id: &str) -> Result<(), StoreError> {
        let mut connection = self.state.connection().await?;
        let _: i64 = connection.expire(self.key(id), self.idle_secs).await?;
        Ok(())
    }

    async fn set(&self, id: &str, field: &str, value: &str) -> Result<(), StoreError> {
        let key = self.key(id);
        let mut connection = self.state.connection().await?;
        let _: (i64, i64) = redis::pipe()
            .hset(&key, field, value)
            .expire(&key, self.idle_secs)
            .query_async(&mut connection)
            .await?;
        Ok(())
    }
}

#[async_trait::async_trait]
impl SessionStore for Sessions {
    async fn load(&self, session_id: &str) -> Result<Option<SessionState>, SessionStoreError> {
        let key = self.key(session_id);
        let mut connection = self.state.connection().await?;
        let (state, _): (Option<String>, i64) = redis::pipe()
            .hget(&key, "state")
            .expire(&key, self.idle_secs)
            .query_async(&mut connection)
            .await
            .map_err(StoreError)?;
        match state {
            Some(state) => Ok(Some(serde_json::from_str(&state)?)),
            None => Ok(None),
        }
    }

    async fn store(&self, session_id: &str, state: &SessionState) -> Result<(), SessionStoreError> {
        let state = serde_json::to_string(state)?;
        Ok(self.set(session_id, "state", &state).await?)
    }

    async fn delete(&self, session_id: &str) -> Result<(), SessionStoreError> {
        let mut connection = self.state.connection().await?;
        let _: i64 = connection
            .del(self.key(session_id))
            .await
            .map_err(StoreError)?;
        Ok(())
    }
}
