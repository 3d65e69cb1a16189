//! Where a configuration comes from: the file `MCPGEN_MCP_CONFIG` names, the default file in
//! the home directory, or a string.

use std::path::{Path, PathBuf};

use super::error::ConfigError;
use super::model::McpConfig;
use super::parse::parse;

/// Environment variable naming the configuration file [`McpConfig::discover`] reads.
pub const CONFIG_ENV: &str = "MCPGEN_MCP_CONFIG";

impl McpConfig {
    /// Reads the file named by `MCPGEN_MCP_CONFIG`, else `~/.config/mcpgen/mcp_servers.json`.
    /// A missing default file is an empty configuration; a missing file named by the
    /// variable is an error.
    pub fn discover() -> Result<McpConfig, ConfigError> {
        let (path, required) = Self::discovered_path(&|name| std::env::var_os(name));
        match path {
            Some(path) if required || path.is_file() => Self::load(&path),
            _ => Ok(McpConfig::default()),
        }
    }

    /// `~/.config/mcpgen/mcp_servers.json`, if the home directory is known.
    pub fn default_path() -> Option<PathBuf> {
        Self::discovered_path(&|name| (name == "HOME").then(|| std::env::var_os("HOME"))?).0
    }

    /// The file [`Self::discover`] reads, and whether it must exist (it must when named by
    /// `MCPGEN_MCP_CONFIG`).
    fn discovered_path(
        var: &dyn Fn(&str) -> Option<std::ffi::OsString>,
    ) -> (Option<PathBuf>, bool) {
        if let Some(path) = var(CONFIG_ENV).filter(|p| !p.is_empty()) {
            return (Some(PathBuf::from(path)), true);
        }
        let home = var("HOME").filter(|h| !h.is_empty());
        (
            home.map(|h| PathBuf::from(h).join(".config/mcpgen/mcp_servers.json")),
            false,
        )
    }

    /// Reads and validates the configuration file at `path`.
    pub fn load(path: &Path) -> Result<McpConfig, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Io {
            path: path.to_owned(),
            source,
        })?;
        parse(&text, &path.display().to_string(), &|name| {
            std::env::var(name).ok()
        })
    }

    /// Parses and validates a configuration held in a string.
    pub fn from_json_str(text: &str) -> Result<McpConfig, ConfigError> {
        parse(text, "<string>", &|name| std::env::var(name).ok())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn discovery_prefers_the_variable_then_the_home_file() {
        let vars = |config: Option<&str>, home: Option<&str>| {
            let config = config.map(std::ffi::OsString::from);
            let home = home.map(std::ffi::OsString::from);
            move |name: &str| match name {
                CONFIG_ENV => config.clone(),
                "HOME" => home.clone(),
                _ => None,
            }
        };
        assert_eq!(
            McpConfig::discovered_path(&vars(Some("/etc/x.json"), Some("/home/u"))),
            (Some(PathBuf::from("/etc/x.json")), true)
        );
        assert_eq!(
            McpConfig::discovered_path(&vars(Some(""), Some("/home/u"))),
            (
                Some(PathBuf::from("/home/u/.config/mcpgen/mcp_servers.json")),
                false
            )
        );
        assert_eq!(McpConfig::discovered_path(&vars(None, None)), (None, false));
    }

    #[test]
    fn load_reads_a_file_and_names_a_missing_one() {
        let dir = std::env::temp_dir().join(format!("mcpgen-config-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).ok();
        let path = dir.join("servers.json");
        std::fs::write(&path, r#"{"mcpServers": {"a": {"command": "echo"}}}"#).ok();
        let config = McpConfig::load(&path).map_err(|e| e.to_string());
        assert_eq!(config.map(|c| c.servers.len()), Ok(1));
        let missing = McpConfig::load(&dir.join("nope.json"))
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(missing.contains("nope.json"), "{missing}");
        std::fs::remove_dir_all(&dir).ok();
    }
}
