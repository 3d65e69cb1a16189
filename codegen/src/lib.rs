//! mcpgen's generator: an OpenAPI document (Swagger 2.0, OpenAPI 3.0 or 3.1) plus a reviewed
//! allowlist (`mcp_tools.yaml`) becomes a typed MCP tool crate.
//!
//! The pipeline is parse → IR → emit:
//!
//! - [`spec`]: load JSON/YAML, bundle relative-file `$ref`s, upgrade Swagger 2.0, index operations;
//! - [`allowlist`]: read `mcp_tools.yaml`;
//! - [`plugins`]: read plugin manifests (`plugins/<plugin>/manifest.json`), whose tools only
//!   principals with the plugin can see and call;
//! - [`select`]: match the allowlist's (and manifests') entries to operations and check their tool names;
//! - [`lower`]: turn each selected operation into an [`ir::Tool`] (arguments, body, schemas
//!   through [`schema`], access and annotations);
//! - [`naming`]: where tool, argument and Rust names are decided;
//! - [`emit`]: turn the IR into a formatted crate;
//! - [`diff`]: what changed between two tool surfaces (`mcpgen diff`).
#![deny(missing_docs)]

// Only to tell whether code runs inside a procedural macro (see `parallel`).
extern crate proc_macro;

pub mod allowlist;
pub mod budget;
pub mod coverage;
pub mod diff;
pub mod emit;
pub mod error;
pub mod ir;
pub mod keywords;
pub mod lower;
pub mod naming;
pub mod output;
pub(crate) mod parallel;
pub mod plugins;
pub mod profile;
pub mod progress;
pub mod schema;
pub mod select;
pub(crate) mod servers;
pub mod spec;
pub mod tolerant;

pub use error::{Error, Errors, Warning};

use std::path::{Path, PathBuf};

pub use emit::{EmitOptions, Emitted, RuntimeDep, ToolsListSize};

/// One settings struct for every entry point (CLI, macro, `build.rs`), built with `with_*`.
#[derive(Debug, Clone)]
pub struct Settings {
    name: Option<String>,
    default_name: Option<String>,
    runtime: RuntimeDep,
    standalone: bool,
    spec_label: Option<String>,
    tools_label: Option<String>,
    templates: Option<PathBuf>,
    profile: Option<profile::Profile>,
    plugins: Option<PathBuf>,
    layout_files: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            name: None,
            default_name: None,
            runtime: RuntimeDep::Version("0.1".to_owned()),
            standalone: false,
            spec_label: None,
            tools_label: None,
            templates: None,
            profile: None,
            plugins: None,
            layout_files: false,
        }
    }
}

impl Settings {
    /// Default settings: runtime from the registry, not standalone.
    pub fn new() -> Self {
        Self::default()
    }

    /// Server name, overriding the allowlist's `server.name`.
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// Server name used when neither [`Settings::with_name`] nor the allowlist gives one.
    pub fn with_default_name(mut self, name: impl Into<String>) -> Self {
        self.default_name = Some(name.into());
        self
    }

    /// How the generated crate depends on `mcpgen`.
    pub fn with_runtime(mut self, runtime: RuntimeDep) -> Self {
        self.runtime = runtime;
        self
    }

    /// Whether the generated `Cargo.toml` gets an empty `[workspace]` table.
    pub fn with_standalone(mut self, standalone: bool) -> Self {
        self.standalone = standalone;
        self
    }

    /// How the spec and allowlist are named in the generated header (default: file names).
    pub fn with_labels(mut self, spec: impl Into<String>, tools: impl Into<String>) -> Self {
        self.spec_label = Some(spec.into());
        self.tools_label = Some(tools.into());
        self
    }

    /// A folder of templates that replace the built-in ones by file name (`Cargo.toml.jinja`,
    /// `README.md.jinja`). A missing folder, an unknown `*.jinja` file in it or a template that
    /// fails to parse or render is an error naming the file.
    pub fn with_templates(mut self, dir: impl Into<PathBuf>) -> Self {
        self.templates = Some(dir.into());
        self
    }

    /// The client profile (see [`profile`]), overriding the allowlist's `server.profile`.
    pub fn with_profile(mut self, profile: profile::Profile) -> Self {
        self.profile = Some(profile);
        self
    }

    /// A folder of plugins: each `dir/<plugin>/manifest.json` adds the tools of its `mcp_tools`
    /// section, visible only to principals with the plugin (see [`plugins`]). A missing folder
    /// or a bad manifest is an error naming the file.
    pub fn with_plugins(mut self, dir: impl Into<PathBuf>) -> Self {
        self.plugins = Some(dir.into());
        self
    }

