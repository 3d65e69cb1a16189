//! What a room file holds: `<rooms-dir>/<name>.yaml`.
//!
//! ```yaml
//! name: support
//! description: Customer support desk
//! tools:
//!   - name: lookup_order
//!     description: Find an order by its number
//!     command: orders lookup
//! prompts:
//!   - name: greeting
//!     description: How to open a conversation
//!     text: Greet the customer by name.
//! secrets:
//!   - name: crm_token
//!     env: SUPPORT_CRM_TOKEN
//! mcp_servers:
//!   - name: tickets
//!     url: https://tickets.example.com/mcp
//!     enabled: true
//! ```

use mcpgen::schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Longest room, tool, prompt, secret or server name.
pub const MAX_NAME_LEN: usize = 64;

/// Whether `name` can name a room (it is also a file name and the path `/mcp/<name>`) or an
/// item in a room: 1 to 64 ASCII letters, digits, `_` or `-`.
pub fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_NAME_LEN
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// A room: a configuration unit with its own tools, prompts, secrets and MCP servers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(crate = "mcpgen::schemars")]
pub struct Room {
    /// The room's name; also its file name and its catalog path `/mcp/<name>`.
    pub name: String,
    /// What the room is for.
    #[serde(default)]
    pub description: String,
    /// Tools the room offers.
    #[serde(default)]
    pub tools: Vec<RoomTool>,
    /// Prompts kept in the room.
    #[serde(default)]
    pub prompts: Vec<Prompt>,
    /// Secrets the room needs, by the environment variable holding each.
    #[serde(default)]
    pub secrets: Vec<Secret>,
    /// MCP servers the room connects to.
    #[serde(default)]
    pub mcp_servers: Vec<McpServer>,
}

impl Room {
    /// An empty room.
    pub fn new(name: impl Into<String>, description: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            description: description.into(),
            tools: Vec::new(),
            prompts: Vec::new(),
            secrets: Vec::new(),
            mcp_servers: Vec::new(),
        }
    }
}

/// A tool a room offers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(crate = "mcpgen::schemars")]
pub struct RoomTool {
    /// The tool's name, unique in the room.
    pub name: String,
    /// What the tool does.
    pub description: String,
    /// The command that runs it, if it runs one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
}

/// A prompt kept in a room.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(crate = "mcpgen::schemars")]
pub struct Prompt {
    /// The prompt's name, unique in the room.
    pub name: String,
    /// What the prompt is for.
    #[serde(default)]
    pub description: String,
    /// The prompt's text.
    pub text: String,
}

/// A secret a room needs. Only the environment variable's name is stored, never a value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(crate = "mcpgen::schemars")]
pub struct Secret {
    /// The secret's name, unique in the room.
    pub name: String,
    /// The environment variable holding the value.
    pub env: String,
}

impl Secret {
    /// Whether the environment variable is set to a non-empty value.
    pub fn resolved(&self) -> bool {
        std::env::var_os(&self.env).is_some_and(|v| !v.is_empty())
    }
}

/// An MCP server reached over Streamable HTTP.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(crate = "mcpgen::schemars")]
pub struct McpServer {
    /// The server's name, unique in the room.
    pub name: String,
    /// Its Streamable HTTP endpoint.
    pub url: String,
    /// Whether the room uses it.
    #[serde(default = "enabled")]
    pub enabled: bool,
}

fn enabled() -> bool {
    true
}
