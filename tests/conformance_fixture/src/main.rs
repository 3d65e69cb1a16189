//! `mcpgen-conformance-fixture`: the tools, prompts and resources the official MCP conformance
//! suite (`@modelcontextprotocol/conformance`) calls in its server scenarios, written with
//! `#[mcp_tool]` and the runtime's prompt and resource sets, and served with the same flags as
//! a generated server (`--transport http --listen ADDR --no-auth`, …).
//! `tests/tests/conformance.rs` runs the suite against it; `tests/conformance/fixture-*.yml`
//! list, each with its reason, the scenarios it is not expected to pass.

mod asking;
mod headers;
mod prompts;
mod resources;
mod tasks;
mod tools;

use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches};
use mcpgen::Principal;
use mcpgen::cli::{self, App, ServeArgs, Transport};
use mcpgen::server::shutdown_signal;

const APP: App = App {
    name: "mcpgen-conformance-fixture",
    version: env!("CARGO_PKG_VERSION"),
    description: "the tools, prompts and resources of the MCP conformance suite's server scenarios",
    title: "MCP conformance fixture",
    default_upstream_url: None,
    security_schemes: &[],
};

fn main() -> ExitCode {
    let command = ServeArgs::command()
        .name(APP.name)
        .version(APP.version)
        .about(format!("{}: {}", APP.title, APP.description));
    let args = match ServeArgs::from_arg_matches(&command.get_matches()) {
        Ok(args) => args,
        Err(e) => e.exit(),
    };
    cli::block_on_main(run(args))
}

async fn run(args: ServeArgs) -> Result<(), String> {
    let server = tasks::declare(cli::server_builder(&APP, &args, tools::all())?)
        .prompts(prompts::all())
        .resources(resources::all())
        .build()
        .map_err(|e| e.to_string())?;
    match args.transport {
        Transport::Http => server
            .serve_http(args.listen, shutdown_signal())
            .await
            .map_err(|e| e.to_string()),
        // The stdio caller is the local user; with keys configured, use HTTP, where each
        // request carries its credential.
        Transport::Stdio if args.no_auth => server
            .serve_stdio(Principal::unrestricted("local"))
            .await
            .map_err(|e| e.to_string()),
        Transport::Stdio => {
            Err("the fixture serves stdio only with --no-auth; use --transport http".into())
        }
    }
}
