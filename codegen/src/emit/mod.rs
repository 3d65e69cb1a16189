//! Emission: IR → the files of a generated crate. Never reads the spec; text from the spec
//! reaches code only as string literals and doc attributes built through `quote`. Rust files
//! are `quote!` tokens formatted by prettyplease; the other files come from templates.

mod client;
pub(crate) mod files;
pub mod search;
mod templates;
mod tools;
pub mod typify;

use std::collections::BTreeMap;
use std::path::PathBuf;

use proc_macro2::TokenStream;
use serde_json::Value;

use crate::error::{Error, Warning};
use crate::ir;

pub use files::{ToolsListSize, tools_list_json};

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
pub fn emit(server: &ir::Server, options: &EmitOptions) -> Result<Emitted, Error> {
    let templates = templates::Templates::load(options.templates.as_deref())?;
    let mut warnings = Vec::new();
    let header = header(options);

    let (types_file, tool_types) = types(server, &mut warnings)?;
    let advertised = crate::profile::advertised(server, options.profile, &mut warnings);
    let server: &ir::Server = &advertised;
    let mut files = BTreeMap::new();
    files.insert(
        "src/types.rs".to_owned(),
        render_file(
            &header,
            "Typed arguments and outputs of each tool.",
            types_file,
        )?,
    );
    files.insert(
        "src/tools.rs".to_owned(),
        render(&header, "The tool table.", tools::tokens(server))?,
    );
    files.insert(
        "src/client.rs".to_owned(),
        render(
            &header,
            "Typed client stubs: one method per tool.",
            client::tokens(server, &tool_types),
        )?,
    );
    files.insert(
        "src/search.rs".to_owned(),
        render(
            &header,
            "The tool search index, for servers in search mode.",
            search::tokens(server),
        )?,
    );
    files.insert(
        "src/lib.rs".to_owned(),
        render(&header, "", files::lib_tokens(server))?,
    );
    files.insert(
        "src/main.rs".to_owned(),
        render(&header, "", files::main_tokens(server))?,
    );
    let (tools_json, list_size, tool_sizes) = files::tools_list_json(server);
    files.insert("tools.json".to_owned(), tools_json);
    files.insert(
        "tools.full.json".to_owned(),
        files::full_schemas_json(server),
    );
    let context = files::crate_context(server, options, &list_size);
    for (file, template) in [
        ("Cargo.toml", "Cargo.toml.jinja"),
        ("README.md", "README.md.jinja"),
        ("server.json", "server.json.jinja"),
        ("Dockerfile", "Dockerfile.jinja"),
        ("compose.yaml", "compose.yaml.jinja"),
    ] {
        files.insert(file.to_owned(), templates.render(template, &context)?);
    }
    Ok(Emitted {
        files,
        list_size,
        tool_sizes,
        warnings,
    })
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

/// Formats `tokens` as a Rust file that starts with the header and a module doc line.
///
/// Direction-changing characters and carriage returns are rare in specs, so the tokens are
/// formatted as they are first; only when the text shows one of them (raw, or as a `\u{...}`
/// or `\r` escape) are the tokens rewritten by [`escape_bidi`] and formatted again. Rewriting
/// every literal of a large crate up front costs more than parsing and formatting it.
fn render(header: &str, module_doc: &str, tokens: TokenStream) -> Result<String, Error> {
    render_file(header, module_doc, parse_file(tokens)?)
}

fn parse_file(tokens: TokenStream) -> Result<syn::File, Error> {
    syn::parse2::<syn::File>(tokens)
        .map_err(|e| Error::Other(format!("internal error: emitted code does not parse: {e}")))
}

/// [`render`] for code already parsed.
fn render_file(header: &str, module_doc: &str, file: syn::File) -> Result<String, Error> {
    let mut body = unparse_spaced(&file);
    if may_need_escapes(&body) {
        let escaped = parse_file(escape_bidi(quote::ToTokens::into_token_stream(file)))?;
        body = unparse_spaced(&escaped);
    }
    let mut out = String::new();
    out.push_str(&format!("// {header}\n"));
    if !module_doc.is_empty() {
        out.push_str(&format!("//! {module_doc}\n"));
    }
    out.push('\n');
    out.push_str(&body);
    Ok(out)
}

/// `file` formatted by prettyplease, with a blank line between top-level items (but not between
/// consecutive `use` or `mod` declarations), as a person would write it.
fn unparse_spaced(file: &syn::File) -> String {
    let mut out = prettyplease::unparse(&syn::File {
        shebang: file.shebang.clone(),
        frontmatter: file.frontmatter.clone(),
        attrs: file.attrs.clone(),
        items: Vec::new(),
    });
    let mut previous: Option<&syn::Item> = None;
    for item in &file.items {
        let grouped = matches!(
            (previous, item),
            (Some(syn::Item::Use(_)), syn::Item::Use(_))
                | (Some(syn::Item::Mod(_)), syn::Item::Mod(_))
        );
        if previous.is_some() && !grouped {
            out.push('\n');
        }
        // One item at a time: cloning the item, not the whole file around it.
        out.push_str(&prettyplease::unparse(&syn::File {
            shebang: None,
            frontmatter: None,
            attrs: Vec::new(),
            items: vec![item.clone()],
        }));
        previous = Some(item);
    }
    out
}

/// Whether formatted code may hold a literal that [`escape_bidi`] would rewrite: one whose
/// value has a direction-changing character or (in a doc attribute) a carriage return. Such a
/// value shows in the text raw (doc comments, raw strings) or escaped.
fn may_need_escapes(text: &str) -> bool {
    text.contains("\\u{") || text.contains("\\r") || text.chars().any(|c| c == '\r' || is_bidi(c))
}

/// Characters that change the visible direction of text (the "Trojan Source" set). rustc
/// rejects them raw in literals and comments, so spec text carrying them is written escaped.
fn is_bidi(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}')
}

