//! The typed results of the room tools; their JSON Schemas are the tools' `outputSchema`s.

use mcpgen::schemars::JsonSchema;
use serde::Serialize;

/// The rooms of the directory.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[schemars(crate = "mcpgen::schemars")]
pub struct RoomListResult {
    /// One summary per room, sorted by name.
    pub rooms: Vec<RoomSummary>,
    /// How many rooms there are.
    pub count: usize,
}

/// What a room holds, counted.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[schemars(crate = "mcpgen::schemars")]
pub struct RoomSummary {
    /// The room's name.
    pub name: String,
    /// What the room is for.
    pub description: String,
    /// How many tools it offers.
    pub tools: usize,
    /// How many prompts it keeps.
    pub prompts: usize,
    /// How many secrets it needs.
    pub secrets: usize,
    /// How many MCP servers it connects to (enabled or not).
    pub mcp_servers: usize,
}

/// The outcome of a change or a check.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[schemars(crate = "mcpgen::schemars")]
pub struct StatusResult {
    /// `ok`, or what went wrong in a word (`missing`, `unresolved`).
    pub status: String,
    /// What happened, in a sentence.
    pub message: String,
    /// Why the check failed, when it did.
    pub error: Option<String>,
}

impl StatusResult {
    /// A success saying `message`.
    pub fn ok(message: impl Into<String>) -> Self {
        Self {
            status: "ok".to_owned(),
            message: message.into(),
            error: None,
        }
    }
}

/// A secret's name and whether it is available; never its value.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[schemars(crate = "mcpgen::schemars")]
pub struct SecretStatus {
    /// The secret's name.
    pub name: String,
    /// The environment variable holding it.
    pub env: String,
    /// Whether the variable is set to a non-empty value.
    pub resolved: bool,
}

/// The secrets a room needs.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[schemars(crate = "mcpgen::schemars")]
pub struct SecretListResult {
    /// The room.
    pub room: String,
    /// One entry per secret.
    pub secrets: Vec<SecretStatus>,
    /// How many secrets there are.
    pub count: usize,
}

/// A prompt's name and purpose.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[schemars(crate = "mcpgen::schemars")]
pub struct PromptSummary {
    /// The prompt's name.
    pub name: String,
    /// What it is for.
    pub description: String,
}

/// The prompts of a room.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[schemars(crate = "mcpgen::schemars")]
pub struct PromptListResult {
    /// The room.
    pub room: String,
    /// One entry per prompt.
    pub prompts: Vec<PromptSummary>,
    /// How many prompts there are.
    pub count: usize,
}

/// One prompt in full.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[schemars(crate = "mcpgen::schemars")]
pub struct PromptResult {
    /// The room.
    pub room: String,
    /// The prompt's name.
    pub name: String,
    /// What it is for.
    pub description: String,
    /// Its text.
    pub text: String,
}
