use mcpgen::mcp_tool;

#[mcp_tool(read_only)]
fn ping() -> String {
    "pong".to_owned()
}

fn main() {}
