//! `tools.json`, `src/lib.rs` and `src/main.rs` of a generated crate, and what the templates of
//! its other files (`Cargo.toml`, `README.md`, `server.json`, `Dockerfile`) see.

use proc_macro2::TokenStream;
use quote::quote;
use serde::Serialize;
use serde_json::{Map, Value, json};

use super::{EmitOptions, RuntimeDep};
use crate::ir;

/// Size of the `tools/list` payload as sent on the wire (compact JSON).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ToolsListSize {
    /// Bytes of compact JSON.
    pub bytes: usize,
    /// Approximate tokens (bytes / 4, rounded up): a rough measure of the context the list uses.
    pub approx_tokens: usize,
}

/// One tool as it appears in `tools/list`.
pub fn tool_json(tool: &ir::Tool) -> Value {
    let mut t = Map::new();
    t.insert("name".into(), json!(tool.name));
    if let Some(title) = &tool.title {
        t.insert("title".into(), json!(title));
    }
    if tool.is_summarised() {
        let noted = mcpgen_core::with_summarised_note(&tool.description);
        t.insert("description".into(), json!(noted));
    } else {
        t.insert("description".into(), json!(tool.description));
    }
    t.insert("inputSchema".into(), tool.input_schema.clone());
    if let Some(out) = &tool.output_schema {
        t.insert("outputSchema".into(), out.clone());
    }
    let mut a = Map::new();
    let hints = [
        ("readOnlyHint", tool.annotations.read_only),
        ("destructiveHint", tool.annotations.destructive),
        ("idempotentHint", tool.annotations.idempotent),
        ("openWorldHint", tool.annotations.open_world),
    ];
    for (k, v) in hints {
        if let Some(v) = v {
            a.insert(k.into(), json!(v));
        }
    }
    if !a.is_empty() {
        t.insert("annotations".into(), Value::Object(a));
    }
    Value::Object(t)
}

/// `_meta` naming the tool's view, as a client that declared the views extension
/// (`io.modelcontextprotocol/ui`) sees it in `tools/list`; `None` for a tool without a view.
fn view_meta(server: &str, tool: &ir::Tool) -> Option<Value> {
    tool.view.as_ref()?;
    let uri = mcpgen_core::view::resource_uri(server, &tool.name);
    Some(json!({ "ui": { "resourceUri": uri } }))
}

/// The `describe_tools` entry a server's `all` mode lists after the tools when some are
/// summarised ([`mcpgen_core::DESCRIBE_TOOLS`]).
fn describe_tools_json() -> Value {
    let def = mcpgen_core::DESCRIBE_TOOLS;
    let schema: Value = serde_json::from_str(def.input_schema).unwrap_or_default();
    let a = def.annotations;
    let hints: Map<String, Value> = [
        ("readOnlyHint", a.read_only_hint),
        ("destructiveHint", a.destructive_hint),
        ("idempotentHint", a.idempotent_hint),
        ("openWorldHint", a.open_world_hint),
    ]
    .into_iter()
    .filter_map(|(k, v)| v.map(|v| (k.to_owned(), json!(v))))
    .collect();
    json!({
        "name": def.name,
        "description": def.description,
        "inputSchema": schema,
        "annotations": hints,
    })
}

/// The `tools/list` result as a client with the views extension sees it (pretty, for
/// `tools.json`), its wire size, and each tool's entry size, all from one serialization of
/// each entry. The sizes are those of the entries without their views' `_meta`: what every
/// client gets, and what a model reads.
pub fn tools_list_json(
    server: &ir::Server,
) -> (String, ToolsListSize, Vec<(String, ToolsListSize)>) {
    let entries: Vec<Value> = server.tools.iter().map(tool_json).collect();
    let tool_sizes = server
        .tools
        .iter()
        .zip(&entries)
        .map(|(tool, entry)| {
            let compact = entry.to_string();
            (tool.name.clone(), ToolsListSize::of_compact_json(&compact))
        })
        .collect();
    let mut listed = entries;
    if server.tools.iter().any(|t| t.is_summarised()) {
        listed.push(describe_tools_json());
    }
    let size = ToolsListSize::of_compact_json(&json!({ "tools": listed }).to_string());
    for (entry, tool) in listed.iter_mut().zip(&server.tools) {
        if let (Some(meta), Value::Object(map)) = (view_meta(&server.name, tool), entry) {
            map.insert("_meta".into(), meta);
        }
    }
    let list = json!({ "tools": listed });
    let mut pretty = serde_json::to_string_pretty(&list).unwrap_or_default();
    pretty.push('\n');
    (pretty, size, tool_sizes)
}

