//! The MCP tools over the room files, written with `#[mcp_tool]`.
//!
//! One [`RoomTools`] value serves one catalog: [`RoomTools::all`] every room (at `/mcp`,
//! where each tool names its room), [`RoomTools::only`] one room (at `/mcp/<room>`, where
//! `room` may be left out and naming another room is an error).

use std::sync::Arc;

use mcpgen::mcp_tools;

use crate::model::{McpServer, Prompt, Room, RoomTool, valid_name};
use crate::results::{
    PromptListResult, PromptResult, PromptSummary, RoomListResult, RoomSummary, SecretListResult,
    SecretStatus, StatusResult,
};
use crate::store::{RoomStore, StoreError};

/// Why a room tool failed; the text is the `isError` result the caller sees.
#[derive(Debug, thiserror::Error)]
pub enum RoomError {
    /// The room files could not be read or written.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// At `/mcp`, a room-specific tool was called without `room`.
    #[error("name the room (`room`): this catalog serves every room")]
    NoRoom,
    /// At `/mcp/<room>`, a tool named another room.
    #[error(
        "this catalog serves room `{served}` only; call /mcp/{asked} with a token for `{asked}`"
    )]
    OtherRoom {
        /// The room asked for.
        asked: String,
        /// The room this catalog serves.
        served: String,
    },
    /// `create_room` was called in a room's catalog.
    #[error("rooms are created at /mcp, the catalog of every room, not inside room `{0}`")]
    CreateInRoom(String),
    /// `delete_room` was called in a room's catalog.
    #[error("rooms are deleted at /mcp, the catalog of every room, not inside room `{0}`")]
    DeleteInRoom(String),
    /// A room was created but its catalog cannot be served (the room is not kept).
    #[error("room `{room}` cannot be served, so it was not created: {reason}")]
    NotServed {
        /// The room.
        room: String,
        /// Why its catalog cannot be served.
        reason: String,
    },
    /// An item name is not valid.
    #[error("`{name}` is not a valid {kind} name: use 1 to 64 ASCII letters, digits, `_` or `-`")]
    InvalidName {
        /// `tool`, `prompt`, …
        kind: &'static str,
        /// The name given.
        name: String,
    },
    /// An item of that name exists already.
    #[error("room `{room}` already has a {kind} named `{name}`")]
    Exists {
        /// The room.
        room: String,
        /// `tool`, `prompt`, …
        kind: &'static str,
        /// The name.
        name: String,
    },
    /// No item of that name.
    #[error("room `{room}` has no {kind} named `{name}`{}", list_known(.known))]
    Missing {
        /// The room.
        room: String,
        /// `tool`, `prompt`, …
        kind: &'static str,
        /// The name.
        name: String,
        /// The names the room does have.
        known: Vec<String>,
    },
    /// An MCP server URL is not `http://` or `https://`.
    #[error("`{0}` is not an http:// or https:// URL")]
    InvalidUrl(String),
}

fn list_known(known: &[String]) -> String {
    if known.is_empty() {
        String::new()
    } else {
        format!("; it has: {}", known.join(", "))
    }
}

fn checked_name(kind: &'static str, name: &str) -> Result<(), RoomError> {
    if valid_name(name) {
        Ok(())
    } else {
        Err(RoomError::InvalidName {
            kind,
            name: name.to_owned(),
        })
    }
}

/// The index of the item named `name`, or the error naming the ones there are.
fn position<T>(
    room: &Room,
    items: &[T],
    name_of: impl Fn(&T) -> &str,
    kind: &'static str,
    name: &str,
) -> Result<usize, RoomError> {
    items
        .iter()
        .position(|item| name_of(item) == name)
        .ok_or_else(|| RoomError::Missing {
            room: room.name.clone(),
            kind,
            name: name.to_owned(),
            known: items.iter().map(|i| name_of(i).to_owned()).collect(),
        })
}

/// What serves each room's catalog while the server runs: told when a room is created or
/// deleted, it mounts or unmounts the room's catalog (`/mcp/<room>`).
pub trait RoomCatalogs: Send + Sync + 'static {
    /// Starts serving room `room`'s catalog; the error says why it cannot.
    fn serve(&self, room: &str) -> Result<(), String>;
    /// Stops serving room `room`'s catalog.
    fn unserve(&self, room: &str);
}

/// The state of one catalog's room tools.
#[derive(Clone)]
pub struct RoomTools {
    store: Arc<RoomStore>,
    /// The room this catalog serves; `None` for the catalog of every room.
    only: Option<String>,
    /// Serves the catalogs of rooms created and deleted through the tools, if set.
    catalogs: Option<Arc<dyn RoomCatalogs>>,
}

