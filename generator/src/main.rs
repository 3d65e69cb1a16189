//! `mcpgen`: generate typed MCP tool crates from OpenAPI documents and reviewed allowlists.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

mod client_cmd;
mod sizes;
use mcpgen_codegen::allowlist::{Allowlist, ServerBlock};
use mcpgen_codegen::spec::{Operation, Spec};
use mcpgen_codegen::{Errors, RuntimeDep, Settings, ir, lower, naming, output};

/// Turn an OpenAPI document (Swagger 2.0, OpenAPI 3.0 or 3.1) plus a reviewed allowlist
/// (`mcp_tools.yaml`) into a typed MCP tool crate.
///
/// With no command, runs `generate` on every `specs/<name>/` folder.
#[derive(Parser)]
#[command(name = "mcpgen", version, about, long_about)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Generate crates: every `specs/<name>/` into `generated/<name>/`, or one spec with --spec.
    Generate(GenerateArgs),
    /// Print an allowlist for a spec that `generate` accepts as is.
    Init(InitArgs),
    /// List the operations of a spec: operationId, method, path, default tool name, access.
    List(ListArgs),
    /// Validate a spec and an allowlist without writing anything.
    Check(CheckArgs),
    /// Signed, expiring access tokens for generated servers.
    #[command(subcommand)]
    Token(TokenCommand),
    /// List the tools of the configured MCP servers (`mcpServers` JSON) and report servers
    /// that failed; exits 1 if any selected server failed.
    Tools(client_cmd::ToolsArgs),
    /// Call one tool of a configured MCP server and print its result; exits 1 when the
    /// server cannot be reached or the result has `isError`.
    Call(client_cmd::CallArgs),
    /// Write a Markdown table of each spec's `tools/list` size (bytes, approximate tokens,
    /// largest tool) for every `output_schema` mode and client profile, generated in memory.
    Sizes(sizes::SizesArgs),
}

#[derive(Subcommand)]
enum TokenCommand {
    /// Print a new token (HMAC-SHA256, scoped to an audience, expiring).
    Issue(TokenIssueArgs),
}

#[derive(Args)]
struct TokenIssueArgs {
    /// Name of the environment variable holding the signing secret (at least 32 bytes); the
    /// server verifies with the same variable (`--token-secret-env`).
    #[arg(long)]
    secret_env: String,
    /// Subject: the principal id the token stands for.
    #[arg(long)]
    sub: String,
    /// Scope granted (repeatable): mcp:*, mcp:read, mcp:write, mcp:tool:<name>, or a tool's own scope.
    #[arg(long = "scope", required = true)]
    scopes: Vec<String>,
    /// Audience: the server the token is for (it must match the server's `--token-audience`).
    #[arg(long)]
    audience: String,
    /// Lifetime in seconds.
    #[arg(long, default_value_t = 3600)]
    max_age: u64,
}

