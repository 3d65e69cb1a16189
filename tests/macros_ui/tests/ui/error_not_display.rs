use mcpgen::mcp_tool;

#[derive(Debug)]
struct Busy;

/// Books a room.
#[mcp_tool]
fn book() -> Result<String, Busy> {
    Err(Busy)
}

fn main() {}
