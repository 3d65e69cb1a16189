//! `mcpgen`: generate typed MCP tool crates from OpenAPI documents and reviewed allowlists.

use std::process::ExitCode;

use clap::{CommandFactory, Parser};

mod args;
mod ask;
mod bundle;
mod client_cmd;
mod diff_cmd;
mod fetch;
mod generate;
mod init_list;
mod reference;
mod serving;
mod sizes;
mod specs;
mod table;
mod token;

use args::{Cli, Command, GenerateArgs, TokenCommand};

/// The allocator: generation makes and drops many small values (JSON nodes, tokens, syntax
/// trees, strings), for which mimalloc is much faster than the system allocator.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    // Code mode's workers are this binary started again: they serve before anything else.
    #[cfg(feature = "code-mode")]
    mcpgen_runtime::code::run_worker_if_asked();
    let cli = Cli::parse();
    mcpgen_codegen::progress::enable();
    let result = match cli
        .command
        .unwrap_or(Command::Generate(GenerateArgs::default()))
    {
        Command::Generate(args) => generate::generate(args),
        Command::Init(args) => init_list::init(args),
        Command::List(args) => init_list::list(args),
        Command::Check(args) => generate::check(args),
        Command::Token(TokenCommand::Issue(args)) => token::token_issue(args),
        Command::Tools(args) => client_cmd::tools(args),
        Command::Call(args) => client_cmd::call(args),
        Command::Sizes(args) => sizes::sizes(args),
        Command::Diff(args) => diff_cmd::diff_cmd(args),
        Command::Reference => {
            print!("{}", reference_page());
            Ok(())
        }
        Command::Bundle(args) => bundle::bundle(args),
        Command::Mock(args) => serving::mock::mock(args),
        Command::Serve(args) => return serving::serve::serve(*args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            if !message.is_empty() {
                eprintln!("{message}");
            }
            ExitCode::FAILURE
        }
    }
}

/// The book's page of `mcpgen`'s flags.
fn reference_page() -> String {
    // `serve` takes every flag of a generated server: the server's own page lists them.
    let server_flags: Vec<String> = mcpgen_runtime::cli::ServeArgs::command()
        .get_arguments()
        .map(|arg| arg.get_id().to_string())
        .collect();
    let command = Cli::command().mut_subcommand("serve", |serve| {
        server_flags
            .iter()
            .fold(serve, |serve, id| serve.mut_arg(id, |arg| arg.hide(true)))
    });
    reference::markdown(
        &command,
        "`mcpgen` commands and flags",
        "Every command and flag of `mcpgen`, with the environment variable that sets it where \
         there is one (a flag given on the command line wins). `mcpgen <command> --help` prints \
         the same text.",
        &[],
    )
}
