//! Who is calling, and what they may call.

use mcpgen_core::tool::{Access, ToolDef};

/// An authenticated caller: the identity auth puts into request extensions.
#[derive(Debug, Clone, PartialEq)]
pub struct Principal {
    /// Principal id (e.g. a user or service name).
    pub id: String,
    /// Id of the key or token that authenticated it, for audit records.
    pub key_id: Option<String>,
    /// Scopes: `mcp:*`, `mcp:read`, `mcp:write`, `mcp:tool:<name>`, or per-tool scopes.
    pub scopes: Vec<String>,
    /// Plugins whose tools this principal may see (`*` for all).
    pub plugins: Vec<String>,
    /// Per-principal rate limit in calls per second, overriding the server default.
    pub rate_limit: Option<f64>,
}

impl Principal {
    /// A principal that may call everything (auth switched off with `--no-auth`).
    pub fn unrestricted(id: impl Into<String>) -> Self {
        Self {
            id: id.into(),
            key_id: None,
            scopes: vec!["mcp:*".to_owned()],
            plugins: vec!["*".to_owned()],
            rate_limit: None,
        }
    }

    fn has_scope(&self, scope: &str) -> bool {
        self.scopes.iter().any(|s| s == scope)
    }

    /// Whether this principal may see and call `tool`:
    /// - a plugin tool needs the plugin (or `*`);
    /// - a tool with a required scope needs that scope, `mcp:tool:<name>` or `mcp:*`;
    /// - otherwise `mcp:*`, `mcp:tool:<name>`, or `mcp:read` for tools whose
    ///   [`access`](ToolDef::access) is [`Access::Read`] and `mcp:write` for [`Access::Write`].
    ///
    /// Annotations are hints for clients and play no part: a write tool that claims
    /// `readOnlyHint` still needs `mcp:write`.
    pub fn may_call(&self, tool: &ToolDef) -> bool {
        if let Some(plugin) = tool.plugin
            && !self.plugins.iter().any(|p| p == "*" || p == plugin)
        {
            return false;
        }
        let all = self.has_scope("mcp:*");
        // `mcp:tool:<name>`, compared without building the scope's text for every call.
        let named = self
            .scopes
            .iter()
            .any(|s| s.strip_prefix("mcp:tool:") == Some(tool.name));
        if let Some(required) = tool.required_scope {
            return all || named || self.has_scope(required);
        }
        let scope = match tool.access {
            Access::Read => "mcp:read",
            Access::Write => "mcp:write",
        };
        all || named || self.has_scope(scope)
    }
}
