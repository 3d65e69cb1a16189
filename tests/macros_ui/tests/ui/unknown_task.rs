use mcpgen::mcp_tool;

/// Counts slowly.
#[mcp_tool(read_only, task = "always")]
async fn count(to: u32) -> String {
    to.to_string()
}

fn main() {}
