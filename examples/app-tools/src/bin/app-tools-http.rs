//! An application's own functions as MCP tools, served over Streamable HTTP: the `http`
//! feature of `mcpgen`. The book's "Tools in application code" page shows this file, and
//! `tests/tests/app_crate.rs` starts it and calls its tool with the official Python client.
//!
//! `app-tools-http [ADDR]` listens on `ADDR` (default `127.0.0.1:8080`) and serves MCP at
//! `/mcp`, without authentication: it refuses an address other machines can reach.

// ANCHOR: http
use mcpgen::prelude::*;
use mcpgen::server::Server;

/// The two numbers to add: the tool's arguments are this struct's fields.
#[derive(serde::Deserialize, JsonSchema)]
struct AddArgs {
    /// The first term.
    a: i64,
    /// The second term.
    b: i64,
}

/// Adds two numbers: `{"a": 2, "b": 40}`.
#[mcp_tool(read_only)]
fn add(Args(args): Args<AddArgs>) -> i64 {
    args.a + args.b
}

#[mcpgen::tokio::main(crate = "mcpgen::tokio")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let listen: std::net::SocketAddr = std::env::args()
        .nth(1)
        .as_deref()
        .unwrap_or("127.0.0.1:8080")
        .parse()?;
    let server = Server::builder("adder", "1.0.0")
        .tool_set(tool_set![add])
        .no_auth()
        .build()?;
    // Serves until the process is stopped; pass any future to end it gracefully.
    server.serve_http(listen, std::future::pending()).await?;
    Ok(())
}
// ANCHOR_END: http
