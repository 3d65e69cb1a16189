//! `mcpgen diff OLD NEW`: what changed between two tool surfaces, as Markdown for a
//! pull-request comment or as JSON, with `--fail-on` for CI; and the diff that
//! `generate --check` prints when a `tools.json` would change.

use std::path::Path;

use mcpgen_codegen::diff::{Surface, SurfaceDiff, diff};
use mcpgen_codegen::{Settings, spec_folder};

use crate::args::DiffArgs;
use crate::fetch;

/// Reads one side of a diff, downloading it first when it is a URL.
fn load(path: &Path, args: &DiffArgs) -> Result<Surface, String> {
    let label = path.display().to_string();
    let input = fetch::resolve(path, &args.fetch)?;
    if input.label().is_some() {
        return load_file(input.path(), &label, args.tools.as_deref());
    }
    let file = if path.is_dir() {
        let tools_json = path.join("tools.json");
        if tools_json.is_file() {
            tools_json
        } else if let Some(folder) = spec_folder(path) {
            let mut settings = Settings::new().with_default_name(folder.folder.clone());
            if let Some(dir) = &folder.plugins {
                settings = settings.with_plugins(dir.clone());
            }
            let generation = mcpgen_codegen::generate(&folder.spec, &folder.tools, &settings)
                .map_err(|e| format!("error: {label}: generation failed\n{e}"))?;
            return Ok(Surface::from_server(&generation.server));
        } else {
            return Err(format!(
                "error: {label}: neither a tools.json nor a spec folder (openapi.json|yaml|yml with mcp_tools.yaml) is there"
            ));
        }
    } else {
        path.to_path_buf()
    };
    load_file(&file, &file.display().to_string(), args.tools.as_deref())
}

/// Reads a `tools.json`, or a spec document (one with `openapi` or `swagger` at its top)
/// generated in memory with the allowlist `tools`.
fn load_file(file: &Path, label: &str, tools: Option<&Path>) -> Result<Surface, String> {
    let text = std::fs::read_to_string(file).map_err(|e| format!("error: {label}: {e}"))?;
    let is_spec = mcpgen_codegen::spec::load::parse_document(file, &text)
        .is_ok_and(|doc| doc.get("openapi").is_some() || doc.get("swagger").is_some());
    if !is_spec {
        return Surface::from_tools_json(&text, label).map_err(|e| format!("error: {e}"));
    }
    let Some(tools) = tools else {
        return Err(format!(
            "error: {label} is a spec document; give its allowlist with --tools mcp_tools.yaml"
        ));
    };
    let settings = Settings::new().with_default_name("api");
    let generation = mcpgen_codegen::generate(file, tools, &settings)
        .map_err(|e| format!("error: {label}: generation failed\n{e}"))?;
    Ok(Surface::from_server(&generation.server))
}

/// Runs `mcpgen diff`.
pub(crate) fn diff_cmd(args: DiffArgs) -> Result<(), String> {
    let old = load(&args.old, &args)?;
    let new = load(&args.new, &args)?;
    let changes = diff(&old, &new);
    if args.json {
        println!("{:#}", changes.to_json());
    } else {
        print!(
            "{}",
            changes.to_markdown(
                &args.old.display().to_string(),
                &args.new.display().to_string()
            )
        );
    }
    match args.fail_on {
        Some(fail_on) if changes.fails(fail_on) => Err(String::new()),
        _ => Ok(()),
    }
}

/// The diff from the `tools.json` in `crate_dir` (none: an empty surface) to `fresh`, the
/// `tools.json` a fresh generation writes, for `generate --check`. Both sides are the file
/// itself (the listed schemas, after the client profile, `describe_tools` included), so only
/// what clients would see differently is reported.
pub(crate) fn check_diff(crate_dir: &Path, fresh: &str) -> Result<SurfaceDiff, String> {
    let path = crate_dir.join("tools.json");
    let old = match std::fs::read_to_string(&path) {
        Ok(text) => Surface::from_tools_json(&text, &path.display().to_string())
            .map_err(|e| e.to_string())?,
        Err(_) => Surface::default(),
    };
    let new = Surface::from_tools_json(fresh, "the fresh tools.json").map_err(|e| e.to_string())?;
    Ok(diff(&old, &new))
}
