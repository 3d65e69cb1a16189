use mcpgen::mcp_tool;

/// Looks a room up.
#[mcp_tool(read_only, ui = "grid")]
fn room(id: u32) -> String {
    id.to_string()
}

fn main() {}
