use mcpgen::prelude::*;
use mcpgen::Args;

#[derive(serde::Deserialize, JsonSchema)]
struct Terms {
    a: i64,
}

/// Adds.
#[mcp_tool(deny_unknown_arguments)]
fn add(Args(terms): Args<Terms>, b: i64) -> i64 {
    terms.a + b
}

fn main() {}
