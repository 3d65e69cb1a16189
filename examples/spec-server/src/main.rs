//! The library API's MCP server: the command line of a generated server (`--help` lists every
//! flag) over the tools `generate!` included.

// ANCHOR: main
fn main() -> std::process::ExitCode {
    use spec_server::tools;
    mcpgen::cli::main(
        mcpgen::cli::App {
            name: tools::SERVER_NAME,
            version: tools::SERVER_VERSION,
            description: tools::SERVER_DESCRIPTION,
            title: tools::API_TITLE,
            default_upstream_url: tools::DEFAULT_UPSTREAM_URL,
            security_schemes: tools::SECURITY_SCHEMES,
        },
        tools::tool_set,
    )
}
// ANCHOR_END: main