impl std::fmt::Debug for RoomTools {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RoomTools")
            .field("dir", &self.store.dir())
            .field("only", &self.only)
            .field("catalogs", &self.catalogs.is_some())
            .finish()
    }
}

impl RoomTools {
    /// The tools of the catalog of every room (`/mcp`).
    pub fn all(store: Arc<RoomStore>) -> Self {
        Self {
            store,
            only: None,
            catalogs: None,
        }
    }

    /// The tools of room `room`'s catalog (`/mcp/<room>`).
    pub fn only(store: Arc<RoomStore>, room: impl Into<String>) -> Self {
        Self {
            store,
            only: Some(room.into()),
            catalogs: None,
        }
    }

    /// Serves each room created through `create_room` at once, and stops serving each room
    /// deleted through `delete_room`, through `catalogs`.
    pub fn with_catalogs(mut self, catalogs: Arc<dyn RoomCatalogs>) -> Self {
        self.catalogs = Some(catalogs);
        self
    }

    /// The room a call is about: the one it names, which must be this catalog's if it serves
    /// one room.
    fn room(&self, asked: Option<String>) -> Result<String, RoomError> {
        match (asked, &self.only) {
            (None, None) => Err(RoomError::NoRoom),
            (None, Some(served)) => Ok(served.clone()),
            (Some(asked), Some(served)) if asked != *served => Err(RoomError::OtherRoom {
                asked,
                served: served.clone(),
            }),
            (Some(asked), _) => Ok(asked),
        }
    }
}

#[mcp_tools]
impl RoomTools {
    /// Lists the rooms (in a room's catalog, only that room).
    #[mcp_tool(read_only, idempotent, title = "List rooms")]
    fn list_rooms(&self) -> Result<RoomListResult, RoomError> {
        let rooms = match &self.only {
            Some(room) => vec![self.store.load(room)?],
            None => self.store.list()?,
        };
        let rooms: Vec<RoomSummary> = rooms
            .into_iter()
            .map(|room| RoomSummary {
                tools: room.tools.len(),
                prompts: room.prompts.len(),
                secrets: room.secrets.len(),
                mcp_servers: room.mcp_servers.len(),
                name: room.name,
                description: room.description,
            })
            .collect();
        Ok(RoomListResult {
            count: rooms.len(),
            rooms,
        })
    }

    /// Shows everything a room holds: tools, prompts, secret names and MCP servers.
    #[mcp_tool(read_only, idempotent, title = "Inspect a room")]
    fn inspect_room(
        &self,
        /// The room (default: this catalog's room; required at /mcp).
        room: Option<String>,
    ) -> Result<Room, RoomError> {
        Ok(self.store.load(&self.room(room)?)?)
    }

    /// Creates an empty room (only in the catalog of every room, /mcp).
    #[mcp_tool(title = "Create a room")]
    fn create_room(
        &self,
        /// The new room's name: 1 to 64 ASCII letters, digits, `_` or `-`.
        name: String,
        /// What the room is for.
        #[serde(default)]
        description: String,
    ) -> Result<StatusResult, RoomError> {
        if let Some(served) = &self.only {
            return Err(RoomError::CreateInRoom(served.clone()));
        }
        self.store.create(&Room::new(name.clone(), description))?;
        let Some(catalogs) = &self.catalogs else {
            return Ok(StatusResult::ok(format!(
                "room `{name}` created; restart the server to serve it at /mcp/{name}"
            )));
        };
        if let Err(reason) = catalogs.serve(&name) {
            // Not served, so not kept: the room would be unreachable.
            self.store.delete(&name)?;
            return Err(RoomError::NotServed { room: name, reason });
        }
        Ok(StatusResult::ok(format!(
            "room `{name}` created and served at /mcp/{name}"
        )))
    }

    /// Deletes a room and stops serving it (only in the catalog of every room, /mcp). Calls
    /// in progress in its catalog finish; new requests there get 404.
    #[mcp_tool(destructive, title = "Delete a room")]
    fn delete_room(
        &self,
        /// The room to delete.
        name: String,
    ) -> Result<StatusResult, RoomError> {
        if let Some(served) = &self.only {
            return Err(RoomError::DeleteInRoom(served.clone()));
        }
        self.store.delete(&name)?;
        if let Some(catalogs) = &self.catalogs {
            catalogs.unserve(&name);
        }
        Ok(StatusResult::ok(format!("room `{name}` deleted")))
    }

