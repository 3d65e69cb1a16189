//! `mcpgen serve`: the MCP server `generate` would write for a spec and an allowlist, made at
//! start-up from the same IR instead of generated and compiled. The engine builds the tool
//! table (`mcpgen_codegen::table`, the values the generated `src/tools.rs` declares) and the
//! runtime's command line serves it, with every flag of a generated server.

use std::process::ExitCode;

use mcpgen_codegen::Settings;
use mcpgen_codegen::emit::table::Table;
use mcpgen_runtime::cli::App;
use mcpgen_runtime::{OpenApiTools, ToolRate, Upstream};

use crate::args::ServeCommandArgs;
use crate::fetch;
use crate::specs::folder_name;

/// Runs `mcpgen serve` until the server stops.
pub(crate) fn serve(args: ServeCommandArgs) -> ExitCode {
    let table = match table(&args) {
        Ok(table) => table,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::FAILURE;
        }
    };
    let app = App {
        name: table.name,
        version: table.version,
        description: table.description,
        title: table.title,
        default_upstream_url: table.default_upstream_url,
        security_schemes: table.security_schemes,
    };
    mcpgen_runtime::cli::serve(app, args.server, move |upstream| tool_set(&table, upstream))
}

/// The table of `--spec` and `--tools`, selected as `generate` selects them (the server named
/// after the spec's folder unless the allowlist or `--name` says otherwise); warnings on stderr.
fn table(args: &ServeCommandArgs) -> Result<Table, String> {
    let input = fetch::resolve(&args.spec, &args.fetch)?;
    let mut settings = Settings::new();
    if let Some(name) = folder_name(input.path()) {
        settings = settings.with_default_name(name);
    }
    if let Some(name) = &args.name {
        settings = settings.with_name(name.clone());
    }
    if let Some(dir) = &args.plugins {
        settings = settings.with_plugins(dir.clone());
    }
    if let Some(profile) = args.profile {
        settings = settings.with_profile(profile);
    }
    let (table, warnings) = mcpgen_codegen::table(input.path(), &args.tools, &settings)
        .map_err(|e| format!("error: {e}"))?;
    for warning in &warnings {
        eprintln!("warning [{}]: {warning}", table.name);
    }
    eprintln!(
        "{}: {} tools from {}, {} warnings",
        table.name,
        table.tools.len(),
        input
            .label()
            .map_or_else(|| args.spec.display().to_string(), str::to_owned),
        warnings.len()
    );
    Ok(table)
}

/// The tools as a generated crate's `tool_set` makes them: the table, calling the API through
/// `upstream`, with the search index and the allowlist's per-tool rate limits.
fn tool_set(table: &Table, upstream: Upstream) -> OpenApiTools {
    let tools = OpenApiTools::new(table.tools, upstream).with_search_index(table.search_index);
    if table.rate_limits.is_empty() {
        return tools;
    }
    // Built once per process, like the rest of the table.
    let limits: Vec<ToolRate> = table
        .rate_limits
        .iter()
        .map(|&(tool, per_second, burst)| ToolRate::new(tool, per_second, burst))
        .collect();
    tools.with_rate_limits(Box::leak(limits.into_boxed_slice()))
}