#[derive(Args, Default)]
struct GenerateArgs {
    /// Spec file (JSON or YAML). Without it, every `specs/<name>/` folder is generated.
    #[arg(long, requires_all = ["tools", "out"])]
    spec: Option<PathBuf>,
    /// Allowlist file (`mcp_tools.yaml`) for --spec.
    #[arg(long, requires = "spec")]
    tools: Option<PathBuf>,
    /// Output folder for --spec; the crate there builds with `cargo build`.
    #[arg(long, requires = "spec")]
    out: Option<PathBuf>,
    /// Server name (crate `<name>-mcp`) for --spec, overriding the allowlist's `server.name`.
    #[arg(long, requires = "spec")]
    name: Option<String>,
    /// Path to the `mcpgen/` folder of this repository (the crate generated servers depend on),
    /// for generated crates outside it (written into the generated Cargo.toml). Without it,
    /// --spec output depends on the registry's `mcpgen`. `--runtime-path` is an older name.
    #[arg(long, value_name = "DIR", requires = "spec", alias = "runtime-path")]
    mcpgen_path: Option<PathBuf>,
    /// Folder of templates for --spec that replace the built-in ones by file name
    /// (`Cargo.toml.jinja`, `README.md.jinja`; minijinja syntax, strict about undefined values).
    #[arg(long, value_name = "DIR", requires = "spec")]
    templates: Option<PathBuf>,
    /// Folder of plugins for --spec: each `DIR/<plugin>/manifest.json` adds the tools of its
    /// `mcp_tools` section, visible only to principals with the plugin.
    #[arg(long, value_name = "DIR", requires = "spec")]
    plugins: Option<PathBuf>,
    /// Client profile for --spec, overriding the allowlist's `server.profile`: `default`
    /// (JSON Schema 2020-12 with `$defs`), `inline` (no `$ref`/`$defs`; recursion cut after one
    /// level), `draft-07` (the draft-07 dialect) or `cursor` (`inline` and tool names of at
    /// most 60 characters).
    #[arg(long, value_name = "P", requires = "spec")]
    profile: Option<mcpgen_codegen::profile::Profile>,
    /// Do not write: exit 1 and name the files that differ from a fresh generation.
    #[arg(long)]
    check: bool,
    /// Repository root holding `specs/` and `generated/` (default: the nearest folder
    /// upwards from the current one that has `specs/`).
    #[arg(long, conflicts_with = "spec")]
    root: Option<PathBuf>,
    /// Print every warning, not only the count per spec.
    #[arg(long, short)]
    verbose: bool,
    /// After each spec's summary line, print its N heaviest tools with their approximate
    /// tokens in `tools/list` (on stderr; default 5, 0 prints none).
    #[arg(long, value_name = "N")]
    top: Option<usize>,
}

#[derive(Args)]
struct InitArgs {
    /// Spec file (JSON or YAML).
    #[arg(long)]
    spec: PathBuf,
    /// Select every operation the filters keep (the default).
    #[arg(long, conflicts_with = "read_only")]
    all: bool,
    #[command(flatten)]
    filter: Filter,
    /// Server name to write into the `server:` block (default: from the spec's folder).
    #[arg(long)]
    name: Option<String>,
}

/// Which operations `init` and `list` take. Different flags must all match; repeating one
/// flag means any of its values.
#[derive(Args, Default)]
struct Filter {
    /// Only operations that read (GET, HEAD, OPTIONS, TRACE).
    #[arg(long)]
    read_only: bool,
    /// Only operations carrying this OpenAPI tag (repeatable: any of them).
    #[arg(long = "tag", value_name = "T")]
    tags: Vec<String>,
    /// Only operations whose path starts with this prefix, e.g. `/api/v1/chats` (repeatable:
    /// any of them).
    #[arg(long = "path-prefix", value_name = "P")]
    path_prefixes: Vec<String>,
    /// Only operations with this HTTP method, case-insensitive (repeatable: any of them).
    #[arg(long = "method", value_name = "M")]
    methods: Vec<String>,
}

#[derive(Args)]
struct ListArgs {
    /// Spec file (JSON or YAML).
    #[arg(long)]
    spec: PathBuf,
    #[command(flatten)]
    filter: Filter,
    /// Add a TOKENS column: the approximate tokens each operation's tool adds to `tools/list`
    /// (its entry's bytes / 4), from generating every listed operation in memory.
    #[arg(long)]
    cost: bool,
}

