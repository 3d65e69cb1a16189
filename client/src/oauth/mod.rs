//! OAuth 2.1 for Streamable HTTP servers (feature `oauth`), on rmcp's authorization client.
//!
//! When a server answers 401 (or 403 `insufficient_scope`), the session reads the
//! `WWW-Authenticate` challenge, fetches the protected-resource metadata it points at
//! (`resource_metadata`, RFC 9728) and then the authorization server's metadata (RFC 8414, or
//! OpenID discovery), and gets a token:
//!
//! - [`Grant::AuthorizationCode`]: authorization code with PKCE. The client identifies itself
//!   with its Client ID Metadata Document ([`OAuthOptions::client_metadata_url`]) when the
//!   authorization server supports those, with a pre-registered
//!   [`client_id`](OAuthOptions::client_id), or else registers dynamically (RFC 7591). The
//!   person is sent to the authorization URL through a [`Browser`] (the system browser, or the
//!   URL printed); the answer comes back to a loopback redirect (`http://127.0.0.1:PORT/callback`),
//!   and its `iss` must name the authorization server (RFC 9207).
//! - [`Grant::ClientCredentials`]: a service's own client id and secret, or its client id and
//!   a private key that signs a client assertion ([`OAuthOptions::client_key`], RFC 7523
//!   `private_key_jwt`).
//! - [`Grant::EnterpriseManaged`]: the person's ID token from their organisation's identity
//!   provider, exchanged for an identity assertion (RFC 8693) that the server's authorization
//!   server trades for a token (RFC 7523), without a browser (SEP-990).
//!
//! Every token request names the server as its `resource` (RFC 8707). Tokens are refreshed
//! when they expire or the server rejects them, and a 403 `insufficient_scope` at connect
//! asks again for the scopes the server names (step-up). Tokens are kept in a file only the
//! user can read (mode 0600) under the user's configuration folder
//! (`$XDG_CONFIG_HOME/mcpgen/tokens/`, else `~/.config/mcpgen/tokens/`), one per server URL,
//! never in the server configuration.

mod connect;
mod enterprise;
mod flow;
mod step_up;
mod store;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use mcpgen_core::BoxFuture;

pub(crate) use connect::serve_with_oauth;
pub use enterprise::IdentityProvider;
pub(crate) use flow::{ProbeRequest, authorize, probe};
pub use store::{TokenFile, default_token_dir};

/// How the client gets its token.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Grant {
    /// Authorization code with PKCE, the person signing in through a browser.
    #[default]
    AuthorizationCode,
    /// Client credentials (a service: `client_id`, and `client_secret` or `client_key`, are
    /// required).
    ClientCredentials,
    /// Enterprise-managed authorization: the person's ID token from their identity provider
    /// ([`OAuthOptions::identity_provider`]) is exchanged for an assertion this server's
    /// authorization server trades for a token (`client_id` and `client_secret` there are
    /// required).
    EnterpriseManaged,
}

/// A client's private key for `private_key_jwt` (RFC 7523): the token request carries a
/// short-lived assertion signed with it (issuer and subject the client id, audience the
/// authorization server).
#[derive(Clone)]
pub struct ClientKey {
    /// The key in PEM (PKCS#8, or PKCS#1 for RSA).
    pub pem: Vec<u8>,
    /// The signing algorithm: `RS256`, `RS384`, `RS512`, `ES256` or `ES384`.
    pub algorithm: String,
}

impl std::fmt::Debug for ClientKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientKey")
            .field("algorithm", &self.algorithm)
            .finish_non_exhaustive()
    }
}

/// Sends the person to the authorization URL.
pub trait Browser: Send + Sync {
    /// Opens `url` (or tells the person to); the answer arrives at the redirect URI.
    fn open<'a>(&'a self, url: &'a str) -> BoxFuture<'a, Result<(), String>>;
}

/// Opens the system browser (`xdg-open`, or `open` on macOS) and always prints the URL on
/// stderr as well, for terminals without a browser.
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemBrowser;

impl Browser for SystemBrowser {
    fn open<'a>(&'a self, url: &'a str) -> BoxFuture<'a, Result<(), String>> {
        Box::pin(async move {
            eprintln!("Open this URL to sign in:\n  {url}");
            let opener = if cfg!(target_os = "macos") {
                "open"
            } else {
                "xdg-open"
            };
            // Without a browser the printed URL is the way; failing to open is not an error.
            let _ = tokio::process::Command::new(opener)
                .arg(url)
                .stdin(std::process::Stdio::null())
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .spawn();
            Ok(())
        })
    }
}

