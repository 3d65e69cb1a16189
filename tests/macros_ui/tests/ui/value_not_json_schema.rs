use mcpgen::mcp_tool;

#[derive(serde::Serialize)]
struct Room {
    name: String,
}

/// The room everyone starts in.
#[mcp_tool(read_only)]
fn lobby() -> Room {
    Room { name: "lobby".to_owned() }
}

fn main() {}