    /// Changes a room's description.
    #[mcp_tool(idempotent, title = "Edit a room")]
    fn edit_room(
        &self,
        /// The room (default: this catalog's room; required at /mcp).
        room: Option<String>,
        /// The new description.
        description: String,
    ) -> Result<StatusResult, RoomError> {
        let room = self.room(room)?;
        self.store.update(&room, |r| {
            r.description = description;
            Ok::<_, RoomError>(())
        })?;
        Ok(StatusResult::ok(format!("room `{room}` updated")))
    }

    /// Adds a tool to a room.
    #[mcp_tool(title = "Add a tool")]
    fn add_tool(
        &self,
        /// The room (default: this catalog's room; required at /mcp).
        room: Option<String>,
        /// The tool's name, unique in the room.
        name: String,
        /// What the tool does.
        description: String,
        /// The command that runs it, if any.
        command: Option<String>,
    ) -> Result<StatusResult, RoomError> {
        checked_name("tool", &name)?;
        let room = self.room(room)?;
        self.store.update(&room, |r| {
            if r.tools.iter().any(|t| t.name == name) {
                return Err(RoomError::Exists {
                    room: r.name.clone(),
                    kind: "tool",
                    name: name.clone(),
                });
            }
            r.tools.push(RoomTool {
                name: name.clone(),
                description,
                command,
            });
            Ok(())
        })?;
        Ok(StatusResult::ok(format!(
            "tool `{name}` added to room `{room}`"
        )))
    }

    /// Removes a tool from a room.
    #[mcp_tool(destructive, idempotent, title = "Remove a tool")]
    fn remove_tool(
        &self,
        /// The room (default: this catalog's room; required at /mcp).
        room: Option<String>,
        /// The tool's name.
        name: String,
    ) -> Result<StatusResult, RoomError> {
        let room = self.room(room)?;
        self.store.update(&room, |r| {
            let at = position(r, &r.tools, |t| &t.name, "tool", &name)?;
            r.tools.remove(at);
            Ok::<_, RoomError>(())
        })?;
        Ok(StatusResult::ok(format!(
            "tool `{name}` removed from room `{room}`"
        )))
    }

    /// Lists a room's secrets: names, variables and whether each is set; never values.
    #[mcp_tool(read_only, idempotent, title = "List secrets")]
    fn list_secrets(
        &self,
        /// The room (default: this catalog's room; required at /mcp).
        room: Option<String>,
    ) -> Result<SecretListResult, RoomError> {
        let room = self.store.load(&self.room(room)?)?;
        let secrets: Vec<SecretStatus> = room
            .secrets
            .iter()
            .map(|s| SecretStatus {
                name: s.name.clone(),
                env: s.env.clone(),
                resolved: s.resolved(),
            })
            .collect();
        Ok(SecretListResult {
            room: room.name,
            count: secrets.len(),
            secrets,
        })
    }

    /// Checks that one of a room's secrets is available (its variable is set), without
    /// showing it.
    #[mcp_tool(read_only, idempotent, title = "Check a secret")]
    fn check_secret(
        &self,
        /// The room (default: this catalog's room; required at /mcp).
        room: Option<String>,
        /// The secret's name.
        name: String,
    ) -> Result<StatusResult, RoomError> {
        let room = self.store.load(&self.room(room)?)?;
        let at = position(&room, &room.secrets, |s| &s.name, "secret", &name)?;
        let secret = &room.secrets[at];
        Ok(if secret.resolved() {
            StatusResult::ok(format!("secret `{name}` is set (`{}`)", secret.env))
        } else {
            StatusResult {
                status: "unresolved".to_owned(),
                message: format!("secret `{name}` is not available"),
                error: Some(format!(
                    "environment variable `{}` is not set for the server",
                    secret.env
                )),
            }
        })
    }

    /// Lists a room's prompts.
    #[mcp_tool(read_only, idempotent, title = "List prompts")]
    fn list_prompts(
        &self,
        /// The room (default: this catalog's room; required at /mcp).
        room: Option<String>,
    ) -> Result<PromptListResult, RoomError> {
        let room = self.store.load(&self.room(room)?)?;
        let prompts: Vec<PromptSummary> = room
            .prompts
            .iter()
            .map(|p| PromptSummary {
                name: p.name.clone(),
                description: p.description.clone(),
            })
            .collect();
        Ok(PromptListResult {
            room: room.name,
            count: prompts.len(),
            prompts,
        })
    }

