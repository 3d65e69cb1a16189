use mcpgen::{mcp_tool, tool_set};

/// Lists rooms.
#[mcp_tool(read_only)]
fn list_rooms() -> Vec<String> {
    Vec::new()
}

/// Lists rooms, the old way.
#[mcp_tool(name = "list_rooms", read_only)]
fn list_rooms_v1() -> Vec<String> {
    Vec::new()
}

fn main() {
    let _set = tool_set![list_rooms, list_rooms_v1];
}
