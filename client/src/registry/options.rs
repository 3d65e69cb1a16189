//! [`RegistryOptions`]: the registry's settings.

use std::sync::Arc;
use std::time::Duration;

use super::DEFAULT_TOOLS_TTL;
use crate::answer::ClientAnswers;
use crate::breaker::{BreakerConfig, Clock, SystemClock};
use crate::session::OAuthRef;

/// Registry settings.
#[derive(Clone)]
pub struct RegistryOptions {
    /// How long a tool list is used before it is listed again (default five minutes).
    pub tools_ttl: Duration,
    /// The circuit breaker settings of every server.
    pub breaker: BreakerConfig,
    /// Where time comes from (the system clock unless a test sets another).
    pub clock: Arc<dyn Clock>,
    /// What every session answers when its server asks (default: nothing).
    pub answers: ClientAnswers,
    /// OAuth for Streamable HTTP servers that ask for a token (default: none).
    #[cfg(feature = "oauth")]
    pub oauth: Option<crate::oauth::OAuthOptions>,
}

impl Default for RegistryOptions {
    fn default() -> Self {
        Self {
            tools_ttl: DEFAULT_TOOLS_TTL,
            breaker: BreakerConfig::default(),
            clock: Arc::new(SystemClock),
            answers: ClientAnswers::default(),
            #[cfg(feature = "oauth")]
            oauth: None,
        }
    }
}

impl std::fmt::Debug for RegistryOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RegistryOptions")
            .field("tools_ttl", &self.tools_ttl)
            .field("breaker", &self.breaker)
            .finish_non_exhaustive()
    }
}

impl RegistryOptions {
    /// Sets the tool list's time to live.
    pub fn with_tools_ttl(mut self, ttl: Duration) -> Self {
        self.tools_ttl = ttl;
        self
    }

    /// Sets the circuit breaker settings.
    pub fn with_breaker(mut self, breaker: BreakerConfig) -> Self {
        self.breaker = breaker;
        self
    }

    /// Sets what every session answers when its server asks.
    pub fn with_answers(mut self, answers: ClientAnswers) -> Self {
        self.answers = answers;
        self
    }

    /// Sets the OAuth settings for servers that ask for a token.
    #[cfg(feature = "oauth")]
    pub fn with_oauth(mut self, oauth: crate::oauth::OAuthOptions) -> Self {
        self.oauth = Some(oauth);
        self
    }

    /// Sets the clock.
    pub fn with_clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = clock;
        self
    }

    /// The OAuth settings sessions connect with, if any.
    #[cfg(feature = "oauth")]
    pub(crate) fn oauth_ref(&self) -> OAuthRef<'_> {
        self.oauth.as_ref()
    }

    /// The OAuth settings sessions connect with: none without the `oauth` feature.
    #[cfg(not(feature = "oauth"))]
    pub(crate) fn oauth_ref(&self) -> OAuthRef<'_> {
        None
    }
}
