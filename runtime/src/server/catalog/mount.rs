//! Several catalogs on one HTTP server: each [`Mount`] is a catalog of its own (tool sets,
//! authenticators, tool mode) served at `/mcp/<name>`, beside or instead of the server's own
//! catalog at `/mcp`.

use std::sync::Arc;

use mcpgen_identity::auth::{AuthChain, Authenticator};

use super::catalog_config::CatalogConfig;
#[cfg(feature = "search")]
use crate::server::config::ToolMode;
use mcpgen_contract::toolset::ToolSet;

/// Longest catalog name, in bytes.
pub const MAX_CATALOG_NAME_LEN: usize = 64;

/// Names that would collide with a fixed route under `/mcp/`.
const RESERVED_NAMES: &[&str] = &["server-card"];

/// A catalog served at `/mcp/<name>` (Streamable HTTP) and `/mcp/<name>/sse` with
/// `/mcp/<name>/message` (legacy HTTP+SSE), added with
/// [`ServerBuilder::mount`](crate::server::ServerBuilder::mount).
///
/// A mount has its own tool sets and its own authenticators; everything else (audit sinks,
/// rate limits, body limit, `Host`/`Origin` checks, output check, forwarded headers) is the
/// server's, and a principal's rate limit counts calls on every catalog together.
///
/// A request to `/mcp/<name>` is authenticated by the mount's authenticators first, then by
/// the server's ([`ServerBuilder::authenticator`](crate::server::ServerBuilder::authenticator)); the
/// first that accepts wins. Give each mount a [`TokenAuthority`](mcpgen_identity::auth::TokenAuthority)
/// for its own audience ([`with_audience`](mcpgen_identity::auth::TokenAuthority::with_audience)) and
/// a token issued for one catalog is refused by the others with 401. A mount with no
/// authenticator of its own, on a server with none, serves every caller as `anonymous`.
///
/// ```
/// use mcpgen_runtime::auth::TokenAuthority;
/// use mcpgen_runtime::server::{Mount, Server};
/// use mcpgen_runtime::ToolSet;
///
/// fn serve_rooms(
///     alpha_tools: impl ToolSet,
///     beta_tools: impl ToolSet,
/// ) -> Result<(), Box<dyn std::error::Error>> {
///     let tokens = TokenAuthority::new(&[7u8; 32], "rooms")?;
///     let alpha = Mount::new("alpha")
///         .tool_set(alpha_tools)
///         .authenticator(tokens.with_audience("alpha")?);
///     let beta = Mount::new("beta")
///         .tool_set(beta_tools)
///         .authenticator(tokens.with_audience("beta")?);
///     let _server = Server::builder("rooms", "0.1.0").mount(alpha).mount(beta).build()?;
///     Ok(())
/// }
/// ```
#[must_use = "a mount does nothing until it is given to `ServerBuilder::mount`"]
pub struct Mount {
    pub(crate) name: String,
    pub(crate) catalog: CatalogConfig,
}

impl std::fmt::Debug for Mount {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mount")
            .field("name", &self.name)
            .field("tool_sets", &self.catalog.sets.len())
            .field("auth", &self.catalog.auth.is_some())
            .finish_non_exhaustive()
    }
}

impl Mount {
    /// A catalog served at `/mcp/<name>`. The name must match `^[A-Za-z0-9_-]{1,64}$` and
    /// differ from every other mount's; [`ServerBuilder::build`](crate::server::ServerBuilder::build)
    /// refuses it otherwise.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            catalog: CatalogConfig::default(),
        }
    }

    /// The name, as in the path `/mcp/<name>`.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Sets the title `initialize` shows for this catalog (default: the server's).
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.catalog.set_title(title.into());
        self
    }

    /// Sets the description `initialize` shows for this catalog (default: the server's).
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.catalog.set_description(description.into());
        self
    }

    /// Adds a tool set. Tool names must be unique within the catalog; two catalogs may serve
    /// tools of the same name.
    pub fn tool_set(mut self, tools: impl ToolSet) -> Self {
        self.catalog.add_tool_set(Arc::new(tools));
        self
    }

    /// Adds a shared tool set (the same set may serve several catalogs).
    pub fn shared_tool_set(mut self, tools: Arc<dyn ToolSet>) -> Self {
        self.catalog.add_tool_set(tools);
        self
    }

    /// Authenticates this catalog's requests with `authenticator`, before the server's own.
    pub fn authenticator(mut self, authenticator: impl Authenticator) -> Self {
        self.catalog.add_authenticator(authenticator);
        self
    }

    /// Whether this catalog lists `describe_tools` in `all` mode when tools are summarised
    /// (see [`ServerBuilder::describe_tools`](crate::server::ServerBuilder::describe_tools)).
    pub fn describe_tools(mut self, on: bool) -> Self {
        self.catalog.set_describe_tools(on);
        self
    }

    #[cfg(feature = "search")]
    /// Sets what this catalog's `tools/list` shows (default [`ToolMode::All`]).
    pub fn tool_mode(mut self, mode: ToolMode) -> Self {
        self.catalog.set_tool_mode(mode);
        self
    }

    #[cfg(feature = "search")]
    /// Names tools listed directly in search mode (see
    /// [`ServerBuilder::pinned`](crate::server::ServerBuilder::pinned)).
    pub fn pinned(mut self, names: Vec<String>) -> Self {
        self.catalog.set_pinned(names);
        self
    }
}

/// Why `name` cannot name a catalog, if it cannot.
pub(crate) fn name_problem(name: &str) -> Option<&'static str> {
    if name.is_empty() {
        return Some("the name is empty");
    }
    if name.len() > MAX_CATALOG_NAME_LEN {
        return Some("the name is longer than 64 characters");
    }
    if !name
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    {
        return Some(
            "a catalog name is a path segment: use only ASCII letters, digits, `_` and `-`",
        );
    }
    if RESERVED_NAMES.contains(&name) {
        return Some("the path `/mcp/server-card` serves the server card");
    }
    None
}

/// The authenticators of a mount: its own first, then the server's.
pub(crate) fn mount_auth(own: Option<AuthChain>, server: Option<&AuthChain>) -> Option<AuthChain> {
    match (own, server) {
        (None, None) => None,
        (Some(own), None) => Some(own),
        (None, Some(server)) => Some(server.clone()),
        (Some(own), Some(server)) => Some(own.with(server.clone())),
    }
}

#[cfg(test)]
mod tests {
    use super::name_problem;

    #[test]
    fn catalog_names_are_path_segments() {
        for good in ["a", "room_1", "Team-B", &"x".repeat(64)] {
            assert_eq!(name_problem(good), None, "{good}");
        }
        for bad in ["", "a/b", "..", "a b", "ä", "server-card", &"x".repeat(65)] {
            assert!(name_problem(bad).is_some(), "{bad:?}");
        }
    }
}
