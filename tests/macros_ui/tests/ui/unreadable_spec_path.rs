mcpgen::generate!(
    spec = "specs/nowhere/openapi.yaml",
    tools = "${MCPGEN_REPO}/specs/synaplan/mcp_tools.yaml",
);

fn main() {}
