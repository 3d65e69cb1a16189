mcpgen::generate!(
    spec = "specs/nowhere/openapi.yaml",
    tools = "../../../../specs/synaplan/mcp_tools.yaml",
);

fn main() {}
