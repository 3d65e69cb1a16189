//! Prompts and resources next to tools: a prompt with a completed argument, a fixed resource, a
//! resource template and subscriptions, served over stdio. The book's "Prompts and resources"
//! page shows this file.

use mcpgen::Principal;
use mcpgen::server::Server;
// ANCHOR: sets
use mcpgen::{Completer, Prompt, PromptArgument, PromptMessage, PromptSet};
use mcpgen::{Resource, ResourceContents, ResourceSet, ResourceTemplate};

/// A prompt whose `topic` argument completes from a list of values.
fn prompts() -> PromptSet {
    PromptSet::new().prompt(
        Prompt::new("summarize", |args| async move {
            let topic = args.get("topic").unwrap_or_default();
            Ok(vec![PromptMessage::user_text(format!(
                "Summarize {topic}."
            ))])
        })
        .argument(
            PromptArgument::new("topic")
                .required()
                .complete(Completer::from_values(["rust", "mcp"])),
        ),
    )
}

/// A fixed resource and a template whose `{id}` is one path segment; clients may subscribe.
fn resources() -> ResourceSet {
    ResourceSet::new()
        .resource(Resource::text(
            "notes://readme",
            "readme",
            "Notes for the team.",
        ))
        .template(ResourceTemplate::new(
            "notes://note/{id}",
            "note",
            |read| async move {
                let id = read.get("id").unwrap_or_default();
                Ok(vec![ResourceContents::text(
                    read.uri.clone(),
                    format!("Note {id}"),
                )])
            },
        ))
        .subscriptions()
}
// ANCHOR_END: sets

// ANCHOR: main
#[mcpgen::tokio::main(crate = "mcpgen::tokio")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let resources = resources();
    // `updates.updated("notes://readme").await` notifies the clients watching it.
    let _updates = resources.updates();
    let server = Server::builder("notes", "1.0.0")
        .prompts(prompts())
        .resources(resources)
        .no_auth()
        .build()?;
    server.serve_stdio(Principal::unrestricted("local")).await?;
    Ok(())
}
// ANCHOR_END: main
