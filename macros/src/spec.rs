//! `generate!`: the modules `mcpgen generate` writes for an OpenAPI document and its
//! allowlist, included in the calling crate. The engine does the work; this module reads the
//! macro's input, reports the engine's errors on the path literals, and turns the emitted
//! files into modules.

use std::path::{Path, PathBuf};
use std::str::FromStr;

use proc_macro2::{Ident, TokenStream, TokenTree};
use quote::{format_ident, quote};
use syn::parse::{Parse, ParseStream};
use syn::{LitStr, Token};

/// `spec = "...", tools = "..."` and optionally `plugins = "..."`, in any order.
struct Input {
    spec: LitStr,
    tools: LitStr,
    plugins: Option<LitStr>,
}

impl Parse for Input {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let mut spec = None;
        let mut tools = None;
        let mut plugins = None;
        while !input.is_empty() {
            let key: Ident = input.parse()?;
            input.parse::<Token![=]>()?;
            let value: LitStr = input.parse()?;
            let slot = match key.to_string().as_str() {
                "spec" => &mut spec,
                "tools" => &mut tools,
                "plugins" => &mut plugins,
                _ => {
                    return Err(syn::Error::new_spanned(
                        key,
                        "unknown key; write `generate!(spec = \"specs/x/openapi.yaml\", \
                         tools = \"specs/x/mcp_tools.yaml\")`, optionally with \
                         `plugins = \"specs/x/plugins\"`",
                    ));
                }
            };
            if slot.is_some() {
                return Err(syn::Error::new_spanned(key, "this key is given twice"));
            }
            *slot = Some(value);
            if !input.is_empty() {
                input.parse::<Token![,]>()?;
            }
        }
        match (spec, tools) {
            (Some(spec), Some(tools)) => Ok(Self {
                spec,
                tools,
                plugins,
            }),
            (None, _) => Err(input.error("missing `spec = \"path/to/openapi.yaml\"`")),
            (_, None) => Err(input.error("missing `tools = \"path/to/mcp_tools.yaml\"`")),
        }
    }
}

/// `path` with each `${NAME}` replaced by the environment variable `NAME` as the compiler sees
/// it (`${OUT_DIR}` for a spec a build script fetched, `${CARGO_MANIFEST_DIR}`, or a variable
/// of one's own). The error says which variable is unset or which `${` is not closed.
fn expand_env(path: &str) -> Result<String, String> {
    let mut out = String::with_capacity(path.len());
    let mut rest = path;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            return Err(format!(
                "`${{` without a closing `}}` in `{path}`; write `${{NAME}}` for the environment \
                 variable NAME"
            ));
        };
        let name = &after[..end];
        let valid = !name.is_empty()
            && !name.starts_with(|c: char| c.is_ascii_digit())
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !valid {
            return Err(format!(
                "`${{{name}}}` in `{path}` is not an environment variable name (letters, digits \
                 and `_`, not starting with a digit)"
            ));
        }
        match std::env::var(name) {
            Ok(value) => out.push_str(&value),
            Err(_) => {
                return Err(format!(
                    "cannot read `{path}`: the environment variable `{name}` is not set (or not \
                     UTF-8) when this crate compiles"
                ));
            }
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// The including crate's folder: paths in the macro are relative to it.
fn manifest_dir() -> PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR").map_or_else(|| PathBuf::from("."), PathBuf::from)
}

