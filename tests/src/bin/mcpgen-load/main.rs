//! The load-and-fault driver of `scripts/load.sh`: a controllable stand-in for the Synaplan API
//! (`upstream`) and a closed-loop MCP client swarm (`run`) that records every call's outcome,
//! runs fault commands at set points of the run, and reports counts, latency and the outcome of
//! each fault window. See `LOAD.md` for what the script makes of it.

mod run;
mod upstream;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "mcpgen-load",
    about = "Load and fault driver for scripts/load.sh"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Serve the Synaplan prompts endpoint, switchable between answering, hanging and 500.
    Upstream(upstream::Args),
    /// Run the client swarm against an MCP endpoint.
    Run(run::Args),
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("mcpgen-load: cannot start the async runtime: {error}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let outcome = runtime.block_on(async {
        match cli.command {
            Command::Upstream(args) => upstream::serve(args).await,
            Command::Run(args) => run::run(args).await,
        }
    });
    match outcome {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("mcpgen-load: {message}");
            std::process::ExitCode::FAILURE
        }
    }
}
