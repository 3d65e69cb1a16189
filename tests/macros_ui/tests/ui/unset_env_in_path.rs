mcpgen::generate!(
    spec = "${MCPGEN_NO_SUCH_VARIABLE}/openapi.yaml",
    tools = "${MCPGEN_REPO}/specs/synaplan/mcp_tools.yaml",
);

fn main() {}
