use mcpgen::mcp_tool;

/// Says hello.
#[mcp_tool(read_only, deny_unknown_arguments = "yes")]
fn hello(name: String) -> String {
    format!("hello {name}")
}

fn main() {}
