//! The Streamable HTTP sessions of a catalog in the store the replicas share
//! (`--state-redis`, feature `redis`): who owns a session this replica does not hold, which
//! revision it agreed on, and keeping it alive while it is used anywhere. Without the store
//! (or the feature) there is none, and sessions live in this replica's memory only.

use std::sync::Arc;

use rmcp::transport::streamable_http_server::session::SessionStore;

use crate::server::call::handler::McpHandler;
use crate::server::state::inner::Inner;

/// A catalog's sessions in the store.
#[derive(Clone)]
pub(crate) struct Shared {
    #[cfg(feature = "redis")]
    sessions: mcpgen_state::Sessions,
    #[cfg(not(feature = "redis"))]
    never: std::convert::Infallible,
}

/// Whose a session is, as the store says.
#[cfg_attr(not(feature = "redis"), allow(dead_code))]
pub(crate) enum Owner {
    /// Opened by the principal with this id.
    Principal(String),
    /// Not in the store (or still being opened).
    Unknown,
    /// The store cannot be reached; why.
    Away(String),
}

/// The sessions of the catalog `inner` at `path` in the store, when the server has one.
pub(crate) fn of(inner: &Inner, path: &str) -> Option<Shared> {
    #[cfg(feature = "redis")]
    {
        // rmcp's default idle lifetime of a session, which the server keeps.
        let idle = rmcp::transport::streamable_http_server::session::local::SessionConfig::DEFAULT_KEEP_ALIVE;
        let scope = format!("{}:{path}", inner.name);
        inner.shared.as_ref().map(|state| Shared {
            sessions: state.sessions(&scope, idle),
        })
    }
    #[cfg(not(feature = "redis"))]
    {
        let _ = (inner, path);
        None
    }
}

/// `handler`, keeping its session's log level in the store when there is one.
pub(crate) fn handler(handler: McpHandler, shared: &Option<Shared>) -> McpHandler {
    #[cfg(feature = "redis")]
    return handler.with_shared(shared.as_ref().map(|s| s.sessions.clone()));
    #[cfg(not(feature = "redis"))]
    {
        let _ = shared;
        handler
    }
}

#[cfg_attr(not(feature = "redis"), allow(unused_variables))]
impl Shared {
    /// The store as rmcp uses it (the `initialize` of each session).
    pub(crate) fn store(&self) -> Arc<dyn SessionStore> {
        #[cfg(feature = "redis")]
        return Arc::new(self.sessions.clone());
        #[cfg(not(feature = "redis"))]
        match self.never {}
    }

    /// Whose the session `id` is (renewing its lifetime).
    pub(crate) async fn owner(&self, id: &str) -> Owner {
        #[cfg(feature = "redis")]
        return match self.sessions.record(id).await {
            Ok(Some(record)) => record.owner.map_or(Owner::Unknown, Owner::Principal),
            Ok(None) => Owner::Unknown,
            Err(error) => Owner::Away(error.to_string()),
        };
        #[cfg(not(feature = "redis"))]
        match self.never {}
    }

    /// The revision the session `id` agreed on at `initialize`, if the store knows it.
    pub(crate) async fn revision(&self, id: &str) -> Option<String> {
        #[cfg(feature = "redis")]
        return match self.sessions.record(id).await {
            Ok(record) => record.and_then(|r| r.revision),
            Err(error) => {
                tracing::warn!(session = %id, %error, "the session's revision cannot be read");
                None
            }
        };
        #[cfg(not(feature = "redis"))]
        match self.never {}
    }

    /// Records `owner` as the principal that opened the session `id`.
    pub(crate) async fn set_owner(&self, id: &str, owner: &str) {
        #[cfg(feature = "redis")]
        if let Err(error) = self.sessions.set_owner(id, owner).await {
            tracing::warn!(session = %id, %error, "the session's owner is not kept for the other replicas");
        }
        #[cfg(not(feature = "redis"))]
        match self.never {}
    }

    /// Renews the lifetime of the session `id` in the store, without waiting for it.
    pub(crate) fn touch(&self, id: &str) {
        #[cfg(feature = "redis")]
        {
            let (sessions, id) = (self.sessions.clone(), id.to_owned());
            tokio::spawn(async move {
                if let Err(error) = sessions.touch(&id).await {
                    tracing::debug!(session = %id, %error, "the session's lifetime is not renewed");
                }
            });
        }
        #[cfg(not(feature = "redis"))]
        match self.never {}
    }
}