/// OAuth settings of a session.
#[derive(Clone)]
pub struct OAuthOptions {
    /// How the token is obtained (default: authorization code).
    pub grant: Grant,
    /// A pre-registered client id (required for client credentials).
    pub client_id: Option<String>,
    /// The client's secret, for a confidential pre-registered client or client credentials.
    pub client_secret: Option<String>,
    /// With client credentials, a private key that authenticates the client instead of a
    /// secret (RFC 7523 `private_key_jwt`).
    pub client_key: Option<ClientKey>,
    /// For [`Grant::EnterpriseManaged`]: the person's identity provider and ID token.
    pub identity_provider: Option<IdentityProvider>,
    /// The HTTPS URL of the client's Client ID Metadata Document, used as its client id when
    /// the authorization server supports those; dynamic registration otherwise.
    pub client_metadata_url: Option<String>,
    /// The client name given in dynamic registration.
    pub client_name: String,
    /// Scopes to ask for; empty: the server's challenge or metadata decides.
    pub scopes: Vec<String>,
    /// Where tokens are kept: a folder (one 0600 file per server URL), or `None` to keep them
    /// in memory only.
    pub token_dir: Option<PathBuf>,
    /// The loopback port of the redirect URI (0: any free port).
    pub redirect_port: u16,
    /// How long the person has to sign in.
    pub sign_in_timeout: Duration,
    /// How the person is sent to the authorization URL.
    pub browser: Arc<dyn Browser>,
}

impl std::fmt::Debug for OAuthOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuthOptions")
            .field("grant", &self.grant)
            .field("client_id", &self.client_id)
            .field(
                "client_secret",
                &self.client_secret.as_ref().map(|_| "[set]"),
            )
            .field("client_key", &self.client_key)
            .field("identity_provider", &self.identity_provider)
            .field("client_metadata_url", &self.client_metadata_url)
            .field("scopes", &self.scopes)
            .field("token_dir", &self.token_dir)
            .finish_non_exhaustive()
    }
}

impl Default for OAuthOptions {
    fn default() -> Self {
        Self {
            grant: Grant::AuthorizationCode,
            client_id: None,
            client_secret: None,
            client_key: None,
            identity_provider: None,
            client_metadata_url: None,
            client_name: "mcpgen".to_owned(),
            scopes: Vec::new(),
            token_dir: default_token_dir(),
            redirect_port: 0,
            sign_in_timeout: Duration::from_secs(300),
            browser: Arc::new(SystemBrowser),
        }
    }
}

impl OAuthOptions {
    /// Authorization code with PKCE, tokens under the user's configuration folder.
    pub fn new() -> Self {
        Self::default()
    }

    /// Client credentials with `client_id` and `client_secret`.
    pub fn client_credentials(client_id: impl Into<String>, secret: impl Into<String>) -> Self {
        Self {
            grant: Grant::ClientCredentials,
            client_id: Some(client_id.into()),
            client_secret: Some(secret.into()),
            ..Self::default()
        }
    }

    /// Client credentials with `client_id`, authenticated by a signed assertion (`key`).
    pub fn client_credentials_with_key(client_id: impl Into<String>, key: ClientKey) -> Self {
        Self {
            grant: Grant::ClientCredentials,
            client_id: Some(client_id.into()),
            client_key: Some(key),
            ..Self::default()
        }
    }

    /// Enterprise-managed authorization through `idp`, as client `client_id` (with `secret`)
    /// of the server's authorization server.
    pub fn enterprise_managed(
        idp: IdentityProvider,
        client_id: impl Into<String>,
        secret: impl Into<String>,
    ) -> Self {
        Self {
            grant: Grant::EnterpriseManaged,
            client_id: Some(client_id.into()),
            client_secret: Some(secret.into()),
            identity_provider: Some(idp),
            ..Self::default()
        }
    }

    /// Sets the Client ID Metadata Document URL.
    pub fn with_client_metadata_url(mut self, url: impl Into<String>) -> Self {
        self.client_metadata_url = Some(url.into());
        self
    }

    /// Sets a pre-registered client id (and secret, for a confidential client).
    pub fn with_client(mut self, id: impl Into<String>, secret: Option<String>) -> Self {
        self.client_id = Some(id.into());
        self.client_secret = secret;
        self
    }

    /// Sets the scopes to ask for.
    pub fn with_scopes(mut self, scopes: Vec<String>) -> Self {
        self.scopes = scopes;
        self
    }

    /// Sets where tokens are kept (`None`: in memory only).
    pub fn with_token_dir(mut self, dir: Option<PathBuf>) -> Self {
        self.token_dir = dir;
        self
    }

    /// Sets how the person is sent to the authorization URL.
    pub fn with_browser(mut self, browser: Arc<dyn Browser>) -> Self {
        self.browser = browser;
        self
    }
}
