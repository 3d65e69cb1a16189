//! `mcpgen`: generate typed MCP tool crates from OpenAPI documents and reviewed allowlists.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

mod client_cmd;
use generator::allowlist::{Allowlist, ServerBlock};
use generator::spec::Spec;
use generator::{Errors, RuntimeDep, Settings, ir, lower, naming, output};

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
    /// Path to the `runtime/` folder of mcpgen, for generated crates outside this repository
    /// (written into the generated Cargo.toml). Without it, --spec output depends on the
    /// registry's mcpgen-runtime.
    #[arg(long, requires = "spec")]
    runtime_path: Option<PathBuf>,
    /// Folder of templates for --spec that replace the built-in ones by file name
    /// (`Cargo.toml.jinja`, `README.md.jinja`; minijinja syntax, strict about undefined values).
    #[arg(long, value_name = "DIR", requires = "spec")]
    templates: Option<PathBuf>,
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
}

#[derive(Args)]
struct InitArgs {
    /// Spec file (JSON or YAML).
    #[arg(long)]
    spec: PathBuf,
    /// Select every operation (the default).
    #[arg(long, conflicts_with = "read_only")]
    all: bool,
    /// Select only operations that read (GET, HEAD, OPTIONS, TRACE).
    #[arg(long)]
    read_only: bool,
    /// Server name to write into the `server:` block (default: from the spec's folder).
    #[arg(long)]
    name: Option<String>,
}

#[derive(Args)]
struct ListArgs {
    /// Spec file (JSON or YAML).
    #[arg(long)]
    spec: PathBuf,
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
    generator::progress::enable();
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

fn print_warnings(name: &str, warnings: &[generator::Warning], verbose: bool) {
    if verbose {
        for w in warnings {
            eprintln!("  warning [{name}]: {w}");
        }
    }
}

fn generate(args: GenerateArgs) -> Result<(), String> {
    match (&args.spec, &args.tools, &args.out) {
        (Some(spec), Some(tools), Some(out)) => generate_one(&args, spec, tools, out),
        _ => generate_all(&args),
    }
}

fn generate_one(args: &GenerateArgs, spec: &Path, tools: &Path, out: &Path) -> Result<(), String> {
    let runtime = match &args.runtime_path {
        Some(p) => {
            let abs = p
                .canonicalize()
                .map_err(|e| format!("error: --runtime-path {}: {e}", p.display()))?;
            if !abs.join("Cargo.toml").is_file() {
                return Err(format!(
                    "error: --runtime-path {}: no Cargo.toml there; point it at mcpgen's runtime/ folder",
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
    let generation = generator::generate(spec, tools, &settings).map_err(|e| e.to_string())?;
    print_warnings(&generation.server.name, &generation.warnings, args.verbose);
    finish_crate(&generation, out, args.check)
}

/// Writes (or with `check`, compares) one crate and prints its summary line.
fn finish_crate(generation: &generator::Generation, out: &Path, check: bool) -> Result<(), String> {
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
    if check {
        let diff = output::diff_crate(out, &generation.emitted.files);
        if diff.is_empty() {
            println!("{summary}; {} is up to date", shown.display());
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
    Ok(())
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
    let folders = generator::spec_folders(&root).map_err(|e| format!("error: {e}"))?;
    if folders.is_empty() {
        return Err(format!(
            "error: no spec folders in {} (each needs openapi.{{json,yaml,yml}} and mcp_tools.yaml)",
            root.join("specs").display()
        ));
    }
    let mut failures = Vec::new();
    let mut names = Vec::new();
    for folder in &folders {
        match generator::generate_folder(&root, folder) {
            Ok(generation) => {
                print_warnings(&generation.server.name, &generation.warnings, args.verbose);
                let out = generated_dir.join(&generation.server.name);
                names.push(generation.server.name.clone());
                if let Err(e) = finish_crate(&generation, &out, args.check) {
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

fn init(args: InitArgs) -> Result<(), String> {
    let spec = load_spec(&args.spec)?;
    warn_broken(&spec);
    let name = args.name.clone().or_else(|| folder_name(&args.spec));
    let mut taken = std::collections::BTreeSet::new();
    let mut entries = Vec::new();
    for op in &spec.operations {
        if args.read_only && lower::method_access(&op.method) != ir::Access::Read {
            continue;
        }
        let selector = op
            .operation_id
            .clone()
            .unwrap_or_else(|| format!("{} {}", op.method.to_ascii_uppercase(), op.path));
        let base = naming::default_tool_name(
            op.operation_id.as_deref(),
            &op.method,
            &op.path,
            naming::MAX_TOOL_NAME_LEN,
        );
        let tool = naming::unique_tool_name(&base, &mut taken, naming::MAX_TOOL_NAME_LEN);
        entries.push((selector, tool, None));
    }
    let server = ServerBlock {
        name,
        version: spec
            .root
            .pointer("/info/version")
            .and_then(|v| v.as_str())
            .map(str::to_owned),
        ..Default::default()
    };
    let text = generator::allowlist::render(&server, &entries);
    // What we print must load as an allowlist.
    Allowlist::parse(Path::new("<init output>"), &text)
        .map_err(|e| format!("internal error: {e}"))?;
    print!("{text}");
    Ok(())
}

fn list(args: ListArgs) -> Result<(), String> {
    let spec = load_spec(&args.spec)?;
    let rows: Vec<[String; 5]> = spec
        .operations
        .iter()
        .map(|op| {
            [
                op.operation_id.clone().unwrap_or_else(|| "-".into()),
                op.method.to_ascii_uppercase(),
                op.path.clone(),
                naming::default_tool_name(
                    op.operation_id.as_deref(),
                    &op.method,
                    &op.path,
                    naming::MAX_TOOL_NAME_LEN,
                ),
                lower::method_access(&op.method).as_str().to_owned(),
            ]
        })
        .collect();
    print_table(
        ["OPERATION_ID", "METHOD", "PATH", "TOOL_NAME", "ACCESS"],
        &rows,
    );
    Ok(())
}

fn check(args: CheckArgs) -> Result<(), String> {
    let mut settings = Settings::new();
    if let Some(n) = folder_name(&args.spec) {
        settings = settings.with_default_name(n);
    }
    let generation =
        generator::generate(&args.spec, &args.tools, &settings).map_err(|e| e.to_string())?;
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
