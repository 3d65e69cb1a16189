//! `--oauth-scope-map FILE`: an identity provider's own scope names mapped onto mcpgen scopes.

use std::collections::BTreeMap;
use std::path::Path;

/// Maps an identity provider's scope names onto the scopes mcpgen authorizes with (`mcp:read`,
/// `mcp:write`, `mcp:*`, `mcp:tool:<name>` or a tool's own scope).
///
/// The file is YAML, one entry per provider scope, each naming one scope or a list:
///
/// ```yaml
/// files.read: mcp:read
/// files.admin: ["mcp:read", "mcp:write"]
/// ```
///
/// A token scope with no entry is kept as it is, so a provider that already issues `mcp:read`
/// needs no map.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScopeMap {
    map: BTreeMap<String, Vec<String>>,
}

#[derive(serde::Deserialize)]
#[serde(untagged)]
enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

impl ScopeMap {
    /// An empty map: every scope is kept as it is.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `provider_scope`, granting `scopes`.
    pub fn with(mut self, provider_scope: impl Into<String>, scopes: Vec<String>) -> Self {
        self.map.insert(provider_scope.into(), scopes);
        self
    }

    /// Reads the map in the file at `path`; errors name the file and, for YAML errors, the
    /// line.
    pub fn load(path: impl AsRef<Path>) -> Result<Self, String> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read the scope map {}: {e}", path.display()))?;
        Self::from_yaml(&text).map_err(|e| format!("scope map {}: {e}", path.display()))
    }

    /// Parses scope-map YAML.
    pub fn from_yaml(text: &str) -> Result<Self, String> {
        if text.trim().is_empty() {
            return Ok(Self::default());
        }
        let raw: BTreeMap<String, OneOrMany> = serde_saphyr::from_str(text).map_err(|e| {
            format!(
                "{}; expected `provider-scope: mcp:read` or `provider-scope: [mcp:read, mcp:write]` entries",
                e.without_snippet()
            )
        })?;
        let mut map = BTreeMap::new();
        for (from, to) in raw {
            let to = match to {
                OneOrMany::One(s) => vec![s],
                OneOrMany::Many(v) => v,
            };
            let to: Vec<String> = to
                .into_iter()
                .map(|s| s.trim().to_owned())
                .filter(|s| !s.is_empty())
                .collect();
            if to.is_empty() {
                return Err(format!(
                    "`{from}` maps to no scope; name at least one (e.g. `{from}: mcp:read`)"
                ));
            }
            map.insert(from.trim().to_owned(), to);
        }
        Ok(Self { map })
    }

    /// The mcpgen scopes the provider scopes `granted` stand for, without repeats.
    pub fn apply<'a>(&self, granted: impl IntoIterator<Item = &'a str>) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        let mut push = |s: &str| {
            if !out.iter().any(|have| have == s) {
                out.push(s.to_owned());
            }
        };
        for scope in granted {
            match self.map.get(scope) {
                Some(to) => to.iter().for_each(|s| push(s)),
                None => push(scope),
            }
        }
        out
    }

    /// The provider scope names a client should ask for to be granted `scope`: those mapped
    /// onto it, or `scope` itself when none is.
    pub fn provider_names(&self, scope: &str) -> Vec<String> {
        let names: Vec<String> = self
            .map
            .iter()
            .filter(|(_, to)| to.iter().any(|s| s == scope))
            .map(|(from, _)| from.clone())
            .collect();
        if names.is_empty() {
            vec![scope.to_owned()]
        } else {
            names
        }
    }
}

#[cfg(test)]
mod tests {
    use super::ScopeMap;

    #[test]
    fn provider_scopes_map_and_unknown_ones_stay() {
        let map = ScopeMap::from_yaml("files.read: mcp:read\nfiles.all: [mcp:read, mcp:write]\n")
            .unwrap_or_default();
        assert_eq!(
            map.apply(["files.all", "files.read", "mcp:tool:x"]),
            ["mcp:read", "mcp:write", "mcp:tool:x"]
        );
        assert_eq!(map.provider_names("mcp:write"), ["files.all"]);
        assert_eq!(map.provider_names("mcp:*"), ["mcp:*"]);
        assert!(ScopeMap::from_yaml("a: []").is_err());
        assert!(ScopeMap::from_yaml("- not a map").is_err());
    }
}
