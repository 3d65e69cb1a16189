use mcpgen::mcp_tool;

#[derive(serde::Serialize)]
struct Room {
    name: String,
}

/// Looks a room up.
#[mcp_tool(read_only)]
fn room() -> Result<Room, String> {
    Ok(Room { name: "general".to_owned() })
}

fn main() {}
