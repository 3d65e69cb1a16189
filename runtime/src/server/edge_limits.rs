//! The [`ServerBuilder`] methods that set the limits of the HTTP edge
//! ([`EdgeLimits`](super::config::EdgeLimits)): how long a client may take to send a request's
//! headers, how many connections are served at once, and how many Streamable HTTP sessions are
//! held in all and for one principal.

use std::time::Duration;

use super::builder::ServerBuilder;

impl ServerBuilder {
    /// Sets how long a client may take to send a request's headers, from its first byte (or,
    /// on a kept-alive connection, from the end of the previous response) to the blank line
    /// (default [`DEFAULT_HEADER_READ_TIMEOUT`](super::DEFAULT_HEADER_READ_TIMEOUT)); a client
    /// that is slower has its connection closed, so trickled headers cannot hold connections.
    /// Applies to [`Server::serve_http`](super::Server::serve_http) and
    /// [`Server::serve_listener`](super::Server::serve_listener).
    pub fn header_read_timeout(mut self, timeout: Duration) -> Self {
        self.edge.header_read_timeout = timeout;
        self
    }

    /// Sets how many connections [`Server::serve_http`](super::Server::serve_http) serves at
    /// once (default [`DEFAULT_MAX_CONNECTIONS`](super::DEFAULT_MAX_CONNECTIONS); at least one). Past it the listener stops
    /// accepting: new connections wait in the listen backlog until a served one ends.
    pub fn max_connections(mut self, connections: usize) -> Self {
        self.edge.max_connections = connections.max(1);
        self
    }

    /// Sets how many Streamable HTTP sessions each catalog holds (default
    /// [`DEFAULT_SESSIONS_MAX`](super::DEFAULT_SESSIONS_MAX); at least one). At the cap a new session is refused with 503
    /// and `Retry-After` (unless its principal has an idle session of its own to give up);
    /// sessions of other principals are never closed to make room.
    pub fn sessions_max(mut self, sessions: usize) -> Self {
        self.edge.sessions.max = sessions.max(1);
        self
    }

    /// Sets how many Streamable HTTP sessions one principal holds in each catalog (default
    /// [`DEFAULT_SESSIONS_MAX_PER_PRINCIPAL`](super::DEFAULT_SESSIONS_MAX_PER_PRINCIPAL); at least one). A principal at its cap that opens
    /// another has its own least recently used idle session closed; when all of them are in
    /// use (a request or stream open), the new session is refused with 429 and `Retry-After`.
    pub fn sessions_max_per_principal(mut self, sessions: usize) -> Self {
        self.edge.sessions.per_principal = sessions.max(1);
        self
    }
}