    /// Whether `src/tools.rs` names each view's layout by its file, `views/<tool>.json`
    /// (`include_str!("../views/<tool>.json")`), as a crate written to disk does; off by
    /// default, where the table holds each layout as a string literal, as the macro and a
    /// `build.rs` that includes the table as text need. The files are emitted either way.
    pub fn with_layout_files(mut self, layout_files: bool) -> Self {
        self.layout_files = layout_files;
        self
    }
}

/// The outcome of generating one crate.
#[derive(Debug, Clone)]
pub struct Generation {
    /// The IR the crate was emitted from.
    pub server: ir::Server,
    /// The files.
    pub emitted: Emitted,
    /// Every warning: spec loading, selection and emission.
    pub warnings: Vec<Warning>,
}

fn file_label(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}

/// Loads `spec_path` and `tools_path`, selects and emits: everything in memory, nothing written.
/// All errors found are returned together.
pub fn generate(
    spec_path: &Path,
    tools_path: &Path,
    settings: &Settings,
) -> Result<Generation, Errors> {
    let (spec, allowlist) = load(spec_path, tools_path)?;
    let selected = select_for(&spec, &allowlist, settings)?;
    // Emission never reads the document: its memory is freed before the crate is written.
    drop(spec);
    emit_selected(selected)
}

/// The tool table of the crate [`generate`] would emit, built in memory instead (for a server
/// made at start-up), with every warning: the same loading, selection, client profile and
/// `tools/list` budget. Leaks the table's texts (see [`emit::table`]).
pub fn table(
    spec_path: &Path,
    tools_path: &Path,
    settings: &Settings,
) -> Result<(emit::table::Table, Vec<Warning>), Errors> {
    let (spec, allowlist) = load(spec_path, tools_path)?;
    let selected = select_for(&spec, &allowlist, settings)?;
    drop(spec);
    let mut warnings = selected.warnings;
    let server = profile::advertised(&selected.server, selected.options.profile, &mut warnings);
    check_list_budget(
        &emit::tools_list_json(&server).1,
        selected.max_list_tokens,
        &selected.allowlist_path,
    )?;
    Ok((emit::table::build(&server), warnings))
}

/// The spec and the allowlist, or every error of both.
fn load(spec_path: &Path, tools_path: &Path) -> Result<(spec::Spec, allowlist::Allowlist), Errors> {
    let mut errors = Vec::new();
    match (
        spec::Spec::load(spec_path),
        allowlist::Allowlist::load(tools_path),
    ) {
        (Ok(s), Ok(a)) => Ok((s, a)),
        (s, a) => {
            if let Err(e) = s {
                errors.extend(e);
            }
            if let Err(e) = a {
                errors.push(e);
            }
            Err(Errors(errors))
        }
    }
}

/// Like [`generate`], from an already loaded spec and allowlist.
pub fn generate_from(
    spec: &spec::Spec,
    allowlist: &allowlist::Allowlist,
    settings: &Settings,
) -> Result<Generation, Errors> {
    emit_selected(select_for(spec, allowlist, settings)?)
}

/// What selection hands to emission.
struct Selected {
    server: ir::Server,
    /// Warnings of loading and selection.
    warnings: Vec<Warning>,
    options: EmitOptions,
    allowlist_path: PathBuf,
    max_list_tokens: Option<u64>,
}

/// Selects the allowlisted operations of `spec` and lowers them (the part of generation that
/// reads the document).
fn select_for(
    spec: &spec::Spec,
    allowlist: &allowlist::Allowlist,
    settings: &Settings,
) -> Result<Selected, Errors> {
    let plugins = match &settings.plugins {
        Some(dir) => plugins::load_dir(dir, &allowlist.server).map_err(Errors)?,
        None => Vec::new(),
    };
    let options = select::SelectOptions {
        default_name: settings.default_name.clone(),
        name_override: settings.name.clone(),
        plugins,
    };
    let profile = settings
        .profile
        .or(allowlist.server.profile)
        .unwrap_or_default();
    let limited;
    let allowlist = match profile.max_name_len() {
        Some(limit) if allowlist.server.max_name_len.is_none_or(|n| n > limit) => {
            let mut copy = allowlist.clone();
            copy.server.max_name_len = Some(limit);
            limited = copy;
            &limited
        }
        _ => allowlist,
    };
    progress::step(|| format!("selecting {} operations", allowlist.tools.len()));
    let (server, select_warnings) = select::select(spec, allowlist, &options).map_err(Errors)?;
    let options = EmitOptions {
        spec_label: settings
            .spec_label
            .clone()
            .unwrap_or_else(|| file_label(&spec.path)),
        tools_label: settings
            .tools_label
            .clone()
            .unwrap_or_else(|| file_label(&allowlist.path)),
        runtime: settings.runtime.clone(),
        standalone: settings.standalone,
        templates: settings.templates.clone(),
        profile,
        layout_files: settings.layout_files,
    };
    let mut warnings = spec.warnings.clone();
    warnings.extend(select_warnings);
    Ok(Selected {
        server,
        warnings,
        options,
        allowlist_path: allowlist.path.clone(),
        max_list_tokens: allowlist.server.max_list_tokens,
    })
}

