//! An application's own functions as MCP tools, served over stdio. The book's "Tools in
//! application code" page shows this file, and `tests/tests/app_crate.rs` builds it as a crate
//! outside the workspace that depends on `mcpgen` alone.

// ANCHOR: imports
use mcpgen::Principal;
use mcpgen::prelude::*;
use mcpgen::server::Server;
// ANCHOR_END: imports

// ANCHOR: tool
/// A room and how many people are in it.
#[derive(serde::Serialize, JsonSchema)]
struct Room {
    name: String,
    people: u32,
}

/// Lists the rooms whose name contains `filter`.
#[mcp_tool(read_only)]
async fn list_rooms(
    /// Part of the room name to look for.
    filter: Option<String>,
) -> Result<Vec<Room>, String> {
    let rooms = vec![Room {
        name: "lobby".into(),
        people: 3,
    }];
    Ok(rooms
        .into_iter()
        .filter(|r| filter.as_deref().is_none_or(|f| r.name.contains(f)))
        .collect())
}
// ANCHOR_END: tool

// ANCHOR: derive_paths
/// The derive named by its path, with nothing imported.
mod booking {
    /// A booking of a room.
    #[derive(serde::Deserialize, mcpgen::schemars::JsonSchema)]
    pub struct Booking {
        /// The room's name.
        pub room: String,
        /// How many hours.
        pub hours: u32,
    }
}

/// Only the trait and its derive imported: `mcpgen::schemars::JsonSchema` names its crate
/// itself, so no `schemars` needs to be in scope.
mod slot {
    use mcpgen::schemars::JsonSchema;

    /// When a booking starts.
    #[derive(serde::Deserialize, JsonSchema)]
    pub struct Slot {
        /// Start, `HH:MM`.
        pub from: String,
    }
}

/// Books a room from a time of day.
#[mcp_tool]
fn book_room(booking: booking::Booking, slot: slot::Slot) -> String {
    format!(
        "{} booked for {} hours from {}",
        booking.room, booking.hours, slot.from
    )
}
// ANCHOR_END: derive_paths

// ANCHOR: state
/// A counter shared by its tools.
struct Counter {
    start: u32,
}

#[mcp_tools]
impl Counter {
    /// Adds `n` to the counter's start.
    #[mcp_tool(read_only)]
    fn add(&self, n: u32) -> u32 {
        self.start + n
    }
}
// ANCHOR_END: state

// ANCHOR: main
#[mcpgen::tokio::main(crate = "mcpgen::tokio")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = Server::builder("rooms", "1.0.0")
        .tool_set(tool_set![list_rooms, book_room])
        .tool_set(Counter { start: 40 }.into_tool_set())
        .no_auth()
        .build()?;
    server.serve_stdio(Principal::unrestricted("local")).await?;
    Ok(())
}
// ANCHOR_END: main
