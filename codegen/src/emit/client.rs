//! `src/client.rs`: typed stubs, one async method per tool, over any MCP connection.

use std::collections::BTreeMap;

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::ToolTypes;
use crate::ir;

/// The tokens of `src/client.rs`.
pub(crate) fn tokens(server: &ir::Server, types: &BTreeMap<String, ToolTypes>) -> TokenStream {
    let methods = server.tools.iter().map(|t| {
        let method = format_ident!("{}", t.method_name);
        let tool_name = &t.name;
        let ty = types.get(&t.name).cloned().unwrap_or_default();
        let args_ty = match &ty.args {
            Some(n) => {
                let n = format_ident!("{}", n);
                quote!(crate::types::input::#n)
            }
            None => quote!(::serde_json::Map<::std::string::String, ::serde_json::Value>),
        };
        let out_ty = match &ty.output {
            Some(n) => {
                let n = format_ident!("{}", n);
                quote!(crate::types::output::#n)
            }
            None => quote!(::serde_json::Value),
        };
        let mut doc = vec![format!("Calls `{}` ({} {}).", t.name, t.http.method, t.http.path), String::new()];
        doc.extend(t.description.lines().map(|l| l.to_owned()));
        let doc = doc.iter().map(|l| {
            let l = if l.is_empty() { String::new() } else { format!(" {l}") };
            quote!(#[doc = #l])
        });
        quote! {
            #(#doc)*
            pub async fn #method(&self, args: &#args_ty) -> ::std::result::Result<#out_ty, ::mcpgen::CallError> {
                ::mcpgen::call_typed(&self.conn, #tool_name, args, false).await
            }
        }
    });
    quote! {
        /// Typed access to the tools of a server over any [`::mcpgen::McpConnection`].
        #[derive(Debug, Clone)]
        pub struct Client<C> {
            conn: C,
        }

        impl<C: ::mcpgen::McpConnection> Client<C> {
            /// A client over `conn`.
            pub fn new(conn: C) -> Self {
                Self { conn }
            }

            /// The underlying connection.
            pub fn connection(&self) -> &C {
                &self.conn
            }

            #(#methods)*
        }
    }
}
