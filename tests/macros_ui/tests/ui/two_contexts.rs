use mcpgen::mcp_tool;
use mcpgen::ToolContext;

/// Says which request this is.
#[mcp_tool(read_only)]
async fn whoami(ctx: ToolContext, again: &ToolContext) -> String {
    format!("{:?} {:?}", ctx.request_id(), again.request_id())
}

fn main() {}
