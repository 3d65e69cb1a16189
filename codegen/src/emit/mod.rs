//! Emission: IR → the files of a generated crate. Never reads the spec; text from the spec
//! reaches code only as string literals and doc attributes built through `quote`. Rust files
//! are `quote!` tokens formatted by prettyplease; the other files come from templates.

mod client;
mod declarations;
pub(crate) mod files;
pub mod mcpb;
mod render;
pub mod search;
pub mod table;
mod templates;
mod tools;
pub mod typify;
pub mod views;

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::Value;

use crate::error::{Error, Warning};
use crate::ir;

pub use files::{ToolsListSize, tools_list_json};
use render::render;

/// How the generated crate depends on `mcpgen`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RuntimeDep {
    /// A workspace member of this repository: `{ workspace = true }` for every dependency.
    Workspace,
    /// A path dependency (as written into `Cargo.toml`), with explicit versions for the rest.
    Path(String),
    /// A registry version requirement, with explicit versions for the rest.
    Version(String),
}

/// What to emit and how.
#[derive(Debug, Clone)]
pub struct EmitOptions {
    /// The spec as shown in the header comment (a relative path or file name).
    pub spec_label: String,
    /// The allowlist as shown in the header comment.
    pub tools_label: String,
    /// How to depend on the runtime.
    pub runtime: RuntimeDep,
    /// Add an empty `[workspace]` table so the crate builds on its own inside another workspace's folder.
    pub standalone: bool,
    /// A folder whose `*.jinja` files replace the built-in templates of the same name.
    pub templates: Option<PathBuf>,
    /// The client profile: the advertised schemas' shape (types come from the default ones).
    pub profile: crate::profile::Profile,
    /// Whether the tool table names each view's layout by its file (`include_str!` of
    /// `views/<tool>.json`, for a crate written to disk) rather than holding it as a string
    /// literal (for a table included as text, by the macro or a `build.rs`).
    pub layout_files: bool,
}

/// The emitted files, by path relative to the crate folder, plus warnings.
#[derive(Debug, Clone)]
pub struct Emitted {
    /// Relative path → contents.
    pub files: BTreeMap<String, String>,
    /// Size of the `tools/list` payload.
    pub list_size: ToolsListSize,
    /// Size of each tool's entry in the `tools/list` payload, by tool name, in tool order.
    pub tool_sizes: Vec<(String, ToolsListSize)>,
    /// Warnings (types that fell back to `serde_json::Value`).
    pub warnings: Vec<Warning>,
}

/// Names of the generated types of one tool.
#[derive(Debug, Clone, Default)]
pub(crate) struct ToolTypes {
    /// `crate::types::input::X`, when typed.
    pub args: Option<String>,
    /// `crate::types::output::X`, when typed.
    pub output: Option<String>,
}

/// Emits every file of the crate for `server`.
///
/// The argument types, the output types, the tool table and the other files that do not name
/// the types are independent: they are built on two threads (see `crate::parallel`). The
/// client stubs, which name the types, come last.
pub fn emit(server: &ir::Server, options: &EmitOptions) -> Result<Emitted, Error> {
    let templates = templates::Templates::load(options.templates.as_deref())?;
    let header = header(options);
    let (inputs, outputs) = type_roots(server);
    let mut profile_warnings = Vec::new();
    let advertised = crate::profile::advertised(server, options.profile, &mut profile_warnings);
    let server: &ir::Server = &advertised;
    let (header_ref, templates_ref) = (&header, &templates);
    // The largest first, so that the last job to finish is a small one.
    let jobs: Vec<crate::parallel::Job<'_, Part>> = vec![
        Box::new(move || Part::Input(build_types("input", inputs))),
        Box::new(move || {
            crate::progress::step(|| "writing code".to_owned());
            let declarations = declarations::build(server, header_ref);
            let mut table = render::ItemWriter::new(header_ref, "The tool table.");
            let table = tools::items(server, &declarations, options.layout_files)
                .try_for_each(|item| table.item(item))
                .map(|()| table.finish());
            Part::Table(table.map(|table| (table, declarations.file)))
        }),
        Box::new(move || Part::Output(build_types("output", outputs))),
        Box::new(move || Part::Other(other_files(server, options, templates_ref, header_ref))),
    ];
    let (mut input, mut output, mut table, mut other) = (None, None, None, None);
    for part in crate::parallel::run(jobs) {
        match part {
            Part::Input(built) => input = Some(built),
            Part::Output(built) => output = Some(built),
            Part::Table(built) => table = Some(built),
            Part::Other(built) => other = Some(built),
        }
    }
    let lost = || Error::Other("internal error: a part of the crate was not emitted".into());
    let (input, mut warnings) = input.ok_or_else(lost)?;
    let (output, output_warnings) = output.ok_or_else(lost)?;
    warnings.extend(output_warnings);
    warnings.extend(profile_warnings);
    let types_file = types_file(&header, &input, &output)?;
    let tool_types = tool_types(server, &input, &output);
    let mut files = BTreeMap::new();
    files.insert("src/types.rs".to_owned(), types_file);
    let (table, declarations) = table.ok_or_else(lost)??;
    files.insert("src/tools.rs".to_owned(), table);
    files.insert("tools.d.ts".to_owned(), declarations);
    files.insert(
        "src/client.rs".to_owned(),
        render(
            &header,
            "Typed client stubs: one method per tool.",
            client::tokens(server, &tool_types),
        )?,
    );
    let (other, list_size, tool_sizes) = other.ok_or_else(lost)??;
    files.extend(other);
    Ok(Emitted {
        files,
        list_size,
        tool_sizes,
        warnings,
    })
}