/// `tools.full.json`: the full schemas of every tool whose listed ones are summaries (only the
/// schemas that are), in `tools/list` order, pretty, for review next to `tools.json`. Their
/// `#/$defs/NAME` references name the definitions under `inputDefs` (input schemas) and
/// `outputDefs` (output schemas), which every tool shares; each is listed once.
pub fn full_schemas_json(server: &ir::Server) -> String {
    let entries: Vec<Value> = server
        .tools
        .iter()
        .filter(|tool| tool.is_summarised())
        .map(|tool| {
            let mut t = Map::new();
            t.insert("name".into(), json!(tool.name));
            if let Some(schema) = &tool.full_input_schema {
                t.insert("inputSchema".into(), schema.clone());
            }
            if let Some(schema) = &tool.full_output_schema {
                t.insert("outputSchema".into(), schema.clone());
            }
            Value::Object(t)
        })
        .collect();
    let mut document = Map::new();
    document.insert("tools".into(), Value::Array(entries));
    for (key, defs) in [
        ("inputDefs", &server.full_defs.input),
        ("outputDefs", &server.full_defs.output),
    ] {
        if !defs.is_empty() {
            let defs = defs.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
            document.insert(key.into(), Value::Object(defs));
        }
    }
    let mut pretty = serde_json::to_string_pretty(&document).unwrap_or_default();
    pretty.push('\n');
    pretty
}

/// The tokens of `src/lib.rs`.
pub(crate) fn lib_tokens(server: &ir::Server) -> TokenStream {
    let doc = format!("MCP tools for {} (server `{}`).", server.title, server.name);
    let desc_lines: Vec<String> = server
        .description
        .lines()
        .map(|l| {
            if l.is_empty() {
                String::new()
            } else {
                format!(" {l}")
            }
        })
        .collect();
    let doc_lines = std::iter::once(format!(" {doc}"))
        .chain(std::iter::once(String::new()))
        .chain(desc_lines)
        .map(|l| quote!(#![doc = #l]));
    quote! {
        #(#doc_lines)*
        #![cfg_attr(rustfmt, rustfmt::skip)]
        #![deny(missing_docs)]

        #[rustfmt::skip]
        pub mod client;
        #[rustfmt::skip]
        pub mod search;
        #[rustfmt::skip]
        pub mod tools;
        #[rustfmt::skip]
        pub mod types;

        pub use client::Client;
        pub use search::SEARCH_INDEX;
        pub use tools::{TOOLS, tool_set};
    }
}

/// The tokens of `src/main.rs`: the server binary.
pub(crate) fn main_tokens(server: &ir::Server) -> TokenStream {
    let krate = quote::format_ident!("{}_mcp", server.name.replace('-', "_"));
    let doc = format!(
        " `{}-mcp`: the MCP server for {}. Run with `--help` for every flag.",
        server.name, server.title
    );
    quote! {
        #![doc = #doc]
        #![cfg_attr(rustfmt, rustfmt::skip)]

        fn main() -> ::std::process::ExitCode {
            ::mcpgen::cli::main(
                ::mcpgen::cli::App {
                    name: #krate::tools::SERVER_NAME,
                    version: #krate::tools::SERVER_VERSION,
                    description: #krate::tools::SERVER_DESCRIPTION,
                    title: #krate::tools::API_TITLE,
                    default_upstream_url: #krate::tools::DEFAULT_UPSTREAM_URL,
                    security_schemes: #krate::tools::SECURITY_SCHEMES,
                },
                #krate::tool_set,
            )
        }
    }
}

/// The server version if it is semver, else `0.1.0` (Cargo needs semver; the MCP server version
/// can be any string and keeps the original).
pub(crate) fn cargo_version(v: &str) -> String {
    let core = v.split(['-', '+']).next().unwrap_or_default();
    let parts: Vec<&str> = core.split('.').collect();
    let semver = parts.len() == 3
        && parts.iter().all(|p| {
            !p.is_empty()
                && p.bytes().all(|b| b.is_ascii_digit())
                && (p.len() == 1 || !p.starts_with('0'))
        })
        && v.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-+.".contains(&b));
    if semver {
        v.to_owned()
    } else {
        "0.1.0".to_owned()
    }
}

/// What the templates of the non-Rust files see (documented in `generator/templates/README.md`).
#[derive(Debug, Serialize)]
pub(crate) struct CrateContext<'a> {
    generator_version: &'static str,
    /// The spec as named in headers, control characters replaced.
    spec_label: String,
    /// The allowlist as named in headers, control characters replaced.
    tools_label: String,
    /// `<name>-mcp`: the package and the binary.
    crate_name: String,
    /// `<name>_mcp`: the library as Rust code names it.
    lib_name: String,
    /// The server version if it is semver, else `0.1.0`.
    cargo_version: String,
    server: ServerContext<'a>,
    tools: Vec<ToolContext<'a>>,
    runtime: RuntimeContext<'a>,
    standalone: bool,
    tools_list: ToolsListSize,
    /// The environment variable holding the upstream credential in the desktop snippet.
    upstream_credential_env: &'static str,
    /// What `server.json` says, as the served server card says it.
    registry: RegistryContext,
    /// For a workspace member, its folder from the repository root (`generated/<spec folder>`,
    /// the Docker build context); `.` otherwise.
    crate_dir: String,
}

/// The registry entry's fields that must agree with the server card the binary serves.
#[derive(Debug, Serialize)]
struct RegistryContext {
    /// `mcpgen.local/<name>`, characters outside `[A-Za-z0-9._-]` as `-`.
    name: String,
    /// The description (else `<name> MCP server`), cut to 100 characters with `…`.
    description: String,
    /// The API title, cut to 100 characters with `…`; none when empty.
    title: Option<String>,
}

/// Longest description and title the registry and the server card allow.
const REGISTRY_TEXT_MAX: usize = 100;

/// `text` cut to `max` characters, the last one `…` when cut (as the server card does).
fn cut(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_owned()
    } else {
        let mut cut: String = text.chars().take(max - 1).collect();
        cut.push('…');
        cut
    }
}

