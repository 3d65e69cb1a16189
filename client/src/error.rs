//! [`ClientError`]: why connecting to, listing or calling an MCP server failed, and its
//! conversions to and from the transport-neutral [`CallError`] of `mcpgen-core`.

use mcpgen_core::CallError;

use crate::breaker::BreakerOpen;

/// Why a call to an MCP server through `mcpgen-client` failed: connecting, listing or calling
/// tools on a [`Session`](crate::Session) or through a [`Registry`](crate::Registry).
///
/// Through the transport-neutral [`McpConnection`](mcpgen_core::McpConnection) interface it
/// travels as a [`CallError`] (`Transport`, `Tool` and `Decode` as themselves, the rest inside
/// [`CallError::Connection`]); `ClientError::from` gets it back, so `?` works both ways.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ClientError {
    /// The connection or protocol failed.
    #[error("transport error: {0}")]
    Transport(String),
    /// The server answered with `isError: true`; the message is the result's text.
    #[error("tool `{tool}` failed: {message}")]
    Tool {
        /// Tool name.
        tool: String,
        /// The result's text.
        message: String,
    },
    /// The arguments could not be encoded or the output could not be decoded.
    #[error("tool `{tool}`: {message}")]
    Decode {
        /// Tool name.
        tool: String,
        /// What failed.
        message: String,
    },
    /// The session could not be established (process start, HTTP, handshake).
    #[error("server `{server}`: cannot connect: {message}")]
    Connect {
        /// Server name.
        server: String,
        /// What failed.
        message: String,
    },
    /// The SSRF guard refused the server's address.
    #[error(
        "server `{server}`: refused to connect to `{host}` at {address} ({reason}); set `allow_private: true` for this server to allow it"
    )]
    Blocked {
        /// Server name.
        server: String,
        /// Host as written in the URL.
        host: String,
        /// The refused address.
        address: String,
        /// Which range it is in.
        reason: String,
    },
    /// The server did not answer within `timeout_ms`; the request was cancelled.
    #[error("server `{server}`: {operation} timed out after {timeout_ms} ms (request cancelled)")]
    Timeout {
        /// Server name.
        server: String,
        /// What timed out, e.g. ``tools/call `echo` ``.
        operation: String,
        /// The configured timeout.
        timeout_ms: u64,
    },
    /// The response was larger than `max_response_bytes`; it was discarded, not truncated.
    #[error(
        "server `{server}`: {operation}: response{} exceeds max_response_bytes ({limit} bytes); nothing was kept",
        size.map(|s| format!(" of {s} bytes")).unwrap_or_default()
    )]
    ResponseTooLarge {
        /// Server name.
        server: String,
        /// The request whose response was too large.
        operation: String,
        /// The response's size, when known.
        size: Option<u64>,
        /// The configured cap.
        limit: usize,
    },
    /// The server answered with a JSON-RPC error (e.g. unknown tool, invalid arguments).
    #[error("server `{server}`: {operation} failed: {message} (JSON-RPC error {code})")]
    Rpc {
        /// Server name.
        server: String,
        /// The request.
        operation: String,
        /// JSON-RPC error code.
        code: i32,
        /// The server's message.
        message: String,
    },
    /// The server's circuit breaker is open after repeated failures; nothing was sent.
    #[error(transparent)]
    Unavailable(#[from] BreakerOpen),
    /// No tool of that name in a registry; nothing was sent.
    #[error("no tool `{name}` in the registry (tools: {known})")]
    UnknownTool {
        /// The name asked for.
        name: String,
        /// Some of the names that exist, for the message.
        known: String,
    },
    /// The tool is not in the server's `tools` allowlist; nothing was sent.
    #[error("server `{server}`: tool `{tool}` is not in the server's `tools` allowlist")]
    NotAllowed {
        /// Server name.
        server: String,
        /// Tool name.
        tool: String,
    },
}

impl From<ClientError> for CallError {
    /// `Transport`, `Tool` and `Decode` become the same [`CallError`] variant; every other
    /// error travels whole in [`CallError::Connection`].
    fn from(error: ClientError) -> Self {
        match error {
            ClientError::Transport(message) => CallError::Transport(message),
            ClientError::Tool { tool, message } => CallError::Tool { tool, message },
            ClientError::Decode { tool, message } => CallError::Decode { tool, message },
            other => CallError::connection(other),
        }
    }
}

impl From<CallError> for ClientError {
    /// The reverse of `From<ClientError> for CallError`: a [`ClientError`] inside
    /// [`CallError::Connection`] comes back as itself. Another connection's own error becomes
    /// [`ClientError::Transport`] with its message and sources.
    fn from(error: CallError) -> Self {
        match error {
            CallError::Transport(message) => ClientError::Transport(message),
            CallError::Tool { tool, message } => ClientError::Tool { tool, message },
            CallError::Decode { tool, message } => ClientError::Decode { tool, message },
            CallError::Connection(inner) => match inner.downcast::<ClientError>() {
                Ok(own) => *own,
                Err(foreign) => ClientError::Transport(crate::error_chain(&*foreign)),
            },
            other => ClientError::Transport(crate::error_chain(&other)),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn client_errors_survive_a_round_trip_through_call_error() {
        let timeout = ClientError::Timeout {
            server: "notes".into(),
            operation: "tools/call `slow`".into(),
            timeout_ms: 100,
        };
        let message = timeout.to_string();
        let call = CallError::from(timeout);
        assert_eq!(call.to_string(), message);
        assert!(matches!(
            call.downcast_ref::<ClientError>(),
            Some(ClientError::Timeout { .. })
        ));
        let back = ClientError::from(call);
        assert!(matches!(
            back,
            ClientError::Timeout {
                timeout_ms: 100,
                ..
            }
        ));
        assert_eq!(back.to_string(), message);

        let open = ClientError::from(BreakerOpen {
            server: "notes".into(),
            failures: 3,
            retry_in: Duration::from_secs(30),
        });
        let back = ClientError::from(CallError::from(open));
        assert!(matches!(back, ClientError::Unavailable(_)));
    }

    #[test]
    fn shared_variants_map_to_themselves() {
        let call = CallError::from(ClientError::Transport("connection refused".into()));
        assert!(matches!(call, CallError::Transport(ref m) if m == "connection refused"));
        let call = CallError::from(ClientError::Tool {
            tool: "t".into(),
            message: "boom".into(),
        });
        assert_eq!(call.to_string(), "tool `t` failed: boom");
        let back = ClientError::from(CallError::Decode {
            tool: "t".into(),
            message: "bad".into(),
        });
        assert!(matches!(back, ClientError::Decode { .. }));
    }

    #[test]
    fn another_connections_error_becomes_a_transport_error_with_its_message() {
        #[derive(Debug, thiserror::Error)]
        #[error("unknown tool `nope`")]
        struct Foreign;
        let back = ClientError::from(CallError::connection(Foreign));
        assert_eq!(back.to_string(), "transport error: unknown tool `nope`");
    }
}
