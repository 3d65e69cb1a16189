//! `src/tools.rs`: server constants, the static tool table and the dispatcher.

use std::collections::BTreeMap;

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::ToolTypes;
use crate::ir;

fn opt_str(v: &Option<String>) -> TokenStream {
    match v {
        Some(s) => quote! { ::std::option::Option::Some(#s) },
        None => quote! { ::std::option::Option::None },
    }
}

fn opt_bool(v: Option<bool>) -> TokenStream {
    match v {
        Some(b) => quote! { ::std::option::Option::Some(#b) },
        None => quote! { ::std::option::Option::None },
    }
}

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

fn tool_def(tool: &ir::Tool) -> TokenStream {
    let name = &tool.name;
    let title = opt_str(&tool.title);
    let description = &tool.description;
    let input = raw_str(&compact_json(&tool.input_schema));
    let output = match &tool.output_schema {
        Some(schema) => {
            let lit = raw_str(&compact_json(schema));
            quote! { ::std::option::Option::Some(#lit) }
        }
        None => quote! { ::std::option::Option::None },
    };
    let documented = match &tool.documented_output_schema {
        Some(schema) => {
            let lit = raw_str(&compact_json(schema));
            quote! { ::std::option::Option::Some(#lit) }
        }
        None => quote! { ::std::option::Option::None },
    };
    let wrap = tool.wrap_output;
    let access = match tool.access {
        ir::Access::Read => quote!(::mcpgen::Access::Read),
        ir::Access::Write => quote!(::mcpgen::Access::Write),
    };
    let a = tool.annotations;
    let (ro, de, id, ow) = (
        opt_bool(a.read_only),
        opt_bool(a.destructive),
        opt_bool(a.idempotent),
        opt_bool(a.open_world),
    );
    let confirm = tool.confirm;
    let scope = opt_str(&tool.required_scope);
    let plugin = opt_str(&tool.plugin);
    let http = &tool.http;
    let method = &http.method;
    let path = &http.path;
    let operation_id = &http.operation_id;
    let args = http.args.iter().map(|b| {
        let arg = &b.arg;
        let wire = &b.wire;
        let loc = location(b.location);
        let required = b.required;
        let style = opt_str(&b.style);
        let explode = opt_bool(b.explode);
        let allow_reserved = b.allow_reserved;
        quote! {
            ::mcpgen::ArgBinding {
                arg: #arg,
                wire: #wire,
                location: #loc,
                required: #required,
                style: #style,
                explode: #explode,
                allow_reserved: #allow_reserved,
            }
        }
    });
    let body = match &http.body {
        Some(b) => {
            let ct = &b.content_type;
            let req = b.required;
            let encoding = b.encoding.iter().map(|e| {
                let property = &e.property;
                let content_type = opt_str(&e.content_type);
                let style = opt_str(&e.style);
                let explode = opt_bool(e.explode);
                let allow_reserved = e.allow_reserved;
                quote! {
                    ::mcpgen::PropertyEncoding {
                        property: #property,
                        content_type: #content_type,
                        style: #style,
                        explode: #explode,
                        allow_reserved: #allow_reserved,
                    }
                }
            });
            quote! {
                ::std::option::Option::Some(::mcpgen::BodyBinding {
                    content_type: #ct,
                    required: #req,
                    encoding: &[#(#encoding),*],
                })
            }
        }
        None => quote! { ::std::option::Option::None },
    };
    let security = &http.security;
    let server_url = opt_str(&http.server_url);
    quote! {
        ::mcpgen::ToolDef {
            name: #name,
            title: #title,
            description: #description,
            input_schema: #input,
            output_schema: #output,
            documented_output_schema: #documented,
            wrap_output: #wrap,
            access: #access,
            annotations: ::mcpgen::ToolAnnotations {
                read_only_hint: #ro,
                destructive_hint: #de,
                idempotent_hint: #id,
                open_world_hint: #ow,
            },
            confirm: #confirm,
            required_scope: #scope,
            plugin: #plugin,
            http: ::std::option::Option::Some(::mcpgen::HttpBinding {
                method: #method,
                path: #path,
                operation_id: #operation_id,
                args: &[#(#args),*],
                body: #body,
                security: &[#(#security),*],
                server_url: #server_url,
            }),
        }
    }
}

fn compact_json(v: &serde_json::Value) -> String {
    v.to_string()
}

/// A raw string literal (`r#"..."#`) holding `text`, with enough `#`s that nothing in `text` can
/// end it. Used for JSON schemas, which read better unescaped.
fn raw_str(text: &str) -> TokenStream {
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
        ir::SecurityKind::Other => quote!(::mcpgen::SecuritySchemeKind::Other),
    };
    quote! { ::mcpgen::SecurityScheme { name: #name, kind: #kind } }
}

/// The tokens of `src/tools.rs`.
pub(crate) fn tokens(server: &ir::Server, types: &BTreeMap<String, ToolTypes>) -> TokenStream {
    let name = &server.name;
    let version = &server.version;
    let title = &server.title;
    let description = &server.description;
    let upstream = opt_str(&server.upstream_url);
    let schemes = server.security_schemes.iter().map(security_scheme);
    let consts = server.tools.iter().map(|t| {
        let ident = const_ident(t);
        let def = tool_def(t);
        let doc = format!(
            " The `{}` tool ({} {}).",
            t.name, t.http.method, t.http.path
        );
        quote! {
            #[doc = #doc]
            pub const #ident: ::mcpgen::ToolDef = #def;
        }
    });
    let table = server.tools.iter().map(const_ident);
    let arms = server.tools.iter().enumerate().map(|(i, t)| {
        let tool_name = &t.name;
        let decode = match types.get(&t.name).and_then(|ty| ty.args.as_ref()) {
            Some(ty) => {
                let ty = format_ident!("{}", ty);
                quote! {
                    let _typed: crate::types::input::#ty =
                        ::mcpgen::__private::decode_args(name, &args)?;
                }
            }
            None => quote! {},
        };
        quote! {
            #tool_name => {
                #decode
                ::std::result::Result::Ok(self.upstream.invoke_with(&TOOLS[#i], args, ctx).await)
            }
        }
    });
    let tool_count = server.tools.len();
    quote! {
        /// Server name.
        pub const SERVER_NAME: &str = #name;
        /// Server version.
        pub const SERVER_VERSION: &str = #version;
        /// Title of the API the tools call.
        pub const API_TITLE: &str = #title;
        /// Server description.
        pub const SERVER_DESCRIPTION: &str = #description;
        /// Default upstream base URL, from the allowlist or the spec's `servers`.
        pub const DEFAULT_UPSTREAM_URL: ::std::option::Option<&str> = #upstream;
        /// Security schemes the tools accept, for configuring upstream credentials.
        pub static SECURITY_SCHEMES: &[::mcpgen::SecurityScheme] = &[#(#schemes),*];

        #(#consts)*

        /// Every tool, in allowlist order.
        pub static TOOLS: &[::mcpgen::ToolDef; #tool_count] = &[#(#table),*];

        /// The dispatcher: decodes typed arguments and calls the upstream API.
        #[derive(Debug, Clone)]
        pub struct Tools {
            upstream: ::mcpgen::Upstream,
        }

        impl Tools {
            /// Tools that call the API through `upstream`.
            pub fn new(upstream: ::mcpgen::Upstream) -> Self {
                Self { upstream }
            }

            /// The upstream client.
            pub fn upstream(&self) -> &::mcpgen::Upstream {
                &self.upstream
            }
        }

        impl ::mcpgen::ToolSet for Tools {
            fn tools(&self) -> &'static [::mcpgen::ToolDef] {
                TOOLS
            }

            fn call<'a>(
                &'a self,
                name: &'a str,
                args: ::serde_json::Map<::std::string::String, ::serde_json::Value>,
                ctx: &'a ::mcpgen::CallContext,
            ) -> ::mcpgen::BoxFuture<'a, ::std::result::Result<::mcpgen::ToolResult, ::mcpgen::ToolError>> {
                ::std::boxed::Box::pin(async move {
                    match name {
                        #(#arms)*
                        _ => ::std::result::Result::Err(::mcpgen::ToolError::UnknownTool(name.to_owned())),
                    }
                })
            }
        }
    }
}