#[derive(Args)]
struct CheckArgs {
    /// Spec file (JSON or YAML).
    #[arg(long)]
    spec: PathBuf,
    /// Allowlist file (`mcp_tools.yaml`).
    #[arg(long)]
    tools: PathBuf,
    /// Print every warning.
    #[arg(long, short)]
    verbose: bool,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    mcpgen_codegen::progress::enable();
    let result = match cli
        .command
        .unwrap_or(Command::Generate(GenerateArgs::default()))
    {
        Command::Generate(args) => generate(args),
        Command::Init(args) => init(args),
        Command::List(args) => list(args),
        Command::Check(args) => check(args),
        Command::Token(TokenCommand::Issue(args)) => token_issue(args),
        Command::Tools(args) => client_cmd::tools(args),
        Command::Call(args) => client_cmd::call(args),
        Command::Sizes(args) => sizes::sizes(args),
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

fn folder_name(path: &Path) -> Option<String> {
    let dir = path.parent()?.canonicalize().ok()?;
    let name = dir.file_name()?.to_string_lossy().to_ascii_lowercase();
    let name: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    name.starts_with(|c: char| c.is_ascii_lowercase())
        .then_some(name)
}

fn print_warnings(name: &str, warnings: &[mcpgen_codegen::Warning], verbose: bool) {
    if verbose {
        for w in warnings {
            eprintln!("  warning [{name}]: {w}");
        }
    }
}

/// How many heaviest tools `generate` prints without `--top`.
const DEFAULT_TOP: usize = 5;

fn generate(args: GenerateArgs) -> Result<(), String> {
    match (&args.spec, &args.tools, &args.out) {
        (Some(spec), Some(tools), Some(out)) => generate_one(&args, spec, tools, out),
        _ => generate_all(&args),
    }
}

fn generate_one(args: &GenerateArgs, spec: &Path, tools: &Path, out: &Path) -> Result<(), String> {
    let runtime = match &args.mcpgen_path {
        Some(p) => {
            let abs = p
                .canonicalize()
                .map_err(|e| format!("error: --mcpgen-path {}: {e}", p.display()))?;
            if !abs.join("Cargo.toml").is_file() {
                return Err(format!(
                    "error: --mcpgen-path {}: no Cargo.toml there; point it at the mcpgen/ folder of mcpgen's repository",
                    p.display()
                ));
            }
            RuntimeDep::Path(abs.to_string_lossy().into_owned())
        }
        None => RuntimeDep::Version(env!("CARGO_PKG_VERSION").to_owned()),
    };
    let mut settings = Settings::new()
        .with_runtime(runtime)
        .with_standalone(true)
        .with_labels(label(spec), label(tools));
    if let Some(n) = folder_name(spec) {
        settings = settings.with_default_name(n);
    }
    if let Some(n) = &args.name {
        settings = settings.with_name(n.clone());
    }
    if let Some(dir) = &args.templates {
        settings = settings.with_templates(dir.clone());
    }
    if let Some(dir) = &args.plugins {
        settings = settings.with_plugins(dir.clone());
    }
    if let Some(profile) = args.profile {
        settings = settings.with_profile(profile);
    }
    let generation = mcpgen_codegen::generate(spec, tools, &settings).map_err(|e| e.to_string())?;
    print_warnings(&generation.server.name, &generation.warnings, args.verbose);
    finish_crate(&generation, out, args)
}

/// Writes (or with `--check`, compares) one crate and prints its summary line, then its
/// heaviest tools.
fn finish_crate(
    generation: &mcpgen_codegen::Generation,
    out: &Path,
    args: &GenerateArgs,
) -> Result<(), String> {
    let shown = std::env::current_dir()
        .ok()
        .and_then(|cwd| out.strip_prefix(cwd).ok().map(Path::to_path_buf))
        .unwrap_or_else(|| out.to_path_buf());
    let size = generation.emitted.list_size;
    let summary = format!(
        "{}: {} tools, tools/list {} bytes (~{} tokens), {} warnings",
        generation.server.name,
        generation.server.tools.len(),
        size.bytes,
        size.approx_tokens,
        generation.warnings.len()
    );
    let top = args.top.unwrap_or(DEFAULT_TOP);
    if args.check {
        let diff = output::diff_crate(out, &generation.emitted.files);
        if diff.is_empty() {
            println!("{summary}; {} is up to date", shown.display());
            print_heaviest(generation, top);
            return Ok(());
        }
        let list: Vec<String> = diff
            .iter()
            .map(|d| format!("  {}/{d}", shown.display()))
            .collect();
        return Err(format!(
            "error: {} differs from a fresh generation (run `cargo run -p generator` to update):\n{}",
            shown.display(),
            list.join("\n")
        ));
    }
    let written =
        output::write_crate(out, &generation.emitted.files).map_err(|e| format!("error: {e}"))?;
    println!(
        "{summary} -> {} ({} files changed)",
        shown.display(),
        written.len()
    );
    print_heaviest(generation, top);
    Ok(())
}

/// Prints the `top` tools with the largest `tools/list` entries on stderr, heaviest first.
fn print_heaviest(generation: &mcpgen_codegen::Generation, top: usize) {
    let mut sizes: Vec<&(String, mcpgen_codegen::ToolsListSize)> =
        generation.emitted.tool_sizes.iter().collect();
    if top == 0 || sizes.is_empty() {
        return;
    }
    sizes.sort_by(|a, b| b.1.bytes.cmp(&a.1.bytes).then_with(|| a.0.cmp(&b.0)));
    sizes.truncate(top);
    let width = sizes.iter().map(|(n, _)| n.len()).max().unwrap_or(0);
    eprintln!(
        "{}: heaviest tools in tools/list (~tokens each):",
        generation.server.name
    );
    for (name, size) in sizes {
        eprintln!(
            "  {name:<width$}  ~{} tokens ({} bytes)",
            size.approx_tokens, size.bytes
        );
    }
}

fn label(path: &Path) -> String {
    if path.is_relative() {
        path.to_string_lossy().replace('\\', "/")
    } else {
        path.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    }
}

fn find_root(explicit: Option<&Path>) -> Result<PathBuf, String> {
    if let Some(r) = explicit {
        return Ok(r.to_owned());
    }
    let cwd = std::env::current_dir().map_err(|e| format!("error: current folder: {e}"))?;
    for dir in cwd.ancestors() {
        if dir.join("specs").is_dir() {
            return Ok(dir.to_owned());
        }
    }
    let built_in = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    if built_in.join("specs").is_dir() {
        return Ok(built_in);
    }
    Err("error: no specs/ folder here or above; pass --root, or use --spec/--tools/--out".into())
}

fn generate_all(args: &GenerateArgs) -> Result<(), String> {
    let root = find_root(args.root.as_deref())?;
    let generated_dir = root.join("generated");
    let folders = mcpgen_codegen::spec_folders(&root).map_err(|e| format!("error: {e}"))?;
    if folders.is_empty() {
        return Err(format!(
            "error: no spec folders in {} (each needs openapi.{{json,yaml,yml}} and mcp_tools.yaml)",
            root.join("specs").display()
        ));
    }
    let mut failures = Vec::new();
    let mut names = Vec::new();
    for folder in &folders {
        match mcpgen_codegen::generate_folder(&root, folder) {
            Ok(generation) => {
                print_warnings(&generation.server.name, &generation.warnings, args.verbose);
                let out = generated_dir.join(&generation.server.name);
                names.push(generation.server.name.clone());
                if let Err(e) = finish_crate(&generation, &out, args) {
                    failures.push(e);
                }
            }
            Err(e) => failures.push(format!("specs/{}: failed\n{e}", folder.folder)),
        }
    }
    // Generated folders whose spec is gone.
    if let Ok(entries) = std::fs::read_dir(&generated_dir) {
        let mut stale: Vec<String> = entries
            .flatten()
            .filter(|e| e.path().is_dir())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| !names.contains(n))
            .collect();
        stale.sort();
        for n in stale {
            let msg = format!(
                "generated/{n} has no spec folder in specs/ any more; delete it if it is not needed"
            );
            if args.check {
                failures.push(format!("error: {msg}"));
            } else {
                eprintln!("warning: {msg}");
            }
        }
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.join("\n"))
    }
}

