//! Why an upstream client could not be built.

/// Why an upstream client could not be built.
#[derive(Debug, thiserror::Error)]
pub enum UpstreamError {
    /// The base URL does not parse or is not http(s).
    #[error("invalid upstream base URL `{url}`: {reason}")]
    BaseUrl {
        /// The URL given.
        url: String,
        /// Why it was rejected.
        reason: String,
    },
    /// A configured credential cannot be sent (its value is never included).
    #[error("invalid upstream credential {credential}: {reason}")]
    Credential {
        /// The credential, redacted (e.g. `Header(X-API-Key: ***)`).
        credential: String,
        /// Why it was rejected.
        reason: String,
    },
    /// Pass-through of the caller's credential cannot be set up.
    #[error("cannot pass the caller's credential through: {0}")]
    PassThrough(String),
    /// Token exchange for OAuth callers cannot be set up.
    #[error("cannot set up token exchange for OAuth callers: {0}")]
    TokenExchange(String),
    /// An origin polling may follow ([`TaskPolling::follow_origins`]) is not
    /// `scheme://host[:port]`.
    ///
    /// [`TaskPolling::follow_origins`]: crate::TaskPolling::follow_origins
    #[error("invalid origin to follow when polling `{origin}`: {reason}")]
    FollowOrigin {
        /// The origin given.
        origin: String,
        /// Why it was rejected.
        reason: String,
    },
    /// The HTTP client could not be built.
    #[error("cannot build HTTP client: {0}")]
    Client(String),
}
