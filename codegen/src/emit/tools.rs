//! `src/tools.rs`: server constants and the static tool table, which the runtime's
//! `OpenApiTools` drives.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::declarations;
use crate::ir;

/// The name of a tool's `ToolDef` constant.
pub(crate) fn const_ident(tool: &ir::Tool) -> proc_macro2::Ident {
    format_ident!(
        "{}",
        tool.method_name.trim_end_matches('_').to_ascii_uppercase() + "_TOOL"
    )
}

fn location(loc: ir::ArgLocation) -> TokenStream {
    match loc {
        ir::ArgLocation::Path => quote!(::mcpgen::Location::Path),
        ir::ArgLocation::Query => quote!(::mcpgen::Location::Query),
        ir::ArgLocation::Header => quote!(::mcpgen::Location::Header),
        ir::ArgLocation::Cookie => quote!(::mcpgen::Location::Cookie),
        ir::ArgLocation::BodyField => quote!(::mcpgen::Location::BodyField),
        ir::ArgLocation::Body => quote!(::mcpgen::Location::Body),
    }
}

/// One argument's binding: `ArgBinding::new(arg, location)` and a setter for each field that
/// differs from the default.
fn arg_binding(b: &ir::ArgBinding) -> TokenStream {
    let arg = &b.arg;
    let loc = location(b.location);
    let mut tokens = quote!(::mcpgen::ArgBinding::new(#arg, #loc));
    if b.wire != b.arg {
        let wire = &b.wire;
        tokens.extend(quote!(.wire(#wire)));
    }
    if b.required {
        tokens.extend(quote!(.required()));
    }
    if let Some(style) = &b.style {
        tokens.extend(quote!(.style(#style)));
    }
    if let Some(explode) = b.explode {
        tokens.extend(quote!(.explode(#explode)));
    }
    if b.allow_reserved {
        tokens.extend(quote!(.allow_reserved()));
    }
    tokens
}

/// A request body's binding, stating only what differs from the default.
fn body_binding(b: &ir::BodyBinding) -> TokenStream {
    let ct = &b.content_type;
    let mut tokens = quote!(::mcpgen::BodyBinding::new(#ct));
    if b.required {
        tokens.extend(quote!(.required()));
    }
    if !b.encoding.is_empty() {
        let encoding = b.encoding.iter().map(|e| {
            let property = &e.property;
            let mut tokens = quote!(::mcpgen::PropertyEncoding::new(#property));
            if let Some(content_type) = &e.content_type {
                tokens.extend(quote!(.content_type(#content_type)));
            }
            if let Some(style) = &e.style {
                tokens.extend(quote!(.style(#style)));
            }
            if let Some(explode) = e.explode {
                tokens.extend(quote!(.explode(#explode)));
            }
            if e.allow_reserved {
                tokens.extend(quote!(.allow_reserved()));
            }
            tokens
        });
        tokens.extend(quote!(.encoding(&[#(#encoding),*])));
    }
    tokens
}

/// The operation's HTTP binding, stating only what differs from the default.
fn http_binding(http: &ir::HttpBinding) -> TokenStream {
    let method = &http.method;
    let path = &http.path;
    let operation_id = &http.operation_id;
    let mut tokens = quote!(::mcpgen::HttpBinding::new(#method, #path, #operation_id));
    if !http.args.is_empty() {
        let args = http.args.iter().map(arg_binding);
        tokens.extend(quote!(.args(&[#(#args),*])));
    }
    if let Some(body) = &http.body {
        let body = body_binding(body);
        tokens.extend(quote!(.body(#body)));
    }
    if !http.security.is_empty() {
        let security = &http.security;
        tokens.extend(quote!(.security(&[#(#security),*])));
    }
    if let Some(url) = &http.server_url {
        tokens.extend(quote!(.server_url(#url)));
    }
    if http.task {
        tokens.extend(quote!(.task()));
    }
    if !http.cancel.is_empty() {
        let paths = &http.cancel;
        tokens.extend(quote!(.cancel_by_delete(&[#(#paths),*])));
    }
    tokens
}

/// Whether the allowlist or the access gave any hint (a table without one states none).
pub(super) fn has_hints(a: ir::Annotations) -> bool {
    a.read_only.is_some()
        || a.destructive.is_some()
        || a.idempotent.is_some()
        || a.open_world.is_some()
}

/// The hints, as `ToolAnnotations::NONE` with a setter per hint given.
fn annotations(a: ir::Annotations) -> TokenStream {
    let mut tokens = quote!(::mcpgen::ToolAnnotations::NONE);
    if let Some(hint) = a.read_only {
        tokens.extend(quote!(.read_only(#hint)));
    }
    if let Some(hint) = a.destructive {
        tokens.extend(quote!(.destructive(#hint)));
    }
    if let Some(hint) = a.idempotent {
        tokens.extend(quote!(.idempotent(#hint)));
    }
    if let Some(hint) = a.open_world {
        tokens.extend(quote!(.open_world(#hint)));
    }
    tokens
}

/// A tool's `ToolDef`: `ToolDef::new(name, description, input schema)` and a setter for each
/// field that differs from the default. Schemas are pretty-printed raw strings.
fn tool_def(tool: &ir::Tool, declaration: TokenStream) -> TokenStream {
    let name = &tool.name;
    let description = &tool.description;
    let input = raw_str(&schema_text(&tool.input_schema));
    let mut tokens = quote!(::mcpgen::ToolDef::new(#name, #description, #input));
    if let Some(title) = &tool.title {
        tokens.extend(quote!(.title(#title)));
    }
    if let Some(schema) = &tool.output_schema {
        let lit = raw_str(&schema_text(schema));
        tokens.extend(quote!(.output_schema(#lit)));
    }
    if let Some(schema) = &tool.full_input_schema {
        let lit = raw_str(&schema_text(schema));
        tokens.extend(quote!(.full_input_schema(#lit)));
    }
    if let Some(schema) = &tool.full_output_schema {
        let lit = raw_str(&schema_text(schema));
        tokens.extend(quote!(.full_output_schema(#lit)));
    }
    if tool.is_summarised() {
        tokens.extend(quote!(.full_defs(&FULL_DEFS)));
    }
    if let Some(schema) = &tool.documented_output_schema {
        let lit = raw_str(&schema_text(schema));
        tokens.extend(quote!(.documented_output_schema(#lit)));
    }
    if tool.wrap_output {
        tokens.extend(quote!(.wrap_output()));
    }
    if tool.access == ir::Access::Read {
        tokens.extend(quote!(.read()));
    }
    if has_hints(tool.annotations) {
        let hints = annotations(tool.annotations);
        tokens.extend(quote!(.annotations(#hints)));
    }
    if tool.confirm {
        tokens.extend(quote!(.confirm()));
    }
    if let Some(scope) = &tool.required_scope {
        tokens.extend(quote!(.required_scope(#scope)));
    }
    if let Some(plugin) = &tool.plugin {
        tokens.extend(quote!(.plugin(#plugin)));
    }
    let http = http_binding(&tool.http);
    tokens.extend(quote!(.http(#http)));
    tokens.extend(declaration);
    if tool.view.is_some() {
        let view = view_ident(tool);
        tokens.extend(quote!(.view(&#view)));
    }
    tokens
}

/// The name of a tool's `ViewDef` static.
fn view_ident(tool: &ir::Tool) -> proc_macro2::Ident {
    format_ident!(
        "{}_VIEW",
        tool.method_name.trim_end_matches('_').to_ascii_uppercase()
    )
}

/// The tool's `ViewDef` static, when it has a view: its name and its layout as JSON, named by
/// its file in `views/` when `layout_files` is on, else as a string literal.
fn view_item(tool: &ir::Tool, layout_files: bool) -> Option<TokenStream> {
    let layout = tool.view.as_ref()?;
    let ident = view_ident(tool);
    let name = &tool.name;
    let json = if layout_files {
        let file = format!("../{}", super::views::path(&tool.name));
        quote!(::std::include_str!(#file))
    } else {
        raw_str(&layout.to_json())
    };
    let doc = format!(
        " The `{}` tool's view (a {}).",
        tool.name,
        layout.kind.as_str()
    );
    Some(quote! {
        #[doc = #doc]
        pub static #ident: ::mcpgen::ViewDef = ::mcpgen::ViewDef::new(#name, #json);
    })
}

/// The schema as indented JSON, one key per line, for review; the server parses it once at
/// start-up, so the layout does not reach the wire.
pub(super) fn schema_text(v: &serde_json::Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_else(|_| v.to_string())
}

/// Any serializable value as pretty JSON (empty when it cannot be written, which maps of
/// schemas never are).
fn pretty_json_of(v: &impl serde::Serialize) -> String {
    serde_json::to_string_pretty(v).unwrap_or_default()
}

/// The texts of `FULL_DEFS`: the input and the output definitions, each a JSON object.
pub(super) fn full_defs_texts(server: &ir::Server) -> (String, String) {
    // A `BTreeMap` prints as a JSON object in name order, as `tools.full.json` lists it.
    (
        pretty_json_of(&server.full_defs.input),
        pretty_json_of(&server.full_defs.output),
    )
}

/// `FULL_DEFS`, the definitions the tools' full schemas share, when a tool has a full schema.
fn full_defs_item(server: &ir::Server) -> TokenStream {
    if !server.tools.iter().any(|t| t.is_summarised()) {
        return TokenStream::new();
    }
    let (input, output) = full_defs_texts(server);
    let (input, output) = (raw_str(&input), raw_str(&output));
    quote! {
        /// The definitions the tools' full schemas share (`#/$defs/NAME`), each held once.
        pub static FULL_DEFS: ::mcpgen::FullDefs = ::mcpgen::FullDefs {
            input: #input,
            output: #output,
        };
    }
}

/// A raw string literal (`r#"..."#`) holding `text`, with enough `#`s that nothing in `text` can
/// end it. Used for JSON schemas, which read better unescaped.
pub(crate) fn raw_str(text: &str) -> TokenStream {
    let mut hashes = 1;
    while text.contains(&format!("\"{}", "#".repeat(hashes))) {
        hashes += 1;
    }
    let h = "#".repeat(hashes);
    match format!("r{h}\"{text}\"{h}").parse::<proc_macro2::Literal>() {
        Ok(lit) => quote!(#lit),
        Err(_) => quote!(#text),
    }
}

fn security_scheme(s: &ir::SecurityScheme) -> TokenStream {
    let name = &s.name;
    let kind = match &s.kind {
        ir::SecurityKind::ApiKeyHeader(n) => {
            quote!(::mcpgen::SecuritySchemeKind::ApiKeyHeader(#n))
        }
        ir::SecurityKind::ApiKeyQuery(n) => {
            quote!(::mcpgen::SecuritySchemeKind::ApiKeyQuery(#n))
        }
        ir::SecurityKind::ApiKeyCookie(n) => {
            quote!(::mcpgen::SecuritySchemeKind::ApiKeyCookie(#n))
        }
        ir::SecurityKind::Bearer => quote!(::mcpgen::SecuritySchemeKind::Bearer),
        ir::SecurityKind::Basic => quote!(::mcpgen::SecuritySchemeKind::Basic),
        ir::SecurityKind::OAuth2 => quote!(::mcpgen::SecuritySchemeKind::OAuth2),
        ir::SecurityKind::Other => quote!(::mcpgen::SecuritySchemeKind::Other),
    };
    quote! { ::mcpgen::SecurityScheme { name: #name, kind: #kind } }
}

/// The items of `src/tools.rs`, one token stream each, in file order: made one at a time, as
/// the writer asks for them (a large API's table runs to hundreds of megabytes). The tools'
/// TypeScript declarations come from `declarations`; each view's layout is named by its file in
/// `views/` when `layout_files` is on.
pub(crate) fn items<'a>(
    server: &'a ir::Server,
    declarations: &'a declarations::Built,
    layout_files: bool,
) -> impl Iterator<Item = TokenStream> + 'a {
    let name = &server.name;
    let version = &server.version;
    let title = &server.title;
    let description = &server.description;
    let upstream = match &server.upstream_url {
        Some(url) => quote!(::std::option::Option::Some(#url)),
        None => quote!(::std::option::Option::None),
    };
    let schemes = server.security_schemes.iter().map(security_scheme);
    let full_defs = full_defs_item(server);
    let head = [
        quote! {
            /// Server name.
            pub const SERVER_NAME: &str = #name;
        },
        quote! {
            /// Server version.
            pub const SERVER_VERSION: &str = #version;
        },
        quote! {
            /// Title of the API the tools call.
            pub const API_TITLE: &str = #title;
        },
        quote! {
            /// Server description.
            pub const SERVER_DESCRIPTION: &str = #description;
        },
        quote! {
            /// Default upstream base URL, from the allowlist or the spec's `servers`.
            pub const DEFAULT_UPSTREAM_URL: ::std::option::Option<&str> = #upstream;
        },
        quote! {
            /// Security schemes the tools accept, for configuring upstream credentials.
            pub static SECURITY_SCHEMES: &[::mcpgen::SecurityScheme] = &[#(#schemes),*];
        },
    ];
    let consts = server.tools.iter().enumerate().flat_map(move |(i, t)| {
        let ident = const_ident(t);
        let def = tool_def(t, declarations.setter(i));
        let doc = format!(
            " The `{}` tool ({} {}).",
            t.name, t.http.method, t.http.path
        );
        view_item(t, layout_files)
            .into_iter()
            .chain(std::iter::once(quote! {
                #[doc = #doc]
                pub const #ident: ::mcpgen::ToolDef = #def;
            }))
    });
    let table = server.tools.iter().map(const_ident);
    let tool_count = server.tools.len();
    let limits: Vec<TokenStream> = server
        .tools
        .iter()
        .filter_map(|t| {
            let (per_second, burst) = t.rate_limit?;
            let name = &t.name;
            Some(quote! { ::mcpgen::ToolRate::new(#name, #per_second, #burst) })
        })
        .collect();
    let (limits_item, with_limits) = if limits.is_empty() {
        (None, quote! {})
    } else {
        (
            Some(quote! {
                /// Per-tool rate limits from the allowlist (`rate_limit:`), per principal.
                pub static RATE_LIMITS: &[::mcpgen::ToolRate] = &[#(#limits),*];
            }),
            quote! { .with_rate_limits(RATE_LIMITS) },
        )
    };
    let types = declarations.types_item();
    let tail = [
        (!types.is_empty()).then_some(types),
        (!full_defs.is_empty()).then_some(full_defs),
        Some(quote! {
            /// Every tool, in allowlist order.
            pub static TOOLS: &[::mcpgen::ToolDef; #tool_count] = &[#(#table),*];
        }),
        limits_item,
        Some(quote! {
            /// The tools, calling the API through `upstream`, with the search index compiled in.
            pub fn tool_set(upstream: ::mcpgen::Upstream) -> ::mcpgen::OpenApiTools {
                ::mcpgen::OpenApiTools::new(TOOLS, upstream)
                    .with_search_index(crate::search::SEARCH_INDEX)
                    #with_limits
            }
        }),
    ];
    head.into_iter()
        .chain(consts)
        .chain(tail.into_iter().flatten())
}