    /// Shows one prompt of a room in full.
    #[mcp_tool(read_only, idempotent, title = "Show a prompt")]
    fn show_prompt(
        &self,
        /// The room (default: this catalog's room; required at /mcp).
        room: Option<String>,
        /// The prompt's name.
        name: String,
    ) -> Result<PromptResult, RoomError> {
        let room = self.store.load(&self.room(room)?)?;
        let at = position(&room, &room.prompts, |p| &p.name, "prompt", &name)?;
        let prompt = room.prompts[at].clone();
        Ok(PromptResult {
            room: room.name,
            name: prompt.name,
            description: prompt.description,
            text: prompt.text,
        })
    }

    /// Adds a prompt to a room.
    #[mcp_tool(title = "Add a prompt")]
    fn add_prompt(
        &self,
        /// The room (default: this catalog's room; required at /mcp).
        room: Option<String>,
        /// The prompt's name, unique in the room.
        name: String,
        /// The prompt's text.
        text: String,
        /// What the prompt is for.
        #[serde(default)]
        description: String,
    ) -> Result<StatusResult, RoomError> {
        checked_name("prompt", &name)?;
        let room = self.room(room)?;
        self.store.update(&room, |r| {
            if r.prompts.iter().any(|p| p.name == name) {
                return Err(RoomError::Exists {
                    room: r.name.clone(),
                    kind: "prompt",
                    name: name.clone(),
                });
            }
            r.prompts.push(Prompt {
                name: name.clone(),
                description,
                text,
            });
            Ok(())
        })?;
        Ok(StatusResult::ok(format!(
            "prompt `{name}` added to room `{room}`"
        )))
    }

    /// Removes a prompt from a room.
    #[mcp_tool(destructive, idempotent, title = "Remove a prompt")]
    fn remove_prompt(
        &self,
        /// The room (default: this catalog's room; required at /mcp).
        room: Option<String>,
        /// The prompt's name.
        name: String,
    ) -> Result<StatusResult, RoomError> {
        let room = self.room(room)?;
        self.store.update(&room, |r| {
            let at = position(r, &r.prompts, |p| &p.name, "prompt", &name)?;
            r.prompts.remove(at);
            Ok::<_, RoomError>(())
        })?;
        Ok(StatusResult::ok(format!(
            "prompt `{name}` removed from room `{room}`"
        )))
    }

    /// Connects a room to an MCP server over Streamable HTTP (enabled).
    #[mcp_tool(title = "Add an MCP server")]
    fn add_mcp_http(
        &self,
        /// The room (default: this catalog's room; required at /mcp).
        room: Option<String>,
        /// The server's name, unique in the room.
        name: String,
        /// Its Streamable HTTP endpoint, `http://` or `https://`.
        url: String,
    ) -> Result<StatusResult, RoomError> {
        checked_name("MCP server", &name)?;
        if !(url.starts_with("https://") || url.starts_with("http://")) {
            return Err(RoomError::InvalidUrl(url));
        }
        let room = self.room(room)?;
        self.store.update(&room, |r| {
            if r.mcp_servers.iter().any(|s| s.name == name) {
                return Err(RoomError::Exists {
                    room: r.name.clone(),
                    kind: "MCP server",
                    name: name.clone(),
                });
            }
            r.mcp_servers.push(McpServer {
                name: name.clone(),
                url,
                enabled: true,
            });
            Ok(())
        })?;
        Ok(StatusResult::ok(format!(
            "MCP server `{name}` added to room `{room}`"
        )))
    }

    /// Enables or disables one of a room's MCP servers (without `enabled`: flips it).
    #[mcp_tool(title = "Toggle an MCP server")]
    fn toggle_mcp_server(
        &self,
        /// The room (default: this catalog's room; required at /mcp).
        room: Option<String>,
        /// The server's name.
        name: String,
        /// The state to set; left out, the current one is flipped.
        enabled: Option<bool>,
    ) -> Result<StatusResult, RoomError> {
        let room = self.room(room)?;
        let now = self.store.update(&room, |r| {
            let at = position(r, &r.mcp_servers, |s| &s.name, "MCP server", &name)?;
            let server = &mut r.mcp_servers[at];
            server.enabled = enabled.unwrap_or(!server.enabled);
            Ok::<_, RoomError>(server.enabled)
        })?;
        let state = if now { "enabled" } else { "disabled" };
        Ok(StatusResult::ok(format!(
            "MCP server `{name}` of room `{room}` is {state}"
        )))
    }
}