fn load_spec(path: &Path) -> Result<Spec, String> {
    Spec::load(path).map_err(|e| Errors(e).to_string())
}

/// Tells about operations that cannot be read (they cannot be selected).
fn warn_broken(spec: &Spec) {
    for b in &spec.broken {
        let id = b.operation_id.as_deref().unwrap_or("-");
        eprintln!(
            "warning: {} {} (operationId {id}) cannot be read and is left out:",
            b.method.to_ascii_uppercase(),
            b.path
        );
        for e in &b.errors {
            eprintln!("  {e}");
        }
    }
}

impl Filter {
    /// Whether any filter was given.
    fn is_set(&self) -> bool {
        self.read_only
            || !self.tags.is_empty()
            || !self.path_prefixes.is_empty()
            || !self.methods.is_empty()
    }

    fn tag_matches(&self, op: &Operation) -> bool {
        self.tags.is_empty() || self.tags.iter().any(|t| op.tags.contains(t))
    }

    fn prefix_matches(&self, op: &Operation) -> bool {
        self.path_prefixes.is_empty() || self.path_prefixes.iter().any(|p| op.path.starts_with(p))
    }

    fn method_matches(&self, op: &Operation) -> bool {
        self.methods.is_empty()
            || self
                .methods
                .iter()
                .any(|m| m.trim().eq_ignore_ascii_case(&op.method))
    }

