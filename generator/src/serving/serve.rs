//! `mcpgen serve`: the MCP server `generate` would write for a spec and an allowlist, made at
//! start-up from the same IR instead of generated and compiled. The engine builds the tool
//! table (`mcpgen_codegen::table`, the values the generated `src/tools.rs` declares) and the
//! runtime's command line serves it, with every flag of a generated server. With `--watch`
//! the tools are built again on each edit and swapped in while serving (`super::watch`).

use std::path::PathBuf;
use std::process::ExitCode;

use mcpgen_codegen::Settings;
use mcpgen_codegen::emit::table::Table;
use mcpgen_codegen::profile::Profile;
use mcpgen_runtime::cli::App;
use mcpgen_runtime::{OpenApiTools, ToolRate, Upstream};

use super::watch;
use crate::args::ServeCommandArgs;
use crate::fetch::{self, FetchArgs};
use crate::specs::folder_name;

/// Runs `mcpgen serve` until the server stops.
pub(crate) fn serve(args: ServeCommandArgs) -> ExitCode {
    let source = Source::of(&args);
    // Looked at before the first build reads them, so an edit made meanwhile is not missed.
    let watched = args.watch.then(|| watch::Watched::new(&source));
    let table = match source.table() {
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
    let tools = move |upstream| tool_set(&table, upstream);
    let Some(watched) = watched else {
        return mcpgen_runtime::cli::serve(app, args.server, tools);
    };
    mcpgen_runtime::cli::serve_live(app, args.server, tools, move |server, upstream| {
        watched.start(source, server, upstream);
    })
}

/// Where the tools come from: the spec and allowlist flags of `mcpgen serve`.
#[derive(Clone)]
pub(super) struct Source {
    /// `--spec`: a file, or an `http(s)://` URL.
    pub(super) spec: PathBuf,
    fetch: FetchArgs,
    /// `--tools`.
    pub(super) tools: PathBuf,
    name: Option<String>,
    plugins: Option<PathBuf>,
    profile: Option<Profile>,
}

impl Source {
    fn of(args: &ServeCommandArgs) -> Self {
        Self {
            spec: args.spec.clone(),
            fetch: args.fetch.clone(),
            tools: args.tools.clone(),
            name: args.name.clone(),
            plugins: args.plugins.clone(),
            profile: args.profile,
        }
    }

    /// Whether `--spec` is a URL rather than a file.
    pub(super) fn spec_is_url(&self) -> bool {
        self.spec
            .to_str()
            .is_some_and(|s| s.starts_with("http://") || s.starts_with("https://"))
    }

    /// The table of `--spec` and `--tools`, selected as `generate` selects them (the server
    /// named after the spec's folder unless the allowlist or `--name` says otherwise);
    /// warnings on stderr. Leaks the table's texts: build it once per start or edit.
    pub(super) fn table(&self) -> Result<Table, String> {
        let input = fetch::resolve(&self.spec, &self.fetch)?;
        let mut settings = Settings::new();
        if let Some(name) = folder_name(input.path()) {
            settings = settings.with_default_name(name);
        }
        if let Some(name) = &self.name {
            settings = settings.with_name(name.clone());
        }
        if let Some(dir) = &self.plugins {
            settings = settings.with_plugins(dir.clone());
        }
        if let Some(profile) = self.profile {
            settings = settings.with_profile(profile);
        }
        // Each error already says `error:`.
        let (table, warnings) = mcpgen_codegen::table(input.path(), &self.tools, &settings)
            .map_err(|e| e.to_string())?;
        for warning in &warnings {
            eprintln!("warning [{}]: {warning}", table.name);
        }
        eprintln!(
            "{}: {} tools from {}, {} warnings",
            table.name,
            table.tools.len(),
            input
                .label()
                .map_or_else(|| self.spec.display().to_string(), str::to_owned),
            warnings.len()
        );
        Ok(table)
    }
}

/// The tools as a generated crate's `tool_set` makes them: the table, calling the API through
/// `upstream`, with the search index and the allowlist's per-tool rate limits.
pub(super) fn tool_set(table: &Table, upstream: Upstream) -> OpenApiTools {
    let tools = OpenApiTools::new(table.tools, upstream).with_search_index(table.search_index);
    if table.rate_limits.is_empty() {
        return tools;
    }
    // Built once per table, like the rest of it.
    let limits: Vec<ToolRate> = table
        .rate_limits
        .iter()
        .map(|&(tool, per_second, burst)| ToolRate::new(tool, per_second, burst))
        .collect();
    tools.with_rate_limits(Box::leak(limits.into_boxed_slice()))
}