/// The allowlist's `server.max_list_tokens`, held against the `tools/list` payload.
fn check_list_budget(
    size: &ToolsListSize,
    budget: Option<u64>,
    allowlist_path: &Path,
) -> Result<(), Errors> {
    match budget {
        Some(budget) if size.approx_tokens as u64 > budget => Err(Errors(vec![Error::Allowlist {
            path: allowlist_path.to_path_buf(),
            location: "server.max_list_tokens".into(),
            message: format!(
                "the tools/list payload is about {} tokens ({} bytes), over the budget of {budget}; \
                 select fewer tools, shorten descriptions, or raise max_list_tokens",
                size.approx_tokens, size.bytes
            ),
        }])),
        _ => Ok(()),
    }
}

/// Emits the crate of what [`select_for`] selected.
fn emit_selected(selected: Selected) -> Result<Generation, Errors> {
    let Selected {
        server,
        mut warnings,
        options,
        allowlist_path,
        max_list_tokens,
    } = selected;
    let emitted = emit::emit(&server, &options).map_err(|e| Errors(vec![e]))?;
    check_list_budget(&emitted.list_size, max_list_tokens, &allowlist_path)?;
    warnings.extend(emitted.warnings.iter().cloned());
    Ok(Generation {
        server,
        emitted,
        warnings,
    })
}

/// The spec file of a `specs/<name>/` folder: `openapi.json`, `openapi.yaml` or `openapi.yml`.
pub fn find_spec_file(dir: &Path) -> Option<PathBuf> {
    ["openapi.json", "openapi.yaml", "openapi.yml"]
        .iter()
        .map(|f| dir.join(f))
        .find(|p| p.is_file())
}

/// A `specs/<name>/` folder with a spec and an allowlist.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpecFolder {
    /// Folder name (the default server name).
    pub folder: String,
    /// The spec file.
    pub spec: PathBuf,
    /// The allowlist file.
    pub tools: PathBuf,
    /// The folder's `plugins/` folder of plugin manifests, when it has one.
    pub plugins: Option<PathBuf>,
}

/// The spec folders under `root/specs`, sorted by name; folders without both files are skipped.
/// A folder's `plugins/` sub-folder, when present, holds its plugin manifests.
pub fn spec_folders(root: &Path) -> Result<Vec<SpecFolder>, Error> {
    let specs_dir = root.join("specs");
    let entries = std::fs::read_dir(&specs_dir).map_err(|e| Error::Io {
        path: specs_dir.clone(),
        message: e.to_string(),
    })?;
    let mut out: Vec<SpecFolder> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .filter_map(|dir| spec_folder(&dir))
        .collect();
    out.sort_by(|a, b| a.folder.cmp(&b.folder));
    Ok(out)
}

/// The spec folder at `dir` (a spec file `openapi.{json,yaml,yml}` and `mcp_tools.yaml`,
/// optionally `plugins/`), or `None` when it lacks either file.
pub fn spec_folder(dir: &Path) -> Option<SpecFolder> {
    let spec = find_spec_file(dir)?;
    let tools = dir.join("mcp_tools.yaml");
    let folder = dir.file_name()?.to_string_lossy().into_owned();
    let plugins = Some(dir.join("plugins")).filter(|p| p.is_dir());
    tools.is_file().then_some(SpecFolder {
        folder,
        spec,
        tools,
        plugins,
    })
}

/// Generates the crate of one spec folder as `generate` does for the repository's `generated/`:
/// workspace dependencies, paths in the header relative to `root`, the folder's plugin
/// manifests.
pub fn generate_folder(root: &Path, folder: &SpecFolder) -> Result<Generation, Errors> {
    let rel = |p: &Path| {
        p.strip_prefix(root)
            .unwrap_or(p)
            .to_string_lossy()
            .replace('\\', "/")
    };
    let mut settings = Settings::new()
        .with_runtime(RuntimeDep::Workspace)
        .with_default_name(folder.folder.clone())
        .with_labels(rel(&folder.spec), rel(&folder.tools))
        .with_layout_files(true);
    if let Some(dir) = &folder.plugins {
        settings = settings.with_plugins(dir.clone());
    }
    generate(&folder.spec, &folder.tools, &settings)
}