/// `generated/<folder>` for a workspace member generated from `specs/<folder>/…`, else `.`.
fn crate_dir(options: &EmitOptions) -> String {
    let folder = options
        .spec_label
        .strip_prefix("specs/")
        .and_then(|rest| rest.split('/').next())
        .filter(|f| !f.is_empty());
    match (&options.runtime, folder) {
        (RuntimeDep::Workspace, Some(folder)) => format!("generated/{folder}"),
        _ => ".".to_owned(),
    }
}

fn registry_context(server: &ir::Server) -> RegistryContext {
    let description = if server.description.trim().is_empty() {
        format!("{} MCP server", server.name)
    } else {
        server.description.clone()
    };
    RegistryContext {
        name: mcpgen_core::registry_name(&server.name),
        description: cut(&description, REGISTRY_TEXT_MAX),
        title: (!server.title.trim().is_empty()).then(|| cut(&server.title, REGISTRY_TEXT_MAX)),
    }
}

#[derive(Debug, Serialize)]
struct ServerContext<'a> {
    name: &'a str,
    title: &'a str,
    description: &'a str,
    version: &'a str,
    upstream_url: Option<&'a str>,
}

#[derive(Debug, Serialize)]
struct ToolContext<'a> {
    name: &'a str,
    title: Option<&'a str>,
    description: &'a str,
    /// The description's first line.
    summary: &'a str,
    method: &'a str,
    path: &'a str,
    operation_id: &'a str,
    /// `read`, `write` or `write (destructive)`, with `, confirmed before each call` for tools
    /// that ask the person first.
    access: &'static str,
    /// The operation's own server, when it is not the upstream.
    server_url: Option<&'a str>,
}

#[derive(Debug, Serialize)]
struct RuntimeContext<'a> {
    /// `workspace`, `path` or `version`.
    kind: &'static str,
    /// The path or version requirement; none for `workspace`.
    value: Option<&'a str>,
}

/// The context of the `Cargo.toml` and `README.md` templates.
pub(crate) fn crate_context<'a>(
    server: &'a ir::Server,
    options: &'a EmitOptions,
    size: &ToolsListSize,
) -> CrateContext<'a> {
    let runtime = match &options.runtime {
        RuntimeDep::Workspace => RuntimeContext {
            kind: "workspace",
            value: None,
        },
        RuntimeDep::Path(p) => RuntimeContext {
            kind: "path",
            value: Some(p),
        },
        RuntimeDep::Version(v) => RuntimeContext {
            kind: "version",
            value: Some(v),
        },
    };
    let tools = server
        .tools
        .iter()
        .map(|t| ToolContext {
            name: &t.name,
            title: t.title.as_deref(),
            description: &t.description,
            summary: t.description.lines().next().unwrap_or_default(),
            method: &t.http.method,
            path: &t.http.path,
            operation_id: &t.http.operation_id,
            access: match (t.access, t.annotations.destructive, t.confirm) {
                (ir::Access::Read, _, false) => "read",
                (ir::Access::Read, _, true) => "read, confirmed before each call",
                (ir::Access::Write, Some(true), false) => "write (destructive)",
                (ir::Access::Write, Some(true), true) => {
                    "write (destructive), confirmed before each call"
                }
                (ir::Access::Write, _, false) => "write",
                (ir::Access::Write, _, true) => "write, confirmed before each call",
            },
            server_url: t.http.server_url.as_deref(),
        })
        .collect();
    let key_env = server.security_schemes.iter().any(|s| {
        matches!(
            s.kind,
            ir::SecurityKind::ApiKeyHeader(_) | ir::SecurityKind::ApiKeyQuery(_)
        )
    });
    CrateContext {
        generator_version: env!("CARGO_PKG_VERSION"),
        spec_label: super::one_line(&options.spec_label),
        tools_label: super::one_line(&options.tools_label),
        crate_name: format!("{}-mcp", server.name),
        lib_name: format!("{}_mcp", server.name.replace('-', "_")),
        cargo_version: cargo_version(&server.version),
        server: ServerContext {
            name: &server.name,
            title: &server.title,
            description: &server.description,
            version: &server.version,
            upstream_url: server.upstream_url.as_deref(),
        },
        tools,
        runtime,
        standalone: options.standalone,
        tools_list: *size,
        upstream_credential_env: if key_env {
            "MCPGEN_UPSTREAM_API_KEY"
        } else {
            "MCPGEN_UPSTREAM_BEARER"
        },
        registry: registry_context(server),
        crate_dir: crate_dir(options),
    }
}
