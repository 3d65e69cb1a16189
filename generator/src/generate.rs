//! `mcpgen generate` (one spec, or every `specs/<name>/` folder) and `mcpgen check`.

use std::path::Path;

use mcpgen_codegen::{RuntimeDep, Settings, output};

use crate::args::{CheckArgs, GenerateArgs};
use crate::fetch::{self, SpecInput};
use crate::specs::{find_root, folder_name};

fn print_warnings(name: &str, warnings: &[mcpgen_codegen::Warning], verbose: bool) {
    if verbose {
        for w in warnings {
            eprintln!("  warning [{name}]: {w}");
        }
    }
}

/// How many heaviest tools `generate` prints without `--top`.
const DEFAULT_TOP: usize = 5;

pub(crate) fn generate(args: GenerateArgs) -> Result<(), String> {
    match (&args.spec, &args.tools, &args.out) {
        (Some(spec), Some(tools), Some(out)) => {
            let input = fetch::resolve(spec, &args.fetch)?;
            generate_one(&args, &input, tools, out)
        }
        _ => generate_all(&args),
    }
}

fn generate_one(
    args: &GenerateArgs,
    input: &SpecInput,
    tools: &Path,
    out: &Path,
) -> Result<(), String> {
    let spec = input.path();
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
        .with_layout_files(true)
        .with_labels(
            input.label().map_or_else(|| label(spec), str::to_owned),
            label(tools),
        );
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
            print_views(generation);
            return Ok(());
        }
        let fresh = generation.emitted.files.get("tools.json");
        if let Some(fresh) = fresh.filter(|_| diff.iter().any(|d| d.starts_with("tools.json "))) {
            match crate::diff_cmd::check_diff(out, fresh) {
                Ok(changes) => print!(
                    "{}",
                    changes.to_markdown(
                        &format!("{}/tools.json", shown.display()),
                        "fresh generation"
                    )
                ),
                Err(e) => eprintln!("warning: cannot compare tools.json: {e}"),
            }
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
    print_views(generation);
    Ok(())
}

/// Prints which view (MCP Apps) each tool got on stderr: `table`, `card`, or `-` for none
/// (no JSON output schema, nothing to show, or `ui: none`).
fn print_views(generation: &mcpgen_codegen::Generation) {
    let tools = &generation.server.tools;
    if tools.is_empty() {
        return;
    }
    let with_view = tools.iter().filter(|t| t.view.is_some()).count();
    eprintln!(
        "{}: views for {with_view} of {} tools:",
        generation.server.name,
        tools.len()
    );
    let width = tools.iter().map(|t| t.name.len()).max().unwrap_or(0);
    for tool in tools {
        match &tool.view {
            Some(layout) => eprintln!(
                "  {:<width$}  {:<5}  ui://{}/{}",
                tool.name,
                layout.kind.as_str(),
                generation.server.name,
                tool.name
            ),
            None => eprintln!("  {:<width$}  -", tool.name),
        }
    }
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

pub(crate) fn check(args: CheckArgs) -> Result<(), String> {
    let input = fetch::resolve(&args.spec, &args.fetch)?;
    let mut settings = Settings::new();
    if let Some(n) = folder_name(input.path()) {
        settings = settings.with_default_name(n);
    }
    let generation = mcpgen_codegen::generate(input.path(), &args.tools, &settings)
        .map_err(|e| e.to_string())?;
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