/// What one emission job builds.
enum Part {
    /// The `input` module of `types.rs`, with its warnings.
    Input((typify::TypeModule, Vec<Warning>)),
    /// The `output` module of `types.rs`, with its warnings.
    Output((typify::TypeModule, Vec<Warning>)),
    /// `src/tools.rs` and `tools.d.ts`.
    Table(Result<(String, String), Error>),
    /// The files of [`other_files`].
    Other(Result<OtherFiles, Error>),
}

/// The files other than `src/types.rs`, `src/tools.rs` and `src/client.rs`, with the size of
/// the `tools/list` payload and of each tool's entry in it.
type OtherFiles = (
    BTreeMap<String, String>,
    ToolsListSize,
    Vec<(String, ToolsListSize)>,
);

/// The files that need neither the generated types nor the tool table.
fn other_files(
    server: &ir::Server,
    options: &EmitOptions,
    templates: &templates::Templates,
    header: &str,
) -> Result<OtherFiles, Error> {
    let mut files = BTreeMap::new();
    files.insert(
        "src/search.rs".to_owned(),
        render(
            header,
            "The tool search index, for servers in search mode.",
            search::tokens(server),
        )?,
    );
    files.insert(
        "src/lib.rs".to_owned(),
        render(header, "", files::lib_tokens(server))?,
    );
    files.insert(
        "src/main.rs".to_owned(),
        render(header, "", files::main_tokens(server))?,
    );
    let (tools_json, list_size, tool_sizes) = files::tools_list_json(server);
    files.insert("tools.json".to_owned(), tools_json);
    files.insert(
        "tools.full.json".to_owned(),
        files::full_schemas_json(server),
    );
    files.insert("mcpb/manifest.json".to_owned(), mcpb::manifest(server));
    files.extend(views::files(server, header));
    let context = files::crate_context(server, options, &list_size);
    for (file, template) in [
        ("Cargo.toml", "Cargo.toml.jinja"),
        ("README.md", "README.md.jinja"),
        ("server.json", "server.json.jinja"),
        ("Dockerfile", "Dockerfile.jinja"),
        ("compose.yaml", "compose.yaml.jinja"),
        ("deploy/kubernetes/server.yaml", "kubernetes.yaml.jinja"),
        (
            "deploy/kubernetes/kustomization.yaml",
            "kustomization.yaml.jinja",
        ),
    ] {
        files.insert(file.to_owned(), templates.render(template, &context)?);
    }
    Ok((files, list_size, tool_sizes))
}

impl ToolsListSize {
    /// The size of `compact` JSON text: its bytes and approximate tokens (bytes / 4, rounded
    /// up), the estimate used for the whole `tools/list` payload.
    pub fn of_compact_json(compact: &str) -> Self {
        Self {
            bytes: compact.len(),
            approx_tokens: compact.len().div_ceil(4),
        }
    }
}

fn header(options: &EmitOptions) -> String {
    format!(
        "Generated by mcpgen {} from `{}` and `{}`. Do not edit: regenerate instead.",
        env!("CARGO_PKG_VERSION"),
        one_line(&options.spec_label),
        one_line(&options.tools_label)
    )
}