/// Expands `generate!(spec = "...", tools = "...")`.
pub(crate) fn generate(input: TokenStream) -> TokenStream {
    let input: Input = match syn::parse2(input) {
        Ok(input) => input,
        Err(e) => return e.into_compile_error(),
    };
    let root = manifest_dir();
    let mut missing = Vec::new();
    let mut resolve = |lit: &LitStr| match expand_env(&lit.value()) {
        Ok(path) => root.join(path),
        Err(problem) => {
            missing.push(syn::Error::new_spanned(lit, problem));
            PathBuf::new()
        }
    };
    let spec_path = resolve(&input.spec);
    let tools_path = resolve(&input.tools);
    let plugins_path = input.plugins.as_ref().map(|lit| (lit, resolve(lit)));
    if let Some(error) = combine(std::mem::take(&mut missing)) {
        return error.into_compile_error();
    }
    for (lit, path) in [(&input.spec, &spec_path), (&input.tools, &tools_path)] {
        if !path.is_file() {
            missing.push(syn::Error::new_spanned(
                lit,
                format!(
                    "cannot read `{}`: there is no such file (the path is relative to the \
                     folder of the including crate's Cargo.toml)",
                    lit.value()
                ),
            ));
        }
    }
    if let Some((lit, path)) = &plugins_path
        && !path.is_dir()
    {
        missing.push(syn::Error::new_spanned(
            lit,
            format!(
                "cannot read `{}`: there is no such folder (the path is relative to the folder \
                 of the including crate's Cargo.toml)",
                lit.value()
            ),
        ));
    }
    if let Some(error) = combine(missing) {
        return error.into_compile_error();
    }
    let default_name = spec_path
        .parent()
        .and_then(Path::file_name)
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "api".to_owned());
    let mut settings = mcpgen_codegen::Settings::new()
        .with_default_name(default_name)
        .with_labels(input.spec.value(), input.tools.value());
    if let Some((_, path)) = &plugins_path {
        settings = settings.with_plugins(path.clone());
    }
    let generation = match mcpgen_codegen::generate(&spec_path, &tools_path, &settings) {
        Ok(generation) => generation,
        Err(errors) => {
            let reported = errors.0.iter().map(|e| {
                let lit = match &plugins_path {
                    Some((lit, dir)) if blames_folder(e, dir) => *lit,
                    _ if blames_allowlist(e, &tools_path) => &input.tools,
                    _ => &input.spec,
                };
                syn::Error::new_spanned(lit, e.to_string())
            });
            return combine(reported.collect())
                .map(syn::Error::into_compile_error)
                .unwrap_or_default();
        }
    };
    let mut modules = Vec::new();
    for (file, text) in &generation.emitted.files {
        let Some(module) = file
            .strip_prefix("src/")
            .and_then(|f| f.strip_suffix(".rs"))
            .filter(|m| !matches!(*m, "lib" | "main"))
        else {
            continue;
        };
        let tokens = match TokenStream::from_str(text) {
            Ok(tokens) => sibling_paths(tokens),
            Err(e) => {
                return syn::Error::new_spanned(
                    &input.spec,
                    format!("the generated `{file}` does not tokenize: {e}"),
                )
                .into_compile_error();
            }
        };
        let ident = format_ident!("{}", module);
        modules.push(quote! {
            pub mod #ident { #tokens }
        });
    }
    // Reading both files makes the crate rebuild when either changes.
    let spec_file = spec_path.to_string_lossy().into_owned();
    let tools_file = tools_path.to_string_lossy().into_owned();
    // So do the plugin manifests (a plugin folder added later is noticed at the next rebuild).
    let manifests: Vec<String> = plugins_path
        .iter()
        .flat_map(|(_, dir)| manifest_files(dir))
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    quote! {
        const _: &[u8] = ::std::include_bytes!(#spec_file);
        const _: &[u8] = ::std::include_bytes!(#tools_file);
        #(const _: &[u8] = ::std::include_bytes!(#manifests);)*
        #(#modules)*
    }
}

/// The `*/manifest.json` files of a plugins folder, sorted.
fn manifest_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.path().join("manifest.json"))
        .filter(|path| path.is_file())
        .collect();
    files.sort();
    files
}

/// Whether `error` is about a file inside the plugins folder `dir`.
fn blames_folder(error: &mcpgen_codegen::Error, dir: &Path) -> bool {
    error_path(error).is_some_and(|path| path.starts_with(dir))
}

/// The file an error is about, when it names one.
fn error_path(error: &mcpgen_codegen::Error) -> Option<&Path> {
    use mcpgen_codegen::Error;
    match error {
        Error::Io { path, .. }
        | Error::Syntax { path, .. }
        | Error::Spec { path, .. }
        | Error::Ref { path, .. }
        | Error::Allowlist { path, .. } => Some(path),
        _ => None,
    }
}

/// Whether `error` is about the allowlist rather than the spec.
fn blames_allowlist(error: &mcpgen_codegen::Error, tools_path: &Path) -> bool {
    use mcpgen_codegen::Error;
    match error {
        Error::Allowlist { .. } => true,
        Error::Io { path, .. } | Error::Syntax { path, .. } => path == tools_path,
        _ => false,
    }
}

fn combine(errors: Vec<syn::Error>) -> Option<syn::Error> {
    errors.into_iter().reduce(|mut all, e| {
        all.combine(e);
        all
    })
}

/// Generated modules name each other as `crate::types::...`; included in a module of the
/// calling crate, they are siblings, so `crate::` becomes `super::`. `crate` is a keyword, so
/// it only ever appears as a path root or in `pub(crate)`, which stays.
fn sibling_paths(tokens: TokenStream) -> TokenStream {
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    let mut out = Vec::with_capacity(tokens.len());
    for (i, token) in tokens.iter().enumerate() {
        match token {
            TokenTree::Ident(ident) if ident == "crate" => {
                let path_follows = matches!(
                    tokens.get(i + 1),
                    Some(TokenTree::Punct(p)) if p.as_char() == ':'
                );
                if path_follows {
                    out.push(TokenTree::Ident(Ident::new("super", ident.span())));
                } else {
                    out.push(token.clone());
                }
            }
            TokenTree::Group(group) => {
                let mut inner =
                    proc_macro2::Group::new(group.delimiter(), sibling_paths(group.stream()));
                inner.set_span(group.span());
                out.push(TokenTree::Group(inner));
            }
            other => out.push(other.clone()),
        }
    }
    out.into_iter().collect()
}