    fn access_matches(&self, op: &Operation) -> bool {
        !self.read_only || lower::method_access(&op.method) == ir::Access::Read
    }

    fn matches(&self, op: &Operation) -> bool {
        self.access_matches(op)
            && self.tag_matches(op)
            && self.prefix_matches(op)
            && self.method_matches(op)
    }

    /// The flags given, as typed, for messages.
    fn describe(&self) -> String {
        let mut parts = Vec::new();
        if self.read_only {
            parts.push("--read-only".to_owned());
        }
        for (flag, values) in [
            ("--tag", &self.tags),
            ("--path-prefix", &self.path_prefixes),
            ("--method", &self.methods),
        ] {
            if !values.is_empty() {
                let alternatives: Vec<String> =
                    values.iter().map(|v| format!("{flag} {v}")).collect();
                parts.push(alternatives.join(" or "));
            }
        }
        parts.join(", ")
    }
}

/// The operations of `spec` that `filter` keeps, in spec order. A filter value that matches
/// no operation on its own is an error naming the closest values the spec has; so is a
/// combination of filters that leaves nothing. All such problems are reported together.
fn select_operations<'a>(spec: &'a Spec, filter: &Filter) -> Result<Vec<&'a Operation>, String> {
    let shown = spec.path.display();
    if spec.operations.is_empty() && filter.is_set() {
        return Err(format!(
            "error: {shown} has no operations that can be read; there is nothing to filter"
        ));
    }
    let mut problems = Vec::new();
    let mut used_tags: Vec<&str> = spec
        .operations
        .iter()
        .flat_map(|op| op.tags.iter().map(String::as_str))
        .collect();
    used_tags.sort_unstable();
    used_tags.dedup();
    for tag in &filter.tags {
        if used_tags.contains(&tag.as_str()) {
            continue;
        }
        problems.push(if used_tags.is_empty() {
            format!("--tag {tag}: no operation in {shown} carries a tag")
        } else {
            format!(
                "--tag {tag}: no operation in {shown} carries this tag; closest: {}",
                closest(tag, used_tags.iter().copied())
            )
        });
    }
    let mut prefixes: Vec<String> = spec
        .operations
        .iter()
        .flat_map(|op| path_prefixes(&op.path))
        .collect();
    prefixes.sort_unstable();
    prefixes.dedup();
    for prefix in &filter.path_prefixes {
        if !spec.operations.iter().any(|op| op.path.starts_with(prefix)) {
            problems.push(format!(
                "--path-prefix {prefix}: no path in {shown} starts with it; closest: {}",
                closest(prefix, prefixes.iter().map(String::as_str))
            ));
        }
    }
    let mut used_methods: Vec<String> = spec
        .operations
        .iter()
        .map(|op| op.method.to_ascii_uppercase())
        .collect();
    used_methods.sort_unstable();
    used_methods.dedup();
    for method in &filter.methods {
        let known = mcpgen_codegen::spec::METHODS
            .iter()
            .any(|m| m.eq_ignore_ascii_case(method.trim()));
        if !known {
            let all: Vec<String> = mcpgen_codegen::spec::METHODS
                .iter()
                .map(|m| m.to_ascii_uppercase())
                .collect();
            problems.push(format!(
                "--method {method}: not an HTTP method; use one of {}",
                all.join(", ")
            ));
        } else if !used_methods
            .iter()
            .any(|m| m.eq_ignore_ascii_case(method.trim()))
        {
            problems.push(format!(
                "--method {method}: no operation in {shown} uses it; the spec uses {}",
                used_methods.join(", ")
            ));
        }
    }
    if !problems.is_empty() {
        let lines: Vec<String> = problems.iter().map(|p| format!("  {p}")).collect();
        return Err(format!(
            "error: the selection matches nothing (run `mcpgen list --spec {shown}` to see every operation):\n{}",
            lines.join("\n")
        ));
    }
    let kept: Vec<&Operation> = spec
        .operations
        .iter()
        .filter(|op| filter.matches(op))
        .collect();
    if kept.is_empty() && filter.is_set() {
        let count = |keep: &dyn Fn(&Operation) -> bool| {
            spec.operations.iter().filter(|op| keep(op)).count()
        };
        let mut each = Vec::new();
        if filter.read_only {
            each.push(format!(
                "--read-only keeps {}",
                count(&|op| filter.access_matches(op))
            ));
        }
        if !filter.tags.is_empty() {
            each.push(format!(
                "--tag keeps {}",
                count(&|op| filter.tag_matches(op))
            ));
        }
        if !filter.path_prefixes.is_empty() {
            each.push(format!(
                "--path-prefix keeps {}",
                count(&|op| filter.prefix_matches(op))
            ));
        }
        if !filter.methods.is_empty() {
            each.push(format!(
                "--method keeps {}",
                count(&|op| filter.method_matches(op))
            ));
        }
        return Err(format!(
            "error: no operation in {shown} matches all of {} (on its own, of {} operations: {}); \
             drop or widen one of them",
            filter.describe(),
            spec.operations.len(),
            each.join(", ")
        ));
    }
    Ok(kept)
}