/// `text` with control characters replaced, for file names shown in comments.
pub(crate) fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { '?' } else { c })
        .collect()
}

/// What typify reads for one module: the definitions the tools share and one root per tool.
struct TypeRoots {
    defs: BTreeMap<String, Value>,
    roots: Vec<typify::Root>,
}

/// The roots of the `input` module (every tool's arguments) and of the `output` module (the
/// tools with an output schema).
fn type_roots(server: &ir::Server) -> (TypeRoots, TypeRoots) {
    let mut input = TypeRoots {
        defs: BTreeMap::new(),
        roots: Vec::new(),
    };
    let mut output = TypeRoots {
        defs: BTreeMap::new(),
        roots: Vec::new(),
    };
    for tool in &server.tools {
        let (schema, defs) = split_defs(&tool.input_schema);
        input.defs.extend(defs);
        input.roots.push(typify::Root {
            tool: tool.name.clone(),
            type_name: format!("{}Args", tool.type_stem),
            schema,
        });
        if let Some(out) = &tool.output_schema {
            let (schema, defs) = split_defs(out);
            output.defs.extend(defs);
            output.roots.push(typify::Root {
                tool: tool.name.clone(),
                type_name: format!("{}Output", tool.type_stem),
                schema,
            });
        }
    }
    (input, output)
}

/// Builds one module of `types.rs` with typify, with the warnings of its fallbacks.
fn build_types(module: &str, roots: TypeRoots) -> (typify::TypeModule, Vec<Warning>) {
    let TypeRoots { defs, roots } = roots;
    let what = if module == "input" {
        "argument"
    } else {
        module
    };
    crate::progress::step(|| {
        format!(
            "{what} types: {} schemas, {} tools",
            defs.len(),
            roots.len()
        )
    });
    let mut warnings = Vec::new();
    let built = typify::build(module, defs, roots, &mut warnings);
    (built, warnings)
}

/// The generated type names of each tool.
fn tool_types(
    server: &ir::Server,
    input: &typify::TypeModule,
    output: &typify::TypeModule,
) -> BTreeMap<String, ToolTypes> {
    server
        .tools
        .iter()
        .map(|tool| {
            let types = ToolTypes {
                args: input.typed.get(&tool.name).cloned(),
                output: output.typed.get(&tool.name).cloned(),
            };
            (tool.name.clone(), types)
        })
        .collect()
}

/// The `types.rs` code: `pub mod input` and `pub mod output`, typify-generated.
fn types_file(
    header: &str,
    input: &typify::TypeModule,
    output: &typify::TypeModule,
) -> Result<String, Error> {
    // The modules' items come formatted from typify; only the two module shells are formatted
    // here. What they allow is what typify's output needs on any spec: schemas without
    // descriptions give undocumented fields and variants, not every type or default function
    // is used by the server, enum values become variant names as they are (GitHub's `+1` is
    // `plus1`), typify's code is not written to clippy's taste (e.g. derivable impls), and spec
    // text in doc comments may break rustdoc's link and HTML rules.
    let mut file = render::file_start(header, "Typed arguments and outputs of each tool.");
    file.push_str(&render::module_with(
        quote::quote! {
            /// Argument types: one `<Tool>Args` struct per tool, plus the schemas they use.
            #[allow(missing_docs, dead_code, non_camel_case_types, clippy::all, rustdoc::all)]
            pub mod input {}
        },
        &input.text,
    )?);
    file.push_str(&render::module_with(
        quote::quote! {
            /// Output types: one `<Tool>Output` struct per tool that has an output schema.
            #[allow(missing_docs, dead_code, non_camel_case_types, clippy::all, rustdoc::all)]
            pub mod output {}
        },
        &output.text,
    )?);
    Ok(file)
}

/// Splits a tool schema into the schema without `$defs` and its `$defs`.
fn split_defs(schema: &Value) -> (Value, BTreeMap<String, Value>) {
    let mut schema = schema.clone();
    let defs = schema
        .as_object_mut()
        .and_then(|m| m.remove("$defs"))
        .and_then(|d| match d {
            Value::Object(m) => Some(m.into_iter().collect()),
            _ => None,
        })
        .unwrap_or_default();
    (schema, defs)
}
