//! [`CallError`]: why a tool call through an [`McpConnection`](crate::McpConnection) failed,
//! in terms every connection shares.

use std::error::Error;

/// Why a tool call through an [`McpConnection`](crate::McpConnection) (or
/// [`call_typed`](crate::call_typed)) failed.
///
/// Transport-neutral: what is specific to one kind of connection (a remote session's timeout,
/// a refused address, an open circuit breaker; a local tool set's unknown tool) travels whole
/// in [`CallError::Connection`], so no detail or message is lost on the way.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CallError {
    /// The connection or the protocol failed (a closed pipe, an unreadable reply, ...) and the
    /// connection has no error of its own to say more; the text says what happened.
    #[error("transport error: {0}")]
    Transport(String),
    /// The tool ran and answered with `isError: true`. [`call_typed`](crate::call_typed) returns
    /// this; `call_tool` hands such a result back as `Ok` for the caller to look at.
    #[error("tool `{tool}` failed: {message}")]
    Tool {
        /// Tool name.
        tool: String,
        /// The result's text.
        message: String,
    },
    /// [`call_typed`](crate::call_typed) could not encode the arguments as a JSON object, or
    /// could not decode the tool's output into the expected type.
    #[error("tool `{tool}`: {message}")]
    Decode {
        /// Tool name.
        tool: String,
        /// What failed.
        message: String,
    },
    /// The connection's own error, kept whole: `mcpgen-client`'s `ClientError` (cannot connect,
    /// timeout, response too large, JSON-RPC error, open circuit breaker, ...) or the runtime's
    /// `ToolError` from a `LocalConnection` (unknown tool, invalid arguments). Displays as that
    /// error; [`CallError::downcast_ref`] gets it back.
    #[error(transparent)]
    Connection(Box<dyn Error + Send + Sync + 'static>),
}

impl CallError {
    /// Wraps a connection's own error in [`CallError::Connection`].
    pub fn connection(error: impl Error + Send + Sync + 'static) -> Self {
        CallError::Connection(Box::new(error))
    }

    /// The connection's own error, when this is a [`CallError::Connection`] holding an `E`.
    pub fn downcast_ref<E: Error + 'static>(&self) -> Option<&E> {
        match self {
            CallError::Connection(error) => error.downcast_ref::<E>(),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, thiserror::Error)]
    #[error("server `notes`: tools/call timed out")]
    struct Own;

    #[test]
    fn a_connection_error_keeps_its_message_and_type() {
        let err = CallError::connection(Own);
        assert_eq!(err.to_string(), "server `notes`: tools/call timed out");
        assert!(err.downcast_ref::<Own>().is_some());
        assert!(
            CallError::Transport("closed".into())
                .downcast_ref::<Own>()
                .is_none()
        );
    }
}