/// Every segment-boundary prefix of `path`: `/a/b` gives `/a` and `/a/b`.
fn path_prefixes(path: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (i, c) in path.char_indices().skip(1) {
        if c == '/' {
            out.push(path[..i].to_owned());
        }
    }
    out.push(path.to_owned());
    out
}

/// The three candidates most like `wanted`, quoted and comma-separated.
fn closest<'a>(wanted: &str, candidates: impl Iterator<Item = &'a str>) -> String {
    let wanted_lower = wanted.to_lowercase();
    let mut scored: Vec<(f64, &str)> = candidates
        .map(|c| {
            let score = strsim::jaro_winkler(&wanted_lower, &c.to_lowercase())
                .max(strsim::normalized_levenshtein(wanted, c));
            (score, c)
        })
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1)));
    let names: Vec<String> = scored
        .iter()
        .take(3)
        .map(|(_, c)| format!("`{c}`"))
        .collect();
    names.join(", ")
}

/// The allowlist selector of `op`: its operationId, else `METHOD /path`.
fn selector(op: &Operation) -> String {
    op.operation_id
        .clone()
        .unwrap_or_else(|| format!("{} {}", op.method.to_ascii_uppercase(), op.path))
}

fn default_tool_name(op: &Operation) -> String {
    naming::default_tool_name(
        op.operation_id.as_deref(),
        &op.method,
        &op.path,
        naming::MAX_TOOL_NAME_LEN,
    )
}

/// Allowlist entries (selector, unique tool name, no description) for `ops`, in order.
fn allowlist_entries(ops: &[&Operation]) -> Vec<(String, String, Option<String>)> {
    let mut taken = std::collections::BTreeSet::new();
    ops.iter()
        .map(|op| {
            let tool = naming::unique_tool_name(
                &default_tool_name(op),
                &mut taken,
                naming::MAX_TOOL_NAME_LEN,
            );
            (selector(op), tool, None)
        })
        .collect()
}

fn init(args: InitArgs) -> Result<(), String> {
    let spec = load_spec(&args.spec)?;
    warn_broken(&spec);
    let ops = select_operations(&spec, &args.filter)?;
    let name = args.name.clone().or_else(|| folder_name(&args.spec));
    let entries = allowlist_entries(&ops);
    let server = ServerBlock {
        name,
        version: spec
            .root
            .pointer("/info/version")
            .and_then(|v| v.as_str())
            .map(str::to_owned),
        ..Default::default()
    };
    let text = mcpgen_codegen::allowlist::render(&server, &entries);
    // What we print must load as an allowlist.
    Allowlist::parse(Path::new("<init output>"), &text)
        .map_err(|e| format!("internal error: {e}"))?;
    print!("{text}");
    Ok(())
}

