//! [`ToolNames`]: tool names mapped to names the providers accept, and back (see the
//! [module documentation](super)).

use std::collections::{BTreeMap, BTreeSet};

use sha2::{Digest, Sha256};

use super::definition::ToolDefinition;

/// The longest tool name the providers accept.
pub const MAX_PROVIDER_NAME_LEN: usize = 64;

/// The two-way mapping between tool names and the names sent to a model provider.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolNames {
    to_provider: BTreeMap<String, String>,
    to_tool: BTreeMap<String, String>,
}

fn fits(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_PROVIDER_NAME_LEN
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

fn hashed(original: &str, base: &str) -> String {
    let digest = Sha256::digest(original.as_bytes());
    let hex = hex::encode(&digest[..4]);
    let cut: String = base.chars().take(MAX_PROVIDER_NAME_LEN - 9).collect();
    if cut.is_empty() {
        format!("tool_{hex}")
    } else {
        format!("{cut}_{hex}")
    }
}

impl ToolNames {
    /// The mapping for these tool names.
    pub fn new<'a>(names: impl IntoIterator<Item = &'a str>) -> Self {
        let names: BTreeSet<&str> = names.into_iter().collect();
        let mut out = Self::default();
        // Names that fit keep themselves; they are reserved first so a mapped name never
        // takes one.
        for name in names.iter().filter(|n| fits(n)) {
            out.insert(name, (*name).to_owned());
        }
        for name in names.iter().filter(|n| !fits(n)) {
            let replaced: String = name
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                        c
                    } else {
                        '_'
                    }
                })
                .collect();
            let mut candidate = replaced.clone();
            if !fits(&candidate) || out.to_tool.contains_key(&candidate) {
                candidate = hashed(name, &replaced);
            }
            // Two different names with the same 32-bit hash prefix and the same 55-character
            // stem: extend until unique.
            let mut n = 2;
            while out.to_tool.contains_key(&candidate) {
                candidate = hashed(&format!("{name}#{n}"), &replaced);
                n += 1;
            }
            out.insert(name, candidate);
        }
        out
    }

    /// The mapping for these definitions' names.
    pub fn for_tools(tools: &[ToolDefinition]) -> Self {
        Self::new(tools.iter().map(|t| t.name.as_str()))
    }

    fn insert(&mut self, tool: &str, provider: String) {
        self.to_tool.insert(provider.clone(), tool.to_owned());
        self.to_provider.insert(tool.to_owned(), provider);
    }

    /// The name to send to the provider for `tool` (the tool's own name if it is not mapped).
    pub fn provider_name<'a>(&'a self, tool: &'a str) -> &'a str {
        self.to_provider.get(tool).map_or(tool, String::as_str)
    }

    /// The tool a provider's name stands for (the name itself if it is not mapped).
    pub fn tool_name<'a>(&'a self, provider: &'a str) -> &'a str {
        self.to_tool.get(provider).map_or(provider, String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_providers_reject_are_mapped_and_mapped_back() {
        let long = "a".repeat(70);
        let names = ToolNames::new(["files.read", "files_read", "ok-name", long.as_str(), "é"]);
        assert_eq!(names.provider_name("ok-name"), "ok-name");
        // `files_read` fits and keeps its name; `files.read` would map onto it, so it is
        // hashed.
        assert_eq!(names.provider_name("files_read"), "files_read");
        let dotted = names.provider_name("files.read");
        assert!(dotted.starts_with("files_read_") && dotted.len() == "files_read_".len() + 8);
        let long_mapped = names.provider_name(&long);
        assert_eq!(long_mapped.len(), 64);
        let accented = names.provider_name("é");
        assert!(accented == "_", "got {accented}");
        for original in ["files.read", "files_read", "ok-name", long.as_str(), "é"] {
            let provider = names.provider_name(original);
            assert!(fits(provider), "{provider} must fit the providers' pattern");
            assert_eq!(names.tool_name(provider), original);
        }
        // Order does not matter.
        let reversed = ToolNames::new(["é", long.as_str(), "ok-name", "files_read", "files.read"]);
        assert_eq!(names, reversed);
        // Unknown names pass through.
        assert_eq!(names.tool_name("other"), "other");
    }
}