/// Rewrites every string literal that holds a direction-changing character with that character
/// as a `\u{...}` escape, so the literal's value is unchanged. In doc attributes, which are
/// printed as `///` comments, the character is replaced by the visible text `\u{...}`.
fn escape_bidi(tokens: TokenStream) -> TokenStream {
    escape_bidi_in(tokens, false)
}

fn escape_bidi_in(tokens: TokenStream, in_doc: bool) -> TokenStream {
    use proc_macro2::{Delimiter, Group, Literal, TokenTree};
    tokens
        .into_iter()
        .map(|tt| match tt {
            TokenTree::Group(g) => {
                let is_doc = g.delimiter() == Delimiter::Bracket
                    && matches!(g.stream().into_iter().next(), Some(TokenTree::Ident(i)) if i == "doc");
                let mut out = Group::new(g.delimiter(), escape_bidi_in(g.stream(), is_doc));
                out.set_span(g.span());
                TokenTree::Group(out)
            }
            TokenTree::Literal(lit) => {
                let Ok(value) = syn::parse_str::<syn::LitStr>(&lit.to_string()).map(|l| l.value())
                else {
                    return TokenTree::Literal(lit);
                };
                // rustc rejects a bare CR in doc comments; in docs it becomes a line break.
                let value = if in_doc && value.contains('\r') {
                    value.replace("\r\n", "\n").replace('\r', "\n")
                } else if !value.chars().any(is_bidi) {
                    return TokenTree::Literal(lit);
                } else {
                    value
                };
                let mut escaped = String::from("\"");
                for c in value.chars() {
                    if is_bidi(c) && in_doc {
                        escaped.push_str(&format!("\\\\u{{{:x}}}", c as u32));
                    } else if is_bidi(c) {
                        escaped.push_str(&format!("\\u{{{:x}}}", c as u32));
                    } else {
                        escaped.extend(c.escape_debug());
                    }
                }
                escaped.push('"');
                escaped
                    .parse::<Literal>()
                    .map(TokenTree::Literal)
                    .unwrap_or(TokenTree::Literal(lit))
            }
            other => other,
        })
        .collect()
}

/// The `types.rs` code: `pub mod input` and `pub mod output`, typify-generated.
fn types(
    server: &ir::Server,
    warnings: &mut Vec<Warning>,
) -> Result<(syn::File, BTreeMap<String, ToolTypes>), Error> {
    let mut input_defs = BTreeMap::new();
    let mut output_defs = BTreeMap::new();
    let mut input_roots = Vec::new();
    let mut output_roots = Vec::new();
    for tool in &server.tools {
        let (schema, defs) = split_defs(&tool.input_schema);
        input_defs.extend(defs);
        input_roots.push(typify::Root {
            tool: tool.name.clone(),
            type_name: format!("{}Args", tool.type_stem),
            schema,
        });
        if let Some(out) = &tool.output_schema {
            let (schema, defs) = split_defs(out);
            output_defs.extend(defs);
            output_roots.push(typify::Root {
                tool: tool.name.clone(),
                type_name: format!("{}Output", tool.type_stem),
                schema,
            });
        }
    }
    crate::progress::step(|| {
        format!(
            "argument types: {} schemas, {} tools",
            input_defs.len(),
            input_roots.len()
        )
    });
    let input = typify::build("input", &input_defs, &input_roots, warnings);
    crate::progress::step(|| {
        format!(
            "output types: {} schemas, {} tools",
            output_defs.len(),
            output_roots.len()
        )
    });
    let output = typify::build("output", &output_defs, &output_roots, warnings);
    crate::progress::step(|| "writing code".to_owned());
    let mut map: BTreeMap<String, ToolTypes> = BTreeMap::new();
    for tool in &server.tools {
        map.insert(
            tool.name.clone(),
            ToolTypes {
                args: input.typed.get(&tool.name).cloned(),
                output: output.typed.get(&tool.name).cloned(),
            },
        );
    }
    // The modules' items come parsed from typify; only the two module shells are parsed here.
    // What they allow is what typify's output needs on any spec: schemas without descriptions
    // give undocumented fields and variants, not every type or default function is used by
    // the server, enum values become variant names as they are (GitHub's `+1` is `plus1`),
    // typify's code is not written to clippy's taste (e.g. derivable impls), and spec text in
    // doc comments may break rustdoc's link and HTML rules.
    let mut file = parse_file(quote::quote! {
        /// Argument types: one `<Tool>Args` struct per tool, plus the schemas they use.
        #[allow(missing_docs, dead_code, non_camel_case_types, clippy::all, rustdoc::all)]
        pub mod input {}
        /// Output types: one `<Tool>Output` struct per tool that has an output schema.
        #[allow(missing_docs, dead_code, non_camel_case_types, clippy::all, rustdoc::all)]
        pub mod output {}
    })?;
    for (item, items) in file.items.iter_mut().zip([input.items, output.items]) {
        if let syn::Item::Mod(syn::ItemMod {
            content: Some((_, content)),
            ..
        }) = item
        {
            *content = items;
        }
    }
    Ok((file, map))
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
