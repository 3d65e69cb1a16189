use mcpgen::mcp_tool;

/// Greets someone.
#[mcp_tool]
fn greet(name: &str) -> String {
    format!("hello {name}")
}

fn main() {}