fn list(args: ListArgs) -> Result<(), String> {
    let spec = load_spec(&args.spec)?;
    let ops = select_operations(&spec, &args.filter)?;
    let rows: Vec<[String; 5]> = ops
        .iter()
        .map(|op| {
            [
                op.operation_id.clone().unwrap_or_else(|| "-".into()),
                op.method.to_ascii_uppercase(),
                op.path.clone(),
                default_tool_name(op),
                lower::method_access(&op.method).as_str().to_owned(),
            ]
        })
        .collect();
    let header = ["OPERATION_ID", "METHOD", "PATH", "TOOL_NAME", "ACCESS"];
    if !args.cost {
        print_table(header, &rows);
        return Ok(());
    }
    let costs = tool_costs(&spec, &ops)?;
    let rows: Vec<[String; 6]> = rows
        .into_iter()
        .zip(costs)
        .map(|([id, method, path, tool, access], tokens)| {
            [id, method, path, tool, access, tokens.to_string()]
        })
        .collect();
    let [a, b, c, d, e] = header;
    print_table([a, b, c, d, e, "TOKENS"], &rows);
    Ok(())
}

/// The approximate tokens each of `ops` would add to `tools/list` if selected, in order:
/// every one is generated in memory, as `init` would select them, and its entry measured.
fn tool_costs(spec: &Spec, ops: &[&Operation]) -> Result<Vec<usize>, String> {
    let entries = allowlist_entries(ops);
    let server = ServerBlock {
        name: Some(folder_name(&spec.path).unwrap_or_else(|| "api".to_owned())),
        ..Default::default()
    };
    let text = mcpgen_codegen::allowlist::render(&server, &entries);
    let allowlist = Allowlist::parse(Path::new("<every listed operation>"), &text)
        .map_err(|e| format!("internal error: {e}"))?;
    let settings = Settings::new();
    let generation = mcpgen_codegen::generate_from(spec, &allowlist, &settings).map_err(|e| {
        format!("error: cannot generate the listed operations to measure them:\n{e}")
    })?;
    let sizes: std::collections::BTreeMap<&str, usize> = generation
        .emitted
        .tool_sizes
        .iter()
        .map(|(name, size)| (name.as_str(), size.approx_tokens))
        .collect();
    entries
        .iter()
        .map(|(selector, tool, _)| {
            sizes.get(tool.as_str()).copied().ok_or_else(|| {
                format!("internal error: `{selector}` produced no tool `{tool}` to measure")
            })
        })
        .collect()
}

fn check(args: CheckArgs) -> Result<(), String> {
    let mut settings = Settings::new();
    if let Some(n) = folder_name(&args.spec) {
        settings = settings.with_default_name(n);
    }
    let generation =
        mcpgen_codegen::generate(&args.spec, &args.tools, &settings).map_err(|e| e.to_string())?;
    print_warnings(&generation.server.name, &generation.warnings, args.verbose);
    let size = generation.emitted.list_size;
    println!(
        "{}: ok, {} tools, tools/list {} bytes (~{} tokens), {} warnings",
        generation.server.name,
        generation.server.tools.len(),
        size.bytes,
        size.approx_tokens,
        generation.warnings.len()
    );
    Ok(())
}

fn token_issue(args: TokenIssueArgs) -> Result<(), String> {
    let authority = mcpgen_runtime::auth::TokenAuthority::from_env(&args.secret_env, args.audience)
        .map_err(|e| format!("error: {e}"))?;
    if args.max_age == 0 {
        return Err("error: --max-age must be at least 1 second".into());
    }
    let token = authority.issue(
        &args.sub,
        &args.scopes,
        std::time::Duration::from_secs(args.max_age),
    );
    println!("{token}");
    Ok(())
}

/// Prints `rows` under `header` in left-aligned columns two spaces apart.
pub(crate) fn print_table<const N: usize>(header: [&str; N], rows: &[[String; N]]) {
    let mut widths = header.map(str::len);
    for r in rows {
        for (w, c) in widths.iter_mut().zip(r) {
            *w = (*w).max(c.chars().count());
        }
    }
    let header = header.map(str::to_owned);
    for r in std::iter::once(&header).chain(rows) {
        let line: Vec<String> = r
            .iter()
            .zip(widths)
            .map(|(c, w)| format!("{c:<w$}"))
            .collect();
        println!("{}", line.join("  ").trim_end());
    }
}
